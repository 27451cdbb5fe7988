/* SPDX-License-Identifier: MIT */
/* test_meta.c: unit tests of collector/sources/meta.c, the META JSON (FORMAT.md §6), against this machine. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <hwloc.h>
#include <hwloc/export.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "meta.h"
#include "rank.h"
#include "testlib.h"

static char arg0[] = "./app", arg1[] = "x";
static char *const test_argv[] = {arg0, arg1, NULL};

/* pmc_meta_build with the topology hwloc loads now (HWLOC_XMLFILE when set), as the session
 * passes its own. */
static int meta_build(struct pmc_meta_input *in, cJSON **m, char *why, size_t whysize)
{
	hwloc_topology_t topo;
	int rc;

	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	in->topo = topo;
	rc = pmc_meta_build(in, m, why, whysize);
	hwloc_topology_destroy(topo);
	return rc;
}

/* Builds META for argv {"./app", "x"}, interval 10 ms, CPUs "0", the way pmcollect calls it. */
static cJSON *build(const char *cpus, const char *mode, const char *nodes, int collector_cpu)
{
	struct pmc_meta_input in = {
		.argc = 2,
		.argv = test_argv,
		.interval_ms = 10.0,
		.cpus = cpus,
		.collector_cpu = collector_cpu,
		.mem_mode = mode,
		.mem_nodes = nodes,
		.start_mono_ns = 123456789012ull,
	};
	char why[256] = "";
	cJSON *m;

	if (meta_build(&in, &m, why, sizeof(why)) < 0)
		print_message("# pmc_meta_build: %s\n", why);
	assert_non_null(m);
	return m;
}

static cJSON *build_default(void)
{
	return build("0", "default", NULL, 1);
}

static cJSON *get(const cJSON *o, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (v == NULL)
		print_message("# missing key '%s'\n", key);
	assert_non_null(v);
	return v;
}

