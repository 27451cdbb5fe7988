/* SPDX-License-Identifier: MIT */
/* report_scaling.c: the report's scaling study of a --sweep trace (Iwainsky et al.'s PMNF
 * fits), as a table, JSON and CSV tables. */
#include "report_sections.h"

#include <math.h>

#include "render_util.h"
#include "html.h"
#include "html_util.h"

/* The verdict of a fit in the paper's words (Iwainsky et al. §4), or "noisy" (pmnf.h,
 * PMA_PMNF_NOISY_RATIO) written into buf. */
static const char *fit_verdict(const struct pma_pmnf_fit *f, char *buf, size_t size)
{
	if (f->noisy) {
		snprintf(buf, size, "noisy: the repetitions spread %.1f%% against the model's %.1f%% "
			 "change over the range", f->spread_pct, f->change_pct);
		return buf;
	}
	if (!f->valid)
		return f->model.i_num || f->model.j || !(f->R2_adj >= PMA_PMNF_R2_VALID) ?
		       "not valid (adjusted R2 < 0.95)" : "not valid (constant with SMAPE > 10%)";
	return f->scalability_problem ? "valid; scalability problem (grows faster than log)" : "valid";
}

/* The model as a formula: "0.0123 + 0.00456 t^1.5 log t". */
static void fit_formula(char *buf, size_t size, const struct pma_scaling_fit *f)
{
	if (f->fit.model.i_num == 0 && f->fit.model.j == 0)
		snprintf(buf, size, "%.4g", f->fit.model.c0);
	else
		snprintf(buf, size, "%.4g %s %.4g %s", f->fit.model.c0, f->fit.model.c1 < 0 ? "-" : "+",
			 fabs(f->fit.model.c1), f->growth);
}

/* One row of a fit table: the class (NULL: no class column), metric, unit, model, growth class,
 * adjusted R², SMAPE and verdict, or why it was not fitted. */
static void table_fit_row(FILE *out, const char *cls, const struct pma_scaling_fit *ft)
{
	char model[96], verdict[128];

	if (cls)
		fprintf(out, "  %-5s", cls);
	if (!ft->fitted) {
		fprintf(out, "  %-9s %-8s not fitted: %s\n", pma_scaling_metric_name(ft->metric),
			pma_scaling_metric_unit(ft->metric), ft->why);
		return;
	}
	fit_formula(model, sizeof(model), ft);
	fprintf(out, "  %-9s %-8s %-34s %-14s %7.3f %6.1f%%  %s%s\n",
		pma_scaling_metric_name(ft->metric), pma_scaling_metric_unit(ft->metric), model,
		ft->growth, ft->fit.R2_adj, ft->fit.SMAPE,
		fit_verdict(&ft->fit, verdict, sizeof(verdict)),
		ft->fit.few_points ? "; fewer than 5 points" : "");
}

/* The scaling study of a --sweep trace: measured vs predicted per configuration, the mean
 * |error|, and the PMNF fit of each metric with its verdict. */
