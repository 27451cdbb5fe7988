/* SPDX-License-Identifier: MIT */
/* report_predictions.c: the report's predictions per core count (Tudor & Teo eq. 1) and
 * optimal core count (eq. 11), as a table, JSON and the CSV's first table. */
#include "report_sections.h"

#include <math.h>
#include <string.h>

#include "render_util.h"

/* A number, or "-" when it is not given (not finite: past saturation). */
static void fmt_given(char *buf, size_t size, int prec, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%.*f", prec, v);
	else
		snprintf(buf, size, "-");
}

/* Row i of the predictions table without its core count. Returns buf. */
static char *table_row(char *buf, size_t size, const struct pma_result *r, size_t i)
{
	const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
	char w[16], x[16], S[32], dS[32], T[32], R[32];

	fmt_num(w, sizeof(w), 2, q->omega, "");
	fmt_num(x, sizeof(x), 0, q->omega > 0 && isfinite(q->omega) ? 100 * r->mem.cross[i] / q->omega :
		r->mem.cross[i] == 0 ? 0 : NAN, "%");
	/* saturated (omega "sat"): S, its uncertainty, T and R are not given */
	fmt_given(S, sizeof(S), 2, q->S);
	fmt_given(dS, sizeof(dS), 2, r->pred.S_err[i]);
	fmt_given(T, sizeof(T), 3, q->T_ns / 1e9);
	fmt_given(R, sizeof(R), 2, q->R);
	/* with the trace's own runs: ±S's model part and the S they measured at n (runcheck.h) */
	char runs[48] = "";
	if (r->runcheck.n) {
		char dm[32], Sm[32] = "";
		fmt_given(dm, sizeof(dm), 2, r->pred.S_err_model[i]);
		for (size_t k = 0; k < r->runcheck.n; k++)
			if (r->runcheck.rows[k].cores == q->cores)
				fmt_given(Sm, sizeof(Sm), 2, r->runcheck.rows[k].S);
		snprintf(runs, sizeof(runs), " %7s %8s", dm, Sm);
	}
	snprintf(buf, size, "%8.2f %7s %6s %8s %8s%s %10s %7s  %s%s", q->A, w, x, S, dS, runs, T, R,
		 r->mem.per_socket[i],
		 q->cores == r->opt.n_best ? "  <- optimal (eq. 11)" :
		 q->cores == r->opt.n_95 ? "  <- 95% of the best S" :
		 r->mem.busy[i] < q->cores ? "  = S(m): m threads, the other cores idle" : "");
	return buf;
}

