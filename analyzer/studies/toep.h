/* SPDX-License-Identifier: MIT */
/* toep.h: TOEP's own procedure (Benedict, Gschwandtner & Fahringer, "TOEP: Threshold Oriented
 * Energy Prediction Mechanism for MPI-OpenMP Hybrid Applications", §III-A and §IV-C;
 * ../shared/seeds/003_*): rows shaped by decreasing target (SD), variable reduction to the 3
 * features of highest random-forest importance, the six equidistant training fractions
 * TRSet1..6 (1/2000, 1/1000, 1/100, 1/10, 1/4, 1/3), R² of the random forest (RFM) and of linear
 * regression (LRM) on the remaining rows, and the threshold selection of eq. (1),
 * Selection = R² / TOEP_t. Pure computation over plain arrays (it reads a monotonic clock for
 * TOEP_t); no I/O. */
#ifndef PMA_TOEP_H
#define PMA_TOEP_H

#include <stddef.h>
#include <stdint.h>

#include "model/forest.h"

#define PMA_TOEP_NSETS 6      /* TRSet1+SD .. TRSet6+SD (§III-A-3) */
#define PMA_TOEP_NMETHODS 8   /* Methods 1-8 of Figures 5-7: 1 all features, 2 three, 3-8 TRSets */
#define PMA_TOEP_NKEEP 3      /* features kept by the variable reduction (§IV-C-2a) */

/* Training share of TRSet k+1 is 1 / pma_toep_denominator[k]: 2000, 1000, 100, 10, 4, 3. */
extern const uint32_t pma_toep_denominator[PMA_TOEP_NSETS];

/* One method's evaluation. R² and mean |error| are on the rows left out of its training sample
 * (TOEP's testing dataset), in the target's unit. */
struct pma_toep_method {
	uint32_t denominator;       /* training share 1/denominator */
	size_t ncols;               /* features used: all (Method 1) or the kept ones */
	size_t ntrain, ntest;       /* rows: max(2, floor(rows / denominator)) and the rest */
	int ok;                     /* 0: skipped, why[] says why */
	char why[160];
	struct pma_fit_quality rfm; /* random forest on the test rows */
	struct pma_fit_quality lrm; /* least squares with intercept on the same features and rows */
	int lrm_ok;                 /* 0: LRM not defined (fewer training rows than coefficients) */
	double toep_t_s;            /* TOEP_t: forest training + prediction, seconds (monotonic) */
	double selection;           /* eq. (1): 100 R² / TOEP_t in percent per second, the paper's
	                             * "points"; NAN for Methods 1 and 2 (not TOEP methods) */
};

struct pma_toep_result {
	size_t rows, cols;
	size_t nkeep;                         /* features kept: 3, fewer when fewer vary */
	size_t keep[PMA_TOEP_NKEEP];          /* their columns, by decreasing importance */
	double *importance;                   /* [cols]: Method 1's forest, total gain, sums to 1 */
	struct pma_toep_method method[PMA_TOEP_NMETHODS];
	int selected;                         /* index into method[] (2..7) elected by eq. (1), -1 none */
	double threshold;                     /* the final T_i: the elected method's Selection */
	struct pma_fit_quality holdout;       /* the kept features on held-out whole configurations */
	uint32_t holdout_folds;               /* 0: not computed (fewer than 2 configurations) */
};

/* The threshold selection of TOEP §III-A-4a,e: T_0 = 0; for i = 0..n-1, when selection[i] >
 * T_i the threshold becomes selection[i] and method i is elected. NAN entries (skipped methods)
 * never win. Returns the elected index, or -1 when no Selection is positive; *threshold (may be
 * NULL) gets the final T_i. */
int pma_toep_select(const double *selection, size_t n, double *threshold);

/* Runs TOEP on rows x cols features X (row-major, NAN = missing) and targets y[rows] (s or J),
 * config[rows] the configuration ids for the held-out comparison (may be NULL: not computed).
 * Method 1: all features, TRSet6's sample; its forest's importances pick the kept features
 * (columns with no two distinct finite values are never kept). Method 2: the kept features, the
 * same sample. Methods 3-8: the kept features on TRSet1..6. The training sample of 1/d is
 * max(2, floor(rows/d)) rows equidistant in the shaped (sorted by decreasing y) table: row
 * floor(j rows / ntrain) for j = 0..ntrain-1; the others are the test rows. A method whose test
 * rows are fewer than 2 or constant is skipped with the reason. Methods 1-8 use X as given, as
 * TOEP uses each row's own measurements (its third feature is the row's execution time); the
 * held-out line uses, when fx is not NULL, what fx->fn writes for each fold (kept columns): the
 * analytical model's columns from the training folds only (learn.h), so that line alone
 * measures a prediction of runs never seen. out->importance is malloc'ed: free with
 * pma_toep_result_free. Returns 0, or -1 with a reason: fewer than 6 rows ("TOEP needs at least
 * 6 runs"), a non-finite target, a training error, fx's error. */
int pma_toep_run(const double *X, const struct pma_fold_x *fx, const double *y,
		 const uint32_t *config, size_t rows, size_t cols, const struct pma_forest_params *p,
		 struct pma_toep_result *out, char *why, size_t whysize);
void pma_toep_result_free(struct pma_toep_result *r);

#endif
