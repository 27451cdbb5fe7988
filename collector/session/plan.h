/* SPDX-License-Identifier: MIT */
/* plan.h: the run plan of pmcollect: the list of runs of the traced program one trace records (a
 * plain run, the baseline and calibration runs of --calibrate or --runs; later scaling sweeps and
 * interference levels), each with its role, CPUs, environment overrides and repetition index. */
#ifndef PMC_PLAN_H
#define PMC_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "sources/cpuset.h"
#include "calstop.h"
#include "sweep.h"
#include "pm_cli.h"

#define PMC_PLAN_MAX_RUNS 64
#define PMC_PLAN_MAX_ENV 4

/* What a run is for; its name is RUN_BEGIN "role" (formats/FORMAT.md). */
enum pmc_run_role {
	PMC_ROLE_RUN = 0,     /* a plain run: the program on the CPUs it was given */
	PMC_ROLE_BASELINE,    /* more threads than CPUs: A(m,inf) (Tudor & Teo §III-A-1) */
	PMC_ROLE_CALIBRATION, /* a core count of the memory model, C(n) (Tudor & Teo §II-B, eq. 7) */
	PMC_ROLE_INTERFERENCE, /* the program beside k interference threads (Casas & Bronevetsky §5) */
	PMC_ROLE_SWEEP,       /* one configuration of --sweep (docs/scaling.md; collector/session/sweep.h) */
};

/* Why pmc_plan_make made a decision: of a run (struct pmc_plan_run reason) or of the whole plan
 * (struct pmc_plan_decision). pmc_plan_reason_name gives each a short name. */
enum pmc_plan_reason {
	PMC_PLAN_WHY_NONE = 0,
	PMC_PLAN_WHY_ALL_CPUS,      /* one plain run on every CPU pmcollect may use */
	PMC_PLAN_WHY_CPUS,          /* one run on --cpus */
	PMC_PLAN_WHY_RESTRICTED,    /* one run on the CPUs pmcollect's affinity or cgroup allows */
	PMC_PLAN_WHY_CAL_ONE,       /* --calibrate: 1 CPU, A(m,inf) and C(1) (Tudor & Teo §III-A-1) */
	PMC_PLAN_WHY_CAL_PACKAGE,   /* --calibrate: the c cores of the first package (§II-B) */
	PMC_PLAN_WHY_CAL_NEXT,      /* --calibrate: c + 1, a core of the second package (eq. 9, 10) */
	PMC_PLAN_WHY_RUNS_LIST,     /* --runs: a list the user gave */
	PMC_PLAN_WHY_REPEAT,        /* rounds: --repeat K */
	PMC_PLAN_WHY_REPEAT_DEFAULT,/* rounds: --calibrate's default (3), or 1 for --runs */
	PMC_PLAN_WHY_ADAPTIVE,      /* rounds: as many as fit, ended by calstop.h's rule */
	PMC_PLAN_WHY_SWEEP,         /* --sweep: its configurations x --repeat, made one at a time */
	PMC_PLAN_WHY_SWEEP_BASELINE,/* --sweep: the baseline run on 1 CPU first */
	PMC_PLAN_WHY_THREADS,       /* -t N: OMP_NUM_THREADS on every run */
	PMC_PLAN_WHY_THREAD_LIST,   /* -t LIST: one run per thread count (Allande et al. §3.1) */
	PMC_PLAN_WHY_INTERFERE,     /* --interfere: every level once per round (Casas & Bronevetsky §5.1) */
	PMC_PLAN_WHY_CAL_WINDOW,    /* --calibrate -p --window: each run a window of a running process,
				       its threads moved onto the run's CPUs (guard.h) */
};

/* One variable set in the program's environment for one run (e.g. OMP_NUM_THREADS=8). */
struct pmc_env_override {
	char name[32];
	char value[32];
};

