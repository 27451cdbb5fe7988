/* SPDX-License-Identifier: MIT */
/* cli.h: pmcollect's front end, shared by its files: main.c (options, main()), setup.c (the
 * machine, the job, the run plan, the interference calibration) and record.c (the trace, its data
 * sources and the runs). Only these files print or choose exit statuses; they call the collector's
 * modules (the headers in collector/, which never print) through the session (session.h). */
#ifndef PMC_CLI_H
#define PMC_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "interfere/interfere.h"
#include "pm_cli.h"
#include "pm_opt.h"
#include "session/plan.h"
#include "session/run.h"

struct pmc_session;

#define PMC_MAX_LABELS 32
/* The command line, parsed (main.c parse_options). */
struct pmc_opts {
	const char *output;
	int force;
	double interval_ms;
	const char *cpus;           /* --cpus text, NULL = every CPU */
	int dry_run;                /* --dry-run: print what --cpus selects and exit */
	const char *topology;       /* --topology: hwloc XML for --dry-run, NULL = this machine */
	int threads;                /* -t, 0 = not given */
	const char *mem_mode;       /* "default", "bind" (--membind) or "interleave" */
	const char *mem_nodes;      /* their node list, NULL for default */
	const char *events;         /* -e, NULL = the default counters */
	int sched_mode;             /* -1 default (when usable), 0 --no-sched, 1 --sched */
	int pswitch_mode;           /* -1 default, 0 --no-perf-switch, 1 --perf-switch */
	unsigned sched_buffer_kb;
	int calibrate;              /* --calibrate or --runs */
	const char *runs_value;     /* --runs: its value, CPU lists separated by blanks */
	char **runs_words;          /* the plain CPU lists given as words after it */
	size_t nruns_words;
	const char *sweep;          /* --sweep SPEC, NULL = no sweep */
	long repeat;                /* --repeat K, 0 = not given */
	double omega_se;            /* --omega-se: target standard error of omega, 0 = not given */
	double calibrate_budget_s;  /* --calibrate-budget SECONDS, 0 = not given */
	int calibrate_adaptive;     /* --calibrate repeats until the target or the budget (check_options) */
	int no_baseline;            /* --no-baseline */
	const char *user;           /* -u, NULL = SUDO_USER under sudo */
	const char *threads_list;   /* -t with more than one count (--omp-regions), NULL = none */
	int omp_regions;            /* --omp-regions */
	const char *omp_runtime;    /* --omp-runtime: "llvm" or a libomp path, NULL = the program's */
	const char *omp_events;     /* --omp-events: PAPI event names or "none", NULL = default */
	int mpi;                    /* --mpi 1, --no-mpi 0, -1 default (mpitool.h pmc_mpi_decide) */
	const char *labels[PMC_MAX_LABELS]; /* -l KEY=VALUE, nlabels of them (META "labels") */
	size_t nlabels;
	int interfere;              /* --interfere given: interference_kind is set */
	enum pmc_interferer_kind interfere_kind;
	const char *levels;         /* --levels, NULL = 0 .. one per interferer CPU */
	const char *interfere_cpus; /* --interfere-cpus, NULL = placed by hwloc */
	unsigned csthr_l2;          /* --csthr-l2: CSThr buffer in L2 sizes, 0 = default */
	int calibrate_interference; /* --calibrate-interference */
	int calibrate_wake;         /* --calibrate-wake (collector/sources/wakecost.h) */
	const char *interference_file; /* --interference-file, NULL = the default path */
	int quiet;                  /* -q: main() copies it to pmc_cli_quiet */
	int progress;               /* --progress: main() copies it to pmc_cli_progress_forced */
	double delay_s;             /* --delay: the window starts this long after the program */
	double duration_s;          /* --duration: each run's window, 0 = to the program's end */
	int detach;                 /* --detach: leave the program running after the window */
	const char *quota;          /* --quota text, NULL = run in pmcollect's own cgroup */
	double quota_us, quota_period_us; /* its CPU time per period and period (cb_quota) */
	const char *pids_text;      /* -p PID[,PID...], NULL = start the command */
	double window_s;            /* --calibrate -p --window: each calibration run's window, s;
				       0 = not given */
	pid_t pids[PMC_ATTACH_MAX]; /* its processes (main.c check_pids), npids of them */
	size_t npids;
	char **argv;                /* the command, NULL-terminated */
	int argc;
};

/* pmcollect's status when the program ended before --delay was over: no window was recorded
 * (docs/pmcollect.1 EXIT STATUS). */
#define PMC_EXIT_NO_WINDOW 3

/* "usage: pmcollect [options] [--] <command> [<args>...]" (main.c). */
extern const char pmc_cli_usage_line[];

/* An error in the command line itself: one error line, the usage line, status 2. */
#define usage_error(...) pm_cli_usage_error(pmc_cli_usage_line, __VA_ARGS__)

/* report.c: -q (no warnings, no progress) and --progress. */
extern int pmc_cli_quiet;
extern int pmc_cli_progress_forced;

/* Prints msg as "pmcollect: warning: msg" unless -q (also pmc_run_config.warn). */
void pmc_cli_warn(const char *msg);