/* The predictions per core count and the optimal core count (eq. 11). */
void table_predictions(FILE *out, const struct pma_result *r)
{
	fprintf(out, "\npredictions (%s; omega from %s; S = A(m,n) / (1 + omega), eq. 1; placement %s, "
		"memory %s)\n", r->par.est == PMA_EST_SCHED ? "T(n) from replaying the scheduler events on n cores"
						 : "A(m,n) from the profile, eq. 6",
		r->mem.cal.source, r->mem.placement, pma_mem_policy_name(r->mem.pol));
	fprintf(out, "  %6s %8s %7s %6s %8s %8s%s %10s %7s  %s\n", "cores", "A(m,n)", "omega", "xsock",
		"S", "±S", r->runcheck.n ? "  ±model  S runs" : "", "T (s)", "R", "per socket");
	for (size_t i = 0, j; i < r->pred.ncores; i = j + 1) {
		char row[256], next[256], n[32];
		/* once S has saturated the rows repeat: one row for a run of identical ones (JSON and
		 * CSV keep every n) */
		table_row(row, sizeof(row), r, i);
		for (j = i; j + 1 < r->pred.ncores && strcmp(table_row(next, sizeof(next), r, j + 1),
							     row) == 0; j++)
			;
		if (j == i)
			snprintf(n, sizeof(n), "%u", r->pred.cores[i]);
		else
			snprintf(n, sizeof(n), "%u-%u", r->pred.cores[i], r->pred.cores[j]);
		fprintf(out, "  %6s %s%s\n", n, row, j == i || r->mem.busy[i] < r->pred.cores[i] ? "" :
			"  (saturated)");
	}
	if (r->opt.n_best) {
		fprintf(out, "optimal      %u core%s (S = %.2f); 95%% of it from %u core%s; S increases over",
			r->opt.n_best, r->opt.n_best == 1 ? "" : "s", r->opt.S_best, r->opt.n_95,
			r->opt.n_95 == 1 ? "" : "s");
		for (size_t j = 0; j < r->opt.nintervals; j++)
			fprintf(out, " [%u, %u]", r->opt.interval[j][0], r->opt.interval[j][1]);
		fprintf(out, "%s", r->opt.nintervals ? "" : " no interval");
		/* the runs' S where they measured it (compute.c enforce_optimum) */
		for (size_t j = 0; j < r->pred.n_opt_measured; j++)
			fprintf(out, "%s%u", j ? ", " : "; S measured by this trace's runs at n = ",
				r->pred.opt_measured[j]);
		fputc('\n', out);
	}
	/* the trace's own runs on 1 and n CPUs (runcheck.h) */
	for (size_t i = 0; i < r->runcheck.n; i++) {
		const struct pma_runcheck_row *w = &r->runcheck.rows[i];
		char S[32], dS[32], dT[32], range[64] = "";
		fmt_given(S, sizeof(S), 2, w->S_pred);
		fmt_given(dS, sizeof(dS), 2, w->S_pred_err);
		if (w->runs_n > 1) /* each run on n CPUs against the median on one */
			snprintf(range, sizeof(range), " (%.2f-%.2f)", w->S_min, w->S_max);
		fmt_given(dT, sizeof(dT), 2, w->S_err_total);
		fprintf(out, "%-13sS(%u) = %.2f%s by this trace's runs: %zu on %u CPUs against %zu on "
			"1 (%swall times); predicted %s ± %s%s; ± %s with the model's error\n",
			i ? "" : "measured", w->cores, w->S, range, w->runs_n, w->cores, w->runs_1,
			w->runs_n > 1 || w->runs_1 > 1 ? "median " : "", S, dS,
			w->outside ? "  <- outside ±S" : "", dT);
	}
}

void runcheck_json(cJSON *root, const struct pma_result *r)
{
	cJSON *a;

	if (!r->runcheck.n)
		return;
	a = cJSON_AddArrayToObject(root, "runs_check");
	for (size_t i = 0; i < r->runcheck.n; i++) {
		const struct pma_runcheck_row *w = &r->runcheck.rows[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", w->cores);
		cJSON_AddNumberToObject(o, "S", w->S);
		cJSON_AddNumberToObject(o, "S_min", w->S_min);
		cJSON_AddNumberToObject(o, "S_max", w->S_max);
		cJSON_AddNumberToObject(o, "runs", (double)w->runs_n);
		cJSON_AddNumberToObject(o, "runs_1", (double)w->runs_1);
		add_finite(o, "S_predicted", w->S_pred);
		add_finite(o, "S_err", w->S_pred_err);
		add_finite(o, "S_err_with_model", w->S_err_total);
		add_finite(o, "S_sd", w->S_sd);
		add_finite(o, "model_rel", w->model_rel);
		cJSON_AddBoolToObject(o, "outside", w->outside);
		cJSON_AddItemToArray(a, o);
	}
}

/* "optimal_cores" and "optimal" (eq. 11) */
void optimal_json(cJSON *root, const struct pma_result *r)
{
	cJSON *op, *iv;

	if (r->opt.n_best)
		cJSON_AddNumberToObject(root, "optimal_cores", r->opt.n_best);
	else
		cJSON_AddNullToObject(root, "optimal_cores");
	op = cJSON_AddObjectToObject(root, "optimal");
	cJSON_AddNumberToObject(op, "S", r->opt.S_best);
	cJSON_AddNumberToObject(op, "cores_95", r->opt.n_95);
	iv = cJSON_AddArrayToObject(op, "measured_cores"); /* S from the trace's own runs there */
	for (size_t j = 0; j < r->pred.n_opt_measured; j++)
		cJSON_AddItemToArray(iv, cJSON_CreateNumber(r->pred.opt_measured[j]));
	iv = cJSON_AddArrayToObject(op, "increasing");
	for (size_t j = 0; j < r->opt.nintervals; j++) {
		cJSON *pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateNumber(r->opt.interval[j][0]));
		cJSON_AddItemToArray(pair, cJSON_CreateNumber(r->opt.interval[j][1]));
		cJSON_AddItemToArray(iv, pair);
	}
}

