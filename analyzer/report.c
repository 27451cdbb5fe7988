/* SPDX-License-Identifier: MIT */
/* report.c: renders pmanalyze's results as a table, JSON (schema pmanalyze/1) or CSV, and the
 * --info and --dump views of a trace. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "estimate.h"
#include "memory.h"
#include "model.h"
#include "pmt_cli.h"

/* Everything the three formats print, computed once. */
struct result {
	const struct pma_trace *t;
	const struct pma_run *run;
	double m;
	const char *m_source;
	int est;                                  /* the estimator the headline numbers use */
	struct pma_parallelism par[PMA_EST_COUNT];
	int have[PMA_EST_COUNT];                  /* the run has data for estimator k */
	uint32_t *cores;
	size_t ncores;
	struct pma_prediction *pred[PMA_EST_COUNT];
	double *S_err;
	double A_err;
	double T1_s, wall_s, interval_ms;
	uint32_t baseline_cores;
	const char *baseline_case;
	char *notes[16];
	size_t nnotes;
	struct pma_mem_eval mem;                  /* omega(n): calibration, fit, per core count */
	struct pma_optimal opt;                   /* eq. 11 over S; opt.n_best 0 when none */
};

static const char *str_item(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_item(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* The command line from META "command" as one sanitized string. */
static void command_string(const cJSON *meta, char *buf, size_t size)
{
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(meta, "command"), *a;
	char raw[1024];
	size_t o = 0;

	raw[0] = '\0';
	cJSON_ArrayForEach(a, cmd) {
		if (cJSON_IsString(a) && o < sizeof(raw))
			o += snprintf(raw + o, sizeof(raw) - o, "%s%s", o ? " " : "", a->valuestring);
	}
	if (o >= sizeof(raw))
		o = sizeof(raw) - 1;
	pmt_cli_sanitize(buf, size, raw, o);
}

static void add_note(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct result *r, const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	if (r->nnotes == sizeof(r->notes) / sizeof(r->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->notes[r->nnotes] = strdup(buf);
	if (r->notes[r->nnotes])
		r->nnotes++;
}

static void result_free(struct result *r)
{
	for (int k = 0; k < PMA_EST_COUNT; k++)
		free(r->pred[k]);
	free(r->S_err);
	free(r->cores);
	pma_mem_eval_free(&r->mem);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
}

/* Warns when the baseline may hide dependencies behind spinning: a spinning waiter is runnable, so
 * the run queue cannot see the dependency (Tudor & Teo, §II-B "Limitations"). Two signals, in
 * oversubscribed and direct runs alike: OMP_WAIT_POLICY=active in the recorded environment, and
 * what the samples show, the threads runnable nearly all the time (A > 0.97 k, k the highest level
 * of active threads holding >= 5% of T_cp) with fewer than one voluntary context switch per thread
 * per second (status nvcsw). libgomp spins under
 * OMP_WAIT_POLICY=active, but only ~1000 iterations when its threads outnumber its CPUs, so a 1-CPU
 * baseline is mostly immune and a run on enough CPUs is not (tests/cli/t3100-openmp.sh: 2 threads
 * on 2 CPUs, imbalanced, truth 1.50: passive 1.50, active 1.99). */
static void check_spinning(struct result *r)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->t->meta, "env");
	const char *policy = str_item(env, "OMP_WAIT_POLICY");
	const struct pma_est_stats *st = &r->run->st;
	/* on the samples' runnable estimate whatever the headline estimator: the thresholds were
	 * set on it, and the exact mode shows a spinner the same way (running, never blocking) */
	double A = r->par[PMA_EST_RUNNABLE].A_inf, secs = r->wall_s > 0 ? r->wall_s : 1;
	double vol_per_thread_s = st->status_reads && r->m > 0 ?
		(double)st->nvcsw_total / r->m / secs : -1;
	const struct pma_profile *prof = pma_run_profile(r->run, PMA_EST_RUNNABLE);
	const struct pma_parallelism *p = &r->par[PMA_EST_RUNNABLE];
	size_t busiest = 0; /* highest level of active threads holding >= 5% of T_cp */
	int looks_spinning, active = policy && strcasecmp(policy, "active") == 0;

	/* against the busiest level rather than m, so that a thread that only sleeps (a runtime's
	 * helper, e.g. the sanitizers' background thread) does not hide the pattern */
	for (size_t k = 1; k < prof->nbins; k++)
		if (p->T_cp_ns > 0 && pma_profile_level_ns(prof, k) >= 0.05 * p->T_cp_ns)
			busiest = k;
	looks_spinning = busiest >= 2 && A > 0.97 * (double)busiest && vol_per_thread_s >= 0 &&
			 vol_per_thread_s < 1.0;

	if (r->m < 2)
		return;
	if (active && looks_spinning)
		add_note(r, "spinning: OMP_WAIT_POLICY=active was set and %zu threads were runnable "
			 "%.0f%% of the time, blocking %.2f times/s: waiting threads spin and look "
			 "runnable, so A(m,inf) is overestimated; re-record with OMP_WAIT_POLICY=passive",
			 busiest, 100 * A / (double)busiest, vol_per_thread_s);
	else if (active)
		add_note(r, "spinning: OMP_WAIT_POLICY=active was set: OpenMP threads may spin at "
			 "barriers and look runnable, which overestimates A(m,inf) (GNU libgomp spins only "
			 "briefly when threads outnumber CPUs); re-record with OMP_WAIT_POLICY=passive "
			 "to be sure");
	else if (looks_spinning)
		add_note(r, "spinning?: %zu threads were runnable %.0f%% of the time and blocked %.2f "
			 "times/s: if they synchronize by spinning (OpenMP: OMP_WAIT_POLICY=active, "
			 "GOMP_SPINCOUNT, KMP_BLOCKTIME; spin locks), A(m,inf) is overestimated; "
			 "re-record with OMP_WAIT_POLICY=passive to check", busiest,
			 100 * A / (double)busiest, vol_per_thread_s);
}

/* Exact mode's predictions: T(n) from replaying the recorded segments and wake edges on n cores
 * (analyzer/exact.h), A(m,n) = U / T(n) (eq. 6 as the time-weighted mean of active threads, which
 * for a replay without idle time is the work over the time), S = A(m,n) / (1 + omega) (eq. 1). */
static int replay_predictions(struct result *r, char *why, size_t whysize)
{
	double U = r->run->xst.work_ns;

	for (size_t i = 0; i < r->ncores; i++) {
		struct pma_prediction *q = &r->pred[PMA_EST_SCHED][i];
		double T = r->run->xst.T_cp_ns;
		/* with a core for every thread nothing ever shares one: the replay is T_cp (this
		 * keeps --cores 1-100000 from replaying 100000 times) */
		if (r->cores[i] < r->run->xst.threads &&
		    (pma_exact_replay(r->run->exact, r->cores[i], &T) < 0 || T <= 0)) {
			snprintf(why, whysize, "'%s': the replay of run %u on %u cores failed (a wake "
				 "dependency never resolved)", r->t->path, r->run->run_id, r->cores[i]);
			return -1;
		}
		q->A = U / T;
		q->T_ns = T * (1 + q->omega); /* T(n) = T(1) / S = U (1 + omega) / A(m,n) */
		q->S = pma_speedup(q->A, q->omega);
		q->R = pma_speedup_loss(q->A, q->omega);
	}
	return 0;
}

static int compute(struct result *r, const struct pma_trace *traces, int ntraces,
		   const struct pma_report_opts *o,
		   char *why, size_t whysize)
{
	const struct pma_trace *t = &traces[0];
	const struct pma_run *run = NULL;
	const cJSON *topo;
	uint32_t maxn;

	memset(r, 0, sizeof(*r));
	r->t = t;
	run = pma_trace_run(t, o->run_id);
	if (!run && o->run_id >= 0) {
		snprintf(why, whysize, "'%s': no run %ld in the trace", t->path, o->run_id);
		return -1;
	}
	if (!run || run->st.intervals == 0) {
		snprintf(why, whysize, "'%s': no samples to analyze", t->path);
		return -1;
	}
	r->run = run;
	/* the exact mode when the run has scheduler events and lost (nearly) none of them; the
	 * runnable estimator otherwise */
	r->est = o->estimator >= 0 ? o->estimator :
		run->has_exact && run->xst.lost <= run->xst.events / 100 ? PMA_EST_SCHED : PMA_EST_RUNNABLE;
	if (r->est == PMA_EST_SCHED && !run->has_exact) {
		snprintf(why, whysize, "'%s': run %u has no scheduler events (record them with "
			 "pmcollect --sched, as root)", t->path, run->run_id);
		return -1;
	}
	r->m = run->st.m_peak;
	r->m_source = "peak of simultaneously live threads in the samples";
	if (r->m < 2) {
		snprintf(why, whysize, "'%s': the program ran one thread at a time: nothing to predict "
			 "(A(m,inf) = 1)", t->path);
		return -1;
	}
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		const struct pma_profile *pk = pma_run_profile(run, k);
		r->have[k] = pk != NULL;
		if (pk)
			pma_profile_parallelism(pk, r->m, &r->par[k]);
	}
	if (r->par[r->est].T_cp_ns <= 0) {
		snprintf(why, whysize, "'%s': the program received no CPU time in the samples", t->path);
		return -1;
	}
	r->baseline_cores = run->cpus_n;
	r->baseline_case = !r->baseline_cores ? "unknown CPU set" :
		r->baseline_cores < r->m ? "oversubscribed baseline: A(m,inf) reconstructed (Tudor & Teo, eq. 4)" :
		"enough CPUs for every thread: A(m,inf) measured directly";
	r->interval_ms = num_item(t->meta, "interval_ms", 0);
	r->wall_s = run->t_end_ns > run->t_begin_ns && run->t_begin_ns ?
		(double)(run->t_end_ns - run->t_begin_ns) / 1e9 :
		(double)(run->st.last_t_ns - run->st.first_t_ns) / 1e9;
	r->T1_s = (r->par[r->est].work_ns + pma_run_profile(run, r->est)->idle_ns) / 1e9;

	/* default core counts: 1 .. max(m, CPUs of the recording machine) */
	topo = cJSON_GetObjectItemCaseSensitive(t->meta, "topology");
	maxn = (uint32_t)r->m;
	if ((uint32_t)num_item(topo, "pus", 0) > maxn)
		maxn = (uint32_t)num_item(topo, "pus", 0);
	r->ncores = o->cores ? o->ncores : maxn;
	r->cores = malloc(r->ncores * sizeof(uint32_t));
	r->S_err = calloc(r->ncores, sizeof(double));
	if (!r->cores || !r->S_err)
		goto nomem;
	for (size_t i = 0; i < r->ncores; i++)
		r->cores[i] = o->cores ? o->cores[i] : (uint32_t)(i + 1);
	if (pma_mem_eval(traces, ntraces, o->machine, o->chunk, o->mem_policy, (uint32_t)r->m,
			 r->cores, r->ncores, &r->mem, why, whysize) < 0)
		return -1;
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		double *S;
		if (!r->have[k])
			continue;
		S = calloc(r->ncores, sizeof(double));
		r->pred[k] = calloc(r->ncores, sizeof(struct pma_prediction));
		if (!r->pred[k] || !S) {
			free(S);
			goto nomem;
		}
		/* unknown omega predicts with 0 (no contention: S is an upper bound) */
		for (size_t i = 0; i < r->ncores; i++)
			S[i] = isfinite(r->mem.omega[i]) ? r->mem.omega[i] : 0;
		pma_profile_predict(pma_run_profile(run, k), r->cores, r->ncores, S, r->pred[k]);
		if (k == PMA_EST_SCHED && replay_predictions(r, why, whysize) < 0) {
			free(S);
			return -1;
		}
		for (size_t i = 0; i < r->ncores; i++) {
			r->pred[k][i].omega = r->mem.omega[i];
			if (isinf(r->mem.omega[i]))
				r->pred[k][i].S = r->pred[k][i].R = r->pred[k][i].T_ns = NAN;
			S[i] = r->pred[k][i].S;
		}
		if (k == r->est)
			pma_optimal_cores(r->cores, S, r->ncores, &r->opt);
		free(S);
	}
	for (size_t i = 0; i < r->mem.nnotes; i++)
		add_note(r, "%s", r->mem.notes[i]);
	/* Uncertainty: one sampling interval's worth of misplaced critical path (a change of
	 * parallelism is located to within one interval). The other estimator's value is reported
	 * beside it rather than folded in: the paper's is biased low by design when slices are long. */
	{
		double A = r->par[r->est].A_inf;
		/* exact mode: lost events as a share of all events, and CPU time credited to switches
		 * the kernel did not record, as a share of the work */
		double gran = r->est == PMA_EST_SCHED ?
			(double)run->xst.lost / (double)(run->xst.events + run->xst.lost) +
				run->xst.inferred_ns / run->xst.work_ns :
			run->st.mean_interval_ns > 0 ? run->st.mean_interval_ns / r->par[r->est].T_cp_ns : 0;
		r->A_err = A * gran;
		for (size_t i = 0; i < r->ncores; i++)
			r->S_err[i] = r->pred[r->est][i].S * gran;
	}
	check_spinning(r);
	if (run->st.unplaced_wait_ns > 0.05 * r->par[r->est].work_ns && r->est == PMA_EST_RUNNABLE)
		add_note(r, "%.1f%% of the run-queue wait could not be placed in time (waits longer than "
			 "%.1f s): A(m,inf) may be underestimated", 100 * run->st.unplaced_wait_ns /
			 r->par[r->est].work_ns, 128 * run->st.mean_interval_ns / 1e9);
	return 0;
nomem:
	snprintf(why, whysize, "out of memory");
	return -1;
}

