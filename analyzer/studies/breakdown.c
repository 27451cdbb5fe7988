/* SPDX-License-Identifier: MIT */
/* breakdown.c: the calibration runs on c CPUs replayed from their own scheduler events, beside
 * the baseline's prediction (breakdown.h). */
#include "breakdown.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_tid_t0(const void *a, const void *b)
{
	const struct pma_slice *p = a, *q = b;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	if (p->t0_ns != q->t0_ns)
		return p->t0_ns < q->t0_ns ? -1 : 1;
	return (p->kind > q->kind) - (p->kind < q->kind);
}

/* A change of the counts at t: running, ready after a wake, ready after a preemption. */
struct mark {
	uint64_t t_ns;
	int8_t d_run, d_wake, d_pre;
};

static int cmp_mark(const void *a, const void *b)
{
	const struct mark *p = a, *q = b;
	return (p->t_ns > q->t_ns) - (p->t_ns < q->t_ns);
}

/* The counts of each slice's thread by kind, and the per-thread walk: which runnable slices
 * follow a wake and which a preemption, and the switch-ins on another CPU. */
static void classify(const struct pma_slice *s, size_t n, struct mark *mk,
		     struct pma_breakdown_run *out)
{
	const struct pma_slice *last_run = NULL, *prev = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct pma_slice *x = &s[i];
		double d = (double)(x->t1_ns - x->t0_ns);
		int8_t run = 0, wake = 0, pre = 0;
		if (prev && prev->tid != x->tid)
			last_run = prev = NULL;
		if (x->kind == PMA_SLICE_RUNNING) {
			out->U_ns += d;
			out->switch_ins++;
			if (last_run && last_run->cpu != x->cpu) {
				out->migrations++;
				if (prev && prev->kind == PMA_SLICE_RUNNABLE && prev->t1_ns == x->t0_ns)
					out->migration_wait_ns += (double)(prev->t1_ns - prev->t0_ns);
			}
			last_run = x;
			run = 1;
		} else if (prev && prev->kind == PMA_SLICE_RUNNING && prev->t1_ns == x->t0_ns) {
			out->preemptions++;
			pre = 1;
		} else {
			out->wakes++;
			out->wake_latency_ns += d;
			wake = 1;
		}
		mk[2 * i] = (struct mark){ x->t0_ns, run, wake, pre };
		mk[2 * i + 1] = (struct mark){ x->t1_ns, (int8_t)-run, (int8_t)-wake, (int8_t)-pre };
		prev = x;
	}
}

int pma_breakdown_replay(const struct pma_slice *s, size_t n, uint32_t c,
			 struct pma_breakdown_run *out)
{
	struct pma_slice *v = NULL;
	struct mark *mk = NULL;
	long run = 0, wake = 0, pre = 0;

	memset(out, 0, sizeof(*out));
	if (!c)
		return -1;
	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	mk = malloc(2 * n * sizeof(*mk));
	if (!v || !mk) {
		free(v);
		free(mk);
		return -1;
	}
	memcpy(v, s, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_tid_t0);
	classify(v, n, mk, out);
	qsort(mk, 2 * n, sizeof(*mk), cmp_mark);
	for (size_t i = 0; i < 2 * n; i++) {
		/* over [mk[i-1].t, mk[i].t) the counts stand as they were after mark i - 1 */
		if (i > 0 && mk[i].t_ns > mk[i - 1].t_ns && wake + pre > 0) {
			double dt = (double)(mk[i].t_ns - mk[i - 1].t_ns);
			long free_cpus = (long)c - run, ready = wake + pre;
			double lost = dt * (double)(free_cpus < ready ? (free_cpus > 0 ? free_cpus : 0) :
					ready);
			out->lost_ns += lost;
			out->lost_wake_ns += lost * (double)wake / (double)ready;
			out->lost_preempt_ns += lost * (double)pre / (double)ready;
		}
		run += mk[i].d_run;
		wake += mk[i].d_wake;
		pre += mk[i].d_pre;
	}
	free(v);
	free(mk);
	return 0;
}

