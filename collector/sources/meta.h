/* SPDX-License-Identifier: MIT */
/* meta.h: builds the trace's META JSON: how the program was run and the machine it ran on. */
#ifndef PMC_META_H
#define PMC_META_H

#include <cjson/cJSON.h>
#include <sched.h>

#include <hwloc.h>

struct pmc_cgquota; /* cpuset.h */
#include <stdint.h>

#include "cpuset.h"
#include "energy.h"
#include "pmt.h"

struct pmc_rank;

/* One reading of CLOCK_MONOTONIC and CLOCK_REALTIME at (nearly) the same instant: the realtime
 * clock read between two monotonic reads, mono_ns their midpoint and uncertainty_ns half their
 * gap. Monotonic clocks of two nodes are unrelated; realtime clocks agree to what NTP/PTP keeps
 * them to. Pairs at the start and end of each run let a reader place the runs of several nodes on
 * one time axis and see each node's drift between the two clocks (docs/cluster.md). */
struct pmc_clock_pair {
	uint64_t mono_ns;
	int64_t realtime_s;        /* seconds since the epoch */
	long realtime_nsec;        /* and nanoseconds, 0 .. 999999999 (kept apart: a double of
				      epoch nanoseconds would lose ~100 ns) */
	uint64_t uncertainty_ns;
};

/* Reads a pair now (clock_gettime(2)). */
void pmc_clock_pair_now(struct pmc_clock_pair *p);

/* Adds obj[key] = {"mono_ns", "realtime_s", "realtime_nsec", "uncertainty_ns"} (FORMAT.md §6).
 * Returns 0 or PMT_E_NOMEM. */
int pmc_clock_pair_add(cJSON *obj, const char *key, const struct pmc_clock_pair *p);

struct pmc_meta_input {
	int argc;                  /* the traced command */
	char *const *argv;
	double interval_ms;        /* sampling interval */
	const char *cpus;          /* the program's CPU set as a cpulist ("0", "0-1"); NULL = all online */
	const struct pmc_cpus *online; /* the online CPUs, read once by the caller (META
				      "online_cpus", cpufreq); NULL = read here (pmc_online_cpus) */
	int collector_cpu;         /* CPU the collector pinned itself to, -1 = not pinned */
	const char *mem_mode;      /* "default", "bind" or "interleave" */
	const char *mem_nodes;     /* NUMA node list for bind/interleave, NULL for default */
	uint64_t start_mono_ns;    /* CLOCK_MONOTONIC at the start, paired with start_utc */
	const struct pmc_clock_pair *clocks; /* the start pair for META "clocks"; NULL = omitted */
	/* One rank of an MPI or Slurm job (collector/sources/rank.h), NULL outside one: META "job". */
	const struct pmc_rank *rank;
	/* Whole-node readings (hwloc's XML export of the topology; energy): 1 = taken by this
	 * process, 0 = left to local rank 0 of the node (META "node_readings" says so). */
	int node_readings;
	const cpu_set_t *affinity; /* pmcollect's CPU affinity at the start (the rank's, as the
				      launcher bound it), NULL = not recorded */
	/* The CPUs pmcollect may use (collector/sources/cpuset.h: online ∩ affinity ∩ cgroup cpuset) as a
	 * cpulist, META "usable_cpus"; NULL = not recorded. */
	const char *usable_cpus;
	const char *cgroup_cpus;   /* the cgroup's effective cpuset, NULL = none found */
	const char *cgroup_file;   /* the file it was read from */
	/* The session's hwloc topology (collector/session/session.h), read for META "topology" and
	 * "affinity"; NULL gives "topology": {"error": ...}. */
	hwloc_topology_t topo;
	/* pmcollect --quota: the transient cgroup the program runs in (cpuset.h), its limit already
	 * written: META "cpu_limit" is its limit with "applied_by": "pmcollect"; NULL = pmcollect's
	 * own cgroup's limit ("applied_by": "environment"). */
	const struct pmc_cgquota *quota;
};

