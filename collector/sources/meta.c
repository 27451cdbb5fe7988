/* SPDX-License-Identifier: MIT */
/* meta.c: builds the META JSON record (FORMAT.md §6): how the program was run and, through hwloc,
 * the machine it ran on, so a trace can be modelled on another machine. */
#include "meta.h"

#include "cpuset.h"
#include "energy.h"
#include "kconfig.h"
#include "rank.h"
#include "pm_util.h"
#include "pm_cli.h"
#include "pm_sysfs.h"

#include <errno.h>
#include <stdarg.h>
#include <hwloc.h>
#include <hwloc/export.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "pmt.h"


extern char **environ;

/* Sets why to a formatted one-line reason (truncated to whysize). */

/* Returns a new {"error": msg} object (NULL when out of memory). */
static cJSON *error_object(const char *msg)
{
	cJSON *o = cJSON_CreateObject();

	if (o != NULL && cJSON_AddStringToObject(o, "error", msg) == NULL) {
		cJSON_Delete(o);
		o = NULL;
	}
	return o;
}

/* Adds item to o under key; on failure deletes item. Returns 0 or -1 (item NULL counts as failure,
 * so a failed constructor can be passed straight in). */
static int add_item(cJSON *o, const char *key, cJSON *item)
{
	if (item == NULL)
		return -1;
	if (!cJSON_AddItemToObject(o, key, item)) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

/* Start time: CLOCK_REALTIME now as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" (UTC, microseconds).
 * Returns 0 or -1. */
static int format_utc_now(char *buf, size_t bufsize)
{
	struct timespec ts;
	struct tm tm;
	char base[32];

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0 || gmtime_r(&ts.tv_sec, &tm) == NULL)
		return -1;
	if (strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return -1;
	snprintf(buf, bufsize, "%s.%06ldZ", base, ts.tv_nsec / 1000L);
	return 0;
}

/* True when the variable name (the part of "NAME=value" before '=') starts with OMP_, GOMP_ or
 * KMP_: the OpenMP runtimes' settings (libgomp, LLVM libomp / Intel) that change how a program
 * runs; nothing else of the environment is recorded (no PATH, no secrets). */
static int is_openmp_var(const char *entry)
{
	return strncmp(entry, "OMP_", 4) == 0 || strncmp(entry, "GOMP_", 5) == 0 ||
	       strncmp(entry, "KMP_", 4) == 0;
}

/* Returns the "env" object: the OMP_*, GOMP_*, KMP_* variables of this process's environment
 * (the traced program inherits it). NULL when out of memory. */
static cJSON *build_env(void)
{
	cJSON *env = cJSON_CreateObject();
	char **e;

	if (env == NULL)
		return NULL;
	for (e = environ; e != NULL && *e != NULL; e++) {
		const char *eq = strchr(*e, '=');
		char name[256];
		size_t namelen;

		if (eq == NULL || !is_openmp_var(*e))
			continue;
		namelen = (size_t)(eq - *e);
		if (namelen >= sizeof(name))
			continue;
		memcpy(name, *e, namelen);
		name[namelen] = '\0';
		/* The first definition wins, as getenv() would return it. */
		if (cJSON_GetObjectItemCaseSensitive(env, name) != NULL)
			continue;
		if (cJSON_AddStringToObject(env, name, eq + 1) == NULL) {
			cJSON_Delete(env);
			return NULL;
		}
	}
	return env;
}

/* Adds an array of the hwloc objects' OS indexes (e.g. the NUMA node numbers) to o: every object
 * of the type, or with within those whose cpuset meets it. */
static int add_os_indexes(cJSON *o, const char *key, hwloc_topology_t topo, hwloc_obj_type_t type,
			  hwloc_const_bitmap_t within)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	int i, n = hwloc_get_nbobjs_by_type(topo, type);

	if (a == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)i);
		cJSON *v;

		if (within != NULL && (obj == NULL || obj->cpuset == NULL ||
				       !hwloc_bitmap_intersects(obj->cpuset, within)))
			continue;
		v = cJSON_CreateNumber(obj != NULL ? (double)obj->os_index : -1.0);

		if (v == NULL || !cJSON_AddItemToArray(a, v)) {
			cJSON_Delete(v);
			return -1;
		}
	}
	return 0;
}

