/* SPDX-License-Identifier: MIT */
/* test_ranks.c: the merge of a job's rank traces (analyzer/ranks.c) and the parsing of META "job"
 * and the clock pairs (records.c), on rows and JSON texts written here: every expected number is
 * known by construction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert_near.h"
#include "ranks.h"
#include "records.h"

static const uint32_t cores[3] = { 1, 2, 4 };

/* A complete, analyzed rank: busy time b s, A a, T(n) = b / min(n, a) s, starting at start_s on
 * the realtime axis. */
static void row(struct pma_rank_row *w, long rank, const char *job, long size, const char *host,
		double b, double a, double start_s)
{
	char path[64];

	memset(w, 0, sizeof(*w));
	snprintf(path, sizeof(path), "pm/trace.%ld.zst", rank);
	w->path = strdup(path);
	w->rank = rank;
	w->local_rank = rank % 2;
	w->size = size;
	w->job = job ? strdup(job) : NULL;
	w->host = strdup(host);
	w->complete = w->analyzed = 1;
	w->estimator = "runnable";
	w->m = 2;
	w->A_inf = a;
	w->busy_s = b;
	w->T_cp_s = b / a;
	w->wall_s = b / a + 0.5;
	w->begin_realtime_s = start_s;
	w->drift_ppm = NAN;
	w->ncores = 3;
	w->cores = malloc(sizeof(cores));
	w->T_ns = malloc(3 * sizeof(double));
	memcpy(w->cores, cores, sizeof(cores));
	for (int i = 0; i < 3; i++)
		w->T_ns[i] = b / fmin(cores[i], a) * 1e9;
}

/* Four ranks of job 42, given out of order, rank r busy (r+1) s: imbalance 4 / 2.5 = 1.6. */
static void test_imbalance_by_construction(void **state)
{
	struct pma_rank_row *rows = calloc(4, sizeof(*rows));
	struct pma_ranks_result r;
	char why[256];

	(void)state;
	row(&rows[0], 2, "42", 4, "n1", 3, 2, 100.25);
	row(&rows[1], 0, "42", 4, "n0", 1, 2, 100.0);
	row(&rows[2], 3, "42", 4, "n1", 4, 2, 100.5);
	row(&rows[3], 1, "42", 4, "n0", 2, 2, 100.125);
	rows[2].drift_ppm = -3;
	rows[0].drift_ppm = 2;
	assert_int_equal(pma_ranks_merge(rows, 4, 0, &r, why, sizeof(why)), 0);
	for (long i = 0; i < 4; i++)
		assert_int_equal(r.rows[i].rank, i);
	assert_string_equal(r.job, "42");
	assert_int_equal(r.size, 4);
	assert_int_equal(r.nhosts, 2);
	assert_int_equal(r.nmissing, 0);
	assert_int_equal(r.nincomplete, 0);
	assert_double_equal(r.imbalance, 1.6, 1e-12);
	assert_int_equal(r.slowest_rank, 3);
	assert_int_equal(r.ncritical, 1);
	assert_int_equal(r.critical[0], 3);
	assert_double_equal(r.busy_s.min, 1, 1e-12);
	assert_double_equal(r.busy_s.max, 4, 1e-12);
	assert_double_equal(r.busy_s.avg, 2.5, 1e-12);
	assert_double_equal(r.busy_s.sum, 10, 1e-12);
	assert_double_equal(r.A_inf.avg, 2, 1e-12);
	assert_double_equal(r.T_cp_s.max, 2, 1e-12);
	/* clocks: starts relative to the earliest, spread 0.5 s, largest |drift| 3 ppm */
	assert_double_equal(r.rows[3].start_offset_s, 0.5, 1e-9);
	assert_double_equal(r.rows[1].start_offset_s, 0.125, 1e-9);
	assert_double_equal(r.start_spread_s, 0.5, 1e-9);
	assert_double_equal(r.max_abs_drift_ppm, 3, 1e-12);
	/* T_job(n) = max over ranks = rank 3's 4 s / min(n, 2); the sum 10 s / min(n, 2) */
	assert_int_equal(r.ncores, 3);
	assert_double_equal(r.T_max_ns[0], 4e9, 1);
	assert_double_equal(r.T_max_ns[1], 2e9, 1);
	assert_double_equal(r.T_max_ns[2], 2e9, 1);
	assert_int_equal(r.T_max_rank[2], 3);
	assert_double_equal(r.T_sum_ns[0], 10e9, 1);
	assert_double_equal(r.T_sum_ns[2], 5e9, 1);
	pma_ranks_free(&r);
}

