/* SPDX-License-Identifier: MIT */
/* gentrace.c: writes a large synthetic pmtrace for the analyzer benchmarks (make bench): THREADS
 * threads of one process on one CPU (an oversubscribed baseline) sampled every 10 ms for SECONDS
 * seconds, through the same writer as pmcollect (formats/pmt_writer.c, default zstd level and chunk size).
 *
 * The schedule is a round-robin CPU with 3 ms slices, so the run-queue values look like a real
 * baseline: every 2 s a 200 ms serial phase (thread 0 alone, the others blocked), otherwise all
 * threads runnable. Cumulative run and wait ns follow schedstat's rules (a wait is credited when the
 * thread next gets the CPU); stat fields every 16th sample per thread, status every 64th, as the
 * collector does. Truth: T_cp = serial time + parallel time / THREADS; printed on stdout as JSON.
 *
 * With a fourth argument "sched" the trace also holds the scheduler events of that schedule (pmtrace
 * 1.1 SCHED records on CPU 0): the fork of every thread at the start and a sched_switch at every
 * change of the running thread, for the exact mode and its timeline plot (make bench).
 *
 * usage: gentrace FILE THREADS SECONDS [sched] */
#include "pmt.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INTERVAL_NS 10000000ull
#define SLICE_NS 3000000ull
#define PERIOD_NS 2000000000ull
#define SERIAL_NS 200000000ull

struct sim {
	uint64_t run_ns, wait_ns, slices, queued_at;
	uint32_t nvcsw, nivcsw;
	int runnable;
};

/* Scheduler events waiting to be written, one batch of CPU 0 at a time. */
static struct pmt_sched_event sched_buf[4096];
static uint32_t sched_n;

static int sched_flush(struct pmt_writer *w)
{
	struct pmt_sched_batch b = { .run_id = 0, .cpu = 0, .n = sched_n, .events = sched_buf };
	int err = sched_n ? pmt_writer_sched(w, &b) : 0;

	sched_n = 0;
	return err;
}

static int sched_event(struct pmt_writer *w, uint64_t t_ns, uint8_t kind, uint32_t common_pid,
		       uint32_t a, uint32_t b, uint32_t c)
{
	sched_buf[sched_n++] = (struct pmt_sched_event){ .t_ns = t_ns, .kind = kind,
		.common_pid = common_pid, .a = a, .b = b, .c = c };
	return sched_n == sizeof(sched_buf) / sizeof(sched_buf[0]) ? sched_flush(w) : 0;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "gentrace: %s: %s\n", what, pmt_strerror(err));
	return 1;
}

