/* SPDX-License-Identifier: MIT */
/* stationarity.c: A(m,inf) over each quarter of a recording, with its uncertainty, and the
 * chi-square test of their agreement (stationarity.h). */
#include "stationarity.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/estimate.h"
#include "model/exact.h"
#include "regions.h"

#define NPARTS (PMA_STAT_QUARTERS * PMA_STAT_BLOCKS)
/* the windows cut: the parts, then the quarters */
#define NWIN (NPARTS + PMA_STAT_QUARTERS)

/* Quarter q's A is its own cut's (W / T: the critical path bound by the longest thread over the
 * whole quarter); its statistical uncertainty is the ratio estimator's standard error over its
 * parts (Cochran, Sampling Techniques, §6.3, with the parts as the sample), relative to the
 * parts' own ratio. */
static void quarter_of_parts(const double *work_ns, const double *T_cp_ns, double W, double T,
			     struct pma_stat_quarter *q)
{
	double Wp = 0, Tp = 0, ss = 0, Ap;

	for (int k = 0; k < PMA_STAT_BLOCKS; k++) {
		Wp += work_ns[k];
		Tp += T_cp_ns[k];
	}
	q->work_ns = W;
	q->T_cp_ns = T;
	q->A = T > 0 ? W / T : NAN;
	Ap = Tp > 0 ? Wp / Tp : NAN;
	for (int k = 0; Tp > 0 && k < PMA_STAT_BLOCKS; k++) {
		double d = work_ns[k] - Ap * T_cp_ns[k];
		ss += d * d;
	}
	q->A_err_stat = Tp > 0 && T > 0 ?
		q->A * sqrt((double)PMA_STAT_BLOCKS / (PMA_STAT_BLOCKS - 1) * ss) / Tp / Ap : NAN;
}

void pma_stat_chi2(const double *v, const double *err, struct pma_stat_test *out)
{
	double sw = 0, swa = 0, mean;
	int zero_err = 0;

	out->q_min = out->q_max = 0;
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		if (v[i] < v[out->q_min])
			out->q_min = i;
		if (v[i] > v[out->q_max])
			out->q_max = i;
		if (err[i] > 0) {
			sw += 1 / (err[i] * err[i]);
			swa += v[i] / (err[i] * err[i]);
		} else {
			zero_err = 1;
		}
	}
	out->chi2 = 0;
	if (zero_err) {
		/* a quarter known exactly: the quarters agree only when they are equal (to rounding) */
		double lo = v[out->q_min], hi = v[out->q_max];
		out->chi2 = hi - lo <= 1e-9 * fabs(hi) ? 0 : INFINITY;
	} else {
		mean = swa / sw;
		for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
			double z = (v[i] - mean) / err[i];
			out->chi2 += z * z;
		}
	}
	out->p = isfinite(out->chi2) ? gsl_cdf_chisq_Q(out->chi2, PMA_STAT_QUARTERS - 1) : 0;
	out->disagree = out->p < PMA_STAT_P;
}

/* The chi-square test of A over the quarters. */
static void test_quarters(struct pma_stationarity *out)
{
	double v[PMA_STAT_QUARTERS], err[PMA_STAT_QUARTERS];
	struct pma_stat_test t;

	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		v[i] = out->q[i].A;
		err[i] = out->q[i].A_err;
	}
	pma_stat_chi2(v, err, &t);
	out->chi2 = t.chi2;
	out->p = t.p;
	out->disagree = t.disagree;
	out->q_min = t.q_min;
	out->q_max = t.q_max;
}

int pma_stat_ratio_quarters(const double *num, const double *den, double *num_sum,
			    double *den_sum, double *R, double *R_err)
{
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		const double *n = num + i * PMA_STAT_BLOCKS, *d = den + i * PMA_STAT_BLOCKS;
		double N = 0, D = 0, ss = 0;

		for (int k = 0; k < PMA_STAT_BLOCKS; k++) {
			if (!isfinite(n[k]) || !isfinite(d[k]))
				return -1;
			N += n[k];
			D += d[k];
		}
		if (!(D > 0))
			return -1;
		R[i] = N / D;
		for (int k = 0; k < PMA_STAT_BLOCKS; k++) {
			double e = n[k] - R[i] * d[k];
			ss += e * e;
		}
		R_err[i] = sqrt((double)PMA_STAT_BLOCKS / (PMA_STAT_BLOCKS - 1) * ss) / D;
		num_sum[i] = N;
		den_sum[i] = D;
	}
	return 0;
}

