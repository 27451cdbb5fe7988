/* SPDX-License-Identifier: MIT */
/* report_quota.c: the report's section on the run time under a CPU quota (--quota; quota.h):
 * table, JSON and CSV. */
#include <math.h>
#include <stdio.h>

#include "report_sections.h"

/* The replay's words for its pool into buf: per-CPU slices, or one pool and why. */
static const char *replay_method(int slices, const char *why, char *buf, size_t size)
{
	if (slices)
		return "replay under CFS bandwidth control, per-CPU runtime slices";
	snprintf(buf, size, "replay under CFS bandwidth control, one runtime pool for all cores (%s)",
		 why ? why : "no per-CPU slices");
	return buf;
}

/* The tick a replay with per-CPU slices accounted runtime at, as a line of the table: its
 * length and whether the trace recorded the kernel's CONFIG_HZ (quota.h pma_quota_tick). Nothing
 * for one pool or the fluid approximation, which have no tick. */
static void table_tick(FILE *out, const struct pma_quota_tick *t, int slices)
{
	if (!slices)
		return;
	if (t->recorded)
		fprintf(out, "  tick %.3g ms (CONFIG_HZ %ld, recorded)\n", t->tick_ns / 1e6, t->config_hz);
	else
		fprintf(out, "  tick %.3g ms (CONFIG_HZ not recorded: the kernel's default %ld assumed)\n",
			t->tick_ns / 1e6, t->config_hz);
}

/* JSON "tick_ms" and "tick_source" ("recorded" or "default"), null without slices. */
static void json_tick(cJSON *o, const struct pma_quota_tick *t, int slices)
{
	if (slices) {
		cJSON_AddNumberToObject(o, "tick_ms", t->tick_ns / 1e6);
		cJSON_AddStringToObject(o, "tick_source", t->recorded ? "recorded" : "default");
	} else {
		cJSON_AddNullToObject(o, "tick_ms");
		cJSON_AddNullToObject(o, "tick_source");
	}
}

/* CSV fields tick_ms and tick_source, empty without slices, into buf. */
static const char *csv_tick(const struct pma_quota_tick *t, int slices, char *buf, size_t size)
{
	if (slices)
		snprintf(buf, size, "%.6g,%s", t->tick_ns / 1e6, t->recorded ? "recorded" : "default");
	else
		snprintf(buf, size, ",");
	return buf;
}

static const char *quota_method(const struct pma_quota_result *q, char *buf, size_t size)
{
	return q->fluid ? "work-conserving fluid approximation (no replay program: the quota as a "
			  "rate cap)" :
			  replay_method(q->slices, q->slices_why, buf, size);
}

