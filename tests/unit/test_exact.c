/* SPDX-License-Identifier: MIT */
/* test_exact.c: the exact mode (analyzer/model/exact.c) on hand-built scheduler event streams whose
 * critical path, profile and n-core replay are worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exact.h"
#include "model.h"
#include "testlib.h"

#define MS 1000000ull
#define IDLE 0u

struct stream {
	struct pmt_sched_event ev[64];
	uint32_t n;
};

static void ev(struct stream *s, double t_ms, uint8_t kind, uint32_t common, uint32_t a, uint32_t b,
	       uint32_t c, uint8_t ctx)
{
	struct pmt_sched_event *e = &s->ev[s->n++];
	memset(e, 0, sizeof(*e));
	e->t_ns = (uint64_t)(t_ms * MS) + 1000 * MS; /* a monotonic clock does not start at 0 */
	e->kind = kind;
	e->common_pid = common;
	e->a = a;
	e->b = b;
	e->c = c;
	e->ctx = ctx;
}

static void sw(struct stream *s, double t_ms, uint32_t prev, char state, uint32_t next)
{
	ev(s, t_ms, PMT_SCHED_SWITCH, prev, prev, next, (uint32_t)state, 0);
}

/* Which wake-up events a kernel records: both (4.3 and later, sched_waking then sched_wakeup),
 * sched_wakeup alone (before 4.3, where there is no sched_waking), or sched_waking alone (a
 * collector that enabled only that one). */
enum wake_events { WAKE_BOTH, WAKE_WAKEUP_ONLY, WAKE_WAKING_ONLY };

static void wake_as(struct stream *s, double t_ms, uint32_t waker, uint32_t wakee,
		    enum wake_events which)
{
	if (which != WAKE_WAKEUP_ONLY)
		ev(s, t_ms, PMT_SCHED_WAKING, waker, wakee, 0, 0, 0);
	if (which != WAKE_WAKING_ONLY)
		ev(s, t_ms, PMT_SCHED_WAKEUP, waker, wakee, 0, 0, 0);
}

static void wake(struct stream *s, double t_ms, uint32_t waker, uint32_t wakee)
{
	wake_as(s, t_ms, waker, wakee, WAKE_BOTH);
}

static void fork_ev(struct stream *s, double t_ms, uint32_t parent, uint32_t child)
{
	ev(s, t_ms, PMT_SCHED_FORK, parent, child, 0, 0, 0);
	ev(s, t_ms, PMT_SCHED_WAKEUP_NEW, parent, child, 0, 0, 0);
}

struct fixture {
	struct pma_exact *x;
	struct pma_profile prof;
	struct pma_exact_stats st;
};

/* Loads the stream as two records (the second half first: records of different CPUs come in any
 * order) and finishes. */
static void load(struct fixture *f, const struct stream *s, uint32_t root, uint32_t missed)
{
	uint32_t half = s->n / 2;
	struct pmt_sched_batch b2 = { 0, 1, 0, s->n - half, s->ev + half };
	struct pmt_sched_batch b1 = { 0, 0, missed, half, s->ev };

	f->x = pma_exact_new();
	assert_non_null(f->x);
	pma_profile_init(&f->prof);
	pma_exact_set_root(f->x, root);
	assert_int_equal(pma_exact_add(f->x, &b2), 0);
	assert_int_equal(pma_exact_add(f->x, &b1), 0);
	assert_int_equal(pma_exact_finish(f->x, &f->prof, &f->st), 0);
}

/* The stream as one record: events at the same instant keep their order (load's two records
 * number the second half first); existing (0: none) is a thread there before the events began,
 * as a late window finds it (pma_exact_existing). */
static void load_one_existing(struct fixture *f, const struct stream *s, uint32_t root,
			      uint32_t existing)
{
	struct pmt_sched_batch b = { 0, 0, 0, s->n, s->ev };

	f->x = pma_exact_new();
	assert_non_null(f->x);
	pma_profile_init(&f->prof);
	pma_exact_set_root(f->x, root);
	if (existing)
		assert_int_equal(pma_exact_existing(f->x, existing), 0);
	assert_int_equal(pma_exact_add(f->x, &b), 0);
	assert_int_equal(pma_exact_finish(f->x, &f->prof, &f->st), 0);
}

static void load_one(struct fixture *f, const struct stream *s, uint32_t root)
{
	load_one_existing(f, s, root, 0);
}

static void unload(struct fixture *f)
{
	pma_exact_free(f->x);
	pma_profile_free(&f->prof);
}

static double replay_ms(const struct fixture *f, uint32_t n)
{
	double T;
	assert_int_equal(pma_exact_replay(f->x, n, &T), 0);
	return T / MS;
}

/* Root R (pid 10) and child C (11) on one CPU:
 *   0-5  R runs; at 1 it forks C             5-8   C runs, then blocks (futex)
 *   8-12 R runs; at 10 it wakes C; exits     12-15 C runs, exits
 * Work U = R 9 + C 6 = 15 ms. On infinite cores (time = own CPU time): R runs 0-9; C starts at R's
 * position 1, runs 1-4, blocks; R woke it at R's position 7 (5 ms + 2 ms), so C runs 7-10.
 * T_cp = 10, A(m,inf) = 1.5; profile: 1 thread on [0,1) [4,7) [9,10), 2 threads on [1,4) [7,9).
 * Replay on 1 core (processor sharing): R alone to 1; R and C share until C's 3 ms are done at
 * t = 7 (R at position 4); R alone reaches its wake at 7 by t = 10; then R's 2 ms and C's 3 ms
 * share: R done at 14, C at 15. T(1) = 15 = U. Two cores: T(2) = T_cp = 10. */
static void fork_block_wake_stream(struct stream *s, enum wake_events which)
{
	sw(s, 0, IDLE, 'R', 10);
	fork_ev(s, 1, 10, 11);
	sw(s, 5, 10, 'R', 11);
	sw(s, 8, 11, 'S', 10);
	wake_as(s, 10, 10, 11, which);
	sw(s, 12, 10, 'X', 11);
	ev(s, 14.9, PMT_SCHED_EXIT, 11, 11, 0, 0, 0);
	sw(s, 15, 11, 'X', IDLE);
}

