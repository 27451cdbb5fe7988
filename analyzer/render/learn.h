/* SPDX-License-Identifier: MIT */
/* learn.h: the views of --learn, --toep and --predict (docs/energy.md §3): a training set's evaluation,
 * TOEP's methods and the forest's predictions, each as a table, JSON or CSV
 * (docs/pmanalyze-json.md). Rendering only: the numbers come from studies/learn.h, studies/toep.h
 * and model/forest.h. */
#ifndef PMA_RENDER_LEARN_H
#define PMA_RENDER_LEARN_H

#include <stddef.h>
#include <stdio.h>

#include "render/report.h"
#include "studies/learn.h"
#include "studies/toep.h"

/* One prediction of the forest for a configuration (--predict): the forest's mean and its 5th and
 * 95th percentiles over the trees, in the target's unit (s or J); T_model_s the analytical
 * model's T(n) (Tudor & Teo, eq. 1) of the program's runs, NAN without; program and size the
 * family (NULL "-", size NAN unknown). */
struct pma_predict_row {
	unsigned threads, cores;
	double mean, p5, p95, T_model_s;
	const char *program;
	double size;
};

/* What --learn found: the training table's shape, the held-out evaluation, the forest's
 * importances ([PMA_LEARN_NFEAT], all rows), the energy-gap note (runs 0: none), and the saved
 * model (model_out NULL: not saved). */
struct pma_learn_view {
	size_t rows;
	unsigned nconfigs, trees;
	enum pma_learn_target target;
	const struct pma_learn_eval *ev;
	const double *importance;
	double energy_gap_runs, energy_gap_max_s;
	const char *model_out;
	size_t model_bytes;
};

/* Writes the --learn report, then the predictions (n 0: none) in format fmt. JSON: one object,
 * schema "pmanalyze-learn/1"; CSV: the predictors' rows, and after an empty line the
 * predictions' rows when there are some. */
void pma_render_learn(FILE *out, const struct pma_learn_view *v, const struct pma_predict_row *p,
		      size_t n, enum pma_format fmt);

/* Writes the predictions alone (--predict with --model) in fmt. JSON: schema
 * "pmanalyze-predict/1". */
void pma_render_predict(FILE *out, const struct pma_predict_row *p, size_t n, enum pma_format fmt);

/* Writes TOEP's result r of a table of rows runs and nconfigs configurations (trees: the forest's
 * size) in fmt. JSON: schema "pmanalyze-toep/1"; CSV: one row per method. */
void pma_render_toep(FILE *out, const struct pma_toep_result *r, size_t rows, unsigned nconfigs,
		     unsigned trees, enum pma_learn_target target, enum pma_format fmt);

#endif
