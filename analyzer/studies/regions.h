/* SPDX-License-Identifier: MIT */
/* regions.h: the per-region section of a pmanalyze report: the OpenMP regions of a run recorded
 * with `pmcollect --omp-regions` (OMP_REGION records), named with libdw, each with its calls and
 * time, its A(m,inf) and T_cp cut out of the exact mode's timelines (or, without scheduler events,
 * the sampled intervals) at the region's windows (Tudor & Teo eq. 4 restricted to the region), its
 * predicted T(n) and S(m,n) at every core count of the whole program's predictions (eq. 6 over the
 * region's own profile), and, when the trace holds one run per thread count 1..NC, the best thread
 * count and placement per region (Allande et al. §3, eq. 2-9, time-only variant). Pure
 * computation over the loaded trace: no I/O. */
#ifndef PMA_REGIONS_H
#define PMA_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "model/allande.h"
#include "trace/analyze.h"
#include "notes/notes.h"

/* The prediction of one row at one core count: Tudor & Teo's eq. 6 over the row's own profile (the
 * pieces cut out of its windows), omega 0 (no memory contention term per region). */
struct pma_region_pred {
	uint32_t cores;         /* n */
	double A;               /* A(m,n) of the region (eq. 6) */
	double S;               /* S(m,n) = A(m,n) (eq. 1 with omega 0); <= min(n, row A) */
	double T_ns;            /* predicted time of the region's windows on n cores, ns;
				   >= max(T_cp_ns, work_ns / n) */
	double gain_ns;         /* T_ns - work_ns / n, >= 0: saved at n cores if it scaled ideally */
};

/* Most predictions a result holds over all rows (rows x core counts, 40 bytes each: 80 MiB); a
 * longer --cores list keeps its first PMA_REGION_MAX_PREDICTIONS / rows core counts per row. */
#define PMA_REGION_MAX_PREDICTIONS (1u << 21)

/* One source region: every instance whose codeptr_ra names the same function and file:line. */
struct pma_region_row {
	char function[256];     /* source function holding the construct ("" unknown) */
	char file[1024];        /* source file as the debug info has it ("" unknown) */
	int line;               /* 0 unknown */
	char symbol[256];       /* the symbol at codeptr_ra (an outlined body for nested regions) */
	char object[1024];      /* the object's path when nothing better is known */
	uint64_t offset;        /* codeptr_ra - the object's load bias (first instance) */
	uint32_t depth;         /* smallest nesting depth seen (1 = outermost) */
	uint64_t calls;         /* instances */
	uint64_t open;          /* of them, never ended (killed inside): they end at the run's end */
	double time_ns;         /* sum of end - begin of the instances */
	double share;           /* time_ns / the run's wall time */
	double mean_team;       /* mean actual team size (0 unknown) */
	int have_A;             /* A is known (the result's have_A, and CPU time of the program
				   inside the row's windows): the next fields are set */
	const char *A_why;      /* static: why A is unknown when the result has A and the row has
				   not (nothing ran inside its windows as far as the trace tells) */
	double work_ns;         /* CPU time of the program's threads inside the windows (U) */
	double T_cp_ns;         /* critical path inside the windows */
	double T_cp_capped_ns;  /* samples only: critical path removed by the cap at the work (a
				   sampled step with q < 1 counts at q = 1, cut_window), ns */
	double A;               /* A(m,inf) = work_ns / T_cp_ns (Tudor & Teo eq. 4, restricted) */
	double cp_share;        /* T_cp_ns / the whole run's T_cp */
	double T_n_ns;          /* predicted time at n cores (eq. 6 over the region's profile) */
	double S_n;             /* predicted S(m,n) of the region */
	double gain_ns;         /* T_n_ns - work_ns / n: time saved at n cores if it scaled ideally */
	struct pma_region_pred *pred; /* [npred] (owned; freed by pma_regions_free): the predictions
					 at the result's cores[0..npred), NULL when !have_A */
	size_t npred;
	long allande;           /* index into pma_regions_result.factors, -1: not in every run */
	uint64_t counter_tasks; /* OMP_COUNTERS records joined to the row's instances */
	double counters[PMA_OMP_MAX_EVENTS]; /* their sums, by event of pma_regions_result.events */
	uint32_t phase;         /* a phase of the fallback: 1..N in time order (0: a region) */
	uint64_t begin_ns, end_ns; /* the phase's interval, from the run's start */
};

