/* SPDX-License-Identifier: MIT */
/* test_energy.c: collector/sources/energy.c on the fixture sysfs trees of tests/fixtures/sysfs/ (copied
 * to a temporary folder and pointed at with PMT_SYSFS_ROOT), and on this machine's own /sys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "energy.h"

#define ZONES "/sys/class/powercap/"

/* Copies tests/fixtures/sysfs/<name> (relative to $PMT_TOP, else .) to a new folder under /tmp
 * that any user can traverse, sets PMT_SYSFS_ROOT to it and returns it (free with drop_tree). */
static char *copy_tree(const char *name)
{
	const char *top = getenv("PMT_TOP");
	char tmpl[] = "/tmp/pmt-energy-XXXXXX", cmd[8192];
	char *root;

	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(chmod(tmpl, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cp -R '%s/tests/fixtures/sysfs/%s/.' '%s/'", top ? top : ".", name,
		 tmpl);
	assert_int_equal(system(cmd), 0);
	root = strdup(tmpl);
	assert_int_equal(setenv("PMT_SYSFS_ROOT", root, 1), 0);
	return root;
}

static void drop_tree(char *root)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	unsetenv("PMT_SYSFS_ROOT");
	free(root);
}

/* Writes a new energy_uj value into zone `id` of the tree, as the kernel's counter would move. */
static void put(const char *root, const char *id, unsigned long long uj)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s" ZONES "%s/energy_uj", root, id);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%llu\n", uj);
	assert_int_equal(fclose(f), 0);
}

static void test_delta(void **state)
{
	(void)state;
	assert_int_equal(pmc_energy_delta_uj(100, 250, 1000), 150);
	assert_int_equal(pmc_energy_delta_uj(900, 50, 1000), 150);   /* 50 + 1000 - 900 */
	assert_int_equal(pmc_energy_delta_uj(7, 7, 1000), 0);
	assert_int_equal(pmc_energy_delta_uj(5000, 40, 1000), 40);   /* e0 beyond the range */
	/* 64-bit: a delta beyond 2^32 survives */
	assert_int_equal(pmc_energy_delta_uj(1, 1ull << 40, UINT64_MAX), (1ull << 40) - 1);
}

static void test_two_packages(void **state)
{
	static const char *const want_id[] = { "intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1",
					       "intel-rapl:1", "intel-rapl:1:0", "intel-rapl:1:1" };
	static const char *const want_name[] = { "package-0", "core", "dram",
						 "package-1", "core", "dram" };
	char *root = copy_tree("two-packages");
	struct pmc_energy *e;
	char why[512] = "";
	size_t i;

	(void)state;
	assert_int_equal(pmc_energy_open(&e, why, sizeof(why)), 0);
	assert_int_equal(pmc_energy_source(e), PMC_ENERGY_POWERCAP);
	/* the intel-rapl control type and the intel-rapl-mmio duplicate are not zones */
	assert_int_equal(pmc_energy_count(e), 6);
	for (i = 0; i < 6; i++) {
		assert_string_equal(pmc_energy_zone(e, i)->id, want_id[i]);
		assert_string_equal(pmc_energy_zone(e, i)->name, want_name[i]);
	}
	assert_int_equal(pmc_energy_zone(e, 2)->max_energy_range_uj, 65712999613ull);
	put(root, "intel-rapl:0", 1500000);
	put(root, "intel-rapl:0:0", 700000);
	put(root, "intel-rapl:0:1", 160000);
	put(root, "intel-rapl:1", 2700000);
	put(root, "intel-rapl:1:0", 1300000);
	put(root, "intel-rapl:1:1", 290000);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 6);
	assert_int_equal(pmc_energy_zone(e, 0)->energy_uj, 500000);
	assert_int_equal(pmc_energy_zone(e, 1)->energy_uj, 300000);
	assert_int_equal(pmc_energy_zone(e, 2)->energy_uj, 60000);
	assert_int_equal(pmc_energy_zone(e, 3)->energy_uj, 700000);
	assert_int_equal(pmc_energy_zone(e, 4)->energy_uj, 500000);
	assert_int_equal(pmc_energy_zone(e, 5)->energy_uj, 90000);
	assert_null(pmc_energy_zone(e, 6));
	pmc_energy_close(e);
	drop_tree(root);
}

static void test_wraparound(void **state)
{
	char *root = copy_tree("wrap");
	const struct pmc_energy_zone *z;
	struct pmc_energy *e;
	char why[512] = "";

	(void)state;
	assert_int_equal(pmc_energy_open(&e, why, sizeof(why)), 0);
	z = pmc_energy_zone(e, 0);
	assert_int_equal(z->last_raw, 262143000000ull);
	put(root, "intel-rapl:0", 1000000);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 1);
	/* 1,000,000 + 262,143,328,850 - 262,143,000,000 */
	assert_int_equal(z->energy_uj, 1328850);
	assert_int_equal(z->wraps, 1);
	put(root, "intel-rapl:0", 3000000);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 1);
	assert_int_equal(z->energy_uj, 3328850);
	assert_int_equal(z->wraps, 1);
	pmc_energy_close(e);
	drop_tree(root);
}

