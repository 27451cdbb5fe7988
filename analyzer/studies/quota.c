/* SPDX-License-Identifier: MIT */
/* quota.c: T(n, Q) under a CPU quota, by replay or fluid approximation (see quota.h). */
#include "quota.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contention.h"
#include "model/pswitch.h"
#include "pm_util.h"
#include "trace/analyze.h"
#include "wakecharge.h"

/* One evaluation of T(n, Q): the replay, or the fluid bound when x is NULL. */
struct qeval {
	const struct pma_exact *x;
	const struct pma_wake_charge *c;
	uint32_t n;
	double period_ns, burst_ns, slice_ns, tick_ns; /* slice and tick: 0 for the defaults */
	double omega;                    /* the n-core work costs 1 + omega */
	double U_ns, Tn_ns;              /* fluid (Tn with omega) */
};

static int q_T(const struct qeval *e, double Q_cpus, double *T_ns, struct pma_quota_stats *st)
{
	struct pma_quota q = { Q_cpus * e->period_ns, e->period_ns, e->burst_ns, e->slice_ns,
			       e->tick_ns > 0 ? e->tick_ns : PMA_QUOTA_TICK_DEFAULT_NS };

	if (!e->x) {
		memset(st, 0, sizeof(*st));
		*T_ns = fmax(e->Tn_ns, e->U_ns * (1 + e->omega) / Q_cpus);
		return 0;
	}
	return pma_exact_replay_scaled(e->x, e->n, e->c, &q, e->omega, T_ns, NULL, st);
}

/* The quota from which the replay cannot throttle, CPUs: n cores spend at most n x P a period;
 * with per-CPU slices (wake charges: the per-core replay) a core's draws in a period are what it
 * spends plus what it holds at the end (a slice at most) less what it held at the start (a debt
 * of a tick at most): n x (P + slice + tick). */
static double q_Q_unthrottled(const struct qeval *e)
{
	double slice_ns = e->slice_ns > 0 ? e->slice_ns : PMA_QUOTA_SLICE_DEFAULT_NS;
	double tick_ns = e->tick_ns > 0 ? e->tick_ns : PMA_QUOTA_TICK_DEFAULT_NS;

	return e->c ? (double)e->n * (1 + (slice_ns + tick_ns) / e->period_ns) : (double)e->n;
}

static int q_run(const struct qeval *e, const struct pma_quota_opts *o, struct pma_quota_result *out)
{
	struct pma_quota_stats st;
	double lo = 0.01, hi = (double)e->n, T;

	out->have = 1;
	out->n = e->n;
	out->omega = o->omega;
	out->omega_source = o->omega_source;
	out->period_ns = e->period_ns;
	out->burst_ns = e->burst_ns;
	out->rows = calloc(o->nQ ? o->nQ : 1, sizeof(*out->rows));
	if (!out->rows)
		return -1;
	out->nrows = o->nQ;
	for (size_t i = 0; i < o->nQ; i++) {
		struct pma_quota_row *w = &out->rows[i];
		w->Q_cpus = o->Q_cpus[i];
		w->no_throttle = w->Q_cpus >= q_Q_unthrottled(e);
		if (q_T(e, w->Q_cpus, &w->T_ns, &w->st) < 0 || !(w->T_ns > 0))
			return -1;
		w->S = out->T1_ns / w->T_ns;
		w->cost = w->T_ns / out->Tn_ns - 1;
	}
	/* the smallest quota under the cost: bisection to 0.01 CPU, T(n, Q) falling with Q */
	if (q_T(e, lo, &T, &st) < 0)
		return -1;
	if (T / out->Tn_ns - 1 < PMA_QUOTA_COST_OK) {
		out->Q_enough_cpus = lo;
		return 0;
	}
	while (hi - lo > 0.005) {
		double mid = (lo + hi) / 2;
		if (q_T(e, mid, &T, &st) < 0)
			return -1;
		if (T / out->Tn_ns - 1 < PMA_QUOTA_COST_OK)
			hi = mid;
		else
			lo = mid;
	}
	out->Q_enough_cpus = ceil(hi * 100 - 1e-9) / 100;
	return 0;
}

static double q_period(const struct pma_quota_opts *o)
{
	return o->period_ns > 0 ? o->period_ns : PMA_QUOTA_PERIOD_DEFAULT_NS;
}

