/* SPDX-License-Identifier: MIT */
/* test_pswitch_truth.c: switch-exact's bounds (analyzer/model/pswitch.h A_lo, A_hi) against the
 * true A(m,inf) of random schedules. A small simulated kernel runs a program of 2-6 threads and an
 * outside task on 1 or 2 CPUs (forks, blocks, wakes by program threads, timers and the outside
 * task, tick preemptions, exit tails) and writes both what root records (sched_switch,
 * sched_waking, fork and exit: the exact mode, analyzer/model/exact.h, whose A is the schedule's
 * truth) and what any user gets (perf's context-switch, fork and exit records, no wakes; schedstat
 * run_delay samples read one thread after the other over a reading window, the wake enqueued up
 * to 50 us after sched_waking; wait4's CPU time). PMT_TRUTH_SEEDS=N draws another number of
 * schedules (default 500), from seed PMT_TRUTH_FIRST (default 1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exact.h"
#include "model.h"
#include "pswitch.h"

#define US 1000ull
#define ROOT 100u
#define OUTSIDE 999u
#define MAXTH 6
#define MAXEV 100000
#define TICK_NS (1000 * US)

enum { T_NEW, T_RUN, T_QUEUED, T_PENDING, T_BLOCKED, T_DEAD };

struct sth {
	int state, cpu, nburst, dying, joining;
	uint64_t left_ns, enq_ns, timer_ns, run_delay_ns;
};

/* A switch-in: thread k at t_ns, its run_delay after it (the collector reads it at a time). */
struct arrive {
	int k;
	uint64_t t_ns, run_delay_ns;
};

struct sim {
	uint64_t rng, t_ns;
	int ncpu, nth, kmax;       /* CPUs, threads forked so far, threads in all */
	int cur[2];                 /* index of the running thread, -1 idle, MAXTH the outside task */
	uint64_t out_left_ns, out_wake_ns;
	int out_state;              /* T_RUN, T_QUEUED, T_BLOCKED */
	struct sth th[MAXTH];
	struct pmt_sched_event *sched, *psw;
	size_t nsched, npsw;
	struct arrive *arr;
	size_t narr;
	double cpu_ns;              /* what wait4 reports: the program's CPU time */
	uint64_t run_start[MAXTH + 1];
};

