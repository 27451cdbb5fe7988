/* SPDX-License-Identifier: MIT */
/* test_sweep.c: the --sweep SPEC parser and plan (issue 13): configurations, repetitions in
 * interleaved order, the baseline, {threads} substitution, progress lines and every bad SPEC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan.h"
#include "sweep.h"

static struct pmc_sweep_plan make(const char *spec, uint32_t K, uint32_t online, char *const *argv,
				  int baseline)
{
	struct pmc_sweep_plan p;
	char why[200] = "";
	int rc = pmc_sweep_plan_make(spec, K, online, argv, baseline, &p, why, sizeof(why));
	if (rc)
		fail_msg("'%s': %d %s", spec, rc, why);
	return p;
}

/* cores=1,2,4,8 x 3: 12 runs, a b c d a b c d a b c d, no threads. */
static void test_cores_list_interleaved(void **state)
{
	(void)state;
	struct pmc_sweep_plan p = make("cores=1,2,4,8", 3, 8, NULL, 0);
	const uint32_t want[] = { 1, 2, 4, 8 };

	assert_int_equal(p.nruns, 12);
	assert_int_equal(p.nconfigs, 4);
	assert_int_equal(p.repeat, 3);
	assert_true(p.has_cores);
	assert_false(p.has_threads);
	for (size_t i = 0; i < 12; i++) {
		assert_int_equal(p.runs[i].cores, want[i % 4]);
		assert_int_equal(p.runs[i].threads, 0);
		assert_int_equal(p.runs[i].config, i % 4);
		assert_int_equal(p.runs[i].rep, i / 4);
		assert_false(p.runs[i].baseline);
	}
	pmc_sweep_plan_free(&p);
	assert_null(p.runs);
	pmc_sweep_plan_free(&p); /* twice is fine */
	pmc_sweep_plan_free(NULL);
}

/* Ranges, strides, unsorted lists with duplicates (sorted and deduplicated). */
static void test_ranges(void **state)
{
	(void)state;
	struct pmc_sweep_plan p = make("threads=1-16", 1, 2, NULL, 0);
	assert_int_equal(p.nruns, 16);
	for (uint32_t i = 0; i < 16; i++) {
		assert_int_equal(p.runs[i].threads, i + 1);
		assert_int_equal(p.runs[i].cores, 0);
	}
	pmc_sweep_plan_free(&p);

	p = make("cores=1-16", 2, 16, NULL, 0);
	assert_int_equal(p.nruns, 32);
	assert_int_equal(p.runs[15].cores, 16);
	assert_int_equal(p.runs[16].cores, 1);
	assert_int_equal(p.runs[16].rep, 1);
	pmc_sweep_plan_free(&p);

	p = make("threads=1-64:16,8,8,2", 1, 1, NULL, 0);
	const uint32_t want[] = { 1, 2, 8, 17, 33, 49 };
	assert_int_equal(p.nruns, 6);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(p.runs[i].threads, want[i]);
	pmc_sweep_plan_free(&p);
}

/* Both keys: every (cores, threads) pair, cores outer, interleaved over K = 2; the baseline first
 * with 1 core and the most threads. Keys in either order. */
