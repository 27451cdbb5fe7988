/* SPDX-License-Identifier: MIT */
/* main.c: pmanalyze, the offline analyzer: average parallelism, critical path and speedup. */
#include <errno.h>
#include <math.h>
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

/* The short usage printed after a malformed command line (an unknown option, a missing value or
 * operand, options that do not go together); --help prints the synopsis. */
static const char usage_line[] = "usage: pmanalyze [options] <trace>...";

/* An error in the command line itself: one error line, the usage line, status 2. */
#define usage_error(...) pm_cli_usage_error(usage_line, __VA_ARGS__)

#define OPTS struct cli_opts

static int cb_placement(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
static int cb_tcm_event(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);
static int cb_quota(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);

/* pmanalyze's options, each with the field of struct cli_opts it sets: the parsing, --help's
 * option lines, the synopsis and the man-page test (t2000, from the hidden --list-options) come
 * from here (common/pm_opt.h). One meaning per letter across pmanalyze and pmcollect: -f is
 * --force in both; --format is -F, --estimator -E, --info -I. PM_OPT_FORM: named by a form of
 * synopsis_forms, not on the synopsis's first line. */
static const struct pm_opt options[] = {
	{ "cores", 'c', "<list>",
	  "core counts to predict for: 1-40, 1,2,4,8, 1-64:4\n"
	  "[default: 1 up to max(m, CPUs of the recording machine),\nat most 1024]",
	  PM_OPT_LIST(OPTS, cores, 1, 1000000) },
	{ "format", 'F', "<fmt>", "table, json or csv [default: table]",
	  PM_OPT_CHOICE(OPTS, format, "table|json|csv") },
	{ "estimator", 'E', "<name>",
	  "estimator of A(m,inf): sched-exact, switch-exact,\nrunnable or paper [default: sched-exact when the run\n"
	  "has scheduler events and lost under 1% of them, else\nswitch-exact on the same terms for perf's context\n"
	  "switches (pmcollect --perf-switch), else runnable]",
	  PM_OPT_CHOICE(OPTS, co.estimator, "sched-exact|switch-exact|runnable|paper"),
	  .parse = pma_estimator_parse },
	{ "run", 'r', "<id>", "run of the trace to analyze [default: the baseline run]",
	  PM_OPT_INT(OPTS, co.run_id, 0, 0xffffffffL, "a run id") },
	{ "placement", 0, "<p>",
	  "threads per socket for omega(n): compact (fill a socket\nfirst), scatter (round robin) or <k> (round robin in\n"
	  "chunks of k) [default: compact]",
	  PM_OPT_CALLBACK(cb_placement), PM_OPT_AT_INT(OPTS, co.chunk), .choices = "compact|scatter|<k>" },
	{ "mem", 0, "<policy>",
	  "local, interleave or local-then-remote\n[default: from the recorded memory policy]",
	  PM_OPT_CHOICE(OPTS, co.mem_policy, "local|interleave|local-then-remote"),
	  .parse = pma_mem_policy_parse },
	{ "machine", 0, "<file>",
	  "predict for this machine: hwloc XML (lstopo --of xml) or\nanother trace [default: the recording machine]",
	  PM_OPT_STR(OPTS, machine_path) },
	{ "force", 'f', NULL,
	  "combine traces of different programs (or of different\njobs, for rank traces)", PM_OPT_FLAG(OPTS, force, 1) },
	{ "threshold", 0, "<pct>",
	  "slowdown that counts as degradation in a trace of\npmcollect --interfere [default: 5]",
	  PM_OPT_DOUBLE(OPTS, co.threshold, 0, 1000, "a percentage"), .flags = PM_OPT_ABOVE,
	  .divide_by = 100 },
	{ "procs", 0, "<p>",
	  "the program's processes that share the resource, for\nthe needs per process of --interfere [default: 1]",
	  PM_OPT_INT(OPTS, co.procs, 1, 65536, NULL) },
	{ "phases", 0, NULL,
	  "the run's parallel phases (>= 2 active threads, cut at\nserial gaps over one sampling interval), each with its A,\n"
	  "T_cp and T(n); shown anyway for an --omp-regions trace\nwithout regions", PM_OPT_FLAG(OPTS, co.phases, 1) },
	{ "tcm-event", 0, "<name>",
	  "the per-thread region counter (pmcollect --omp-events)\ntaken as Allande's TCM [default: the LLC-miss event]",
	  PM_OPT_CALLBACK(cb_tcm_event), PM_OPT_AT(OPTS, co.tcm_event, const char *) },
	{ "quota", 0, "<q>[/<period>]",
	  "predict T(n, Q) under a CPU quota (cgroup cpu.max) on the\n--cores the container sees: Q in CPUs (1.5), as CPU time\n"
	  "per period (150ms/100ms) or a list (0.5-4:0.5); the\nperiod from 1ms to 1s [default period: 100ms]",
	  PM_OPT_CALLBACK(cb_quota), PM_OPT_AT(OPTS, quota, struct pma_quota_opts) },
	{ "quota-burst", 0, "<time>",
	  "cpu.max.burst of --quota: unused quota carried over, up\nto this much CPU time (20ms) [default: 0]",
	  PM_OPT_CALLBACK(cb_quota), PM_OPT_AT(OPTS, quota, struct pma_quota_opts) },
	{ "no-wake-cost", 0, NULL, "replay without the calibration's wake-up cost",
	  PM_OPT_FLAG(OPTS, co.no_wake_cost, 1) },
	{ "allande-all", 0, NULL,
	  "with runs of 1..NC threads: every configuration's SUM\nand MAX estimate per region (JSON and CSV)",
	  PM_OPT_FLAG(OPTS, co.allande_all, 1) },
	{ "jobs", 'j', "<n>", "analyze rank traces n at a time [default: the CPU count]",
	  PM_OPT_INT(OPTS, jobs, 1, 4096, NULL) },
	{ "calibration", 0, "<trace>",
	  "omega(n) of every rank from this trace's calibration\nruns (recorded outside the launcher, on one node)",
	  PM_OPT_STR(OPTS, cal_path), .flags = PM_OPT_FORM },
	{ "output", 'o', "<file>", "write the report to <file> instead of standard output",
	  PM_OPT_STR(OPTS, outpath) },
	{ "export-perfetto", 0, "<file>",
	  "write the run's exact timelines (scheduler events) as\nChrome trace-event JSON for ui.perfetto.dev",
	  PM_OPT_STR(OPTS, perfetto_path) },
	{ "plot", 0, "<dir>",
	  "write the plots (speedup, profile, histogram, timeline,\nomega, energy; interference for --interfere traces: those\n"
	  "the data allows) into <dir>, created if missing", PM_OPT_STR(OPTS, plot_dir) },
	{ "plot-format", 0, "<fmt>", "svg or png [default: svg]", PM_OPT_CHOICE(OPTS, plot_format, "svg|png") },
	{ "html", 0, "<file>",
	  "write a self-contained HTML report (headline, next steps,\nplots, predictions, data sources) to <file>",
	  PM_OPT_STR(OPTS, html_path) },
	{ "export-extrap", 0, "<file>",
	  "write a --sweep trace's measurements in Extra-P's text\nformat to <file> and as JSON Lines to <file>.jsonl",
	  PM_OPT_STR(OPTS, extrap_path) },
	{ "pmnf-classes", 0, "<unit>",
	  "fit a --sweep trace's scaling models also per class\nof x, separately: powers of two, odd and even multiples of\n"
	  "<unit> (Iwainsky et al. 4.2; 8: their 16k+8 and 16k)\n[default unit: 1]",
	  PM_OPT_INT(OPTS, co.pmnf_class_unit, 1, 65536, "a unit"), .flags = PM_OPT_OPTARG, .set = 1 },
	{ "pmnf-aggregate", 0, "<a>",
	  "summarize a --sweep configuration's repetitions before\nthe fits by trimmed, median, mean (Extra-P's) or min\n"
	  "[default: trimmed]",
	  PM_OPT_CHOICE(OPTS, co.pmnf_aggregate, "trimmed|median|mean|min"), .parse = pma_pmnf_aggregate_parse },
	{ "salvage", 's', NULL, "skip damaged chunks instead of stopping at the first",
	  PM_OPT_FLAG(OPTS, flags, PMT_READ_SALVAGE) },
	{ "info", 'I', NULL, "print what the trace holds (metadata, threads, samples)",
	  PM_OPT_FLAG(OPTS, mode, CLI_INFO), .flags = PM_OPT_FORM },
	{ "dump", 'd', NULL, "print every record as one JSON object per line",
	  PM_OPT_FLAG(OPTS, mode, CLI_DUMP), .flags = PM_OPT_FORM },
	{ "learn", 0, NULL,
	  "random forest over the traces' runs (TOEP): R2 and mean\n|error| of the model, the forest and the forest with the\n"
	  "model's predictions as features, on held-out configurations",
	  PM_OPT_FLAG(OPTS, mode, CLI_LEARN), .flags = PM_OPT_FORM },
	{ "toep", 0, NULL,
	  "TOEP's own procedure: rows sorted by the target, the 3\nmost important features, training shares 1/2000 to 1/3,\n"
	  "R2 of the forest and of linear regression, Selection =\nR2 / training time (TOEP eq. 1)",
	  PM_OPT_FLAG(OPTS, mode, CLI_TOEP), .flags = PM_OPT_FORM },
	{ "target", 0, "<t>", "what --learn and --toep predict: time or energy\n[default: time]",
	  PM_OPT_CHOICE(OPTS, target, "time|energy"), .flags = PM_OPT_FORM },
	{ "model-out", 0, "<file>", "write the --learn forest to <file>",
	  PM_OPT_STR(OPTS, model_out), .flags = PM_OPT_FORM },
	{ "predict", 0, "<list>",
	  "predict <threads>:<cores>,... with the forest of --model\nor of --learn",
	  PM_OPT_STR(OPTS, predict), .flags = PM_OPT_FORM },
	{ "model", 0, "<file>", "the forest --predict loads", PM_OPT_STR(OPTS, model_in), .flags = PM_OPT_FORM },
	{ "progress", 0, NULL,
	  "show how far the reading of each trace got, on\nstandard error [default: for traces over 100 MB when\n"
	  "standard error is a terminal]", PM_OPT_FLAG(OPTS, progress, 1) },
	{ "quiet", 'q', NULL, "do not print warnings or progress on standard error",
	  PM_OPT_FLAG(OPTS, quiet, 1) },
	{ "help", 'h', NULL, "print this help and exit",
	  PM_OPT_CALLBACK(pm_opt_cb_help), .flags = PM_OPT_NOARG | PM_OPT_FORM },
	{ "version", 'V', NULL, "print the version and exit",
	  PM_OPT_CALLBACK(pm_opt_cb_version), .flags = PM_OPT_NOARG | PM_OPT_FORM },
	/* hidden: the visible long options, one per line, for the man-page test (t2000) */
	{ "list-options", 0, NULL, NULL, PM_OPT_CALLBACK(pm_opt_cb_list_names), .flags = PM_OPT_NOARG },
	PM_OPT_END,
};

/* The synopsis's forms besides the first line (pm_opt_synopsis): the modes and the options
 * marked PM_OPT_FORM above. */
static const char *const synopsis_forms[] = {
	"[options] [--calibration <trace>] <directory>|<rank trace>...  (MPI job)",
	"--info|--dump <trace>",
	"--learn [--target time|energy] [--model-out <file>]\n"
	"                 [--predict <threads>:<cores>[,...]] <trace>...",
	"--toep [--target time|energy] <trace>...",
	"--predict <threads>:<cores>[,...] --model <file> [<trace>...]",
	"--help|--version",
	NULL,
};

/* The usage after a malformed command line, and --help around the table's synopsis and option
 * lines: what pmanalyze does, the calibration, sweeps and jobs, the exit statuses. */
static const struct pm_opt_usage usage = {
	.short_usage = usage_line,
	.prog = "pmanalyze",
	.operands = "<trace>...",
	.forms = synopsis_forms,
	.intro = "Predicts the speedup of the program recorded in <trace> by pmcollect on any number of\n"
		 "cores (Tudor & Teo's model: S(m,n) = A(m,n) / (1 + omega(n))).\n"
		 "\n",
	.outro = "\n"
		 "Calibration runs (pmcollect --calibrate) in the traces give omega(n); see\n"
		 "docs/memory-model.md. A trace of pmcollect --sweep adds the scaling study: measured\n"
		 "vs predicted speedup per configuration and empirical scaling models (docs/scaling.md).\n"
		 "\n"
		 "The traces of one MPI or Slurm job (pmcollect -o 'pm-%j/trace.%r.zst' under mpirun\n"
		 "or srun; a directory stands for its *.zst files) are merged: a row per rank, the\n"
		 "load imbalance across ranks, the slowest rank and the job's T(n); see docs/cluster.md.\n"
		 "\n"
		 "Other forms, accepted with a warning: -f table|json|csv for -F, -e <name> for -E,\n"
		 "-i for -I.\n"
		 "\n"
		 "Exit status: 0 success, 1 bad or unreadable trace, or a file that cannot be written\n"
		 "(-o, --html, --plot, --export-perfetto, --export-extrap, --model-out), 2 usage error\n"
		 "(also: traces of different programs without --force).\n",
	.help_width = 90,
};

/* --quota <q>[/<period>]: q a number of CPUs, a list of them (a-b:step, a,b), or CPU time per
 * period (150ms); the period a time from 1 ms to 1 s (sched-bwc.rst's limits). --quota-burst: a
 * time. */
static int cb_quota(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct pma_quota_opts *q = pm_opt_dest(opt, st);
	const char *slash = strchr(arg, '/'), *qend = slash ? slash : arg + strlen(arg);
	double period_ns = PMA_QUOTA_PERIOD_DEFAULT_NS, t_ns;
	char *e;

	if (strcmp(opt->long_name, "quota-burst") == 0) {
		if (pm_cli_parse_time_ns(arg, arg + strlen(arg), &q->burst_ns) < 0) {
			snprintf(st->why, sizeof(st->why), "want a time with its unit: 20ms, 500us");
			return PM_OPT_BAD;
		}
		return PM_OPT_TAKEN;
	}
	if (slash && (pm_cli_parse_time_ns(slash + 1, slash + strlen(slash), &period_ns) < 0 ||
		      period_ns < 1e6 || period_ns > 1e9)) {
		snprintf(st->why, sizeof(st->why), "want a period from 1ms to 1s (the kernel's limits)");
		return PM_OPT_BAD;
	}
	q->period_ns = period_ns;
	q->nQ = 0;
	if (pm_cli_parse_time_ns(arg, qend, &t_ns) == 0) { /* CPU time per period */
		q->Q_cpus[q->nQ++] = t_ns / period_ns;
	} else {
		for (const char *p = arg; p < qend;) {
			double a = strtod(p, &e), b = a, step = 1;
			if (e == p)
				goto bad;
			p = e;
			if (*p == '-') {
				b = strtod(p + 1, &e);
				if (e == p + 1)
					goto bad;
				p = e;
				if (*p == ':') {
					step = strtod(p + 1, &e);
					if (e == p + 1 || !(step > 0))
						goto bad;
					p = e;
				}
			}
			if (p < qend && *p++ != ',')
				goto bad;
			if (!(b >= a) || !isfinite(b))
				goto bad;
			for (double v = a; v <= b * (1 + 1e-12); v += step) {
				if (q->nQ == PMA_QUOTA_MAX) {
					snprintf(st->why, sizeof(st->why), "at most %d quotas", PMA_QUOTA_MAX);
					return PM_OPT_BAD;
				}
				q->Q_cpus[q->nQ++] = v;
			}
		}
	}
	for (size_t i = 0; i < q->nQ; i++)
		if (!(q->Q_cpus[i] > 0)) {
			snprintf(st->why, sizeof(st->why), "a quota must be above 0 CPUs");
			return PM_OPT_BAD;
		}
	if (q->nQ)
		return PM_OPT_TAKEN;
bad:
	snprintf(st->why, sizeof(st->why), "want CPUs (1.5), a list (0.5-4:0.5) or CPU time per period "
		 "(150ms), optionally /<period>");
	return PM_OPT_BAD;
}

/* --placement: compact (chunk 0), scatter (1) or a chunk size k >= 1. */
static int cb_placement(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	long k;

	if (strcmp(arg, "compact") == 0)
		k = 0;
	else if (strcmp(arg, "scatter") == 0)
		k = 1;
	else if (pm_cli_parse_long(arg, 1, 1000000, &k) < 0) {
		snprintf(st->why, sizeof(st->why), "want compact, scatter or a chunk size from 1 to 1000000");
		return PM_OPT_BAD;
	}
	*(uint32_t *)pm_opt_dest(opt, st) = (uint32_t)k;
	return PM_OPT_TAKEN;
}

/* --tcm-event: an event name of 1 to 127 bytes (PAPI_MAX_STR_LEN with its NUL). */
static int cb_tcm_event(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	if (!arg[0] || strlen(arg) >= 128) {
		snprintf(st->why, sizeof(st->why), "want an event name of 1 to 127 bytes");
		return PM_OPT_BAD;
	}
	*(const char **)pm_opt_dest(opt, st) = arg;
	return PM_OPT_TAKEN;
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
	int rc;

	deprecated_forms(argc, argv);
	/* no PM_OPT_STOP_AT_ARG: options may follow the traces (GNU permutation) */
	rc = pm_opt_parse(options, 0, &usage, argc, argv, o);
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
	if (o->quota.burst_ns > 0 && !o->quota.nQ)
		return usage_error("--quota-burst needs --quota");
	if (o->quota.nQ) {
		o->co.quota = &o->quota;
		o->co.quota_cores = o->cores.n ? o->cores.v[o->cores.n - 1] : 0;
	}
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
	rc = pma_cli_load_inputs(&o, &commands[o.mode], &traces, &machine);
	rc = rc == 0 ? commands[o.mode].run(&o, traces, &out) : rc == -2 ? PMT_EXIT_USAGE : PMT_EXIT_FAILURE;
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