static double num(const cJSON *o, const char *key)
{
	cJSON *v = get(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
	cJSON *v = get(o, key);

	assert_true(cJSON_IsString(v));
	assert_non_null(v->valuestring);
	return v->valuestring;
}

static void test_command_equals_argv(void **state)
{
	cJSON *m = build_default(), *cmd;
	int i;

	(void)state;
	cmd = get(m, "command");
	assert_true(cJSON_IsArray(cmd));
	assert_int_equal(cJSON_GetArraySize(cmd), 2);
	for (i = 0; i < 2; i++) {
		cJSON *s = cJSON_GetArrayItem(cmd, i);

		assert_true(cJSON_IsString(s));
		assert_string_equal(s->valuestring, test_argv[i]);
	}
	cJSON_Delete(m);
}

static void test_versions_interval_and_cpus(void **state)
{
	cJSON *m = build_default();

	(void)state;
	assert_string_equal(str(m, "format"), "pmtrace");
	assert_string_equal(str(m, "format_version"), "2.0");
	assert_string_equal(str(m, "tool"), "pmcollect");
	assert_string_equal(str(m, "tool_version"), "0.1.0");
	assert_true(num(m, "interval_ms") == 10.0);
	assert_string_equal(str(m, "cpus"), "0");
	assert_true(num(m, "collector_cpu") == 1.0);
	assert_true(num(m, "start_mono_ns") == 123456789012.0);
	assert_string_equal(str(m, "clock"), "CLOCK_MONOTONIC");
	assert_true(num(m, "user_hz") == (double)sysconf(_SC_CLK_TCK));
	assert_true(num(m, "page_size_bytes") == (double)sysconf(_SC_PAGESIZE));
	cJSON_Delete(m);
}

/* Every key FORMAT.md §6 lists, with its JSON type, after a print/parse round trip (what the
 * analyzer will see). */
static void test_all_format_keys_after_round_trip(void **state)
{
	cJSON *m = build_default(), *p, *k, *t, *mp;
	char *text;

	(void)state;
	text = cJSON_PrintUnformatted(m);
	assert_non_null(text);
	p = cJSON_Parse(text);
	free(text);
	assert_non_null(p);
	assert_true(cJSON_IsArray(get(p, "command")));
	str(p, "cwd");
	assert_true(cJSON_IsObject(get(p, "env")));
	str(p, "start_utc");
	num(p, "start_mono_ns");
	str(p, "hostname");
	k = get(p, "kernel");
	assert_string_equal(str(k, "sysname"), "Linux");
	str(k, "release");
	str(k, "machine");
	num(p, "user_hz");
	/* the tick rate, or null and why (kconfig.h; its fixtures in test_kconfig.c) */
	if (cJSON_IsNull(get(p, "config_hz")))
		assert_true(strlen(str(p, "config_hz_why")) > 0);
	else
		assert_true(num(p, "config_hz") >= 1 && strlen(str(p, "config_hz_source")) > 0);
	num(p, "page_size_bytes");
	num(p, "interval_ms");
	str(p, "cpus");
	str(p, "online_cpus");
	num(p, "collector_cpu");
	mp = get(p, "mempolicy");
	assert_string_equal(str(mp, "mode"), "default");
	assert_true(cJSON_IsNull(get(mp, "nodes")));
	t = get(p, "topology");
	num(t, "packages");
	num(t, "cores");
	num(t, "pus");
	num(t, "numa_nodes");
	assert_true(cJSON_IsArray(get(t, "numa_distances")));
	assert_true(cJSON_IsArray(get(t, "caches")));
	assert_true(strlen(str(t, "hwloc_xml")) > 0);
	assert_true(cJSON_IsObject(get(p, "cpufreq")) || cJSON_IsNull(get(p, "cpufreq")));
	assert_true(cJSON_IsObject(get(p, "sources")));
	assert_int_equal(cJSON_GetArraySize(get(p, "sources")), 0);
	cJSON_Delete(p);
	cJSON_Delete(m);
}

static void test_topology_counts_match_machine(void **state)
{
	cJSON *m = build_default(), *t;
	double pus, cores, packages;

	(void)state;
	t = get(m, "topology");
	pus = num(t, "pus");
	cores = num(t, "cores");
	packages = num(t, "packages");
	assert_true(pus == (double)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(pus >= cores);
	assert_true(cores >= packages);
	assert_true(packages >= 1);
	assert_true(num(t, "numa_nodes") >= 1);
	cJSON_Delete(m);
}

/* numa_distances is numa_nodes x numa_nodes and local (diagonal) is the smallest of each row. */
static void test_numa_distance_matrix_shape(void **state)
{
	cJSON *m = build_default(), *t, *d;
	int n, i, j;
	const char *source;

	(void)state;
	t = get(m, "topology");
	n = (int)num(t, "numa_nodes");
	d = get(t, "numa_distances");
	assert_int_equal(cJSON_GetArraySize(d), n);
	for (i = 0; i < n; i++) {
		cJSON *row = cJSON_GetArrayItem(d, i);
		double diag;

		assert_true(cJSON_IsArray(row));
		assert_int_equal(cJSON_GetArraySize(row), n);
		diag = cJSON_GetArrayItem(row, i)->valuedouble;
		assert_true(diag > 0);
		for (j = 0; j < n; j++)
			assert_true(cJSON_GetArrayItem(row, j)->valuedouble >= diag);
	}
	source = str(t, "numa_distances_source");
	assert_true(strcmp(source, "hwloc") == 0 || strcmp(source, "none") == 0);
	assert_int_equal(cJSON_GetArraySize(get(t, "numa_node_ids")), n);
	cJSON_Delete(m);
}

/* Writes an XML topology of 2 packages, each with its own NUMA node and 2 PUs, with a NUMA
 * latency matrix {{10, 21}, {21, 10}}, to path. */
static void write_two_node_xml(const char *path)
{
	hwloc_topology_t topo;
	hwloc_obj_t nodes[2];
	hwloc_uint64_t values[4] = {10, 21, 21, 10};
	hwloc_distances_add_handle_t h;

	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_synthetic(topo, "pack:2 [numa] core:2 pu:1"), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), 2);
	nodes[0] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 0);
	nodes[1] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, 1);
	h = hwloc_distances_add_create(topo, "test", HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0);
	assert_non_null(h);
	assert_int_equal(hwloc_distances_add_values(topo, h, 2, nodes, values, 0), 0);
	assert_int_equal(hwloc_distances_add_commit(topo, h, 0), 0);
	assert_int_equal(hwloc_topology_export_xml(topo, path, 0), 0);
	hwloc_topology_destroy(topo);
}

