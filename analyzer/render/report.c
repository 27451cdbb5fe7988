/* SPDX-License-Identifier: MIT */
/* report.c: renders a computed result (compute.h) as a table, JSON (schema pmanalyze/1) or CSV:
 * the choice by the result's kind and, for a run, the loops over the list of sections
 * (sections.c, one file each: report_<section>.c); --info is report_info.c. Renders only: every
 * number comes from struct pma_result. */
#include "report.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "render_util.h"
#include "report_sections.h"

/* The table: every section's, in the list's order. */
static void print_table(FILE *out, const struct pma_result *r)
{
	for (size_t i = 0; i < pma_nsections; i++)
		if (pma_sections[i]->table)
			pma_sections[i]->table(out, r);
}

/* JSON: the schema, then every section's keys in the list's order; the report of an interference
 * trace has its own object, then the traces and the notes as a run's. */
static void print_json(FILE *out, const struct pma_result *r)
{
	cJSON *root = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze/1");
	if (r->kind == PMA_RESULT_INTERFERENCE) {
		cJSON_AddItemToObject(root, "interference", pma_render_interference_json(r));
		pma_render_traces_json(root, r);
		pma_render_notes_section_json(root, r);
	} else {
		for (size_t i = 0; i < pma_nsections; i++)
			if (pma_sections[i]->json)
				pma_sections[i]->json(root, r);
	}
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

/* The CSV: the tables of the sections that have one, in the list's order, each after a blank
 * line but the first (the predictions'). */
static void print_csv(FILE *out, const struct pma_result *r)
{
	for (size_t i = 0; i < pma_nsections; i++)
		if (pma_sections[i]->csv)
			pma_sections[i]->csv(out, r);
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
		print_json(out, r);
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
