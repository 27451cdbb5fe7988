/* SPDX-License-Identifier: MIT */
/* report_energy.c: the report's energy section (docs/energy.md §2), as a table and as JSON
 * (the CSV's energy columns are in report_predictions.c's rows). */
#include "report_sections.h"

#include <math.h>

#include "render_util.h"
#include "plot.h"
#include "plot_draw.h"
#include "html.h"
#include "html_util.h"

/* Energy (docs/energy.md §2): the power model, E(n) and EDP(n) per core count, the energy-optimal n
 * beside eq. 11's, and the trust in the readings; or why there is none. */
static void pma_render_table_energy(FILE *out, const struct pma_result *r)
{
	const struct pma_energy_result *e = &r->energy;

	if (!e->have) {
		fprintf(out, "\nenergy: none (%s)\n", e->reason);
		return;
	}
	fprintf(out, "\nenergy (%s, %zu run%s at %u core counts; P(x) = P_static + x P_core, %s: "
		"P_static %.2f W, P_core %.2f W, R2 %.3f)\n", e->source ? e->source : "?", e->nruns,
		e->nruns == 1 ? "" : "s", e->model.ncounts,
		e->model.method == PMA_POWER_FIT_ZONES ? "core zones' split" : "least squares on total power",
		e->model.P_static_w, e->model.P_core_w, e->model.R2);
	if (isfinite(e->other_load_max_cpus))
		fprintf(out, "  other load during the runs: up to %.2f CPUs, %.0f%% of the busy CPUs",
			e->other_load_max_cpus, 100 * e->other_share_max);
	else
		fprintf(out, "  other load during the runs: unknown");
	fprintf(out, " (trust %s: package energy includes every process)\n",
		pma_energy_trust_name(e->trust));
	fprintf(out, "  %6s %10s %9s %11s %12s\n", "cores", "T (s)", "P (W)", "E (J)", "EDP (J s)");
	for (size_t i = 0; i < e->npts; i++) {
		const struct pma_energy_point *q = &e->pts[i];
		fprintf(out, "  %6u %10.4g %9.4g %11.5g %12.5g%s\n", q->n, q->T_s, q->P_w, q->E_j, q->EDP_js,
			q->n == e->opt.n_energy ? "  <- least energy" :
			q->n == e->opt.n_edp ? "  <- least EDP" : "");
	}
	fprintf(out, "energy-optimal %u core%s (E = %.5g J); time-optimal (eq. 11) %u core%s costs "
		"%.5g J; least EDP at %u\n", e->opt.n_energy, e->opt.n_energy == 1 ? "" : "s",
		e->opt.E_min_j, e->opt.n_time, e->opt.n_time == 1 ? "" : "s", e->opt.E_at_time_opt_j,
		e->opt.n_edp);
}

/* "energy": docs/pmanalyze-json.md */
static void pma_render_energy_json(cJSON *o, const struct pma_result *r)
{
	const struct pma_energy_result *e = &r->energy;
	cJSON *pm, *pts, *op;

	cJSON_AddBoolToObject(o, "available", e->have);
	if (!e->have) {
		cJSON_AddStringToObject(o, "reason", e->reason);
		cJSON_AddNullToObject(o, "energy_optimal_cores");
		cJSON_AddNullToObject(o, "power_model");
		cJSON_AddNullToObject(o, "points");
		return;
	}
	cJSON_AddStringToObject(o, "source", e->source ? e->source : "unknown");
	cJSON_AddNumberToObject(o, "runs", (double)e->nruns);
	pm = cJSON_AddObjectToObject(o, "power_model");
	cJSON_AddStringToObject(pm, "method", e->model.method == PMA_POWER_FIT_ZONES ? "zones" : "total");
	cJSON_AddNumberToObject(pm, "P_static_w", e->model.P_static_w);
	cJSON_AddNumberToObject(pm, "P_core_w", e->model.P_core_w);
	pma_render_add_finite(pm, "R2", e->model.R2);
	cJSON_AddNumberToObject(pm, "core_counts", e->model.ncounts);
	op = cJSON_AddObjectToObject(o, "other_load");
	pma_render_add_finite(op, "max_cpus", e->other_load_max_cpus);
	pma_render_add_finite(op, "max_share", e->other_share_max);
	cJSON_AddStringToObject(op, "trust", pma_energy_trust_name(e->trust));
	cJSON_AddNumberToObject(o, "energy_optimal_cores", e->opt.n_energy);
	cJSON_AddNumberToObject(o, "time_optimal_cores", e->opt.n_time);
	cJSON_AddNumberToObject(o, "edp_optimal_cores", e->opt.n_edp);
	cJSON_AddNumberToObject(o, "E_min_j", e->opt.E_min_j);
	cJSON_AddNumberToObject(o, "E_at_time_optimal_j", e->opt.E_at_time_opt_j);
	pts = cJSON_AddArrayToObject(o, "points");
	for (size_t i = 0; i < e->npts; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddNumberToObject(p, "cores", e->pts[i].n);
		cJSON_AddNumberToObject(p, "T_s", e->pts[i].T_s);
		cJSON_AddNumberToObject(p, "P_w", e->pts[i].P_w);
		cJSON_AddNumberToObject(p, "E_j", e->pts[i].E_j);
		cJSON_AddNumberToObject(p, "EDP_js", e->pts[i].EDP_js);
		cJSON_AddItemToArray(pts, p);
	}
}

