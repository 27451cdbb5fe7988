/* SPDX-License-Identifier: MIT */
/* estimate.c: the paper's and the runnable-time estimators of A(m,inf,t), streamed over samples. */
#include "estimate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"

/* Intervals the runnable estimator keeps open so that run-queue wait credited late (when the
 * thread finally gets a CPU) can be moved back to where it was spent: 128 intervals is 1.28 s at
 * the default 10 ms (256 threads on one CPU with 3 ms slices wait about 0.8 s). Each live thread
 * keeps two floats per interval, so memory is fixed per thread, independent of the run's length. */
#define RING 128u
/* A thread missing from this many consecutive samples is forgotten (once its intervals are
 * finalized); kept a little so a TASK EXIT record that comes after the sample finds its values. */
#define GRACE_SAMPLES 2u

struct thr {
	uint32_t tid;
	int prev_active;     /* runnable in the last finalized interval */
	uint64_t first_k;    /* first interval with data */
	uint64_t last_k;     /* last interval with data */
	uint64_t last_run_ns, last_wait_ns;
	uint64_t gen;        /* last sample that listed the thread */
	double wtau_ns;      /* CPU time in the open window */
	double pend_tail_ns, pend_tail_a_ns; /* CPU and runnable time after the last sample (exit) */
	float *tau_r, *a_r;  /* per interval of the ring: CPU time and runnable time, ns */
	uint32_t last_nvcsw;
	int have_nvcsw;
	uint64_t last_nvcsw_t_ns; /* time of that fresh read */
};

struct pma_est {
	struct pma_profile prof[PMA_EST_SAMPLED];
	struct thr *thr;
	size_t nthr, cap;
	struct pm_tidmap map; /* tid -> index into thr */
	double ring_dT_ns[RING];
	uint64_t ring_t0_ns[RING];
	struct pma_est_interval *series; /* finalized intervals in time order */
	size_t nseries, series_cap;
	uint64_t series_cut;
	uint64_t k_next, k_final; /* intervals created / finalized */
	double win_tau_ns;   /* runnable estimator: CPU time in the open window */
	uint64_t t_prev_ns;
	int have_t_prev;
	uint64_t gen;
	double pend_tau_ns, pend_max_ns; /* exit tails waiting for the next interval */
	int pend;
	struct pma_est_stats st;
	int oom;
	/* merging of samples on an oversubscribed baseline (pma_est_set_cpus) */
	uint32_t cpus_n;
	struct pmt_sample held;           /* the last sample merged into the next one */
	struct pmt_thread_sample *held_thr;
	size_t held_cap;
	int have_held;
};

const char *pma_estimator_name(enum pma_estimator_kind k)
{
	switch (k) {
	case PMA_EST_PAPER:
		return "paper";
	case PMA_EST_RUNNABLE:
		return "runnable";
	case PMA_EST_SCHED:
		return "sched-exact";
	case PMA_EST_SWITCH:
		return "switch-exact";
	default:
		return "?";
	}
}

int pma_estimator_parse(const char *name)
{
	for (int k = 0; k < PMA_EST_COUNT; k++)
		if (strcmp(name, pma_estimator_name(k)) == 0)
			return k;
	return -1;
}

struct pma_est *pma_est_new(void)
{
	struct pma_est *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	for (int k = 0; k < PMA_EST_SAMPLED; k++)
		pma_profile_init(&e->prof[k]);
	return e;
}

void pma_est_free(struct pma_est *e)
{
	if (!e)
		return;
	for (int k = 0; k < PMA_EST_SAMPLED; k++)
		pma_profile_free(&e->prof[k]);
	for (size_t i = 0; i < e->nthr; i++) {
		free(e->thr[i].tau_r);
		free(e->thr[i].a_r);
	}
	free(e->thr);
	free(e->held_thr);
	free(e->series);
	pm_tidmap_free(&e->map);
	free(e);
}

static struct thr *find(struct pma_est *e, uint32_t tid)
{
	uint32_t i;

	return pm_tidmap_get(&e->map, tid, &i) ? &e->thr[i] : NULL;
}

static struct thr *add(struct pma_est *e, uint32_t tid)
{
	struct thr *t;

	if (PM_GROW(e->thr, e->cap, e->nthr + 1) < 0)
		return NULL;
	t = &e->thr[e->nthr];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tau_r = calloc(RING, sizeof(float));
	t->a_r = calloc(RING, sizeof(float));
	if (!t->tau_r || !t->a_r || pm_tidmap_put(&e->map, tid, (uint32_t)e->nthr) < 0) {
		free(t->tau_r);
		free(t->a_r);
		return NULL;
	}
	t->first_k = t->last_k = e->k_next ? e->k_next - 1 : 0;
	e->nthr++;
	e->st.threads_seen++;
	return t;
}

