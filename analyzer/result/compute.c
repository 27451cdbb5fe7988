/* SPDX-License-Identifier: MIT */
/* compute.c: from loaded traces to struct pma_result: estimator choice, parallelism, predictions,
 * uncertainty, memory model, optimal core count and the spinning check, as the compute steps of
 * the report's sections (section.h), and pma_compute, which runs the listed sections' steps. */
#include "compute.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pm_cli.h"
#include "section.h"

/* The notes below are added with (void): out of memory, a note is dropped and the numbers are
 * still right. */

/* The value of environment variable name as recorded in META "env", or NULL. */
static const char *recorded_env(const struct pma_meta *m, const char *name)
{
	for (size_t i = 0; i < m->nenv; i++)
		if (strcmp(m->env[i].name, name) == 0)
			return m->env[i].value;
	return NULL;
}

/* Notes when the baseline may hide dependencies behind spinning: a spinning waiter is runnable, so
 * the run queue cannot see the dependency (Tudor & Teo, §II-B "Limitations"). Two signals, in
 * oversubscribed and direct runs alike: OMP_WAIT_POLICY=active in the recorded environment, and
 * what the samples show, the threads runnable nearly all the time (A > 0.97 k, k the highest level
 * of active threads holding >= 5% of T_cp) with fewer than one voluntary context switch per thread
 * per second (status nvcsw, over the time its fresh reads span). libgomp spins under
 * OMP_WAIT_POLICY=active, but only ~1000 iterations when its threads outnumber its CPUs, so a 1-CPU
 * baseline is mostly immune and a run on enough CPUs is not (tests/cli/t3100-openmp.sh: 2 threads
 * on 2 CPUs, imbalanced, truth 1.50: passive 1.50, active 1.99). */
static void check_spinning(struct pma_result *r)
{
	const char *policy = recorded_env(&r->t->meta, "OMP_WAIT_POLICY");
	const struct pma_est_stats *st = &r->run->st;
	const struct pma_par_result *pr = &r->par;
	/* on the exact mode's profile when the run has one, else the samples' runnable estimate: a
	 * spinner is running and never blocking in both, but when other processes share the CPUs the
	 * runnable estimate of two spinners falls below the threshold (1.92 for 2 in a loaded run,
	 * exact 1.97), while the events still see every thread active */
	enum pma_estimator_kind est = r->run->has_exact ? PMA_EST_SCHED : PMA_EST_RUNNABLE;
	double A = pr->by_est[est].A_inf;
	/* and the larger of the two when both exist: switch-ins the kernel did not record cost the
	 * exact mode a spinner's CPU time (1.91 for two spinners with 183 ms inferred, a quiet CI
	 * run; runnable 1.99), other processes cost the runnable estimate (above) */
	if (est == PMA_EST_SCHED && pr->have[PMA_EST_RUNNABLE] && pr->by_est[PMA_EST_RUNNABLE].A_inf > A)
		A = pr->by_est[PMA_EST_RUNNABLE].A_inf;
	/* per second of the thread time the fresh status reads span, not of m times the wall time:
	 * status is re-read every 64 samples, so in a short run most threads are read once and their
	 * switches are not seen (a 0.19 s phases run, 4 threads on 1 CPU, blocked 7 times at its
	 * barriers by its scheduler events and was said to block 0.00 times/s). Under one second
	 * spanned, "fewer than one per second" cannot be told from none seen: unknown */
	double span_s = st->nvcsw_span_ns / 1e9;
	double vol_per_thread_s = span_s >= 1.0 ? (double)st->nvcsw_total / span_s : -1;
	const struct pma_profile *prof = pma_run_profile(r->run, est);
	const struct pma_parallelism *p = &pr->by_est[est];
	size_t busiest = 0; /* highest level of active threads holding >= 5% of T_cp */
	int looks_spinning, active = policy && strcasecmp(policy, "active") == 0;

	/* against the busiest level rather than m, so that a thread that only sleeps (a runtime's
	 * helper, e.g. the sanitizers' background thread) does not hide the pattern */
	for (size_t k = 1; k < prof->nbins; k++)
		if (p->T_cp_ns > 0 && pma_profile_level_ns(prof, k) >= 0.05 * p->T_cp_ns)
			busiest = k;
	looks_spinning = busiest >= 2 && A > 0.97 * (double)busiest && vol_per_thread_s >= 0 &&
			 vol_per_thread_s < 1.0;
	/* what the note prints: the share of T_cp with at least `busiest` threads active, <= 100%
	 * (A / busiest read 101-114% when levels above the busiest held < 5% each: gentrace seeds
	 * 401, 537, ...) */
	double runnable_pct = 0;
	for (size_t k = busiest; busiest && k < prof->nbins; k++)
		runnable_pct += p->T_cp_ns > 0 ? 100 * pma_profile_level_ns(prof, k) / p->T_cp_ns : 0;
	runnable_pct = fmin(runnable_pct, 100);

	if (pr->m < 2)
		return;
	if (active && looks_spinning)
		(void)pma_note_add_spin_active_seen(&r->notes, &(struct pma_note_spin_active_seen){
			.threads = (double)busiest, .runnable_pct = runnable_pct,
			.blocks_per_s = vol_per_thread_s });
	else if (active)
		(void)pma_note_add_spin_active(&r->notes);
	else if (looks_spinning)
		(void)pma_note_add_spin_seen(&r->notes, &(struct pma_note_spin_seen){
			.threads = (double)busiest, .runnable_pct = runnable_pct,
			.blocks_per_s = vol_per_thread_s });
}

/* Exact modes' predictions (k sched-exact or switch-exact): T(n) from replaying the recorded
 * segments and wake edges on n cores (analyzer/model/exact.h; switch-exact's program from
 * pma_pswitch_program, its wakers guessed, charged no wake cost), A(m,n) = U / T(n) (eq. 6 as the
 * time-weighted mean of active threads, which for a replay without idle time is the work over the
 * time), S = A(m,n) / (1 + omega) (eq. 1). */
static int replay_predictions(struct pma_result *r, int k, char *why, size_t whysize)
{
	int sw = k == PMA_EST_SWITCH;
	double U = sw ? r->run->pst.work_ns : r->run->xst.work_ns;
	const struct pma_exact *x = sw ? pma_pswitch_program(r->run->pswitch) : r->run->exact;
	/* pma_wakecost_T reads the thread count and T_cp; no charges, a cache of its own */
	struct pma_exact_stats xst = { .threads = r->run->pst.threads, .T_cp_ns = r->run->pst.T_cp_ns };
	struct pma_wake_result nowake = { 0 };
	double T_err_ns;

	if (!x)
		return 0; /* no program (no events): the profile's eq. 6 stands */
	for (size_t i = 0; i < r->pred.ncores; i++) {
		struct pma_prediction *q = &r->pred.by_est[k][i];
		uint32_t n = r->pred.cores[i];
		double T;
		if (pma_wakecost_T(x, sw ? &xst : &r->run->xst, n, sw ? &nowake : &r->wake, &T,
				   sw ? &T_err_ns : &r->pred.T_err_ns[i]) < 0 || T <= 0) {
			snprintf(why, whysize, "'%s': the replay of run %u on %u cores failed (a wake "
				 "dependency never resolved)", r->t->path, r->run->run_id, n);
			return -1;
		}
		q->A = U / T;
		q->T_ns = T * (1 + q->omega); /* T(n) = T(1) / S = U (1 + omega) / A(m,n) */
		q->S = pma_speedup(q->A, q->omega);
		q->R = pma_speedup_loss(q->A, q->omega);
	}
	return 0;
}

/* A wake-up calibration (r->wake, from pmcollect --calibrate or another operand) changes the
 * sched-exact replay's discipline, not only its charge: per-core run queues with group wakes
 * replayed as barriers, where the replay without one shares all n cores (exact.h,
 * pma_exact_replay_charged). Where that moves A(m,n) visibly (0.005) at the most cores below the
 * thread count, the note wake-replay gives both replays and what the charges alone make (the
 * per-core replay at charge 0), and which trace the calibration came from. Returns 0 or -1 (out
 * of memory). */
static int note_wake_replay(struct pma_result *r)
{
	const struct pma_wake_result *w = &r->wake;
	const struct pma_exact *x = r->run->exact;
	const struct pma_wake_charge none = { 0 };
	double U = r->run->xst.work_ns, T_ch, T_sh, T_pc;

	if (!w->have || !w->cores || !x || r->par.est != PMA_EST_SCHED)
		return 0;
	if (pma_exact_replay_charged(x, w->cores, NULL, &T_sh, NULL) < 0 ||
	    pma_exact_replay_charged(x, w->cores, &none, &T_pc, NULL) < 0 ||
	    pma_exact_replay_charged(x, w->cores, &w->charge, &T_ch, NULL) < 0 ||
	    !(T_ch > 0) || !(T_sh > 0) || fabs(U / T_ch - U / T_sh) < 0.005)
		return 0;
	return pma_note_add_wake_replay(&r->notes, &(struct pma_note_wake_replay){
		.n = w->cores, .A_charged = U / T_ch, .T_charged_s = T_ch / 1e9, .A_shared = U / T_sh,
		.T_shared_s = T_sh / 1e9, .T_charges_ms = (T_ch - T_pc) / 1e6,
		.charge_us = w->charge.cross_ns / 1e3, .barriers = (double)w->wakes.barriers,
		.own = w->from == r->t->path, .from = w->from });
}

int pma_choose_estimator(const struct pma_run *run, int requested)
{
	if (requested >= 0)
		return requested;
	if (run->has_exact && run->xst.lost <= run->xst.events / 100)
		return PMA_EST_SCHED;
	/* perf's context switches (without tracefs: docs/model.md "switch-exact") first */
	return run->has_pswitch && run->pst.lost <= run->pst.events / 100 ? PMA_EST_SWITCH
									 : PMA_EST_RUNNABLE;
}

/* The run, the estimator and the parallelism section. Returns 0 or -1 with why. */
/* A run of one thread at a time (m = 1) is an answer, not an error: A(m,inf) = 1, S(m,n) = 1 at
 * every n and the optimum 1 core (Tudor & Teo, eq. 1 with A(m,n) = 1 and omega(1) = 0). The note
 * says so; it adds the -t hint only where the run loaded an OpenMP runtime (RUN_END omp_regions:
 * a runtime answered, or was seen in the program's memory map) on one CPU without
 * OMP_NUM_THREADS, since the runtime then starts one thread (docs/model.md), and names another run
 * of the trace that ran more threads (pmcollect --omp-regions -t 1-2). Returns 0 or -1 (out of
 * memory). */
