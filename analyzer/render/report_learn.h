/* SPDX-License-Identifier: MIT */
/* report_learn.h: the views of --learn, --toep and --predict (docs/energy.md §3): a training set's evaluation,
 * TOEP's methods and the forest's predictions, each as a table, JSON or CSV
 * (docs/pmanalyze-json.md). Rendering only: the numbers come from result/learning.h. */
#ifndef PMA_REPORT_LEARN_H
#define PMA_REPORT_LEARN_H

#include <stddef.h>
#include <stdio.h>

#include "render/report.h"
#include "result/compute.h"
#include "result/training.h"

/* Writes a learned result r (kind PMA_RESULT_LEARN, _TOEP or _PREDICT, result/learning.h) to
 * out in fmt:
 * - --learn: the report, then the predictions when there are some. JSON: one object, schema
 *   "pmanalyze-learn/1"; CSV: the predictors' rows, and after an empty line the predictions' rows;
 * - --predict with --model: the predictions alone. JSON: schema "pmanalyze-predict/1";
 * - --toep: TOEP's methods. JSON: schema "pmanalyze-toep/1"; CSV: one row per method.
 * (docs/pmanalyze-json.md.) Returns 0, or -1 when r is of another kind or out has an error. */
int pma_render_learned(FILE *out, const struct pma_result *r, enum pma_format fmt);

#endif
