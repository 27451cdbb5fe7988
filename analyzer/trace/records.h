/* SPDX-License-Identifier: MIT */
/* records.h: the JSON records of a trace (META, RUN_BEGIN, RUN_END, SUMMARY, WARNING) parsed once
 * into typed structs, so that no module after the loader looks a key up by string. The only user
 * of cJSON getters in the analyzer. Field names and meanings: formats/FORMAT.md §6. */
#ifndef PMA_RECORDS_H
#define PMA_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "mpi_info.h"
#include "pmt.h"

/* A recorded environment variable (META "env": OMP_, GOMP_, KMP_ variables). */
struct pma_env_var {
	char *name, *value;
};

/* One data source of META "sources": whether it was recorded and, when not, why. */
struct pma_source {
	char *name;
	int recorded;
	char *reason;           /* NULL when none was recorded */
};

/* META "topology": the recording machine (hwloc). Counts are as recorded, 0 when absent. */
struct pma_topology {
	int present;            /* META has a "topology" object */
	double packages, cores, pus, numa_nodes;
	char *hwloc_xml;        /* hwloc's XML export, NULL when absent */
};

/* "cpufreq" of RUN_END or META (sysfs cpufreq: scaling_governor, scaling_cur_freq). */
struct pma_cpufreq {
	int present;            /* an object was recorded */
	char *governor;         /* NULL when unknown */
	double lo_khz, hi_khz;  /* range of the positive cur_khz values; INFINITY and 0 when none */
};

#define PMA_INTERF_MAX_K 15 /* interferers per level, as pmcollect's PMC_CAL_MAX_K */

/* META "wake_cost": the machine's one-way wake-up latency by pair class (pmcollect --calibrate,
 * --calibrate-wake; formats/FORMAT.md). Pairs with an unknown class or a median that is not a
 * number >= 0 are left out; min and max default to the median. */
#define PMA_WAKE_MAX_PAIRS 8
struct pma_wake_cal {
	size_t n;               /* 0: no wake_cost in META */
	struct pma_wake_pair {
		char cls[16];   /* "same_cpu", "smt", "shared_cache", "same_package", "other_package" */
		int cpu_a, cpu_b;
		double median_ns, min_ns, max_ns;
		double cpu_ns;  /* both threads' CPU time per one-way wake; NAN when not recorded
				   (traces before 2026-11-27) or not a number in [0, 2 median_ns] */
	} pairs[PMA_WAKE_MAX_PAIRS];
};

/* META "interference": the machine's calibration for active interference (Casas & Bronevetsky
 * §3; pmcollect --calibrate-interference, formats/FORMAT.md). Numbers NAN when absent. */
struct pma_interf_cal {
	int present;
	int counters;           /* method "counters" (else "timing": hit rate from time per access) */
	int bw1_counters;       /* bw1_method "counters" (eq. 1 of counted misses), else "accesses"
				   (misses = accesses; also when the key is absent) */
	double BW1_bytes_per_s; /* one BWThr's bandwidth (eq. 1) */
	double B_bytes_per_s;   /* the machine's, STREAM triad */
	double csthr_bytes;
	size_t ncap;            /* capacity rows k = 0..ncap-1 */
	double C_bytes[PMA_INTERF_MAX_K + 1]; /* capacity left with k CSThrs; NAN when the row is not valid */
	double C0_lo_bytes, C0_hi_bytes; /* range of C_eff over row 0's points with 0.1 <= h <= 0.9:
				   the probe's own spread; NAN when none */
	double orth_bwthrs;     /* Fig. 11: BWThrs leaving the capacity unchanged, -1 unknown */
	/* "written": who made the calibration, where and when (FORMAT.md); "" and NAN when the
	 * machine file predates it */
	char written_id[96], written_user[64], written_host[96], written_time_utc[40];
	double written_unix_s;
};

/* RUN_BEGIN "interference" and RUN_END "interferers" of a run of pmcollect --interfere. */
struct pma_run_interf {
	int present;            /* RUN_BEGIN has a valid "interference" object */
	int bandwidth;          /* kind "bandwidth" (BWThrs), else "cache" (CSThrs) */
	uint32_t k;             /* interferers beside the program */
	double bytes_per_s;     /* RUN_END: their measured traffic over the run (eq. 1), NAN absent */
	double cpu_ns;          /* RUN_END: their CPU time, NAN absent */
};

/* A CLOCK_MONOTONIC / CLOCK_REALTIME pair (FORMAT.md 1.2 "clocks"). */
struct pma_clock_pair {
	int present;            /* all four numbers were recorded, finite, nsec in [0, 1e9) */
	double mono_ns;
	double realtime_s, realtime_nsec; /* the realtime instant: seconds + nanoseconds */
	double uncertainty_ns;
};

