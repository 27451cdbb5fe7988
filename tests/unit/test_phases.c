/* SPDX-License-Identifier: MIT */
/* test_phases.c: the phase fallback (issue 17) on profiles built by hand: gaps absorbed or cutting,
 * leading and trailing serial time, sampled averages below the threshold, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "phases.h"
#include "testlib.h"

#define MS 1000000ull

/* serial 0-10 ms; 4 threads 10-50; serial 50-51 (1 ms); 2 threads 51-80; serial 80-100 (20 ms);
 * 3 threads 100-130; nothing 130-140 (end). */
static const uint64_t t_ns[] = {0, 10 * MS, 50 * MS, 51 * MS, 80 * MS, 100 * MS, 130 * MS};
static const double active[] = {1, 4, 1, 2, 1, 3, 0};
#define N (sizeof(t_ns) / sizeof(t_ns[0]))

/* Gap threshold 2 ms: the 1 ms gap is absorbed, the 20 ms gap cuts. Phase 1 = [10, 80) ms with
 * work 40 x 4 + 1 x 1 + 29 x 2 = 219 thread-ms, A = 219/70; phase 2 = [100, 130), work 90, A = 3. */
static void test_two_phases(void **state)
{
	struct pma_phase ph[4];

	(void)state;
	assert_int_equal(pma_phases_segment(t_ns, active, N, 140 * MS, 2, 2 * MS, NULL, 0), 2);
	assert_int_equal(pma_phases_segment(t_ns, active, N, 140 * MS, 2, 2 * MS, ph, 4), 2);
	assert_int_equal(ph[0].begin_ns, 10 * MS);
	assert_int_equal(ph[0].end_ns, 80 * MS);
	assert_double_equal(ph[0].work_ns, 219.0 * MS, 1e-6);
	assert_double_equal(ph[0].A, 219.0 / 70, 1e-12);
	assert_int_equal(ph[1].begin_ns, 100 * MS);
	assert_int_equal(ph[1].end_ns, 130 * MS);
	assert_double_equal(ph[1].A, 3, 1e-12);
}

/* Threshold below the 1 ms gap: it cuts too, three phases [10,50) [51,80) [100,130). A threshold
 * of 20 ms absorbs the second gap as well: one phase [10, 130), work 219 + 20 + 90 = 329 thread-ms. */
static void test_threshold(void **state)
{
	struct pma_phase ph[4];

	(void)state;
	assert_int_equal(pma_phases_segment(t_ns, active, N, 140 * MS, 2, MS - 1, ph, 4), 3);
	assert_int_equal(ph[0].end_ns, 50 * MS);
	assert_int_equal(ph[1].begin_ns, 51 * MS);
	assert_double_equal(ph[1].A, 2, 1e-12);
	assert_int_equal(pma_phases_segment(t_ns, active, N, 140 * MS, 2, 20 * MS, ph, 4), 1);
	assert_int_equal(ph[0].begin_ns, 10 * MS);
	assert_int_equal(ph[0].end_ns, 130 * MS);
	assert_double_equal(ph[0].work_ns, 329.0 * MS, 1e-6);
	/* max smaller than the count: the first max are written, the count is still returned */
	assert_int_equal(pma_phases_segment(t_ns, active, N, 140 * MS, 2, MS - 1, ph, 1), 3);
	assert_int_equal(ph[0].end_ns, 50 * MS);
}

/* Sampled averages: 1.9 active is not parallel; a profile that never reaches 2 has no phase, one
 * that is parallel to the end has its phase closed at end_ns. */
static void test_edges(void **state)
{
	static const uint64_t t2[] = {0, 5, 10};
	static const double serial[] = {1.9, 0.5, 1};
	static const double to_end[] = {1, 2.5, 2};
	struct pma_phase ph[2];

	(void)state;
	assert_int_equal(pma_phases_segment(t2, serial, 3, 20, 2, 0, ph, 2), 0);
	assert_int_equal(pma_phases_segment(t2, to_end, 3, 20, 2, 0, ph, 2), 1);
	assert_int_equal(ph[0].begin_ns, 5);
	assert_int_equal(ph[0].end_ns, 20);
	assert_double_equal(ph[0].A, (2.5 * 5 + 2 * 10) / 15, 1e-12);
	assert_int_equal(pma_phases_segment(t2, to_end, 0, 20, 2, 0, ph, 2), 0);
}

static void test_bad_input(void **state)
{
	static const uint64_t back[] = {0, 10, 5};
	static const double a[] = {2, 2, 2};
	static const double neg[] = {2, -1, 2};
	static const uint64_t t2[] = {0, 5, 10};

	(void)state;
	assert_int_equal(pma_phases_segment(back, a, 3, 20, 2, 0, NULL, 0), -1);
	assert_int_equal(pma_phases_segment(t2, a, 3, 9, 2, 0, NULL, 0), -1); /* end before last */
	assert_int_equal(pma_phases_segment(t2, neg, 3, 20, 2, 0, NULL, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_phases),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
