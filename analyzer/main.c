/* SPDX-License-Identifier: MIT */
/* main.c: pmanalyze, the offline analyzer: average parallelism, critical path and speedup. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "render/plot.h"
#include "pmt.h"
#include "pm_cli.h"
#include "pm_opt.h"

static const char usage_line[] =
	"usage: pmanalyze [--cores <list>] [--format table|json|csv] [--estimator <name>]\n"
	"                 [--run <id>] [--placement compact|scatter|<k>]\n"
	"                 [--mem local|interleave|local-then-remote] [--machine <file>] [--force]\n"
	"                 [--export-perfetto <file>] [--export-extrap <file>] [--plot <dir>]\n"
	"                 [--plot-format svg|png] [--html <file>] [--threshold <pct>] [--procs <p>]\n"
	"                 [--phases] [--tcm-event <name>] [--allande-all] [--pmnf-classes[=<unit>]]\n"
	"                 [--pmnf-aggregate trimmed|median|mean|min]\n"
	"                 [-j <n>] [-o <file>] [-q] <trace>...\n"
	"   or: pmanalyze [options] [--calibration <trace>] <directory>|<rank trace>...  (MPI job)\n"
	"   or: pmanalyze --info <trace>\n"
	"   or: pmanalyze --dump <trace>\n"
	"   or: pmanalyze --learn [--target time|energy] [--model-out <file>]\n"
	"                 [--predict <threads>:<cores>[,...]] <trace>...\n"
	"   or: pmanalyze --toep [--target time|energy] <trace>...\n"
	"   or: pmanalyze --predict <threads>:<cores>[,...] --model <file> [<trace>...]\n";

/* ids of the long-only options (pm_opt.h: above 255) */
enum {
	OPT_PLACEMENT = 256, OPT_MEM, OPT_MACHINE, OPT_PERFETTO, OPT_LEARN, OPT_TARGET, OPT_MODEL_OUT,
	OPT_MODEL, OPT_PREDICT, OPT_PLOT, OPT_PLOT_FORMAT, OPT_HTML, OPT_THRESHOLD, OPT_EXTRAP,
	OPT_PROCS, OPT_TOEP, OPT_PHASES, OPT_PROGRESS, OPT_TCM_EVENT, OPT_CALIBRATION,
	OPT_ALLANDE_ALL, OPT_PMNF_CLASSES, OPT_NO_WAKE_COST, OPT_PMNF_AGGREGATE, OPT_LIST_OPTIONS,
};

/* pmanalyze's options: getopt_long's arguments, --help's option lines and the man-page test
 * (t2000, from the hidden --list-options) come from here (common/pm_opt.h). One meaning per letter across pmanalyze
 * and pmcollect: -f is --force in both; --format is -F, --estimator -E, --info -I. */
