/* SPDX-License-Identifier: MIT */
/* test_regions.c: the per-region predictions of pma_regions_compute (issue 17: S(m,n) and T(n) per
 * region at every core count) on runs sampled by hand, whose profiles are known by construction:
 * a perfectly parallel 2-thread window gives S(1) = 1, S(2) = S(4) = 2 and T(4) = T_cp; an
 * imbalanced one (2 threads, then 1) gives A = 1.5 and S(n) = min(n, 1.5). Issue 19's bounds
 * S <= min(n, A) and T >= max(T_cp, U/n) are checked on every prediction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"
#include "estimate.h"
#include "regions.h"

#define MS 1000000ull
#define T0 (1000 * MS) /* the run's start: a CLOCK_MONOTONIC time, not 0 */
#define MS_D 1e6 /* expected values, as doubles */
#define REL 1e-6

static const uint32_t cores[] = { 1, 2, 4 };
#define NCORES (sizeof(cores) / sizeof(cores[0]))

/* A run of 2 threads sampled every 10 ms over [T0, T0 + 100 ms): thread 1 runs until T0 +
 * busy1_ms and sleeps after, thread 2 until T0 + busy2_ms; no thread waits (runnable =
 * running). */
static struct pma_trace *sampled_run2(uint64_t busy1_ms, uint64_t busy2_ms)
{
	struct pma_trace *t = calloc(1, sizeof(*t));
	struct pma_run *r;

	assert_non_null(t);
	t->nruns = 1;
	t->meta.interval_ms = 10;
	r = &t->runs[0];
	r->t_begin_ns = T0;
	r->t_end_ns = T0 + 100 * MS;
	r->m = 2;
	r->est = pma_est_new();
	assert_non_null(r->est);
	pma_est_begin(r->est, T0);
	for (uint64_t k = 0; k <= 10; k++) {
		uint64_t ms = 10 * k, run2 = ms < busy2_ms ? ms : busy2_ms;
		uint64_t run1 = ms < busy1_ms ? ms : busy1_ms;
		struct pmt_thread_sample ts[2] = {
			{ .tid = 1, .tgid = 1, .run_ns = run1 * MS, .cpu = 0, .state = ms < busy1_ms ? 'R' : 'S',
			  .flags = PMT_TS_SCHEDSTAT_OK | PMT_TS_STAT_FRESH },
			{ .tid = 2, .tgid = 1, .run_ns = run2 * MS, .cpu = 1, .state = ms < busy2_ms ? 'R' : 'S',
			  .flags = PMT_TS_SCHEDSTAT_OK | PMT_TS_STAT_FRESH },
		};
		struct pmt_sample s = { .t_ns = T0 + ms * MS, .n = 2, .threads = ts };
		assert_int_equal(pma_est_sample(r->est, &s), 0);
	}
	assert_int_equal(pma_est_finish(r->est, T0 + 100 * MS), 0);
	pma_est_get_stats(r->est, &r->st);
	return t;
}

/* sampled_run2 with thread 1 running throughout */
static struct pma_trace *sampled_run(uint64_t busy2_ms)
{
	return sampled_run2(100, busy2_ms);
}

static void free_run(struct pma_trace *t)
{
	pma_est_free(t->runs[0].est);
	free(t->runs[0].omp);
	free(t);
}

/* One OpenMP region instance over [T0 + b_ms, T0 + e_ms) (no recorded object: unnamed). */
static void add_region(struct pma_trace *t, uint64_t b_ms, uint64_t e_ms)
{
	struct pma_run *r = &t->runs[0];

	r->info.omp.present = r->info.omp.recorded = 1;
	r->omp = calloc(1, sizeof(*r->omp));
	assert_non_null(r->omp);
	r->omp[0] = (struct pma_omp_inst){ .id = 1, .codeptr_ra = 0x1234, .begin_ns = T0 + b_ms * MS,
					   .end_ns = T0 + e_ms * MS, .pid = 1, .depth = 1,
					   .actual_team = 2 };
	r->nomp = 1;
}

/* Every prediction of the row: at cores[i], S <= min(n, A) and T >= max(T_cp, U/n) (issue 19). */
static void check_bounds(const struct pma_regions_result *g, const struct pma_region_row *w)
{
	assert_true(w->have_A);
	assert_int_equal(w->npred, NCORES);
	assert_ptr_equal(g->cores, cores);
	for (size_t i = 0; i < w->npred; i++) {
		const struct pma_region_pred *q = &w->pred[i];
		double n = cores[i];
		assert_int_equal(q->cores, cores[i]);
		assert_true(q->S <= (n < w->A ? n : w->A));
		assert_true(q->T_ns >= w->T_cp_ns && q->T_ns >= w->work_ns / n);
		assert_true(q->gain_ns >= 0);
		assert_double_equal(q->gain_ns, q->T_ns - w->work_ns / n, 1);
	}
}

/* The result's one row for run 0 of t (phases: the phase fallback), its predictions at cores[]
 * checked against issue 19's bounds. */
static const struct pma_region_row *one_row(struct pma_trace *t, int phases,
					    struct pma_regions_result *g)
{
	char why[256];

	assert_int_equal(pma_regions_compute(t, &t->runs[0], 2, cores, NCORES, phases, NULL, g, why,
					     sizeof(why)), 0);
	assert_int_equal(g->phases, phases);
	assert_int_equal(g->nrows, 1);
	assert_int_equal(g->pred_left_out, 0);
	check_bounds(g, &g->rows[0]);
	return &g->rows[0];
}

