/* SPDX-License-Identifier: MIT */
/* test_cpuset.c: the CPUs pmcollect may use (collector/sources/cpuset.c) from fixture /proc and cgroup
 * trees: cgroup v2 with the cpuset file in a parent only, cgroup v1 "cpu,cpuset" seen from a
 * container (mount root stripped), no cpuset hierarchy; and the intersection with the online CPUs
 * and the affinity (issue 19, case 3: taskset -c 0, a Slurm or container cpuset). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <math.h>

#include <cmocka.h>

#include "cpuset.h"

static char root[256];

/* Writes root/path (directories made as needed) with text. */
static void put(const char *path, const char *text)
{
	char full[1024], cmd[1200];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", full);
	assert_int_equal(system(cmd), 0);
	f = fopen(full, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/pmt-test-cpuset-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct pm_intlist list(uint32_t *v, size_t n)
{
	struct pm_intlist l = { v, n };
	return l;
}

/* cgroup v2: /job/step has no cpuset.cpus.effective (the controller is not enabled there), its
 * parent /job has "2-3"; a space in the mount point is escaped as \040 in mountinfo. */
static void test_v2_parent(void **state)
{
	char cpus[64], file[512], why[256];

	(void)state;
	put("/proc/self/mountinfo",
	    "22 1 0:20 / /sys rw - sysfs sysfs rw\n"
	    "30 22 0:26 / /sys/fs/cg\\0402 rw - cgroup2 cgroup2 rw,nsdelegate\n");
	put("/proc/self/cgroup", "0::/job/step\n");
	put("/sys/fs/cg 2/job/cpuset.cpus.effective", "2-3\n");
	put("/sys/fs/cg 2/job/step/cgroup.procs", "1\n");
	assert_int_equal(pmc_cgroup_cpuset(root, cpus, sizeof(cpus), file, sizeof(file), why,
					   sizeof(why)), 0);
	assert_string_equal(cpus, "2-3");
	assert_string_equal(file, "/sys/fs/cg 2/job/cpuset.cpus.effective");
}

/* cgroup v1 with cpu and cpuset co-mounted, inside a container: the mount's root is the
 * container's cgroup, which the process's path starts with. The v1 cpuset wins over cgroup2. */
static void test_v1_container(void **state)
{
	char cpus[64], file[512], why[256];

	(void)state;
	put("/proc/self/mountinfo",
	    "30 22 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
	    "31 22 0:27 /docker/abc /sys/fs/cgroup/cpu,cpuset rw - cgroup cgroup rw,cpu,cpuset\n");
	put("/proc/self/cgroup", "5:memory:/docker/abc\n3:cpu,cpuset:/docker/abc/inner\n0::/\n");
	put("/sys/fs/cgroup/cpu,cpuset/inner/cpuset.effective_cpus", "1,3\n");
	assert_int_equal(pmc_cgroup_cpuset(root, cpus, sizeof(cpus), file, sizeof(file), why,
					   sizeof(why)), 0);
	assert_string_equal(cpus, "1,3");
	assert_string_equal(file, "/sys/fs/cgroup/cpu,cpuset/inner/cpuset.effective_cpus");
}

/* No cgroup mount: no restriction from a cgroup, and a reason. */
static void test_no_hierarchy(void **state)
{
	char cpus[64], file[512], why[256];

	(void)state;
	put("/proc/self/mountinfo", "22 1 0:20 / /sys rw - sysfs sysfs rw\n");
	put("/proc/self/cgroup", "0::/\n");
	assert_int_equal(pmc_cgroup_cpuset(root, cpus, sizeof(cpus), file, sizeof(file), why,
					   sizeof(why)), -1);
	assert_string_equal(why, "no cgroup hierarchy with the cpuset controller is mounted");
}

/* online 0-3, affinity {0,1,2} (taskset), cgroup cpuset 1-3: usable 1-2, restricted; with the
 * affinity alone (no cgroup): 0-2; a stale cgroup list sharing nothing with the affinity is left
 * out; nothing restricted: every online CPU, not restricted. */
static void test_intersection(void **state)
{
	uint32_t on[] = { 0, 1, 2, 3 };
	struct pm_intlist online = list(on, 4);
	struct pmc_usable_cpus u;
	cpu_set_t aff;
	char why[256];

	(void)state;
	put("/proc/self/mountinfo", "30 22 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put("/proc/self/cgroup", "0::/slurm/job1\n");
	put("/sys/fs/cgroup/slurm/job1/cpuset.cpus.effective", "1-3\n");
	CPU_ZERO(&aff);
	CPU_SET(0, &aff);
	CPU_SET(1, &aff);
	CPU_SET(2, &aff);
	assert_int_equal(pmc_usable_cpus_get(root, &online, &aff, &u, why, sizeof(why)), 0);
	assert_string_equal(u.text, "1-2");
	assert_string_equal(u.affinity, "0-2");
	assert_string_equal(u.cgroup_cpus, "1-3");
	/* the cgroup's CPUs travel parsed, for pmc_binding_pin */
	assert_int_equal(u.cgroup.n, 3);
	assert_int_equal(u.cgroup.v[0], 1);
	assert_int_equal(u.cgroup.v[2], 3);
	assert_int_equal(u.restricted, 1);
	assert_int_equal(u.cpus.n, 2);
	pmc_usable_cpus_free(&u);

	assert_int_equal(pmc_usable_cpus_get(NULL, &online, &aff, &u, why, sizeof(why)), 0);
	assert_string_equal(u.text, "0-2");
	assert_string_equal(u.cgroup_cpus, "");
	assert_int_equal(u.cgroup.n, 0);
	pmc_usable_cpus_free(&u);

	put("/sys/fs/cgroup/slurm/job1/cpuset.cpus.effective", "3\n");
	assert_int_equal(pmc_usable_cpus_get(root, &online, &aff, &u, why, sizeof(why)), 0);
	assert_string_equal(u.text, "0-2");
	pmc_usable_cpus_free(&u);

	put("/sys/fs/cgroup/slurm/job1/cpuset.cpus.effective", "0-3\n");
	assert_int_equal(pmc_usable_cpus_get(root, &online, NULL, &u, why, sizeof(why)), 0);
	assert_string_equal(u.text, "0-3");
	assert_int_equal(u.restricted, 0);
	pmc_usable_cpus_free(&u);

	CPU_ZERO(&aff);
	CPU_SET(7, &aff);
	assert_int_equal(pmc_usable_cpus_get(NULL, &online, &aff, &u, why, sizeof(why)), -1);
	assert_string_equal(why, "none of the online CPUs is in pmcollect's affinity");
}

/* One CPU model for the CPUs the user names (pmc_cpus_parse): a plain cpulist as written, a CPU
 * expression on the topology given (2 sockets x 4 cores x 2 SMT: S1:0-1 is CPUs 4-5), the three
 * forms agreeing; offline CPUs and an expression without a topology refused with a reason. */
static void test_cpus_parse(void **state)
{
	static uint32_t on[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	const struct pm_intlist online = { on, 16 }, two = { on, 2 };
	const char *top = getenv("PMT_TOP");
	hwloc_topology_t topo;
	struct pmc_cpus c;
	char path[4096], why[256] = "";

	(void)state;
	assert_int_equal(pmc_cpus_parse(NULL, "1-3,8", &online, &c, why, sizeof(why)), 0);
	assert_int_equal(c.list.n, 4);
	assert_string_equal(c.text, "1-3,8");
	assert_true(CPU_ISSET(8, &c.set) && CPU_ISSET(1, &c.set) && !CPU_ISSET(0, &c.set));
	assert_int_equal(CPU_COUNT(&c.set), 4);
	pmc_cpus_free(&c);
	assert_null(c.list.v);
	pmc_cpus_free(&c); /* twice is fine */

	assert_int_equal(pmc_cpus_parse(NULL, "0-3", &two, &c, why, sizeof(why)), -1);
	assert_string_equal(why, "CPU 2 is not online (online: 0-1)");
	assert_null(c.list.v);
	assert_int_equal(pmc_cpus_parse(NULL, "S0:0", &online, &c, why, sizeof(why)), -1);
	assert_string_equal(why, "a CPU expression needs the machine's topology");

	snprintf(path, sizeof(path), "%s/tests/fixtures/hwloc/2s4c2t.xml", top ? top : ".");
	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_xml(topo, path), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	assert_int_equal(pmc_cpus_parse(topo, "S1:0-1", &online, &c, why, sizeof(why)), 0);
	assert_string_equal(c.text, "4-5");
	assert_int_equal(c.list.n, 2);
	assert_true(CPU_ISSET(4, &c.set) && CPU_ISSET(5, &c.set));
	assert_int_equal(CPU_COUNT(&c.set), 2);
	pmc_cpus_free(&c);
	assert_int_equal(pmc_cpus_parse(topo, "S2:0", &online, &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "S2"));
	hwloc_topology_destroy(topo);
}

/* CPU limits, cgroup v2: a container's cgroup with cpu.max "150000 100000" (1.5 CPUs),
 * cpu.max.burst 20000 and cpu.stat's counters; the mount shows the hierarchy from /kubepods. */
static void test_cpu_limit_v2(void **state)
{
	struct pmc_cgroup_cpu cg;
	struct pmc_cpu_stat st;
	char why[256];

	(void)state;
	put("/proc/self/mountinfo", "30 22 0:26 /kubepods /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	put("/proc/self/cgroup", "0::/kubepods/pod1\n");
	put("/sys/fs/cgroup/pod1/cpu.max", "150000 100000\n");
	put("/sys/fs/cgroup/pod1/cpu.max.burst", "20000\n");
	put("/sys/fs/cgroup/pod1/cpu.stat", "usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\n"
	    "nr_periods 17\nnr_throttled 16\nthrottled_usec 396160\n");
	assert_int_equal(pmc_cgroup_cpu_limit(root, &cg, why, sizeof(why)), 0);
	assert_int_equal(cg.v1, 0);
	assert_string_equal(cg.dir, "/sys/fs/cgroup/pod1");
	assert_true(cg.quota_us == 150000 && cg.period_us == 100000 && cg.burst_us == 20000);
	assert_int_equal(pmc_cgroup_cpu_stat(root, &cg, &st), 0);
	assert_true(st.nr_periods == 17 && st.nr_throttled == 16 && st.throttled_us == 396160);
	/* no limit: "max" */
	put("/sys/fs/cgroup/pod1/cpu.max", "max 100000\n");
	assert_int_equal(pmc_cgroup_cpu_limit(root, &cg, why, sizeof(why)), 0);
	assert_true(cg.quota_us == -1 && cg.period_us == 100000);
}

/* CPU limits, cgroup v1: the cpu,cpuacct hierarchy beside a cpuset one; cfs_quota_us 50000 per
 * cfs_period_us 100000 (0.5 CPU), no burst file (before Linux 5.14); cpu.stat's throttled_time
 * in ns. -1 is no limit. */
static void test_cpu_limit_v1(void **state)
{
	struct pmc_cgroup_cpu cg;
	struct pmc_cpu_stat st;
	char why[256];

	(void)state;
	put("/proc/self/mountinfo",
	    "31 25 0:27 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
	    "32 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n");
	put("/proc/self/cgroup", "5:cpuset:/\n4:cpu,cpuacct:/pmq\n");
	put("/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.cfs_quota_us", "50000\n");
	put("/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.cfs_period_us", "100000\n");
	put("/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.stat", "nr_periods 49\nnr_throttled 48\nthrottled_time 3596160549\n");
	assert_int_equal(pmc_cgroup_cpu_limit(root, &cg, why, sizeof(why)), 0);
	assert_int_equal(cg.v1, 1);
	assert_string_equal(cg.dir, "/sys/fs/cgroup/cpu,cpuacct/pmq");
	assert_true(cg.quota_us == 50000 && cg.period_us == 100000 && cg.burst_us == 0);
	assert_int_equal(pmc_cgroup_cpu_stat(root, &cg, &st), 0);
	assert_true(st.nr_periods == 49 && st.nr_throttled == 48 && fabs(st.throttled_us - 3596160.549) < 1e-3);
	put("/sys/fs/cgroup/cpu,cpuacct/pmq/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(pmc_cgroup_cpu_limit(root, &cg, why, sizeof(why)), 0);
	assert_true(cg.quota_us == -1);
	/* no cpu controller mounted: a reason */
	put("/proc/self/mountinfo", "31 25 0:27 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n");
	assert_int_equal(pmc_cgroup_cpu_limit(root, &cg, why, sizeof(why)), -1);
	assert_string_equal(why, "no cgroup with the cpu controller");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v2_parent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_limit_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_limit_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v1_container, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_hierarchy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_intersection, setup, teardown),
		cmocka_unit_test(test_cpus_parse),
	};
	return cmocka_run_group_tests_name("cpuset", tests, NULL, NULL);
}
