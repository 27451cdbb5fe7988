/* SPDX-License-Identifier: MIT */
/* analyze.c: one streaming pass over a trace: routes records to per-run estimators. */
#include "analyze.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pm_util.h"
#include "pm_cli.h"

/* The warnings below are added with (void): out of memory, a warning is dropped and the
 * analysis goes on. */

static struct pma_run *get_run(struct pma_trace *t, uint32_t run_id)
{
	struct pma_run *r;

	/* records come run by run: the last run first */
	if (t->nruns && t->runs[t->nruns - 1].run_id == run_id)
		return &t->runs[t->nruns - 1];
	for (uint32_t i = 0; i < t->nruns; i++)
		if (t->runs[i].run_id == run_id)
			return &t->runs[i];
	if (t->nruns == PMA_MAX_RUNS)
		return NULL;
	r = &t->runs[t->nruns];
	memset(r, 0, sizeof(*r));
	r->run_id = run_id;
	r->est = pma_est_new();
	r->exact = pma_exact_new();
	r->pswitch = pma_pswitch_new();
	pma_profile_init(&r->xprof);
	pma_profile_init(&r->pprof);
	if (!r->est || !r->exact || !r->pswitch) {
		pma_est_free(r->est);
		pma_exact_free(r->exact);
		pma_pswitch_free(r->pswitch);
		return NULL;
	}
	t->nruns++;
	return r;
}

/* The run's CPUs: RUN_BEGIN "cpus", else META "affinity" (pmcollect's own, which a run without
 * --cpus inherited: taskset -c 0 pmcollect, a launcher's binding; docs/model.md, degraded-input
 * case 3), else META "cpus". */
static void run_cpus(struct pma_trace *t, struct pma_run *r)
{
	const char *c = r->info.cpus ? r->info.cpus
			: t->meta.affinity_cpus ? t->meta.affinity_cpus : t->meta.cpus;
	char why[128];

	if (!c)
		return;
	snprintf(r->cpus, sizeof(r->cpus), "%s", c);
	pm_intlist_free(&r->cpu_list);
	if (pm_intlist_parse(c, 0, 1u << 20, &r->cpu_list, why, sizeof(why)) < 0)
		memset(&r->cpu_list, 0, sizeof(r->cpu_list)); /* unknown: 0 CPUs */
	r->cpus_n = (uint32_t)r->cpu_list.n;
	/* samples asked for at a fine interval are merged where oversubscribed; at the default
	 * 10 ms, one that came early after a late one stays as it is */
	if (!(t->meta.interval_ms >= PMA_EST_OVERSUB_WINDOW_NS / 1e6))
		pma_est_set_cpus(r->est, r->cpus_n);
}

static int finish_run(struct pma_run *r, uint64_t t_end_ns)
{
	int rc;

	if (r->finished)
		return 0;
	r->finished = 1;
	rc = pma_est_finish(r->est, t_end_ns);
	pma_est_get_stats(r->est, &r->st);
	return rc;
}

/* The exact mode runs once every record is in: scheduler events of one run come in per-CPU
 * batches that are not in time order across CPUs. */
static int finish_exact(struct pma_trace *t, struct pma_run *r)
{
	if (!r->info.pid) {
		(void)pma_note_add_no_pid(&t->warnings, &(struct pma_note_no_pid){ .run_id = r->run_id });
		return 0;
	}
	pma_exact_set_root(r->exact, r->info.pid);
	if (r->info.sched_lost)
		pma_exact_set_lost(r->exact, r->info.sched_lost);
	if (pma_exact_finish(r->exact, &r->xprof, &r->xst) < 0)
		return -1;
	r->has_exact = r->xst.T_cp_ns > 0;
	if (r->xst.lost || r->xst.gaps)
		(void)pma_note_add_sched_lost(&t->warnings, &(struct pma_note_sched_lost){
			.run_id = r->run_id, .lost = (double)r->xst.lost, .gaps = r->xst.gaps,
			.events = (double)r->xst.events });
	return 0;
}