/* Forgets threads that exited (not listed for GRACE_SAMPLES samples) once every interval they
 * have data in is finalized and they hold no CPU time of the open window. */
static int sweep(struct pma_est *e)
{
	size_t o = 0;

	for (size_t i = 0; i < e->nthr; i++) {
		struct thr *t = &e->thr[i];
		if (e->gen - t->gen > GRACE_SAMPLES && t->last_k < e->k_final && t->wtau_ns == 0) {
			free(t->tau_r);
			free(t->a_r);
			continue;
		}
		e->thr[o++] = *t;
	}
	if (o == e->nthr)
		return 0;
	e->nthr = o;
	/* the indexes moved: map them again (fewer keys than before, so no growth) */
	pm_tidmap_clear(&e->map);
	for (size_t i = 0; i < e->nthr; i++)
		if (pm_tidmap_put(&e->map, e->thr[i].tid, (uint32_t)i) < 0)
			return -1;
	return 0;
}

void pma_est_begin(struct pma_est *e, uint64_t t_ns)
{
	e->t_prev_ns = t_ns;
	e->have_t_prev = 1;
	if (!e->st.first_t_ns)
		e->st.first_t_ns = t_ns;
}

/* Closes the runnable estimator's window: eq. 4's piece over the whole window, A = sum tau_j /
 * max tau_j and dT_cp = max tau_j, as the paper does per interval. */
static int close_window(struct pma_est *e)
{
	double max = 0;

	if (e->win_tau_ns <= 0)
		return 0;
	for (size_t i = 0; i < e->nthr; i++) {
		if (e->thr[i].wtau_ns > max)
			max = e->thr[i].wtau_ns;
		e->thr[i].wtau_ns = 0;
	}
	if (e->pend_max_ns > max) /* not reached: tails are folded in before finalizing */
		max = e->pend_max_ns;
	{
		double tau = e->win_tau_ns;
		e->win_tau_ns = 0;
		return max > 0 ? pma_profile_add(&e->prof[PMA_EST_RUNNABLE], tau / max, max) : 0;
	}
}

/* Runnable estimator, once interval k_final can no longer receive moved-back wait: a window of
 * intervals ends when a thread becomes runnable after not being runnable (a wake-up or a new
 * thread: new work was released) or when nothing is runnable. Inside a window threads only drop
 * out (finish their share and block), which is what a barrier phase looks like; applying eq. 4 to
 * the whole window removes the bias of short intervals against long scheduler slices. */
static int finalize_one(struct pma_est *e)
{
	uint64_t k = e->k_final;
	size_t slot = k % RING;
	double dT = e->ring_dT_ns[slot], tau = 0, runnable = 0;
	int woke = 0, active = 0;

	for (size_t i = 0; i < e->nthr; i++) {
		const struct thr *t = &e->thr[i];
		int is_active;
		if (k < t->first_k || k > t->last_k)
			continue;
		is_active = t->a_r[slot] > 0 || t->tau_r[slot] > 0;
		active |= is_active;
		woke |= is_active && !t->prev_active;
	}
	if (woke || !active)
		if (close_window(e) < 0)
			return -1;
	for (size_t i = 0; i < e->nthr; i++) {
		struct thr *t = &e->thr[i];
		if (k < t->first_k || k > t->last_k) {
			t->prev_active = 0;
			continue;
		}
		t->wtau_ns += t->tau_r[slot];
		tau += t->tau_r[slot];
		runnable += t->a_r[slot] > t->tau_r[slot] ? t->a_r[slot] : t->tau_r[slot];
		t->prev_active = t->a_r[slot] > 0 || t->tau_r[slot] > 0;
	}
	e->win_tau_ns += tau;
	if (e->nseries < PMA_EST_SERIES_MAX && PM_GROW(e->series, e->series_cap, e->nseries + 1) == 0)
		e->series[e->nseries++] = (struct pma_est_interval){ e->ring_t0_ns[slot], (float)dT,
								     (float)tau, (float)runnable };
	else
		e->series_cut++;
	e->k_final++;
	if (!active)
		return pma_profile_add(&e->prof[PMA_EST_RUNNABLE], 0, dT);
	return 0;
}

