/* SPDX-License-Identifier: MIT */
/* test_runcheck.c: the predictions against the trace's own runs (analyzer/studies/runcheck.c):
 * medians of the wall times, the runs' spread, when a prediction is outside its ±S, which row is
 * the worst; runs on CPU counts without a prediction and bad wall times are left out. */
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
#include "runcheck.h"

/* Runs on 1 CPU of 3, 2 and 4 s (median 3) and on 2 CPUs of 1.6, 1.5 and 2 s (median 1.6): S(2) =
 * 3 / 1.6 = 1.875, each run's 3 / T between 1.5 and 2. One run on 8 CPUs, not predicted; a run of
 * 0 s and one of NAN on 2 CPUs are left out. */
static const double wall[] = { 3.0, 1.6, 2.0, 1.5, 4.0, 2.0, 0.9, 0, NAN };
static const uint32_t cpus[] = { 1, 2, 1, 2, 1, 2, 8, 2, 2 };
#define NRUNS (sizeof(wall) / sizeof(wall[0]))

static void test_medians_and_spread(void **state)
{
	const uint32_t cores[] = { 1, 2, 4 };
	const double S[] = { 1, 1.9, 3.0 }, dS[] = { 0, 0.05, 0.1 };
	struct pma_runcheck c;

	(void)state;
	assert_int_equal(pma_runcheck_rows(wall, cpus, NRUNS, cores, S, dS, 3, &c), 1);
	assert_int_equal(c.rows[0].cores, 2);
	assert_int_equal(c.rows[0].runs_1, 3);
	assert_int_equal(c.rows[0].runs_n, 3);
	assert_double_equal(c.rows[0].S, 1.875, 1e-12);
	assert_double_equal(c.rows[0].S_min, 1.5, 1e-12);
	assert_double_equal(c.rows[0].S_max, 2.0, 1e-12);
	assert_double_equal(c.rows[0].S_pred, 1.9, 0);
	assert_double_equal(c.rows[0].S_pred_err, 0.05, 0);
	assert_false(c.rows[0].outside);
	assert_null(pma_runcheck_worst(&c));
}

/* [S - dS, S + dS] against the runs' [1.5, 2]: 2.2 ± 0.1 misses it (2.1 > 2), 2.1 ± 0.1 touches
 * it, 1.3 ± 0.1 misses it below, NAN (saturated) is never outside. */
static void test_outside(void **state)
{
	const uint32_t cores[] = { 2 };
	const double dS[] = { 0.1 };
	const double above[] = { 2.2 }, touch[] = { 2.1 }, below[] = { 1.3 }, sat[] = { NAN };
	struct pma_runcheck c;

	(void)state;
	pma_runcheck_rows(wall, cpus, NRUNS, cores, above, dS, 1, &c);
	assert_true(c.rows[0].outside);
	assert_ptr_equal(pma_runcheck_worst(&c), &c.rows[0]);
	pma_runcheck_rows(wall, cpus, NRUNS, cores, touch, dS, 1, &c);
	assert_false(c.rows[0].outside);
	pma_runcheck_rows(wall, cpus, NRUNS, cores, below, dS, 1, &c);
	assert_true(c.rows[0].outside);
	pma_runcheck_rows(wall, cpus, NRUNS, cores, sat, dS, 1, &c);
	assert_int_equal(c.n, 1);
	assert_false(c.rows[0].outside);
}

/* Two rows outside: at n = 2, 2.4 against at most 2 (20% above); at n = 8, 4.0 against the one
 * run's 3 / 0.9 = 3.33 (20.0% above, by 0.67/3.33 = 0.2 exactly: the worst is the larger miss, so
 * make n = 8 miss by more: 4.2, 26%). */