const struct pma_profile *pma_run_profile(const struct pma_run *r, int k)
{
	if (k == PMA_EST_SCHED)
		return r->has_exact ? &r->xprof : NULL;
	if (k == PMA_EST_SWITCH)
		return r->has_pswitch ? &r->pprof : NULL;
	return pma_est_profile(r->est, (enum pma_estimator_kind)k);
}

/* What load_record can fail with. */
enum { LOAD_NOMEM = -1, LOAD_TOO_MANY = -2 };

/* Keeps a COUNTERS record in run r (r->ctr_*): past PMA_MAX_COUNTER_RECORDS, or with another
 * number of values than the run's first, it is counted in ctr_refused. Returns 0 or LOAD_NOMEM. */
static int keep_counters(struct pma_run *r, const struct pmt_counters *c)
{
	if (!r->ctr_n)
		r->ctr_n = c->n;
	if (!c->n || c->n != r->ctr_n || r->nctr == PMA_MAX_COUNTER_RECORDS) {
		r->ctr_refused++;
		return 0;
	}
	if (PM_GROW(r->ctr_t_ns, r->ctr_t_cap, r->nctr + 1) < 0 ||
	    PM_GROW(r->ctr_values, r->ctr_v_cap, (r->nctr + 1) * c->n) < 0)
		return LOAD_NOMEM;
	memcpy(&r->ctr_values[r->nctr * c->n], c->values, c->n * sizeof(*c->values));
	r->ctr_t_ns[r->nctr++] = c->t_ns;
	return 0;
}

/* Keeps an ENERGY record in run r (r->energy_*), as keep_counters a COUNTERS record. */
static int keep_energy(struct pma_run *r, const struct pmt_energy *e)
{
	if (!r->energy_nz)
		r->energy_nz = e->n;
	if (!e->n || e->n != r->energy_nz || r->nenergy == PMA_MAX_ENERGY_RECORDS) {
		r->energy_refused++;
		return 0;
	}
	if (PM_GROW(r->energy_t_ns, r->energy_t_cap, r->nenergy + 1) < 0 ||
	    PM_GROW(r->energy_uj, r->energy_uj_cap, (r->nenergy + 1) * e->n) < 0)
		return LOAD_NOMEM;
	memcpy(&r->energy_uj[r->nenergy * e->n], e->energy_uj, e->n * sizeof(*e->energy_uj));
	r->energy_t_ns[r->nenergy++] = e->t_ns;
	return 0;
}

/* Routes one record to its run's estimators and the trace's counts. Returns 0, LOAD_NOMEM or
 * LOAD_TOO_MANY (more than PMA_MAX_RUNS runs). */
