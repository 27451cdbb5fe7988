/* SPDX-License-Identifier: MIT */
/* report_info.c: pmanalyze --info: what a trace holds, as text, JSON (schema
 * pmanalyze-info/1) or CSV. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "render_util.h"

/* Whether run r's RUN_BEGIN "collector_cpu" (each run pins the collector again) is known and
 * not META's: the baseline runs of a --calibrate trace are pinned beside the program where the
 * calibration runs, on every CPU, are not. */
static int run_collector_differs(const struct pma_trace *t, const struct pma_run *r)
{
	double c = r->info.collector_cpu, m = t->meta.collector_cpu;

	return isfinite(c) && (c >= 0 ? c : -1) != (m >= 0 ? m : -1);
}

static int runs_collector_differ(const struct pma_trace *t)
{
	for (uint32_t i = 0; i < t->nruns; i++)
		if (run_collector_differs(t, &t->runs[i]))
			return 1;
	return 0;
}

/* The "environment" line: pmcollect's own OMP_, GOMP_ and KMP_ variables (META "env"), which every
 * run inherited, then the OMP_NUM_THREADS that pmcollect set for the runs (-t: RUN_BEGIN
 * "threads"), which overrides a variable of the same name. */
static void env_line(FILE *out, const struct pma_trace *t)
{
	const struct pma_meta *meta = &t->meta;
	double threads = 0;
	int same = 1, any = 0;
	char buf[256];

	for (uint32_t i = 0; i < t->nruns; i++) {
		double k = t->runs[i].info.threads;
		if (k > 0 && any && k != threads)
			same = 0;
		if (k > 0 && !any)
			threads = k;
		any |= k > 0;
	}
	fprintf(out, "%-13s", "environment");
	if (!meta->nenv && !any)
		fputs("(no OMP_/GOMP_/KMP_ variables)", out);
	for (size_t i = 0; i < meta->nenv; i++) {
		if (any && strcmp(meta->env[i].name, "OMP_NUM_THREADS") == 0)
			continue;
		pm_cli_sanitize(buf, sizeof(buf), meta->env[i].value, strlen(meta->env[i].value));
		fprintf(out, "%s=%s ", meta->env[i].name, buf);
	}
	if (any && same)
		fprintf(out, "OMP_NUM_THREADS=%.0f (set by pmcollect -t for every run)", threads);
	for (uint32_t i = 0; any && !same && i < t->nruns; i++)
		if (t->runs[i].info.threads > 0)
			fprintf(out, "%sOMP_NUM_THREADS=%.0f in run %u", i ? ", " : "(set by pmcollect -t) ",
				t->runs[i].info.threads, t->runs[i].run_id);
	fputc('\n', out);
}

