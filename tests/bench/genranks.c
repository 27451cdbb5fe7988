/* SPDX-License-Identifier: MIT */
/* genranks.c: writes the rank traces of a synthetic MPI job for the merge benchmark (make bench,
 * issue 18): DIR/trace.R.zst for R = 0 .. N-1, through the same writer as pmcollect.
 *
 * Rank r has THREADS threads on THREADS CPUs, all running for W_r = SECONDS * (1 + (r % 8) / 8)
 * seconds, sampled every 10 ms, then the run ends. META has job {rank r, size N, id "bench"} and
 * four ranks per host; RUN_END has C.cpu_time_ns = THREADS * W_r and the clock pairs. Truth: every
 * rank's A(m,inf) = THREADS, and the load-imbalance factor max/mean of the busy time is
 * max W / mean W (1.875 / 1.4375 = 1.3043 when N is a multiple of 8), printed on stdout as JSON.
 *
 * usage: genranks DIR N THREADS SECONDS */
#include "pmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INTERVAL_NS 10000000ull

static int fail(const char *what, int err)
{
	fprintf(stderr, "genranks: %s: %s\n", what, pmt_strerror(err));
	return 1;
}

/* One rank's trace. Returns 0 or 1 after reporting. */
static int rank_trace(const char *dir, unsigned r, unsigned n, unsigned threads, double work_s)
{
	struct pmt_thread_sample *out = calloc(threads, sizeof(*out));
	uint64_t t0 = 1000000000ull + r * 1000000ull, now = t0, end = t0 + (uint64_t)(work_s * 1e9);
	struct pmt_writer *w;
	char path[4096], json[2048];
	int fd, err;

	snprintf(path, sizeof(path), "%s/trace.%u.zst", dir, r);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !out) {
		perror(path);
		return 1;
	}
	snprintf(json, sizeof(json),
		 "{\"format\":\"pmtrace\",\"format_version\":\"1.2\",\"tool\":\"genranks\","
		 "\"tool_version\":\"0.1.0\",\"command\":[\"synthetic-mpi\"],\"env\":{},"
		 "\"hostname\":\"node%u\",\"interval_ms\":10,\"cpus\":\"0-%u\",\"online_cpus\":\"0-%u\","
		 "\"topology\":{\"packages\":1,\"cores\":%u,\"pus\":%u,\"numa_nodes\":1},"
		 "\"sources\":{\"schedstat\":{\"recorded\":true}},"
		 "\"clocks\":{\"mono_ns\":%llu,\"realtime_s\":1795436000,\"realtime_nsec\":%u,"
		 "\"uncertainty_ns\":20},"
		 "\"job\":{\"rank\":%u,\"rank_var\":\"SLURM_PROCID\",\"local_rank\":%u,"
		 "\"local_rank_var\":\"SLURM_LOCALID\",\"size\":%u,\"size_var\":\"SLURM_NTASKS\","
		 "\"id\":\"bench\",\"id_var\":\"SLURM_JOB_ID\",\"host\":\"node%u\"},"
		 "\"node_readings\":{\"taken\":%s}}",
		 r / 4, threads - 1, threads - 1, threads, threads, (unsigned long long)t0, r * 1000u,
		 r, r % 4, n, r / 4, r % 4 == 0 ? "true" : "false");
	if ((err = pmt_writer_open(&w, fd, json, NULL)) < 0)
		return fail("open", err);
	snprintf(json, sizeof(json), "{\"run_id\":0,\"role\":\"run\",\"pid\":1000,\"cpus\":\"0-%u\"}",
		 threads - 1);
	if ((err = pmt_writer_json(w, PMT_REC_RUN_BEGIN, 0, now, json)) < 0)
		return fail("run_begin", err);
	for (uint64_t seq = 0; now < end; seq++) {
		now += INTERVAL_NS;
		for (unsigned i = 0; i < threads; i++) {
			struct pmt_thread_sample *o = &out[i];
			o->tid = 1000 + i;
			o->tgid = 1000;
			o->run_ns = now - t0;
			o->timeslices = seq + 1;
			o->flags = PMT_TS_SCHEDSTAT_OK;
			if ((seq + i) % 16 == 0) {
				o->flags |= PMT_TS_STAT_FRESH;
				o->cpu = i;
				o->state = 'R';
			}
		}
		{
			struct pmt_sample s = { .run_id = 0, .t_ns = now, .duration_ns = 150000,
						.n = threads, .threads = out };
			if ((err = pmt_writer_sample(w, &s)) < 0)
				return fail("sample", err);
		}
	}
	snprintf(json, sizeof(json),
		 "{\"run_id\":0,\"pid\":1000,\"exit\":{\"kind\":\"exited\",\"code\":0,\"signal\":0},"
		 "\"wall_ns\":%llu,\"C\":{\"source\":\"cpu_time\",\"event\":\"schedstat\",\"value\":%llu,"
		 "\"unit\":\"ns\",\"cpu_time_ns\":%llu},"
		 "\"clocks\":{\"begin\":{\"mono_ns\":%llu,\"realtime_s\":1795436000,\"realtime_nsec\":%u},"
		 "\"end\":{\"mono_ns\":%llu,\"realtime_s\":%llu,\"realtime_nsec\":%llu}}}",
		 (unsigned long long)(now - t0), (unsigned long long)(threads * (now - t0)),
		 (unsigned long long)(threads * (now - t0)), (unsigned long long)t0, r * 1000u,
		 (unsigned long long)now, 1795436000ull + (now - t0 + r * 1000u) / 1000000000u,
		 (unsigned long long)((now - t0 + r * 1000u) % 1000000000u));
	if ((err = pmt_writer_json(w, PMT_REC_RUN_END, 0, now, json)) < 0)
		return fail("run_end", err);
	snprintf(json, sizeof(json), "{\"samples\":%llu,\"exit_status\":0,\"runs\":1,\"warnings\":0}",
		 (unsigned long long)((now - t0) / INTERVAL_NS));
	if ((err = pmt_writer_json(w, PMT_REC_SUMMARY, 0, now, json)) < 0)
		return fail("summary", err);
	if ((err = pmt_writer_close(w)) < 0)
		return fail("close", err);
	close(fd);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned n, threads;
	double seconds, sum = 0, max = 0;

	if (argc != 5 || (n = (unsigned)atoi(argv[2])) < 1 || n > 1000000 ||
	    (threads = (unsigned)atoi(argv[3])) < 1 || threads > 1024 || (seconds = atof(argv[4])) <= 0) {
		fprintf(stderr, "usage: genranks DIR N THREADS SECONDS\n");
		return 2;
	}
	if (mkdir(argv[1], 0755) < 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	for (unsigned r = 0; r < n; r++) {
		/* whole samples: the busy time the trace holds */
		double w = seconds * (1 + (r % 8) / 8.0);
		double held = (double)((uint64_t)(w * 1e9 + INTERVAL_NS - 1) / INTERVAL_NS) * INTERVAL_NS / 1e9;
		if (rank_trace(argv[1], r, n, threads, w))
			return 1;
		sum += held;
		if (held > max)
			max = held;
	}
	printf("{\"ranks\":%u,\"threads\":%u,\"imbalance\":%.6f,\"A_inf\":%u}\n", n, threads,
	       max / (sum / n), threads);
	return 0;
}
