/* SPDX-License-Identifier: MIT */
/* report.c: renders a computed result (compute.h) as a table, JSON (schema pmanalyze/1) or CSV,
 * and the --info view of a trace. Renders only: every number comes from struct pma_result. */
#include "report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"
#include "pm_cli.h"
#include "result/mpitime.h"

#define MIB (1024.0 * 1024.0) /* the calibration's MB */

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
	pm_cli_sanitize(buf, size, raw, o);
}

/* Note x as a JSON string, whole (never truncated). */
static cJSON *note_string(const struct pma_note *x)
{
	char *text = pma_note_alloc(x);
	cJSON *j = cJSON_CreateString(text ? text : "out of memory");

	free(text);
	return j;
}

/* Note x as a JSON object for scripts (docs/pmanalyze-json.md): {"code", "severity", "text", "numbers",
 * "strings"}: its stable code name, "info" or "warning", the whole text, and the values it was
 * made with in the order notes/notes.h lists them for its code (a NaN or infinite number as
 * null, an absent string as null). */
static cJSON *note_object(const struct pma_note *x)
{
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "code", pma_note_code_name(x->code));
	cJSON_AddStringToObject(o, "severity", pma_note_severity_name(pma_note_severity_of(x->code)));
	cJSON_AddItemToObject(o, "text", note_string(x));
	a = cJSON_AddArrayToObject(o, "numbers");
	for (size_t i = 0; i < x->nn; i++)
		cJSON_AddItemToArray(a, isfinite(x->n[i]) ? cJSON_CreateNumber(x->n[i]) : cJSON_CreateNull());
	a = cJSON_AddArrayToObject(o, "strings");
	for (size_t i = 0; i < x->ns; i++)
		cJSON_AddItemToArray(a, x->s[i] ? cJSON_CreateString(x->s[i]) : cJSON_CreateNull());
	return o;
}

/* The notes of l under key (their texts: pmanalyze/1 as it was) and under key_coded (the
 * objects of note_object). */
static void notes_json(cJSON *root, const char *key, const char *key_coded, const struct pma_notes *l)
{
	cJSON *t = cJSON_AddArrayToObject(root, key), *c = cJSON_AddArrayToObject(root, key_coded);

	for (size_t i = 0; i < l->n; i++) {
		cJSON_AddItemToArray(t, note_string(&l->v[i]));
		cJSON_AddItemToArray(c, note_object(&l->v[i]));
	}
}

/* "note: <text>" lines of a list, whole. */
static void print_notes(FILE *out, const struct pma_notes *l, const char *prefix)
{
	for (size_t i = 0; i < l->n; i++) {
		char *text = pma_note_alloc(&l->v[i]);
		fprintf(out, "%s%s\n", prefix, text ? text : "out of memory");
		free(text);
	}
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
			pm_cli_sanitize(clean, sizeof(clean), reason, strlen(reason));
			fprintf(out, "%-13s%s: not recorded: %s\n", "", meta->sources[i].name, clean);
		}
	}
}

static void machine_line(FILE *out, const struct pma_meta *meta)
{
	const struct pma_topology *topo = &meta->topo;
	const char *host = meta->hostname, *rel = meta->kernel_release;
	char h[128], k[128];

	pm_cli_sanitize(h, sizeof(h), host ? host : "?", strlen(host ? host : "?"));
	pm_cli_sanitize(k, sizeof(k), rel ? rel : "?", strlen(rel ? rel : "?"));
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

/* A number, or "-" when it is not given (not finite: past saturation). */
static void fmt_given(char *buf, size_t size, int prec, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%.*f", prec, v);
	else
		snprintf(buf, size, "-");
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
	fprintf(out, "\n%-13s%6s %6s %12s %14s %14s %9s\n", "", "run", "cores", "C(n)", "omega meas.",
		"omega model", "residual");
	for (size_t i = 0; i < e->cal.npts; i++) {
		/* a point past the fit's saturation has no model omega ("sat"), so no residual */
		char wm[16], res[16];
		double d = e->cal.omega_model[i] - e->cal.omega_meas[i];
		fmt_num(wm, sizeof(wm), 3, e->cal.omega_model[i], "");
		if (isfinite(d))
			snprintf(res, sizeof(res), "%+.3f", d);
		else
			snprintf(res, sizeof(res), "-");
		fprintf(out, "%-13s%6u %6u %12.4g %14.3f %14s %9s\n", "", e->cal.run_id[i],
			e->cal.pts[i].cores, e->cal.pts[i].C, e->cal.omega_meas[i], wm, res);
	}
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
	char w[16], x[16], S[32], dS[32], T[32], R[32];

	fmt_num(w, sizeof(w), 2, q->omega, "");
	fmt_num(x, sizeof(x), 0, q->omega > 0 && isfinite(q->omega) ? 100 * r->mem.cross[i] / q->omega :
		r->mem.cross[i] == 0 ? 0 : NAN, "%");
	/* saturated (omega "sat"): S, its uncertainty, T and R are not given */
	fmt_given(S, sizeof(S), 2, q->S);
	fmt_given(dS, sizeof(dS), 2, r->pred.S_err[i]);
	fmt_given(T, sizeof(T), 3, q->T_ns / 1e9);
	fmt_given(R, sizeof(R), 2, q->R);
	snprintf(buf, size, "%8.2f %7s %6s %8s %8s %10s %7s  %s%s", q->A, w, x, S, dS, T, R,
		 r->mem.per_socket[i],
		 q->cores == r->opt.n_best ? "  <- optimal (eq. 11)" :
		 q->cores == r->opt.n_95 ? "  <- 95% of the best S" :
		 r->mem.busy[i] < q->cores ? "  = S(m): m threads, the other cores idle" : "");
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
	print_sources(out, &r->t->meta);
	if (r->par.est == PMA_EST_SCHED)
		pma_wakecost_line(out, &r->wake);
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
	if (r->par.have[PMA_EST_SWITCH])
		pma_pswitch_describe(out, &r->run->pst);
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
		fprintf(out, "  %6s %s%s\n", n, row, j == i || r->mem.busy[i] < r->pred.cores[i] ? "" :
			"  (saturated)");
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

/* "{3,3}": the per-socket thread counts of configuration c of plan p. */
static void aff_text(const struct pma_allande_plan *p, size_t c, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t s = 0; s < p->NS && o < size; s++)
		o += (size_t)snprintf(buf + o, size - o, "%s%u", s ? "," : "{", p->aff[c * p->NS + s]);
	if (o < size)
		snprintf(buf + o, size - o, "}");
}

static uint32_t aff_threads(const struct pma_allande_plan *p, size_t c)
{
	uint32_t nt = 0;

	for (uint32_t s = 0; s < p->NS; s++)
		nt += p->aff[c * p->NS + s];
	return nt;
}

/* How the rows' A and T_cp were found (regions.h method). */
static const char *regions_method_text(const struct pma_regions_result *g)
{
	if (!g->have_A)
		return "A and T_cp need scheduler events (pmcollect --sched) or samples";
	if (!strcmp(g->method, "samples"))
		return g->phases ? "boundaries, A and T_cp from the samples (runnable estimator; "
				   "boundaries within one sampling interval)" :
				   "A and T_cp from the samples inside each region's windows (runnable "
				   "estimator, prorated: approximate for regions shorter than the "
				   "sampling interval)";
	return g->phases ? "boundaries, A and T_cp from the scheduler events" :
			   "A and T_cp from the scheduler events inside each region's windows";
}

/* The regions' per-thread counter sums (pmcollect --omp-events), one line per region; or why
 * there are none. */
static void table_region_counters(FILE *out, const struct pma_regions_result *g)
{
	char name[1400];

	if (!g->nevents) {
		if (g->counters_reason)
			fprintf(out, "  per-thread counters: none (%s)\n", g->counters_reason);
		return;
	}
	fprintf(out, "  per-thread counters, summed over each region's implicit tasks (%llu task records",
		(unsigned long long)g->counter_tasks);
	if (g->counter_unmatched)
		fprintf(out, ", %llu naming no recorded region", (unsigned long long)g->counter_unmatched);
	fprintf(out, "):\n  %-36s", "region");
	for (size_t e = 0; e < g->nevents; e++)
		fprintf(out, " %22.22s", g->events[e]);
	fputc('\n', out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		pma_region_name(w, name, sizeof(name));
		fprintf(out, "  %-36.36s", name);
		for (size_t e = 0; e < g->nevents; e++)
			if (w->counter_tasks)
				fprintf(out, " %22.0f", w->counters[e]);
			else
				fprintf(out, " %22s", "-");
		fputc('\n', out);
	}
}

/* The OpenMP regions of a --omp-regions trace (regions.h), by potential gain; or the phases of
 * the fallback (no region recorded, or --phases). */
static void table_regions(FILE *out, const struct pma_result *r)
{
	const struct pma_regions_result *g = &r->regions;
	char name[1400], a[32], b[32];

	if (!g->present && !g->phases)
		return;
	if (g->present && !g->recorded)
		fprintf(out, "\nOpenMP regions: none recorded: %s\n", g->reason ? g->reason : "no OpenMP runtime answered");
	if (g->phases) {
		fprintf(out, "\nPhases of run %u (%s): %zu phase%s with >= 2 active threads, cut at serial "
			"gaps over %.1f ms; %s\n", g->run_id, g->present && !g->instances ?
			"no OpenMP region recorded" : "--phases", g->nrows, g->nrows == 1 ? "" : "s",
			(double)g->gap_ns / 1e6, regions_method_text(g));
		fprintf(out, "  %-10s %9s %9s %10s %6s %6s %9s %6s %9s %9s\n", "phase", "begin s", "end s",
			"time ms", "share", "A", "T_cp ms", "cp", "T(n) ms", "gain ms");
	} else if (!g->recorded) {
		return;
	} else {
		fprintf(out, "\nOpenMP regions of run %u: %llu instances, %zu regions; %s\n", g->run_id,
			(unsigned long long)g->instances, g->nrows, regions_method_text(g));
		fprintf(out, "  %-36s %5s %7s %10s %6s %6s %9s %6s %9s %9s\n", "region", "depth", "calls",
			"time ms", "share", "A", "T_cp ms", "cp", "T(n) ms", "gain ms");
	}
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		pma_region_name(w, name, sizeof(name));
		if (g->phases)
			fprintf(out, "  %-10s %9.3f %9.3f %10.2f %5.1f%%", name, w->begin_ns / 1e9,
				w->end_ns / 1e9, w->time_ns / 1e6, 100 * w->share);
		else
			fprintf(out, "  %-36.36s%c%5u %7llu %10.2f %5.1f%%", name, w->open ? '*' : ' ',
				w->depth, (unsigned long long)w->calls, w->time_ns / 1e6, 100 * w->share);
		if (w->have_A)
			fprintf(out, " %6.2f %9.2f %5.1f%% %9.2f %9.2f\n", w->A, w->T_cp_ns / 1e6,
				100 * w->cp_share, w->T_n_ns / 1e6, w->gain_ns / 1e6);
		else
			fprintf(out, " %6s %9s %6s %9s %9s\n", "-", "-", "-", "-", "-");
	}
	if (g->open)
		fprintf(out, "  * %llu instance%s never ended (the program was killed inside): counted up "
			"to the run's end\n", (unsigned long long)g->open, g->open == 1 ? "" : "s");
	if (g->have_A)
		fprintf(out, "  (n = %u cores; gain: T(n) - U/n, the time saved if the region scaled "
			"ideally)\n", g->n);
	if (!g->phases)
		table_region_counters(out, g);
	if (!g->allande) {
		if (g->allande_why[0])
			fprintf(out, "  best thread count per region: not computed: %s\n", g->allande_why);
		return;
	}
	fprintf(out, "\nBest configuration per region (Allande et al. eq. 2-9; runs with 1..%u threads, "
		"%u socket%s; ", g->NC, g->NS, g->NS == 1 ? "" : "s");
	if (g->time_only)
		fprintf(out, "time only: %s)\n", g->tcm_why[0] ? g->tcm_why : "no LLC counters");
	else
		fprintf(out, "TCM: %s per region)\n", g->tcm_name);
	fprintf(out, "  %-36s %9s %9s %-12s %9s %-12s %9s\n", "region", "T(1) ms", "T(NC) ms",
		"best MAX", "est ms", "best SUM", "est ms");
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		const struct pma_allande_factors *f;
		size_t bm, bs;
		if (w->allande < 0)
			continue;
		f = &g->factors[w->allande];
		bm = g->plan[PMA_ALLANDE_MAX].best[w->allande];
		bs = g->plan[PMA_ALLANDE_SUM].best[w->allande];
		pma_region_name(w, name, sizeof(name));
		aff_text(&g->plan[PMA_ALLANDE_MAX], bm, a, sizeof(a));
		aff_text(&g->plan[PMA_ALLANDE_SUM], bs, b, sizeof(b));
		fprintf(out, "  %-36.36s %9.2f %9.2f %-12s %9.2f %-12s %9.2f\n", name, f->T_ns[1] / 1e6,
			f->T_ns[g->NC] / 1e6, a, g->plan[PMA_ALLANDE_MAX].estTime_ns[(size_t)w->allande *
			g->plan[PMA_ALLANDE_MAX].nconf + bm] / 1e6, b,
			g->plan[PMA_ALLANDE_SUM].estTime_ns[(size_t)w->allande * g->plan[PMA_ALLANDE_SUM].nconf + bs] / 1e6);
	}
	for (int k = PMA_ALLANDE_SUM; k <= PMA_ALLANDE_MAX; k++) {
		const struct pma_allande_plan *p = &g->plan[k];
		uint32_t nt = aff_threads(p, p->best_single);
		aff_text(p, p->best_single, a, sizeof(a));
		fprintf(out, "  %s: best single setting %s (%u thread%s) %.2f ms; per region %.2f ms; "
			"gain %.2f ms\n", k == PMA_ALLANDE_MAX ? "MAX" : "SUM", a, nt, nt == 1 ? "" : "s",
			p->single_total_ns / 1e6, p->per_region_total_ns / 1e6, p->gain_ns / 1e6);
	}
}

