/* SPDX-License-Identifier: MIT */
/* sweep.h: the plan of `pmcollect --sweep SPEC --repeat K` (docs/scaling.md): the SPEC parser, the
 * interleaved list of runs, and {threads} substitution in the command's arguments. Pure: no fork,
 * no I/O; choosing which CPUs a run gets (compactly, from hwloc) is the caller's. */
#ifndef PMC_SWEEP_H
#define PMC_SWEEP_H

#include <stddef.h>
#include <stdint.h>


/* Errors: one negative code per kind of bad input, so the caller and the tests can tell them
 * apart; every one comes with a one-line reason in `why`. */
enum pmc_sweep_err {
	PMC_SWEEP_E_SYNTAX = -1,      /* not KEY=LIST[;KEY=LIST], unknown or repeated key, bad list,
					 a period outside 1ms-1s or a quota under 1 ms per period */
	PMC_SWEEP_E_EMPTY = -2,       /* a key with an empty list ("cores=", "threads=,") */
	PMC_SWEEP_E_ZERO = -3,        /* 0 cores or 0 threads in a list, a quota of 0 CPUs or below */
	PMC_SWEEP_E_ONLINE = -4,      /* more cores than the machine has online */
	PMC_SWEEP_E_PLACEHOLDER = -5, /* {threads} in the command without a threads sweep */
	PMC_SWEEP_E_REPEAT = -6,      /* --repeat 0 */
	PMC_SWEEP_E_LIMIT = -7,       /* more than PMC_SWEEP_MAX_RUNS runs, or a value above
					 PMC_SWEEP_MAX_VALUE */
	PMC_SWEEP_E_NOMEM = -8,
};

#define PMC_SWEEP_MAX_RUNS 100000u
#define PMC_SWEEP_MAX_VALUE 65536u
#define PMC_SWEEP_MAX_QUOTAS 64u      /* values of one quota=LIST */
#define PMC_SWEEP_PERIOD_DEFAULT_US 100000.0 /* cgroup v1 and v2's default period (sched-bwc.rst) */

/* One run of the plan. */
struct pmc_sweep_run {
	uint32_t cores;   /* CPUs the run gets; 0: the sweep has no cores key (the caller's default) */
	uint32_t threads; /* OMP_NUM_THREADS and {threads}; 0: the sweep has no threads key */
	double quota_cpus;      /* CPU quota Q in CPUs (CFS bandwidth control: Q x period of CPU
				   time per period); 0: no quota key, or the baseline (unlimited) */
	double quota_period_us; /* its period P, us (PMC_SWEEP_PERIOD_DEFAULT_US unless Q/PERIOD) */
	uint32_t config;  /* index of the configuration (cores, threads, quota) among plan->nconfigs */
	uint32_t rep;     /* repetition, 0 .. repeat-1 */
	int baseline;     /* the baseline run (1 CPU, oversubscribed): config and rep are 0 */
};

struct pmc_sweep_plan {
	struct pmc_sweep_run *runs; /* nruns, in the order to run them; owned, pmc_sweep_plan_free */
	size_t nruns;
	size_t nconfigs;            /* configurations: |cores list| x |threads list| x |quota list| */
	uint32_t repeat;            /* K */
	int has_cores, has_threads, has_quota; /* which keys SPEC gave */
};

/* Parses SPEC and expands it into the runs to make.
 *   SPEC  = ITEM *(";" ITEM)          at most one ITEM per key
 *   ITEM  = ("cores" / "threads") "=" LIST / "quota=" QLIST
 *   LIST  = the cpulist syntax of pm_intlist_parse: "1,2,4,8", "1-16", "1-64:4" (sorted,
 *           duplicates dropped)
 *   QLIST = Q[/PERIOD] *("," Q[/PERIOD]): CPUs (0.5, 1.5) in the order given, each optionally
 *           with its period (1ms to 1s, 100ms by default: "0.5/10ms"); Q x PERIOD at least 1 ms
 *           (sched-bwc.rst: the kernel's limits), at most PMC_SWEEP_MAX_QUOTAS values
 * e.g. "cores=1,2,4,8", "threads=1-16", "cores=1,2;threads=1-16", "quota=0.5,1,1.5,2". With
 * several keys the configurations are every (cores, threads, quota) triple, cores outer, quota
 * inner. The baseline run has no quota (unlimited). Each configuration is run K =
 * repeat times, interleaved (a, b, c, a, b, c, ...: docs/scaling.md, so that machine drift spreads
 * evenly over the configurations). With baseline != 0 a baseline run comes first: cores = 1 and
 * threads = the largest thread count of the sweep (0 without a threads key). online_cpus is the
 * number of CPUs the machine has online (no cores value may exceed it). argv (NULL-terminated, may
 * be NULL) is the command: {threads} in it needs a threads key. On success fills *out (free with
 * pmc_sweep_plan_free) and returns 0; otherwise returns a PMC_SWEEP_E_* code, writes a one-line
 * reason into why (size whysize) and leaves *out empty. */
int pmc_sweep_plan_make(const char *spec, uint32_t repeat, uint32_t online_cpus,
			char *const *argv, int baseline, struct pmc_sweep_plan *out, char *why,
			size_t whysize);

/* Frees the runs of a plan (a zeroed or NULL plan is fine) and zeroes it. */
void pmc_sweep_plan_free(struct pmc_sweep_plan *plan);

/* 1 when an argument of argv (NULL-terminated, may be NULL) contains {threads}. */
int pmc_sweep_argv_uses_threads(char *const *argv);

/* Returns a copy of argv (NULL-terminated) with every {threads} in every argument replaced by the
 * decimal thread count ("pigz -p {threads}" -> "pigz -p 8", "--threads={threads}" ->
 * "--threads=8"), or NULL when out of memory. The vector and its strings are owned by the caller:
 * free with pmc_sweep_argv_free. */
char **pmc_sweep_argv(char *const *argv, uint32_t threads);
void pmc_sweep_argv_free(char **argv);

/* The progress line of run index i (0-based) of the plan, e.g. "[7/24] cores=4 rep 2/3: 1.84 s"
 * (docs/scaling.md), "[1/25] baseline cores=1 threads=16: 9.12 s", "[3/9] quota=1 rep 1/2: 2.49 s"; seconds < 0 leaves out ": N s".
 * Returns buf (always NUL-terminated when size > 0). */
char *pmc_sweep_progress(const struct pmc_sweep_plan *plan, size_t i, double seconds, char *buf,
			 size_t size);

#endif
