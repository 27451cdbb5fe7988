/* SPDX-License-Identifier: MIT */
/* report.c: renders a computed result (compute.h) as a table, JSON (schema pmanalyze/1) or CSV,
 * and the --info view of a trace. Renders only: every number comes from struct pma_result. */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmt_cli.h"

/* The command line from META "command" as one sanitized string. */
static void command_string(const struct pma_meta *meta, char *buf, size_t size)
{
	char raw[1024];
	size_t o = 0;

	raw[0] = '\0';
	for (size_t i = 0; i < meta->ncommand; i++) {
		if (meta->command[i] && o < sizeof(raw))
			o += snprintf(raw + o, sizeof(raw) - o, "%s%s", o ? " " : "", meta->command[i]);
	}
	if (o >= sizeof(raw))
		o = sizeof(raw) - 1;
	pmt_cli_sanitize(buf, size, raw, o);
}

/* ---- table ---- */

static void print_sources(FILE *out, const struct pma_meta *meta)
{
	char clean[300];
	int first = 1;

	fprintf(out, "%-13s", "sources");
	for (size_t i = 0; i < meta->nsources; i++) {
		if (meta->sources[i].recorded) {
			fprintf(out, "%s%s", first ? "" : ", ", meta->sources[i].name);
			first = 0;
		}
	}
	fprintf(out, "%s\n", first ? "none" : "");
	for (size_t i = 0; i < meta->nsources; i++) {
		const char *reason = meta->sources[i].reason ? meta->sources[i].reason :
				     "no reason recorded";
		if (!meta->sources[i].recorded) {
			pmt_cli_sanitize(clean, sizeof(clean), reason, strlen(reason));
			fprintf(out, "%-13s%s: not recorded: %s\n", "", meta->sources[i].name, clean);
		}
	}
}

static void machine_line(FILE *out, const struct pma_meta *meta)
{
	const struct pma_topology *topo = &meta->topo;
	const char *host = meta->hostname, *rel = meta->kernel_release;
	char h[128], k[128];

	pmt_cli_sanitize(h, sizeof(h), host ? host : "?", strlen(host ? host : "?"));
	pmt_cli_sanitize(k, sizeof(k), rel ? rel : "?", strlen(rel ? rel : "?"));
	fprintf(out, "%-13s%s: %.0f packages, %.0f cores, %.0f PUs, %.0f NUMA nodes; Linux %s\n",
		"machine", h, topo->packages, topo->cores, topo->pus, topo->numa_nodes, k);
}

/* A number, or "?" when unknown (NAN) and "sat" when saturated (INFINITY). */
static void fmt_num(char *buf, size_t size, int prec, double v, const char *suffix)
{
	if (isnan(v))
		snprintf(buf, size, "?");
	else if (isinf(v))
		snprintf(buf, size, "sat");
	else
		snprintf(buf, size, "%.*f%s", prec, v, suffix);
}