static const struct pm_opt options[] = {
	{ "cores", 'c', PM_OPT_REQUIRED, "<list>",
	  "core counts to predict for: 1-40, 1,2,4,8, 1-64:4\n"
	  "[default: 1 up to max(m, CPUs of the recording machine),\nat most 1024]", 0 },
	{ "format", 'F', PM_OPT_REQUIRED, "<fmt>", "table, json or csv [default: table]", 0 },
	{ "estimator", 'E', PM_OPT_REQUIRED, "<name>",
	  "estimator of A(m,inf): sched-exact, switch-exact,\nrunnable or paper [default: sched-exact when the run\n"
	  "has scheduler events and lost under 1% of them, else\nswitch-exact on the same terms for perf's context\n"
	  "switches (pmcollect --perf-switch), else runnable]", 0 },
	{ "run", 'r', PM_OPT_REQUIRED, "<id>", "run of the trace to analyze [default: the baseline run]", 0 },
	{ "placement", 0, PM_OPT_REQUIRED, "<p>",
	  "threads per socket for omega(n): compact (fill a socket\nfirst), scatter (round robin) or <k> (round robin in\n"
	  "chunks of k) [default: compact]", OPT_PLACEMENT },
	{ "mem", 0, PM_OPT_REQUIRED, "<policy>",
	  "local, interleave or local-then-remote\n[default: from the recorded memory policy]", OPT_MEM },
	{ "machine", 0, PM_OPT_REQUIRED, "<file>",
	  "predict for this machine: hwloc XML (lstopo --of xml) or\nanother trace [default: the recording machine]",
	  OPT_MACHINE },
	{ "force", 'f', PM_OPT_NONE, NULL,
	  "combine traces of different programs (or of different\njobs, for rank traces)", 0 },
	{ "threshold", 0, PM_OPT_REQUIRED, "<pct>",
	  "slowdown that counts as degradation in a trace of\npmcollect --interfere [default: 5]", OPT_THRESHOLD },
	{ "procs", 0, PM_OPT_REQUIRED, "<p>",
	  "the program's processes that share the resource, for\nthe needs per process of --interfere [default: 1]",
	  OPT_PROCS },
	{ "phases", 0, PM_OPT_NONE, NULL,
	  "the run's parallel phases (>= 2 active threads, cut at\nserial gaps over one sampling interval), each with its A,\n"
	  "T_cp and T(n); shown anyway for an --omp-regions trace\nwithout regions", OPT_PHASES },
	{ "tcm-event", 0, PM_OPT_REQUIRED, "<name>",
	  "the per-thread region counter (pmcollect --omp-events)\ntaken as Allande's TCM [default: the LLC-miss event]",
	  OPT_TCM_EVENT },
	{ "no-wake-cost", 0, PM_OPT_NONE, NULL,
	  "replay without the calibration's wake-up cost", OPT_NO_WAKE_COST },
	{ "allande-all", 0, PM_OPT_NONE, NULL,
	  "with runs of 1..NC threads: every configuration's SUM\nand MAX estimate per region (JSON and CSV)",
	  OPT_ALLANDE_ALL },
	{ "jobs", 'j', PM_OPT_REQUIRED, "<n>", "analyze rank traces n at a time [default: the CPU count]", 0 },
	{ "calibration", 0, PM_OPT_REQUIRED, "<trace>",
	  "omega(n) of every rank from this trace's calibration\nruns (recorded outside the launcher, on one node)",
	  OPT_CALIBRATION },
	{ "output", 'o', PM_OPT_REQUIRED, "<file>", "write the report to <file> instead of standard output", 0 },
	{ "export-perfetto", 0, PM_OPT_REQUIRED, "<file>",
	  "write the run's exact timelines (scheduler events) as\nChrome trace-event JSON for ui.perfetto.dev", OPT_PERFETTO },
	{ "plot", 0, PM_OPT_REQUIRED, "<dir>",
	  "write the plots (speedup, profile, histogram, timeline,\nomega, energy; interference for --interfere traces: those\n"
	  "the data allows) into <dir>, created if missing", OPT_PLOT },
	{ "plot-format", 0, PM_OPT_REQUIRED, "<fmt>", "svg or png [default: svg]", OPT_PLOT_FORMAT },
	{ "html", 0, PM_OPT_REQUIRED, "<file>",
	  "write a self-contained HTML report (headline, next steps,\nplots, predictions, data sources) to <file>", OPT_HTML },
	{ "export-extrap", 0, PM_OPT_REQUIRED, "<file>",
	  "write a --sweep trace's measurements in Extra-P's text\nformat to <file> and as JSON Lines to <file>.jsonl",
	  OPT_EXTRAP },
	{ "pmnf-classes", 0, PM_OPT_OPTIONAL, "<unit>",
	  "fit a --sweep trace's scaling models also per class\nof x, separately: powers of two, odd and even multiples of\n"
	  "<unit> (Iwainsky et al. 4.2; 8: their 16k+8 and 16k)\n[default unit: 1]", OPT_PMNF_CLASSES },
	{ "pmnf-aggregate", 0, PM_OPT_REQUIRED, "<a>",
	  "summarize a --sweep configuration's repetitions before\nthe fits by trimmed, median, mean (Extra-P's) or min\n"
	  "[default: trimmed]", OPT_PMNF_AGGREGATE },
	{ "salvage", 's', PM_OPT_NONE, NULL, "skip damaged chunks instead of stopping at the first", 0 },
	{ "info", 'I', PM_OPT_NONE, NULL, "print what the trace holds (metadata, threads, samples)", 0 },
	{ "dump", 'd', PM_OPT_NONE, NULL, "print every record as one JSON object per line", 0 },
	{ "learn", 0, PM_OPT_NONE, NULL,
	  "random forest over the traces' runs (TOEP): R2 and mean\n|error| of the model, the forest and the forest with the\n"
	  "model's predictions as features, on held-out configurations", OPT_LEARN },
	{ "toep", 0, PM_OPT_NONE, NULL,
	  "TOEP's own procedure: rows sorted by the target, the 3\nmost important features, training shares 1/2000 to 1/3,\n"
	  "R2 of the forest and of linear regression, Selection =\nR2 / training time (TOEP eq. 1)", OPT_TOEP },
	{ "target", 0, PM_OPT_REQUIRED, "<t>", "what --learn and --toep predict: time or energy\n[default: time]",
	  OPT_TARGET },
	{ "model-out", 0, PM_OPT_REQUIRED, "<file>", "write the --learn forest to <file>", OPT_MODEL_OUT },
	{ "predict", 0, PM_OPT_REQUIRED, "<list>",
	  "predict <threads>:<cores>,... with the forest of --model\nor of --learn", OPT_PREDICT },
	{ "model", 0, PM_OPT_REQUIRED, "<file>", "the forest --predict loads", OPT_MODEL },
	{ "progress", 0, PM_OPT_NONE, NULL,
	  "show how far the reading of each trace got, on\nstandard error [default: for traces over 100 MB when\n"
	  "standard error is a terminal]", OPT_PROGRESS },
	{ "quiet", 'q', PM_OPT_NONE, NULL, "do not print warnings or progress on standard error", 0 },
	{ "help", 'h', PM_OPT_NONE, NULL, "print this help and exit", 0 },
	{ "version", 'V', PM_OPT_NONE, NULL, "print the version and exit", 0 },
	/* hidden: the visible long options, one per line, for the man-page test (t2000) */
	{ "list-options", 0, PM_OPT_NONE, NULL, NULL, OPT_LIST_OPTIONS },
	PM_OPT_END,
};

