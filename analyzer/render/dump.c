/* SPDX-License-Identifier: MIT */
/* dump.c: pmanalyze --dump: every record of a trace as one JSON object per line, as stored
 * (FORMAT.md §5), without analysis. */
#include "dump.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/analyze.h"
#include "pm_cli.h"

static const char *rec_name(uint16_t type)
{
	switch (type) {
	case PMT_REC_META: return "meta";
	case PMT_REC_RUN_BEGIN: return "run_begin";
	case PMT_REC_RUN_END: return "run_end";
	case PMT_REC_SAMPLE: return "sample";
	case PMT_REC_TASK: return "task";
	case PMT_REC_COUNTERS: return "counters";
	case PMT_REC_SCHED: return "sched";
	case PMT_REC_PSWITCH: return "pswitch";
	case PMT_REC_ENERGY: return "energy";
	case PMT_REC_SUMMARY: return "summary";
	case PMT_REC_WARNING: return "warning";
	default: return "unknown";
	}
}

/* Writes o as one line of compact JSON and frees it. */
static void print_line(FILE *out, cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);

	if (text)
		fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(o);
}

static void dump_json_record(FILE *out, const struct pmt_record *rec)
{
	cJSON *o = cJSON_Parse(rec->u.json.text);

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "error", "body is not a JSON object");
	}
	cJSON_DeleteItemFromObjectCaseSensitive(o, "type");
	cJSON_AddStringToObject(o, "type", rec_name(rec->type));
	if (!cJSON_HasObjectItem(o, "run_id"))
		cJSON_AddNumberToObject(o, "run_id", rec->u.json.run_id);
	cJSON_AddNumberToObject(o, "t_ns", (double)rec->u.json.t_ns);
	print_line(out, o);
}

static void dump_sample(FILE *out, const struct pmt_record *rec)
{
	const struct pmt_sample *s = &rec->u.sample;
	fprintf(out, "{\"type\":\"sample\",\"run_id\":%u,\"t_ns\":%llu,\"duration_ns\":%u,\"threads\":[",
		s->run_id, (unsigned long long)s->t_ns, s->duration_ns);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct pmt_thread_sample *ts = &s->threads[i];
		char st = ts->state >= 0x21 && ts->state < 0x7f && ts->state != '"' && ts->state != '\\' ?
			ts->state : '?';
		fprintf(out, "%s{\"tid\":%u,\"tgid\":%u,\"run_ns\":%llu,\"wait_ns\":%llu,"
			"\"timeslices\":%llu,\"nvcsw\":%u,\"nivcsw\":%u,\"cpu\":%d,\"state\":\"%c\",\"flags\":%u}",
			i ? "," : "", ts->tid, ts->tgid, (unsigned long long)ts->run_ns,
			(unsigned long long)ts->wait_ns, (unsigned long long)ts->timeslices, ts->nvcsw,
			ts->nivcsw, ts->cpu == PMT_CPU_UNKNOWN ? -1 : ts->cpu, st, ts->flags);
	}
	fputs("]}\n", out);
}

static void dump_task(FILE *out, const struct pmt_record *rec)
{
	static const char *const kinds[] = { "?", "appear", "exit", "exec" };
	const struct pmt_task_event *e = &rec->u.task;
	char comm[PMT_COMM_MAX * 4 + 1];
	cJSON *o = cJSON_CreateObject();

	pm_cli_sanitize(comm, sizeof(comm), e->comm ? e->comm : "", e->comm_len);
	cJSON_AddStringToObject(o, "type", "task");
	cJSON_AddNumberToObject(o, "run_id", e->run_id);
	cJSON_AddNumberToObject(o, "t_ns", (double)e->t_ns);
	cJSON_AddStringToObject(o, "kind", e->kind < 4 ? kinds[e->kind] : "?");
	cJSON_AddNumberToObject(o, "flags", e->flags);
	cJSON_AddNumberToObject(o, "tid", e->tid);
	cJSON_AddNumberToObject(o, "tgid", e->tgid);
	cJSON_AddNumberToObject(o, "ppid", e->ppid);
	cJSON_AddNumberToObject(o, "exit_status", e->exit_status);
	cJSON_AddNumberToObject(o, "final_run_ns", (double)e->final_run_ns);
	cJSON_AddNumberToObject(o, "final_wait_ns", (double)e->final_wait_ns);
	cJSON_AddStringToObject(o, "comm", comm);
	print_line(out, o);
}