struct pmc_plan_run {
	enum pmc_run_role role;
	char cpus[256];        /* the run's CPUs as a cpulist; "" = every CPU pmcollect may use */
	uint32_t ncpus;        /* CPUs in cpus (the online CPUs when cpus is "") */
	cpu_set_t set;         /* the same CPUs as a CPU set for sched_setaffinity(2) (empty when
				  cpus is ""), so no one parses cpus again */
	struct pmc_env_override env[PMC_PLAN_MAX_ENV]; /* set in the child before exec */
	size_t nenv;
	uint32_t rep;          /* repetition index of this configuration, 0 for the first */
	uint32_t level_k;      /* PMC_ROLE_INTERFERENCE: interferers running beside the program */
	uint32_t nrep;         /* repetitions of this configuration in the plan; 0 = not repeated
				  (RUN_BEGIN then has no "rep") */
	uint32_t config;       /* --sweep: index of the configuration (RUN_BEGIN "sweep") */
	uint32_t sweep_cores;  /* --sweep: the configuration's cores, 0 = no cores key */
	uint32_t sweep_threads;/* --sweep: the configuration's threads, 0 = no threads key */
	double sweep_quota_cpus;      /* --sweep quota=: the run's CPU quota in CPUs, run in --quota's
					 transient cgroup; 0 = no quota (unlimited) */
	double sweep_quota_period_us; /* its period, us */
	const char *placement; /* -t LIST: RUN_BEGIN "placement" (pmc_plan_thread_list), a static
				  string; NULL = not a run of a thread-count list */
	enum pmc_plan_reason reason; /* why pmc_plan_make planned this run (0: not through it) */
};

/* The runs in the order they are recorded; run i is RUN_BEGIN run_id i. */
struct pmc_plan {
	struct pmc_plan_run runs[PMC_PLAN_MAX_RUNS];
	size_t n;
};

/* pmc_plan_reason's short name ("cal_one", "repeat", ...). Static string. */
const char *pmc_plan_reason_name(enum pmc_plan_reason reason);

/* RUN_BEGIN "role" of role: "run", "baseline", "calibration" or "sweep". Static string. */
const char *pmc_role_name(enum pmc_run_role role);

/* Plans a plain run: one run on cpus (the CPU model, parsed once; NULL = every CPU, ncpus then
 * the online count). The run is the model's baseline when it has fewer CPUs than online_cpus and
 * fewer than threads (threads 0 = unknown: a restricted CPU set is taken as one; Tudor & Teo
 * §III-A-1), else role "run". Replaces what plan held. */
void pmc_plan_single(struct pmc_plan *plan, const struct pmc_cpus *cpus, int threads,
		     uint32_t online_cpus);

/* Appends one --runs list as a calibration run (roles are decided by pmc_plan_roles): cpus is the
 * list already parsed (pmc_cpus_parse: a --runs list or CPU expression read once). Returns 0, or PMT_E_INVAL with a one-line reason in why (more than PMC_PLAN_MAX_RUNS
 * runs, a list longer than a run's cpus field). */
int pmc_plan_add_list(struct pmc_plan *plan, const struct pm_intlist *cpus, char *why, size_t whysize);

/* Marks the first run with fewer CPUs than threads (threads 0 = unknown: fewer than online_cpus)
 * as the baseline and every other run as calibration. */
void pmc_plan_roles(struct pmc_plan *plan, int threads, uint32_t online_cpus);

/* Plans the calibration runs on the CPUs of the list `allowed` (the CPUs pmcollect may use),
 * from the hwloc topology, one PU per core, cores of the first package first (compact):
 *   1. the baseline: 1 CPU (M threads on it give A(m,inf), and its C is C(1));
 *   2. c CPUs: every core of the first package (c = its cores);
 *   3. with several packages, c + 1: plus the first core of the second package (eq. 9, 10).
 * topo is the session's loaded topology (collector/session/session.h). Replaces what plan held. Returns 0,
 * or PMT_E_INVAL (only one core) or PMT_E_NOMEM with a one-line reason in why. Source: Tudor & Teo §II-B "(i) single socket ... two
 * runs", "(ii) multiple socket ... 1, c and c + 1 cores". */
int pmc_plan_calibrate(struct pmc_plan *plan, hwloc_topology_t topo, const struct pm_intlist *allowed,
		       char *why, size_t whysize);

/* Plans the active-interference runs (Casas & Bronevetsky §5.1: the program with k = 0..K
 * interferers): R rounds, each running every level of levels[0..nlevels-1] once in order
 * (interleaved, so a drift of the machine's load spreads over every level alike), all on the
 * program's CPUs cpus (the CPU model), role PMC_ROLE_INTERFERENCE, rep = the round.
 * Replaces what plan held. Returns 0, or PMT_E_INVAL with a one-line reason in why (no level,
 * R = 0, more than PMC_PLAN_MAX_RUNS runs). */