/* The largest term of row w by magnitude. */
static void name_largest(struct pma_breakdown_row *w)
{
	const char *name[] = { "cpu", "freq", "other", "steal", "wake", "preempt", "rest" };
	double val[] = { w->cpu_s, w->freq_s, w->other_s, w->steal_s, w->lost_wake_s,
			 w->lost_preempt_s, w->rest_s };

	w->largest = name[0];
	w->largest_s = val[0];
	for (size_t k = 1; k < sizeof(val) / sizeof(val[0]); k++)
		if (fabs(val[k]) > fabs(w->largest_s)) {
			w->largest = name[k];
			w->largest_s = val[k];
		}
}

double pma_breakdown_clock_hz(const struct pma_run *r, const char **src)
{
	const struct pma_run_cost *c = &r->info.C;
	const struct pma_cpufreq *f = &r->info.cpufreq;

	*src = NULL;
	if (c->present && c->unit == PMA_COST_CYCLES && c->value > 0 && c->cpu_time_ns > 0 &&
	    isfinite(c->value) && isfinite(c->cpu_time_ns)) {
		*src = "cycles";
		return c->value / c->cpu_time_ns * 1e9;
	}
	if (f->present && f->hi_khz > 0 && isfinite(f->lo_khz) && f->lo_khz > 0) {
		*src = "cpufreq";
		return (f->lo_khz + f->hi_khz) / 2 * 1e3;
	}
	return NAN;
}

/* Adds run to row w (sums, divided by the run count in row_finish). */
static int add_run(struct pma_breakdown_row *w, const struct pma_run *run)
{
	const char *src;
	double f = pma_breakdown_clock_hz(run, &src);
	size_t ns;
	const struct pma_slice *s = pma_exact_slices(run->exact, &ns);
	struct pma_breakdown_run b;
	double c = run->cpus_n, wall_s = pma_run_program_wall_s(run);
	double other = run->info.energy.other_load_cpus, steal = run->info.energy.steal_cpus;
	double other_ns;

	if (pma_breakdown_replay(s, ns, run->cpus_n, &b) < 0)
		return -1;
	other_ns = isfinite(other) && other > 0 ? fmin(other * wall_s * 1e9, b.lost_ns) : 0;
	w->runs++;
	w->fc_sum_hz += f;
	w->T_meas_s += wall_s;
	w->U_s += b.U_ns / 1e9;
	w->lost_s += b.lost_ns / 1e9 / c;
	w->lost_wake_s += b.lost_wake_ns / 1e9 / c;
	w->lost_preempt_s += b.lost_preempt_ns / 1e9 / c;
	w->other_s += other_ns / 1e9 / c;
	if (isfinite(steal) && steal > 0) /* what other processes left of L */
		w->steal_s += fmin(steal * wall_s * 1e9, b.lost_ns - other_ns) / 1e9 / c;
	w->wake_latency_s += b.wake_latency_ns / 1e9;
	w->wakes += (double)b.wakes;
	w->migrations += (double)b.migrations;
	w->migration_wait_s += b.migration_wait_ns / 1e9;
	w->switch_ins += (double)b.switch_ins;
	w->preemptions += (double)b.preemptions;
	return 0;
}