static void test_disappearing_zone(void **state)
{
	char *root = copy_tree("disappear");
	char why[512] = "", cmd[4300];
	struct pmc_energy *e;

	(void)state;
	assert_int_equal(pmc_energy_open(&e, why, sizeof(why)), 0);
	assert_int_equal(pmc_energy_count(e), 2);
	put(root, "intel-rapl:0", 3400000);
	put(root, "intel-rapl:0:0", 1250000);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s" ZONES "intel-rapl:0:0'", root);
	assert_int_equal(system(cmd), 0);
	put(root, "intel-rapl:0", 3900000);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 1);
	assert_int_equal(pmc_energy_zone(e, 0)->energy_uj, 900000);
	assert_false(pmc_energy_zone(e, 0)->gone);
	assert_true(pmc_energy_zone(e, 1)->gone);
	assert_int_equal(pmc_energy_zone(e, 1)->energy_uj, 250000); /* kept what it had */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s" ZONES "intel-rapl:0'", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 0);
	pmc_energy_close(e);
	drop_tree(root);
}

/* energy_uj of mode 0400 owned by root, read by another user: the Linux >= 5.10 situation. The
 * tests run as root, which reads any file, so as root the opening runs with the effective uid of
 * nobody (65534, saved uid 0 to come back); as another user mode 0000 does the same. */
static void test_permission_denied(void **state)
{
	char *root = copy_tree("denied");
	char why[1024] = "", path[4200], *real;
	struct pmc_energy *e = NULL;
	uid_t uid = geteuid();
	FILE *f;
	int r, paranoid = 2;

	(void)state;
	snprintf(path, sizeof(path), "%s" ZONES "intel-rapl:0/energy_uj", root);
	assert_int_equal(chmod(path, uid == 0 ? 0400 : 0), 0);
	if (uid == 0)
		assert_int_equal(seteuid(65534), 0);
	r = pmc_energy_open(&e, why, sizeof(why));
	if (uid == 0)
		assert_int_equal(seteuid(0), 0);
	assert_int_equal(r, -1);
	assert_null(e);
	snprintf(path, sizeof(path), "powercap energy_uj is readable by root only (Linux >= 5.10): "
		 "%s" ZONES "intel-rapl:0/energy_uj: Permission denied; "
		 "perf power PMU: perf_event_open(energy-pkg, CPU 0)", root);
	assert_memory_equal(why, path, strlen(path));
	/* The kernel refuses a system-wide event to an unprivileged user when its own
	 * perf_event_paranoid is above 0; the message quotes the fixture's value, 2. */
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	real = strstr(why, ") denied: perf_event_paranoid is 2 (system-wide events need <= 0 or "
			   "CAP_PERFMON)");
	if (paranoid > 0)
		assert_non_null(real);
	pmc_energy_close(e);
	drop_tree(root);
}

/* The perf fallback on a PMU tree whose energy-pkg is the kernel's own cpu-clock (type 1
 * PERF_TYPE_SOFTWARE, config 0 PERF_COUNT_SW_CPU_CLOCK, counting ns on CPU 0) with scale 1e-9 J:
 * the "energy" in µJ is the elapsed time in µs, so the real perf_event_open and counter reads
 * run here, where no power PMU exists. Needs perf_event_paranoid <= 0 or root (a CPU-wide
 * event); otherwise skipped. */
static void test_perf_clock(void **state)
{
	char *root = copy_tree("perf-clock");
	char why[1024] = "";
	struct pmc_energy *e = NULL;
	struct timespec o0, o1, s0, s1;
	double lo_us, hi_us, got_uj;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &o0);
	if (pmc_energy_open(&e, why, sizeof(why)) < 0) {
		drop_tree(root);
		if (strstr(why, "denied")) {
			print_message("# skipped: %s\n", why);
			skip();
		}
		fail_msg("perf-clock tree: %s", why);
	}
	assert_int_equal(pmc_energy_source(e), PMC_ENERGY_PERF);
	assert_int_equal(pmc_energy_count(e), 1);
	assert_string_equal(pmc_energy_zone(e, 0)->name, "energy-pkg@cpu0");
	assert_string_equal(pmc_energy_zone_kind(pmc_energy_zone(e, 0)->name), "package");
	clock_gettime(CLOCK_MONOTONIC, &o1);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 1);
	usleep(100000);
	clock_gettime(CLOCK_MONOTONIC, &s0);
	assert_int_equal(pmc_energy_sample(e, why, sizeof(why)), 1);
	clock_gettime(CLOCK_MONOTONIC, &s1);
	got_uj = (double)pmc_energy_zone(e, 0)->energy_uj;
	/* the counter ran from within the open [o0, o1] to the second reading, within [s0, s1]:
	 * bracketed by timestamps, so a preemption anywhere (a loaded machine) widens the bracket
	 * instead of failing a fixed ratio (issue 33); 1% for the clocks' rates, 50 us for reads */
	lo_us = (double)(s0.tv_sec - o1.tv_sec) * 1e6 + (double)(s0.tv_nsec - o1.tv_nsec) / 1e3;
	hi_us = (double)(s1.tv_sec - o0.tv_sec) * 1e6 + (double)(s1.tv_nsec - o0.tv_nsec) / 1e3;
	print_message("# cpu-clock as energy: %.0f uJ, between %.0f and %.0f us\n", got_uj, lo_us,
		      hi_us);
	assert_true(got_uj >= 0.99 * lo_us - 50 && got_uj <= 1.01 * hi_us + 50);
	pmc_energy_close(e);
	drop_tree(root);
}