/* ---- HTML ---- */

/* Energy: E(n) and the energy-optimal core count (docs/energy.md §2), or why there is none; then the
 * analyzed run's power by zone (the energy plot) when it has ENERGY records. */
static int pma_render_html_energy(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_energy_result *e = &r->energy;
	const struct pma_run_power *rp = &r->run_power;

	if (!e->have) {
		P("<p>No energy estimate: ");
		pma_html_escape(out, e->reason[0] ? e->reason : "no run has energy readings");
		P(".</p>\n");
	} else {
		P("<p>Fastest: %u cores, %.1f J. Least energy: %u cores, %.1f J. Least energy &#215; "
		  "delay: %u cores.</p>\n", e->opt.n_time, e->opt.E_at_time_opt_j, e->opt.n_energy,
		  e->opt.E_min_j, e->opt.n_edp);
	}
	if (rp->s.n == 0)
		return 0;
	P("<p id=\"energy-zones\">Mean power of run %u over %.3g s:", r->run->run_id,
	  rp->s.t1_s[rp->s.n - 1]);
	for (size_t z = 0; z < rp->s.nzones; z++) {
		P("%s ", z ? "," : "");
		pma_html_escape(out, rp->labels[z]);
		if (isfinite(rp->s.mean_w[z]))
			P(" %.3g W", rp->s.mean_w[z]);
		else
			P(" unknown");
	}
	P(".</p>\n");
	return pma_html_figure(out, r, PMA_PLOT_ENERGY, why, whysize);
}

/* ---- plots ---- */

/* Legend entries at most: zones beyond are summed up in one line. */
#define ENERGY_LEGEND_MAX 12

/* Each zone's power as steps: a flat line over each interval between two readings at its mean
 * power, joined to the next interval when they touch, broken where the power is NAN. */
static int draw_energy(cairo_t *cr, const struct pma_result *r, int w, int h,
			const struct pma_plot_axes *a)
{
	const struct pma_run_power *rp = &r->run_power;
	const struct pma_power_series *ps = &rp->s;
	char xt[96], labels[ENERGY_LEGEND_MAX][160];
	struct pma_plot_legend_entry le[ENERGY_LEGEND_MAX];
	size_t nl = 0;

	snprintf(xt, sizeof(xt), "time since the run began (s); %s readings",
		 rp->source ? rp->source : "energy");
	pma_plot_frame(cr, r, PMA_PLOT_ENERGY, w, h, a, xt,
	      "power (W), \xce\x94" "E / \xce\x94" "t between readings", 1);
	pma_plot_clip_area(cr, a);
	cairo_set_line_width(cr, 2);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	for (size_t z = 0; z < ps->nzones; z++) {
		const double *pw = &ps->w[z * ps->n];
		int started = 0;
		pma_plot_rgb(cr, pma_plot_zone_color(z), 1);
		for (size_t k = 0; k < ps->n; k++) {
			double y = pma_plot_px_y(a, pw[k]);
			if (!isfinite(pw[k])) {
				started = 0;
				continue;
			}
			if (started && ps->t0_s[k] == ps->t1_s[k - 1])
				cairo_line_to(cr, pma_plot_px_x(a, ps->t0_s[k]), y);
			else
				cairo_move_to(cr, pma_plot_px_x(a, ps->t0_s[k]), y);
			cairo_line_to(cr, pma_plot_px_x(a, ps->t1_s[k]), y);
			started = 1;
		}
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	for (size_t z = 0; z < ps->nzones && nl < ENERGY_LEGEND_MAX; z++) {
		if (nl == ENERGY_LEGEND_MAX - 1 && ps->nzones > ENERGY_LEGEND_MAX) {
			snprintf(labels[nl], sizeof(labels[nl]), "and %zu more zones", ps->nzones - z);
			le[nl] = (struct pma_plot_legend_entry){ 0x999999, 0, labels[nl] };
			nl++;
			break;
		}
		if (isfinite(ps->mean_w[z]))
			snprintf(labels[nl], sizeof(labels[nl]), "%s: mean %.3g W", rp->labels[z],
				 ps->mean_w[z]);
		else
			snprintf(labels[nl], sizeof(labels[nl]), "%s", rp->labels[z]);
		le[nl] = (struct pma_plot_legend_entry){ pma_plot_zone_color(z), 0, labels[nl] };
		nl++;
	}
	pma_plot_legend(cr, a, le, nl, 1);
	return 0;
}

/* ---- the section ---- */

static void energy_section_json(cJSON *root, const struct pma_result *r)
{
	pma_render_energy_json(cJSON_AddObjectToObject(root, "energy"), r);
}

/* The energy plot is drawn in the section's HTML block (own_block), not in the page's plots block. */
const struct pma_section pma_section_energy = {
	.name = "energy",
	.steps = { { PMA_STAGE_STUDY, pma_step_energy } },
	.table = pma_render_table_energy,
	.json = energy_section_json,
	.html = { { PMA_PAGE_STUDIES, "energy", "Energy", pma_render_html_energy } },
	.plots = { { PMA_PLOT_ENERGY, draw_energy, 1 } },
};