static void pma_render_table_scaling(FILE *out, const struct pma_result *r)
{
	const struct pma_scaling *sc = &r->scaling;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];

	if (!sc->present)
		return;
	pma_render_fmt_num(a, sizeof(a), 3, sc->T1_s, " s");
	fprintf(out, "\nscaling study (pmcollect --sweep, parameter %s): T(1) = %s, median of %zu "
		"1-CPU run%s with %s threads\n", sc->parameter, a, sc->T1_runs,
		sc->T1_runs == 1 ? "" : "s", isfinite(sc->m) ? (snprintf(g, sizeof(g), "%.0f", sc->m), g)
							     : "the baseline's");
	fprintf(out, "  %6s %5s %7s %4s %9s %15s %7s %7s %6s %10s %8s\n", "config", "cores", "threads",
		"reps", "T med (s)", "T range (s)", "S meas", "S pred", "±S", "T pred (s)", "error");
	for (size_t i = 0; i < sc->nrows; i++) {
		const struct pma_scaling_row *w = &sc->rows[i];
		char range[40];
		snprintf(range, sizeof(range), "%.3f-%.3f", w->T_min_s, w->T_max_s);
		pma_render_fmt_num(a, sizeof(a), 2, w->S_meas, "");
		pma_render_fmt_num(b, sizeof(b), 2, w->S_pred, "");
		pma_render_fmt_num(c, sizeof(c), 2, w->S_pred_err, "");
		pma_render_fmt_num(d, sizeof(d), 3, w->T_pred_s, "");
		pma_render_fmt_num(e, sizeof(e), 1, w->err_pct, "%");
		snprintf(f, sizeof(f), "%u", w->threads);
		fprintf(out, "  %6u %5u %7s %4zu %9.3f %15s %7s %7s %6s %10s %8s\n", w->config, w->cores,
			w->threads ? f : "?", w->nreps, w->T_med_s, range, a, b, isfinite(w->S_pred) ? c : "?",
			d, e);
	}
	if (sc->npred)
		fprintf(out, "mean |error|  %.1f%% over %zu configuration%s\n", sc->mean_abs_err_pct,
			sc->npred, sc->npred == 1 ? "" : "s");
	else
		fprintf(out, "mean |error|  ? (no configuration runs the baseline's threads on a core "
			"count with a prediction)\n");
	if (sc->unfinished)
		fprintf(out, "left out      %zu sweep run%s not finished with status 0\n", sc->unfinished,
			sc->unfinished == 1 ? "" : "s");
	fprintf(out, "\nempirical scaling models over %s = %s (Iwainsky et al.: PMNF c0 + c1 %s^i log^j %s, "
		"leave-one-out SMAPE)", sc->var, sc->parameter, sc->var, sc->var);
	if (isfinite(sc->fit_other))
		fprintf(out, " at %.0f cores", sc->fit_other);
	fprintf(out, "\n  each %s: %s (--pmnf-aggregate %s)\n", sc->var,
		pma_pmnf_aggregate_what(sc->aggregate), pma_pmnf_aggregate_name(sc->aggregate));
	fprintf(out, "  %-9s %-8s %-34s %-14s %7s %7s  %s\n", "metric", "unit", "model", "growth",
		"adj R2", "SMAPE", "verdict");
	for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++)
		table_fit_row(out, NULL, &sc->fits[k]);
	if (sc->fits[PMA_SM_OVERHEAD].fitted &&
	    sc->fits[PMA_SM_OVERHEAD].fit.smape_points < sc->fits[PMA_SM_OVERHEAD].fit.n)
		fprintf(out, "  (overhead: SMAPE over x > 1; x T(x) - T(1) is 0 at x = 1 by "
			"construction)\n");
	if (!sc->class_unit)
		return;
	fprintf(out, "\nscaling models per class of %s (Iwainsky et al. 4.2, fitted separately; "
		"unit %u)\n", sc->var, sc->class_unit);
	fprintf(out, "  %-5s %-9s %-8s %-34s %-14s %7s %7s  %s\n", "class", "metric", "unit",
		"model", "growth", "adj R2", "SMAPE", "verdict");
	for (int cl = 0; cl < PMA_SCALING_NCLASSES; cl++)
		for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++)
			table_fit_row(out, pma_pmnf_class_name(sc->class_fits[cl][k].cls),
				      &sc->class_fits[cl][k]);
}

/* One entry of "fits" or "class_fits" (docs/pmanalyze-json.md). */
static cJSON *fit_json(const struct pma_scaling_fit *ft)
{
	cJSON *j = cJSON_CreateObject();

	cJSON_AddStringToObject(j, "metric", pma_scaling_metric_name(ft->metric));
	cJSON_AddStringToObject(j, "unit", pma_scaling_metric_unit(ft->metric));
	cJSON_AddStringToObject(j, "class", pma_pmnf_class_name(ft->cls));
	cJSON_AddBoolToObject(j, "fitted", ft->fitted);
	if (!ft->fitted) {
		cJSON_AddStringToObject(j, "why", ft->why);
		return j;
	}
	cJSON_AddNumberToObject(j, "c0", ft->fit.model.c0);
	cJSON_AddNumberToObject(j, "c1", ft->fit.model.c1);
	cJSON_AddNumberToObject(j, "i", pma_pmnf_exponent(&ft->fit.model));
	cJSON_AddNumberToObject(j, "j", ft->fit.model.j);
	cJSON_AddStringToObject(j, "growth", ft->growth);
	pma_render_add_finite(j, "R2_adj", ft->fit.R2_adj);
	pma_render_add_finite(j, "SMAPE_pct", ft->fit.SMAPE);
	cJSON_AddNumberToObject(j, "smape_points", (double)ft->fit.smape_points);
	cJSON_AddNumberToObject(j, "points", (double)ft->fit.n);
	cJSON_AddBoolToObject(j, "few_points", ft->fit.few_points);
	cJSON_AddBoolToObject(j, "valid", ft->fit.valid);
	cJSON_AddBoolToObject(j, "scalability_problem", ft->fit.scalability_problem);
	cJSON_AddBoolToObject(j, "noisy", ft->fit.noisy);
	pma_render_add_finite(j, "spread_pct", ft->fit.spread_pct);
	pma_render_add_finite(j, "change_pct", ft->fit.change_pct);
	return j;
}

