/* SPDX-License-Identifier: MIT */
/* main.c: pmanalyze, the offline analyzer: average parallelism, critical path and speedup. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "compute.h"
#include "dump.h"
#include "memory.h"
#include "pmt.h"
#include "pmt_cli.h"
#include "perfetto.h"
#include "report.h"


static const char usage_line[] =
	"usage: pmanalyze [--cores <list>] [--format table|json|csv] [--estimator <name>]\n"
	"                 [--run <id>] [--placement compact|scatter|<k>]\n"
	"                 [--mem local|interleave|local-then-remote] [--machine <file>] [--force]\n"
	"                 [--export-perfetto <file>] [--export-extrap <file>] [-o <file>] [-q]\n"
	"                 <trace>...\n"
	"   or: pmanalyze --info <trace>\n"
	"   or: pmanalyze --dump <trace>\n";

static void usage_full(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Predicts the speedup of the program recorded in <trace> by pmcollect on any number of\n"
	      "cores (Tudor & Teo's model: S(m,n) = A(m,n) / (1 + omega(n))).\n"
	      "\n"
	      "  -c, --cores <list>        core counts to predict for: 1-40, 1,2,4,8, 1-64:4\n"
	      "                            [default: 1 up to max(m, CPUs of the recording machine),\n"
	      "                            at most 1024]\n"
	      "  -f, --format <fmt>        table, json or csv [default: table]\n"
	      "  -e, --estimator <name>    estimator of A(m,inf): sched-exact, runnable or paper\n"
	      "                            [default: sched-exact when the run has scheduler events\n"
	      "                            and lost under 1% of them, else runnable]\n"
	      "  -r, --run <id>            run of the trace to analyze [default: the baseline run]\n"
	      "      --placement <p>       threads per socket for omega(n): compact (fill a socket\n"
	      "                            first), scatter (round robin) or <k> (round robin in\n"
	      "                            chunks of k) [default: compact]\n"
	      "      --mem <policy>        local, interleave or local-then-remote\n"
	      "                            [default: from the recorded memory policy]\n"
	      "      --machine <file>      predict for this machine: hwloc XML (lstopo --of xml) or\n"
	      "                            another trace [default: the recording machine]\n"
	      "      --force               combine traces of different programs\n"
	      "  -o, --output <file>       write the report to <file> instead of standard output\n"
	      "      --export-perfetto <file>  write the run's exact timelines (scheduler events) as\n"
	      "                            Chrome trace-event JSON for ui.perfetto.dev\n"
	      "      --export-extrap <file>  write a --sweep trace's measurements in Extra-P's text\n"
	      "                            format to <file> and as JSON Lines to <file>.jsonl\n"
	      "  -s, --salvage             skip damaged chunks instead of stopping at the first\n"
	      "  -i, --info                print what the trace holds (metadata, threads, samples)\n"
	      "  -d, --dump                print every record as one JSON object per line\n"
	      "  -q, --quiet               do not print warnings on standard error\n"
	      "  -h, --help                print this help and exit\n"
	      "  -V, --version             print the version and exit\n"
	      "\n"
	      "Calibration runs (pmcollect --calibrate) in the traces give omega(n); see\n"
	      "docs/memory-model.md. A trace of pmcollect --sweep adds the scaling study: measured\n"
	      "vs predicted speedup per configuration and empirical scaling models (docs/scaling.md).\n"
	      "\n"
	      "Exit status: 0 success, 1 bad or unreadable trace, 2 usage error (also: traces of\n"
	      "different programs without --force).\n",
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
		pmt_cli_error("cannot export '%s': the run has no scheduler events (record them with "
			      "pmcollect --sched, as root)", path);
		return -1;
	}
	f = fopen(path, "w");
	if (!f) {
		pmt_cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	rc = pma_export_perfetto(f, run, why, sizeof(why));
	if (fclose(f) != 0 && rc == 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		pmt_cli_error("cannot write '%s': %s", path, why);
	return rc;
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
		pmt_cli_error("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = jsonl ? pma_extrap_write_jsonl(&eo, d, why, sizeof(why))
		  : pma_extrap_write_text(&eo, d, comment, why, sizeof(why));
	if (fclose(eo.f) != 0 && n >= 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		n = -1;
	}
	if (n < 0) {
		pmt_cli_error("cannot write '%s': %s", path, why);
		return -1;
	}
	return 0;
}

/* --export-extrap: the sweep's measurements in Extra-P's text format to path and its JSON Lines
 * format to path.jsonl (extrap.h). Returns 0 or -1 after reporting the error. */
