/* SPDX-License-Identifier: MIT */
/* report_memory.c: the report's memory section (Tudor & Teo eq. 8-10, Table IV), as a table
 * and as JSON. */
#include "report_sections.h"

#include <math.h>
#include <string.h>

#include "plot.h"
#include "render_util.h"
#include "plot_draw.h"

/* pmcollect --calibrate -p --window: the windows of the running process, each with its core
 * count, length, CPU time and busy cores (CPU time / length); C(n) unknown (the note says why),
 * or, when the windows retired instructions (cal->per_instruction), also their instructions and
 * C per instruction (cycles or ns), the C(n) of the points above times I_ref. */
static void print_windows(FILE *out, const struct pma_mem_cal *cal)
{
	int cyc = strcmp(cal->source, "cycles") == 0;

	if (!cal->nwin)
		return;
	if (!cal->per_instruction) {
		fprintf(out, "calibration  in windows of a running process (C(n) unknown: see the notes)\n");
		fprintf(out, "%-13s%6s %6s %11s %13s %11s\n", "", "run", "cores", "window (s)",
			"CPU time (s)", "busy cores");
	} else {
		fprintf(out, "calibration  in windows of a running process (C(n) = %s x %.4g "
			"instructions: see the notes)\n", pma_mem_cal_source_name(cal, 0), cal->I_ref);
		fprintf(out, "%-13s%6s %6s %11s %13s %11s %13s %14s\n", "", "run", "cores", "window (s)",
			"CPU time (s)", "busy cores", "instructions", cyc ? "cycles/instr" : "ns/instr");
	}
	for (size_t i = 0; i < cal->nwin; i++) {
		const struct pma_mem_window *w = &cal->win[i];
		fprintf(out, "%-13s%6u %6u %11.3f %13.3f %11.2f", "", w->run_id, w->cores,
			w->length_ns / 1e9, w->cpu_ns / 1e9, w->cpu_ns / w->length_ns);
		if (cal->per_instruction)
			fprintf(out, " %13.4g %14.4g", w->instructions,
				(cyc ? w->cycles : w->cpu_ns) / w->instructions);
		fputc('\n', out);
	}
}

/* The memory model: source, parameters, and measured vs modeled omega (Tudor & Teo, Table IV). */
static void pma_render_print_memory(FILE *out, const struct pma_result *r)
{
	const struct pma_mem_eval *e = &r->mem;
	const struct pma_mem_params *p = &e->cal.params;
	int many = 0; /* points from a trace other than the analyzed one: a trace column */

	fprintf(out, "\nmemory       C(n) from %s; model %s", pma_mem_cal_source_name(&e->cal, 0),
		pma_mem_model_name(p->model));
	if (p->model == PMA_MEM_NONE) {
		/* one thread at a time: omega(1) = 0 at every n (contention.c), no fit needed */
		fputs(r->par.m < 2 ? " (one thread at a time: omega(1) = 0, no calibration needed)\n" :
		      " (omega unknown: see the notes)\n", out);
		print_windows(out, &e->cal);
		return;
	}
	for (size_t i = 0; i < e->cal.npts; i++)
		many |= e->cal.trace[i] != 0;
	if (many) { /* points of several traces: name them, and the machine apart */
		fputs(" fitted on the runs of", out);
		for (int k = 0; k < r->ntraces; k++)
			fprintf(out, "%s trace %d '%s'", k ? "," : "", k + 1, r->traces[k].path);
		fprintf(out, " (column trace); on the machine of %s", e->rec.source);
	} else {
		fprintf(out, " fitted on %s", e->rec.source);
	}
	fprintf(out, " (%u socket%s of %u cores, %u NUMA node%s)\n", e->rec.sockets,
		e->rec.sockets == 1 ? "" : "s", e->rec.c, e->rec.numa_nodes,
		e->rec.numa_nodes == 1 ? "" : "s");
	fprintf(out, "%-13s%s = %.4g, %s = %.4g per %s (eq. 8); ", "", isfinite(p->r) ? "mu" : "mu/r",
		p->mu, isfinite(p->r) ? "L" : "L/r", p->L,
		strcmp(e->cal.source, "cycles") == 0 ? "cycle" : "ns");
	if (isfinite(p->n_sat))
		fprintf(out, "saturation mu = nL at n = %.3g", p->n_sat);
	else
		fputs("no saturation (L = 0: mu = nL at no n)", out);
	if (isfinite(p->dC))
		fprintf(out, "; Delta C = %.4g (eq. 9)", p->dC);
	if (isfinite(p->r_delta))
		fprintf(out, "; r delta = %.4g (eq. 10)", p->r_delta);
	fprintf(out, "\n%-13s%s%6s %6s %12s %14s %14s %9s\n", "", many ? " trace" : "", "run", "cores",
		"C(n)", "omega meas.", "omega model", "residual");
	for (size_t i = 0; i < e->cal.npts; i++) {
		/* a point past the fit's saturation has no model omega ("sat"), so no residual */
		char wm[16], res[16];
		double d = e->cal.omega_model[i] - e->cal.omega_meas[i];
		pma_render_fmt_num(wm, sizeof(wm), 3, e->cal.omega_model[i], "");
		if (isfinite(d))
			snprintf(res, sizeof(res), "%+.3f", d);
		else
			snprintf(res, sizeof(res), "-");
		if (many)
			fprintf(out, "%-13s%6d", "", e->cal.trace[i] + 1);
		fprintf(out, "%-*s%6u %6u %12.4g %14.3f %14s %9s\n", many ? 0 : 13, "",
			e->cal.run_id[i], e->cal.pts[i].cores, e->cal.pts[i].C, e->cal.omega_meas[i],
			wm, res);
	}
	print_windows(out, &e->cal);
	if (!e->cal.repeated)
		return;
	/* --calibrate --repeat K: the medians the model is fitted to, and omega with its spread */
	fprintf(out, "%-13s%6s %6s %12s %12s %18s\n", "", "runs", "cores", "median C(n)", "±C(n)",
		"omega(n) fitted");
	for (size_t k = 0; k < e->cal.nsum; k++) {
		double w = NAN, d = NAN;
		for (size_t i = 0; i < e->ncores; i++)
			if (r->pred.cores[i] == e->cal.sum[k].cores) {
				w = e->omega_fit[i];
				d = e->omega_err[i];
			}
		fprintf(out, "%-13s%6u %6u %12.4g %12.4g %10.3f ± %.3f\n", "", e->cal.nrep[k],
			e->cal.sum[k].cores, e->cal.sum[k].C, e->cal.C_err[k], w, d);
	}
}

