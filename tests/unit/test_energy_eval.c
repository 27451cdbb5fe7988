/* SPDX-License-Identifier: MIT */
/* test_energy_eval.c: analyzer/studies/energy_eval.c, the energy section of a report, on runs built
 * with known power P(x) = 40 W + x 5 W and predictions T(n) = 100 s (0.05 + 0.95 / n), A = n:
 * E(n) = 675 + 3800 / n + 25 n J is least at n = 12 while T keeps falling to n = 16
 * (docs/energy.md §2). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "energy_eval.h"

#define P_STATIC_W 40.0
#define P_CORE_W 5.0
#define NCORES 16

static char powercap[] = "powercap";
static char no_powercap[] = "no powercap (no /sys/class/powercap/intel-rapl:* zone)";

static double T_s(uint32_t n)
{
	return 100.0 * (0.05 + 0.95 / n);
}

/* A run on n CPUs, busy on all of them for T(n), with the model's energy (package only, or
 * split into a package and a dram zone of 3 W) and other_cpus of other load. */
static void set_run(struct pma_run *r, uint32_t n, int dram, double other_cpus)
{
	double T = T_s(n), E_uj = (P_STATIC_W + n * P_CORE_W) * T * 1e6;

	r->cpus_n = n;
	r->t_begin_ns = 1000;
	r->t_end_ns = 1000 + (uint64_t)llround(T * 1e9);
	r->info.has_end = 1;
	r->info.C.cpu_time_ns = n * T * 1e9;
	r->info.energy.present = 1;
	r->info.energy.source = powercap;
	r->info.energy.package_uj = dram ? E_uj - 3.0 * T * 1e6 : E_uj;
	r->info.energy.dram_uj = dram ? 3.0 * T * 1e6 : NAN;
	r->info.energy.core_uj = NAN;
	r->info.energy.other_load_cpus = other_cpus;
	r->info.energy.program_cpus = n;
}

static void predictions(uint32_t *cores, struct pma_prediction *p)
{
	for (uint32_t i = 0; i < NCORES; i++) {
		cores[i] = i + 1;
		p[i].cores = i + 1;
		p[i].A = i + 1;
		p[i].S = 1 / (0.05 + 0.95 / (i + 1));
		p[i].T_ns = T_s(i + 1) * 1e9;
	}
}

/* Runs at 1, 2, 4 and 8 CPUs (the dram zone counted with the package): P_static and P_core
 * recovered within 1%, energy-optimal n = 12 beside the time-optimal 16, E(12) = 1291.67 J;
 * the other load 1 CPU beside 8 program CPUs is a share of 1/9: trust "fair". */
static void test_energy_optimum_differs(void **state)
{
	struct pma_trace *t = calloc(1, sizeof(*t));
	static const uint32_t n[] = { 1, 2, 4, 8 };
	struct pma_prediction p[NCORES];
	struct pma_energy_result e;
	uint32_t cores[NCORES];

	(void)state;
	assert_non_null(t);
	for (int i = 0; i < 4; i++)
		set_run(&t->runs[i], n[i], i % 2, i == 3 ? 1.0 : 0.0);
	t->nruns = 4;
	predictions(cores, p);
	assert_int_equal(pma_energy_eval(t, 1, cores, p, NCORES, &e), 0);
	assert_true(e.have);
	assert_int_equal(e.nruns, 4);
	assert_true(fabs(e.model.P_static_w - P_STATIC_W) < 0.01 * P_STATIC_W);
	assert_true(fabs(e.model.P_core_w - P_CORE_W) < 0.01 * P_CORE_W);
	assert_int_equal(e.npts, NCORES);
	assert_int_equal(e.opt.n_energy, 12);
	assert_int_equal(e.opt.n_time, 16);
	assert_true(fabs(e.opt.E_min_j - (675 + 3800.0 / 12 + 25 * 12)) < 0.01 * e.opt.E_min_j);
	assert_true(fabs(e.other_share_max - 1.0 / 9) < 1e-9);
	assert_int_equal(e.trust, PMA_TRUST_FAIR);
	assert_string_equal(e.source, "powercap");
	pma_energy_result_free(&e);
	free(t);
}

/* No energy: have 0, the recorded reason, no points (no guessed watts); energy at one core count
 * only: the fit's reason. */
static void test_no_energy_reasons(void **state)
{
	struct pma_trace *t = calloc(1, sizeof(*t));
	struct pma_prediction p[NCORES];
	struct pma_energy_result e;
	uint32_t cores[NCORES];

	(void)state;
	assert_non_null(t);
	predictions(cores, p);
	t->runs[0].info.has_end = 1;
	t->runs[0].cpus_n = 1;
	t->runs[0].info.energy.reason = no_powercap;
	t->nruns = 1;
	assert_int_equal(pma_energy_eval(t, 1, cores, p, NCORES, &e), 0);
	assert_false(e.have);
	assert_int_equal(e.npts, 0);
	assert_string_equal(e.reason, "no run has energy readings: no powercap (no "
			    "/sys/class/powercap/intel-rapl:* zone)");
	pma_energy_result_free(&e);
	memset(t, 0, sizeof(*t));
	set_run(&t->runs[0], 2, 0, 0);
	set_run(&t->runs[1], 2, 0, 0);
	t->nruns = 2;
	assert_int_equal(pma_energy_eval(t, 1, cores, p, NCORES, &e), 0);
	assert_false(e.have);
	assert_non_null(strstr(e.reason, "two or more core counts"));
	pma_energy_result_free(&e);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_energy_optimum_differs),
		cmocka_unit_test(test_no_energy_reasons),
	};

	return cmocka_run_group_tests_name("energy_eval", tests, NULL, NULL);
}