static void usage_full(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Predicts the speedup of the program recorded in <trace> by pmcollect on any number of\n"
	      "cores (Tudor & Teo's model: S(m,n) = A(m,n) / (1 + omega(n))).\n"
	      "\n", stdout);
	pm_opt_help(stdout, options, PM_OPT_HELP_COLUMN, 90);
	fputs("\n"
	      "Calibration runs (pmcollect --calibrate) in the traces give omega(n); see\n"
	      "docs/memory-model.md. A trace of pmcollect --sweep adds the scaling study: measured\n"
	      "vs predicted speedup per configuration and empirical scaling models (docs/scaling.md).\n"
	      "\n"
	      "The traces of one MPI or Slurm job (pmcollect -o 'pm-%j/trace.%r.zst' under mpirun\n"
	      "or srun; a directory stands for its *.zst files) are merged: a row per rank, the\n"
	      "load imbalance across ranks, the slowest rank and the job's T(n); see docs/cluster.md.\n"
	      "\n"
	      "Deprecated (one release, with a warning): -f table|json|csv for -F, -e <name> for -E,\n"
	      "-i for -I.\n"
	      "\n"
	      "Exit status: 0 success, 1 bad or unreadable trace, 2 usage error (also: traces of\n"
	      "different programs without --force), 3 nothing to predict (one thread at a time).\n",
	      stdout);
}

/* An error in the command line itself: one error line, the usage line, status 2. */
#define usage_error(...) pm_cli_usage_error(usage_line, __VA_ARGS__)

/* --format: table, json or csv. Returns 0 or -1. */
static int parse_format(const char *arg, enum pma_format *f)
{
	static const char *const names[] = { [PMA_FMT_TABLE] = "table", [PMA_FMT_JSON] = "json",
					     [PMA_FMT_CSV] = "csv" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(arg, names[i]) == 0) {
			*f = (enum pma_format)i;
			return 0;
		}
	}
	return -1;
}

/* --placement: compact (chunk 0), scatter (1) or a chunk size k >= 1. Returns 0 or -1. */
static int parse_placement(const char *arg, uint32_t *chunk)
{
	long k;

	if (strcmp(arg, "compact") == 0)
		k = 0;
	else if (strcmp(arg, "scatter") == 0)
		k = 1;
	else if (pm_cli_parse_long(arg, 1, 1000000, &k) < 0)
		return -1;
	*chunk = (uint32_t)k;
	return 0;
}

/* The old short forms, for one release (docs/pmanalyze.1): "-f table|json|csv" and "-fjson" mean
 * --format (-f is --force now, as in pmcollect), "-e <name>" and "-e<name>" --estimator (-E),
 * "-i" --info (-I). Rewrites them in argv (up to "--") with a one-line warning each. */