static int note_serial(struct pma_result *r)
{
	const struct pma_trace *t = r->t;
	const struct pma_run *run = r->run, *many = NULL;
	const struct pma_omp_info *omp = &run->info.omp;
	/* the reason names the runtime when one was loaded but did not answer (collector/omp/omp.c) */
	int omp_loaded = omp->present && (omp->recorded || (omp->reason &&
			 (strstr(omp->reason, " was loaded ") || strstr(omp->reason, "GCC's OpenMP runtime"))));

	for (uint32_t k = 0; k < t->nruns; k++)
		if (&t->runs[k] != run && t->runs[k].m >= 2 && (!many || t->runs[k].m > many->m))
			many = &t->runs[k];
	return pma_note_add_serial(&r->notes, &(struct pma_note_serial){
		.omp_hint = omp_loaded && !recorded_env(&t->meta, "OMP_NUM_THREADS") && run->cpus_n == 1,
		.other_run = many != NULL, .many_run = many ? many->run_id : 0,
		.many_m = many ? (double)many->m : 0 });
}

static int compute_parallelism(struct pma_result *r, const struct pma_compute_opts *o, char *why,
			       size_t whysize)
{
	const struct pma_trace *t = r->t;
	const struct pma_run *run = pma_trace_run(t, o->run_id);
	struct pma_par_result *pr = &r->par;

	if (!run && o->run_id >= 0) {
		snprintf(why, whysize, "'%s': no run %ld in the trace", t->path, o->run_id);
		return -1;
	}
	/* pmcollect -- ./no-such-prog: RUN_END "not_started" (status 127), not an empty profile */
	if (run && run->st.intervals == 0 && run->info.exit_kind_name &&
	    strcmp(run->info.exit_kind_name, "not_started") == 0) {
		snprintf(why, whysize, "'%s': the program never started (run %u: pmcollect could not "
			 "execute the command, exit status %.0f): nothing to analyze", t->path,
			 run->run_id, run->info.exit_code);
		return -1;
	}
	if (!run || run->st.intervals == 0) {
		snprintf(why, whysize, "'%s': no samples to analyze", t->path);
		return -1;
	}
	r->run = run;
	/* the exact mode when the run has scheduler events and lost (nearly) none of them; the
	 * runnable estimator otherwise */
	pr->est = pma_choose_estimator(run, o->estimator);
	if (pr->est == PMA_EST_SCHED && !run->has_exact) {
		snprintf(why, whysize, "'%s': run %u has no scheduler events (record them with "
			 "pmcollect --sched, as root)", t->path, run->run_id);
		return -1;
	}
	if (pr->est == PMA_EST_SWITCH && !run->has_pswitch) {
		snprintf(why, whysize, "'%s': run %u has no context switches (record them with "
			 "pmcollect --perf-switch)", t->path, run->run_id);
		return -1;
	}
	pr->m = run->m;
	pr->m_source = run->m <= run->st.m_peak ? "peak of simultaneously live threads in the samples" :
		       run->has_exact && run->xst.max_active == run->m ?
		       "peak of threads running at once in the scheduler events" :
		       "peak of threads running at once in the context switches";
	if (pr->m < 2 && note_serial(r) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		const struct pma_profile *pk = pma_run_profile(run, k);
		pr->have[k] = pk != NULL;
		if (pk)
			pma_profile_parallelism(pk, pr->m, &pr->by_est[k]);
	}
	if (pr->by_est[pr->est].T_cp_ns <= 0) {
		snprintf(why, whysize, "'%s': the program received no CPU time in the samples", t->path);
		return -1;
	}
	pr->baseline_cores = run->cpus_n;
	pr->baseline_case = !pr->baseline_cores ? "unknown CPU set" :
		pr->baseline_cores < pr->m ? "oversubscribed baseline: A(m,inf) reconstructed (Tudor & Teo, eq. 4)" :
		"enough CPUs for every thread: A(m,inf) measured directly";
	{
		struct pma_run_sampling smp;
		pma_run_sampling(t, run, &smp);
		pr->interval_ms = smp.interval_ms;
		pr->interval_requested_ms = smp.requested_ms;
	}
	pr->wall_s = pma_run_wall_s(run);
	pr->T1_s = (pr->by_est[pr->est].work_ns + pma_run_profile(run, pr->est)->idle_ns) / 1e9;
	return 0;
}

/* The core counts to predict for: --cores, else 1 .. max(m, PUs of the recording machine), at
 * most PMA_DEFAULT_MAX_CORES of them (with a note): a trace may claim any count. Returns 0 or -1
 * (out of memory). */
static int choose_cores(struct pma_result *r, const struct pma_compute_opts *o)
{
	double maxn = fmax(r->par.m, r->t->meta.topo.pus);

	if (!o->cores && maxn > PMA_DEFAULT_MAX_CORES) {
		(void)pma_note_add_cores_capped(&r->notes, &(struct pma_note_cores_capped){
			.cap = PMA_DEFAULT_MAX_CORES, .max_n = maxn });
		maxn = PMA_DEFAULT_MAX_CORES;
	}
	r->pred.ncores = o->cores ? o->ncores : (size_t)maxn;
	r->pred.cores = malloc(r->pred.ncores * sizeof(uint32_t));
	r->pred.S_err = calloc(r->pred.ncores, sizeof(double));
	r->pred.T_err_ns = calloc(r->pred.ncores, sizeof(double));
	r->pred.S_err_A = calloc(r->pred.ncores, sizeof(double));
	r->pred.S_err_omega = calloc(r->pred.ncores, sizeof(double));
	r->pred.S_err_wake = calloc(r->pred.ncores, sizeof(double));
	r->pred.S_err_model = calloc(r->pred.ncores, sizeof(double));
	r->pred.S_err_runs = calloc(r->pred.ncores, sizeof(double));
	if (!r->pred.cores || !r->pred.S_err || !r->pred.T_err_ns || !r->pred.S_err_A ||
	    !r->pred.S_err_omega || !r->pred.S_err_wake || !r->pred.S_err_model ||
	    !r->pred.S_err_runs)
		return -1;
	for (size_t i = 0; i < r->pred.ncores; i++)
		r->pred.cores[i] = o->cores ? o->cores[i] : (uint32_t)(i + 1);
	return 0;
}

/* Predictions of every estimator with data, omega from the memory model (unknown omega predicts
 * with 0: no contention, S an upper bound; saturated omega gives no S), and the optimal core count
 * (eq. 11) over the headline estimator's S. Returns 0 or -1 with why. */
static int compute_predictions(struct pma_result *r, char *why, size_t whysize)
{
	struct pma_pred_result *pd = &r->pred;
	double *S = calloc(pd->ncores ? pd->ncores : 1, sizeof(double));

	if (!S)
		goto nomem;
	for (int k = 0; k < PMA_EST_COUNT; k++) {
		if (!r->par.have[k])
			continue;
		pd->by_est[k] = calloc(pd->ncores ? pd->ncores : 1, sizeof(struct pma_prediction));
		if (!pd->by_est[k])
			goto nomem;
		for (size_t i = 0; i < pd->ncores; i++)
			S[i] = isfinite(r->mem.omega[i]) ? r->mem.omega[i] : 0;
		pma_profile_predict(pma_run_profile(r->run, k), pd->cores, pd->ncores, S, pd->by_est[k]);
		if ((k == PMA_EST_SCHED || k == PMA_EST_SWITCH) && replay_predictions(r, k, why, whysize) < 0) {
			free(S);
			return -1;
		}
		for (size_t i = 0; i < pd->ncores; i++) {
			struct pma_prediction *q = &pd->by_est[k][i];
			q->omega = r->mem.omega[i];
			/* past saturation, or a core count the --machine target lacks: no S */
			if (isinf(r->mem.omega[i]) || r->mem.on_target[i] == PMA_ON_TARGET_ABSENT)
				q->S = q->R = q->T_ns = NAN;
			S[i] = q->S;
		}
		if (k == r->par.est)
			pma_optimal_cores(pd->cores, S, pd->ncores, &r->opt);
	}
	free(S);
	return 0;
nomem:
	free(S);
	snprintf(why, whysize, "out of memory");
	return -1;
}

/* ±S of every row from its parts, independent errors in quadrature: A's (the estimator's
 * resolution, late samples, the estimators' gap), omega's, the replay's wake cost, the model's
 * error at the trace's own runs and a measured S's own spread there (docs/model.md
 * "Uncertainty"). A part that is not a number (S past saturation) leaves ±S not a number there,
 * as S is. */
static void compose_S_err(struct pma_result *r)
{
	struct pma_pred_result *pd = &r->pred;

	for (size_t i = 0; i < pd->ncores; i++)
		pd->S_err[i] = sqrt(pd->S_err_A[i] * pd->S_err_A[i] + pd->S_err_omega[i] * pd->S_err_omega[i] +
				    pd->S_err_wake[i] * pd->S_err_wake[i] +
				    pd->S_err_model[i] * pd->S_err_model[i] +
				    pd->S_err_runs[i] * pd->S_err_runs[i]);
}

/* Uncertainty: one sampling interval's worth of misplaced critical path (a change of parallelism
 * is located to within one interval). The other estimator's value is reported beside it rather
 * than folded in: the paper's is biased low by design when slices are long. */
