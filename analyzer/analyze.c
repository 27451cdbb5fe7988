/* SPDX-License-Identifier: MIT */
/* analyze.c: one streaming pass over a trace: routes records to per-run estimators. */
#include "analyze.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmt_cli.h"

void pma_trace_warn(struct pma_trace *t, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (t->nwarnings == PMA_MAX_WARNINGS) {
		t->warnings_dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->warnings[t->nwarnings] = strdup(buf);
	if (t->warnings[t->nwarnings])
		t->nwarnings++;
}

/* Replaces control characters and invalid UTF-8 in one string of a parsed JSON record (in place:
 * the result is never longer). */
static void sanitize_string(char *s)
{
	size_t n = strlen(s);
	char *clean = malloc(n + 1);

	if (!clean) {
		/* cannot sanitize: blank it rather than print it raw */
		memset(s, '?', n);
		return;
	}
	pmt_cli_sanitize(clean, n + 1, s, n);
	memcpy(s, clean, strlen(clean) + 1);
	free(clean);
}

/* Sanitizes every key and string value of a parsed tree (siblings and children). */
static void sanitize_tree(cJSON *o)
{
	for (; o; o = o->next) {
		if (o->string)
			sanitize_string(o->string);
		if (cJSON_IsString(o) && o->valuestring)
			sanitize_string(o->valuestring);
		sanitize_tree(o->child);
	}
}

/* Parses a JSON record of the trace and sanitizes it, so nothing a trace carries (a command line,
 * a path, a warning) can put control characters on a terminal or into a report. NULL when the text
 * is not JSON. Size is bounded by the reader (PMT_MAX_JSON_BYTES, 16 MiB) and depth by cJSON
 * (CJSON_NESTING_LIMIT, 1000). */
static cJSON *parse_json(const char *text)
{
	cJSON *o = cJSON_Parse(text);

	if (o)
		sanitize_tree(o);
	return o;
}

static struct pma_run *get_run(struct pma_trace *t, uint32_t run_id)
{
	struct pma_run *r;

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
	pma_profile_init(&r->xprof);
	if (!r->est || !r->exact) {
		pma_est_free(r->est);
		pma_exact_free(r->exact);
		return NULL;
	}
	t->nruns++;
	return r;
}

/* CPU count of a cpulist string ("0-3,8" -> 5); 0 when it does not parse. */
static uint32_t cpulist_count(const char *s)
{
	struct pmt_intlist l;
	char why[128];
	uint32_t n;

	if (!s || pmt_intlist_parse(s, 0, 1u << 20, &l, why, sizeof(why)) < 0)
		return 0;
	n = (uint32_t)l.n;
	pmt_intlist_free(&l);
	return n;
}

static void run_cpus(struct pma_trace *t, struct pma_run *r)
{
	const cJSON *c = r->begin ? cJSON_GetObjectItemCaseSensitive(r->begin, "cpus") : NULL;

	if (!cJSON_IsString(c))
		c = cJSON_GetObjectItemCaseSensitive(t->meta, "cpus");
	if (cJSON_IsString(c)) {
		snprintf(r->cpus, sizeof(r->cpus), "%s", c->valuestring);
		r->cpus_n = cpulist_count(c->valuestring);
	}
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
	const cJSON *pid = r->begin ? cJSON_GetObjectItemCaseSensitive(r->begin, "pid") : NULL;
	const cJSON *se = r->end ? cJSON_GetObjectItemCaseSensitive(r->end, "sched_events") : NULL;
	const cJSON *lost = se ? cJSON_GetObjectItemCaseSensitive(se, "lost") : NULL;

	if (!cJSON_IsNumber(pid) || pid->valuedouble <= 0 || pid->valuedouble > UINT32_MAX) {
		pma_trace_warn(t, "run %u: scheduler events ignored: no process id in its RUN_BEGIN",
			       r->run_id);
		return 0;
	}
	pma_exact_set_root(r->exact, (uint32_t)pid->valuedouble);
	if (cJSON_IsNumber(lost) && lost->valuedouble > 0)
		pma_exact_set_lost(r->exact, (uint64_t)lost->valuedouble);
	if (pma_exact_finish(r->exact, &r->xprof, &r->xst) < 0)
		return -1;
	r->has_exact = r->xst.T_cp_ns > 0;
	if (r->xst.lost || r->xst.gaps)
		pma_trace_warn(t, "run %u: %llu scheduler events lost (%u gaps in %llu recorded): the "
			       "exact estimate is uncertain by about %.1f%%", r->run_id,
			       (unsigned long long)r->xst.lost, r->xst.gaps,
			       (unsigned long long)r->xst.events,
			       100.0 * (double)(r->xst.lost ? r->xst.lost : r->xst.gaps) /
				       (double)(r->xst.events + (r->xst.lost ? r->xst.lost : r->xst.gaps)));
	return 0;
}

const struct pma_profile *pma_run_profile(const struct pma_run *r, int k)
{
	if (k == PMA_EST_SCHED)
		return r->has_exact ? &r->xprof : NULL;
	return pma_est_profile(r->est, (enum pma_estimator_kind)k);
}

int pma_trace_load(struct pma_trace *t, const char *path, unsigned flags, char *why,
		   size_t whysize)
{
	struct pmt_reader *rd = NULL;
	struct pmt_record rec;
	int rc;

	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	errno = 0;
	rc = pmt_reader_open(&rd, path, -1, flags);
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
	t->meta = parse_json(pmt_reader_meta(rd));
	if (!cJSON_IsObject(t->meta)) {
		snprintf(why, whysize, "'%s': metadata is not a JSON object", path);
		rc = PMT_E_CORRUPT;
		goto out;
	}
	while ((rc = pmt_reader_next(rd, &rec)) > 0) {
		struct pma_run *r = NULL;

		t->records++;
		switch (rec.type) {
		case PMT_REC_RUN_BEGIN:
			if (!(r = get_run(t, rec.u.json.run_id)))
				goto too_many;
			if (!r->begin)
				r->begin = parse_json(rec.u.json.text);
			r->t_begin_ns = rec.u.json.t_ns;
			pma_est_begin(r->est, rec.u.json.t_ns);
			run_cpus(t, r);
			break;
		case PMT_REC_SAMPLE:
			if (!(r = get_run(t, rec.u.sample.run_id)))
				goto too_many;
			if (!r->cpus[0])
				run_cpus(t, r);
			t->samples++;
			t->thread_samples += rec.u.sample.n;
			if (!r->finished && pma_est_sample(r->est, &rec.u.sample) < 0)
				goto nomem;
			break;
		case PMT_REC_TASK:
			t->task_events++;
			if (rec.u.task.kind == PMT_TASK_APPEAR)
				t->threads_seen++;
			if (!(r = get_run(t, rec.u.task.run_id)))
				goto too_many;
			if (rec.u.task.kind != PMT_TASK_EXIT &&
			    pma_exact_task(r->exact, rec.u.task.tid, rec.u.task.tgid, rec.u.task.comm) < 0)
				goto nomem;
			if (!r->finished && pma_est_task(r->est, &rec.u.task) < 0)
				goto nomem;
			break;
		case PMT_REC_RUN_END:
			if (!(r = get_run(t, rec.u.json.run_id)))
				goto too_many;
			if (!r->end)
				r->end = parse_json(rec.u.json.text);
			r->t_end_ns = rec.u.json.t_ns;
			if (finish_run(r, rec.u.json.t_ns) < 0)
				goto nomem;
			break;
		case PMT_REC_SUMMARY:
			if (!t->summary)
				t->summary = parse_json(rec.u.json.text);
			break;
		case PMT_REC_WARNING: {
			cJSON *w = parse_json(rec.u.json.text);
			const cJSON *what = cJSON_GetObjectItemCaseSensitive(w, "what");
			if (cJSON_IsString(what))
				pma_trace_warn(t, "recorded: %s", what->valuestring);
			cJSON_Delete(w);
			break;
		}
		case PMT_REC_COUNTERS:
			t->counter_records++;
			break;
		case PMT_REC_SCHED:
			if (!(r = get_run(t, rec.u.sched.run_id)))
				goto too_many;
			t->sched_events += rec.u.sched.n;
			if (r->exact_refused)
				break;
			rc = pma_exact_add(r->exact, &rec.u.sched);
			if (rc == -2) {
				/* the sampled estimators still have every sample */
				r->exact_refused = 1;
				pma_trace_warn(t, "run %u: more than %u scheduler events: exact mode off "
					       "(sampled estimate used)", r->run_id, PMA_EXACT_MAX_EVENTS);
			} else if (rc < 0) {
				goto nomem;
			}
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		snprintf(why, whysize, "'%s': %s%s%s%s after %llu records%s", path, pmt_strerror(rc),
			 rc == PMT_E_LIMIT ? " (" : "", rc == PMT_E_LIMIT ? pmt_limit_detail() : "",
			 rc == PMT_E_LIMIT ? ")" : "", (unsigned long long)t->records,
			 rc == PMT_E_CORRUPT && !(flags & PMT_READ_SALVAGE) ?
			 " (--salvage skips damaged chunks)" : "");
		goto out;
	}
	pmt_reader_stats(rd, &t->rst);
	for (uint32_t i = 0; i < t->nruns; i++) {
		struct pma_run *r = &t->runs[i];
		if (!r->finished && finish_run(r, 0) < 0)
			goto nomem;
		if (t->sched_events && !r->exact_refused && finish_exact(t, r) < 0)
			goto nomem;
		if (!r->end) {
			double got = r->st.last_t_ns > r->t_begin_ns && r->t_begin_ns ?
				(double)(r->st.last_t_ns - r->t_begin_ns) / 1e9 :
				(double)(r->st.last_t_ns - r->st.first_t_ns) / 1e9;
			pma_trace_warn(t, "truncated: analyzed %.2f s of run %u (no end-of-run record)",
				       got, r->run_id);
		}
	}
	if (t->rst.truncated)
		pma_trace_warn(t, "truncated: the file ends inside a chunk; analyzed the %llu complete chunk%s",
			       (unsigned long long)t->rst.chunks, t->rst.chunks == 1 ? "" : "s");
	if (t->rst.chunks_bad)
		pma_trace_warn(t, "salvaged: skipped %llu damaged chunks (%llu bytes)",
			       (unsigned long long)t->rst.chunks_bad,
			       (unsigned long long)t->rst.bytes_skipped);
	if (t->rst.seq_gaps)
		pma_trace_warn(t, "chunks missing, repeated or out of order: %llu",
			       (unsigned long long)t->rst.seq_gaps);
	if (!t->summary && !t->rst.truncated)
		pma_trace_warn(t, "incomplete: the collector did not finish the trace (no summary record)");
	rc = 0;
	goto out;
too_many:
	snprintf(why, whysize, "'%s': more than %u runs in one trace", path, PMA_MAX_RUNS);
	rc = PMT_E_LIMIT;
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
	cJSON_Delete(t->meta);
	cJSON_Delete(t->summary);
	for (uint32_t i = 0; i < t->nruns; i++) {
		cJSON_Delete(t->runs[i].begin);
		cJSON_Delete(t->runs[i].end);
		pma_est_free(t->runs[i].est);
		pma_exact_free(t->runs[i].exact);
		pma_profile_free(&t->runs[i].xprof);
	}
	for (uint32_t i = 0; i < t->nwarnings; i++)
		free(t->warnings[i]);
	memset(t, 0, sizeof(*t));
}

const struct pma_run *pma_trace_baseline(const struct pma_trace *t)
{
	for (uint32_t i = 0; i < t->nruns; i++) {
		const cJSON *role = t->runs[i].begin ?
			cJSON_GetObjectItemCaseSensitive(t->runs[i].begin, "role") : NULL;
		if (cJSON_IsString(role) && strcmp(role->valuestring, "baseline") == 0)
			return &t->runs[i];
	}
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
