/* SPDX-License-Identifier: MIT */
/* test_stationarity.c: the pure parts of the stationarity check (analyzer/studies/stationarity.c):
 * a quarter's ratio of its parts with the ratio estimator's standard error (C(n) per instruction
 * by quarter), the chi-square test of the quarters' agreement, and the interpolation of
 * cumulative counter snapshots at the parts' edges; on numbers worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"
#include "studies/stationarity.h"

#define NP (PMA_STAT_QUARTERS * PMA_STAT_BLOCKS)

/* Quarter 1: every part at 2 cycles per instruction (2k over k): R = 2, no spread. Quarter 2:
 * 3 cycles in each part over 1 instruction in four and 2 in four: R = 24 / 12 = 2, residuals +-1,
 * var = 8/7 x 8 / 12^2: R_err = sqrt(64 / 7) / 12 = 0.25198. Quarters 3 and 4: 1.5 and 3. */
static void test_ratio_quarters(void **state)
{
	double num[NP], den[NP], N[4], D[4], R[4], E[4];

	(void)state;
	for (int k = 0; k < PMA_STAT_BLOCKS; k++) {
		num[k] = 2.0 * (k + 1);
		den[k] = k + 1;
		num[8 + k] = 3;
		den[8 + k] = k < 4 ? 1 : 2;
		num[16 + k] = 1.5 * 1e6;
		den[16 + k] = 1e6;
		num[24 + k] = 3 * 1e6;
		den[24 + k] = 1e6;
	}
	assert_int_equal(pma_stat_ratio_quarters(num, den, N, D, R, E), 0);
	assert_double_equal(R[0], 2, 1e-12);
	assert_double_equal(E[0], 0, 1e-12);
	assert_double_equal(N[0], 72, 1e-12);
	assert_double_equal(D[0], 36, 1e-12);
	assert_double_equal(R[1], 2, 1e-12);
	assert_double_equal(E[1], sqrt(64.0 / 7) / 12, 1e-12);
	assert_double_equal(R[2], 1.5, 1e-12);
	assert_double_equal(R[3], 3, 1e-12);
	/* a quarter that retired nothing, or a value not finite: nothing defined */
	for (int k = 0; k < PMA_STAT_BLOCKS; k++)
		den[24 + k] = 0;
	assert_int_equal(pma_stat_ratio_quarters(num, den, N, D, R, E), -1);
	den[24] = 1;
	num[3] = NAN;
	assert_int_equal(pma_stat_ratio_quarters(num, den, N, D, R, E), -1);
}

/* Equal quarters agree (chi2 0, p 1); 1, 1, 2, 2 at +-0.1 are 5 sigma from their mean 1.5 each:
 * chi2 100, p far below 0.001; a quarter known exactly agrees only with equal values. */
static void test_chi2(void **state)
{
	const double same[4] = { 1, 1, 1, 1 }, step[4] = { 1, 1, 2, 2 }, e[4] = { 0.1, 0.1, 0.1, 0.1 };
	const double z[4] = { 0, 0.1, 0.1, 0.1 };
	struct pma_stat_test t;

	(void)state;
	pma_stat_chi2(same, e, &t);
	assert_double_equal(t.chi2, 0, 1e-12);
	assert_double_equal(t.p, 1, 1e-12);
	assert_false(t.disagree);
	pma_stat_chi2(step, e, &t);
	assert_double_equal(t.chi2, 100, 1e-9);
	assert_true(t.p < 1e-15);
	assert_true(t.disagree);
	assert_int_equal(t.q_min, 0);
	assert_int_equal(t.q_max, 2);
	pma_stat_chi2(same, z, &t);
	assert_false(t.disagree);
	pma_stat_chi2(step, z, &t);
	assert_true(isinf(t.chi2));
	assert_double_equal(t.p, 0, 0);
	assert_true(t.disagree);
}

/* Cumulative counts between snapshots: linear inside, the end values outside, NAN without any. */
static void test_count_at(void **state)
{
	const uint64_t t[] = { 0, 10, 20 };
	const double v[] = { 0, 100, 300 };

	(void)state;
	assert_double_equal(pma_stat_count_at(t, v, 3, 0), 0, 0);
	assert_double_equal(pma_stat_count_at(t, v, 3, 5), 50, 1e-12);
	assert_double_equal(pma_stat_count_at(t, v, 3, 10), 100, 1e-12);
	assert_double_equal(pma_stat_count_at(t, v, 3, 15), 200, 1e-12);
	assert_double_equal(pma_stat_count_at(t, v, 3, 25), 300, 0);
	assert_double_equal(pma_stat_count_at(t, v, 1, 25), 0, 0);
	assert_true(isnan(pma_stat_count_at(t, v, 0, 5)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ratio_quarters),
		cmocka_unit_test(test_chi2),
		cmocka_unit_test(test_count_at),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
