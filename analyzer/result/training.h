/* SPDX-License-Identifier: MIT */
/* training.h: the shapes of the learned results (docs/energy.md §3): a training set's evaluation
 * (--learn), TOEP's procedure (--toep) and the forest's predictions (--predict), the bodies of
 * results of kind PMA_RESULT_LEARN, PMA_RESULT_TOEP and PMA_RESULT_PREDICT (compute.h). Types and
 * their free functions only; learning.h computes them, render/report_learn.h renders them. */
#ifndef PMA_TRAINING_H
#define PMA_TRAINING_H

#include <stddef.h>

#include "studies/learn.h"
#include "studies/toep.h"

/* At most this many configurations in one --predict list. */
#define PMA_PREDICT_MAX 256

/* --predict's configurations, "T:N[,T:N...]" parsed: threads m and cores n of each. */
struct pma_predict_configs {
	int n;
	unsigned threads[PMA_PREDICT_MAX], cores[PMA_PREDICT_MAX];
};

/* One prediction of the forest for a configuration (--predict): the forest's mean and its 5th and
 * 95th percentiles over the trees, in the target's unit (s or J); T_model_s the analytical
 * model's T(n) (Tudor & Teo, eq. 1) of the program's runs, NAN without; program and size the
 * family ("-" none, size NAN unknown; program owned by the row: the training table it came from
 * is freed before the rendering). */
struct pma_predict_row {
	unsigned threads, cores;
	double mean, p5, p95, T_model_s;
	char *program;
	double size;
	int outside;        /* threads or cores beyond the training runs': p5 and p95 widened to
			       the model's T_model_s (pma_predictions_check) */
	int widened;        /* no predictor beat the mean on held-out configurations: p5 and p95
			       widened to the training targets' range */
};

/* The forest's predictions, one row per configuration and program family (malloc'ed), and what
 * the training set covered (pma_predictions_check; checked 0 for a --model forest, whose
 * training set is not known). */
struct pma_predictions {
	size_t n;
	struct pma_predict_row *row;  /* [n] */
	int checked;                  /* the fields below are known */
	unsigned threads_min, threads_max, cores_min, cores_max; /* the training runs' m and n */
	double best_R2;               /* the best held-out R2 of the predictors, NAN none */
	double y_min, y_max;          /* the training targets' range, s or J */
	size_t noutside, nwidened;    /* rows outside the range, rows of no skill */
	size_t noutside_nomodel;      /* of the rows outside, those without T_model_s (no training
				       * run of their thread count): widened to the targets' range */
};

/* Checks the predictions p of a forest trained on table t (evaluated by ev) against what t
 * covered (issue 29):
 * - outside the training range: a configuration whose threads m or cores n lie beyond the
 *   training runs' [min, max] (outside 1) keeps the forest's number, but p5 and p95 are widened
 *   to include the analytical model's T_model_s (Tudor & Teo eq. 1, 6), or the training
 *   targets' range when it has none: a regression forest does not extrapolate (beyond the last
 *   split each tree answers with the leaf of the nearest trained configuration, Breiman 2001),
 *   the model does; the interval spans both;
 * - no predictor beats the mean (the best held-out R2 <= 0 among the model and both forests,
 *   R2 = 1 - SS_res / SS_tot): p5 and p95 are widened to include the training targets' range
 *   [min y, max y] (widened 1), the spread that predicting the mean admits.
 * Fills p's range fields and counts. */
void pma_predictions_check(struct pma_predictions *p, const struct pma_learn_table *t,
			   const struct pma_learn_eval *ev);

/* PMA_RESULT_LEARN: what --learn found: the training table's shape, the held-out evaluation,
 * the forest's importances (all rows), the energy-gap note (energy_gap_runs 0: none), the runs
 * left out because they did not exit 0 (failed.runs 0: none; failed.trace borrowed), the saved
 * model (model NULL: not asked; model_out the path the front end wrote it to, borrowed) and the
 * predictions of --predict (pred.n 0: none). */
struct pma_learn_result {
	size_t rows;
	unsigned nconfigs, trees;
	enum pma_learn_target target;
	struct pma_learn_eval ev;
	double importance[PMA_LEARN_NFEAT];
	double energy_gap_runs, energy_gap_max_s, energy_gap_run_id;
	struct pma_learn_failed failed;
	const char *model_out;
	unsigned char *model;         /* the forest as pma_forest_save wrote it (owned) */
	size_t model_bytes;
	struct pma_predictions pred;
};

/* PMA_RESULT_TOEP: TOEP's result r over a table of rows runs and nconfigs configurations, trees
 * the forest's size. */
struct pma_toep_study {
	struct pma_toep_result r;
	size_t rows;
	unsigned nconfigs, trees;
	enum pma_learn_target target;
};

void pma_predictions_free(struct pma_predictions *p);
void pma_learn_result_free(struct pma_learn_result *l);
void pma_toep_study_free(struct pma_toep_study *s);

#endif
