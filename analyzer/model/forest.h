/* SPDX-License-Identifier: MIT */
/* forest.h: random-forest regression over run configurations (TOEP) with xgboost's C API in
 * random-forest mode: training, predictions with the spread across trees, feature importances,
 * a versioned model buffer, and evaluation on held-out configurations. No I/O: the model is
 * saved to and loaded from memory, the front end writes the file. */
#ifndef PMA_FOREST_H
#define PMA_FOREST_H

#include <stddef.h>
#include <stdint.h>

/* Version of the model buffer written by pma_forest_save; pma_forest_load refuses others. */
#define PMA_FOREST_VERSION 1

struct pma_forest_params {
	uint32_t num_parallel_tree;  /* trees in the forest, 100-500 [300] */
	uint32_t max_depth;          /* of each tree [8] */
	double subsample;            /* rows per tree, drawn without replacement [0.632, the share of
	                              * distinct rows in a bootstrap sample] */
	double colsample_bynode;     /* features tried at each split [0.67] */
	uint64_t seed;               /* fixed: the same table gives the same forest [1] */
	uint32_t nthread;            /* xgboost threads, 0 = its default [1] */
};

/* The defaults above (the settings; eta 1, lambda 0 and base_score = mean(y) are not
 * parameters: they are what makes xgboost's boosting one round of a plain random forest). */
void pma_forest_params_default(struct pma_forest_params *p);

struct pma_forest;

/* Trains a forest on a table of `rows` runs and `cols` features: X is row-major rows x cols
 * (NAN = missing), y has rows targets (seconds or joules). xgboost parameters: booster gbtree,
 * objective reg:squarederror, tree_method exact, num_parallel_tree, subsample, colsample_bynode,
 * max_depth, seed from p, eta 1, lambda 0, base_score mean(y), and one XGBoosterUpdateOneIter
 * (xgboost docs "Random Forests(TM) in XGBoost"; TOEP §III-A-4c uses Breiman's random forests).
 * Returns 0 and *out (free with pma_forest_free), or -1 with a reason (fewer than 2 rows, a
 * non-finite y, xgboost's own error message). */
int pma_forest_train(struct pma_forest **out, const double *X, const double *y, size_t rows,
		     size_t cols, const struct pma_forest_params *p, char *why, size_t whysize);

/* Predicts rows x cols (row-major, f's column count) into mean[rows], the forest's prediction,
 * and, when lo and hi are not NULL, lo[rows] and hi[rows], the 5th and 95th percentiles of the
 * single trees' predictions (tree t predicts base_score + T leaf_t(x) with T trees, since xgboost
 * stores leaf values divided by T in random-forest mode; their mean is the forest's, checked).
 * The mean can lie outside [lo, hi] when the trees' predictions are skewed (most trees agree,
 * a few are far off). Returns 0, or -1 with a reason. */
int pma_forest_predict(const struct pma_forest *f, const double *X, size_t rows, double *mean,
		       double *lo, double *hi, char *why, size_t whysize);

/* Feature importances: each feature's total gain over all splits, normalised to sum to 1 (0 for
 * a feature never split on), into importance[cols] (cols = pma_forest_cols). Returns 0 or -1. */
int pma_forest_importance(const struct pma_forest *f, double *importance, char *why, size_t whysize);

size_t pma_forest_cols(const struct pma_forest *f);
uint32_t pma_forest_trees(const struct pma_forest *f);

/* Serialises f: a header line "PMTFOREST <version> <cols> <xgboost version> <bytes>\n" and then
 * xgboost's own model (UBJSON, XGBoosterSaveModelToBuffer). *buf is malloc'ed (caller frees),
 * *len its size. Returns 0 or -1 with a reason. */
int pma_forest_save(const struct pma_forest *f, unsigned char **buf, size_t *len, char *why,
		    size_t whysize);

/* Loads a buffer written by pma_forest_save. Returns 0 and *out, or -1 with a reason: "not a
 * pmtools forest model", "forest model version 2 is not supported (this build reads version
 * 1)", a length that does not match, or xgboost's error. */
int pma_forest_load(struct pma_forest **out, const unsigned char *buf, size_t len, char *why,
		    size_t whysize);

/* Frees f; NULL is accepted. */
void pma_forest_free(struct pma_forest *f);

/* Goodness of a prediction: R² = 1 - sum (y - yhat)² / sum (y - mean y)² (the measure TOEP
 * reports, §III-A-4c) and the mean absolute error in y's unit. */
struct pma_fit_quality {
	double R2;
	double mean_abs_err;
	size_t n;
};

/* Computes R² and mean |error| of yhat[n] against y[n]. Returns 0, or -1 when n is 0 or y is
 * constant (R² undefined). */
int pma_fit_quality(const double *y, const double *yhat, size_t n, struct pma_fit_quality *out);

/* Features that depend on the fold: fn fills X[rows x cols] (row-major) for fold k, where
 * fold[i] == k marks the held-out rows, from what the other folds' rows allow (e.g. the
 * analytical model's prediction from a baseline run that must not be a held-out run). Returns 0,
 * or -1 with a reason in why. */
struct pma_fold_x {
	int (*fn)(void *arg, const uint32_t *fold, uint32_t k, double *X, char *why, size_t whysize);
	void *arg;
};

/* Deals the distinct values of config[rows] (sorted) round robin into `folds` folds: fold[i] of
 * row i. Returns 0, or -1 with a reason: fewer than 2 configurations, folds < 2 or more than
 * configurations. */
int pma_forest_folds(const uint32_t *config, size_t rows, uint32_t folds, uint32_t *fold,
		     char *why, size_t whysize);

/* Evaluation on held-out configurations: the rows are dealt into folds by configuration
 * (pma_forest_folds); each fold's rows are predicted by a forest trained on all the other folds'
 * rows, so no run of a held-out configuration is ever seen in training (TOEP §III-A-3 sorts and
 * then samples rows, which leaks neighbouring rows of one configuration into training). The
 * features are X for every fold, or, when fx is not NULL, what fx->fn writes for each fold (X
 * may then be NULL). Writes the held-out prediction of every row to yhat[rows] (may be NULL) and
 * the pooled quality to *out. Returns 0, or -1 with a reason: those of pma_forest_folds, fx's,
 * or a training error. */
int pma_forest_holdout(const double *X, const struct pma_fold_x *fx, const double *y,
		       const uint32_t *config, size_t rows, size_t cols, uint32_t folds,
		       const struct pma_forest_params *p, double *yhat, struct pma_fit_quality *out,
		       char *why, size_t whysize);

#endif
