/* SPDX-License-Identifier: MIT */
/* report_run.c: the report's run, parallelism and concurrency sections, as a table and as
 * JSON (the CSV has no columns of them). */
#include "report_sections.h"

#include <math.h>
#include <stdlib.h>

#include "render_util.h"
#include "plot.h"
#include "plot_draw.h"
#include "html.h"
#include "html_util.h"

/* The run: program, trace, machine, baseline, m, wall time, sources. */
static void pma_render_table_run(FILE *out, const struct pma_result *r)
{
	char cmd[512];

	pma_render_command_string(&r->t->meta, cmd, sizeof(cmd));
	fprintf(out, "%-13s%s\n", "program", cmd);
	fprintf(out, "%-13s%s\n", "trace", r->t->path);
	pma_render_machine_line(out, &r->t->meta);
	if (r->mem.target_given) {
		char sum[160];
		fprintf(out, "%-13s%s: %s (the predictions' machine)\n", "target", r->mem.target.source,
			pma_machine_summary(&r->mem.target, sum, sizeof(sum)));
	}
	fprintf(out, "%-13srun %u on CPUs %s (%u): %s\n", "baseline", r->run->run_id,
		r->run->cpus[0] ? r->run->cpus : "?", r->par.baseline_cores, r->par.baseline_case);
	fprintf(out, "%-13s%s%s\n", "run status", r->par.status, r->par.failed ?
		": FAILED OR PARTIAL RUN, the profile covers only what ran (see the notes)" : "");
	fprintf(out, "%-13s%.0f threads (%s)\n", "m", r->par.m, r->par.m_source);
	fprintf(out, "%-13s%.3f s, %llu samples every %.2f ms", "wall time", r->par.wall_s,
		(unsigned long long)r->run->st.samples, r->par.interval_ms);
	if (r->par.interval_requested_ms > 0)
		fprintf(out, " (lengthened by pmcollect from %.2f ms; ", r->par.interval_requested_ms);
	else
		fputs(" (", out);
	fprintf(out, "measured mean %.2f ms)", r->run->st.mean_interval_ns / 1e6);
	if (r->par.unexplained_s > 0.0005)
		fprintf(out, "; %.3f s unexplained (ready to run, CPUs busy elsewhere)",
			r->par.unexplained_s);
	fputc('\n', out);
	pma_render_print_sources(out, &r->t->meta);
	if (r->par.est == PMA_EST_SCHED)
		pma_wakecost_line(out, &r->wake);
}

/* A(m,inf) by every estimator, T_cp, T(1), D(m), idle time. */
static void pma_render_table_parallelism(FILE *out, const struct pma_result *r)
{
	const struct pma_parallelism *p = &r->par.by_est[r->par.est];
	const struct pma_profile *prof = pma_result_profile(r);
	const struct pma_exact_stats *x = &r->run->xst;
	char outs[48] = ""; /* switches the kernel recorded neither way, only where there were some */

	if (x->inferred_switch_outs)
		snprintf(outs, sizeof(outs), " and %llu switch-outs",
			 (unsigned long long)x->inferred_switch_outs);
	fprintf(out, "%-13s%.2f ± %.2f threads  (estimator %s", "A(m,inf)", p->A_inf, r->par.A_err,
		pma_estimator_name(r->par.est));
	for (int k = PMA_EST_COUNT - 1; k >= 0; k--)
		if (k != r->par.est && r->par.have[k])
			fprintf(out, "; %s gives %.2f", pma_estimator_name(k), r->par.by_est[k].A_inf);
	fputs(")\n", out);
	if (r->par.have[PMA_EST_SCHED])
		fprintf(out, "%-13s%llu events, %llu lost, %llu wake edges, %llu wakes from outside, "
			"%u threads, %llu switch-ins%s inferred (%.1f ms)\n", "sched events",
			(unsigned long long)x->events, (unsigned long long)x->lost,
			(unsigned long long)x->wake_edges, (unsigned long long)x->outside_wakes,
			x->threads, (unsigned long long)x->inferred_switch_ins, outs, x->inferred_ns / 1e6);
	if (r->par.have[PMA_EST_SWITCH])
		pma_pswitch_describe(out, &r->run->pst);
	fprintf(out, "%-13s%.3f s\n", "T_cp", p->T_cp_ns / 1e9);
	/* U + idle (compute.c): the estimator's work, not rusage's CPU time, which may differ */
	fprintf(out, "%-13s%.3f s  (the work U the estimator found, plus idle: the time on one core)\n",
		"T(1)", r->par.T1_s);
	fprintf(out, "%-13s%.2f threads  (m - A(m,inf), eq. 2)\n", "D(m)", p->D);
	if (prof->idle_ns > 0)
		fprintf(out, "%-13s%.3f s with no runnable thread (kept as is in T(n))\n", "idle",
			prof->idle_ns / 1e9);
}

