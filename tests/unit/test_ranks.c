/* SPDX-License-Identifier: MIT */
/* test_ranks.c: the merge of a job's rank traces (analyzer/result/ranks.c) and the parsing of META "job"
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

#include "compute.h"
#include "testlib.h"
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
	assert_int_equal(pma_ranks_merge(rows, 4, 0, NULL, &r, why, sizeof(why)), 0);
	for (long i = 0; i < 4; i++)
		assert_int_equal(r.rows[i].rank, i);
	assert_string_equal(r.job, "42");
	assert_int_equal(r.size, 4);
	assert_int_equal(r.nhosts, 2);
	assert_int_equal(r.nmissing, 0);
	assert_int_equal(r.nincomplete, 0);
	assert_double_equal(r.imbalance, 1.6, 1e-12);
	assert_int_equal(r.slowest.rank, 3);
	assert_int_equal(r.ncritical, 1);
	assert_int_equal(r.critical[0].rank, 3);
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
	assert_int_equal(r.T_max[2].rank, 3);
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
	assert_int_equal(pma_ranks_merge(rows, 4, 0, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.nincomplete, 1);
	assert_int_equal(r.busy_s.n, 3);
	assert_double_equal(r.imbalance, 2 / (4.95 / 3), 1e-12);
	assert_int_equal(r.slowest.rank, 1);
	assert_int_equal(r.ncritical, 2);
	assert_int_equal(r.critical[0].rank, 1);
	assert_int_equal(r.critical[1].rank, 2);
	assert_int_equal(r.nmissing, 2);
	assert_int_equal(r.missing[0].rank, 3);
	assert_int_equal(r.missing[1].rank, 5);
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
	assert_int_equal(pma_ranks_merge(rows, 2, 0, NULL, &r, why, sizeof(why)), PMA_RANKS_E_MIXED);
	assert_non_null(strstr(why, "traces of two jobs"));
	pma_ranks_free(&r);
	rows = calloc(2, sizeof(*rows));
	row(&rows[0], 0, "1", 2, "h", 1, 1, NAN);
	row(&rows[1], 1, "2", 2, "h", 1, 1, NAN);
	assert_int_equal(pma_ranks_merge(rows, 2, 1, NULL, &r, why, sizeof(why)), 0);
	pma_ranks_free(&r);
	/* the same rank twice: refused even with force */
	rows = calloc(2, sizeof(*rows));
	row(&rows[0], 1, "1", 2, "h", 1, 1, NAN);
	row(&rows[1], 1, "1", 2, "h", 1, 1, NAN);
	assert_int_equal(pma_ranks_merge(rows, 2, 1, NULL, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
	assert_non_null(strstr(why, "both claim rank 1"));
	pma_ranks_free(&r);
	/* a rank beyond the size */
	rows = calloc(1, sizeof(*rows));
	row(&rows[0], 5, "1", 2, "h", 1, 1, NAN);
	assert_int_equal(pma_ranks_merge(rows, 1, 0, NULL, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
	pma_ranks_free(&r);
	/* nothing */
	assert_int_equal(pma_ranks_merge(NULL, 0, 0, NULL, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
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
	assert_int_equal(pma_ranks_merge(rows, 3, 0, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.rows[0].ranks_per_socket, 2);
	assert_int_equal(r.rows[2].ranks_per_socket, 1);
	assert_int_equal(r.omega_shared, 2);
	/* n = 2: rank 1 (host a) 2 s / 2 (1 + omega(4)) = 1.3 s; rank 2 (host b) 3 s / 2 (1 + omega(2))
	 * = 1.65 s, the max; the sum 0.65 + 1.3 + 1.65 */
	assert_double_equal(r.T_max_ns[1], 1.65e9, 1);
	assert_int_equal(r.T_max[1].rank, 2);
	assert_double_equal(r.T_sum_ns[1], 3.6e9, 1);
	/* n = 3: 2n = 6 is beyond the predicted counts: each rank's own T(n) */
	assert_double_equal(r.T_sum_ns[2], (1 + 2 + 3) * 1e9 / 3 * 1.2, 1);
	pma_ranks_free(&r);
}

/* Ranks 0 and 1 of job 9 and of job 10 (of 3 each), out of order; rank 0 of job 10 busiest. */
static struct pma_rank_row *two_jobs(void)
{
	struct pma_rank_row *rows = calloc(4, sizeof(*rows));

	row(&rows[0], 1, "10", 3, "h", 2, 2, NAN);
	row(&rows[1], 0, "9", 3, "h", 1, 2, NAN);
	row(&rows[2], 0, "10", 3, "h", 4, 2, NAN);
	row(&rows[3], 1, "9", 3, "h", 1, 2, NAN);
	return rows;
}

/* --force merges two jobs whose ranks overlap (each has ranks 0 and 1 of 3): rows grouped and
 * sorted by (job, rank), job "9" before "10", each job's missing rank 2 named with its job; the
 * same rank twice within one job is still refused. Before the fix both jobs' rank 0 "both claim
 * rank 0". */
static void test_force_overlapping_jobs(void **state)
{
	struct pma_rank_row *rows;
	struct pma_ranks_result r;
	char why[256];

	(void)state;
	assert_int_equal(pma_ranks_merge(two_jobs(), 4, 0, NULL, &r, why, sizeof(why)), PMA_RANKS_E_MIXED);
	pma_ranks_free(&r);
	rows = two_jobs();
	assert_int_equal(pma_ranks_merge(rows, 4, 1, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.njobs, 2);
	assert_null(r.job);
	assert_int_equal(r.size, 6);
	assert_string_equal(r.rows[0].job, "9");
	assert_int_equal(r.rows[0].rank, 0);
	assert_string_equal(r.rows[1].job, "9");
	assert_int_equal(r.rows[1].rank, 1);
	assert_string_equal(r.rows[2].job, "10");
	assert_int_equal(r.rows[2].rank, 0);
	assert_string_equal(r.jobs[1].job, "10");
	assert_int_equal(r.jobs[1].first, 2);
	assert_int_equal(r.jobs[1].n, 2);
	assert_int_equal(r.nmissing, 2);
	assert_string_equal(r.missing[0].job, "9");
	assert_int_equal(r.missing[0].rank, 2);
	assert_string_equal(r.missing[1].job, "10");
	assert_int_equal(r.missing[1].rank, 2);
	/* busy 1, 1, 4, 2: the slowest is rank 0 of job 10, alone on the critical path */
	assert_double_equal(r.imbalance, 4 / 2.0, 1e-12);
	assert_string_equal(r.slowest.job, "10");
	assert_int_equal(r.slowest.rank, 0);
	assert_int_equal(r.ncritical, 1);
	assert_string_equal(r.T_max[0].job, "10");
	pma_ranks_free(&r);
	/* one job's rank twice: refused with force, naming the job */
	rows = calloc(3, sizeof(*rows));
	row(&rows[0], 0, "9", 3, "h", 1, 2, NAN);
	row(&rows[1], 0, "10", 3, "h", 1, 2, NAN);
	row(&rows[2], 0, "9", 3, "h", 1, 2, NAN);
	assert_int_equal(pma_ranks_merge(rows, 3, 1, NULL, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
	assert_non_null(strstr(why, "both claim rank 0 of job 9"));
	pma_ranks_free(&r);
}

static void on_packages(struct pma_rank_row *w, uint32_t a, int two)
{
	w->packages = 2;
	w->non_packages = two ? 2 : 1;
	w->on_packages = malloc(2 * sizeof(uint32_t));
	w->on_packages[0] = a;
	w->on_packages[1] = 1;
}

/* Ranks per socket from each rank's recorded packages (META affinity.packages): on a 2-socket
 * host, three ranks bound to package 0 and one to package 1 share as 3 and 1 (the host-wide
 * estimate, 4 ranks / 2 sockets, gave 2 to all); a fifth, unbound rank (packages 0 and 1)
 * counts half on each: package 0 then holds 3.5 ranks (4), package 1 1.5 (2), and the unbound
 * rank takes its most loaded package's 4. A rank of another job on that host is not counted. */
static void test_ranks_per_package(void **state)
{
	struct pma_rank_row *rows = calloc(5, sizeof(*rows));
	struct pma_ranks_result r;
	char why[256];

	(void)state;
	for (int i = 0; i < 4; i++) {
		row(&rows[i], i, "3", 5, "a", 1, 2, NAN);
		on_packages(&rows[i], i < 3 ? 0 : 1, 0);
	}
	assert_int_equal(pma_ranks_merge(rows, 4, 0, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.rows[0].ranks_per_socket, 3);
	assert_int_equal(r.rows[2].ranks_per_socket, 3);
	assert_int_equal(r.rows[3].ranks_per_socket, 1);
	pma_ranks_free(&r);
	rows = calloc(6, sizeof(*rows));
	for (int i = 0; i < 5; i++) {
		row(&rows[i], i, "3", 5, "a", 1, 2, NAN);
		on_packages(&rows[i], i < 3 ? 0 : 1, i == 4);
		if (i == 4)
			rows[i].on_packages[0] = 0;
	}
	row(&rows[5], 0, "4", 1, "a", 1, 2, NAN);
	on_packages(&rows[5], 0, 0);
	assert_int_equal(pma_ranks_merge(rows, 6, 1, NULL, &r, why, sizeof(why)), 0);
	assert_string_equal(r.rows[0].job, "3");
	assert_int_equal(r.rows[0].ranks_per_socket, 4);
	assert_int_equal(r.rows[3].ranks_per_socket, 2);
	assert_int_equal(r.rows[4].ranks_per_socket, 4);
	assert_int_equal(r.rows[5].ranks_per_socket, 1);
	pma_ranks_free(&r);
}

/* META "affinity.packages" into the typed model: a list of OS indexes; anything else absent. */
static void test_parse_affinity_packages(void **state)
{
	static const char good[] = "{\"affinity\":{\"cpus\":\"0-3,8-11\",\"packages\":[0,1],"
				   "\"numa_nodes\":[0,1]}}";
	static const char bad[] = "{\"affinity\":{\"cpus\":\"0\",\"packages\":[0,\"x\"]}}";
	static const char none[] = "{\"affinity\":{\"cpus\":\"0\",\"packages\":[]}}";
	struct pma_meta m;

	(void)state;
	assert_int_equal(pma_meta_parse(good, &m), 0);
	assert_int_equal(m.naffinity_packages, 2);
	assert_int_equal(m.affinity_packages[0], 0);
	assert_int_equal(m.affinity_packages[1], 1);
	pma_meta_free(&m);
	assert_int_equal(pma_meta_parse(bad, &m), 0);
	assert_int_equal(m.naffinity_packages, 0);
	assert_null(m.affinity_packages);
	pma_meta_free(&m);
	assert_int_equal(pma_meta_parse(none, &m), 0);
	assert_int_equal(m.naffinity_packages, 0);
	pma_meta_free(&m);
}

/* The notes on omega: three multithreaded ranks without it, two of them with failed calibration
 * runs (2 and 1 runs), name the first failure and how to calibrate; ranks given omega by a
 * --calibration trace say so (one of them replacing its own). */
static void test_omega_notes(void **state)
{
	struct pma_rank_row *rows = calloc(3, sizeof(*rows));
	struct pma_ranks_result r;
	const struct pma_note *nt;
	char why[256], *text;

	(void)state;
	for (int i = 0; i < 3; i++)
		row(&rows[i], i, "8", 3, "h", 1, 2, NAN);
	rows[1].cal_failed = 2;
	rows[1].cal_failed_what = strdup("run 1: exited 1");
	rows[2].cal_failed = 1;
	rows[2].cal_failed_what = strdup("run 2: exited 1");
	assert_int_equal(pma_ranks_merge(rows, 3, 0, NULL, &r, why, sizeof(why)), 0);
	nt = pma_notes_find(&r.notes, PMA_NOTE_RANKS_OMEGA_UNKNOWN);
	assert_non_null(nt);
	assert_double_equal(nt->arg.ranks_omega_unknown.ranks, 3, 0);
	assert_double_equal(nt->arg.ranks_omega_unknown.failed_ranks, 2, 0);
	assert_double_equal(nt->arg.ranks_omega_unknown.failed_runs, 3, 0);
	assert_string_equal(nt->arg.ranks_omega_unknown.trace, "pm/trace.1.zst");
	assert_string_equal(nt->arg.ranks_omega_unknown.failure, "run 1: exited 1");
	text = pma_note_alloc(nt);
	assert_non_null(strstr(text, "in 'pm/trace.1.zst' run 1: exited 1"));
	assert_non_null(strstr(text, "pmanalyze --calibration cal.zst"));
	free(text);
	assert_null(pma_notes_find(&r.notes, PMA_NOTE_RANKS_CAL_FILE));
	pma_ranks_free(&r);
	rows = calloc(2, sizeof(*rows));
	for (int i = 0; i < 2; i++) {
		row(&rows[i], i, "8", 2, "h", 1, 2, NAN);
		rows[i].omega_source = "calibration";
		rows[i].omega = 0.1;
		rows[i].cal_m = 2;
	}
	rows[1].cal_replaced = 1;
	assert_int_equal(pma_ranks_merge(rows, 2, 0, "cal.zst", &r, why, sizeof(why)), 0);
	assert_null(pma_notes_find(&r.notes, PMA_NOTE_RANKS_OMEGA_UNKNOWN));
	nt = pma_notes_find(&r.notes, PMA_NOTE_RANKS_CAL_FILE);
	assert_non_null(nt);
	assert_double_equal(nt->arg.ranks_cal_file.ranks, 2, 0);
	assert_double_equal(nt->arg.ranks_cal_file.replaced, 1, 0);
	assert_string_equal(nt->arg.ranks_cal_file.trace, "cal.zst");
	pma_ranks_free(&r);
}

/* The merge builds a result of kind PMA_RESULT_JOB (issue 27): its body is the merged job, its
 * header names no trace, and pma_result_free frees the rows by the kind (the sanitizer build
 * sees a leak or a free of the wrong member); on an error the kind is set too, so the caller's
 * one pma_result_free frees the rows it handed over. */
static void test_job_result_is_tagged(void **state)
{
	struct pma_rank_row *rows = calloc(2, sizeof(*rows));
	struct pma_result r;
	char why[256];

	(void)state;
	row(&rows[0], 1, "7", 2, "n0", 2, 2, 10.0);
	row(&rows[1], 0, "7", 2, "n0", 1, 2, 10.0);
	memset(&r, 0xa5, sizeof(r));
	assert_int_equal(pma_ranks_job_result(rows, 2, 0, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.kind, PMA_RESULT_JOB);
	assert_null(r.t);
	assert_int_equal(r.ntraces, 0);
	assert_int_equal(r.job.n, 2);
	assert_int_equal(r.job.rows[0].rank, 0);
	assert_string_equal(r.job.job, "7");
	assert_double_equal(r.job.imbalance, 2.0 / 1.5, 1e-12);
	assert_null(pma_result_profile(&r));
	pma_result_free(&r);
	assert_int_equal(r.kind, PMA_RESULT_RUN);
	assert_int_equal(r.job.n, 0);

	rows = calloc(2, sizeof(*rows));
	row(&rows[0], 0, "7", 2, "n0", 1, 2, 10.0);
	row(&rows[1], 0, "7", 2, "n0", 1, 2, 10.0);
	assert_int_equal(pma_ranks_job_result(rows, 2, 0, NULL, &r, why, sizeof(why)), PMA_RANKS_E_BAD);
	assert_int_equal(r.kind, PMA_RESULT_JOB);
	pma_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_imbalance_by_construction),
		cmocka_unit_test(test_incomplete_missing_critical),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_parse_job_and_clocks),
		cmocka_unit_test(test_omega_ranks_per_socket),
		cmocka_unit_test(test_force_overlapping_jobs),
		cmocka_unit_test(test_ranks_per_package),
		cmocka_unit_test(test_parse_affinity_packages),
		cmocka_unit_test(test_omega_notes),
		cmocka_unit_test(test_job_result_is_tagged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