/* Builds the META object of FORMAT.md §6: tool and format versions, command, cwd, the OMP_ GOMP_
 * KMP_ environment, start time (UTC, ISO 8601 with microseconds) with its monotonic pair, hostname,
 * uname, USER_HZ (sysconf(_SC_CLK_TCK)), the scheduler tick rate CONFIG_HZ ("config_hz" and
 * "config_hz_source", or null and "config_hz_why": kconfig.h), page size, clock, interval, CPU sets, memory policy, cpufreq
 * governor and current frequencies (or null), and "topology" from hwloc: counts of packages, cores,
 * PUs, NUMA nodes, the NUMA distance matrix, caches (level, size_bytes, cpus sharing it as a
 * cpulist) and hwloc's XML export ("hwloc_xml") so the analyzer can rebuild the topology elsewhere.
 * "sources" is created empty: pmc_meta_add_sources fills it. Since 1.2 also "clocks" (the start
 * pair), "affinity" (the CPUs of in->affinity with the packages and NUMA nodes they cover),
 * "usable_cpus" and "cgroup_cpuset" ({"cpus", "file"} or null), and
 * for a rank of a job "job" (rank, local rank, size, job id, host and the variables they came
 * from) and "node_readings" (whether this rank took the whole-node readings; when not, the
 * topology has no "hwloc_xml").
 * Returns 0 and in *out a new cJSON object the caller frees with cJSON_Delete, or PMT_E_INVAL (bad
 * input) / PMT_E_NOMEM with a one-line reason in why (*out NULL). A failing part (e.g. hwloc) does
 * not fail the whole: it is recorded as {"error": "..."}. */
int pmc_meta_build(const struct pmc_meta_input *in, cJSON **out, char *why, size_t whysize);

/* Adds "cpufreq" to obj for the CPUs of the set `cpus` (NULL: unknown, "cpufreq" null with a
 * reason): {"governor", "cur_khz": [...],
 * "cpu_ids": [...]} from /sys/devices/system/cpu/cpuN/cpufreq/scaling_governor and scaling_cur_freq
 * (kHz), or null plus "cpufreq_reason" when there is no cpufreq driver. META has it for the online
 * CPUs; RUN_END for the run's CPUs, so the analyzer can tell whether C(n) measured as CPU time
 * assumed one frequency wrongly. Returns 0 or PMT_E_NOMEM. */
int pmc_meta_add_cpufreq(cJSON *obj, const cpu_set_t *cpus);

/* Adds sources.<name> = {"recorded": recorded, "reason": reason (omitted when NULL)} to meta. */
void pmc_meta_source(cJSON *meta, const char *name, int recorded, const char *reason);

/* The data sources of a recording, for META "sources" (FORMAT.md §6). A NULL reason means the
 * source was recorded; otherwise it is the one-line reason it was not. */
struct pmc_meta_sources {
	uint32_t stat_every;        /* samples between two reads of a thread's stat */
	uint32_t status_every;      /* samples between two reads of a thread's status */
	const char *papi_why;       /* hardware counters (PAPI) */
	const char *procconn_why;   /* proc connector (new processes) */
	const char *taskstats_why;  /* taskstats (exact exit values) */
	const char *sched_why;      /* scheduler events (tracefs); "turned off with --no-sched" */
	unsigned sched_buffer_kb;   /* their ring buffer per CPU, KiB */
	const char *const *sched_events; /* their "system:event" names, NULL-terminated */
	const char *energy_why;     /* energy counters (energy.h): why there are none */
	const struct pmc_energy *energy; /* the opened counters when energy_why is NULL */
};

/* Adds the entries schedstat, stat, status, papi, proc_connector, taskstats, sched_events and
 * energy (its "source", powercap or perf, and zone names) to META "sources", in that order: "recorded", the reason when not, "every_samples" of stat and
 * status, what a missing netlink source costs ("new processes are found by scanning /proc every
 * 10 samples", "exits carry the last sampled values"), and the scheduler events' clock, buffer
 * and event names. Returns 0, or PMT_E_NOMEM with a reason in why. */
int pmc_meta_add_sources(cJSON *meta, const struct pmc_meta_sources *src, char *why,
			 size_t whysize);

#endif
