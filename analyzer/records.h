/* SPDX-License-Identifier: MIT */
/* records.h: the JSON records of a trace (META, RUN_BEGIN, RUN_END, SUMMARY, WARNING) parsed once
 * into typed structs, so that no module after the loader looks a key up by string. The only user
 * of cJSON getters in the analyzer. Field names and meanings: formats/FORMAT.md §6. */
#ifndef PMA_RECORDS_H
#define PMA_RECORDS_H

#include <stddef.h>
#include <stdint.h>

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
};

enum pma_role { PMA_ROLE_UNKNOWN = 0, PMA_ROLE_BASELINE, PMA_ROLE_CALIBRATION, PMA_ROLE_OTHER,
		PMA_ROLE_SWEEP };

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
	double llc_misses;      /* r of eq. 8 */
	double stall_cycles;
};

/* RUN_BEGIN and RUN_END of one run. */
struct pma_run_info {
	int has_begin, has_end;
	enum pma_role role;
	uint32_t pid;           /* RUN_BEGIN "pid", 0 when absent or not a process id */
	char *cpus;             /* RUN_BEGIN "cpus" (cpulist), NULL when absent */
	double threads;         /* RUN_BEGIN "threads" (-t, OMP_NUM_THREADS), NAN when absent */
	double rep, nrep;       /* RUN_BEGIN "rep" and "nrep" (format 1.2): repetition of a
				   repeated configuration; NAN when absent */
	int has_sweep;          /* RUN_BEGIN has a "sweep" object (role sweep, format 1.2) */
	uint32_t sweep_config;  /* its "config" */
	double sweep_cores, sweep_threads; /* its "cores" and "threads", NAN when null */
	enum pma_exit_kind exit_kind;
	char *exit_kind_name;   /* RUN_END "exit.kind" as recorded, NULL when absent */
	double exit_code, exit_signal; /* NAN when absent */
	uint64_t sched_lost;    /* RUN_END "sched_events.lost" */
	struct pma_run_cost C;
	struct pma_cpufreq cpufreq;
};

/* The SUMMARY record (numbers 0 when absent). */
struct pma_summary {
	int present;
	double samples, late_samples, lost_samples, collector_cpu_ns;
};

/* Parses META text into m (zeroed first; free with pma_meta_free, also on error). Returns 0, or
 * -1 when the text is not a JSON object. */
int pma_meta_parse(const char *text, struct pma_meta *m);
void pma_meta_free(struct pma_meta *m);

/* Fills the RUN_BEGIN part of ri from its JSON text (a text that is not JSON leaves it as
 * absent). Returns 0, or -1 when memory runs out. */
int pma_run_begin_parse(const char *text, struct pma_run_info *ri);
/* The same for RUN_END. */
int pma_run_end_parse(const char *text, struct pma_run_info *ri);
void pma_run_info_free(struct pma_run_info *ri);

/* SUMMARY text into s; a text that is not JSON leaves s->present 0. */
void pma_summary_parse(const char *text, struct pma_summary *s);

/* WARNING text: its "what" (malloc'ed, sanitized), or NULL when absent. */
char *pma_warning_parse(const char *text);

#endif
