/* SPDX-License-Identifier: MIT */
/* test_plan.c: the run plans of collector/session/plan.c: a plain run's role, the --runs lists and their
 * roles (Tudor & Teo §III-A-1: the baseline has fewer CPUs than threads), environment overrides,
 * the calibration plan's refusal of a single core, and pmc_plan_make's plans and reasons on a
 * 2-CPU machine whose answers are known (--calibrate, --sweep, a plain run, --runs, --interfere). */
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

/* A planner request on the 2-CPU machine of vm-2cpu.xml (1 package, 2 cores, CPUs 0-1, all
 * usable): the caller sets the options it tests. With topo, loads that topology into *topo (the
 * caller destroys it and unsets HWLOC_XMLFILE); without, the request has none. */
static struct pmc_plan_request two_cpu_request(hwloc_topology_t *topo)
{
	struct pmc_plan_request rq = { 0 };

	if (topo) {
		use_topology("vm-2cpu.xml");
		*topo = load_topology();
		rq.topo = *topo;
	}
	rq.usable = cpulist("0-1");
	rq.online_cpus = 2;
	return rq;
}

/* The decision i of rp has the reason r and its text holds part. */
static void assert_decision(const struct pmc_run_plan *rp, size_t i, enum pmc_plan_reason r,
			    const char *part)
{
	assert_true(i < rp->ndecisions);
	assert_string_equal(pmc_plan_reason_name(rp->decisions[i].reason), pmc_plan_reason_name(r));
	if (!strstr(rp->decisions[i].text, part))
		fail_msg("decision %zu '%s' lacks '%s'", i, rp->decisions[i].text, part);
}

/* --calibrate --repeat 3 on 2 CPUs (one package of 2 cores): the core counts 1 (the baseline,
 * C(1)) and 2 (the package), in 3 interleaved rounds: 0, 0-1, 0, 0-1, 0, 0-1 with rep 0, 0, 1,
 * 1, 2, 2; 2 runs per round, C(1) the first. Adaptive (no --repeat): 32 rounds fit in 64 runs,
 * at least 3 of them, ended by calstop; --repeat 40 does not fit and is refused with the usage. */
static void test_make_calibrate_two_cpus(void **state)
{
	hwloc_topology_t topo;
	struct pmc_plan_request rq = two_cpu_request(&topo);
	struct pmc_run_plan rp;
	char why[256] = "";

	(void)state;
	rq.calibrate = 1;
	rq.repeat = 3;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.n, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(rp.plan.runs[i].cpus, i % 2 ? "0-1" : "0");
		assert_int_equal(rp.plan.runs[i].role, i % 2 ? PMC_ROLE_CALIBRATION : PMC_ROLE_BASELINE);
		assert_int_equal(rp.plan.runs[i].reason, i % 2 ? PMC_PLAN_WHY_CAL_PACKAGE : PMC_PLAN_WHY_CAL_ONE);
		assert_int_equal(rp.plan.runs[i].rep, i / 2);
	}
	assert_int_equal(rp.cal_points, 2);
	assert_int_equal(rp.cal_one, 0);
	assert_false(rp.calstop_on);
	assert_int_equal(rp.ndecisions, 2);
	assert_decision(&rp, 0, PMC_PLAN_WHY_CAL_PACKAGE, "2 core counts from the topology");
	assert_decision(&rp, 1, PMC_PLAN_WHY_REPEAT, "3 rounds of 2 runs (--repeat)");
	pmc_run_plan_free(&rp);
	/* adaptive */
	rq.repeat = 0;
	rq.adaptive = 1;
	rq.omega_se = 0.02;
	rq.budget_s = 60;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.n, 64);
	assert_string_equal(rp.plan.runs[63].cpus, "0-1");
	assert_int_equal(rp.plan.runs[63].rep, 31);
	assert_true(rp.calstop_on);
	assert_int_equal(rp.calstop.min_rounds, 3);
	assert_int_equal(rp.calstop.max_rounds, 32);
	assert_int_equal(rp.calstop.budget_ns, 60000000000ull);
	assert_int_equal(rp.cal_points, 2);
	assert_decision(&rp, 1, PMC_PLAN_WHY_ADAPTIVE, "3 to 32 rounds of 2 runs");
	pmc_run_plan_free(&rp);
	rq.repeat = 40;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), PMC_PLAN_E_USAGE_LINE);
	assert_string_equal(why, "invalid --repeat: 40 rounds of 2 runs exceed 64 runs");
	pmc_run_plan_free(&rp);
	hwloc_topology_destroy(topo);
	unsetenv("HWLOC_XMLFILE");
}