static int export_extrap(const char *path, const struct pma_result *r)
{
	struct pma_extrap_series series[PMA_SM_COUNT];
	struct pma_extrap_data d;
	char comment[1200], *jpath;
	int rc;

	if (!r->scaling.present || r->scaling.npoints == 0) {
		pmt_cli_error("cannot export '%s': the trace has no finished sweep runs (record them "
			      "with pmcollect --sweep)", path);
		return -1;
	}
	pma_scaling_extrap_data(&r->scaling, series, &d);
	snprintf(comment, sizeof(comment), "pmanalyze %s: sweep of %s over %s\ntrace %s",
		 PMT_TOOLS_VERSION, r->t->meta.ncommand && r->t->meta.command[0] ?
		 r->t->meta.command[0] : "?", r->scaling.parameter, r->t->path);
	jpath = malloc(strlen(path) + sizeof(".jsonl"));
	if (!jpath) {
		pmt_cli_error("out of memory");
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
#define usage_error(...) pmt_cli_usage_error(usage_line, __VA_ARGS__)

/* The command line, parsed. */
struct cli_opts {
	struct pma_compute_opts co;
	enum pma_format format;
	struct pmt_intlist cores;
	int force, quiet;
	int mode;               /* 0 report, 'i' --info, 'd' --dump */
	unsigned flags;         /* PMT_READ_* */
	const char *outpath, *perfetto_path, *extrap_path;
	char **traces;          /* the operands */
	int ntraces;
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
		pmt_cli_error("cannot open '%s': %s", o->path, strerror(errno));
	return o->f;
}

/* Closes the output; returns rc, or PMT_EXIT_FAILURE when a write failed and rc was 0. */
static int output_close(struct output *o, int rc)
{
	if (o->f && o->f != stdout && fclose(o->f) != 0 && rc == 0) {
		pmt_cli_error("cannot write '%s': %s", o->path, strerror(errno));
		rc = PMT_EXIT_FAILURE;
	}
	if (o->f == stdout && fflush(stdout) != 0 && rc == 0) {
		pmt_cli_error("cannot write to standard output: %s", strerror(errno));
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
	else if (pmt_cli_parse_long(arg, 1, 1000000, &k) < 0)
		return -1;
	*chunk = (uint32_t)k;
	return 0;
}

/* Parses argv into o. Returns -1 when parsing is complete, else the exit status to return now
 * (--help, --version, a usage error already reported). */
static int parse_options(int argc, char **argv, struct cli_opts *o)
{
	enum { OPT_PLACEMENT = 256, OPT_MEM, OPT_MACHINE, OPT_FORCE, OPT_PERFETTO, OPT_EXTRAP };
	static const struct option longopts[] = {
		{ "cores", required_argument, NULL, 'c' },
		{ "placement", required_argument, NULL, OPT_PLACEMENT },
		{ "mem", required_argument, NULL, OPT_MEM },
		{ "machine", required_argument, NULL, OPT_MACHINE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "format", required_argument, NULL, 'f' },
		{ "estimator", required_argument, NULL, 'e' },
		{ "run", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "salvage", no_argument, NULL, 's' },
		{ "info", no_argument, NULL, 'i' },
		{ "dump", no_argument, NULL, 'd' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "export-perfetto", required_argument, NULL, OPT_PERFETTO },
		{ "export-extrap", required_argument, NULL, OPT_EXTRAP },
		{ NULL, 0, NULL, 0 },
	};
	char why[512];
	int c;

	opterr = 0;
	/* no leading '+': options may follow the traces (GNU permutation); ':' reports a missing
	 * value apart from an unknown option */
	while ((c = getopt_long(argc, argv, ":c:f:e:r:o:sidqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			pmt_intlist_free(&o->cores);
			if (pmt_intlist_parse(optarg, 1, 1000000, &o->cores, why, sizeof(why)) < 0)
				return usage_error("invalid --cores '%s': %s", optarg, why);
			break;
		case 'f':
			if (parse_format(optarg, &o->format) < 0)
				return usage_error("invalid --format '%s': use table, json or csv", optarg);
			break;
		case 'e':
			o->co.estimator = pma_estimator_parse(optarg);
			if (o->co.estimator < 0)
				return usage_error("invalid --estimator '%s': use sched-exact, runnable or paper", optarg);
			break;
		case 'r':
			if (pmt_cli_parse_long(optarg, 0, 0xffffffffL, &o->co.run_id) < 0)
				return usage_error("invalid --run '%s': not a run id", optarg);
			break;
		case 'o':
			o->outpath = optarg;
			break;
		case OPT_PERFETTO:
			o->perfetto_path = optarg;
			break;
		case OPT_EXTRAP:
			o->extrap_path = optarg;
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
			o->co.machine = optarg;
			break;
		case OPT_FORCE:
			o->force = 1;
			break;
		case 's':
			o->flags |= PMT_READ_SALVAGE;
			break;
		case 'i':
		case 'd':
			o->mode = c;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage_full();
			return PMT_EXIT_OK;
		case 'V':
			printf("pmanalyze %s (pmtrace format %d.%d)\n", PMT_TOOLS_VERSION,
			       PMT_FORMAT_MAJOR, PMT_FORMAT_MINOR);
			return PMT_EXIT_OK;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("no trace given");
	if (o->mode && argc - optind != 1)
		return usage_error("--info and --dump take one trace");
	o->traces = argv + optind;
	o->ntraces = argc - optind;
	o->co.cores = o->cores.n ? o->cores.v : NULL;
	o->co.ncores = o->cores.n;
	return -1;
}

/* --dump: every record of the trace. Returns the exit status. */
static int run_dump(const struct cli_opts *o, struct output *out)
{
	struct pmt_reader *rd;
	char why[512];
	FILE *f;

	if (pma_dump_open(&rd, o->traces[0], o->flags, why, sizeof(why)) < 0) {
		pmt_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (!(f = output_open(out))) {
		pmt_reader_close(rd);
		return PMT_EXIT_FAILURE;
	}
	if (pma_dump(f, rd, o->traces[0], why, sizeof(why)) < 0) {
		pmt_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	return PMT_EXIT_OK;
}

/* Loads every trace into traces[] and prints their warnings (unless quiet). Returns 0, or -1
 * after reporting the error. */
static int load_traces(const struct cli_opts *o, struct pma_trace *traces)
{
	char why[512], text[1024];

	for (int i = 0; i < o->ntraces; i++) {
		if (pma_trace_load(&traces[i], o->traces[i], o->flags, why, sizeof(why)) < 0) {
			pmt_cli_error("%s", why);
			return -1;
		}
	}
	if (!o->quiet)
		for (int i = 0; i < o->ntraces; i++)
			for (size_t w = 0; w < traces[i].warnings.n; w++)
				pmt_cli_warning("%s", pma_note_text(&traces[i].warnings.v[w], text,
								    sizeof(text)));
	return 0;
}

/* The prediction report (and --export-perfetto). Returns the exit status. */
static int run_report(const struct cli_opts *o, const struct pma_trace *traces, struct output *out)
{
	struct pma_result r;
	char why[512];
	FILE *f;
	int rc = PMT_EXIT_FAILURE;

	if (!o->force && pma_traces_same_program(traces, o->ntraces, why, sizeof(why)) < 0) {
		pmt_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	if (pma_compute(traces, o->ntraces, &o->co, &r, why, sizeof(why)) < 0) {
		pmt_cli_error("%s", why);
		goto out;
	}
	if (!(f = output_open(out)))
		goto out;
	pma_render(f, &r, o->format);
	if (o->perfetto_path && export_perfetto(o->perfetto_path, &traces[0], o->co.run_id) < 0)
		goto out;
	if (o->extrap_path && export_extrap(o->extrap_path, &r) < 0)
		goto out;
	rc = PMT_EXIT_OK;
out:
	pma_result_free(&r);
	return rc;
}

int main(int argc, char **argv)
{
	struct cli_opts o = { .co = { .estimator = -1, .run_id = -1, .mem_policy = -1 },
			      .format = PMA_FMT_TABLE };
	struct output out = { 0 };
	struct pma_trace *traces = NULL;
	int rc;

	pmt_cli_set_prog("pmanalyze");
	rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		goto done;
	out.path = o.outpath;
	rc = PMT_EXIT_FAILURE;
	if (o.mode == 'd') {
		rc = run_dump(&o, &out);
		goto done;
	}
	traces = calloc((size_t)o.ntraces, sizeof(*traces));
	if (!traces) {
		pmt_cli_error("out of memory");
		goto done;
	}
	if (load_traces(&o, traces) < 0)
		goto done;
	if (o.mode == 'i') {
		if (output_open(&out)) {
			pma_info(out.f, &traces[0]);
			rc = PMT_EXIT_OK;
		}
		goto done;
	}
	rc = run_report(&o, traces, &out);
done:
	if (traces)
		for (int i = 0; i < o.ntraces; i++)
			pma_trace_free(&traces[i]);
	free(traces);
	pmt_intlist_free(&o.cores);
	return output_close(&out, rc);
}
