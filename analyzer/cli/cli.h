/* SPDX-License-Identifier: MIT */
/* cli.h: pmanalyze's front end below main.c: the parsed command line, the output, the loading
 * of the inputs (inputs.c), the mode runners (run.c) and the files they write (export.c). The
 * only layer of the analyzer that prints and exits (analyzer/README.md). */
#ifndef PMA_CLI_H
#define PMA_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "model/forest.h"
#include "render/plot.h"
#include "render/report.h"
#include "result/compute.h"
#include "studies/learn.h"
#include "pm_util.h"

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
	struct pma_quota_opts quota; /* --quota, --quota-burst */
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
	struct pma_forest *model; /* --model, loaded by pma_cli_load_inputs for --predict (owned) */
	char **owned;           /* traces[] when pma_cli_expand_operands built it */
};

/* Where the output goes: standard output, or -o's file, created only once there is something to
 * write into it. */
struct output {
	const char *path;       /* NULL: standard output */
	FILE *f;
};


/* A mode, as git's builtins: what it loads before it runs, and the function that runs it. */
struct cli_cmd {
	enum cli_mode mode;
	int load;       /* the traces are loaded (and their warnings printed) before run */
	int (*run)(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
};

/* The output, opened on first use (-o's file or standard output); NULL after reporting the
 * error. */
FILE *pma_cli_output_open(struct output *o);
/* Closes the output; returns rc, or PMT_EXIT_FAILURE when a write failed and rc was 0. */
int pma_cli_output_close(struct output *o, int rc);

/* inputs.c */
/* Replaces each directory operand by its *.zst files (sorted by name, hidden files left out), as
 * pmcollect -o 'pm-%j/trace.%r.zst' leaves a job's traces. Returns -1 to go on, or the exit
 * status after reporting (2: a directory without traces). */
int pma_cli_expand_operands(struct cli_opts *o);
/* Rank mode: the operands are the traces of one job's ranks (the first trace's META has a rank,
 * and there are several traces or a directory). Returns 1 when so, 0 when not, or -1 after
 * reporting an unreadable first trace. */
int pma_cli_is_rank_job(const struct cli_opts *o);
/* Everything the computation reads from disk, loaded before it starts: the traces (when cmd
 * loads them; *traces malloc'ed, [o->ntraces]), --machine into machine (for the modes that
 * compute a result; borrowed through o->co.machine) and --predict's --model (o->model). Returns
 * 0, or -1 after reporting the error (-2: a usage error, --quota on more cores than --machine
 * has). */
int pma_cli_load_inputs(struct cli_opts *o, const struct cli_cmd *cmd, struct pma_trace **traces,
		struct pma_machine *machine);

/* run.c: the modes. Each returns the exit status, after reporting an error. */
int pma_cli_run_report(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
int pma_cli_run_info(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
int pma_cli_run_dump(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
int pma_cli_run_learn(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
int pma_cli_run_toep(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
int pma_cli_run_predict(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);
int pma_cli_run_ranks(const struct cli_opts *o, const struct pma_trace *traces, struct output *out);

/* export.c: the files beside the report. Each returns 0 or -1 after reporting the error. */
/* --export-perfetto: run run_id of t (-1 the baseline) as Chrome trace-event JSON to path. */
int pma_cli_export_perfetto(const char *path, const struct pma_trace *t, long run_id);
/* --plot: every plot r has data for into dir (created when missing), in fmt. */
int pma_cli_write_plots(const char *dir, enum pma_plot_format fmt, const struct pma_result *r);
/* --html: the report of r into path. */
int pma_cli_write_html(const char *path, const struct pma_result *r);
/* --export-extrap: the sweep's measurements in Extra-P's text format to path and as JSON Lines
 * to path.jsonl. */
int pma_cli_export_extrap(const char *path, const struct pma_result *r);
/* Writes n bytes of buf to path. */
int pma_cli_write_file(const char *path, const unsigned char *buf, size_t n);

#endif