/* Energy (docs/energy.md §2): the power model, E(n) and EDP(n) per core count, the energy-optimal n
 * beside eq. 11's, and the trust in the readings; or why there is none. */
static void table_energy(FILE *out, const struct pma_result *r)
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

/* The verdict of a fit in the paper's words (Iwainsky et al. §4). */
static const char *fit_verdict(const struct pma_pmnf_fit *f)
{
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
	char model[96];

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
		ft->growth, ft->fit.R2_adj, ft->fit.SMAPE, fit_verdict(&ft->fit),
		ft->fit.few_points ? "; fewer than 5 points" : "");
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

/* The table: one function per section, in order; a new section adds one call. */
static void print_table(FILE *out, const struct pma_result *r)
{
	table_run(out, r);
	fputc('\n', out);
	table_parallelism(out, r);
	table_concurrency(out, r);
	print_memory(out, r);
	table_predictions(out, r);
	table_regions(out, r);
	table_energy(out, r);
	table_scaling(out, r);
	print_notes(out, &r->notes, "\nnote: ");
}

/* ---- JSON ---- */

static cJSON *trace_json(const struct pma_trace *t, const struct pma_run *run)
{
	cJSON *o = cJSON_CreateObject(), *cmd;

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
	/* the recorded object, its fields per source (docs/pmanalyze-json.md); a source that recorded
	 * nothing after all says so (pma_meta_source_unrecorded) */
	cJSON_AddItemToObject(o, "sources", t->meta.sources_json ? cJSON_Parse(t->meta.sources_json) :
			      cJSON_CreateObject());
	notes_json(o, "warnings", "coded_warnings", &t->warnings);
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
	machine_json(cJSON_AddObjectToObject(m, "recording_machine"), &e->rec);
	machine_json(cJSON_AddObjectToObject(m, "target_machine"), &e->target);
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
		cJSON_AddItemToObject(m, "unknown_because", why ? note_string(why) :
				      cJSON_CreateString(""));
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
		cJSON_AddNumberToObject(o, "busy_cores", r->mem.busy[i]);
		cJSON_AddBoolToObject(o, "saturated", isinf(q->omega));
		add_finite(o, "S", q->S);
		cJSON_AddNumberToObject(o, "S_err", r->pred.S_err[i]);
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

/* One Allande configuration as {"threads", "aff", "est_ns"}. */
static cJSON *aff_json(const struct pma_allande_plan *p, size_t region, size_t c)
{
	cJSON *o = cJSON_CreateObject(), *aff;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "threads", aff_threads(p, c));
	aff = cJSON_AddArrayToObject(o, "aff");
	for (uint32_t s = 0; aff && s < p->NS; s++)
		cJSON_AddItemToArray(aff, cJSON_CreateNumber(p->aff[c * p->NS + s]));
	if (region != (size_t)-1)
		cJSON_AddNumberToObject(o, "est_ns", p->estTime_ns[region * p->nconf + c]);
	return o;
}

