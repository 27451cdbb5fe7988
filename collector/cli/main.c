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

/* ids of the long-only options (pm_opt.h: above 255) */
enum {
	OPT_MEMBIND = 256, OPT_INTERLEAVE, OPT_SCHED, OPT_NO_SCHED, OPT_SCHED_BUFFER_KB, OPT_CALIBRATE,
	OPT_RUNS, OPT_OMP_REGIONS, OPT_OMP_RUNTIME, OPT_OMP_EVENTS, OPT_INTERFERE, OPT_LEVELS,
	OPT_CSTHR_L2, OPT_INTERFERE_CPUS, OPT_CALIBRATE_INTERFERENCE, OPT_INTERFERENCE_FILE, OPT_SWEEP,
	OPT_REPEAT, OPT_NO_BASELINE, OPT_PROGRESS, OPT_PERF_SWITCH, OPT_NO_PERF_SWITCH, OPT_CAL_WAKE, OPT_MPI, OPT_NO_MPI,
	OPT_OMEGA_SE, OPT_CALIBRATE_BUDGET, OPT_LIST_OPTIONS,
};

/* pmcollect's options: getopt_long's arguments, --help and the man-page test come from here. */
static const struct pm_opt options[] = {
	{ "output", 'o', PM_OPT_REQUIRED, "FILE",
	  "trace file to create [default: " DEFAULT_OUTPUT "]; under\n"
	  "mpirun/srun one per rank: %r rank, %l local rank, %h host,\n"
	  "%j job id, %p pid, %% a '%' (missing directories are made)", 0 },
	{ "force", 'f', PM_OPT_NONE, NULL,
	  "overwrite FILE if it exists", 0 },
	{ "interval", 'i', PM_OPT_REQUIRED, "MS",
	  "sampling interval in milliseconds, 0.1 to 10000 [default: 10]", 0 },
	{ "cpus", 'C', PM_OPT_REQUIRED, "LIST",
	  "run the program on these online CPUs: a cpulist (0 or 0-3,8)\n"
	  "or a CPU expression (S0:0-3, E:N:4:1:2, M0:0-1@M1:0-1;\n"
	  "docs/cpu-expressions.md)\n"
	  "[default: every CPU pmcollect may use]", 0 },
	{ "threads", 't', PM_OPT_REQUIRED, "M",
	  "set OMP_NUM_THREADS=M in the program's environment\n"
	  "(a list such as 1-4 or 1,2,4 with --omp-regions)", 0 },
	{ "membind", 0, PM_OPT_REQUIRED, "NODES",
	  "allocate the program's memory only on these NUMA nodes", OPT_MEMBIND },
	{ "interleave", 0, PM_OPT_REQUIRED, "NODES",
	  "interleave the program's memory over these NUMA nodes", OPT_INTERLEAVE },
	{ "events", 'e', PM_OPT_REQUIRED, "LIST",
	  "hardware counters to record, comma-separated PAPI event names\n"
	  "[default: cycles, instructions, stall cycles, LLC misses]", 0 },
	{ "sched", 0, PM_OPT_NONE, NULL,
	  "record scheduler events from a private tracefs instance\n"
	  "(exact mode of pmanalyze) [default: on when tracefs is usable]", OPT_SCHED },
	{ "no-sched", 0, PM_OPT_NONE, NULL,
	  "do not record scheduler events", OPT_NO_SCHED },
	{ "perf-switch", 0, PM_OPT_NONE, NULL,
	  "record the program's context switches with perf_event_open\n"
	  "(exact mode without root) [default: on when scheduler\n"
	  "events are not recorded, unless --no-sched]", OPT_PERF_SWITCH },
	{ "no-perf-switch", 0, PM_OPT_NONE, NULL,
	  "do not record context switches with perf_event_open", OPT_NO_PERF_SWITCH },
	{ "sched-buffer-kb", 0, PM_OPT_REQUIRED, "KB",
	  "tracefs ring buffer per CPU, KiB [default: 4096]", OPT_SCHED_BUFFER_KB },
	{ "calibrate", 0, PM_OPT_NONE, NULL,
	  "run the program several times into one trace: the baseline\n"
	  "(1 CPU) and the core counts of the memory model (all cores\n"
	  "of a socket; with several sockets also one more core), in\n"
	  "rounds until omega's standard error is at most --omega-se\n"
	  "or --calibrate-budget is spent (--repeat K alone: K rounds)", OPT_CALIBRATE },
	{ "omega-se", 0, PM_OPT_REQUIRED, "SE",
	  "--calibrate: stop the rounds once the standard error of\n"
	  "omega(n) at every calibrated core count is at most SE,\n"
	  "after --repeat rounds [default: " CALSTOP_SE_DEFAULT_TEXT "]", OPT_OMEGA_SE },
	{ "calibrate-budget", 0, PM_OPT_REQUIRED, "SECONDS",
	  "--calibrate: start no round that would end later than\n"
	  "SECONDS after the first [default: " CALSTOP_BUDGET_DEFAULT_TEXT "]", OPT_CALIBRATE_BUDGET },
	{ "runs", 0, PM_OPT_REQUIRED, "LISTS",
	  "the runs' CPU lists instead, e.g. --runs 0 0-7 0-8 (CPU\n"
	  "expressions inside the value: --runs 'N:0 S0:0-1 E:N:3')", OPT_RUNS },
	{ "omp-regions", 0, PM_OPT_NONE, NULL,
	  "record the OpenMP parallel regions through OMPT (LLVM's\n"
	  "libomp); with -t LIST, one run per thread count", OPT_OMP_REGIONS },
	{ "omp-runtime", 0, PM_OPT_REQUIRED, "RT",
	  "with --omp-regions: 'llvm' preloads LLVM's libomp into a GCC\n"
	  "(libgomp) binary, or give the path of a libomp", OPT_OMP_RUNTIME },
	{ "mpi", 0, PM_OPT_NONE, NULL,
	  "time the blocking MPI calls of each rank with a PMPI preload\n"
	  "library [default: on when the program links libmpi]", OPT_MPI },
	{ "no-mpi", 0, PM_OPT_NONE, NULL, "do not time the MPI calls", OPT_NO_MPI },
	{ "omp-events", 0, PM_OPT_REQUIRED, "LIST",
	  "with --omp-regions: PAPI events each thread counts over each\n"
	  "region (at most 6, resolved in the program, so its own\n"
	  "sde::: events work); default cycles and LLC misses when\n"
	  "pmcollect's counters work; 'none' for no counters", OPT_OMP_EVENTS },
	{ "label", 'l', PM_OPT_REQUIRED, "KEY=VALUE",
	  "store a label in the trace (e.g. size=1000: a feature of\n"
	  "pmanalyze --learn); repeatable", 0 },
	{ "interfere", 0, PM_OPT_REQUIRED, "KIND",
	  "run the program beside 0..K interference threads of KIND,\n"
	  "cache (CSThr) or bandwidth (BWThr), into one trace", OPT_INTERFERE },
	{ "levels", 0, PM_OPT_REQUIRED, "LIST",
	  "interferer counts to run [default: 0 to one per CPU of\n"
	  "--interfere-cpus]; must start at 0", OPT_LEVELS },
	{ "csthr-l2", 0, PM_OPT_REQUIRED, "N",
	  "CSThr buffers of N times the L2 above their CPU (hwloc),\n"
	  "N >= 2 [default: the paper's 4 MB, or 2x the L2 where\n"
	  "that is larger; --interfere cache: the machine file's]", OPT_CSTHR_L2 },
	{ "interfere-cpus", 0, PM_OPT_REQUIRED, "LIST",
	  "the interferers' CPUs, a cpulist or a CPU expression\n"
	  "[default: CPUs sharing the program's last-level cache,\n"
	  "not its SMT siblings (hwloc)]", OPT_INTERFERE_CPUS },
	{ "calibrate-wake", 0, PM_OPT_NONE, NULL,
	  "measure the wake-up cost (futex ping-pong between pairs of\n"
	  "CPUs) into META; without a command a trace of it alone\n"
	  "[--calibrate measures it too]", OPT_CAL_WAKE },
	{ "calibrate-interference", 0, PM_OPT_NONE, NULL,
	  "measure BW1, B and the cache capacity left with k\n"
	  "CSThrs; write the machine file and (with a command and\n"
	  "--interfere) use it at once", OPT_CALIBRATE_INTERFERENCE },
	{ "interference-file", 0, PM_OPT_REQUIRED, "FILE",
	  "the machine file [default:\n"
	  "$XDG_CACHE_HOME/pmtools/interference-HOST.json]", OPT_INTERFERENCE_FILE },
	{ "sweep", 0, PM_OPT_REQUIRED, "SPEC",
	  "run the program once per configuration of SPEC:\n"
	  "cores=1,2,4 (CPUs chosen compactly), threads=1-16\n"
	  "(OMP_NUM_THREADS and {threads} in the command), or both\n"
	  "as cores=1,2;threads=1-16; a baseline run (1 CPU) first", OPT_SWEEP },
	{ "repeat", 0, PM_OPT_REQUIRED, "K",
	  "run each configuration of --sweep, --calibrate or\n"
	  "--interfere K times, interleaved [default: 1 for --sweep\n"
	  "and --runs, 3 for --calibrate and --interfere]; with\n"
	  "--omega-se or --calibrate-budget the fewest rounds", OPT_REPEAT },
	{ "no-baseline", 0, PM_OPT_NONE, NULL,
	  "--sweep without the baseline run", OPT_NO_BASELINE },
	{ "user", 'u', PM_OPT_REQUIRED, "NAME",
	  "run the program as user NAME (pmcollect keeps root)\n"
	  "[default as root under sudo: SUDO_USER]", 0 },
	{ "progress", 0, PM_OPT_NONE, NULL,
	  "print a [k/N] line per run of --calibrate, --sweep,\n"
	  "--interfere, -t LIST and per step of\n"
	  "--calibrate-interference [default: when stderr is a\n"
	  "terminal]", OPT_PROGRESS },
	{ "quiet", 'q', PM_OPT_NONE, NULL,
	  "do not print warnings or progress", 0 },
	{ "help", 'h', PM_OPT_NONE, NULL,
	  "show this help and exit", 0 },
	{ "version", 'V', PM_OPT_NONE, NULL,
	  "show the version and exit", 0 },
	/* hidden: the visible long options, one per line, for the man-page test (t1000) */
	{ "list-options", 0, PM_OPT_NONE, NULL, NULL, OPT_LIST_OPTIONS },
	PM_OPT_END,
};

