/* SPDX-License-Identifier: MIT */
/* main.c: pmanalyze, the offline analyzer: average parallelism, critical path and speedup. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "contention.h"
#include "memory.h"
#include "model.h"
#include "pmt.h"
#include "pmt_cli.h"
#include "perfetto.h"
#include "report.h"


static const char usage_line[] =
	"usage: pmanalyze [--cores <list>] [--format table|json|csv] [--estimator <name>]\n"
	"                 [--run <id>] [--placement compact|scatter|<k>]\n"
	"                 [--mem local|interleave|local-then-remote] [--machine <file>] [--force]\n"
	"                 [--export-perfetto <file>] [-o <file>] [-q] <trace>...\n"
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
	      "                            [default: 1 up to max(m, CPUs of the recording machine)]\n"
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
	      "  -s, --salvage             skip damaged chunks instead of stopping at the first\n"
	      "  -i, --info                print what the trace holds (metadata, threads, samples)\n"
	      "  -d, --dump                print every record as one JSON object per line\n"
	      "  -q, --quiet               do not print warnings on standard error\n"
	      "  -h, --help                print this help and exit\n"
	      "  -V, --version             print the version and exit\n"
	      "\n"
	      "Calibration runs (pmcollect --calibrate) in the traces give omega(n); see\n"
	      "docs/memory-model.md.\n"
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

/* An error in the command line itself: one error line, the usage line, status 2. */
#define usage_error(...) pmt_cli_usage_error(usage_line, __VA_ARGS__)

int main(int argc, char **argv)
{
	enum { OPT_PLACEMENT = 256, OPT_MEM, OPT_MACHINE, OPT_FORCE, OPT_PERFETTO };
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
		{ NULL, 0, NULL, 0 },
	};
	struct pma_report_opts ro = { .format = PMA_FMT_TABLE, .estimator = -1,
				      .run_id = -1, .mem_policy = -1 };
	int force = 0;
	const char *outpath = NULL, *perfetto_path = NULL;
	struct pmt_intlist cores = { 0 };
	int mode = 0, quiet = 0, c, rc = PMT_EXIT_FAILURE;
	unsigned flags = 0;
	struct pma_trace *traces = NULL;
	int ntraces;
	FILE *out = stdout;
	char why[512];

	pmt_cli_set_prog("pmanalyze");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:f:e:r:o:sidqhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			pmt_intlist_free(&cores);
			if (pmt_intlist_parse(optarg, 1, 1000000, &cores, why, sizeof(why)) < 0)
				return usage_error("invalid --cores '%s': %s", optarg, why);
			break;
		case 'f':
			if (strcmp(optarg, "table") == 0)
				ro.format = PMA_FMT_TABLE;
			else if (strcmp(optarg, "json") == 0)
				ro.format = PMA_FMT_JSON;
			else if (strcmp(optarg, "csv") == 0)
				ro.format = PMA_FMT_CSV;
			else
				return usage_error("invalid --format '%s': use table, json or csv", optarg);
			break;
		case 'e': {
			int k = pma_estimator_parse(optarg);
			if (k < 0)
				return usage_error("invalid --estimator '%s': use sched-exact, runnable or paper", optarg);
			ro.estimator = k;
			break;
		}
		case 'r': {
			long v;
			if (pmt_cli_parse_long(optarg, 0, 0xffffffffL, &v) < 0)
				return usage_error("invalid --run '%s': not a run id", optarg);
			ro.run_id = v;
			break;
		}
		case 'o':
			outpath = optarg;
			break;
		case OPT_PERFETTO:
			perfetto_path = optarg;
			break;
		case OPT_PLACEMENT: {
			long k;
			if (strcmp(optarg, "compact") == 0) {
				ro.chunk = 0;
				break;
			}
			if (strcmp(optarg, "scatter") == 0) {
				ro.chunk = 1;
				break;
			}
			if (pmt_cli_parse_long(optarg, 1, 1000000, &k) < 0)
				return usage_error("invalid --placement '%s': use compact, scatter or a "
						   "chunk size from 1", optarg);
			ro.chunk = (uint32_t)k;
			break;
		}
		case OPT_MEM:
			ro.mem_policy = pma_mem_policy_parse(optarg);
			if (ro.mem_policy < 0)
				return usage_error("invalid --mem '%s': use local, interleave or "
						   "local-then-remote", optarg);
			break;
		case OPT_MACHINE:
			ro.machine = optarg;
			break;
		case OPT_FORCE:
			force = 1;
			break;
		case 's':
			flags |= PMT_READ_SALVAGE;
			break;
		case 'i':
			mode = 'i';
			break;
		case 'd':
			mode = 'd';
			break;
		case 'q':
			quiet = 1;
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
	if (mode && argc - optind != 1)
		return usage_error("--info and --dump take one trace");

	if (outpath) {
		out = fopen(outpath, "w");
		if (!out) {
			pmt_cli_error("cannot open '%s': %s", outpath, strerror(errno));
			return PMT_EXIT_FAILURE;
		}
	}
	if (mode == 'd') {
		rc = pma_dump(out, argv[optind], flags, why, sizeof(why)) < 0 ? PMT_EXIT_FAILURE : 0;
		if (rc)
			pmt_cli_error("%s", why);
		goto out;
	}
	ntraces = argc - optind;
	traces = calloc((size_t)ntraces, sizeof(*traces));
	if (!traces) {
		pmt_cli_error("out of memory");
		goto out;
	}
	for (int i = 0; i < ntraces; i++) {
		if (pma_trace_load(&traces[i], argv[optind + i], flags, why, sizeof(why)) < 0) {
			pmt_cli_error("%s", why);
			goto out;
		}
	}
	if (!quiet)
		for (int i = 0; i < ntraces; i++)
			for (uint32_t w = 0; w < traces[i].nwarnings; w++)
				pmt_cli_warning("%s", traces[i].warnings[w]);
	if (mode == 'i') {
		pma_info(out, &traces[0]);
		rc = 0;
		goto out;
	}
	if (!force && pma_traces_same_program(traces, ntraces, why, sizeof(why)) < 0) {
		pmt_cli_error("%s", why);
		rc = PMT_EXIT_USAGE;
		goto out;
	}
	ro.cores = cores.v;
	ro.ncores = cores.n;
	if (pma_report(out, traces, ntraces, &ro, why, sizeof(why)) < 0) {
		pmt_cli_error("%s", why);
		goto out;
	}
	if (perfetto_path && export_perfetto(perfetto_path, &traces[0], ro.run_id) < 0)
		goto out;
	rc = 0;
out:
	if (traces)
		for (int i = 0; i < argc - optind; i++)
			pma_trace_free(&traces[i]);
	free(traces);
	pmt_intlist_free(&cores);
	if (out != stdout && out && fclose(out) != 0 && rc == 0) {
		pmt_cli_error("cannot write '%s': %s", outpath, strerror(errno));
		rc = PMT_EXIT_FAILURE;
	}
	if (out == stdout && fflush(stdout) != 0 && rc == 0) {
		pmt_cli_error("cannot write to standard output: %s", strerror(errno));
		rc = PMT_EXIT_FAILURE;
	}
	return rc;
}
