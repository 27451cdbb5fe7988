/* SPDX-License-Identifier: MIT */
/* test_pswitch.c: the switch-exact estimator (analyzer/pswitch.h) on a hand-made schedule of two
 * threads on one CPU, with the wake-up perf does not report placed from schedstat, bounded, or
 * refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "pswitch.h"
#include "testlib.h"

#define MS 1000000ull
#define A_TID 10u
#define B_TID 11u

/* One CPU, thread A (the program's first thread) and B (forked by A at 0):
 *   0-10 A runs, B queued; 10-20 B; 20-30 A, then A blocks; 30-40 B runs and wakes A at 35 (not
 *   recorded: perf has no wake-ups); 40 B preempted, A switched in (its run_delay grows by 5 ms
 *   there); 40-50 A, then exits; 50-60 B, then exits.
 * Truth with the wake at 35 (processor sharing: dT_cp = dt c / r): 5+5+5 (r = 2) + 5 (30-35,
 * r = 1) + 2.5 (35-40, r = 2) + 5 (40-50, r = 2) + 10 (50-60, r = 1) = 37.5 ms of T_cp for
 * U = 60 ms: A = 1.6. With the wake at the switch-in (40), A = 60 / 40 = 1.5; at the block (30),
 * 60 / 35 = 1.714. */
static const struct pmt_sched_event events[] = {
	{ 0, PMT_PSWITCH_IN, 0, 0, A_TID, A_TID, A_TID, 0 },
	{ 0, PMT_PSWITCH_FORK, 0, 0, A_TID, A_TID, B_TID, A_TID },
	{ 10 * MS, PMT_PSWITCH_OUT, 0, 0, A_TID, A_TID, A_TID, 1 },
	{ 10 * MS, PMT_PSWITCH_IN, 0, 0, B_TID, A_TID, B_TID, 0 },
	{ 20 * MS, PMT_PSWITCH_OUT, 0, 0, B_TID, A_TID, B_TID, 1 },
	{ 20 * MS, PMT_PSWITCH_IN, 0, 0, A_TID, A_TID, A_TID, 0 },
	{ 30 * MS, PMT_PSWITCH_OUT, 0, 0, A_TID, A_TID, A_TID, 0 },
	{ 30 * MS, PMT_PSWITCH_IN, 0, 0, B_TID, A_TID, B_TID, 0 },
	{ 40 * MS, PMT_PSWITCH_OUT, 0, 0, B_TID, A_TID, B_TID, 1 },
	{ 40 * MS, PMT_PSWITCH_IN, 0, 0, A_TID, A_TID, A_TID, 0 },
	/* an exiting task's events close before its last switch-out: no OUT follows EXIT */
	{ 50 * MS, PMT_PSWITCH_EXIT, 0, 0, A_TID, A_TID, A_TID, 0 },
	{ 50 * MS, PMT_PSWITCH_IN, 0, 0, B_TID, A_TID, B_TID, 0 },
	{ 60 * MS, PMT_PSWITCH_EXIT, 0, 0, B_TID, A_TID, B_TID, 0 },
	{ 60 * MS, PMT_PSWITCH_OUT, 0, 0, B_TID, A_TID, B_TID, 0 }, /* tolerated all the same */
};
#define NEV (sizeof(events) / sizeof(events[0]))

/* Two records, the later one first (two CPUs' buffers come in any order). */
static void add_events(struct pma_pswitch *p, uint32_t missed)
{
	struct pmt_sched_batch late = { 0, 1, missed, NEV - 8, events + 8 };
	struct pmt_sched_batch early = { 0, 0, 0, 8, events };

	assert_int_equal(pma_pswitch_add(p, &late), 0);
	assert_int_equal(pma_pswitch_add(p, &early), 0);
}

/* Samples of A's schedstat run_delay (field 2): wait_a_ns[i] at t_ns[i]. B waits 10 ms before
 * each of its switch-ins at 10, 30 and 50 (after its fork or a preemption: exact from the
 * records); its samples say the same. */
static void add_samples(struct pma_pswitch *p, const uint64_t *t_ns, const uint64_t *wait_a_ns,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pmt_thread_sample ts[2];
		struct pmt_sample s = { .t_ns = t_ns[i], .n = 2, .threads = ts };
		memset(ts, 0, sizeof(ts));
		ts[0].tid = A_TID;
		ts[0].wait_ns = wait_a_ns[i];
		ts[0].flags = PMT_TS_SCHEDSTAT_OK;
		ts[1].tid = B_TID;
		ts[1].wait_ns = t_ns[i] > 50 * MS ? 30 * MS : t_ns[i] > 30 * MS ? 20 * MS :
				t_ns[i] > 10 * MS ? 10 * MS : 0;
		ts[1].flags = PMT_TS_SCHEDSTAT_OK;
		assert_int_equal(pma_pswitch_sample(p, &s), 0);
	}
}