static void compute_uncertainty(struct pma_result *r)
{
	const struct pma_run *run = r->run;
	const struct pma_parallelism *p = &r->par.by_est[r->par.est];
	/* exact mode: lost events as a share of all events, and CPU time credited to switches the
	 * kernel did not record, as a share of the work */
	double gran = r->par.est == PMA_EST_SCHED ?
		(double)run->xst.lost / (double)(run->xst.events + run->xst.lost) +
			run->xst.inferred_ns / run->xst.work_ns :
		run->st.window_ns > 0 ? run->st.window_ns / p->T_cp_ns : 0;

	if (r->par.est == PMA_EST_SWITCH)
		gran = pma_pswitch_rel_err(&run->pst);
	/* a trace with no events or no work (0 / 0) has no resolution to speak of: not NaN; one
	 * thread at a time (m = 1) has A(m,inf,t) 0 or 1 wherever a change falls, so A = 1 exactly */
	if (!isfinite(gran) || gran < 0 || r->par.m < 2)
		gran = 0;
	r->par.A_err = p->A_inf * gran;
	for (size_t i = 0; i < r->pred.ncores; i++) {
		const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
		double dw = r->mem.omega_err[i], w = r->mem.omega[i];
		/* unknown omega predicts with 0 (compute_predictions): the replay's T(n) is T (1 + 0) */
		double w0 = isfinite(w) ? w : 0;
		/* the replay's, from the wake-up cost's spread: S = T(1) / T(n), so dS / S = dT / T */
		double dT = r->par.est == PMA_EST_SCHED && q->T_ns > 0 ?
				    r->pred.T_err_ns[i] * (1 + w0) / q->T_ns : 0;
		r->pred.S_err_A[i] = q->S * gran;
		r->pred.S_err_wake[i] = q->S * dT;
		/* omega's uncertainty from the spread of repeated calibration runs (docs/scaling.md),
		   where omega is known */
		r->pred.S_err_omega[i] = pma_mem_S_err(q->S, 0, w, dw);
	}
	compose_S_err(r);
}

/* The scaling study of the sweep runs of traces[0] against the headline predictions. Returns 0
 * or -1 (out of memory). */
static double run_other_s(const struct pma_run *run, int est, double wall_s);

/* The sweep's runs against the predictions less their waits for other processes' CPUs, as the
 * runs check takes them out (runcheck.h, run_other_s): the baseline and the sweep runs of the
 * baseline's thread count that exited 0, wall times as the scaling table's (pma_run_wall_s).
 * Where some configuration's runs waited over PMA_RUNCHECK_OTHER_MIN of their wall time, the note
 * sweep-waited gives the worst one and the errors less the wait. Returns 0 or -1 (out of
 * memory). */
static int sweep_waited(struct pma_result *r)
{
	const struct pma_scaling *sc = &r->scaling;
	const struct pma_trace *t = r->t;
	uint32_t cores[PMA_RUNCHECK_MAX], *cpus = NULL;
	double S[PMA_RUNCHECK_MAX], dS[PMA_RUNCHECK_MAX], *wall = NULL, *other = NULL, sum = 0;
	size_t nc = 0, k = 0, nconf = 0;
	const struct pma_runcheck_row *worst = NULL;
	struct pma_runcheck *rc = NULL;
	int ret = -1;

	if (!sc->present || !sc->npred || !t->nruns)
		return 0;
	for (size_t i = 0; i < sc->nrows && nc < PMA_RUNCHECK_MAX; i++)
		if (isfinite(sc->rows[i].err_pct) && sc->rows[i].cores > 1) {
			cores[nc] = sc->rows[i].cores;
			S[nc] = sc->rows[i].S_pred;
			dS[nc++] = sc->rows[i].S_pred_err;
		}
	wall = malloc(t->nruns * sizeof(*wall));
	other = malloc(t->nruns * sizeof(*other));
	cpus = malloc(t->nruns * sizeof(*cpus));
	rc = malloc(sizeof(*rc));
	if (!wall || !other || !cpus || !rc)
		goto out;
	for (uint32_t j = 0; j < t->nruns; j++) {
		const struct pma_run *run = &t->runs[j];
		if ((run != r->run && run->info.role != PMA_ROLE_SWEEP) || !pma_run_exited_ok(run) ||
		    !run->cpus_n || !(run->info.role != PMA_ROLE_SWEEP || run->info.has_sweep) ||
		    (isfinite(run->info.sweep_threads) ? run->info.sweep_threads : run->info.threads) !=
			    sc->m)
			continue;
		wall[k] = pma_run_wall_s(run);
		other[k] = run_other_s(run, r->par.est, wall[k]);
		cpus[k++] = run->cpus_n;
	}
	pma_runcheck_rows(wall, cpus, k, cores, S, dS, nc, rc);
	pma_runcheck_set_other(rc, wall, other, cpus, k);
	for (size_t i = 0; i < rc->n; i++) {
		const struct pma_runcheck_row *w = &rc->rows[i];
		sum += fabs(100 * (w->S_pred - w->S_own) / w->S_own);
		nconf++;
		if (w->corrected && (!worst || w->other_n_pct > worst->other_n_pct))
			worst = w;
	}
	ret = 0;
	if (worst)
		ret = pma_note_add_sweep_waited(&r->notes, &(struct pma_note_sweep_waited){
			.n = worst->cores, .other_n_s = worst->other_n_s,
			.other_n_pct = worst->other_n_pct, .other_1_s = worst->other_1_s,
			.other_1_pct = worst->other_1_pct, .S_wall = worst->S, .S_own = worst->S_own,
			.err_own_pct = 100 * (worst->S_pred - worst->S_own) / worst->S_own,
			.mean_own_pct = sum / (double)nconf, .nconf = (double)nconf }) < 0 ? -1 : 0;
out:
	free(wall);
	free(other);
	free(cpus);
	free(rc);
	return ret;
}

static int compute_scaling(struct pma_result *r, unsigned class_unit, int aggregate)
{
	size_t n = r->pred.ncores;
	double *S = calloc(n ? n : 1, sizeof(double));
	int rc = -1;

	if (S) {
		for (size_t i = 0; i < n; i++)
			S[i] = r->pred.by_est[r->par.est][i].S;
		rc = pma_scaling_compute(r->t, r->run, r->pred.cores, S, r->pred.S_err, r->mem.omega,
					 n, class_unit, (enum pma_pmnf_aggregate)aggregate, &r->scaling);
	}
	free(S);
	if (rc == 0 && sweep_waited(r) < 0)
		rc = -1;
	/* x T(x) - T(1) counts x CPUs: say so when the threads outnumber the runs' CPUs */
	if (rc == 0 && r->scaling.oversub_threads &&
	    pma_note_add_overhead_oversubscribed(&r->notes, &(struct pma_note_overhead_oversubscribed){
			.threads = r->scaling.oversub_threads, .cpus = r->scaling.oversub_cores }) < 0)
		rc = -1;
	return rc;
}

/* Measured S(n) = T(1) / T(n), one point per run (those on 1 CPU too: their spread about 1),
 * T(1) the median over the 1-CPU runs: runs of the analyzed traces that exited 0 with the same m, program wall times
 * (pma_run_program_wall_s), the runs check's choices (runcheck.h). A run that failed or was cut
 * short measured its failure, not the program: it is no point. */
static int compute_measured(struct pma_result *r)
{
	struct pma_measured_result *ms = &r->measured;
	double *T1 = NULL, T1_med = 0;
	size_t n1 = 0, nruns = 0;

	for (int i = 0; i < r->ntraces; i++)
		nruns += r->traces[i].nruns;
	if (!nruns)
		return 0;
	if (!(T1 = malloc(nruns * sizeof(*T1))))
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < r->ntraces; i++)
			for (uint32_t j = 0; j < r->traces[i].nruns; j++) {
				const struct pma_run *run = &r->traces[i].runs[j];
				double wall = pma_run_program_wall_s(run);
				if (!pma_run_exited_ok(run) || !run->cpus_n || !(wall > 0) ||
				    (double)run->m != r->par.m)
					continue;
				if (pass == 0 && run->cpus_n == 1) {
					T1[n1++] = wall;
				} else if (pass == 1 && ms->n < PMA_MEASURED_MAX) {
					ms->cores[ms->n] = run->cpus_n;
					ms->wall_s[ms->n] = wall;
					ms->S[ms->n++] = T1_med / wall;
				}
			}
		if (!n1)
			break; /* no T(1): no point */
		T1_med = pma_pmnf_aggregate(T1, n1, PMA_PMNF_AGG_MEDIAN);
	}
	free(T1);
	return 0;
}

/* The runs check's rows (runcheck.h) from the predictions and ±S as they stand: the analyzed
 * trace's baseline and calibration runs that exited 0 with the analyzed m, on the recording
 * machine (not with --machine, whose predictions are for another). Built once before the
 * optimum (which takes the runs' S where they measured it) and again at the end with the final
 * ±S. Returns 0 or -1 (out of memory). */
/* The seconds of run's wall_s it was ready to run while its CPUs ran other processes: the wall
 * time its own profile on its CPUs leaves unexplained (as check_unexplained reads it for the
 * analyzed run: U / A(m,c) + idle, eq. 6), at most the CPU time other processes used over the
 * run (RUN_END other_load.cpus x wall, from /proc/stat), so that a wait with idle CPUs (where
 * Linux places woken threads) stays the model's. 0 when either is unknown. */
static double run_other_s(const struct pma_run *run, int est, double wall_s)
{
	const struct pma_profile *prof = pma_run_profile(run, est);
	double cap_s = run->info.energy.other_load_cpus * wall_s;
	uint32_t c = run->cpus_n;
	struct pma_prediction q;

	if (!prof || !(cap_s > 0) || pma_profile_predict(prof, &c, 1, NULL, &q) < 0 || !(q.A > 0) ||
	    !isfinite(q.T_ns))
		return 0;
	return fmin(fmax(wall_s - q.T_ns / 1e9, 0), cap_s);
}

/* omega(n) of the memory model at n cores (the predictions table's, eq. 7-10) for the quota
 * replays, with its source into *src ("memory model, C(n) from cpu_time" style, static); 0 with
 * *src NULL when unknown (no calibration, or n not among the table's core counts); 0 for n 1. */
static double quota_omega(const struct pma_result *r, uint32_t n, const char **src)
{
	*src = NULL;
	if (n <= 1)
		return 0;
	for (size_t i = 0; r->mem.omega && i < r->pred.ncores; i++)
		if (r->pred.cores[i] == n && isfinite(r->mem.omega[i]) && r->mem.omega[i] > -1) {
			*src = pma_mem_cal_source_name(&r->mem.cal, 1);
			return r->mem.omega[i];
		}
	return 0;
}

/* The scheduler tick of the kernel the trace was recorded on, for the quota replay's per-CPU
 * slices (exact.h pma_exact_replay_quota: a core's runtime is accounted at each tick): 1 s / META
 * config_hz (the kernel's CONFIG_HZ, FORMAT.md §6), else the kernel's default CONFIG_HZ of 250
 * (kernel/Kconfig.hz; PMA_QUOTA_TICK_DEFAULT_NS), marked as not recorded. */