static void dump_counters(FILE *out, const struct pmt_record *rec)
{
	const struct pmt_counters *c = &rec->u.counters;
	fprintf(out, "{\"type\":\"counters\",\"run_id\":%u,\"t_ns\":%llu,\"values\":[", c->run_id,
		(unsigned long long)c->t_ns);
	for (uint32_t i = 0; i < c->n; i++) {
		if (c->values[i] == PMT_COUNTER_INVALID)
			fprintf(out, "%snull", i ? "," : "");
		else
			fprintf(out, "%s%lld", i ? "," : "", (long long)c->values[i]);
	}
	fputs("]}\n", out);
}

static void dump_energy(FILE *out, const struct pmt_record *rec)
{
	const struct pmt_energy *e = &rec->u.energy;
	fprintf(out, "{\"type\":\"energy\",\"run_id\":%u,\"t_ns\":%llu,\"energy_uj\":[", e->run_id,
		(unsigned long long)e->t_ns);
	for (uint32_t i = 0; i < e->n; i++)
		fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)e->energy_uj[i]);
	fputs("]}\n", out);
}

/* SCHED and PSWITCH records share one layout (FORMAT.md §5.6, §5.10): one line per event, a
 * record holds up to a million; kinds[k] names kind k < nkinds */
static void dump_events(FILE *out, const struct pmt_sched_batch *b, const char *type,
			const char *const *kinds, unsigned nkinds)
{
	for (uint32_t i = 0; i < b->n; i++) {
		const struct pmt_sched_event *e = &b->events[i];
		fprintf(out, "{\"type\":\"%s\",\"run_id\":%u,\"t_ns\":%llu,\"event\":\"%s\","
			"\"cpu\":%u,\"ctx\":%u,\"common_pid\":%u,\"a\":%u,\"b\":%u,\"c\":%u",
			type, b->run_id, (unsigned long long)e->t_ns,
			kinds[e->kind < nkinds ? e->kind : 0], e->cpu, e->ctx, e->common_pid, e->a,
			e->b, e->c);
		if (i == 0 && b->missed)
			fprintf(out, ",\"missed_before\":%lld",
				b->missed == PMT_SCHED_MISSED_UNKNOWN ? -1LL : (long long)b->missed);
		fputs("}\n", out);
	}
	if (b->n == 0)
		fprintf(out, "{\"type\":\"%s\",\"run_id\":%u,\"cpu\":%u,\"events\":0,"
			"\"missed_before\":%lld}\n", type, b->run_id, b->cpu,
			b->missed == PMT_SCHED_MISSED_UNKNOWN ? -1LL : (long long)b->missed);
}

static void dump_sched(FILE *out, const struct pmt_record *rec)
{
	static const char *const kinds[] = { "?", "switch", "waking", "wakeup", "wakeup_new",
					     "fork", "exit", "migrate" };
	dump_events(out, &rec->u.sched, "sched", kinds, 8);
}

static void dump_pswitch(FILE *out, const struct pmt_record *rec)
{
	static const char *const kinds[] = { "?", "in", "out", "fork", "exit" };
	dump_events(out, &rec->u.pswitch, "pswitch", kinds, 5);
}