int pma_quota_study_exact(const struct pma_exact *x, const struct pma_wake_charge *c, uint32_t n,
			  const struct pma_quota_opts *o, struct pma_quota_result *out)
{
	struct qeval e = { .x = x, .c = c, .n = n, .period_ns = q_period(o), .burst_ns = o->burst_ns,
			   .slice_ns = o->slice_ns, .tick_ns = o->tick_ns, .omega = o->omega };

	memset(out, 0, sizeof(*out));
	out->slices = c != NULL;
	if (pma_exact_replay(x, 1, &out->U_ns) < 0 ||
	    pma_exact_replay_charged(x, 1, c, &out->T1_ns, NULL) < 0 ||
	    pma_exact_replay_scaled(x, n, c, NULL, o->omega, &out->Tn_ns, NULL, NULL) < 0 ||
	    !(out->Tn_ns > 0))
		return -1;
	return q_run(&e, o, out);
}

int pma_quota_study_fluid(double U_ns, double T1_ns, double Tn_ns, uint32_t n,
			  const struct pma_quota_opts *o, struct pma_quota_result *out)
{
	struct qeval e = { .n = n, .period_ns = q_period(o), .burst_ns = o->burst_ns, .U_ns = U_ns,
			   .Tn_ns = Tn_ns, .omega = o->omega };

	memset(out, 0, sizeof(*out));
	out->fluid = 1;
	out->U_ns = U_ns;
	out->T1_ns = T1_ns;
	out->Tn_ns = Tn_ns;
	if (!(Tn_ns > 0))
		return -1;
	return q_run(&e, o, out);
}

int pma_quota_for_run(const struct pma_run *run, int est, const struct pma_wake_result *w,
		      uint32_t n, const struct pma_quota_opts *o, struct pma_quota_result *out)
{
	const struct pma_exact *x = est == PMA_EST_SCHED ? run->exact :
		est == PMA_EST_SWITCH ? pma_pswitch_program(run->pswitch) : NULL;
	struct pma_prediction p1, pn;
	double zero = 0, omega = o->omega;
	uint32_t one = 1;

	if (x) {
		int rc = pma_quota_study_exact(x, est == PMA_EST_SCHED && w->have ? &w->charge : NULL,
					       n, o, out);
		if (!out->slices)
			out->slices_why = est != PMA_EST_SCHED ?
				"switch-exact replays without wake-up costs, which the per-CPU slices' "
				"replay needs" :
				"the traces hold no wake-up cost between cores, which the per-CPU "
				"slices' replay needs: record with --calibrate-wake";
		return rc;
	}
	if (pma_profile_predict(pma_run_profile(run, est), &one, 1, &zero, &p1) < 0 ||
	    pma_profile_predict(pma_run_profile(run, est), &n, 1, &omega, &pn) < 0)
		return -1;
	return pma_quota_study_fluid(p1.T_ns, p1.T_ns, pn.T_ns, n, o, out);
}

void pma_quota_result_free(struct pma_quota_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

static int is_quota_sweep_run(const struct pma_run *r)
{
	return r->info.role == PMA_ROLE_SWEEP && r->info.has_sweep && isfinite(r->info.sweep_quota_cpus);
}

/* Row of configuration c from its finished runs (T, thr, per: scratch of t->nruns); 0 when it has
 * none, 1 when it has. */
static int sweep_row(const struct pma_trace *t, uint32_t c, uint32_t ncpus_default, double *T,
		     double *thr, double *per, struct pma_quota_sweep *s, struct pma_quota_sweep_row *row)
{
	size_t n = 0;

	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		if (!is_quota_sweep_run(r) || r->info.sweep_config != c)
			continue;
		if (!pma_run_exited_ok(r)) {
			s->unfinished++;
			continue;
		}
		row->Q_cpus = isfinite(r->info.quota_cpus) ? r->info.quota_cpus : r->info.sweep_quota_cpus;
		row->period_ns = isfinite(r->info.quota_period_us) ? r->info.quota_period_us * 1e3
								   : PMA_QUOTA_PERIOD_DEFAULT_NS;
		row->n = r->cpus_n ? r->cpus_n : ncpus_default;
		T[n] = pma_run_program_wall_s(r) * 1e9;
		thr[n] = r->info.nr_throttled;
		per[n++] = r->info.nr_periods;
	}
	if (!n)
		return 0;
	row->config = c;
	row->nreps = n;
	row->T_meas_ns = pm_median_finite(T, n);
	row->thr_meas = pm_median_finite(thr, n);
	row->periods_meas = pm_median_finite(per, n);
	return 1;
}