void pma_info(FILE *out, const struct pma_trace *t)
{
	const struct pma_meta *meta = &t->meta;
	char cmd[512], buf[1024];
	const char *s;
	int per_run = runs_collector_differ(t); /* the collector's CPU told per run */

	pma_render_command_string(meta, cmd, sizeof(cmd));
	fprintf(out, "%-13s%s (pmtrace %u.%u, %llu chunks, %llu bytes)\n", "trace", t->path, t->major,
		t->minor, (unsigned long long)t->rst.chunks, (unsigned long long)t->rst.bytes_read);
	fprintf(out, "%-13s%s\n", "command", cmd);
	s = meta->cwd ? meta->cwd : "?";
	fprintf(out, "%-13s%s\n", "cwd", pm_cli_sanitize(buf, 256, s, strlen(s)));
	if (meta->job.present) /* which launcher variable gave the job id (docs/cluster.md) */
		fprintf(out, "%-13sid %s (%s), rank %ld (%s) of %ld\n", "job",
			meta->job.id ? meta->job.id : "none", meta->job.id_var ? meta->job.id_var : "-",
			meta->job.rank, meta->job.rank_var ? meta->job.rank_var : "-", meta->job.size);
	fprintf(out, "%-13s%s by %s %s\n", "recorded", meta->start_utc ? meta->start_utc : "?",
		meta->tool ? meta->tool : "?", meta->tool_version ? meta->tool_version : "?");
	pma_render_machine_line(out, meta);
	pma_wakecost_info(out, &meta->wake);
	fprintf(out, "%-13s%.2f ms; program CPUs %s; ", "interval", meta->interval_ms,
		meta->cpus ? meta->cpus : "all");
	/* collector_cpu -1 is the trace's "not pinned" (or absent), not a CPU number; each run
	 * pins again (RUN_BEGIN), so a --calibrate trace's baseline runs may be pinned where META
	 * (the first plan) says not: the runs' lines say which */
	if (per_run)
		fputs("collector pinned per run (see the runs)\n", out);
	else if (meta->collector_cpu >= 0)
		fprintf(out, "collector CPU %.0f\n", meta->collector_cpu);
	else
		fputs("collector not pinned (it ran on the program's CPUs)\n", out);
	/* the whole machine and what pmcollect was allowed (docs/model.md, degraded-input case 3) */
	if (meta->usable_cpus || (meta->affinity_cpus && meta->online_cpus &&
				  strcmp(meta->affinity_cpus, meta->online_cpus) != 0))
		fprintf(out, "%-13sonline %s; pmcollect's affinity %s; cgroup cpuset %s; usable %s\n",
			"cpu sets", meta->online_cpus ? meta->online_cpus : "?",
			meta->affinity_cpus ? meta->affinity_cpus : "?",
			meta->cgroup_cpus ? meta->cgroup_cpus : "none found",
			meta->usable_cpus ? meta->usable_cpus : "not recorded");
	if (meta->cpu_limit_present && meta->cpu_quota_us > 0 && meta->cpu_period_us > 0)
		fprintf(out, "%-13s%.2f CPUs (%.0f us per %.0f us period, burst %.0f us): a container; "
			"pmanalyze --quota predicts under it\n", "cpu limit",
			meta->cpu_quota_us / meta->cpu_period_us, meta->cpu_quota_us, meta->cpu_period_us,
			meta->cpu_burst_us);
	else if (meta->cpu_limit_present)
		fprintf(out, "%-13snone (the cgroup's cpu quota is unlimited)\n", "cpu limit");
	env_line(out, t);
	fprintf(out, "%-13s%u\n", "runs", t->nruns);
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		const struct pma_run_info *ri = &r->info;
		double status = ri->exit_kind == PMA_EXIT_SIGNALED ? ri->exit_signal : ri->exit_code;
		char win[200];
		fprintf(out, "  run %u: CPUs %s, %.3f s, %llu samples, %llu thread-samples, peak %u threads, "
			"%llu threads seen, exit %s %.0f\n", r->run_id, r->cpus[0] ? r->cpus : "?",
			pma_run_wall_s(r), (unsigned long long)r->st.samples,
			(unsigned long long)r->st.thread_samples, r->m,
			(unsigned long long)r->st.threads_seen,
			ri->exit_kind_name ? ri->exit_kind_name : "unknown", isnan(status) ? 0 : status);
		if (pma_window_label(ri, win, sizeof(win)))
			fprintf(out, "         %s\n", win);
		if (per_run && ri->collector_cpu >= 0)
			fprintf(out, "         collector CPU %.0f\n", ri->collector_cpu);
		else if (per_run && isfinite(ri->collector_cpu))
			fputs("         collector not pinned (it ran on the run's CPUs)\n", out);
		/* how well the collector kept the interval (RUN_END, format 1.2) */
		if (ri->has_end && isfinite(ri->samples) &&
		    ((isfinite(ri->late_samples) && ri->late_samples > 0) ||
		     (isfinite(ri->lost_samples) && ri->lost_samples > 0) ||
		     (isfinite(ri->interval_changes) && ri->interval_changes > 0))) {
			struct pma_run_sampling smp;
			pma_run_sampling(t, r, &smp);
			fprintf(out, "         sampling: %.0f samples, %.0f late, %.0f lost (%.0f%% of the "
				"timer expirations); interval %.2f ms", smp.samples, smp.late, smp.lost,
				100 * smp.share, smp.interval_ms);
			if (smp.requested_ms > 0)
				fprintf(out, " (lengthened %.0f time%s from %.2f ms)", ri->interval_changes,
					ri->interval_changes == 1 ? "" : "s", smp.requested_ms);
			fputc('\n', out);
		}
		if (r->has_exact)
			fprintf(out, "         scheduler events: %llu (%llu lost, %u gaps), %u threads, "
				"%llu wake edges\n", (unsigned long long)r->xst.events,
				(unsigned long long)r->xst.lost, r->xst.gaps, r->xst.threads,
				(unsigned long long)r->xst.wake_edges);
	}
	fprintf(out, "%-13s%llu (%llu thread-samples), %llu task events, %llu counter snapshots\n",
		"samples", (unsigned long long)t->samples, (unsigned long long)t->thread_samples,
		(unsigned long long)t->task_events, (unsigned long long)t->counter_records);
	pma_render_print_sources(out, meta);
	if (t->summary.present) {
		fprintf(out, "%-13s%.0f samples, %.0f late, %.0f lost, collector CPU %.3f s\n", "summary",
			t->summary.samples, t->summary.late_samples, t->summary.lost_samples,
			t->summary.collector_cpu_ns / 1e9);
	} else {
		fprintf(out, "%-13snone (the collector did not finish)\n", "summary");
	}
	fprintf(out, "%-13s%s\n", "warnings", t->warnings.n ? "" : "none");
	for (size_t i = 0; i < t->warnings.n; i++) {
		char *text = pma_note_alloc(&t->warnings.v[i]), *clean = text ? strdup(text) : NULL;
		if (clean)
			pm_cli_sanitize(clean, strlen(text) + 1, text, strlen(text));
		fprintf(out, "  %s\n", clean ? clean : "out of memory");
		free(clean);
		free(text);
	}
}