/* The concurrency histogram: share of T_cp by active threads, as bars. */
static void pma_render_table_concurrency(FILE *out, const struct pma_result *r)
{
	const struct pma_parallelism *p = &r->par.by_est[r->par.est];
	const struct pma_profile *prof = pma_result_profile(r);

	fputs("\nconcurrency: share of critical-path time by active threads\n", out);
	for (size_t k = 1; k < prof->nbins; k++) {
		double share = p->T_cp_ns > 0 ? pma_profile_level_ns(prof, k) / p->T_cp_ns : 0;
		int bar = (int)lround(share * 50);
		if (share < 0.0005)
			continue;
		fprintf(out, "  %4zu  %5.1f%%  ", k, 100 * share);
		for (int b = 0; b < bar; b++)
			fputc('#', out);
		fputc('\n', out);
	}
}

/* "parallelism": the analyzed run and every estimator's A(m,inf), T_cp, D */
static void pma_render_parallelism_json(cJSON *par, const struct pma_result *r)
{
	const struct pma_parallelism *p = &r->par.by_est[r->par.est];
	const struct pma_profile *prof = pma_result_profile(r);
	cJSON *est;

	cJSON_AddNumberToObject(par, "run_id", r->run->run_id);
	cJSON_AddNumberToObject(par, "m", r->par.m);
	cJSON_AddStringToObject(par, "m_source", r->par.m_source);
	cJSON_AddNumberToObject(par, "A_inf", p->A_inf);
	cJSON_AddNumberToObject(par, "A_inf_err", r->par.A_err);
	cJSON_AddNumberToObject(par, "D", p->D);
	cJSON_AddNumberToObject(par, "T_cp_s", p->T_cp_ns / 1e9);
	cJSON_AddNumberToObject(par, "T1_s", r->par.T1_s);
	cJSON_AddNumberToObject(par, "idle_s", prof->idle_ns / 1e9);
	cJSON_AddNumberToObject(par, "wall_s", r->par.wall_s);
	cJSON_AddNumberToObject(par, "unexplained_s", r->par.unexplained_s);
	cJSON_AddStringToObject(par, "run_status", r->par.status);
	cJSON_AddBoolToObject(par, "run_failed", r->par.failed);
	cJSON_AddNumberToObject(par, "baseline_cores", r->par.baseline_cores);
	cJSON_AddStringToObject(par, "baseline_cpus", r->run->cpus);
	cJSON_AddStringToObject(par, "baseline_case", r->par.baseline_case);
	cJSON_AddNumberToObject(par, "interval_ms", r->par.interval_ms);
	if (r->par.interval_requested_ms > 0)
		cJSON_AddNumberToObject(par, "interval_requested_ms", r->par.interval_requested_ms);
	else
		cJSON_AddNullToObject(par, "interval_requested_ms");
	cJSON_AddNumberToObject(par, "mean_interval_ms", r->run->st.mean_interval_ns / 1e6);
	cJSON_AddStringToObject(par, "estimator", pma_estimator_name(r->par.est));
	est = cJSON_AddObjectToObject(par, "estimates");
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		cJSON *e;
		if (!r->par.have[k])
			continue;
		e = cJSON_AddObjectToObject(est, pma_estimator_name(k));
		cJSON_AddNumberToObject(e, "A_inf", r->par.by_est[k].A_inf);
		cJSON_AddNumberToObject(e, "T_cp_s", r->par.by_est[k].T_cp_ns / 1e9);
		cJSON_AddNumberToObject(e, "D", r->par.by_est[k].D);
		if (k == PMA_EST_SCHED) {
			const struct pma_exact_stats *x = &r->run->xst;
			cJSON_AddNumberToObject(e, "work_s", x->work_ns / 1e9);
			cJSON_AddNumberToObject(e, "events", (double)x->events);
			cJSON_AddNumberToObject(e, "lost_events", (double)x->lost);
			cJSON_AddNumberToObject(e, "gaps", x->gaps);
			cJSON_AddNumberToObject(e, "wake_edges", (double)x->wake_edges);
			cJSON_AddNumberToObject(e, "outside_wakes", (double)x->outside_wakes);
			cJSON_AddNumberToObject(e, "inferred_switch_ins", (double)x->inferred_switch_ins);
			cJSON_AddNumberToObject(e, "inferred_switch_outs", (double)x->inferred_switch_outs);
			cJSON_AddNumberToObject(e, "inferred_s", x->inferred_ns / 1e9);
			cJSON_AddNumberToObject(e, "threads", x->threads);
			cJSON_AddNumberToObject(e, "max_active", x->max_active);
		}
	}
}