/* --help: the usage line, what pmcollect does, the options (from the table), examples. */
static void usage(FILE *f)
{
	fprintf(f,
		"%s\n"
		"\n"
		"Runs <command> and records the run-queue activity of its threads (from /proc) and\n"
		"hardware-counter snapshots into a pmtrace file for pmanalyze.\n"
		"\n",
		pmc_cli_usage_line);
	pm_opt_help(f, options, PM_OPT_HELP_COLUMN, 0);
	fputs("\n"
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
		"  pmcollect --sweep 'threads=1-8' -- pigz -k -f -p {threads} big.tar\n", f);
}

/* parse_option's share for the run plan: calibration, --runs, repetitions, sweeps and
 * interference. Returns -1 to go on, or PMT_EXIT_USAGE after reporting. */
static int parse_plan_option(int c, int argc, char **argv, struct pmc_opts *o)
{
	long v;

	switch (c) {
	case OPT_CAL_WAKE:
		o->calibrate_wake = 1;
		break;
	case OPT_CALIBRATE:
		o->calibrate = 1;
		break;
	case OPT_RUNS:
		return pmc_cli_parse_runs(optarg, argc, argv, o);
	case OPT_INTERFERE:
		if (pmc_interfere_kind_parse(optarg, &o->interfere_kind) < 0) {
			pm_cli_error("invalid --interfere '%s': use cache or bandwidth", optarg);
			return PMT_EXIT_USAGE;
		}
		o->interfere = 1;
		break;
	case OPT_LEVELS:
		o->levels = optarg;
		break;
	case OPT_INTERFERE_CPUS:
		o->interfere_cpus = optarg;
		break;
	case OPT_CALIBRATE_INTERFERENCE:
		o->calibrate_interference = 1;
		break;
	case OPT_INTERFERENCE_FILE:
		o->interference_file = optarg;
		break;
	case OPT_SWEEP:
		o->sweep = optarg;
		break;
	case OPT_REPEAT:
		if (pm_cli_parse_long(optarg, 1, REPEAT_MAX, &v) < 0) {
			pm_cli_error("invalid --repeat '%s': want 1 to %d", optarg, REPEAT_MAX);
			return PMT_EXIT_USAGE;
		}
		o->repeat = v;
		break;
	case OPT_OMEGA_SE:
		if (pmc_cli_parse_double(optarg, &o->omega_se) < 0 || !(o->omega_se > 0)) {
			pm_cli_error("invalid --omega-se '%s': want a number above 0", optarg);
			return PMT_EXIT_USAGE;
		}
		break;
	case OPT_CALIBRATE_BUDGET:
		if (pmc_cli_parse_double(optarg, &o->calibrate_budget_s) < 0 || !(o->calibrate_budget_s > 0) ||
		    o->calibrate_budget_s > 1e7) {
			pm_cli_error("invalid --calibrate-budget '%s': want seconds above 0", optarg);
			return PMT_EXIT_USAGE;
		}
		break;
	case OPT_NO_BASELINE:
		o->no_baseline = 1;
		break;
	}
	return -1;
}