/* ---- table ---- */

static void print_sources(FILE *out, const cJSON *meta)
{
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(meta, "sources"), *s;
	char clean[300];
	int first = 1;

	fprintf(out, "%-13s", "sources");
	cJSON_ArrayForEach(s, src) {
		const cJSON *rec = cJSON_GetObjectItemCaseSensitive(s, "recorded");
		if (cJSON_IsTrue(rec)) {
			fprintf(out, "%s%s", first ? "" : ", ", s->string);
			first = 0;
		}
	}
	fprintf(out, "%s\n", first ? "none" : "");
	cJSON_ArrayForEach(s, src) {
		const cJSON *rec = cJSON_GetObjectItemCaseSensitive(s, "recorded");
		const char *reason = str_item(s, "reason");
		if (!cJSON_IsTrue(rec)) {
			pmt_cli_sanitize(clean, sizeof(clean), reason ? reason : "no reason recorded",
					 strlen(reason ? reason : "no reason recorded"));
			fprintf(out, "%-13s%s: not recorded: %s\n", "", s->string, clean);
		}
	}
}

static void machine_line(FILE *out, const cJSON *meta)
{
	const cJSON *topo = cJSON_GetObjectItemCaseSensitive(meta, "topology");
	const cJSON *kern = cJSON_GetObjectItemCaseSensitive(meta, "kernel");
	const char *host = str_item(meta, "hostname"), *rel = str_item(kern, "release");
	char h[128], k[128];

	pmt_cli_sanitize(h, sizeof(h), host ? host : "?", strlen(host ? host : "?"));
	pmt_cli_sanitize(k, sizeof(k), rel ? rel : "?", strlen(rel ? rel : "?"));
	fprintf(out, "%-13s%s: %.0f packages, %.0f cores, %.0f PUs, %.0f NUMA nodes; Linux %s\n",
		"machine", h, num_item(topo, "packages", 0), num_item(topo, "cores", 0),
		num_item(topo, "pus", 0), num_item(topo, "numa_nodes", 0), k);
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
static void print_memory(FILE *out, const struct result *r)
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
}

