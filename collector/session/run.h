/* SPDX-License-Identifier: MIT */
/* run.h: one run of the traced program: start it on a CPU set, sample it until the root process is
 * reaped, and write RUN_BEGIN / samples / RUN_END. pmcollect calls it once per run of its plan
 * (plan.h: a plain run, or the runs of --calibrate / --runs), with run_id = the run's index. */
#ifndef PMC_RUN_H
#define PMC_RUN_H

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "sources/counters.h"
#include "omp/omp.h"
#include "sources/energy.h"
#include "guard.h"
#include "plan.h"
#include "pmt.h"
#include "sources/perfswitch.h"
#include "sources/schedtrace.h"
#include "calstop.h"

struct bitmask; /* libnuma */
struct pmc_cgquota; /* sources/cpuset.h */
struct cJSON;

/* The unprivileged user the program runs as (--user, or SUDO_USER when pmcollect runs as root):
 * the child calls setgroups(2), setgid(2) and setuid(2) with these before exec, and sets HOME,
 * USER and LOGNAME from name and home. pmcollect itself keeps its privileges. */
struct pmc_user {
	char *name;
	char *home;          /* NULL when unknown */
	uid_t uid;
	gid_t gid;
	gid_t *groups;       /* supplementary groups (getgrouplist(3)), ngroups entries */
	int ngroups;
};

struct pmc_run_config {
	char *const *argv;          /* the command, NULL-terminated */
	const cpu_set_t *cpus;      /* the program's CPUs; NULL = child_default_cpus */
	const cpu_set_t *child_default_cpus; /* affinity pmcollect itself started with */
	const char *cpus_text;      /* cpulist of cpus for RUN_BEGIN, NULL = all online */
	const cpu_set_t *online;    /* the online CPUs (read once by pmcollect): RUN_END cpufreq of
				       a run without cpus */
	int collector_cpu;          /* CPU pmcollect is pinned to, -1 = not pinned (RUN_BEGIN) */
	int threads;                /* RUN_BEGIN "threads" (-t); 0 = not given */
	const struct pmc_env_override *env; /* set in the program's environment before exec (the
				       plan run's overrides, e.g. OMP_NUM_THREADS), nenv entries */
	size_t nenv;
	const char *mem_mode;       /* "default", "bind" or "interleave" */
	const char *mem_nodes;      /* node list text for RUN_BEGIN, NULL for default */
	struct bitmask *mem_mask;   /* libnuma nodes for bind/interleave, NULL for default */
	double interval_ms;         /* sampling interval, ms */
	uint32_t stat_every;        /* see struct pmc_sampler_opts */
	uint32_t status_every;
	struct pmc_counters *counters; /* opened counters or NULL: attached to the program's root
				       (-p: the events each thread's set counts, never attached) */
	int procconn_fd;            /* proc connector socket or -1 */
	int taskstats_fd;           /* taskstats socket or -1 */
	uint16_t taskstats_family;
	int signal_fd;              /* signalfd of SIGCHLD and the forwarded signals (blocked) */
	const sigset_t *forward;    /* signals to pass on to the root process when another process
				       sent them to pmcollect */
	const sigset_t *child_sigmask; /* signal mask the program starts with */
	int child_sigpipe_ignored;  /* SIGPIPE was ignored when pmcollect started */
	int child_sigxfsz_ignored;  /* SIGXFSZ was ignored when pmcollect started */
	const struct rlimit *child_nofile; /* RLIMIT_NOFILE the program starts with */
	const struct pmc_user *user; /* run the program as this user; NULL = as pmcollect */
	const char *role;           /* "baseline", "calibration", "sweep" or "run" (RUN_BEGIN) */
	const struct pmc_plan_run *plan_run; /* the plan's run, for RUN_BEGIN "rep" (when nrep > 0)
				       and "sweep" (role sweep); NULL: neither */
	struct pmc_sched *sched;    /* scheduler events (pmc_sched_open) or NULL: not recorded */
	struct pmc_pswitch *pswitch; /* perf context switches (perfswitch.h) or NULL: not recorded */
	const struct pmc_omp_opts *omp; /* --omp-regions: load the OMPT tool and record its regions
				       (omp.h); NULL = not asked */
	const char *mpi_tool;       /* --mpi: libpmmpi.so to preload, its totals into RUN_END "mpi"
				       (mpitool.h); NULL = off */
	const char *mpi_off;        /* off though the program links libmpi: why (RUN_END "mpi"
				       {"recorded": false, "reason"}), NULL otherwise */
	struct pmc_energy *energy;  /* energy counters (pmc_energy_open) or NULL: not recorded */
	const char *energy_why;     /* why there is no energy source (RUN_END energy_reason) */
	long user_hz;               /* sysconf(_SC_CLK_TCK): /proc/stat ticks per second */
	/* Called with a one-line warning to show the user (e.g. counters could not be attached). */
	void (*warn)(const char *msg);
	/* Called with the RUN_BEGIN (end 0) and RUN_END (end 1) JSON object just before it is
	 * written, to add keys (the interference level of the run); NULL = nothing added. */
	void (*annotate)(void *arg, struct cJSON *record, int end);
	void *annotate_arg;
	/* A window of the run (pmcollect --delay, --duration): recording starts delay_ns after the
	 * program was released (RUN_BEGIN is written then) and lasts duration_ns (0 = to the
	 * program's end). At the window's end the program gets SIGTERM, then SIGKILL after
	 * PMC_WINDOW_GRACE_NS, or with detach it keeps running: every thread of its tree gets
	 * child_default_cpus back and pmcollect stops following it (the child then does not set
	 * PR_SET_PDEATHSIG). RUN_END "window" says where the window lay and how it ended. */
	uint64_t delay_ns, duration_ns;
	int detach;
	/* pmcollect -p: record these running processes (nattach of them, at most PMC_ATTACH_MAX)
	 * instead of starting argv (which names the first one's command line, for RUN_BEGIN): no
	 * fork; counters (cycles, instructions of counters' events) on each thread, summed at the
	 * window's ends into RUN_END "C"; the scheduler events filtered to their threads.
	 * The window ends at duration_ns, at SIGINT/SIGTERM/SIGHUP to pmcollect (not forwarded) or
	 * when every process has ended; the processes are left as they were. */
	const pid_t *attach;
	size_t nattach;
	/* pmcollect --quota: the program runs in this transient cgroup (cpuset.h pmc_cgquota) under
	 * quota_us of CPU time per quota_period_us, written before each run (RUN_BEGIN "quota", and
	 * RUN_END "cpu_stat" from it); NULL = in pmcollect's own cgroup */
	const struct pmc_cgquota *quota;
	double quota_us, quota_period_us;
};

