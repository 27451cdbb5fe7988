/* SPDX-License-Identifier: MIT */
/* main.c: pmcollect's command line (one pm_opt table) and main(): runs a program and records its
 * run-queue activity (a trace); set-up in setup.c, recording in record.c. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <math.h>
#include <numa.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/counters.h"
#include "sources/cpuset.h"
#include "sources/energy.h"
#include "interfere/interfere.h"
#include "interfere/interfere_cal.h"
#include "interfere/interfere_session.h"
#include "sources/meta.h"
#include "sources/netlink.h"
#include "omp/omp.h"
#include "session/plan.h"
#include "sources/rank.h"
#include "pm_util.h"
#include "pmt.h"
#include "cpuexpr.h"
#include "pm_cli.h"
#include "pm_opt.h"
#include "session/run.h"
#include "session/session.h"

#include "cli.h"
#include "session/sweep.h"

#define DEFAULT_OUTPUT "pmtrace.zst"
#define REPEAT_MAX 1000
/* --calibrate's defaults: omega(2) from three runs was 0.22 +- 0.31 on the project's
 * VM; 0.05 tells omega = 0.1 from 0 at two standard errors */
#define CALSTOP_SE_DEFAULT 0.05
#define CALSTOP_SE_DEFAULT_TEXT "0.05"
#define CALSTOP_BUDGET_DEFAULT_S 600
#define CALSTOP_BUDGET_DEFAULT_TEXT "600"

const char pmc_cli_usage_line[] = "usage: pmcollect [options] [--] <command> [<args>...]";

#define OPTS struct pmc_opts

