/* SPDX-License-Identifier: MIT */
/* pmnf.h: empirical scaling models in the performance model normal form (PMNF) with one term,
 * f(x) = c0 + c1 x^i log2^j(x), selected by leave-one-out cross-validation as Extra-P does
 * (Iwainsky et al. §2, §4). Pure computation over arrays: no I/O. */
#ifndef PMA_PMNF_H
#define PMA_PMNF_H

#include <stddef.h>

/* The hypothesis set of Iwainsky et al. §2: I = {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1, 5/4, 4/3, 3/2,
 * 5/3, 7/4, 2}, J = {0, 1, 2}; (i, j) = (0, 0) is the constant model. */
#define PMA_PMNF_N_I 13
#define PMA_PMNF_N_J 3

/* Valid when the adjusted R² is at least this (Iwainsky et al. §4, first paragraph). */
#define PMA_PMNF_R2_VALID 0.95
/* A hypothesis whose term c1 x^i log2^j(x) is below this fraction of every value is rejected
 * (Extra-P's "minimum term contribution", epsilon = 0.0005). */
#define PMA_PMNF_EPSILON 5e-4
/* Fewer distinct x than this: the fit is made but flagged (Extra-P needs 5 points). */
#define PMA_PMNF_MIN_POINTS 5
/* The constant model is valid only when its in-sample SMAPE is at most this, percent. Extra-P
 * gives the constant R²adj = 1 whatever the scatter, so by R²adj alone a series that no
 * hypothesis fits better (values scattered by 40%) would be a "valid" constant. 10% admits the
 * scatter of a constant series with 5% Gaussian noise (SMAPE about 4%), the noise test_pmnf fits
 * every hypothesis through; our choice, not the paper's. */
#define PMA_PMNF_CONST_SMAPE_VALID 10.0
/* A growing fit over repetitions is "noisy" when the repetitions' spread is at least this fraction
 * of the model's change over the fitted range (pma_pmnf_fit_runs): with noise half the size of
 * the change, a sweep on a busy machine (T(4..8) = 0.80-0.91 s, each point's repetitions over
 * 0.62-1.17 s) can draw any slope, and neither a valid fit nor a scalability problem can be read
 * from it. Our rule, not Iwainsky et al.'s (their §4.1 trims the repetitions but keeps the fit). */
#define PMA_PMNF_NOISY_RATIO 0.5

/* Flags of pma_pmnf_fit_points_ex and pma_pmnf_fit_runs. */
enum {
	/* The value at x = 1 is 0 by construction, as the parallel overhead x T(x) - T(1) is: its
	 * SMAPE term would be 2 (200%) for any prediction but 0, whatever the model. The point stays
	 * in the least squares, PRESS and R²adj; it is left out of every SMAPE (the constant's and
	 * the hypotheses') and of the term-contribution rule. */
	PMA_PMNF_ZERO_AT_1 = 1u << 0,
};

/* One model f(x) = c0 + c1 x^(i_num/i_den) log2^j(x). The constant model has i_num = 0, j = 0
 * and c1 = 0. */
struct pma_pmnf_model {
	unsigned i_num, i_den; /* exponent i of x as a fraction (0/1 .. 2/1) */
	unsigned j;            /* exponent of log2 x: 0, 1 or 2 */
	double c0, c1;         /* in the unit of the fitted values */
};

/* The result of a fit and its verdict (Iwainsky et al. §4). */
struct pma_pmnf_fit {
	struct pma_pmnf_model model;
	double SMAPE;        /* percent. For a hypothesis: over its leave-one-out predictions; for
				the constant model: in sample (as Extra-P compares them) */
	double PRESS;        /* sum of the squared leave-one-out residuals (value unit²); for the
				constant model its in-sample residual sum of squares, = TSS */
	double TSS;          /* total sum of squares, sum of (y - mean y)² */
	double R2_adj;       /* 1 - (PRESS/TSS) (n-1)/(n-2); 1 for the constant model (Extra-P) */
	size_t n;            /* distinct x fitted */
	size_t smape_points; /* of them, in the SMAPE: n, or n - 1 with PMA_PMNF_ZERO_AT_1 */
	int few_points;      /* n < PMA_PMNF_MIN_POINTS: fitted anyway, say so */
	int log_allowed;     /* every x >= 1, so the j > 0 hypotheses were tried */
	unsigned tried;      /* hypotheses evaluated (the constant included) */
	unsigned rejected;   /* of them, rejected by the term-contribution rule or non-finite cost */
	int valid;           /* R2_adj >= PMA_PMNF_R2_VALID, and for the constant model SMAPE <=
				PMA_PMNF_CONST_SMAPE_VALID */
	int scalability_problem; /* valid, c1 > 0 and faster than log x: i > 0 or j >= 2; and
				    not noisy (pma_pmnf_fit_runs) */
	/* Set by pma_pmnf_fit_runs from the repetitions (NAN and 0 from pma_pmnf_fit_points):
	 * spread_pct, the median over the x with 2 or more runs of each x's range of repetitions
	 * (the middle half's from 4 runs on, the values §4.1's trimmed mean keeps; max - min below),
	 * and change_pct, the fitted model's max - min over the fitted x, both in percent of the mean
	 * |summarized value|; noisy when the model is not constant and spread_pct >=
	 * PMA_PMNF_NOISY_RATIO change_pct: its verdict is then "noisy", not valid or a problem. */
	double spread_pct, change_pct;
	int noisy;
};

