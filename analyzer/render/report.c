/* SPDX-License-Identifier: MIT */
/* report.c: renders a computed result (compute.h) as a table, JSON (schema pmanalyze/1) or CSV:
 * the order of the sections in each format and the choice by the result's kind. The sections
 * are one file each (report_<section>.c, report_sections.h); --info is report_info.c. Renders
 * only: every number comes from struct pma_result. */
#include "report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "render_util.h"
#include "report_sections.h"

/* The table: one function per section, in order; a new section adds one call. */
static void print_table(FILE *out, const struct pma_result *r)
{
	pma_render_table_run(out, r);
	fputc('\n', out);
	pma_render_table_parallelism(out, r);
	pma_render_table_concurrency(out, r);
	pma_render_print_memory(out, r);
	pma_render_table_predictions(out, r);
	pma_render_table_regions(out, r);
	pma_render_table_energy(out, r);
	pma_render_table_scaling(out, r);
	pma_render_print_notes(out, &r->notes, "\nnote: ");
}

static void print_json(FILE *out, const struct pma_result *r, const struct pma_trace *traces, int ntraces)
{
	cJSON *root = cJSON_CreateObject(), *tr;
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze/1");
	if (r->kind == PMA_RESULT_INTERFERENCE) {
		cJSON_AddItemToObject(root, "interference", pma_render_interference_json(r));
		goto traces;
	}
	pma_render_parallelism_json(cJSON_AddObjectToObject(root, "parallelism"), r);
	pma_render_concurrency_json(cJSON_AddArrayToObject(root, "concurrency"), r);
	cJSON_AddItemToObject(root, "memory", pma_render_memory_json(r, traces));
	pma_render_optimal_json(root, r);
	pma_render_predictions_json(cJSON_AddArrayToObject(root, "predictions"), r);
	pma_render_runcheck_json(root, r);
	pma_render_regions_json(root, r);
	pma_render_energy_json(cJSON_AddObjectToObject(root, "energy"), r);
	pma_render_scaling_json(root, r);
traces:
	tr = cJSON_AddArrayToObject(root, "traces");
	for (int i = 0; i < ntraces; i++)
		cJSON_AddItemToArray(tr, pma_render_trace_json(&traces[i], i == 0 ? r->run : pma_trace_baseline(&traces[i])));
	pma_render_notes_json(root, "notes", "coded_notes", &r->notes);
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

/* The CSV: the predictions, then the tables of the sections that have one, each after a blank
 * line. */
static void print_csv(FILE *out, const struct pma_result *r)
{
	pma_render_csv_predictions(out, r);
	pma_render_csv_regions(out, r);
	pma_render_print_csv_scaling(out, r);
}

int pma_render(FILE *out, const struct pma_result *r, enum pma_format format)
{
	if (r->kind == PMA_RESULT_JOB) {
		if (format == PMA_FMT_JSON)
			pma_render_json_ranks(out, &r->job);
		else if (format == PMA_FMT_CSV)
			pma_render_csv_ranks(out, &r->job);
		else
			pma_render_table_ranks(out, &r->job);
		return ferror(out) ? -1 : 0;
	}
	switch (format) {
	case PMA_FMT_JSON:
		print_json(out, r, r->traces, r->ntraces);
		break;
	case PMA_FMT_CSV:
		if (r->kind == PMA_RESULT_INTERFERENCE)
			pma_render_print_interference_csv(out, r);
		else
			print_csv(out, r);
		break;
	default:
		if (r->kind == PMA_RESULT_INTERFERENCE)
			pma_render_table_interference(out, r);
		else
			print_table(out, r);
		break;
	}
	return ferror(out) ? -1 : 0;
}