double pma_stat_count_at(const uint64_t *t_ns, const double *v, size_t n, uint64_t at_ns)
{
	size_t lo = 0, hi;

	if (n == 0)
		return NAN;
	if (at_ns <= t_ns[0])
		return v[0];
	if (at_ns >= t_ns[n - 1])
		return v[n - 1];
	/* the last point at or before at_ns: t_ns[lo] <= at_ns < t_ns[hi] */
	hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t_ns[mid] <= at_ns)
			lo = mid;
		else
			hi = mid;
	}
	return v[lo] + (v[hi] - v[lo]) * (double)(at_ns - t_ns[lo]) / (double)(t_ns[hi] - t_ns[lo]);
}

/* The column of the run's counter snapshots named name (RUN_BEGIN "counters.events"), -1 none. */
static int counter_column(const struct pma_run *run, const char *name)
{
	for (size_t i = 0; name && i < run->info.ncounter_events && i < run->ctr_n; i++)
		if (run->info.counter_events[i] && strcmp(run->info.counter_events[i], name) == 0)
			return (int)i;
	return -1;
}

/* Why the run has no counter snapshots to cut (static), in words. */
static const char *no_snapshots_why(const struct pma_run *run)
{
	const struct pma_run_cost *c = &run->info.C;

	if (c->present && (c->unit == PMA_COST_CYCLES || isfinite(c->instructions)))
		return "the run has no counter snapshots (COUNTERS records): its counters were read "
		       "at the recording's ends only";
	return "the run has no counter snapshots (COUNTERS records): no hardware counters were "
	       "counted";
}

/* The cumulative points of one column: (RUN_BEGIN, 0), the snapshots whose value was read, and
 * RUN_END's value (end, NAN: none) at t_end_ns. Into t_ns[], v[] (room for run->nctr + 2); returns
 * the points, or 0 with *why when a value decreases or a time goes back. */
static size_t column_points(const struct pma_run *run, int col, double end, uint64_t *t_ns,
			    double *v, const char **why)
{
	size_t n = 0;

	if (run->t_begin_ns && (run->nctr == 0 || run->t_begin_ns <= run->ctr_t_ns[0])) {
		t_ns[n] = run->t_begin_ns;
		v[n++] = 0;
	}
	for (size_t j = 0; j < run->nctr; j++) {
		int64_t x = run->ctr_values[j * run->ctr_n + (size_t)col];
		if (x == PMT_COUNTER_INVALID)
			continue;
		t_ns[n] = run->ctr_t_ns[j];
		v[n++] = (double)x;
	}
	if (isfinite(end) && run->info.has_end && run->t_end_ns >= (n ? t_ns[n - 1] : 0)) {
		t_ns[n] = run->t_end_ns;
		v[n++] = end;
	}
	for (size_t j = 1; j < n; j++)
		if (t_ns[j] < t_ns[j - 1] || v[j] < v[j - 1]) {
			*why = "the counter snapshots are not cumulative in time order (a count or a "
			       "time goes back)";
			return 0;
		}
	return n;
}

/* C by quarter (pma_stationarity_compute): the parts [b[k], e[k]) of [t0_ns, t1_ns) as fractions,
 * work_ns[k] their CPU time. */
static int cost_quarters(const struct pma_run *run, uint64_t t0_ns, uint64_t t1_ns,
			 const double *b, const double *e, const double *work_ns,
			 struct pma_stationarity *out)
{
	const struct pma_run_cost *c = &run->info.C;
	int cyc, ins;
	uint64_t *tc = NULL, *ti = NULL;
	double *vc = NULL, *vi = NULL;
	size_t nc = 0, ni = 0, inside[PMA_STAT_QUARTERS] = { 0 };
	double num[NPARTS], den[NPARTS], R[PMA_STAT_QUARTERS], R_err[PMA_STAT_QUARTERS];
	double Ns[PMA_STAT_QUARTERS], Ds[PMA_STAT_QUARTERS];
	double span = (double)(t1_ns - t0_ns);
	int rc = 0;

