/* SPDX-License-Identifier: MIT */
/* test_quota.c: the n-core replay under CFS bandwidth control (analyzer/model/exact.c,
 * pma_exact_replay_quota) on replay programs whose run time under a quota is worked out by hand in
 * the comments: the pool of Q x P refilled each period, every thread held when it is spent, the
 * burst carrying unused quota over (the kernel's Documentation/scheduler/sched-bwc.rst). The
 * first cases run both replays: the shared pool of cores (pma_exact_replay, one global pool) and
 * the per-core run queues (pma_exact_replay_charged) with free wakes, whose cores draw the pool
 * in slices of 5 ms (kernel/sched/fair.c); they agree where every core spends its slices alike
 * and none idles early (quotas in multiples of a slice per core). The slice cases show where
 * they part: one core taking the whole pool, and runtime returned by a core that goes idle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exact.h"
#include "quota.h"

#define MS 1000000.0

/* a within tol of b, both printed when not */
#define assert_near(a, b, tol)                                                             \
	do {                                                                                \
		double a_ = (a), b_ = (b);                                                  \
		if (!(fabs(a_ - b_) <= (tol)))                                              \
			fail_msg("%s = %.9g, expected %.9g", #a, a_, b_);                   \
	} while (0)

/* T in ms of x on n cores under quota_cpus x period_ms (quota_cpus 0: no quota) with slices of
 * slice_ms (0: the default 5 ms) accounted at ticks of tick_ms (0: exactly), with the shared pool
 * (charged 0) or per-core queues with free wakes (charged 1); *qs the counters. */
static double T_tick_ms(const struct pma_exact *x, uint32_t n, double quota_cpus, double period_ms,
			double burst_ms, double slice_ms, double tick_ms, int charged,
			struct pma_quota_stats *qs)
{
	struct pma_quota q = { quota_cpus * period_ms * MS, period_ms * MS, burst_ms * MS,
			       slice_ms * MS, tick_ms * MS };
	struct pma_wake_charge c = { 0, 0 };
	double T = -1;

	assert_int_equal(pma_exact_replay_quota(x, n, charged ? &c : NULL,
						quota_cpus > 0 ? &q : NULL, &T, NULL, qs), 0);
	return T / MS;
}

/* T_tick_ms with the default slice, accounted exactly. */
static double T_ms(const struct pma_exact *x, uint32_t n, double quota_cpus, double period_ms,
		   double burst_ms, int charged, struct pma_quota_stats *qs)
{
	return T_tick_ms(x, n, quota_cpus, period_ms, burst_ms, 0, 0, charged, qs);
}

/* m independent threads of w_ms each. */
static struct pma_exact *independent(uint32_t m, double w_ms)
{
	struct pma_exact *x = pma_exact_new();

	assert_non_null(x);
	for (uint32_t i = 1; i <= m; i++)
		assert_int_equal(pma_exact_prog_work(x, i, w_ms * MS), 0);
	return x;
}

/* 4 threads of 100 ms on 2 cores: 200 ms without a quota. Under 1 CPU per 100 ms the pool of
 * 100 ms of CPU lasts 50 ms on 2 busy cores, then every thread waits 50 ms: 100 ms of the 400 ms
 * of work per period, so periods 1-3 are throttled (150 ms held) and period 4 ends the work at
 * 300 + 50 = 350 ms, its pool spent just as the last thread ends (no thread left wanting to run:
 * not throttled). Under 1.5 CPUs: 150 ms a period in 75 ms, throttled 25 ms in periods 1 and 2
 * (300 ms done), the last 100 ms of work take 50 ms: 250 ms. */
static void test_independent_threads(void **state)
{
	struct pma_exact *x = independent(4, 100);
	struct pma_quota_stats qs;
	(void)state;

	for (int charged = 0; charged <= 1; charged++) {
		assert_near(T_ms(x, 2, 0, 100, 0, charged, &qs), 200, 1e-6);
		assert_int_equal(qs.throttled_periods, 0);
		assert_near(T_ms(x, 2, 1, 100, 0, charged, &qs), 350, 1e-6);
		assert_int_equal(qs.throttled_periods, 3);
		assert_near(qs.throttled_ns / MS, 150, 1e-6);
		assert_int_equal(qs.periods, 4);
		assert_near(T_ms(x, 2, 1.5, 100, 0, charged, &qs), 250, 1e-6);
		assert_int_equal(qs.throttled_periods, 2);
		assert_near(qs.throttled_ns / MS, 50, 1e-6);
		/* 1 CPU per 10 ms: 10 ms of the work in the first 5 ms of every period, 40
		 * periods: 39 throttled (195 ms held), the last ends at 390 + 5 = 395 ms */
		assert_near(T_ms(x, 2, 1, 10, 0, charged, &qs), 395, 1e-6);
		assert_int_equal(qs.throttled_periods, 39);
		assert_near(qs.throttled_ns / MS, 195, 1e-6);
	}
	pma_exact_free(x);
}

/* A quota of 3 CPUs on 2 cores: 2 cores spend at most 200 ms of the 300 ms a period, so the pool
 * never runs out: T is the unlimited 200 ms, nothing throttled. */
static void test_quota_above_cores(void **state)
{
	struct pma_exact *x = independent(4, 100);
	struct pma_quota_stats qs;
	(void)state;

	for (int charged = 0; charged <= 1; charged++) {
		assert_near(T_ms(x, 2, 3, 100, 0, charged, &qs), 200, 1e-6);
		assert_int_equal(qs.throttled_periods, 0);
		assert_near(qs.throttled_ns, 0, 1e-6);
	}
	pma_exact_free(x);
}

/* An imbalanced program: threads 1 and 2 run 150 ms in parallel, then thread 1 runs a serial
 * 150 ms after 2 wakes it. 450 ms of work; unlimited on 2 cores 300 ms, and work / quota at
 * 1.5 CPUs is also 300 ms. The replay: period 1 spends its 150 ms on both cores by 75 ms
 * (held to 100), period 2 likewise by 175 ms, just as the parallel phase ends: the serial thread
 * is held to 200 (2 throttled periods, 50 ms). Period 3 runs it 100 ms (pool 50 left, refilled to
 * 150 without burst), period 4 the last 50 ms: 350 ms, 17% above work / quota: the parallel
 * burst spends the quota early in the period and the serial phase cannot use it. */
static void test_imbalanced_burst_early(void **state)
{
	struct pma_exact *x = pma_exact_new();
	struct pma_quota_stats qs;
	(void)state;

	assert_non_null(x);
	assert_int_equal(pma_exact_prog_work(x, 1, 150 * MS), 0);
	assert_int_equal(pma_exact_prog_work(x, 2, 150 * MS), 0);
	assert_int_equal(pma_exact_prog_wake(x, 2, 1), 0);
	assert_int_equal(pma_exact_prog_work(x, 1, 150 * MS), 0);
	for (int charged = 0; charged <= 1; charged++) {
		assert_near(T_ms(x, 2, 0, 100, 0, charged, &qs), 300, 1e-6);
		assert_near(T_ms(x, 2, 1.5, 100, 0, charged, &qs), 350, 1e-6);
		assert_int_equal(qs.throttled_periods, 2);
		assert_near(qs.throttled_ns / MS, 50, 1e-6);
	}
	pma_exact_free(x);
}

/* cpu.max.burst: thread 1 runs 100 ms alone, then starts thread 2, and both run 100 ms. Under
 * 1.5 CPUs per 100 ms, period 1 leaves 50 ms of its pool unused. Without burst period 2 has
 * 150 ms, spent by both cores at 175 ms (75 ms each): held to 200, the last 25 ms of each end at
 * 225 ms (1 throttled period, 25 ms). With a 50 ms burst the unused 50 ms carry over: 200 ms in period 2,
 * both threads end at 200 ms unthrottled. A burst of 200 ms carries no more than was unused. */
static void test_burst_carries_unused_quota(void **state)
{
	struct pma_exact *x = pma_exact_new();
	struct pma_quota_stats qs;
	(void)state;

	assert_non_null(x);
	assert_int_equal(pma_exact_prog_work(x, 1, 100 * MS), 0);
	assert_int_equal(pma_exact_prog_spawn(x, 1, 2), 0);
	assert_int_equal(pma_exact_prog_work(x, 1, 100 * MS), 0);
	assert_int_equal(pma_exact_prog_work(x, 2, 100 * MS), 0);
	for (int charged = 0; charged <= 1; charged++) {
		assert_near(T_ms(x, 2, 1.5, 100, 0, charged, &qs), 225, 1e-6);
		assert_int_equal(qs.throttled_periods, 1);
		assert_near(qs.throttled_ns / MS, 25, 1e-6);
		assert_near(T_ms(x, 2, 1.5, 100, 50, charged, &qs), 200, 1e-6);
		assert_int_equal(qs.throttled_periods, 0);
		assert_near(T_ms(x, 2, 1.5, 100, 200, charged, &qs), 200, 1e-6);
	}
	pma_exact_free(x);
}

/* One slice takes the whole pool: 2 threads of 20 ms on 2 cores under 0.5 CPU per 10 ms (5 ms a
 * period), slices of 5 ms. Per core: at 0 core 0 draws the pool's 5 ms and core 1, finding it
 * empty, is throttled; core 0 runs to 5 and is throttled too. Each period's refill goes to the
 * longest throttled core: core 1 runs 10-15, core 0 20-25, and so on, one core a period; thread 1
 * ends at 65 (0-5, 20-25, 40-45, 60-65), thread 2 at 75 (its fourth 5 ms in 70-75). Periods
 * ending at 10, ..., 70 each find a core throttled (7 of 8 periods), and one core or the other is
 * throttled from 0 to 70 (70 ms). The global pool instead runs both threads 2.5 ms a period and
 * holds them 7.5 ms: 8 periods end at 72.5 ms, 52.5 ms held. Slices of 2.5 ms split the pool
 * evenly at each refill, as the global pool does: 72.5 ms. */
static void test_slice_takes_the_pool(void **state)
{
	struct pma_exact *x = independent(2, 20);
	struct pma_quota_stats qs;
	(void)state;

	assert_near(T_ms(x, 2, 0.5, 10, 0, 1, &qs), 75, 1e-6);
	assert_int_equal(qs.throttled_periods, 7);
	assert_int_equal(qs.periods, 8);
	assert_near(qs.throttled_ns / MS, 70, 1e-6);
	assert_near(T_ms(x, 2, 0.5, 10, 0, 0, &qs), 72.5, 1e-6);
	assert_int_equal(qs.throttled_periods, 7);
	assert_near(qs.throttled_ns / MS, 52.5, 1e-6);
	assert_near(T_tick_ms(x, 2, 0.5, 10, 0, 2.5, 0, 1, &qs), 72.5, 1e-6);
	assert_int_equal(qs.throttled_periods, 7);
	pma_exact_free(x);
}

/* Runtime returned by idle cores, handed out by the slack timer: 3 cores, 0.15 CPU per 100 ms
 * (15 ms a period), slices of 5 ms. Thread 3 runs 4.5 ms, then wakes threads 1 and 2 (which
 * waited from the start: a barrier of the three, released by thread 3) and runs 10 ms more;
 * threads 1 and 2 run 1 ms each. At 0 thread 3's core draws 5 ms (pool 10). At 4.5 the cores of
 * threads 1 and 2 draw 5 ms each (pool 0); at 5 thread 3's core has spent its slice and is
 * throttled. At 5.5 threads 1 and 2 end: each core returns its 3 ms beyond the 1 ms it keeps, the
 * pool reaches 6 ms, over a slice while a core is throttled, and the slack timer is armed for
 * 5 ms later (94.5 ms before the refill, 7 needed). At 10.5 it hands the pool to thread 3's core:
 * a slice of 5 (pool 1), run to 15.5, then the last 1 ms, run to 16.5; throttled with 3.5 ms of
 * work left until the refill at 100, which ends it at 103.5. One throttled period of two,
 * throttled 5-10.5 and 16.5-100 (89 ms). Without the slack timer thread 3 would wait from 5 to
 * 100 and end at 109.5. Each instant's draws are the same in any order of the cores. */
static void test_slack_timer_returns_runtime(void **state)
{
	struct pma_exact *x = pma_exact_new();
	struct pma_quota_stats qs;
	(void)state;

	assert_non_null(x);
	assert_int_equal(pma_exact_prog_work(x, 3, 4.5 * MS), 0);
	assert_int_equal(pma_exact_prog_wake(x, 3, 1), 0);
	assert_int_equal(pma_exact_prog_wake(x, 3, 2), 0);
	assert_int_equal(pma_exact_prog_work(x, 3, 10 * MS), 0);
	assert_int_equal(pma_exact_prog_work(x, 1, 1 * MS), 0);
	assert_int_equal(pma_exact_prog_work(x, 2, 1 * MS), 0);
	assert_near(T_ms(x, 3, 0.15, 100, 0, 1, &qs), 103.5, 1e-6);
	assert_int_equal(qs.throttled_periods, 1);
	assert_int_equal(qs.periods, 2);
	assert_near(qs.throttled_ns / MS, 89, 1e-6);
	pma_exact_free(x);
}

/* Which rows can throttle (pma_quota_study_exact, JSON throttling_possible): 4 threads of 20 ms on
 * 2 cores, periods of 10 ms. One global pool (no wake charges) is never spent by 2 cores at 2
 * CPUs. With slices (the per-core replay, ticks of 4 ms by default) each core may also end a
 * period holding a slice it has not spent, and start it in a debt of up to a tick, so up to
 * 2 x (10 + 5 + 4) ms may be drawn in a period: 3.8 CPUs is the first quota that cannot
 * throttle. */
static void test_study_throttling_possible(void **state)
{
	struct pma_exact *x = independent(4, 20);
	struct pma_wake_charge c = { 0, 0 };
	struct pma_quota_opts o = { .nQ = 3, .Q_cpus = { 2, 3.7, 3.8 }, .period_ns = 10 * MS };
	struct pma_quota_result r;
	(void)state;

	assert_int_equal(pma_quota_study_exact(x, NULL, 2, &o, &r), 0);
	assert_int_equal(r.rows[0].no_throttle, 1);
	assert_int_equal(r.rows[1].no_throttle, 1);
	pma_quota_result_free(&r);
	assert_int_equal(pma_quota_study_exact(x, &c, 2, &o, &r), 0);
	assert_int_equal(r.rows[0].no_throttle, 0);
	assert_int_equal(r.rows[1].no_throttle, 0);
	assert_int_equal(r.rows[2].no_throttle, 1);
	assert_near(r.rows[2].T_ns / MS, 40, 1e-6);
	assert_int_equal(r.rows[2].st.throttled_periods, 0);
	pma_quota_result_free(&r);
	pma_exact_free(x);
}

/* A core's runtime accounted at ticks: 1 thread of 13 ms on 1 core under 0.35 CPU per 10 ms
 * (3.5 ms a period), slices of 5 ms, ticks every 4 ms; the thread has no event of its own, so
 * its runtime is looked at only at the ticks. At 0 it draws the pool's 3.5 ms; at the tick at 4
 * it is 0.5 ms in debt and the pool is empty: throttled. The refill at 10 pays the debt plus 1 ns
 * (pool 3) and it runs; at the tick at 12 it is 2 ms in debt and draws the pool's 3 ms (1 ms
 * left); at 16 it is 3 ms in debt: throttled. The refill at 20 pays 3 ms (pool 0.5) and the
 * thread's last 3 ms end at 23 (10 ms of work by 20: 4 + 6). Periods ending at 10 and 20 find it
 * throttled (2 of 3), throttled 4-10 and 16-20 (10 ms). Accounted exactly it runs 3.5 ms a
 * period: 0-3.5, 10-13.5, 20-23.5, 30-32.5 (3 throttled periods of 6.5 ms). */
static void test_tick_accounting_overruns(void **state)
{
	struct pma_exact *x = independent(1, 13);
	struct pma_quota_stats qs;
	(void)state;

	assert_near(T_tick_ms(x, 1, 0.35, 10, 0, 0, 4, 1, &qs), 23, 1e-6);
	assert_int_equal(qs.throttled_periods, 2);
	assert_int_equal(qs.periods, 3);
	assert_near(qs.throttled_ns / MS, 10, 1e-6);
	assert_near(T_tick_ms(x, 1, 0.35, 10, 0, 0, 0, 1, &qs), 32.5, 1e-6);
	assert_int_equal(qs.throttled_periods, 3);
	assert_near(qs.throttled_ns / MS, 19.5, 1e-6);
	pma_exact_free(x);
}

/* Memory contention spends the quota (pma_exact_replay_scaled, Tudor & Teo eq. 7): 4 threads of
 * 100 ms on 2 cores with omega 0.5 cost 150 ms each, 600 ms of CPU: 300 ms unlimited. Under
 * 1 CPU per 100 ms the pool lasts 50 ms on 2 busy cores a period: periods 1-5 throttled, the last
 * 100 ms of work end at 500 + 50 = 550 ms (both replays: 20 slices of 5 ms, 10 a core). The
 * study replays T(1) and the work U without it (omega is for n cores) and rows and T(n) with it;
 * the fluid approximation spends U (1 + omega) at Q: 400 x 1.5 / 1 = 600 ms. omega <= -1 is
 * refused. */
static void test_contention_spends_quota(void **state)
{
	struct pma_exact *x = independent(4, 100);
	struct pma_quota q = { 100 * MS, 100 * MS, 0, 0, 0 };
	struct pma_wake_charge c = { 0, 0 };
	struct pma_quota_opts o = { .nQ = 1, .Q_cpus = { 1 }, .omega = 0.5, .omega_source = "test" };
	struct pma_quota_stats qs;
	struct pma_quota_result r;
	double T;
	(void)state;

	for (int charged = 0; charged <= 1; charged++) {
		assert_int_equal(pma_exact_replay_scaled(x, 2, charged ? &c : NULL, NULL, 0.5, &T, NULL,
							 NULL), 0);
		assert_near(T / MS, 300, 1e-6);
		assert_int_equal(pma_exact_replay_scaled(x, 2, charged ? &c : NULL, &q, 0.5, &T, NULL,
							 &qs), 0);
		assert_near(T / MS, 550, 1e-6);
		assert_int_equal(qs.throttled_periods, 5);
	}
	assert_int_equal(pma_quota_study_exact(x, NULL, 2, &o, &r), 0);
	assert_near(r.T1_ns / MS, 400, 1e-6);
	assert_near(r.U_ns / MS, 400, 1e-6);
	assert_near(r.Tn_ns / MS, 300, 1e-6);
	assert_near(r.rows[0].T_ns / MS, 550, 1e-6);
	assert_near(r.omega, 0.5, 0);
	pma_quota_result_free(&r);
	assert_int_equal(pma_quota_study_fluid(400 * MS, 400 * MS, 300 * MS, 2, &o, &r), 0);
	assert_near(r.rows[0].T_ns / MS, 600, 1e-6);
	pma_quota_result_free(&r);
	assert_int_equal(pma_exact_replay_scaled(x, 2, NULL, &q, -1, &T, NULL, NULL), -1);
	pma_exact_free(x);
}

/* A core running two threads switches between them every EEVDF base slice (0.75 ms on one CPU),
 * and each switch accounts its runtime: 2 threads of 10 ms on 1 core under 0.5 CPU per 10 ms
 * (one 5 ms slice a period), ticks every 4 ms. The switch at 5.25 finds the slice spent and the
 * pool empty: throttled (5.25 ms done). The refill at 10 pays the 0.25 ms debt (pool 4.75), the
 * switch at 10.5 draws the 4.75 left, spent at the switch at 15 (10.25 done); the same from
 * 20.25 to 24.75 (15 done); from 30 the last 5 ms draw the pool's 5 at 30.75: the work ends at
 * 35. Accounted at the ticks alone the core overruns to the tick: throttled at 8, 12 and 28,
 * the work ends at 32. */
static void test_switches_account_runtime(void **state)
{
	struct pma_exact *x = independent(2, 10);
	struct pma_quota_stats qs;
	(void)state;

	assert_near(T_tick_ms(x, 1, 0.5, 10, 0, 0, 4, 1, &qs), 35, 1e-3);
	assert_int_equal(qs.throttled_periods, 3);
	pma_exact_free(x);
}

/* Periodic balancing (every 32 ms on 2 cores) on threads of 60, 120, 180 and 240 ms, placed
 * {60, 180} and {120, 240}: the first ends at 120; at 128 the 240 ms thread (tied for the least
 * CPU time, most left) joins the 180 ms one, at 160 it goes back (80 ms done against 84), at 192
 * again (96 against 112); the 120 ms thread ends at 200, the idle core pulls the 240 ms thread
 * (140 left), the 180 ms thread ends at 260 and the last at 340. One shared pool of cores
 * (processor sharing) gives 330; without periodic balancing the pairs stay and the second core
 * takes 360. */
static void test_periodic_balancing(void **state)
{
	struct pma_exact *x = pma_exact_new();
	(void)state;

	assert_non_null(x);
	for (uint32_t i = 1; i <= 4; i++)
		assert_int_equal(pma_exact_prog_work(x, i, 60.0 * i * MS), 0);
	assert_near(T_ms(x, 2, 0, 100, 0, 1, NULL), 340, 1e-3);
	assert_near(T_ms(x, 2, 0, 100, 0, 0, NULL), 330, 1e-3);
	pma_exact_free(x);
}

/* A core that goes idle in debt draws when it is accounted (the dequeue's update_curr) and keeps
 * min_cfs_rq_runtime (1 ms) of what it drew: 2 cores under 1.5 CPUs per 10 ms (15 ms a period),
 * slices of 5 ms, ticks every 4 ms; thread A runs 5.5 ms and waits for B, then runs 1 ms; B runs
 * 9 ms, wakes A and runs 1 ms. At 0 each core draws 5 ms (pool 5). At 5.5 A blocks 0.5 ms in
 * debt: its core draws the pool's 5 ms and returns all but 1 ms (pool 3.5). B's core, 3 ms in
 * debt at the tick at 8, draws the 3.5 left. At 9 A is woken to its idle core and runs 9-10 on
 * the 1 ms it kept; both end at 10, no period throttled. Had the idle core not drawn, B's core
 * would take the pool's 5 ms at 8, A's core would find it empty at 9 and wait for the refill:
 * A ends at 11, one period throttled. */
static void test_idle_core_keeps_runtime(void **state)
{
	struct pma_exact *x = pma_exact_new();
	struct pma_quota_stats qs;
	(void)state;

	assert_non_null(x);
	assert_int_equal(pma_exact_prog_work(x, 1, 5.5 * MS), 0);
	assert_int_equal(pma_exact_prog_work(x, 2, 9 * MS), 0);
	assert_int_equal(pma_exact_prog_wake(x, 2, 1), 0);
	assert_int_equal(pma_exact_prog_work(x, 1, 1 * MS), 0);
	assert_int_equal(pma_exact_prog_work(x, 2, 1 * MS), 0);
	assert_near(T_tick_ms(x, 2, 1.5, 10, 0, 0, 4, 1, &qs), 10, 1e-3);
	assert_int_equal(qs.throttled_periods, 0);
	pma_exact_free(x);
}

/* A quota or period of 0 or below, a slice or tick below 0, is refused. */
static void test_rejects_bad_quota(void **state)
{
	struct pma_exact *x = independent(1, 10);
	struct pma_quota zero_period = { 100 * MS, 0, 0, 0, 0 }, zero_quota = { 0, 100 * MS, 0, 0, 0 };
	struct pma_quota neg_slice = { 100 * MS, 100 * MS, 0, -1, 0 };
	struct pma_quota neg_tick = { 100 * MS, 100 * MS, 0, 0, -1 };
	struct pma_wake_charge c = { 0, 0 };
	double T;
	(void)state;

	assert_int_equal(pma_exact_replay_quota(x, 2, NULL, &zero_period, &T, NULL, NULL), -1);
	assert_int_equal(pma_exact_replay_quota(x, 2, NULL, &zero_quota, &T, NULL, NULL), -1);
	assert_int_equal(pma_exact_replay_quota(x, 2, &c, &neg_slice, &T, NULL, NULL), -1);
	assert_int_equal(pma_exact_replay_quota(x, 2, &c, &neg_tick, &T, NULL, NULL), -1);
	pma_exact_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_independent_threads),
		cmocka_unit_test(test_quota_above_cores),
		cmocka_unit_test(test_imbalanced_burst_early),
		cmocka_unit_test(test_burst_carries_unused_quota),
		cmocka_unit_test(test_slice_takes_the_pool),
		cmocka_unit_test(test_slack_timer_returns_runtime),
		cmocka_unit_test(test_tick_accounting_overruns),
		cmocka_unit_test(test_study_throttling_possible),
		cmocka_unit_test(test_contention_spends_quota),
		cmocka_unit_test(test_switches_account_runtime),
		cmocka_unit_test(test_periodic_balancing),
		cmocka_unit_test(test_idle_core_keeps_runtime),
		cmocka_unit_test(test_rejects_bad_quota),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
