/* SPDX-License-Identifier: MIT */
/* compute.c: from loaded traces to struct pma_result: estimator choice, parallelism, predictions,
 * uncertainty, memory model, optimal core count and the spinning check. */
#include "compute.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void note(struct pma_result *r, enum pma_note_code code, const double *n, size_t nn)
{
	/* out of memory: the note is dropped, the numbers are still right */
	(void)pma_notes_add(&r->notes, code, n, nn, NULL, 0);
}

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
 * per second (status nvcsw). libgomp spins under
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
	 * exact 1.97: issue 11), while the events still see every thread active */
	enum pma_estimator_kind est = r->run->has_exact ? PMA_EST_SCHED : PMA_EST_RUNNABLE;
	double A = pr->by_est[est].A_inf, secs = pr->wall_s > 0 ? pr->wall_s : 1;
	double vol_per_thread_s = st->status_reads && pr->m > 0 ?
		(double)st->nvcsw_total / pr->m / secs : -1;
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

	if (pr->m < 2)
		return;
	if (active && looks_spinning)
		note(r, PMA_NOTE_SPIN_ACTIVE_SEEN, (double[]){ (double)busiest,
			100 * A / (double)busiest, vol_per_thread_s }, 3);
	else if (active)
		note(r, PMA_NOTE_SPIN_ACTIVE, NULL, 0);
	else if (looks_spinning)
		note(r, PMA_NOTE_SPIN_SEEN, (double[]){ (double)busiest, 100 * A / (double)busiest,
							vol_per_thread_s }, 3);
}

/* Exact mode's predictions: T(n) from replaying the recorded segments and wake edges on n cores
 * (analyzer/exact.h), A(m,n) = U / T(n) (eq. 6 as the time-weighted mean of active threads, which
 * for a replay without idle time is the work over the time), S = A(m,n) / (1 + omega) (eq. 1). */