static void test_fork_block_wake(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	fork_block_wake_stream(&s, WAKE_BOTH);
	load(&f, &s, 10, 0);

	assert_int_equal(f.st.threads, 2);
	assert_int_equal(f.st.wake_edges, 1);
	assert_int_equal(f.st.outside_wakes, 0);
	assert_true(fabs(f.st.work_ns - 15.0 * MS) < 1);
	assert_true(fabs(f.st.T_cp_ns - 10.0 * MS) < 1);
	assert_true(fabs(f.st.A_inf - 1.5) < 1e-9);
	assert_int_equal(f.st.max_active, 2);
	/* how far the infinite-core axis had got by each real time: R's own time to 5, held while C
	 * runs 1-4, R 5-9 over 8-12, C 7-10 over 12-15 (above R's 9 from 14 on) */
	{
		static const double t_ms[] = { 0, 2.5, 5, 6.5, 8, 10, 12, 13, 14, 14.5, 15 };
		static const double F_ms[] = { 0, 2.5, 5, 5, 5, 7, 9, 9, 9, 9.5, 10 };
		for (size_t i = 0; i < sizeof(t_ms) / sizeof(t_ms[0]); i++)
			assert_true(fabs(pma_exact_cp_at(f.x, s.ev[0].t_ns + t_ms[i] * MS) -
					 F_ms[i] * MS) < 0.05 * MS);
	}
	assert_true(fabs(pma_profile_level_ns(&f.prof, 1) - 5.0 * MS) < 1); /* [0,1) [4,7) [9,10) */
	assert_true(fabs(pma_profile_level_ns(&f.prof, 2) - 5.0 * MS) < 1); /* [1,4) [7,9) */
	assert_true(fabs(replay_ms(&f, 1) - 15.0) < 1e-6);
	assert_true(fabs(replay_ms(&f, 2) - 10.0) < 1e-6);
	assert_true(fabs(replay_ms(&f, 64) - 10.0) < 1e-6);
	{
		size_t nw, nsl;
		const struct pma_wake *w = pma_exact_wakes(f.x, &nw);
		const struct pma_slice *sl = pma_exact_slices(f.x, &nsl);
		size_t running = 0, runnable = 0;
		assert_int_equal(nw, 1);
		assert_int_equal(w[0].waker, 10);
		assert_int_equal(w[0].wakee, 11);
		assert_true(fabs(w[0].waker_cpu_ns - 7.0 * MS) < 1); /* R's 5 + 2 ms */
		for (size_t i = 0; i < nsl; i++) {
			running += sl[i].kind == PMA_SLICE_RUNNING;
			runnable += sl[i].kind == PMA_SLICE_RUNNABLE;
		}
		assert_int_equal(running, 4);  /* R 0-5, C 5-8, R 8-12, C 12-15 */
		assert_int_equal(runnable, 3); /* C 1-5 (new), R 5-8 (preempted), C 10-12 (woken) */
		/* the wake set C's resumption (R's position 7 > C's 4): a critical-path edge */
		assert_int_equal(w[0].binding, 1);
	}
	{
		/* critical path in real time: C ends last on the infinite axis (10 > R's 9); back
		 * through the binding wake at t = 10 to R, from R's first slice at 0 (times in ms
		 * after the stream's 1000 ms origin) */
		struct pma_cp_seg *cp;
		size_t ncp;
		const double t0 = 1000.0 * MS;
		assert_int_equal(pma_exact_critical_path(f.x, &cp, &ncp), 0);
		assert_int_equal(ncp, 2);
		assert_int_equal(cp[0].tid, 10);
		assert_true(fabs((double)cp[0].t0_ns - t0) < 1 && fabs((double)cp[0].t1_ns - t0 - 10.0 * MS) < 1);
		assert_int_equal(cp[1].tid, 11);
		assert_true(fabs((double)cp[1].t0_ns - t0 - 10.0 * MS) < 1 &&
			    fabs((double)cp[1].t1_ns - t0 - 15.0 * MS) < 1);
		free(cp);
	}
	unload(&f);
}

/* test_fork_block_wake's program as a kernel before 4.3 records it (sched_wakeup, no
 * sched_waking), and with sched_waking alone: either event is the wake edge, the same
 * T_cp = 10 ms and A(m,inf) = 1.5. A replay that drops either event loses the edge: C then
 * resumes at its own position 4, not R's 7, and T_cp falls short. */
static void test_wake_event_kinds(void **state)
{
	static const enum wake_events kinds[] = { WAKE_WAKEUP_ONLY, WAKE_WAKING_ONLY };

	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct stream s = { .n = 0 };
		struct fixture f;
		size_t nw;
		const struct pma_wake *w;

		fork_block_wake_stream(&s, kinds[i]);
		load(&f, &s, 10, 0);
		w = pma_exact_wakes(f.x, &nw);
		assert_int_equal(f.st.wake_edges, 1);
		assert_int_equal(f.st.outside_wakes, 0);
		assert_int_equal(nw, 1);
		assert_int_equal(w[0].waker, 10);
		assert_int_equal(w[0].wakee, 11);
		assert_int_equal(w[0].binding, 1);
		assert_double_equal(f.st.T_cp_ns, 10.0 * MS, 1);
		assert_double_equal(f.st.A_inf, 1.5, 1e-9);
		assert_double_equal(replay_ms(&f, 2), 10.0, 1e-6);
		unload(&f);
	}
}

/* A task that switches out as a zombie ('Z', a thread-group leader's exit) is dead like one that
 * switches out 'X': a later wake of its tid is no edge. R (10) forks C (11) at 1 and exits as a
 * zombie at 4; C runs 4-8, "wakes" R at 6 and exits: one thread of 4 ms and one of 4 ms, no edge. */
