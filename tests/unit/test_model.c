/* SPDX-License-Identifier: MIT */
/* test_model.c: the speedup model (eq. 1-6) on hand-computed profiles, and both estimators on
 * synthetic run-queue samples from a known schedule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "estimate.h"
#include "model.h"
#include "testlib.h"

#define MS 1000000.0


static void predict(const struct pma_profile *p, uint32_t n, const double *omega,
		    struct pma_prediction *out)
{
	assert_int_equal(pma_profile_predict(p, &n, 1, omega, out), 0);
}

/* Balanced: 8 threads busy for 5 x 100 ms. A(m,inf) = 8, T_cp = 500 ms, T(1) = 4 s. */
static void test_balanced(void **state)
{
	struct pma_profile p;
	struct pma_parallelism par;
	struct pma_prediction q;

	(void)state;
	pma_profile_init(&p);
	for (int i = 0; i < 5; i++)
		assert_int_equal(pma_profile_add(&p, 8, 100 * MS), 0);
	pma_profile_parallelism(&p, 8, &par);
	assert_double_equal(par.A_inf, 8, 1e-12);
	assert_double_equal(par.T_cp_ns, 500 * MS, 1e-3);
	assert_double_equal(par.D, 0, 1e-12);
	predict(&p, 1, NULL, &q);
	assert_double_equal(q.A, 1, 1e-12);
	assert_double_equal(q.T_ns, 4000 * MS, 1e-3);
	predict(&p, 4, NULL, &q);
	assert_double_equal(q.A, 4, 1e-12);
	assert_double_equal(q.S, 4, 1e-12);
	assert_double_equal(q.T_ns, 1000 * MS, 1e-3);
	predict(&p, 16, NULL, &q); /* n above A: capped at A(m,inf) */
	assert_double_equal(q.A, 8, 1e-12);
	pma_profile_free(&p);
}

/* Serial 100 ms, then 8 threads for 100 ms: U = 900 ms, T_cp = 200 ms, A = 4.5, D(8) = 3.5.
 * On 2 cores: 100 + 800/2 = 500 ms, A(8,2) = 900/500 = 1.8 (eq. 6). */
static void test_serial_parallel(void **state)
{
	struct pma_profile p;
	struct pma_parallelism par;
	struct pma_prediction q;

	(void)state;
	pma_profile_init(&p);
	pma_profile_add(&p, 1, 100 * MS);
	pma_profile_add(&p, 8, 100 * MS);
	pma_profile_parallelism(&p, 8, &par);
	assert_double_equal(par.A_inf, 4.5, 1e-12);
	assert_double_equal(par.D, 3.5, 1e-12);
	predict(&p, 2, NULL, &q);
	assert_double_equal(q.A, 1.8, 1e-12);
	assert_double_equal(q.T_ns, 500 * MS, 1e-3);
	predict(&p, 8, NULL, &q);
	assert_double_equal(q.A, 4.5, 1e-12);
	pma_profile_free(&p);
}

/* Imbalanced: thread j of 4 works (j+1) x 10 ms after a common start: 4, 3, 2, 1 active threads
 * for 10 ms each. U = 100 ms, T_cp = 40 ms, A = 2.5. On 2 cores: 20 + 15 + 10 + 10 = 55 ms. */
static void test_imbalanced(void **state)
{
	struct pma_profile p;
	struct pma_parallelism par;
	struct pma_prediction q;

	(void)state;
	pma_profile_init(&p);
	for (int a = 4; a >= 1; a--)
		pma_profile_add(&p, a, 10 * MS);
	pma_profile_parallelism(&p, 4, &par);
	assert_double_equal(par.A_inf, 2.5, 1e-12);
	assert_double_equal(par.T_cp_ns, 40 * MS, 1e-3);
	predict(&p, 2, NULL, &q);
	assert_double_equal(q.T_ns, 55 * MS, 1e-3);
	assert_double_equal(q.A, 100.0 / 55.0, 1e-12);
	predict(&p, 3, NULL, &q);
	assert_double_equal(q.T_ns, (40.0 / 3 + 10 + 10 + 10) * MS, 1e-3);
	/* concurrency histogram: 10 ms at each level 1..4 */
	for (size_t k = 1; k <= 4; k++)
		assert_double_equal(pma_profile_level_ns(&p, k), 10 * MS, 1e-3);
	pma_profile_free(&p);
}