/* The contention of configuration c's runs on n cores, held out: the median over the finished
 * quota sweep runs of the other configurations on n cores of C(run) / C(base) - 1 (Tudor & Teo
 * eq. 7, omega(n) = C(n)/C(1) - 1, with the runs' CPU time as C: pma_mem_run_C), so that a row's
 * own runs never predict it. om: scratch of t->nruns. 0 with *nused 0 when there are none. */
static double held_out_omega(const struct pma_trace *t, const struct pma_run *base, uint32_t c,
			     uint32_t n, uint32_t ncpus_default, double *om, size_t *nused)
{
	double llc, C1;
	int cyc;
	size_t k = 0;

	C1 = pma_mem_run_C(base, 0, &llc, &cyc);
	for (uint32_t i = 0; C1 > 0 && i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		double C;
		if (!is_quota_sweep_run(r) || r->info.sweep_config == c || !pma_run_exited_ok(r) ||
		    (r->cpus_n ? r->cpus_n : ncpus_default) != n)
			continue;
		C = pma_mem_run_C(r, 0, &llc, &cyc);
		if (C > 0)
			om[k++] = pma_mem_omega_measured(C, C1);
	}
	*nused = k;
	return k ? pm_median_finite(om, k) : 0;
}

int pma_quota_sweep_compute(const struct pma_trace *t, const struct pma_run *base, int est,
			    const struct pma_wake_result *w, uint32_t ncpus_default, double tick_ns,
			    struct pma_quota_sweep *out)
{
	uint32_t maxcfg = 0;
	double *T, *thr, *per, sum = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->mean_abs_err_pct = NAN;
	for (uint32_t i = 0; i < t->nruns; i++)
		if (is_quota_sweep_run(&t->runs[i]) && t->runs[i].info.sweep_config >= maxcfg)
			maxcfg = t->runs[i].info.sweep_config + 1;
	if (!maxcfg || !base)
		return 0;
	if (maxcfg > t->nruns)
		maxcfg = t->nruns; /* more configurations than runs: the rest have no run */
	out->rows = calloc(maxcfg, sizeof(*out->rows));
	T = calloc(t->nruns, sizeof(double));
	thr = calloc(t->nruns, sizeof(double));
	per = calloc(t->nruns, sizeof(double));
	if (!out->rows || !T || !thr || !per)
		rc = -1;
	for (uint32_t c = 0; rc == 0 && c < maxcfg; c++) {
		struct pma_quota_sweep_row *row = &out->rows[out->nrows];
		struct pma_quota_opts o = { .nQ = 1 };
		struct pma_quota_result q = { 0 };
		if (!sweep_row(t, c, ncpus_default, T, thr, per, out, row))
			continue;
		o.Q_cpus[0] = row->Q_cpus;
		o.period_ns = row->period_ns;
		o.tick_ns = tick_ns;
		row->omega = held_out_omega(t, base, c, row->n, ncpus_default, T, &row->omega_runs);
		if (!(row->omega > -1))
			row->omega = 0;
		o.omega = row->omega;
		if (pma_quota_for_run(base, est, w, row->n, &o, &q) < 0 || q.nrows != 1) {
			pma_quota_result_free(&q);
			rc = -1;
			break;
		}
		out->fluid = q.fluid;
		out->slices = q.slices;
		out->slices_why = q.slices_why;
		row->T_pred_ns = q.rows[0].T_ns;
		row->thr_pred = q.fluid ? NAN : (double)q.rows[0].st.throttled_periods;
		row->periods_pred = q.fluid ? NAN : (double)q.rows[0].st.periods;
		row->err_pct = 100 * (row->T_pred_ns - row->T_meas_ns) / row->T_meas_ns;
		sum += fabs(row->err_pct);
		pma_quota_result_free(&q);
		out->nrows++;
	}
	free(T);
	free(thr);
	free(per);
	out->present = rc == 0 && out->nrows > 0;
	if (out->present)
		out->mean_abs_err_pct = sum / (double)out->nrows;
	return rc;
}

void pma_quota_sweep_free(struct pma_quota_sweep *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}
