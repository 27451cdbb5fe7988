/* SPDX-License-Identifier: MIT */
/* perfetto.c: Chrome trace-event JSON export of the exact timelines (see perfetto.h). */
#include "perfetto.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"

/* A change of the counter track: at t, running and runnable change by dr and dq. */
struct change {
	uint64_t t_ns;
	int dr, dq;
};

static int cmp_change(const void *a, const void *b)
{
	const struct change *p = a, *q = b;
	return p->t_ns < q->t_ns ? -1 : p->t_ns > q->t_ns;
}

/* Prints name as a JSON string, control characters removed first (names come from the trace). */
static void put_name(FILE *out, const char *name)
{
	char clean[4 * PMT_COMM_MAX + 8];
	cJSON *s;
	char *text;

	pm_cli_sanitize(clean, sizeof(clean), name, strlen(name));
	s = cJSON_CreateString(clean);
	text = s ? cJSON_PrintUnformatted(s) : NULL;
	fputs(text ? text : "\"?\"", out);
	free(text);
	cJSON_Delete(s);
}

static double us(uint64_t t_ns, uint64_t t0_ns)
{
	return t_ns >= t0_ns ? (double)(t_ns - t0_ns) / 1e3 : 0;
}

int pma_export_perfetto(FILE *out, const struct pma_run *run, char *why, size_t whysize)
{
	size_t nslices, nwakes, nchanges = 0;
	const struct pma_slice *sl;
	const struct pma_wake *wk;
	struct change *ch;
	uint64_t t0;
	uint32_t root_pid;
	int running = 0, runnable = 0;
	const char *comm;

	if (!run->has_exact) {
		snprintf(why, whysize, "run %u has no scheduler events to export (record them with "
			 "pmcollect --sched, as root)", run->run_id);
		return -1;
	}
	sl = pma_exact_slices(run->exact, &nslices);
	wk = pma_exact_wakes(run->exact, &nwakes);
	t0 = (uint64_t)run->xst.first_t_ns;
	ch = malloc((2 * nslices + 1) * sizeof(*ch));
	if (!ch) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	root_pid = 0;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", out);
	/* names of the program's threads and processes */
	for (size_t i = 0; i < pma_exact_thread_count(run->exact); i++) {
		uint32_t tgid, tid = pma_exact_thread(run->exact, i, &tgid, &comm);
		if (!root_pid)
			root_pid = tgid ? tgid : tid;
		fprintf(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
			"\"args\":{\"name\":", tgid ? tgid : tid, tid);
		put_name(out, comm[0] ? comm : "?");
		fputs("}},\n", out);
		if (tgid == tid) {
			fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,"
				"\"args\":{\"name\":", tgid);
			put_name(out, comm[0] ? comm : "?");
			fputs("}},\n", out);
		}
	}
	for (size_t i = 0; i < nslices; i++) {
		uint32_t tgid = pma_exact_tgid(run->exact, sl[i].tid, NULL);
		int isrun = sl[i].kind == PMA_SLICE_RUNNING;
		fprintf(out, "{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"sched\",\"pid\":%u,\"tid\":%u,"
			"\"ts\":%.3f,\"dur\":%.3f", isrun ? "running" : "runnable", tgid ? tgid : sl[i].tid,
			sl[i].tid, us(sl[i].t0_ns, t0), (double)(sl[i].t1_ns - sl[i].t0_ns) / 1e3);
		if (isrun)
			fprintf(out, ",\"args\":{\"cpu\":%u}", sl[i].cpu);
		fputs("},\n", out);
		ch[nchanges].t_ns = sl[i].t0_ns;
		ch[nchanges].dr = isrun;
		ch[nchanges++].dq = !isrun;
		ch[nchanges].t_ns = sl[i].t1_ns;
		ch[nchanges].dr = -isrun;
		ch[nchanges++].dq = -!isrun;
	}
	for (size_t i = 0; i < nwakes; i++) {
		uint32_t pw = pma_exact_tgid(run->exact, wk[i].waker, NULL);
		uint32_t pe = pma_exact_tgid(run->exact, wk[i].wakee, NULL);
		fprintf(out, "{\"ph\":\"s\",\"name\":\"wake\",\"cat\":\"wake\",\"id\":%zu,\"pid\":%u,"
			"\"tid\":%u,\"ts\":%.3f,\"args\":{\"waker_cpu_ms\":%.3f}},\n", i,
			pw ? pw : wk[i].waker, wk[i].waker, us(wk[i].t_ns, t0), wk[i].waker_cpu_ns / 1e6);
		fprintf(out, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"wake\",\"cat\":\"wake\",\"id\":%zu,"
			"\"pid\":%u,\"tid\":%u,\"ts\":%.3f},\n", i, pe ? pe : wk[i].wakee, wk[i].wakee,
			us(wk[i].t_ns, t0));
	}
	if (nchanges)
		qsort(ch, nchanges, sizeof(*ch), cmp_change);
	for (size_t i = 0; i < nchanges; i++) {
		running += ch[i].dr;
		runnable += ch[i].dq;
		if (i + 1 < nchanges && ch[i + 1].t_ns == ch[i].t_ns)
			continue; /* one point per instant */
		fprintf(out, "{\"ph\":\"C\",\"name\":\"active threads\",\"pid\":%u,\"ts\":%.3f,"
			"\"args\":{\"running\":%d,\"runnable\":%d}},\n", root_pid, us(ch[i].t_ns, t0),
			running, runnable);
	}
	/* the array may not end with a comma: close it with a last metadata event */
	fprintf(out, "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%u,\"args\":{\"labels\":"
		"\"pmanalyze exact timeline\"}}\n]}\n", root_pid);
	free(ch);
	if (fflush(out) != 0 || ferror(out)) {
		snprintf(why, whysize, "cannot write the timeline: %s", strerror(errno));
		return -1;
	}
	return 0;
}