/* The memory model: source, parameters, and measured vs modeled omega (Tudor & Teo, Table IV). */
static void print_memory(FILE *out, const struct pma_result *r)
{
	const struct pma_mem_eval *e = &r->mem;
	const struct pma_mem_params *p = &e->cal.params;

	fprintf(out, "\nmemory       C(n) from %s; model %s", e->cal.source, pma_mem_model_name(p->model));
	if (p->model == PMA_MEM_NONE) {
		fputs(" (omega unknown: see the notes)\n", out);
		return;
	}
	fprintf(out, " fitted on %s (%u socket%s of %u cores, %u NUMA node%s)\n", e->rec.source,
		e->rec.sockets, e->rec.sockets == 1 ? "" : "s", e->rec.c, e->rec.numa_nodes,
		e->rec.numa_nodes == 1 ? "" : "s");
	fprintf(out, "%-13s%s = %.4g, %s = %.4g per %s (eq. 8); saturation mu = nL at n = %.3g", "",
		isfinite(p->r) ? "mu" : "mu/r", p->mu, isfinite(p->r) ? "L" : "L/r", p->L,
		strcmp(e->cal.source, "cycles") == 0 ? "cycle" : "ns", p->n_sat);
	if (isfinite(p->dC))
		fprintf(out, "; Delta C = %.4g (eq. 9)", p->dC);
	if (isfinite(p->r_delta))
		fprintf(out, "; r delta = %.4g (eq. 10)", p->r_delta);
	fprintf(out, "\n%-13s%6s %6s %12s %14s %14s %9s\n", "", "run", "cores", "C(n)", "omega meas.",
		"omega model", "residual");
	for (size_t i = 0; i < e->cal.npts; i++)
		fprintf(out, "%-13s%6u %6u %12.4g %14.3f %14.3f %+9.3f\n", "", e->cal.run_id[i],
			e->cal.pts[i].cores, e->cal.pts[i].C, e->cal.omega_meas[i], e->cal.omega_model[i],
			e->cal.omega_model[i] - e->cal.omega_meas[i]);
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

/* Row i of the predictions table without its core count. Returns buf. */
static char *table_row(char *buf, size_t size, const struct pma_result *r, size_t i)
{
	const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
	char w[16], x[16];

	fmt_num(w, sizeof(w), 2, q->omega, "");
	fmt_num(x, sizeof(x), 0, q->omega > 0 ? 100 * r->mem.cross[i] / q->omega :
		r->mem.cross[i] == 0 ? 0 : NAN, "%");
	snprintf(buf, size, "%8.2f %7s %6s %8.2f %8.2f %10.3f %7.2f  %s%s", q->A, w, x, q->S,
		 r->pred.S_err[i], q->T_ns / 1e9, q->R, r->mem.per_socket[i],
		 q->cores == r->opt.n_best ? "  <- optimal (eq. 11)" :
		 q->cores == r->opt.n_95 ? "  <- 95% of the best S" : "");
	return buf;
}

/* The run: program, trace, machine, baseline, m, wall time, sources. */
static void table_run(FILE *out, const struct pma_result *r)
{
	char cmd[512];

	command_string(&r->t->meta, cmd, sizeof(cmd));
	fprintf(out, "%-13s%s\n", "program", cmd);
	fprintf(out, "%-13s%s\n", "trace", r->t->path);
	machine_line(out, &r->t->meta);
	fprintf(out, "%-13srun %u on CPUs %s (%u): %s\n", "baseline", r->run->run_id,
		r->run->cpus[0] ? r->run->cpus : "?", r->par.baseline_cores, r->par.baseline_case);
	fprintf(out, "%-13s%.0f threads (%s)\n", "m", r->par.m, r->par.m_source);
	fprintf(out, "%-13s%.3f s, %llu samples every %.2f ms (measured mean %.2f ms)\n", "wall time",
		r->par.wall_s, (unsigned long long)r->run->st.samples, r->par.interval_ms,
		r->run->st.mean_interval_ns / 1e6);
	print_sources(out, &r->t->meta);
}

/* A(m,inf) by every estimator, T_cp, T(1), D(m), idle time. */
static void table_parallelism(FILE *out, const struct pma_result *r)
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
	fprintf(out, "%-13s%.3f s\n", "T_cp", p->T_cp_ns / 1e9);
	fprintf(out, "%-13s%.3f s  (total CPU time of the program)\n", "T(1)", r->par.T1_s);
	fprintf(out, "%-13s%.2f threads  (m - A(m,inf), eq. 2)\n", "D(m)", p->D);
	if (prof->idle_ns > 0)
		fprintf(out, "%-13s%.3f s with no runnable thread (kept as is in T(n))\n", "idle",
			prof->idle_ns / 1e9);
}

/* The concurrency histogram: share of T_cp by active threads, as bars. */
static void table_concurrency(FILE *out, const struct pma_result *r)
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

