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
void table_run(FILE *out, const struct pma_result *r);
void table_parallelism(FILE *out, const struct pma_result *r);
void table_concurrency(FILE *out, const struct pma_result *r);
/* "parallelism" into the object par, "concurrency" into the array hist. */
void parallelism_json(cJSON *par, const struct pma_result *r);
void concurrency_json(cJSON *hist, const struct pma_result *r);

/* report_memory.c: the memory model (Tudor & Teo eq. 8-10, Table IV): source, parameters,
 * measured vs modeled omega. memory_json returns a new "memory" object (traces: the result's
 * traces, named by the calibration points). */
void print_memory(FILE *out, const struct pma_result *r);
cJSON *memory_json(const struct pma_result *r, const struct pma_trace *traces);

/* report_predictions.c: the predictions per core count (S = A(m,n) / (1 + omega), eq. 1) and the
 * optimal core count (eq. 11). The table collapses runs of identical rows; JSON and CSV keep every
 * core count. optimal_json adds "optimal_cores" and "optimal" to root; csv_predictions writes the
 * CSV's header and one row per core count (with the energy columns of that core count). */
void table_predictions(FILE *out, const struct pma_result *r);
void optimal_json(cJSON *root, const struct pma_result *r);
void predictions_json(cJSON *preds, const struct pma_result *r);
/* "runs_check": the predictions against the trace's own runs on 1 and n CPUs (runcheck.h), one
 * object per core count; absent when there is none. */
void runcheck_json(cJSON *root, const struct pma_result *r);
void csv_predictions(FILE *out, const struct pma_result *r);

/* report_regions.c: the OpenMP regions (or phases) and Allande et al.'s best configuration per
 * region (eq. 2-9); nothing when the trace has neither. regions_json adds "regions" to root. */
void table_regions(FILE *out, const struct pma_result *r);
void regions_json(cJSON *root, const struct pma_result *r);
void csv_regions(FILE *out, const struct pma_result *r);

/* report_energy.c: the power model, E(n) and EDP(n) per core count (docs/energy.md §2), or why
 * there is none. energy_json fills the object o ("energy"). */
void table_energy(FILE *out, const struct pma_result *r);
void energy_json(cJSON *o, const struct pma_result *r);

/* report_quota.c: T(n, Q) under a CPU quota (--quota, quota.h): the replay's or the fluid
 * approximation's rows, throttling, the smallest quota under 5%; nothing without --quota.
 * quota_json adds "quota" to root. */
void table_quota(FILE *out, const struct pma_result *r);
void quota_json(cJSON *root, const struct pma_result *r);
void csv_quota(FILE *out, const struct pma_result *r);

/* report_scaling.c: the --sweep study: measured vs predicted per configuration and the PMNF fits
 * (Iwainsky et al.); nothing without a sweep. scaling_json adds "scaling" to root. */
void table_scaling(FILE *out, const struct pma_result *r);
void scaling_json(cJSON *root, const struct pma_result *r);
void print_csv_scaling(FILE *out, const struct pma_result *r);

/* report_interference.c: the whole report of an --interfere trace (Casas & Bronevetsky): the
 * calibration, the sensitivity curve and the verdict. interference_json returns a new object,
 * NULL when out of memory. */
void table_interference(FILE *out, const struct pma_result *r);
cJSON *interference_json(const struct pma_result *r);
void print_interference_csv(FILE *out, const struct pma_result *r);

/* report_job.c: the whole report of a job of MPI ranks merged from rank traces (result/ranks.c):
 * one row per rank, the summary, the imbalance, the clocks and the job's predictions; JSON
 * schema "pmanalyze-job/1". */
void table_ranks(FILE *out, const struct pma_ranks_result *j);
void json_ranks(FILE *out, const struct pma_ranks_result *j);
void csv_ranks(FILE *out, const struct pma_ranks_result *j);

#endif