int pmc_plan_interfere(struct pmc_plan *plan, const struct pmc_cpus *cpus, const uint32_t *levels,
		       size_t nlevels, uint32_t R, char *why, size_t whysize);

/* Repeats the runs of plan K times, interleaved: runs (a, b, c) become a, b, c, a, b, c, ...
 * (docs/scaling.md: machine drift spreads evenly over the core counts), run r of pass k getting rep = k
 * and nrep = K. K = 1 leaves the plan as it is (nrep 0). Returns 0, or PMT_E_INVAL with a
 * one-line reason in why when K is 0 or the plan would exceed PMC_PLAN_MAX_RUNS. */
int pmc_plan_repeat(struct pmc_plan *plan, uint32_t K, char *why, size_t whysize);

/* The CPUs of the list `allowed` in compact order, as pmc_plan_calibrate picks them (hwloc:
 * one PU per core, the cores of the first package first, then the next package; then the
 * remaining PUs, e.g. SMT siblings, in the same order), so that the first k of them are the
 * compact placement of k cores. Writes up to max CPU numbers to order and their count to *n.
 * topo is the session's loaded topology. Returns 0, or PMT_E_NOMEM with a reason in why. */
int pmc_plan_compact_order(hwloc_topology_t topo, const struct pm_intlist *allowed, uint32_t *order,
			   size_t max, size_t *n, char *why, size_t whysize);

/* -t LIST with --omp-regions: the runs with 1..NC threads of Allande et al. §3.1, which must lie on
 * one socket ("NC being the number of cores in a single socket, the i-th execution runs on threads
 * 0 to i-1"). Replaces plan with n runs, run i a copy of `one` (the plain run's CPUs and role) with
 * OMP_NUM_THREADS=threads[i], and "placement":
 *   - "cpus" when pin is 0 (the user gave --cpus: the runs keep one's CPUs, even across sockets);
 *   - "one_package" when the CPUs of the list `allowed` (what pmcollect may use) lie on one
 *     package by hwloc (or hwloc shows no package): one's CPUs, already one socket;
 *   - "first_package" otherwise: the run gets the first min(threads[i], c) cores of the first
 *     package holding an allowed CPU, one allowed PU per core in hwloc order (compact, as
 *     pmc_plan_calibrate), c = that package's allowed cores; role PMC_ROLE_RUN. A run with more
 *     threads than c shares the c cores (pmanalyze caps NC at the cores per socket).
 * topo is the session's loaded topology (the tests load synthetic ones through HWLOC_XMLFILE).
 * Returns 0, or PMT_E_INVAL (n is 0 or over PMC_PLAN_MAX_RUNS, an override that does not fit) or
 * PMT_E_NOMEM with a one-line reason in why; plan then holds no run. `one` may be a run of plan. */
int pmc_plan_thread_list(struct pmc_plan *plan, hwloc_topology_t topo, const struct pmc_plan_run *one,
			 const uint32_t *threads, size_t n, const struct pm_intlist *allowed, int pin,
			 char *why, size_t whysize);

/* Sets name=value in the environment of every run of the plan (a later override of the same name
 * replaces the earlier one). Returns 0, or PMT_E_INVAL when name or value is too long or a run
 * has PMC_PLAN_MAX_ENV overrides already. */
int pmc_plan_setenv(struct pmc_plan *plan, const char *name, const char *value);

/* Run i of the sweep sw as a plan run (*run, replaced): the baseline (1 CPU) or configuration
 * (cores, threads) with its repetition; k cores are the first k CPUs of compact[0..ncompact-1] (the
 * compact order, pmc_plan_compact_order); no cores key: every CPU (ncpus = online_cpus);
 * OMP_NUM_THREADS is the configuration's threads, else default_threads (-t; 0 = not set). Returns
 * 0, or -1 when the CPU list does not fit a run's cpus field. */
int pmc_plan_sweep_run(const struct pmc_sweep_plan *sw, size_t i, const uint32_t *compact,
			size_t ncompact, uint32_t online_cpus, uint32_t default_threads,
			struct pmc_plan_run *run);

#define PMC_PLAN_MAX_DECISIONS 8

/* One decision of pmc_plan_make about the whole plan, with its reason and a short text that says
 * it with the numbers ("3 rounds of 2 runs (--repeat 3)"). */
struct pmc_plan_decision {
	enum pmc_plan_reason reason;
	char text[160];
};

/* The run plan of one session (pmc_plan_make): the runs, or the sweep made one run at a time, how
 * --calibrate's rounds are cut, and the decisions that made it, in the order they were taken. */