static int load_record(struct pma_trace *t, const struct pmt_record *rec)
{
	struct pma_run *r = NULL;
	int rc;

	switch (rec->type) {
	case PMT_REC_RUN_BEGIN:
		if (!(r = get_run(t, rec->u.json.run_id)))
			return LOAD_TOO_MANY;
		if (!r->info.has_begin && pma_run_begin_parse(rec->u.json.text, &r->info) < 0)
			return LOAD_NOMEM;
		r->t_begin_ns = rec->u.json.t_ns;
		/* a window that began after the program (--delay): its threads had run before, so
		 * the first sample gives their starting values, not RUN_BEGIN zeros */
		if (!(r->info.window_delay_ns > 0))
			pma_est_begin(r->est, rec->u.json.t_ns);
		run_cpus(t, r);
		return 0;
	case PMT_REC_SAMPLE:
		if (!(r = get_run(t, rec->u.sample.run_id)))
			return LOAD_TOO_MANY;
		if (!r->cpus[0])
			run_cpus(t, r);
		t->samples++;
		t->thread_samples += rec->u.sample.n;
		r->sampled = 1;
		if (!r->finished && pma_est_sample(r->est, &rec->u.sample) < 0)
			return LOAD_NOMEM;
		if (pma_pswitch_sample(r->pswitch, &rec->u.sample) < 0)
			return LOAD_NOMEM;
		return 0;
	case PMT_REC_TASK:
		t->task_events++;
		if (rec->u.task.kind == PMT_TASK_APPEAR)
			t->threads_seen++;
		if (!(r = get_run(t, rec->u.task.run_id)))
			return LOAD_TOO_MANY;
		if (rec->u.task.kind != PMT_TASK_EXIT &&
		    pma_exact_task(r->exact, rec->u.task.tid, rec->u.task.tgid, rec->u.task.comm) < 0)
			return LOAD_NOMEM;
		/* a window that began after the program: the threads of its first sample were
		 * there before the scheduler events */
		if (rec->u.task.kind == PMT_TASK_APPEAR && !r->sampled && r->info.window_delay_ns > 0 &&
		    pma_exact_existing(r->exact, rec->u.task.tid) < 0)
			return LOAD_NOMEM;
		if (!r->finished && pma_est_task(r->est, &rec->u.task) < 0)
			return LOAD_NOMEM;
		return 0;
	case PMT_REC_RUN_END:
		if (!(r = get_run(t, rec->u.json.run_id)))
			return LOAD_TOO_MANY;
		if (!r->info.has_end && pma_run_end_parse(rec->u.json.text, &r->info) < 0)
			return LOAD_NOMEM;
		r->t_end_ns = rec->u.json.t_ns;
		return finish_run(r, rec->u.json.t_ns) < 0 ? LOAD_NOMEM : 0;
	case PMT_REC_SUMMARY:
		if (t->summary.present)
			return 0;
		pma_summary_parse(rec->u.json.text, &t->summary);
		return pma_summary_sources_apply(rec->u.json.text, &t->meta) < 0 ? LOAD_NOMEM : 0;
	case PMT_REC_WARNING: {
		char *code = NULL, *what = pma_warning_parse(rec->u.json.text, &code);
		if (what)
			(void)pma_note_add_recorded(&t->warnings, &(struct pma_note_recorded){
				.what = what, .code = code });
		free(what);
		free(code);
		return 0;
	}
	case PMT_REC_COUNTERS:
		t->counter_records++;
		if (!(r = get_run(t, rec->u.counters.run_id)))
			return LOAD_TOO_MANY;
		return keep_counters(r, &rec->u.counters);
	case PMT_REC_OMP_REGION: {
		const struct pmt_omp_region *o = &rec->u.omp;
		if (!(r = get_run(t, o->run_id)))
			return LOAD_TOO_MANY;
		t->omp_regions++;
		if (r->nomp == PMA_MAX_OMP_INSTANCES) {
			r->omp_refused++;
			return 0;
		}
		if (PM_GROW(r->omp, r->omp_cap, r->nomp + 1) < 0)
			return LOAD_NOMEM;
		r->omp[r->nomp++] = (struct pma_omp_inst){ .id = o->id, .codeptr_ra = o->codeptr_ra,
			.begin_ns = o->begin_ns, .end_ns = o->end_ns, .pid = o->pid, .depth = o->depth,
			.actual_team = o->actual_team, .open = (o->flags & PMT_OMP_OPEN) != 0 };
		return 0;
	}
	case PMT_REC_OMP_COUNTERS: {
		const struct pmt_omp_counters *c = &rec->u.omp_counters;
		if (!(r = get_run(t, c->run_id)))
			return LOAD_TOO_MANY;
		t->omp_counter_records++;
		if (!r->omp_cn)
			r->omp_cn = c->n;
		if (!c->n || c->n != r->omp_cn || r->nomp_ctr == PMA_MAX_OMP_COUNTERS) {
			r->omp_ctr_refused++;
			return 0;
		}
		if (PM_GROW(r->omp_ctr, r->omp_ctr_cap, r->nomp_ctr + 1) < 0 ||
		    PM_GROW(r->omp_cv, r->omp_cv_cap, (r->nomp_ctr + 1) * c->n) < 0)
			return LOAD_NOMEM;
		memcpy(&r->omp_cv[r->nomp_ctr * c->n], c->values, c->n * sizeof(*c->values));
		r->omp_ctr[r->nomp_ctr++] = (struct pma_omp_ctr){ .region_id = c->region_id, .pid = c->pid,
								 .tid = c->tid };
		return 0;
	}
	case PMT_REC_ENERGY:
		if (!(r = get_run(t, rec->u.energy.run_id)))
			return LOAD_TOO_MANY;
		return keep_energy(r, &rec->u.energy);
	case PMT_REC_SCHED:
		if (!(r = get_run(t, rec->u.sched.run_id)))
			return LOAD_TOO_MANY;
		t->sched_events += rec->u.sched.n;
		if (r->exact_refused)
			return 0;
		rc = pma_exact_add(r->exact, &rec->u.sched);
		if (rc == -2) {
			/* the sampled estimators still have every sample */
			r->exact_refused = 1;
			(void)pma_note_add_exact_refused(&t->warnings, &(struct pma_note_exact_refused){
				.run_id = r->run_id, .max_events = PMA_EXACT_MAX_EVENTS });
		}
		return rc == -1 ? LOAD_NOMEM : 0;
	case PMT_REC_PSWITCH:
		if (!(r = get_run(t, rec->u.pswitch.run_id)))
			return LOAD_TOO_MANY;
		if (r->pswitch_refused)
			return 0;
		rc = pma_pswitch_add(r->pswitch, &rec->u.pswitch);
		r->pswitch_refused = rc == -2;
		return rc == -1 ? LOAD_NOMEM : 0;
	default:
		return 0;
	}
}