/* Returns i = i_num / i_den of a model. */
double pma_pmnf_exponent(const struct pma_pmnf_model *m);

/* f(x) for x > 0 (x >= 1 when j > 0). */
double pma_pmnf_eval(const struct pma_pmnf_model *m, double x);

/* Writes the growth class in the paper's words (Table 1 without the O()) into buf: "constant",
 * "log x", "log^2 x", "x^0.25", "x^1.33 log x", "x", "x^2 log^2 x", with `var` for x ("t" gives
 * "t^1.25"). Exponents are printed with at most two decimals, as Table 1 does. Returns buf;
 * a buffer too small is truncated (always NUL-terminated when size > 0). */
char *pma_pmnf_growth(const struct pma_pmnf_model *m, const char *var, char *buf, size_t size);

/* Leave-one-out cross-validation of one hypothesis (m's i_num, i_den and j; its coefficients are
 * ignored) on n points (x[k], y[k]): for each k the coefficients are fitted by linear least
 * squares (GSL gsl_fit_linear) to the other n-1 points and y[k] is predicted. Writes the sum of
 * squared residuals (PRESS), the SMAPE over the predictions (percent: 100/n sum 2|p-y|/(|p|+|y|),
 * terms with p = y = 0 count 0) and the adjusted R² from them, 1 - (PRESS/TSS) (n-1)/(n-2)
 * (Extra-P's compute_adjusted_rsquared with its leave-one-out RSS; NAN when TSS = 0). Any output
 * pointer may be NULL. Returns 0, or PMT_E_INVAL with a reason in why when n < 3, an x <= 0, a
 * log term with an x < 1, or a non-finite value; PMT_E_NOMEM. */
int pma_pmnf_loo(const double *x, const double *y, size_t n, const struct pma_pmnf_model *m,
		 double *PRESS, double *SMAPE, double *R2_adj, char *why, size_t whysize);

/* Fits the PMNF with one term to n points with distinct x (x > 0, arrays of n values; y in any
 * unit, the coefficients come out in it). Method (Iwainsky et al. §2 "Trying all hypotheses one
 * by one ... Then we apply cross-validation"; Extra-P's single-parameter modeler):
 * the constant model c0 = mean y is the first best, with its in-sample SMAPE; each hypothesis
 * (i, j) of the set, in order of growth, is fitted to all points by least squares, rejected when
 * c1 = 0 or max_k |c1 x_k^i log2^j x_k / y_k| < PMA_PMNF_EPSILON, otherwise scored by its
 * leave-one-out SMAPE and kept when strictly lower than the best so far. Log terms (j > 0) are
 * tried only when every x >= 1. The verdict: valid when R2_adj >= 0.95; a scalability problem
 * when valid and growing faster than log x (§4: "valid models of significantly faster than
 * logarithmic growth"); the constant model is valid only with SMAPE <=
 * PMA_PMNF_CONST_SMAPE_VALID. Fills *out. Returns 0; PMT_E_INVAL with a one-line reason in why
 * for n < 3, duplicate x, x <= 0 or a non-finite value; PMT_E_NOMEM. */
int pma_pmnf_fit_points(const double *x, const double *y, size_t n, struct pma_pmnf_fit *out,
			char *why, size_t whysize);
/* pma_pmnf_fit_points with flags (PMA_PMNF_ZERO_AT_1, 0 = none). */
int pma_pmnf_fit_points_ex(const double *x, const double *y, size_t n, unsigned flags,
			   struct pma_pmnf_fit *out, char *why, size_t whysize);

/* How the K repetitions of one x are summarized before the fit (pmanalyze --pmnf-aggregate):
 * PMA_PMNF_AGG_TRIMMED, the default, is pma_pmnf_summarize (Iwainsky et al. §4.1's trimmed mean,
 * the median below 4 repetitions); MEDIAN the median; MEAN the arithmetic mean, what Extra-P
 * fits by default (its Measurement.mean; `--median` makes it fit the median); MIN the smallest,
 * the least disturbed run. */