/* "regions" (docs/pmanalyze-json.md): only in reports of --omp-regions traces. */
/* "regions.counters": docs/pmanalyze-json.md */
static void region_counters_json(cJSON *o, const struct pma_regions_result *g)
{
	cJSON *c = cJSON_AddObjectToObject(o, "counters"), *ev;

	if (!c)
		return;
	ev = cJSON_AddArrayToObject(c, "events");
	for (size_t e = 0; ev && e < g->nevents; e++)
		cJSON_AddItemToArray(ev, cJSON_CreateString(g->events[e]));
	cJSON_AddBoolToObject(c, "recorded", g->nevents > 0);
	if (!g->nevents)
		cJSON_AddStringToObject(c, "reason", g->counters_reason ? g->counters_reason :
					"recorded before format 1.3 (no per-thread counters)");
	cJSON_AddNumberToObject(c, "task_records", (double)g->counter_tasks);
	cJSON_AddNumberToObject(c, "unmatched_records", (double)g->counter_unmatched);
	if (g->tcm_event >= 0)
		cJSON_AddStringToObject(c, "tcm_event", g->events[g->tcm_event]);
	else
		cJSON_AddNullToObject(c, "tcm_event");
}

/* "regions.rows[].predictions": one object per core count of the top-level "predictions" ([]
 * without A) */