static void test_zombie_is_dead(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 10);
	fork_ev(&s, 1, 10, 11);
	sw(&s, 4, 10, 'Z', 11);
	wake(&s, 6, 11, 10);
	sw(&s, 8, 11, 'X', IDLE);
	load_one(&f, &s, 10);
	assert_int_equal(f.st.wake_edges, 0);
	assert_int_equal(f.st.outside_wakes, 0);
	assert_double_equal(f.st.work_ns, 8.0 * MS, 1);
	assert_double_equal(f.st.T_cp_ns, 5.0 * MS, 1); /* R 0-4; C from R's 1 to 5 */
	unload(&f);
}

/* R forks A and B at 0, then blocks; A runs 4 ms and "wakes" B, which has not blocked yet (it was
 * never run); B runs 4 ms, wakes R; R runs 4 ms. Only R waited (for B): a wake of a thread that is
 * not blocked is no dependency. Infinite cores: A 0-4, B 0-4, R 4-8: T_cp = 8, U = 12. */
static void test_chain_respects_order(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 1);
	fork_ev(&s, 0, 1, 2);
	fork_ev(&s, 0, 1, 3);
	sw(&s, 0, 1, 'S', 2);
	wake(&s, 4, 2, 3);
	sw(&s, 4, 2, 'X', 3);
	wake(&s, 8, 3, 1);
	sw(&s, 8, 3, 'X', 1);
	sw(&s, 12, 1, 'X', IDLE);
	load(&f, &s, 1, 0);

	assert_int_equal(f.st.wake_edges, 1);
	assert_true(fabs(f.st.T_cp_ns - 8.0 * MS) < 1);
	assert_true(fabs(replay_ms(&f, 1) - 12.0) < 1e-6);
	assert_true(fabs(replay_ms(&f, 3) - 8.0) < 1e-6);
	unload(&f);
}

/* The same chain where B really blocks first (it ran 1 ms at the start and went to sleep):
 *   0-1 R forks A and B, blocks; 1-2 B runs 1 ms, blocks; 2-6 A runs, wakes B at 6, exits;
 *   6-9 B runs 3 ms, wakes R at 9, exits; 9-13 R runs 4 ms, exits.
 * On infinite cores: R 0-1; B 1-2 (1 ms of its own), blocked; A 1-5, wakes B at A's 4 -> 1+4 = 5;
 * (forks at R's 0.5: A and B start at 0.5) B 0.5-1.5, blocked; A 0.5-4.5, wakes B at 4.5;
 * B 4.5-7.5, wakes R at 7.5; R 7.5-11.5. T_cp = 11.5, U = 1 + 1 + 4 + 3 + 4 = 13.
 * Replay on 3 cores: nothing ever shares a core, T(3) = T_cp = 11.5. On 2 cores: R, A and B share
 * the 2 cores at 2/3 speed from 0.5 until R's last 0.5 ms is done at 1.25; B's last 0.5 ms at
 * 1.75; A's remaining 3 ms at 4.75, which wakes B: 3 ms to 7.75; then R's 4 ms: T(2) = 11.75.
 * On 1 core: 13. */
static void test_chain_blocked(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 1);
	fork_ev(&s, 0.5, 1, 2);
	fork_ev(&s, 0.5, 1, 3);
	sw(&s, 1, 1, 'S', 3);
	sw(&s, 2, 3, 'S', 2);
	wake(&s, 6, 2, 3);
	sw(&s, 6, 2, 'X', 3);
	wake(&s, 9, 3, 1);
	sw(&s, 9, 3, 'X', 1);
	sw(&s, 13, 1, 'X', IDLE);
	load(&f, &s, 1, 0);

	assert_int_equal(f.st.wake_edges, 2);
	assert_true(fabs(f.st.work_ns - 13.0 * MS) < 1);
	assert_true(fabs(f.st.T_cp_ns - 11.5 * MS) < 1);
	assert_true(fabs(replay_ms(&f, 1) - 13.0) < 1e-6);
	assert_true(fabs(replay_ms(&f, 2) - 11.75) < 1e-6);
	assert_true(fabs(replay_ms(&f, 3) - 11.5) < 1e-6);
	unload(&f);
}

/* A wake from an interrupt (a timer) is no dependency: the sleeper resumes where it was. R forks
 * C at 0 and they alternate on one CPU: R 0-2, C 2-4 then sleeps, R 4-6 (a timer interrupt during
 * R wakes C at 5), C 6-8. Infinite cores: R 0-4 (own time), C 0-4: T_cp = 4, U = 8, A = 2. */
static void test_outside_wake(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 20);
	fork_ev(&s, 0, 20, 21);
	sw(&s, 2, 20, 'R', 21);
	sw(&s, 4, 21, 'S', 20);
	ev(&s, 5, PMT_SCHED_WAKING, 20, 21, 0, 0, PMT_SCHED_CTX_HARDIRQ);
	sw(&s, 6, 20, 'X', 21);
	sw(&s, 8, 21, 'X', IDLE);
	load(&f, &s, 20, 0);

	assert_int_equal(f.st.wake_edges, 0);
	assert_int_equal(f.st.outside_wakes, 1);
	assert_true(fabs(f.st.T_cp_ns - 4.0 * MS) < 1);
	assert_true(fabs(f.st.A_inf - 2.0) < 1e-9);
	unload(&f);
}

/* Tasks that are not the program (pid 99 shares the CPU) and events before the root ever ran are
 * ignored; a record that says events were lost counts as a gap. */
static void test_foreign_tasks_and_gaps(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 99);
	sw(&s, 1, 99, 'R', 30);
	sw(&s, 3, 30, 'R', 99);
	sw(&s, 4, 99, 'S', 30);
	sw(&s, 6, 30, 'X', IDLE);
	load(&f, &s, 30, 5);

	assert_int_equal(f.st.threads, 1);
	assert_true(fabs(f.st.work_ns - 4.0 * MS) < 1);
	assert_true(fabs(f.st.T_cp_ns - 4.0 * MS) < 1);
	assert_int_equal(f.st.gaps, 1);
	assert_int_equal(f.st.lost, 5);
	unload(&f);
}