static struct pma_quota_tick trace_tick(const struct pma_meta *m)
{
	struct pma_quota_tick t = { PMA_QUOTA_TICK_DEFAULT_NS, lround(1e9 / PMA_QUOTA_TICK_DEFAULT_NS), 0 };

	if (m->config_hz > 0) {
		t.config_hz = m->config_hz;
		t.tick_ns = 1e9 / (double)m->config_hz;
		t.recorded = 1;
	}
	return t;
}

/* The limit the trace was recorded under (META cpu_limit with a quota: a container's, or
 * pmcollect --quota's) as the quota study's options: that one quota, its period and burst, the
 * tick of the trace's kernel (trace_tick). Returns 1, or 0 (q untouched) when META has none. */
static int recorded_quota(const struct pma_meta *m, struct pma_quota_opts *q)
{
	if (!m->cpu_limit_present || !(m->cpu_quota_us > 0) || !(m->cpu_period_us > 0))
		return 0;
	memset(q, 0, sizeof(*q));
	q->nQ = 1;
	q->Q_cpus[0] = m->cpu_quota_us / m->cpu_period_us;
	q->period_ns = m->cpu_period_us * 1e3;
	q->burst_ns = m->cpu_burst_us * 1e3;
	q->tick_ns = trace_tick(m).tick_ns;
	return 1;
}

/* The runs of a trace recorded under a CPU limit (META cpu_limit with a quota) ran under it: the
 * prediction they are checked against is S(n, Q) = T(1, Q) / T(n, Q) (quota.h, the replay under
 * CFS bandwidth control), written into S[i] for each core count cores[i] some run has (cpus[],
 * nruns of them); r->runcheck.quota_cpus = Q. Nothing without a limit. Returns 0 or -1 (a
 * replay failed or no memory). */
static int quota_S(struct pma_result *r, const uint32_t *cpus, size_t nruns, double *S, size_t nc)
{
	const struct pma_meta *m = &r->t->meta;
	struct pma_quota_opts q = { 0 };
	struct pma_quota_result one = { 0 }, at_n = { 0 };
	int rc = 0;

	if (!nruns || !recorded_quota(m, &q))
		return 0;
	if (pma_quota_for_run(r->run, r->par.est, &r->wake, 1, &q, &one) < 0 || one.nrows != 1)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < nc; i++) {
		int has = 0;
		for (size_t j = 0; j < nruns && !has; j++)
			has = cpus[j] == r->pred.cores[i];
		if (!has || r->pred.cores[i] < 2)
			continue;
		q.omega = quota_omega(r, r->pred.cores[i], &q.omega_source);
		if (pma_quota_for_run(r->run, r->par.est, &r->wake, r->pred.cores[i], &q, &at_n) < 0 ||
		    at_n.nrows != 1)
			rc = -1;
		else
			S[i] = at_n.rows[0].T_ns > 0 ? one.rows[0].T_ns / at_n.rows[0].T_ns : NAN;
		pma_quota_result_free(&at_n);
	}
	pma_quota_result_free(&one);
	r->runcheck.quota_cpus = rc == 0 ? q.Q_cpus[0] : 0;
	return rc;
}

static int runs_rows(struct pma_result *r, const struct pma_compute_opts *o)
{
	double *wall = NULL, *other = NULL, S[PMA_RUNCHECK_MAX];
	uint32_t *cpus = NULL;
	size_t k = 0, nc = r->pred.ncores < PMA_RUNCHECK_MAX ? r->pred.ncores : PMA_RUNCHECK_MAX;
	int ret = -1;

	size_t nruns = 0;

	memset(&r->runcheck, 0, sizeof(r->runcheck));
	for (int ti = 0; ti < r->ntraces; ti++)
		nruns += r->traces[ti].nruns;
	if (o->machine || !nruns)
		return 0;
	wall = malloc(nruns * sizeof(*wall));
	other = malloc(nruns * sizeof(*other));
	cpus = malloc(nruns * sizeof(*cpus));
	if (!wall || !other || !cpus)
		goto out;
	/* the runs of every trace given (a separate calibration trace's too: the same program,
	 * pma_traces_same_program) */
	for (int ti = 0; ti < r->ntraces; ti++)
		for (uint32_t j = 0; j < r->traces[ti].nruns; j++) {
			const struct pma_run *run = &r->traces[ti].runs[j];
			if ((run->info.role != PMA_ROLE_BASELINE &&
			     run->info.role != PMA_ROLE_CALIBRATION) || !pma_run_exited_ok(run) ||
			    !run->cpus_n || (double)run->m != r->par.m)
				continue;
			wall[k] = pma_run_program_wall_s(run);
			other[k] = run_other_s(run, r->par.est, wall[k]);
			cpus[k++] = run->cpus_n;
		}
	for (size_t i = 0; i < nc; i++)
		S[i] = r->pred.by_est[r->par.est][i].S;
	if (quota_S(r, cpus, k, S, nc) < 0)
		goto out;
	{
		double Q = r->runcheck.quota_cpus; /* pma_runcheck_rows starts out afresh */
		pma_runcheck_rows(wall, cpus, k, r->pred.cores, S, r->pred.S_err, nc, &r->runcheck);
		r->runcheck.quota_cpus = Q;
	}
	pma_runcheck_set_other(&r->runcheck, wall, other, cpus, k);
	ret = 0;
out:
	free(wall);
	free(other);
	free(cpus);
	return ret;
}

/* Appends to r->runcheck the rows of the core counts the trace's runs measured (baseline and
 * calibration runs that exited 0 with the analyzed m) that --cores left out of the table: their
 * predictions come from the same computation on those core counts alone (pma_compute with o's
 * options and cores = them, whose runs check has their rows), so ±S's model part, which the
 * rows measure, does not depend on which rows are printed. Their S_err_total is completed by
 * check_runs. Returns 0 or -1 (out of memory); a side computation that fails adds no rows. */
static int runs_rows_unprinted(struct pma_result *r, const struct pma_compute_opts *o)
{
	uint32_t miss[PMA_RUNCHECK_MAX];
	size_t nmiss = 0;
	struct pma_compute_opts o2 = *o;
	struct pma_result side;
	char why[256];

	if (o->machine || !o->cores)
		return 0;
	for (uint32_t j = 0, ti = 0; ti < (uint32_t)r->ntraces && nmiss < PMA_RUNCHECK_MAX;
	     j = j + 1 < r->traces[ti].nruns ? j + 1 : (ti++, 0)) {
		const struct pma_run *run;
		size_t i;
		if (!r->traces[ti].nruns)
			continue;
		run = &r->traces[ti].runs[j];
		if (run->info.role != PMA_ROLE_CALIBRATION || !pma_run_exited_ok(run) ||
		    run->cpus_n <= 1 || (double)run->m != r->par.m)
			continue;
		for (i = 0; i < r->pred.ncores && r->pred.cores[i] != run->cpus_n; i++)
			;
		if (i < r->pred.ncores)
			continue; /* printed: runs_rows has it */
		for (i = 0; i < nmiss && miss[i] != run->cpus_n; i++)
			;
		if (i < nmiss)
			continue;
		/* sorted, as --cores is */
		for (i = nmiss++; i > 0 && miss[i - 1] > run->cpus_n; i--)
			miss[i] = miss[i - 1];
		miss[i] = run->cpus_n;
	}
	if (!nmiss)
		return 0;
	o2.cores = miss;
	o2.ncores = nmiss;
	o2.quota = NULL;
	if (pma_compute(r->traces, r->ntraces, &o2, &side, why, sizeof(why)) < 0 ||
	    side.kind != PMA_RESULT_RUN) {
		pma_result_free(&side);
		return why[0] && !strcmp(why, "out of memory") ? -1 : 0;
	}
	for (size_t i = 0; i < side.runcheck.n && r->runcheck.n < PMA_RUNCHECK_MAX; i++)
		r->runcheck.rows[r->runcheck.n++] = side.runcheck.rows[i];
	pma_result_free(&side);
	return 0;
}

/* The predictions against the trace's own runs with the final ±S from the spreads; then the
 * model's error the runs show, carried to every n as its own part of ±S (docs/model.md "The
 * model's error, carried into ±S"). A note names the worst core count whose prediction misses
 * the runs' range by more than its ±S. Returns 0 or -1 (out of memory). */
static int check_runs(struct pma_result *r, const struct pma_compute_opts *o)
{
	const struct pma_runcheck_row *w, *waited = NULL;
	size_t nc = r->pred.ncores < PMA_RUNCHECK_MAX ? r->pred.ncores : PMA_RUNCHECK_MAX;

	if (runs_rows(r, o) < 0 || runs_rows_unprinted(r, o) < 0)
		return -1;
	/* idle cores (n > m) change nothing, so the distance stops at the busy ones */
	for (size_t i = 0; i < r->pred.ncores; i++) {
		double Si = r->pred.by_est[r->par.est][i].S;
		uint32_t nb = r->mem.busy[i] < r->pred.cores[i] ? r->mem.busy[i] : r->pred.cores[i];
		r->pred.S_err_model[i] = isfinite(Si) ? Si * pma_runcheck_model_rel(&r->runcheck, nb) :
			NAN;
		r->pred.S_err_runs[i] = isfinite(Si) ? Si * pma_runcheck_spread_rel(&r->runcheck, nb) :
			NAN;
	}
	compose_S_err(r);
	pma_runcheck_set_total(&r->runcheck, r->pred.cores, r->pred.S_err, nc);
	/* rows --cores left out of the table: their spreads' ±S and the model's part at n */
	for (size_t i = 0; i < r->runcheck.n; i++) {
		struct pma_runcheck_row *x = &r->runcheck.rows[i];
		size_t j;
		for (j = 0; j < r->pred.ncores && r->pred.cores[j] != x->cores; j++)
			;
		if (j < r->pred.ncores || !isfinite(x->S_pred))
			continue;
		uint32_t nb = x->cores < r->par.m ? x->cores : (uint32_t)r->par.m;
		x->S_err_total = hypot(hypot(x->S_pred_err, x->S_pred * pma_runcheck_model_rel(
			&r->runcheck, nb)), x->S_pred * pma_runcheck_spread_rel(&r->runcheck, nb));
	}
	for (size_t i = 0; i < r->runcheck.n; i++) {
		const struct pma_runcheck_row *x = &r->runcheck.rows[i];
		if (x->corrected && (!waited || x->other_n_pct > waited->other_n_pct))
			waited = x;
	}
	if (waited)
		(void)pma_note_add_runs_waited(&r->notes, &(struct pma_note_runs_waited){
			.n = waited->cores, .other_n_s = waited->other_n_s,
			.other_n_pct = waited->other_n_pct, .other_1_s = waited->other_1_s,
			.other_1_pct = waited->other_1_pct, .S_wall = waited->S, .S_own = waited->S_own,
			.S_pred = waited->S_pred });
	if ((w = pma_runcheck_worst(&r->runcheck)))
		(void)pma_note_add_runs_disagree(&r->notes, &(struct pma_note_runs_disagree){
			.n = w->cores, .S_pred = w->S_pred, .S_err = w->S_pred_err, .S = w->S_own,
			.S_min = w->S_own_min, .S_max = w->S_own_max, .runs_n = (double)w->runs_n,
			.runs_1 = (double)w->runs_1 });
	return 0;
}

