/* SPDX-License-Identifier: MIT */
/* test_plan.c: the run plans of collector/session/plan.c: a plain run's role, the --runs lists and their
 * roles (Tudor & Teo §III-A-1: the baseline has fewer CPUs than threads), environment overrides,
 * and the calibration plan's refusal of a single core. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hwloc.h>

#include "plan.h"
#include "pmt.h"
#include "testlib.h"

/* pmc_plan_single on the CPUs of the cpulist text (NULL: every CPU), parsed as pmcollect parses
 * --cpus (16 CPUs online). */
static void single(struct pmc_plan *p, const char *text, int threads, uint32_t online)
{
	static uint32_t on[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	const struct pm_intlist all = { on, 16 };
	struct pmc_cpus c;
	char why[128];

	if (!text) {
		pmc_plan_single(p, NULL, threads, online);
		return;
	}
	assert_int_equal(pmc_cpus_parse(NULL, text, &all, &c, why, sizeof(why)), 0);
	pmc_plan_single(p, &c, threads, online);
	pmc_cpus_free(&c);
}

/* pmc_plan_add_list of the cpulist text. */
static int add(struct pmc_plan *p, const char *text, char *why, size_t whysize)
{
	return pmc_plan_add_list(p, cpulist(text), why, whysize);
}

/* --cpus 0 of 2 online CPUs with -t 8 (or no -t) is the baseline; -t 1 on 1 CPU is not
 * oversubscribed, and every CPU is a plain run. */
static void test_single_roles(void **state)
{
	struct pmc_plan p;

	(void)state;
	single(&p, "0", 8, 2);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.runs[0].role, PMC_ROLE_BASELINE);
	assert_string_equal(p.runs[0].cpus, "0");
	assert_int_equal(p.runs[0].ncpus, 1);
	assert_true(CPU_ISSET(0, &p.runs[0].set)); /* the set travels with the run */
	assert_int_equal(CPU_COUNT(&p.runs[0].set), 1);
	assert_string_equal(pmc_role_name(p.runs[0].role), "baseline");
	single(&p, "0", 0, 2);
	assert_int_equal(p.runs[0].role, PMC_ROLE_BASELINE);
	single(&p, "0", 1, 2);
	assert_int_equal(p.runs[0].role, PMC_ROLE_RUN);
	single(&p, NULL, 8, 2);
	assert_int_equal(p.runs[0].role, PMC_ROLE_RUN);
	assert_string_equal(p.runs[0].cpus, "");
	assert_int_equal(p.runs[0].ncpus, 2);
	assert_string_equal(pmc_role_name(p.runs[0].role), "run");
}

/* --runs 0-7 0 0-8 with -t 8: the first run with fewer CPUs than threads (run 1, "0") is the
 * baseline, every other run calibration; lists are normalized ("0,1,2" -> "0-2"). */
static void test_runs_and_roles(void **state)
{
	struct pmc_plan p = { 0 };
	char why[256];

	(void)state;
	assert_int_equal(add(&p, "0-7", why, sizeof(why)), 0);
	assert_int_equal(add(&p, "0", why, sizeof(why)), 0);
	assert_int_equal(add(&p, "0,1,2,3,4,5,6,7,8", why, sizeof(why)), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.runs[2].cpus, "0-8");
	assert_int_equal(p.runs[2].ncpus, 9);
	pmc_plan_roles(&p, 8, 9);
	assert_int_equal(p.runs[0].role, PMC_ROLE_CALIBRATION);
	assert_int_equal(p.runs[1].role, PMC_ROLE_BASELINE);
	assert_int_equal(p.runs[2].role, PMC_ROLE_CALIBRATION);
	/* without -t: fewer CPUs than online is the baseline, so run 0 (8 of 9) is it */
	pmc_plan_roles(&p, 0, 9);
	assert_int_equal(p.runs[0].role, PMC_ROLE_BASELINE);
	assert_int_equal(p.runs[1].role, PMC_ROLE_CALIBRATION);
}

