/* SPDX-License-Identifier: MIT */
/* stationarity.h: whether a recording (a window or a whole run) is stationary: A(m,inf) over each
 * quarter of it, from the exact mode's timelines when the run has scheduler events, else from the
 * sampled intervals, and C(n) per instruction over each quarter from the counter snapshots
 * (COUNTERS records), each with its uncertainty, and chi-square tests of their agreement. Pure
 * computation over an analyzed run: no I/O. */
#ifndef PMA_STATIONARITY_H
#define PMA_STATIONARITY_H

#include <stddef.h>
#include <stdint.h>

#include "trace/analyze.h"

#define PMA_STAT_QUARTERS 4
/* Parts per quarter: the spread of their A(m,inf) gives the quarter's statistical uncertainty. */
#define PMA_STAT_BLOCKS 8
/* The chi-square test's significance: quarters disagree when p is below it. */
#define PMA_STAT_P 0.001
/* The fewest sampled intervals the sampled fallback needs (two per part). */
#define PMA_STAT_MIN_INTERVALS (2 * PMA_STAT_QUARTERS * PMA_STAT_BLOCKS)
/* The fewest counter snapshots a quarter must hold for its C (one per two of its parts; pmcollect
 * writes at least 8 per quarter of a window of 3.2 s or more, FORMAT.md §5.5). */
#define PMA_STAT_MIN_SNAPSHOTS (PMA_STAT_BLOCKS / 2)

/* What a quarter's C is: the cost per instruction from which a window's C(n) is taken (docs/model.md
 * "Windows"), cycles when the run counted them, else its CPU time; or, without instructions, the
 * cycles per second of CPU time (the clock the program ran at). */
enum pma_stat_cost {
	PMA_STAT_C_NONE = 0,
	PMA_STAT_C_CYCLES_PER_INS,  /* cycles / instructions */
	PMA_STAT_C_NS_PER_INS,      /* CPU ns / instructions (instructions counted, cycles not) */
	PMA_STAT_C_CYCLES_PER_CPU_S /* cycles / CPU s (cycles counted, instructions not) */
};

/* The outcome of a chi-square test of homogeneity over the quarters (pma_stat_chi2). */
struct pma_stat_test {
	double chi2;             /* sum over quarters of ((v - weighted mean) / err)^2; INFINITY
				    when a quarter has no uncertainty and the values differ */
	double p;                /* P(chi-square with 3 degrees of freedom > chi2) */
	int disagree;            /* p < PMA_STAT_P */
	int q_min, q_max;        /* the quarters (0-based) of the least and the largest value */
};

struct pma_stat_quarter {
	double start_s;    /* from the recording's start, s */
	double length_s;
	double work_ns;    /* U inside the quarter */
	double T_cp_ns;    /* T_cp inside the quarter */
	double A;          /* A(m,inf) = work_ns / T_cp_ns (Tudor & Teo eq. 4, restricted) */
	double A_err;      /* its uncertainty: A_err_stat and the estimator's own, in quadrature */
	double A_err_stat; /* the ratio estimator's standard error over the quarter's parts */
	/* C by quarter (pma_stationarity C_have): in the unit of C_kind; NAN without */
	double C_num, C_den; /* the quarter's cycles (or CPU ns) and instructions (or CPU s) */
	double C;          /* C_num / C_den */
	double C_err;      /* the ratio estimator's standard error over the quarter's parts */
};

struct pma_stationarity {
	int have;                /* the quarters were computed (the fields below are set) */
	const char *why_not;     /* static: why not, when !have */
	const char *method;      /* "sched-exact" or "samples" (static) */
	int sampled_fallback;    /* method "samples" although the report uses an exact estimator
				    (switch-exact has no real-time timelines) */
	struct pma_stat_quarter q[PMA_STAT_QUARTERS];
	double rel_err;          /* the exact mode's relative resolution added to each quarter (lost
				    events, CPU time of inferred switches): 0 for the samples */
	double chi2;             /* sum over quarters of ((A - weighted mean) / A_err)^2 */
	double p;                /* P(chi-square with 3 degrees of freedom > chi2) */
	int disagree;            /* p < PMA_STAT_P */
	int q_min, q_max;        /* the quarters (0-based) of the least and the largest A */
	/* C by quarter, from the counter snapshots (independent of have: the quarters are the same
	   span's) */
	int C_have;              /* q[].C are set, and C_test */
	const char *C_why;       /* static: why not, when !C_have */
	enum pma_stat_cost C_kind;
	size_t C_snapshots;      /* the snapshots inside the recording's span */
	struct pma_stat_test C_test;
};

