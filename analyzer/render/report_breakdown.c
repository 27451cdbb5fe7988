/* SPDX-License-Identifier: MIT */
/* report_breakdown.c: the report's section on where the calibration runs' time on c CPUs goes
 * beside the prediction from the baseline (studies/breakdown.h): table, JSON, CSV and HTML. */
#include <math.h>
#include <string.h>

#include "report_sections.h"
#include "render_util.h"
#include "html.h"
#include "html_util.h"

/* The freq column is shown where some row has both clocks (the baseline's and its runs'). */
static int any_freq(const struct pma_breakdown *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->rows[i].freq_known)
			return 1;
	return 0;
}

static const char *term_name(const char *largest)
{
	static const struct { const char *key, *text; } names[] = {
		{ "cpu", "the program's own CPU time (U(c) - U(1)) / c" },
		{ "freq", "the clock frequency: the runs' mean clock against the baseline's" },
		{ "other", "other processes' time on the run's CPUs" },
		{ "steal", "the hypervisor's steal time" },
		{ "wake", "wake-up latency: woken threads waiting for a CPU not running the program" },
		{ "preempt", "preempted threads waiting for a CPU not running the program" },
		{ "rest", "threads not ready where the replay had them ready (dependencies)" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].key, largest))
			return names[i].text;
	return largest;
}

static void table_breakdown(FILE *out, const struct pma_result *r)
{
	const struct pma_breakdown *b = &r->breakdown;
	int fq = any_freq(b);

	if (!b->n)
		return;
	fputs("\nwhere the runs' time goes: the calibration runs on c CPUs replayed from their own "
	      "scheduler events,\nagainst the prediction from the baseline (seconds of wall time, "
	      "means over the runs)\n", out);
	fprintf(out, "  %5s %4s %8s %8s %8s %8s", "cores", "runs", "T pred", "T meas", "diff", "cpu");
	if (fq)
		fprintf(out, " %8s", "freq");
	fprintf(out, " %8s %8s %8s %8s %8s  %s\n", "other", "steal", "wake", "preempt", "rest",
		"largest");
	for (size_t i = 0; i < b->n; i++) {
		const struct pma_breakdown_row *w = &b->rows[i];
		fprintf(out, "  %5u %4zu %8.3f %8.3f %+8.3f %+8.3f", w->cores, w->runs, w->T_pred_s,
			w->T_meas_s, w->T_meas_s - w->T_pred_s, w->cpu_s);
		if (fq && w->freq_known)
			fprintf(out, " %+8.3f", w->freq_s);
		else if (fq)
			fprintf(out, " %8s", "-");
		fprintf(out, " %+8.3f %+8.3f %+8.3f %+8.3f %+8.3f  %s\n", w->other_s, w->steal_s,
			w->lost_wake_s, w->lost_preempt_s, w->rest_s, w->largest);
	}
	if (fq)
		fprintf(out, "  freq: the runs' mean clock against the baseline's %.0f MHz (%s), the "
			"same cycles taking U(1) f1 / fc\n", b->f1_hz / 1e6, b->f1_source);
	for (size_t i = 0; i < b->n; i++) {
		const struct pma_breakdown_row *w = &b->rows[i];
		fprintf(out, "  %u CPUs: largest term %s, %+.3f s (%+.1f%% of T pred)\n", w->cores,
			fq && !strcmp(w->largest, "cpu") ? "the program's own CPU time at the baseline's "
			"clock (U(c) - U(1) f1 / fc) / c" : term_name(w->largest), w->largest_s,
			100 * w->largest_s / w->T_pred_s);
		fprintf(out, "    wake-up latency %.3f thread-s over %.0f wakes; %.0f migrations "
			"(%.3f thread-s runnable before them)\n", w->wake_latency_s, w->wakes,
			w->migrations, w->migration_wait_s);
		fprintf(out, "    switch-ins %.0f on 1 CPU, %.0f on %u (preemptions %.0f, %.0f); "
			"U(1) %.3f s, U(%u) %.3f s; CPU time per switch-in %.2f ms, %.2f ms\n",
			b->switch_ins_1, w->switch_ins, w->cores, b->preemptions_1, w->preemptions,
			b->U1_s, w->cores, w->U_s, b->U_per_switch_1_ms, w->U_per_switch_ms);
	}
}

