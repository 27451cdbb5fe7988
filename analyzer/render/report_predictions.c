/* SPDX-License-Identifier: MIT */
/* report_predictions.c: the report's predictions per core count (Tudor & Teo eq. 1) and
 * optimal core count (eq. 11), as a table, JSON and the CSV's first table. */
#include "report_sections.h"

#include <math.h>
#include <string.h>

#include "pm_cli.h"
#include "render_util.h"
#include "plot.h"
#include "plot_draw.h"
#include "html.h"
#include "html_util.h"

/* Where core count i stands on the target (contention.h); a result built without the memory
 * model (a unit test's) has every n on it. */
static enum pma_on_target on_target(const struct pma_result *r, size_t i)
{
	return r->mem.on_target ? (enum pma_on_target)r->mem.on_target[i] : PMA_ON_TARGET_CORES;
}

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

	pma_render_fmt_num(w, sizeof(w), 2, q->omega, "");
	pma_render_fmt_num(x, sizeof(x), 0, q->omega > 0 && isfinite(q->omega) ? 100 * r->mem.cross[i] / q->omega :
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
				fmt_given(Sm, sizeof(Sm), 2, r->runcheck.rows[k].S_own);
		snprintf(runs, sizeof(runs), " %7s %8s", dm, Sm);
	}
	if (on_target(r, i) == PMA_ON_TARGET_ABSENT) {
		/* a core count the --machine target lacks: no prediction, not even A(m,n) */
		snprintf(buf, size, "%8s %7s %6s %8s %8s%s %10s %7s  -  not on the target (%u CPUs)",
			 "-", "-", "-", "-", "-", runs, "-", "-", r->mem.target.pus);
		return buf;
	}
	snprintf(buf, size, "%8.2f %7s %6s %8s %8s%s %10s %7s  %s%s", q->A, w, x, S, dS, runs, T, R,
		 r->mem.per_socket[i],
		 q->cores == r->opt.n_best ? "  <- optimal (eq. 11)" :
		 q->cores == r->opt.n_95 ? "  <- 95% of the best S" :
		 r->mem.busy[i] < q->cores ? "  = S(m): m threads, the other cores idle" :
		 on_target(r, i) == PMA_ON_TARGET_SMT ? "  (SMT: omega not measured)" : "");
	return buf;
}

