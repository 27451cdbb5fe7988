/* SPDX-License-Identifier: MIT */
/* main.c: pmanalyze, the offline analyzer: average parallelism, critical path and speedup. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/analyze.h"
#include "pm_util.h"
#include "result/compute.h"
#include "result/ranks.h"
#include "model/forest.h"
#include "result/learning.h"
#include "render/dump.h"
#include "render/extrap.h"
#include "render/html.h"
#include "render/render.h"
#include "model/memory.h"
#include "pmt.h"
#include "pm_cli.h"
#include "pm_opt.h"
#include "render/perfetto.h"
#include "render/plot.h"
#include "render/report.h"


/* A sound trace of a program that ran one thread at a time: nothing to predict (docs/model.md), apart
 * from 1 (a trace that cannot be read or is corrupt). */
#define PMA_EXIT_NOTHING 3

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
	OPT_ALLANDE_ALL, OPT_PMNF_CLASSES, OPT_NO_WAKE_COST, OPT_PMNF_AGGREGATE,
};

/* pmanalyze's options: getopt_long's arguments, --help's option lines and the man-page test
 * (t2000, from --help) come from here (common/pm_opt.h). One meaning per letter across pmanalyze
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

/* --export-perfetto: the analyzed run's exact timelines to path. Returns 0 or -1 after
 * reporting the error. */