/* The phase fallback on the perfectly parallel run: one phase over the 100 ms, A = 2, T_cp = 100
 * ms, U = 200 ms: S(1) = 1, S(2) = 2, S(4) = 2; T(1) = U, T(2) = T(4) = T_cp. */
static void test_parallel_phase(void **state)
{
	struct pma_trace *t = sampled_run(100);
	struct pma_regions_result g;
	const struct pma_region_row *w;

	(void)state;
	w = one_row(t, 1, &g);
	assert_rel(w->A, 2.0, REL);
	assert_rel(w->T_cp_ns, 100 * MS_D, REL);
	assert_rel(w->work_ns, 200 * MS_D, REL);
	assert_rel(w->pred[0].S, 1.0, REL);
	assert_rel(w->pred[1].S, 2.0, REL);
	assert_rel(w->pred[2].S, 2.0, REL);
	assert_rel(w->pred[0].T_ns, 200 * MS_D, REL);
	assert_rel(w->pred[1].T_ns, 100 * MS_D, REL);
	assert_rel(w->pred[2].T_ns, w->T_cp_ns, REL);
	assert_double_equal(w->pred[1].gain_ns, 0.0, 1e-6 * MS_D);
	assert_rel(w->pred[2].gain_ns, 50 * MS_D, REL); /* T(4) - U/4 = 100 - 50 ms */
	/* the single prediction at n = 2 is the pred row of n = 2 */
	assert_rel(w->T_n_ns, w->pred[1].T_ns, REL);
	assert_rel(w->S_n, w->pred[1].S, REL);
	pma_regions_free(&g);
	free_run(t);
}

/* An OpenMP region over [20, 80) ms of the perfectly parallel run: its window alone, T_cp = 60 ms,
 * U = 120 ms, S(1) = 1, S(2) = S(4) = 2, T(4) = T_cp. */
static void test_parallel_region(void **state)
{
	struct pma_trace *t = sampled_run(100);
	struct pma_regions_result g;
	const struct pma_region_row *w;

	(void)state;
	add_region(t, 20, 80);
	w = one_row(t, 0, &g);
	assert_rel(w->T_cp_ns, 60 * MS_D, REL);
	assert_rel(w->work_ns, 120 * MS_D, REL);
	assert_rel(w->pred[0].S, 1.0, REL);
	assert_rel(w->pred[1].S, 2.0, REL);
	assert_rel(w->pred[2].S, 2.0, REL);
	assert_rel(w->pred[0].T_ns, 120 * MS_D, REL);
	assert_rel(w->pred[2].T_ns, 60 * MS_D, REL);
	pma_regions_free(&g);
	free_run(t);
}

/* A region over the whole imbalanced run (2 threads for 50 ms, then 1 for 50 ms): U = 150 ms,
 * T_cp = 100 ms, A = 1.5; S(1) = 1, S(2) = S(4) = 1.5 (capped by A, not by n); T(1) = 150 ms,
 * T(2) = T(4) = 100 ms. */
static void test_imbalanced_region(void **state)
{
	struct pma_trace *t = sampled_run(50);
	struct pma_regions_result g;
	const struct pma_region_row *w;

	(void)state;
	add_region(t, 0, 100);
	w = one_row(t, 0, &g);
	assert_rel(w->A, 1.5, REL);
	assert_rel(w->pred[0].S, 1.0, REL);
	assert_rel(w->pred[1].S, 1.5, REL);
	assert_rel(w->pred[2].S, 1.5, REL);
	assert_rel(w->pred[0].T_ns, 150 * MS_D, REL);
	assert_rel(w->pred[1].T_ns, 100 * MS_D, REL);
	assert_rel(w->pred[2].T_ns, 100 * MS_D, REL);
	pma_regions_free(&g);
	free_run(t);
}

/* No core list: no pred arrays (the single prediction at n stays). */
static void test_no_cores(void **state)
{
	struct pma_trace *t = sampled_run(100);
	struct pma_regions_result g;
	char why[256];

	(void)state;
	assert_int_equal(pma_regions_compute(t, &t->runs[0], 4, NULL, 0, 1, NULL, &g, why,
					     sizeof(why)), 0);
	assert_int_equal(g.nrows, 1);
	assert_null(g.rows[0].pred);
	assert_int_equal(g.rows[0].npred, 0);
	assert_rel(g.rows[0].S_n, 2.0, REL);
	pma_regions_free(&g);
	pma_regions_free(NULL);
	free_run(t);
}

/* A region inside an interval where no thread ran (both sleep after 50 ms; the region is [60, 80)
 * ms): no CPU time inside its window, so its A is unknown (have_A 0, with the samples' reason),
 * not A = 0; the run as a whole keeps its A. */
static void test_region_without_cpu(void **state)
{
	struct pma_trace *t = sampled_run2(50, 50);
	struct pma_regions_result g;
	char why[256];

	(void)state;
	add_region(t, 60, 80);
	assert_int_equal(pma_regions_compute(t, &t->runs[0], 2, cores, NCORES, 0, NULL, &g, why,
					     sizeof(why)), 0);
	assert_true(g.have_A);
	assert_string_equal(g.method, "samples");
	assert_int_equal(g.nrows, 1);
	assert_false(g.rows[0].have_A);
	assert_non_null(g.rows[0].A_why);
	assert_non_null(strstr(g.rows[0].A_why, "no sampled interval"));
	assert_null(g.rows[0].pred);
	assert_rel(g.run_work_ns, 100 * MS_D, REL);
	pma_regions_free(&g);
	free_run(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parallel_phase),
		cmocka_unit_test(test_parallel_region),
		cmocka_unit_test(test_imbalanced_region),
		cmocka_unit_test(test_no_cores),
		cmocka_unit_test(test_region_without_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
