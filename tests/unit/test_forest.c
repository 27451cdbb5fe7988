/* SPDX-License-Identifier: MIT */
/* test_forest.c: analyzer/model/forest.c (xgboost random forest) on a synthetic table of configurations
 * whose time is a known function of threads, cores and problem size. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "forest.h"

#define COLS 4  /* threads, cores, size, noise */
#define ROWS (16 * 8 * 3 * 2)

struct table {
	double X[ROWS * COLS];
	double y[ROWS];
	uint32_t config[ROWS];
};

/* The known function: time = size (0.2 + 1 / min(threads, cores)) + 0.01 threads, i.e. a serial
 * part, a part that scales up to the smaller of threads and cores, and a per-thread overhead. */
static double truth_s(double threads, double cores, double size)
{
	return size * (0.2 + 1.0 / fmin(threads, cores)) + 0.01 * threads;
}

/* 16 thread counts x 8 core counts (128 configurations) x 3 sizes x 2 repetitions with +-1%
 * measurement noise; a fourth feature is uniform noise that a good forest learns to ignore. */
static void make_table(struct table *t)
{
	uint32_t lcg = 12345;
	size_t r = 0;

	for (uint32_t th = 1; th <= 16; th++)
		for (uint32_t c = 1; c <= 8; c++)
			for (uint32_t s = 1; s <= 3; s++)
				for (uint32_t rep = 0; rep < 2; rep++, r++) {
					lcg = lcg * 1103515245u + 12345u;
					t->X[r * COLS + 0] = th;
					t->X[r * COLS + 1] = c;
					t->X[r * COLS + 2] = s;
					t->X[r * COLS + 3] = (double)(lcg >> 8) / (double)(1u << 24);
					t->y[r] = truth_s(th, c, s) * (rep ? 1.01 : 0.99);
					t->config[r] = th * 100 + c;
				}
	assert_int_equal(r, ROWS);
}

static struct table tab;

static void test_holdout_recovers_function(void **state)
{
	struct pma_forest_params p;
	struct pma_fit_quality q;
	char why[512] = "";
	static double yhat[ROWS];

	(void)state;
	make_table(&tab);
	pma_forest_params_default(&p);
	/* 5 folds of whole configurations: every (threads, cores) setting is predicted by a forest
	 * that never saw a run of it */
	assert_int_equal(pma_forest_holdout(tab.X, NULL, tab.y, tab.config, ROWS, COLS, 5, &p, yhat, &q,
					    why, sizeof(why)), 0);
	print_message("# held-out configurations: R2 %.4f, mean |error| %.4f s over %zu runs\n",
		      q.R2, q.mean_abs_err, q.n);
	assert_int_equal(q.n, ROWS);
	assert_true(q.R2 >= 0.95);
	/* yhat is the held-out prediction: recomputing the quality from it gives the same */
	{
		struct pma_fit_quality q2;
		assert_int_equal(pma_fit_quality(tab.y, yhat, ROWS, &q2), 0);
		assert_float_equal(q2.R2, q.R2, 1e-12);
	}
}

static void test_interval_importance_determinism(void **state)
{
	struct pma_forest_params p;
	struct pma_forest *f, *g;
	static double mean[ROWS], lo[ROWS], hi[ROWS], again[ROWS];
	double imp[COLS], sum = 0.0;
	char why[512] = "";
	size_t wider = 0, inside = 0;

	(void)state;
	make_table(&tab);
	pma_forest_params_default(&p);
	assert_int_equal(pma_forest_train(&f, tab.X, tab.y, ROWS, COLS, &p, why, sizeof(why)), 0);
	assert_int_equal(pma_forest_trees(f), 300);
	assert_int_equal(pma_forest_cols(f), COLS);
	assert_int_equal(pma_forest_predict(f, tab.X, ROWS, mean, lo, hi, why, sizeof(why)), 0);
	/* The interval is the 5th-95th percentile of the trees; the forest's mean can fall outside
	 * it where most trees memorised a training row and a few (that did not draw it) disagree:
	 * here 20 of the 768 training rows. */
	for (size_t r = 0; r < ROWS; r++) {
		assert_true(lo[r] <= hi[r]);
		wider += hi[r] > lo[r];
		inside += lo[r] <= mean[r] && mean[r] <= hi[r];
	}
	print_message("# mean inside [5%%, 95%%] of the trees for %zu of %d rows\n", inside, ROWS);
	assert_true(inside >= ROWS * 9 / 10);
	assert_true(wider > ROWS / 2); /* subsampled trees disagree */
	/* 8 threads on 1 core, size 3 (row 7*8*6 + 0*6 + 2*2 = 340): 3 (0.2 + 1) + 0.08 = 3.68 */
	assert_float_equal(tab.X[340 * COLS + 0], 8, 0);
	assert_float_equal(tab.X[340 * COLS + 1], 1, 0);
	assert_float_equal(tab.X[340 * COLS + 2], 3, 0);
	assert_true(fabs(mean[340] - 3.68) < 0.1);

	assert_int_equal(pma_forest_importance(f, imp, why, sizeof(why)), 0);
	for (size_t c = 0; c < COLS; c++)
		sum += imp[c];
	print_message("# importance: threads %.3f cores %.3f size %.3f noise %.3f\n", imp[0], imp[1],
		      imp[2], imp[3]);
	assert_float_equal(sum, 1.0, 1e-9);
	assert_true(imp[3] < imp[0] && imp[3] < imp[1] && imp[3] < imp[2]);

	/* a fixed seed: the same table gives the same forest */
	assert_int_equal(pma_forest_train(&g, tab.X, tab.y, ROWS, COLS, &p, why, sizeof(why)), 0);
	assert_int_equal(pma_forest_predict(g, tab.X, ROWS, again, NULL, NULL, why, sizeof(why)), 0);
	assert_memory_equal(mean, again, sizeof(mean));
	pma_forest_free(g);
	pma_forest_free(f);
}