/* "concurrency": share of critical-path time by active threads */
static void pma_render_concurrency_json(cJSON *hist, const struct pma_result *r)
{
	const struct pma_parallelism *p = &r->par.by_est[r->par.est];
	const struct pma_profile *prof = pma_result_profile(r);

	for (size_t k = 1; k < prof->nbins; k++) {
		double ns = pma_profile_level_ns(prof, k);
		cJSON *h;
		if (ns <= 0)
			continue;
		h = cJSON_CreateObject();
		cJSON_AddNumberToObject(h, "active", (double)k);
		cJSON_AddNumberToObject(h, "T_cp_s", ns / 1e9);
		cJSON_AddNumberToObject(h, "share", p->T_cp_ns > 0 ? ns / p->T_cp_ns : 0);
		cJSON_AddItemToArray(hist, h);
	}
}

/* ---- HTML ---- */

static const struct pma_prediction *headline_pred(const struct pma_result *r)
{
	return r->pred.by_est[r->par.est];
}

/* The prediction row of n, or NULL. */
static const struct pma_prediction *pred_at(const struct pma_result *r, uint32_t n)
{
	for (size_t i = 0; i < r->pred.ncores; i++)
		if (r->pred.cores[i] == n)
			return &headline_pred(r)[i];
	return NULL;
}