/* Whether long work (a plan of runs, the interference calibration) reports its steps: with
 * --progress, or when stderr is a terminal; never with -q. */
int pmc_cli_show_progress(void);

/* One progress line, "pmcollect: [k/N] what, elapsed S s", on stderr when
 * pmc_cli_show_progress(); start_ns is a pmc_now_ns() time. */
void pmc_cli_progress(size_t k, size_t n, uint64_t start_ns, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* setup.c. Each returns -1 to go on, or the exit status after reporting. */

/* The job context (docs/cluster.md): the rank from the launcher's variables, the
 * output name expanded from its template (into ss->job.output, o->output then points there), the
 * tracefs instance named after the rank, who takes the whole-node readings, and a warning when the
 * wrapped command is itself a launcher (2: a variable that is not a number, a template that cannot
 * be expanded). */
int pmc_cli_job_context(struct pmc_opts *o, struct pmc_session *ss);

/* Reads the machine once (pmc_session_machine), checks the options against it and builds the run
 * plan: --cpus, the runs of --calibrate / --runs / --sweep / --interfere / -t LIST or the one
 * plain run, their environment, the NUMA node mask, the user. */
int pmc_cli_plan_runs(const struct pmc_opts *o, struct pmc_session *ss);

/* --quota: warns when the quota is not below the program's CPUs times the period (then only the
 * kernel's per-CPU slices of the quota can throttle: sched-bwc.rst), makes the transient cgroup (sources/cpuset.h pmc_cgquota) and writes the limit, so
 * META records it. Returns -1 to go on (also without --quota), or exit status 1 when the cgroup
 * cannot be made (reported; nothing is left behind and nothing runs). */
int pmc_cli_make_quota(const struct pmc_opts *o, struct pmc_session *ss);

/* Removes --quota's cgroup (none is fine), with a warning when it cannot be removed. */
void pmc_cli_remove_quota(struct pmc_session *ss);

/* --calibrate-interference: measures the machine (Casas & Bronevetsky §3, interfere_cal.h) with
 * the probe on the program's first CPU and the interferers on theirs, prints the result on stderr
 * and writes the machine file. */
int pmc_cli_calibrate_interference(struct pmc_session *ss);

/* Pins pmcollect beside the program's CPUs of the current run (ss->machine.prog_cpus, the
 * cpulist prog), warning once when a baseline run leaves no CPU for the collector outside them. Returns the
 * collector's CPU or -1. */
int pmc_cli_pin_or_warn(struct pmc_session *ss, const char *prog, enum pmc_run_role role);

/* record.c */

/* Creates the trace file path 0644 (O_EXCL unless force) and its missing directories; *created
 * says whether pmcollect made the file. Returns the descriptor, or -1 after reporting. */
int pmc_cli_create_output(const char *path, int force, int *created);

/* The same for the expanded name of an -o template of a job's rank (missing directories are
 * made). Returns the descriptor, or -1 after reporting. */
int pmc_cli_create_rank_output(const char *path, int force);

/* Routes SIGCHLD and the forwarded signals through a signalfd, becomes child subreaper and
 * raises RLIMIT_NOFILE. Returns 0, or -1 after reporting. */
int pmc_cli_setup_signals(const struct pmc_opts *o, struct pmc_session *ss);

/* Opens the data sources (counters, proc connector, taskstats, scheduler events, energy),
 * describes the machine and them in META and starts the trace. Returns 0, or -1 after reporting. */
int pmc_cli_open_sources(const struct pmc_opts *o, struct pmc_session *ss);

/* Records every run of the plan (or of --sweep) in order. Returns what pmcollect exits with so
 * far: the last run's status (the program's, 127 when it could not start, 128+N after signal N),
 * or 1. */
int pmc_cli_collect(const struct pmc_opts *o, struct pmc_session *ss);

/* Appends SUMMARY (the runs' totals and pmcollect's exit status) and flushes. */
void pmc_cli_write_summary(struct pmc_session *ss, int exit_status);

/* Ends the trace file, reports a trace that could not be finished (then 1), removes a file made
 * for a set-up that failed. Returns the exit status. */
int pmc_cli_finish_trace(const struct pmc_opts *o, struct pmc_session *ss, int ret);

/* Option values (values.c). Each returns as its comment says; the --runs and --label callbacks
 * of the option table (pm_opt.h pm_opt_cb) return PM_OPT_TAKEN, or PM_OPT_BAD with st->why. */
/* 1 when s is a word of --runs (digits, '-' and ',' only), else 0. */
int pmc_cli_is_cpulist_word(const char *s);
/* --omp-events LIST: "none" or 1..PMOMPT_MAX_EVENTS names: 0, or -1 with why. */
int pmc_cli_check_omp_events(const char *list, char *why, size_t whysize);
/* --runs LISTS (arg and the CPU-list words after it in st->argv, moving optind) into the
 * struct pmc_opts st->base. */
int pmc_cli_opt_runs(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
/* -l KEY=VALUE into the labels of the struct pmc_opts st->base. */
int pmc_cli_opt_label(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);

#endif