/* Adds "numa_distances" (rows and columns in NUMA node logical order, hwloc relative latencies,
 * i.e. the ACPI SLIT values: 10 = local) and "numa_distances_source" ("hwloc" or "none").
 * Source: hwloc_distances_get_by_type(HWLOC_OBJ_NUMANODE), kind MEANS_LATENCY. When hwloc has
 * no matrix covering every node (single-node machines often have none), writes 10 on the
 * diagonal and 20 elsewhere and says "none" so the analyzer knows it is not measured data. */
static int add_numa_distances(cJSON *topo_json, hwloc_topology_t topo, int nodes)
{
	struct hwloc_distances_s *dist = NULL;
	unsigned nr = 1;
	int use_hwloc = 0, i, j, ret = -1;
	cJSON *m;

	if (nodes > 0 && hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &dist,
						     HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 && nr >= 1) {
		use_hwloc = 1;
		for (i = 0; i < nodes && use_hwloc; i++) {
			hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);

			if (obj == NULL || hwloc_distances_obj_index(dist, obj) < 0)
				use_hwloc = 0;
		}
	} else {
		nr = 0;
	}
	m = cJSON_AddArrayToObject(topo_json, "numa_distances");
	if (m == NULL)
		goto out;
	for (i = 0; i < nodes; i++) {
		cJSON *row = cJSON_CreateArray();

		if (row == NULL || !cJSON_AddItemToArray(m, row)) {
			cJSON_Delete(row);
			goto out;
		}
		for (j = 0; j < nodes; j++) {
			double d = i == j ? 10.0 : 20.0;
			cJSON *v;

			if (use_hwloc) {
				hwloc_obj_t a = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
				hwloc_obj_t b = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)j);
				int ia = hwloc_distances_obj_index(dist, a);
				int ib = hwloc_distances_obj_index(dist, b);

				d = (double)dist->values[(unsigned)ia * dist->nbobjs + (unsigned)ib];
			}
			v = cJSON_CreateNumber(d);
			if (v == NULL || !cJSON_AddItemToArray(row, v)) {
				cJSON_Delete(v);
				goto out;
			}
		}
	}
	if (cJSON_AddStringToObject(topo_json, "numa_distances_source", use_hwloc ? "hwloc" : "none") == NULL)
		goto out;
	ret = 0;
out:
	if (nr >= 1 && dist != NULL)
		hwloc_distances_release(topo, dist);
	return ret;
}

/* Adds "caches": one entry per data or unified cache object of hwloc (HWLOC_OBJ_L1CACHE ..
 * HWLOC_OBJ_L5CACHE; instruction caches are filtered out by hwloc's defaults) with its level,
 * size_bytes, line_size_bytes, type and the CPUs sharing it as a cpulist. */
static int add_caches(cJSON *topo_json, hwloc_topology_t topo)
{
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE,
	};
	cJSON *caches = cJSON_AddArrayToObject(topo_json, "caches");
	size_t t;

	if (caches == NULL)
		return -1;
	for (t = 0; t < PM_ARRAY_SIZE(types); t++) {
		int i, n = hwloc_get_nbobjs_by_type(topo, types[t]);

		for (i = 0; i < n; i++) {
			hwloc_obj_t obj = hwloc_get_obj_by_type(topo, types[t], (unsigned)i);
			cJSON *c;
			char *cpus = NULL;
			const char *kind;
			int ok;

			if (obj == NULL || obj->attr == NULL)
				continue;
			c = cJSON_CreateObject();
			if (c == NULL || !cJSON_AddItemToArray(caches, c)) {
				cJSON_Delete(c);
				return -1;
			}
			switch (obj->attr->cache.type) {
			case HWLOC_OBJ_CACHE_DATA: kind = "data"; break;
			case HWLOC_OBJ_CACHE_INSTRUCTION: kind = "instruction"; break;
			default: kind = "unified"; break;
			}
			if (obj->cpuset == NULL || hwloc_bitmap_list_asprintf(&cpus, obj->cpuset) < 0)
				cpus = NULL;
			ok = cJSON_AddNumberToObject(c, "level", (double)obj->attr->cache.depth) != NULL &&
			     cJSON_AddNumberToObject(c, "size_bytes", (double)obj->attr->cache.size) != NULL &&
			     cJSON_AddNumberToObject(c, "line_size_bytes", (double)obj->attr->cache.linesize) != NULL &&
			     cJSON_AddStringToObject(c, "type", kind) != NULL &&
			     (cpus != NULL ? cJSON_AddStringToObject(c, "cpus", cpus) != NULL
					   : cJSON_AddNullToObject(c, "cpus") != NULL);
			free(cpus);
			if (!ok)
				return -1;
		}
	}
	return 0;
}

