/* SPDX-License-Identifier: MIT */
/* test_cpuexpr.c: cmocka tests of LIKWID-style CPU expressions (common/cpuexpr.c) on hwloc
 * topologies from tests/fixtures/hwloc/ (2 sockets x 4 cores x 2 SMT; 1 socket with 2 L3 "CCX";
 * this 2-vCPU VM) and on the virtual domain "P" of likwid-pin(1)'s own examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuexpr.h"

/* Loads tests/fixtures/hwloc/<name> (relative to $PMT_TOP, else the current directory), or, for
 * a name starting with "synthetic:", the hwloc synthetic description after it. */
static hwloc_topology_t load(const char *name)
{
	const char *top = getenv("PMT_TOP");
	hwloc_topology_t topo;
	char path[1024];

	assert_int_equal(hwloc_topology_init(&topo), 0);
	if (strncmp(name, "synthetic:", 10) == 0) {
		assert_int_equal(hwloc_topology_set_synthetic(topo, name + 10), 0);
	} else {
		snprintf(path, sizeof(path), "%s/tests/fixtures/hwloc/%s", top ? top : ".", name);
		if (hwloc_topology_set_xml(topo, path) != 0)
			fail_msg("cannot read %s", path);
	}
	assert_int_equal(hwloc_topology_load(topo), 0);
	return topo;
}

/* Parses expr on topo and asserts it selects exactly want[0..n-1] in that order, and that the
 * sorted set matches. */
static void expect(hwloc_topology_t topo, const char *expr, const uint32_t *want, size_t n)
{
	struct pm_cpuexpr e;
	char why[256] = "", got[512] = "";
	size_t pos = 0;

	if (pm_cpuexpr_parse(topo, expr, &e, why, sizeof(why)) != 0)
		fail_msg("'%s' rejected: %s", expr, why);
	for (size_t i = 0; i < e.ncpus && pos < sizeof(got); i++)
		pos += (size_t)snprintf(got + pos, sizeof(got) - pos, "%s%u", i ? "," : "", e.cpus[i]);
	if (e.ncpus != n)
		fail_msg("'%s' selects %zu CPUs (%s), want %zu", expr, e.ncpus, got, n);
	for (size_t i = 0; i < n; i++)
		if (e.cpus[i] != want[i])
			fail_msg("'%s' selects %s; CPU %zu is %u, want %u", expr, got, i, e.cpus[i],
				 want[i]);
	assert_int_equal(e.set.n, n);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		if (i > 0)
			assert_true(e.set.v[i - 1] < e.set.v[i]);
		while (k < n && want[k] != e.set.v[i])
			k++;
		assert_true(k < n);
	}
	pm_cpuexpr_free(&e);
	assert_null(e.cpus);
	assert_null(e.set.v);
}

#define EXPECT(topo, expr, ...)                                                                 \
	do {                                                                                     \
		static const uint32_t want_[] = { __VA_ARGS__ };                                 \
		expect(topo, expr, want_, sizeof(want_) / sizeof(want_[0]));                     \
	} while (0)

/* Parses expr and asserts it is rejected with a reason containing needle, and *out empty. */
static void reject(hwloc_topology_t topo, const char *expr, const char *needle)
{
	struct pm_cpuexpr e;
	char why[256] = "";

	assert_int_equal(pm_cpuexpr_parse(topo, expr, &e, why, sizeof(why)), -1);
	assert_null(e.cpus);
	assert_int_equal(e.ncpus, 0);
	assert_null(e.set.v);
	assert_null(strchr(why, '\n'));
	if (!strstr(why, needle))
		fail_msg("reason for '%s' is '%s', want it to mention '%s'", expr, why, needle);
}

/* likwid-pin(1), CPU EXPRESSION: a domain "P" holding 0,4,1,5,2,6,3,7 (four cores with their SMT
 * threads +4) is 0,1,2,3,4,5,6,7 physical cores first; "L:P:0-2" is 0,1,2 and "E:P:4:2:4" is
 * 0,4,2,6. Here P is the node N of a synthetic machine with that numbering. */
static void test_manpage_domain_examples(void **state)
{
	hwloc_topology_t t = load("synthetic:pack:1 core:4 pu:2(indexes=0,4,1,5,2,6,3,7)");
	(void)state;

	EXPECT(t, "N", 0, 4, 1, 5, 2, 6, 3, 7);
	EXPECT(t, "N:0-7", 0, 1, 2, 3, 4, 5, 6, 7);
	EXPECT(t, "L:N:0-2", 0, 1, 2);
	EXPECT(t, "L:0-2", 0, 1, 2);
	EXPECT(t, "E:N:4:2:4", 0, 4, 2, 6);
	EXPECT(t, "E:N:4:1:2", 0, 1, 2, 3); /* "the first four physical CPUs" with 2 SMT threads */
	hwloc_topology_destroy(t);
}

