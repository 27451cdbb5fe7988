/* SPDX-License-Identifier: MIT */
/* report_quota.c: the report's section on the run time under a CPU quota (--quota; quota.h):
 * table, JSON and CSV. */
#include <math.h>

#include "report_sections.h"

static const char *quota_method(const struct pma_quota_result *q)
{
	return q->fluid ? "work-conserving fluid approximation (no replay program: the quota as a "
			  "rate cap)" :
			  "replay under CFS bandwidth control";
}

static void table_quota(FILE *out, const struct pma_result *r)
{
	const struct pma_quota_result *q = &r->quota;

	if (!q->have)
		return;
	fprintf(out, "\nCPU quota on %u cores, period %.0f ms", q->n, q->period_ns / 1e6);
	if (q->burst_ns > 0)
		fprintf(out, ", burst %.0f ms", q->burst_ns / 1e6);
	fprintf(out, ": %s\n", quota_method(q));
	if (q->recorded)
		fprintf(out, "  the limit the trace was recorded under (%s), on the run's CPUs\n",
			q->recorded == 2 ? "set by pmcollect --quota" : "its cgroup's cpu quota");
	fprintf(out, "  unlimited T(%u) %.3f s, T(1) %.3f s, work U %.3f s\n", q->n, q->Tn_ns / 1e9,
		q->T1_ns / 1e9, q->U_ns / 1e9);
	fprintf(out, "  %8s %10s %7s %7s %10s %12s\n", "Q (CPUs)", "T(n,Q) s", "S", "cost",
		"throttled", "throttled s");
	for (size_t i = 0; i < q->nrows; i++) {
		const struct pma_quota_row *w = &q->rows[i];
		fprintf(out, "  %8.2f %10.3f %7.2f %6.1f%% ", w->Q_cpus, w->T_ns / 1e9, w->S,
			100 * w->cost);
		if (q->fluid)
			fprintf(out, "%10s %12s", "-", "-"); /* the fluid approximation has no periods */
		else
			fprintf(out, "%4llu/%-5llu %12.3f", (unsigned long long)w->st.throttled_periods,
				(unsigned long long)w->st.periods, w->st.throttled_ns / 1e9);
		fprintf(out, "%s\n", w->no_throttle ? "  (Q >= cores: no throttling possible)" : "");
	}
	if (q->Q_enough_cpus > 0)
		fprintf(out, "  smallest quota costing under %.0f%%: %.2f CPUs\n", 100 * PMA_QUOTA_COST_OK,
			q->Q_enough_cpus);
	else
		fprintf(out, "  no quota up to %u CPUs costs under %.0f%%\n", q->n, 100 * PMA_QUOTA_COST_OK);
}

static void quota_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_quota_result *q = &r->quota;
	cJSON *o, *rows;

	if (!q->have)
		return;
	o = cJSON_AddObjectToObject(root, "quota");
	cJSON_AddStringToObject(o, "method", q->fluid ? "fluid" : "replay");
	cJSON_AddStringToObject(o, "limit", q->recorded == 2 ? "recorded, pmcollect --quota" :
					    q->recorded ? "recorded, cgroup" : "--quota");
	cJSON_AddNumberToObject(o, "cores", q->n);
	cJSON_AddNumberToObject(o, "period_ms", q->period_ns / 1e6);
	cJSON_AddNumberToObject(o, "burst_ms", q->burst_ns / 1e6);
	cJSON_AddNumberToObject(o, "T1_s", q->T1_ns / 1e9);
	cJSON_AddNumberToObject(o, "Tn_s", q->Tn_ns / 1e9);
	cJSON_AddNumberToObject(o, "work_s", q->U_ns / 1e9);
	if (q->Q_enough_cpus > 0)
		cJSON_AddNumberToObject(o, "quota_enough_cpus", q->Q_enough_cpus);
	else
		cJSON_AddNullToObject(o, "quota_enough_cpus");
	rows = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; i < q->nrows; i++) {
		const struct pma_quota_row *w = &q->rows[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "quota_cpus", w->Q_cpus);
		cJSON_AddNumberToObject(e, "T_s", w->T_ns / 1e9);
		cJSON_AddNumberToObject(e, "S", w->S);
		cJSON_AddNumberToObject(e, "cost", w->cost);
		cJSON_AddNumberToObject(e, "periods", (double)w->st.periods);
		cJSON_AddNumberToObject(e, "throttled_periods", (double)w->st.throttled_periods);
		cJSON_AddNumberToObject(e, "throttled_s", w->st.throttled_ns / 1e9);
		cJSON_AddBoolToObject(e, "throttling_possible", !w->no_throttle);
		cJSON_AddItemToArray(rows, e);
	}
}

static void csv_quota(FILE *out, const struct pma_result *r)
{
	const struct pma_quota_result *q = &r->quota;

	if (!q->have)
		return;
	fprintf(out, "\nquota_cpus,cores,period_ms,method,T_s,S,cost,periods,throttled_periods,throttled_s\n");
	for (size_t i = 0; i < q->nrows; i++) {
		const struct pma_quota_row *w = &q->rows[i];
		fprintf(out, "%.4g,%u,%.6g,%s,%.6f,%.4f,%.4f,%llu,%llu,%.6f\n", w->Q_cpus, q->n,
			q->period_ns / 1e6, q->fluid ? "fluid" : "replay", w->T_ns / 1e9, w->S, w->cost,
			(unsigned long long)w->st.periods, (unsigned long long)w->st.throttled_periods,
			w->st.throttled_ns / 1e9);
	}
}

const struct pma_section pma_section_quota = {
	.name = "quota",
	.steps = { { PMA_STAGE_STUDY, pma_step_quota } },
	.table = table_quota,
	.json = quota_json,
	.csv = csv_quota,
};