enum pma_pmnf_aggregate {
	PMA_PMNF_AGG_TRIMMED = 0,
	PMA_PMNF_AGG_MEDIAN,
	PMA_PMNF_AGG_MEAN,
	PMA_PMNF_AGG_MIN,
	PMA_PMNF_AGG_COUNT
};
/* "trimmed", "median", "mean", "min". */
const char *pma_pmnf_aggregate_name(enum pma_pmnf_aggregate a);
/* What aggregate a fits, in words for a report: "the trimmed mean of its repetitions (...)". */
const char *pma_pmnf_aggregate_what(enum pma_pmnf_aggregate a);
/* The aggregate named s (a name above), or -1. */
int pma_pmnf_aggregate_parse(const char *s);
/* In pma_pmnf_fit_runs' flags: summarize the repetitions with aggregate a (bits 8-11; 0 is the
 * default, PMA_PMNF_AGG_TRIMMED). */
#define PMA_PMNF_AGGREGATE(a) ((unsigned)(a) << 8)
#define PMA_PMNF_AGGREGATE_OF(flags) ((enum pma_pmnf_aggregate)(((flags) >> 8) & 0xfu))

/* The K values[] (the caller's, sorted in place) summarized by aggregate a. Returns NAN when
 * K = 0, a value is not finite or a is unknown. */
double pma_pmnf_aggregate(double *values, size_t K, enum pma_pmnf_aggregate a);

/* Summarizes the K repetitions of one configuration into one value, as Iwainsky et al. §4.1 do
 * ("removing the 25% best and 25% worst values of a series"): when K >= 4 the floor(K/4) lowest
 * and floor(K/4) highest values are dropped and the rest averaged; when K < 4 the median. Sorts
 * values[] (K values, the caller's) in place. Returns the value, NAN when K = 0 or a value is not
 * finite. */
double pma_pmnf_summarize(double *values, size_t K);

/* Subsets of the x values fitted separately (Iwainsky et al. §4.2: PO2, EVEN, ODD). */
enum pma_pmnf_class {
	PMA_PMNF_ALL = 0,
	PMA_PMNF_PO2,   /* x a power of two (1 included) */
	PMA_PMNF_ODD,   /* x = unit q with q odd, x not a power of two */
	PMA_PMNF_EVEN,  /* x = unit q with q even, x not a power of two */
};
/* "all", "po2", "odd", "even". */
const char *pma_pmnf_class_name(enum pma_pmnf_class c);
/* 1 when x belongs to class c with the given unit (>= 1). With unit 8 these are the paper's
 * classes on the BCS node: ODD = 16k + 8, EVEN = 16k, neither a power of two; with unit 1 plain
 * odd and even thread counts. Non-integer x belong to PMA_PMNF_ALL only. */
int pma_pmnf_in_class(double x, enum pma_pmnf_class c, unsigned unit);

/* Fits a metric measured in nv runs: x[r] the configuration (thread or core count) of run r and
 * v[r] its value (any unit), several runs per x for repetitions, any order. Keeps the runs whose x
 * is in class c (unit as for pma_pmnf_in_class), summarizes the repetitions of each x with
 * pma_pmnf_aggregate (the aggregate in flags, PMA_PMNF_AGGREGATE(a); default the trimmed mean of
 * pma_pmnf_summarize), and fits with pma_pmnf_fit_points_ex (the other flags as there); then
 * weighs the repetitions' spread against the model's change (spread_pct, change_pct, noisy: a
 * noisy fit is no scalability problem). Inputs are not modified. Errors as pma_pmnf_fit_points
 * (fewer than 3 distinct x in the class is PMT_E_INVAL). */
int pma_pmnf_fit_runs(const double *x, const double *v, size_t nv, enum pma_pmnf_class c,
		      unsigned unit, unsigned flags, struct pma_pmnf_fit *out, char *why,
		      size_t whysize);

/* The parallel overhead, an increasing quantity to fit instead of T(x) (Iwainsky et al., "Metrics to
 * fit"): O(x) = x T(x) - T(1), the time the x CPUs spend beyond the one-CPU run. For k < n:
 * overhead_ns[k] = x[k] T_ns[k] - T1_ns. Arrays of n values (overhead_ns may be T_ns). Returns 0,
 * or PMT_E_INVAL when T1_ns or a T_ns is not finite and positive or an x is not positive. */
int pma_parallel_overhead_ns(const double *x, const double *T_ns, size_t n, double T1_ns,
			     double *overhead_ns);

#endif