/* The root was already running when tracing started: its first event is a switch away from it
 * (a preemption at 5), so it ran from the first event (a fork at 1) on: R 1-5 and 7-9, C 5-7.
 * U = 4 + 2 + 2 = 8 ms, and without the rule the root's first 4 ms would be lost. */
static void test_root_running_from_the_start(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	fork_ev(&s, 1, 40, 41);
	sw(&s, 5, 40, 'R', 41);
	sw(&s, 7, 41, 'X', 40);
	sw(&s, 9, 40, 'X', IDLE);
	load(&f, &s, 40, 0);

	assert_true(fabs(f.st.work_ns - 8.0 * MS) < 1);
	assert_true(fabs(f.st.T_cp_ns - 6.0 * MS) < 1); /* R: own time 0-6; C: from R's 0, 0-2 */
	unload(&f);
}

/* A window that starts while the root (a shell, 60) waits for its child (61, found running by
 * the window): the root's first sign is its wakeup by the child's exit at 4, and only then does
 * it fork the next child (62). C1 runs 0-4 (4 ms), R 4-5, C2 5-9: one chain, T_cp = U = 9 ms,
 * A(m,inf) = 1. Taking the root for running from the first event, its wakeup was lost and C2
 * started beside C1 on the infinite-core axis (A > 1 for a serial pipeline). */
static void test_window_root_asleep_until_woken(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 61);
	wake(&s, 4, 61, 60);
	sw(&s, 4, 61, 'X', 60);
	fork_ev(&s, 5, 60, 62);
	sw(&s, 5, 60, 'S', 62);
	sw(&s, 9, 62, 'X', IDLE);
	load_one_existing(&f, &s, 60, 61);

	assert_int_equal(f.st.wake_edges, 1);
	assert_true(fabs(f.st.work_ns - 9.0 * MS) < 1);
	assert_true(fabs(f.st.T_cp_ns - 9.0 * MS) < 1);
	assert_true(fabs(f.st.A_inf - 1.0) < 1e-9);
	unload(&f);
}

/* The time thread tid spent in slices of kind k (ns). */
static double slice_ns(const struct pma_exact *x, uint32_t tid, uint8_t k)
{
	size_t n;
	const struct pma_slice *sl = pma_exact_slices(x, &n);
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		if (sl[i].tid == tid && sl[i].kind == k)
			sum += (double)(sl[i].t1_ns - sl[i].t0_ns);
	return sum;
}

/* A thread of a running process (61, found by the window) was runnable at the window's start and
 * got the CPU from a foreign task (99) whose switch the pid filter left out: its first sign is
 * its exit at 20, after the CPU's switch from the root (60) to 99 at 10. It ran from 15 (half
 * way), not from the first event (0): U = 10 ms of the root + 5 ms, never more than the one CPU
 * gave (20 ms), runnable 0-15 (no wakeup of it was recorded). Taken for running from the first
 * event, U was 30 ms. */
static void test_window_thread_switched_in_unseen(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 60);
	sw(&s, 10, 60, 'S', 99);
	sw(&s, 20, 61, 'X', IDLE);
	load_one_existing(&f, &s, 60, 61);

	assert_int_equal(f.st.inferred_switch_ins, 1);
	assert_true(fabs(f.st.inferred_ns - 5.0 * MS) < 1);
	assert_true(fabs(f.st.work_ns - 15.0 * MS) < 1);
	/* no wakeup of it was recorded: runnable from the first event until then */
	assert_true(fabs(slice_ns(f.x, 61, PMA_SLICE_RUNNABLE) - 15.0 * MS) < 1);
	unload(&f);
}

/* A thread of a running process (61, found by the window) whose first sign is its switch-in, at
 * 10, with no wakeup before it: it was runnable from the events' start (a wakeup of a task of the
 * pid filter is recorded whoever wakes it), a runnable slice 0-10 beside the root's running one,
 * then running 10-20. Its work and the root's are unchanged (10 ms each). */
static void test_window_thread_runnable_from_start(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 60);
	sw(&s, 10, 60, 'S', 61);
	sw(&s, 20, 61, 'X', IDLE);
	load_one_existing(&f, &s, 60, 61);

	assert_true(fabs(slice_ns(f.x, 61, PMA_SLICE_RUNNABLE) - 10.0 * MS) < 1);
	assert_true(fabs(slice_ns(f.x, 61, PMA_SLICE_RUNNING) - 10.0 * MS) < 1);
	assert_true(fabs(f.st.work_ns - 20.0 * MS) < 1);
	assert_int_equal(f.st.inferred_switch_ins, 0);
	unload(&f);
}

/* Two threads on two CPUs, and the kernel did not record T's switch from CPU 0 (it recorded the
 * switch to it at 0, then CPU 0's next event, at 4, has U current, switched in from a foreign
 * task at 2 unseen as well), and then T's switch to CPU 1 at 10, where it runs to 14. T is
 * switched out half way from CPU 0's previous event (0) to 4, at 2: it ran 0-2 and 10-14, not
 * 0-14 beside U's 2-8 on the same CPU; U = 6 ms + 6 ms, no more than the CPUs gave. */
static void test_missed_switch_out_inferred(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 50);          /* CPU 0: T = 50 */
	ev(&s, 4, PMT_SCHED_WAKING, 51, 99, 0, 0, 0); /* CPU 0: U = 51 current, waking a foreign task */
	sw(&s, 8, 51, 'X', IDLE);          /* CPU 0: U exits */
	s.ev[s.n - 1].cpu = 0;
	sw(&s, 10, IDLE, 'R', 50);         /* CPU 1: T switched in */
	s.ev[s.n - 1].cpu = 1;
	sw(&s, 14, 50, 'X', IDLE);
	s.ev[s.n - 1].cpu = 1;
	load_one_existing(&f, &s, 50, 51);

	assert_int_equal(f.st.inferred_switch_outs, 1);
	assert_true(fabs(f.st.work_ns - 12.0 * MS) < 1);
	unload(&f);
}