/* ---- the model's invariants (docs/model.md "Invariants") ----
 * Whatever the inputs, the report never shows a number that breaks: omega(1) = 0 (eq. 7: C(1)/C(1)
 * - 1), L >= 0 (eq. 8: an arrival rate), S(m,n) <= min(n, A(m,inf)) (n cores run at most n
 * threads at once, and no more than A(m,inf) on average: eq. 1 and 6), T(n) >= max(T_cp, U/n),
 * and an optimum (eq. 11) <= m. Where the inputs break one, the number is brought back to the
 * bound and a note names the input and by how much. */

/* An oversubscribed baseline needs intervals of several CFS time slices (a few ms each) for the
 * runnable estimator; below this it gets PMA_NOTE_FINE_INTERVAL. */
#define PMA_MIN_OVERSUB_INTERVAL_MS 5.0

/* Relative slack for rounding: a bound broken by less is not broken. */
#define INV_EPS 1e-9

/* omega(1) = 0 and L >= 0 on the memory model's output, before the predictions use it. */
static void enforce_omega_invariants(struct pma_result *r)
{
	struct pma_mem_eval *e = &r->mem;
	struct pma_mem_params *p = &e->cal.params;

	if (p->model != PMA_MEM_NONE && p->L < 0) {
		size_t far = 0; /* the calibration point with the most cores on one socket */
		for (size_t i = 0; i < e->cal.npts; i++)
			if (e->cal.pts[i].cores == e->cal.pts[i].n_first &&
			    e->cal.pts[i].cores > e->cal.pts[far].cores)
				far = i;
		(void)pma_note_add_inv_l_neg(&r->notes, &(struct pma_note_inv_l_neg){
			.L = p->L, .C1 = p->C1, .n = e->cal.pts[far].cores, .Cn = e->cal.pts[far].C,
			.omega = e->cal.omega_meas[far] });
		p->L = 0;
		p->beta = 0;
		p->n_sat = INFINITY;
		for (size_t i = 0; i < e->cal.npts; i++)
			e->cal.omega_model[i] = fmax(e->cal.omega_model[i], 0);
		for (size_t i = 0; i < e->ncores; i++)
			if (isfinite(e->omega[i]))
				e->omega[i] = fmax(e->omega[i], 0);
	}
	for (size_t i = 0; i < e->ncores; i++) {
		if (r->pred.cores[i] != 1 || !isfinite(e->omega[i]))
			continue;
		if (fabs(e->omega[i]) >= 0.005) /* visible at the table's precision */
			(void)pma_note_add_inv_omega1(&r->notes, &(struct pma_note_inv_omega1){
				.omega1 = e->omega[i] });
		e->omega[i] = 0;
		e->cross[i] = 0;
	}
}

/* S <= min(n, A(m,inf)) and T(n) >= max(T_cp, U/n) on the predictions of estimator k; notes
 * (for the headline estimator) where the inputs broke them. */
static void enforce_prediction_bounds(struct pma_result *r, int k)
{
	const struct pma_parallelism *p = &r->par.by_est[k];
	struct pma_prediction *v = r->pred.by_est[k];
	double worst = 0, wS = 0, wcap = 0, wom = 0, wn = 0, first = 0, last = 0;
	double tworst = 0, tn = 0, tT = 0, tbound = 0, traised = 0;

	for (size_t i = 0; i < r->pred.ncores; i++) {
		struct pma_prediction *q = &v[i];
		double n = q->cores, cap = fmin(n, p->A_inf), floor_ns = fmax(p->T_cp_ns, p->work_ns / n);

		if (q->A > cap * (1 + INV_EPS)) /* rounding in the replay or the profile sums */
			q->A = cap;
		if (isfinite(q->S) && q->S > cap * (1 + INV_EPS)) {
			double S_old = q->S;
			if (!first)
				first = n;
			last = n;
			if (S_old / cap > worst) {
				worst = S_old / cap;
				wS = S_old;
				wcap = cap;
				wom = q->omega;
				wn = n;
			}
			q->S = cap;
			/* omega that gives S = A / (1 + omega) = cap (eq. 1) and R = A - S (eq. 3) */
			if (isfinite(q->omega))
				q->omega = q->A / cap - 1;
			q->R = q->A - q->S;
			q->T_ns += p->work_ns * (1 / q->S - 1 / S_old); /* T = U / S plus idle time */
		}
		if (isfinite(q->T_ns) && q->T_ns < floor_ns * (1 - INV_EPS)) {
			if (floor_ns / q->T_ns > tworst) {
				tworst = floor_ns / q->T_ns;
				tn = n;
				tT = q->T_ns;
				tbound = floor_ns;
			}
			traised++;
			q->T_ns = floor_ns;
		}
	}
	if (k != r->par.est)
		return;
	if (first)
		(void)pma_note_add_inv_s_cap(&r->notes, &(struct pma_note_inv_s_cap){
			.first_n = first, .last_n = last, .worst_n = wn, .S = wS, .S_cap = wcap,
			.omega = wom });
	if (traised)
		(void)pma_note_add_inv_t_floor(&r->notes, &(struct pma_note_inv_t_floor){
			.worst_n = tn, .T_s = tT / 1e9, .bound_s = tbound / 1e9, .rows = traised });
}

/* The optimum (eq. 11) of the headline S over the rows with a known omega, then over n <= m.
 * A row whose omega is unknown (more cores than the target has, or no placement) predicts with
 * omega = 0, an upper bound of S: mixed with rows of a known omega, S jumps where omega becomes
 * unknown (5.71 at n = 8 -> 6.12 at n = 9 on an 8-core --machine) and that row would win (issue
 * 19's audit). With no known omega at all (no calibration) every row is the same upper bound and
 * all count. And m threads run on at most m cores: a row n > m predicts S(m) with the other
 * cores idle (busy cores min(n, m), contention.c), not a reason to buy more cores than threads.
 * It beats the rows n <= m when --cores lists none from the best of them up to m (pigz, m = 10,
 * --cores 1,2,16: S(16) = S(10) = 3.15 against S(2) = 1.90); the note says so, and which counts
 * to add (formerly it blamed omega falling beyond m, which the busy-core rule made impossible). */
static void enforce_optimum(struct pma_result *r)
{
	const struct pma_prediction *v = r->pred.by_est[r->par.est];
	size_t n = r->pred.ncores, k_m = 0;
	double *S = malloc((n ? n : 1) * sizeof(double)), *S_all = malloc((n ? n : 1) * sizeof(double));
	double first_unk = 0, last_unk = 0;
	struct pma_optimal all, known;
	int any_known = 0;

	memset(&r->opt, 0, sizeof(r->opt));
	if (!S || !S_all) {
		free(S);
		free(S_all);
		return; /* out of memory: no optimum */
	}
	for (size_t i = 0; i < n; i++)
		any_known |= isfinite(v[i].omega);
	r->pred.n_opt_measured = 0;
	for (size_t i = 0; i < n; i++) {
		S[i] = S_all[i] = v[i].S;
		/* where the trace's own runs measured S, the optimum takes theirs (runs_rows): their
		 * own time, less the waits for other processes' CPUs where those count (S_own) */
		for (size_t j = 0; j < r->runcheck.n; j++)
			if (r->runcheck.rows[j].cores == r->pred.cores[i] &&
			    isfinite(r->runcheck.rows[j].S_own) &&
			    r->pred.n_opt_measured < PMA_OPT_MEASURED_MAX) {
				S[i] = S_all[i] = r->runcheck.rows[j].S_own;
				r->pred.opt_measured[r->pred.n_opt_measured++] = r->pred.cores[i];
				break;
			}
		if (any_known && isnan(v[i].omega) && !(r->pred.n_opt_measured &&
			r->pred.opt_measured[r->pred.n_opt_measured - 1] == r->pred.cores[i])) {
			S[i] = NAN;
			if (!first_unk)
				first_unk = r->pred.cores[i];
			last_unk = r->pred.cores[i];
		}
		if (r->pred.cores[i] <= r->par.m)
			k_m = i + 1; /* cores are ascending: the prefix up to m */
	}
	memset(&all, 0, sizeof(all));
	memset(&known, 0, sizeof(known));
	(void)pma_optimal_cores(r->pred.cores, S_all, n, &all);
	if (pma_optimal_cores(r->pred.cores, S, n, &known) == 0 && known.n_best > r->par.m) {
		if (k_m)
			pma_optimal_cores(r->pred.cores, S, k_m, &r->opt);
		for (size_t i = k_m; i < n; i++)
			S[i] = NAN; /* the optimum is over n <= m: so is its choice in the noise */
		if (!r->opt.n_best || known.S_best > r->opt.S_best * (1 + INV_EPS))
			(void)pma_note_add_inv_opt_cap(&r->notes, &(struct pma_note_inv_opt_cap){
				.n_best = known.n_best, .S_best = known.S_best, .m = r->par.m,
				.n_opt = r->opt.n_best, .S_opt = r->opt.S_best,
				.n_listed = k_m ? r->pred.cores[k_m - 1] : 0 });
	} else {
		r->opt = known;
	}
	/* the best row overall has an unknown omega and beats the optimum given */
	for (size_t i = 0; first_unk && all.n_best && i < n; i++) {
		if (r->pred.cores[i] != all.n_best || !isnan(S[i]) ||
		    !(all.S_best > (r->opt.n_best ? r->opt.S_best : 0) * (1 + INV_EPS)))
			continue;
		(void)pma_note_add_opt_known_omega(&r->notes, &(struct pma_note_opt_known_omega){
			.n_best = all.n_best, .S_best = all.S_best, .first_unknown = first_unk,
			.last_unknown = last_unk, .n_opt = r->opt.n_best,
			.S_opt = r->opt.n_best ? r->opt.S_best : 0,
			.target_cores = (double)r->mem.target.sockets * r->mem.target.c });
	}
	free(r->pred.S_opt);
	r->pred.S_opt = S; /* for optimum_in_noise, once ±S is final */
	free(S_all);
}