/* Fractional A and idle time: a piece of A = 2.5 for 10 ms takes 12.5 ms on 2 cores and 10 ms on
 * 3; idle time is not critical path but stays in T(n). */
static void test_fractional_and_idle(void **state)
{
	struct pma_profile p;
	struct pma_prediction q;
	struct pma_parallelism par;

	(void)state;
	pma_profile_init(&p);
	pma_profile_add(&p, 2.5, 10 * MS);
	pma_profile_add(&p, 0, 7 * MS);
	pma_profile_parallelism(&p, 4, &par);
	assert_double_equal(par.T_cp_ns, 10 * MS, 1e-3);
	assert_double_equal(p.idle_ns, 7 * MS, 1e-3);
	predict(&p, 2, NULL, &q);
	assert_double_equal(q.T_ns, 19.5 * MS, 1e-3);
	predict(&p, 3, NULL, &q);
	assert_double_equal(q.T_ns, 17 * MS, 1e-3);
	assert_int_equal(pma_profile_add(&p, 2e6, 1), -1); /* implausible parallelism refused */
	pma_profile_free(&p);
}

/* eq. 1 and eq. 3 with memory contention, and the omega > -1 guard. */
static void test_omega(void **state)
{
	struct pma_profile p;
	struct pma_prediction q;
	double w = 0.5, bad = -1;
	uint32_t n = 4;

	(void)state;
	assert_double_equal(pma_speedup(4, 1), 2, 1e-12);
	assert_double_equal(pma_speedup_loss(4, 1), 2, 1e-12);
	pma_profile_init(&p);
	pma_profile_add(&p, 8, 100 * MS);
	predict(&p, 4, &w, &q);
	assert_double_equal(q.S, 4 / 1.5, 1e-12);
	assert_double_equal(q.R, 4 - 4 / 1.5, 1e-12);
	assert_double_equal(q.T_ns, 800 * MS * 1.5 / 4, 1e-3);
	assert_int_equal(pma_profile_predict(&p, &n, 1, &bad, &q), -1);
	pma_profile_free(&p);
}

/* ---- estimators on synthetic schedules ---- */

#define MAXT 16

struct sim {
	int nthreads;
	double work_ns[MAXT];    /* CPU work each thread needs */
	double run_ns[MAXT];     /* received so far */
	double wait_credit_ns[MAXT]; /* run-queue wait as schedstat shows it (credited at run start) */
	double waiting_since_ns[MAXT];
	double t_ns;
};

static void feed_sample(struct pma_est *e, const struct sim *s)
{
	struct pmt_thread_sample ts[MAXT];
	struct pmt_sample smp = { .run_id = 0, .t_ns = (uint64_t)s->t_ns, .threads = ts };

	for (int j = 0; j < s->nthreads; j++) {
		memset(&ts[j], 0, sizeof(ts[j]));
		ts[j].tid = 100 + j;
		ts[j].tgid = 100;
		ts[j].run_ns = (uint64_t)s->run_ns[j];
		ts[j].wait_ns = (uint64_t)s->wait_credit_ns[j];
		ts[j].flags = PMT_TS_SCHEDSTAT_OK;
	}
	smp.n = (uint32_t)s->nthreads;
	assert_int_equal(pma_est_sample(e, &smp), 0);
}

/* One CPU, round robin with the given slice: all threads runnable from t = 0 until their work is
 * done (then they block). Samples every interval_ns. Truth on infinite cores: T_cp = max work,
 * U = sum work. */