static void region_predictions_json(cJSON *a, const struct pma_region_row *w)
{
	for (size_t i = 0; a && i < w->npred; i++) {
		const struct pma_region_pred *q = &w->pred[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return;
		cJSON_AddNumberToObject(o, "cores", q->cores);
		add_finite(o, "A", q->A);
		add_finite(o, "S", q->S);
		add_finite(o, "T_ns", q->T_ns);
		add_finite(o, "gain_ns", q->gain_ns);
		cJSON_AddItemToArray(a, o);
	}
}

static void regions_json(cJSON *root, const struct pma_result *r)
{
	const struct pma_regions_result *g = &r->regions;
	cJSON *o, *rows, *al;
	char name[1400];

	if ((!g->present && !g->phases) || !(o = cJSON_AddObjectToObject(root, "regions")))
		return;
	cJSON_AddBoolToObject(o, "recorded", g->recorded);
	if (!g->recorded) {
		cJSON_AddStringToObject(o, "reason", !g->present ? "not recorded with --omp-regions" :
					g->reason ? g->reason : "no OpenMP runtime answered");
		if (!g->phases)
			return;
	}
	cJSON_AddStringToObject(o, "rows_are", g->phases ? "phases" : "regions");
	if (g->phases)
		cJSON_AddNumberToObject(o, "gap_ns", (double)g->gap_ns);
	cJSON_AddNumberToObject(o, "run_id", g->run_id);
	cJSON_AddNumberToObject(o, "instances", (double)g->instances);
	cJSON_AddNumberToObject(o, "unnamed_instances", (double)g->unnamed);
	cJSON_AddNumberToObject(o, "open_instances", (double)g->open);
	if (!g->phases)
		region_counters_json(o, g);
	cJSON_AddStringToObject(o, "A_source", g->have_A ? g->method : "none");
	cJSON_AddNumberToObject(o, "cores", g->n);
	cJSON_AddNumberToObject(o, "predictions_left_out", (double)g->pred_left_out);
	add_finite(o, "run_T_cp_ns", g->have_A ? g->run_T_cp_ns : NAN);
	rows = cJSON_AddArrayToObject(o, "rows");
	for (size_t i = 0; rows && i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		pma_region_name(w, name, sizeof(name));
		cJSON_AddStringToObject(e, "name", name);
		cJSON_AddStringToObject(e, "function", w->function);
		cJSON_AddStringToObject(e, "file", w->file);
		cJSON_AddNumberToObject(e, "line", w->line);
		cJSON_AddStringToObject(e, "symbol", w->symbol);
		cJSON_AddStringToObject(e, "object", w->object);
		cJSON_AddNumberToObject(e, "offset", (double)w->offset);
		cJSON_AddNumberToObject(e, "depth", w->depth);
		if (w->phase) {
			cJSON_AddNumberToObject(e, "phase", w->phase);
			cJSON_AddNumberToObject(e, "begin_ns", (double)w->begin_ns);
			cJSON_AddNumberToObject(e, "end_ns", (double)w->end_ns);
		}
		cJSON_AddNumberToObject(e, "calls", (double)w->calls);
		cJSON_AddNumberToObject(e, "open", (double)w->open);
		cJSON_AddNumberToObject(e, "time_ns", w->time_ns);
		cJSON_AddNumberToObject(e, "share", w->share);
		cJSON_AddNumberToObject(e, "mean_team", w->mean_team);
		add_finite(e, "A", w->have_A ? w->A : NAN);
		add_finite(e, "T_cp_ns", w->have_A ? w->T_cp_ns : NAN);
		add_finite(e, "work_ns", w->have_A ? w->work_ns : NAN);
		add_finite(e, "cp_share", w->have_A ? w->cp_share : NAN);
		add_finite(e, "T_n_ns", w->have_A ? w->T_n_ns : NAN);
		add_finite(e, "S_n", w->have_A ? w->S_n : NAN);
		add_finite(e, "gain_ns", w->have_A ? w->gain_ns : NAN);
		region_predictions_json(cJSON_AddArrayToObject(e, "predictions"), w);
		if (g->nevents && w->counter_tasks) {
			cJSON *c = cJSON_AddObjectToObject(e, "counters");
			for (size_t k = 0; c && k < g->nevents; k++)
				cJSON_AddNumberToObject(c, g->events[k], w->counters[k]);
			cJSON_AddNumberToObject(e, "counter_tasks", (double)w->counter_tasks);
		}
		if (g->allande && w->allande >= 0) {
			cJSON *a = cJSON_AddObjectToObject(e, "allande"), *T;
			const struct pma_allande_factors *f = &g->factors[w->allande];
			T = a ? cJSON_AddArrayToObject(a, "T_ns") : NULL;
			for (uint32_t k = 1; T && k <= g->NC; k++)
				cJSON_AddItemToArray(T, cJSON_CreateNumber(f->T_ns[k]));
			if (a && !f->time_only) {
				cJSON *tcm = cJSON_AddArrayToObject(a, "TCM"), *cf = cJSON_AddArrayToObject(a, "cf"),
				      *beta = cJSON_AddArrayToObject(a, "beta_ns");
				for (uint32_t k = 1; tcm && cf && beta && k <= g->NC; k++) {
					cJSON_AddItemToArray(tcm, cJSON_CreateNumber(f->TCM[k]));
					cJSON_AddItemToArray(cf, cJSON_CreateNumber(f->cf[k]));
					cJSON_AddItemToArray(beta, cJSON_CreateNumber(f->beta_ns[k]));
				}
			}
			if (a) {
				cJSON_AddItemToObject(a, "best_max", aff_json(&g->plan[PMA_ALLANDE_MAX],
					(size_t)w->allande, g->plan[PMA_ALLANDE_MAX].best[w->allande]));
				cJSON_AddItemToObject(a, "best_sum", aff_json(&g->plan[PMA_ALLANDE_SUM],
					(size_t)w->allande, g->plan[PMA_ALLANDE_SUM].best[w->allande]));
			}
			for (int k = PMA_ALLANDE_SUM; a && g->allande_all && k <= PMA_ALLANDE_MAX; k++) {
				const struct pma_allande_plan *p = &g->plan[k];
				cJSON *est = cJSON_AddArrayToObject(a, k == PMA_ALLANDE_MAX ? "est_max_ns" :
								    "est_sum_ns");
				for (size_t c = 0; est && c < p->nconf; c++)
					cJSON_AddItemToArray(est, cJSON_CreateNumber(
						p->estTime_ns[(size_t)w->allande * p->nconf + c]));
			}
		}
		cJSON_AddItemToArray(rows, e);
	}
	if (!g->allande) {
		if (g->allande_why[0])
			cJSON_AddStringToObject(o, "allande_why", g->allande_why);
		return;
	}
	al = cJSON_AddObjectToObject(o, "allande");
	if (!al)
		return;
	cJSON_AddNumberToObject(al, "NC", g->NC);
	cJSON_AddNumberToObject(al, "NS", g->NS);
	cJSON_AddBoolToObject(al, "time_only", g->time_only);
	if (g->time_only)
		cJSON_AddStringToObject(al, "time_only_why", g->tcm_why[0] ? g->tcm_why : "no LLC counters");
	else
		cJSON_AddStringToObject(al, "tcm_event", g->tcm_name);
	if (g->allande_all) {
		/* the order of every row's est_sum_ns / est_max_ns (the same for both bounds) */
		const struct pma_allande_plan *p = &g->plan[PMA_ALLANDE_SUM];
		cJSON *confs = cJSON_AddArrayToObject(al, "configurations");
		for (size_t c = 0; confs && c < p->nconf; c++) {
			cJSON *aff = cJSON_CreateArray();
			for (uint32_t k = 0; aff && k < p->NS; k++)
				cJSON_AddItemToArray(aff, cJSON_CreateNumber(p->aff[c * p->NS + k]));
			cJSON_AddItemToArray(confs, aff);
		}
	}
	for (int k = PMA_ALLANDE_SUM; k <= PMA_ALLANDE_MAX; k++) {
		const struct pma_allande_plan *p = &g->plan[k];
		cJSON *b = cJSON_AddObjectToObject(al, k == PMA_ALLANDE_MAX ? "max" : "sum");
		if (!b)
			continue;
		cJSON_AddNumberToObject(b, "configurations", (double)p->nconf);
		cJSON_AddItemToObject(b, "best_single", aff_json(p, (size_t)-1, p->best_single));
		cJSON_AddNumberToObject(b, "single_total_ns", p->single_total_ns);
		cJSON_AddNumberToObject(b, "per_region_total_ns", p->per_region_total_ns);
		cJSON_AddNumberToObject(b, "gain_ns", p->gain_ns);
	}
}

/* "energy": docs/pmanalyze-json.md */
static void energy_json(cJSON *o, const struct pma_result *r)
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
	add_finite(pm, "R2", e->model.R2);
	cJSON_AddNumberToObject(pm, "core_counts", e->model.ncounts);
	op = cJSON_AddObjectToObject(o, "other_load");
	add_finite(op, "max_cpus", e->other_load_max_cpus);
	add_finite(op, "max_share", e->other_share_max);
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

/* ---- active interference (Casas & Bronevetsky), the whole report of an --interfere trace ---- */

static void table_interference(FILE *out, const struct pma_result *r)
{
	const struct pma_interf_result *x = &r->interf;
	const struct pma_interf_cal *c = x->cal;
	char need[512], cmd[512];

	command_string(&r->t->meta, cmd, sizeof(cmd));
	fprintf(out, "Active interference (Casas & Bronevetsky)\n  program: %s\n", cmd);
	if (x->sens.npoints)
		fprintf(out, "  kind: %s (%s); %zu runs used, %zu per level; threshold %.0f%%\n",
			x->bandwidth ? "bandwidth" : "cache", x->bandwidth ? "BWThrs" : "CSThrs", x->nruns,
			x->nreps, 100 * x->threshold);
	if (c) {
		fprintf(out, "  calibration (capacity: %s method, BW1: %s): BW1 %.2f GB/s, B %.2f GB/s; "
			"capacity left:", c->counters ? "counter" : "timing", c->bw1_counters ?
			"counted misses" : "misses = accesses", c->BW1_bytes_per_s / 1e9, c->B_bytes_per_s / 1e9);
		for (size_t k = 0; k < c->ncap; k++) {
			if (isfinite(c->C_bytes[k]))
				fprintf(out, "%s k=%zu %.1f MB", k ? "," : "", k, c->C_bytes[k] / MIB);
			else
				fprintf(out, "%s k=%zu not measurable", k ? "," : "", k);
		}
		fprintf(out, "; orthogonal BWThrs %.0f\n", c->orth_bwthrs);
	}
	fprintf(out, "  estimate: %s: %s\n", pma_interf_estimate_name(x->estimate), x->reason);
	if (x->sens.npoints) {
		fprintf(out, "\n%3s %12s %10s %10s %10s %9s %12s %10s %s\n", "k", x->bandwidth ? "left GB/s" :
			"left MB", "CPU s", "min s", "max s", "slowdown", "interf GB/s", "wall s", "degraded");
		for (size_t l = 0; l < x->sens.npoints; l++) {
			const struct pma_sens_point *pt = &x->sens.points[l];
			char left[32], bw[32];
			fmt_num(left, sizeof(left), x->bandwidth ? 2 : 1, pt->left / (x->bandwidth ? 1e9 : MIB), "");
			fmt_num(bw, sizeof(bw), 2, x->interferers_bytes_per_s[l] / 1e9, "");
			fprintf(out, "%3u %12s %10.3f %10.3f %10.3f %8.1f%% %12s %10.3f %s\n", pt->k, left,
				pt->runtime_ns / 1e9, pt->min_ns / 1e9, pt->max_ns / 1e9, 100 * pt->slowdown, bw,
				x->wall_ns[l] / 1e9, pt->degraded ? "yes" : pt->within_noise ? "within noise" : "no");
		}
	}
	pma_interf_summary(need, sizeof(need), x);
	fprintf(out, "\n%s%s\n", need, x->sens.nonmonotonic ? " (non-monotonic: a level above k_bad "
		"was not degraded)" : "");
}

static cJSON *interference_json(const struct pma_result *r)
{
	const struct pma_interf_result *x = &r->interf;
	const struct pma_interf_cal *c = x->cal;
	const struct pma_sens_result *s = &x->sens;
	cJSON *o = cJSON_CreateObject(), *cal, *curve, *caps;
	char need[512];

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "kind", !s->npoints ? "none" : x->bandwidth ? "bandwidth" : "cache");
	cJSON_AddNumberToObject(o, "threshold", x->threshold);
	cJSON_AddNumberToObject(o, "p", x->p);
	cJSON_AddNumberToObject(o, "runs", (double)x->nruns);
	cJSON_AddNumberToObject(o, "reps", (double)x->nreps);
	cJSON_AddStringToObject(o, "runtime", "cpu_time"); /* runtime_s: utime + stime */
	cJSON_AddStringToObject(o, "estimate", x->estimate == PMA_INTERF_EST_BANDWIDTH ? "bandwidth" :
				x->estimate == PMA_INTERF_EST_CAPACITY ? "capacity" : "none");
	cJSON_AddStringToObject(o, "estimate_reason", x->reason);
	cal = c ? cJSON_AddObjectToObject(o, "calibration") : (cJSON_AddNullToObject(o, "calibration"), NULL);
	if (cal) {
		cJSON_AddStringToObject(cal, "method", c->counters ? "counters" : "timing");
		cJSON_AddStringToObject(cal, "bw1_method", c->bw1_counters ? "counters" : "accesses");
		add_finite(cal, "BW1_bytes_per_s", c->BW1_bytes_per_s);
		add_finite(cal, "B_bytes_per_s", c->B_bytes_per_s);
		caps = cJSON_AddArrayToObject(cal, "capacity_bytes");
		for (size_t k = 0; caps && k < c->ncap; k++)
			cJSON_AddItemToArray(caps, isfinite(c->C_bytes[k]) ? cJSON_CreateNumber(c->C_bytes[k]) :
					     cJSON_CreateNull());
		cJSON_AddBoolToObject(cal, "capacity_resolvable", x->capacity_resolvable);
		cJSON_AddNumberToObject(cal, "orthogonal_bwthrs", c->orth_bwthrs);
	}
	curve = cJSON_AddArrayToObject(o, "curve");
	for (size_t l = 0; curve && l < s->npoints; l++) {
		const struct pma_sens_point *pt = &s->points[l];
		cJSON *p = cJSON_CreateObject();
		cJSON_AddItemToArray(curve, p);
		cJSON_AddNumberToObject(p, "k", pt->k);
		add_finite(p, x->bandwidth ? "left_bytes_per_s" : "left_bytes", pt->left);
		cJSON_AddNumberToObject(p, "runtime_s", pt->runtime_ns / 1e9);
		cJSON_AddNumberToObject(p, "min_s", pt->min_ns / 1e9);
		cJSON_AddNumberToObject(p, "max_s", pt->max_ns / 1e9);
		cJSON_AddNumberToObject(p, "slowdown", pt->slowdown);
		cJSON_AddBoolToObject(p, "degraded", pt->degraded);
		cJSON_AddBoolToObject(p, "within_noise", pt->within_noise);
		add_finite(p, "interferers_bytes_per_s", x->interferers_bytes_per_s[l]);
		add_finite(p, "wall_s", x->wall_ns[l] / 1e9);
	}
	cJSON_AddStringToObject(o, "verdict", !s->npoints ? "none" : s->verdict == PMA_SENS_BOUNDED ?
				"sensitive" : s->verdict == PMA_SENS_NO_NOISE ? "no_noise_estimate" :
				"not_sensitive");
	if (s->k_ok >= 0)
		cJSON_AddNumberToObject(o, "k_ok", s->k_ok);
	else
		cJSON_AddNullToObject(o, "k_ok");
	if (s->k_bad >= 0)
		cJSON_AddNumberToObject(o, "k_bad", s->k_bad);
	else
		cJSON_AddNullToObject(o, "k_bad");
	add_finite(o, "need_lo", s->verdict == PMA_SENS_BOUNDED && s->npoints ? s->need_lo : NAN);
	add_finite(o, "need_hi", s->verdict == PMA_SENS_BOUNDED && s->npoints ? s->need_hi : NAN);
	cJSON_AddStringToObject(o, "need_unit", x->bandwidth ? "bytes_per_s" : "bytes");
	cJSON_AddBoolToObject(o, "nonmonotonic", s->nonmonotonic);
	pma_interf_summary(need, sizeof(need), x);
	cJSON_AddStringToObject(o, "summary", need);
	return o;
}