	if (run->nctr == 0) {
		out->C_why = no_snapshots_why(run);
		return 0;
	}
	if (run->info.ncounter_events != run->ctr_n) {
		out->C_why = "the counter snapshots' events are not named (RUN_BEGIN counters.events)";
		return 0;
	}
	if (!c->present) {
		out->C_why = "the run has no RUN_END C to name the snapshots' cycles and instructions "
			     "(the trace stops before it)";
		return 0;
	}
	cyc = c->unit == PMA_COST_CYCLES ? counter_column(run, c->event) : -1;
	ins = counter_column(run, c->instructions_event);
	if (cyc < 0 && ins < 0) {
		out->C_why = "the counter snapshots count neither cycles nor instructions (none of "
			     "their events is RUN_END C's cycles or instructions event)";
		return 0;
	}
	out->C_kind = cyc >= 0 && ins >= 0 ? PMA_STAT_C_CYCLES_PER_INS :
		      ins >= 0 ? PMA_STAT_C_NS_PER_INS : PMA_STAT_C_CYCLES_PER_CPU_S;
	for (size_t j = 0; j < run->nctr; j++) {
		uint64_t t = run->ctr_t_ns[j];
		if (t >= t0_ns && t <= t1_ns) {
			size_t q = (size_t)((double)(t - t0_ns) / span * PMA_STAT_QUARTERS);
			inside[q < PMA_STAT_QUARTERS ? q : PMA_STAT_QUARTERS - 1]++;
			out->C_snapshots++;
		}
	}
	for (int i = 0; i < PMA_STAT_QUARTERS; i++)
		if (inside[i] < PMA_STAT_MIN_SNAPSHOTS) {
			out->C_why = "too few counter snapshots: a quarter holds fewer than 4 (one per "
				     "two eighths of it)";
			return 0;
		}
	if ((cyc >= 0 && (!(tc = malloc((run->nctr + 2) * sizeof(*tc))) ||
			  !(vc = malloc((run->nctr + 2) * sizeof(*vc))))) ||
	    (ins >= 0 && (!(ti = malloc((run->nctr + 2) * sizeof(*ti))) ||
			  !(vi = malloc((run->nctr + 2) * sizeof(*vi)))))) {
		rc = -1;
		goto out;
	}
	if (cyc >= 0 && !(nc = column_points(run, cyc, c->value, tc, vc, &out->C_why)))
		goto out;
	if (ins >= 0 && !(ni = column_points(run, ins, c->instructions, ti, vi, &out->C_why)))
		goto out;
	for (int k = 0; k < NPARTS; k++) {
		/* the parts' edges as pma_regions_parts cuts them */
		uint64_t tb = t0_ns + (uint64_t)(span * b[k]), te = t0_ns + (uint64_t)(span * e[k]);
		double dc = cyc < 0 ? NAN :
			pma_stat_count_at(tc, vc, nc, te) - pma_stat_count_at(tc, vc, nc, tb);
		double di = ins < 0 ? NAN :
			pma_stat_count_at(ti, vi, ni, te) - pma_stat_count_at(ti, vi, ni, tb);

		switch (out->C_kind) {
		case PMA_STAT_C_CYCLES_PER_INS:
			num[k] = dc;
			den[k] = di;
			break;
		case PMA_STAT_C_NS_PER_INS:
			num[k] = work_ns[k];
			den[k] = di;
			break;
		default:
			num[k] = dc;
			den[k] = work_ns[k] / 1e9;
			break;
		}
	}
	if (pma_stat_ratio_quarters(num, den, Ns, Ds, R, R_err) < 0) {
		out->C_why = out->C_kind == PMA_STAT_C_CYCLES_PER_CPU_S ?
			"a quarter of the recording holds no CPU time of the program" :
			"a quarter of the recording retired no instructions";
		goto out;
	}
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		out->q[i].C_num = Ns[i];
		out->q[i].C_den = Ds[i];
		out->q[i].C = R[i];
		out->q[i].C_err = R_err[i];
	}
	pma_stat_chi2(R, R_err, &out->C_test);
	out->C_have = 1;
out:
	free(tc);
	free(vc);
	free(ti);
	free(vi);
	return rc;
}

/* The mean length of the program's running slices, ns (0 without). */
static double mean_slice_ns(const struct pma_exact *x)
{
	size_t n = 0, nrun = 0;
	const struct pma_slice *sl = x ? pma_exact_slices(x, &n) : NULL;
	double sum = 0;

	for (size_t i = 0; sl && i < n; i++)
		if (sl[i].kind == PMA_SLICE_RUNNING && sl[i].t1_ns > sl[i].t0_ns) {
			sum += (double)(sl[i].t1_ns - sl[i].t0_ns);
			nrun++;
		}
	return nrun ? sum / (double)nrun : 0;
}

/* The resolution of a quarter's A, as the report's uncertainty of A(m,inf) counts it for the
 * estimator (result/compute.c compute_uncertainty), and where the quarter's edges cut: *rel, the
 * exact mode's lost events as a share of its events plus the CPU time credited to unrecorded
 * switches as a share of the work (0 for the samples); *misplaced_ns, the critical path a
 * quarter's two edges can misplace, one unit at each in quadrature: a running slice (a thread's
 * CPU time inside the quarter, which bounds its critical path, is cut to within the slice in
 * progress; the mean slice) or a sampled interval. */