/* The optimum a user can act on (docs/model.md "The optimum within the noise"): the fewest
 * cores whose S is within 1% (PMA_OPT_REL) of the largest, or within the uncertainty of the
 * difference where that is larger. Both rows come from one replay, one memory fit, one wake
 * cost and one model error, so each part of ±S moves them the same way: the difference's
 * uncertainty is each part's difference between the two rows, in quadrature, far below ±S
 * (zstd -T8: ±S 0.26 at S(8) = 6.1985 and S(10) = 6.2014). Runs once ±S is final. Returns 0
 * or -1 (out of memory). */
static int optimum_in_noise(struct pma_result *r)
{
	struct pma_pred_result *pd = &r->pred;
	const double *parts[] = { pd->S_err_A, pd->S_err_omega, pd->S_err_wake, pd->S_err_model };
	size_t ib = pd->ncores;

	if (!r->opt.n_best || !pd->S_opt)
		return 0;
	free(pd->S_gap_err);
	if (!(pd->S_gap_err = malloc(pd->ncores * sizeof(double))))
		return -1;
	for (size_t i = 0; i < pd->ncores; i++)
		if (pd->cores[i] == r->opt.n_max)
			ib = i;
	for (size_t i = 0; i < pd->ncores; i++) {
		double v = 0;
		for (size_t k = 0; ib < pd->ncores && k < sizeof(parts) / sizeof(parts[0]); k++) {
			double d = parts[k][ib] - parts[k][i];
			v += isfinite(d) ? d * d : 0;
		}
		pd->S_gap_err[i] = isfinite(pd->S_opt[i]) && ib < pd->ncores ? sqrt(v) : NAN;
	}
	pma_optimal_in_noise(pd->cores, pd->S_opt, pd->S_gap_err, pd->ncores, PMA_OPT_REL, &r->opt);
	return 0;
}

/* The final pass over the predictions: every estimator's bounds, then the optimum. */
static int enforce_invariants(struct pma_result *r, const struct pma_compute_opts *o)
{
	for (int k = 0; k < PMA_EST_COUNT; k++)
		if (r->par.have[k] && r->pred.by_est[k])
			enforce_prediction_bounds(r, k);
	if (runs_rows(r, o) < 0)
		return -1;
	enforce_optimum(r);
	return 0;
}

/* ---- degraded inputs (docs/model.md "Invariants") ---- */

/* The fewest sampling intervals a window should hold (docs/model.md "Windows"). */
#define PMA_WINDOW_MIN_INTERVALS 100

/* A window of a run (RUN_END "window"): a note when it holds fewer than PMA_WINDOW_MIN_INTERVALS
 * sampling intervals (the sampled estimators' intervals, pma_est_series; docs/model.md
 * "Windows"). */
static void check_window(struct pma_result *r)
{
	const struct pma_run_info *ri = &r->run->info;
	uint64_t cut;
	size_t n = 0;

	if (!ri->window_end || !r->run->est)
		return;
	(void)pma_est_series(r->run->est, &n, &cut);
	n += (size_t)cut; /* intervals beyond the kept series are intervals all the same */
	if (n < PMA_WINDOW_MIN_INTERVALS) {
		double len_s = isfinite(ri->window_length_ns) ? ri->window_length_ns / 1e9 : NAN;
		(void)pma_note_add_window_short(&r->notes, &(struct pma_note_window_short){
			.intervals = (double)n, .least = PMA_WINDOW_MIN_INTERVALS, .length_s = len_s });
	}
}

/* How the run ended, into r->par.status and failed; a note when it did not exit with 0. */
static void check_run_status(struct pma_result *r)
{
	const struct pma_run_info *ri = &r->run->info;
	struct pma_par_result *pr = &r->par;
	int kind = 0;
	double code = 0;

	if (ri->window_end && (strcmp(ri->window_end, "duration") == 0 ||
			       strcmp(ri->window_end, "signal") == 0 ||
			       (ri->exit_kind_name && strcmp(ri->exit_kind_name, "ended") == 0)) &&
	    pma_window_label(ri, pr->status, sizeof(pr->status))) {
		/* pmcollect ended the program at the window's end: the run is the window */
	} else if (!ri->has_end) {
		snprintf(pr->status, sizeof(pr->status), "interrupted: no end-of-run record");
		kind = PMA_RUNST_NO_END;
	} else if (ri->exit_kind == PMA_EXIT_SIGNALED) {
		const char *abbrev = isfinite(ri->exit_signal) ? sigabbrev_np((int)ri->exit_signal) : NULL;
		code = isfinite(ri->exit_signal) ? ri->exit_signal : 0;
		snprintf(pr->status, sizeof(pr->status), "killed by signal %.0f%s%s%s", code,
			 abbrev ? " (SIG" : "", abbrev ? abbrev : "", abbrev ? ")" : "");
		kind = code == SIGINT || code == SIGTERM || code == SIGHUP ? PMA_RUNST_NO_END :
		       PMA_RUNST_SIGNAL;
	} else if (ri->exit_kind == PMA_EXIT_EXITED && ri->exit_code == 0) {
		snprintf(pr->status, sizeof(pr->status), "exited 0");
	} else if (ri->exit_kind == PMA_EXIT_EXITED) {
		code = isfinite(ri->exit_code) ? ri->exit_code : -1;
		snprintf(pr->status, sizeof(pr->status), "exited with status %.0f", code);
		kind = PMA_RUNST_EXIT_CODE;
	} else {
		snprintf(pr->status, sizeof(pr->status), "ended unknown (%s)",
			 ri->exit_kind_name ? ri->exit_kind_name : "no exit status recorded");
		kind = PMA_RUNST_NO_END;
	}
	pr->failed = kind != 0;
	if (kind) {
		(void)pma_note_add_run_failed(&r->notes, &(struct pma_note_run_failed){
			.run_id = r->run->run_id, .status = kind, .code = code,
			.status_text = pr->status });
	}
}

/* Late and lost samples (the run's RUN_END counts, else SUMMARY) widen the uncertainty of a
 * sampled estimator by their share of the timer expirations; the exact mode takes A(m,inf) from
 * the scheduler events, so its uncertainty stays, but the note is given all the same (make demo:
 * 74 late and 202 lost of 1410 samples, no note). An interval shorter than a few time
 * slices on an oversubscribed baseline gets a note, since the runnable estimator cannot work there
 * (docs/model.md, degraded-input case 1: 1.00 for a truth of 2.67 at 0.1-2 ms). */
static void check_sampling(struct pma_result *r)
{
	const struct pma_summary *sm = &r->t->summary;
	struct pma_run_sampling smp;
	const struct pma_est_stats *st = &r->run->st;
	double ms = st->window_ns / 1e6, widen;
	int sampled = r->par.est != PMA_EST_SCHED && r->par.est != PMA_EST_SWITCH;

	/* oversubscribed intervals are merged to PMA_EST_OVERSUB_WINDOW_NS (pma_est_set_cpus); a
	 * trace whose CPUs are unknown, or whose threads all exited within one, keeps them short */
	double ov_ms = st->oversub_intervals ? st->oversub_ns / 1e6 / (double)st->oversub_intervals : ms;

	if (sampled && r->par.baseline_cores && r->par.baseline_cores < r->par.m && ov_ms > 0 &&
	    ov_ms < PMA_MIN_OVERSUB_INTERVAL_MS && !st->merged_samples)
		(void)pma_note_add_fine_interval(&r->notes, &(struct pma_note_fine_interval){
			.interval_ms = ov_ms, .cpus = r->par.baseline_cores, .threads = r->par.m });
	else if (sampled && st->merged_samples)
		(void)pma_note_add_merged_windows(&r->notes, &(struct pma_note_merged_windows){
			.interval_ms = st->mean_interval_ns / 1e6, .cpus = r->par.baseline_cores,
			.threads = r->par.m, .merged = (double)st->merged_samples,
			.samples = (double)st->samples, .mean_window_ms = ov_ms,
			.least_window_ms = PMA_EST_OVERSUB_WINDOW_NS / 1e6 });
	/* a collector that was not pinned (collector_cpu -1) ran on the CPUs of an oversubscribed
	 * run: taskset -c 0 pmcollect -t 2 (docs/model.md, degraded-input case 3) */
	double ccpu = isnan(r->run->info.collector_cpu) ? r->t->meta.collector_cpu : r->run->info.collector_cpu;
	if (ccpu < 0 && r->par.baseline_cores && r->par.baseline_cores < r->par.m) {
		double U_s = r->par.by_est[r->par.est].work_ns / 1e9;
		double c_s = (isnan(sm->sampling_cpu_ns) ? sm->collector_cpu_ns : sm->sampling_cpu_ns) / 1e9;
		double trace_s = c_s, nruns = r->t->nruns;
		/* SUMMARY's CPU time is the whole trace's, every run's sampling: with several runs
		 * the analyzed run's share by its thread-samples (each sample reads every thread), or
		 * 3 runs' 0.013 s read as 1.4% of one run's CPU time for about 0.5% */
		if (nruns > 1 && r->t->thread_samples > 0)
			c_s *= (double)r->run->st.thread_samples / (double)r->t->thread_samples;
		(void)pma_note_add_collector_shared(&r->notes, &(struct pma_note_collector_shared){
			.cpus = r->par.baseline_cores, .threads = r->par.m, .collector_s = c_s,
			.collector_pct = sm->present && U_s > 0 ? 100 * c_s / U_s : -1,
			.trace_collector_s = trace_s, .runs = nruns, .cpu_list = r->run->cpus });
	}
	pma_run_sampling(r->t, r->run, &smp);
	if (!smp.present || smp.share <= 0)
		return;
	widen = r->par.est == PMA_EST_SCHED || r->par.est == PMA_EST_SWITCH ? 0 : smp.share;
	r->par.A_err += r->par.by_est[r->par.est].A_inf * widen;
	for (size_t i = 0; i < r->pred.ncores; i++)
		if (isfinite(r->pred.by_est[r->par.est][i].S))
			r->pred.S_err_A[i] += r->pred.by_est[r->par.est][i].S * widen;
	compose_S_err(r);
	/* widened always, worth a note from 5% (and PMA_LATE_MIN expirations) */
	if (smp.share >= PMA_LATE_SHARE && smp.late + smp.lost >= PMA_LATE_MIN)
		(void)pma_note_add_late_samples(&r->notes, &(struct pma_note_late_samples){
			.samples = smp.samples, .late = smp.late, .lost = smp.lost,
			.late_pct = 100 * smp.share, .interval_ms = smp.interval_ms, .widen = widen,
			.requested_ms = smp.requested_ms,
			.wakes_placed = r->par.est == PMA_EST_SWITCH ? (double)r->run->pst.wakes_placed : 0 });
}