/* The ratios of parts, quarter by quarter: num[k] and den[k] for k < PMA_STAT_QUARTERS *
 * PMA_STAT_BLOCKS, quarter i holding parts [i * PMA_STAT_BLOCKS, (i + 1) * PMA_STAT_BLOCKS).
 * R[i] = sum num / sum den over its parts (num_sum[i], den_sum[i] those sums), R_err[i] the ratio
 * estimator's standard error over them (Cochran, Sampling Techniques, §6.3): var R = K / (K - 1)
 * sum (num_k - R den_k)^2 / (sum den)^2, K = PMA_STAT_BLOCKS. Units are the caller's. Returns 0,
 * or -1 (nothing defined) when a quarter's den sum is not above 0 or a value is not finite. Pure. */
int pma_stat_ratio_quarters(const double *num, const double *den, double *num_sum,
			    double *den_sum, double *R, double *R_err);

/* The chi-square test of homogeneity of the PMA_STAT_QUARTERS values v[] with uncertainties
 * err[] (inverse-variance weighted mean, 3 degrees of freedom, GSL's gsl_cdf_chisq_Q), into out:
 * a quarter with no uncertainty makes them agree only when they are equal to 1e-9 (else chi2
 * INFINITY, p 0). Pure. */
void pma_stat_chi2(const double *v, const double *err, struct pma_stat_test *out);

/* The cumulative count at t_ns of points (t_ns[i], v[i]), i < n, in time order: linear
 * interpolation between the two points around it, the first or the last value outside them.
 * n 0 gives NAN. Pure. */
double pma_stat_count_at(const uint64_t *t_ns, const double *v, size_t n, uint64_t at_ns);

/* The quarters of run's recording (pma_regions_parts cut into PMA_STAT_QUARTERS x
 * PMA_STAT_BLOCKS parts; with scheduler events a part's T_cp is the progress along the
 * infinite-core axis over it, pma_exact_cp_at): each quarter's A = sum U / sum T_cp over its
 * parts, its statistical
 * uncertainty the ratio estimator's standard error over the parts (var A = K / (K - 1) sum (U_k -
 * A T_cp_k)^2 / T_cp^2), and the estimator's own resolution in quadrature, as the report's
 * uncertainty of A(m,inf) counts it (docs/model.md "Uncertainty"): the exact mode's lost events
 * as a share of its events plus the CPU time of inferred switches as a share of the work, and
 * the critical path the quarter's two edges can misplace (a mean running slice, or a sampled
 * interval, at each) over the quarter's T_cp. The estimators' disagreement, a bias common to
 * every quarter, is left out. The quarters agree unless a chi-square test of
 * homogeneity (3 degrees of freedom, GSL's gsl_cdf_chisq_Q) rejects it at PMA_STAT_P; a quarter
 * with no uncertainty and a different A disagrees (p = 0). est is the report's estimator
 * (estimate.h PMA_EST_*): with switch-exact the quarters come from the samples, said in
 * sampled_fallback. out->have 0 with why_not when the run has no timelines, too few sampled
 * intervals (PMA_STAT_MIN_INTERVALS) or a quarter without CPU time.
 * C by quarter (out->C_have, else out->C_why): the run's COUNTERS records (run->ctr_*, cumulative
 * from the run's or the window's start, FORMAT.md §5.5), their cycles and instructions columns
 * found by the names RUN_END "C" gives ("event" when its source is cycles, "instructions_event")
 * in RUN_BEGIN "counters.events"; the points are (RUN_BEGIN's time, 0), the snapshots, and RUN_END
 * (its time, C "value" and "instructions"), interpolated at the parts' edges (pma_stat_count_at).
 * Each part's cycles over its instructions (PMA_STAT_C_CYCLES_PER_INS), else its CPU time (the
 * parts' U) over its instructions, else its cycles over its CPU time; the quarters' ratios and
 * their uncertainty by pma_stat_ratio_quarters, their agreement by pma_stat_chi2. Not computed
 * (C_why) without snapshots, without named columns, with a snapshot not cumulative or out of time
 * order, or with a quarter holding fewer than PMA_STAT_MIN_SNAPSHOTS. Returns 0, or -1 when
 * memory runs out. */
int pma_stationarity_compute(const struct pma_run *run, int est, struct pma_stationarity *out);

#endif
