// SPDX-License-Identifier: MIT
// test_calstop.c: the stopping rule of an adaptive pmcollect --calibrate (issue 28,
// collector/session/calstop.c) on synthetic C(n) sequences of known standard error: C's median and
// sd / sqrt(K) as pmanalyze summarizes them, omega's standard error by the delta method, the round
// at which a target is met, a budget that stops the rounds first, a budget below one round, the
// plan's last round and the minimum rounds. tests/unit/test_contention.c checks
// pmc_calstop_omega against pmanalyze's omega_err on the same numbers.

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "calstop.h"
#include "testlib.h"

#define ROUND_NS 1000000000ull /* each synthetic round takes 1 s */

/* C of 32 rounds of two runs (C(1), C(2)): C(1) is 100, 120, 80, then 100 every round; C(2) is
 * 100 every round. From round 3 on: median C(1) 100, mean 100, sum of squares 800, so
 * se(C1) = sqrt(800 / (k (k - 1))); se(C2) is the floor 1e-3 x 100; omega = 0 and
 * se(omega) = hypot(se(C1) / 100, 0.001). */
static void sequence(double *C)
{
	for (int k = 0; k < 32; k++) {
		C[2 * k] = k == 1 ? 120 : k == 2 ? 80 : 100;
		C[2 * k + 1] = 100;
	}
}

static double known_se(uint32_t k)
{
	return hypot(sqrt(800.0 / (k * (k - 1.0))) / 100, 0.001);
}

/* Runs rounds 1, 2, ... of C through the rule until it stops; returns the round, *why the reason
 * and *se the worst standard error then. */
static uint32_t run_rounds(const double *C, const struct pmc_calstop_rule *rule,
			   enum pmc_calstop_reason *why, double *se)
{
	for (uint32_t k = 1; k <= 32; k++) {
		size_t p;
		*se = pmc_calstop_worst_se(C, k, 2, 0, &p);
		*why = pmc_calstop_decide(rule, k, k * ROUND_NS, *se);
		if (*why != PMC_CALSTOP_CONTINUE)
			return k;
	}
	fail_msg("the rule never stopped");
	return 0;
}

/* The median and sd / sqrt(K) of pmanalyze's summarize_points, floored at 1e-3 of the median. */
static void test_C_summary(void **state)
{
	static const double C1[] = { 104, 100, 98 }, same[] = { 50, 50, 50, 50 };
	double med, se;

	(void)state;
	pmc_calstop_C(C1, 3, &med, &se);
	assert_double_equal(med, 100, 1e-12);
	/* mean 302 / 3: squares (10/3)^2 + (2/3)^2 + (8/3)^2 = 56/3, / (K - 1) / K */
	assert_double_equal(se, sqrt(56.0 / 3 / 2 / 3), 1e-12);
	pmc_calstop_C(same, 4, &med, &se);
	assert_double_equal(med, 50, 1e-12);
	assert_double_equal(se, 0.05, 1e-12);
	pmc_calstop_C(same, 1, &med, &se);
	assert_double_equal(med, 50, 1e-12);
	assert_true(isnan(se));
}

/* omega(2) = 97/100 - 1 with the standard error pmanalyze gives for these runs (test_contention.c
 * test_median_spread_and_noise: 0.0206411671); one run: no standard error. */
static void test_omega_known(void **state)
{
	static const double C1[] = { 104, 100, 98 }, C2[] = { 95, 97, 99 };
	double w, se;

	(void)state;
	pmc_calstop_omega(C1, 3, C2, 3, &w, &se);
	assert_double_equal(w, -0.03, 1e-12);
	assert_double_equal(se, 0.0206411671, 1e-9);
	pmc_calstop_omega(C1, 1, C2, 3, &w, &se);
	assert_true(isnan(se));
}