int main(int argc, char **argv)
{
	struct pmt_writer *w;
	struct pmt_thread_sample *out;
	struct sim *th;
	uint64_t now = 1000000000ull, end, next_sample, par_ns = 0, ser_ns = 0, t0;
	unsigned threads, cur = 0, running = 0;
	int sched = argc == 5 && strcmp(argv[4], "sched") == 0;
	double seconds;
	char json[1024];
	int fd, err;

	if (argc < 4 || argc > 5 || (argc == 5 && !sched) || (threads = (unsigned)atoi(argv[2])) < 2 || threads > 4096 ||
	    (seconds = atof(argv[3])) <= 0) {
		fprintf(stderr, "usage: gentrace FILE THREADS SECONDS [sched]\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	snprintf(json, sizeof(json),
		 "{\"format\":\"pmtrace\",\"format_version\":\"1.0\",\"tool\":\"gentrace\","
		 "\"tool_version\":\"0.1.0\",\"command\":[\"synthetic\",\"%u threads\",\"%g s\"],"
		 "\"env\":{},\"hostname\":\"synthetic\",\"interval_ms\":10,\"cpus\":\"0\","
		 "\"online_cpus\":\"0-1\",\"topology\":{\"packages\":1,\"cores\":2,\"pus\":2,"
		 "\"numa_nodes\":1},\"sources\":{\"schedstat\":{\"recorded\":true}}}",
		 threads, seconds);
	if ((err = pmt_writer_open(&w, fd, json, NULL)) < 0)
		return fail("open", err);
	th = calloc(threads, sizeof(*th));
	out = calloc(threads, sizeof(*out));
	if (!th || !out)
		return fail("calloc", PMT_E_NOMEM);
	t0 = now;
	snprintf(json, sizeof(json), "{\"run_id\":0,\"role\":\"baseline\",\"pid\":1000,\"cpus\":\"0\","
		 "\"interval_ms\":10}");
	if ((err = pmt_writer_json(w, PMT_REC_RUN_BEGIN, 0, now, json)) < 0)
		return fail("run_begin", err);
	end = now + (uint64_t)(seconds * 1e9);
	next_sample = now + INTERVAL_NS;
	for (unsigned i = 0; i < threads; i++) {
		th[i].runnable = 1;
		th[i].queued_at = now;
		if (sched && i > 0 && (err = sched_event(w, now, PMT_SCHED_FORK, 1000, 1000 + i, 0, 0)) < 0)
			return fail("sched", err);
	}
	for (uint64_t seq = 0; now < end; seq++) {
		/* run slices until the sampling instant */
		while (now < next_sample) {
			uint64_t phase = (now - t0) % PERIOD_NS, slice = SLICE_NS, ran;
			int serial = phase >= PERIOD_NS - SERIAL_NS;
			unsigned tries = 0;

			if (serial) {
				for (unsigned i = 1; i < threads; i++)
					if (th[i].runnable) {
						th[i].runnable = 0;
						th[i].nvcsw++;
					}
				cur = 0;
				if (PERIOD_NS - phase < slice)
					slice = PERIOD_NS - phase;
			} else {
				for (unsigned i = 1; i < threads; i++)
					if (!th[i].runnable) {
						th[i].runnable = 1;
						th[i].queued_at = now;
					}
				if (PERIOD_NS - SERIAL_NS - phase < slice)
					slice = PERIOD_NS - SERIAL_NS - phase;
				while (!th[cur].runnable && tries++ < threads)
					cur = (cur + 1) % threads;
			}
			ran = next_sample - now < slice ? next_sample - now : slice;
			if (sched && cur != running) {
				if ((err = sched_event(w, now, PMT_SCHED_SWITCH, 1000 + running, 1000 + running,
						       1000 + cur, 'R')) < 0)
					return fail("sched", err);
				running = cur;
			}
			th[cur].wait_ns += now - th[cur].queued_at;
			th[cur].run_ns += ran;
			th[cur].slices++;
			now += ran;
			th[cur].queued_at = now;
			if (serial)
				ser_ns += ran;
			else
				par_ns += ran;
			if (ran == slice && !serial) {
				th[cur].nivcsw++;
				cur = (cur + 1) % threads;
			}
		}
		for (unsigned i = 0; i < threads; i++) {
			struct pmt_thread_sample *o = &out[i];
			/* a queued thread's wait is credited when it runs, as schedstat does */
			o->tid = 1000 + i;
			o->tgid = 1000;
			o->run_ns = th[i].run_ns;
			o->wait_ns = th[i].wait_ns;
			o->timeslices = th[i].slices;
			o->flags = PMT_TS_SCHEDSTAT_OK;
			if ((seq + i) % 16 == 0) {
				o->flags |= PMT_TS_STAT_FRESH;
				o->cpu = 0;
				o->state = th[i].runnable ? 'R' : 'S';
			}
			if ((seq + i) % 64 == 0) {
				o->flags |= PMT_TS_STATUS_FRESH;
				o->nvcsw = th[i].nvcsw;
				o->nivcsw = th[i].nivcsw;
			}
		}
		{
			struct pmt_sample s = { .run_id = 0, .t_ns = now, .duration_ns = 150000,
						.n = threads, .threads = out };
			if ((err = pmt_writer_sample(w, &s)) < 0)
				return fail("sample", err);
		}
		next_sample += INTERVAL_NS;
	}
	snprintf(json, sizeof(json), "{\"run_id\":0,\"pid\":1000,\"exit\":{\"kind\":\"exited\","
		 "\"code\":0,\"signal\":0},\"wall_ns\":%llu}", (unsigned long long)(now - t0));
	if (sched && (err = sched_flush(w)) < 0)
		return fail("sched", err);
	if ((err = pmt_writer_json(w, PMT_REC_RUN_END, 0, now, json)) < 0)
		return fail("run_end", err);
	snprintf(json, sizeof(json), "{\"samples\":%llu,\"exit_status\":0,\"runs\":1,\"warnings\":0}",
		 (unsigned long long)((now - t0) / INTERVAL_NS));
	if ((err = pmt_writer_json(w, PMT_REC_SUMMARY, 0, now, json)) < 0)
		return fail("summary", err);
	if ((err = pmt_writer_close(w)) < 0)
		return fail("close", err);
	close(fd);
	printf("{\"threads\":%u,\"seconds\":%g,\"thread_samples\":%llu,\"T_cp_ms\":%.3f,"
	       "\"A_inf\":%.6f}\n", threads, seconds,
	       (unsigned long long)((now - t0) / INTERVAL_NS) * threads,
	       (ser_ns + par_ns / (double)threads) / 1e6,
	       (double)(ser_ns + par_ns) / (ser_ns + par_ns / (double)threads));
	free(th);
	free(out);
	return 0;
}
