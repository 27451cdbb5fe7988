/* SPDX-License-Identifier: MIT */
/* report.h: pmanalyze's outputs: the prediction report (table, JSON, CSV), --info and --dump. */
#ifndef PMA_REPORT_H
#define PMA_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analyze.h"

enum pma_format { PMA_FMT_TABLE, PMA_FMT_JSON, PMA_FMT_CSV };

struct pma_report_opts {
	enum pma_format format;
	int estimator;          /* enum pma_estimator_kind used for the headline numbers */
	long run_id;            /* run to analyze, -1 = the baseline run */
	const uint32_t *cores;  /* n values, sorted; NULL = 1 .. max(m, CPUs of the recording machine) */
	size_t ncores;
	const char *machine;    /* --machine: hwloc XML or a trace to predict for; NULL = recording machine */
	uint32_t chunk;         /* --placement: threads per socket turn, 0 = compact, 1 = scatter */
	int mem_policy;         /* --mem: enum pma_mem_policy, -1 = from the recorded policy */
};

/* Computes the parallelism and predictions of the chosen run of traces[0] (JSON schema
 * "pmanalyze/1", docs/pmanalyze-json.md) and writes them to out in the chosen format.
 * Returns 0, or -1 with a one-line reason in why (no run, no samples, one thread...). */
int pma_report(FILE *out, const struct pma_trace *traces, int ntraces,
	       const struct pma_report_opts *o, char *why, size_t whysize);

/* Writes what a trace holds (metadata, runs, threads, samples, sources, warnings) as text. */
void pma_info(FILE *out, const struct pma_trace *t);

/* Writes every record of the trace at path as one JSON object per line. Returns 0 or a negative
 * PMT_E_* with a reason in why. */
int pma_dump(FILE *out, const char *path, unsigned flags, char *why, size_t whysize);

#endif