/* Places wait_ns of thread t's run-queue wait, credited in interval k, in the intervals where it
 * was spent: the kernel adds a wait to schedstat only when the thread gets a CPU
 * (sched_info_arrive), so the wait ends where the run that revealed it starts and began after the
 * thread's previous run. The caller first fills interval k itself (up to dT - run: a thread woken
 * in k and run in k waited in k) and passes the rest, which is laid back from the start of k.
 * Filling k first matters at barriers: woken threads that wait behind the one that woke them must
 * not look woken an interval early, which would cut the previous phase's window short and lose
 * its tail from T_cp (mixed pattern: T_cp -2.2 % with back-first placement, -0.4 % with this).
 * Returns the part that found no room before k (it belongs to k itself). */
static double place_wait(struct pma_est *e, struct thr *t, uint64_t k, double wait_ns)
{
	uint64_t i = k;

	while (wait_ns > 0 && i > e->k_final && i > t->first_k) {
		size_t slot = --i % RING;
		double room = e->ring_dT_ns[slot] - t->a_r[slot];
		double put = room > 0 ? (wait_ns < room ? wait_ns : room) : 0;
		t->a_r[slot] += (float)put;
		wait_ns -= put;
		if (t->tau_r[slot] > 0 || room <= 0)
			return wait_ns;
	}
	/* ran out of kept intervals while the thread was still waiting */
	if (wait_ns > 0 && i == e->k_final && i > t->first_k) {
		e->st.unplaced_wait_ns += wait_ns;
		return 0;
	}
	return wait_ns;
}

/* Places run_ns of thread t's CPU time, credited in interval k beyond what k can hold (one thread
 * runs at most dT of an interval), in the intervals before k where it was spent: schedstat's run
 * time (se.sum_exec_runtime, proc(5) schedstat field 1) of a running thread advances only at
 * scheduler ticks and at switch-out (update_curr), 4 ms apart at HZ = 250, so a sample between
 * two ticks sees no run at all and the next one sees the whole tick. The run that one credit
 * reveals began after the previous credit, so the placement stops in the interval of the thread's
 * previous CPU time, as place_wait's does. Without it, intervals shorter than a tick show running
 * threads idle, every credit looks like a wake-up and cuts the window, and A collapses to 1
 * (docs/model.md "switch-exact"). Returns the part that found no room before k. */
static double place_run(struct pma_est *e, struct thr *t, uint64_t k, double run_ns)
{
	uint64_t i = k;

	while (run_ns > 0 && i > e->k_final && i > t->first_k) {
		size_t slot = --i % RING;
		double room = e->ring_dT_ns[slot] - (t->a_r[slot] > t->tau_r[slot] ? t->a_r[slot]
										      : t->tau_r[slot]);
		int had_run = t->tau_r[slot] > 0;
		double put = room > 0 ? (run_ns < room ? run_ns : room) : 0;
		t->tau_r[slot] += (float)put;
		t->a_r[slot] += (float)put;
		run_ns -= put;
		if (had_run || room <= 0)
			break;
	}
	return run_ns;
}

void pma_est_set_cpus(struct pma_est *e, uint32_t cpus_n)
{
	e->cpus_n = cpus_n;
}

/* The sample lists more threads than the run has CPUs (pma_est_set_cpus; never without it). */
static int oversubscribed(const struct pma_est *e, const struct pmt_sample *s)
{
	return e->cpus_n && s->n > e->cpus_n;
}

/* A sample that lists more threads than the run has CPUs and comes less than
 * PMA_EST_OVERSUB_WINDOW_NS after the last interval boundary is merged into the next one: on an
 * oversubscribed baseline one interval shorter than a few scheduler slices sees one thread run
 * while the others wait (schedstat's run_delay grows only when a waiting thread gets the CPU), so
 * A reads low (issue 34: omp_loop m=8 on 1 CPU as nobody at 1.6 ms read 2.52 for 2.99).
 * schedstat's counters are cumulative, so a merged sample loses no CPU or wait time, only time
 * resolution. */
static int merges(const struct pma_est *e, const struct pmt_sample *s)
{
	return oversubscribed(e, s) && e->have_t_prev && s->t_ns > e->t_prev_ns &&
	       s->t_ns - e->t_prev_ns < PMA_EST_OVERSUB_WINDOW_NS;
}

/* Keeps a deep copy of s, the last merged sample, for pma_est_finish and for a TASK EXIT that
 * follows it (its final values count from the last interval boundary). */
static int hold(struct pma_est *e, const struct pmt_sample *s)
{
	if (PM_GROW(e->held_thr, e->held_cap, s->n ? s->n : 1) < 0)
		return -1;
	if (s->n)
		memcpy(e->held_thr, s->threads, s->n * sizeof(*s->threads));
	e->held = *s;
	e->held.threads = e->held_thr;
	e->have_held = 1;
	e->st.merged_samples++;
	return 0;
}