static void simulate_rr(struct pma_est *e, struct sim *s, double slice_ns, double interval_ns)
{
	double next_sample = interval_ns;
	int cur = 0, left = s->nthreads;

	pma_est_begin(e, 0);
	for (int j = 0; j < s->nthreads; j++)
		s->waiting_since_ns[j] = 0;
	while (left > 0) {
		double run;
		/* next runnable thread */
		while (s->run_ns[cur] >= s->work_ns[cur])
			cur = (cur + 1) % s->nthreads;
		s->wait_credit_ns[cur] += s->t_ns - s->waiting_since_ns[cur];
		run = s->work_ns[cur] - s->run_ns[cur];
		if (run > slice_ns)
			run = slice_ns;
		/* advance in steps so samples inside the slice see the credited state */
		while (s->t_ns + run >= next_sample) {
			double part = next_sample - s->t_ns;
			s->run_ns[cur] += part;
			run -= part;
			s->t_ns = next_sample;
			feed_sample(e, s);
			next_sample += interval_ns;
		}
		s->run_ns[cur] += run;
		s->t_ns += run;
		s->waiting_since_ns[cur] = s->t_ns;
		if (s->run_ns[cur] >= s->work_ns[cur])
			left--;
		cur = (cur + 1) % s->nthreads;
	}
	s->t_ns = next_sample;
	feed_sample(e, s);
	assert_int_equal(pma_est_finish(e, (uint64_t)s->t_ns), 0);
}

static void check_est(struct pma_est *e, enum pma_estimator_kind k, double A, double T_cp_ns,
		      double tol)
{
	struct pma_parallelism par;

	pma_profile_parallelism(pma_est_profile(e, k), 8, &par);
	if (getenv("TEST_MODEL_VERBOSE"))
		print_message("%s: A %.4f T_cp %.3f ms\n", pma_estimator_name(k), par.A_inf, par.T_cp_ns / MS);
	assert_double_equal(par.A_inf, A, A * tol);
	assert_double_equal(par.T_cp_ns, T_cp_ns, T_cp_ns * tol);
}

/* Fine-grained sharing (0.5 ms slices, 10 ms samples: each thread gets exactly 2.5 ms of each interval): both estimators find A = 4, T_cp = 100 ms. */
static void test_est_fine_slices(void **state)
{
	struct sim s = { .nthreads = 4 };
	struct pma_est *e = pma_est_new();

	(void)state;
	for (int j = 0; j < 4; j++)
		s.work_ns[j] = 100 * MS;
	simulate_rr(e, &s, 0.5 * MS, 10 * MS);
	check_est(e, PMA_EST_PAPER, 4, 100 * MS, 0.02);
	check_est(e, PMA_EST_RUNNABLE, 4, 100 * MS, 0.02);
	pma_est_free(e);
}

/* Slices longer than the interval (30 ms slices, 10 ms samples): in most intervals one thread ran,
 * so the paper's estimator sees A close to 1; the runnable estimator moves the credited wait back
 * and still finds A = 4. */
static void test_est_coarse_slices(void **state)
{
	struct sim s = { .nthreads = 4 };
	struct pma_est *e = pma_est_new();
	struct pma_parallelism par;

	(void)state;
	for (int j = 0; j < 4; j++)
		s.work_ns[j] = 300 * MS;
	simulate_rr(e, &s, 30 * MS, 10 * MS);
	check_est(e, PMA_EST_RUNNABLE, 4, 300 * MS, 0.03);
	pma_profile_parallelism(pma_est_profile(e, PMA_EST_PAPER), 4, &par);
	assert_true(par.A_inf < 1.5);
	pma_est_free(e);
}

/* Imbalanced work 1..4 x 50 ms on one CPU: truth T_cp = 200 ms, U = 500 ms. With 0.1 ms slices
 * both estimators find it; with 2 ms slices only the runnable one does (the paper's sees whole
 * slices per interval: 5 slices over 4 threads look like A = 2). */
static void test_est_imbalanced(void **state)
{
	struct sim s = { .nthreads = 4 };
	struct pma_est *e = pma_est_new();

	(void)state;
	for (int j = 0; j < 4; j++)
		s.work_ns[j] = (j + 1) * 50 * MS;
	simulate_rr(e, &s, 0.1 * MS, 10 * MS);
	check_est(e, PMA_EST_RUNNABLE, 2.5, 200 * MS, 0.03);
	check_est(e, PMA_EST_PAPER, 2.5, 200 * MS, 0.03);
	pma_est_free(e);

	memset(&s, 0, sizeof(s));
	s.nthreads = 4;
	for (int j = 0; j < 4; j++)
		s.work_ns[j] = (j + 1) * 50 * MS;
	e = pma_est_new();
	simulate_rr(e, &s, 2 * MS, 10 * MS);
	check_est(e, PMA_EST_RUNNABLE, 2.5, 200 * MS, 0.03);
	pma_est_free(e);
}