static uint64_t rnd(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

/* Uniform in [lo, hi]. */
static uint64_t uni(struct sim *s, uint64_t lo, uint64_t hi)
{
	return lo + rnd(s) % (hi - lo + 1);
}

static uint32_t tid_of(int k)
{
	return k == MAXTH ? OUTSIDE : ROOT + (uint32_t)k;
}

static void sched_ev(struct sim *s, uint8_t kind, int cpu, uint32_t common, uint32_t a, uint32_t b,
		     uint32_t c)
{
	assert_true(s->nsched < MAXEV);
	s->sched[s->nsched++] = (struct pmt_sched_event){ s->t_ns, kind, 0, (uint16_t)cpu, common,
							  a, b, c };
}

static void psw_ev(struct sim *s, uint8_t kind, int cpu, int k, uint32_t c)
{
	assert_true(s->npsw < MAXEV);
	s->psw[s->npsw++] = (struct pmt_sched_event){ s->t_ns, kind, 0, (uint16_t)cpu, tid_of(k),
						      ROOT, tid_of(k), c };
}

/* Switches CPU c from its task to task k (-1: idle), the old one leaving in state st. */
static void do_switch(struct sim *s, int c, char st, int k)
{
	int prev = s->cur[c];

	sched_ev(s, PMT_SCHED_SWITCH, c, prev < 0 ? 0 : tid_of(prev), prev < 0 ? 0 : tid_of(prev),
		 k < 0 ? 0 : tid_of(k), (uint32_t)st);
	if (prev >= 0 && prev < MAXTH) {
		s->cpu_ns += (double)(s->t_ns - s->run_start[prev]);
		if (!s->th[prev].dying)
			psw_ev(s, PMT_PSWITCH_OUT, c, prev, st == 'R');
	}
	s->cur[c] = k;
	if (k >= 0 && k < MAXTH) {
		struct sth *t = &s->th[k];
		t->run_delay_ns += s->t_ns - t->enq_ns;
		t->state = T_RUN;
		t->cpu = c;
		s->run_start[k] = s->t_ns;
		psw_ev(s, PMT_PSWITCH_IN, c, k, 0);
		s->arr[s->narr++] = (struct arrive){ k, s->t_ns, t->run_delay_ns };
	} else if (k == MAXTH) {
		s->out_state = T_RUN;
	}
	s->t_ns += 1 + rnd(s) % 3; /* the next event after this one: no ties */
}

/* A random queued task (program thread or the outside task), or -1. */
static int pick(struct sim *s)
{
	int q[MAXTH + 1], n = 0;

	for (int k = 0; k < s->nth; k++)
		if (s->th[k].state == T_QUEUED)
			q[n++] = k;
	if (s->out_state == T_QUEUED)
		q[n++] = MAXTH;
	return n ? q[rnd(s) % (uint64_t)n] : -1;
}

static uint64_t burst(struct sim *s)
{
	/* 20 us .. 2.5 ms, mostly short: hand-overs many times per sampling interval */
	return (uint64_t)(20e3 * exp((double)(rnd(s) % 1000) / 1000.0 * log(125.0)));
}

/* The task that wakes thread k now, on CPU c: sched_waking there with its common_pid (the task
 * running on c, or 0), the enqueue 0-50 us later (run_delay counts from then). */
static void wake(struct sim *s, int k, int c)
{
	int w = s->cur[c];

	sched_ev(s, PMT_SCHED_WAKING, c, w < 0 ? 0 : tid_of(w), tid_of(k), (uint32_t)c, 0);
	s->th[k].state = T_PENDING;
	s->th[k].enq_ns = s->t_ns + uni(s, 0, PMA_PSWITCH_WAKE_SLACK_NS);
	s->th[k].timer_ns = 0;
	s->t_ns += 1;
}

/* Thread k, running on c, ends its burst: exits, forks, wakes, blocks or runs on. */
static void end_burst(struct sim *s, int k, int c)
{
	struct sth *t = &s->th[k];
	int alive = 0, blocked[MAXTH], nb = 0;

	for (int j = 0; j < s->nth; j++) {
		alive += j != k && s->th[j].state != T_DEAD;
		if (j != k && s->th[j].state == T_BLOCKED && !s->th[j].joining && !s->th[j].timer_ns)
			blocked[nb++] = j;
	}
	if (t->dying) { /* the exit tail is over */
		t->state = T_DEAD;
		do_switch(s, c, 'X', pick(s));
		return;
	}
	if (t->nburst-- <= 0 && (k != 0 || alive == 0)) {
		/* the joiner is woken from exit_mm, before perf's exit record */
		if (alive == 1 && s->th[0].joining && s->th[0].state == T_BLOCKED) {
			s->th[0].joining = 0;
			wake(s, 0, c);
		}
		/* whoever waited on the exiting thread is woken some time */
		for (int j = 0; j < s->nth; j++)
			if (j != k && s->th[j].state == T_BLOCKED && !s->th[j].joining &&
			    !s->th[j].timer_ns)
				s->th[j].timer_ns = s->t_ns + uni(s, 30 * US, 2000 * US);
		sched_ev(s, PMT_SCHED_EXIT, c, tid_of(k), tid_of(k), 0, 0);
		psw_ev(s, PMT_PSWITCH_EXIT, c, k, 0);
		s->t_ns += 1;
		t->dying = 1;
		t->left_ns = uni(s, 5 * US, 250 * US);
		return;
	}
	if (k == 0 && t->nburst < 0) { /* the root joins the others */
		t->joining = 1;
		t->state = T_BLOCKED;
		do_switch(s, c, 'S', pick(s));
		return;
	}
	if (k == 0 && s->nth < s->kmax && rnd(s) % 2) {
		int j = s->nth++;
		sched_ev(s, PMT_SCHED_FORK, c, tid_of(0), tid_of(j), 0, 0);
		sched_ev(s, PMT_SCHED_WAKEUP_NEW, c, tid_of(0), tid_of(j), (uint32_t)c, 0);
		psw_ev(s, PMT_PSWITCH_FORK, c, j, tid_of(0));
		s->psw[s->npsw - 1].common_pid = tid_of(0);
		s->psw[s->npsw - 1].b = tid_of(j);
		s->th[j].state = T_QUEUED;
		s->th[j].enq_ns = s->t_ns;
		s->t_ns += 1;
	} else if (nb && rnd(s) % 10 < 4) {
		wake(s, blocked[rnd(s) % (uint64_t)nb], c);
	} else if (rnd(s) % 10 < 5) {
		t->state = T_BLOCKED;
		/* a sleep, or a wait another thread ends; never all waiting on each other */
		if (rnd(s) % 3 == 0 || alive == 0 || nb + 1 >= alive)
			t->timer_ns = s->t_ns + uni(s, 30 * US, 4000 * US);
		do_switch(s, c, 'S', pick(s));
		return;
	}
	t->left_ns = burst(s);
}

/* Runs one schedule to its end. */
static void simulate(struct sim *s)
{
	uint64_t next_tick = TICK_NS;

	s->nth = 1;
	for (int k = 0; k < MAXTH; k++)
		s->th[k] = (struct sth){ .state = T_NEW, .nburst = (int)uni(s, 5, 40) };
	s->cur[0] = s->cur[1] = -1;
	s->out_state = T_BLOCKED;
	s->out_wake_ns = uni(s, 0, 3000 * US);
	s->t_ns = 1000000 * US;
	next_tick += s->t_ns;
	s->out_wake_ns += s->t_ns;
	s->th[0].state = T_QUEUED;
	s->th[0].enq_ns = s->t_ns;
	s->th[0].left_ns = burst(s);
	do_switch(s, 0, 'R', 0);
	for (int guard = 0; guard < 20000; guard++) {
		uint64_t tn = next_tick;
		int what = 0, who = -1, done = 1;
		for (int k = 0; k < s->nth; k++)
			done &= s->th[k].state == T_DEAD;
		if (done)
			break;
		/* the earliest of: a burst's end, an enqueue, a timer, the outside task, the tick */
		for (int c = 0; c < s->ncpu; c++) {
			int k = s->cur[c];
			uint64_t e = k < 0 ? UINT64_MAX : k == MAXTH ? s->t_ns + s->out_left_ns :
				     s->t_ns + s->th[k].left_ns;
			if (e < tn) {
				tn = e;
				what = 1;
				who = c;
			}
		}
		for (int k = 0; k < s->nth; k++) {
			if (s->th[k].state == T_PENDING && s->th[k].enq_ns < tn) {
				tn = s->th[k].enq_ns;
				what = 2;
				who = k;
			}
			if (s->th[k].state == T_BLOCKED && s->th[k].timer_ns && s->th[k].timer_ns < tn) {
				tn = s->th[k].timer_ns;
				what = 3;
				who = k;
			}
		}
		if (s->out_state == T_BLOCKED && s->out_wake_ns < tn) {
			tn = s->out_wake_ns;
			what = 4;
		}
		if (tn < s->t_ns)
			tn = s->t_ns;
		/* time passes: the running tasks use it */
		for (int c = 0; c < s->ncpu; c++) {
			int k = s->cur[c];
			if (k == MAXTH)
				s->out_left_ns -= tn - s->t_ns < s->out_left_ns ? tn - s->t_ns : s->out_left_ns;
			else if (k >= 0)
				s->th[k].left_ns -= tn - s->t_ns < s->th[k].left_ns ? tn - s->t_ns :
						    s->th[k].left_ns;
		}
		s->t_ns = tn;
		if (what == 0) { /* the tick: a running task with others queued is preempted */
			next_tick += TICK_NS;
			for (int c = 0; c < s->ncpu; c++) {
				int q = pick(s), k = s->cur[c];
				if (q < 0 || k < 0 || (k < MAXTH && s->th[k].dying))
					continue;
				if (k == MAXTH)
					s->out_state = T_QUEUED;
				else {
					s->th[k].state = T_QUEUED;
					s->th[k].enq_ns = s->t_ns;
				}
				do_switch(s, c, 'R', q);
			}
		} else if (what == 1) {
			int k = s->cur[who];
			if (k == MAXTH) { /* the outside task blocks, perhaps waking a program thread */
				int nb = 0, bl[MAXTH];
				for (int j = 0; j < s->nth; j++)
					if (s->th[j].state == T_BLOCKED && !s->th[j].joining)
						bl[nb++] = j;
				if (nb && rnd(s) % 2)
					wake(s, bl[rnd(s) % (uint64_t)nb], who);
				s->out_state = T_BLOCKED;
				s->out_wake_ns = s->t_ns + uni(s, 100 * US, 6000 * US);
				do_switch(s, who, 'S', pick(s));
			} else {
				end_burst(s, k, who);
			}
		} else if (what == 3) { /* a timer: on a random CPU, whatever runs there */
			wake(s, who, (int)(rnd(s) % (uint64_t)s->ncpu));
		} else { /* an enqueue: a queued task, run at once by an idle CPU */
			int idle = -1;
			if (what == 2) {
				s->th[who].state = T_QUEUED;
				if (!s->th[who].left_ns)
					s->th[who].left_ns = burst(s);
			} else {
				s->out_state = T_QUEUED;
				s->out_left_ns = uni(s, 50 * US, 3000 * US);
			}
			for (int c = 0; c < s->ncpu; c++)
				if (s->cur[c] < 0)
					idle = c;
			if (idle >= 0) {
				s->t_ns += uni(s, 2 * US, 8 * US);
				do_switch(s, idle, 'S', what == 2 ? who : MAXTH);
			}
		}
		/* a newly queued thread's burst, and idle CPUs take queued work */
		for (int c = 0; c < s->ncpu; c++) {
			int q;
			if (s->cur[c] >= 0 || (q = pick(s)) < 0)
				continue;
			if (q < MAXTH && !s->th[q].left_ns)
				s->th[q].left_ns = burst(s);
			do_switch(s, c, 'S', q);
		}
		for (int k = 0; k < s->nth; k++)
			if (s->th[k].state == T_QUEUED && !s->th[k].left_ns)
				s->th[k].left_ns = burst(s);
	}
}

/* The schedstat samples: every 10 ms (+ up to 1 ms late), a reading window of 20 us - 1 ms in
 * which the threads are read one after the other; each reads the run_delay of the switch-ins
 * before its own read. */
static void add_samples(struct pma_pswitch *p, const struct sim *s)
{
	uint64_t t0 = s->sched[0].t_ns, t1 = s->t_ns;

	for (uint64_t t = t0 + 3000 * US; t < t1 + 10000 * US; t += 10000 * US) {
		struct sim *m = (struct sim *)(uintptr_t)s; /* the rng only */
		uint64_t at = t + rnd(m) % (1000 * US), dur = uni(m, 20 * US, 1000 * US);
		struct pmt_thread_sample ts[MAXTH];
		struct pmt_sample smp = { .t_ns = at, .duration_ns = dur, .threads = ts };
		for (int k = 0; k < s->nth; k++) {
			uint64_t read = at + dur * (uint64_t)(k + 1) / (uint64_t)(s->nth + 1), rd = 0;
			int seen = 0;
			for (size_t i = 0; i < s->narr; i++)
				if (s->arr[i].k == k && s->arr[i].t_ns <= read) {
					rd = s->arr[i].run_delay_ns;
					seen = 1;
				}
			if (!seen)
				continue; /* not forked yet, or not listed */
			memset(&ts[smp.n], 0, sizeof(ts[0]));
			ts[smp.n].tid = tid_of(k);
			ts[smp.n].wait_ns = rd;
			ts[smp.n].flags = PMT_TS_SCHEDSTAT_OK;
			smp.n++;
		}
		if (smp.n)
			assert_int_equal(pma_pswitch_sample(p, &smp), 0);
	}
}

/* Schedule seed: its truth (exact mode) inside switch-exact's bounds. Returns 1 when it held. */
static int one(uint64_t seed, double *truth, struct pma_pswitch_stats *st)
{
	struct sim s;
	struct pma_exact *x = pma_exact_new();
	struct pma_pswitch *p = pma_pswitch_new();
	struct pma_profile prof;
	struct pma_exact_stats xs;
	int ok;

	memset(&s, 0, sizeof(s));
	s.rng = seed * 0x9E3779B97F4A7C15ull + 1;
	s.ncpu = 1 + (int)(rnd(&s) % 2);
	s.kmax = (int)uni(&s, 2, MAXTH);
	s.sched = calloc(MAXEV, sizeof(*s.sched));
	s.psw = calloc(MAXEV, sizeof(*s.psw));
	s.arr = calloc(MAXEV, sizeof(*s.arr));
	assert_non_null(x);
	assert_non_null(p);
	assert_true(s.sched && s.psw && s.arr);
	simulate(&s);
	{
		struct pmt_sched_batch b = { 0, 0, 0, (uint32_t)s.nsched, s.sched };
		struct pmt_sched_batch q = { 0, 0, 0, (uint32_t)s.npsw, s.psw };
		pma_profile_init(&prof);
		pma_exact_set_root(x, ROOT);
		assert_int_equal(pma_exact_add(x, &b), 0);
		assert_int_equal(pma_exact_finish(x, &prof, &xs), 0);
		pma_profile_free(&prof);
		assert_int_equal(pma_pswitch_add(p, &q), 0);
	}
	add_samples(p, &s);
	pma_pswitch_cpu_total(p, s.cpu_ns);
	pma_profile_init(&prof);
	assert_int_equal(pma_pswitch_finish(p, &prof, st), 0);
	pma_profile_free(&prof);
	*truth = xs.A_inf;
	/* U is exact on both sides (the exit tails from wait4's total) */
	assert_true(fabs(st->work_ns - xs.work_ns) <= 1e-6 * xs.work_ns + s.nth * 2.0);
	ok = st->A_lo <= xs.A_inf * (1 + 1e-9) && xs.A_inf <= st->A_hi * (1 + 1e-9);
	free(s.sched);
	free(s.psw);
	free(s.arr);
	pma_exact_free(x);
	pma_pswitch_free(p);
	return ok;
}

static void test_bounds_hold_truth(void **state)
{
	const char *env = getenv("PMT_TRUTH_SEEDS"), *first = getenv("PMT_TRUTH_FIRST");
	uint64_t n = env ? strtoull(env, NULL, 10) : 500, bad = 0, placed = 0, bounded = 0;
	uint64_t s0 = first ? strtoull(first, NULL, 10) : 1;
	double width = 0;

	(void)state;
	for (uint64_t seed = s0; seed < s0 + n; seed++) {
		struct pma_pswitch_stats st;
		double truth;
		if (!one(seed, &truth, &st)) {
			bad++;
			printf("# seed %llu: truth %.4f outside %.4f-%.4f (point %.4f, %llu placed, "
			       "%llu bounded)\n", (unsigned long long)seed, truth, st.A_lo, st.A_hi,
			       st.A_inf, (unsigned long long)st.wakes_placed,
			       (unsigned long long)st.wakes_bounded);
		}
		placed += st.wakes_placed;
		bounded += st.wakes_bounded;
		width += (st.A_hi - st.A_lo) / truth;
	}
	printf("# %llu schedules: %llu outside the bounds; wakes %llu placed, %llu bounded; mean "
	       "width %.3f of the truth\n", (unsigned long long)n, (unsigned long long)bad,
	       (unsigned long long)placed, (unsigned long long)bounded, n ? width / (double)n : 0);
	assert_int_equal(bad, 0);
	assert_true(placed > 0 && bounded > 0); /* both kinds of wake were exercised */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds_hold_truth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