static int take_sample(struct pma_est *e, const struct pmt_sample *s);

/* Makes the held sample an interval boundary after all. */
static int flush_held(struct pma_est *e)
{
	if (!e->have_held)
		return 0;
	e->have_held = 0;
	e->st.merged_samples--;
	return take_sample(e, &e->held);
}

int pma_est_sample(struct pma_est *e, const struct pmt_sample *s)
{
	if (e->oom)
		return -1;
	e->st.samples++;
	e->st.thread_samples += s->n;
	if (!e->st.first_sample_ns)
		e->st.first_sample_ns = s->t_ns;
	e->st.last_sample_ns = s->t_ns;
	if (s->n > e->st.m_peak)
		e->st.m_peak = s->n;
	if (!e->st.first_t_ns)
		e->st.first_t_ns = s->t_ns;
	if (merges(e, s)) {
		if (hold(e, s) < 0) {
			e->oom = 1;
			return -1;
		}
		return 0;
	}
	e->have_held = 0;
	return take_sample(e, s);
}

static int take_sample(struct pma_est *e, const struct pmt_sample *s)
{
	double dT, tau, tau_max;
	uint64_t k = 0;
	size_t slot = 0;

	if (!e->have_t_prev) {
		/* no RUN_BEGIN: the first sample only sets the starting values */
		pma_est_begin(e, s->t_ns);
		dT = 0;
	} else if (s->t_ns <= e->t_prev_ns) {
		e->st.bad_intervals++;
		return 0;
	} else {
		dT = (double)(s->t_ns - e->t_prev_ns);
	}
	e->gen++;
	if (dT > 0) {
		if (e->k_next - e->k_final == RING && finalize_one(e) < 0)
			goto oom;
		k = e->k_next++;
		slot = k % RING;
		e->ring_dT_ns[slot] = dT;
		e->ring_t0_ns[slot] = e->t_prev_ns;
		e->st.intervals++;
		if (oversubscribed(e, s)) {
			e->st.oversub_intervals++;
			e->st.oversub_ns += dT;
		}
		/* every known thread gets a zero slot for this interval; listed ones fill it below */
		for (size_t i = 0; i < e->nthr; i++) {
			struct thr *t = &e->thr[i];
			t->tau_r[slot] = (float)t->pend_tail_ns; /* an exited thread's last CPU time */
			t->a_r[slot] = (float)t->pend_tail_a_ns;
			if (t->pend_tail_ns > 0 || t->pend_tail_a_ns > 0)
				t->last_k = k;
			t->pend_tail_ns = t->pend_tail_a_ns = 0;
		}
	}
	tau = e->pend_tau_ns;
	tau_max = e->pend_max_ns;
	e->pend_tau_ns = e->pend_max_ns = 0;
	e->pend = 0;

	for (uint32_t i = 0; i < s->n; i++) {
		const struct pmt_thread_sample *ts = &s->threads[i];
		struct thr *t = (i < e->nthr && e->thr[i].tid == ts->tid) ? &e->thr[i] : find(e, ts->tid);
		double r, w, a, cap, cur, in_k;

		if (ts->tid == 0)
			continue; /* the idle task, never a program thread: only a damaged trace lists it */
		if (!t && !(t = add(e, ts->tid)))
			goto oom;
		t->gen = e->gen;
		if (ts->flags & PMT_TS_STATUS_FRESH) {
			e->st.status_reads++;
			if (t->have_nvcsw && ts->nvcsw >= t->last_nvcsw) {
				e->st.nvcsw_total += ts->nvcsw - t->last_nvcsw;
				e->st.nvcsw_span_ns += (double)(s->t_ns - t->last_nvcsw_t_ns);
			}
			t->last_nvcsw = ts->nvcsw;
			t->last_nvcsw_t_ns = s->t_ns;
			t->have_nvcsw = 1;
		}
		if (!(ts->flags & PMT_TS_SCHEDSTAT_OK))
			continue;
		/* a counter that went backwards is a reused tid: count from zero */
		r = (double)(ts->run_ns >= t->last_run_ns ? ts->run_ns - t->last_run_ns : ts->run_ns);
		w = (double)(ts->wait_ns >= t->last_wait_ns ? ts->wait_ns - t->last_wait_ns : ts->wait_ns);
		t->last_run_ns = ts->run_ns;
		t->last_wait_ns = ts->wait_ns;
		e->st.wait_total_ns += w;
		if (dT <= 0)
			continue;
		tau += r;
		if (r > tau_max)
			tau_max = r;
		t->tau_r[slot] = 0;
		t->a_r[slot] = 0;
		/* run_ns of a running thread is updated at ticks: the part of a delta beyond dT ran
		 * in earlier intervals; what finds no room there stays here rather than be lost */
		if (r > dT)
			r = dT + place_run(e, t, k, r - dT);
		/* The thread's runnable time in this interval: its run plus the part of the wait
		 * that does not fit before the interval. */
		t->tau_r[slot] = (float)r;
		cap = dT > r ? dT : r;
		in_k = w < cap - r ? w : cap - r;
		a = r + in_k + place_wait(e, t, k, w - in_k);
		cur = a < cap ? a : cap;
		t->a_r[slot] = (float)cur;
		t->last_k = k;
	}
	if (dT > 0) {
		/* eq. 4 as published: A(m,inf,t) = sum tau_j / max tau_j, dT_cp = max tau_j */
		if (tau_max > 0) {
			if (pma_profile_add(&e->prof[PMA_EST_PAPER], tau / tau_max, tau_max) < 0)
				goto oom;
		} else if (pma_profile_add(&e->prof[PMA_EST_PAPER], 0, dT) < 0) {
			goto oom;
		}
		e->t_prev_ns = s->t_ns;
	}
	e->st.last_t_ns = s->t_ns;
	if (sweep(e) < 0)
		goto oom;
	return 0;
oom:
	e->oom = 1;
	return -1;
}

