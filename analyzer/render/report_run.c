/* SPDX-License-Identifier: MIT */
/* report_run.c: the report's run, parallelism and concurrency sections, as a table and as
 * JSON (the CSV has no columns of them). */
#include "report_sections.h"

#include <math.h>

#include "render_util.h"
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

	fprintf(out, "%-13s%.2f ± %.2f threads  (estimator %s", "A(m,inf)", p->A_inf, r->par.A_err,
		pma_estimator_name(r->par.est));
	for (int k = PMA_EST_COUNT - 1; k >= 0; k--)
		if (k != r->par.est && r->par.have[k])
			fprintf(out, "; %s gives %.2f", pma_estimator_name(k), r->par.by_est[k].A_inf);
	fputs(")\n", out);
	if (r->par.have[PMA_EST_SCHED])
		fprintf(out, "%-13s%llu events, %llu lost, %llu wake edges, %llu wakes from outside, "
			"%u threads, %llu switch-ins inferred (%.1f ms)\n", "sched events",
			(unsigned long long)x->events, (unsigned long long)x->lost,
			(unsigned long long)x->wake_edges, (unsigned long long)x->outside_wakes,
			x->threads, (unsigned long long)x->inferred_switch_ins, x->inferred_ns / 1e6);
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
	if (o->n_best)
		P("<div class=\"kpi\" id=\"kpi-best\"><span class=\"v\" data-value=\"%u\">n = %u</span>"
		  "<span class=\"l\">best core count: S = %.2f; 95%% of it from n = %u</span></div>\n",
		  o->n_best, o->n_best, o->S_best, o->n_95);
	P("</div>\n<p class=\"why\" id=\"best-why\">");
	if (!o->n_best)
		P("No core count has a finite predicted speedup: memory saturates already on one core.");
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
	else if (best)
		P("At n = %u, S(m,n) = %.2f is the largest predicted: A(m,n) = %.2f of the program's "
		  "average parallelism A(m,&#8734;) = %.2f (eq. 1, 6, 11).", o->n_best, best->S, best->A,
		  p->A_inf);
	if (o->n_best && o->n_95 < o->n_best)
		P(" Paying per core, n = %u already gives 95%% of the best speedup.", o->n_95);
	P("</p>\n<p class=\"est\">Estimator: %s (%s).", pma_estimator_name(r->par.est),
	  r->par.baseline_case);
	if (r->mem.cal.params.model == PMA_MEM_NONE)
		P(" Memory contention unknown: the speedups are upper bounds (&#969; = 0).");
	P("</p>\n");
	return 0;
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
	.plots = 1u << PMA_PLOT_PROFILE | 1u << PMA_PLOT_HISTOGRAM | 1u << PMA_PLOT_TIMELINE,
};