static void test_save_load(void **state)
{
	struct pma_forest_params p;
	struct pma_forest *f, *g = NULL;
	static double before[ROWS], lo[ROWS], hi[ROWS], after[ROWS], lo2[ROWS], hi2[ROWS];
	unsigned char *buf;
	char why[512] = "";
	size_t len;

	(void)state;
	make_table(&tab);
	pma_forest_params_default(&p);
	p.num_parallel_tree = 100;
	assert_int_equal(pma_forest_train(&f, tab.X, tab.y, ROWS, COLS, &p, why, sizeof(why)), 0);
	assert_int_equal(pma_forest_predict(f, tab.X, ROWS, before, lo, hi, why, sizeof(why)), 0);
	assert_int_equal(pma_forest_save(f, &buf, &len, why, sizeof(why)), 0);
	assert_memory_equal(buf, "PMTFOREST 1 4 1.7.4 ", 20);
	assert_int_equal(pma_forest_load(&g, buf, len, why, sizeof(why)), 0);
	assert_int_equal(pma_forest_trees(g), 100);
	assert_int_equal(pma_forest_predict(g, tab.X, ROWS, after, lo2, hi2, why, sizeof(why)), 0);
	assert_memory_equal(before, after, sizeof(before));
	assert_memory_equal(lo, lo2, sizeof(lo));
	assert_memory_equal(hi, hi2, sizeof(hi));
	pma_forest_free(g);
	g = NULL;

	/* another version of our header is refused with a clear error */
	buf[10] = '2';
	assert_int_equal(pma_forest_load(&g, buf, len, why, sizeof(why)), -1);
	assert_null(g);
	assert_string_equal(why, "forest model version 2 is not supported (this build reads version 1)");
	buf[10] = '1';
	/* cut short */
	assert_int_equal(pma_forest_load(&g, buf, len - 1, why, sizeof(why)), -1);
	{
		char want[128];
		snprintf(want, sizeof(want), "forest model header does not match its length (%zu bytes)",
			 len - 1);
		assert_string_equal(why, want);
	}
	free(buf);
	pma_forest_free(f);
}

static void test_bad_input(void **state)
{
	static const unsigned char junk[] = "{\"learner\": {}}";
	struct pma_forest_params p;
	struct pma_forest *f = NULL;
	struct pma_fit_quality q;
	uint32_t one_config[ROWS];
	char why[512] = "";
	double y_nan[2] = { 1.0, NAN }, yc[3] = { 2.0, 2.0, 2.0 }, X2[2] = { 1.0, 2.0 };

	(void)state;
	make_table(&tab);
	pma_forest_params_default(&p);
	assert_int_equal(pma_forest_load(&f, junk, sizeof(junk) - 1, why, sizeof(why)), -1);
	assert_string_equal(why, "not a pmtools forest model");
	assert_int_equal(pma_forest_train(&f, X2, y_nan, 1, 1, &p, why, sizeof(why)), -1);
	assert_string_equal(why, "a forest needs at least 2 runs and 1 feature (1 runs, 1 features)");
	assert_int_equal(pma_forest_train(&f, X2, y_nan, 2, 1, &p, why, sizeof(why)), -1);
	assert_string_equal(why, "run 1 has no target value");
	/* one configuration only: nothing to hold out */
	for (size_t r = 0; r < ROWS; r++)
		one_config[r] = 7;
	assert_int_equal(pma_forest_holdout(tab.X, NULL, tab.y, one_config, ROWS, COLS, 5, &p, NULL, &q, why,
					    sizeof(why)), -1);
	assert_string_equal(why, "held-out evaluation needs at least 2 configurations and 2 to 1 "
			    "folds (1 configurations, 5 folds)");
	assert_int_equal(pma_fit_quality(yc, yc, 3, &q), -1);  /* constant y: R² undefined */
	assert_null(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holdout_recovers_function),
		cmocka_unit_test(test_interval_importance_determinism),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