#define PMC_ATTACH_MAX 64

/* How long a program stopped at the end of its window has between SIGTERM and SIGKILL. */
#define PMC_WINDOW_GRACE_NS 5000000000ull

/* How a window ended (RUN_END "window" "end"). */
enum pmc_window_end {
	PMC_WINDOW_NONE = 0,     /* no window asked for */
	PMC_WINDOW_DURATION,     /* --duration elapsed: "duration" */
	PMC_WINDOW_EXIT,         /* the program ended within the window: "exit" */
	PMC_WINDOW_BEFORE,       /* the program ended during --delay: nothing was recorded */
	PMC_WINDOW_SIGNAL,       /* -p: SIGINT, SIGTERM or SIGHUP to pmcollect: "signal" */
};

/* What pmcollect did to the program after a window that ended at --duration (RUN_END "window"
 * "after"). */
enum pmc_window_after {
	PMC_AFTER_NONE = 0,      /* nothing: the program had ended ("exited") */
	PMC_AFTER_TERMINATED,    /* it ended after SIGTERM: "terminated" */
	PMC_AFTER_KILLED,        /* it needed SIGKILL after the grace period: "killed" */
	PMC_AFTER_DETACHED,      /* --detach: left running, CPU set restored: "detached" */
	PMC_AFTER_LEFT,          /* -p: a process pmcollect did not start, left running: "left" */
};

/* The collector lengthens an interval it cannot keep (run.c keep_interval): checked every
 * PMC_KEEP_WINDOW timer expirations, doubled while the result stays within PMC_KEEP_MAX_MS (the
 * default interval). Not beyond: a collector starved by other load (load 10 on 2 CPUs loses
 * 2/3 of 10 ms samples) would only take fewer samples at a longer interval. */
#define PMC_KEEP_WINDOW 32u
#define PMC_KEEP_MAX_MS 10.0