/* The kernel did not record the switch from a foreign task (99) back to R: R is switched in half
 * way between the CPU's previous event (2) and the first sign of it running (a switch from it at
 * 6): R 0-2 and 4-6, U = 4 ms, 2 ms of it inferred. */
static void test_missing_switch_in_inferred(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 50);
	sw(&s, 2, 50, 'R', 99);
	sw(&s, 6, 50, 'X', IDLE);
	load(&f, &s, 50, 0);

	assert_int_equal(f.st.inferred_switch_ins, 1);
	assert_true(fabs(f.st.inferred_ns - 2.0 * MS) < 1);
	assert_true(fabs(f.st.work_ns - 4.0 * MS) < 1);
	unload(&f);
}

/* The same on an idle CPU: R sleeps at 1 (the CPU goes idle), an interrupt wakes it at 3 with the
 * idle task current, the switch from idle to R is not recorded, R switches away at 7. An idle
 * CPU runs a woken thread at once: R 0-1 and 3-7, U = 5 ms, nothing of it a guess. */
static void test_missing_switch_in_from_idle(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 60);
	sw(&s, 1, 60, 'S', IDLE);
	ev(&s, 3, PMT_SCHED_WAKING, IDLE, 60, 0, 0, PMT_SCHED_CTX_SOFTIRQ);
	sw(&s, 7, 60, 'X', IDLE);
	load(&f, &s, 60, 0);

	assert_int_equal(f.st.inferred_switch_ins, 1);
	assert_true(f.st.inferred_ns == 0);
	assert_true(fabs(f.st.work_ns - 5.0 * MS) < 1);
	unload(&f);
}

static void test_replay_rejects_zero_cores(void **state)
{
	struct stream s = { .n = 0 };
	struct fixture f;
	double T = -1;

	(void)state;
	sw(&s, 0, IDLE, 'R', 5);
	sw(&s, 1, 5, 'X', IDLE);
	load(&f, &s, 5, 0);
	assert_int_equal(pma_exact_replay(f.x, 0, &T), -1);
	unload(&f);
}

/* A ping-pong recorded on one CPU: root R (10) forks C (11) at 0.5 and is preempted at 1; C runs
 * 1-2 and blocks; then PINGPONG_K rounds of: R runs 1 ms, wakes C, blocks; C runs 1 ms, wakes R,
 * blocks; R runs 1 ms more and exits. Every wake finds its wakee blocked, and nothing else is
 * ready while it travels: 2 PINGPONG_K wakes in a row on the critical chain. */
#define PINGPONG_K 5
static void pingpong(struct fixture *f)
{
	struct stream s = { .n = 0 };
	double t = 2;

	sw(&s, 0, IDLE, 'R', 10);
	fork_ev(&s, 0.5, 10, 11);
	sw(&s, 1, 10, 'R', 11);
	sw(&s, 2, 11, 'S', 10);
	for (int k = 0; k < PINGPONG_K; k++, t += 2) {
		wake(&s, t + 1, 10, 11);
		sw(&s, t + 1, 10, 'S', 11);
		wake(&s, t + 2, 11, 10);
		sw(&s, t + 2, 11, 'S', 10);
	}
	sw(&s, t + 1, 10, 'X', IDLE);
	load_one(f, &s, 10);
}

static double replay_charged_ms(const struct fixture *f, uint32_t n, double same_ms, double cross_ms,
				struct pma_replay_wakes *wk)
{
	struct pma_wake_charge c = { same_ms * MS, cross_ms * MS };
	double T;
	assert_int_equal(pma_exact_replay_charged(f->x, n, &c, &T, wk), 0);
	return T / MS;
}

/* U = 13 ms: R 0-1, 1 ms per round (the first is 2-3) and 1 at the end (7); C 1-2 and 1 ms per
 * round (6). All of it is one chain once C has blocked, except C's first ms, which runs beside R's
 * second on 2 cores: T(1) = 13, T(2) = 12. k cross-core wakes
 * of cost c add exactly k c to T(2); on one core every wake is same-core and adds the same-core
 * figure (0 when the recording's CPU time already holds it). */
static void test_replay_wake_charges(void **state)
{
	struct pma_replay_wakes wk;
	struct fixture f;
	double T1, T2;

	(void)state;
	pingpong(&f);
	assert_int_equal(f.st.wake_edges, 2 * PINGPONG_K);
	assert_true(fabs(f.st.work_ns - 13.0 * MS) < 1);
	T1 = replay_ms(&f, 1);
	T2 = replay_ms(&f, 2);
	assert_true(fabs(T1 - 13) < 1e-9);
	assert_true(fabs(T2 - 12) < 1e-9);
	/* no charge: the same as pma_exact_replay, and the placements are counted */
	assert_true(fabs(replay_charged_ms(&f, 2, 0, 0, &wk) - T2) < 1e-9);
	assert_int_equal(wk.cross, 2 * PINGPONG_K);
	assert_int_equal(wk.same, 0);
	/* 2 cores: every wake finds the other core idle */
	assert_true(fabs(replay_charged_ms(&f, 2, 0, 0.045, &wk) - (T2 + 2 * PINGPONG_K * 0.045)) < 1e-9);
	assert_true(fabs(replay_charged_ms(&f, 2, 0.0015, 0.045, &wk) - (T2 + 2 * PINGPONG_K * 0.045)) < 1e-9);
	/* 1 core: no cross-core wake; the same-core figure per wake */
	assert_true(fabs(replay_charged_ms(&f, 1, 0, 0.045, &wk) - T1) < 1e-9);
	assert_int_equal(wk.cross, 0);
	assert_int_equal(wk.same, 2 * PINGPONG_K);
	assert_true(fabs(replay_charged_ms(&f, 1, 0.0015, 0.045, &wk) - (T1 + 2 * PINGPONG_K * 0.0015)) < 1e-9);
	/* more cores than threads change nothing */
	assert_true(fabs(replay_charged_ms(&f, 8, 0, 0.045, &wk) - (T2 + 2 * PINGPONG_K * 0.045)) < 1e-9);
	unload(&f);
}