void pma_run_sampling(const struct pma_trace *t, const struct pma_run *r,
		      struct pma_run_sampling *out)
{
	const struct pma_run_info *ri = &r->info;

	memset(out, 0, sizeof(*out));
	out->interval_ms = t->meta.interval_ms;
	if (ri->has_end && isfinite(ri->interval_final_ms) && ri->interval_final_ms > 0) {
		out->interval_ms = ri->interval_final_ms;
		if (isfinite(ri->interval_requested_ms) &&
		    fabs(ri->interval_requested_ms - ri->interval_final_ms) > 1e-9)
			out->requested_ms = ri->interval_requested_ms;
	}
	int per_run = 0; /* a 1.2 collector writes the counts in every RUN_END */
	for (uint32_t i = 0; i < t->nruns; i++)
		per_run |= t->runs[i].info.has_end && isfinite(t->runs[i].info.samples);
	if (ri->has_end && isfinite(ri->samples)) {
		out->present = 1;
		out->samples = ri->samples;
		out->late = isfinite(ri->late_samples) ? ri->late_samples : 0;
		out->lost = isfinite(ri->lost_samples) ? ri->lost_samples : 0;
	} else if (t->summary.present && !per_run) {
		out->present = out->from_summary = 1;
		out->samples = t->summary.samples;
		out->late = t->summary.late_samples;
		out->lost = t->summary.lost_samples;
	}
	/* late counts samples taken late (a subset of samples); lost, expirations without one */
	out->late = fmin(fmax(out->late, 0), fmax(out->samples, 0));
	out->lost = fmax(out->lost, 0);
	if (out->samples + out->lost > 0)
		out->share = (out->late + out->lost) / (out->samples + out->lost);
}

/* One warning for the runs (or, before format 1.2, the trace) whose collector let PMA_LATE_SHARE
 * or more of its timer expirations come late or go lost: pmanalyze --info showed "warnings none"
 * for make demo's 74 late and 202 lost of 1410. A sweep of 17 runs on a busy machine
 * gave one warning per run: one, for the worst run, with how many runs had them. */
static void warn_late(struct pma_trace *t)
{
	struct pma_run_sampling worst = { 0 };
	double worst_id = -1, count = 0;
	int summary_done = 0;

	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		struct pma_run_sampling s;
		pma_run_sampling(t, r, &s);
		/* SUMMARY's counts (traces before 1.2) are the trace's, whichever run: once */
		if (!s.present || s.share < PMA_LATE_SHARE || s.late + s.lost < PMA_LATE_MIN ||
		    (s.from_summary && summary_done++))
			continue;
		count++;
		if (count == 1 || s.share > worst.share) {
			worst = s;
			worst_id = s.from_summary ? -1.0 : (double)r->run_id;
		}
	}
	if (count)
		(void)pma_note_add_late_warning(&t->warnings, &(struct pma_note_late_warning){
			.run_id = worst_id, .samples = worst.samples, .late = worst.late,
			.lost = worst.lost, .late_pct = 100 * worst.share,
			.interval_ms = worst.interval_ms, .requested_ms = worst.requested_ms,
			.runs = count });
}