/* The predictions per core count and the optimal core count (eq. 11). */
static void pma_render_table_predictions(FILE *out, const struct pma_result *r)
{
	fprintf(out, "\npredictions (%s; omega from %s; S = A(m,n) / (1 + omega), eq. 1; placement %s, "
		"memory %s)\n", r->par.est == PMA_EST_SCHED ? "T(n) from replaying the scheduler events on n cores"
						 : "A(m,n) from the profile, eq. 6",
		pma_mem_cal_source_name(&r->mem.cal, 0), r->mem.placement, pma_mem_policy_name(r->mem.pol));
	fprintf(out, "  %6s %8s %7s %6s %8s %8s%s %10s %7s  %s\n", "cores", "A(m,n)", "omega", "xsock",
		"S", "±S", r->runcheck.n ? "  ±model  S runs" : "", "T (s)", "R", "per socket");
	for (size_t i = 0, j; i < r->pred.ncores; i = j + 1) {
		char row[256], next[256], n[64];
		/* once S has saturated the rows repeat: one row for a run of identical ones (JSON and
		 * CSV keep every n), labelled with the core counts it stands for in cpulist syntax
		 * ("12,14-15,20" for --cores 12,14,15,20: never a range over counts not asked for) */
		table_row(row, sizeof(row), r, i);
		for (j = i; j + 1 < r->pred.ncores && strcmp(table_row(next, sizeof(next), r, j + 1),
							     row) == 0; j++)
			;
		pm_intlist_format(&(struct pm_intlist){ .v = &r->pred.cores[i], .n = j - i + 1 }, n,
				  sizeof(n));
		fprintf(out, "  %6s %s%s\n", n, row, j > i && isinf(r->pred.by_est[r->par.est][i].omega) &&
			r->mem.busy[i] >= r->pred.cores[i] ? "  (saturated)" : "");
	}
	if (r->opt.n_best) {
		fprintf(out, "optimal      %u core%s (S = %.2f", r->opt.n_best, r->opt.n_best == 1 ? "" : "s",
			r->opt.S_best);
		/* how it was chosen (compute.c optimum_in_noise) */
		if (r->opt.rule == PMA_OPT_WITHIN_REL)
			fprintf(out, ", within 1%% of the largest S, %.4f at %u cores", r->opt.S_max,
				r->opt.n_max);
		else if (r->opt.rule == PMA_OPT_WITHIN_ERR)
			fprintf(out, ", within the uncertainty of the difference (± %.4f) of the largest S, "
				"%.4f at %u cores", r->opt.gap_err, r->opt.S_max, r->opt.n_max);
		else
			fprintf(out, ", the largest");
		fprintf(out, "); 95%% of it from %u core%s; S increases over", r->opt.n_95,
			r->opt.n_95 == 1 ? "" : "s");
		for (size_t j = 0; j < r->opt.nintervals; j++)
			fprintf(out, " [%u, %u]", r->opt.interval[j][0], r->opt.interval[j][1]);
		fprintf(out, "%s", r->opt.nintervals ? "" : " no interval");
		/* the runs' S where they measured it (compute.c enforce_optimum) */
		for (size_t j = 0; j < r->pred.n_opt_measured; j++)
			fprintf(out, "%s%u", j ? ", " : r->ntraces > 1 ?
				"; S measured by these traces' runs at n = " :
				"; S measured by this trace's runs at n = ", r->pred.opt_measured[j]);
		fputc('\n', out);
	}
	/* the trace's own runs on 1 and n CPUs (runcheck.h) */
	for (size_t i = 0; i < r->runcheck.n; i++) {
		const struct pma_runcheck_row *w = &r->runcheck.rows[i];
		char S[32], dS[32], dT[32], range[64] = "", own[192] = "", under[64] = "";
		fmt_given(S, sizeof(S), 2, w->S_pred);
		fmt_given(dS, sizeof(dS), 2, w->S_pred_err);
		if (w->runs_n > 1) /* each run on n CPUs against the median on one */
			snprintf(range, sizeof(range), " (%.2f-%.2f)", w->S_min, w->S_max);
		fmt_given(dT, sizeof(dT), 2, w->S_err_total);
		if (w->corrected) /* the runs' own time: wall less other processes' (runcheck.h) */
			snprintf(own, sizeof(own), "; S(%u) = %.2f (%.2f-%.2f) less the time they "
				 "waited for other processes' CPUs (%.3f s, %.0f%%, per run on %u; "
				 "%.3f s, %.0f%%, on 1)", w->cores, w->S_own, w->S_own_min,
				 w->S_own_max, w->other_n_s, w->other_n_pct, w->cores, w->other_1_s,
				 w->other_1_pct);
		if (r->runcheck.quota_cpus > 0) /* the runs' recorded CPU limit */
			snprintf(under, sizeof(under), " under the recorded quota of %.2f CPUs",
				 r->runcheck.quota_cpus);
		fprintf(out, "%-13sS(%u) = %.2f%s by %s runs: %zu on %u CPUs against %zu on "
			"1 (%swall times)%s; predicted %s ± %s%s%s; ± %s with the model's error and the runs' spread\n",
			i ? "" : "measured", w->cores, w->S, range,
			r->ntraces > 1 ? "these traces'" : "this trace's", w->runs_n, w->cores, w->runs_1,
			w->runs_n > 1 || w->runs_1 > 1 ? "median " : "", own, S, dS, under,
			w->outside ? "  <- outside ±S" : "", dT);
	}
}

static void pma_render_runcheck_json(cJSON *root, const struct pma_result *r)
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
		pma_render_add_finite(o, "S_predicted", w->S_pred);
		pma_render_add_finite(o, "S_err", w->S_pred_err);
		pma_render_add_finite(o, "S_err_with_model", w->S_err_total);
		pma_render_add_finite(o, "S_sd", w->S_sd);
		pma_render_add_finite(o, "model_rel", w->model_rel);
		/* the runs' own time: wall less other processes' (runcheck.h) */
		cJSON_AddBoolToObject(o, "corrected", w->corrected);
		pma_render_add_finite(o, "S_own", w->S_own);
		pma_render_add_finite(o, "S_own_min", w->S_own_min);
		pma_render_add_finite(o, "S_own_max", w->S_own_max);
		pma_render_add_finite(o, "other_s", w->other_n_s);
		pma_render_add_finite(o, "other_pct", w->other_n_pct);
		pma_render_add_finite(o, "other_1_s", w->other_1_s);
		pma_render_add_finite(o, "other_1_pct", w->other_1_pct);
		cJSON_AddBoolToObject(o, "outside", w->outside);
		if (r->runcheck.quota_cpus > 0)
			cJSON_AddNumberToObject(o, "quota_cpus", r->runcheck.quota_cpus);
		cJSON_AddItemToArray(a, o);
	}
}