/* META "cpu_limit": the CPU limit of pmcollect's cgroup, which the program inherits (CFS bandwidth
 * control; cpuset.h pmc_cgroup_cpu_limit), or of quota, the transient cgroup of pmcollect --quota
 * (NULL: none): {"cgroup": "v1"|"v2", "dir", "quota_us" (null: no limit), "period_us",
 * "burst_us", "cpus" (quota / period, null: no limit), "applied_by": "pmcollect" (--quota) or
 * "environment"}, or null with "cpu_limit_reason" when no cpu controller is found. FORMAT.md §6.
 * Returns 0 or -1 (no memory). */
static int add_cpu_limit(cJSON *meta, const struct pmc_cgquota *quota)
{
	struct pmc_cgroup_cpu cg;
	char why[256];
	cJSON *c;

	if ((quota ? pmc_cgquota_describe(quota, &cg, why, sizeof(why))
		   : pmc_cgroup_cpu_limit(pmc_sysfs_root(), &cg, why, sizeof(why))) < 0)
		return cJSON_AddNullToObject(meta, "cpu_limit") && cJSON_AddStringToObject(meta, "cpu_limit_reason", why) ? 0 : -1;
	c = cJSON_AddObjectToObject(meta, "cpu_limit");
	if (!c || !cJSON_AddStringToObject(c, "cgroup", cg.v1 ? "v1" : "v2") ||
	    !cJSON_AddStringToObject(c, "dir", cg.dir) ||
	    !(cg.quota_us < 0 ? cJSON_AddNullToObject(c, "quota_us") : cJSON_AddNumberToObject(c, "quota_us", cg.quota_us)) ||
	    !cJSON_AddNumberToObject(c, "period_us", cg.period_us) ||
	    !cJSON_AddNumberToObject(c, "burst_us", cg.burst_us) ||
	    !(cg.quota_us < 0 || !(cg.period_us > 0) ? cJSON_AddNullToObject(c, "cpus")
						      : cJSON_AddNumberToObject(c, "cpus", cg.quota_us / cg.period_us)) ||
	    !cJSON_AddStringToObject(c, "applied_by", quota ? "pmcollect" : "environment"))
		return -1;
	return 0;
}

/* *aff_out = "affinity": {"cpus": cpulist of aff, "packages": [...], "numa_nodes": [...]}, the
 * OS indexes of the packages and NUMA nodes the CPUs cover (a rank bound by its launcher to one
 * socket covers one package). Returns 0 or -1 (out of memory). */
static int build_affinity(hwloc_topology_t topo, const cpu_set_t *aff, cJSON **aff_out)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	cJSON *a = cJSON_CreateObject();
	char *list = NULL;
	int ret = -1;

	if (set == NULL || a == NULL)
		goto out;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, aff))
			hwloc_bitmap_set(set, (unsigned)cpu);
	if (hwloc_bitmap_list_asprintf(&list, set) < 0 || cJSON_AddStringToObject(a, "cpus", list) == NULL ||
	    add_os_indexes(a, "packages", topo, HWLOC_OBJ_PACKAGE, set) != 0 ||
	    add_os_indexes(a, "numa_nodes", topo, HWLOC_OBJ_NUMANODE, set) != 0)
		goto out;
	*aff_out = a;
	a = NULL;
	ret = 0;
out:
	free(list);
	hwloc_bitmap_free(set);
	cJSON_Delete(a);
	return ret;
}

/* Returns the "topology" object built from topo (the session's loaded hwloc topology), or
 * {"error": "..."} without one. Sources: hwloc_get_nbobjs_by_type (PACKAGE, CORE, PU, NUMANODE), the distances API,
 * cache objects, the CPUModel/CPUVendor info of the first package, hwloc_topology_export_xmlbuffer
 * (only when with_xml: the XML is a whole-node reading, taken by local rank 0 of a job's node).
 * With aff, *aff_out = build_affinity's object (NULL when hwloc failed). NULL only when out of
 * memory. */