/* META says energy was recorded, but no finished run has energy and one gives the reason (a
 * source whose counters did not advance, docs/energy.md): the source was not working, so the report
 * must not list it among the working ones. The META "energy" source becomes "not recorded" with
 * the first run's reason. Returns 0 or -1 (out of memory). */
static int energy_source_check(struct pma_trace *t)
{
	const char *reason = NULL;

	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run_energy *e = &t->runs[i].info.energy;
		if (!t->runs[i].info.has_end)
			continue;
		if (e->present)
			return 0;
		if (!reason)
			reason = e->reason;
	}
	for (size_t i = 0; reason && i < t->meta.nsources; i++) {
		const struct pma_source *src = &t->meta.sources[i];
		if (strcmp(src->name, "energy") == 0 && src->recorded)
			return pma_meta_source_unrecorded(&t->meta, "energy", reason);
	}
	return 0;
}

/* The most threads active at once in profile p (its highest bin with critical-path time: a
 * piece of A active threads is in bin ceil(A)), 0 for an empty one. */
static uint32_t profile_peak(const struct pma_profile *p)
{
	for (size_t k = p->nbins; k-- > 1;)
		if (p->bin_dT_ns[k] > 0)
			return (uint32_t)k;
	return 0;
}

/* After the last record: finishes every run's estimators and the exact mode, and warns about
 * what is missing. Returns 0 or -1 (out of memory). */
static int finish_trace(struct pma_trace *t)
{
	for (uint32_t i = 0; i < t->nruns; i++) {
		struct pma_run *r = &t->runs[i];
		if (!r->finished && finish_run(r, 0) < 0)
			return -1;
		if (t->sched_events && !r->exact_refused && finish_exact(t, r) < 0)
			return -1;
		if (isfinite(r->info.utime_ns) && isfinite(r->info.stime_ns))
			pma_pswitch_cpu_total(r->pswitch, r->info.utime_ns + r->info.stime_ns);
		if (!r->pswitch_refused && pma_pswitch_finish(r->pswitch, &r->pprof, &r->pst) < 0)
			return -1;
		r->has_pswitch = r->pst.T_cp_ns > 0;
		r->m = r->st.m_peak;
		if (r->has_exact && r->xst.max_active > r->m)
			r->m = r->xst.max_active;
		/* the context switches see threads that lived between two samples, as the
		   scheduler events do */
		if (r->has_pswitch && profile_peak(&r->pprof) > r->m)
			r->m = profile_peak(&r->pprof);
		if (!r->info.has_end)
			(void)pma_note_add_run_truncated(&t->warnings, &(struct pma_note_run_truncated){
				.analyzed_s = pma_run_wall_s(r), .run_id = r->run_id });
	}
	if (t->rst.truncated)
		(void)pma_note_add_file_truncated(&t->warnings, &(struct pma_note_file_truncated){
			.chunks = (double)t->rst.chunks });
	if (t->rst.chunks_bad)
		(void)pma_note_add_salvaged(&t->warnings, &(struct pma_note_salvaged){
			.chunks = (double)t->rst.chunks_bad, .bytes = (double)t->rst.bytes_skipped });
	if (t->rst.seq_gaps)
		(void)pma_note_add_seq_gaps(&t->warnings, &(struct pma_note_seq_gaps){
			.chunks = (double)t->rst.seq_gaps });
	if (!t->summary.present && !t->rst.truncated)
		(void)pma_note_add_incomplete(&t->warnings);
	warn_late(t);
	return energy_source_check(t);
}

int pma_trace_open_reader(struct pmt_reader **rd, const char *path, unsigned flags)
{
	int in = strcmp(path, "-") == 0;

	return pmt_reader_open(rd, in ? NULL : path, in ? STDIN_FILENO : -1, flags);
}

