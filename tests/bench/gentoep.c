/* SPDX-License-Identifier: MIT */
/* gentoep.c: a synthetic training set for pmanalyze --learn and --toep (issue 16) whose answer is
 * known by construction, written through the trace writer (formats/pmt_writer.c) like pmcollect.
 *
 * Six traces DIR/size-S-rR.pmt, S = 1, 2, 4 (META label size=S), repetitions R = 1, 2, each with
 * the 64 runs (a trace holds at most 64) of m = 1..16 threads on n = 1..4 CPUs: 384 runs of 192
 * configurations. A run's wall time is
 *
 *     T(m, n, S) = (0.2 S + S / min(m, n)) (1 + omega(n)) + 0.01 m,
 *     omega(n) = 0 for n <= 2, 0.8 for n >= 3
 *
 * times (1 + e), e uniform in [-NOISE, +NOISE] (default 0.02) from SEED: a serial part of 0.2 S
 * seconds, a parallel part of S CPU-seconds shared by the m threads, a contention factor that
 * steps up from the third CPU (a saturated memory system) and a per-thread start-up cost. The samples (every 20 ms, schedstat run
 * and wait ns) show the schedule without the start-up: thread 0 alone for 0.2 S (1 + omega),
 * then all m threads runnable, each running min(m, n) / m of the time. So a 1- or 2-CPU
 * baseline's profile predicts T(1) / A(m, n) = 0.2 S + S / min(m, n), and the factor 1 + omega(n)
 * shows only in the runs' CPU time C(n) (1.2 S (1 + omega(n))), from which pmanalyze --learn fits
 * eq. 8 of Tudor & Teo (a line through (n, 1 / C(n)), which a step fits badly): a forest given
 * the model's prediction and the
 * CPU count can learn it, a linear model in those features cannot (the factor multiplies and
 * steps): with this construction the forest's R² on TOEP's larger training shares is above the
 * linear regression's, as in TOEP §IV-D (99.01 against 88.88 for HOMB).
 *
 * usage: gentoep DIR [SEED [NOISE]]     prints the truth of every configuration as CSV:
 *        size,threads,cores,T_s */
#include "pmt.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INTERVAL_NS 20000000ull
#define MAX_THREADS 16
#define MAX_CPUS 4
#define REPS 2

static uint64_t rng_state;
static double rnd(void) /* xorshift64*, [0, 1) */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* contention that sets in when a third CPU shares the memory system: a step, not in the profile */
static double omega(unsigned n)
{
	return n >= 3 ? 0.8 : 0.0;
}

static double truth_s(unsigned m, unsigned n, double S)
{
	return (0.2 * S + S / (m < n ? m : n)) * (1 + omega(n)) + 0.01 * m;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "gentoep: %s: %s\n", what, pmt_strerror(err));
	return 1;
}