/* Wall time the profile does not explain: on c CPUs the run should take U / A(m,c) + idle (eq. 6
 * with omega = 0: the contention is already in the recorded CPU time); the rest the program was
 * ready to run while its CPUs ran other processes (docs/model.md, degraded-input case 5: wall
 * 3.95 s, CPU 1.94 s, idle 0 on one CPU). Noted above 10% of the wall time. */
static void check_unexplained(struct pma_result *r)
{
	const struct pma_profile *prof = pma_result_profile(r);
	uint32_t c = r->par.baseline_cores;
	struct pma_prediction q;
	double explained_s;

	if (!c || r->par.wall_s <= 0 || pma_profile_predict(prof, &c, 1, NULL, &q) < 0 || q.A <= 0)
		return;
	explained_s = q.T_ns / 1e9;
	r->par.unexplained_s = fmax(r->par.wall_s - explained_s, 0);
	if (r->par.unexplained_s > 0.10 * r->par.wall_s)
		(void)pma_note_add_stolen(&r->notes, &(struct pma_note_stolen){
			.wall_s = r->par.wall_s, .explained_s = explained_s,
			.unexplained_s = r->par.unexplained_s,
			.unexplained_pct = 100 * r->par.unexplained_s / r->par.wall_s, .cpus = c });
}

/* The estimators of A(m,inf) that are meant to agree (the exact ones and runnable; the paper's is
 * biased low by design) 25% apart or more, or any two 2x apart: the uncertainty covers half the
 * gap and a note says which to trust (docs/model.md, degraded-input case 6: 6.06 +- 0.00 beside
 * 3.85 and 2.51). A sampled estimator asked for by name (--estimator runnable) beside an exact
 * one covers the whole gap: the exact estimate is the better-founded one, and half the gap left
 * it outside the interval (omp_loop as nobody at -i 0.1: runnable 2.139 +- 0.426 beside
 * switch-exact 2.991, truth 2.985). */
static void check_estimators(struct pma_result *r)
{
	const struct pma_par_result *pr = &r->par;
	double A = pr->by_est[pr->est].A_inf, worst = 1, other = A, gap = 0;
	int wk = -1, wfolded = 0, wexact = 0;

	for (int k = 0; k < PMA_EST_COUNT; k++) {
		double B = pr->by_est[k].A_inf, ratio;
		int folded = k != PMA_EST_PAPER && pr->est != PMA_EST_PAPER;
		int exact_other = pr->est < PMA_EST_SAMPLED && k >= PMA_EST_SAMPLED;
		if (k == pr->est || !pr->have[k] || !(B > 0) || !(A > 0))
			continue;
		ratio = fmax(A / B, B / A);
		if (folded)
			gap = fmax(gap, exact_other ? fabs(A - B) : fabs(A - B) / 2);
		if (!(ratio >= 2 || (folded && ratio >= 1.25)))
			continue;
		/* the pair the uncertainty covers first (pigz: sched-exact 5.87, runnable 2.60 and
		 * paper 1.73 noted the paper's 3.4x and said the uncertainty covered it), then the
		 * larger ratio */
		if (wk < 0 || folded > wfolded || (folded == wfolded && ratio > worst)) {
			worst = ratio;
			other = B;
			wk = k;
			wfolded = folded;
			wexact = exact_other;
		}
	}
	if (gap > r->par.A_err) {
		for (size_t i = 0; i < r->pred.ncores; i++)
			r->pred.S_err_A[i] = r->pred.by_est[pr->est][i].S * gap / A;
		r->par.A_err = gap;
		compose_S_err(r);
	}
	if (wk >= 0) {
		(void)pma_note_add_est_disagree(&r->notes, &(struct pma_note_est_disagree){
			.A = A, .A_other = other, .ratio = worst,
			.covered = wfolded ? 1 + wexact : 0, /* 0 left out (paper), 1 half, 2 whole */
			.estimator = pma_estimator_name(pr->est), .other = pma_estimator_name(wk) });
	}
}

static void check_inputs(struct pma_result *r)
{
	check_run_status(r);
	check_sampling(r);
	check_window(r);
	check_unexplained(r);
	check_estimators(r);
}

/* The interference calibration an --interfere trace recorded (META interference "written",
 * FORMAT.md): a warning when it is dated after the trace's recording began (META clocks; 60 s
 * allow for clocks set apart), and one per other operand recorded against another calibration
 * (another written.id), whose slowdowns are not comparable. Traces whose machine file predates
 * "written" are not compared. */
static void check_interf_calibration(struct pma_result *r)
{
	const struct pma_interf_cal *c = &r->t->meta.interf;
	const struct pma_clock_pair *k = &r->t->meta.clocks;

	if (!c->present || !c->written_id[0])
		return;
	if (k->present && isfinite(c->written_unix_s) &&
	    c->written_unix_s > k->realtime_s + k->realtime_nsec / 1e9 + 60) {
		double start_s = k->realtime_s + k->realtime_nsec / 1e9;
		(void)pma_note_add_interf_cal_later(&r->notes, &(struct pma_note_interf_cal_later){
			.cal_time_s = c->written_unix_s, .start_s = start_s,
			.diff_s = c->written_unix_s - start_s, .id = c->written_id,
			.time_utc = c->written_time_utc });
	}
	for (int i = 1; i < r->ntraces; i++) {
		const struct pma_interf_cal *d = &r->traces[i].meta.interf;
		if (d->present && d->written_id[0] && strcmp(d->written_id, c->written_id) != 0)
			(void)pma_note_add_interf_cal_other(&r->notes, &(struct pma_note_interf_cal_other){
				.operand = i + 1, .id = c->written_id, .other_id = d->written_id,
				.other_trace = r->traces[i].path, .other_user = d->written_user,
				.other_time_utc = d->written_time_utc });
	}
}

/* ---- the sections' compute steps (section.h), in the order pma_compute's stages call them ---- */

int pma_step_parallelism(struct pma_result *r, const struct pma_compute_opts *o, char *why,
			 size_t whysize)
{
	return compute_parallelism(r, o, why, whysize);
}