/* On a 2-node topology (given to hwloc through its HWLOC_XMLFILE override) the matrix comes
 * from hwloc, in node order, and the counts follow the topology. */
static void test_numa_distances_from_hwloc_on_two_nodes(void **state)
{
	char path[] = "/tmp/test_meta_XXXXXX";
	int fd = mkstemp(path);
	cJSON *m, *t, *d;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_two_node_xml(path);
	assert_int_equal(setenv("HWLOC_XMLFILE", path, 1), 0);
	m = build_default();
	unsetenv("HWLOC_XMLFILE");
	unlink(path);
	t = get(m, "topology");
	assert_true(num(t, "numa_nodes") == 2);
	assert_true(num(t, "packages") == 2);
	assert_true(num(t, "pus") == 4);
	assert_string_equal(str(t, "numa_distances_source"), "hwloc");
	d = get(t, "numa_distances");
	assert_int_equal(cJSON_GetArraySize(d), 2);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(d, 0), 0)->valuedouble == 10);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(d, 0), 1)->valuedouble == 21);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(d, 1), 0)->valuedouble == 21);
	assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(d, 1), 1)->valuedouble == 10);
	cJSON_Delete(m);
}

/* The exported XML rebuilds a topology with the same number of PUs (what pmanalyze will do). */
static void test_hwloc_xml_parses_back(void **state)
{
	cJSON *m = build_default(), *t;
	hwloc_topology_t topo;
	const char *xml;

	(void)state;
	t = get(m, "topology");
	xml = str(t, "hwloc_xml");
	assert_true(strlen(xml) > 0);
	assert_int_equal(hwloc_topology_init(&topo), 0);
	assert_int_equal(hwloc_topology_set_xmlbuffer(topo, xml, (int)strlen(xml) + 1), 0);
	assert_int_equal(hwloc_topology_load(topo), 0);
	assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), (int)num(t, "pus"));
	assert_int_equal(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), (int)num(t, "cores"));
	hwloc_topology_destroy(topo);
	cJSON_Delete(m);
}

static void test_caches_have_sizes_and_cpus(void **state)
{
	cJSON *m = build_default(), *caches, *c;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	(void)state;
	caches = get(get(m, "topology"), "caches");
	assert_true(cJSON_GetArraySize(caches) > 0);
	cJSON_ArrayForEach(c, caches) {
		assert_true(num(c, "level") >= 1);
		assert_true(num(c, "size_bytes") > 0);
		assert_int_equal(hwloc_bitmap_list_sscanf(set, str(c, "cpus")), 0);
		assert_true(hwloc_bitmap_weight(set) >= 1);
	}
	hwloc_bitmap_free(set);
	cJSON_Delete(m);
}

/* Only OMP_*, GOMP_*, KMP_* are recorded; PATH and look-alikes are not. */
static void test_env_has_openmp_vars_only(void **state)
{
	cJSON *m, *env, *e;

	(void)state;
	assert_int_equal(setenv("OMP_NUM_THREADS", "3", 1), 0);
	assert_int_equal(setenv("GOMP_SPINCOUNT", "1000", 1), 0);
	assert_int_equal(setenv("KMP_AFFINITY", "compact", 1), 0);
	assert_int_equal(setenv("MY_OMP_NUM_THREADS", "9", 1), 0);
	assert_non_null(getenv("PATH"));
	m = build_default();
	env = get(m, "env");
	assert_string_equal(str(env, "OMP_NUM_THREADS"), "3");
	assert_string_equal(str(env, "GOMP_SPINCOUNT"), "1000");
	assert_string_equal(str(env, "KMP_AFFINITY"), "compact");
	assert_null(cJSON_GetObjectItemCaseSensitive(env, "PATH"));
	assert_null(cJSON_GetObjectItemCaseSensitive(env, "MY_OMP_NUM_THREADS"));
	cJSON_ArrayForEach(e, env) {
		assert_true(strncmp(e->string, "OMP_", 4) == 0 || strncmp(e->string, "GOMP_", 5) == 0 ||
			    strncmp(e->string, "KMP_", 4) == 0);
	}
	unsetenv("OMP_NUM_THREADS");
	unsetenv("GOMP_SPINCOUNT");
	unsetenv("KMP_AFFINITY");
	unsetenv("MY_OMP_NUM_THREADS");
	cJSON_Delete(m);
}