struct pma_regions_result {
	int present;            /* the analyzed run was recorded with --omp-regions */
	int recorded;           /* an OpenMP runtime answered */
	const char *reason;     /* why not (borrowed from the trace), NULL when recorded */
	uint32_t run_id;
	uint32_t n;             /* the core count of T_n_ns, S_n, gain_ns (the machine's PUs) */
	const uint32_t *cores;  /* [ncores] the core counts of each row's pred (borrowed from the
				   caller: the whole program's list, --cores or its default) */
	size_t ncores;
	size_t pred_left_out;   /* core counts of cores[] left out of every row's pred
				   (PMA_REGION_MAX_PREDICTIONS) */
	int have_A;             /* per-region A, by method */
	const char *method;     /* "sched-exact" (scheduler events: exact boundaries), "samples" (the
				   runnable estimator's intervals, prorated at the windows' edges) or
				   NULL (neither) */
	int phases;             /* the rows are phases: no region was recorded, or asked for */
	uint64_t gap_ns;        /* phases: serial gaps longer than this end a phase (one sampling
				   interval) */
	double run_T_cp_ns, run_work_ns; /* the whole run, same method */
	uint64_t instances;     /* OMP_REGION records of the run */
	uint64_t unnamed;       /* instances whose codeptr_ra no recorded object holds */
	uint64_t open;          /* instances never ended (PMT_OMP_OPEN) */
	/* per-thread counters (OMP_COUNTERS, RUN_END omp_regions.counters): events borrowed from the
	 * run, nevents 0 with counters_reason when none were counted */
	char *const *events;
	size_t nevents;
	const char *counters_reason;
	uint64_t counter_tasks, counter_unmatched; /* records joined / naming no instance of the run */
	long tcm_event;         /* event index used as Allande's TCM, -1 none */
	struct pma_region_row *rows; /* sorted by gain_ns (then time_ns), descending */
	size_t nrows;
	/* Allande et al.: runs with 1..NC threads (RUN_BEGIN "threads"), NS sockets */
	int allande;            /* computed */
	char allande_why[256];  /* why not, "" when computed or no thread-count runs */
	uint32_t NC, NS;
	uint32_t run_of_threads[PMA_ALLANDE_MAX_NC + 1]; /* run id of the i-thread run */
	struct pma_allande_factors *factors; /* [nfactors]; time-only unless every run counted the
						 TCM event for the region */
	int time_only;          /* some region's factors are time-only */
	char tcm_why[256];      /* why time-only ("" when not) */
	char tcm_name[128];     /* the TCM event's name when not time-only */
	size_t nfactors;
	struct pma_allande_plan plan[2]; /* [PMA_ALLANDE_SUM], [PMA_ALLANDE_MAX] */
	int allande_all;        /* pmanalyze --allande-all: the report lists every configuration's
				   estimates (set by the caller, not by pma_regions_compute) */
	struct pma_notes notes; /* what the report should say about the section (A capped at 1,
				   Allande's runs not on one socket); the caller appends them */
};

/* Computes the region section for run `run` of trace t (n: core count of the single prediction
 * T_n_ns/S_n/gain_ns, >= 1; cores[ncores]: the core counts, each >= 1, of every row's pred
 * array, borrowed until pma_regions_free (NULL/0: none); tcm_event: the per-thread counter taken
 * as Allande's TCM, total cache misses of eq. 2-9, NULL for the one the collector marked
 * "llc_misses").
 * The rows are the OpenMP regions; or, when the run was recorded with --omp-regions but has none
 * (no OMPT runtime: every non-OpenMP program) or want_phases is set, the run's phases (docs/regions.md's
 * fallback): maximal intervals with >= 2 active threads bounded by serial gaps longer than one
 * sampling interval, from the scheduler events when the run has them, else from the samples.
 * A trace without --omp-regions and without want_phases leaves out->present and out->phases 0.
 * Each row with A gets pred[i] at n = cores[i] (eq. 6 over the row's profile, omega 0), held to
 * docs/model.md's bounds S <= min(n, A) and T_ns >= max(T_cp_ns, work_ns / n); by construction of eq. 6
 * these only absorb rounding. At most PMA_REGION_MAX_PREDICTIONS in all (pred_left_out says how
 * many core counts were left out of each row).
 * Returns 0, or -1 with a reason in why (out of memory, symbolizer failure); free out with
 * pma_regions_free also on error. */
int pma_regions_compute(const struct pma_trace *t, const struct pma_run *run, uint32_t n,
			const uint32_t *cores, size_t ncores, int want_phases, const char *tcm_event,
			struct pma_regions_result *out, char *why, size_t whysize);
/* Frees what pma_regions_compute allocated in r (rows with their pred arrays, Allande's factors
 * and plans, notes) and zeroes r; r NULL is a no-op. */
void pma_regions_free(struct pma_regions_result *r);

/* The region's name as shown: "function file:line" (file without its directories), "function"
 * when only the symbol table names it, or "object+0xoffset" (the object's file name) when nothing
 * does (a static function of a stripped library). */
void pma_region_name(const struct pma_region_row *row, char *buf, size_t size);

/* Windows of the run's recording, each cut as a region's window is (Tudor & Teo eq. 4 restricted
 * to it: the exact mode's running and runnable timelines when the run has scheduler events, else
 * the runnable estimator's sampled intervals, prorated at the window's edges; its critical path
 * at least the longest CPU time one thread ran in it). The recording is the span of those
 * timelines, [*t0_ns, *t1_ns) in trace time (ns); window k is [b_frac[k], e_frac[k]) of it, as
 * fractions from 0 to 1. work_ns[nw] and T_cp_ns[nw] get each window's U and T_cp in ns (its
 * A(m,inf) is their ratio); *method "sched-exact" or "samples" (static strings), NULL with nothing
 * written when the run has neither or a span of 0. Returns 0, or -1 when memory runs out. */
int pma_regions_parts(const struct pma_run *run, size_t nw, const double *b_frac,
		      const double *e_frac, uint64_t *t0_ns, uint64_t *t1_ns, double *work_ns,
		      double *T_cp_ns, const char **method);

#endif