static cJSON *build_topology(hwloc_topology_t topo, int with_xml, const cpu_set_t *aff,
			     cJSON **aff_out)
{
	cJSON *t = NULL, *ret = NULL;
	char *xml = NULL;
	int xmllen = 0, nodes;
	unsigned api = hwloc_get_api_version();
	char msg[160], ver[32];
	hwloc_obj_t pkg;
	const char *info;

	if (!topo)
		return error_object("no hwloc topology was loaded");
	t = cJSON_CreateObject();
	if (t == NULL)
		goto out;
	nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	if (cJSON_AddNumberToObject(t, "packages", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE)) == NULL ||
	    cJSON_AddNumberToObject(t, "cores", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)) == NULL ||
	    cJSON_AddNumberToObject(t, "pus", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)) == NULL ||
	    cJSON_AddNumberToObject(t, "numa_nodes", nodes) == NULL ||
	    add_os_indexes(t, "numa_node_ids", topo, HWLOC_OBJ_NUMANODE, NULL) != 0 ||
	    add_numa_distances(t, topo, nodes) != 0 || add_caches(t, topo) != 0)
		goto out;
	if (aff != NULL && build_affinity(topo, aff, aff_out) != 0)
		goto out;
	pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
	info = pkg != NULL ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	if ((info != NULL ? cJSON_AddStringToObject(t, "cpu_model", info) : cJSON_AddNullToObject(t, "cpu_model")) == NULL)
		goto out;
	info = pkg != NULL ? hwloc_obj_get_info_by_name(pkg, "CPUVendor") : NULL;
	if ((info != NULL ? cJSON_AddStringToObject(t, "cpu_vendor", info) : cJSON_AddNullToObject(t, "cpu_vendor")) == NULL)
		goto out;
	snprintf(ver, sizeof(ver), "%u.%u.%u", api >> 16, (api >> 8) & 0xffu, api & 0xffu);
	if (cJSON_AddStringToObject(t, "hwloc_api_version", ver) == NULL)
		goto out;
	/* The XML lets the analyzer rebuild the exact topology elsewhere with
	 * hwloc_topology_set_xmlbuffer(); a failed export is recorded, not fatal. */
	if (!with_xml) {
		if (cJSON_AddStringToObject(t, "hwloc_xml_by", "local rank 0 of this node") == NULL)
			goto out;
	} else if (hwloc_topology_export_xmlbuffer(topo, &xml, &xmllen, 0) == 0 && xml != NULL) {
		if (cJSON_AddStringToObject(t, "hwloc_xml", xml) == NULL)
			goto out;
	} else {
		xml = NULL;
		snprintf(msg, sizeof(msg), "hwloc_topology_export_xmlbuffer failed: %s", strerror(errno));
		if (add_item(t, "hwloc_xml", error_object(msg)) != 0)
			goto out;
	}
	ret = t;
	t = NULL;
out:
	if (xml != NULL)
		hwloc_free_xmlbuffer(topo, xml);
	cJSON_Delete(t);
	return ret;
}

/* Adds "cpufreq" ({"governor", "cur_khz": [...], "cpu_ids": [...]}) for the CPUs of the set cpus
 * (the session's CPU model, parsed once), read from /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor and
 * scaling_cur_freq (kHz; Documentation/admin-guide/pm/cpufreq.rst), below pmc_sysfs_root() (a
 * fixture tree in tests, "" otherwise). When no CPU has a cpufreq directory (VMs, containers without sysfs),
 * "cpufreq" is null and "cpufreq_reason" says why. "governor" is "mixed" when CPUs differ, then
 * "governors" lists them. A CPU without the files gets null entries. */