/* Three threads on one CPU: R (10) forks A (11) and B (12) at 0 and runs to 2; A runs 2-3 and
 * blocks, B 3-4 and blocks; R runs 4-10, waking A and B at 5 (its position 3); A runs 10-11, B
 * 11-12. U = 12. Replay on 2 cores: R, A, B share 2 cores (rate 2/3) until A and B block at
 * t = 1.5 (R at position 1); R alone reaches its wakes at 3.5. Without charges A and B are ready
 * at once: three threads at 2/3 until A and B are done at 5 (R at 4), R's last 4 ms end at 9.
 * Charging 1 ms cross-core and 0.25 ms same-core, per-core run queues (exact.h): R holds core 0;
 * spawning A finds core 1 idle (cross-core: A there at 1, core 1 waits for it), B finds none (tie,
 * R's core 0: there at 0.25). R alone to 0.25, R and B share core 0 (R at 0.625, B at 0.375 at 1);
 * A runs 1-2 alone and blocks: core 1 idle pulls R (1.875 of its 3 left, over the 0.5 ms
 * migration threshold); B ends 2.125 on core 0, R reaches its wakes at 3.875 on core 1. A's wake
 * finds core 0 idle (cross-core, A there at 4.875), B's none (tie, R's core 1: same-core, B at
 * 4.125). R alone to 4.125 then shares core 1 with B; A runs 4.875-5.875 on core 0, which then
 * pulls R (at 1.125 of its last 5); B ends at 6 and R alone at 9.75. On 3 cores everything runs
 * at once: the spawns and R's wakes find an idle core each (cross-core), A and B run 1-2 and
 * 4-5, R ends at 8 = T_cp. */
static void test_replay_wake_busy_cores(void **state)
{
	struct stream s = { .n = 0 };
	struct pma_replay_wakes wk;
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 10);
	fork_ev(&s, 0, 10, 11);
	fork_ev(&s, 0, 10, 12);
	sw(&s, 2, 10, 'R', 11);
	sw(&s, 3, 11, 'S', 12);
	sw(&s, 4, 12, 'S', 10);
	wake(&s, 5, 10, 11);
	wake(&s, 5, 10, 12);
	sw(&s, 10, 10, 'X', 11);
	sw(&s, 11, 11, 'X', 12);
	sw(&s, 12, 12, 'X', IDLE);
	load_one(&f, &s, 10);
	assert_int_equal(f.st.wake_edges, 2);
	assert_true(fabs(replay_ms(&f, 2) - 9) < 1e-9);
	assert_true(fabs(replay_charged_ms(&f, 2, 0.25, 1, &wk) - 9.75) < 1e-9);
	assert_int_equal(wk.cross, 1);
	assert_int_equal(wk.same, 1);
	/* 3 cores: both wakees find an idle core */
	assert_true(fabs(replay_charged_ms(&f, 3, 0.25, 1, &wk) - 8) < 1e-9);
	assert_int_equal(wk.cross, 2);
	assert_int_equal(wk.same, 0);
	unload(&f);
}

/* A replay program of R fork-join regions (the OpenMP loop): master 1 wakes workers 2, 3
 * and 4, all four run w ms, the master waits for 2, 3 and 4 in that order. */
static struct pma_exact *forkjoin(int regions, double w_ms)
{
	struct pma_exact *x = pma_exact_new();

	assert_non_null(x);
	for (int k = 0; k < regions; k++) {
		for (uint32_t i = 2; i <= 4; i++)
			assert_int_equal(pma_exact_prog_wake(x, 1, i), 0);
		for (uint32_t i = 1; i <= 4; i++)
			assert_int_equal(pma_exact_prog_work(x, i, w_ms * MS), 0);
		for (uint32_t i = 2; i <= 4; i++)
			assert_int_equal(pma_exact_prog_wake(x, i, 1), 0);
	}
	return x;
}

static double prog_charged_ms(const struct pma_exact *x, uint32_t n, double same_ms, double cross_ms,
			      struct pma_replay_wakes *wk)
{
	struct pma_wake_charge c = { same_ms * MS, cross_ms * MS };
	double T;

	assert_int_equal(pma_exact_replay_charged(x, n, &c, &T, wk), 0);
	return T / MS;
}

/* Per-core run queues (exact.h pma_exact_replay_charged), 10 regions of w = 1 ms, cross-core
 * charge x = 0.045 ms, same-core s = 0.0015 ms. On 2 cores the master holds core 0: its wake of 2
 * finds core 1 idle (cross-core; core 1 waits for it until t0 + x), 3 ties (the master's core 0,
 * same-core), 4 goes to the less loaded core 1 (same-core). Core 0 runs the master and 3 to
 * t0 + 2w, core 1 runs 2 and 4 from t0 + x to t0 + x + 2w (core 0 idle meanwhile pulls nothing:
 * x/2 left each, under the migration threshold); 2's wake of the master finds core 0 idle
 * (cross-core): the next region starts at t0 + 2w + 2x. Two cross-core charges per region, the
 * issue's measured arithmetic; processor sharing over both cores (pma_exact_replay, and the shared
 * pool this model replaced, 19 us a region) spreads the late core's delay. On 1 core: the three
 * wakes overlap the master's work and only the join's same-core wake adds: 4w + s a region. */
static void test_replay_percore_forkjoin(void **state)
{
	struct pma_exact *x = forkjoin(10, 1);
	struct pma_replay_wakes wk;
	double T;

	(void)state;
	assert_true(fabs(prog_charged_ms(x, 2, 0.0015, 0.045, &wk) - 10 * (2 + 2 * 0.045)) < 1e-9);
	assert_int_equal(wk.cross, 2 * 10);
	assert_int_equal(wk.same, 2 * 10);
	assert_true(fabs(prog_charged_ms(x, 1, 0.0015, 0.045, &wk) - 10 * (4 + 0.0015)) < 1e-9);
	assert_int_equal(wk.cross, 0);
	assert_int_equal(wk.same, 4 * 10);
	/* the uncharged replay is the paper's processor sharing: 2w and 4w a region */
	assert_int_equal(pma_exact_replay(x, 2, &T), 0);
	assert_true(fabs(T / MS - 10 * 2) < 1e-9);
	assert_int_equal(pma_exact_replay(x, 1, &T), 0);
	assert_true(fabs(T / MS - 10 * 4) < 1e-9);
	pma_exact_free(x);
}