/* An incomplete rank is listed but left out of the summary and the imbalance; a missing rank is
 * named; two ranks within 5% of the slowest are both on the critical path. */
static void test_incomplete_missing_critical(void **state)
{
	struct pma_rank_row *rows = calloc(4, sizeof(*rows));
	struct pma_ranks_result r;
	char why[256];

	(void)state;
	row(&rows[0], 0, "7", 6, "h", 1, 1, NAN);
	row(&rows[1], 1, "7", 6, "h", 2, 1, NAN);
	row(&rows[2], 2, "7", 6, "h", 1.95, 1, NAN);
	row(&rows[3], 4, "7", 6, "h", 100, 1, NAN); /* killed: would dominate if counted */
	rows[3].complete = 0;
	rows[3].problem = strdup("the program was killed by a signal");
	assert_int_equal(pma_ranks_merge(rows, 4, 0, &r, why, sizeof(why)), 0);
	assert_int_equal(r.nincomplete, 1);
	assert_int_equal(r.busy_s.n, 3);
	assert_double_equal(r.imbalance, 2 / (4.95 / 3), 1e-12);
	assert_int_equal(r.slowest_rank, 1);
	assert_int_equal(r.ncritical, 2);
	assert_int_equal(r.critical[0], 1);
	assert_int_equal(r.critical[1], 2);
	assert_int_equal(r.nmissing, 2);
	assert_int_equal(r.missing[0], 3);
	assert_int_equal(r.missing[1], 5);
	assert_true(isnan(r.start_spread_s));
	assert_double_equal(r.T_max_ns[0], 2e9, 1); /* the killed rank's 100 s is not the job's */
	pma_ranks_free(&r);
}