int pmc_meta_add_cpufreq(cJSON *meta, const cpu_set_t *cpus)
{
	cJSON *cf = NULL, *govs = NULL, *khz, *ids;
	char first_gov[128] = "", buf[128], path[4200];
	const char *reason = NULL;
	int found = 0, mixed = 0, ret = PMT_E_NOMEM;

	if (cpus == NULL) {
		reason = "online CPU list unknown";
		goto none;
	}
	cf = cJSON_CreateObject();
	govs = cJSON_CreateArray();
	if (cf == NULL || govs == NULL)
		goto out;
	khz = cJSON_AddArrayToObject(cf, "cur_khz");
	ids = cJSON_AddArrayToObject(cf, "cpu_ids");
	if (khz == NULL || ids == NULL)
		goto out;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		cJSON *g, *k, *id;

		if (!CPU_ISSET(cpu, cpus))
			continue;
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
			 pmc_sysfs_root(), cpu);
		if (pm_sysfs_read_line(path, buf, sizeof(buf)) == 0) {
			found = 1;
			if (first_gov[0] == '\0')
				snprintf(first_gov, sizeof(first_gov), "%s", buf);
			else if (strcmp(first_gov, buf) != 0)
				mixed = 1;
			g = cJSON_CreateString(buf);
		} else {
			g = cJSON_CreateNull();
		}
		if (g == NULL || !cJSON_AddItemToArray(govs, g)) {
			cJSON_Delete(g);
			goto out;
		}
		snprintf(path, sizeof(path), "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
			 pmc_sysfs_root(), cpu);
		k = NULL;
		if (pm_sysfs_read_line(path, buf, sizeof(buf)) == 0) {
			char *end;
			unsigned long long v = strtoull(buf, &end, 10);

			found = 1;
			if (end != buf && *end == '\0')
				k = cJSON_CreateNumber((double)v);
		}
		if (k == NULL)
			k = cJSON_CreateNull();
		if (k == NULL || !cJSON_AddItemToArray(khz, k)) {
			cJSON_Delete(k);
			goto out;
		}
		id = cJSON_CreateNumber(cpu);
		if (id == NULL || !cJSON_AddItemToArray(ids, id)) {
			cJSON_Delete(id);
			goto out;
		}
	}
	if (!found) {
		reason = "no /sys/devices/system/cpu/cpu*/cpufreq: no cpufreq driver "
			 "(virtual machine, or frequency not exposed)";
		goto none;
	}
	if (cJSON_AddStringToObject(cf, "governor", mixed ? "mixed" : first_gov[0] ? first_gov : "unknown") == NULL)
		goto out;
	if (mixed) {
		int bad = add_item(cf, "governors", govs) != 0;
		govs = NULL;
		if (bad)
			goto out;
	}
	ret = add_item(meta, "cpufreq", cf) != 0 ? PMT_E_NOMEM : 0;
	cf = NULL;
	goto out;
none:
	if (cJSON_AddNullToObject(meta, "cpufreq") != NULL &&
	    cJSON_AddStringToObject(meta, "cpufreq_reason", reason) != NULL)
		ret = 0;
out:
	cJSON_Delete(govs);
	cJSON_Delete(cf);
	return ret;
}

/* Adds "kernel" from uname(2): sysname, release, machine and the build string as "version". */
static int add_kernel(cJSON *meta)
{
	struct utsname u;
	cJSON *k;
	char msg[96];

	if (uname(&u) != 0) {
		snprintf(msg, sizeof(msg), "uname failed: %s", strerror(errno));
		return add_item(meta, "kernel", error_object(msg));
	}
	k = cJSON_AddObjectToObject(meta, "kernel");
	if (k == NULL || cJSON_AddStringToObject(k, "sysname", u.sysname) == NULL ||
	    cJSON_AddStringToObject(k, "release", u.release) == NULL ||
	    cJSON_AddStringToObject(k, "machine", u.machine) == NULL ||
	    cJSON_AddStringToObject(k, "version", u.version) == NULL)
		return -1;
	return 0;
}

void pmc_clock_pair_now(struct pmc_clock_pair *p)
{
	struct timespec m0, rt, m1;

	clock_gettime(CLOCK_MONOTONIC, &m0);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	{
		uint64_t a = (uint64_t)m0.tv_sec * 1000000000u + (uint64_t)m0.tv_nsec;
		uint64_t b = (uint64_t)m1.tv_sec * 1000000000u + (uint64_t)m1.tv_nsec;
		p->mono_ns = a + (b - a) / 2;
		p->uncertainty_ns = (b - a + 1) / 2;
	}
	p->realtime_s = (int64_t)rt.tv_sec;
	p->realtime_nsec = rt.tv_nsec;
}

int pmc_clock_pair_add(cJSON *obj, const char *key, const struct pmc_clock_pair *p)
{
	cJSON *c = cJSON_AddObjectToObject(obj, key);

	if (c == NULL || cJSON_AddNumberToObject(c, "mono_ns", (double)p->mono_ns) == NULL ||
	    cJSON_AddNumberToObject(c, "realtime_s", (double)p->realtime_s) == NULL ||
	    cJSON_AddNumberToObject(c, "realtime_nsec", (double)p->realtime_nsec) == NULL ||
	    cJSON_AddNumberToObject(c, "uncertainty_ns", (double)p->uncertainty_ns) == NULL)
		return PMT_E_NOMEM;
	return 0;
}

