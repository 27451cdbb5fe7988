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
#include "sources/sources.h"
#include "mpitool.h"
#include "run.h"
#include "sweep.h"
#include "pm_cli.h"

struct pmc_sched;
struct pmt_writer;

/* The machine as pmcollect found it, read once by pmc_session_machine and passed to everything
 * that needs it, and the CPU sets of the program and of pmcollect itself. */
struct pmc_machine {
	hwloc_topology_t topo;      /* the one hwloc topology of the session */
	struct pmc_cpus online;     /* /sys/devices/system/cpu/online (list, set, text) */
	/* the CPUs pmcollect may use: online ∩ its affinity ∩ its cgroup's cpuset (docs/model.md) */
	struct pmc_usable_cpus usable;
	struct pmc_cpus cpus;       /* --cpus, parsed once (empty without --cpus) */
	cpu_set_t prog_cpus;        /* the CPUs of the current run */
	cpu_set_t start_cpus;       /* pmcollect's affinity when it started */
	int have_start_cpus;
	int collector_cpu;          /* the CPU pmcollect is pinned to, -1 none */
	int collector_shared;       /* a baseline had every CPU pmcollect may use (warned once) */
	char *shared_msg;           /* that warning (malloc'd), for a WARNING record once the trace
				       is open; NULL before */
	/* --quota: the program's transient cgroup (sources/cpuset.h), removed by pmc_session_close */
	struct pmc_cgquota quota;
};

/* The trace being written: its descriptor, the writer and the writer's first failure. */
struct pmc_trace_out {
	int out_fd, created_output, started_writer;
	struct pmt_writer *w;
	int writer_err, writer_errno; /* the first writer failure, reported once */
};

/* The signals pmcollect handles while it records (pmc_cli_setup_signals) and the limits it
 * changed, restored in the child before exec. */
struct pmc_signals {
	int sig_fd;                 /* signalfd of SIGCHLD and the forwarded signals, -1 none */
	sigset_t forward, orig_mask;
	int sigpipe_ignored, sigxfsz_ignored;
	struct rlimit nofile_orig;
};

/* What pmcollect sets up and holds while it records, one part per owner; pmc_session_close
 * releases it all. */
struct pmc_session {
	struct pmc_machine machine;       /* session/ (this file) */
	struct pmc_run_plan rplan;        /* session/plan.h: the runs to make */
	struct pmc_run_env env;           /* session/run.h: user, NUMA mask */
	struct pmc_run_book book;         /* session/run.h: totals, how the rounds ended */
	struct pmc_trace_out trace;       /* session/ (this file): the trace writer */
	struct pmc_signals signals;       /* session/ (this file) */
	struct pmc_sources src;           /* sources/sources.h: the data sources */
	struct pmc_job job;               /* sources/rank.h: rank, -o template */
	struct pmc_omp_state openmp;      /* omp/omp.h: --omp-regions */
	struct pmc_mpi_state mpi;         /* session/mpitool.h: --mpi */
	struct pmc_interfere_state ifr;   /* interfere/interfere_session.h */
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
