/* SPDX-License-Identifier: MIT */
/* test_breakdown.c: a run replayed from its slices (analyzer/studies/breakdown.c) on a schedule
 * made by hand, whose wake-up latency, preempted waits, CPUs left unused and migrations are known
 * by construction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"
#include "breakdown.h"

#define MS 1000000ull
#define RUN(tid, cpu, a, b) { (tid), PMA_SLICE_RUNNING, (cpu), (a) * MS, (b) * MS }
#define READY(tid, a, b) { (tid), PMA_SLICE_RUNNABLE, 0, (a) * MS, (b) * MS }

/* Two CPUs, times in ms:
 * - thread 1 runs on CPU 0 over [0, 10);
 * - thread 2 runs on CPU 1 over [0, 2), blocks, is woken at 4 and waits to 6 with CPU 1 idle
 *   (2 ms of wake-up latency, 2 ms of a CPU lost to it), runs on CPU 1 over [6, 8), is preempted
 *   by thread 3 and waits over [8, 12): both CPUs busy to 10, both idle over [10, 12) (2 ms of a
 *   CPU lost to the preempted wait), then runs on CPU 0 over [12, 14): a migration after 4 ms
 *   runnable;
 * - thread 3 is woken at 7 and waits to 8 with both CPUs busy (1 ms of latency, nothing lost),
 *   runs on CPU 1 over [8, 10).
 * U = 18 ms; L = 4 ms (2 wake, 2 preempt); latency 3 ms over 2 wakes; 5 switch-ins, 1 preemption,
 * 1 migration with 4 ms runnable before it. The slices come in any order. */
static const struct pma_slice sched[] = {
	RUN(2, 0, 12, 14), READY(3, 7, 8), RUN(1, 0, 0, 10), RUN(2, 1, 0, 2), READY(2, 4, 6),
	RUN(2, 1, 6, 8), READY(2, 8, 12), RUN(3, 1, 8, 10),
};

static void test_known_schedule(void **state)
{
	struct pma_breakdown_run b;

	(void)state;
	assert_int_equal(pma_breakdown_replay(sched, sizeof(sched) / sizeof(sched[0]), 2, &b), 0);
	assert_double_equal(b.U_ns, 18e6, 0);
	assert_double_equal(b.lost_ns, 4e6, 0);
	assert_double_equal(b.lost_wake_ns, 2e6, 0);
	assert_double_equal(b.lost_preempt_ns, 2e6, 0);
	assert_double_equal(b.wake_latency_ns, 3e6, 0);
	assert_int_equal(b.wakes, 2);
	assert_int_equal(b.switch_ins, 5);
	assert_int_equal(b.preemptions, 1);
	assert_int_equal(b.migrations, 1);
	assert_double_equal(b.migration_wait_ns, 4e6, 0);
}

/* The same schedule on one CPU's worth of capacity: over [4, 6) the CPU is busy with thread 1 (no
 * CPU free), over [10, 12) one CPU is free: L = 2 ms, all of it the preempted wait. */
static void test_fewer_cpus(void **state)
{
	struct pma_breakdown_run b;

	(void)state;
	assert_int_equal(pma_breakdown_replay(sched, sizeof(sched) / sizeof(sched[0]), 1, &b), 0);
	assert_double_equal(b.lost_ns, 2e6, 0);
	assert_double_equal(b.lost_wake_ns, 0, 0);
	assert_double_equal(b.lost_preempt_ns, 2e6, 0);
}

/* No slices: all zero; no CPUs: an error. */
static void test_empty_and_bad(void **state)
{
	struct pma_breakdown_run b;

	(void)state;
	assert_int_equal(pma_breakdown_replay(NULL, 0, 2, &b), 0);
	assert_double_equal(b.U_ns, 0, 0);
	assert_int_equal(pma_breakdown_replay(sched, 1, 0, &b), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_schedule),
		cmocka_unit_test(test_fewer_cpus),
		cmocka_unit_test(test_empty_and_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