/* The predictions per core count and the optimal core count (eq. 11). */
static void table_predictions(FILE *out, const struct pma_result *r)
{
	fprintf(out, "\npredictions (%s; omega from %s; S = A(m,n) / (1 + omega), eq. 1; placement %s, "
		"memory %s)\n", r->par.est == PMA_EST_SCHED ? "T(n) from replaying the scheduler events on n cores"
						 : "A(m,n) from the profile, eq. 6",
		r->mem.cal.source, r->mem.placement, pma_mem_policy_name(r->mem.pol));
	fprintf(out, "  %6s %8s %7s %6s %8s %8s %10s %7s  %s\n", "cores", "A(m,n)", "omega", "xsock",
		"S", "±S", "T (s)", "R", "per socket");
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
		fprintf(out, "  %6s %s%s\n", n, row, j == i ? "" : "  (saturated)");
	}
	if (r->opt.n_best) {
		fprintf(out, "optimal      %u core%s (S = %.2f); 95%% of it from %u core%s; S increases over",
			r->opt.n_best, r->opt.n_best == 1 ? "" : "s", r->opt.S_best, r->opt.n_95,
			r->opt.n_95 == 1 ? "" : "s");
		for (size_t j = 0; j < r->opt.nintervals; j++)
			fprintf(out, " [%u, %u]", r->opt.interval[j][0], r->opt.interval[j][1]);
		fprintf(out, "%s\n", r->opt.nintervals ? "" : " no interval");
	}
}

/* The verdict of a fit in the paper's words (Iwainsky et al. §4). */
static const char *fit_verdict(const struct pma_pmnf_fit *f)
{
	if (!f->valid)
		return "not valid (adjusted R2 < 0.95)";
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

/* The scaling study of a --sweep trace: measured vs predicted per configuration, the mean
 * |error|, and the PMNF fit of each metric with its verdict. */
static void table_scaling(FILE *out, const struct pma_result *r)
{
	const struct pma_scaling *sc = &r->scaling;
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32];

	if (!sc->present)
		return;
	fmt_num(a, sizeof(a), 3, sc->T1_s, " s");
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
		fmt_num(a, sizeof(a), 2, w->S_meas, "");
		fmt_num(b, sizeof(b), 2, w->S_pred, "");
		fmt_num(c, sizeof(c), 2, w->S_pred_err, "");
		fmt_num(d, sizeof(d), 3, w->T_pred_s, "");
		fmt_num(e, sizeof(e), 1, w->err_pct, "%");
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
	fputc('\n', out);
	fprintf(out, "  %-9s %-8s %-34s %-14s %7s %7s  %s\n", "metric", "unit", "model", "growth",
		"adj R2", "SMAPE", "verdict");
	for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++) {
		const struct pma_scaling_fit *ft = &sc->fits[k];
		char model[96];
		if (!ft->fitted) {
			fprintf(out, "  %-9s %-8s not fitted: %s\n", pma_scaling_metric_name(k),
				pma_scaling_metric_unit(k), ft->why);
			continue;
		}
		fit_formula(model, sizeof(model), ft);
		fprintf(out, "  %-9s %-8s %-34s %-14s %7.3f %6.1f%%  %s%s\n", pma_scaling_metric_name(k),
			pma_scaling_metric_unit(k), model, ft->growth, ft->fit.R2_adj, ft->fit.SMAPE,
			fit_verdict(&ft->fit), ft->fit.few_points ? "; fewer than 5 points" : "");
	}
}

/* The table: one function per section, in order; a new section adds one call. */
static void print_table(FILE *out, const struct pma_result *r)
{
	char text[1024];

	table_run(out, r);
	fputc('\n', out);
	table_parallelism(out, r);
	table_concurrency(out, r);
	print_memory(out, r);
	table_predictions(out, r);
	table_scaling(out, r);
	for (size_t i = 0; i < r->notes.n; i++)
		fprintf(out, "\nnote: %s\n", pma_note_text(&r->notes.v[i], text, sizeof(text)));
}

/* ---- JSON ---- */

