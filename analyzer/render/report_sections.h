/* SPDX-License-Identifier: MIT */
/* report_sections.h: inside render/ only: the sections of the report, each in the formats it has,
 * one file per section (report_<section>.c). report.c's pma_render calls them in order; a new
 * section adds a file, its entries here and one call per format in report.c. Every entry renders
 * r (pma_compute) and computes nothing; a JSON entry adds to the object or array it is given. */
#ifndef PMA_REPORT_SECTIONS_H
#define PMA_REPORT_SECTIONS_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "trace/analyze.h"
#include "result/compute.h"

/* report_run.c: the run (program, trace, machine, baseline, m, wall time, sources), its
 * parallelism (A(m,inf) by every estimator, T_cp, T(1), D(m), Tudor & Teo eq. 2) and its
 * concurrency histogram (share of T_cp by active threads). */
void pma_render_table_run(FILE *out, const struct pma_result *r);
void pma_render_table_parallelism(FILE *out, const struct pma_result *r);
void pma_render_table_concurrency(FILE *out, const struct pma_result *r);
/* "parallelism" into the object par, "concurrency" into the array hist. */
void pma_render_parallelism_json(cJSON *par, const struct pma_result *r);
void pma_render_concurrency_json(cJSON *hist, const struct pma_result *r);
/* HTML: the headline figures: A(m,inf), T_cp, D(m), the best n and why (eq. 2, 4, 11). */
int pma_render_html_headline(FILE *out, const struct pma_result *r, char *why, size_t whysize);

/* report_memory.c: the memory model (Tudor & Teo eq. 8-10, Table IV): source, parameters,
 * measured vs modeled omega. pma_render_memory_json returns a new "memory" object (traces: the result's
 * traces, named by the calibration points). */
void pma_render_print_memory(FILE *out, const struct pma_result *r);
cJSON *pma_render_memory_json(const struct pma_result *r, const struct pma_trace *traces);

/* report_predictions.c: the predictions per core count (S = A(m,n) / (1 + omega), eq. 1) and the
 * optimal core count (eq. 11). The table collapses runs of identical rows; JSON and CSV keep every
 * core count. pma_render_optimal_json adds "optimal_cores" and "optimal" to root; pma_render_csv_predictions writes the
 * CSV's header and one row per core count (with the energy columns of that core count). */
void pma_render_table_predictions(FILE *out, const struct pma_result *r);
void pma_render_optimal_json(cJSON *root, const struct pma_result *r);
void pma_render_predictions_json(cJSON *preds, const struct pma_result *r);
/* "runs_check": the predictions against the trace's own runs on 1 and n CPUs (runcheck.h), one
 * object per core count; absent when there is none. */
void pma_render_runcheck_json(cJSON *root, const struct pma_result *r);
void pma_render_csv_predictions(FILE *out, const struct pma_result *r);
/* HTML: the predictions' table and the runs check's. */
int pma_render_html_predictions(FILE *out, const struct pma_result *r, char *why, size_t whysize);

/* report_regions.c: the OpenMP regions (or phases) and Allande et al.'s best configuration per
 * region (eq. 2-9); nothing when the trace has neither. pma_render_regions_json adds "regions" to root. */
void pma_render_table_regions(FILE *out, const struct pma_result *r);
void pma_render_regions_json(cJSON *root, const struct pma_result *r);
void pma_render_csv_regions(FILE *out, const struct pma_result *r);
int pma_render_html_regions(FILE *out, const struct pma_result *r, char *why, size_t whysize);

/* report_energy.c: the power model, E(n) and EDP(n) per core count (docs/energy.md §2), or why
 * there is none. pma_render_energy_json fills the object o ("energy"). */
void pma_render_table_energy(FILE *out, const struct pma_result *r);
void pma_render_energy_json(cJSON *o, const struct pma_result *r);
/* HTML: E(n) and the energy-optimal core count, then the run's power by zone and its plot. */
int pma_render_html_energy(FILE *out, const struct pma_result *r, char *why, size_t whysize);

/* report_scaling.c: the --sweep study: measured vs predicted per configuration and the PMNF fits
 * (Iwainsky et al.); nothing without a sweep. pma_render_scaling_json adds "scaling" to root. */
void pma_render_table_scaling(FILE *out, const struct pma_result *r);
void pma_render_scaling_json(cJSON *root, const struct pma_result *r);
void pma_render_print_csv_scaling(FILE *out, const struct pma_result *r);
int pma_render_html_scaling(FILE *out, const struct pma_result *r, char *why, size_t whysize);

/* report_notes.c: the notes in HTML: those that ask for an action, each with its reason (What to
 * do next), and the others (Notes). Every HTML entry writes a section's body and returns 0, or -1
 * with a one-line reason in why. */
int pma_render_html_next(FILE *out, const struct pma_result *r, char *why, size_t whysize);
int pma_render_html_notes(FILE *out, const struct pma_result *r, char *why, size_t whysize);

/* report_traces.c: the data sources in HTML: program, traces, machine, analyzed run, memory
 * model, what was recorded and what was missing. */
int pma_render_html_sources(FILE *out, const struct pma_result *r, char *why, size_t whysize);

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
