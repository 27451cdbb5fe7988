/* SPDX-License-Identifier: MIT */
/* report_job.c: the report of a job merged from MPI rank traces (result/ranks.c) as a table,
 * JSON (schema pmanalyze-job/1) and CSV. */
#include "report_sections.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"
#include "pm_cli.h"
#include "render_util.h"
#include "result/mpitime.h"

static const char *or_q(const char *s)
{
	return s ? s : "?";
}

/* A rank as "3", or "91:3" (job:rank) when the merge holds several jobs. */
static void rank_name(char *buf, size_t size, const struct pma_ranks_result *j,
		      struct pma_rank_ref r)
{
	if (j->njobs > 1)
		snprintf(buf, size, "%s:%ld", r.job ? r.job : "-", r.rank);
	else
		snprintf(buf, size, "%ld", r.rank);
}

/* A list of ranks as "0, 3, 7" (at most max of them, then "... (N in all)"). */
static void rank_list(char *buf, size_t size, const struct pma_ranks_result *j,
		      const struct pma_rank_ref *v, size_t n, size_t max)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && i < max && o < size; i++) {
		char name[96];
		rank_name(name, sizeof(name), j, v[i]);
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", name);
	}
	if (n > max && o < size)
		snprintf(buf + o, size - o, ", ... (%zu in all)", n);
	if (n == 0)
		snprintf(buf, size, "none");
}