static void test_both_and_baseline(void **state)
{
	(void)state;
	for (int order = 0; order < 2; order++) {
		struct pmc_sweep_plan p = make(order ? "threads=2,4,8;cores=1,2" : "cores=1,2;threads=2,4,8",
					       2, 2, NULL, 1);
		assert_int_equal(p.nconfigs, 6);
		assert_int_equal(p.nruns, 13);
		assert_true(p.runs[0].baseline);
		assert_int_equal(p.runs[0].cores, 1);
		assert_int_equal(p.runs[0].threads, 8);
		const uint32_t c[] = { 1, 1, 1, 2, 2, 2 }, t[] = { 2, 4, 8, 2, 4, 8 };
		for (size_t i = 1; i < 13; i++) {
			size_t k = (i - 1) % 6;
			assert_false(p.runs[i].baseline);
			assert_int_equal(p.runs[i].cores, c[k]);
			assert_int_equal(p.runs[i].threads, t[k]);
			assert_int_equal(p.runs[i].config, k);
			assert_int_equal(p.runs[i].rep, (i - 1) / 6);
		}
		char buf[80];
		assert_string_equal(pmc_sweep_progress(&p, 0, 9.123, buf, sizeof(buf)),
				    "[1/13] baseline cores=1 threads=8: 9.12 s");
		assert_string_equal(pmc_sweep_progress(&p, 8, 1.84, buf, sizeof(buf)),
				    "[9/13] cores=1 threads=4 rep 2/2: 1.84 s");
		assert_string_equal(pmc_sweep_progress(&p, 12, -1, buf, sizeof(buf)),
				    "[13/13] cores=2 threads=8 rep 2/2");
		pmc_sweep_plan_free(&p);
	}

	/* the example line */
	struct pmc_sweep_plan p = make("cores=1,2,4,8", 3, 8, NULL, 0);
	char buf[80];
	assert_string_equal(pmc_sweep_progress(&p, 6, 1.84, buf, sizeof(buf)), "[7/12] cores=4 rep 2/3: 1.84 s");
	pmc_sweep_plan_free(&p);
	/* a baseline of a cores-only sweep has no thread count */
	p = make("cores=2", 1, 2, NULL, 1);
	assert_int_equal(p.nruns, 2);
	assert_int_equal(p.runs[0].threads, 0);
	pmc_sweep_plan_free(&p);
}

/* {threads} substitution: in whole and partial arguments, several times, argv untouched. */
static void test_argv(void **state)
{
	(void)state;
	/* mutable strings: argv is char *const *, and -Wwrite-strings makes literals const */
	char a0[] = "pigz", a1[] = "-p", a2[] = "{threads}", a3[] = "--threads={threads}",
	     a4[] = "{threads}x{threads}", a5[] = "plain", b0[] = "xz", b1[] = "-T4";
	char *argv[] = { a0, a1, a2, a3, a4, a5, NULL };
	char *none[] = { b0, b1, NULL };

	assert_true(pmc_sweep_argv_uses_threads(argv));
	assert_false(pmc_sweep_argv_uses_threads(none));
	assert_false(pmc_sweep_argv_uses_threads(NULL));
	char **v = pmc_sweep_argv(argv, 16);
	assert_non_null(v);
	assert_string_equal(v[0], "pigz");
	assert_string_equal(v[2], "16");
	assert_string_equal(v[3], "--threads=16");
	assert_string_equal(v[4], "16x16");
	assert_string_equal(v[5], "plain");
	assert_null(v[6]);
	assert_string_equal(argv[2], "{threads}");
	pmc_sweep_argv_free(v);

	struct pmc_sweep_plan p = make("threads=1,3", 1, 1, argv, 0);
	assert_int_equal(p.nruns, 2);
	pmc_sweep_plan_free(&p);
}

