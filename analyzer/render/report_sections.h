/* SPDX-License-Identifier: MIT */
/* report_sections.h: inside render/ only: what the report's files share beyond their sections
 * (result/section.h): the pieces of the report that other renderers reuse, and the reports of the
 * other result kinds. A section itself is declared by its struct pma_section alone, in its file
 * (report_<section>.c), and listed in sections.c. Every entry renders r (pma_compute) and computes
 * nothing; a JSON entry adds to the object it is given. */
#ifndef PMA_REPORT_SECTIONS_H
#define PMA_REPORT_SECTIONS_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "trace/analyze.h"
#include "result/compute.h"
#include "result/section.h"

/* report_traces.c: "traces" into root: the JSON object of every trace (render_util.h), the first
 * with the analyzed run, the others with their baselines. Also the report of an interference
 * trace's. */
void pma_render_traces_json(cJSON *root, const struct pma_result *r);

/* report_notes.c: "notes" and "coded_notes" into root (pma_render_notes_json). */
void pma_render_notes_section_json(cJSON *root, const struct pma_result *r);

/* report_interference.c: the whole report of an --interfere trace (Casas & Bronevetsky): the
 * calibration, the sensitivity curve and the verdict. pma_render_interference_json returns a new object,
 * NULL when out of memory. */
void pma_render_table_interference(FILE *out, const struct pma_result *r);
cJSON *pma_render_interference_json(const struct pma_result *r);
void pma_render_print_interference_csv(FILE *out, const struct pma_result *r);

/* report_job.c: the whole report of a job of MPI ranks merged from rank traces (result/ranks.c):
 * one row per rank, the summary, the imbalance, the clocks and the job's predictions; JSON
 * schema "pmanalyze-job/1". */
void pma_render_table_ranks(FILE *out, const struct pma_ranks_result *j);
void pma_render_json_ranks(FILE *out, const struct pma_ranks_result *j);
void pma_render_csv_ranks(FILE *out, const struct pma_ranks_result *j);

#endif