/* A(m,inf), T_cp, D(m), the best n and why (eq. 2, 4, 11). */
static int pma_render_html_headline(FILE *out, const struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_parallelism *p = &r->par.by_est[r->par.est];
	const struct pma_optimal *o = &r->opt;
	const struct pma_prediction *best = o->n_best ? pred_at(r, o->n_best) : NULL;
	uint32_t nlast = r->pred.ncores ? r->pred.cores[r->pred.ncores - 1] : 0;
	const struct pma_prediction *last = nlast ? pred_at(r, nlast) : NULL;

	(void)why;
	(void)whysize;
	P("<div class=\"kpis\">\n");
	P("<div class=\"kpi\" id=\"kpi-A\"><span class=\"v\" data-value=\"%.6g\">%.2f</span>"
	  "<span class=\"pm\">&#177; %.2f</span><span class=\"l\">A(m,&#8734;): average parallelism "
	  "(eq. 4)</span></div>\n", p->A_inf, p->A_inf, r->par.A_err);
	P("<div class=\"kpi\" id=\"kpi-Tcp\"><span class=\"v\" data-value=\"%.6g\">%.3f s</span>"
	  "<span class=\"l\">T<sub>cp</sub>: critical-path time</span></div>\n", p->T_cp_ns / 1e9,
	  p->T_cp_ns / 1e9);
	P("<div class=\"kpi\" id=\"kpi-D\"><span class=\"v\" data-value=\"%.6g\">%.2f</span>"
	  "<span class=\"l\">D(m) = m &#8722; A(m,&#8734;): threads' worth of dependencies, m = %.0f "
	  "(eq. 2)</span></div>\n", p->D, p->D, r->par.m);
	int measured = 0; /* the best S is the trace's own runs' (compute.c enforce_optimum) */
	for (size_t j = 0; j < r->pred.n_opt_measured; j++)
		measured |= r->pred.opt_measured[j] == o->n_best;
	if (o->n_best)
		P("<div class=\"kpi\" id=\"kpi-best\"><span class=\"v\" data-value=\"%u\">n = %u</span>"
		  "<span class=\"l\">best core count: S = %.2f%s%s; 95%% of it from n = %u</span></div>\n",
		  o->n_best, o->n_best, o->S_best, measured ? " (measured by the trace's runs)" : "",
		  o->rule == PMA_OPT_LARGEST ? ", the largest" : ", the fewest cores within the noise of the largest",
		  o->n_95);
	P("</div>\n<p class=\"why\" id=\"best-why\">");
	if (!o->n_best)
		P("No core count has a finite predicted speedup: memory saturates already on one core.");
	else if (o->rule != PMA_OPT_LARGEST)
		/* compute.c optimum_in_noise: more cores gain less than the noise */
		P("n = %u is the fewest cores whose S(m,n) = %.2f is within %s of the largest, %.4f at "
		  "n = %u: the gain of more cores is inside the noise (eq. 11).", o->n_best, o->S_best,
		  o->rule == PMA_OPT_WITHIN_REL ? "1%" : "the uncertainty of the difference", o->S_max,
		  o->n_max);
	else if (o->n_best == nlast)
		P("S(m,n) still rises at the largest core count predicted (n = %u): more cores keep "
		  "helping, up to the program's average parallelism A(m,&#8734;) = %.2f.", nlast, p->A_inf);
	else if (best && last && isfinite(best->omega) && isnan(last->omega))
		/* the optimum is capped where omega stops being known (compute.c enforce_optimum) */
		P("n = %u is the largest core count with a known memory contention &#969;(n): beyond it "
		  "&#969; is unknown and S(m,n) = A(m,n) only an upper bound (%.2f at n = %u); calibrate "
		  "on more cores to place the optimum there (eq. 1, 11).", o->n_best, last->S, nlast);
	else if (best && isfinite(best->omega) && best->omega > 0.005)
		P("Beyond n = %u, memory contention &#969;(n) (%.3f at n = %u) grows faster than the "
		  "parallelism gained: S(m,n) = A(m,n) / (1 + &#969;(n)) falls (eq. 1, 11).", o->n_best,
		  best->omega, o->n_best);
	else if (best && best->A >= p->A_inf * (1 - 0.005))
		P("At n = %u, A(m,n) reaches the program's average parallelism A(m,&#8734;) = %.2f: more "
		  "cores find no more work to run at once (eq. 6, 11).", o->n_best, p->A_inf);
	else if (best) /* the optimum's S, as the table's optimal line: the runs' where they measured it */
		P("At n = %u, S(m,n) = %.2f is the largest%s: A(m,n) = %.2f of the program's "
		  "average parallelism A(m,&#8734;) = %.2f (eq. 1, 6, 11).", o->n_best, o->S_best,
		  measured ? " (measured by the trace's runs)" : " predicted", best->A, p->A_inf);
	if (o->n_best && o->n_95 < o->n_best)
		P(" Paying per core, n = %u already gives 95%% of the best speedup.", o->n_95);
	P("</p>\n<p class=\"est\">Estimator: %s (%s).", pma_estimator_name(r->par.est),
	  r->par.baseline_case);
	if (r->mem.cal.params.model == PMA_MEM_NONE)
		P(" Memory contention unknown: the speedups are upper bounds (&#969; = 0).");
	P("</p>\n");
	return 0;
}

/* ---- plots ---- */