/* likwid-pin(1): sockets S0 = 0,4,1,5 and S1 = 2,6,3,7 give "S:scatter" = 0,2,1,3,4,6,5,7. */
static void test_manpage_scatter_example(void **state)
{
	hwloc_topology_t t = load("synthetic:pack:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)");
	(void)state;

	EXPECT(t, "S0", 0, 4, 1, 5);
	EXPECT(t, "S1", 2, 6, 3, 7);
	EXPECT(t, "S:scatter", 0, 2, 1, 3, 4, 6, 5, 7);
	hwloc_topology_destroy(t);
}

/* 2 sockets x 4 cores x 2 SMT, Linux numbering: core c of socket s has CPUs 4s+c and 4s+c+8. */
static void test_two_sockets_smt(void **state)
{
	hwloc_topology_t t = load("2s4c2t.xml");
	(void)state;

	EXPECT(t, "N", 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
	EXPECT(t, "N:0-7", 0, 1, 2, 3, 4, 5, 6, 7); /* "8 cores, 16 SMT threads: all physical cores" */
	EXPECT(t, "S0:0-3", 0, 1, 2, 3);
	EXPECT(t, "S1:0-3", 4, 5, 6, 7);
	EXPECT(t, "S0:0-7", 0, 1, 2, 3, 8, 9, 10, 11);
	EXPECT(t, "S1:0,2-3", 4, 6, 7);
	EXPECT(t, "S0:0-7:2", 0, 2, 8, 10);
	EXPECT(t, "S0:0-3@S1:0-3", 0, 1, 2, 3, 4, 5, 6, 7);
	EXPECT(t, "S1:0-1@S0:0-1", 4, 5, 0, 1); /* concatenation keeps the written order */
	EXPECT(t, "E:N:8:1:2", 0, 1, 2, 3, 4, 5, 6, 7);
	EXPECT(t, "E:N:8", 0, 8, 1, 9, 2, 10, 3, 11);
	EXPECT(t, "E:S1:4:1:2", 4, 5, 6, 7);
	EXPECT(t, "E:S1:2:1:2:1", 12, 13); /* OFFSET 1: the SMT siblings */
	EXPECT(t, "S:scatter", 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
	EXPECT(t, "S:scatter:4", 0, 4, 1, 5);
	EXPECT(t, "M:scatter:2", 0, 4);
	EXPECT(t, "C:scatter:3", 0, 4, 1); /* one L3 per socket */
	EXPECT(t, "N:scatter:3", 0, 1, 2);
	EXPECT(t, "S:balanced:4", 0, 8, 4, 12); /* LIKWID's balanced: hardware-thread order */
	EXPECT(t, "S:balanced:3", 0, 8, 4);
	EXPECT(t, "M1", 4, 12, 5, 13, 6, 14, 7, 15); /* cores by lowest OS CPU, threads together */
	EXPECT(t, "M1:0-3", 4, 5, 6, 7);
	EXPECT(t, "E:M1:2:1:4", 4, 6);
	EXPECT(t, "C1:0", 4);
	EXPECT(t, "D1:0-1", 4, 5); /* no dies in this topology: D# are the packages */
	EXPECT(t, "3,0-1", 3, 0, 1);
	EXPECT(t, "0-15:8", 0, 8);
	EXPECT(t, "8-11@S1:0", 8, 9, 10, 11, 4);
	hwloc_topology_destroy(t);
}

/* 1 socket, one die, 2 L3 caches ("CCX") of 4 cores x 2 SMT. */
static void test_one_socket_two_ccx(void **state)
{
	hwloc_topology_t t = load("1s2ccx.xml");
	(void)state;

	EXPECT(t, "C0:0-3", 0, 1, 2, 3);
	EXPECT(t, "C1:0-3", 4, 5, 6, 7);
	EXPECT(t, "C1:4-7", 12, 13, 14, 15);
	EXPECT(t, "C:scatter:4", 0, 4, 1, 5);
	EXPECT(t, "C:balanced:2", 0, 4);
	EXPECT(t, "C:balanced:6", 0, 8, 1, 4, 12, 5);
	EXPECT(t, "D0:0-7", 0, 1, 2, 3, 4, 5, 6, 7);
	EXPECT(t, "S:scatter:3", 0, 1, 2); /* one socket: its own order */
	EXPECT(t, "M0:8", 8);
	reject(t, "S1:0", "'S1': the topology has S0 only");
	reject(t, "M1", "'M1': the topology has M0 only");
	hwloc_topology_destroy(t);
}

/* Where OS numbering interleaves the sockets (hwloc's 16em64t-4s2c2t, here 2 sockets of 2 cores
 * x 2 SMT: socket 0 has cores {0,4} and {2,6}): LIKWID takes a NUMA domain's cores by their
 * lowest OS CPU number, threads together for M0, E: and balanced, physical cores first for index
 * lists and scatter (likwid-pin 5.2.2 on 16em64t-4s2c2t: M0 = 0,8,1,9,..., M0:0-3 = 0,1,2,3,
 * M:balanced:4 = 0,8,1,9), where a socket or N is listed by hwloc's core order. */
static void test_numa_core_order(void **state)
{
	hwloc_topology_t t = load("synthetic:pack:2 core:2 pu:2(indexes=0,4,2,6,1,5,3,7)");
	(void)state;

	EXPECT(t, "N:0-3", 0, 2, 1, 3);
	EXPECT(t, "M0:0-3", 0, 1, 2, 3);
	EXPECT(t, "M0", 0, 4, 1, 5, 2, 6, 3, 7);
	EXPECT(t, "E:M0:2:1:2", 0, 1);
	EXPECT(t, "M:scatter:3", 0, 1, 2);
	EXPECT(t, "M:balanced:2", 0, 4);
	hwloc_topology_destroy(t);
}

/* A VM: 1 package, 1 NUMA node, 2 vCPUs each with its own (hypervisor-made) L3. There is one C
 * domain per last-level cache instance even where it is private to a core, as in likwid-pin 5.2.2
 * (hwloc's 16amd64-8n2c: C0 = 0, C15 = 15). */
static void test_this_vm(void **state)
{
	hwloc_topology_t t = load("vm-2cpu.xml");
	(void)state;

	EXPECT(t, "N", 0, 1);
	EXPECT(t, "S0:0-1", 0, 1);
	EXPECT(t, "C0", 0);
	EXPECT(t, "C1", 1);
	reject(t, "C2", "'C2': the topology has C0-C1");
	EXPECT(t, "C:scatter", 0, 1);
	EXPECT(t, "M0:1@M0:0", 1, 0);
	EXPECT(t, "1@0", 1, 0);
	EXPECT(t, "E:N:2:1:1", 0, 1);
	reject(t, "E:N:2:1:2", "runs past the end of N (2 CPUs) after 1 of 2 CPUs");
	reject(t, "S0:2", "'2' is outside 0-1 (S0 has 2 CPUs, logical indices 0-1)");
	reject(t, "2", "'2' is outside 0-1");
	hwloc_topology_destroy(t);
}

/* LIKWID silently pins two threads to one CPU; we refuse and say where. */
static void test_duplicates_rejected(void **state)
{
	hwloc_topology_t t = load("2s4c2t.xml");
	(void)state;

	reject(t, "S0:0@N:0", "CPU 0 is selected twice, by 'S0:0' and by 'N:0'");
	reject(t, "0-3@S0:3", "CPU 3 is selected twice, by '0-3' and by 'S0:3'");
	reject(t, "1,1", "CPU 1 is selected twice by '1,1'");
	reject(t, "S0:0,4,0", "CPU 0 is selected twice by 'S0:0,4,0'");
	reject(t, "E:N:4:2:1", "CPU 8 is selected twice by 'E:N:4:2:1'"); /* chunks overlap */
	reject(t, "S:scatter:2@S1:0", "CPU 4 is selected twice, by 'S:scatter:2' and by 'S1:0'");
	hwloc_topology_destroy(t);
}

static void test_bad_expressions(void **state)
{
	hwloc_topology_t t = load("2s4c2t.xml");
	struct pm_cpuexpr e;
	char why[256];
	(void)state;

	reject(t, "", "empty CPU expression");
	reject(t, "0@", "empty part");
	reject(t, "@0", "empty part");
	reject(t, "0@@1", "empty part");
	reject(t, "S2:0", "in 'S2:0': 'S2': the topology has S0-S1");
	reject(t, "X0:0", "'X0' is not a domain (N, S#, D#, C#, M#)");
	reject(t, "s0:0", "'s0' is not a domain");
	reject(t, "S:0", "'S' is not a domain");
	reject(t, "S0:0-8", "'0-8' is outside 0-7 (S0 has 8 CPUs");
	reject(t, "S0:3-1", "runs backwards");
	reject(t, "S0:", "empty item");
	reject(t, "S0:1,,2", "empty item");
	reject(t, "16", "'16' is outside 0-15");
	reject(t, "0-3 ", "is not a number or range");
	reject(t, "E:N:20", "runs past the end of N (16 CPUs) after 16 of 20 CPUs");
	reject(t, "E:N:8:1:4", "runs past the end of N (16 CPUs) after 4 of 8 CPUs");
	reject(t, "E:N:0", "count '0' is not a number >= 1");
	reject(t, "E:N:4:1", "want E:<domain>");
	reject(t, "E:N:4:1:x", "stride 'x' is not a number");
	reject(t, "E:Q:4", "'Q' is not a domain");
	reject(t, "S:scatter:17", "asks for 17 CPUs, but the packages (sockets) have 16");
	reject(t, "S:scatter:0", "count '0' is not a number >= 1");
	reject(t, "S0:scatter", "'S0' is not a domain kind (N, S, D, C, M)");
	reject(t, "S:scatter:2:1", "want <kind>:scatter[:<count>]");
	reject(t, "L:S0", "want L:<domain>:<indexlist>");
	/* a NULL topology or expression is refused, not dereferenced */
	assert_int_equal(pm_cpuexpr_parse(NULL, "0", &e, why, sizeof(why)), -1);
	assert_int_equal(pm_cpuexpr_parse(t, NULL, &e, why, sizeof(why)), -1);
	pm_cpuexpr_free(NULL);
	hwloc_topology_destroy(t);
}

/* 50,000 random strings over the grammar's alphabet (fixed seed): each is either a valid
 * selection (every CPU in the topology, none twice, set = the CPUs sorted) or an error with a
 * one-line reason and nothing allocated; under ASan/UBSan also no memory error. */
static void test_random_expressions(void **state)
{
	static const char *const atoms[] = { "N", "S", "D", "C", "M", "E", "L", "0", "1", "3", "7",
					     "15", "16", "99999999999", ":", ":", "@", ",", "-",
					     "scatter", "balanced", "x", "" };
	hwloc_topology_t t = load("2s4c2t.xml");
	uint64_t seed = 0x9e3779b97f4a7c15u;
	size_t accepted = 0;
	(void)state;

	for (int iter = 0; iter < 50000; iter++) {
		char expr[64] = "", why[256] = "";
		struct pm_cpuexpr e;
		int natoms;

		seed = seed * 6364136223846793005u + 1442695040888963407u;
		natoms = 1 + (int)(seed >> 60);
		for (int k = 0; k < natoms; k++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			const char *a = atoms[(seed >> 33) % (sizeof(atoms) / sizeof(atoms[0]))];
			if (strlen(expr) + strlen(a) < sizeof(expr))
				strcat(expr, a);
		}
		if (pm_cpuexpr_parse(t, expr, &e, why, sizeof(why)) == 0) {
			int seen[16] = { 0 };
			accepted++;
			assert_true(e.ncpus >= 1 && e.ncpus <= 16);
			assert_int_equal(e.set.n, e.ncpus);
			for (size_t i = 0; i < e.ncpus; i++) {
				assert_true(e.cpus[i] < 16);
				assert_int_equal(seen[e.cpus[i]]++, 0);
			}
			for (size_t i = 0, k = 0; i < 16; i++)
				if (seen[i])
					assert_int_equal(e.set.v[k++], i);
			pm_cpuexpr_free(&e);
		} else {
			assert_true(why[0] != '\0');
			assert_null(strchr(why, '\n'));
			assert_null(e.cpus);
			assert_null(e.set.v);
		}
	}
	/* the alphabet reaches valid expressions too, not only errors */
	assert_true(accepted > 100);
	hwloc_topology_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manpage_domain_examples),
		cmocka_unit_test(test_manpage_scatter_example),
		cmocka_unit_test(test_two_sockets_smt),
		cmocka_unit_test(test_one_socket_two_ccx),
		cmocka_unit_test(test_numa_core_order),
		cmocka_unit_test(test_this_vm),
		cmocka_unit_test(test_duplicates_rejected),
		cmocka_unit_test(test_bad_expressions),
		cmocka_unit_test(test_random_expressions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