int pma_step_cores(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	if (choose_cores(r, o) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	return 0;
}

int pma_step_memory(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	if (pma_mem_eval(r->traces, r->ntraces, o->machine, o->chunk, o->mem_policy, (uint32_t)r->par.m,
			 r->pred.cores, r->pred.ncores, &r->mem, why, whysize) < 0)
		return -1;
	enforce_omega_invariants(r);
	return 0;
}

int pma_step_predict(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	if (!o->no_wake_cost)
		pma_wakecost_choose(r->traces, r->ntraces, &r->wake);
	if (compute_predictions(r, why, whysize) < 0)
		return -1;
	if (note_wake_replay(r) < 0 || enforce_invariants(r, o) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	/* the memory model's notes after the invariants' */
	if (pma_notes_append(&r->notes, &r->mem.notes) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	compute_uncertainty(r);
	return 0;
}

int pma_step_energy(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	(void)o;
	if (pma_energy_eval(r->traces, r->ntraces, r->pred.cores, r->pred.by_est[r->par.est],
			    r->pred.ncores, &r->energy) < 0 ||
	    pma_notes_append(&r->notes, &r->energy.notes) < 0 || pma_run_power(r->run, &r->run_power) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	return 0;
}

int pma_step_measured(struct pma_result *r, const struct pma_compute_opts *o, char *why,
		      size_t whysize)
{
	(void)o;
	if (compute_measured(r) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	return 0;
}

int pma_step_checks(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	(void)o;
	(void)why;
	(void)whysize;
	check_inputs(r);
	check_spinning(r);
	return 0;
}

int pma_step_regions(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	/* predictions per region at the recording machine's PUs (the run's CPUs if unknown), and at
	   every core count of the whole program's (--cores or its default) */
	double pus = r->t->meta.topo.pus;
	uint32_t n = pus >= 1 && pus <= 1e6 ? (uint32_t)pus : r->run->cpus_n;

	if (pma_regions_compute(r->t, r->run, n, r->pred.cores, r->pred.ncores, o->phases,
				o->tcm_event, &r->regions, why, whysize) < 0)
		return -1;
	r->regions.allande_all = o->allande_all;
	if (pma_notes_append(&r->notes, &r->regions.notes) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	return 0;
}

int pma_step_late_notes(struct pma_result *r, const struct pma_compute_opts *o, char *why,
			size_t whysize)
{
	const struct pma_est_stats *st = &r->run->st;
	double work_ns = r->par.by_est[r->par.est].work_ns;

	(void)o;
	(void)why;
	(void)whysize;
	if (r->wake.have && r->par.est != PMA_EST_SCHED) /* docs/model.md "Wake-up costs in the replay" */
		(void)pma_note_add_wake_not_charged(&r->notes, &(struct pma_note_wake_not_charged){
			.cross_wake_us = r->wake.charge.cross_ns / 1e3 });
	/* the share is of the run-queue wait (schedstat field 2 summed over the run), of which the
	   unplaced wait is a part, so it never exceeds 100%; the threshold stays relative to U */
	if (st->unplaced_wait_ns > 0.05 * work_ns && r->par.est == PMA_EST_RUNNABLE &&
	    st->wait_total_ns > 0)
		(void)pma_note_add_unplaced_wait(&r->notes, &(struct pma_note_unplaced_wait){
			.wait_pct = 100 * fmin(1.0, st->unplaced_wait_ns / st->wait_total_ns),
			.longest_s = 128 * st->window_ns / 1e9 });
	return 0;
}

/* --quota: T(n, Q) under CFS bandwidth control from the run's replay (studies/quota.h), on the
 * cores the program sees (--cores' largest, else the recording machine's PUs, else the run's
 * CPUs), with the tick of the trace's kernel (trace_tick). Without --quota, a trace recorded
 * under a CPU limit (META cpu_limit with a quota: a container's, or pmcollect --quota's) gets
 * the study at that limit, its period and burst, on the run's CPUs: the prediction for the
 * conditions it was recorded in (r->quota.recorded). */
int pma_step_quota(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	const struct pma_meta *m = &r->t->meta;
	struct pma_quota_opts q; /* --quota's or the recorded limit, with the trace's tick */
	struct pma_quota_tick tick = trace_tick(m);
	uint32_t n = o->quota_cores ? o->quota_cores :
		     m->topo.pus >= 1 ? (uint32_t)m->topo.pus : r->run->cpus_n;
	int recorded = 0;

	if (o->quota && o->quota->nQ) {
		q = *o->quota;
	} else if (r->run->cpus_n >= 1 && recorded_quota(m, &q)) {
		n = r->run->cpus_n;
		recorded = m->cpu_limit_by_pmcollect ? 2 : 1;
	} else {
		return 0;
	}
	q.tick_ns = tick.tick_ns;
	q.omega = quota_omega(r, n, &q.omega_source);
	if (pma_quota_for_run(r->run, r->par.est, &r->wake, n, &q, &r->quota) < 0) {
		snprintf(why, whysize, "'%s': the replay under --quota failed", r->t->path);
		return -1;
	}
	r->quota.recorded = recorded;
	r->quota.tick = tick;
	return 0;
}

/* The cores a sweep run without a CPU list saw: META usable_cpus (else online_cpus) counted, else
 * the recording machine's PUs; 0 unknown. */
static uint32_t trace_cpus(const struct pma_meta *m)
{
	const char *list = m->usable_cpus ? m->usable_cpus : m->online_cpus;
	struct pm_intlist l = { 0 };
	char reason[160];
	uint32_t n = 0;

	if (list && pm_intlist_parse(list, 0, 1u << 20, &l, reason, sizeof(reason)) == 0)
		n = (uint32_t)l.n;
	pm_intlist_free(&l);
	return n ? n : m->topo.pus >= 1 ? (uint32_t)m->topo.pus : 0;
}

/* pmcollect --sweep quota=: each quota's runs against T(n, Q) from the analyzed run's replay
 * (studies/quota.h pma_quota_sweep_compute). */
int pma_step_quota_sweep(struct pma_result *r, const struct pma_compute_opts *o, char *why,
			 size_t whysize)
{
	struct pma_quota_tick tick = trace_tick(&r->t->meta);

	(void)o;
	if (pma_quota_sweep_compute(r->t, r->run, r->par.est, &r->wake, trace_cpus(&r->t->meta),
				    tick.tick_ns, &r->quota_sweep) < 0) {
		snprintf(why, whysize, "'%s': the replay of the quota sweep failed", r->t->path);
		return -1;
	}
	r->quota_sweep.tick = tick;
	return 0;
}

/* A(m,inf) and C(n) per instruction over each quarter of the recording (stationarity.h); the
 * not-stationary and not-stationary-cost notes when their quarters disagree beyond their
 * uncertainty. */
int pma_step_stationarity(struct pma_result *r, const struct pma_compute_opts *o, char *why,
			  size_t whysize)
{
	struct pma_stationarity *st = &r->stat;

	(void)o;
	if (pma_stationarity_compute(r->run, r->par.est, st) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	if (st->have && st->disagree)
		(void)pma_note_add_not_stationary(&r->notes, &(struct pma_note_not_stationary){
			.window = r->run->info.window_end != NULL,
			.A_low = st->q[st->q_min].A, .A_low_err = st->q[st->q_min].A_err,
			.quarter_low = st->q_min + 1,
			.A_high = st->q[st->q_max].A, .A_high_err = st->q[st->q_max].A_err,
			.quarter_high = st->q_max + 1, .p = st->p, .p_max = PMA_STAT_P,
			.method = st->method });
	if (st->C_have && st->C_test.disagree) {
		const struct pma_stat_test *ct = &st->C_test;
		/* cycles per CPU-second in GHz, as the section prints them */
		double u = st->C_kind == PMA_STAT_C_CYCLES_PER_CPU_S ? 1e-9 : 1;
		(void)pma_note_add_not_stationary_cost(&r->notes, &(struct pma_note_not_stationary_cost){
			.window = r->run->info.window_end != NULL, .kind = (int)st->C_kind,
			.C_low = st->q[ct->q_min].C * u, .C_low_err = st->q[ct->q_min].C_err * u,
			.quarter_low = ct->q_min + 1,
			.C_high = st->q[ct->q_max].C * u, .C_high_err = st->q[ct->q_max].C_err * u,
			.quarter_high = ct->q_max + 1, .p = ct->p, .p_max = PMA_STAT_P });
	}
	return 0;
}

int pma_step_runcheck(struct pma_result *r, const struct pma_compute_opts *o, char *why,
		      size_t whysize)
{
	if (check_runs(r, o) < 0 || optimum_in_noise(r) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	return 0;
}

int pma_step_breakdown(struct pma_result *r, const struct pma_compute_opts *o, char *why,
		       size_t whysize)
{
	double *T_ns;
	int rc;

	if (o->machine || !r->pred.ncores || !r->pred.by_est[r->par.est])
		return 0; /* --machine predicts another machine than the runs ran on */
	if (!(T_ns = malloc(r->pred.ncores * sizeof(*T_ns)))) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->pred.ncores; i++)
		T_ns[i] = r->pred.by_est[r->par.est][i].T_ns;
	rc = pma_breakdown_trace(r->traces, r->ntraces, r->run, r->par.m, r->pred.cores, T_ns,
				 r->pred.ncores, &r->breakdown);
	free(T_ns);
	if (rc < 0)
		snprintf(why, whysize, "out of memory");
	return rc;
}

int pma_step_scaling(struct pma_result *r, const struct pma_compute_opts *o, char *why, size_t whysize)
{
	if (compute_scaling(r, o->pmnf_class_unit, o->pmnf_aggregate) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	return 0;
}

int pma_compute(const struct pma_trace *traces, int ntraces, const struct pma_compute_opts *o,
		struct pma_result *r, char *why, size_t whysize)
{
	struct pma_interf_result interf;

	memset(r, 0, sizeof(*r));
	r->traces = traces;
	r->ntraces = ntraces;
	r->t = &traces[0];
	/* into a struct of its own: r->interf shares its bytes with the run body */
	if (pma_interference(r->t, o->threshold, o->procs, &interf, why, whysize) < 0)
		return -1;
	if (interf.present) {
		r->kind = PMA_RESULT_INTERFERENCE;
		r->interf = interf;
		r->run = pma_trace_run(r->t, o->run_id);
		check_interf_calibration(r);
		if (interf.disturbed != PMA_INTERF_CAL_OK)
			(void)pma_note_add_interf_cal_disturbed(&r->notes,
				&(struct pma_note_interf_cal_disturbed){
					.disturbed = (int)interf.disturbed,
					.B_gb_per_s = interf.cal->B_bytes_per_s / 1e9,
					.BW1_gb_per_s = interf.cal->BW1_bytes_per_s / 1e9,
					.k = interf.disturbed_k,
					.moved_gb_per_s = interf.disturbed_bytes_per_s / 1e9,
					.bw1_excess = PMA_INTERF_BW1_EXCESS });
		return 0;
	}
	/* a run: every section's steps, stage by stage, the sections in their list's order */
	for (int stage = 0; stage < PMA_STAGE_COUNT; stage++)
		for (size_t i = 0; i < pma_nsections; i++)
			for (size_t k = 0; k < PMA_SECTION_STEPS && pma_sections[i]->steps[k].run; k++) {
				const struct pma_section_step *st = &pma_sections[i]->steps[k];
				int rc;
				if (st->stage == (enum pma_stage)stage && (rc = st->run(r, o, why, whysize)) < 0)
					return rc;
			}
	return 0;
}

void pma_result_free(struct pma_result *r)
{
	if (!r)
		return;
	pma_notes_free(&r->notes);
	if (r->kind == PMA_RESULT_JOB)
		pma_ranks_free(&r->job);
	else if (r->kind == PMA_RESULT_LEARN)
		pma_learn_result_free(&r->learn);
	else if (r->kind == PMA_RESULT_TOEP)
		pma_toep_study_free(&r->toep);
	else if (r->kind == PMA_RESULT_PREDICT)
		pma_predictions_free(&r->predict);
	if (r->kind != PMA_RESULT_RUN) {
		memset(r, 0, sizeof(*r));
		return;
	}
	for (int k = 0; k < PMA_EST_COUNT; k++)
		free(r->pred.by_est[k]);
	free(r->pred.S_err);
	free(r->pred.T_err_ns);
	free(r->pred.S_err_A);
	free(r->pred.S_err_omega);
	free(r->pred.S_err_wake);
	free(r->pred.S_err_model);
	free(r->pred.S_err_runs);
	free(r->pred.S_opt);
	free(r->pred.S_gap_err);
	free(r->pred.cores);
	pma_mem_eval_free(&r->mem);
	pma_regions_free(&r->regions);
	pma_energy_result_free(&r->energy);
	pma_run_power_free(&r->run_power);
	pma_quota_result_free(&r->quota);
	pma_quota_sweep_free(&r->quota_sweep);
	pma_scaling_free(&r->scaling);
	memset(r, 0, sizeof(*r));
}

const struct pma_profile *pma_result_profile(const struct pma_result *r)
{
	if (r->kind != PMA_RESULT_RUN)
		return NULL;
	return pma_run_profile(r->run, r->par.est);
}