static void print_table(FILE *out, const struct result *r)
{
	const struct pma_parallelism *p = &r->par[r->est];
	const struct pma_profile *prof = pma_run_profile(r->run, r->est);
	char cmd[512];

	command_string(r->t->meta, cmd, sizeof(cmd));
	fprintf(out, "%-13s%s\n", "program", cmd);
	fprintf(out, "%-13s%s\n", "trace", r->t->path);
	machine_line(out, r->t->meta);
	fprintf(out, "%-13srun %u on CPUs %s (%u): %s\n", "baseline", r->run->run_id,
		r->run->cpus[0] ? r->run->cpus : "?", r->baseline_cores, r->baseline_case);
	fprintf(out, "%-13s%.0f threads (%s)\n", "m", r->m, r->m_source);
	fprintf(out, "%-13s%.3f s, %llu samples every %.2f ms (measured mean %.2f ms)\n", "wall time",
		r->wall_s, (unsigned long long)r->run->st.samples, r->interval_ms,
		r->run->st.mean_interval_ns / 1e6);
	print_sources(out, r->t->meta);
	fputc('\n', out);
	fprintf(out, "%-13s%.2f ± %.2f threads  (estimator %s", "A(m,inf)", p->A_inf, r->A_err,
		pma_estimator_name(r->est));
	for (int k = PMA_EST_COUNT - 1; k >= 0; k--)
		if (k != r->est && r->have[k])
			fprintf(out, "; %s gives %.2f", pma_estimator_name(k), r->par[k].A_inf);
	fputs(")\n", out);
	if (r->have[PMA_EST_SCHED])
		fprintf(out, "%-13s%llu events, %llu lost, %llu wake edges, %llu wakes from outside, "
			"%u threads, %llu switch-ins inferred (%.1f ms)\n", "sched events",
			(unsigned long long)r->run->xst.events, (unsigned long long)r->run->xst.lost,
			(unsigned long long)r->run->xst.wake_edges,
			(unsigned long long)r->run->xst.outside_wakes, r->run->xst.threads,
			(unsigned long long)r->run->xst.inferred_switch_ins, r->run->xst.inferred_ns / 1e6);
	fprintf(out, "%-13s%.3f s\n", "T_cp", p->T_cp_ns / 1e9);
	fprintf(out, "%-13s%.3f s  (total CPU time of the program)\n", "T(1)", r->T1_s);
	fprintf(out, "%-13s%.2f threads  (m - A(m,inf), eq. 2)\n", "D(m)", p->D);
	if (prof->idle_ns > 0)
		fprintf(out, "%-13s%.3f s with no runnable thread (kept as is in T(n))\n", "idle",
			prof->idle_ns / 1e9);
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
	print_memory(out, r);
	fprintf(out, "\npredictions (%s; omega from %s; S = A(m,n) / (1 + omega), eq. 1; placement %s, "
		"memory %s)\n", r->est == PMA_EST_SCHED ? "T(n) from replaying the scheduler events on n cores"
						 : "A(m,n) from the profile, eq. 6",
		r->mem.cal.source, r->mem.placement, pma_mem_policy_name(r->mem.pol));
	fprintf(out, "  %6s %8s %7s %6s %8s %8s %10s %7s  %s\n", "cores", "A(m,n)", "omega", "xsock",
		"S", "±S", "T (s)", "R", "per socket");
	for (size_t i = 0; i < r->ncores; i++) {
		const struct pma_prediction *q = &r->pred[r->est][i];
		char w[16], x[16];
		fmt_num(w, sizeof(w), 2, q->omega, "");
		fmt_num(x, sizeof(x), 0, q->omega > 0 ? 100 * r->mem.cross[i] / q->omega :
			r->mem.cross[i] == 0 ? 0 : NAN, "%");
		fprintf(out, "  %6u %8.2f %7s %6s %8.2f %8.2f %10.3f %7.2f  %s%s\n", q->cores, q->A, w, x,
			q->S, r->S_err[i], q->T_ns / 1e9, q->R, r->mem.per_socket[i],
			q->cores == r->opt.n_best ? "  <- optimal (eq. 11)" :
			q->cores == r->opt.n_95 ? "  <- 95% of the best S" : "");
	}
	if (r->opt.n_best) {
		fprintf(out, "optimal      %u core%s (S = %.2f); 95%% of it from %u core%s; S increases over",
			r->opt.n_best, r->opt.n_best == 1 ? "" : "s", r->opt.S_best, r->opt.n_95,
			r->opt.n_95 == 1 ? "" : "s");
		for (size_t j = 0; j < r->opt.nintervals; j++)
			fprintf(out, " [%u, %u]", r->opt.interval[j][0], r->opt.interval[j][1]);
		fprintf(out, "%s\n", r->opt.nintervals ? "" : " no interval");
	}
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(out, "\nnote: %s\n", r->notes[i]);
}