struct pmc_run_result {
	int exit_status;        /* what pmcollect returns for this run: the program's code, 128+N
				   when killed by signal N, 127 when it could not be started */
	int started;            /* the program was exec'd */
	int writer_err;         /* first writer error (PMT_E_*), 0 when the trace is complete */
	int writer_errno;       /* errno behind a PMT_E_IO */
	uint64_t samples, thread_samples, late_samples, lost_samples;
	uint64_t sampling_cpu_ns; /* CPU time pmcollect spent between the first and last sample */
	uint32_t warnings;      /* WARNING records written */
	double C_value;         /* RUN_END "C" "value": C(n) of Tudor & Teo eq. 7, cycles or ns of
				   CPU time (NAN when the program did not start) */
	/* an interval pmcollect could not keep was doubled interval_changes times (run.c
	   keep_interval), the first time interval_first_change_s into the run, to interval_final_ms */
	double interval_final_ms, interval_first_change_s;
	uint32_t interval_changes;
	int sched_recorded;     /* scheduler events were recorded for this run */
	struct pmc_sched_stats sched; /* their counts */
	int pswitch_recorded;   /* perf context switches were recorded for this run */
	struct pmc_pswitch_stats pswitch; /* their counts */
	int omp_answered;       /* --omp-regions: an OpenMP runtime started the tool */
	uint64_t omp_regions;   /* OMP_REGION records written */
	char omp_reason[512];   /* why no runtime answered ("" when one did) */
	int energy_recorded;    /* RUN_END has energy: the source was read and advanced */
	char energy_reason[512]; /* RUN_END energy_reason when it has none ("" when it has) */
	char error[512];        /* one line for the user when the program could not be started
				   (started 0, exit_status 127) */
	enum pmc_window_end window_end;   /* a window's end, PMC_WINDOW_NONE without one */
	enum pmc_window_after window_after;
	uint64_t window_offset_ns; /* the window began this long after the program was released */
	uint64_t window_length_ns; /* and lasted this long */
	int guarded;            /* -p --cpus: the threads were moved (RUN_END window "affinity") */
	int stop_signal;        /* -p: the signal (SIGINT, SIGTERM, SIGHUP) that ended the window,
				   0 none */
	struct pmc_guard_stats guard; /* and what the guardian did at the end */
};

/* Runs argv once as run run_id and records it into w: forks, sets up the child (affinity, memory
 * policy, environment, signal mask), attaches counters while the child waits, writes RUN_BEGIN,
 * starts the scheduler-event recording when cfg->sched is set (drained at every sample and at
 * least every 10 ms), reads the energy counters when cfg->energy is set (just before the program
 * is released, every PMC_ENERGY_PERIOD_NS, writing an ENERGY record each time, and after the root
 * was reaped) and /proc/stat at both ends for the machine's other load, lets the child exec, samples every interval_ms on an absolute CLOCK_MONOTONIC timerfd schedule
 * until the root process is reaped, forwards signals, reaps every child (pmcollect must be a child
 * subreaper), and writes RUN_END. If the writer fails, sampling stops but the program runs to its
 * end. Returns 0 (see res for the outcome), or a negative PMT_E_* code with a one-line reason in
 * why when the run could not be set up or sampled (fork, pipe, timerfd failed: PMT_E_IO; out of
 * memory: PMT_E_NOMEM); after a timer failure the program is killed and its RUN_END recorded. */
int pmc_run_once(struct pmt_writer *w, uint32_t run_id, const struct pmc_run_config *cfg,
		 struct pmc_run_result *res, char *why, size_t whysize);

/* CLOCK_MONOTONIC now, ns. */
uint64_t pmc_now_ns(void);

/* The run bookkeeping of one session: the runs' totals for SUMMARY and how --calibrate's rounds
 * ended (calstop.h). */
struct pmc_run_book {
	struct pmc_run_result total;
	size_t nruns_done;
	size_t nruns_started;       /* of those, the runs whose program started (exec succeeded) */
	enum pmc_calstop_reason cal_stop;
	uint32_t cal_rounds;        /* complete rounds */
	double cal_worst_se;        /* the largest standard error of omega then, NAN unknown */
	uint32_t cal_worst_cpus;    /* the CPU count of the run where it was */
};

/* What every run of a session runs as: the user (--user or SUDO_USER) and the NUMA node mask. */
struct pmc_run_env {
	struct pmc_user user;
	int have_user;
	struct bitmask *mem_mask;   /* --membind / --interleave nodes, NULL for default */
};

#endif
