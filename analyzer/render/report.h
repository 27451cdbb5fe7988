/* SPDX-License-Identifier: MIT */
/* report.h: pmanalyze's views: the prediction report of a computed result (table, JSON, CSV) and
 * --info of a loaded trace. */
#ifndef PMA_REPORT_H
#define PMA_REPORT_H

#include <stdio.h>

#include "trace/analyze.h"
#include "result/compute.h"

enum pma_format { PMA_FMT_TABLE, PMA_FMT_JSON, PMA_FMT_CSV };

/* Writes r (pma_compute) to out as a table, as JSON (schema "pmanalyze/1",
 * docs/pmanalyze-json.md) or as CSV (one row per core count). The table collapses runs of
 * identical rows; JSON and CSV keep every core count. Returns 0, or -1 when out has an error
 * (errno from the failed write). */
int pma_render(FILE *out, const struct pma_result *r, enum pma_format format);

/* Writes what a trace holds (metadata, runs, threads, samples, sources, warnings) as text. */
void pma_info(FILE *out, const struct pma_trace *t);
/* --info in format: the text of pma_info, JSON (schema "pmanalyze-info/1": the report's trace
 * object and one object per run) or CSV (one row per run); docs/pmanalyze-json.md. */
void pma_render_info(FILE *out, const struct pma_trace *t, enum pma_format format);

#endif