/* --calibrate -p --window 5 --repeat 2 on 2s4c2t (2 packages of 4 cores, 2 PUs each): the
 * whole runs' core counts 1, c = 4 and c + 1 = 5 become windows of the running process, each
 * tagged cal_window, in the same interleaved rounds (1, 4, 5, 1, 4, 5), C(1) the first of each;
 * one decision says so between the core counts' and the rounds'. */
static void test_make_calibrate_windows(void **state)
{
	hwloc_topology_t topo;
	struct pmc_plan_request rq = { 0 };
	struct pmc_run_plan rp;
	char why[256] = "";
	static const uint32_t ncpus[] = { 1, 4, 5 };

	(void)state;
	use_topology("2s4c2t.xml");
	topo = load_topology();
	rq.topo = topo;
	rq.usable = cpulist("0-15");
	rq.online_cpus = 16;
	rq.calibrate = 1;
	rq.repeat = 2;
	rq.window_s = 5;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.n, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(rp.plan.runs[i].ncpus, ncpus[i % 3]);
		assert_int_equal(rp.plan.runs[i].reason, PMC_PLAN_WHY_CAL_WINDOW);
		assert_int_equal(rp.plan.runs[i].role, i % 3 ? PMC_ROLE_CALIBRATION : PMC_ROLE_BASELINE);
		assert_int_equal(rp.plan.runs[i].rep, i / 3);
	}
	assert_int_equal(rp.cal_points, 3);
	assert_int_equal(rp.cal_one, 0);
	assert_string_equal(pmc_plan_reason_name(PMC_PLAN_WHY_CAL_WINDOW), "cal_window");
	assert_int_equal(rp.ndecisions, 3);
	assert_decision(&rp, 0, PMC_PLAN_WHY_CAL_PACKAGE, "3 core counts from the topology");
	assert_decision(&rp, 1, PMC_PLAN_WHY_CAL_WINDOW, "windows of 5 s of the running process on "
			"1, 4, 5 CPUs, its threads' own CPUs restored after each");
	assert_decision(&rp, 2, PMC_PLAN_WHY_REPEAT, "2 rounds of 3 runs (--repeat)");
	pmc_run_plan_free(&rp);
	hwloc_topology_destroy(topo);
	unsetenv("HWLOC_XMLFILE");
}

/* --sweep cores=1,2 --repeat 2 --no-baseline on 2 CPUs: 4 runs, the configurations interleaved
 * (cores 1, 2, 1, 2; rep 0, 0, 1, 1), k cores on the first k CPUs of the compact order; with the
 * baseline a run on 1 CPU comes first (5 runs); a bad SPEC is refused with its reason. */
static void test_make_sweep(void **state)
{
	static const char *const want[] = { "0", "0,1", "0", "0,1" };
	char prog_name[] = "prog", *argv[] = { prog_name, NULL };
	hwloc_topology_t topo;
	struct pmc_plan_request rq = two_cpu_request(&topo);
	struct pmc_run_plan rp;
	struct pmc_plan_run r;
	char why[256] = "";

	(void)state;
	rq.sweep = "cores=1,2";
	rq.repeat = 2;
	rq.argv = argv;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.n, 0); /* made one at a time */
	assert_int_equal(rp.sweep.nruns, 4);
	assert_int_equal(rp.ncompact, 2);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(pmc_plan_sweep_run(&rp.sweep, i, rp.compact, rp.ncompact, 2, 0, &r), 0);
		assert_string_equal(r.cpus, want[i]);
		assert_int_equal(r.sweep_cores, i % 2 + 1);
		assert_int_equal(r.rep, i / 2);
		assert_int_equal(r.role, PMC_ROLE_SWEEP);
	}
	assert_int_equal(rp.ndecisions, 1);
	assert_decision(&rp, 0, PMC_PLAN_WHY_SWEEP, "2 configurations x 2 repetitions (--repeat)");
	pmc_run_plan_free(&rp);
	rq.sweep_baseline = 1;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.sweep.nruns, 5);
	assert_true(rp.sweep.runs[0].baseline);
	assert_decision(&rp, 0, PMC_PLAN_WHY_SWEEP_BASELINE, "a baseline run on 1 CPU first");
	pmc_run_plan_free(&rp);
	rq.sweep = "cores=0,1";
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), PMC_PLAN_E_USAGE);
	assert_non_null(strstr(why, "invalid --sweep 'cores=0,1': "));
	pmc_run_plan_free(&rp);
	hwloc_topology_destroy(topo);
	unsetenv("HWLOC_XMLFILE");
}