static void table_quota(FILE *out, const struct pma_result *r)
{
	const struct pma_quota_result *q = &r->quota;
	char m[256];

	if (!q->have)
		return;
	fprintf(out, "\nCPU quota on %u cores, period %.0f ms", q->n, q->period_ns / 1e6);
	if (q->burst_ns > 0)
		fprintf(out, ", burst %.0f ms", q->burst_ns / 1e6);
	fprintf(out, ": %s\n", quota_method(q, m, sizeof(m)));
	table_tick(out, &q->tick, !q->fluid && q->slices);
	if (q->recorded)
		fprintf(out, "  the limit the trace was recorded under (%s), on the run's CPUs\n",
			q->recorded == 2 ? "set by pmcollect --quota" : "its cgroup's cpu quota");
	fprintf(out, "  unlimited T(%u) %.3f s, T(1) %.3f s, work U %.3f s\n", q->n, q->Tn_ns / 1e9,
		q->T1_ns / 1e9, q->U_ns / 1e9);
	if (q->omega_source)
		fprintf(out, "  omega(%u) %.3f from the memory model (C(n) from %s): work on %u cores "
			"costs 1 + omega and spends that much of the quota\n", q->n, q->omega,
			q->omega_source, q->n);
	else if (q->n > 1)
		fprintf(out, "  omega(%u) unknown: no memory contention assumed, T(n,Q) a lower bound "
			"(calibration runs give it: pmcollect --calibrate)\n", q->n);
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
		fprintf(out, "%s\n", w->no_throttle ? "  (Q >= cores: the replay throttles nothing)" : "");
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
	cJSON_AddBoolToObject(o, "slices", !q->fluid && q->slices);
	json_tick(o, &q->tick, !q->fluid && q->slices);
	cJSON_AddStringToObject(o, "limit", q->recorded == 2 ? "recorded, pmcollect --quota" :
					    q->recorded ? "recorded, cgroup" : "--quota");
	cJSON_AddNumberToObject(o, "cores", q->n);
	cJSON_AddNumberToObject(o, "period_ms", q->period_ns / 1e6);
	cJSON_AddNumberToObject(o, "burst_ms", q->burst_ns / 1e6);
	cJSON_AddNumberToObject(o, "T1_s", q->T1_ns / 1e9);
	cJSON_AddNumberToObject(o, "Tn_s", q->Tn_ns / 1e9);
	cJSON_AddNumberToObject(o, "work_s", q->U_ns / 1e9);
	cJSON_AddNumberToObject(o, "omega", q->omega);
	if (q->omega_source)
		cJSON_AddStringToObject(o, "omega_source", q->omega_source);
	else
		cJSON_AddNullToObject(o, "omega_source");
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
	char tick[64];

	if (!q->have)
		return;
	fprintf(out, "\nquota_cpus,cores,period_ms,method,T_s,S,cost,periods,throttled_periods,throttled_s,"
		"tick_ms,tick_source\n");
	csv_tick(&q->tick, !q->fluid && q->slices, tick, sizeof(tick));
	for (size_t i = 0; i < q->nrows; i++) {
		const struct pma_quota_row *w = &q->rows[i];
		fprintf(out, "%.4g,%u,%.6g,%s,%.6f,%.4f,%.4f,%llu,%llu,%.6f,%s\n", w->Q_cpus, q->n,
			q->period_ns / 1e6, q->fluid ? "fluid" : "replay", w->T_ns / 1e9, w->S, w->cost,
			(unsigned long long)w->st.periods, (unsigned long long)w->st.throttled_periods,
			w->st.throttled_ns / 1e9, tick);
	}
}

/* A measured median as text: "-" when the runs did not record it. */
static const char *thr_text(double v, char *buf, size_t size)
{
	if (isfinite(v))
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "-");
	return buf;
}

/* pmcollect --sweep quota=: measured T and throttled periods against the prediction, per quota. */
static void table_quota_sweep(FILE *out, const struct pma_result *r)
{
	const struct pma_quota_sweep *s = &r->quota_sweep;
	char a[32], b[32], m[256];

	if (!s->present)
		return;
	fprintf(out, "\nQuota sweep: measured against predicted T(n,Q) (%s)\n",
		s->fluid ? "fluid approximation: no throttled periods" :
			   replay_method(s->slices, s->slices_why, m, sizeof(m)));
	table_tick(out, &s->tick, !s->fluid && s->slices);
	fprintf(out, "  omega: the work's cost on n cores, 1 + omega, from the CPU time of the other "
		"quotas' runs (held out: a row's own runs do not predict it)\n");
	fprintf(out, "  %8s %9s %5s %4s %10s %7s %10s %7s %12s %12s\n", "Q (CPUs)", "period ms", "n",
		"runs", "T meas s", "omega", "T pred s", "error", "throttled", "throttled");
	fprintf(out, "  %8s %9s %5s %4s %10s %7s %10s %7s %12s %12s\n", "", "", "", "", "", "", "", "",
		"measured", "predicted");
	for (size_t i = 0; i < s->nrows; i++) {
		const struct pma_quota_sweep_row *w = &s->rows[i];
		char om[32];
		if (w->omega_runs)
			snprintf(om, sizeof(om), "%.3f", w->omega);
		else
			snprintf(om, sizeof(om), "-");
		fprintf(out, "  %8.2f %9.0f %5u %4zu %10.3f %7s %10.3f %+6.1f%% %12s %12s\n", w->Q_cpus,
			w->period_ns / 1e6, w->n, w->nreps, w->T_meas_ns / 1e9, om, w->T_pred_ns / 1e9,
			w->err_pct, thr_text(w->thr_meas, a, sizeof(a)), thr_text(w->thr_pred, b, sizeof(b)));
	}
	fprintf(out, "  mean |error| %.1f%% over %zu quota%s", s->mean_abs_err_pct, s->nrows,
		s->nrows == 1 ? "" : "s");
	if (s->unfinished)
		fprintf(out, "; %zu run%s left out (not finished with status 0)", s->unfinished,
			s->unfinished == 1 ? "" : "s");
	fprintf(out, "\n");
}