/* Takes option c (an id of options[]) with its value optarg into o; --runs also takes the plain
 * CPU lists that follow it in argv (moving optind). Returns -1 to go on, or PMT_EXIT_USAGE after
 * reporting. */
static int parse_option(int c, int argc, char **argv, struct pmc_opts *o)
{
	long v;

	switch (c) {
	case 'o':
		o->output = optarg;
		break;
	case 'f':
		o->force = 1;
		break;
	case 'i':
		if (pmc_cli_parse_double(optarg, &o->interval_ms) < 0 || o->interval_ms < 0.1 ||
		    o->interval_ms > 10000) {
			pm_cli_error("invalid interval '%s': want milliseconds from 0.1 to 10000",
				      optarg);
			return PMT_EXIT_USAGE;
		}
		break;
	case 'C':
		o->cpus = optarg;
		break;
	case 't':
		if (optarg[0] && strspn(optarg, "0123456789") != strlen(optarg) &&
		    pmc_cli_is_cpulist_word(optarg)) {
			/* a list: checked in pmc_cli_plan_runs (it needs --omp-regions) */
			o->threads_list = optarg;
			break;
		}
		o->threads_list = NULL;
		if (pm_cli_parse_long(optarg, 1, 1000000, &v) < 0) {
			pm_cli_error("invalid thread count '%s': want 1 to 1000000", optarg);
			return PMT_EXIT_USAGE;
		}
		o->threads = (int)v;
		break;
	case OPT_MEMBIND:
	case OPT_INTERLEAVE:
		if (o->mem_nodes) {
			pm_cli_error("--membind and --interleave cannot be combined");
			return PMT_EXIT_USAGE;
		}
		o->mem_mode = c == OPT_MEMBIND ? "bind" : "interleave";
		o->mem_nodes = optarg;
		break;
	case 'e':
		o->events = optarg;
		break;
	case OPT_SCHED:
	case OPT_NO_SCHED:
		o->sched_mode = c == OPT_SCHED;
		break;
	case OPT_PERF_SWITCH:
	case OPT_NO_PERF_SWITCH:
		o->pswitch_mode = c == OPT_PERF_SWITCH;
		break;
	case OPT_MPI:
	case OPT_NO_MPI:
		o->mpi = c == OPT_MPI;
		break;
	case OPT_SCHED_BUFFER_KB:
		if (pm_cli_parse_long(optarg, 4, 4194304, &v) < 0) {
			pm_cli_error("invalid --sched-buffer-kb '%s': want KiB from 4 to 4194304",
				      optarg);
			return PMT_EXIT_USAGE;
		}
		o->sched_buffer_kb = (unsigned)v;
		break;
	case OPT_OMP_REGIONS:
		o->omp_regions = 1;
		break;
	case OPT_OMP_RUNTIME:
		if (strcmp(optarg, "llvm") != 0 && optarg[0] != '/' && optarg[0] != '.') {
			pm_cli_error("invalid --omp-runtime '%s': want 'llvm' or the path of a "
				      "libomp", optarg);
			return PMT_EXIT_USAGE;
		}
		o->omp_runtime = optarg;
		break;
	case OPT_OMP_EVENTS: {
		char ewhy[160];
		if (pmc_cli_check_omp_events(optarg, ewhy, sizeof(ewhy)) < 0) {
			pm_cli_error("invalid --omp-events '%.200s': %s", optarg, ewhy);
			return PMT_EXIT_USAGE;
		}
		o->omp_events = optarg;
		break;
	}
	case 'l':
		return pmc_cli_parse_label(optarg, o);
	case OPT_CSTHR_L2: {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(optarg, &end, 10);
		if (errno || end == optarg || *end || optarg[0] == '-' || n < 2 || n > 64) {
			pm_cli_error("invalid --csthr-l2 '%s': want a whole number of L2 sizes, 2 to 64",
				      optarg);
			return PMT_EXIT_USAGE;
		}
		o->csthr_l2 = (unsigned)n;
		break;
	}
	case 'u':
		o->user = optarg;
		break;
	case 'q':
		pmc_cli_quiet = 1;
		break;
	case OPT_PROGRESS:
		pmc_cli_progress_forced = 1;
		break;
	default:
		return parse_plan_option(c, argc, argv, o);
	}
	return -1;
}