int pma_trace_peek_meta(const char *path, unsigned flags, struct pma_meta *m, char *why,
			size_t whysize)
{
	struct pmt_reader *rd = NULL;
	int rc;

	memset(m, 0, sizeof(*m));
	errno = 0;
	rc = pma_trace_open_reader(&rd, path, flags);
	if (rc < 0) {
		snprintf(why, whysize, "cannot open '%s': %s", path,
			 rc == PMT_E_IO ? strerror(rd ? pmt_reader_errno(rd) : errno) : pmt_strerror(rc));
	} else if (pma_meta_parse(pmt_reader_meta(rd), m) < 0) {
		snprintf(why, whysize, "'%s': metadata is not a JSON object", path);
		rc = PMT_E_CORRUPT;
	}
	pmt_reader_close(rd);
	return rc < 0 ? rc : 0;
}

int pma_trace_load(struct pma_trace *t, const char *path, unsigned flags, char *why,
		   size_t whysize)
{
	return pma_trace_load_progress(t, path, flags, NULL, NULL, why, whysize);
}

/* The size of the file behind path in bytes, 0 when unknown (not a regular file). */
static uint64_t file_size_bytes(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
}

int pma_trace_load_progress(struct pma_trace *t, const char *path, unsigned flags,
			    pma_load_progress_fn progress, void *arg, char *why, size_t whysize)
{
	struct pmt_reader *rd = NULL;
	struct pmt_record rec;
	struct pmt_reader_stats rs;
	uint64_t total = progress ? file_size_bytes(path) : 0;
	int rc, lr = 0;

	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	errno = 0;
	rc = pma_trace_open_reader(&rd, path, flags);
	if (rc < 0) {
		if (rc == PMT_E_IO)
			snprintf(why, whysize, "cannot open '%s': %s", path,
				 strerror(rd ? pmt_reader_errno(rd) : errno));
		else
			snprintf(why, whysize, "'%s': %s%s%s%s", path, pmt_strerror(rc),
				 rc == PMT_E_LIMIT ? " (" : "", rc == PMT_E_LIMIT ? pmt_limit_detail() : "",
				 rc == PMT_E_LIMIT ? ")" : "");
		goto out;
	}
	pmt_reader_version(rd, &t->major, &t->minor);
	if (pma_meta_parse(pmt_reader_meta(rd), &t->meta) < 0) {
		snprintf(why, whysize, "'%s': metadata is not a JSON object", path);
		rc = PMT_E_CORRUPT;
		goto out;
	}
	while (lr == 0 && (rc = pmt_reader_next(rd, &rec)) > 0) {
		t->records++;
		lr = load_record(t, &rec);
		if (progress && t->records % PMA_PROGRESS_RECORDS == 0) {
			pmt_reader_stats(rd, &rs);
			progress(arg, rs.bytes_read, total);
		}
	}
	if (lr == LOAD_TOO_MANY) {
		snprintf(why, whysize, "'%s': more than %u runs in one trace", path, PMA_MAX_RUNS);
		rc = PMT_E_LIMIT;
		goto out;
	}
	if (lr == LOAD_NOMEM)
		goto nomem;
	if (rc < 0) {
		snprintf(why, whysize, "'%s': %s%s%s%s after %llu records%s", path, pmt_strerror(rc),
			 rc == PMT_E_LIMIT ? " (" : "", rc == PMT_E_LIMIT ? pmt_limit_detail() : "",
			 rc == PMT_E_LIMIT ? ")" : "", (unsigned long long)t->records,
			 rc == PMT_E_CORRUPT && !(flags & PMT_READ_SALVAGE) ?
			 " (--salvage skips damaged chunks)" : "");
		goto out;
	}
	pmt_reader_stats(rd, &t->rst);
	if (finish_trace(t) < 0)
		goto nomem;
	if (progress)
		progress(arg, t->rst.bytes_read, total);
	rc = 0;
	goto out;
nomem:
	snprintf(why, whysize, "'%s': out of memory", path);
	rc = PMT_E_NOMEM;
out:
	pmt_reader_close(rd);
	return rc;
}

