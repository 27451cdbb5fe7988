/* SPDX-License-Identifier: MIT */
/* export.c: the files pmanalyze writes beside its report: Perfetto, plots, HTML, Extra-P, the
 * model (cli.h). */
#include "cli.h"

#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pmt.h"

#include "render/extrap.h"
#include "render/html.h"
#include "render/perfetto.h"
#include "studies/scaling.h"

/* --export-perfetto: the analyzed run's exact timelines to path. Returns 0 or -1 after
 * reporting the error. */
int pma_cli_export_perfetto(const char *path, const struct pma_trace *t, long run_id)
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
int pma_cli_write_plots(const char *dir, enum pma_plot_format fmt, const struct pma_result *r)
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
int pma_cli_write_html(const char *path, const struct pma_result *r)
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
int pma_cli_export_extrap(const char *path, const struct pma_result *r)
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


/* Writes n bytes to path; returns 0 or -1 after reporting. */
int pma_cli_write_file(const char *path, const unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, n, f) != n || fclose(f) != 0) {
		pm_cli_error("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