/* The combinations of options that cannot go together, and the command. Returns -1 to go on, or
 * PMT_EXIT_USAGE after reporting. */
static int check_options(int argc, char **argv, struct pmc_opts *o)
{
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
	/* --repeat K alone (and --runs) keep K rounds; otherwise K is the fewest */
	o->calibrate_adaptive = o->calibrate && ((!o->repeat && !o->runs_value) || o->omega_se > 0 ||
						 o->calibrate_budget_s > 0);
	if (o->calibrate_adaptive && !(o->omega_se > 0))
		o->omega_se = CALSTOP_SE_DEFAULT;
	if (o->calibrate_adaptive && !(o->calibrate_budget_s > 0))
		o->calibrate_budget_s = CALSTOP_BUDGET_DEFAULT_S;
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
	struct pm_opt_getopt g;
	char msg[256];
	int c, ret = -1;

	if (pm_opt_getopt_build(options, PM_OPT_STOP_AT_ARG | PM_OPT_COLON, &g) < 0) {
		pm_cli_error("%s", strerror(errno));
		return PMT_EXIT_FAILURE;
	}
	opterr = 0; /* messages in our grammar, not getopt's */
	while (ret < 0 && (c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			ret = PMT_EXIT_OK;
		} else if (c == 'V') {
			printf("pmcollect %s (pmtrace format %d.%d)\n", PMT_TOOLS_VERSION, PMT_FORMAT_MAJOR,
			       PMT_FORMAT_MINOR);
			ret = PMT_EXIT_OK;
		} else if (c == OPT_LIST_OPTIONS) {
			ret = pm_opt_print_names(stdout, options) < 0 ? PMT_EXIT_FAILURE : PMT_EXIT_OK;
		} else if (c == ':' || c == '?') {
			ret = usage_error("%s", pm_opt_error(c, argv, optind, optopt, msg, sizeof(msg)));
		} else {
			ret = parse_option(c, argc, argv, o);
		}
	}
	pm_opt_getopt_free(&g);
	return ret < 0 ? check_options(argc, argv, o) : ret;
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
	if (ret < 0)
		ret = pmc_cli_job_context(&o, &ss);
	if (ret < 0)
		ret = pmc_cli_plan_runs(&o, &ss);
	if (ret < 0) {
		/* the output last, so no other error leaves an empty file behind; before the
		 * program starts, so an unwritable path is a usage error */
		ss.out_fd = ss.output_template ? pmc_cli_create_rank_output(o.output, o.force)
					       : pmc_cli_create_output(o.output, o.force, &ss.created_output);
		if (ss.output_template)
			ss.created_output = ss.out_fd >= 0;
		if (ss.out_fd < 0)
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
	pmc_session_close(&ss);
	return ret;
}