static void dump_omp_region(FILE *out, const struct pmt_record *rec)
{
	const struct pmt_omp_region *o = &rec->u.omp;

	fprintf(out, "{\"type\":\"omp_region\",\"run_id\":%u,\"pid\":%u,\"id\":%llu,\"parent_id\":%llu,"
		"\"codeptr_ra\":%llu,\"begin_ns\":%llu,\"end_ns\":%llu,\"depth\":%u,\"requested\":%u,"
		"\"actual\":%u,\"encountering_tid\":%u,\"flags\":%u,\"tids\":[", o->run_id, o->pid,
		(unsigned long long)o->id, (unsigned long long)o->parent_id,
		(unsigned long long)o->codeptr_ra, (unsigned long long)o->begin_ns,
		(unsigned long long)o->end_ns, o->depth, o->requested_team, o->actual_team,
		o->encountering_tid, o->flags);
	for (uint32_t i = 0; i < o->n_tids; i++)
		fprintf(out, "%s%u", i ? "," : "", o->tids[i]);
	fputs("]}\n", out);
}

static void dump_omp_counters(FILE *out, const struct pmt_record *rec)
{
	const struct pmt_omp_counters *c = &rec->u.omp_counters;

	fprintf(out, "{\"type\":\"omp_counters\",\"run_id\":%u,\"pid\":%u,\"tid\":%u,\"region_id\":%llu,"
		"\"values\":[", c->run_id, c->pid, c->tid, (unsigned long long)c->region_id);
	for (uint32_t i = 0; i < c->n; i++)
		fprintf(out, "%s%lld", i ? "," : "", (long long)c->values[i]);
	fputs("]}\n", out);
}

static void dump_record(FILE *out, const struct pmt_record *rec)
{
	switch (rec->type) {
	case PMT_REC_SAMPLE:
		dump_sample(out, rec);
		break;
	case PMT_REC_TASK:
		dump_task(out, rec);
		break;
	case PMT_REC_COUNTERS:
		dump_counters(out, rec);
		break;
	case PMT_REC_SCHED:
		dump_sched(out, rec);
		break;
	case PMT_REC_PSWITCH:
		dump_pswitch(out, rec);
		break;
	case PMT_REC_OMP_REGION:
		dump_omp_region(out, rec);
		break;
	case PMT_REC_ENERGY:
		dump_energy(out, rec);
		break;
	case PMT_REC_OMP_COUNTERS:
		dump_omp_counters(out, rec);
		break;
	case PMT_REC_RUN_BEGIN:
	case PMT_REC_RUN_END:
	case PMT_REC_SUMMARY:
	case PMT_REC_WARNING:
	case PMT_REC_META:
		dump_json_record(out, rec);
		break;
	default:
		fprintf(out, "{\"type\":\"unknown\",\"record_type\":%u}\n", rec->type);
		break;
	}
}

int pma_dump_open(struct pmt_reader **rd, const char *path, unsigned flags, char *why,
		  size_t whysize)
{
	int rc;

	*rd = NULL;
	errno = 0;
	rc = pma_trace_open_reader(rd, path, flags);
	if (rc < 0) {
		if (rc == PMT_E_IO)
			snprintf(why, whysize, "cannot open '%s': %s", path, strerror(errno));
		else
			snprintf(why, whysize, "'%s': %s", path, pmt_strerror(rc));
		pmt_reader_close(*rd);
		*rd = NULL;
	}
	return rc < 0 ? rc : 0;
}

int pma_dump(FILE *out, struct pmt_reader *rd, const char *path, char *why, size_t whysize)
{
	struct pmt_record rec;
	struct pmt_reader_stats st;
	int rc;

	memset(&rec, 0, sizeof(rec));
	rec.type = PMT_REC_META;
	rec.u.json.text = pmt_reader_meta(rd);
	rec.u.json.len = (uint32_t)strlen(rec.u.json.text);
	dump_record(out, &rec);
	while ((rc = pmt_reader_next(rd, &rec)) > 0)
		dump_record(out, &rec);
	if (rc < 0)
		snprintf(why, whysize, "'%s': %s", path, pmt_strerror(rc));
	pmt_reader_stats(rd, &st);
	if (rc == 0 && st.truncated)
		fprintf(out, "{\"type\":\"truncated\",\"chunks\":%llu}\n", (unsigned long long)st.chunks);
	pmt_reader_close(rd);
	return rc < 0 ? rc : 0;
}