/* Every bad SPEC of issue 13, and the others: the code, a reason naming the problem, no plan. */
static void test_bad_spec(void **state)
{
	(void)state;
	char a0[] = "pigz", a1[] = "-p", a2[] = "{threads}";
	char *uses[] = { a0, a1, a2, NULL };
	static const struct {
		const char *spec;
		uint32_t K;
		int with_placeholder;
		int rc;
		const char *why;
	} cases[] = {
		{ "cores=", 1, 0, PMC_SWEEP_E_EMPTY, "empty list" },
		{ "threads=,,", 1, 0, PMC_SWEEP_E_EMPTY, "empty list" },
		{ "cores=1,2;threads=", 1, 0, PMC_SWEEP_E_EMPTY, "threads= has an empty list" },
		{ "cores=0,1,2", 1, 0, PMC_SWEEP_E_ZERO, "includes 0 cores" },
		{ "cores=0-4", 1, 0, PMC_SWEEP_E_ZERO, "0 cores" },
		{ "threads=0", 1, 0, PMC_SWEEP_E_ZERO, "0 threads" },
		{ "cores=1-3", 1, 0, PMC_SWEEP_E_ONLINE, "3 cores, but 2 CPUs are online" },
		{ "cores=1,2", 1, 1, PMC_SWEEP_E_PLACEHOLDER, "{threads}" },
		{ "cores=1,2", 0, 0, PMC_SWEEP_E_REPEAT, "--repeat 0" },
		{ "", 1, 0, PMC_SWEEP_E_SYNTAX, "empty SPEC" },
		{ "cpus=1,2", 1, 0, PMC_SWEEP_E_SYNTAX, "'cpus=1,2' is not" },
		{ "cores", 1, 0, PMC_SWEEP_E_SYNTAX, "is not cores=LIST" },
		{ "cores=1;cores=2", 1, 0, PMC_SWEEP_E_SYNTAX, "cores given twice" },
		{ "cores=1,x", 1, 0, PMC_SWEEP_E_SYNTAX, "'x' is not a number" },
		{ "threads=4-2", 1, 0, PMC_SWEEP_E_SYNTAX, "runs backwards" },
		{ "cores=1;", 1, 0, PMC_SWEEP_E_SYNTAX, "is not cores=LIST" },
		{ "threads=1-100000", 1, 0, PMC_SWEEP_E_LIMIT, "outside" },
		{ "threads=1-50000", 3, 0, PMC_SWEEP_E_LIMIT, "more than 100000 runs" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct pmc_sweep_plan p;
		char why[200] = "";
		int rc = pmc_sweep_plan_make(cases[c].spec, cases[c].K, 2,
					     cases[c].with_placeholder ? uses : NULL, 1, &p, why,
					     sizeof(why));
		if (rc != cases[c].rc || !strstr(why, cases[c].why) || strchr(why, '\n'))
			fail_msg("'%s': rc %d (want %d), why '%s' (want '%s')", cases[c].spec, rc,
				 cases[c].rc, why, cases[c].why);
		assert_null(p.runs);
		assert_int_equal(p.nruns, 0);
	}
}

/* A sweep run as a plan run: k cores are the first k CPUs of the compact order, the baseline is 1
 * CPU, OMP_NUM_THREADS is the configuration's threads else the default; RUN_BEGIN's sweep keys. */
/* quota=0.5,1.5/10ms with cores=1,2 x 2: cores outer, quota inner, interleaved; the baseline
 * unlimited; the plan run and the progress line carry the quota. */
static void test_quota(void **state)
{
	(void)state;
	struct pmc_sweep_plan p = make("cores=1,2;quota=0.5,1.5/10ms", 2, 4, NULL, 1);
	const uint32_t cores[] = { 1, 1, 2, 2 };
	const double Q[] = { 0.5, 1.5, 0.5, 1.5 }, P[] = { 100000, 10000, 100000, 10000 };
	uint32_t compact[] = { 0, 1, 2, 3 };
	struct pmc_plan_run run;
	char line[160];

	assert_int_equal(p.nruns, 9);
	assert_int_equal(p.nconfigs, 4);
	assert_true(p.has_quota && p.has_cores && !p.has_threads);
	assert_true(p.runs[0].baseline);
	assert_true(p.runs[0].quota_cpus == 0);
	for (size_t i = 1; i < 9; i++) {
		const struct pmc_sweep_run *r = &p.runs[i];
		assert_int_equal(r->config, (i - 1) % 4);
		assert_int_equal(r->cores, cores[(i - 1) % 4]);
		assert_true(r->quota_cpus == Q[(i - 1) % 4]);
		assert_true(r->quota_period_us == P[(i - 1) % 4]);
	}
	assert_int_equal(pmc_plan_sweep_run(&p, 2, compact, 4, 4, 0, &run), 0);
	assert_true(run.sweep_quota_cpus == 1.5 && run.sweep_quota_period_us == 10000);
	assert_string_equal(pmc_sweep_progress(&p, 2, 1.5, line, sizeof(line)),
			    "[3/9] cores=1 quota=1.5/10ms rep 1/2: 1.50 s");
	assert_string_equal(pmc_sweep_progress(&p, 3, -1, line, sizeof(line)),
			    "[4/9] cores=2 quota=0.5 rep 1/2");
	assert_int_equal(pmc_plan_sweep_run(&p, 0, compact, 4, 4, 0, &run), 0);
	assert_true(run.sweep_quota_cpus == 0);
	pmc_sweep_plan_free(&p);
}

/* Bad quota lists: each with its code and reason. */
static void test_bad_quota(void **state)
{
	(void)state;
	static const struct { const char *spec; int rc; const char *why; } bad[] = {
		{ "quota=0", PMC_SWEEP_E_ZERO, "--sweep: quota=0: a quota must be above 0 CPUs" },
		{ "quota=", PMC_SWEEP_E_EMPTY, "--sweep: quota= has an empty list" },
		{ "quota=1/2s", PMC_SWEEP_E_SYNTAX,
		  "--sweep: quota 1/2s: want a period from 1ms to 1s (the kernel's limits)" },
		{ "quota=0.05/10ms", PMC_SWEEP_E_SYNTAX,
		  "--sweep: quota=0.05/10ms: 0.5 ms per period is below the kernel's minimum quota of 1 ms" },
		{ "quota=x", PMC_SWEEP_E_SYNTAX, "--sweep: quota 'x' is not CPUs[/PERIOD] (0.5, 1.5/10ms)" },
		{ "quota=1;quota=2", PMC_SWEEP_E_SYNTAX, "--sweep: quota given twice" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pmc_sweep_plan p;
		char why[200] = "";
		assert_int_equal(pmc_sweep_plan_make(bad[i].spec, 1, 2, NULL, 1, &p, why, sizeof(why)),
				 bad[i].rc);
		assert_string_equal(why, bad[i].why);
		assert_null(p.runs);
	}
}

static void test_plan_run(void **state)
{
	(void)state;
	struct pmc_sweep_plan p = make("cores=1,2;threads=3", 2, 4, NULL, 1);
	const uint32_t compact[] = { 2, 0, 3, 1 };
	struct pmc_plan_run r;

	assert_int_equal(p.nruns, 5); /* baseline, then (1,3) (2,3) twice */
	assert_int_equal(pmc_plan_sweep_run(&p, 0, compact, 4, 4, 7, &r), 0);
	assert_int_equal(r.role, PMC_ROLE_BASELINE);
	assert_string_equal(r.cpus, "2");
	assert_int_equal(r.ncpus, 1);
	assert_int_equal(r.nrep, 0);
	assert_int_equal(pmc_plan_sweep_run(&p, 4, compact, 4, 4, 7, &r), 0);
	assert_int_equal(r.role, PMC_ROLE_SWEEP);
	assert_string_equal(r.cpus, "2,0");
	assert_int_equal(r.ncpus, 2);
	assert_true(CPU_ISSET(0, &r.set) && CPU_ISSET(2, &r.set));
	assert_int_equal(CPU_COUNT(&r.set), 2);
	assert_int_equal(r.nenv, 1);
	assert_string_equal(r.env[0].name, "OMP_NUM_THREADS");
	assert_string_equal(r.env[0].value, "3");
	assert_int_equal(r.rep, 1);
	assert_int_equal(r.nrep, 2);
	assert_int_equal(r.config, 1);
	assert_int_equal(r.sweep_cores, 2);
	assert_int_equal(r.sweep_threads, 3);
	pmc_sweep_plan_free(&p);
	/* no threads key: the default (-t), none when 0 */
	p = make("cores=2", 1, 4, NULL, 0);
	assert_int_equal(pmc_plan_sweep_run(&p, 0, compact, 4, 4, 7, &r), 0);
	assert_string_equal(r.env[0].value, "7");
	assert_int_equal(pmc_plan_sweep_run(&p, 0, compact, 4, 4, 0, &r), 0);
	assert_int_equal(r.nenv, 0);
	pmc_sweep_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cores_list_interleaved),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_both_and_baseline),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_bad_spec),
		cmocka_unit_test(test_plan_run),
		cmocka_unit_test(test_quota),
		cmocka_unit_test(test_bad_quota),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