/* A machine's source and shape (docs/pmanalyze-json.md "memory"). */
static void machine_json(cJSON *o, const struct pma_machine *mc)
{
	char sum[160];

	cJSON_AddStringToObject(o, "source", mc->source);
	cJSON_AddStringToObject(o, "summary", pma_machine_summary(mc, sum, sizeof(sum)));
	cJSON_AddNumberToObject(o, "sockets", mc->sockets);
	cJSON_AddNumberToObject(o, "cores_per_socket", mc->c);
	cJSON_AddNumberToObject(o, "cores", mc->cores);
	cJSON_AddNumberToObject(o, "pus", mc->pus);
	cJSON_AddNumberToObject(o, "numa_nodes", mc->numa_nodes);
}

/* "memory": source, model, params, points (docs/pmanalyze-json.md) */
static cJSON *pma_render_memory_json(const struct pma_result *r, const struct pma_trace *traces)
{
	const struct pma_mem_eval *e = &r->mem;
	const struct pma_mem_params *p = &e->cal.params;
	cJSON *m = cJSON_CreateObject(), *par, *pts;

	cJSON_AddStringToObject(m, "source", p->model == PMA_MEM_NONE ? "none" : e->cal.source);
	if (e->cal.per_instruction) {
		/* a calibration in windows: C(n) per instruction times instructions_ref (docs/model.md) */
		cJSON_AddBoolToObject(m, "per_instruction", 1);
		cJSON_AddNumberToObject(m, "instructions_ref", e->cal.I_ref);
	}
	cJSON_AddStringToObject(m, "model", pma_mem_model_name(p->model));
	cJSON_AddStringToObject(m, "placement", e->placement);
	cJSON_AddStringToObject(m, "policy", pma_mem_policy_name(e->pol));
	cJSON_AddStringToObject(m, "policy_source", e->pol_source);
	cJSON_AddStringToObject(m, "machine", e->target.source);
	machine_json(cJSON_AddObjectToObject(m, "recording_machine"), &e->rec);
	machine_json(cJSON_AddObjectToObject(m, "target_machine"), &e->target);
	par = cJSON_AddObjectToObject(m, "params");
	if (p->model != PMA_MEM_NONE) {
		pma_render_add_finite(par, "C1", p->C1);
		pma_render_add_finite(par, "mu", p->mu);
		pma_render_add_finite(par, "L", p->L);
		pma_render_add_finite(par, "r", p->r);
		cJSON_AddBoolToObject(par, "per_miss", !isfinite(p->r));
		pma_render_add_finite(par, "n_saturation", p->n_sat);
		pma_render_add_finite(par, "delta_C", p->dC);
		pma_render_add_finite(par, "r_delta", p->r_delta);
		cJSON_AddNumberToObject(par, "cores_per_socket", p->c);
	}
	pts = cJSON_AddArrayToObject(m, "points");
	for (size_t i = 0; i < e->cal.npts; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", e->cal.pts[i].cores);
		cJSON_AddNumberToObject(o, "run_id", e->cal.run_id[i]);
		cJSON_AddStringToObject(o, "trace", traces[e->cal.trace[i]].path);
		cJSON_AddNumberToObject(o, "C", e->cal.pts[i].C);
		if (e->cal.per_instruction) /* the window's own instructions (pts and win in step) */
			cJSON_AddNumberToObject(o, "instructions", e->cal.win[i].instructions);
		if (p->model != PMA_MEM_NONE) {
			pma_render_add_finite(o, "omega_measured", e->cal.omega_meas[i]);
			pma_render_add_finite(o, "omega_model", e->cal.omega_model[i]);
			pma_render_add_finite(o, "residual", e->cal.omega_model[i] - e->cal.omega_meas[i]);
		}
		cJSON_AddItemToArray(pts, o);
	}
	if (p->model == PMA_MEM_NONE) {
		const struct pma_note *why = pma_notes_find(&e->notes, PMA_NOTE_OMEGA_UNKNOWN);
		cJSON_AddItemToObject(m, "unknown_because", why ? pma_render_note_string(why) :
				      cJSON_CreateString(""));
	}
	return m;
}