void pma_render_table_ranks(FILE *out, const struct pma_ranks_result *j)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], om[32], list[512];
	static const char *const names[] = { "m", "A(m,inf)", "T_cp s", "wall s", "busy s" };
	const struct pma_rank_stat *st[] = { &j->m, &j->A_inf, &j->T_cp_s, &j->wall_s, &j->busy_s };

	if (j->njobs > 1) {
		size_t o = 0;
		list[0] = '\0';
		for (size_t k = 0; k < j->njobs && o < sizeof(list); k++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", k ? ", " : "",
					      j->jobs[k].job ? j->jobs[k].job : "(no job id)");
		fprintf(out, "%-13s%s (%zu jobs merged with --force; ranks named job:rank): %zu rank "
			"traces", "jobs", list, j->njobs, j->n);
	} else {
		fprintf(out, "%-13s%s: %zu rank trace%s", "job", j->job ? j->job : "(no job id)", j->n,
			j->n == 1 ? "" : "s");
	}
	if (j->size >= 0)
		fprintf(out, " of %ld ranks", j->size);
	fprintf(out, " on %zu host%s\n", j->nhosts, j->nhosts == 1 ? "" : "s");
	if (j->nmissing) {
		rank_list(list, sizeof(list), j, j->missing, j->nmissing, 16);
		fprintf(out, "%-13s%s\n", "missing", list);
	}
	fprintf(out, "\n%-6s %-16s %5s %-10s %5s %9s %9s %9s %9s %7s %9s  %s\n", "rank", "host",
		"local", "cpus", "m", "A(m,inf)", "T_cp s", "wall s", "busy s", "omega", "start s",
		"status");
	for (size_t i = 0; i < j->n; i++) {
		const struct pma_rank_row *w = &j->rows[i];
		char host[64], cpus[64], name[96];
		rank_name(name, sizeof(name), j, (struct pma_rank_ref){ .job = w->job, .rank = w->rank });
		pm_cli_sanitize(host, sizeof(host), or_q(w->host), strlen(or_q(w->host)));
		pm_cli_sanitize(cpus, sizeof(cpus), or_q(w->cpus), strlen(or_q(w->cpus)));
		pma_render_fmt_num(a, sizeof(a), 0, w->m, "");
		pma_render_fmt_num(b, sizeof(b), 2, w->A_inf, "");
		pma_render_fmt_num(c, sizeof(c), 3, w->T_cp_s, "");
		pma_render_fmt_num(d, sizeof(d), 3, w->wall_s, "");
		pma_render_fmt_num(e, sizeof(e), 3, w->busy_s, "");
		pma_render_fmt_num(f, sizeof(f), 3, w->start_offset_s, "");
		pma_render_fmt_num(om, sizeof(om), 3, w->omega, "");
		if (w->local_rank >= 0)
			snprintf(g, sizeof(g), "%ld", w->local_rank);
		else
			snprintf(g, sizeof(g), "?");
		fprintf(out, "%-6s %-16s %5s %-10s %5s %9s %9s %9s %9s %7s %9s  %s%s%s\n", name, host,
			g, cpus, a, b, c, d, e, om, f, w->complete ? "complete" : "INCOMPLETE",
			w->problem ? ": " : "", w->problem ? w->problem : "");
	}
	fprintf(out, "\n%-13s%10s %10s %10s %10s   (%zu complete rank%s)\n", "summary", "min", "max",
		"avg", "sum", j->busy_s.n, j->busy_s.n == 1 ? "" : "s");
	for (size_t k = 0; k < PM_ARRAY_SIZE(names); k++) {
		pma_render_fmt_num(a, sizeof(a), 3, st[k]->n ? st[k]->min : NAN, "");
		pma_render_fmt_num(b, sizeof(b), 3, st[k]->n ? st[k]->max : NAN, "");
		pma_render_fmt_num(c, sizeof(c), 3, st[k]->n ? st[k]->avg : NAN, "");
		pma_render_fmt_num(d, sizeof(d), 3, st[k]->n ? st[k]->sum : NAN, "");
		fprintf(out, "  %-11s%10s %10s %10s %10s\n", names[k], a, b, c, d);
	}
	pma_render_fmt_num(a, sizeof(a), 3, j->imbalance, "");
	rank_list(list, sizeof(list), j, j->critical, j->ncritical, 16);
	fprintf(out, "\n%-13s%s (max/mean of the ranks' busy time); slowest rank ", "imbalance", a);
	if (j->slowest.rank >= 0) {
		rank_name(b, sizeof(b), j, j->slowest);
		fputs(b, out);
	} else {
		fputs("?", out);
	}
	fprintf(out, "; critical path (busy >= %.0f%% of the slowest): %s\n",
		100 * PMA_RANKS_CRITICAL_SHARE, list);
	if (j->nincomplete)
		fprintf(out, "%-13s%zu incomplete rank%s left out of the summary and the imbalance\n", "",
			j->nincomplete, j->nincomplete == 1 ? "" : "s");
	pma_render_fmt_num(a, sizeof(a), 6, j->start_spread_s, " s");
	pma_render_fmt_num(b, sizeof(b), 2, j->max_abs_drift_ppm, " ppm");
	fprintf(out, "%-13sstarts spread over %s (realtime clocks); largest realtime drift %s\n",
		"clocks", a, b);
	if (j->ncores) {
		fprintf(out, "\n%-13s%6s %12s %8s %12s\n", "predictions", "cores", "T_job s", "slowest",
			"T_sum s");
		for (size_t i = 0; i < j->ncores; i++) {
			pma_render_fmt_num(a, sizeof(a), 3, j->T_max_ns[i] / 1e9, "");
			pma_render_fmt_num(b, sizeof(b), 3, j->T_sum_ns[i] / 1e9, "");
			if (j->T_max[i].rank >= 0 && isfinite(j->T_max_ns[i]))
				rank_name(c, sizeof(c), j, j->T_max[i]);
			else
				snprintf(c, sizeof(c), "?");
			fprintf(out, "%-13s%6u %12s %8s %12s\n", "", j->cores[i], a, c, b);
		}
		fprintf(out, "%-13sT_job: max over the ranks of each rank's T(n) with n cores per rank; "
			"T_sum: their sum (the ranks one after another)\n", "");
		if (j->omega_shared)
			fprintf(out, "%-13s%zu calibrated rank%s: omega at (ranks per socket) x n cores, "
				"the ranks of a socket sharing its memory system\n", "", j->omega_shared,
				j->omega_shared == 1 ? "" : "s");
	}
	pma_mpi_table(out, j);
	pma_render_print_notes(out, &j->notes, "\nnote: ");
}

