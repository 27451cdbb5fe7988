/* SPDX-License-Identifier: MIT */
/* stationarity.h: whether a recording (a window or a whole run) is stationary: A(m,inf) over each
 * quarter of it, from the exact mode's timelines when the run has scheduler events, else from the
 * sampled intervals, each with its uncertainty, and a chi-square test of their agreement. Pure
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

struct pma_stat_quarter {
	double start_s;    /* from the recording's start, s */
	double length_s;
	double work_ns;    /* U inside the quarter */
	double T_cp_ns;    /* T_cp inside the quarter */
	double A;          /* A(m,inf) = work_ns / T_cp_ns (Tudor & Teo eq. 4, restricted) */
	double A_err;      /* its uncertainty: A_err_stat and the estimator's own, in quadrature */
	double A_err_stat; /* the ratio estimator's standard error over the quarter's parts */
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
};

/* The quarters of run's recording (pma_regions_parts cut into PMA_STAT_QUARTERS x
 * PMA_STAT_BLOCKS parts): each quarter's A = sum U / sum T_cp over its parts, its statistical
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
 * intervals (PMA_STAT_MIN_INTERVALS) or a quarter without CPU time. Returns 0, or -1 when memory
 * runs out. */
int pma_stationarity_compute(const struct pma_run *run, int est, struct pma_stationarity *out);

#endif