static void deprecated_forms(int argc, char **argv)
{
	static char buf[4][48], info[] = "--info", format[] = "--format", estimator[] = "--estimator";
	static const char *const formats[] = { "table", "json", "csv" };
	int nbuf = 0;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *val = NULL, *newshort = NULL;
		char *newopt = NULL;

		if (strcmp(a, "-i") == 0) {
			pm_cli_warning("'-i' is deprecated: use -I (--info)");
			argv[i] = info;
			continue;
		}
		if (strncmp(a, "-f", 2) == 0 || strncmp(a, "-e", 2) == 0) {
			int sep = a[2] == '\0';
			val = sep ? (i + 1 < argc ? argv[i + 1] : NULL) : a + 2;
			newopt = a[1] == 'f' ? format : estimator;
			newshort = a[1] == 'f' ? "-F" : "-E";
		}
		if (!val)
			continue;
		if (a[1] == 'f') {
			int known = 0;
			for (size_t k = 0; k < sizeof(formats) / sizeof(formats[0]); k++)
				known |= strcmp(val, formats[k]) == 0;
			if (!known)
				continue; /* -f alone: --force */
		}
		pm_cli_warning("'%s%s%s' is deprecated: use %s %s (%s)", a, a[2] ? "" : " ",
			       a[2] ? "" : val, newshort, val, newopt);
		if (a[2] == '\0')
			argv[i] = newopt;
		else if (nbuf < 4 && (size_t)snprintf(buf[nbuf], sizeof(buf[nbuf]), "%s=%s", newopt, val) <
			 sizeof(buf[nbuf]))
			argv[i] = buf[nbuf++];
	}
}

/* One option of the model and its inputs (cores, estimator, run, memory, interference, regions,
 * sweeps) into o->co. Returns -1 when taken, -2 when c is none of them, else the exit status of
 * a usage error already reported. */
static int parse_model_option(int c, struct cli_opts *o)
{
	char why[512];

	switch (c) {
	case 'c':
		pm_intlist_free(&o->cores);
		if (pm_intlist_parse(optarg, 1, 1000000, &o->cores, why, sizeof(why)) < 0)
			return usage_error("invalid --cores '%s': %s", optarg, why);
		break;
	case 'E':
		o->co.estimator = pma_estimator_parse(optarg);
		if (o->co.estimator < 0)
			return usage_error("invalid --estimator '%s': use sched-exact, switch-exact, runnable or paper", optarg);
		break;
	case 'r':
		if (pm_cli_parse_long(optarg, 0, 0xffffffffL, &o->co.run_id) < 0)
			return usage_error("invalid --run '%s': not a run id", optarg);
		break;
	case OPT_PMNF_CLASSES: {
		long unit = 1;
		if (optarg && pm_cli_parse_long(optarg, 1, 65536, &unit) < 0)
			return usage_error("invalid --pmnf-classes '%s': want a unit from 1 to "
					   "65536", optarg);
		o->co.pmnf_class_unit = (unsigned)unit;
		break;
	}
	case OPT_PMNF_AGGREGATE:
		if ((o->co.pmnf_aggregate = pma_pmnf_aggregate_parse(optarg)) < 0)
			return usage_error("invalid --pmnf-aggregate '%s': use trimmed, median, mean "
					   "or min", optarg);
		break;
	case OPT_PLACEMENT:
		if (parse_placement(optarg, &o->co.chunk) < 0)
			return usage_error("invalid --placement '%s': use compact, scatter or a "
					   "chunk size from 1", optarg);
		break;
	case OPT_MEM:
		o->co.mem_policy = pma_mem_policy_parse(optarg);
		if (o->co.mem_policy < 0)
			return usage_error("invalid --mem '%s': use local, interleave or "
					   "local-then-remote", optarg);
		break;
	case OPT_MACHINE:
		o->machine_path = optarg;
		break;
	case OPT_PHASES:
		o->co.phases = 1;
		break;
	case OPT_ALLANDE_ALL:
		o->co.allande_all = 1;
		break;
	case OPT_NO_WAKE_COST:
		o->co.no_wake_cost = 1;
		break;
	case OPT_TCM_EVENT:
		if (!optarg[0] || strlen(optarg) >= 128)
			return usage_error("invalid --tcm-event '%.200s': want an event name of 1 to "
					   "127 bytes", optarg);
		o->co.tcm_event = optarg;
		break;
	case OPT_THRESHOLD: {
		char *end;
		double pct = strtod(optarg, &end);
		if (end == optarg || *end || !(pct > 0 && pct <= 1000))
			return usage_error("invalid --threshold '%s': want a percentage above 0, up to 1000",
					   optarg);
		o->co.threshold = pct / 100;
		break;
	}
	case OPT_PROCS: {
		char *end;
		unsigned long p = strtoul(optarg, &end, 10);
		if (end == optarg || *end || *optarg == '-' || p < 1 || p > 65536)
			return usage_error("invalid --procs '%s': want 1 to 65536", optarg);
		o->co.procs = (uint32_t)p;
		break;
	}
	default:
		return -2;
	}
	return -1;
}