static int export_perfetto(const char *path, const struct pma_trace *t, long run_id)
{
	const struct pma_run *run = pma_trace_run(t, run_id);
	char why[512];
	FILE *f;
	int rc;

	if (!run || !run->has_exact) {
		pm_cli_error("cannot export '%s': the run has no scheduler events (record them with "
			      "pmcollect --sched, as root)", path);
		return -1;
	}
	f = fopen(path, "w");
	if (!f) {
		pm_cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	rc = pma_export_perfetto(f, run, why, sizeof(why));
	if (fclose(f) != 0 && rc == 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		pm_cli_error("cannot write '%s': %s", path, why);
	return rc;
}

/* --plot: every plot the result has data for into dir (created when missing). Returns 0 or -1
 * after reporting the error. */
static int write_plots(const char *dir, enum pma_plot_format fmt, const struct pma_result *r)
{
	const char *ext = fmt == PMA_PLOT_PNG ? "png" : "svg";
	char path[4096], why[512];

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		pm_cli_error("cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	for (int k = 0; k < PMA_PLOT_COUNT; k++) {
		const char *na;
		if (!pma_plot_available(r, (enum pma_plot_kind)k, &na))
			continue;
		snprintf(path, sizeof(path), "%s/%s.%s", dir,
			 pma_plot_name((enum pma_plot_kind)k), ext);
		if (pma_plot_write(r, (enum pma_plot_kind)k, fmt, path, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return -1;
		}
	}
	return 0;
}

/* Writes one Extra-P file: text (jsonl 0) or JSON Lines. Returns 0 or -1 after reporting. */
static int write_extrap_file(const char *path, const struct pma_extrap_data *d, int jsonl,
			     const char *comment)
{
	struct pma_extrap_out eo = { 0 };
	char why[512];
	long n;

	eo.f = fopen(path, "w");
	if (!eo.f) {
		pm_cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = jsonl ? pma_extrap_write_jsonl(&eo, d, why, sizeof(why))
		  : pma_extrap_write_text(&eo, d, comment, why, sizeof(why));
	if (fclose(eo.f) != 0 && n >= 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		n = -1;
	}
	if (n < 0) {
		pm_cli_error("cannot write '%s': %s", path, why);
		return -1;
	}
	return 0;
}

/* --html: the report into path. Returns 0 or -1 after reporting the error. */
static int write_html(const char *path, const struct pma_result *r)
{
	char why[512] = "";
	FILE *f = fopen(path, "w");
	int rc;

	if (!f) {
		pm_cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	rc = pma_html_report(f, r, why, sizeof(why));
	if (rc == 0 && ferror(f))
		snprintf(why, sizeof(why), "%s", strerror(errno));
	if ((fclose(f) != 0 || why[0]) && rc == 0) {
		if (!why[0])
			snprintf(why, sizeof(why), "%s", strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		pm_cli_error("cannot write '%s': %s", path, why);
	return rc;
}

/* --export-extrap: the sweep's measurements in Extra-P's text format to path and its JSON Lines
 * format to path.jsonl (extrap.h). Returns 0 or -1 after reporting the error. */
static int export_extrap(const char *path, const struct pma_result *r)
{
	struct pma_extrap_series series[PMA_SM_COUNT];
	struct pma_extrap_data d;
	char comment[1200], *jpath;
	int rc;

	if (r->kind != PMA_RESULT_RUN || !r->scaling.present || r->scaling.npoints == 0) {
		pm_cli_error("cannot export '%s': the trace has no finished sweep runs (record them "
			      "with pmcollect --sweep)", path);
		return -1;
	}
	pma_scaling_extrap_data(&r->scaling, series, &d);
	snprintf(comment, sizeof(comment), "pmanalyze %s: sweep of %s over %s\ntrace %s",
		 PMT_TOOLS_VERSION, r->t->meta.ncommand && r->t->meta.command[0] ?
		 r->t->meta.command[0] : "?", r->scaling.parameter, r->t->path);
	jpath = malloc(strlen(path) + sizeof(".jsonl"));
	if (!jpath) {
		pm_cli_error("out of memory");
		return -1;
	}
	sprintf(jpath, "%s.jsonl", path);
	rc = write_extrap_file(path, &d, 0, comment);
	if (rc == 0)
		rc = write_extrap_file(jpath, &d, 1, NULL);
	free(jpath);
	return rc;
}

/* An error in the command line itself: one error line, the usage line, status 2. */
#define usage_error(...) pm_cli_usage_error(usage_line, __VA_ARGS__)

/* What pmanalyze does: one entry each in the dispatch table of main(). */
enum cli_mode {
	CLI_REPORT = 0,  /* the prediction report of a run (pma_compute) */
	CLI_INFO,        /* --info */
	CLI_DUMP,        /* --dump */
	CLI_LEARN,       /* --learn */
	CLI_TOEP,        /* --toep */
	CLI_PREDICT,     /* --predict with --model */
	CLI_JOB,         /* the rank traces of an MPI job, merged */
	CLI_NMODES
};

/* The command line, parsed. */
struct cli_opts {
	struct pma_compute_opts co;
	enum pma_format format;
	struct pm_intlist cores;
	int force, quiet;
	int progress;           /* --progress: reading progress whatever the size or terminal */
	enum cli_mode mode;
	enum pma_learn_target target; /* --target */
	const char *model_out, *model_in, *predict; /* --model-out, --model, --predict */
	unsigned flags;         /* PMT_READ_* */
	const char *outpath, *perfetto_path, *extrap_path;
	const char *plot_dir, *html_path; /* --plot, --html */
	enum pma_plot_format plot_format;
	char **traces;          /* the operands, directories replaced by their traces */
	int ntraces;
	int had_dir;            /* an operand was a directory */
	long jobs;              /* -j: rank traces analyzed at once */
	const char *cal_path;   /* --calibration: omega of the rank traces from this trace */
	const char *machine_path; /* --machine: loaded into the inputs before the computation */
	struct pma_forest *model; /* --model, loaded by load_inputs for --predict (owned) */
	char **owned;           /* traces[] when expand_operands built it */
};

/* Where the output goes: standard output, or -o's file, created only once there is something to
 * write into it. */
struct output {
	const char *path;       /* NULL: standard output */
	FILE *f;
};

static FILE *output_open(struct output *o)
{
	if (o->f)
		return o->f;
	if (!o->path)
		return o->f = stdout;
	o->f = fopen(o->path, "w");
	if (!o->f)
		pm_cli_error("cannot open '%s': %s", o->path, strerror(errno));
	return o->f;
}

/* Closes the output; returns rc, or PMT_EXIT_FAILURE when a write failed and rc was 0. */
static int output_close(struct output *o, int rc)
{
	if (o->f && o->f != stdout && fclose(o->f) != 0 && rc == 0) {
		pm_cli_error("cannot write '%s': %s", o->path, strerror(errno));
		rc = PMT_EXIT_FAILURE;
	}
	if (o->f == stdout && fflush(stdout) != 0 && rc == 0) {
		pm_cli_error("cannot write to standard output: %s", strerror(errno));
		rc = PMT_EXIT_FAILURE;
	}
	return rc;
}

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

/* --dump: every record of the trace. Returns the exit status. */
static int run_dump(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	(void)traces;
	struct pmt_reader *rd;
	char why[512];
	FILE *f;

	if (pma_dump_open(&rd, o->traces[0], o->flags, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (!(f = output_open(out))) {
		pmt_reader_close(rd);
		return PMT_EXIT_FAILURE;
	}
	if (pma_dump(f, rd, o->traces[0], why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	return PMT_EXIT_OK;
}

/* Traces larger than this show their reading progress on a terminal. */
#define PROGRESS_MIN_BYTES 100000000ull

/* State of one trace's progress lines. */
struct load_progress {
	const char *path;
	int forced;          /* --progress */
	int on;              /* lines wanted: forced, or (on a terminal) a file over the size */
	uint64_t start_ns, last_ns, bytes_read, bytes_total;
};

/* pma_load_progress_fn, passed with --progress or on a terminal: at most one line a second,
 * "pmanalyze: reading 'x': 45% (120.0 of 260.0 MB)", with --progress or for a file over
 * PROGRESS_MIN_BYTES (the size the loader gives). */
static void load_progress_line(void *arg, uint64_t bytes_read, uint64_t bytes_total)
{
	struct load_progress *p = arg;
	uint64_t now = pm_mono_ns();

	p->bytes_read = bytes_read;
	p->bytes_total = bytes_total;
	p->on = p->forced || bytes_total > PROGRESS_MIN_BYTES;
	if (!p->on || now - p->last_ns < 1000000000ull)
		return;
	p->last_ns = now;
	if (bytes_total)
		fprintf(stderr, "pmanalyze: reading '%s': %.0f%% (%.1f of %.1f MB)\n", p->path,
			100.0 * (double)bytes_read / (double)bytes_total, (double)bytes_read / 1e6,
			(double)bytes_total / 1e6);
	else
		fprintf(stderr, "pmanalyze: reading '%s': %.1f MB\n", p->path, (double)bytes_read / 1e6);
}

/* Loads every trace into traces[] and prints their warnings (unless quiet), with progress lines
 * for large traces on a terminal or with --progress (never with -q). Returns 0, or -1 after
 * reporting the error. */
static int load_traces(const struct cli_opts *o, struct pma_trace *traces)
{
	char why[512];

	for (int i = 0; i < o->ntraces; i++) {
		struct load_progress p = { .path = o->traces[i], .forced = o->progress };
		int want = !o->quiet && (o->progress || isatty(STDERR_FILENO));

		p.start_ns = p.last_ns = pm_mono_ns();
		if (pma_trace_load_progress(&traces[i], o->traces[i], o->flags,
					    want ? load_progress_line : NULL, &p, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return -1;
		}
		if (p.on)
			fprintf(stderr, "pmanalyze: read '%s': %.1f MB, %llu records in %.1f s\n", p.path,
				(double)p.bytes_read / 1e6, (unsigned long long)traces[i].records,
				(double)(pm_mono_ns() - p.start_ns) / 1e9);
	}
	if (!o->quiet)
		for (int i = 0; i < o->ntraces; i++)
			for (size_t w = 0; w < traces[i].warnings.n; w++)
			{
				char *text = pma_note_alloc(&traces[i].warnings.v[w]);
				pm_cli_warning("%s", text ? text : "out of memory");
				free(text);
			}
	return 0;
}

static int is_trace_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 4 && strcmp(d->d_name + n - 4, ".zst") == 0;
}

/* Replaces each directory operand by its *.zst files (sorted by name, hidden files left out), as
 * pmcollect -o 'pm-%j/trace.%r.zst' leaves a job's traces. Returns -1 to go on, or the exit
 * status after reporting (2: a directory without traces). */
static int expand_operands(struct cli_opts *o)
{
	char **list = NULL;
	size_t n = 0;
	int rc = -1;

	for (int i = 0; i < o->ntraces && rc < 0; i++) {
		struct stat st;
		struct dirent **ents = NULL;
		int k;
		if (stat(o->traces[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			char **grown = realloc(list, (n + 1) * sizeof(*list));
			if (!grown || !(grown[n] = strdup(o->traces[i]))) {
				list = grown ? grown : list;
				pm_cli_error("out of memory");
				rc = PMT_EXIT_FAILURE;
				break;
			}
			list = grown;
			n++;
			continue;
		}
		o->had_dir = 1;
		k = scandir(o->traces[i], &ents, is_trace_name, alphasort);
		if (k < 0) {
			pm_cli_error("cannot read directory '%s': %s", o->traces[i], strerror(errno));
			rc = PMT_EXIT_FAILURE;
		} else if (k == 0) {
			pm_cli_error("no trace in directory '%s' (looked for *.zst files)", o->traces[i]);
			rc = PMT_EXIT_USAGE;
		}
		for (int e = 0; e < k; e++) {
			size_t len = strlen(o->traces[i]) + strlen(ents[e]->d_name) + 2;
			char **grown = rc < 0 ? realloc(list, (n + 1) * sizeof(*list)) : NULL;
			char *path = grown ? malloc(len) : NULL;
			if (grown)
				list = grown;
			if (path) {
				snprintf(path, len, "%s/%s", o->traces[i], ents[e]->d_name);
				list[n++] = path;
			} else if (rc < 0) {
				pm_cli_error("out of memory");
				rc = PMT_EXIT_FAILURE;
			}
			free(ents[e]);
		}
		free(ents);
	}
	o->owned = list;
	o->traces = list;
	o->ntraces = (int)n;
	return rc;
}

/* The rank traces' rows, computed by --jobs workers: each loads one trace, analyzes it alone and
 * frees it before taking the next, so memory is bounded by a trace per worker. */
struct rank_work {
	const struct cli_opts *o;
	const struct pma_trace *cal; /* --calibration, NULL none */
	struct pma_rank_row *rows;
	int *rc;                /* per trace: 0, or -1 load failure, -2 not a rank */
	char (*why)[512];
	int next;
	pthread_mutex_t lock;
};

static void *rank_worker(void *arg)
{
	struct rank_work *w = arg;

	for (;;) {
		struct pma_trace t;
		int i;
		pthread_mutex_lock(&w->lock);
		i = w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= w->o->ntraces)
			return NULL;
		if (pma_trace_load(&t, w->o->traces[i], w->o->flags, w->why[i], sizeof(w->why[i])) < 0)
			w->rc[i] = -1;
		else if (pma_rank_row_from(&t, &w->o->co, w->cal, &w->rows[i], w->why[i],
						sizeof(w->why[i])) < 0)
			w->rc[i] = -2;
		pma_trace_free(&t);
	}
}

/* Rank mode: the operands are the traces of one job's ranks (the first trace's META has a rank,
 * and there are several traces or a directory). Returns 1 when so, 0 when not, or -1 after
 * reporting an unreadable first trace. */
static int is_rank_job(const struct cli_opts *o)
{
	struct pma_meta m;
	char why[512];
	int yes;

	if (o->mode != CLI_REPORT || (o->ntraces < 2 && !o->had_dir))
		return 0;
	if (pma_trace_peek_meta(o->traces[0], o->flags, &m, why, sizeof(why)) < 0) {
		pma_meta_free(&m);
		pm_cli_error("%s", why);
		return -1;
	}
	yes = m.job.present && m.job.rank >= 0;
	pma_meta_free(&m);
	return yes;
}

/* The merged report of a job's rank traces. Returns the exit status. */
static int run_ranks(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	(void)traces;
	struct rank_work w = { .o = o, .lock = PTHREAD_MUTEX_INITIALIZER };
	struct pma_trace *cal = NULL; /* on the heap: a struct pma_trace is 1.3 MB */
	size_t n = (size_t)o->ntraces;
	long nthreads = o->jobs < o->ntraces ? o->jobs : o->ntraces;
	pthread_t *tids = calloc((size_t)nthreads, sizeof(*tids));
	struct pma_result r;
	char why[512];
	int rc = PMT_EXIT_OK, err;
	long started = 0;
	FILE *f;

	memset(&r, 0, sizeof(r));
	if (o->cal_path) {
		/* loaded once and shared read-only by the workers */
		if (!(cal = calloc(1, sizeof(*cal)))) {
			pm_cli_error("out of memory");
			rc = PMT_EXIT_FAILURE;
			goto out;
		}
		if (pma_trace_load(cal, o->cal_path, o->flags, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			rc = PMT_EXIT_FAILURE;
			goto out;
		}
		if (pma_ranks_calibration_check(cal, &o->co, why, sizeof(why)) < 0) {
			pm_cli_error("--calibration: %s", why);
			rc = PMT_EXIT_USAGE;
			goto out;
		}
		w.cal = cal;
	}
	w.rows = calloc(n, sizeof(*w.rows));
	w.rc = calloc(n, sizeof(*w.rc));
	w.why = calloc(n, sizeof(*w.why));
	if (!tids || !w.rows || !w.rc || !w.why) {
		pm_cli_error("out of memory");
		rc = PMT_EXIT_FAILURE;
		goto out;
	}
	for (long i = 1; i < nthreads; i++)
		if (pthread_create(&tids[i], NULL, rank_worker, &w) == 0)
			started = i;
		else
			break;
	rank_worker(&w);
	for (long i = 1; i <= started; i++)
		pthread_join(tids[i], NULL);
	for (size_t i = 0; i < n && rc == PMT_EXIT_OK; i++)
		if (w.rc[i] < 0) {
			pm_cli_error("%s", w.why[i]);
			rc = w.rc[i] == -2 ? PMT_EXIT_USAGE : PMT_EXIT_FAILURE;
		}
	if (rc != PMT_EXIT_OK) {
		for (size_t i = 0; i < n; i++)
			pma_rank_row_free(&w.rows[i]);
		free(w.rows);
		goto out;
	}
	err = pma_ranks_job_result(w.rows, n, o->force, o->cal_path, &r, why, sizeof(why));
	if (err < 0) {
		pm_cli_error("%s", why);
		rc = err == PMA_RANKS_E_MIXED ? PMT_EXIT_USAGE : PMT_EXIT_FAILURE;
		goto out;
	}
	if (!(f = output_open(out)))
		rc = PMT_EXIT_FAILURE;
	else
		pma_render_result(f, &r, o->format);
out:
	pma_result_free(&r);
	pma_trace_free(cal);
	free(cal);
	free(w.rc);
	free(w.why);
	free(tids);
	return rc;
}

/* The prediction report (and --export-perfetto). Returns the exit status. */
static int run_report(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_result r;
	char why[512];
	FILE *f;
	int rc = PMT_EXIT_FAILURE;

	if (!o->force && pma_traces_same_program(traces, o->ntraces, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	if ((rc = pma_compute(traces, o->ntraces, &o->co, &r, why, sizeof(why))) < 0) {
		pm_cli_error("%s", why);
		rc = rc == PMA_COMPUTE_NOTHING ? PMA_EXIT_NOTHING : PMT_EXIT_FAILURE;
		goto out;
	}
	rc = PMT_EXIT_FAILURE;
	if (!(f = output_open(out)))
		goto out;
	pma_render_result(f, &r, o->format);
	if (o->perfetto_path && export_perfetto(o->perfetto_path, &traces[0], o->co.run_id) < 0)
		goto out;
	if (o->plot_dir && write_plots(o->plot_dir, o->plot_format, &r) < 0)
		goto out;
	if (o->html_path && write_html(o->html_path, &r) < 0)
		goto out;
	if (o->extrap_path && export_extrap(o->extrap_path, &r) < 0)
		goto out;
	rc = PMT_EXIT_OK;
out:
	pma_result_free(&r);
	return rc;
}

/* Writes n bytes to path; returns 0 or -1 after reporting. */
static int write_file(const char *path, const unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
		pm_cli_error("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* --predict's list into c; returns 0, or -1 after reporting a malformed list. */
static int predict_configs(const char *list, struct pma_predict_configs *c)
{
	char why[512];

	if (pma_predict_configs_parse(list, c, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return -1;
	}
	return 0;
}

/* Renders the computed result r to the output and frees r. Returns the exit status. */
static int render_result(const struct cli_opts *o, struct pma_result *r, struct output *out)
{
	FILE *f = output_open(out);
	int rc = PMT_EXIT_FAILURE;

	if (f) {
		pma_render_result(f, r, o->format);
		rc = PMT_EXIT_OK;
	}
	pma_result_free(r);
	return rc;
}

/* --learn: the training set's result (pma_learn_compute), --model-out, the report. Returns the
 * exit status. */
static int run_learn(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_predict_configs cfg;
	struct pma_result r;
	char why[512];

	if (o->predict && predict_configs(o->predict, &cfg) < 0)
		return PMT_EXIT_USAGE; /* before the training, not after it */
	if (pma_learn_compute(traces, o->ntraces, o->target, o->predict ? &cfg : NULL,
			      o->model_out != NULL, &r, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (o->model_out && write_file(o->model_out, r.learn.model, r.learn.model_bytes) < 0) {
		pma_result_free(&r);
		return PMT_EXIT_FAILURE;
	}
	r.learn.model_out = o->model_out;
	return render_result(o, &r, out);
}

/* --toep: TOEP's own procedure over the training table (pma_toep_compute). Returns the exit
 * status. */
static int run_toep(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_result r;
	char why[512];

	if (pma_toep_compute(traces, o->ntraces, o->target, &r, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	return render_result(o, &r, out);
}

/* --model FILE: the forest of --learn --model-out, read whole and checked against the features
 * of this pmanalyze. Returns 0 with *f set, or -1 after reporting the error. */
static int load_model(const char *path, struct pma_forest **f)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	char why[512];
	FILE *in;
	int rc = -1;

	*f = NULL;
	if (!(in = fopen(path, "rb"))) {
		pm_cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap = cap ? 2 * cap : 65536);
			if (!nb) {
				fclose(in);
				pm_cli_error("out of memory");
				goto done;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, in);
		len += got;
		if (got == 0)
			break;
	}
	fclose(in);
	if (pma_forest_load(f, buf, len, why, sizeof(why)) < 0) {
		pm_cli_error("'%s': %s", path, why);
		goto done;
	}
	if (pma_forest_cols(*f) != PMA_LEARN_NFEAT) {
		pm_cli_error("'%s': the model has %zu features, --predict needs %d (a model of an "
			      "older pmanalyze: train it again with --learn --model-out)", path,
			      pma_forest_cols(*f), PMA_LEARN_NFEAT);
		goto done;
	}
	rc = 0;
done:
	if (rc < 0) {
		pma_forest_free(*f);
		*f = NULL;
	}
	free(buf);
	return rc;
}

/* --predict T:N[,T:N...] --model FILE [traces]: the predictions of the forest load_inputs read
 * (o->model); the traces, when given, give the configurations' other columns. */
static int run_predict(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_predict_configs cfg;
	struct pma_result r;
	char why[512];

	if (predict_configs(o->predict, &cfg) < 0)
		return PMT_EXIT_USAGE;
	if (pma_predict_compute(o->model, traces, o->ntraces, &cfg, &r, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	return render_result(o, &r, out);
}

/* --info: what the trace holds. Returns the exit status. */
static int run_info(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	if (!output_open(out))
		return PMT_EXIT_FAILURE;
	pma_render_info(out->f, &traces[0], o->format);
	return PMT_EXIT_OK;
}

/* The modes, as git's builtins: what each loads before it runs, and the function that runs it. */
static const struct cli_cmd {
	enum cli_mode mode;
	int load;       /* the traces are loaded (and their warnings printed) before run */
	int (*run)(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
} commands[CLI_NMODES] = {
	{ CLI_REPORT, 1, run_report },
	{ CLI_INFO, 1, run_info },
	{ CLI_DUMP, 0, run_dump },     /* streams the records itself */
	{ CLI_LEARN, 1, run_learn },
	{ CLI_TOEP, 1, run_toep },
	{ CLI_PREDICT, 1, run_predict },
	{ CLI_JOB, 0, run_ranks },     /* loads the ranks in worker threads */
};

/* Everything the computation reads from disk is loaded here, before it starts: the
 * traces (when cmd loads them), --machine (for the modes that compute a result; pma_compute
 * borrows it through o->co.machine) and --predict's --model (o->model). Returns 0, or -1 after
 * reporting the error. */
static int load_inputs(struct cli_opts *o, const struct cli_cmd *cmd, struct pma_trace **traces,
		       struct pma_machine *machine)
{
	char why[512];

	if (o->machine_path && (cmd->mode == CLI_REPORT || cmd->mode == CLI_JOB)) {
		if (pma_machine_load(o->machine_path, machine, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return -1;
		}
		o->co.machine = machine;
	}
	if (!cmd->load)
		return 0;
	if (!(*traces = calloc(o->ntraces ? (size_t)o->ntraces : 1, sizeof(**traces)))) {
		pm_cli_error("out of memory");
		return -1;
	}
	if (load_traces(o, *traces) < 0)
		return -1;
	return cmd->mode == CLI_PREDICT ? load_model(o->model_in, &o->model) : 0;
}

/* The command line's combinations that need the operands read: a job's rank traces, and what
 * goes with them. Returns -1 to go on, else the exit status. */
static int pick_mode(struct cli_opts *o)
{
	int rc = is_rank_job(o);

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
	if ((rc = expand_operands(&o)) >= 0 || (rc = pick_mode(&o)) >= 0)
		goto done;
	rc = PMT_EXIT_FAILURE;
	if (load_inputs(&o, &commands[o.mode], &traces, &machine) == 0)
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
	return output_close(&out, rc);
}