/* Target 0.03: se(omega) is 0.0333 after 9 rounds and 0.02983 after 10: stops at round 10. */
static void test_target_round(void **state)
{
	struct pmc_calstop_rule rule = { .omega_se_target = 0.03, .min_rounds = 3, .max_rounds = 32 };
	double C[64], se;
	enum pmc_calstop_reason why;

	(void)state;
	sequence(C);
	assert_true(known_se(9) > 0.03 && known_se(10) <= 0.03);
	assert_int_equal(run_rounds(C, &rule, &why, &se), 10);
	assert_int_equal(why, PMC_CALSTOP_TARGET);
	assert_string_equal(pmc_calstop_reason_name(why), "target");
	assert_double_equal(se, known_se(10), 1e-12);
}

/* The same runs with a budget of 5.5 s (1 s a round): after round 5 another would end at 6 s,
 * past the budget, before the target is met at round 10. */
static void test_budget_first(void **state)
{
	struct pmc_calstop_rule rule = { .omega_se_target = 0.03, .budget_ns = 5500000000ull,
					 .min_rounds = 3, .max_rounds = 32 };
	double C[64], se;
	enum pmc_calstop_reason why;

	(void)state;
	sequence(C);
	assert_int_equal(run_rounds(C, &rule, &why, &se), 5);
	assert_int_equal(why, PMC_CALSTOP_BUDGET);
	assert_string_equal(pmc_calstop_reason_name(why), "budget");
	assert_double_equal(se, known_se(5), 1e-12);
}

/* A budget of 1.5 rounds: one round runs (the budget beats --repeat's minimum), omega's standard
 * error unknown. */
static void test_single_round_budget(void **state)
{
	struct pmc_calstop_rule rule = { .omega_se_target = 0.03, .budget_ns = 1500000000ull,
					 .min_rounds = 3, .max_rounds = 32 };
	double C[64], se;
	enum pmc_calstop_reason why;

	(void)state;
	sequence(C);
	assert_int_equal(run_rounds(C, &rule, &why, &se), 1);
	assert_int_equal(why, PMC_CALSTOP_BUDGET);
	assert_true(isnan(se));
}

/* A target never met stops at the plan's last round; a loose one after the minimum rounds, never
 * before 3 (PMC_CALSTOP_MIN_SE_ROUNDS). */
static void test_max_and_min_rounds(void **state)
{
	struct pmc_calstop_rule rule = { .omega_se_target = 1e-9, .min_rounds = 3, .max_rounds = 8 };
	double C[64], se;
	enum pmc_calstop_reason why;

	(void)state;
	sequence(C);
	assert_int_equal(run_rounds(C, &rule, &why, &se), 8);
	assert_int_equal(why, PMC_CALSTOP_MAX_ROUNDS);
	rule = (struct pmc_calstop_rule){ .omega_se_target = 1000, .min_rounds = 5, .max_rounds = 32 };
	assert_int_equal(run_rounds(C, &rule, &why, &se), 5);
	assert_int_equal(why, PMC_CALSTOP_TARGET);
	rule.min_rounds = 1;
	assert_int_equal(run_rounds(C, &rule, &why, &se), PMC_CALSTOP_MIN_SE_ROUNDS);
	assert_int_equal(why, PMC_CALSTOP_TARGET);
}

/* Three runs a round (C(1) second, two calibrated counts): the worst point is the one with the
 * larger spread; C(1) missing from the round: unknown. */
static void test_worst_point(void **state)
{
	/* rounds of (C(4), C(1), C(5)) */
	static const double C[] = { 100, 100, 100, 110, 100, 100, 90, 100, 100 };
	size_t p;
	double se;

	(void)state;
	se = pmc_calstop_worst_se(C, 3, 3, 1, &p);
	assert_int_equal(p, 0);
	assert_double_equal(se, hypot(0.001, sqrt(200.0 / 2 / 3) / 100), 1e-12);
	assert_true(isnan(pmc_calstop_worst_se(C, 3, 3, 3, &p)));
	assert_int_equal(p, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_C_summary),
		cmocka_unit_test(test_omega_known),
		cmocka_unit_test(test_target_round),
		cmocka_unit_test(test_budget_first),
		cmocka_unit_test(test_single_round_budget),
		cmocka_unit_test(test_max_and_min_rounds),
		cmocka_unit_test(test_worst_point),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
