/* SPDX-License-Identifier: MIT */
/* report_stationarity.c: the report's "stationarity" section: A(m,inf) and C(n) per instruction
 * over each quarter of the recording (a window or a whole run) with their uncertainty, where they
 * come from, and whether the quarters agree (studies/stationarity.h). Renders only. */
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

/* C by quarter: the column's heading, the factor from the study's unit to the printed one, its
 * decimals, and the quantity in words (JSON "quantity"). */
static const char *C_heading(const struct pma_stationarity *st, double *scale, int *decimals,
			     const char **words, const char **key)
{
	*scale = 1;
	*decimals = 2;
	switch (st->C_kind) {
	case PMA_STAT_C_CYCLES_PER_INS:
		*words = "cycles per instruction";
		*key = "cycles_per_instruction";
		return "cyc/ins";
	case PMA_STAT_C_NS_PER_INS:
		*decimals = 3;
		*words = "CPU ns per instruction (no cycles counted)";
		*key = "cpu_ns_per_instruction";
		return "ns/ins";
	default:
		*scale = 1e-9;
		*words = "cycles per CPU-second, in GHz (no instructions counted)";
		*key = "cycles_per_cpu_s";
		return "GHz";
	}
}

/* The C verdict, into buf. */
static void C_verdict(const struct pma_stationarity *st, char *buf, size_t size)
{
	snprintf(buf, size, "C's quarters %s (chi-square over the four: p = %.2g %s %.2g)",
		 st->C_test.disagree ? "disagree beyond their uncertainty" :
				       "agree within their uncertainty",
		 st->C_test.p, st->C_test.disagree ? "<" : ">=", PMA_STAT_P);
}

static void stationarity_table(FILE *out, const struct pma_result *r)
{
	const struct pma_stationarity *st = &r->stat;
	char verdict[160];
	const char *cw = NULL, *ckey, *chead = NULL;
	double cs = 1;
	int cd = 2;

	if (st->C_have)
		chead = C_heading(st, &cs, &cd, &cw, &ckey);
	if (!st->have) {
		if (st->why_not)
			fprintf(out, "\n%-13snot checked: %s\n", "stationarity", st->why_not);
		if (!st->C_have)
			return;
		fprintf(out, "  C(n) by quarter (%s, %zu counter snapshots)\n", cw, st->C_snapshots);
		fprintf(out, "  %7s %9s %9s %8s %8s\n", "quarter", "start s", "length s", chead, "± C");
		for (int i = 0; i < PMA_STAT_QUARTERS; i++)
			fprintf(out, "  %7d %9.3f %9.3f %8.*f %8.*f\n", i + 1, st->q[i].start_s,
				st->q[i].length_s, cd, st->q[i].C * cs, cd, st->q[i].C_err * cs);
		C_verdict(st, verdict, sizeof(verdict));
		fprintf(out, "  %s\n", verdict);
		return;
	}
	stat_verdict(st, verdict, sizeof(verdict));
	fprintf(out, "\n%-13sA(m,inf) by quarter of the recording (%s)\n", "stationarity",
		stat_source(st));
	if (st->C_have)
		fprintf(out, "%-13sC(n) by quarter: %s, from %zu counter snapshots\n", "", cw,
			st->C_snapshots);
	fprintf(out, "  %7s %9s %9s %8s %8s", "quarter", "start s", "length s", "A", "± A");
	if (st->C_have)
		fprintf(out, " %8s %8s", chead, "± C");
	fputc('\n', out);
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		fprintf(out, "  %7d %9.3f %9.3f %8.2f %8.2f", i + 1, st->q[i].start_s,
			st->q[i].length_s, st->q[i].A, st->q[i].A_err);
		if (st->C_have)
			fprintf(out, " %8.*f %8.*f", cd, st->q[i].C * cs, cd, st->q[i].C_err * cs);
		fputc('\n', out);
	}
	fprintf(out, "  %s\n", verdict);
	if (st->C_have) {
		C_verdict(st, verdict, sizeof(verdict));
		fprintf(out, "  %s\n", verdict);
	} else if (st->C_why) {
		fprintf(out, "  C(n) by quarter not checked: %s\n", st->C_why);
	}
}

/* "C_by_quarter": {"checked", "why" | "quantity", "snapshots", "chi2", "p", "p_max", "agree"};
 * the quarters' "C", "C_err" (in the quantity's unit: cycles, ns or cycles per CPU-second) */
static void C_json(cJSON *o, cJSON *qs, const struct pma_stationarity *st)
{
	cJSON *c = cJSON_AddObjectToObject(o, "C_by_quarter");
	const char *words, *key;
	double scale;
	int dec;

	cJSON_AddBoolToObject(c, "checked", st->C_have);
	if (!st->C_have) {
		cJSON_AddStringToObject(c, "why", st->C_why ? st->C_why : "not computed");
		return;
	}
	(void)C_heading(st, &scale, &dec, &words, &key);
	cJSON_AddStringToObject(c, "quantity", key);
	cJSON_AddNumberToObject(c, "snapshots", (double)st->C_snapshots);
	if (isfinite(st->C_test.chi2))
		cJSON_AddNumberToObject(c, "chi2", st->C_test.chi2);
	pma_render_add_finite(c, "p", st->C_test.p);
	pma_render_add_finite(c, "p_max", PMA_STAT_P);
	cJSON_AddBoolToObject(c, "agree", !st->C_test.disagree);
	for (int i = 0; qs && i < PMA_STAT_QUARTERS; i++) {
		cJSON *q = cJSON_GetArrayItem(qs, i);
		pma_render_add_finite(q, "C", st->q[i].C);
		pma_render_add_finite(q, "C_err", st->q[i].C_err);
	}
}