/* start_utc is ISO 8601 UTC with microseconds and is "now". */
static void test_start_utc_is_iso_and_now(void **state)
{
	cJSON *m;
	regex_t re;
	struct tm tm;
	time_t before = time(NULL), t;
	const char *s;

	(void)state;
	m = build_default();
	s = str(m, "start_utc");
	assert_int_equal(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$",
				 REG_EXTENDED | REG_NOSUB), 0);
	assert_int_equal(regexec(&re, s, 0, NULL, 0), 0);
	regfree(&re);
	memset(&tm, 0, sizeof(tm));
	assert_non_null(strptime(s, "%Y-%m-%dT%H:%M:%S", &tm));
	t = timegm(&tm);
	assert_true(t >= before - 1 && t <= time(NULL) + 1);
	cJSON_Delete(m);
}

static void test_mempolicy_and_default_cpus(void **state)
{
	cJSON *m = build(NULL, "bind", "0", -1), *mp;

	(void)state;
	mp = get(m, "mempolicy");
	assert_string_equal(str(mp, "mode"), "bind");
	assert_string_equal(str(mp, "nodes"), "0");
	/* NULL cpus means all online CPUs. */
	assert_string_equal(str(m, "cpus"), str(m, "online_cpus"));
	assert_true(num(m, "collector_cpu") == -1.0);
	cJSON_Delete(m);
}

/* cpufreq is an object with one frequency per online CPU, or null with a reason when the
 * machine has no cpufreq driver (this VM). */
static void test_cpufreq_or_reason(void **state)
{
	cJSON *m = build_default(), *cf;

	(void)state;
	cf = get(m, "cpufreq");
	if (access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", R_OK) == 0) {
		assert_true(cJSON_IsObject(cf));
		str(cf, "governor");
		assert_int_equal(cJSON_GetArraySize(get(cf, "cur_khz")), (int)sysconf(_SC_NPROCESSORS_ONLN));
		assert_int_equal(cJSON_GetArraySize(get(cf, "cpu_ids")), (int)sysconf(_SC_NPROCESSORS_ONLN));
	} else {
		print_message("# no cpufreq on this machine: expecting null with a reason\n");
		assert_true(cJSON_IsNull(cf));
		assert_true(strlen(str(m, "cpufreq_reason")) > 0);
	}
	cJSON_Delete(m);
}

/* The CPUs of the cpulist text as a CPU set, as pmcollect holds a run's CPUs. */
static const cpu_set_t *set_of(const char *text)
{
	static cpu_set_t set;
	const struct pm_intlist *l = cpulist(text);

	CPU_ZERO(&set);
	for (size_t i = 0; i < l->n; i++)
		CPU_SET(l->v[i], &set);
	return &set;
}

/* cpufreq read from the fixture tree tests/fixtures/sysfs/cpufreq (PMT_SYSFS_ROOT), whatever this
 * machine has: CPUs 0 and 1 "performance" at 2.4 and 2.5 GHz, CPU 2 "powersave" at 0.8 GHz,
 * CPU 3 without a cpufreq folder. */
static void test_cpufreq_fixture(void **state)
{
	const char *top = getenv("PMT_TOP");
	char root[4096];
	cJSON *m, *cf, *khz;

	(void)state;
	snprintf(root, sizeof(root), "%s/tests/fixtures/sysfs/cpufreq", top ? top : ".");
	assert_int_equal(setenv("PMT_SYSFS_ROOT", root, 1), 0);
	/* one governor */
	m = cJSON_CreateObject();
	assert_int_equal(pmc_meta_add_cpufreq(m, set_of("0-1")), 0);
	cf = get(m, "cpufreq");
	assert_true(cJSON_IsObject(cf));
	assert_string_equal(str(cf, "governor"), "performance");
	khz = get(cf, "cur_khz");
	assert_int_equal(cJSON_GetArraySize(khz), 2);
	assert_true(cJSON_GetArrayItem(khz, 0)->valuedouble == 2400000);
	assert_true(cJSON_GetArrayItem(khz, 1)->valuedouble == 2500000);
	assert_null(cJSON_GetObjectItem(cf, "governors"));
	cJSON_Delete(m);
	/* two governors: "mixed", each CPU's listed; a CPU without cpufreq gets null entries */
	m = cJSON_CreateObject();
	assert_int_equal(pmc_meta_add_cpufreq(m, set_of("0-3")), 0);
	cf = get(m, "cpufreq");
	assert_string_equal(str(cf, "governor"), "mixed");
	assert_string_equal(cJSON_GetArrayItem(get(cf, "governors"), 2)->valuestring, "powersave");
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(get(cf, "governors"), 3)));
	assert_true(cJSON_IsNull(cJSON_GetArrayItem(get(cf, "cur_khz"), 3)));
	assert_true(cJSON_GetArrayItem(get(cf, "cur_khz"), 2)->valuedouble == 800000);
	cJSON_Delete(m);
	/* no CPU with cpufreq: null and the reason */
	m = cJSON_CreateObject();
	assert_int_equal(pmc_meta_add_cpufreq(m, set_of("3")), 0);
	assert_true(cJSON_IsNull(get(m, "cpufreq")));
	assert_non_null(strstr(str(m, "cpufreq_reason"), "no cpufreq driver"));
	cJSON_Delete(m);
	unsetenv("PMT_SYSFS_ROOT");
}