/* META "job" and "node_readings" (FORMAT.md 1.2): the trace is one rank of an MPI or Slurm job.
 * Numbers are -1 when unknown (null, absent, or not a whole number in [0, 2^31)). */
struct pma_job {
	int present;            /* META has a "job" object */
	long rank, local_rank, size;
	char *id;               /* job id ("1234.0"), NULL when none */
	char *host;             /* host name of the rank, NULL when unknown */
	char *rank_var;         /* the variable the rank came from, NULL when none */
	char *id_var;           /* the variable(s) the job id came from ("PMIX_NAMESPACE"), NULL */
	int node_readings;      /* 1 taken by this rank, 0 by local rank 0, -1 not recorded */
};

/* META: what, where and how the program was recorded. Strings are owned, sanitized (no control
 * characters) and NULL when absent. */
struct pma_meta {
	char **command;         /* argv of the program, ncommand strings */
	size_t ncommand;
	char *cwd, *start_utc, *tool, *tool_version, *hostname, *kernel_release;
	double interval_ms;     /* 0 when absent */
	char *cpus;             /* cpulist the program was allowed; NULL = all */
	double collector_cpu;   /* -1 when absent */
	struct pma_env_var *env;
	size_t nenv;
	struct pma_source *sources;
	size_t nsources;
	char *sources_json;     /* the "sources" object as recorded (compact JSON; the JSON report
				   repeats it as is), NULL when absent */
	char *mempolicy_mode;   /* set_mempolicy(2) mode name: "default", "interleave", "bind", ... */
	struct pma_topology topo;
	struct pma_cpufreq cpufreq;
	struct pma_env_var *labels; /* META "labels" (pmcollect --label KEY=VALUE, since 1.2) */
	size_t nlabels;
	struct pma_interf_cal interf;
	struct pma_wake_cal wake;   /* META "wake_cost", n 0 when absent */
	struct pma_job job;
	struct pma_clock_pair clocks; /* META "clocks", the collector's start */
	char *affinity_cpus;    /* META "affinity.cpus", NULL when absent */
	uint32_t *affinity_packages; /* META "affinity.packages" (1.2): OS indexes of the packages
				   (sockets) the collector's affinity covers, naffinity_packages of
				   them; NULL and 0 when absent or not a list of whole numbers */
	size_t naffinity_packages;
	char *online_cpus;      /* META "online_cpus": the whole machine, NULL when absent */
	char *usable_cpus;      /* META "usable_cpus" (1.2): online ∩ affinity ∩ cgroup cpuset */
	char *cgroup_cpus;      /* META "cgroup_cpuset.cpus" (1.2), NULL when none was found */
	/* META "cpu_limit": the CPU limit of pmcollect's cgroup (CFS bandwidth control); quota_us
	 * -1 without a limit or without the key (cpu_limit_present 0) */
	int cpu_limit_present;
	double cpu_quota_us, cpu_period_us, cpu_burst_us;
	int cpu_limit_by_pmcollect; /* "applied_by": "pmcollect" (pmcollect --quota's cgroup) */
	/* META "config_hz" (2.0): the kernel's scheduler tick rate CONFIG_HZ, Hz, read by pmcollect
	 * from the kernel's build configuration (FORMAT.md §6); 0 when absent, null, or not a whole
	 * number from 1 to 100000 */
	long config_hz;
};

enum pma_role { PMA_ROLE_UNKNOWN = 0, PMA_ROLE_BASELINE, PMA_ROLE_CALIBRATION, PMA_ROLE_OTHER,
		PMA_ROLE_INTERFERENCE, PMA_ROLE_SWEEP };

enum pma_exit_kind { PMA_EXIT_UNKNOWN = 0, PMA_EXIT_EXITED, PMA_EXIT_SIGNALED, PMA_EXIT_OTHER };

/* The unit of a run's C(n). */
enum pma_cost_unit { PMA_COST_NS = 0, PMA_COST_CYCLES };

/* RUN_END "C": the run's total cost C(n) (Tudor & Teo §II-B), cycles from PAPI or the schedstat
 * CPU time as the proxy. Numbers are NAN when absent. */
struct pma_run_cost {
	int present;            /* RUN_END has a "C" object */
	enum pma_cost_unit unit;/* PMA_COST_CYCLES when "source" is "cycles" */
	double value;           /* in unit */
	double cpu_time_ns;
	double instructions;    /* "instructions" (2.0): retired; a -p window's sum over its threads */
	char *event;            /* "event": the cycles event's name when unit is PMA_COST_CYCLES (the
				   name in RUN_BEGIN "counters.events"), else NULL */
	char *instructions_event; /* "instructions_event" (2.0), NULL when absent */
	double llc_misses;      /* r of eq. 8 */
	double stall_cycles;
};