/* --info --format json: the trace's object of the report (pma_render_trace_json) and one object per run. */
static void info_json(FILE *out, const struct pma_trace *t)
{
	cJSON *root = cJSON_CreateObject(), *runs;
	char *text, ver[16];

	cJSON_AddStringToObject(root, "schema", "pmanalyze-info/1");
	snprintf(ver, sizeof(ver), "%u.%u", t->major, t->minor);
	cJSON_AddStringToObject(root, "format_version", ver);
	cJSON_AddNumberToObject(root, "chunks", (double)t->rst.chunks);
	cJSON_AddNumberToObject(root, "bytes", (double)t->rst.bytes_read);
	cJSON_AddItemToObject(root, "trace", pma_render_trace_json(t, pma_trace_baseline(t)));
	runs = cJSON_AddArrayToObject(root, "runs");
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "run_id", r->run_id);
		cJSON_AddStringToObject(o, "cpus", r->cpus);
		cJSON_AddNumberToObject(o, "wall_s", pma_run_wall_s(r));
		cJSON_AddNumberToObject(o, "samples", (double)r->st.samples);
		cJSON_AddNumberToObject(o, "thread_samples", (double)r->st.thread_samples);
		cJSON_AddNumberToObject(o, "peak_threads", r->m);
		cJSON_AddNumberToObject(o, "threads_seen", (double)r->st.threads_seen);
		cJSON_AddStringToObject(o, "exit", r->info.exit_kind_name ? r->info.exit_kind_name : "unknown");
		/* RUN_END "exit": the status (exited) or the signal (signaled); null otherwise */
		pma_render_add_finite(o, "exit_code", r->info.exit_kind == PMA_EXIT_EXITED ?
			   r->info.exit_code : NAN);
		pma_render_add_finite(o, "exit_signal", r->info.exit_kind == PMA_EXIT_SIGNALED ?
			   r->info.exit_signal : NAN);
		cJSON_AddNumberToObject(o, "sched_events", r->has_exact ? (double)r->xst.events : 0);
		/* RUN_BEGIN's: the CPU the collector was pinned to in this run, -1 not pinned */
		pma_render_add_finite(o, "collector_cpu", r->info.collector_cpu);
		cJSON_AddItemToArray(runs, o);
	}
	text = cJSON_Print(root);
	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(root);
}

/* --info --format csv: one row per run. */
static void info_csv(FILE *out, const struct pma_trace *t)
{
	fprintf(out, "run_id,cpus,wall_s,samples,thread_samples,peak_threads,threads_seen,exit,"
		"sched_events,exit_code,exit_signal\n");
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		fprintf(out, "%u,", r->run_id);
		pma_csv_field(out, r->cpus);
		fprintf(out, ",%.9f,%llu,%llu,%u,%llu,%s,%llu", pma_run_wall_s(r),
			(unsigned long long)r->st.samples, (unsigned long long)r->st.thread_samples, r->m,
			(unsigned long long)r->st.threads_seen,
			r->info.exit_kind_name ? r->info.exit_kind_name : "unknown",
			r->has_exact ? (unsigned long long)r->xst.events : 0ull);
		/* RUN_END "exit": the status (exited) or the signal (signaled); empty otherwise */
		fputs(",", out);
		if (r->info.exit_kind == PMA_EXIT_EXITED && isfinite(r->info.exit_code))
			fprintf(out, "%.0f", r->info.exit_code);
		fputs(",", out);
		if (r->info.exit_kind == PMA_EXIT_SIGNALED && isfinite(r->info.exit_signal))
			fprintf(out, "%.0f", r->info.exit_signal);
		fputc('\n', out);
	}
}

void pma_render_info(FILE *out, const struct pma_trace *t, enum pma_format format)
{
	if (format == PMA_FMT_JSON)
		info_json(out, t);
	else if (format == PMA_FMT_CSV)
		info_csv(out, t);
	else
		pma_info(out, t);
}