static cJSON *trace_json(const struct pma_trace *t, const struct pma_run *run)
{
	cJSON *o = cJSON_CreateObject(), *cmd, *w;
	char text[1024];

	cJSON_AddStringToObject(o, "path", t->path);
	cmd = cJSON_AddArrayToObject(o, "command");
	for (size_t i = 0; i < t->meta.ncommand; i++)
		cJSON_AddItemToArray(cmd, t->meta.command[i] ? cJSON_CreateString(t->meta.command[i]) :
				     cJSON_CreateNull());
	if (run)
		cJSON_AddNumberToObject(o, "wall_s", pma_run_wall_s(run));
	cJSON_AddNumberToObject(o, "samples", (double)t->samples);
	cJSON_AddNumberToObject(o, "thread_samples", (double)t->thread_samples);
	cJSON_AddNumberToObject(o, "runs", t->nruns);
	/* the recorded object as is: its fields are per source (docs/pmanalyze-json.md) */
	cJSON_AddItemToObject(o, "sources", t->meta.sources_json ? cJSON_Parse(t->meta.sources_json) :
			      cJSON_CreateObject());
	w = cJSON_AddArrayToObject(o, "warnings");
	for (size_t i = 0; i < t->warnings.n; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(pma_note_text(&t->warnings.v[i], text,
									 sizeof(text))));
	cJSON_AddBoolToObject(o, "truncated", t->rst.truncated || (run && !run->info.has_end));
	return o;
}

/* key: v, or null when v is not finite (unknown or saturated) */
static void add_finite(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* "memory": source, model, params, points (docs/pmanalyze-json.md) */
static cJSON *memory_json(const struct pma_result *r, const struct pma_trace *traces)
{
	const struct pma_mem_eval *e = &r->mem;
	const struct pma_mem_params *p = &e->cal.params;
	cJSON *m = cJSON_CreateObject(), *par, *pts;

	cJSON_AddStringToObject(m, "source", p->model == PMA_MEM_NONE ? "none" : e->cal.source);
	cJSON_AddStringToObject(m, "model", pma_mem_model_name(p->model));
	cJSON_AddStringToObject(m, "placement", e->placement);
	cJSON_AddStringToObject(m, "policy", pma_mem_policy_name(e->pol));
	cJSON_AddStringToObject(m, "policy_source", e->pol_source);
	cJSON_AddStringToObject(m, "machine", e->target.source);
	par = cJSON_AddObjectToObject(m, "params");
	if (p->model != PMA_MEM_NONE) {
		add_finite(par, "C1", p->C1);
		add_finite(par, "mu", p->mu);
		add_finite(par, "L", p->L);
		add_finite(par, "r", p->r);
		cJSON_AddBoolToObject(par, "per_miss", !isfinite(p->r));
		add_finite(par, "n_saturation", p->n_sat);
		add_finite(par, "delta_C", p->dC);
		add_finite(par, "r_delta", p->r_delta);
		cJSON_AddNumberToObject(par, "cores_per_socket", p->c);
	}
	pts = cJSON_AddArrayToObject(m, "points");
	for (size_t i = 0; i < e->cal.npts; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", e->cal.pts[i].cores);
		cJSON_AddNumberToObject(o, "run_id", e->cal.run_id[i]);
		cJSON_AddStringToObject(o, "trace", traces[e->cal.trace[i]].path);
		cJSON_AddNumberToObject(o, "C", e->cal.pts[i].C);
		if (p->model != PMA_MEM_NONE) {
			add_finite(o, "omega_measured", e->cal.omega_meas[i]);
			add_finite(o, "omega_model", e->cal.omega_model[i]);
			add_finite(o, "residual", e->cal.omega_model[i] - e->cal.omega_meas[i]);
		}
		cJSON_AddItemToArray(pts, o);
	}
	if (p->model == PMA_MEM_NONE) {
		const struct pma_note *why = pma_notes_find(&e->notes, PMA_NOTE_OMEGA_UNKNOWN);
		char buf[1024] = "";
		cJSON_AddStringToObject(m, "unknown_because", why ? pma_note_text(why, buf, sizeof(buf)) : "");
	}
	return m;
}

/* "parallelism": the analyzed run and every estimator's A(m,inf), T_cp, D */
static void parallelism_json(cJSON *par, const struct pma_result *r)
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
	cJSON_AddNumberToObject(par, "baseline_cores", r->par.baseline_cores);
	cJSON_AddStringToObject(par, "baseline_cpus", r->run->cpus);
	cJSON_AddStringToObject(par, "baseline_case", r->par.baseline_case);
	cJSON_AddNumberToObject(par, "interval_ms", r->par.interval_ms);
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
static void concurrency_json(cJSON *hist, const struct pma_result *r)
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

/* "optimal_cores" and "optimal" (eq. 11) */
static void optimal_json(cJSON *root, const struct pma_result *r)
{
	cJSON *op, *iv;

	if (r->opt.n_best)
		cJSON_AddNumberToObject(root, "optimal_cores", r->opt.n_best);
	else
		cJSON_AddNullToObject(root, "optimal_cores");
	op = cJSON_AddObjectToObject(root, "optimal");
	cJSON_AddNumberToObject(op, "S", r->opt.S_best);
	cJSON_AddNumberToObject(op, "cores_95", r->opt.n_95);
	iv = cJSON_AddArrayToObject(op, "increasing");
	for (size_t j = 0; j < r->opt.nintervals; j++) {
		cJSON *pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateNumber(r->opt.interval[j][0]));
		cJSON_AddItemToArray(pair, cJSON_CreateNumber(r->opt.interval[j][1]));
		cJSON_AddItemToArray(iv, pair);
	}
}