static void finish(struct pma_pswitch *p, struct pma_pswitch_stats *st, struct pma_parallelism *par)
{
	struct pma_profile prof;

	pma_profile_init(&prof);
	assert_int_equal(pma_pswitch_finish(p, &prof, st), 0);
	pma_profile_parallelism(&prof, 2, par);
	assert_double_equal(prof.work_ns, 60.0 * MS, 1);
	assert_double_equal(par->A_inf, st->A_inf, 1e-9);
	pma_profile_free(&prof);
}

/* One wake in A's sampling interval (25, 45]: its run_delay grew by 5 ms, the wait after A's
 * preemption at 10 (10 ms, exact) was credited in the interval before: the wake is placed at 35. */
static void test_wake_placed(void **state)
{
	static const uint64_t t[] = { 5 * MS, 25 * MS, 45 * MS, 65 * MS };
	static const uint64_t w[] = { 0, 10 * MS, 15 * MS, 15 * MS };
	struct pma_pswitch *p = pma_pswitch_new();
	struct pma_pswitch_stats st;
	struct pma_parallelism par;

	(void)state;
	add_events(p, 0);
	add_samples(p, t, w, 4);
	finish(p, &st, &par);
	assert_int_equal(st.events, NEV);
	assert_int_equal(st.threads, 2);
	assert_int_equal(st.preempted, 3);
	assert_int_equal(st.wakes_placed, 1);
	assert_int_equal(st.wakes_bounded, 0);
	assert_int_equal(st.anomalies, 0);
	assert_double_equal(par.T_cp_ns, 37.5 * MS, 1);
	assert_double_equal(par.A_inf, 1.6, 1e-9);
	assert_double_equal(st.A_lo, 1.6, 1e-9);
	assert_double_equal(st.A_hi, 1.6, 1e-9);
	assert_double_equal(pma_pswitch_rel_err(&st), 0, 1e-9);
	pma_pswitch_free(p);
}

/* Without samples around the switch-in the wake is only bounded: between the switch-in (A = 1.5)
 * and the block (A = 1.714), the point at the switch-in; the bound is in the uncertainty. */
static void test_wake_bounded(void **state)
{
	static const uint64_t t[] = { 5 * MS, 25 * MS };
	static const uint64_t w[] = { 0, 10 * MS };
	struct pma_pswitch *p = pma_pswitch_new();
	struct pma_pswitch_stats st;
	struct pma_parallelism par;

	(void)state;
	add_events(p, 0);
	add_samples(p, t, w, 2);
	finish(p, &st, &par);
	assert_int_equal(st.wakes_placed, 0);
	assert_int_equal(st.wakes_bounded, 1);
	assert_double_equal(st.bound_ns, 10.0 * MS, 1);
	assert_double_equal(par.A_inf, 1.5, 1e-9);
	assert_double_equal(st.A_lo, 1.5, 1e-9);
	assert_double_equal(st.A_hi, 60.0 / 35.0, 1e-9);
	/* the truth (1.6) is inside A +- err */
	assert_true(1.6 <= par.A_inf * (1 + pma_pswitch_rel_err(&st)));
	pma_pswitch_free(p);
}

/* Lost records count, and widen the uncertainty by their share. */
static void test_lost(void **state)
{
	static const uint64_t t[] = { 5 * MS, 25 * MS, 45 * MS, 65 * MS };
	static const uint64_t w[] = { 0, 10 * MS, 15 * MS, 15 * MS };
	struct pma_pswitch *p = pma_pswitch_new();
	struct pma_pswitch_stats st;
	struct pma_parallelism par;

	(void)state;
	add_events(p, 4);
	add_samples(p, t, w, 4);
	finish(p, &st, &par);
	assert_int_equal(st.lost, 4);
	assert_double_equal(pma_pswitch_rel_err(&st), 4.0 / (NEV + 4 + 1), 1e-9);
	pma_pswitch_free(p);
}

/* No records: nothing to estimate (the analyzer falls back to the samples). */
static void test_empty(void **state)
{
	struct pma_pswitch *p = pma_pswitch_new();
	struct pma_pswitch_stats st;
	struct pma_profile prof;

	(void)state;
	pma_profile_init(&prof);
	assert_int_equal(pma_pswitch_finish(p, &prof, &st), 0);
	assert_true(st.T_cp_ns == 0 && st.events == 0);
	pma_profile_free(&prof);
	pma_pswitch_free(p);
	pma_pswitch_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wake_placed),
		cmocka_unit_test(test_wake_bounded),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