static void test_meta_source_adds_and_replaces(void **state)
{
	cJSON *m = build_default(), *src, *papi, *ss;

	(void)state;
	pmc_meta_source(m, "papi", 0, "PAPI perf_event component disabled: x");
	pmc_meta_source(m, "schedstat", 1, NULL);
	src = get(m, "sources");
	assert_int_equal(cJSON_GetArraySize(src), 2);
	papi = get(src, "papi");
	assert_true(cJSON_IsFalse(get(papi, "recorded")));
	assert_string_equal(str(papi, "reason"), "PAPI perf_event component disabled: x");
	ss = get(src, "schedstat");
	assert_true(cJSON_IsTrue(get(ss, "recorded")));
	assert_null(cJSON_GetObjectItemCaseSensitive(ss, "reason"));
	/* One entry per source: a second call replaces the first. */
	pmc_meta_source(m, "papi", 1, NULL);
	assert_int_equal(cJSON_GetArraySize(src), 2);
	assert_true(cJSON_IsTrue(get(get(src, "papi"), "recorded")));
	pmc_meta_source(NULL, "x", 1, NULL);
	pmc_meta_source(m, NULL, 1, NULL);
	assert_int_equal(cJSON_GetArraySize(src), 2);
	cJSON_Delete(m);
}

/* META "sources" built from src, as text (the caller frees it). */
static char *sources_text(const struct pmc_meta_sources *src)
{
	cJSON *m = cJSON_CreateObject();
	char why[128] = "", *text;

	assert_non_null(cJSON_AddObjectToObject(m, "sources"));
	assert_int_equal(pmc_meta_add_sources(m, src, why, sizeof(why)), 0);
	text = cJSON_PrintUnformatted(get(m, "sources"));
	cJSON_Delete(m);
	return text;
}

/* META "sources" of a recording, in the order and with the keys pmcollect has always written
 * (the trace bytes must not change when main.c's code moved here). */
static void test_meta_add_sources_exact(void **state)
{
	static const char *const events[] = { "sched:sched_switch", "sched:sched_waking", NULL };
	struct pmc_meta_sources with = {
		.stat_every = 16, .status_every = 64, .papi_why = "no PMU",
		.sched_buffer_kb = 4096, .sched_events = events, .energy_why = "no powercap",
	};
	struct pmc_meta_sources without = {
		.stat_every = 16, .status_every = 64, .procconn_why = "EPERM",
		.taskstats_why = "EPERM too", .sched_why = "turned off with --no-sched",
	};
	char *text;

	(void)state;
	text = sources_text(&with);
	assert_string_equal(text,
		"{\"schedstat\":{\"recorded\":true},\"stat\":{\"recorded\":true,\"every_samples\":16},"
		"\"status\":{\"recorded\":true,\"every_samples\":64},"
		"\"papi\":{\"recorded\":false,\"reason\":\"no PMU\"},\"proc_connector\":{\"recorded\":true},"
		"\"taskstats\":{\"recorded\":true},\"sched_events\":{\"recorded\":true,\"clock\":\"mono\","
		"\"buffer_kb_per_cpu\":4096,\"events\":[\"sched:sched_switch\",\"sched:sched_waking\"]},"
		"\"energy\":{\"recorded\":false,\"reason\":\"no powercap\"}}");
	free(text);
	text = sources_text(&without);
	assert_string_equal(text,
		"{\"schedstat\":{\"recorded\":true},\"stat\":{\"recorded\":true,\"every_samples\":16},"
		"\"status\":{\"recorded\":true,\"every_samples\":64},\"papi\":{\"recorded\":true},"
		"\"proc_connector\":{\"recorded\":false,\"reason\":\"EPERM; new processes are found by "
		"scanning /proc every 10 samples\"},\"taskstats\":{\"recorded\":false,\"reason\":"
		"\"EPERM too; exits carry the last sampled values\"},\"sched_events\":{\"recorded\":false,"
		"\"reason\":\"turned off with --no-sched\"},\"energy\":{\"recorded\":false,\"reason\":"
		"\"not opened\"}}");
	free(text);
}