/* "predictions": one object per core count */
static void predictions_json(cJSON *preds, const struct pma_result *r)
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
		cJSON_AddBoolToObject(o, "saturated", isinf(q->omega));
		add_finite(o, "S", q->S);
		cJSON_AddNumberToObject(o, "S_err", r->pred.S_err[i]);
		add_finite(o, "T_s", q->T_ns / 1e9);
		add_finite(o, "R", q->R);
		if (r->par.est != PMA_EST_SCHED && r->par.have[PMA_EST_SCHED])
			cJSON_AddNumberToObject(o, "A_sched_exact", r->pred.by_est[PMA_EST_SCHED][i].A);
		else if (r->par.est == PMA_EST_SCHED)
			cJSON_AddNumberToObject(o, "A_sampled", r->pred.by_est[PMA_EST_RUNNABLE][i].A);
		cJSON_AddItemToArray(preds, o);
	}
}

/* "scaling": the sweep's configurations and fits (docs/pmanalyze-json.md); absent without sweep */
static void scaling_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_scaling *sc = &r->scaling;
	cJSON *o, *rows, *fits;

	if (!sc->present)
		return;
	o = cJSON_AddObjectToObject(root, "scaling");
	cJSON_AddStringToObject(o, "parameter", sc->parameter);
	add_finite(o, "fit_at_cores", sc->fit_other);
	add_finite(o, "T1_s", sc->T1_s);
	cJSON_AddNumberToObject(o, "T1_runs", (double)sc->T1_runs);
	add_finite(o, "m", sc->m);
	add_finite(o, "mean_abs_error_pct", sc->mean_abs_err_pct);
	cJSON_AddNumberToObject(o, "predicted_configurations", (double)sc->npred);
	cJSON_AddNumberToObject(o, "unfinished_runs", (double)sc->unfinished);
	rows = cJSON_AddArrayToObject(o, "configurations");
	for (size_t i = 0; i < sc->nrows; i++) {
		const struct pma_scaling_row *w = &sc->rows[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddNumberToObject(j, "config", w->config);
		cJSON_AddNumberToObject(j, "cores", w->cores);
		add_finite(j, "threads", w->threads ? (double)w->threads : NAN);
		cJSON_AddNumberToObject(j, "reps", (double)w->nreps);
		cJSON_AddNumberToObject(j, "T_median_s", w->T_med_s);
		cJSON_AddNumberToObject(j, "T_min_s", w->T_min_s);
		cJSON_AddNumberToObject(j, "T_max_s", w->T_max_s);
		add_finite(j, "S_measured", w->S_meas);
		add_finite(j, "S_predicted", w->S_pred);
		add_finite(j, "S_predicted_err", w->S_pred_err);
		add_finite(j, "T_predicted_s", w->T_pred_s);
		add_finite(j, "omega", w->omega);
		add_finite(j, "error_pct", w->err_pct);
		cJSON_AddBoolToObject(j, "fitted", w->in_fit);
		cJSON_AddItemToArray(rows, j);
	}
	fits = cJSON_AddArrayToObject(o, "fits");
	for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++) {
		const struct pma_scaling_fit *ft = &sc->fits[k];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "metric", pma_scaling_metric_name(k));
		cJSON_AddStringToObject(j, "unit", pma_scaling_metric_unit(k));
		cJSON_AddBoolToObject(j, "fitted", ft->fitted);
		if (!ft->fitted) {
			cJSON_AddStringToObject(j, "why", ft->why);
		} else {
			cJSON_AddNumberToObject(j, "c0", ft->fit.model.c0);
			cJSON_AddNumberToObject(j, "c1", ft->fit.model.c1);
			cJSON_AddNumberToObject(j, "i", pma_pmnf_exponent(&ft->fit.model));
			cJSON_AddNumberToObject(j, "j", ft->fit.model.j);
			cJSON_AddStringToObject(j, "growth", ft->growth);
			add_finite(j, "R2_adj", ft->fit.R2_adj);
			add_finite(j, "SMAPE_pct", ft->fit.SMAPE);
			cJSON_AddNumberToObject(j, "points", (double)ft->fit.n);
			cJSON_AddBoolToObject(j, "few_points", ft->fit.few_points);
			cJSON_AddBoolToObject(j, "valid", ft->fit.valid);
			cJSON_AddBoolToObject(j, "scalability_problem", ft->fit.scalability_problem);
		}
		cJSON_AddItemToArray(fits, j);
	}
}