struct pmc_run_plan {
	struct pmc_plan plan;
	/* --sweep: its plan, and the allowed CPUs in compact order (the first k for k cores) */
	struct pmc_sweep_plan sweep;
	uint32_t *compact;
	size_t ncompact;
	/* --calibrate: the rounds of the plan (plan.n = cal_points x calstop.max_rounds), the rule
	 * that ends them when calstop_on (calstop.h) */
	int calstop_on;
	struct pmc_calstop_rule calstop;
	size_t cal_points, cal_one; /* runs per round; the round's run on 1 CPU (C(1)), or cal_points */
	int interfering;            /* the plan's runs have interferers */
	cpu_set_t prog_cpus;        /* the program's CPUs when the plan gives every run the same
				       set of its choosing (interference, a restricted CPU set) */
	int have_prog_cpus;
	struct pmc_plan_decision decisions[PMC_PLAN_MAX_DECISIONS];
	size_t ndecisions;
};

/* What pmc_plan_make plans from: the options, already checked against each other, and the
 * machine as the session read it. Pointers may be NULL where a field says so. */
struct pmc_plan_request {
	hwloc_topology_t topo;          /* the session's loaded topology */
	const struct pm_intlist *usable; /* the CPUs pmcollect may use, sorted */
	int usable_restricted;          /* its affinity or cgroup leaves out online CPUs */
	uint32_t online_cpus;
	const struct pmc_cpus *cpus;    /* --cpus, NULL without */
	int threads;                    /* -t N, 0 without */
	uint32_t repeat;                /* --repeat K, 0 without */
	int calibrate;                  /* --calibrate or --runs */
	int adaptive;                   /* --calibrate's rounds end by calstop.h's rule */
	double window_s;                /* --calibrate -p --window: each run's window, s; 0: whole
					   runs of a command */
	double omega_se;                /* --omega-se: that rule's target */
	double budget_s;                /* --calibrate-budget, s; 0 none */
	const struct pm_intlist *runs;  /* --runs: its lists, parsed and checked, in order; NULL:
					   without --runs, the core counts come from hwloc */
	size_t nruns;
	const char *sweep;              /* --sweep SPEC, NULL without */
	char *const *argv;              /* the command ({threads} placeholders of a sweep) */
	int sweep_baseline;             /* --sweep without --no-baseline */
	const char *threads_list;       /* -t LIST (needs --omp-regions), NULL without */
	int interfere_calibration_only; /* --calibrate-interference without --interfere: no run */
	const struct pmc_cpus *interfere_prog; /* --interfere: the program's CPUs; NULL without */
	const uint32_t *levels;         /* --interfere: the levels (interferers per run) */
	size_t nlevels;
};

/* Errors of pmc_plan_make: what the front end reports (the text is in why) and its exit status. */
enum pmc_plan_err {
	PMC_PLAN_E_USAGE = -1,      /* bad input: exit 2 */
	PMC_PLAN_E_USAGE_LINE = -2, /* bad input, reported with the usage line: exit 2 */
	PMC_PLAN_E_FAILED = -3,     /* the machine or memory failed: exit 1 */
};

/* Plans the runs of one session from rq, once, into *out (zeroed first; free its sweep and compact
 * order with pmc_run_plan_free): --sweep (docs/scaling.md), --interfere (pmc_plan_interfere),
 * --calibrate (pmc_plan_calibrate) or --runs (pmc_plan_add_list, pmc_plan_roles), else one plain run;
 * then --calibrate's rounds (pmc_plan_repeat: --repeat K, 3 by default, or as many as fit when
 * adaptive), -t N's OMP_NUM_THREADS and -t LIST's runs (pmc_plan_thread_list). With window_s
 * (--calibrate -p --window) the calibration's runs are windows of window_s s of the running
 * process, in the same rounds, each tagged PMC_PLAN_WHY_CAL_WINDOW. Each run gets the
 * reason it was planned, and out->decisions says why the plan has its shape, in order. Returns 0,
 * or a pmc_plan_err with the one-line message to print in why. */
int pmc_plan_make(const struct pmc_plan_request *rq, struct pmc_run_plan *out, char *why,
		  size_t whysize);

/* Frees what pmc_plan_make allocated in *rp (a zeroed one is fine). */
void pmc_run_plan_free(struct pmc_run_plan *rp);

#endif