static int draw_profile(cairo_t *cr, const struct pma_result *r, int w, int h,
			const struct pma_plot_axes *a)
{
	const struct pma_profile *p = pma_result_profile(r);
	const struct pma_series *s = p->series;
	double div, A_inf = r->par.by_est[r->par.est].A_inf;
	const char *u;
	char xt[96], lab[64];
	struct pma_plot_legend_entry le[2];

	pma_plot_time_unit(p->T_cp_ns, &div, &u);
	snprintf(xt, sizeof(xt), "critical-path time T_cp (%s)", u);
	pma_plot_frame(cr, r, PMA_PLOT_PROFILE, w, h, a, xt, "active threads A(m,\xe2\x88\x9e,t)", 1);
	pma_plot_clip_area(cr, a);
	/* each bucket as a step: its mean A over its width */
	pma_plot_rgb(cr, PMA_PLOT_C_PRED, 0.25);
	cairo_move_to(cr, pma_plot_px_x(a, 0), pma_plot_px_y(a, 0));
	for (size_t i = 0; i < s->n; i++) {
		double A = s->dT_ns[i] > 0 ? s->AdT_ns[i] / s->dT_ns[i] : 0;
		double x0 = (double)i * s->width_ns / div, x1 = fmin(x0 + s->dT_ns[i] / div, a->xmax);
		cairo_line_to(cr, pma_plot_px_x(a, x0), pma_plot_px_y(a, A));
		cairo_line_to(cr, pma_plot_px_x(a, x1), pma_plot_px_y(a, A));
	}
	cairo_line_to(cr, pma_plot_px_x(a, a->xmax), pma_plot_px_y(a, 0));
	cairo_close_path(cr);
	cairo_fill_preserve(cr);
	pma_plot_rgb(cr, PMA_PLOT_C_PRED, 1);
	cairo_set_line_width(cr, 1.5);
	cairo_stroke(cr);
	/* the mean, A(m,inf) (eq. 4) */
	pma_plot_rgb(cr, PMA_PLOT_C_OPT, 1);
	cairo_set_line_width(cr, 1.5);
	cairo_move_to(cr, a->left_px, pma_plot_px_y(a, A_inf));
	cairo_line_to(cr, a->left_px + a->width_px, pma_plot_px_y(a, A_inf));
	cairo_stroke(cr);
	cairo_restore(cr);
	snprintf(lab, sizeof(lab), "mean A(m,\xe2\x88\x9e) = %.2f", A_inf);
	le[0] = (struct pma_plot_legend_entry){ PMA_PLOT_C_PRED, 2, "A(m,\xe2\x88\x9e,t) per bucket" };
	le[1] = (struct pma_plot_legend_entry){ PMA_PLOT_C_OPT, 0, lab };
	pma_plot_legend(cr, a, le, 2, 1);
	return 0;
}

static int draw_histogram(cairo_t *cr, const struct pma_result *r, int w, int h,
			  const struct pma_plot_axes *a)
{
	const struct pma_profile *p = pma_result_profile(r);
	struct pma_plot_legend_entry le[1];

	pma_plot_frame(cr, r, PMA_PLOT_HISTOGRAM, w, h, a, "active threads (level k = \xe2\x8c\x88" "A(m,\xe2\x88\x9e,t)\xe2\x8c\x89)",
	      "share of critical-path time (%)", 1);
	pma_plot_clip_area(cr, a);
	pma_plot_rgb(cr, PMA_PLOT_C_PRED, 1);
	for (size_t k = 1; k < p->nbins; k++) {
		double pct = 100 * pma_profile_level_ns(p, k) / p->T_cp_ns;
		double x0 = pma_plot_px_x(a, (double)k - 0.4), x1 = pma_plot_px_x(a, (double)k + 0.4);
		double y = pma_plot_px_y(a, pct), y0 = pma_plot_px_y(a, 0);
		if (pct > 0) {
			cairo_rectangle(cr, x0, y, fmax(x1 - x0, 1), fmax(y0 - y, 1));
			cairo_fill(cr);
		}
	}
	cairo_restore(cr);
	le[0] = (struct pma_plot_legend_entry){ PMA_PLOT_C_PRED, 2, "T_cp at level k" };
	pma_plot_legend(cr, a, le, 1, 1);
	return 0;
}

/* Per thread and pixel column: ns running and runnable, the thread's life span. */
struct tl_cols {
	float *run, *rq; /* [threads * cols] */
	uint64_t *first, *last;
};

