/* SPDX-License-Identifier: MIT */
/* test_mpitime.c: `pmcollect --mpi` and its analysis (issue 31) on fixtures written here: the
 * PMPI library's per-process file (collector/session/mpitool.c pmc_mpi_parse, pmc_mpi_run_end), the
 * detection of a program that links libmpi, RUN_END "mpi" into per-call totals
 * (analyzer/result/mpitime.c), each rank's computation and the job's imbalance, critical rank, mpiP
 * table and T(n) without MPI time, all known by construction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"
#include "mpitime.h"
#include "mpitool.h"
#include "ranks.h"

/* Two threads of rank 1 of 2: the main thread 2 barriers (3 s wall, 1.5 s CPU: it polled half the
 * time), Init and Finalize; a helper thread one Wait (0.5 s, 0.5 s CPU). */
static const char good[] =
	"pmmpi 1\n"
	"process 4242 1 2\n"
	"span 1000 9000\n"
	"call 4242 MPI_Init 1 200000000 100000000 0\n"
	"call 4242 MPI_Barrier 2 3000000000 1500000000 1\n"
	"call 4242 MPI_Finalize 1 50000000 10000000 0\n"
	"call 4243 MPI_Wait 1 500000000 500000000 0\n"
	"end\n";

static cJSON *parse_ok(const char *text, double *ns, double *cpu_ns)
{
	cJSON *procs = cJSON_CreateArray();
	char why[256] = "";

	assert_non_null(procs);
	assert_int_equal(pmc_mpi_parse(text, strlen(text), procs, ns, cpu_ns, why, sizeof(why)), 0);
	return procs;
}

static void parse_fails(const char *text, size_t len, const char *needle)
{
	cJSON *procs = cJSON_CreateArray();
	double ns = 0, cpu_ns = 0;
	char why[256] = "";

	assert_int_equal(pmc_mpi_parse(text, len, procs, &ns, &cpu_ns, why, sizeof(why)), -1);
	if (!strstr(why, needle))
		fail_msg("why '%s' lacks '%s'", why, needle);
	assert_int_equal(cJSON_GetArraySize(procs), 0);
	assert_true(ns == 0 && cpu_ns == 0);
	cJSON_Delete(procs);
}

static void test_parse_process_file(void **state)
{
	double ns = 0, cpu_ns = 0;
	cJSON *procs = parse_ok(good, &ns, &cpu_ns), *p, *calls, *c;
	(void)state;

	assert_double_equal(ns, 3.75e9, 1);
	assert_double_equal(cpu_ns, 2.11e9, 1);
	assert_int_equal(cJSON_GetArraySize(procs), 1);
	p = cJSON_GetArrayItem(procs, 0);
	assert_double_equal(cJSON_GetObjectItem(p, "pid")->valuedouble, 4242, 0);
	assert_double_equal(cJSON_GetObjectItem(p, "rank")->valuedouble, 1, 0);
	assert_double_equal(cJSON_GetObjectItem(p, "size")->valuedouble, 2, 0);
	assert_double_equal(cJSON_GetObjectItem(p, "finalize_begin_ns")->valuedouble, 9000, 0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(p, "complete")));
	calls = cJSON_GetObjectItem(p, "calls");
	assert_int_equal(cJSON_GetArraySize(calls), 4);
	c = cJSON_GetArrayItem(calls, 1);
	assert_string_equal(cJSON_GetObjectItem(c, "name")->valuestring, "MPI_Barrier");
	assert_double_equal(cJSON_GetObjectItem(c, "count")->valuedouble, 2, 0);
	assert_double_equal(cJSON_GetObjectItem(c, "cpu_ns")->valuedouble, 1.5e9, 0);
	assert_double_equal(cJSON_GetObjectItem(c, "missed")->valuedouble, 1, 0);
	cJSON_Delete(procs);
}

/* A file cut while being written keeps what came before the cut, flagged incomplete. */
static void test_parse_cut_file(void **state)
{
	double ns = 0, cpu_ns = 0;
	size_t cut = (size_t)(strstr(good, "call 4243") - good);
	char *text = strndup(good, cut);
	cJSON *procs;
	(void)state;

	procs = parse_ok(text, &ns, &cpu_ns);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(procs, 0), "complete")));
	assert_double_equal(ns, 3.25e9, 1);
	cJSON_Delete(procs);
	free(text);
}