/* One option of the output, the modes and the reading of traces into o. Returns -1 when taken,
 * else the exit status to return now (--help, --version, a usage error already reported). */
static int parse_option(int c, char **argv, struct cli_opts *o)
{
	char why[160];

	switch (c) {
	case 'F':
		if (parse_format(optarg, &o->format) < 0)
			return usage_error("invalid --format '%s': use table, json or csv", optarg);
		break;
	case 'o':
		o->outpath = optarg;
		break;
	case OPT_PERFETTO:
		o->perfetto_path = optarg;
		break;
	case OPT_LEARN:
		o->mode = CLI_LEARN;
		break;
	case OPT_TOEP:
		o->mode = CLI_TOEP;
		break;
	case OPT_TARGET:
		if (strcmp(optarg, "time") != 0 && strcmp(optarg, "energy") != 0)
			return usage_error("invalid --target '%s': want time or energy", optarg);
		o->target = strcmp(optarg, "energy") == 0 ? PMA_TARGET_ENERGY : PMA_TARGET_TIME;
		break;
	case OPT_MODEL_OUT:
		o->model_out = optarg;
		break;
	case OPT_MODEL:
		o->model_in = optarg;
		break;
	case OPT_PREDICT:
		o->predict = optarg;
		break;
	case OPT_PLOT:
		o->plot_dir = optarg;
		break;
	case OPT_PLOT_FORMAT:
		if (pma_plot_format_parse(optarg, &o->plot_format) < 0)
			return usage_error("invalid --plot-format '%s': use svg or png", optarg);
		break;
	case OPT_HTML:
		o->html_path = optarg;
		break;
	case 'j':
		if (pm_cli_parse_long(optarg, 1, 4096, &o->jobs) < 0)
			return usage_error("invalid --jobs '%s': want 1 to 4096", optarg);
		break;
	case OPT_EXTRAP:
		o->extrap_path = optarg;
		break;
	case 'f':
		o->force = 1;
		break;
	case OPT_CALIBRATION:
		o->cal_path = optarg;
		break;
	case 's':
		o->flags |= PMT_READ_SALVAGE;
		break;
	case 'I':
		o->mode = CLI_INFO;
		break;
	case 'd':
		o->mode = CLI_DUMP;
		break;
	case 'q':
		o->quiet = 1;
		break;
	case OPT_PROGRESS:
		o->progress = 1;
		break;
	case 'h':
		usage_full();
		return PMT_EXIT_OK;
	case 'V':
		printf("pmanalyze %s (pmtrace format %d.%d)\n", PMT_TOOLS_VERSION,
		       PMT_FORMAT_MAJOR, PMT_FORMAT_MINOR);
		return PMT_EXIT_OK;
	case OPT_LIST_OPTIONS:
		return pm_opt_print_names(stdout, options) < 0 ? PMT_EXIT_FAILURE : PMT_EXIT_OK;
	default:
		return usage_error("%s", pm_opt_error(c, argv, optind, optopt, why, sizeof(why)));
	}
	return -1;
}

/* The combinations of modes and options, after getopt: --predict alone is its own mode. Returns
 * -1 when they are sound, else the exit status of a usage error already reported. */
static int check_modes(struct cli_opts *o, int noperands)
{
	if (o->mode == CLI_TOEP && o->model_out)
		return usage_error("--model-out goes with --learn (a --toep forest has 3 features, "
				   "--predict needs all)");
	if (o->predict && o->mode == CLI_TOEP)
		return usage_error("--predict goes with --learn or --model (a --toep forest has 3 "
				   "features)");
	if (o->predict && o->mode != CLI_LEARN) {
		if (o->mode != CLI_REPORT)
			return usage_error("--predict goes with --learn or --model");
		o->mode = CLI_PREDICT;
	}
	if (o->mode == CLI_PREDICT && !o->model_in)
		return usage_error("--predict needs --model <file> (written by --learn --model-out) or "
				   "--learn <trace>...");
	if (o->mode == CLI_LEARN && o->model_in)
		return usage_error("--model goes with --predict alone (--learn trains its own forest)");
	if (noperands == 0 && o->mode != CLI_PREDICT)
		return usage_error("no trace given");
	if ((o->mode == CLI_INFO || o->mode == CLI_DUMP) && noperands != 1)
		return usage_error("--info and --dump take one trace");
	return -1;
}

