/* SPDX-License-Identifier: MIT */
/* inputs.c: what pmanalyze reads before it computes: the operands (directories expanded), the
 * traces with their warnings and progress, --machine, --model (cli.h). */
#include "cli.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pmt.h"

#include "trace/analyze.h"
#include "trace/machine.h"

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
int pma_cli_expand_operands(struct cli_opts *o)
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

/* Rank mode: the operands are the traces of one job's ranks (the first trace's META has a rank,
 * and there are several traces or a directory). Returns 1 when so, 0 when not, or -1 after
 * reporting an unreadable first trace. */
int pma_cli_is_rank_job(const struct cli_opts *o)
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

/* Everything the computation reads from disk is loaded here, before it starts: the
 * traces (when cmd loads them), --machine (for the modes that compute a result; pma_compute
 * borrows it through o->co.machine) and --predict's --model (o->model). Returns 0, or -1 after
 * reporting the error. */
int pma_cli_load_inputs(struct cli_opts *o, const struct cli_cmd *cmd, struct pma_trace **traces,
		       struct pma_machine *machine)
{
	char why[512];

	if (o->machine_path && (cmd->mode == CLI_REPORT || cmd->mode == CLI_JOB)) {
		if (pma_machine_load(o->machine_path, machine, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return -1;
		}
		o->co.machine = machine;
		if (o->quota.nQ && machine->pus && o->co.quota_cores > machine->pus) {
			pm_cli_error("--quota on %u cores, but '%s' has %u", o->co.quota_cores,
				     o->machine_path, machine->pus);
			return -2;
		}
		if (o->quota.nQ && !o->co.quota_cores)
			o->co.quota_cores = machine->pus;
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