void pma_trace_free(struct pma_trace *t)
{
	if (!t)
		return;
	free(t->path);
	pma_meta_free(&t->meta);
	for (uint32_t i = 0; i < t->nruns; i++) {
		pma_run_info_free(&t->runs[i].info);
		pm_intlist_free(&t->runs[i].cpu_list);
		pma_est_free(t->runs[i].est);
		pma_exact_free(t->runs[i].exact);
		pma_profile_free(&t->runs[i].xprof);
		pma_pswitch_free(t->runs[i].pswitch);
		pma_profile_free(&t->runs[i].pprof);
		free(t->runs[i].omp);
		free(t->runs[i].omp_ctr);
		free(t->runs[i].omp_cv);
		free(t->runs[i].energy_t_ns);
		free(t->runs[i].ctr_t_ns);
		free(t->runs[i].ctr_values);
		free(t->runs[i].energy_uj);
	}
	pma_notes_free(&t->warnings);
	memset(t, 0, sizeof(*t));
}

const struct pma_run *pma_trace_baseline(const struct pma_trace *t)
{
	for (uint32_t i = 0; i < t->nruns; i++)
		if (t->runs[i].info.role == PMA_ROLE_BASELINE)
			return &t->runs[i];
	/* a sweep without its baseline (--no-baseline): the sweep run with the most threads, on the
	 * fewest CPUs (the closest to a baseline) */
	const struct pma_run *best = NULL;
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		if (r->info.role != PMA_ROLE_SWEEP || !r->info.has_end)
			continue;
		if (!best || r->m > best->m ||
		    (r->m == best->m && r->cpus_n < best->cpus_n))
			best = r;
	}
	if (best)
		return best;
	return t->nruns ? &t->runs[0] : NULL;
}

const struct pma_run *pma_trace_run(const struct pma_trace *t, long run_id)
{
	if (run_id < 0)
		return pma_trace_baseline(t);
	for (uint32_t i = 0; i < t->nruns; i++)
		if (t->runs[i].run_id == (uint64_t)run_id)
			return &t->runs[i];
	return NULL;
}

double pma_run_wall_s(const struct pma_run *r)
{
	/* a run cut short (no RUN_END) ends at its last sample */
	uint64_t t1_ns = r->t_end_ns ? r->t_end_ns : r->st.last_t_ns;

	if (t1_ns > r->t_begin_ns && r->t_begin_ns)
		return (double)(t1_ns - r->t_begin_ns) / 1e9;
	return (double)(r->st.last_t_ns - r->st.first_t_ns) / 1e9;
}

double pma_run_program_wall_s(const struct pma_run *r)
{
	return r->info.wall_ns > 0 ? r->info.wall_ns / 1e9 : pma_run_wall_s(r);
}

int pma_run_exited_ok(const struct pma_run *r)
{
	return r->info.has_end && r->info.exit_kind == PMA_EXIT_EXITED && r->info.exit_code == 0;
}

int pma_run_attached_window(const struct pma_run *r)
{
	const struct pma_run_info *ri = &r->info;

	return ri->has_end && ri->window_end && ri->window_after && strcmp(ri->window_end, "duration") == 0 &&
	       strcmp(ri->window_after, "left") == 0 && isfinite(ri->window_length_ns) &&
	       ri->window_length_ns > 0;
}

int pma_traces_same_program(const struct pma_trace *traces, int ntraces, char *why, size_t whysize)
{
	const struct pma_meta *m0 = &traces[0].meta;

	for (int i = 1; i < ntraces; i++) {
		const struct pma_meta *mi = &traces[i].meta;
		size_t n = m0->ncommand > mi->ncommand ? m0->ncommand : mi->ncommand;
		/* a machine's calibration alone (pmcollect --calibrate-wake): no program, no runs */
		if (!traces[i].nruns && !mi->ncommand)
			continue;
		for (size_t k = 0; k < n; k++) {
			const char *sa = k < m0->ncommand && m0->command[k] ? m0->command[k] : "(nothing)";
			const char *sb = k < mi->ncommand && mi->command[k] ? mi->command[k] : "(nothing)";
			char ca[120], cb[120];
			if (strcmp(sa, sb) == 0)
				continue;
			snprintf(why, whysize, "'%s' records a different program than '%s': argument %zu is "
				 "'%s', not '%s' (use --force to combine them)", traces[i].path,
				 traces[0].path, k, pm_cli_sanitize(cb, sizeof(cb), sb, strlen(sb)),
				 pm_cli_sanitize(ca, sizeof(ca), sa, strlen(sa)));
			return -1;
		}
	}
	return 0;
}