static void test_add_rejects(void **state)
{
	struct pmc_plan p = { 0 };
	char why[256] = "";

	(void)state;
	for (int i = 0; i < PMC_PLAN_MAX_RUNS; i++)
		assert_int_equal(add(&p, "0", why, sizeof(why)), 0);
	assert_int_equal(add(&p, "0", why, sizeof(why)), PMT_E_INVAL);
	assert_string_equal(why, "more than 64 runs");
	assert_int_equal(p.n, PMC_PLAN_MAX_RUNS);
}

/* An override is set on every run; the same name again replaces its value; a fifth name or a
 * value that does not fit is refused. */
static void test_setenv(void **state)
{
	struct pmc_plan p = { 0 };
	char why[256];

	(void)state;
	assert_int_equal(add(&p, "0", why, sizeof(why)), 0);
	assert_int_equal(add(&p, "0-1", why, sizeof(why)), 0);
	assert_int_equal(pmc_plan_setenv(&p, "OMP_NUM_THREADS", "8"), 0);
	assert_int_equal(pmc_plan_setenv(&p, "OMP_NUM_THREADS", "16"), 0);
	for (size_t i = 0; i < p.n; i++) {
		assert_int_equal(p.runs[i].nenv, 1);
		assert_string_equal(p.runs[i].env[0].name, "OMP_NUM_THREADS");
		assert_string_equal(p.runs[i].env[0].value, "16");
	}
	assert_int_equal(pmc_plan_setenv(&p, "A", "1"), 0);
	assert_int_equal(pmc_plan_setenv(&p, "B", "1"), 0);
	assert_int_equal(pmc_plan_setenv(&p, "C", "1"), 0);
	assert_int_equal(pmc_plan_setenv(&p, "D", "1"), PMT_E_INVAL);
	assert_int_equal(pmc_plan_setenv(&p, "A", "a value longer than thirty-one bytes"), PMT_E_INVAL);
	assert_int_equal(p.runs[0].nenv, PMC_PLAN_MAX_ENV);
	assert_string_equal(p.runs[0].env[1].value, "1");
}

/* omega(n) needs two core counts: one allowed CPU cannot be calibrated, whatever the machine. */
/* --interfere: R rounds of every level in order (interleaved), role "interference", rep = round;
 * no level, R = 0 or too many runs are refused. */
static void test_interfere_interleaved(void **state)
{
	static const uint32_t levels[] = { 0, 1, 3 };
	uint32_t zero = 0;
	const struct pm_intlist l0 = { &zero, 1 };
	struct pmc_cpus c0;
	struct pmc_plan p;
	char why[256] = "";

	(void)state;
	assert_int_equal(pmc_cpus_from_list(&l0, &c0), 0);
	assert_int_equal(pmc_plan_interfere(&p, &c0, levels, 3, 2, why, sizeof(why)), 0);
	assert_int_equal(p.n, 6);
	for (size_t i = 0; i < p.n; i++) {
		assert_int_equal(p.runs[i].role, PMC_ROLE_INTERFERENCE);
		assert_int_equal(p.runs[i].level_k, levels[i % 3]);
		assert_int_equal(p.runs[i].rep, i / 3);
		assert_string_equal(p.runs[i].cpus, "0");
	}
	assert_string_equal(pmc_role_name(p.runs[0].role), "interference");
	assert_int_equal(pmc_plan_interfere(&p, &c0, levels, 0, 2, why, sizeof(why)), PMT_E_INVAL);
	assert_int_equal(pmc_plan_interfere(&p, &c0, levels, 3, 0, why, sizeof(why)), PMT_E_INVAL);
	assert_int_equal(pmc_plan_interfere(&p, &c0, levels, 3, 22, why, sizeof(why)), PMT_E_INVAL);
	assert_string_equal(why, "3 levels x 22 repetitions is more than 64 runs");
	pmc_cpus_free(&c0);
}

/* The topology hwloc loads (HWLOC_XMLFILE when set, else this machine's), as the session's:
 * the planners take a loaded one. The caller destroys it. */