static void test_worst(void **state)
{
	const uint32_t cores[] = { 2, 8 };
	const double S[] = { 2.4, 4.2 }, dS[] = { 0, 0 };
	struct pma_runcheck c;

	(void)state;
	assert_int_equal(pma_runcheck_rows(wall, cpus, NRUNS, cores, S, dS, 2, &c), 2);
	assert_int_equal(c.rows[1].runs_n, 1);
	assert_double_equal(c.rows[1].S, 3.0 / 0.9, 1e-12);
	assert_double_equal(c.rows[1].S_min, c.rows[1].S_max, 0);
	assert_true(c.rows[0].outside && c.rows[1].outside);
	assert_ptr_equal(pma_runcheck_worst(&c), &c.rows[1]);
}

/* No run on one CPU, or none at all: no row. An even count of runs: the median is the mean of
 * the middle two (1 CPU: 2 and 4 s, median 3). */
static void test_degenerate(void **state)
{
	const uint32_t cores[] = { 2 }, only2[] = { 2, 2 }, even[] = { 1, 1, 2 };
	const double S[] = { 1.5 }, dS[] = { 0.1 }, w2[] = { 1, 1 }, we[] = { 2, 4, 2 };
	struct pma_runcheck c;

	(void)state;
	assert_int_equal(pma_runcheck_rows(w2, only2, 2, cores, S, dS, 1, &c), 0);
	assert_int_equal(pma_runcheck_rows(NULL, NULL, 0, cores, S, dS, 1, &c), 0);
	assert_int_equal(pma_runcheck_rows(we, even, 3, cores, S, dS, 1, &c), 1);
	assert_double_equal(c.rows[0].S, 1.5, 1e-12);
}

/* The model's error at the runs: on 1 CPU 10, 10.2, 9.8 s, on 2 CPUs 5.5, 5.6, 5.4 s (S = 10 /
 * 5.5 = 1.818), predicted 2.0 ± 0.02. Each median's standard error is 1.2533 * 0.2 / sqrt(3) /
 * its median (sd 0.2 and 0.1): relative 0.014472 and 0.013156, S_sd = 1.818 * 0.019558 =
 * 0.035562; d = 0.18182, so e = sqrt(d^2 - S_sd^2 - 0.02^2) / 2 = 0.088591. Carried: 0 at 1,
 * e at 2, e (1 + log2 1.5) at 3, 2e at 4, 3e at 8. Runs whose spread explains d give e = 0. */
static void test_model_error(void **state)
{
	const double w[] = { 10, 10.2, 9.8, 5.5, 5.6, 5.4 }, S[] = { 1, 2.0 }, dS[] = { 0, 0.02 };
	const uint32_t c[] = { 1, 1, 1, 2, 2, 2 }, cores[] = { 1, 2 };
	const double wide[] = { 10, 14, 6, 5.5, 7.5, 3.5 }; /* the same medians, a wide spread */
	struct pma_runcheck rc;
	double se1 = 1.2533141373155 * 0.2 / sqrt(3) / 10, se2 = 1.2533141373155 * 0.1 / sqrt(3) / 5.5;
	double Sm = 10 / 5.5, sd = Sm * hypot(se1, se2), d = Sm - 2.0;
	double e = sqrt(d * d - sd * sd - 0.02 * 0.02) / 2.0;

	(void)state;
	assert_int_equal(pma_runcheck_rows(w, c, 6, cores, S, dS, 2, &rc), 1);
	assert_double_equal(rc.rows[0].S_sd, sd, 1e-12);
	assert_double_equal(rc.rows[0].model_rel, e, 1e-12);
	assert_double_equal(e, 0.08859, 1e-5);
	assert_double_equal(pma_runcheck_model_rel(&rc, 1), 0, 0);
	assert_double_equal(pma_runcheck_model_rel(&rc, 2), e, 1e-12);
	assert_double_equal(pma_runcheck_model_rel(&rc, 3), e * (1 + log2(1.5)), 1e-12);
	assert_double_equal(pma_runcheck_model_rel(&rc, 4), 2 * e, 1e-12);
	assert_double_equal(pma_runcheck_model_rel(&rc, 8), 3 * e, 1e-12);
	pma_runcheck_set_total(&rc, cores, (const double[]){ 0, 0.5 }, 2);
	assert_double_equal(rc.rows[0].S_err_total, 0.5, 0);
	/* the runs' spread explains the difference: no model error */
	pma_runcheck_rows(wide, c, 6, cores, S, dS, 2, &rc);
	assert_double_equal(rc.rows[0].S, Sm, 1e-12);
	assert_double_equal(rc.rows[0].model_rel, 0, 0);
	assert_double_equal(pma_runcheck_model_rel(&rc, 8), 0, 0);
	/* no rows: no term */
	memset(&rc, 0, sizeof(rc));
	assert_double_equal(pma_runcheck_model_rel(&rc, 4), 0, 0);
}