/* The JSON's optimal.rule per enum pma_opt_rule. */
static const char *const opt_rule_names[] = { "largest", "within_rel", "within_gap_err" };

/* "optimal_cores" and "optimal" (eq. 11) */
static void pma_render_optimal_json(cJSON *root, const struct pma_result *r)
{
	cJSON *op, *iv;

	if (r->opt.n_best)
		cJSON_AddNumberToObject(root, "optimal_cores", r->opt.n_best);
	else
		cJSON_AddNullToObject(root, "optimal_cores");
	op = cJSON_AddObjectToObject(root, "optimal");
	cJSON_AddNumberToObject(op, "S", r->opt.S_best);
	/* how it was chosen: the fewest cores within the noise of the largest S */
	cJSON_AddStringToObject(op, "rule", opt_rule_names[r->opt.rule]);
	cJSON_AddNumberToObject(op, "cores_max_S", r->opt.n_max);
	cJSON_AddNumberToObject(op, "S_max", r->opt.S_max);
	cJSON_AddNumberToObject(op, "gap_err", r->opt.gap_err);
	cJSON_AddNumberToObject(op, "tolerance_rel", PMA_OPT_REL);
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
static void pma_render_predictions_json(cJSON *preds, const struct pma_result *r)
{
	for (size_t i = 0; i < r->pred.ncores; i++) {
		const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", q->cores);
		cJSON_AddNumberToObject(o, "A", q->A);
		pma_render_add_finite(o, "omega", q->omega);
		pma_render_add_finite(o, "omega_err", r->mem.omega_err[i]);
		pma_render_add_finite(o, "omega_fitted", r->mem.omega_fit[i]);
		cJSON_AddStringToObject(o, "omega_source", isfinite(q->omega) ?
					pma_mem_cal_source_name(&r->mem.cal, 1) : "none");
		pma_render_add_finite(o, "cross_socket", r->mem.cross[i]);
		cJSON_AddStringToObject(o, "per_socket", r->mem.per_socket[i]);
		cJSON_AddNumberToObject(o, "busy_cores", r->mem.busy[i]);
		cJSON_AddBoolToObject(o, "saturated", isinf(q->omega));
		cJSON_AddStringToObject(o, "on_target", pma_on_target_name(on_target(r, i)));
		pma_render_add_finite(o, "S", q->S);
		pma_render_add_finite(o, "S_err", r->pred.S_err[i]);
		/* its parts, in quadrature (docs/model.md "Uncertainty") */
		pma_render_add_finite(o, "S_err_A", r->pred.S_err_A[i]);
		pma_render_add_finite(o, "S_err_omega", r->pred.S_err_omega[i]);
		pma_render_add_finite(o, "S_err_wake", r->pred.S_err_wake[i]);
		pma_render_add_finite(o, "S_err_model", r->pred.S_err_model[i]);
		pma_render_add_finite(o, "S_err_runs", r->pred.S_err_runs[i]);
		if (r->pred.S_gap_err) /* uncertainty of S(optimal.cores_max_S) - S(n) */
			pma_render_add_finite(o, "S_gap_err", r->pred.S_gap_err[i]);
		pma_render_add_finite(o, "T_s", q->T_ns / 1e9);
		if (r->wake.have && r->par.est == PMA_EST_SCHED) /* the wake-up cost's spread */
			pma_render_add_finite(o, "T_err_s", r->pred.T_err_ns[i] / 1e9);
		pma_render_add_finite(o, "R", q->R);
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
static void pma_render_csv_predictions(FILE *out, const struct pma_result *r)
{
	const struct pma_energy_result *e = &r->energy;
	size_t k = 0;

	/* E_j, P_w, EDP_js: empty without energy (no guessed watts) */
	fputs("cores,A,omega,omega_source,S,S_err,T_s,R,estimator,cross_socket,P_w,E_j,EDP_js,on_target\n",
	      out);
	for (size_t i = 0; i < r->pred.ncores; i++) {
		const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
		fprintf(out, "%u,%.6g,", q->cores, q->A);
		csv_num(out, q->omega);
		fprintf(out, ",%s,", isfinite(q->omega) ? pma_mem_cal_source_name(&r->mem.cal, 1) : "none");
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
			fprintf(out, ",%.6g,%.6g,%.6g", e->pts[k].P_w, e->pts[k].E_j, e->pts[k].EDP_js);
		else
			fputs(",,,", out);
		fprintf(out, ",%s\n", pma_on_target_name(on_target(r, i)));
	}
}

/* ---- HTML ---- */

/* The HTML's "on the target" cell per enum pma_on_target. */
static const char *const on_target_html[] = { "yes", "SMT", "beyond the recording machine", "absent" };

static int pma_render_html_predictions(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_prediction *q = r->pred.by_est[r->par.est];

	(void)why;
	(void)whysize;
	P("<div class=\"scroll\"><table id=\"pred\">\n<thead><tr><th>n</th><th>A(m,n)</th>"
	  "<th>&#969;(n)</th><th>S(m,n)</th><th>&#177;S</th><th>R(m,n)</th><th>T(n), s</th>"
	  "<th>on the target</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < r->pred.ncores; i++) {
		P("<tr%s><td>%u</td>", q[i].cores == r->opt.n_best ? " class=\"best\"" : "", q[i].cores);
		/* a core count the target lacks: no number at all, as in the table */
		pma_html_cell_num(out, on_target(r, i) == PMA_ON_TARGET_ABSENT ? NAN : q[i].A, 3);
		pma_html_cell_num(out, q[i].omega, 4);
		pma_html_cell_num(out, q[i].S, 3);
		pma_html_cell_num(out, r->pred.S_err[i], 3);
		pma_html_cell_num(out, q[i].R, 3);
		pma_html_cell_num(out, q[i].T_ns / 1e9, 3);
		P("<td>%s</td></tr>\n", on_target_html[on_target(r, i)]);
	}
	P("</tbody></table></div>\n<p class=\"small\">S(m,n) = A(m,n) / (1 + &#969;(n)) (Tudor &amp; "
	  "Teo, eq. 1), A(m,n) eq. 6, R(m,n) eq. 3; &#177;S: one sampling interval of misplaced "
	  "critical path (or the lost scheduler events of the exact mode). n counts CPUs (hwloc PUs); "
	  "on the target: yes, SMT (more busy threads than cores: &#969; not measured, S an upper "
	  "bound), beyond the recording machine (no --machine: &#969; unknown, S an upper bound), or "
	  "absent (the target has fewer CPUs: no prediction).</p>\n");
	if (!r->runcheck.n)
		return 0;
	/* the trace's own runs on 1 and n CPUs against the predictions (runcheck.h) */
	P("<div class=\"scroll\"><table id=\"runs-check\">\n<thead><tr><th>n</th><th>runs on n</th>"
	  "<th>runs on 1</th><th>S measured</th><th>lowest</th><th>highest</th><th>S less other "
	  "processes</th><th>their share on n</th><th>S predicted</th>"
	  "<th>&#177;S</th><th>outside &#177;S</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < r->runcheck.n; i++) {
		const struct pma_runcheck_row *w = &r->runcheck.rows[i];
		P("<tr%s><td>%u</td><td>%zu</td><td>%zu</td>", w->outside ? " class=\"warn\"" : "",
		  w->cores, w->runs_n, w->runs_1);
		pma_html_cell_num(out, w->S, 3);
		pma_html_cell_num(out, w->S_min, 3);
		pma_html_cell_num(out, w->S_max, 3);
		pma_html_cell_num(out, w->S_own, 3);
		P("<td>%.0f%%</td>", w->other_n_pct);
		pma_html_cell_num(out, w->S_pred, 3);
		pma_html_cell_num(out, w->S_pred_err, 3);
		P("<td>%s</td></tr>\n", w->outside ? "yes" : "no");
	}
	P("</tbody></table></div>\n<p class=\"small\">S measured = the median wall time of this "
	  "trace's runs on one CPU over the median of its runs on n (the baseline and calibration "
	  "runs); lowest and highest: each run on n against that median on one. S less other "
	  "processes: the same with each run's wall time less the time it waited for CPUs that "
	  "other processes used; where that is over 10%% of a median wall time, the prediction is "
	  "checked against it. A prediction whose &#177;S misses them gets the runs-disagree "
	  "warning (docs/model.md).</p>\n");
	return 0;
}

/* ---- plots ---- */

static int draw_speedup(cairo_t *cr, const struct pma_result *r, int w, int h,
			const struct pma_plot_axes *a)
{
	const struct pma_prediction *q = r->pred.by_est[r->par.est];
	const struct pma_pred_result *pd = &r->pred;
	char lab_pred[96], lab_opt[128], lab_95[64];
	struct pma_plot_legend_entry le[6];
	size_t nl = 0;
	int started = 0;

	pma_plot_frame(cr, r, PMA_PLOT_SPEEDUP, w, h, a, "cores n", "speedup S(m,n) over 1 core (\xc3\x97)", 1);
	pma_plot_clip_area(cr, a);
	/* the +-S band: upper edge forwards, lower edge back */
	pma_plot_rgb(cr, PMA_PLOT_C_PRED, 0.18);
	for (size_t i = 0; i < pd->ncores; i++)
		if (isfinite(q[i].S)) {
			double x = pma_plot_px_x(a, pd->cores[i]), y = pma_plot_px_y(a, q[i].S + pd->S_err[i]);
			if (!started++)
				cairo_move_to(cr, x, y);
			else
				cairo_line_to(cr, x, y);
		}
	for (size_t i = pd->ncores; i-- > 0;)
		if (isfinite(q[i].S))
			cairo_line_to(cr, pma_plot_px_x(a, pd->cores[i]),
				      pma_plot_px_y(a, fmax(0, q[i].S - pd->S_err[i])));
	cairo_close_path(cr);
	cairo_fill(cr);
	/* ideal S = n */
	pma_plot_rgb(cr, PMA_PLOT_C_IDEAL, 1);
	cairo_set_line_width(cr, 1.5);
	{
		const double dash[] = { 6, 4 };
		cairo_set_dash(cr, dash, 2, 0);
		cairo_move_to(cr, pma_plot_px_x(a, 0), pma_plot_px_y(a, 0));
		cairo_line_to(cr, pma_plot_px_x(a, a->xmax), pma_plot_px_y(a, a->xmax));
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	/* predicted S */
	pma_plot_polyline(cr, a, pd->cores, &q[0].S, sizeof(*q), pd->ncores);
	/* measured points */
	for (size_t i = 0; i < r->measured.n; i++)
		pma_plot_marker(cr, a, r->measured.cores[i], r->measured.S[i], 5, PMA_PLOT_C_MEAS);
	/* 95% and optimal points (eq. 11) */
	if (r->opt.n_best) {
		for (size_t i = 0; i < pd->ncores; i++)
			if (pd->cores[i] == r->opt.n_95)
				pma_plot_marker(cr, a, pd->cores[i], q[i].S, 6, PMA_PLOT_C_95);
		pma_plot_marker(cr, a, r->opt.n_best, r->opt.S_best, 6, PMA_PLOT_C_OPT);
	}
	cairo_restore(cr);
	snprintf(lab_pred, sizeof(lab_pred), "predicted S (%s) \xc2\xb1 uncertainty",
		 pma_estimator_name(r->par.est));
	le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_PRED, 0, lab_pred };
	le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_IDEAL, 0, "ideal S = n" };
	if (r->opt.n_best) {
		snprintf(lab_opt, sizeof(lab_opt), "optimal n = %u (S = %.2f%s)", r->opt.n_best, r->opt.S_best,
			 r->opt.rule != PMA_OPT_LARGEST ? ", within the noise of the largest" : "");
		snprintf(lab_95, sizeof(lab_95), "95%% of best: n = %u", r->opt.n_95);
		le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_OPT, 1, lab_opt };
		le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_95, 1, lab_95 };
	}
	if (r->measured.n)
		le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_MEAS, 1, "measured S (runs' wall time)" };
	pma_plot_legend(cr, a, le, nl, 0);
	return 0;
}

/* ---- the section ---- */

static void predictions_section_json(cJSON *root, const struct pma_result *r)
{
	pma_render_optimal_json(root, r);
	pma_render_predictions_json(cJSON_AddArrayToObject(root, "predictions"), r);
	pma_render_runcheck_json(root, r);
}

/* The core counts come first (the memory model is evaluated at them), the predictions once omega
 * is known, the runs check once every check has widened +-S. */
const struct pma_section pma_section_predictions = {
	.name = "predictions",
	.steps = { { PMA_STAGE_CORES, pma_step_cores }, { PMA_STAGE_PREDICT, pma_step_predict },
		   { PMA_STAGE_STUDY, pma_step_measured }, { PMA_STAGE_FINAL, pma_step_runcheck } },
	.table = pma_render_table_predictions,
	.json = predictions_section_json,
	.csv = pma_render_csv_predictions,
	.html = { { PMA_PAGE_TABLES, "predictions", "Predictions", pma_render_html_predictions } },
	.plots = { { PMA_PLOT_SPEEDUP, draw_speedup, 0 } },
};