static void test_parse_rejects(void **state)
{
	static const char nul[] = "pmmpi 1\n\0end\n";
	(void)state;

	parse_fails("", 0, "empty");
	parse_fails(nul, sizeof(nul) - 1, "NUL");
	{
		static const struct {
			const char *text, *needle;
		} bad[] = {
			{ "hello\n", "not a pmmpi file" },
			{ "pmmpi 2\nend\n", "version 2" },
			{ "pmmpi 1\ncall 1 MPI_Barrier x 1 1 0\n", "line 2" },
			{ "pmmpi 1\ncall 1 MPI_Barrier 1 1 1\n", "line 2" },
			{ "pmmpi 1\ncall 1 rm\x1b[2J 1 1 1 0\n", "line 2" },
			{ "pmmpi 1\ncall 1 MPI_Barrier 1 -5 1 0\n", "line 2" },
			{ "pmmpi 1\nend\nprocess 1 0 1\n", "after \"end\"" },
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			parse_fails(bad[i].text, strlen(bad[i].text), bad[i].needle);
	}
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* The program's file names libmpi among other bytes: detected; a file without: not. */
static void test_links_mpi(void **state)
{
	static const char elfish[] = "\x7f" "ELF\0\0libc.so.6\0libmpi.so.40\0libm.so.6";
	static const char plain[] = "\x7f" "ELF\0\0libc.so.6\0libm.so.6";
	char dir[] = "/tmp/test_mpitime.XXXXXX", a[128], b[128];
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/app", dir);
	snprintf(b, sizeof(b), "%s/plain", dir);
	write_file(a, elfish, sizeof(elfish) - 1);
	write_file(b, plain, sizeof(plain) - 1);
	assert_int_equal(pmc_mpi_program_links_mpi(a), 1);
	assert_int_equal(pmc_mpi_program_links_mpi(b), 0);
	assert_int_equal(pmc_mpi_program_links_mpi("/nonexistent/app"), 0);
	assert_int_equal(pmc_mpi_program_links_mpi(NULL), 0);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* The collector's side end to end: the run's directory gets two processes' files (one
 * unreadable as a pmmpi file); RUN_END "mpi" holds the good one, counts the bad one, and the
 * analyzer's parse of that RUN_END sums per call and finds the busiest thread. */
static void test_run_end_round_trip(void **state)
{
	struct pmc_mpi *m;
	struct pma_mpi_info mi;
	char why[256], path[4200];
	const char *dir;
	cJSON *run_end = cJSON_CreateObject(), *j;
	(void)state;

	assert_int_equal(pmc_mpi_open(&m, "/x/libpmmpi.so", (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	assert_int_equal(setenv("LD_PRELOAD", "/y/other.so", 1), 0);
	assert_int_equal(pmc_mpi_child(m), 0);
	assert_string_equal(getenv("LD_PRELOAD"), "/x/libpmmpi.so /y/other.so");
	dir = getenv("PMT_MPI_DIR");
	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/pmmpi.4242", dir);
	write_file(path, good, strlen(good));
	snprintf(path, sizeof(path), "%s/pmmpi.77", dir);
	write_file(path, "garbage\n", 8);
	pmc_mpi_run_end(m, run_end);
	j = cJSON_GetObjectItem(run_end, "mpi");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "recorded")));
	assert_double_equal(cJSON_GetObjectItem(j, "bad_files")->valuedouble, 1, 0);
	assert_double_equal(cJSON_GetObjectItem(j, "ns")->valuedouble, 3.75e9, 1);

	assert_int_equal(pma_mpi_info_parse(j, &mi), 0);
	assert_true(mi.present && mi.recorded);
	assert_int_equal(mi.ncalls, 4);
	assert_double_equal(mi.cpu_ns, 2.11e9, 1);
	assert_double_equal(mi.thread_cpu_ns, 1.61e9, 1); /* the main thread: 0.1 + 1.5 + 0.01 s */
	pma_mpi_info_free(&mi);

	pmc_mpi_close(m);
	assert_int_equal(access(dir, F_OK), -1); /* the directory is gone */
	unsetenv("PMT_MPI_DIR");
	unsetenv("LD_PRELOAD");
	cJSON_Delete(run_end);
}

/* No process left a file: not recorded, with a reason; the analyzer keeps the reason. */
static void test_run_end_nothing(void **state)
{
	struct pmc_mpi *m;
	struct pma_mpi_info mi;
	char why[256];
	cJSON *run_end = cJSON_CreateObject();
	(void)state;

	assert_int_equal(pmc_mpi_open(&m, "/x/libpmmpi.so", (uid_t)-1, (gid_t)-1, why, sizeof(why)), 0);
	pmc_mpi_run_end(m, run_end);
	pmc_mpi_close(m);
	assert_int_equal(pma_mpi_info_parse(cJSON_GetObjectItem(run_end, "mpi"), &mi), 0);
	assert_true(mi.present);
	assert_false(mi.recorded);
	assert_non_null(strstr(mi.reason, "MPI_Init"));
	pma_mpi_info_free(&mi);
	assert_int_equal(pma_mpi_info_parse(NULL, &mi), 0);
	assert_false(mi.present);
	cJSON_Delete(run_end);
}

/* A rank's RUN_END "mpi" with one thread: mpi_ns wall and mpi_cpu_ns CPU inside MPI. */
static void info(struct pma_mpi_info *mi, double mpi_ns, double mpi_cpu_ns)
{
	memset(mi, 0, sizeof(*mi));
	mi->present = mi->recorded = 1;
	mi->ns = mpi_ns;
	mi->cpu_ns = mi->thread_cpu_ns = mpi_cpu_ns;
	mi->ncalls = 1;
	mi->calls = calloc(1, sizeof(*mi->calls));
	snprintf(mi->calls[0].name, sizeof(mi->calls[0].name), "MPI_Allreduce");
	mi->calls[0].count = 10;
	mi->calls[0].ns = mpi_ns;
	mi->calls[0].cpu_ns = mpi_cpu_ns;
}

static const uint32_t cores[2] = { 1, 2 };

/* A complete rank that worked work_s and polled poll_s inside MPI (busy = work + poll, one
 * thread: T_cp = busy), waiting wait_s in MPI in all (wall). */
static void rank_row(struct pma_rank_row *w, long rank, double work_s, double poll_s,
		     double wait_s, int measured)
{
	struct pma_mpi_info mi;

	memset(w, 0, sizeof(*w));
	w->path = strdup("t.zst");
	w->rank = rank;
	w->size = 4;
	w->job = strdup("7");
	w->host = strdup("h");
	w->complete = w->analyzed = 1;
	w->m = 1;
	w->A_inf = 1;
	w->busy_s = work_s + poll_s;
	w->T_cp_s = w->busy_s;
	w->wall_s = work_s + wait_s;
	w->begin_realtime_s = w->drift_ppm = NAN;
	w->ncores = 2;
	w->cores = malloc(sizeof(cores));
	w->T_ns = malloc(2 * sizeof(double));
	memcpy(w->cores, cores, sizeof(cores));
	w->T_ns[0] = w->T_ns[1] = w->busy_s * 1e9;
	info(&mi, wait_s * 1e9, poll_s * 1e9);
	assert_int_equal(pma_mpi_rank_from(measured ? &mi : NULL, w->busy_s, w->T_cp_s, &w->mpi), 0);
	pma_mpi_info_free(&mi);
}

/* Issue 31's 4-rank case: work 1:2:3:4 s, every rank polls until the slowest is done, so every
 * rank's busy time is 4 s (imbalance 1 from busy time) while the computation's is 4 / 2.5 = 1.6. */
static void test_job_1234(void **state)
{
	struct pma_rank_row *rows = calloc(4, sizeof(*rows));
	struct pma_ranks_result r;
	char why[256];
	(void)state;

	for (int i = 0; i < 4; i++)
		rank_row(&rows[i], i, i + 1, 3 - i, 3 - i + 0.5, 1);
	assert_int_equal(pma_ranks_merge(rows, 4, 0, NULL, &r, why, sizeof(why)), 0);
	assert_double_equal(r.imbalance, 1.0, 1e-12);
	assert_int_equal(r.mpi.nrecorded, 4);
	assert_double_equal(r.mpi.imbalance, 1.6, 1e-12);
	assert_int_equal(r.mpi.critical_rank, 3);
	assert_double_equal(r.rows[0].mpi.comp_s, 1, 1e-12);
	assert_double_equal(r.rows[0].mpi.mpi_s, 3.5, 1e-12);
	assert_double_equal(r.rows[2].mpi.A_comp, 1, 1e-12);
	assert_double_equal(r.mpi.mpi_s_min, 0.5, 1e-12);
	assert_double_equal(r.mpi.mpi_s_max, 3.5, 1e-12);
	assert_double_equal(r.mpi.mpi_s_avg, 2, 1e-12);
	/* wall = work + wait: 1.5 + 4.5 + ... = 4 * 4.5 = 18 s; in MPI 8 s */
	assert_double_equal(r.mpi.mpi_share, 8.0 / 18.0, 1e-12);
	/* T(n) without MPI as work: the slowest rank's computation, 4 s */
	assert_int_equal(r.mpi.ncores, 2);
	assert_double_equal(r.mpi.T_comp_ns[0], 4e9, 1);
	assert_int_equal(r.mpi.ncalls, 1);
	assert_string_equal(r.mpi.calls[0].name, "MPI_Allreduce");
	assert_double_equal(r.mpi.calls[0].count, 40, 0);
	assert_double_equal(r.mpi.calls[0].ns, 8e9, 1);
	assert_null(pma_notes_find(&r.notes, PMA_NOTE_RANKS_MPI_UNMEASURED));
	pma_ranks_free(&r);
}

/* One rank not measured: no MPI figures, and the note says the imbalance counts polling. */
static void test_job_unmeasured_note(void **state)
{
	struct pma_rank_row *rows = calloc(2, sizeof(*rows));
	struct pma_ranks_result r;
	const struct pma_note *n;
	char why[256];
	(void)state;

	rank_row(&rows[0], 0, 2, 0, 0.1, 1);
	rank_row(&rows[1], 1, 1, 1, 1.1, 0);
	rows[0].size = rows[1].size = 2;
	assert_int_equal(pma_ranks_merge(rows, 2, 0, NULL, &r, why, sizeof(why)), 0);
	assert_int_equal(r.mpi.nrecorded, 1);
	assert_true(isnan(r.mpi.imbalance));
	n = pma_notes_find(&r.notes, PMA_NOTE_RANKS_MPI_UNMEASURED);
	assert_non_null(n);
	assert_double_equal(n->arg.ranks_mpi_unmeasured.unmeasured, 1, 0);
	assert_double_equal(n->arg.ranks_mpi_unmeasured.ranks, 2, 0);
	pma_ranks_free(&r);

	/* a job of programs that do not link libmpi (no RUN_END "mpi" anywhere): no note */
	rows = calloc(2, sizeof(*rows));
	rank_row(&rows[0], 0, 2, 0, 0.1, 0);
	rank_row(&rows[1], 1, 1, 1, 1.1, 0);
	rows[0].size = rows[1].size = 2;
	assert_int_equal(pma_ranks_merge(rows, 2, 0, NULL, &r, why, sizeof(why)), 0);
	assert_null(pma_notes_find(&r.notes, PMA_NOTE_RANKS_MPI_UNMEASURED));
	pma_ranks_free(&r);

	/* --no-mpi on a program that links libmpi: RUN_END "mpi" not recorded: the note */
	rows = calloc(2, sizeof(*rows));
	rank_row(&rows[0], 0, 2, 0, 0.1, 0);
	rank_row(&rows[1], 1, 1, 1, 1.1, 0);
	rows[0].size = rows[1].size = 2;
	rows[0].mpi.present = rows[1].mpi.present = 1;
	assert_int_equal(pma_ranks_merge(rows, 2, 0, NULL, &r, why, sizeof(why)), 0);
	assert_non_null(pma_notes_find(&r.notes, PMA_NOTE_RANKS_MPI_UNMEASURED));
	pma_ranks_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_process_file),
		cmocka_unit_test(test_parse_cut_file),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_links_mpi),
		cmocka_unit_test(test_run_end_round_trip),
		cmocka_unit_test(test_run_end_nothing),
		cmocka_unit_test(test_job_1234),
		cmocka_unit_test(test_job_unmeasured_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