/* Other processes' time: runs on 1 CPU of 4 and 6 s that waited 3 and 5 s (own 1 s each, 75%
 * and 83.3%), on 2 CPUs of 4 and 5 s that waited 3.5 and 4.5 s (own 0.5 s each, 87.5% and 90%):
 * S by wall times 5 / 4.5 = 1.11, outside 2.0 ± 0.05; their own time gives S = 2 (2-2), inside,
 * no model error, not the worst. A wait under PMA_RUNCHECK_OTHER_MIN of the wall time (0.05 of
 * 5 s) corrects nothing: the wall times' S is judged. */
static void test_other_processes(void **state)
{
	const double w[] = { 4, 6, 4, 5 }, o[] = { 3, 5, 3.5, 4.5 }, small[] = { 0.05, 0.05, 0, 0 };
	const double S[] = { 2.0 }, dS[] = { 0.05 };
	const uint32_t c[] = { 1, 1, 2, 2 }, cores[] = { 2 };
	struct pma_runcheck rc;

	(void)state;
	assert_int_equal(pma_runcheck_rows(w, c, 4, cores, S, dS, 1, &rc), 1);
	assert_double_equal(rc.rows[0].S, 5.0 / 4.5, 1e-12);
	assert_true(rc.rows[0].outside);
	assert_true(rc.rows[0].model_rel > 0.4);
	assert_int_equal(pma_runcheck_set_other(&rc, w, o, c, 4), 1);
	assert_true(rc.rows[0].corrected);
	assert_double_equal(rc.rows[0].S, 5.0 / 4.5, 1e-12); /* the wall times' S stays */
	assert_double_equal(rc.rows[0].S_own, 2.0, 1e-12);
	assert_double_equal(rc.rows[0].S_own_min, 2.0, 1e-12);
	assert_double_equal(rc.rows[0].S_own_max, 2.0, 1e-12);
	assert_double_equal(rc.rows[0].other_1_s, 4.0, 1e-12);
	assert_double_equal(rc.rows[0].other_n_s, 4.0, 1e-12);
	assert_double_equal(rc.rows[0].other_1_pct, (75 + 250.0 / 3) / 2, 1e-9);
	assert_double_equal(rc.rows[0].other_n_pct, 88.75, 1e-9);
	assert_false(rc.rows[0].outside);
	assert_double_equal(rc.rows[0].model_rel, 0, 0);
	assert_null(pma_runcheck_worst(&rc));
	/* 1% of the wall time: below the threshold, judged on the wall times */
	pma_runcheck_rows(w, c, 4, cores, S, dS, 1, &rc);
	assert_int_equal(pma_runcheck_set_other(&rc, w, small, c, 4), 0);
	assert_false(rc.rows[0].corrected);
	assert_double_equal(rc.rows[0].S_own, rc.rows[0].S, 0);
	assert_true(rc.rows[0].outside);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_medians_and_spread),
		cmocka_unit_test(test_outside),
		cmocka_unit_test(test_worst),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_model_error),
		cmocka_unit_test(test_other_processes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