/* "stationarity": {"checked", "why" | "method", "sampled_fallback", "quarters": [{"start_s",
 * "length_s", "A", "A_err", "A_err_stat", "work_ns", "T_cp_ns", "C", "C_err"}],
 * "estimator_rel_err", "chi2", "p",
 * "p_max", "agree", "C_by_quarter"} */
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
		if (st->C_have) { /* C's quarters alone: their times and C */
			qs = cJSON_AddArrayToObject(o, "quarters");
			for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
				cJSON *q = cJSON_CreateObject();
				pma_render_add_finite(q, "start_s", st->q[i].start_s);
				pma_render_add_finite(q, "length_s", st->q[i].length_s);
				cJSON_AddItemToArray(qs, q);
			}
			C_json(o, qs, st);
		} else {
			C_json(o, NULL, st);
		}
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
		pma_render_add_finite(q, "work_ns", st->q[i].work_ns);
		pma_render_add_finite(q, "T_cp_ns", st->q[i].T_cp_ns);
		cJSON_AddItemToArray(qs, q);
	}
	pma_render_add_finite(o, "estimator_rel_err", st->rel_err);
	if (isfinite(st->chi2))
		cJSON_AddNumberToObject(o, "chi2", st->chi2);
	pma_render_add_finite(o, "p", st->p);
	pma_render_add_finite(o, "p_max", PMA_STAT_P);
	cJSON_AddBoolToObject(o, "agree", !st->disagree);
	C_json(o, qs, st);
}

/* The quarters' table of the HTML page: A's columns when have, C's when C_have. */
static void html_quarters(FILE *out, const struct pma_stationarity *st)
{
	const char *cw = NULL, *ckey, *chead = NULL;
	double cs = 1;
	int cd = 2;

	if (st->C_have)
		chead = C_heading(st, &cs, &cd, &cw, &ckey);
	P("<div class=\"scroll\"><table id=\"stationarity-quarters\">\n<thead><tr><th>quarter</th>"
	  "<th>start s</th><th>length s</th>");
	if (st->have)
		P("<th>A(m,&#8734;)</th><th>&#177;</th>");
	if (st->C_have)
		P("<th>C(n) %s</th><th>&#177;</th>", chead);
	P("</tr></thead>\n<tbody>\n");
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		P("<tr><td>%d</td>", i + 1);
		pma_html_cell_num(out, st->q[i].start_s, 3);
		pma_html_cell_num(out, st->q[i].length_s, 3);
		if (st->have) {
			pma_html_cell_num(out, st->q[i].A, 2);
			pma_html_cell_num(out, st->q[i].A_err, 2);
		}
		if (st->C_have) {
			pma_html_cell_num(out, st->q[i].C * cs, cd);
			pma_html_cell_num(out, st->q[i].C_err * cs, cd);
		}
		P("</tr>\n");
	}
	P("</tbody></table></div>\n");
}

static int stationarity_html(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_stationarity *st = &r->stat;
	const char *cw = NULL, *ckey;
	double cs;
	int cd;
	char text[160];

	(void)why;
	(void)whysize;
	if (st->C_have)
		(void)C_heading(st, &cs, &cd, &cw, &ckey);
	if (!st->have) {
		P("<p>Not checked: ");
		pma_html_escape(out, st->why_not ? st->why_not : "no data");
		P(".</p>\n");
	} else {
		stat_verdict(st, text, sizeof(text));
		P("<p>A(m,&#8734;) by quarter of the recording (");
		pma_html_escape(out, stat_source(st));
		P("): ");
		pma_html_escape(out, text);
		P(".</p>\n");
	}
	if (st->C_have) {
		C_verdict(st, text, sizeof(text));
		P("<p>C(n) by quarter: ");
		pma_html_escape(out, cw);
		P(", from %zu counter snapshots: ", st->C_snapshots);
		pma_html_escape(out, text);
		P(".</p>\n");
	} else if (st->C_why) {
		P("<p>C(n) by quarter not checked: ");
		pma_html_escape(out, st->C_why);
		P(".</p>\n");
	}
	if (st->have || st->C_have)
		html_quarters(out, st);
	return 0;
}

const struct pma_section pma_section_stationarity = {
	.name = "stationarity",
	.steps = { { PMA_STAGE_FINAL, pma_step_stationarity } },
	.table = stationarity_table,
	.json = stationarity_json,
	.html = { { PMA_PAGE_SOURCES, "stationarity", "Stationarity", stationarity_html } },
};