static cJSON *stat_json(const struct pma_rank_stat *s)
{
	cJSON *o = cJSON_CreateObject();
	pma_render_add_finite(o, "min", s->n ? s->min : NAN);
	pma_render_add_finite(o, "max", s->n ? s->max : NAN);
	pma_render_add_finite(o, "avg", s->n ? s->avg : NAN);
	pma_render_add_finite(o, "sum", s->n ? s->sum : NAN);
	return o;
}

/* The ranks of refs as numbers, or (jobs) their job ids, null for none. */
static cJSON *ranks_list_json(const struct pma_rank_ref *v, size_t n, int jobs)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, !jobs ? cJSON_CreateNumber((double)v[i].rank)
					  : v[i].job ? cJSON_CreateString(v[i].job) : cJSON_CreateNull());
	return a;
}

/* key: a rank or count, or null when unknown (< 0) */
static void add_count_or_null(cJSON *o, const char *key, long v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, key, (double)v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void pma_render_json_ranks(FILE *out, const struct pma_ranks_result *j)
{
	cJSON *root = cJSON_CreateObject(), *rows, *sum, *imb, *clk, *pred, *jobs;
	char *text;

	cJSON_AddStringToObject(root, "schema", "pmanalyze-job/1");
	add_str_or_null(root, "job", j->job);
	add_count_or_null(root, "size", j->size);
	cJSON_AddNumberToObject(root, "traces", (double)j->n);
	cJSON_AddNumberToObject(root, "hosts", (double)j->nhosts);
	cJSON_AddItemToObject(root, "missing_ranks", ranks_list_json(j->missing, j->nmissing, 0));
	cJSON_AddItemToObject(root, "missing_jobs", ranks_list_json(j->missing, j->nmissing, 1));
	jobs = cJSON_AddArrayToObject(root, "jobs");
	for (size_t k = 0; k < j->njobs; k++) {
		cJSON *o = cJSON_CreateObject();
		add_str_or_null(o, "job", j->jobs[k].job);
		add_count_or_null(o, "size", j->jobs[k].size);
		cJSON_AddNumberToObject(o, "traces", (double)j->jobs[k].n);
		cJSON_AddNumberToObject(o, "missing", (double)j->jobs[k].nmissing);
		cJSON_AddItemToArray(jobs, o);
	}
	rows = cJSON_AddArrayToObject(root, "ranks");
	for (size_t i = 0; i < j->n; i++) {
		const struct pma_rank_row *w = &j->rows[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "rank", (double)w->rank);
		add_str_or_null(o, "job", w->job);
		add_count_or_null(o, "local_rank", w->local_rank);
		add_str_or_null(o, "host", w->host);
		add_str_or_null(o, "cpus", w->cpus);
		cJSON_AddStringToObject(o, "path", w->path);
		cJSON_AddBoolToObject(o, "complete", w->complete);
		add_str_or_null(o, "problem", w->problem);
		add_str_or_null(o, "estimator", w->estimator);
		pma_render_add_finite(o, "m", w->m);
		pma_render_add_finite(o, "A_inf", w->A_inf);
		pma_render_add_finite(o, "T_cp_s", w->T_cp_s);
		pma_render_add_finite(o, "wall_s", w->wall_s);
		pma_render_add_finite(o, "busy_s", w->busy_s);
		pma_render_add_finite(o, "omega", w->omega);
		add_str_or_null(o, "omega_source", w->omega_source);
		cJSON_AddNumberToObject(o, "calibration_runs_failed", (double)w->cal_failed);
		add_count_or_null(o, "ranks_per_socket", w->ranks_per_socket);
		pma_render_add_finite(o, "start_offset_s", w->start_offset_s);
		pma_render_add_finite(o, "drift_ppm", w->drift_ppm);
		cJSON_AddItemToArray(rows, o);
	}
	sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(sum, "ranks", (double)j->busy_s.n);
	cJSON_AddItemToObject(sum, "m", stat_json(&j->m));
	cJSON_AddItemToObject(sum, "A_inf", stat_json(&j->A_inf));
	cJSON_AddItemToObject(sum, "T_cp_s", stat_json(&j->T_cp_s));
	cJSON_AddItemToObject(sum, "wall_s", stat_json(&j->wall_s));
	cJSON_AddItemToObject(sum, "busy_s", stat_json(&j->busy_s));
	imb = cJSON_AddObjectToObject(root, "imbalance");
	pma_render_add_finite(imb, "factor", j->imbalance);
	add_count_or_null(imb, "slowest_rank", j->slowest.rank);
	if (j->slowest.rank >= 0)
		add_str_or_null(imb, "slowest_job", j->slowest.job);
	else
		cJSON_AddNullToObject(imb, "slowest_job");
	cJSON_AddItemToObject(imb, "critical_ranks", ranks_list_json(j->critical, j->ncritical, 0));
	cJSON_AddItemToObject(imb, "critical_jobs", ranks_list_json(j->critical, j->ncritical, 1));
	cJSON_AddNumberToObject(imb, "critical_share", PMA_RANKS_CRITICAL_SHARE);
	cJSON_AddNumberToObject(imb, "incomplete_ranks", (double)j->nincomplete);
	clk = cJSON_AddObjectToObject(root, "clocks");
	pma_render_add_finite(clk, "start_spread_s", j->start_spread_s);
	pma_render_add_finite(clk, "max_abs_drift_ppm", j->max_abs_drift_ppm);
	cJSON_AddNumberToObject(root, "omega_shared_ranks", (double)j->omega_shared);
	pred = cJSON_AddArrayToObject(root, "predictions");
	for (size_t i = 0; i < j->ncores; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "cores", j->cores[i]);
		pma_render_add_finite(o, "T_job_s", j->T_max_ns[i] / 1e9);
		add_count_or_null(o, "slowest_rank", isfinite(j->T_max_ns[i]) ? j->T_max[i].rank : -1);
		if (isfinite(j->T_max_ns[i]) && j->T_max[i].rank >= 0)
			add_str_or_null(o, "slowest_job", j->T_max[i].job);
		else
			cJSON_AddNullToObject(o, "slowest_job");
		pma_render_add_finite(o, "T_sum_s", j->T_sum_ns[i] / 1e9);
		cJSON_AddItemToArray(pred, o);
	}
	pma_mpi_json(root, j);
	pma_render_notes_json(root, "notes", "coded_notes", &j->notes);
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

/* One CSV field: quoted, with inner quotes doubled (paths and hosts are free text). */
static void csv_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void pma_render_csv_ranks(FILE *out, const struct pma_ranks_result *j)
{
	fputs("rank,local_rank,host,cpus,m,A_inf,T_cp_s,wall_s,busy_s,omega,start_offset_s,drift_ppm,"
	      "complete,estimator,path,job\n", out);
	for (size_t i = 0; i < j->n; i++) {
		const struct pma_rank_row *w = &j->rows[i];
		char host[128], cpus[128];
		pm_cli_sanitize(host, sizeof(host), or_q(w->host), strlen(or_q(w->host)));
		pm_cli_sanitize(cpus, sizeof(cpus), or_q(w->cpus), strlen(or_q(w->cpus)));
		fprintf(out, "%ld,%ld,", w->rank, w->local_rank);
		csv_str(out, host);
		fputc(',', out);
		csv_str(out, cpus);
		fprintf(out, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%s,", w->m, w->A_inf, w->T_cp_s,
			w->wall_s, w->busy_s, w->omega, w->start_offset_s, w->drift_ppm, w->complete,
			w->estimator ? w->estimator : "none");
		csv_str(out, w->path);
		fputc(',', out);
		if (w->job)
			csv_str(out, w->job);
		fputc('\n', out);
	}
}