/* Three equal independent threads on 2 cores: two share core 0, one runs alone on core 1. With
 * w = 10 ms core 1 is idle at w and pulls one of core 0's (w/2 left, over the 0.5 ms migration
 * threshold): T = 1.5 w, as under processor sharing. With w = 0.6 ms the 0.3 ms left stays where it
 * is (Linux does not migrate a cache-hot task for so little): T = 2 w. */
static void test_replay_percore_idle_balance(void **state)
{
	struct pma_exact *x = pma_exact_new(), *y = pma_exact_new();
	double T;

	(void)state;
	assert_non_null(x);
	assert_non_null(y);
	for (uint32_t i = 1; i <= 3; i++) {
		assert_int_equal(pma_exact_prog_work(x, i, 10 * MS), 0);
		assert_int_equal(pma_exact_prog_work(y, i, 0.6 * MS), 0);
	}
	assert_true(fabs(prog_charged_ms(x, 2, 0.0015, 0.045, NULL) - 15) < 1e-9);
	assert_int_equal(pma_exact_replay(x, 2, &T), 0);
	assert_true(fabs(T / MS - 15) < 1e-9);
	assert_true(fabs(prog_charged_ms(y, 2, 0.0015, 0.045, NULL) - 1.2) < 1e-9);
	assert_true(fabs(prog_charged_ms(x, 1, 0.0015, 0.045, NULL) - 30) < 1e-9);
	pma_exact_free(x);
	pma_exact_free(y);
}

/* Group wakes replayed as barriers (exact.h pma_exact_replay_charged). Recorded on 1 CPU: R (10)
 * forks A (11) and B (12) at 0 and runs 0-1; A runs 1-2 and blocks, B 2-3 and blocks; R runs 3-4
 * and wakes A and B at 4 (one group, R was the last to arrive); R is preempted at once, A runs 4-5
 * and blocks, B 5-6 and blocks, R resumes at 6 and wakes them again (a second group: R was switched
 * out between the two, and A and B are woken twice), runs 6-7 and ends; A ends after 7-8, B after
 * 8-9. U = 9 ms. On 3 cores, charging x = 1 ms a cross-core wake (spawns included, as placed):
 * A and B arrive at their first wait at 2, R at 2 (its 2 ms) is the last and releases them onto
 * the other cores (2 cross-core, there at 3); R reaches the second group at 2 and waits for it;
 * A and B arrive at 4, the last of them releases R and the other one onto idle cores (2 more,
 * there at 5): T = 4 + 2x = 6. Without barriers R's second signals would precede A's and B's
 * waits and R would not wait: 4 + x. With x = 0: 4 either way. On 1 core T(1) = U. */
static void test_replay_barrier_groups(void **state)
{
	struct stream s = { .n = 0 };
	struct pma_replay_wakes wk;
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 10);
	fork_ev(&s, 0, 10, 11);
	fork_ev(&s, 0, 10, 12);
	sw(&s, 1, 10, 'R', 11);
	sw(&s, 2, 11, 'S', 12);
	sw(&s, 3, 12, 'S', 10);
	wake(&s, 4, 10, 11);
	wake(&s, 4, 10, 12);
	sw(&s, 4, 10, 'R', 11);
	sw(&s, 5, 11, 'S', 12);
	sw(&s, 6, 12, 'S', 10);
	wake(&s, 6, 10, 11);
	wake(&s, 6, 10, 12);
	sw(&s, 7, 10, 'X', 11);
	sw(&s, 8, 11, 'X', 12);
	sw(&s, 9, 12, 'X', IDLE);
	load_one(&f, &s, 10);
	assert_int_equal(f.st.wake_edges, 4);
	assert_true(fabs(f.st.work_ns - 9.0 * MS) < 1);
	assert_true(fabs(replay_charged_ms(&f, 3, 0, 1, &wk) - 6) < 1e-9);
	assert_int_equal(wk.barriers, 2);
	assert_int_equal(wk.reordered, 1);
	assert_int_equal(wk.cross, 4);
	assert_int_equal(wk.same, 0);
	assert_true(fabs(replay_charged_ms(&f, 3, 0, 0, &wk) - 4) < 1e-9);
	assert_true(fabs(replay_charged_ms(&f, 1, 0, 1, &wk) - 9) < 1e-9);
	unload(&f);
}

/* Two signals of one waker with no work between them are one group only if it ran through: R (10)
 * wakes A (11) at 4, is preempted at once, resumes at 5 and wakes B (12). Its steps show two
 * consecutive signals, but 1 ms of real time passed without its CPU time moving: two single
 * wakes, no barrier. */
static void test_replay_barrier_preempted_waker(void **state)
{
	struct stream s = { .n = 0 };
	struct pma_replay_wakes wk;
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 10);
	fork_ev(&s, 0, 10, 11);
	fork_ev(&s, 0, 10, 12);
	sw(&s, 1, 10, 'R', 11);
	sw(&s, 2, 11, 'S', 12);
	sw(&s, 3, 12, 'S', 10);
	wake(&s, 4, 10, 11);
	sw(&s, 4, 10, 'R', 11);
	sw(&s, 5, 11, 'X', 10);
	wake(&s, 5, 10, 12);
	sw(&s, 6, 10, 'X', 12);
	sw(&s, 7, 12, 'X', IDLE);
	load_one(&f, &s, 10);
	assert_int_equal(f.st.wake_edges, 2);
	(void)replay_charged_ms(&f, 3, 0, 1, &wk);
	assert_int_equal(wk.barriers, 0);
	unload(&f);
}

/* A thread woken twice in one unbroken run of signals is two wakes, not one group: R (10) runs
 * throughout and wakes A (11) at 2 and again at 2.004 (4 us of its CPU apart), A having run 1 us
 * on another CPU and blocked in between. As one group A would count twice and the barrier would
 * wait for A's second arrival behind its first: never released (the replay would fall back). */