static size_t thread_row(const struct pma_exact *x, const uint32_t *tids, size_t nt, uint32_t tid)
{
	size_t lo = 0, hi = nt;

	(void)x;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nt && tids[lo] == tid ? lo : nt;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t p = *(const uint32_t *)a, q = *(const uint32_t *)b;
	return p < q ? -1 : p > q;
}

/* Rows are threads in tid order (creation order on Linux); each row's pixel columns take the state
 * that held most of the column's time (running over runnable over blocked on ties), so the cost
 * is O(slices + threads x columns) whatever the trace's length. */
static int draw_timeline(cairo_t *cr, const struct pma_result *r, int w, int h,
			 const struct pma_plot_axes *a)
{
	const struct pma_exact *x = r->run->exact;
	size_t nt = pma_exact_thread_count(x), ns, ncp = 0, cols = (size_t)a->width_px;
	const struct pma_slice *sl = pma_exact_slices(x, &ns);
	double t0 = r->run->xst.first_t_ns, span = r->run->xst.last_t_ns - t0;
	double col_ns = span > 0 ? span / (double)cols : 1, row_h = a->height_px / (double)(nt ? nt : 1);
	double div;
	const char *u;
	char xt[96];
	uint32_t *tids = malloc((nt ? nt : 1) * sizeof(*tids));
	float *run = calloc((nt ? nt : 1) * cols, sizeof(float));
	float *rq = calloc((nt ? nt : 1) * cols, sizeof(float));
	uint64_t *first = malloc((nt ? nt : 1) * sizeof(uint64_t));
	uint64_t *last = calloc(nt ? nt : 1, sizeof(uint64_t));
	struct pma_cp_seg *cp = NULL;
	struct pma_plot_legend_entry le[4];
	int rc = -1;

	if (!tids || !run || !rq || !first || !last || pma_exact_critical_path(x, &cp, &ncp) < 0)
		goto out;
	for (size_t i = 0; i < nt; i++) {
		uint32_t tgid;
		const char *comm;
		tids[i] = pma_exact_thread(x, i, &tgid, &comm);
		first[i] = UINT64_MAX;
	}
	qsort(tids, nt, sizeof(*tids), cmp_u32);
	for (size_t i = 0; i < ns; i++) {
		size_t row = thread_row(x, tids, nt, sl[i].tid);
		double s0 = ((double)sl[i].t0_ns - t0) / col_ns, s1 = ((double)sl[i].t1_ns - t0) / col_ns;
		float *acc = sl[i].kind == PMA_SLICE_RUNNING ? run : rq;
		if (row >= nt)
			continue;
		if (sl[i].t0_ns < first[row])
			first[row] = sl[i].t0_ns;
		if (sl[i].t1_ns > last[row])
			last[row] = sl[i].t1_ns;
		s0 = fmax(s0, 0);
		s1 = fmin(s1, (double)cols);
		for (size_t c = (size_t)s0; c < cols && (double)c < s1; c++) {
			double d = fmin(s1, (double)c + 1) - fmax(s0, (double)c);
			acc[row * cols + c] += (float)d;
		}
	}
	pma_plot_time_unit(span, &div, &u);
	snprintf(xt, sizeof(xt), "time since the first scheduler event (%s)", u);
	pma_plot_frame(cr, r, PMA_PLOT_TIMELINE, w, h, a, xt, "", 0);
	/* row labels: tid and name, as many as fit */
	cairo_set_font_size(cr, 10);
	for (size_t i = 0; i < nt && row_h >= 9; i++) {
		const char *comm = NULL;
		char lab[64];
		pma_exact_tgid(x, tids[i], &comm);
		snprintf(lab, sizeof(lab), "%u %.20s", tids[i], comm ? comm : "");
		pma_plot_rgb(cr, 0x000000, 1);
		pma_plot_text_at(cr, a->left_px - 6, a->top_px + row_h * ((double)i + 0.5) + 3.5, 10, 1, lab);
	}
	pma_plot_clip_area(cr, a);
	for (size_t i = 0; i < nt; i++) {
		double y = a->top_px + row_h * (double)i, hh = fmax(row_h * 0.8, 1);
		size_t c = 0;
		while (c < cols) {
			double live0 = ((double)first[i] - t0) / col_ns, live1 = ((double)last[i] - t0) / col_ns;
			unsigned color = 0xffffff;
			size_t e = c;
			/* the state of column c, and how far it runs */
			for (; e < cols; e++) {
				float fr = run[i * cols + e], fq = rq[i * cols + e];
				int alive = (double)e + 1 > live0 && (double)e < live1;
				unsigned ce = fr >= fq && fr > 0.05f ? PMA_PLOT_C_RUNNING :
					      fq > 0.05f ? PMA_PLOT_C_RUNNABLE :
					      alive ? PMA_PLOT_C_BLOCKED : 0xffffff;
				if (e == c)
					color = ce;
				else if (ce != color)
					break;
			}
			if (color != 0xffffff) {
				pma_plot_rgb(cr, color, 1);
				cairo_rectangle(cr, a->left_px + (double)c, y + (row_h - hh) / 2,
						(double)(e - c), hh);
				cairo_fill(cr);
			}
			c = e;
		}
	}
	/* the critical path over the rows, joined at the wake edges; pieces within one pixel of
	 * each other on the same row merge */
	pma_plot_rgb(cr, PMA_PLOT_C_CP, 1);
	cairo_set_line_width(cr, fmax(1, fmin(3, row_h * 0.3)));
	{
		double px_prev = -1, py_prev = -1;
		for (size_t i = 0; i < ncp; i++) {
			size_t row = thread_row(x, tids, nt, cp[i].tid);
			double px0 = a->left_px + ((double)cp[i].t0_ns - t0) / col_ns;
			double px1 = a->left_px + ((double)cp[i].t1_ns - t0) / col_ns;
			double py = a->top_px + row_h * ((double)row + 0.5);
			if (row >= nt)
				continue;
			if (py == py_prev && px0 <= px_prev + 1) {
				cairo_line_to(cr, px1, py);
			} else {
				if (px_prev >= 0)
					cairo_line_to(cr, px0, py); /* the wake edge */
				else
					cairo_move_to(cr, px0, py);
				cairo_line_to(cr, px1, py);
			}
			px_prev = px1;
			py_prev = py;
		}
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	le[0] = (struct pma_plot_legend_entry){ PMA_PLOT_C_RUNNING, 2, "running" };
	le[1] = (struct pma_plot_legend_entry){ PMA_PLOT_C_RUNNABLE, 2, "runnable (waiting for a CPU)" };
	le[2] = (struct pma_plot_legend_entry){ PMA_PLOT_C_BLOCKED, 2, "blocked" };
	le[3] = (struct pma_plot_legend_entry){ PMA_PLOT_C_CP, 0, "critical path" };
	pma_plot_legend(cr, a, le, 4, 1);
	rc = 0;
out:
	free(tids);
	free(run);
	free(rq);
	free(first);
	free(last);
	free(cp);
	return rc;
}

/* ---- the section ---- */

static void run_table(FILE *out, const struct pma_result *r)
{
	pma_render_table_run(out, r);
	fputc('\n', out);
	pma_render_table_parallelism(out, r);
	pma_render_table_concurrency(out, r);
}

static void run_json(cJSON *root, const struct pma_result *r)
{
	pma_render_parallelism_json(cJSON_AddObjectToObject(root, "parallelism"), r);
	pma_render_concurrency_json(cJSON_AddArrayToObject(root, "concurrency"), r);
}

/* The run and its parallelism: computed first, checked once the predictions exist, and the notes
 * that need every other step last. */
const struct pma_section pma_section_run = {
	.name = "run",
	.steps = { { PMA_STAGE_CORES, pma_step_parallelism }, { PMA_STAGE_CHECK, pma_step_checks },
		   { PMA_STAGE_FINAL, pma_step_late_notes } },
	.table = run_table,
	.json = run_json,
	.html = { { PMA_PAGE_HEADLINE, "headline", NULL, pma_render_html_headline } },
	.plots = { { PMA_PLOT_PROFILE, draw_profile, 0 }, { PMA_PLOT_HISTOGRAM, draw_histogram, 0 },
		   { PMA_PLOT_TIMELINE, draw_timeline, 0 } },
};
