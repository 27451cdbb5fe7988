/* SPDX-License-Identifier: MIT */
/* test_schedtrace.c: unit tests of collector/sources/schedtrace.c's tracefs check (pmc_sched_probe) on the
 * fixture trees of tests/fixtures/sysfs (tracefs present, present without the sched events,
 * absent), whatever this machine's tracefs is. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedtrace.h"

/* <PMT_TOP>/tests/fixtures/sysfs/<tree>/sys/kernel/tracing into buf. */
static const char *fixture(char *buf, size_t size, const char *tree)
{
	const char *top = getenv("PMT_TOP");

	snprintf(buf, size, "%s/tests/fixtures/sysfs/%s/sys/kernel/tracing", top ? top : ".", tree);
	return buf;
}

/* tracefs with every sched event pmcollect needs (the formats of a 6.18 kernel): usable. */
static void test_probe_present(void **state)
{
	char dir[PATH_MAX], why[600] = "";

	(void)state;
	assert_int_equal(pmc_sched_probe(fixture(dir, sizeof(dir), "tracefs"), why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

/* No tracefs found at all (libtracefs gave NULL), or a root without sys/kernel/tracing (the
 * "none" tree): not mounted, and the mount command. */
static void test_probe_absent(void **state)
{
	char dir[PATH_MAX], why[600] = "", want[PATH_MAX + 200];

	(void)state;
	assert_int_equal(pmc_sched_probe(NULL, why, sizeof(why)), PMT_E_IO);
	assert_string_equal(why, "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	fixture(dir, sizeof(dir), "none");
	assert_int_equal(pmc_sched_probe(dir, why, sizeof(why)), PMT_E_IO);
	snprintf(want, sizeof(want), "tracefs is not mounted (no %s/events; mount -t tracefs nodev "
		 "/sys/kernel/tracing)", dir);
	assert_string_equal(why, want);
}

/* tracefs mounted, but the kernel has no sched_switch tracepoint (tracefs-nosched: events/ with
 * only sched_process_exit): the first missing event is named. */
static void test_probe_events_missing(void **state)
{
	char dir[PATH_MAX], why[600] = "", want[PATH_MAX + 200];

	(void)state;
	fixture(dir, sizeof(dir), "tracefs-nosched");
	assert_int_equal(pmc_sched_probe(dir, why, sizeof(why)), PMT_E_INVAL);
	snprintf(want, sizeof(want), "the kernel has no sched:sched_switch event (no "
		 "%s/events/sched/sched_switch/format)", dir);
	assert_string_equal(why, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_present),
		cmocka_unit_test(test_probe_absent),
		cmocka_unit_test(test_probe_events_missing),
	};

	return cmocka_run_group_tests_name("schedtrace", tests, NULL, NULL);
}
