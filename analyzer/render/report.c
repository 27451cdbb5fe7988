/* SPDX-License-Identifier: MIT */
/* report.c: renders a computed result (compute.h) as a table, JSON (schema pmanalyze/1) or CSV:
 * the order of the sections in each format and the choice by the result's kind. The sections
 * are one file each (report_<section>.c, report_sections.h); --info is report_info.c. Also
 * pma_csv_field, the quoting of every CSV writer. Renders only: every number comes from struct
 * pma_result. */
#include "report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "render_util.h"
#include "report_sections.h"

/* The table: one function per section, in order; a new section adds one call. */
static void print_table(FILE *out, const struct pma_result *r)
{
	table_run(out, r);
	fputc('\n', out);
	table_parallelism(out, r);
	table_concurrency(out, r);
	print_memory(out, r);
	table_predictions(out, r);
	table_regions(out, r);
	table_energy(out, r);
	table_scaling(out, r);
	table_quota(out, r);
	print_notes(out, &r->notes, "\nnote: ");
}

static void print_json(FILE *out, const struct pma_result *r, const struct pma_trace *traces, int ntraces)
{
	cJSON *root = cJSON_CreateObject(), *tr;
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze/1");
	if (r->kind == PMA_RESULT_INTERFERENCE) {
		cJSON_AddItemToObject(root, "interference", interference_json(r));
		goto traces;
	}
	parallelism_json(cJSON_AddObjectToObject(root, "parallelism"), r);
	concurrency_json(cJSON_AddArrayToObject(root, "concurrency"), r);
	cJSON_AddItemToObject(root, "memory", memory_json(r, traces));
	optimal_json(root, r);
	predictions_json(cJSON_AddArrayToObject(root, "predictions"), r);
	runcheck_json(root, r);
	regions_json(root, r);
	energy_json(cJSON_AddObjectToObject(root, "energy"), r);
	scaling_json(root, r);
	quota_json(root, r);
traces:
	tr = cJSON_AddArrayToObject(root, "traces");
	for (int i = 0; i < ntraces; i++)
		cJSON_AddItemToArray(tr, trace_json(&traces[i], i == 0 ? r->run : pma_trace_baseline(&traces[i])));
	notes_json(root, "notes", "coded_notes", &r->notes);
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
	csv_predictions(out, r);
	csv_regions(out, r);
	print_csv_scaling(out, r);
	csv_quota(out, r);
}

int pma_render(FILE *out, const struct pma_result *r, enum pma_format format)
{
	if (r->kind == PMA_RESULT_JOB) {
		if (format == PMA_FMT_JSON)
			json_ranks(out, &r->job);
		else if (format == PMA_FMT_CSV)
			csv_ranks(out, &r->job);
		else
			table_ranks(out, &r->job);
		return ferror(out) ? -1 : 0;
	}
	switch (format) {
	case PMA_FMT_JSON:
		print_json(out, r, r->traces, r->ntraces);
		break;
	case PMA_FMT_CSV:
		if (r->kind == PMA_RESULT_INTERFERENCE)
			print_interference_csv(out, r);
		else
			print_csv(out, r);
		break;
	default:
		if (r->kind == PMA_RESULT_INTERFERENCE)
			table_interference(out, r);
		else
			print_table(out, r);
		break;
	}
	return ferror(out) ? -1 : 0;
}

/* Quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180). */
void pma_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