static int cb_threads(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
static int cb_mem_nodes(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
static int cb_omp_runtime(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
static int cb_omp_events(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
static int cb_interfere(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
static int cb_quota(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);

/* pmcollect's options, each with the field of struct pmc_opts it sets: the parsing, --help, the
 * synopsis and the man-page test (t1000, from the hidden --list-options) come from here
 * (common/pm_opt.h). */
static const struct pm_opt options[] = {
	{ "output", 'o', "FILE",
	  "trace file to create [default: " DEFAULT_OUTPUT "]; under\n"
	  "mpirun/srun one per rank: %r rank, %l local rank, %h host,\n"
	  "%j job id, %p pid, %% a '%' (missing directories are made)", PM_OPT_STR(OPTS, output) },
	{ "force", 'f', NULL, "overwrite FILE if it exists", PM_OPT_FLAG(OPTS, force, 1) },
	{ "interval", 'i', "MS", "sampling interval in milliseconds, 0.1 to 10000 [default: 10]",
	  PM_OPT_DOUBLE(OPTS, interval_ms, 0.1, 10000, "milliseconds") },
	{ "cpus", 'C', "LIST",
	  "run the program on these online CPUs: a cpulist (0 or 0-3,8)\n"
	  "or a CPU expression (S0:0-3, E:N:4:1:2, M0:0-1@M1:0-1;\n"
	  "docs/cpu-expressions.md)\n"
	  "[default: every CPU pmcollect may use]", PM_OPT_STR(OPTS, cpus) },
	{ "dry-run", 0, NULL,
	  "print the CPUs --cpus selects, in the expression's order and\n"
	  "as the set the program gets and the trace records; run nothing",
	  PM_OPT_FLAG(OPTS, dry_run, 1) },
	{ "topology", 0, "FILE",
	  "with --dry-run: evaluate --cpus on the hwloc XML topology FILE\n"
	  "(lstopo --of xml) instead of this machine", PM_OPT_STR(OPTS, topology) },
	{ "threads", 't', "M",
	  "set OMP_NUM_THREADS=M in the program's environment\n"
	  "(a list such as 1-4 or 1,2,4 with --omp-regions)", PM_OPT_CALLBACK(cb_threads) },
	{ "membind", 0, "NODES", "allocate the program's memory only on these NUMA nodes",
	  PM_OPT_CALLBACK(cb_mem_nodes) },
	{ "interleave", 0, "NODES", "interleave the program's memory over these NUMA nodes",
	  PM_OPT_CALLBACK(cb_mem_nodes) },
	{ "events", 'e', "LIST",
	  "hardware counters to record, comma-separated PAPI event names\n"
	  "[default: cycles, instructions, stall cycles, LLC misses]", PM_OPT_STR(OPTS, events) },
	{ "sched", 0, NULL,
	  "record scheduler events from a private tracefs instance\n"
	  "(exact mode of pmanalyze) [default: on when tracefs is usable]",
	  PM_OPT_FLAG(OPTS, sched_mode, 1) },
	{ "no-sched", 0, NULL, "do not record scheduler events", PM_OPT_FLAG(OPTS, sched_mode, 0) },
	{ "perf-switch", 0, NULL,
	  "record the program's context switches with perf_event_open\n"
	  "(exact mode without root) [default: on when scheduler\n"
	  "events are not recorded, unless --no-sched]", PM_OPT_FLAG(OPTS, pswitch_mode, 1) },
	{ "no-perf-switch", 0, NULL, "do not record context switches with perf_event_open",
	  PM_OPT_FLAG(OPTS, pswitch_mode, 0) },
	{ "sched-buffer-kb", 0, "KB", "tracefs ring buffer per CPU, KiB [default: 4096]",
	  PM_OPT_INT(OPTS, sched_buffer_kb, 4, 4194304, "KiB") },
	{ "calibrate", 0, NULL,
	  "run the program several times into one trace: the baseline\n"
	  "(1 CPU) and the core counts of the memory model (all cores\n"
	  "of a socket; with several sockets also one more core), in\n"
	  "rounds until omega's standard error is at most --omega-se\n"
	  "or --calibrate-budget is spent (--repeat K alone: K rounds)",
	  PM_OPT_FLAG(OPTS, calibrate, 1) },
	{ "omega-se", 0, "SE",
	  "--calibrate: stop the rounds once the standard error of\n"
	  "omega(n) at every calibrated core count is at most SE,\n"
	  "after --repeat rounds [default: " CALSTOP_SE_DEFAULT_TEXT "]",
	  PM_OPT_DOUBLE(OPTS, omega_se, 0, INFINITY, NULL), .flags = PM_OPT_ABOVE },
	{ "calibrate-budget", 0, "SECONDS",
	  "--calibrate: start no round that would end later than\n"
	  "SECONDS after the first [default: " CALSTOP_BUDGET_DEFAULT_TEXT "]",
	  PM_OPT_DOUBLE(OPTS, calibrate_budget_s, 0, 1e7, "seconds"), .flags = PM_OPT_ABOVE },
	{ "runs", 0, "LISTS",
	  "the runs' CPU lists instead, e.g. --runs 0 0-7 0-8 (CPU\n"
	  "expressions inside the value: --runs 'N:0 S0:0-1 E:N:3')", PM_OPT_CALLBACK(pmc_cli_opt_runs) },
	{ "omp-regions", 0, NULL,
	  "record the OpenMP parallel regions through OMPT (LLVM's\n"
	  "libomp); with -t LIST, one run per thread count", PM_OPT_FLAG(OPTS, omp_regions, 1) },
	{ "omp-runtime", 0, "RT",
	  "with --omp-regions: 'llvm' preloads LLVM's libomp into a GCC\n"
	  "(libgomp) binary, or give the path of a libomp",
	  PM_OPT_CALLBACK(cb_omp_runtime), PM_OPT_AT(OPTS, omp_runtime, const char *) },
	{ "mpi", 0, NULL,
	  "time the blocking MPI calls of each rank with a PMPI preload\n"
	  "library [default: on when the program links libmpi]", PM_OPT_FLAG(OPTS, mpi, 1) },
	{ "no-mpi", 0, NULL, "do not time the MPI calls", PM_OPT_FLAG(OPTS, mpi, 0) },
	{ "omp-events", 0, "LIST",
	  "with --omp-regions: PAPI events each thread counts over each\n"
	  "region (at most 6, resolved in the program, so its own\n"
	  "sde::: events work); default cycles and LLC misses when\n"
	  "pmcollect's counters work; 'none' for no counters",
	  PM_OPT_CALLBACK(cb_omp_events), PM_OPT_AT(OPTS, omp_events, const char *) },
	{ "label", 'l', "KEY=VALUE",
	  "store a label in the trace (e.g. size=1000: a feature of\n"
	  "pmanalyze --learn); repeatable", PM_OPT_CALLBACK(pmc_cli_opt_label) },
	{ "interfere", 0, "KIND",
	  "run the program beside 0..K interference threads of KIND,\n"
	  "cache (CSThr) or bandwidth (BWThr), into one trace",
	  PM_OPT_CALLBACK(cb_interfere), .choices = "cache|bandwidth" },
	{ "levels", 0, "LIST",
	  "interferer counts to run [default: 0 to one per CPU of\n"
	  "--interfere-cpus]; must start at 0", PM_OPT_STR(OPTS, levels) },
	{ "csthr-l2", 0, "N",
	  "CSThr buffers of N times the L2 above their CPU (hwloc),\n"
	  "N >= 2 [default: the paper's 4 MB, or 2x the L2 where\n"
	  "that is larger; --interfere cache: the machine file's]",
	  PM_OPT_INT(OPTS, csthr_l2, 2, 64, "a whole number of L2 sizes") },
	{ "interfere-cpus", 0, "LIST",
	  "the interferers' CPUs, a cpulist or a CPU expression\n"
	  "[default: CPUs sharing the program's last-level cache,\n"
	  "not its SMT siblings (hwloc)]", PM_OPT_STR(OPTS, interfere_cpus) },
	{ "calibrate-wake", 0, NULL,
	  "measure the wake-up cost (futex ping-pong between pairs of\n"
	  "CPUs) into META; without a command a trace of it alone\n"
	  "[--calibrate measures it too]", PM_OPT_FLAG(OPTS, calibrate_wake, 1) },
	{ "calibrate-interference", 0, NULL,
	  "measure BW1, B and the cache capacity left with k\n"
	  "CSThrs; write the machine file and (with a command and\n"
	  "--interfere) use it at once", PM_OPT_FLAG(OPTS, calibrate_interference, 1) },
	{ "interference-file", 0, "FILE",
	  "the machine file [default:\n"
	  "$XDG_CACHE_HOME/pmtools/interference-HOST.json]", PM_OPT_STR(OPTS, interference_file) },
	{ "sweep", 0, "SPEC",
	  "run the program once per configuration of SPEC:\n"
	  "cores=1,2,4 (CPUs chosen compactly), threads=1-16\n"
	  "(OMP_NUM_THREADS and {threads} in the command), or both\n"
	  "as cores=1,2;threads=1-16; quota=0.5,1,1.5/10ms (CPU\n"
	  "quotas, each run in a transient cgroup as --quota);\n"
	  "a baseline run (1 CPU, unlimited) first", PM_OPT_STR(OPTS, sweep) },
	{ "repeat", 0, "K",
	  "run each configuration of --sweep, --calibrate or\n"
	  "--interfere K times, interleaved [default: 1 for --sweep\n"
	  "and --runs, 3 for --calibrate and --interfere]; with\n"
	  "--omega-se or --calibrate-budget the fewest rounds",
	  PM_OPT_INT(OPTS, repeat, 1, REPEAT_MAX, NULL) },
	{ "no-baseline", 0, NULL, "--sweep without the baseline run", PM_OPT_FLAG(OPTS, no_baseline, 1) },
	{ "delay", 0, "SECONDS",
	  "record a window: start recording SECONDS after the program\n"
	  "started (it runs unrecorded until then) [default: 0]",
	  PM_OPT_DOUBLE(OPTS, delay_s, 0, 1e7, "seconds") },
	{ "duration", 0, "SECONDS",
	  "record each run for SECONDS (after --delay), then stop the\n"
	  "program: SIGTERM, SIGKILL 5 s later [default: to its end]",
	  PM_OPT_DOUBLE(OPTS, duration_s, 0, 1e7, "seconds"), .flags = PM_OPT_ABOVE },
	{ "detach", 0, NULL,
	  "with --duration: leave the program running after the window,\n"
	  "unobserved, on the CPUs it would have had without --cpus",
	  PM_OPT_FLAG(OPTS, detach, 1) },
	{ "pid", 'p', "PID[,PID...]",
	  "record processes that run already, instead of a command:\n"
	  "their threads and what they start, until --duration, ^C or\n"
	  "their end; they are left running as they were",
	  PM_OPT_STR(OPTS, pids_text) },
	{ "window", 0, "SECONDS",
	  "with --calibrate -p: calibrate a running process in windows\n"
	  "of SECONDS, its threads moved onto 1 CPU, then onto the\n"
	  "calibrated core counts, in rounds; each thread's own CPUs\n"
	  "are given back after each window",
	  PM_OPT_DOUBLE(OPTS, window_s, 0, 1e7, "seconds"), .flags = PM_OPT_ABOVE },
	{ "quota", 0, "Q[/PERIOD]",
	  "run the program in a new cgroup under a CPU quota (CFS\n"
	  "bandwidth control; as root): Q in CPUs (1.5) or CPU time\n"
	  "per period (150ms); PERIOD 1ms to 1s [default: 100ms]; the\n"
	  "cgroup is removed at the end", PM_OPT_CALLBACK(cb_quota) },
	{ "user", 'u', "NAME",
	  "run the program as user NAME (pmcollect keeps root)\n"
	  "[default as root under sudo: SUDO_USER]", PM_OPT_STR(OPTS, user) },
	{ "progress", 0, NULL,
	  "print a [k/N] line per run of --calibrate, --sweep,\n"
	  "--interfere, -t LIST and per step of\n"
	  "--calibrate-interference [default: when stderr is a\n"
	  "terminal]", PM_OPT_FLAG(OPTS, progress, 1) },
	{ "quiet", 'q', NULL, "do not print warnings or progress", PM_OPT_FLAG(OPTS, quiet, 1) },
	{ "help", 'h', NULL, "show this help and exit",
	  PM_OPT_CALLBACK(pm_opt_cb_help), .flags = PM_OPT_NOARG | PM_OPT_FORM },
	{ "version", 'V', NULL, "show the version and exit",
	  PM_OPT_CALLBACK(pm_opt_cb_version), .flags = PM_OPT_NOARG | PM_OPT_FORM },
	/* hidden: the visible long options, one per line, for the man-page test (t1000) */
	{ "list-options", 0, NULL, NULL, PM_OPT_CALLBACK(pm_opt_cb_list_names), .flags = PM_OPT_NOARG },
	PM_OPT_END,
};

/* The synopsis's forms besides the first line (pm_opt_synopsis). */
static const char *const synopsis_forms[] = {
	"--calibrate-interference|--calibrate-wake [options]",
	"--dry-run --cpus EXPR [--topology FILE]",
	"--help|--version",
	NULL,
};

/* The usage after a malformed command line, and --help around the table's synopsis and option
 * lines: what pmcollect does, examples. */
static const struct pm_opt_usage usage = {
	.short_usage = pmc_cli_usage_line,
	.prog = "pmcollect",
	.operands = "[--] <command> [<args>...]",
	.forms = synopsis_forms,
	.intro = "Runs <command> and records the run-queue activity of its threads (from /proc) and\n"
		 "hardware-counter snapshots into a pmtrace file for pmanalyze.\n"
		 "\n",
	.outro = "\n"
		 "Baseline run of the Tudor & Teo model (more threads than CPUs):\n"
		 "  pmcollect --cpus 0 -t 8 -- ./app\n"
		 "Baseline and memory-contention calibration in one trace:\n"
		 "  pmcollect --calibrate -t 8 -- ./app\n"
		 "Bandwidth the program needs (Casas & Bronevetsky):\n"
		 "  pmcollect --calibrate-interference --interfere-cpus 1 -o cal.pmt\n"
		 "  pmcollect --interfere bandwidth --interfere-cpus 1 -- ./app\n"
		 "One trace per rank of an MPI job (merge them with pmanalyze pm-1234/):\n"
		 "  srun -n 64 pmcollect -o 'pm-%j/trace.%r.zst' -- ./app\n"
		 "Scaling sweep, 3 repetitions per core count:\n"
		 "  pmcollect --sweep cores=1,2,4,8 --repeat 3 -t 8 -- ./app\n"
		 "  pmcollect --sweep 'threads=1-8' -- pigz -k -f -p {threads} big.tar\n"
		 "Measured against predicted run time under CPU quotas (as root):\n"
		 "  pmcollect --sweep quota=0.5,1,1.5,2 --repeat 3 -- ./app\n",
	.help_width = 0,
};

/* --quota Q[/PERIOD]: Q a number of CPUs (1.5) or CPU time per period (150ms); the period a time
 * from 1 ms to 1 s, and the quota at least 1 ms of it (sched-bwc.rst: the kernel refuses less). */
static int cb_quota(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct pmc_opts *o = st->base;
	const char *slash = strchr(arg, '/'), *qend = slash ? slash : arg + strlen(arg);
	double period_ns = 100e6, q_ns, cpus;
	char *e;

	(void)opt;
	if (slash && (pm_cli_parse_time_ns(slash + 1, slash + strlen(slash), &period_ns) < 0 ||
		      period_ns < 1e6 || period_ns > 1e9)) {
		snprintf(st->why, sizeof(st->why), "want a period from 1ms to 1s (the kernel's limits)");
		return PM_OPT_BAD;
	}
	if (pm_cli_parse_time_ns(arg, qend, &q_ns) < 0) {
		cpus = strtod(arg, &e);
		if (e == arg || e != qend || !isfinite(cpus)) {
			snprintf(st->why, sizeof(st->why), "want CPUs (1.5) or CPU time per period (150ms), "
				 "optionally /<period>");
			return PM_OPT_BAD;
		}
		q_ns = cpus * period_ns;
	}
	if (!(q_ns > 0)) {
		snprintf(st->why, sizeof(st->why), "a quota must be above 0 CPUs");
		return PM_OPT_BAD;
	}
	if (q_ns < 1e6) {
		snprintf(st->why, sizeof(st->why), "%.3g ms per period is below the kernel's minimum "
			 "quota of 1 ms", q_ns / 1e6);
		return PM_OPT_BAD;
	}
	o->quota = arg;
	o->quota_us = q_ns / 1e3;
	o->quota_period_us = period_ns / 1e3;
	return PM_OPT_TAKEN;
}

/* -t M, or a list of counts (checked in pmc_cli_plan_runs: it needs --omp-regions). */
static int cb_threads(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct pmc_opts *o = st->base;
	long v;

	(void)opt;
	o->threads_list = NULL;
	if (arg[0] && strspn(arg, "0123456789") != strlen(arg) && pmc_cli_is_cpulist_word(arg)) {
		o->threads_list = arg;
		return PM_OPT_TAKEN;
	}
	if (pm_cli_parse_long(arg, 1, 1000000, &v) < 0) {
		snprintf(st->why, sizeof(st->why), "want a thread count from 1 to 1000000 (or a list "
			 "such as 1-4 with --omp-regions)");
		return PM_OPT_BAD;
	}
	o->threads = (int)v;
	return PM_OPT_TAKEN;
}

/* --membind and --interleave: the policy and its nodes, one of the two. */
static int cb_mem_nodes(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct pmc_opts *o = st->base;

	if (o->mem_nodes) {
		pm_cli_error("--membind and --interleave cannot be combined");
		return PMT_EXIT_USAGE;
	}
	o->mem_mode = strcmp(opt->long_name, "membind") == 0 ? "bind" : "interleave";
	o->mem_nodes = arg;
	return PM_OPT_TAKEN;
}

static int cb_omp_runtime(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	if (strcmp(arg, "llvm") != 0 && arg[0] != '/' && arg[0] != '.') {
		snprintf(st->why, sizeof(st->why), "want 'llvm' or the path of a libomp");
		return PM_OPT_BAD;
	}
	*(const char **)pm_opt_dest(opt, st) = arg;
	return PM_OPT_TAKEN;
}

static int cb_omp_events(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	if (pmc_cli_check_omp_events(arg, st->why, sizeof(st->why)) < 0)
		return PM_OPT_BAD;
	*(const char **)pm_opt_dest(opt, st) = arg;
	return PM_OPT_TAKEN;
}

/* --interfere KIND: the kind (interfere/interfere.h) and that there is one. */
static int cb_interfere(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct pmc_opts *o = st->base;

	(void)opt;
	if (pmc_interfere_kind_parse(arg, &o->interfere_kind) < 0) {
		snprintf(st->why, sizeof(st->why), "want cache or bandwidth");
		return PM_OPT_BAD;
	}
	o->interfere = 1;
	return PM_OPT_TAKEN;
}

/* The command line of process pid (/proc/<pid>/cmdline) as a NULL-terminated argv in buf
 * (static storage of main); "[comm]" for a kernel thread or an empty one. */
static char **pid_argv(pid_t pid)
{
	static char buf[8192], *av[256];
	char path[64];
	size_t n = 0, k = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	for (size_t i = 0; i < n && k + 1 < sizeof(av) / sizeof(av[0]); i += strlen(buf + i) + 1)
		av[k++] = buf + i;
	if (k == 0) {
		snprintf(buf, sizeof(buf), "[pid %d]", (int)pid);
		av[k++] = buf;
	}
	av[k] = NULL;
	return av;
}

/* -p PID[,PID...]: each a process pmcollect may record: exists, is a process (not a thread of
 * another), not a zombie, not pmcollect or PID 1, and signalable by pmcollect (kill(2) with 0:
 * the same user, or root). Fills o->pids. Returns -1 to go on, or PMT_EXIT_USAGE after one line. */
static int check_pids(struct pmc_opts *o)
{
	const char *s = o->pids_text;

	while (*s) {
		char *end, path[64], line[256];
		long pid = strtol(s, &end, 10);
		char state = 0;
		long tgid = 0;
		FILE *f;

		if (end == s || (*end && *end != ',') || pid <= 0 || pid > INT32_MAX) {
			pm_cli_error("-p '%s': want process ids separated by commas", o->pids_text);
			return PMT_EXIT_USAGE;
		}
		s = *end ? end + 1 : end;
		if (pid == 1 || pid == (long)getpid()) {
			pm_cli_error("-p %ld: %s cannot be recorded", pid, pid == 1 ? "PID 1 (init)"
										  : "pmcollect's own process");
			return PMT_EXIT_USAGE;
		}
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		if (!(f = fopen(path, "r"))) {
			pm_cli_error("-p %ld: no such process", pid);
			return PMT_EXIT_USAGE;
		}
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "State:", 6) == 0)
				sscanf(line + 6, " %c", &state);
			else if (strncmp(line, "Tgid:", 5) == 0)
				tgid = strtol(line + 5, NULL, 10);
		}
		fclose(f);
		if (tgid != pid) {
			pm_cli_error("-p %ld: a thread of process %ld, not a process", pid, tgid);
			return PMT_EXIT_USAGE;
		}
		if (state == 'Z' || state == 'X') {
			pm_cli_error("-p %ld: a zombie (it has ended; its parent has not reaped it)", pid);
			return PMT_EXIT_USAGE;
		}
		if (kill((pid_t)pid, 0) < 0 && errno == EPERM) {
			pm_cli_error("-p %ld: a process of another user: permission denied (run pmcollect "
				     "as its user or as root)", pid);
			return PMT_EXIT_USAGE;
		}
		if (o->npids == PMC_ATTACH_MAX) {
			pm_cli_error("-p: at most %d processes", PMC_ATTACH_MAX);
			return PMT_EXIT_USAGE;
		}
		o->pids[o->npids++] = (pid_t)pid;
	}
	o->argv = pid_argv(o->pids[0]);
	for (o->argc = 0; o->argv[o->argc]; o->argc++)
		;
	o->mpi = 0;
	return -1;
}

/* The combinations of options that cannot go together, and the command. Returns -1 to go on, or
 * PMT_EXIT_USAGE after reporting. */
static int check_options(int argc, char **argv, struct pmc_opts *o)
{
	if (o->topology && !o->dry_run) {
		pm_cli_error("--topology needs --dry-run");
		return PMT_EXIT_USAGE;
	}
	if (o->dry_run && !o->cpus) {
		pm_cli_error("--dry-run needs --cpus");
		return PMT_EXIT_USAGE;
	}
	if (o->dry_run && optind < argc) {
		pm_cli_error("--dry-run runs no command: give --cpus and --topology only");
		return PMT_EXIT_USAGE;
	}
	if (o->dry_run)
		return -1;
	if (o->omp_runtime && !o->omp_regions)
		return usage_error("--omp-runtime needs --omp-regions");
	if (o->omp_events && !o->omp_regions)
		return usage_error("--omp-events needs --omp-regions");
	if (o->threads_list && !o->omp_regions)
		return usage_error("a list of thread counts (-t %s) needs --omp-regions", o->threads_list);
	if (o->threads_list && o->calibrate)
		return usage_error("a list of thread counts cannot be combined with --calibrate or --runs");
	if (o->levels && !o->interfere)
		return usage_error("--levels needs --interfere");
	if (o->csthr_l2 && !o->calibrate_interference && !(o->interfere && o->interfere_kind == PMC_CSTHR))
		return usage_error("--csthr-l2 needs --calibrate-interference or --interfere cache");
	if (o->sweep && (o->interfere || o->calibrate_interference))
		return usage_error("--sweep cannot be combined with --interfere or --calibrate-interference");
	if (o->sweep && o->calibrate) {
		pm_cli_error("--sweep cannot be combined with --calibrate or --runs");
		return PMT_EXIT_USAGE;
	}
	if (o->repeat && !o->sweep && !o->calibrate && !o->interfere) {
		pm_cli_error("--repeat needs --sweep, --calibrate or --interfere");
		return PMT_EXIT_USAGE;
	}
	if ((o->omega_se > 0 || o->calibrate_budget_s > 0) && !o->calibrate)
		return usage_error("--%s needs --calibrate or --runs",
				   o->omega_se > 0 ? "omega-se" : "calibrate-budget");
	/* a window's CPU time is no C(n) (docs/model.md "Windows"): no omega to stop the rounds on */
	if (o->window_s > 0 && (o->omega_se > 0 || o->calibrate_budget_s > 0)) {
		pm_cli_error("--%s cannot be combined with --window (windows give no omega to stop on: "
			     "their rounds are --repeat K, 3 by default)",
			     o->omega_se > 0 ? "omega-se" : "calibrate-budget");
		return PMT_EXIT_USAGE;
	}
	/* --repeat K alone (and --runs) keep K rounds; otherwise K is the fewest */
	o->calibrate_adaptive = o->calibrate && !(o->window_s > 0) &&
				((!o->repeat && !o->runs_value) || o->omega_se > 0 || o->calibrate_budget_s > 0);
	if (o->calibrate_adaptive && !(o->omega_se > 0))
		o->omega_se = CALSTOP_SE_DEFAULT;
	if (o->calibrate_adaptive && !(o->calibrate_budget_s > 0))
		o->calibrate_budget_s = CALSTOP_BUDGET_DEFAULT_S;
	if (o->detach && !(o->duration_s > 0)) {
		pm_cli_error("--detach needs --duration");
		return PMT_EXIT_USAGE;
	}
	if (o->detach && (o->sweep || o->calibrate || o->interfere || o->threads_list)) {
		pm_cli_error("--detach cannot be combined with repeated runs (--calibrate, --runs, "
			     "--sweep, --interfere, -t LIST)");
		return PMT_EXIT_USAGE;
	}
	if (o->window_s > 0 && !(o->pids_text && o->calibrate)) {
		pm_cli_error("--window needs --calibrate (or --runs) and -p");
		return PMT_EXIT_USAGE;
	}
	if (o->window_s > 0 && o->duration_s > 0) {
		pm_cli_error("--window cannot be combined with --duration (--window is each run's window)");
		return PMT_EXIT_USAGE;
	}
	if (o->pids_text) {
		const char *with = optind < argc ? "a command" : o->quota ? "--quota" :
				   o->calibrate && !(o->window_s > 0) ? "--calibrate or --runs without --window" :
				   o->sweep ? "--sweep" : o->interfere ? "--interfere" :
				   o->delay_s > 0 ? "--delay" : o->detach ? "--detach" :
				   o->omp_regions ? "--omp-regions" : o->threads ? "-t" :
				   o->user ? "--user" : o->calibrate_interference ? "--calibrate-interference" :
				   o->mem_nodes ? "--membind or --interleave" : NULL;
		if (with) {
			pm_cli_error("-p cannot be combined with %s", with);
			return PMT_EXIT_USAGE;
		}
		return check_pids(o);
	}
	if (o->quota && o->detach) {
		pm_cli_error("--quota cannot be combined with --detach (its cgroup ends with pmcollect)");
		return PMT_EXIT_USAGE;
	}
	if (o->quota && o->calibrate_interference) {
		pm_cli_error("--quota cannot be combined with --calibrate-interference");
		return PMT_EXIT_USAGE;
	}
	if (o->no_baseline && !o->sweep) {
		pm_cli_error("--no-baseline needs --sweep");
		return PMT_EXIT_USAGE;
	}
	if (optind >= argc && o->calibrate_interference && !o->interfere)
		return -1; /* the calibration alone */
	if (optind >= argc && o->calibrate_wake)
		return -1; /* the wake-up cost alone: a trace of META only */
	if (optind >= argc)
		return usage_error("no command given");
	if (o->calibrate_interference && !o->interfere)
		return usage_error("--calibrate-interference with a command needs --interfere (or give "
				   "no command to calibrate only)");
	o->argv = argv + optind;
	o->argc = argc - optind;
	return -1;
}

/* Parses the command line into o (getopt_long with a leading '+': the command's own options are
 * left alone). Returns -1 to go on, or the exit status: 0 after --help / --version, 2 after a
 * usage error (reported), 1 when out of memory. */
static int parse_options(int argc, char **argv, struct pmc_opts *o)
{
	int ret = pm_opt_parse(options, PM_OPT_STOP_AT_ARG, &usage, argc, argv, o);

	pmc_cli_quiet = o->quiet;
	pmc_cli_progress_forced = o->progress;
	return ret < 0 ? check_options(argc, argv, o) : ret;
}

/* --dry-run: evaluates --cpus (docs/cpu-expressions.md) on --topology's hwloc XML, else on the
 * CPUs pmcollect may use here, and prints "order: 0,8,1,9" (the expression's order, likwid-pin's
 * pinning order) and "set: 0-1,8-9" (the sorted cpulist the program gets and the trace's META and
 * RUN_BEGIN "cpus" record). Returns 0, PMT_EXIT_USAGE for an expression or a file it cannot
 * take, PMT_EXIT_FAILURE when hwloc fails. */
static int dry_run(const struct pmc_opts *o)
{
	hwloc_topology_t topo;
	struct pm_cpuexpr e;
	char why[512], set[4096];
	int ret = 0;

	if (hwloc_topology_init(&topo) != 0) {
		pm_cli_error("cannot read the topology: %s", strerror(errno));
		return PMT_EXIT_FAILURE;
	}
	if (o->topology && hwloc_topology_set_xml(topo, o->topology) != 0) {
		pm_cli_error("--topology %s: not an hwloc XML topology (%s)", o->topology,
			     strerror(errno));
		hwloc_topology_destroy(topo);
		return PMT_EXIT_USAGE;
	}
	if (hwloc_topology_load(topo) != 0) {
		pm_cli_error("cannot read the topology%s%s: %s", o->topology ? " " : "",
			     o->topology ? o->topology : "", strerror(errno));
		hwloc_topology_destroy(topo);
		return o->topology ? PMT_EXIT_USAGE : PMT_EXIT_FAILURE;
	}
	if (pm_cpuexpr_parse(topo, o->cpus, &e, why, sizeof(why)) != 0) {
		pm_cli_error("invalid CPU list '%s': %s", o->cpus, why);
		ret = PMT_EXIT_USAGE;
	} else {
		printf("order: ");
		for (size_t i = 0; i < e.ncpus; i++)
			printf("%s%u", i ? "," : "", e.cpus[i]);
		printf("\nset: %s\n", pm_intlist_format(&e.set, set, sizeof(set)));
		pm_cpuexpr_free(&e);
	}
	hwloc_topology_destroy(topo);
	return ret;
}

int main(int argc, char **argv)
{
	struct pmc_opts o = {
		.output = DEFAULT_OUTPUT, .interval_ms = 10.0, .mem_mode = "default",
		.sched_mode = -1, .pswitch_mode = -1, .mpi = -1, .sched_buffer_kb = PMC_SCHED_BUFFER_KB_DEFAULT,
	};
	struct pmc_session ss;
	int ret;

	pm_cli_set_prog("pmcollect");
	pmc_session_init(&ss);
	ret = parse_options(argc, argv, &o);
	if (ret < 0 && o.dry_run) {
		pmc_session_close(&ss);
		return dry_run(&o);
	}
	if (ret < 0)
		ret = pmc_cli_job_context(&o, &ss);
	if (ret < 0)
		ret = pmc_cli_plan_runs(&o, &ss);
	if (ret < 0)
		ret = pmc_cli_make_quota(&o, &ss);
	if (ret < 0) {
		/* the output last, so no other error leaves an empty file behind; before the
		 * program starts, so an unwritable path is a usage error */
		ss.trace.out_fd = ss.job.output_template ? pmc_cli_create_rank_output(o.output, o.force)
					       : pmc_cli_create_output(o.output, o.force, &ss.trace.created_output);
		if (ss.job.output_template)
			ss.trace.created_output = ss.trace.out_fd >= 0;
		if (ss.trace.out_fd < 0)
			ret = PMT_EXIT_USAGE;
	}
	/* before the signals are routed to the signalfd, so ^C stops a calibration */
	if (ret < 0 && o.calibrate_interference)
		ret = pmc_cli_calibrate_interference(&ss);
	if (ret < 0 && (pmc_cli_setup_signals(&o, &ss) < 0 || pmc_cli_open_sources(&o, &ss) < 0))
		ret = PMT_EXIT_FAILURE;
	if (ret < 0) {
		ret = pmc_cli_collect(&o, &ss);
		pmc_cli_write_summary(&ss, ret);
	}
	if (ret < 0)
		ret = PMT_EXIT_FAILURE;
	ret = pmc_cli_finish_trace(&o, &ss, ret);
	pmc_cli_remove_quota(&ss);
	pmc_session_close(&ss);
	return ret;
}