/* "scaling": the sweep's configurations and fits (docs/pmanalyze-json.md); absent without sweep */
static void pma_render_scaling_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_scaling *sc = &r->scaling;
	cJSON *o, *rows, *fits;

	if (!sc->present)
		return;
	o = cJSON_AddObjectToObject(root, "scaling");
	cJSON_AddStringToObject(o, "parameter", sc->parameter);
	pma_render_add_finite(o, "fit_at_cores", sc->fit_other);
	pma_render_add_finite(o, "T1_s", sc->T1_s);
	cJSON_AddNumberToObject(o, "T1_runs", (double)sc->T1_runs);
	pma_render_add_finite(o, "m", sc->m);
	pma_render_add_finite(o, "mean_abs_error_pct", sc->mean_abs_err_pct);
	cJSON_AddNumberToObject(o, "predicted_configurations", (double)sc->npred);
	cJSON_AddNumberToObject(o, "unfinished_runs", (double)sc->unfinished);
	rows = cJSON_AddArrayToObject(o, "configurations");
	for (size_t i = 0; i < sc->nrows; i++) {
		const struct pma_scaling_row *w = &sc->rows[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "config", w->config);
		cJSON_AddNumberToObject(j, "cores", w->cores);
		pma_render_add_finite(j, "threads", w->threads ? (double)w->threads : NAN);
		cJSON_AddNumberToObject(j, "reps", (double)w->nreps);
		cJSON_AddNumberToObject(j, "T_median_s", w->T_med_s);
		cJSON_AddNumberToObject(j, "T_min_s", w->T_min_s);
		cJSON_AddNumberToObject(j, "T_max_s", w->T_max_s);
		pma_render_add_finite(j, "S_measured", w->S_meas);
		pma_render_add_finite(j, "S_predicted", w->S_pred);
		pma_render_add_finite(j, "S_predicted_err", w->S_pred_err);
		pma_render_add_finite(j, "T_predicted_s", w->T_pred_s);
		pma_render_add_finite(j, "omega", w->omega);
		pma_render_add_finite(j, "error_pct", w->err_pct);
		cJSON_AddBoolToObject(j, "fitted", w->in_fit);
		cJSON_AddItemToArray(rows, j);
	}
	cJSON_AddStringToObject(o, "aggregate", pma_pmnf_aggregate_name(sc->aggregate));
	fits = cJSON_AddArrayToObject(o, "fits");
	for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++)
		cJSON_AddItemToArray(fits, fit_json(&sc->fits[k]));
	if (!sc->class_unit)
		return;
	cJSON_AddNumberToObject(o, "class_unit", sc->class_unit);
	fits = cJSON_AddArrayToObject(o, "class_fits");
	for (int c = 0; c < PMA_SCALING_NCLASSES; c++)
		for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++)
			cJSON_AddItemToArray(fits, fit_json(&sc->class_fits[c][k]));
}

/* A --sweep trace: after a blank line, the measured-vs-predicted table (one row per
 * configuration), then after another the fits (one row per metric). */