/* One run: RUN_BEGIN, the samples of its schedule, RUN_END with the noisy wall time. */
static int write_run(struct pmt_writer *w, uint32_t id, unsigned m, unsigned n, double S,
		     double noise, uint64_t *now)
{
	struct pmt_thread_sample ts[MAX_THREADS];
	uint64_t run[MAX_THREADS] = { 0 }, wait[MAX_THREADS] = { 0 }, t0 = *now, end;
	double f = 1 + omega(n), T = truth_s(m, n, S) * (1 + noise * (2 * rnd() - 1));
	uint64_t serial_ns = (uint64_t)(0.2 * S * f * 1e9);
	uint64_t par_ns = (uint64_t)(S / (m < n ? m : n) * f * 1e9);
	unsigned busy = m < n ? m : n;
	char json[512];
	int err;

	snprintf(json, sizeof(json), "{\"run_id\":%u,\"role\":\"run\",\"pid\":%u,\"cpus\":\"0-%u\","
		 "\"threads\":%u,\"interval_ms\":20,\"mempolicy\":{\"mode\":\"default\"}}",
		 id, 1000 + id, n - 1, m);
	if (n == 1)
		snprintf(json, sizeof(json), "{\"run_id\":%u,\"role\":\"run\",\"pid\":%u,\"cpus\":\"0\","
			 "\"threads\":%u,\"interval_ms\":20,\"mempolicy\":{\"mode\":\"default\"}}",
			 id, 1000 + id, m);
	if ((err = pmt_writer_json(w, PMT_REC_RUN_BEGIN, id, *now, json)) < 0)
		return err;
	end = t0 + serial_ns + par_ns;
	for (uint64_t t = t0 + INTERVAL_NS; t <= end; t += INTERVAL_NS) {
		int serial = t - t0 <= serial_ns;
		for (unsigned i = 0; i < m; i++) {
			if (serial) {
				run[i] += i == 0 ? INTERVAL_NS : 0;
			} else {
				run[i] += INTERVAL_NS * busy / m;
				wait[i] += INTERVAL_NS - INTERVAL_NS * busy / m;
			}
			ts[i] = (struct pmt_thread_sample){ .tid = 1000 * (id + 2) + i, .tgid = 1000 + id,
				.run_ns = run[i], .wait_ns = wait[i], .timeslices = t / INTERVAL_NS,
				.flags = PMT_TS_SCHEDSTAT_OK };
		}
		struct pmt_sample s = { .run_id = id, .t_ns = t, .duration_ns = 100000, .n = m,
					.threads = ts };
		if ((err = pmt_writer_sample(w, &s)) < 0)
			return err;
	}
	*now = t0 + (uint64_t)(T * 1e9);
	snprintf(json, sizeof(json), "{\"run_id\":%u,\"pid\":%u,\"exit\":{\"kind\":\"exited\","
		 "\"code\":0,\"signal\":0},\"wall_ns\":%llu}", id, 1000 + id,
		 (unsigned long long)(*now - t0));
	if ((err = pmt_writer_json(w, PMT_REC_RUN_END, id, *now, json)) < 0)
		return err;
	*now += 1000000000ull;
	return 0;
}

int main(int argc, char **argv)
{
	static const double sizes[] = { 1, 2, 4 };
	double noise = argc > 3 ? atof(argv[3]) : 0.02;
	char path[4096], meta[1024];
	int err;

	if (argc < 2 || argc > 4 || !(noise >= 0 && noise < 1)) {
		fprintf(stderr, "usage: gentoep DIR [SEED [NOISE]]\n");
		return 2;
	}
	rng_state = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1) * 0x9e3779b97f4a7c15ull + 1;
	printf("size,threads,cores,T_s\n");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) * REPS; k++) {
		double S = sizes[k / REPS];
		unsigned rep = k % REPS;
		struct pmt_writer *w;
		uint64_t now = 1000000000ull;
		uint32_t id = 0;
		int fd;

		snprintf(path, sizeof(path), "%s/size-%g-r%u.pmt", argv[1], S, rep + 1);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		snprintf(meta, sizeof(meta),
			 "{\"format\":\"pmtrace\",\"format_version\":\"1.2\",\"tool\":\"gentoep\","
			 "\"tool_version\":\"0.1.0\",\"command\":[\"synthetic-toep\",\"%g\"],"
			 "\"labels\":{\"size\":\"%g\"},\"env\":{},\"hostname\":\"synthetic\","
			 "\"interval_ms\":20,\"cpus\":\"0-3\",\"online_cpus\":\"0-3\","
			 "\"topology\":{\"packages\":1,\"cores\":4,\"pus\":4,\"numa_nodes\":1},"
			 "\"sources\":{\"schedstat\":{\"recorded\":true}}}", S, S);
		if ((err = pmt_writer_open(&w, fd, meta, NULL)) < 0)
			return fail("open", err);
		for (unsigned m = 1; m <= MAX_THREADS; m++)
			for (unsigned n = 1; n <= MAX_CPUS; n++)
				if ((err = write_run(w, id++, m, n, S, noise, &now)) < 0)
					return fail("run", err);
		snprintf(meta, sizeof(meta), "{\"samples\":0,\"late_samples\":0,\"lost_samples\":0,"
			 "\"exit_status\":0,\"runs\":%u,\"warnings\":0}", id);
		if ((err = pmt_writer_json(w, PMT_REC_SUMMARY, 0, now, meta)) < 0 ||
		    (err = pmt_writer_close(w)) < 0)
			return fail("close", err);
		close(fd);
		for (unsigned m = 1; m <= MAX_THREADS && !rep; m++)
			for (unsigned n = 1; n <= MAX_CPUS; n++)
				printf("%g,%u,%u,%.6f\n", S, m, n, truth_s(m, n, S));
	}
	return 0;
}