static void print_interference_csv(FILE *out, const struct pma_result *r)
{
	const struct pma_interf_result *x = &r->interf;

	fputs("kind,k,left,left_unit,runtime_s,min_s,max_s,slowdown,degraded,interferers_bytes_per_s,wall_s\n", out);
	for (size_t l = 0; l < x->sens.npoints; l++) {
		const struct pma_sens_point *pt = &x->sens.points[l];
		fprintf(out, "%s,%u,%.6g,%s,%.6g,%.6g,%.6g,%.6g,%d,%.6g,%.6g\n", x->bandwidth ? "bandwidth" : "cache",
			pt->k, pt->left, x->bandwidth ? "bytes_per_s" : "bytes", pt->runtime_ns / 1e9,
			pt->min_ns / 1e9, pt->max_ns / 1e9, pt->slowdown, pt->degraded,
			x->interferers_bytes_per_s[l], x->wall_ns[l] / 1e9);
	}
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
	add_finite(j, "R2_adj", ft->fit.R2_adj);
	add_finite(j, "SMAPE_pct", ft->fit.SMAPE);
	cJSON_AddNumberToObject(j, "smape_points", (double)ft->fit.smape_points);
	cJSON_AddNumberToObject(j, "points", (double)ft->fit.n);
	cJSON_AddBoolToObject(j, "few_points", ft->fit.few_points);
	cJSON_AddBoolToObject(j, "valid", ft->fit.valid);
	cJSON_AddBoolToObject(j, "scalability_problem", ft->fit.scalability_problem);
	return j;
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

static void print_json(FILE *out, const struct pma_result *r, const struct pma_trace *traces, int ntraces)
{
	cJSON *root = cJSON_CreateObject(), *tr;
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze/1");
	if (r->kind == PMA_RESULT_INTERFERENCE) {
		cJSON_AddItemToObject(root, "interference", interference_json(r));
		goto traces;
	}
	parallelism_json(cJSON_AddObjectToObject(root, "parallelism"), r);
	concurrency_json(cJSON_AddArrayToObject(root, "concurrency"), r);
	cJSON_AddItemToObject(root, "memory", memory_json(r, traces));
	optimal_json(root, r);
	predictions_json(cJSON_AddArrayToObject(root, "predictions"), r);
	regions_json(root, r);
	energy_json(cJSON_AddObjectToObject(root, "energy"), r);
	scaling_json(root, r);
traces:
	tr = cJSON_AddArrayToObject(root, "traces");
	for (int i = 0; i < ntraces; i++)
		cJSON_AddItemToArray(tr, trace_json(&traces[i], i == 0 ? r->run : pma_trace_baseline(&traces[i])));
	notes_json(root, "notes", "coded_notes", &r->notes);
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
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

/* Quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180). */
void pma_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* An estimated time of plan k (PMA_ALLANDE_SUM or _MAX) for region index a at configuration c, s. */
static double est_s(const struct pma_regions_result *g, int k, long a, size_t c)
{
	const struct pma_allande_plan *p = &g->plan[k];

	return p->estTime_ns[(size_t)a * p->nconf + c] / 1e9;
}

/* A separator then a CSV number, or an empty field when it is not finite (the regions tables). */
static void csv_sep_opt(FILE *out, const char *sep, double v)
{
	if (isfinite(v))
		fprintf(out, "%s%.6g", sep, v);
	else
		fputs(sep, out);
}

/* Allande's inputs per region and thread count (eq. 2, 4), the plans' totals (§4.3) and, with
 * --allande-all, every configuration's SUM and MAX estimate (eq. 7-9): three more CSV tables. */
static void csv_allande(FILE *out, const struct pma_regions_result *g)
{
	const struct pma_allande_plan *ps = &g->plan[PMA_ALLANDE_SUM];
	char name[1400], a[PMA_ALLANDE_MAX_NC * 4 + 8];

	fputs("\nregion,threads,T_s,ideal_s,TCM,cf,beta_ns\n", out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		const struct pma_allande_factors *f;
		if (w->allande < 0)
			continue;
		f = &g->factors[w->allande];
		pma_region_name(w, name, sizeof(name));
		for (uint32_t k = 1; k <= g->NC; k++) {
			pma_csv_field(out, name);
			fprintf(out, ",%u,%.6g,%.6g", k, f->T_ns[k] / 1e9, f->idealTime_ns[k] / 1e9);
			csv_sep_opt(out, ",", f->time_only ? NAN : f->TCM[k]);
			csv_sep_opt(out, ",", f->time_only ? NAN : f->cf[k]);
			csv_sep_opt(out, ",", f->time_only ? NAN : f->beta_ns[k]);
			fputc('\n', out);
		}
	}
	fputs("\nbound,NC,NS,configurations,time_only,best_single,best_single_threads,single_total_s,"
	      "per_region_total_s,gain_s\n", out);
	for (int k = PMA_ALLANDE_SUM; k <= PMA_ALLANDE_MAX; k++) {
		const struct pma_allande_plan *p = &g->plan[k];
		aff_text(p, p->best_single, a, sizeof(a));
		fprintf(out, "%s,%u,%u,%zu,%d,", k == PMA_ALLANDE_MAX ? "max" : "sum", g->NC, g->NS,
			p->nconf, g->time_only);
		pma_csv_field(out, a);
		fprintf(out, ",%u,%.6g,%.6g,%.6g\n", aff_threads(p, p->best_single),
			p->single_total_ns / 1e9, p->per_region_total_ns / 1e9, p->gain_ns / 1e9);
	}
	if (!g->allande_all)
		return;
	/* both plans enumerate the same configurations in the same order (pma_place_enumerate) */
	fputs("\nregion,aff,threads,est_sum_s,est_max_s\n", out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		if (w->allande < 0)
			continue;
		pma_region_name(w, name, sizeof(name));
		for (size_t c = 0; c < ps->nconf; c++) {
			aff_text(ps, c, a, sizeof(a));
			pma_csv_field(out, name);
			fputc(',', out);
			pma_csv_field(out, a);
			fprintf(out, ",%u,%.6g,%.6g\n", aff_threads(ps, c), est_s(g, PMA_ALLANDE_SUM, w->allande, c),
				est_s(g, PMA_ALLANDE_MAX, w->allande, c));
		}
	}
}

/* The regions' predictions (regions.h pred) in long form after a blank line: one row per region
 * (or phase) with A and core count, in the order of the regions table, then of --cores; the header
 * alone when no row has A. */
static void csv_region_predictions(FILE *out, const struct pma_regions_result *g)
{
	char name[1400];

	fputs("\nregion,cores,A,S,T_s,gain_s\n", out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		pma_region_name(w, name, sizeof(name));
		for (size_t k = 0; k < w->npred; k++) {
			const struct pma_region_pred *q = &w->pred[k];
			pma_csv_field(out, name);
			fprintf(out, ",%u", q->cores);
			csv_sep_opt(out, ",", q->A);
			csv_sep_opt(out, ",", q->S);
			csv_sep_opt(out, ",", q->T_ns / 1e9);
			csv_sep_opt(out, ",", q->gain_ns / 1e9);
			fputc('\n', out);
		}
	}
}

/* --omp-regions traces: a second table after a blank line, one row per region, then
 * csv_region_predictions' table (then, when the trace has Allande's runs, csv_allande's tables).
 * The per-thread counters' sums are the last columns, one per event, named after it. */
static void csv_regions(FILE *out, const struct pma_result *r)
{
	const struct pma_regions_result *g = &r->regions;
	char name[1400], a[PMA_ALLANDE_MAX_NC * 4 + 8];

	if ((!g->present || !g->recorded) && !g->phases)
		return;
	fputs("\nregion,function,file,line,depth,calls,time_s,share,A,T_cp_s,cp_share,T_n_s,S_n,gain_s,"
	      "best_max,best_sum,best_max_threads,best_max_est_s,best_sum_threads,best_sum_est_s,"
	      "mean_team,tcm,counter_tasks", out);
	for (size_t e = 0; !g->phases && e < g->nevents; e++) {
		fputc(',', out);
		pma_csv_field(out, g->events[e]);
	}
	fputc('\n', out);
	for (size_t i = 0; i < g->nrows; i++) {
		const struct pma_region_row *w = &g->rows[i];
		int al = g->allande && w->allande >= 0, ctr = !g->phases && g->nevents && w->counter_tasks;
		size_t bm = al ? g->plan[PMA_ALLANDE_MAX].best[w->allande] : 0;
		size_t bs = al ? g->plan[PMA_ALLANDE_SUM].best[w->allande] : 0;
		pma_region_name(w, name, sizeof(name));
		pma_csv_field(out, name);
		fputc(',', out);
		pma_csv_field(out, w->function);
		fputc(',', out);
		pma_csv_field(out, w->file);
		fprintf(out, ",%d,%u,%llu,%.6g,%.6g,", w->line, w->depth, (unsigned long long)w->calls,
			w->time_ns / 1e9, w->share);
		if (w->have_A)
			fprintf(out, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", w->A, w->T_cp_ns / 1e9, w->cp_share,
				w->T_n_ns / 1e9, w->S_n, w->gain_ns / 1e9);
		else
			fputs(",,,,,", out);
		a[0] = 0;
		if (al)
			aff_text(&g->plan[PMA_ALLANDE_MAX], bm, a, sizeof(a));
		fputc(',', out);
		pma_csv_field(out, a);
		if (al)
			aff_text(&g->plan[PMA_ALLANDE_SUM], bs, a, sizeof(a));
		fputc(',', out);
		pma_csv_field(out, a);
		if (al)
			fprintf(out, ",%u,%.6g,%u,%.6g", aff_threads(&g->plan[PMA_ALLANDE_MAX], bm),
				est_s(g, PMA_ALLANDE_MAX, w->allande, bm),
				aff_threads(&g->plan[PMA_ALLANDE_SUM], bs), est_s(g, PMA_ALLANDE_SUM, w->allande, bs));
		else
			fputs(",,,,", out);
		csv_sep_opt(out, ",", w->mean_team > 0 ? w->mean_team : NAN);
		csv_sep_opt(out, ",", ctr && g->tcm_event >= 0 ? w->counters[g->tcm_event] : NAN);
		fprintf(out, ",%llu", (unsigned long long)w->counter_tasks);
		for (size_t e = 0; !g->phases && e < g->nevents; e++)
			csv_sep_opt(out, ",", ctr ? w->counters[e] : NAN);
		fputc('\n', out);
	}
	csv_region_predictions(out, g);
	if (g->allande)
		csv_allande(out, g);
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
		"scalability_problem,mean_abs_error_pct,class\n");
	for (int f = 0; f < (1 + (sc->class_unit ? PMA_SCALING_NCLASSES : 0)) * PMA_SM_COUNT; f++) {
		const struct pma_scaling_fit *ft = f < PMA_SM_COUNT ? &sc->fits[f] :
			&sc->class_fits[f / PMA_SM_COUNT - 1][f % PMA_SM_COUNT];
		if (!ft->fitted)
			continue;
		fprintf(out, "%s,%s,%.6g,%.6g,%.4g,%u,%s,%.6g,%.6g,%zu,%d,%d,%.6g,%s\n",
			pma_scaling_metric_name(ft->metric), sc->parameter, ft->fit.model.c0,
			ft->fit.model.c1, pma_pmnf_exponent(&ft->fit.model), ft->fit.model.j, ft->growth,
			ft->fit.R2_adj, ft->fit.SMAPE, ft->fit.n, ft->fit.valid,
			ft->fit.scalability_problem, sc->mean_abs_err_pct, pma_pmnf_class_name(ft->cls));
	}
}

static void print_csv(FILE *out, const struct pma_result *r)
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
	csv_regions(out, r);
	print_csv_scaling(out, r);
}