static void breakdown_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_breakdown *b = &r->breakdown;
	cJSON *o, *rows;

	if (!b->n)
		return;
	o = cJSON_AddObjectToObject(root, "runs_breakdown");
	cJSON_AddNumberToObject(o, "U1_s", b->U1_s);
	cJSON_AddNumberToObject(o, "switch_ins_1", b->switch_ins_1);
	cJSON_AddNumberToObject(o, "preemptions_1", b->preemptions_1);
	cJSON_AddNumberToObject(o, "U_per_switch_1_ms", b->U_per_switch_1_ms);
	pma_render_add_finite(o, "f1_hz", b->f1_hz);
	if (b->f1_source)
		cJSON_AddStringToObject(o, "clock_source", b->f1_source);
	else
		cJSON_AddNullToObject(o, "clock_source");
	rows = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; i < b->n; i++) {
		const struct pma_breakdown_row *w = &b->rows[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "cores", w->cores);
		cJSON_AddNumberToObject(e, "runs", (double)w->runs);
		cJSON_AddNumberToObject(e, "T_pred_s", w->T_pred_s);
		cJSON_AddNumberToObject(e, "T_meas_s", w->T_meas_s);
		cJSON_AddNumberToObject(e, "diff_s", w->T_meas_s - w->T_pred_s);
		cJSON_AddNumberToObject(e, "cpu_s", w->cpu_s);
		pma_render_add_finite(e, "freq_s", w->freq_known ? w->freq_s : NAN);
		pma_render_add_finite(e, "f_ratio", w->f_ratio);
		cJSON_AddNumberToObject(e, "lost_s", w->lost_s);
		cJSON_AddNumberToObject(e, "other_s", w->other_s);
		cJSON_AddNumberToObject(e, "steal_s", w->steal_s);
		cJSON_AddNumberToObject(e, "wake_s", w->lost_wake_s);
		cJSON_AddNumberToObject(e, "preempt_s", w->lost_preempt_s);
		cJSON_AddNumberToObject(e, "rest_s", w->rest_s);
		cJSON_AddStringToObject(e, "largest", w->largest);
		cJSON_AddNumberToObject(e, "largest_s", w->largest_s);
		cJSON_AddNumberToObject(e, "wake_latency_s", w->wake_latency_s);
		cJSON_AddNumberToObject(e, "wakes", w->wakes);
		cJSON_AddNumberToObject(e, "migrations", w->migrations);
		cJSON_AddNumberToObject(e, "migration_wait_s", w->migration_wait_s);
		cJSON_AddNumberToObject(e, "switch_ins", w->switch_ins);
		cJSON_AddNumberToObject(e, "preemptions", w->preemptions);
		cJSON_AddNumberToObject(e, "U_s", w->U_s);
		cJSON_AddNumberToObject(e, "U_per_switch_ms", w->U_per_switch_ms);
		cJSON_AddItemToArray(rows, e);
	}
}

/* After a blank line, one row per calibrated core count (freq_s and f_ratio empty when unknown). */
static void csv_breakdown(FILE *out, const struct pma_result *r)
{
	const struct pma_breakdown *b = &r->breakdown;

	if (!b->n)
		return;
	fputs("\nbreakdown_cores,runs,T_pred_s,T_meas_s,diff_s,cpu_s,freq_s,f_ratio,other_s,steal_s,"
	      "wake_s,preempt_s,rest_s,largest,wake_latency_s,wakes,migrations,switch_ins,"
	      "preemptions,U_s,U1_s\n", out);
	for (size_t i = 0; i < b->n; i++) {
		const struct pma_breakdown_row *w = &b->rows[i];
		fprintf(out, "%u,%zu,%.6f,%.6f,%.6f,%.6f,", w->cores, w->runs, w->T_pred_s, w->T_meas_s,
			w->T_meas_s - w->T_pred_s, w->cpu_s);
		if (w->freq_known)
			fprintf(out, "%.6f,%.6f,", w->freq_s, w->f_ratio);
		else
			fputs(",,", out);
		fprintf(out, "%.6f,%.6f,%.6f,%.6f,%.6f,%s,%.6f,%.6g,%.6g,%.6g,%.6g,%.6f,%.6f\n",
			w->other_s, w->steal_s, w->lost_wake_s, w->lost_preempt_s, w->rest_s, w->largest,
			w->wake_latency_s, w->wakes, w->migrations, w->switch_ins, w->preemptions, w->U_s,
			b->U1_s);
	}
}

static int breakdown_html(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_breakdown *b = &r->breakdown;
	int fq = any_freq(b);

	(void)why;
	(void)whysize;
	if (!b->n) {
		P("<p>Not made: it needs a baseline on one CPU and calibration runs on more than one, "
		  "both with scheduler events, and predictions for the recording machine (no --machine).</p>\n");
		return 0;
	}
	P("<p>The calibration runs on c CPUs replayed from their own scheduler events, against the "
	  "prediction from the baseline: seconds of wall time, means over the runs "
	  "(docs/model.md &#8220;Where the runs&#8217; time goes&#8221;).</p>\n"
	  "<div class=\"scroll\"><table id=\"runs-breakdown\">\n<thead><tr><th>cores</th>"
	  "<th>runs</th><th>T pred</th><th>T meas</th><th>diff</th><th>cpu</th>%s<th>other</th>"
	  "<th>steal</th><th>wake</th><th>preempt</th><th>rest</th><th>largest</th></tr></thead>\n"
	  "<tbody>\n", fq ? "<th>freq</th>" : "");
	for (size_t i = 0; i < b->n; i++) {
		const struct pma_breakdown_row *w = &b->rows[i];
		P("<tr><td>%u</td><td>%zu</td>", w->cores, w->runs);
		pma_html_cell_num(out, w->T_pred_s, 3);
		pma_html_cell_num(out, w->T_meas_s, 3);
		pma_html_cell_num(out, w->T_meas_s - w->T_pred_s, 3);
		pma_html_cell_num(out, w->cpu_s, 3);
		if (fq)
			pma_html_cell_num(out, w->freq_known ? w->freq_s : NAN, 3);
		pma_html_cell_num(out, w->other_s, 3);
		pma_html_cell_num(out, w->steal_s, 3);
		pma_html_cell_num(out, w->lost_wake_s, 3);
		pma_html_cell_num(out, w->lost_preempt_s, 3);
		pma_html_cell_num(out, w->rest_s, 3);
		P("<td>");
		pma_html_escape(out, term_name(w->largest));
		P("</td></tr>\n");
	}
	P("</tbody></table></div>\n");
	return 0;
}

const struct pma_section pma_section_breakdown = {
	.name = "breakdown",
	.steps = { { PMA_STAGE_FINAL, pma_step_breakdown } },
	.table = table_breakdown,
	.json = breakdown_json,
	.csv = csv_breakdown,
	.html = { { PMA_PAGE_MEASURED, "breakdown", "Where the runs' time goes",
		    breakdown_html } },
};
