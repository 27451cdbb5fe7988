/* SPDX-License-Identifier: MIT */
/* test_training.c: analyzer/result/training.c, pma_predictions_check (issue 29): predictions
 * outside a training set whose range is known are widened to the analytical model's T(n), and
 * predictions of a training set on
 * which no predictor beats the mean (held-out R2 <= 0) are widened to its targets' range. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "training.h"

/* A training set of 4 runs: threads 1-2 on 1-2 cores, wall times 0.5 to 1.0 s. */
#define ROWS 4
static double X[ROWS * PMA_LEARN_NFEAT], y[ROWS] = { 1.0, 0.75, 0.6, 0.5 };

static struct pma_learn_table table(void)
{
	static const double m[ROWS] = { 1, 1, 2, 2 }, n[ROWS] = { 1, 2, 1, 2 };
	struct pma_learn_table t = { .rows = ROWS, .X = X, .y = y };

	for (size_t i = 0; i < ROWS * PMA_LEARN_NFEAT; i++)
		X[i] = NAN;
	for (size_t i = 0; i < ROWS; i++) {
		X[i * PMA_LEARN_NFEAT + PMA_F_THREADS] = m[i];
		X[i * PMA_LEARN_NFEAT + PMA_F_CORES] = n[i];
	}
	return t;
}

/* Predictions of threads:cores m[k]:n[k], each 0.7 s with p5-p95 0.65-0.75 s. */
static void predictions(struct pma_predictions *p, const unsigned *m, const unsigned *n, size_t k)
{
	memset(p, 0, sizeof(*p));
	p->row = calloc(k, sizeof(*p->row));
	assert_non_null(p->row);
	p->n = k;
	for (size_t i = 0; i < k; i++)
		p->row[i] = (struct pma_predict_row){ .threads = m[i], .cores = n[i], .mean = 0.7,
						      .p5 = 0.65, .p95 = 0.75, .T_model_s = 0.4,
						      .size = NAN };
}

/* issue 29's case: runs on 1-2 cores predict 16 cores; 2:2 and 1:1 lie inside the range */
static void test_outside_widened(void **state)
{
	struct pma_learn_table t = table();
	struct pma_learn_eval ev = { .forest_model = { .R2 = 0.8, .n = 4 }, .forest_base = { .R2 = 0.5, .n = 4 } };
	const unsigned m[] = { 4, 2, 1, 2, 3 }, n[] = { 16, 2, 1, 16, 2 };
	struct pma_predictions p;

	(void)state;
	predictions(&p, m, n, 5);
	p.row[4].T_model_s = NAN; /* no model columns: the targets' range instead */
	pma_predictions_check(&p, &t, &ev);
	assert_true(p.checked);
	assert_int_equal(p.threads_min, 1);
	assert_int_equal(p.threads_max, 2);
	assert_int_equal(p.cores_min, 1);
	assert_int_equal(p.cores_max, 2);
	assert_true(fabs(p.best_R2 - 0.8) < 1e-12);
	assert_int_equal(p.noutside, 3); /* 4:16 (both), 2:16 (cores), 3:2 (threads) */
	assert_int_equal(p.nwidened, 0);
	for (size_t i = 0; i < p.n; i++) {
		int out = i == 0 || i == 3 || i == 4;
		assert_int_equal(p.row[i].outside, out);
		assert_int_equal(p.row[i].widened, 0);
		assert_true(p.row[i].mean == 0.7); /* the forest's number stays */
		if (!out)
			assert_true(p.row[i].p5 == 0.65 && p.row[i].p95 == 0.75);
	}
	/* the interval spans the forest's and the model's T(n) = 0.4 s */
	assert_true(p.row[0].p5 == 0.4 && p.row[0].p95 == 0.75);
	assert_true(p.row[3].p5 == 0.4 && p.row[3].p95 == 0.75);
	assert_true(p.row[4].p5 == 0.5 && p.row[4].p95 == 1.0);
	pma_predictions_free(&p);
}

/* every held-out R2 <= 0 (the model's included): p5-p95 widened to the targets' 0.5-1.0 s */
static void test_no_skill_widened(void **state)
{
	struct pma_learn_table t = table();
	struct pma_learn_eval ev = { .model = { .R2 = -3.0, .n = 4 }, .forest_base = { .R2 = -0.2, .n = 4 },
				     .forest_model = { .R2 = 0.0, .n = 4 } };
	const unsigned m[] = { 2, 4 }, n[] = { 2, 2 };
	struct pma_predictions p;

	(void)state;
	predictions(&p, m, n, 2);
	pma_predictions_check(&p, &t, &ev);
	assert_true(p.best_R2 == 0.0);
	assert_int_equal(p.nwidened, 2);
	assert_int_equal(p.noutside, 1);
	assert_true(p.row[0].widened && !p.row[0].outside);
	assert_true(p.row[0].mean == 0.7 && p.row[0].p5 == 0.5 && p.row[0].p95 == 1.0);
	assert_true(p.y_min == 0.5 && p.y_max == 1.0);
	assert_true(p.row[1].outside && p.row[1].widened); /* both marks, both widenings */
	assert_true(p.row[1].p5 == 0.4 && p.row[1].p95 == 1.0);
	pma_predictions_free(&p);

	/* one predictor above 0 (the model, even when the forests are not): nothing widened */
	ev.model.R2 = 0.1;
	predictions(&p, m, n, 1);
	pma_predictions_check(&p, &t, &ev);
	assert_int_equal(p.nwidened, 0);
	assert_true(p.row[0].p5 == 0.65 && p.row[0].p95 == 0.75);
	pma_predictions_free(&p);

	/* a predictor without rows does not count: model R2 1 over 0 rows */
	ev.model = (struct pma_fit_quality){ .R2 = 1.0, .n = 0 };
	predictions(&p, m, n, 1);
	pma_predictions_check(&p, &t, &ev);
	assert_int_equal(p.nwidened, 1);
	pma_predictions_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outside_widened),
		cmocka_unit_test(test_no_skill_widened),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