/* ---- the merged job of several rank traces (analyzer/result/ranks.c) ---- */

static const char *or_q(const char *s)
{
	return s ? s : "?";
}

/* A rank as "3", or "91:3" (job:rank) when the merge holds several jobs. */
static void rank_name(char *buf, size_t size, const struct pma_ranks_result *j,
		      struct pma_rank_ref r)
{
	if (j->njobs > 1)
		snprintf(buf, size, "%s:%ld", r.job ? r.job : "-", r.rank);
	else
		snprintf(buf, size, "%ld", r.rank);
}

/* A list of ranks as "0, 3, 7" (at most max of them, then "... (N in all)"). */
static void rank_list(char *buf, size_t size, const struct pma_ranks_result *j,
		      const struct pma_rank_ref *v, size_t n, size_t max)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < max && o < size; i++) {
		char name[96];
		rank_name(name, sizeof(name), j, v[i]);
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", name);
	}
	if (n > max && o < size)
		snprintf(buf + o, size - o, ", ... (%zu in all)", n);
	if (n == 0)
		snprintf(buf, size, "none");
}

static void table_ranks(FILE *out, const struct pma_ranks_result *j)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], om[32], list[512];
	static const char *const names[] = { "m", "A(m,inf)", "T_cp s", "wall s", "busy s" };
	const struct pma_rank_stat *st[] = { &j->m, &j->A_inf, &j->T_cp_s, &j->wall_s, &j->busy_s };

	if (j->njobs > 1) {
		size_t o = 0;
		list[0] = '\0';
		for (size_t k = 0; k < j->njobs && o < sizeof(list); k++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", k ? ", " : "",
					      j->jobs[k].job ? j->jobs[k].job : "(no job id)");
		fprintf(out, "%-13s%s (%zu jobs merged with --force; ranks named job:rank): %zu rank "
			"traces", "jobs", list, j->njobs, j->n);
	} else {
		fprintf(out, "%-13s%s: %zu rank trace%s", "job", j->job ? j->job : "(no job id)", j->n,
			j->n == 1 ? "" : "s");
	}
	if (j->size >= 0)
		fprintf(out, " of %ld ranks", j->size);
	fprintf(out, " on %zu host%s\n", j->nhosts, j->nhosts == 1 ? "" : "s");
	if (j->nmissing) {
		rank_list(list, sizeof(list), j, j->missing, j->nmissing, 16);
		fprintf(out, "%-13s%s\n", "missing", list);
	}
	fprintf(out, "\n%-6s %-16s %5s %-10s %5s %9s %9s %9s %9s %7s %9s  %s\n", "rank", "host",
		"local", "cpus", "m", "A(m,inf)", "T_cp s", "wall s", "busy s", "omega", "start s",
		"status");
	for (size_t i = 0; i < j->n; i++) {
		const struct pma_rank_row *w = &j->rows[i];
		char host[64], cpus[64], name[96];
		rank_name(name, sizeof(name), j, (struct pma_rank_ref){ .job = w->job, .rank = w->rank });
		pm_cli_sanitize(host, sizeof(host), or_q(w->host), strlen(or_q(w->host)));
		pm_cli_sanitize(cpus, sizeof(cpus), or_q(w->cpus), strlen(or_q(w->cpus)));
		fmt_num(a, sizeof(a), 0, w->m, "");
		fmt_num(b, sizeof(b), 2, w->A_inf, "");
		fmt_num(c, sizeof(c), 3, w->T_cp_s, "");
		fmt_num(d, sizeof(d), 3, w->wall_s, "");
		fmt_num(e, sizeof(e), 3, w->busy_s, "");
		fmt_num(f, sizeof(f), 3, w->start_offset_s, "");
		fmt_num(om, sizeof(om), 3, w->omega, "");
		if (w->local_rank >= 0)
			snprintf(g, sizeof(g), "%ld", w->local_rank);
		else
			snprintf(g, sizeof(g), "?");
		fprintf(out, "%-6s %-16s %5s %-10s %5s %9s %9s %9s %9s %7s %9s  %s%s%s\n", name, host,
			g, cpus, a, b, c, d, e, om, f, w->complete ? "complete" : "INCOMPLETE",
			w->problem ? ": " : "", w->problem ? w->problem : "");
	}
	fprintf(out, "\n%-13s%10s %10s %10s %10s   (%zu complete rank%s)\n", "summary", "min", "max",
		"avg", "sum", j->busy_s.n, j->busy_s.n == 1 ? "" : "s");
	for (size_t k = 0; k < PM_ARRAY_SIZE(names); k++) {
		fmt_num(a, sizeof(a), 3, st[k]->n ? st[k]->min : NAN, "");
		fmt_num(b, sizeof(b), 3, st[k]->n ? st[k]->max : NAN, "");
		fmt_num(c, sizeof(c), 3, st[k]->n ? st[k]->avg : NAN, "");
		fmt_num(d, sizeof(d), 3, st[k]->n ? st[k]->sum : NAN, "");
		fprintf(out, "  %-11s%10s %10s %10s %10s\n", names[k], a, b, c, d);
	}
	fmt_num(a, sizeof(a), 3, j->imbalance, "");
	rank_list(list, sizeof(list), j, j->critical, j->ncritical, 16);
	fprintf(out, "\n%-13s%s (max/mean of the ranks' busy time); slowest rank ", "imbalance", a);
	if (j->slowest.rank >= 0) {
		rank_name(b, sizeof(b), j, j->slowest);
		fputs(b, out);
	} else {
		fputs("?", out);
	}
	fprintf(out, "; critical path (busy >= %.0f%% of the slowest): %s\n",
		100 * PMA_RANKS_CRITICAL_SHARE, list);
	if (j->nincomplete)
		fprintf(out, "%-13s%zu incomplete rank%s left out of the summary and the imbalance\n", "",
			j->nincomplete, j->nincomplete == 1 ? "" : "s");
	fmt_num(a, sizeof(a), 6, j->start_spread_s, " s");
	fmt_num(b, sizeof(b), 2, j->max_abs_drift_ppm, " ppm");
	fprintf(out, "%-13sstarts spread over %s (realtime clocks); largest realtime drift %s\n",
		"clocks", a, b);
	if (j->ncores) {
		fprintf(out, "\n%-13s%6s %12s %8s %12s\n", "predictions", "cores", "T_job s", "slowest",
			"T_sum s");
		for (size_t i = 0; i < j->ncores; i++) {
			fmt_num(a, sizeof(a), 3, j->T_max_ns[i] / 1e9, "");
			fmt_num(b, sizeof(b), 3, j->T_sum_ns[i] / 1e9, "");
			if (j->T_max[i].rank >= 0 && isfinite(j->T_max_ns[i]))
				rank_name(c, sizeof(c), j, j->T_max[i]);
			else
				snprintf(c, sizeof(c), "?");
			fprintf(out, "%-13s%6u %12s %8s %12s\n", "", j->cores[i], a, c, b);
		}
		fprintf(out, "%-13sT_job: max over the ranks of each rank's T(n) with n cores per rank; "
			"T_sum: their sum (the ranks one after another)\n", "");
		if (j->omega_shared)
			fprintf(out, "%-13s%zu calibrated rank%s: omega at (ranks per socket) x n cores, "
				"the ranks of a socket sharing its memory system\n", "", j->omega_shared,
				j->omega_shared == 1 ? "" : "s");
	}
	pma_mpi_table(out, j);
	print_notes(out, &j->notes, "\nnote: ");
}