static void test_no_source_in_fixture(void **state)
{
	char *root = copy_tree("none");
	char why[1024] = "", want[4200];
	struct pmc_energy *e = NULL;

	(void)state;
	assert_int_equal(pmc_energy_open(&e, why, sizeof(why)), -1);
	snprintf(want, sizeof(want), "no powercap (no %s/sys/class/powercap/intel-rapl:* zone); "
		 "no perf power PMU (%s/sys/bus/event_source/devices/power)", root, root);
	assert_string_equal(why, want);
	drop_tree(root);
}

/* This machine: the project's VMs have neither (FIELD-NOTES.md); a server with RAPL has one. */
static void test_this_machine(void **state)
{
	struct pmc_energy *e = NULL;
	char why[1024] = "";
	int r;

	(void)state;
	unsetenv("PMT_SYSFS_ROOT");
	r = pmc_energy_open(&e, why, sizeof(why));
	if (access("/sys/class/powercap", F_OK) != 0 &&
	    access("/sys/bus/event_source/devices/power", F_OK) != 0) {
		assert_int_equal(r, -1);
		assert_string_equal(why, "no powercap (no /sys/class/powercap/intel-rapl:* zone); "
				    "no perf power PMU (/sys/bus/event_source/devices/power)");
		print_message("# this machine: %s\n", why);
	} else if (r == 0) {
		assert_true(pmc_energy_count(e) > 0);
		print_message("# this machine: %zu energy zones\n", pmc_energy_count(e));
	} else {
		assert_true(why[0] != '\0');
		print_message("# this machine: %s\n", why);
	}
	pmc_energy_close(e);
}

static void test_proc_stat(void **state)
{
	struct pmc_stat_cpu a, b;
	char *root, why[512];
	static const char old[] = "cpu  10 20 30 40 50 60 70\ncpu0 1 2 3 4 5 6 7\n";

	(void)state;
	root = copy_tree("none");
	assert_int_equal(pmc_read_proc_stat(&a, why, sizeof(why)), 0);
	drop_tree(root);
	root = copy_tree("wrap");
	assert_int_equal(pmc_read_proc_stat(&b, why, sizeof(why)), 0);
	drop_tree(root);
	/* user + nice + system + irq + softirq */
	assert_int_equal(a.busy_ticks, 36680 + 8392 + 21491 + 0 + 392);
	assert_int_equal(a.idle_ticks, 705476 + 469);
	assert_int_equal(a.steal_ticks, 17);
	assert_int_equal(b.busy_ticks - a.busy_ticks, 200);
	/* 200 ticks = 2 s of CPU at USER_HZ 100 in 1 s of wall time; the program used 0.5 s: the
	 * rest of the machine kept 1.5 CPUs busy */
	assert_float_equal(pmc_other_load_cpus(&a, &b, 500000000, 1000000000, 100), 1.5, 1e-12);
	assert_float_equal(pmc_other_load_cpus(&a, &b, 3000000000ull, 1000000000, 100), 0.0, 0);
	assert_float_equal(pmc_other_load_cpus(&b, &a, 0, 1000000000, 100), -1.0, 0);
	assert_float_equal(pmc_other_load_cpus(&a, &b, 0, 0, 100), -1.0, 0);
	/* no steal field (kernels before 2.6.11) */
	assert_int_equal(pmc_parse_proc_stat(old, sizeof(old) - 1, &a), 0);
	assert_int_equal(a.busy_ticks, 10 + 20 + 30 + 60 + 70);
	assert_int_equal(a.steal_ticks, 0);
	assert_int_equal(pmc_parse_proc_stat("cpu0 1 2 3 4 5 6 7 8\n", 21, &a), -1);
	assert_int_equal(pmc_parse_proc_stat("cpu  1 2 x 4 5 6 7 8\n", 21, &a), -1);
	assert_int_equal(pmc_parse_proc_stat("cpu  1 2 3\n", 11, &a), -1);
	/* the real file parses */
	unsetenv("PMT_SYSFS_ROOT");
	assert_int_equal(pmc_read_proc_stat(&a, why, sizeof(why)), 0);
	assert_true(a.busy_ticks > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_two_packages),
		cmocka_unit_test(test_wraparound),
		cmocka_unit_test(test_disappearing_zone),
		cmocka_unit_test(test_permission_denied),
		cmocka_unit_test(test_perf_clock),
		cmocka_unit_test(test_no_source_in_fixture),
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test(test_proc_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