static int replay_predictions(struct pma_result *r, char *why, size_t whysize)
{
	double U = r->run->xst.work_ns;

	for (size_t i = 0; i < r->pred.ncores; i++) {
		struct pma_prediction *q = &r->pred.by_est[PMA_EST_SCHED][i];
		uint32_t n = r->pred.cores[i];
		double T = r->run->xst.T_cp_ns;
		/* with a core for every thread nothing ever shares one: the replay is T_cp (this
		 * keeps --cores 1-100000 from replaying 100000 times) */
		if (n < r->run->xst.threads && (pma_exact_replay(r->run->exact, n, &T) < 0 || T <= 0)) {
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

/* The run, the estimator and the parallelism section. Returns 0 or -1 with why. */
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
	if (!run || run->st.intervals == 0) {
		snprintf(why, whysize, "'%s': no samples to analyze", t->path);
		return -1;
	}
	r->run = run;
	/* the exact mode when the run has scheduler events and lost (nearly) none of them; the
	 * runnable estimator otherwise */
	pr->est = o->estimator >= 0 ? o->estimator :
		run->has_exact && run->xst.lost <= run->xst.events / 100 ? PMA_EST_SCHED : PMA_EST_RUNNABLE;
	if (pr->est == PMA_EST_SCHED && !run->has_exact) {
		snprintf(why, whysize, "'%s': run %u has no scheduler events (record them with "
			 "pmcollect --sched, as root)", t->path, run->run_id);
		return -1;
	}
	pr->m = run->st.m_peak;
	pr->m_source = "peak of simultaneously live threads in the samples";
	if (pr->m < 2) {
		snprintf(why, whysize, "'%s': the program ran one thread at a time: nothing to predict "
			 "(A(m,inf) = 1)", t->path);
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
	pr->interval_ms = t->meta.interval_ms;
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
		note(r, PMA_NOTE_CORES_CAPPED, (double[]){ PMA_DEFAULT_MAX_CORES, maxn }, 2);
		maxn = PMA_DEFAULT_MAX_CORES;
	}
	r->pred.ncores = o->cores ? o->ncores : (size_t)maxn;
	r->pred.cores = malloc(r->pred.ncores * sizeof(uint32_t));
	r->pred.S_err = calloc(r->pred.ncores, sizeof(double));
	if (!r->pred.cores || !r->pred.S_err)
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
		if (k == PMA_EST_SCHED && replay_predictions(r, why, whysize) < 0) {
			free(S);
			return -1;
		}
		for (size_t i = 0; i < pd->ncores; i++) {
			struct pma_prediction *q = &pd->by_est[k][i];
			q->omega = r->mem.omega[i];
			if (isinf(r->mem.omega[i]))
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
		run->st.mean_interval_ns > 0 ? run->st.mean_interval_ns / p->T_cp_ns : 0;

	r->par.A_err = p->A_inf * gran;
	for (size_t i = 0; i < r->pred.ncores; i++) {
		const struct pma_prediction *q = &r->pred.by_est[r->par.est][i];
		double dw = r->mem.omega_err[i], w = r->mem.omega[i];
		r->pred.S_err[i] = q->S * gran;
		/* omega's uncertainty from the spread of repeated calibration runs (issue 13):
		 * dS = S dw / (1 + w), from S = A / (1 + w) (eq. 1), added in quadrature */
		if (isfinite(dw) && isfinite(w) && isfinite(q->S))
			r->pred.S_err[i] = hypot(r->pred.S_err[i], q->S * dw / (1 + w));
	}
}

/* The scaling study of the sweep runs of traces[0] against the headline predictions. Returns 0
 * or -1 (out of memory). */
static int compute_scaling(struct pma_result *r)
{
	size_t n = r->pred.ncores;
	double *S = calloc(n ? n : 1, sizeof(double));
	int rc = -1;

	if (S) {
		for (size_t i = 0; i < n; i++)
			S[i] = r->pred.by_est[r->par.est][i].S;
		rc = pma_scaling_compute(r->t, r->run, r->pred.cores, S, r->pred.S_err, r->mem.omega,
					 n, &r->scaling);
	}
	free(S);
	return rc;
}

int pma_compute(const struct pma_trace *traces, int ntraces, const struct pma_compute_opts *o,
		struct pma_result *r, char *why, size_t whysize)
{
	const struct pma_est_stats *st;
	double work_ns;

	memset(r, 0, sizeof(*r));
	r->traces = traces;
	r->ntraces = ntraces;
	r->t = &traces[0];
	if (compute_parallelism(r, o, why, whysize) < 0)
		return -1;
	if (choose_cores(r, o) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	if (pma_mem_eval(traces, ntraces, o->machine, o->chunk, o->mem_policy, (uint32_t)r->par.m,
			 r->pred.cores, r->pred.ncores, &r->mem, why, whysize) < 0)
		return -1;
	if (compute_predictions(r, why, whysize) < 0)
		return -1;
	if (pma_notes_append(&r->notes, &r->mem.notes) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	compute_uncertainty(r);
	check_spinning(r);
	st = &r->run->st;
	work_ns = r->par.by_est[r->par.est].work_ns;
	if (st->unplaced_wait_ns > 0.05 * work_ns && r->par.est == PMA_EST_RUNNABLE)
		note(r, PMA_NOTE_UNPLACED_WAIT, (double[]){ 100 * st->unplaced_wait_ns / work_ns,
							    128 * st->mean_interval_ns / 1e9 }, 2);
	if (compute_scaling(r) < 0) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	return 0;
}

void pma_result_free(struct pma_result *r)
{
	if (!r)
		return;
	for (int k = 0; k < PMA_EST_COUNT; k++)
		free(r->pred.by_est[k]);
	free(r->pred.S_err);
	free(r->pred.cores);
	pma_mem_eval_free(&r->mem);
	pma_notes_free(&r->notes);
	pma_scaling_free(&r->scaling);
	memset(r, 0, sizeof(*r));
}

const struct pma_profile *pma_result_profile(const struct pma_result *r)
{
	return pma_run_profile(r->run, r->par.est);
}