static void row_finish(struct pma_breakdown_row *w, double U1_s, double f1_hz)
{
	double k = (double)w->runs;

	w->T_meas_s /= k;
	w->U_s /= k;
	w->lost_s /= k;
	w->lost_wake_s /= k;
	w->lost_preempt_s /= k;
	w->other_s /= k;
	w->steal_s /= k;
	w->wake_latency_s /= k;
	w->wakes /= k;
	w->migrations /= k;
	w->migration_wait_s /= k;
	w->switch_ins /= k;
	w->preemptions /= k;
	if (w->lost_s > 0) { /* other processes' and steal first, the rest by the waits' shares */
		double part = (w->lost_s - w->other_s - w->steal_s) / w->lost_s;
		w->lost_wake_s *= part;
		w->lost_preempt_s *= part;
	}
	w->cpu_s = (w->U_s - U1_s) / w->cores;
	w->f_ratio = w->fc_sum_hz / k / f1_hz;
	w->freq_known = isfinite(w->f_ratio) && w->f_ratio > 0;
	if (w->freq_known) { /* the same cycles at the runs' clock: U(1) f1 / fc */
		w->freq_s = (U1_s / w->f_ratio - U1_s) / w->cores;
		w->cpu_s -= w->freq_s;
	} else {
		w->f_ratio = NAN;
	}
	w->U_per_switch_ms = w->switch_ins > 0 ? w->U_s * 1e3 / w->switch_ins : 0;
	w->rest_s = w->T_meas_s - w->T_pred_s - w->cpu_s - w->freq_s - w->lost_s;
	name_largest(w);
}

/* The row of c in out, added in cores' order when new; NULL when out is full. */
static struct pma_breakdown_row *row_of(struct pma_breakdown *out, uint32_t c, double T_pred_ns)
{
	size_t i;

	for (i = 0; i < out->n && out->rows[i].cores != c; i++)
		;
	if (i < out->n)
		return &out->rows[i];
	if (out->n == PMA_BREAKDOWN_MAX)
		return NULL;
	for (i = out->n++; i > 0 && out->rows[i - 1].cores > c; i--)
		out->rows[i] = out->rows[i - 1];
	memset(&out->rows[i], 0, sizeof(out->rows[i]));
	out->rows[i].cores = c;
	out->rows[i].T_pred_s = T_pred_ns / 1e9;
	return &out->rows[i];
}

int pma_breakdown_trace(const struct pma_trace *traces, int ntraces, const struct pma_run *baseline,
			double m, const uint32_t *cores, const double *T_pred_ns, size_t ncores,
			struct pma_breakdown *out)
{
	struct pma_breakdown_run b1;
	size_t ns;
	const struct pma_slice *s;

	memset(out, 0, sizeof(*out));
	if (!baseline || !baseline->has_exact || baseline->cpus_n != 1)
		return 0; /* the terms compare with a run on one CPU (--run of another: none) */
	s = pma_exact_slices(baseline->exact, &ns);
	if (pma_breakdown_replay(s, ns, baseline->cpus_n, &b1) < 0)
		return -1;
	out->U1_s = b1.U_ns / 1e9;
	out->switch_ins_1 = (double)b1.switch_ins;
	out->preemptions_1 = (double)b1.preemptions;
	out->U_per_switch_1_ms = b1.switch_ins ? b1.U_ns / 1e6 / (double)b1.switch_ins : 0;
	out->f1_hz = pma_breakdown_clock_hz(baseline, &out->f1_source);
	for (int ti = 0; ti < ntraces; ti++)
		for (uint32_t j = 0; j < traces[ti].nruns; j++) {
			const struct pma_run *run = &traces[ti].runs[j];
			struct pma_breakdown_row *w;
			size_t k;
			if (run->info.role != PMA_ROLE_CALIBRATION || !run->has_exact ||
			    !pma_run_exited_ok(run) || run->cpus_n < 2 || (double)run->m != m ||
			    !(pma_run_program_wall_s(run) > 0))
				continue;
			for (k = 0; k < ncores && cores[k] != run->cpus_n; k++)
				;
			if (k == ncores || !isfinite(T_pred_ns[k]) || !(T_pred_ns[k] > 0))
				continue;
			if (!(w = row_of(out, run->cpus_n, T_pred_ns[k])))
				continue;
			if (add_run(w, run) < 0)
				return -1;
		}
	for (size_t i = 0; i < out->n; i++)
		row_finish(&out->rows[i], out->U1_s, out->f1_hz);
	return 0;
}