static void print_json(FILE *out, const struct pma_result *r, const struct pma_trace *traces, int ntraces)
{
	cJSON *root = cJSON_CreateObject(), *tr, *notes;
	char buf[1024];
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze/1");
	parallelism_json(cJSON_AddObjectToObject(root, "parallelism"), r);
	concurrency_json(cJSON_AddArrayToObject(root, "concurrency"), r);
	cJSON_AddItemToObject(root, "memory", memory_json(r, traces));
	optimal_json(root, r);
	predictions_json(cJSON_AddArrayToObject(root, "predictions"), r);
	scaling_json(root, r);
	tr = cJSON_AddArrayToObject(root, "traces");
	for (int i = 0; i < ntraces; i++)
		cJSON_AddItemToArray(tr, trace_json(&traces[i], i == 0 ? r->run : pma_trace_baseline(&traces[i])));
	notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < r->notes.n; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(pma_note_text(&r->notes.v[i], buf,
									     sizeof(buf))));
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

/* A --sweep trace: after a blank line, the measured-vs-predicted table (one row per
 * configuration), then after another the fits (one row per metric). */
static void print_csv_scaling(FILE *out, const struct pma_result *r)
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
		"scalability_problem,mean_abs_error_pct\n");
	for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++) {
		const struct pma_scaling_fit *ft = &sc->fits[k];
		if (!ft->fitted)
			continue;
		fprintf(out, "%s,%s,%.6g,%.6g,%.4g,%u,%s,%.6g,%.6g,%zu,%d,%d,%.6g\n",
			pma_scaling_metric_name(k), sc->parameter, ft->fit.model.c0, ft->fit.model.c1,
			pma_pmnf_exponent(&ft->fit.model), ft->fit.model.j, ft->growth, ft->fit.R2_adj,
			ft->fit.SMAPE, ft->fit.n, ft->fit.valid, ft->fit.scalability_problem,
			sc->mean_abs_err_pct);
	}
}

static void print_csv(FILE *out, const struct pma_result *r)
{
	fputs("cores,A,omega,omega_source,S,S_err,T_s,R,estimator,cross_socket\n", out);
	for (size_t i = 0; i < r->pred.ncores; i++) {
		const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
		fprintf(out, "%u,%.6g,%.6g,%s,%.6g,%.6g,%.6g,%.6g,%s,%.6g\n", q->cores, q->A, q->omega,
			isfinite(q->omega) ? r->mem.cal.source : "none", q->S, r->pred.S_err[i], q->T_ns / 1e9,
			q->R, pma_estimator_name(r->par.est), r->mem.cross[i]);
	}
	print_csv_scaling(out, r);
}