/* cJSON number, or null for NAN. */
static void add_num_or_null(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void quota_sweep_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_quota_sweep *s = &r->quota_sweep;
	cJSON *o, *rows;

	if (!s->present)
		return;
	o = cJSON_AddObjectToObject(root, "quota_sweep");
	cJSON_AddStringToObject(o, "method", s->fluid ? "fluid" : "replay");
	cJSON_AddBoolToObject(o, "slices", !s->fluid && s->slices);
	json_tick(o, &s->tick, !s->fluid && s->slices);
	cJSON_AddNumberToObject(o, "mean_abs_err_pct", s->mean_abs_err_pct);
	cJSON_AddNumberToObject(o, "unfinished", (double)s->unfinished);
	rows = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; i < s->nrows; i++) {
		const struct pma_quota_sweep_row *w = &s->rows[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "config", w->config);
		cJSON_AddNumberToObject(e, "quota_cpus", w->Q_cpus);
		cJSON_AddNumberToObject(e, "period_ms", w->period_ns / 1e6);
		cJSON_AddNumberToObject(e, "cores", w->n);
		cJSON_AddNumberToObject(e, "runs", (double)w->nreps);
		cJSON_AddNumberToObject(e, "T_measured_s", w->T_meas_ns / 1e9);
		cJSON_AddNumberToObject(e, "T_predicted_s", w->T_pred_ns / 1e9);
		cJSON_AddNumberToObject(e, "omega", w->omega);
		cJSON_AddNumberToObject(e, "omega_runs", (double)w->omega_runs);
		cJSON_AddNumberToObject(e, "err_pct", w->err_pct);
		add_num_or_null(e, "throttled_measured", w->thr_meas);
		add_num_or_null(e, "throttled_predicted", w->thr_pred);
		add_num_or_null(e, "periods_measured", w->periods_meas);
		add_num_or_null(e, "periods_predicted", w->periods_pred);
		cJSON_AddItemToArray(rows, e);
	}
}

static void csv_quota_sweep(FILE *out, const struct pma_result *r)
{
	const struct pma_quota_sweep *s = &r->quota_sweep;
	char a[32], b[32], tick[64];

	if (!s->present)
		return;
	fprintf(out, "\nquota_cpus,period_ms,cores,runs,method,T_measured_s,T_predicted_s,err_pct,"
		"throttled_measured,throttled_predicted,omega,omega_runs,tick_ms,tick_source\n");
	csv_tick(&s->tick, !s->fluid && s->slices, tick, sizeof(tick));
	for (size_t i = 0; i < s->nrows; i++) {
		const struct pma_quota_sweep_row *w = &s->rows[i];
		fprintf(out, "%.4g,%.6g,%u,%zu,%s,%.6f,%.6f,%.2f,%s,%s,%.4f,%zu,%s\n", w->Q_cpus,
			w->period_ns / 1e6, w->n, w->nreps, s->fluid ? "fluid" : "replay",
			w->T_meas_ns / 1e9, w->T_pred_ns / 1e9, w->err_pct,
			isfinite(w->thr_meas) ? thr_text(w->thr_meas, a, sizeof(a)) : "",
			isfinite(w->thr_pred) ? thr_text(w->thr_pred, b, sizeof(b)) : "", w->omega,
			w->omega_runs, tick);
	}
}

static void table_both(FILE *out, const struct pma_result *r)
{
	table_quota(out, r);
	table_quota_sweep(out, r);
}

static void json_both(cJSON *root, const struct pma_result *r)
{
	quota_json(root, r);
	quota_sweep_json(root, r);
}

static void csv_both(FILE *out, const struct pma_result *r)
{
	csv_quota(out, r);
	csv_quota_sweep(out, r);
}

const struct pma_section pma_section_quota = {
	.name = "quota",
	.steps = { { PMA_STAGE_STUDY, pma_step_quota }, { PMA_STAGE_STUDY, pma_step_quota_sweep } },
	.table = table_both,
	.json = json_both,
	.csv = csv_both,
};
