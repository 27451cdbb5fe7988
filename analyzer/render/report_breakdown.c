/* SPDX-License-Identifier: MIT */
/* report_breakdown.c: the report's section on where the calibration runs' time on c CPUs goes
 * beside the prediction from the baseline (studies/breakdown.h): table and JSON. */
#include <math.h>
#include <string.h>

#include "report_sections.h"

static const char *term_name(const char *largest)
{
	static const struct { const char *key, *text; } names[] = {
		{ "cpu", "the program's own CPU time (U(c) - U(1)) / c" },
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

	if (!b->n)
		return;
	fputs("\nwhere the runs' time goes: the calibration runs on c CPUs replayed from their own "
	      "scheduler events,\nagainst the prediction from the baseline (seconds of wall time, "
	      "means over the runs)\n", out);
	fprintf(out, "  %5s %4s %8s %8s %8s %8s %8s %8s %8s %8s %8s  %s\n", "cores", "runs",
		"T pred", "T meas", "diff", "cpu", "other", "steal", "wake", "preempt", "rest",
		"largest");
	for (size_t i = 0; i < b->n; i++) {
		const struct pma_breakdown_row *w = &b->rows[i];
		fprintf(out, "  %5u %4zu %8.3f %8.3f %+8.3f %+8.3f %+8.3f %+8.3f %+8.3f %+8.3f %+8.3f  "
			"%s\n", w->cores, w->runs, w->T_pred_s, w->T_meas_s, w->T_meas_s - w->T_pred_s,
			w->cpu_s, w->other_s, w->steal_s, w->lost_wake_s, w->lost_preempt_s, w->rest_s,
			w->largest);
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct pma_breakdown_row *w = &b->rows[i];
		fprintf(out, "  %u CPUs: largest term %s, %+.3f s (%+.1f%% of T pred)\n", w->cores,
			term_name(w->largest), w->largest_s, 100 * w->largest_s / w->T_pred_s);
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

const struct pma_section pma_section_breakdown = {
	.name = "breakdown",
	.steps = { { PMA_STAGE_FINAL, pma_step_breakdown } },
	.table = table_breakdown,
	.json = breakdown_json,
};