/* The kept intervals (pma_est_series: the phase fallback and regions without scheduler events cut
 * the run in time with them). Imbalanced work 1..4 x 50 ms, round robin on one CPU in 0.1 ms
 * slices, 10 ms samples: 4 threads runnable over [0, 200) ms, 3 over [200, 350), 2 over
 * [350, 450), 1 over [450, 500), none over [500, 510) (the simulation's closing sample); the
 * intervals are contiguous and their CPU time sums to 500 ms. */
static void test_est_series(void **state)
{
	struct sim s = { .nthreads = 4 };
	struct pma_est *e = pma_est_new();
	const struct pma_est_interval *iv;
	double tau = 0;
	uint64_t cut;
	size_t n;

	(void)state;
	for (int j = 0; j < 4; j++)
		s.work_ns[j] = (j + 1) * 50 * MS;
	simulate_rr(e, &s, 0.1 * MS, 10 * MS);
	iv = pma_est_series(e, &n, &cut);
	assert_int_equal(cut, 0);
	assert_int_equal(n, 51);
	for (size_t k = 0; k < n; k++) {
		double mid_ms = (iv[k].t0_ns + iv[k].dT_ns / 2) / MS;
		double q = iv[k].runnable_ns / iv[k].dT_ns;
		double want = mid_ms < 200 ? 4 : mid_ms < 350 ? 3 : mid_ms < 450 ? 2 : mid_ms < 500 ? 1 : 0;
		assert_int_equal(iv[k].t0_ns, k * 10 * MS);
		assert_double_equal(iv[k].dT_ns, 10 * MS, 1);
		assert_double_equal(q, want, 0.1); /* wait credited per 0.1 ms slice */
		tau += iv[k].tau_ns;
	}
	assert_double_equal(tau, 500 * MS, 0.1 * MS);
	pma_est_free(e);
}

/* Exited threads: a TASK EXIT with final values adds the CPU time after the last sample. */
static void test_est_exit_tail(void **state)
{
	struct pma_est *e = pma_est_new();
	struct pmt_thread_sample ts = { .tid = 7, .tgid = 7, .run_ns = 10000000, .flags = PMT_TS_SCHEDSTAT_OK };
	struct pmt_sample s = { .t_ns = 10000000, .n = 1, .threads = &ts };
	struct pmt_task_event ev = { .kind = PMT_TASK_EXIT, .flags = PMT_TASKF_FINAL, .tid = 7,
				     .final_run_ns = 14000000, .final_wait_ns = 1000000 };
	struct pma_est_stats st;
	struct pma_parallelism par;
	const struct pma_est_interval *iv;
	uint64_t cut;
	size_t n;

	(void)state;
	pma_est_begin(e, 0);
	assert_int_equal(pma_est_sample(e, &s), 0);
	assert_int_equal(pma_est_task(e, &ev), 0);
	assert_int_equal(pma_est_finish(e, 15000000), 0);
	pma_est_get_stats(e, &st);
	assert_double_equal(st.exit_tail_ns, 4 * MS, 1);
	assert_double_equal(st.wait_total_ns, 1 * MS, 1);
	pma_profile_parallelism(pma_est_profile(e, PMA_EST_PAPER), 1, &par);
	assert_double_equal(par.work_ns, 14 * MS, 1);
	/* the closing interval [10, 15) ms holds the tail: 4 ms on the CPU and the 1 ms of run-queue
	 * wait the exit's final values add, runnable 5 ms */
	iv = pma_est_series(e, &n, &cut);
	assert_int_equal(n, 2);
	assert_double_equal(iv[1].t0_ns, 10 * MS, 1);
	assert_double_equal(iv[1].tau_ns, 4 * MS, 1);
	assert_double_equal(iv[1].runnable_ns, 5 * MS, 1);
	pma_est_free(e);
}

