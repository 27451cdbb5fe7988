/* SPDX-License-Identifier: MIT */
/* test_wakecharge.c: the replay's wake charges from a wake-up calibration (analyzer/studies/wakecharge.c):
 * which pair stands for "another core", the charge net of the recorded CPU time, its spread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlib.h"
#include "wakecharge.h"

static void add_pair(struct pma_wake_cal *c, const char *cls, double med, double lo, double hi)
{
	struct pma_wake_pair *p = &c->pairs[c->n++];

	snprintf(p->cls, sizeof(p->cls), "%s", cls);
	p->cpu_a = 0;
	p->cpu_b = 1;
	p->median_ns = med;
	p->min_ns = lo;
	p->max_ns = hi;
	p->cpu_ns = NAN; /* a calibration before 2026-11-27 */
}

/* same CPU 2 us (1.9-2.1), shared cache 40 us (38-44), another package 100 us: another core is
 * the shared cache's (an idle core under the waker's LLC first); the charge is 40 - 2 = 38 us,
 * its spread half of both ranges in quadrature: hypot(3, 0.1) us. */
static void test_shared_cache_first(void **state)
{
	struct pma_wake_cal c = { 0 };
	struct pma_wake_result w;

	(void)state;
	add_pair(&c, "same_cpu", 2000, 1900, 2100);
	add_pair(&c, "other_package", 100000, 90000, 110000);
	add_pair(&c, "shared_cache", 40000, 38000, 44000);
	assert_int_equal(pma_wakecost_from_cal(&c, "cal.zst", &w), 0);
	assert_true(w.have);
	assert_string_equal(w.cross_class, "shared_cache");
	assert_string_equal(w.from, "cal.zst");
	assert_double_equal(w.charge.same_ns, 0, 0);
	assert_double_equal(w.charge.cross_ns, 38000, 1e-9);
	assert_double_equal(w.cross_err_ns, hypot(3000, 100), 1e-9);
}

/* Without a shared cache or a package-mate the SMT sibling, then another package. */
static void test_order_of_classes(void **state)
{
	struct pma_wake_cal c = { 0 };
	struct pma_wake_result w;

	(void)state;
	add_pair(&c, "same_cpu", 2000, 2000, 2000);
	add_pair(&c, "other_package", 90000, 90000, 90000);
	assert_int_equal(pma_wakecost_from_cal(&c, NULL, &w), 0);
	assert_string_equal(w.cross_class, "other_package");
	add_pair(&c, "smt", 5000, 5000, 5000);
	assert_int_equal(pma_wakecost_from_cal(&c, NULL, &w), 0);
	assert_string_equal(w.cross_class, "smt");
	assert_double_equal(w.charge.cross_ns, 3000, 1e-9);
	assert_double_equal(w.cross_err_ns, 0, 0);
}

/* A cross-core wake measured cheaper than a same-CPU one charges nothing, never a negative time;
 * no same-CPU pair, or no other pair: no charges. */
static void test_degenerate(void **state)
{
	struct pma_wake_cal c = { 0 };
	struct pma_wake_result w;

	(void)state;
	add_pair(&c, "same_cpu", 3000, 3000, 3000);
	assert_int_equal(pma_wakecost_from_cal(&c, NULL, &w), -1);
	assert_false(w.have);
	add_pair(&c, "shared_cache", 2500, 2400, 2600);
	assert_int_equal(pma_wakecost_from_cal(&c, NULL, &w), 0);
	assert_double_equal(w.charge.cross_ns, 0, 0);
	memset(&c, 0, sizeof(c));
	add_pair(&c, "shared_cache", 40000, 40000, 40000);
	assert_int_equal(pma_wakecost_from_cal(&c, NULL, &w), -1);
	assert_false(w.have);
}

/* With the threads' CPU time per wake (cpu_ns): same CPU 2 us of which 2.2 us CPU (the clock
 * reads cost more than nothing), shared cache 26 us of which 18.2 us CPU. The cross-core wake's
 * CPU beyond the same CPU's, 16 us, is the n-core runs' CPU time (omega's): half of it, the
 * wakee's return from its wait, is left out of the charge: 26 - 2 - 8 = 16 us. The waker's half
 * stays (the wakee's core waits through it). One pair without cpu_ns: the whole 24 us. */
static void test_wakee_cpu_left_out(void **state)
{
	struct pma_wake_cal c = { 0 };
	struct pma_wake_result w;

	(void)state;
	add_pair(&c, "same_cpu", 2000, 1900, 2100);
	add_pair(&c, "shared_cache", 26000, 22000, 30000);
	c.pairs[0].cpu_ns = 2200;
	c.pairs[1].cpu_ns = 18200;
	assert_int_equal(pma_wakecost_from_cal(&c, NULL, &w), 0);
	assert_double_equal(w.wakee_cpu_ns, 8000, 1e-9);
	assert_double_equal(w.charge.cross_ns, 16000, 1e-9);
	assert_double_equal(w.cross_err_ns, hypot(4000, 100), 1e-9);
	c.pairs[0].cpu_ns = NAN;
	assert_int_equal(pma_wakecost_from_cal(&c, NULL, &w), 0);
	assert_double_equal(w.wakee_cpu_ns, 0, 0);
	assert_double_equal(w.charge.cross_ns, 24000, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_cache_first),
		cmocka_unit_test(test_order_of_classes),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_wakee_cpu_left_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
