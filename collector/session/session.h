/* SPDX-License-Identifier: MIT */
/* session.h: what one pmcollect session owns from start to end: the machine as it found it (ONE
 * hwloc topology, the online and usable CPUs), the parsed CPU sets, the run plan, the user, the
 * trace writer and the data sources. main.c fills it step by step; pmc_session_close releases
 * everything, whichever step failed. */
#ifndef PMC_SESSION_H
#define PMC_SESSION_H

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <hwloc.h>

#include "calstop.h"
#include "sources/counters.h"
#include "sources/cpuset.h"
#include "sources/energy.h"
#include "interfere/interfere_session.h"
#include "omp/omp.h"
#include "plan.h"
#include "sources/rank.h"
#include "run.h"
#include "sweep.h"
#include "pm_cli.h"

struct pmc_sched;
struct pmt_writer;

/* What pmcollect sets up and holds while it records (the machine as it found it, the plan, the
 * trace, the data sources); pmc_session_close releases it all. */
struct pmc_session {
	/* the machine, read once by pmc_session_machine and passed to everything that needs it */
	hwloc_topology_t topo;      /* the one hwloc topology of the session */
	struct pmc_cpus online;     /* /sys/devices/system/cpu/online (list, set, text) */
	/* the CPUs pmcollect may use: online ∩ its affinity ∩ its cgroup's cpuset (docs/model.md) */
	struct pmc_usable_cpus usable;
	int collector_shared;       /* a baseline had every CPU pmcollect may use (warned once) */
	char shared_msg[4096];      /* that warning, for a WARNING record once the trace is open */
	struct pmc_cpus cpus;       /* --cpus, parsed once (empty without --cpus) */
	struct pmc_cpus interfere_prog; /* --interfere: the program's CPUs beside the interferers */
	cpu_set_t prog_cpus;        /* the CPUs of the current run */
	struct pmc_plan plan;
	struct pmc_user user;
	int have_user;
	struct bitmask *mem_mask;
	int out_fd, created_output, started_writer;
	struct pmt_writer *w;
	int writer_err, writer_errno; /* the first writer failure, reported once */
	/* signals (setup_signals) */
	int sig_fd;
	sigset_t forward, orig_mask;
	int sigpipe_ignored, sigxfsz_ignored;
	struct rlimit nofile_orig;
	cpu_set_t start_cpus;
	int have_start_cpus;
	int collector_cpu;
	/* data sources (open_sources) */
	struct pmc_counters *counters;
	struct pmc_sched *sched;
	struct pmc_pswitch *pswitch; /* NULL: not recorded, pswitch_why says why */
	char pswitch_why[512];
	struct pmc_energy *energy;  /* NULL: none, energy_why says why */
	char energy_why[1024];
	int pc_fd, ts_fd;
	uint16_t ts_family;
	/* --quota: the program's transient cgroup (sources/cpuset.h), removed by pmc_session_close */
	struct pmc_cgquota quota;
	/* one rank of an MPI or Slurm job (collector/sources/rank.h) */
	struct pmc_rank rank;
	int in_job;                 /* a launcher variable was set */
	int node_readings;          /* this process takes the whole-node readings (local rank 0) */
	int output_template;        /* -o had a placeholder: ss->output holds the expanded name */
	char output[4096];
	/* the runs' totals for SUMMARY */
	struct pmc_run_result total;
	size_t nruns_done;
	size_t nruns_started; /* of those, the runs whose program started (exec succeeded) */
	/* --calibrate: the rounds of the plan (plan.n = cal_points x calstop.max_rounds), the rule
	 * that ends them when calstop_on (collector/session/calstop.h), and how they ended */
	int calstop_on;
	struct pmc_calstop_rule calstop;
	size_t cal_points, cal_one; /* runs per round; the round's run on 1 CPU (C(1)), or cal_points */
	enum pmc_calstop_reason cal_stop;
	uint32_t cal_rounds;        /* complete rounds */
	double cal_worst_se;        /* the largest standard error of omega then, NAN unknown */
	uint32_t cal_worst_cpus;    /* the CPU count of the run where it was */
	struct pmc_omp_opts omp;    /* --omp-regions: the tool and the preloaded runtime */
	char omp_why[1024];         /* why --omp-regions cannot work at all ("" when it can) */
	int mpi_on;                 /* --mpi: the runs preload mpi_tool */
	char mpi_tool[4096], mpi_why[1024];
	char mpi_off[1100];         /* off though the program links libmpi: why ("" otherwise) */
	/* --interfere / --calibrate-interference (plan_interference) */
	int interfering;            /* the plan's runs have interferers */
	int have_cal;               /* isess.cal holds the machine's calibration */
	struct pmc_isess isess;
	char interference_file[4096];
	/* --sweep: its plan, and the allowed CPUs in compact order (the first k for k cores) */
	struct pmc_sweep_plan sweep;
	uint32_t *compact;
	size_t ncompact;
};

/* Empties *ss with every descriptor at -1 and no collector CPU: ready for pmc_session_close at
 * any point. */
void pmc_session_init(struct pmc_session *ss);

/* Reads the machine once: loads the session's hwloc topology (ss->topo; HWLOC_XMLFILE honoured),
 * the online CPUs (ss->online) and the CPUs pmcollect may use (ss->usable:
 * online, its affinity, its cgroup's cpuset). Returns 0, or -1 with a one-line reason in why. */
int pmc_session_machine(struct pmc_session *ss, char *why, size_t whysize);

/* Releases everything ss holds (data sources, descriptors, lists, the topology) and leaves it as
 * pmc_session_init did. Does not touch the trace writer (finished before, by main.c). */
void pmc_session_close(struct pmc_session *ss);

/* Looks up user name (or a numeric uid) for --user: uid, primary gid, supplementary groups,
 * home (getpwnam(3), getgrouplist(3)). Switching to another user needs root (CAP_SETUID): a
 * non-root pmcollect may only name itself. Fills *u (free with pmc_user_free). Returns 0, or -1
 * with a reason in why. */
int pmc_user_resolve(const char *name, struct pmc_user *u, char *why, size_t whysize);

/* Frees what pmc_user_resolve filled and zeroes *u; accepts a zeroed one. */
void pmc_user_free(struct pmc_user *u);

#endif