static void pma_render_print_csv_scaling(FILE *out, const struct pma_result *r)
{
	const struct pma_scaling *sc = &r->scaling;

	if (!sc->present)
		return;
	fputs("\nconfig,cores,threads,reps,T_median_s,T_min_s,T_max_s,S_measured,S_predicted,"
	      "S_predicted_err,T_predicted_s,error_pct\n", out);
	for (size_t i = 0; i < sc->nrows; i++) {
		const struct pma_scaling_row *w = &sc->rows[i];
		fprintf(out, "%u,%u,%u,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", w->config, w->cores,
			w->threads, w->nreps, w->T_med_s, w->T_min_s, w->T_max_s, w->S_meas, w->S_pred,
			w->S_pred_err, w->T_pred_s, w->err_pct);
	}
	fprintf(out, "\nmetric,parameter,c0,c1,i,j,growth,R2_adj,SMAPE_pct,points,valid,"
		"scalability_problem,noisy,spread_pct,change_pct,mean_abs_error_pct,class\n");
	for (int f = 0; f < (1 + (sc->class_unit ? PMA_SCALING_NCLASSES : 0)) * PMA_SM_COUNT; f++) {
		const struct pma_scaling_fit *ft = f < PMA_SM_COUNT ? &sc->fits[f] :
			&sc->class_fits[f / PMA_SM_COUNT - 1][f % PMA_SM_COUNT];
		if (!ft->fitted)
			continue;
		fprintf(out, "%s,%s,%.6g,%.6g,%.4g,%u,%s,%.6g,%.6g,%zu,%d,%d,%d,%.6g,%.6g,%.6g,%s\n",
			pma_scaling_metric_name(ft->metric), sc->parameter, ft->fit.model.c0,
			ft->fit.model.c1, pma_pmnf_exponent(&ft->fit.model), ft->fit.model.j, ft->growth,
			ft->fit.R2_adj, ft->fit.SMAPE, ft->fit.n, ft->fit.valid,
			ft->fit.scalability_problem, ft->fit.noisy, ft->fit.spread_pct,
			ft->fit.change_pct, sc->mean_abs_err_pct, pma_pmnf_class_name(ft->cls));
	}
}

/* ---- HTML ---- */

/* A --sweep trace's scaling study (docs/scaling.md): measured against predicted per configuration. */
static int pma_render_html_scaling(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_scaling *sc = &r->scaling;

	(void)why;
	(void)whysize;
	if (!sc->present) {
		P("<p class=\"small\">No sweep runs in the trace: record them with <code>pmcollect "
		  "--sweep cores=1,2,4 --repeat 3 &#8230;</code> to check the predictions against "
		  "measured runs.</p>\n");
		return 0;
	}
	P("<div class=\"scroll\"><table id=\"scaling\">\n<thead><tr><th>cores</th><th>threads</th>"
	  "<th>runs</th><th>T median, s</th><th>S measured</th><th>S predicted</th><th>&#177;S</th>"
	  "<th>error, %%</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < sc->nrows; i++) {
		const struct pma_scaling_row *w = &sc->rows[i];
		P("<tr><td>%u</td><td>%u</td><td>%zu</td>", w->cores, w->threads, w->nreps);
		pma_html_cell_num(out, w->T_med_s, 3);
		pma_html_cell_num(out, w->S_meas, 3);
		pma_html_cell_num(out, w->S_pred, 3);
		pma_html_cell_num(out, w->S_pred_err, 3);
		pma_html_cell_num(out, w->err_pct, 1);
		P("</tr>\n");
	}
	P("</tbody></table></div>\n<p class=\"small\">S measured = T(1) / T, T(1) the median of the "
	  "1-CPU runs; S predicted from the baseline (Tudor &amp; Teo, eq. 1)");
	if (isfinite(sc->mean_abs_err_pct))
		P("; mean |error| %.1f%% over %zu configurations", sc->mean_abs_err_pct, sc->npred);
	P(".</p>\n");
	return 0;
}

/* ---- the section ---- */

const struct pma_section pma_section_scaling = {
	.name = "scaling",
	.steps = { { PMA_STAGE_FINAL, pma_step_scaling } },
	.table = pma_render_table_scaling,
	.json = pma_render_scaling_json,
	.csv = pma_render_print_csv_scaling,
	.html = { { PMA_PAGE_MEASURED, "scaling", "Scaling study: measured against predicted",
		    pma_render_html_scaling } },
};