/* One object mapped in a traced process (RUN_END "omp_regions.objects"): what offline
 * symbolization of OMPT codeptr_ra needs. */
struct pma_omp_object {
	uint32_t pid;
	uint64_t load_addr;         /* load bias (dl_iterate_phdr dlpi_addr) */
	uint8_t build_id[32];
	size_t build_id_bytes;      /* 0: none recorded */
	char *path;
};

/* RUN_END "omp_regions.counters" (FORMAT.md §6, 1.3): the per-thread PAPI events of the run's
 * OMP_COUNTERS records, in their order. */
#define PMA_OMP_MAX_EVENTS 16
struct pma_omp_counters_info {
	int present;                /* the object is there (a 1.3 trace with --omp-regions) */
	int recorded;               /* the tool counted the events */
	char *reason;               /* why not (NULL when recorded) */
	char *events[PMA_OMP_MAX_EVENTS]; /* names, NULL past nevents */
	int llc[PMA_OMP_MAX_EVENTS];  /* kinds[k] is "llc_misses": a TCM of Allande's eq. 2 */
	size_t nevents;
	double records, failures;   /* NAN when absent */
};

/* RUN_END "omp_regions" (FORMAT.md §6, 1.2): whether an OpenMP runtime started the OMPT tool. */
struct pma_omp_info {
	int present;                /* RUN_END has the object (the run used --omp-regions) */
	int recorded;               /* a runtime answered */
	char *reason;               /* why not (NULL when recorded) */
	char *runtime_version;      /* NULL when unknown */
	double regions, regions_total, dropped_records; /* NAN when absent */
	struct pma_omp_object *objects;
	size_t nobjects;
	struct pma_omp_counters_info counters;
};

/* RUN_END "energy" and "other_load" (since 1.2, FORMAT.md §6): the run's energy by zone kind
 * from powercap or perf, and the machine's other load during the run. */
struct pma_run_energy {
	int present;            /* RUN_END "energy" is an object */
	char *source;           /* "powercap" or "perf"; NULL when absent */
	double package_uj, core_uj, dram_uj; /* NAN when the run has no zone of that kind */
	char *reason;           /* RUN_END "energy_reason" when energy is null, else NULL */
	double max_gap_ns;      /* energy.max_gap_ns: the longest time between two readings; NAN
				   when absent. Over 1 s, two wraps may read as one (FORMAT.md §6) */
	double other_load_cpus; /* other_load.cpus: other processes' busy CPUs; NAN when unknown */
	double program_cpus;    /* other_load.program_cpus; NAN when unknown */
	double steal_cpus;      /* other_load.steal_cpus: the hypervisor's steal time over the run
				   (/proc/stat steal) / wall; NAN when unknown */
	char **zone_ids;        /* energy.zones[].id ("intel-rapl:0:1"; NULL where absent), in the
				   order of the ENERGY records; [nzone_ids], at most
				   PMT_MAX_ENERGY_ZONES */
	size_t nzone_ids;
};