/* Adds key = number, or null when the value is unknown (< 0). Returns 0 or -1. */
static int add_count(cJSON *o, const char *key, long v)
{
	return (v >= 0 ? cJSON_AddNumberToObject(o, key, (double)v) : cJSON_AddNullToObject(o, key)) ? 0 : -1;
}

/* Adds key = string, or null. Returns 0 or -1. */
static int add_str(cJSON *o, const char *key, const char *v)
{
	return (v != NULL ? cJSON_AddStringToObject(o, key, v) : cJSON_AddNullToObject(o, key)) ? 0 : -1;
}

/* META "job" of one rank of an MPI or Slurm job and "node_readings" (FORMAT.md §6): the values of
 * collector/sources/rank.h, each with the variable it came from (null when none was set), and the host
 * (gethostname(2), as %h of the output name uses it). Returns 0 or -1 (out of memory). */
static int add_job(cJSON *meta, const struct pmc_rank *r, int node_readings)
{
	cJSON *j = cJSON_AddObjectToObject(meta, "job"), *n;
	char host[256];

	if (gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';

	if (j == NULL || add_count(j, "rank", r->rank) || add_str(j, "rank_var", r->rank_var) ||
	    add_count(j, "local_rank", r->local_rank) ||
	    add_str(j, "local_rank_var", r->local_rank_var) || add_count(j, "size", r->size) ||
	    add_str(j, "size_var", r->size_var) || add_str(j, "id", r->job[0] ? r->job : NULL) ||
	    add_str(j, "id_var", r->job_var) || add_str(j, "host", host[0] ? host : NULL))
		return -1;
	n = cJSON_AddObjectToObject(meta, "node_readings");
	if (n == NULL || cJSON_AddBoolToObject(n, "taken", node_readings) == NULL)
		return -1;
	if (!node_readings &&
	    cJSON_AddStringToObject(n, "by", "local rank 0 of this node (topology XML, energy)") == NULL)
		return -1;
	return 0;
}

int pmc_meta_build(const struct pmc_meta_input *in, cJSON **out, char *why, size_t whysize)
{
	cJSON *meta = NULL, *cmd, *mp, *topo, *env;
	const struct pmc_cpus *online = in ? in->online : NULL;
	struct pmc_cpus read_online = { 0 };
	char buf[4096], version[32];
	int i;

	*out = NULL;
	if (in == NULL || in->argc < 0 || (in->argc > 0 && in->argv == NULL)) {
		pm_set_why(why, whysize, "invalid meta input");
		return PMT_E_INVAL;
	}
	meta = cJSON_CreateObject();
	if (meta == NULL)
		goto out;
	snprintf(version, sizeof(version), "%d.%d", PMT_FORMAT_MAJOR, PMT_FORMAT_MINOR);
	if (cJSON_AddStringToObject(meta, "format", "pmtrace") == NULL ||
	    cJSON_AddStringToObject(meta, "format_version", version) == NULL ||
	    cJSON_AddStringToObject(meta, "tool", "pmcollect") == NULL ||
	    cJSON_AddStringToObject(meta, "tool_version", PMT_TOOLS_VERSION) == NULL)
		goto out;

	cmd = cJSON_AddArrayToObject(meta, "command");
	if (cmd == NULL)
		goto out;
	for (i = 0; i < in->argc; i++) {
		cJSON *s = cJSON_CreateString(in->argv[i] != NULL ? in->argv[i] : "");

		if (s == NULL || !cJSON_AddItemToArray(cmd, s)) {
			cJSON_Delete(s);
			goto out;
		}
	}

	if (getcwd(buf, sizeof(buf)) != NULL) {
		if (cJSON_AddStringToObject(meta, "cwd", buf) == NULL)
			goto out;
	} else {
		char msg[96];

		snprintf(msg, sizeof(msg), "getcwd failed: %s", strerror(errno));
		if (add_item(meta, "cwd", error_object(msg)) != 0)
			goto out;
	}

	env = build_env();
	if (add_item(meta, "env", env) != 0)
		goto out;

	/* start_utc and start_mono_ns describe nearly the same instant: the caller took
	 * start_mono_ns just before calling us; the gap is the few µs of this function so far. */
	if (format_utc_now(buf, sizeof(buf)) == 0) {
		if (cJSON_AddStringToObject(meta, "start_utc", buf) == NULL)
			goto out;
	} else if (cJSON_AddNullToObject(meta, "start_utc") == NULL) {
		goto out;
	}
	/* A double holds integers exactly up to 2^53 ns (104 days of uptime); beyond that the
	 * error is a few ns, far below the µs resolution of start_utc. */
	if (cJSON_AddNumberToObject(meta, "start_mono_ns", (double)in->start_mono_ns) == NULL)
		goto out;

	if (gethostname(buf, sizeof(buf)) == 0) {
		buf[sizeof(buf) - 1] = '\0';
		if (cJSON_AddStringToObject(meta, "hostname", buf) == NULL)
			goto out;
	} else if (cJSON_AddNullToObject(meta, "hostname") == NULL) {
		goto out;
	}
	if (add_kernel(meta) != 0)
		goto out;
	if (cJSON_AddNumberToObject(meta, "user_hz", (double)sysconf(_SC_CLK_TCK)) == NULL ||
	    cJSON_AddNumberToObject(meta, "page_size_bytes", (double)sysconf(_SC_PAGESIZE)) == NULL ||
	    cJSON_AddStringToObject(meta, "clock", "CLOCK_MONOTONIC") == NULL ||
	    cJSON_AddNumberToObject(meta, "interval_ms", in->interval_ms) == NULL)
		goto out;
	{
		struct pmc_config_hz hz;
		struct utsname u;

		pmc_config_hz_find(pmc_sysfs_root(), uname(&u) == 0 ? u.release : "", &hz);
		if (pmc_meta_add_config_hz(meta, &hz) != 0)
			goto out;
	}

	/* The kernel's own list of online CPUs (hwloc's cpusets exclude CPUs outside our cgroup,
	 * which is a different question), read once by the caller or here. */
	if (online == NULL) {
		struct pm_intlist l;
		if (pmc_online_cpus(&l) < 0 || pmc_cpus_from_list(&l, &read_online) < 0) {
			pm_intlist_free(&l);
			goto out;
		}
		pm_intlist_free(&l);
		online = &read_online;
	}
	if (cJSON_AddStringToObject(meta, "cpus", in->cpus != NULL ? in->cpus : online->text) == NULL ||
	    cJSON_AddStringToObject(meta, "online_cpus", online->text) == NULL ||
	    cJSON_AddNumberToObject(meta, "collector_cpu", in->collector_cpu) == NULL)
		goto out;

	mp = cJSON_AddObjectToObject(meta, "mempolicy");
	if (mp == NULL || cJSON_AddStringToObject(mp, "mode", in->mem_mode != NULL ? in->mem_mode : "default") == NULL ||
	    (in->mem_nodes != NULL ? cJSON_AddStringToObject(mp, "nodes", in->mem_nodes)
				   : cJSON_AddNullToObject(mp, "nodes")) == NULL)
		goto out;

	{
		cJSON *aff = NULL;
		topo = build_topology(in->topo, in->rank == NULL || in->node_readings, in->affinity, &aff);
		if (add_item(meta, "topology", topo) != 0 || (aff != NULL && add_item(meta, "affinity", aff) != 0))
			goto out;
	}
	if (in->usable_cpus != NULL) {
		cJSON *cg = in->cgroup_cpus != NULL ? cJSON_CreateObject() : cJSON_CreateNull();
		if (cJSON_AddStringToObject(meta, "usable_cpus", in->usable_cpus) == NULL || add_item(meta, "cgroup_cpuset", cg) != 0 ||
		    (in->cgroup_cpus != NULL && (cJSON_AddStringToObject(cg, "cpus", in->cgroup_cpus) == NULL ||
						 cJSON_AddStringToObject(cg, "file", in->cgroup_file ? in->cgroup_file : "") == NULL)))
			goto out;
	}
	if (add_cpu_limit(meta, in->quota) != 0)
		goto out;
	if (in->clocks != NULL && pmc_clock_pair_add(meta, "clocks", in->clocks) != 0)
		goto out;
	if (in->rank != NULL && add_job(meta, in->rank, in->node_readings) != 0)
		goto out;
	if (pmc_meta_add_cpufreq(meta, &online->set) != 0)
		goto out;
	if (cJSON_AddObjectToObject(meta, "sources") == NULL)
		goto out;
	*out = meta;
	pmc_cpus_free(&read_online);
	return 0;
out:
	pm_set_why(why, whysize, "cannot build trace metadata: out of memory");
	pmc_cpus_free(&read_online);
	cJSON_Delete(meta);
	return PMT_E_NOMEM;
}

void pmc_meta_source(cJSON *meta, const char *name, int recorded, const char *reason)
{
	cJSON *sources, *s;

	if (meta == NULL || name == NULL)
		return;
	sources = cJSON_GetObjectItemCaseSensitive(meta, "sources");
	if (!cJSON_IsObject(sources)) {
		sources = cJSON_CreateObject();
		if (sources == NULL)
			return;
		cJSON_DeleteItemFromObjectCaseSensitive(meta, "sources");
		if (!cJSON_AddItemToObject(meta, "sources", sources)) {
			cJSON_Delete(sources);
			return;
		}
	}
	s = cJSON_CreateObject();
	if (s == NULL)
		return;
	if (cJSON_AddBoolToObject(s, "recorded", recorded ? 1 : 0) == NULL ||
	    (reason != NULL && cJSON_AddStringToObject(s, "reason", reason) == NULL)) {
		cJSON_Delete(s);
		return;
	}
	/* One entry per source: a second call for the same name replaces the first. */
	if (cJSON_GetObjectItemCaseSensitive(sources, name) != NULL) {
		if (!cJSON_ReplaceItemInObjectCaseSensitive(sources, name, s))
			cJSON_Delete(s);
		return;
	}
	if (!cJSON_AddItemToObject(sources, name, s))
		cJSON_Delete(s);
}

/* sources.<name>, after pmc_meta_source made it; NULL when out of memory. */
static cJSON *source_entry(cJSON *meta, const char *name)
{
	cJSON *src = cJSON_GetObjectItemCaseSensitive(meta, "sources");
	return src ? cJSON_GetObjectItemCaseSensitive(src, name) : NULL;
}

int pmc_meta_add_sources(cJSON *meta, const struct pmc_meta_sources *src, char *why,
			 size_t whysize)
{
	char r[800];
	cJSON *e;

	pmc_meta_source(meta, "schedstat", 1, NULL);
	pmc_meta_source(meta, "stat", 1, NULL);
	if ((e = source_entry(meta, "stat")))
		cJSON_AddNumberToObject(e, "every_samples", src->stat_every);
	pmc_meta_source(meta, "status", 1, NULL);
	if ((e = source_entry(meta, "status")))
		cJSON_AddNumberToObject(e, "every_samples", src->status_every);
	pmc_meta_source(meta, "papi", src->papi_why == NULL, src->papi_why);
	if (src->procconn_why)
		snprintf(r, sizeof(r), "%s; new processes are found by scanning /proc every 10 samples",
			 src->procconn_why);
	pmc_meta_source(meta, "proc_connector", src->procconn_why == NULL,
			src->procconn_why ? r : NULL);
	if (src->taskstats_why)
		snprintf(r, sizeof(r), "%s; exits carry the last sampled values", src->taskstats_why);
	pmc_meta_source(meta, "taskstats", src->taskstats_why == NULL, src->taskstats_why ? r : NULL);
	pmc_meta_source(meta, "sched_events", src->sched_why == NULL, src->sched_why);
	if (src->sched_why == NULL && (e = source_entry(meta, "sched_events"))) {
		cJSON *names;
		cJSON_AddStringToObject(e, "clock", "mono");
		cJSON_AddNumberToObject(e, "buffer_kb_per_cpu", src->sched_buffer_kb);
		names = cJSON_AddArrayToObject(e, "events");
		for (const char *const *n = src->sched_events; names && n && *n; n++)
			cJSON_AddItemToArray(names, cJSON_CreateString(*n));
	}
	pmc_meta_source(meta, "energy", src->energy_why == NULL && src->energy,
			src->energy_why ? src->energy_why : src->energy ? NULL : "not opened");
	if (src->energy_why == NULL && src->energy && (e = source_entry(meta, "energy"))) {
		cJSON *names;
		cJSON_AddStringToObject(e, "source", pmc_energy_source(src->energy) == PMC_ENERGY_PERF
							     ? "perf" : "powercap");
		cJSON_AddNumberToObject(e, "period_ms", PMC_ENERGY_PERIOD_NS / 1e6);
		names = cJSON_AddArrayToObject(e, "zones");
		for (size_t i = 0; names && i < pmc_energy_count(src->energy); i++)
			cJSON_AddItemToArray(names, cJSON_CreateString(pmc_energy_zone(src->energy, i)->name));
	}
	if (!source_entry(meta, "sched_events") || !source_entry(meta, "energy")) {
		pm_set_why(why, whysize, "cannot build trace metadata: out of memory");
		return PMT_E_NOMEM;
	}
	return 0;
}