/* ---- JSON ---- */

static cJSON *trace_json(const struct pma_trace *t, const struct pma_run *run)
{
	cJSON *o = cJSON_CreateObject(), *cmd, *w;

	cJSON_AddStringToObject(o, "path", t->path);
	cmd = cJSON_GetObjectItemCaseSensitive(t->meta, "command");
	cJSON_AddItemToObject(o, "command", cmd ? cJSON_Duplicate(cmd, 1) : cJSON_CreateArray());
	if (run) {
		double wall = run->t_end_ns > run->t_begin_ns && run->t_begin_ns ?
			(double)(run->t_end_ns - run->t_begin_ns) / 1e9 :
			(double)(run->st.last_t_ns - run->st.first_t_ns) / 1e9;
		cJSON_AddNumberToObject(o, "wall_s", wall);
	}
	cJSON_AddNumberToObject(o, "samples", (double)t->samples);
	cJSON_AddNumberToObject(o, "thread_samples", (double)t->thread_samples);
	cJSON_AddNumberToObject(o, "runs", t->nruns);
	{
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(t->meta, "sources");
		cJSON_AddItemToObject(o, "sources", src ? cJSON_Duplicate(src, 1) : cJSON_CreateObject());
	}
	w = cJSON_AddArrayToObject(o, "warnings");
	for (uint32_t i = 0; i < t->nwarnings; i++)
		cJSON_AddItemToArray(w, cJSON_CreateString(t->warnings[i]));
	cJSON_AddBoolToObject(o, "truncated", t->rst.truncated || (run && !run->end));
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
static cJSON *memory_json(const struct result *r, const struct pma_trace *traces)
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
	if (p->model == PMA_MEM_NONE)
		cJSON_AddStringToObject(m, "unknown_because", e->cal.why);
	return m;
}