/* Parses argv into o. Returns -1 when parsing is complete, else the exit status to return now
 * (--help, --version, a usage error already reported). */
static int parse_options(int argc, char **argv, struct cli_opts *o)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct pm_opt_getopt g;
	int c, rc = -1;

	deprecated_forms(argc, argv);
	/* no leading '+': options may follow the traces (GNU permutation); ':' reports a missing
	 * value apart from an unknown option */
	if (pm_opt_getopt_build(options, PM_OPT_COLON, &g) < 0) {
		pm_cli_error("out of memory");
		return PMT_EXIT_FAILURE;
	}
	opterr = 0;
	while (rc == -1 && (c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1)
		if ((rc = parse_model_option(c, o)) == -2)
			rc = parse_option(c, argv, o);
	pm_opt_getopt_free(&g);
	if (rc != -1 || (rc = check_modes(o, argc - optind)) != -1)
		return rc;
	o->traces = argv + optind;
	o->ntraces = argc - optind;
	for (int i = 0; i < o->ntraces; i++) /* standard input can be read once */
		if (strcmp(o->traces[i], "-") == 0 &&
		    (o->ntraces > 1 || (o->cal_path && strcmp(o->cal_path, "-") == 0)))
			return usage_error("'-' (a trace on standard input) must be the only trace");
	if (o->jobs == 0)
		o->jobs = ncpu > 0 ? ncpu : 1;
	o->co.cores = o->cores.n ? o->cores.v : NULL;
	o->co.ncores = o->cores.n;
	return -1;
}

/* The modes, as git's builtins: what each loads before it runs, and the function that runs it. */
static const struct cli_cmd commands[CLI_NMODES] = {
	{ CLI_REPORT, 1, pma_cli_run_report },
	{ CLI_INFO, 1, pma_cli_run_info },
	{ CLI_DUMP, 0, pma_cli_run_dump },     /* streams the records itself */
	{ CLI_LEARN, 1, pma_cli_run_learn },
	{ CLI_TOEP, 1, pma_cli_run_toep },
	{ CLI_PREDICT, 1, pma_cli_run_predict },
	{ CLI_JOB, 0, pma_cli_run_ranks },     /* loads the ranks in worker threads */
};

/* The command line's combinations that need the operands read: a job's rank traces, and what
 * goes with them. Returns -1 to go on, else the exit status. */
static int pick_mode(struct cli_opts *o)
{
	int rc = pma_cli_is_rank_job(o);

	if (rc > 0 && o->perfetto_path)
		return usage_error("--export-perfetto takes one trace, not the ranks of a job");
	if (rc < 0)
		return PMT_EXIT_FAILURE;
	if (rc > 0) {
		o->mode = CLI_JOB;
		return -1;
	}
	if (o->cal_path)
		return usage_error("--calibration goes with the rank traces of a job; for one trace, "
				   "give the calibration trace as another operand");
	return -1;
}

int main(int argc, char **argv)
{
	struct cli_opts o = { .co = { .estimator = -1, .run_id = -1, .mem_policy = -1 },
			      .format = PMA_FMT_TABLE };
	struct output out = { 0 };
	struct pma_trace *traces = NULL;
	struct pma_machine machine = { 0 };
	int rc;

	pm_cli_set_prog("pmanalyze");
	if ((rc = parse_options(argc, argv, &o)) >= 0)
		goto done;
	out.path = o.outpath;
	if ((rc = pma_cli_expand_operands(&o)) >= 0 || (rc = pick_mode(&o)) >= 0)
		goto done;
	rc = PMT_EXIT_FAILURE;
	if (pma_cli_load_inputs(&o, &commands[o.mode], &traces, &machine) == 0)
		rc = commands[o.mode].run(&o, traces, &out);
done:
	if (traces)
		for (int i = 0; i < o.ntraces; i++)
			pma_trace_free(&traces[i]);
	free(traces);
	pma_machine_free(&machine);
	pma_forest_free(o.model);
	for (int i = 0; o.owned && i < o.ntraces; i++)
		free(o.owned[i]);
	free(o.owned);
	pm_intlist_free(&o.cores);
	if (o.plot_dir || o.html_path)
		pma_plot_cleanup();
	return pma_cli_output_close(&out, rc);
}
