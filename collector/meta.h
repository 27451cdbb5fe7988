/* SPDX-License-Identifier: MIT */
/* meta.h: builds the trace's META JSON: how the program was run and the machine it ran on. */
#ifndef PMC_META_H
#define PMC_META_H

#include <cjson/cJSON.h>
#include <stdint.h>

struct pmc_meta_input {
	int argc;                  /* the traced command */
	char *const *argv;
	double interval_ms;        /* sampling interval */
	const char *cpus;          /* the program's CPU set as a cpulist ("0", "0-1"); NULL = all online */
	int collector_cpu;         /* CPU the collector pinned itself to, -1 = not pinned */
	const char *mem_mode;      /* "default", "bind" or "interleave" */
	const char *mem_nodes;     /* NUMA node list for bind/interleave, NULL for default */
	uint64_t start_mono_ns;    /* CLOCK_MONOTONIC at the start, paired with start_utc */
};

/* Builds the META object of FORMAT.md §6: tool and format versions, command, cwd, the OMP_ GOMP_
 * KMP_ environment, start time (UTC, ISO 8601 with microseconds) with its monotonic pair, hostname,
 * uname, USER_HZ (sysconf(_SC_CLK_TCK)), page size, clock, interval, CPU sets, memory policy, cpufreq
 * governor and current frequencies (or null), and "topology" from hwloc: counts of packages, cores,
 * PUs, NUMA nodes, the NUMA distance matrix, caches (level, size_bytes, cpus sharing it as a
 * cpulist) and hwloc's XML export ("hwloc_xml") so the analyzer can rebuild the topology elsewhere.
 * "sources" is created empty; the caller adds one entry per data source.
 * Returns a new cJSON object the caller frees with cJSON_Delete, or NULL with a one-line reason in
 * why. A failing part (e.g. hwloc) does not fail the whole: it is recorded as {"error": "..."}. */
cJSON *pmc_meta_build(const struct pmc_meta_input *in, char *why, size_t whysize);

/* Adds "cpufreq" to obj for the CPUs of the cpulist `cpus`: {"governor", "cur_khz": [...],
 * "cpu_ids": [...]} from /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor and scaling_cur_freq
 * (kHz), or null plus "cpufreq_reason" when there is no cpufreq driver. META has it for the online
 * CPUs; RUN_END for the run's CPUs, so the analyzer can tell whether C(n) measured as CPU time
 * assumed one frequency wrongly. Returns 0 or -1 (out of memory). */
int pmc_meta_add_cpufreq(cJSON *obj, const char *cpus);

/* Adds sources.<name> = {"recorded": recorded, "reason": reason (omitted when NULL)} to meta. */
void pmc_meta_source(cJSON *meta, const char *name, int recorded, const char *reason);

#endif
