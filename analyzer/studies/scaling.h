/* SPDX-License-Identifier: MIT */
/* scaling.h: the scaling study of a trace recorded with `pmcollect --sweep` (docs/scaling.md): measured
 * against predicted speedup per configuration, and empirical scaling models (PMNF, Iwainsky et
 * al. §2, §4; pmnf.h) of the overheads over the sweep's parameter, with the data for Extra-P's
 * formats (render/extrap.c builds them from it). Pure computation over the typed trace model and the prediction of
 * compute.c: no I/O; render/report_scaling.c renders it, main.c writes the Extra-P files. */
#ifndef PMA_SCALING_H
#define PMA_SCALING_H

#include <stddef.h>
#include <stdint.h>

#include "trace/analyze.h"
#include "model/pmnf.h"

/* The metrics measured per run, fitted over the parameter x (Iwainsky et al., "Metrics to fit":
 * increasing quantities, not T(x), which falls with x). */
enum pma_scaling_metric {
	PMA_SM_TIME = 0,   /* wall time T(x), s: exported, not fitted */
	PMA_SM_OVERHEAD,   /* parallel overhead x T(x) - T(1), s (pma_parallel_overhead_ns) */
	PMA_SM_CPU,        /* total CPU time of the program, s (RUN_END C cpu_time_ns, else the
			      samples' schedstat run time) */
	PMA_SM_WAIT,       /* run-queue wait of all threads, s (schedstat field 2) */
	PMA_SM_NVCSW,      /* voluntary context switches (status; synchronisation) */
	PMA_SM_CYCLES,     /* C(n) in cycles (RUN_END C, when a cycles counter ran) */
	PMA_SM_COUNT
};

/* "time", "overhead", "cpu_time", "rq_wait", "nvcsw", "cycles" (Extra-P metric names too). */
const char *pma_scaling_metric_name(enum pma_scaling_metric k);
/* "s", "s", "s", "s", "switches", "cycles". */
const char *pma_scaling_metric_unit(enum pma_scaling_metric k);

/* One configuration of the sweep (RUN_BEGIN "sweep" config), over its finished repetitions. */
struct pma_scaling_row {
	uint32_t config;
	uint32_t cores;        /* CPUs of its runs (RUN_BEGIN cpus) */
	uint32_t threads;      /* its thread count (sweep threads, else RUN_BEGIN threads), 0 unknown */
	size_t nreps;          /* finished runs (exit status 0) */
	double T_med_s, T_min_s, T_max_s; /* wall time: median and range over the repetitions */
	double S_meas;         /* T(1) / T_med (T(1): pma_scaling.T1_s); NAN without T(1) */
	/* the model's prediction from the baseline for this core count (compute.c, eq. 1), when the
	 * configuration runs the baseline's thread count; NAN otherwise */
	double S_pred, S_pred_err, T_pred_s;
	double omega;          /* omega(n) the prediction used, NAN unknown */
	double err_pct;        /* 100 (S_pred - S_meas) / S_meas, NAN without both */
	int in_fit;            /* the row is one of the fitted points */
};

/* The fit of one metric and its verdict (Iwainsky et al. §4). */
struct pma_scaling_fit {
	enum pma_scaling_metric metric;
	enum pma_pmnf_class cls; /* the x fitted: every x (PMA_PMNF_ALL), or one class (§4.2) */
	int fitted;            /* 0: not fitted, why says so */
	char why[160];
	struct pma_pmnf_fit fit;
	char growth[48];       /* the growth class in the paper's words, x as the parameter's letter */
};

/* PO2, ODD and EVEN (enum pma_pmnf_class after PMA_PMNF_ALL). */
#define PMA_SCALING_NCLASSES 3

struct pma_scaling {
	int present;           /* the trace has sweep runs */
	const char *parameter; /* "cores" or "threads": the x of the fits and of Extra-P */
	const char *var;       /* its letter in the growth class: "n" or "t" */
	double fit_other;      /* when both keys vary: the other key's value the fitted rows share */
	size_t nrows;
	struct pma_scaling_row *rows;   /* by configuration index */
	size_t unfinished;     /* sweep runs left out: not finished with status 0 */
	double T1_s;           /* T(1): median wall time of the 1-CPU runs with the baseline's
				  threads (the baseline and any such configuration), NAN none */
	size_t T1_runs;
	double m;              /* the baseline's thread count (RUN_BEGIN threads), NAN unknown */
	double mean_abs_err_pct; /* over the rows with a prediction and a measured S; NAN none */
	size_t npred;
	struct pma_scaling_fit fits[PMA_SM_COUNT]; /* [PMA_SM_TIME] is never fitted */
	/* --pmnf-classes (Iwainsky et al. §4.2): each class fitted separately; class_unit 0 = not
	 * asked, else the unit of pma_pmnf_in_class (1: plain odd and even x; 8: the paper's BCS
	 * classes 16k + 8 and 16k). class_fits[c - PMA_PMNF_PO2][k]: class c, metric k */
	unsigned class_unit;
	/* --pmnf-aggregate: how the repetitions of one x are summarized before every fit */
	enum pma_pmnf_aggregate aggregate;
	struct pma_scaling_fit class_fits[PMA_SCALING_NCLASSES][PMA_SM_COUNT];
	/* the parameter is threads and some fitted configuration runs more threads than CPUs: the
	 * overhead x T(x) - T(1) then counts CPUs the runs did not have (largest such threads, and
	 * its cores); 0 none */
	uint32_t oversub_threads, oversub_cores;
	/* the fitted rows' measurements, for Extra-P: npoints distinct x (increasing), nreps[p]
	 * runs at point p, values[k] the runs' metric k point by point (NAN when not measured) */
	size_t npoints;
	double *points;
	size_t *nreps;
	double *values[PMA_SM_COUNT];
	int measured[PMA_SM_COUNT]; /* every fitted run has metric k */
};

/* Computes the scaling study of trace t: the runs with role sweep and a "sweep" configuration,
 * grouped by configuration; measured T (median, range) and S = T(1) / T; the prediction of
 * baseline run `base` for the configuration's core count, taken from pred_cores/S/S_err/omega
 * (npred values, the report's predictions: S NAN when unknown) when the configuration runs the
 * baseline's threads; the error and the mean |error|; PMNF fits (pma_pmnf_fit_runs: repetitions
 * summarized by aggregate, PMA_PMNF_AGG_TRIMMED by default; fewer than 5 x flagged) of every measured metric over the parameter: threads
 * when the sweep has several thread counts, else cores; when both vary, over threads at the
 * largest core count. The overhead is fitted with PMA_PMNF_ZERO_AT_1 (it is 0 at x = 1 by
 * construction). class_unit > 0 (--pmnf-classes) adds one fit per class PO2, ODD, EVEN and metric
 * (pma_pmnf_in_class with that unit; a class with fewer than 3 distinct x is not fitted, with the
 * reason). A trace without sweep runs gives present = 0. Returns 0, or -1 when memory runs out.
 * Free with pma_scaling_free (also on error). */
int pma_scaling_compute(const struct pma_trace *t, const struct pma_run *base,
			const uint32_t *pred_cores, const double *S, const double *S_err,
			const double *omega, size_t npred, unsigned class_unit,
			enum pma_pmnf_aggregate aggregate, struct pma_scaling *out);
void pma_scaling_free(struct pma_scaling *s);

#endif