/* ---- plots ---- */

static int draw_omega(cairo_t *cr, const struct pma_result *r, int w, int h,
		     const struct pma_plot_axes *a)
{
	const struct pma_mem_eval *m = &r->mem;
	const struct pma_mem_cal *c = &m->cal;
	char lab_fit[96];
	struct pma_plot_legend_entry le[2];
	size_t nl = 0;
	int have_fit = c->params.model != PMA_MEM_NONE;

	pma_plot_frame(cr, r, PMA_PLOT_OMEGA, w, h, a, "cores n",
	      "\xcf\x89(n) = C(n) / C(1) \xe2\x88\x92 1 (extra cost, fraction)", 1);
	pma_plot_clip_area(cr, a);
	if (have_fit) {
		pma_plot_polyline(cr, a, r->pred.cores, m->omega, sizeof(double), m->ncores);
	}
	for (size_t i = 0; i < c->npts; i++)
		if (isfinite(c->omega_meas[i]))
			pma_plot_marker(cr, a, c->pts[i].cores, c->omega_meas[i], 5, PMA_PLOT_C_MEAS);
	cairo_restore(cr);
	if (have_fit) {
		snprintf(lab_fit, sizeof(lab_fit), "fit: %s model, %s placement",
			 pma_mem_model_name(c->params.model), m->placement);
		le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_PRED, 0, lab_fit };
	}
	le[nl++] = (struct pma_plot_legend_entry){ PMA_PLOT_C_MEAS, 1, c->per_instruction ?
		(strcmp(c->source, "cycles") == 0 ? "measured C(n), cycles per instruction" :
		 "measured C(n), CPU time per instruction") :
		c->source && strcmp(c->source, "cycles") == 0 ? "measured C(n), cycles" :
		"measured C(n), CPU time" };
	pma_plot_legend(cr, a, le, nl, 0);
	if (!have_fit) {
		pma_plot_rgb(cr, 0xd62728, 1);
		pma_plot_text_at(cr, a->left_px + a->width_px / 2, a->top_px + a->height_px / 2, 14, 0.5,
			"no fit: see the notes for the calibration runs that are missing");
	}
	return 0;
}

/* ---- the section ---- */

static void memory_section_json(cJSON *root, const struct pma_result *r)
{
	cJSON_AddItemToObject(root, "memory", pma_render_memory_json(r, r->traces));
}

const struct pma_section pma_section_memory = {
	.name = "memory",
	.steps = { { PMA_STAGE_OMEGA, pma_step_memory } },
	.table = pma_render_print_memory,
	.json = memory_section_json,
	.plots = { { PMA_PLOT_OMEGA, draw_omega, 0 } },
};