static void resolution(const struct pma_run *run, int exact, double *rel, double *misplaced_ns)
{
	const struct pma_exact_stats *x = &run->xst;

	*rel = 0;
	if (exact && x->events + x->lost > 0 && x->work_ns > 0)
		*rel = (double)x->lost / (double)(x->events + x->lost) + x->inferred_ns / x->work_ns;
	*misplaced_ns = M_SQRT2 * (exact ? mean_slice_ns(run->exact) : run->st.window_ns);
	if (!isfinite(*rel) || *rel < 0)
		*rel = 0;
	if (!isfinite(*misplaced_ns) || *misplaced_ns < 0)
		*misplaced_ns = 0;
}

/* With scheduler events, window k's critical path [t0 + b[k] span, t0 + e[k] span) is how far
 * the program got along the infinite-core axis over it (pma_exact_cp_at: the same T_cp as the
 * report's A(m,inf), cut at the windows' edges, so the quarters add up to it); processor
 * sharing's r / q per step (pma_regions_parts) reads the schedule the CPUs happened to run, in
 * which threads time-sliced on a few CPUs finish a phase one by one. */
static void exact_parts(const struct pma_exact *x, uint64_t t0_ns, uint64_t t1_ns, const double *b,
			const double *e, double *T_cp_ns)
{
	double span = (double)(t1_ns - t0_ns);

	for (int k = 0; k < NWIN; k++)
		T_cp_ns[k] = pma_exact_cp_at(x, (double)t0_ns + span * e[k]) -
			     pma_exact_cp_at(x, (double)t0_ns + span * b[k]);
}

int pma_stationarity_compute(const struct pma_run *run, int est, struct pma_stationarity *out)
{
	double misplaced_ns;
	double work_ns[NWIN], T_cp_ns[NWIN], b[NWIN], e[NWIN];
	uint64_t t0_ns, t1_ns, cut = 0;
	size_t nint = 0;
	double len_s;

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < NPARTS; k++) {
		b[k] = (double)k / NPARTS;
		e[k] = (double)(k + 1) / NPARTS;
	}
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		b[NPARTS + i] = (double)i / PMA_STAT_QUARTERS;
		e[NPARTS + i] = (double)(i + 1) / PMA_STAT_QUARTERS;
	}
	for (int i = 0; i < PMA_STAT_QUARTERS; i++)
		out->q[i].C = out->q[i].C_err = out->q[i].C_num = out->q[i].C_den = NAN;
	if (pma_regions_parts(run, NWIN, b, e, &t0_ns, &t1_ns, work_ns, T_cp_ns, &out->method) < 0)
		return -1;
	if (!out->method) {
		out->why_not = "the run has neither scheduler events nor sampled intervals";
		out->C_why = out->why_not;
		return 0;
	}
	if (strcmp(out->method, "sched-exact") == 0 && run->exact)
		exact_parts(run->exact, t0_ns, t1_ns, b, e, T_cp_ns);
	len_s = (double)(t1_ns - t0_ns) / 1e9 / PMA_STAT_QUARTERS;
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		out->q[i].start_s = i * len_s;
		out->q[i].length_s = len_s;
	}
	if (cost_quarters(run, t0_ns, t1_ns, b, e, work_ns, out) < 0)
		return -1;
	if (strcmp(out->method, "samples") == 0) {
		if (run->est)
			(void)pma_est_series(run->est, &nint, &cut);
		out->sampled_fallback = est == PMA_EST_SWITCH || est == PMA_EST_SCHED;
		if (nint < PMA_STAT_MIN_INTERVALS) {
			out->why_not = out->sampled_fallback ?
				"switch-exact has no real-time timelines, and the samples are too few "
				"intervals (two per eighth of a quarter)" :
				"too few sampled intervals (two per eighth of a quarter)";
			return 0;
		}
	}
	resolution(run, strcmp(out->method, "sched-exact") == 0, &out->rel_err, &misplaced_ns);
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		struct pma_stat_quarter *q = &out->q[i];
		double est_err;

		quarter_of_parts(work_ns + i * PMA_STAT_BLOCKS, T_cp_ns + i * PMA_STAT_BLOCKS,
				 work_ns[NPARTS + i], T_cp_ns[NPARTS + i], q);
		if (!(q->T_cp_ns > 0) || !isfinite(q->A_err_stat)) {
			out->why_not = "a quarter of the recording holds no CPU time of the program";
			return 0;
		}
		est_err = q->A * hypot(out->rel_err, misplaced_ns / q->T_cp_ns);
		q->A_err = sqrt(q->A_err_stat * q->A_err_stat + est_err * est_err);
	}
	out->have = 1;
	test_quarters(out);
	return 0;
}