static void test_replay_barrier_same_wakee(void **state)
{
	struct stream s = { .n = 0 };
	struct pma_replay_wakes wk;
	struct fixture f;

	(void)state;
	sw(&s, 0, IDLE, 'R', 10);
	fork_ev(&s, 0, 10, 11);
	sw(&s, 0.5, IDLE, 'R', 11);
	sw(&s, 1, 11, 'S', IDLE);
	wake(&s, 2, 10, 11);
	sw(&s, 2.001, IDLE, 'R', 11);
	sw(&s, 2.002, 11, 'S', IDLE);
	wake(&s, 2.004, 10, 11);
	sw(&s, 2.005, IDLE, 'R', 11);
	sw(&s, 3, 11, 'X', IDLE);
	sw(&s, 3, 10, 'X', IDLE);
	load_one(&f, &s, 10);
	assert_int_equal(f.st.wake_edges, 2);
	(void)replay_charged_ms(&f, 2, 0, 1, &wk);
	assert_int_equal(wk.barriers, 0);
	assert_int_equal(wk.barriers_dropped, 0);
	unload(&f);
}

/* A barrier program whose imbalance alternates, known by construction: in region k threads 1, 2
 * and 3 run 1 ms, 3 ms and 1 ms (k odd) or 1, 1 and 3 ms (k even), then meet at a barrier that
 * thread 1 released in the recording (its two consecutive signals: one group). Each region lasts
 * its longest thread, 3 ms: on 3 cores T = 3R, and with a cross-core charge x each region's last
 * arrival wakes the other two onto idle cores: T = R (3 + x). The uncharged replay keeps the
 * recorded edges (thread 1 never waits, 2 and 3 run apart): 2R, the sum of one thread's work. */
static void test_replay_barrier_imbalance(void **state)
{
	struct pma_exact *x = pma_exact_new();
	struct pma_replay_wakes wk;
	const int R = 4;
	double T;

	(void)state;
	assert_non_null(x);
	for (int k = 0; k < R; k++) {
		assert_int_equal(pma_exact_prog_work(x, 1, 1 * MS), 0);
		assert_int_equal(pma_exact_prog_work(x, 2, (k % 2 ? 3 : 1) * MS), 0);
		assert_int_equal(pma_exact_prog_work(x, 3, (k % 2 ? 1 : 3) * MS), 0);
		assert_int_equal(pma_exact_prog_wake(x, 1, 2), 0);
		assert_int_equal(pma_exact_prog_wake(x, 1, 3), 0);
	}
	assert_true(fabs(prog_charged_ms(x, 3, 0, 0, &wk) - 3 * R) < 1e-9);
	assert_true(fabs(prog_charged_ms(x, 3, 0, 0.5, &wk) - R * (3 + 0.5)) < 1e-9);
	assert_int_equal(wk.barriers, R);
	assert_int_equal(wk.reordered, R);
	assert_int_equal(wk.cross, 2 * R);
	assert_int_equal(pma_exact_replay(x, 3, &T), 0);
	assert_true(fabs(T / MS - 2 * R) < 1e-9);
	pma_exact_free(x);
}

/* A program no recording can give: thread 1 wakes 3 and 2 at once (a barrier of 1, 2 and 3), but
 * 2 first waits for a signal 3 sends only after that barrier's release. As a barrier it would
 * never be released; the replay runs again on the recorded edges alone and says so. 1 ms each. */
static void test_replay_barrier_unresolved(void **state)
{
	struct pma_exact *x = pma_exact_new();
	struct pma_replay_wakes wk;

	(void)state;
	assert_non_null(x);
	assert_int_equal(pma_exact_prog_work(x, 1, 1 * MS), 0);
	assert_int_equal(pma_exact_prog_wake(x, 1, 3), 0);
	assert_int_equal(pma_exact_prog_work(x, 3, 1 * MS), 0);
	assert_int_equal(pma_exact_prog_wake(x, 3, 2), 0);
	assert_int_equal(pma_exact_prog_wake(x, 1, 2), 0);
	assert_int_equal(pma_exact_prog_work(x, 2, 1 * MS), 0);
	/* 3 runs its 1 ms after 1's, then 2 its own: 3 ms on 3 cores */
	assert_true(fabs(prog_charged_ms(x, 3, 0, 0, &wk) - 3) < 1e-9);
	assert_int_equal(wk.barriers_dropped, 1);
	assert_int_equal(wk.barriers, 0);
	pma_exact_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_block_wake),
		cmocka_unit_test(test_wake_event_kinds),
		cmocka_unit_test(test_zombie_is_dead),
		cmocka_unit_test(test_chain_respects_order),
		cmocka_unit_test(test_chain_blocked),
		cmocka_unit_test(test_outside_wake),
		cmocka_unit_test(test_foreign_tasks_and_gaps),
		cmocka_unit_test(test_root_running_from_the_start),
		cmocka_unit_test(test_window_root_asleep_until_woken),
		cmocka_unit_test(test_window_thread_switched_in_unseen),
		cmocka_unit_test(test_window_thread_runnable_from_start),
		cmocka_unit_test(test_missed_switch_out_inferred),
		cmocka_unit_test(test_missing_switch_in_inferred),
		cmocka_unit_test(test_missing_switch_in_from_idle),
		cmocka_unit_test(test_replay_rejects_zero_cores),
		cmocka_unit_test(test_replay_wake_charges),
		cmocka_unit_test(test_replay_wake_busy_cores),
		cmocka_unit_test(test_replay_percore_forkjoin),
		cmocka_unit_test(test_replay_percore_idle_balance),
		cmocka_unit_test(test_replay_barrier_groups),
		cmocka_unit_test(test_replay_barrier_preempted_waker),
		cmocka_unit_test(test_replay_barrier_same_wakee),
		cmocka_unit_test(test_replay_barrier_imbalance),
		cmocka_unit_test(test_replay_barrier_unresolved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