/* "predictions": one object per core count */
void predictions_json(cJSON *preds, const struct pma_result *r)
{
	for (size_t i = 0; i < r->pred.ncores; i++) {
		const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", q->cores);
		cJSON_AddNumberToObject(o, "A", q->A);
		add_finite(o, "omega", q->omega);
		add_finite(o, "omega_err", r->mem.omega_err[i]);
		add_finite(o, "omega_fitted", r->mem.omega_fit[i]);
		cJSON_AddStringToObject(o, "omega_source", isfinite(q->omega) ? r->mem.cal.source : "none");
		add_finite(o, "cross_socket", r->mem.cross[i]);
		cJSON_AddStringToObject(o, "per_socket", r->mem.per_socket[i]);
		cJSON_AddNumberToObject(o, "busy_cores", r->mem.busy[i]);
		cJSON_AddBoolToObject(o, "saturated", isinf(q->omega));
		add_finite(o, "S", q->S);
		cJSON_AddNumberToObject(o, "S_err", r->pred.S_err[i]);
		/* its parts, in quadrature (docs/model.md "Uncertainty") */
		add_finite(o, "S_err_A", r->pred.S_err_A[i]);
		add_finite(o, "S_err_omega", r->pred.S_err_omega[i]);
		add_finite(o, "S_err_wake", r->pred.S_err_wake[i]);
		add_finite(o, "S_err_model", r->pred.S_err_model[i]);
		add_finite(o, "T_s", q->T_ns / 1e9);
		if (r->wake.have && r->par.est == PMA_EST_SCHED) /* the wake-up cost's spread */
			add_finite(o, "T_err_s", r->pred.T_err_ns[i] / 1e9);
		add_finite(o, "R", q->R);
		if (r->par.est != PMA_EST_SCHED && r->par.have[PMA_EST_SCHED])
			cJSON_AddNumberToObject(o, "A_sched_exact", r->pred.by_est[PMA_EST_SCHED][i].A);
		else if (r->par.est == PMA_EST_SCHED)
			cJSON_AddNumberToObject(o, "A_sampled", r->pred.by_est[PMA_EST_RUNNABLE][i].A);
		cJSON_AddItemToArray(preds, o);
	}
}

/* A CSV number: %.6g, "nan" when unknown (never printf's "-nan"), "inf" when saturated
 * (docs/pmanalyze.1). */
static void csv_num(FILE *out, double v)
{
	if (isnan(v))
		fputs("nan", out);
	else if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", out);
	else
		fprintf(out, "%.6g", v);
}

/* The CSV's first table: one row per core count. */
void csv_predictions(FILE *out, const struct pma_result *r)
{
	const struct pma_energy_result *e = &r->energy;
	size_t k = 0;

	/* E_j, P_w, EDP_js: empty without energy (no guessed watts) */
	fputs("cores,A,omega,omega_source,S,S_err,T_s,R,estimator,cross_socket,P_w,E_j,EDP_js\n", out);
	for (size_t i = 0; i < r->pred.ncores; i++) {
		const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
		fprintf(out, "%u,%.6g,", q->cores, q->A);
		csv_num(out, q->omega);
		fprintf(out, ",%s,", isfinite(q->omega) ? r->mem.cal.source : "none");
		csv_num(out, q->S);
		fputc(',', out);
		csv_num(out, r->pred.S_err[i]);
		fputc(',', out);
		csv_num(out, q->T_ns / 1e9);
		fputc(',', out);
		csv_num(out, q->R);
		fprintf(out, ",%s,", pma_estimator_name(r->par.est));
		csv_num(out, r->mem.cross[i]);
		while (k < e->npts && e->pts[k].n < q->cores)
			k++;
		if (k < e->npts && e->pts[k].n == q->cores)
			fprintf(out, ",%.6g,%.6g,%.6g\n", e->pts[k].P_w, e->pts[k].E_j, e->pts[k].EDP_js);
		else
			fputs(",,,\n", out);
	}
}