static void print_json(FILE *out, const struct result *r, const struct pma_trace *traces, int ntraces)
{
	cJSON *root = cJSON_CreateObject(), *par, *est, *preds, *hist, *tr, *notes;
	const struct pma_parallelism *p = &r->par[r->est];
	const struct pma_profile *prof = pma_run_profile(r->run, r->est);
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze/1");
	par = cJSON_AddObjectToObject(root, "parallelism");
	cJSON_AddNumberToObject(par, "run_id", r->run->run_id);
	cJSON_AddNumberToObject(par, "m", r->m);
	cJSON_AddStringToObject(par, "m_source", r->m_source);
	cJSON_AddNumberToObject(par, "A_inf", p->A_inf);
	cJSON_AddNumberToObject(par, "A_inf_err", r->A_err);
	cJSON_AddNumberToObject(par, "D", p->D);
	cJSON_AddNumberToObject(par, "T_cp_s", p->T_cp_ns / 1e9);
	cJSON_AddNumberToObject(par, "T1_s", r->T1_s);
	cJSON_AddNumberToObject(par, "idle_s", prof->idle_ns / 1e9);
	cJSON_AddNumberToObject(par, "wall_s", r->wall_s);
	cJSON_AddNumberToObject(par, "baseline_cores", r->baseline_cores);
	cJSON_AddStringToObject(par, "baseline_cpus", r->run->cpus);
	cJSON_AddStringToObject(par, "baseline_case", r->baseline_case);
	cJSON_AddNumberToObject(par, "interval_ms", r->interval_ms);
	cJSON_AddNumberToObject(par, "mean_interval_ms", r->run->st.mean_interval_ns / 1e6);
	cJSON_AddStringToObject(par, "estimator", pma_estimator_name(r->est));
	est = cJSON_AddObjectToObject(par, "estimates");
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		cJSON *e;
		if (!r->have[k])
			continue;
		e = cJSON_AddObjectToObject(est, pma_estimator_name(k));
		cJSON_AddNumberToObject(e, "A_inf", r->par[k].A_inf);
		cJSON_AddNumberToObject(e, "T_cp_s", r->par[k].T_cp_ns / 1e9);
		cJSON_AddNumberToObject(e, "D", r->par[k].D);
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
	hist = cJSON_AddArrayToObject(root, "concurrency");
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
	cJSON_AddItemToObject(root, "memory", memory_json(r, traces));
	if (r->opt.n_best)
		cJSON_AddNumberToObject(root, "optimal_cores", r->opt.n_best);
	else
		cJSON_AddNullToObject(root, "optimal_cores");
	{
		cJSON *op = cJSON_AddObjectToObject(root, "optimal"), *iv;
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
	preds = cJSON_AddArrayToObject(root, "predictions");
	for (size_t i = 0; i < r->ncores; i++) {
		const struct pma_prediction *q = &r->pred[r->est][i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", q->cores);
		cJSON_AddNumberToObject(o, "A", q->A);
		add_finite(o, "omega", q->omega);
		cJSON_AddStringToObject(o, "omega_source", isfinite(q->omega) ? r->mem.cal.source : "none");
		add_finite(o, "cross_socket", r->mem.cross[i]);
		cJSON_AddStringToObject(o, "per_socket", r->mem.per_socket[i]);
		cJSON_AddBoolToObject(o, "saturated", isinf(q->omega));
		add_finite(o, "S", q->S);
		cJSON_AddNumberToObject(o, "S_err", r->S_err[i]);
		add_finite(o, "T_s", q->T_ns / 1e9);
		add_finite(o, "R", q->R);
		if (r->est != PMA_EST_SCHED && r->have[PMA_EST_SCHED])
			cJSON_AddNumberToObject(o, "A_sched_exact", r->pred[PMA_EST_SCHED][i].A);
		else if (r->est == PMA_EST_SCHED)
			cJSON_AddNumberToObject(o, "A_sampled", r->pred[PMA_EST_RUNNABLE][i].A);
		cJSON_AddItemToArray(preds, o);
	}
	tr = cJSON_AddArrayToObject(root, "traces");
	for (int i = 0; i < ntraces; i++)
		cJSON_AddItemToArray(tr, trace_json(&traces[i], i == 0 ? r->run : pma_trace_baseline(&traces[i])));
	notes = cJSON_AddArrayToObject(root, "notes");
	for (size_t i = 0; i < r->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

static void print_csv(FILE *out, const struct result *r)
{
	fputs("cores,A,omega,omega_source,S,S_err,T_s,R,estimator,cross_socket\n", out);
	for (size_t i = 0; i < r->ncores; i++) {
		const struct pma_prediction *q = &r->pred[r->est][i];
		fprintf(out, "%u,%.6g,%.6g,%s,%.6g,%.6g,%.6g,%.6g,%s,%.6g\n", q->cores, q->A, q->omega,
			isfinite(q->omega) ? r->mem.cal.source : "none", q->S, r->S_err[i], q->T_ns / 1e9,
			q->R, pma_estimator_name(r->est), r->mem.cross[i]);
	}
}

int pma_report(FILE *out, const struct pma_trace *traces, int ntraces,
	       const struct pma_report_opts *o, char *why, size_t whysize)
{
	struct result r;

	if (compute(&r, traces, ntraces, o, why, whysize) < 0) {
		result_free(&r);
		return -1;
	}
	switch (o->format) {
	case PMA_FMT_JSON:
		print_json(out, &r, traces, ntraces);
		break;
	case PMA_FMT_CSV:
		print_csv(out, &r);
		break;
	default:
		print_table(out, &r);
		break;
	}
	result_free(&r);
	return 0;
}

/* ---- --info ---- */

void pma_info(FILE *out, const struct pma_trace *t)
{
	const cJSON *meta = t->meta;
	char cmd[512], buf[256];
	const char *s;

	command_string(meta, cmd, sizeof(cmd));
	fprintf(out, "%-13s%s (pmtrace %u.%u, %llu chunks, %llu bytes)\n", "trace", t->path, t->major,
		t->minor, (unsigned long long)t->rst.chunks, (unsigned long long)t->rst.bytes_read);
	fprintf(out, "%-13s%s\n", "command", cmd);
	s = str_item(meta, "cwd");
	fprintf(out, "%-13s%s\n", "cwd", pmt_cli_sanitize(buf, sizeof(buf), s ? s : "?", strlen(s ? s : "?")));
	s = str_item(meta, "start_utc");
	fprintf(out, "%-13s%s by %s %s\n", "recorded", s ? s : "?",
		str_item(meta, "tool") ? str_item(meta, "tool") : "?",
		str_item(meta, "tool_version") ? str_item(meta, "tool_version") : "?");
	machine_line(out, meta);
	fprintf(out, "%-13s%.2f ms; program CPUs %s; collector CPU %.0f\n", "interval",
		num_item(meta, "interval_ms", 0), str_item(meta, "cpus") ? str_item(meta, "cpus") : "all",
		num_item(meta, "collector_cpu", -1));
	{
		const cJSON *env = cJSON_GetObjectItemCaseSensitive(meta, "env"), *e;
		fprintf(out, "%-13s", "environment");
		if (!cJSON_GetArraySize(env))
			fputs("(no OMP_/GOMP_/KMP_ variables)", out);
		cJSON_ArrayForEach(e, env) {
			if (cJSON_IsString(e)) {
				pmt_cli_sanitize(buf, sizeof(buf), e->valuestring, strlen(e->valuestring));
				fprintf(out, "%s=%s ", e->string, buf);
			}
		}
		fputc('\n', out);
	}
	fprintf(out, "%-13s%u\n", "runs", t->nruns);
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		const cJSON *ex = cJSON_GetObjectItemCaseSensitive(r->end, "exit");
		const char *kind = str_item(ex, "kind");
		double wall = r->t_end_ns > r->t_begin_ns && r->t_begin_ns ?
			(double)(r->t_end_ns - r->t_begin_ns) / 1e9 :
			(double)(r->st.last_t_ns - r->st.first_t_ns) / 1e9;
		fprintf(out, "  run %u: CPUs %s, %.3f s, %llu samples, %llu thread-samples, peak %u threads, "
			"%llu threads seen, exit %s %.0f\n", r->run_id, r->cpus[0] ? r->cpus : "?", wall,
			(unsigned long long)r->st.samples, (unsigned long long)r->st.thread_samples,
			r->st.m_peak, (unsigned long long)r->st.threads_seen, kind ? kind : "unknown",
			kind && strcmp(kind, "signaled") == 0 ? num_item(ex, "signal", 0) : num_item(ex, "code", 0));
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
	if (t->summary) {
		fprintf(out, "%-13s%.0f samples, %.0f late, %.0f lost, collector CPU %.3f s\n", "summary",
			num_item(t->summary, "samples", 0), num_item(t->summary, "late_samples", 0),
			num_item(t->summary, "lost_samples", 0), num_item(t->summary, "collector_cpu_ns", 0) / 1e9);
	} else {
		fprintf(out, "%-13snone (the collector did not finish)\n", "summary");
	}
	fprintf(out, "%-13s%s\n", "warnings", t->nwarnings ? "" : "none");
	for (uint32_t i = 0; i < t->nwarnings; i++) {
		pmt_cli_sanitize(buf, sizeof(buf), t->warnings[i], strlen(t->warnings[i]));
		fprintf(out, "  %s\n", buf);
	}
}

/* ---- --dump ---- */

static const char *rec_name(uint16_t type)
{
	switch (type) {
	case PMT_REC_META: return "meta";
	case PMT_REC_RUN_BEGIN: return "run_begin";
	case PMT_REC_RUN_END: return "run_end";
	case PMT_REC_SAMPLE: return "sample";
	case PMT_REC_TASK: return "task";
	case PMT_REC_COUNTERS: return "counters";
	case PMT_REC_SCHED: return "sched";
	case PMT_REC_SUMMARY: return "summary";
	case PMT_REC_WARNING: return "warning";
	default: return "unknown";
	}
}

static void dump_json_record(FILE *out, const struct pmt_record *rec)
{
	cJSON *o = cJSON_Parse(rec->u.json.text);
	char *text;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "error", "body is not a JSON object");
	}
	cJSON_DeleteItemFromObjectCaseSensitive(o, "type");
	cJSON_AddStringToObject(o, "type", rec_name(rec->type));
	if (!cJSON_HasObjectItem(o, "run_id"))
		cJSON_AddNumberToObject(o, "run_id", rec->u.json.run_id);
	cJSON_AddNumberToObject(o, "t_ns", (double)rec->u.json.t_ns);
	text = cJSON_PrintUnformatted(o);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(o);
}

static void dump_record(FILE *out, const struct pmt_record *rec)
{
	static const char *const kinds[] = { "?", "appear", "exit", "exec" };
	char comm[PMT_COMM_MAX * 4 + 1];

	switch (rec->type) {
	case PMT_REC_SAMPLE: {
		const struct pmt_sample *s = &rec->u.sample;
		fprintf(out, "{\"type\":\"sample\",\"run_id\":%u,\"t_ns\":%llu,\"duration_ns\":%u,\"threads\":[",
			s->run_id, (unsigned long long)s->t_ns, s->duration_ns);
		for (uint32_t i = 0; i < s->n; i++) {
			const struct pmt_thread_sample *ts = &s->threads[i];
			char st = ts->state >= 0x21 && ts->state < 0x7f && ts->state != '"' && ts->state != '\\' ?
				ts->state : '?';
			fprintf(out, "%s{\"tid\":%u,\"tgid\":%u,\"run_ns\":%llu,\"wait_ns\":%llu,"
				"\"timeslices\":%llu,\"nvcsw\":%u,\"nivcsw\":%u,\"cpu\":%d,\"state\":\"%c\",\"flags\":%u}",
				i ? "," : "", ts->tid, ts->tgid, (unsigned long long)ts->run_ns,
				(unsigned long long)ts->wait_ns, (unsigned long long)ts->timeslices, ts->nvcsw,
				ts->nivcsw, ts->cpu == PMT_CPU_UNKNOWN ? -1 : ts->cpu, st, ts->flags);
		}
		fputs("]}\n", out);
		break;
	}
	case PMT_REC_TASK: {
		const struct pmt_task_event *e = &rec->u.task;
		cJSON *o = cJSON_CreateObject();
		char *text;
		pmt_cli_sanitize(comm, sizeof(comm), e->comm ? e->comm : "", e->comm_len);
		cJSON_AddStringToObject(o, "type", "task");
		cJSON_AddNumberToObject(o, "run_id", e->run_id);
		cJSON_AddNumberToObject(o, "t_ns", (double)e->t_ns);
		cJSON_AddStringToObject(o, "kind", e->kind < 4 ? kinds[e->kind] : "?");
		cJSON_AddNumberToObject(o, "flags", e->flags);
		cJSON_AddNumberToObject(o, "tid", e->tid);
		cJSON_AddNumberToObject(o, "tgid", e->tgid);
		cJSON_AddNumberToObject(o, "ppid", e->ppid);
		cJSON_AddNumberToObject(o, "exit_status", e->exit_status);
		cJSON_AddNumberToObject(o, "final_run_ns", (double)e->final_run_ns);
		cJSON_AddNumberToObject(o, "final_wait_ns", (double)e->final_wait_ns);
		cJSON_AddStringToObject(o, "comm", comm);
		text = cJSON_PrintUnformatted(o);
		if (text)
			fprintf(out, "%s\n", text);
		free(text);
		cJSON_Delete(o);
		break;
	}
	case PMT_REC_COUNTERS: {
		const struct pmt_counters *c = &rec->u.counters;
		fprintf(out, "{\"type\":\"counters\",\"run_id\":%u,\"t_ns\":%llu,\"values\":[", c->run_id,
			(unsigned long long)c->t_ns);
		for (uint32_t i = 0; i < c->n; i++) {
			if (c->values[i] == PMT_COUNTER_INVALID)
				fprintf(out, "%snull", i ? "," : "");
			else
				fprintf(out, "%s%lld", i ? "," : "", (long long)c->values[i]);
		}
		fputs("]}\n", out);
		break;
	}
	case PMT_REC_SCHED: {
		/* one line per event: a record holds up to a million */
		static const char *const sched_kinds[] = { "?", "switch", "waking", "wakeup", "wakeup_new",
						     "fork", "exit", "migrate" };
		const struct pmt_sched_batch *b = &rec->u.sched;
		for (uint32_t i = 0; i < b->n; i++) {
			const struct pmt_sched_event *e = &b->events[i];
			fprintf(out, "{\"type\":\"sched\",\"run_id\":%u,\"t_ns\":%llu,\"event\":\"%s\","
				"\"cpu\":%u,\"ctx\":%u,\"common_pid\":%u,\"a\":%u,\"b\":%u,\"c\":%u",
				b->run_id, (unsigned long long)e->t_ns,
				sched_kinds[e->kind < 8 ? e->kind : 0], e->cpu, e->ctx, e->common_pid, e->a,
				e->b, e->c);
			if (i == 0 && b->missed)
				fprintf(out, ",\"missed_before\":%lld",
					b->missed == PMT_SCHED_MISSED_UNKNOWN ? -1LL : (long long)b->missed);
			fputs("}\n", out);
		}
		if (b->n == 0)
			fprintf(out, "{\"type\":\"sched\",\"run_id\":%u,\"cpu\":%u,\"events\":0,"
				"\"missed_before\":%lld}\n", b->run_id, b->cpu,
				b->missed == PMT_SCHED_MISSED_UNKNOWN ? -1LL : (long long)b->missed);
		break;
	}
	case PMT_REC_RUN_BEGIN:
	case PMT_REC_RUN_END:
	case PMT_REC_SUMMARY:
	case PMT_REC_WARNING:
	case PMT_REC_META:
		dump_json_record(out, rec);
		break;
	default:
		fprintf(out, "{\"type\":\"unknown\",\"record_type\":%u}\n", rec->type);
		break;
	}
}

int pma_dump(FILE *out, const char *path, unsigned flags, char *why, size_t whysize)
{
	struct pmt_reader *rd = NULL;
	struct pmt_record rec;
	struct pmt_reader_stats st;
	int rc;

	errno = 0;
	rc = pmt_reader_open(&rd, path, -1, flags);
	if (rc < 0) {
		if (rc == PMT_E_IO)
			snprintf(why, whysize, "cannot open '%s': %s", path, strerror(errno));
		else
			snprintf(why, whysize, "'%s': %s", path, pmt_strerror(rc));
		pmt_reader_close(rd);
		return rc;
	}
	memset(&rec, 0, sizeof(rec));
	rec.type = PMT_REC_META;
	rec.u.json.text = pmt_reader_meta(rd);
	rec.u.json.len = (uint32_t)strlen(rec.u.json.text);
	dump_record(out, &rec);
	while ((rc = pmt_reader_next(rd, &rec)) > 0)
		dump_record(out, &rec);
	if (rc < 0)
		snprintf(why, whysize, "'%s': %s", path, pmt_strerror(rc));
	pmt_reader_stats(rd, &st);
	if (rc == 0 && st.truncated)
		fprintf(out, "{\"type\":\"truncated\",\"chunks\":%llu}\n", (unsigned long long)st.chunks);
	pmt_reader_close(rd);
	return rc < 0 ? rc : 0;
}