static cJSON *stat_json(const struct pma_rank_stat *s)
{
	cJSON *o = cJSON_CreateObject();
	add_finite(o, "min", s->n ? s->min : NAN);
	add_finite(o, "max", s->n ? s->max : NAN);
	add_finite(o, "avg", s->n ? s->avg : NAN);
	add_finite(o, "sum", s->n ? s->sum : NAN);
	return o;
}

/* The ranks of refs as numbers, or (jobs) their job ids, null for none. */
static cJSON *ranks_list_json(const struct pma_rank_ref *v, size_t n, int jobs)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, !jobs ? cJSON_CreateNumber((double)v[i].rank)
					  : v[i].job ? cJSON_CreateString(v[i].job) : cJSON_CreateNull());
	return a;
}

/* key: a rank or count, or null when unknown (< 0) */
static void add_count_or_null(cJSON *o, const char *key, long v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, key, (double)v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void json_ranks(FILE *out, const struct pma_ranks_result *j)
{
	cJSON *root = cJSON_CreateObject(), *rows, *sum, *imb, *clk, *pred, *jobs;
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze-job/1");
	add_str_or_null(root, "job", j->job);
	add_count_or_null(root, "size", j->size);
	cJSON_AddNumberToObject(root, "traces", (double)j->n);
	cJSON_AddNumberToObject(root, "hosts", (double)j->nhosts);
	cJSON_AddItemToObject(root, "missing_ranks", ranks_list_json(j->missing, j->nmissing, 0));
	cJSON_AddItemToObject(root, "missing_jobs", ranks_list_json(j->missing, j->nmissing, 1));
	jobs = cJSON_AddArrayToObject(root, "jobs");
	for (size_t k = 0; k < j->njobs; k++) {
		cJSON *o = cJSON_CreateObject();
		add_str_or_null(o, "job", j->jobs[k].job);
		add_count_or_null(o, "size", j->jobs[k].size);
		cJSON_AddNumberToObject(o, "traces", (double)j->jobs[k].n);
		cJSON_AddNumberToObject(o, "missing", (double)j->jobs[k].nmissing);
		cJSON_AddItemToArray(jobs, o);
	}
	rows = cJSON_AddArrayToObject(root, "ranks");
	for (size_t i = 0; i < j->n; i++) {
		const struct pma_rank_row *w = &j->rows[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", (double)w->rank);
		add_str_or_null(o, "job", w->job);
		add_count_or_null(o, "local_rank", w->local_rank);
		add_str_or_null(o, "host", w->host);
		add_str_or_null(o, "cpus", w->cpus);
		cJSON_AddStringToObject(o, "path", w->path);
		cJSON_AddBoolToObject(o, "complete", w->complete);
		add_str_or_null(o, "problem", w->problem);
		add_str_or_null(o, "estimator", w->estimator);
		add_finite(o, "m", w->m);
		add_finite(o, "A_inf", w->A_inf);
		add_finite(o, "T_cp_s", w->T_cp_s);
		add_finite(o, "wall_s", w->wall_s);
		add_finite(o, "busy_s", w->busy_s);
		add_finite(o, "omega", w->omega);
		add_str_or_null(o, "omega_source", w->omega_source);
		cJSON_AddNumberToObject(o, "calibration_runs_failed", (double)w->cal_failed);
		add_count_or_null(o, "ranks_per_socket", w->ranks_per_socket);
		add_finite(o, "start_offset_s", w->start_offset_s);
		add_finite(o, "drift_ppm", w->drift_ppm);
		cJSON_AddItemToArray(rows, o);
	}
	sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(sum, "ranks", (double)j->busy_s.n);
	cJSON_AddItemToObject(sum, "m", stat_json(&j->m));
	cJSON_AddItemToObject(sum, "A_inf", stat_json(&j->A_inf));
	cJSON_AddItemToObject(sum, "T_cp_s", stat_json(&j->T_cp_s));
	cJSON_AddItemToObject(sum, "wall_s", stat_json(&j->wall_s));
	cJSON_AddItemToObject(sum, "busy_s", stat_json(&j->busy_s));
	imb = cJSON_AddObjectToObject(root, "imbalance");
	add_finite(imb, "factor", j->imbalance);
	add_count_or_null(imb, "slowest_rank", j->slowest.rank);
	if (j->slowest.rank >= 0)
		add_str_or_null(imb, "slowest_job", j->slowest.job);
	else
		cJSON_AddNullToObject(imb, "slowest_job");
	cJSON_AddItemToObject(imb, "critical_ranks", ranks_list_json(j->critical, j->ncritical, 0));
	cJSON_AddItemToObject(imb, "critical_jobs", ranks_list_json(j->critical, j->ncritical, 1));
	cJSON_AddNumberToObject(imb, "critical_share", PMA_RANKS_CRITICAL_SHARE);
	cJSON_AddNumberToObject(imb, "incomplete_ranks", (double)j->nincomplete);
	clk = cJSON_AddObjectToObject(root, "clocks");
	add_finite(clk, "start_spread_s", j->start_spread_s);
	add_finite(clk, "max_abs_drift_ppm", j->max_abs_drift_ppm);
	cJSON_AddNumberToObject(root, "omega_shared_ranks", (double)j->omega_shared);
	pred = cJSON_AddArrayToObject(root, "predictions");
	for (size_t i = 0; i < j->ncores; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", j->cores[i]);
		add_finite(o, "T_job_s", j->T_max_ns[i] / 1e9);
		add_count_or_null(o, "slowest_rank", isfinite(j->T_max_ns[i]) ? j->T_max[i].rank : -1);
		if (isfinite(j->T_max_ns[i]) && j->T_max[i].rank >= 0)
			add_str_or_null(o, "slowest_job", j->T_max[i].job);
		else
			cJSON_AddNullToObject(o, "slowest_job");
		add_finite(o, "T_sum_s", j->T_sum_ns[i] / 1e9);
		cJSON_AddItemToArray(pred, o);
	}
	pma_mpi_json(root, j);
	notes_json(root, "notes", "coded_notes", &j->notes);
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

/* One CSV field: quoted, with inner quotes doubled (paths and hosts are free text). */
static void csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_ranks(FILE *out, const struct pma_ranks_result *j)
{
	fputs("rank,local_rank,host,cpus,m,A_inf,T_cp_s,wall_s,busy_s,omega,start_offset_s,drift_ppm,"
	      "complete,estimator,path,job\n", out);
	for (size_t i = 0; i < j->n; i++) {
		const struct pma_rank_row *w = &j->rows[i];
		char host[128], cpus[128];
		pm_cli_sanitize(host, sizeof(host), or_q(w->host), strlen(or_q(w->host)));
		pm_cli_sanitize(cpus, sizeof(cpus), or_q(w->cpus), strlen(or_q(w->cpus)));
		fprintf(out, "%ld,%ld,", w->rank, w->local_rank);
		csv_str(out, host);
		fputc(',', out);
		csv_str(out, cpus);
		fprintf(out, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%s,", w->m, w->A_inf, w->T_cp_s,
			w->wall_s, w->busy_s, w->omega, w->start_offset_s, w->drift_ppm, w->complete,
			w->estimator ? w->estimator : "none");
		csv_str(out, w->path);
		fputc(',', out);
		if (w->job)
			csv_str(out, w->job);
		fputc('\n', out);
	}
}

int pma_render(FILE *out, const struct pma_result *r, enum pma_format format)
{
	if (r->kind == PMA_RESULT_JOB) {
		if (format == PMA_FMT_JSON)
			json_ranks(out, &r->job);
		else if (format == PMA_FMT_CSV)
			csv_ranks(out, &r->job);
		else
			table_ranks(out, &r->job);
		return ferror(out) ? -1 : 0;
	}
	switch (format) {
	case PMA_FMT_JSON:
		print_json(out, r, r->traces, r->ntraces);
		break;
	case PMA_FMT_CSV:
		if (r->kind == PMA_RESULT_INTERFERENCE)
			print_interference_csv(out, r);
		else
			print_csv(out, r);
		break;
	default:
		if (r->kind == PMA_RESULT_INTERFERENCE)
			table_interference(out, r);
		else
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
	fprintf(out, "%-13s%s\n", "cwd", pm_cli_sanitize(buf, 256, s, strlen(s)));
	if (meta->job.present) /* which launcher variable gave the job id (docs/cluster.md) */
		fprintf(out, "%-13sid %s (%s), rank %ld (%s) of %ld\n", "job",
			meta->job.id ? meta->job.id : "none", meta->job.id_var ? meta->job.id_var : "-",
			meta->job.rank, meta->job.rank_var ? meta->job.rank_var : "-", meta->job.size);
	fprintf(out, "%-13s%s by %s %s\n", "recorded", meta->start_utc ? meta->start_utc : "?",
		meta->tool ? meta->tool : "?", meta->tool_version ? meta->tool_version : "?");
	machine_line(out, meta);
	pma_wakecost_info(out, &meta->wake);
	fprintf(out, "%-13s%.2f ms; program CPUs %s; ", "interval", meta->interval_ms,
		meta->cpus ? meta->cpus : "all");
	/* collector_cpu -1 is the trace's "not pinned" (or absent), not a CPU number */
	if (meta->collector_cpu >= 0)
		fprintf(out, "collector CPU %.0f\n", meta->collector_cpu);
	else
		fputs("collector not pinned (it ran on the program's CPUs)\n", out);
	/* the whole machine and what pmcollect was allowed (docs/model.md, degraded-input case 3) */
	if (meta->usable_cpus || (meta->affinity_cpus && meta->online_cpus &&
				  strcmp(meta->affinity_cpus, meta->online_cpus) != 0))
		fprintf(out, "%-13sonline %s; pmcollect's affinity %s; cgroup cpuset %s; usable %s\n",
			"cpu sets", meta->online_cpus ? meta->online_cpus : "?",
			meta->affinity_cpus ? meta->affinity_cpus : "?",
			meta->cgroup_cpus ? meta->cgroup_cpus : "none found",
			meta->usable_cpus ? meta->usable_cpus : "not recorded");
	fprintf(out, "%-13s", "environment");
	if (!meta->nenv)
		fputs("(no OMP_/GOMP_/KMP_ variables)", out);
	for (size_t i = 0; i < meta->nenv; i++) {
		pm_cli_sanitize(buf, 256, meta->env[i].value, strlen(meta->env[i].value));
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
			(unsigned long long)r->st.thread_samples, r->m,
			(unsigned long long)r->st.threads_seen,
			ri->exit_kind_name ? ri->exit_kind_name : "unknown", isnan(status) ? 0 : status);
		/* how well the collector kept the interval (RUN_END, format 1.2) */
		if (ri->has_end && isfinite(ri->samples) &&
		    ((isfinite(ri->late_samples) && ri->late_samples > 0) ||
		     (isfinite(ri->lost_samples) && ri->lost_samples > 0) ||
		     (isfinite(ri->interval_changes) && ri->interval_changes > 0))) {
			struct pma_run_sampling smp;
			pma_run_sampling(t, r, &smp);
			fprintf(out, "         sampling: %.0f samples, %.0f late, %.0f lost (%.0f%% of the "
				"timer expirations); interval %.2f ms", smp.samples, smp.late, smp.lost,
				100 * smp.share, smp.interval_ms);
			if (smp.requested_ms > 0)
				fprintf(out, " (lengthened %.0f time%s from %.2f ms)", ri->interval_changes,
					ri->interval_changes == 1 ? "" : "s", smp.requested_ms);
			fputc('\n', out);
		}
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
		char *text = pma_note_alloc(&t->warnings.v[i]), *clean = text ? strdup(text) : NULL;
		if (clean)
			pm_cli_sanitize(clean, strlen(text) + 1, text, strlen(text));
		fprintf(out, "  %s\n", clean ? clean : "out of memory");
		free(clean);
		free(text);
	}
}

/* --info --format json: the trace's object of the report (trace_json) and one object per run. */
static void info_json(FILE *out, const struct pma_trace *t)
{
	cJSON *root = cJSON_CreateObject(), *runs;
	char *text, ver[16];

	cJSON_AddStringToObject(root, "schema", "pmanalyze-info/1");
	snprintf(ver, sizeof(ver), "%u.%u", t->major, t->minor);
	cJSON_AddStringToObject(root, "format_version", ver);
	cJSON_AddNumberToObject(root, "chunks", (double)t->rst.chunks);
	cJSON_AddNumberToObject(root, "bytes", (double)t->rst.bytes_read);
	cJSON_AddItemToObject(root, "trace", trace_json(t, pma_trace_baseline(t)));
	runs = cJSON_AddArrayToObject(root, "runs");
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "run_id", r->run_id);
		cJSON_AddStringToObject(o, "cpus", r->cpus);
		cJSON_AddNumberToObject(o, "wall_s", pma_run_wall_s(r));
		cJSON_AddNumberToObject(o, "samples", (double)r->st.samples);
		cJSON_AddNumberToObject(o, "thread_samples", (double)r->st.thread_samples);
		cJSON_AddNumberToObject(o, "peak_threads", r->m);
		cJSON_AddNumberToObject(o, "threads_seen", (double)r->st.threads_seen);
		cJSON_AddStringToObject(o, "exit", r->info.exit_kind_name ? r->info.exit_kind_name : "unknown");
		cJSON_AddNumberToObject(o, "sched_events", r->has_exact ? (double)r->xst.events : 0);
		cJSON_AddItemToArray(runs, o);
	}
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

/* --info --format csv: one row per run. */
static void info_csv(FILE *out, const struct pma_trace *t)
{
	fprintf(out, "run_id,cpus,wall_s,samples,thread_samples,peak_threads,threads_seen,exit,"
		"sched_events\n");
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		fprintf(out, "%u,", r->run_id);
		pma_csv_field(out, r->cpus);
		fprintf(out, ",%.9f,%llu,%llu,%u,%llu,%s,%llu\n", pma_run_wall_s(r),
			(unsigned long long)r->st.samples, (unsigned long long)r->st.thread_samples, r->m,
			(unsigned long long)r->st.threads_seen,
			r->info.exit_kind_name ? r->info.exit_kind_name : "unknown",
			r->has_exact ? (unsigned long long)r->xst.events : 0ull);
	}
}

void pma_render_info(FILE *out, const struct pma_trace *t, enum pma_format format)
{
	if (format == PMA_FMT_JSON)
		info_json(out, t);
	else if (format == PMA_FMT_CSV)
		info_csv(out, t);
	else
		pma_info(out, t);
}