static hwloc_topology_t load_topology(void)
{
	hwloc_topology_t topo;

	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	return topo;
}

static void test_calibrate_one_core(void **state)
{
	hwloc_topology_t topo = load_topology();
	struct pmc_plan p;
	char why[256] = "";

	(void)state;
	assert_int_equal(pmc_plan_calibrate(&p, topo, cpulist("0"), why, sizeof(why)), PMT_E_INVAL);
	assert_non_null(strstr(why, "one core on the first socket"));
	hwloc_topology_destroy(topo);
}

/* --calibrate --repeat K (issue 13): runs (a, b) become a, b, a, b, a, b with rep 0, 0, 1, 1,
 * 2, 2 and nrep 3; K = 1 leaves the plan alone; K = 0 and a plan over PMC_PLAN_MAX_RUNS are
 * refused and leave it unchanged. */
static void test_repeat_interleaved(void **state)
{
	struct pmc_plan p = { 0 };
	char why[200];

	(void)state;
	assert_int_equal(add(&p, "0", why, sizeof(why)), 0);
	assert_int_equal(add(&p, "0-1", why, sizeof(why)), 0);
	assert_int_equal(pmc_plan_repeat(&p, 1, why, sizeof(why)), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.runs[0].nrep, 0);
	assert_int_equal(pmc_plan_repeat(&p, 0, why, sizeof(why)), PMT_E_INVAL);
	assert_int_equal(pmc_plan_repeat(&p, PMC_PLAN_MAX_RUNS, why, sizeof(why)), PMT_E_INVAL);
	assert_non_null(strstr(why, "more than"));
	assert_int_equal(p.n, 2);
	assert_int_equal(pmc_plan_repeat(&p, 3, why, sizeof(why)), 0);
	assert_int_equal(p.n, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(p.runs[i].cpus, i % 2 ? "0-1" : "0");
		assert_int_equal(p.runs[i].ncpus, i % 2 ? 2 : 1);
		assert_int_equal(CPU_COUNT(&p.runs[i].set), i % 2 ? 2 : 1);
		assert_int_equal(p.runs[i].rep, i / 2);
		assert_int_equal(p.runs[i].nrep, 3);
	}
}

