/* SPDX-License-Identifier: MIT */
/* render.h: the one render entry of pmanalyze's results, every kind (result/compute.h) in every
 * format: a run, an interference study and a job by report.h, the learned kinds (--learn, --toep,
 * --predict) by report_learn.h. */
#ifndef PMA_RENDER_H
#define PMA_RENDER_H

#include <stdio.h>

#include "report.h"

/* Writes r to out as a table, JSON or CSV by its kind (pma_render for a run, an interference
 * study or a job; pma_render_learned for a training set, TOEP or a prediction). Returns 0, or -1
 * when out has an error (errno from the failed write). */
int pma_render_result(FILE *out, const struct pma_result *r, enum pma_format format);

#endif
