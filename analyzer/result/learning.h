/* SPDX-License-Identifier: MIT */
/* learning.h: the learned results computed from loaded traces (docs/energy.md §3): --learn's
 * training set and its held-out evaluation with the forest's predictions, --toep's procedure and
 * --predict's predictions of a loaded forest, each into a struct pma_result of its kind
 * (compute.h, training.h). Pure computation: no I/O; the front end loads the traces and the
 * model before and writes the model file after; render/report_learn.h renders the result. */
#ifndef PMA_LEARNING_H
#define PMA_LEARNING_H

#include <stddef.h>

#include "compute.h"
#include "training.h"

/* Parses --predict's list "T:N[,T:N...]" (threads and cores, each 1..1000000, at most
 * PMA_PREDICT_MAX) into c. Returns the number of configurations, or -1 with a one-line reason in
 * why (a malformed or empty list, too many configurations). */
int pma_predict_configs_parse(const char *list, struct pma_predict_configs *c, char *why,
			      size_t whysize);

/* --learn: the training table of traces' finished runs for target (studies/learn.h), the three
 * predictors on held-out configurations (pma_learn_evaluate), the importances of the forest with
 * model features trained on every row, the forest saved into r->learn.model when save_model,
 * and the forest's predictions for cfg (NULL: none; pma_predict_compute's rows). r is of kind
 * PMA_RESULT_LEARN and borrows traces. Returns 0, or -1 with a one-line reason in why (no
 * finished run, one configuration, a training error, out of memory); r is freed with
 * pma_result_free also on error. */
int pma_learn_compute(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		      const struct pma_predict_configs *cfg, int save_model, struct pma_result *r,
		      char *why, size_t whysize);

/* --toep: TOEP's own procedure over the training table of traces (studies/toep.h: Benedict,
 * Gschwandtner & Fahringer §III-A, eq. 1). r is of kind PMA_RESULT_TOEP. Returns 0, or -1 with a
 * reason (pma_learn_table's, pma_learn_check's, pma_toep_run's); r is freed with
 * pma_result_free also on error. */
int pma_toep_compute(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		     struct pma_result *r, char *why, size_t whysize);

/* --predict with --model: forest f's predictions for cfg. Per configuration, one row per program
 * family of traces (ntraces may be 0) that ran its thread count, with the model's T(n), else one
 * row of the last family without it (features NAN apart from threads, cores and the default
 * memory policy when no trace is given). r is of kind PMA_RESULT_PREDICT. Returns 0, or -1 with
 * a reason (pma_learn_table's, the forest's, out of memory). */
int pma_predict_compute(const struct pma_forest *f, const struct pma_trace *traces, int ntraces,
			const struct pma_predict_configs *cfg, struct pma_result *r, char *why,
			size_t whysize);

#endif