/* online_cpus given by the caller (read once by pmcollect) is what META records. */
static void test_online_cpus_from_caller(void **state)
{
	struct pmc_cpus online;
	struct pmc_meta_input in = {
		.argc = 2, .argv = test_argv, .interval_ms = 10, .online = &online,
		.collector_cpu = -1, .mem_mode = "default",
	};
	char why[256] = "";
	cJSON *m;

	const char *top = getenv("PMT_TOP");
	char root[4096];

	(void)state;
	/* cpufreq from the fixture tree (CPUs 0-3), so the CPUs it reads are seen on any machine */
	snprintf(root, sizeof(root), "%s/tests/fixtures/sysfs/cpufreq", top ? top : ".");
	assert_int_equal(setenv("PMT_SYSFS_ROOT", root, 1), 0);
	assert_int_equal(pmc_cpus_from_list(cpulist("0,2,3"), &online), 0);
	assert_int_equal(meta_build(&in, &m, why, sizeof(why)), 0);
	unsetenv("PMT_SYSFS_ROOT");
	assert_non_null(m);
	assert_string_equal(str(m, "online_cpus"), "0,2-3");
	assert_string_equal(str(m, "cpus"), "0,2-3");
	/* cpufreq is read for the same CPUs, not for the machine's */
	assert_int_equal(cJSON_GetArraySize(get(get(m, "cpufreq"), "cpu_ids")), 3);
	assert_true(cJSON_GetArrayItem(get(get(m, "cpufreq"), "cpu_ids"), 1)->valuedouble == 2);
	cJSON_Delete(m);
	pmc_cpus_free(&online);
}

static void test_invalid_input_gives_reason(void **state)
{
	char why[128] = "";
	cJSON dummy, *m = &dummy;

	(void)state;
	assert_int_equal(pmc_meta_build(NULL, &m, why, sizeof(why)), PMT_E_INVAL);
	assert_null(m);
	assert_true(strlen(why) > 0);
}

/* A rank of a job (issue 18): META "job" with the values and their variables, "node_readings",
 * the clock pair and the affinity; the hwloc XML only for local rank 0. */
static cJSON *build_rank(long local_rank, int node_readings)
{
	struct pmc_rank r = { .rank = 5, .rank_var = "PMI_RANK", .local_rank = local_rank,
			      .local_rank_var = "MPI_LOCALRANKID", .size = 8, .size_var = "PMI_SIZE",
			      .job = "77.1", .job_var = "SLURM_JOB_ID+SLURM_STEP_ID" };
	struct pmc_clock_pair clk;
	cpu_set_t aff;
	struct pmc_meta_input in = {
		.argc = 2, .argv = test_argv, .interval_ms = 10.0, .mem_mode = "default",
		.collector_cpu = -1, .start_mono_ns = 1, .clocks = &clk, .rank = &r,
		.node_readings = node_readings, .affinity = &aff,
	};
	char why[256] = "";
	cJSON *m = NULL;

	CPU_ZERO(&aff);
	CPU_SET(0, &aff);
	pmc_clock_pair_now(&clk);
	if (meta_build(&in, &m, why, sizeof(why)) < 0)
		print_message("# pmc_meta_build: %s\n", why);
	assert_non_null(m);
	return m;
}