static void test_bad_input(void **state)
{
	struct pma_rank_row *rows = calloc(2, sizeof(*rows));
	struct pma_ranks_result r;
	char why[256];

	(void)state;
	/* two jobs: refused, merged with force */
	row(&rows[0], 0, "1", 2, "h", 1, 1, NAN);
	row(&rows[1], 1, "2", 2, "h", 1, 1, NAN);
	assert_int_equal(pma_ranks_merge(rows, 2, 0, &r, why, sizeof(why)), PMA_RANKS_E_MIXED);
	assert_non_null(strstr(why, "traces of two jobs"));
	pma_ranks_free(&r);
	rows = calloc(2, sizeof(*rows));
	row(&rows[0], 0, "1", 2, "h", 1, 1, NAN);
	row(&rows[1], 1, "2", 2, "h", 1, 1, NAN);
	assert_int_equal(pma_ranks_merge(rows, 2, 1, &r, why, sizeof(why)), 0);
	pma_ranks_free(&r);
	/* the same rank twice: refused even with force */
	rows = calloc(2, sizeof(*rows));
	row(&rows[0], 1, "1", 2, "h", 1, 1, NAN);
	row(&rows[1], 1, "1", 2, "h", 1, 1, NAN);
	assert_int_equal(pma_ranks_merge(rows, 2, 1, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
	assert_non_null(strstr(why, "both claim rank 1"));
	pma_ranks_free(&r);
	/* a rank beyond the size */
	rows = calloc(1, sizeof(*rows));
	row(&rows[0], 5, "1", 2, "h", 1, 1, NAN);
	assert_int_equal(pma_ranks_merge(rows, 1, 0, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
	pma_ranks_free(&r);
	/* nothing */
	assert_int_equal(pma_ranks_merge(NULL, 0, 0, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
	pma_ranks_free(&r);
}

/* META "job", "clocks" and RUN_END "clocks" into the typed model. */
static void test_parse_job_and_clocks(void **state)
{
	static const char meta[] =
		"{\"job\":{\"rank\":3,\"rank_var\":\"SLURM_PROCID\",\"local_rank\":null,\"size\":64,"
		"\"id\":\"1234.0\",\"host\":\"node7\"},\"node_readings\":{\"taken\":false},"
		"\"clocks\":{\"mono_ns\":5e9,\"realtime_s\":1795436263,\"realtime_nsec\":250000000,"
		"\"uncertainty_ns\":20},\"affinity\":{\"cpus\":\"0-3\"}}";
	static const char bad[] = "{\"job\":{\"rank\":-2,\"size\":1.5},\"clocks\":{\"mono_ns\":1}}";
	static const char end[] =
		"{\"clocks\":{\"begin\":{\"mono_ns\":1e9,\"realtime_s\":100,\"realtime_nsec\":0},"
		"\"end\":{\"mono_ns\":3e9,\"realtime_s\":102,\"realtime_nsec\":2000,\"uncertainty_ns\":1}}}";
	struct pma_meta m;
	struct pma_run_info ri;

	(void)state;
	assert_int_equal(pma_meta_parse(meta, &m), 0);
	assert_true(m.job.present);
	assert_int_equal(m.job.rank, 3);
	assert_int_equal(m.job.local_rank, -1);
	assert_int_equal(m.job.size, 64);
	assert_string_equal(m.job.id, "1234.0");
	assert_string_equal(m.job.host, "node7");
	assert_string_equal(m.job.rank_var, "SLURM_PROCID");
	assert_int_equal(m.job.node_readings, 0);
	assert_true(m.clocks.present);
	assert_double_equal(m.clocks.realtime_nsec, 2.5e8, 0);
	assert_string_equal(m.affinity_cpus, "0-3");
	pma_meta_free(&m);
	/* not whole numbers in range: unknown; a pair missing its realtime: absent */
	assert_int_equal(pma_meta_parse(bad, &m), 0);
	assert_int_equal(m.job.rank, -1);
	assert_int_equal(m.job.size, -1);
	assert_false(m.clocks.present);
	assert_int_equal(m.job.node_readings, -1);
	pma_meta_free(&m);
	memset(&ri, 0, sizeof(ri));
	assert_int_equal(pma_run_end_parse(end, &ri), 0);
	assert_true(ri.clk_begin.present && ri.clk_end.present);
	assert_double_equal(ri.clk_end.realtime_nsec, 2000, 0);
	pma_run_info_free(&ri);
}

/* Two calibrated ranks on one single-socket host share its memory system: with omega(n) =
 * 0.1 (n - 1), rank r's T(n) becomes T(n) (1 + omega(2n)) / (1 + omega(n)). A third rank alone on
 * another host keeps its own. */
static void test_omega_ranks_per_socket(void **state)
{
	static const uint32_t c4[4] = { 1, 2, 3, 4 };
	struct pma_rank_row *rows = calloc(3, sizeof(*rows));
	struct pma_ranks_result r;
	char why[256];

	(void)state;
	for (int i = 0; i < 3; i++) {
		row(&rows[i], i, "5", 3, i < 2 ? "a" : "b", 1 + i, 4, NAN);
		rows[i].packages = 1;
		rows[i].ncores = 4;
		rows[i].cores = realloc(rows[i].cores, sizeof(c4));
		rows[i].T_ns = realloc(rows[i].T_ns, 4 * sizeof(double));
		rows[i].omega_n = malloc(4 * sizeof(double));
		memcpy(rows[i].cores, c4, sizeof(c4));
		for (int k = 0; k < 4; k++) {
			rows[i].omega_n[k] = 0.1 * k;
			rows[i].T_ns[k] = (1 + i) * 1e9 / (k + 1) * (1 + rows[i].omega_n[k]);
		}
	}
	assert_int_equal(pma_ranks_merge(rows, 3, 0, &r, why, sizeof(why)), 0);
	assert_int_equal(r.rows[0].ranks_per_socket, 2);
	assert_int_equal(r.rows[2].ranks_per_socket, 1);
	assert_int_equal(r.omega_shared, 2);
	/* n = 2: rank 1 (host a) 2 s / 2 (1 + omega(4)) = 1.3 s; rank 2 (host b) 3 s / 2 (1 + omega(2))
	 * = 1.65 s, the max; the sum 0.65 + 1.3 + 1.65 */
	assert_double_equal(r.T_max_ns[1], 1.65e9, 1);
	assert_int_equal(r.T_max_rank[1], 2);
	assert_double_equal(r.T_sum_ns[1], 3.6e9, 1);
	/* n = 3: 2n = 6 is beyond the predicted counts: each rank's own T(n) */
	assert_double_equal(r.T_sum_ns[2], (1 + 2 + 3) * 1e9 / 3 * 1.2, 1);
	pma_ranks_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_imbalance_by_construction),
		cmocka_unit_test(test_incomplete_missing_critical),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_parse_job_and_clocks),
		cmocka_unit_test(test_omega_ranks_per_socket),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