int pma_est_task(struct pma_est *e, const struct pmt_task_event *ev)
{
	struct thr *t;
	double r, w;

	if (ev->kind != PMT_TASK_EXIT || !(ev->flags & PMT_TASKF_FINAL))
		return 0;
	if (flush_held(e) < 0)
		return -1;
	t = find(e, ev->tid);
	if (!t)
		return 0;
	r = ev->final_run_ns > t->last_run_ns ? (double)(ev->final_run_ns - t->last_run_ns) : 0;
	w = ev->final_wait_ns > t->last_wait_ns ? (double)(ev->final_wait_ns - t->last_wait_ns) : 0;
	t->last_run_ns = ev->final_run_ns > t->last_run_ns ? ev->final_run_ns : t->last_run_ns;
	t->last_wait_ns = ev->final_wait_ns > t->last_wait_ns ? ev->final_wait_ns : t->last_wait_ns;
	e->st.wait_total_ns += w;
	e->pend_tau_ns += r;
	if (r > e->pend_max_ns)
		e->pend_max_ns = r;
	t->pend_tail_ns += r;
	t->pend_tail_a_ns += r + w;
	e->pend = 1;
	e->st.exit_tail_ns += r;
	return 0;
}

int pma_est_finish(struct pma_est *e, uint64_t t_end_ns)
{
	if (e->oom || flush_held(e) < 0)
		return -1;
	if (e->pend && e->have_t_prev && t_end_ns > e->t_prev_ns) {
		struct pmt_sample empty = { .t_ns = t_end_ns };
		if (take_sample(e, &empty) < 0) /* the closing interval is not a sample */
			return -1;
	}
	while (e->k_final < e->k_next)
		if (finalize_one(e) < 0)
			return -1;
	if (close_window(e) < 0)
		return -1;
	if (e->st.intervals && e->st.last_t_ns > e->st.first_t_ns) {
		double span_ns = (double)(e->st.last_t_ns - e->st.first_t_ns);
		e->st.window_ns = span_ns / (double)e->st.intervals;
		/* one sample or none: the intervals are all there is */
		e->st.mean_interval_ns = span_ns / (double)(e->st.intervals + e->st.merged_samples);
	}
	if (e->st.samples >= 2 && e->st.last_sample_ns > e->st.first_sample_ns)
		e->st.mean_interval_ns = (double)(e->st.last_sample_ns - e->st.first_sample_ns) /
					 (double)(e->st.samples - 1);
	return 0;
}

const struct pma_profile *pma_est_profile(const struct pma_est *e, enum pma_estimator_kind k)
{
	return k >= 0 && k < PMA_EST_SAMPLED ? &e->prof[k] : NULL;
}

const struct pma_est_interval *pma_est_series(const struct pma_est *e, size_t *n, uint64_t *cut)
{
	*n = e->nseries;
	*cut = e->series_cut;
	return e->series;
}

void pma_est_get_stats(const struct pma_est *e, struct pma_est_stats *st)
{
	*st = e->st;
}