static void test_rank_job_and_clocks(void **state)
{
	cJSON *m = build_rank(3, 0), *j = get(m, "job"), *c = get(m, "clocks"), *a = get(m, "affinity");
	struct timespec now;

	(void)state;
	assert_int_equal((long)num(j, "rank"), 5);
	assert_string_equal(str(j, "rank_var"), "PMI_RANK");
	assert_int_equal((long)num(j, "local_rank"), 3);
	assert_string_equal(str(j, "local_rank_var"), "MPI_LOCALRANKID");
	assert_int_equal((long)num(j, "size"), 8);
	assert_string_equal(str(j, "id"), "77.1");
	assert_string_equal(str(j, "id_var"), "SLURM_JOB_ID+SLURM_STEP_ID");
	assert_true(cJSON_IsFalse(get(get(m, "node_readings"), "taken")));
	/* local rank 3 leaves the whole-node XML to local rank 0 and says so */
	assert_null(cJSON_GetObjectItemCaseSensitive(get(m, "topology"), "hwloc_xml"));
	assert_string_equal(str(get(m, "topology"), "hwloc_xml_by"), "local rank 0 of this node");
	assert_true(num(get(m, "topology"), "pus") >= 1); /* the counts stay */
	/* the pair: a realtime of now (not a monotonic time: those differ by the boot's age), nsec in
	 * range, an uncertainty below a second. A preemption between its clock reads on a busy machine
	 * (load 10+) makes the uncertainty a few ms, and building META can take seconds there
	 * (issue 33): the bounds are what tells a broken pair from a good one, not the machine's speed */
	clock_gettime(CLOCK_REALTIME, &now);
	assert_true(fabs(num(c, "realtime_s") - (double)now.tv_sec) <= 60);
	assert_true(num(c, "realtime_nsec") >= 0 && num(c, "realtime_nsec") < 1e9);
	assert_true(num(c, "mono_ns") > 0 && num(c, "uncertainty_ns") < 1e9);
	assert_string_equal(str(a, "cpus"), "0");
	assert_int_equal(cJSON_GetArraySize(get(a, "packages")), 1);
	assert_int_equal(cJSON_GetArraySize(get(a, "numa_nodes")), 1);
	cJSON_Delete(m);
	m = build_rank(0, 1);
	assert_true(cJSON_IsTrue(get(get(m, "node_readings"), "taken")));
	assert_true(strncmp(str(get(m, "topology"), "hwloc_xml"), "<?xml", 5) == 0);
	cJSON_Delete(m);
	/* outside a job: no "job", the XML is there */
	m = build_default();
	assert_null(cJSON_GetObjectItemCaseSensitive(m, "job"));
	assert_null(cJSON_GetObjectItemCaseSensitive(m, "node_readings"));
	cJSON_Delete(m);
}

static void test_clock_pair_brackets_monotonic(void **state)
{
	struct timespec a, b;
	struct pmc_clock_pair p;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pmc_clock_pair_now(&p);
	clock_gettime(CLOCK_MONOTONIC, &b);
	assert_true(p.mono_ns >= (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec);
	assert_true(p.mono_ns <= (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec);
	assert_true(p.realtime_nsec >= 0 && p.realtime_nsec < 1000000000L);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_equals_argv),
		cmocka_unit_test(test_versions_interval_and_cpus),
		cmocka_unit_test(test_all_format_keys_after_round_trip),
		cmocka_unit_test(test_topology_counts_match_machine),
		cmocka_unit_test(test_numa_distance_matrix_shape),
		cmocka_unit_test(test_numa_distances_from_hwloc_on_two_nodes),
		cmocka_unit_test(test_hwloc_xml_parses_back),
		cmocka_unit_test(test_caches_have_sizes_and_cpus),
		cmocka_unit_test(test_env_has_openmp_vars_only),
		cmocka_unit_test(test_start_utc_is_iso_and_now),
		cmocka_unit_test(test_mempolicy_and_default_cpus),
		cmocka_unit_test(test_cpufreq_or_reason),
		cmocka_unit_test(test_cpufreq_fixture),
		cmocka_unit_test(test_meta_source_adds_and_replaces),
		cmocka_unit_test(test_meta_add_sources_exact),
		cmocka_unit_test(test_online_cpus_from_caller),
		cmocka_unit_test(test_invalid_input_gives_reason),
		cmocka_unit_test(test_rank_job_and_clocks),
		cmocka_unit_test(test_clock_pair_brackets_monotonic),
	};

	return cmocka_run_group_tests_name("meta", tests, NULL, NULL);
}
