/* SPDX-License-Identifier: MIT */
/* report_stationarity.c: the report's "stationarity" section: A(m,inf) over each quarter of the
 * recording (a window or a whole run) with its uncertainty, where it comes from, and whether the
 * quarters agree (studies/stationarity.h). Renders only. */
#include "report_sections.h"

#include <math.h>

#include "render_util.h"
#include "html.h"
#include "html_util.h"

/* Where the quarters' A comes from, in words. */
static const char *stat_source(const struct pma_stationarity *st)
{
	if (st->method && st->method[0] == 's' && st->method[1] == 'c')
		return "sched-exact: the scheduler events' timelines";
	if (st->sampled_fallback)
		return "samples: the runnable estimator's intervals, as switch-exact has no real-time "
		       "timelines";
	return "samples: the runnable estimator's intervals, no scheduler events";
}

/* The verdict, into buf. */
static void stat_verdict(const struct pma_stationarity *st, char *buf, size_t size)
{
	snprintf(buf, size, "the quarters %s (chi-square over the four: p = %.2g %s %.2g)",
		 st->disagree ? "disagree beyond their uncertainty" : "agree within their uncertainty",
		 st->p, st->disagree ? "<" : ">=", PMA_STAT_P);
}

static void stationarity_table(FILE *out, const struct pma_result *r)
{
	const struct pma_stationarity *st = &r->stat;
	char verdict[160];

	if (!st->have) {
		if (st->why_not)
			fprintf(out, "\n%-13snot checked: %s\n", "stationarity", st->why_not);
		return;
	}
	stat_verdict(st, verdict, sizeof(verdict));
	fprintf(out, "\n%-13sA(m,inf) by quarter of the recording (%s)\n", "stationarity",
		stat_source(st));
	fprintf(out, "  %7s %9s %9s %8s %8s\n", "quarter", "start s", "length s", "A", "± A");
	for (int i = 0; i < PMA_STAT_QUARTERS; i++)
		fprintf(out, "  %7d %9.3f %9.3f %8.2f %8.2f\n", i + 1, st->q[i].start_s,
			st->q[i].length_s, st->q[i].A, st->q[i].A_err);
	fprintf(out, "  %s\n", verdict);
}

/* "stationarity": {"checked", "why" | "method", "sampled_fallback", "quarters": [{"start_s",
 * "length_s", "A", "A_err", "A_err_stat"}], "estimator_rel_err", "chi2", "p", "p_max", "agree"} */
static void stationarity_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_stationarity *st = &r->stat;
	cJSON *o, *qs;

	if (!st->have && !st->why_not)
		return;
	o = cJSON_AddObjectToObject(root, "stationarity");
	cJSON_AddBoolToObject(o, "checked", st->have);
	if (!st->have) {
		cJSON_AddStringToObject(o, "why", st->why_not);
		return;
	}
	cJSON_AddStringToObject(o, "method", st->method);
	cJSON_AddBoolToObject(o, "sampled_fallback", st->sampled_fallback);
	qs = cJSON_AddArrayToObject(o, "quarters");
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		cJSON *q = cJSON_CreateObject();
		pma_render_add_finite(q, "start_s", st->q[i].start_s);
		pma_render_add_finite(q, "length_s", st->q[i].length_s);
		pma_render_add_finite(q, "A", st->q[i].A);
		pma_render_add_finite(q, "A_err", st->q[i].A_err);
		pma_render_add_finite(q, "A_err_stat", st->q[i].A_err_stat);
		cJSON_AddItemToArray(qs, q);
	}
	pma_render_add_finite(o, "estimator_rel_err", st->rel_err);
	if (isfinite(st->chi2))
		cJSON_AddNumberToObject(o, "chi2", st->chi2);
	pma_render_add_finite(o, "p", st->p);
	pma_render_add_finite(o, "p_max", PMA_STAT_P);
	cJSON_AddBoolToObject(o, "agree", !st->disagree);
}

static int stationarity_html(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_stationarity *st = &r->stat;
	char text[160];

	(void)why;
	(void)whysize;
	if (!st->have) {
		P("<p>Not checked: ");
		pma_html_escape(out, st->why_not ? st->why_not : "no data");
		P(".</p>\n");
		return 0;
	}
	stat_verdict(st, text, sizeof(text));
	P("<p>A(m,&#8734;) by quarter of the recording (");
	pma_html_escape(out, stat_source(st));
	P("): ");
	pma_html_escape(out, text);
	P(".</p>\n<div class=\"scroll\"><table id=\"stationarity-quarters\">\n<thead><tr><th>quarter</th>"
	  "<th>start s</th><th>length s</th><th>A(m,&#8734;)</th><th>&#177;</th></tr></thead>\n"
	  "<tbody>\n");
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		P("<tr><td>%d</td>", i + 1);
		pma_html_cell_num(out, st->q[i].start_s, 3);
		pma_html_cell_num(out, st->q[i].length_s, 3);
		pma_html_cell_num(out, st->q[i].A, 2);
		pma_html_cell_num(out, st->q[i].A_err, 2);
		P("</tr>\n");
	}
	P("</tbody></table></div>\n");
	return 0;
}

const struct pma_section pma_section_stationarity = {
	.name = "stationarity",
	.steps = { { PMA_STAGE_FINAL, pma_step_stationarity } },
	.table = stationarity_table,
	.json = stationarity_json,
	.html = { { PMA_PAGE_SOURCES, "stationarity", "Stationarity", stationarity_html } },
};