int pma_render(FILE *out, const struct pma_result *r, enum pma_format format)
{
	switch (format) {
	case PMA_FMT_JSON:
		print_json(out, r, r->traces, r->ntraces);
		break;
	case PMA_FMT_CSV:
		print_csv(out, r);
		break;
	default:
		print_table(out, r);
		break;
	}
	return ferror(out) ? -1 : 0;
}

/* ---- --info ---- */

void pma_info(FILE *out, const struct pma_trace *t)
{
	const struct pma_meta *meta = &t->meta;
	char cmd[512], buf[1024];
	const char *s;

	command_string(meta, cmd, sizeof(cmd));
	fprintf(out, "%-13s%s (pmtrace %u.%u, %llu chunks, %llu bytes)\n", "trace", t->path, t->major,
		t->minor, (unsigned long long)t->rst.chunks, (unsigned long long)t->rst.bytes_read);
	fprintf(out, "%-13s%s\n", "command", cmd);
	s = meta->cwd ? meta->cwd : "?";
	fprintf(out, "%-13s%s\n", "cwd", pmt_cli_sanitize(buf, 256, s, strlen(s)));
	fprintf(out, "%-13s%s by %s %s\n", "recorded", meta->start_utc ? meta->start_utc : "?",
		meta->tool ? meta->tool : "?", meta->tool_version ? meta->tool_version : "?");
	machine_line(out, meta);
	fprintf(out, "%-13s%.2f ms; program CPUs %s; collector CPU %.0f\n", "interval",
		meta->interval_ms, meta->cpus ? meta->cpus : "all", meta->collector_cpu);
	fprintf(out, "%-13s", "environment");
	if (!meta->nenv)
		fputs("(no OMP_/GOMP_/KMP_ variables)", out);
	for (size_t i = 0; i < meta->nenv; i++) {
		pmt_cli_sanitize(buf, 256, meta->env[i].value, strlen(meta->env[i].value));
		fprintf(out, "%s=%s ", meta->env[i].name, buf);
	}
	fputc('\n', out);
	fprintf(out, "%-13s%u\n", "runs", t->nruns);
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		const struct pma_run_info *ri = &r->info;
		double status = ri->exit_kind == PMA_EXIT_SIGNALED ? ri->exit_signal : ri->exit_code;
		fprintf(out, "  run %u: CPUs %s, %.3f s, %llu samples, %llu thread-samples, peak %u threads, "
			"%llu threads seen, exit %s %.0f\n", r->run_id, r->cpus[0] ? r->cpus : "?",
			pma_run_wall_s(r), (unsigned long long)r->st.samples,
			(unsigned long long)r->st.thread_samples, r->st.m_peak,
			(unsigned long long)r->st.threads_seen,
			ri->exit_kind_name ? ri->exit_kind_name : "unknown", isnan(status) ? 0 : status);
		if (r->has_exact)
			fprintf(out, "         scheduler events: %llu (%llu lost, %u gaps), %u threads, "
				"%llu wake edges\n", (unsigned long long)r->xst.events,
				(unsigned long long)r->xst.lost, r->xst.gaps, r->xst.threads,
				(unsigned long long)r->xst.wake_edges);
	}
	fprintf(out, "%-13s%llu (%llu thread-samples), %llu task events, %llu counter snapshots\n",
		"samples", (unsigned long long)t->samples, (unsigned long long)t->thread_samples,
		(unsigned long long)t->task_events, (unsigned long long)t->counter_records);
	print_sources(out, meta);
	if (t->summary.present) {
		fprintf(out, "%-13s%.0f samples, %.0f late, %.0f lost, collector CPU %.3f s\n", "summary",
			t->summary.samples, t->summary.late_samples, t->summary.lost_samples,
			t->summary.collector_cpu_ns / 1e9);
	} else {
		fprintf(out, "%-13snone (the collector did not finish)\n", "summary");
	}
	fprintf(out, "%-13s%s\n", "warnings", t->warnings.n ? "" : "none");
	for (size_t i = 0; i < t->warnings.n; i++) {
		char text[1024];
		pma_note_text(&t->warnings.v[i], text, sizeof(text));
		pmt_cli_sanitize(buf, 256, text, strlen(text));
		fprintf(out, "  %s\n", buf);
	}
}