/* One plain run: every CPU (-t 4: OMP_NUM_THREADS=4 on it); on CPUs restricted to 1 of 2 with -t 8,
 * the baseline on that CPU, which the program is pinned to; --runs 0-1 0 with -t 2: the lists in
 * order, "0" the baseline, one round; --interfere with levels 0, 1, 2: 3 interleaved rounds. */
static void test_make_single_runs_interfere(void **state)
{
	static const uint32_t levels[] = { 0, 1, 2 };
	struct pm_intlist lists[2] = { { 0 } };
	struct pmc_plan_request rq = two_cpu_request(NULL);
	struct pmc_run_plan rp;
	struct pmc_cpus prog;
	char why[256] = "";

	(void)state;
	rq.threads = 4;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.n, 1);
	assert_int_equal(rp.plan.runs[0].reason, PMC_PLAN_WHY_ALL_CPUS);
	assert_string_equal(rp.plan.runs[0].env[0].value, "4");
	assert_decision(&rp, 0, PMC_PLAN_WHY_ALL_CPUS, "one run on every CPU");
	assert_decision(&rp, 1, PMC_PLAN_WHY_THREADS, "OMP_NUM_THREADS=4");
	rq.usable = cpulist("1");
	rq.usable_restricted = 1;
	rq.threads = 8;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.runs[0].role, PMC_ROLE_BASELINE);
	assert_true(rp.have_prog_cpus && CPU_ISSET(1, &rp.prog_cpus) && CPU_COUNT(&rp.prog_cpus) == 1);
	assert_decision(&rp, 0, PMC_PLAN_WHY_RESTRICTED, "one run on 1, the baseline");
	assert_int_equal(pm_intlist_parse("0-1", 0, 64, &lists[0], why, sizeof(why)), 0);
	assert_int_equal(pm_intlist_parse("0", 0, 64, &lists[1], why, sizeof(why)), 0);
	rq = two_cpu_request(NULL);
	rq.calibrate = 1;
	rq.threads = 2;
	rq.runs = lists;
	rq.nruns = 2;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.n, 2);
	assert_int_equal(rp.plan.runs[0].role, PMC_ROLE_CALIBRATION);
	assert_int_equal(rp.plan.runs[1].role, PMC_ROLE_BASELINE);
	assert_int_equal(rp.plan.runs[1].reason, PMC_PLAN_WHY_RUNS_LIST);
	assert_int_equal(rp.cal_points, 2);
	assert_int_equal(rp.cal_one, 1);
	assert_decision(&rp, 1, PMC_PLAN_WHY_REPEAT_DEFAULT, "1 round of 2 runs (the default)");
	pm_intlist_free(&lists[0]);
	pm_intlist_free(&lists[1]);
	assert_int_equal(pmc_cpus_from_list(cpulist("0"), &prog), 0);
	rq = two_cpu_request(NULL);
	rq.interfere_prog = &prog;
	rq.levels = levels;
	rq.nlevels = 3;
	assert_int_equal(pmc_plan_make(&rq, &rp, why, sizeof(why)), 0);
	assert_int_equal(rp.plan.n, 9);
	assert_int_equal(rp.plan.runs[4].level_k, 1);
	assert_int_equal(rp.plan.runs[4].rep, 1);
	assert_true(rp.interfering && rp.have_prog_cpus);
	assert_decision(&rp, 0, PMC_PLAN_WHY_INTERFERE, "3 levels x 3 rounds (the default)");
	pmc_cpus_free(&prog);
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
		cmocka_unit_test(test_make_calibrate_two_cpus),
		cmocka_unit_test(test_make_calibrate_windows),
		cmocka_unit_test(test_make_sweep),
		cmocka_unit_test(test_make_single_runs_interfere),
	};
	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