/* The compact order of the allowed CPUs holds each allowed CPU once and no other. */
static void test_compact_order(void **state)
{
	hwloc_topology_t topo = load_topology();
	uint32_t order[8];
	size_t n = 0;
	char why[200];
	int seen0 = 0;

	(void)state;
	assert_int_equal(pmc_plan_compact_order(topo, cpulist("0"), order, 8, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(order[0], 0);
	assert_int_equal(pmc_plan_compact_order(topo, cpulist("0-1"), order, 8, &n, why, sizeof(why)), 0);
	for (size_t i = 0; i < n; i++)
		seen0 += order[i] == 0;
	assert_true(n >= 1 && n <= 2 && seen0 == 1); /* 1 when the machine has one CPU online */
	hwloc_topology_destroy(topo);
}

/* Points hwloc at tests/fixtures/hwloc/<name> (relative to $PMT_TOP, else the current
 * directory) through its HWLOC_XMLFILE override. */
static void use_topology(const char *name)
{
	const char *top = getenv("PMT_TOP");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/fixtures/hwloc/%s", top ? top : ".", name);
	assert_int_equal(setenv("HWLOC_XMLFILE", path, 1), 0);
}

/* -t 1-6 on 2 sockets x 4 cores x 2 SMT (PUs 0-3 and 8-11 on package 0, SMT siblings c and c+8):
 * Allande et al.'s runs on one socket, run i on the first min(i, 4) cores of package 0, one PU
 * each; OMP_NUM_THREADS per run; placement "first_package". CPUs restricted to package 1 (4-7)
 * are one package: the runs keep the plain run's CPUs ("one_package"); with --cpus (pin 0) the
 * user's CPUs stay, even across sockets ("cpus"). */
static void test_thread_list_one_socket(void **state)
{
	static const uint32_t th[] = { 1, 2, 3, 4, 5, 6 };
	static const char *const want[] = { "0", "0-1", "0-2", "0-3", "0-3", "0-3" };
	hwloc_topology_t topo;
	struct pmc_plan p;
	char why[256] = "";

	(void)state;
	use_topology("2s4c2t.xml");
	topo = load_topology();
	single(&p, NULL, 0, 16);
	assert_int_equal(pmc_plan_thread_list(&p, topo, &p.runs[0], th, 6, cpulist("0-15"), 1, why, sizeof(why)), 0);
	assert_int_equal(p.n, 6);
	for (size_t i = 0; i < p.n; i++) {
		char v[16];
		snprintf(v, sizeof(v), "%u", th[i]);
		assert_string_equal(p.runs[i].cpus, want[i]);
		assert_int_equal(p.runs[i].ncpus, i < 4 ? i + 1 : 4);
		assert_int_equal(CPU_COUNT(&p.runs[i].set), i < 4 ? i + 1 : 4);
		assert_true(CPU_ISSET(0, &p.runs[i].set));
		assert_string_equal(p.runs[i].placement, "first_package");
		assert_int_equal(p.runs[i].role, PMC_ROLE_RUN);
		assert_int_equal(p.runs[i].nenv, 1);
		assert_string_equal(p.runs[i].env[0].name, "OMP_NUM_THREADS");
		assert_string_equal(p.runs[i].env[0].value, v);
	}
	/* the first package with an allowed CPU: here package 1 only, so no pin */
	single(&p, "4-7", 0, 16);
	assert_int_equal(pmc_plan_thread_list(&p, topo, &p.runs[0], th, 3, cpulist("4-7"), 1, why, sizeof(why)), 0);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.runs[2].cpus, "4-7");
	assert_string_equal(p.runs[2].placement, "one_package");
	/* allowed on both packages but package 0 only partly: its allowed cores */
	single(&p, NULL, 0, 16);
	assert_int_equal(pmc_plan_thread_list(&p, topo, &p.runs[0], th, 6, cpulist("2-5,10"), 1, why, sizeof(why)), 0);
	assert_string_equal(p.runs[0].cpus, "2");
	assert_string_equal(p.runs[5].cpus, "2-3");
	/* --cpus across both sockets: kept, and said so */
	single(&p, "0-15", 0, 16);
	assert_int_equal(pmc_plan_thread_list(&p, topo, &p.runs[0], th, 2, cpulist("0-15"), 0, why, sizeof(why)), 0);
	assert_string_equal(p.runs[1].cpus, "0-15");
	assert_string_equal(p.runs[1].placement, "cpus");
	assert_string_equal(p.runs[1].env[0].value, "2");
	/* no run */
	assert_int_equal(pmc_plan_thread_list(&p, topo, &p.runs[0], th, 0, cpulist("0-15"), 1, why, sizeof(why)),
			 PMT_E_INVAL);
	/* one package: every run keeps the plain run's CPUs */
	hwloc_topology_destroy(topo);
	use_topology("1s2ccx.xml");
	topo = load_topology();
	single(&p, NULL, 0, 16);
	assert_int_equal(pmc_plan_thread_list(&p, topo, &p.runs[0], th, 4, cpulist("0-15"), 1, why, sizeof(why)), 0);
	assert_string_equal(p.runs[3].cpus, "");
	assert_string_equal(p.runs[3].placement, "one_package");
	hwloc_topology_destroy(topo);
	unsetenv("HWLOC_XMLFILE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_roles),
		cmocka_unit_test(test_runs_and_roles),
		cmocka_unit_test(test_add_rejects),
		cmocka_unit_test(test_setenv),
		cmocka_unit_test(test_calibrate_one_core),
		cmocka_unit_test(test_interfere_interleaved),
		cmocka_unit_test(test_repeat_interleaved),
		cmocka_unit_test(test_compact_order),
		cmocka_unit_test(test_thread_list_one_socket),
	};
	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