/* A run counter that goes backwards is another thread under a reused tid: its CPU time counts from
 * zero. Thread 7 has run 10 ms at 10 ms; at 20 ms its tid reads 3 ms: 13 ms of work in all. */
static void test_est_reused_tid(void **state)
{
	static const uint64_t run_ns[] = { 10 * MS, 3 * MS };
	struct pma_est *e = pma_est_new();
	struct pma_parallelism par;

	(void)state;
	pma_est_begin(e, 0);
	for (int i = 0; i < 2; i++) {
		struct pmt_thread_sample ts = { .tid = 7, .run_ns = run_ns[i], .flags = PMT_TS_SCHEDSTAT_OK };
		struct pmt_sample s = { .t_ns = (uint64_t)(i + 1) * 10 * MS, .n = 1, .threads = &ts };
		assert_int_equal(pma_est_sample(e, &s), 0);
	}
	assert_int_equal(pma_est_finish(e, 20 * MS), 0);
	pma_profile_parallelism(pma_est_profile(e, PMA_EST_PAPER), 1, &par);
	assert_double_equal(par.work_ns, 13 * MS, 1);
	pma_est_free(e);
}

/* The blocking rate's counts (status voluntary_ctxt_switches): the summed deltas between a
 * thread's fresh reads, and the thread time they span, which includes reads with no new switch.
 * Thread 1 reads 2, 2, 5 at 10, 20, 30 ms; thread 2 reads 0 at 10 and 30 ms and is not fresh at
 * 20: 3 switches over 20 + 20 = 40 ms of thread time; 5 fresh entries. */
static void test_est_nvcsw_span(void **state)
{
	static const uint32_t nv1[] = { 2, 2, 5 };
	struct pma_est *e = pma_est_new();
	struct pma_est_stats st;

	(void)state;
	pma_est_begin(e, 0);
	for (int i = 0; i < 3; i++) {
		struct pmt_thread_sample ts[2] = {
			{ .tid = 1, .nvcsw = nv1[i], .flags = PMT_TS_STATUS_FRESH },
			{ .tid = 2, .nvcsw = 0, .flags = i == 1 ? 0 : PMT_TS_STATUS_FRESH },
		};
		struct pmt_sample s = { .t_ns = (uint64_t)(i + 1) * 10 * MS, .n = 2, .threads = ts };
		assert_int_equal(pma_est_sample(e, &s), 0);
	}
	assert_int_equal(pma_est_finish(e, 30 * MS), 0);
	pma_est_get_stats(e, &st);
	assert_int_equal(st.status_reads, 5);
	assert_int_equal(st.nvcsw_total, 3);
	assert_double_equal(st.nvcsw_span_ns, 40 * MS, 1);
	pma_est_free(e);
}

/* A sample whose time does not advance is skipped and counted, not divided by. */
static void test_est_time_backwards(void **state)
{
	struct pma_est *e = pma_est_new();
	struct pmt_thread_sample ts = { .tid = 1, .run_ns = 5, .flags = PMT_TS_SCHEDSTAT_OK };
	struct pmt_sample s = { .t_ns = 100, .n = 1, .threads = &ts };
	struct pma_est_stats st;

	(void)state;
	pma_est_begin(e, 100);
	assert_int_equal(pma_est_sample(e, &s), 0);
	assert_int_equal(pma_est_finish(e, 0), 0);
	pma_est_get_stats(e, &st);
	assert_int_equal(st.bad_intervals, 1);
	assert_int_equal(st.intervals, 0);
	pma_est_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced),
		cmocka_unit_test(test_serial_parallel),
		cmocka_unit_test(test_imbalanced),
		cmocka_unit_test(test_fractional_and_idle),
		cmocka_unit_test(test_omega),
		cmocka_unit_test(test_est_fine_slices),
		cmocka_unit_test(test_est_coarse_slices),
		cmocka_unit_test(test_est_imbalanced),
		cmocka_unit_test(test_est_series),
		cmocka_unit_test(test_est_exit_tail),
		cmocka_unit_test(test_est_nvcsw_span),
		cmocka_unit_test(test_est_reused_tid),
		cmocka_unit_test(test_est_time_backwards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