/* RUN_BEGIN and RUN_END of one run. */
struct pma_run_info {
	int has_begin, has_end;
	enum pma_role role;
	uint32_t pid;           /* RUN_BEGIN "pid", 0 when absent or not a process id */
	char *cpus;             /* RUN_BEGIN "cpus" (cpulist), NULL when absent */
	double collector_cpu;   /* RUN_BEGIN "collector_cpu" (each run pins again), NAN absent */
	double threads;         /* RUN_BEGIN "threads" (OMP_NUM_THREADS set by pmcollect), 0 when
				   absent or null */
	double rep, nrep;       /* RUN_BEGIN "rep" and "nrep" (format 1.2): repetition of a
				   repeated configuration; NAN when absent */
	int has_sweep;          /* RUN_BEGIN has a "sweep" object (role sweep, format 1.2) */
	uint32_t sweep_config;  /* its "config" */
	double sweep_cores, sweep_threads; /* its "cores" and "threads", NAN when null */
	double sweep_quota_cpus;  /* its "quota_cpus" (a quota= sweep), NAN when absent */
	double quota_cpus, quota_period_us; /* RUN_BEGIN "quota" "cpus" and "period_us" (pmcollect
					       --quota or a quota= sweep), NAN when absent */
	double nr_periods, nr_throttled, throttled_us; /* RUN_END "cpu_stat" (the cgroup's cpu.stat
					       over the run, sched-bwc.rst), NAN when absent */
	enum pma_exit_kind exit_kind;
	char *exit_kind_name;   /* RUN_END "exit.kind" as recorded, NULL when absent */
	double exit_code, exit_signal; /* NAN when absent */
	uint64_t sched_lost;    /* RUN_END "sched_events.lost" */
	struct pma_run_cost C;
	struct pma_cpufreq cpufreq;
	struct pma_omp_info omp;  /* RUN_END "omp_regions" */
	struct pma_mpi_info mpi;  /* RUN_END "mpi" (pmcollect --mpi, mpitime.h) */
	char *mem_mode;         /* RUN_BEGIN "mempolicy.mode", NULL when absent */
	char **energy_zones;    /* RUN_BEGIN "energy.zones" (1.2): the zone names of the run's ENERGY
				   records, in their order ("package-0", "dram", ...; NULL where not a
				   string); [nenergy_zones], at most PMT_MAX_ENERGY_ZONES */
	size_t nenergy_zones;
	char **counter_events;  /* RUN_BEGIN "counters.events": the names of the run's COUNTERS
				   records' values, in their order (NULL where not a string);
				   [ncounter_events], at most PMT_MAX_COUNTERS */
	size_t ncounter_events;
	struct pma_run_energy energy;
	double wall_ns;         /* RUN_END "wall_ns", NAN when absent */
	double utime_ns, stime_ns; /* RUN_END "rusage", NAN when absent */
	struct pma_run_interf interf;
	struct pma_clock_pair clk_begin, clk_end; /* RUN_END "clocks" (1.2) */
	double samples, late_samples, lost_samples; /* RUN_END counts of the run's timer
				   expirations (1.2), NAN when absent */
	double interval_requested_ms, interval_final_ms; /* RUN_END "interval" (1.2): the -i asked
				   for and the one the collector kept at the end; NAN when absent */
	double interval_changes; /* RUN_END "interval.changes", NAN when absent */
	/* a window of the run (pmcollect --delay, --duration; format 2.0): RUN_BEGIN "window"
	   "delay_ns" (NAN: the run was recorded from its start), RUN_END "window" "offset_ns" and
	   "length_ns" (NAN when absent), "end" ("duration", "exit") and "after" ("exited",
	   "terminated", "killed", "detached"), NULL when absent */
	double window_delay_ns, window_offset_ns, window_length_ns;
	char *window_end, *window_after;
	int window_attached;    /* RUN_BEGIN "window" "attached" names a process (pmcollect -p) */
};

/* The label of a run recorded as a window (pmcollect --delay, --duration; RUN_END "window"),
 * e.g. "window of 5.000 s from 60.000 s after the start, ended at --duration (the program was
 * then terminated)", into buf. Returns 1, or 0 (buf "") when the run was no window. */
int pma_window_label(const struct pma_run_info *ri, char *buf, size_t size);

/* The SUMMARY record (numbers 0 when absent). */
struct pma_summary {
	int present;
	double samples, late_samples, lost_samples, collector_cpu_ns;
	double sampling_cpu_ns; /* the sampling alone (collector_cpu_ns has start-up too); NAN absent */
};

/* Parses META text into m (zeroed first; free with pma_meta_free, also on error). Returns 0, or
 * -1 when the text is not a JSON object. */
int pma_meta_parse(const char *text, struct pma_meta *m);
void pma_meta_free(struct pma_meta *m);

/* Marks META source name as not recorded with reason, in m->sources and in m->sources_json (the
 * object the JSON reports copy: "recorded" false, "reason" set, its other keys kept): META is
 * written before the runs, so a source it calls recorded can turn out to have recorded nothing
 * (an energy counter that never advanced; FORMAT.md §6 SUMMARY "sources"). A name META lacks is
 * left alone. Returns 0, or -1 when memory runs out (m stays consistent: either the old or the
 * new text). */
int pma_meta_source_unrecorded(struct pma_meta *m, const char *name, const char *reason);

/* SUMMARY "sources" (FORMAT.md §6 SUMMARY, 2.0): every source there with "recorded" false and a
 * string "reason" becomes not recorded in m (pma_meta_source_unrecorded); anything else there, or
 * a text that is not JSON, is ignored. Returns 0, or -1 when memory runs out. */
int pma_summary_sources_apply(const char *text, struct pma_meta *m);

/* Fills the RUN_BEGIN part of ri from its JSON text (a text that is not JSON leaves it as
 * absent). Returns 0, or -1 when memory runs out. */
int pma_run_begin_parse(const char *text, struct pma_run_info *ri);
/* The same for RUN_END. */
int pma_run_end_parse(const char *text, struct pma_run_info *ri);
void pma_run_info_free(struct pma_run_info *ri);

/* SUMMARY text into s; a text that is not JSON leaves s->present 0. */
void pma_summary_parse(const char *text, struct pma_summary *s);

/* WARNING text: its "what" (malloc'ed, sanitized), or NULL when absent; *code its "code"
 * (malloc'ed, sanitized; NULL when absent, as in traces written before the codes, or when
 * "what" is). */
char *pma_warning_parse(const char *text, char **code);

#endif
