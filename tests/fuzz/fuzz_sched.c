/* SPDX-License-Identifier: MIT */
/* fuzz_sched.c: libFuzzer target for the exact mode (analyzer/model/exact.c, analyzer/render/perfetto.c):
 * arbitrary bytes become the scheduler events of an otherwise valid trace, which pmanalyze then
 * loads, reports with every estimator (timelines, critical path, replay on n cores) and exports
 * for Perfetto. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze.h"
#include "estimate.h"
#include "perfetto.h"
#include "pmt.h"
#include "report.h"

/* T is the program's total CPU time U (the replay on 1 core), within rounding. */
static int is_U(double T, const struct pma_exact_stats *x)
{
	return T >= x->work_ns * (1 - 1e-9) - 1 && T <= x->work_ns * (1 + 1e-9) + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOT 100u
#define EV_BYTES 16u /* per event from the input: see decode() */

/* Small fields keep the fuzzer among pids, CPUs and times that meet: each event is
 * t_delta (u16, us) kind (u8) ctx (u8) cpu (u8) common (u8) a (u8) b (u8) c (u8) + padding;
 * pids are ROOT + byte % 8 (0 = idle, 7 = outside the program), a batch boundary every 64. */
static uint32_t pid_of(uint8_t b)
{
	uint32_t k = b % 8;
	return k == 0 ? 0 : k == 7 ? 999 : ROOT + k - 1;
}

static size_t decode(const uint8_t *d, size_t n, struct pmt_sched_event *ev, uint64_t *t)
{
	static const char states[] = "RSDXZTtI";
	size_t k = 0;

	for (size_t at = 0; at + EV_BYTES <= n; at += EV_BYTES, k++) {
		struct pmt_sched_event *e = &ev[k];
		*t += (uint64_t)(d[at] | d[at + 1] << 8) * 1000u;
		e->t_ns = *t;
		e->kind = d[at + 2] % 9; /* 0 and 8 are unknown kinds */
		e->ctx = d[at + 3] & 7;
		e->cpu = d[at + 4] % 3;
		e->common_pid = pid_of(d[at + 5]);
		e->a = pid_of(d[at + 6]);
		e->b = e->kind == PMT_SCHED_SWITCH ? pid_of(d[at + 7]) : d[at + 7] % 4;
		e->c = e->kind == PMT_SCHED_SWITCH ? (uint32_t)states[d[at + 8] % 8] : d[at + 8];
		if (d[at + 9] & 1) /* sometimes a wild value, to reach the range checks */
			e->a = (uint32_t)d[at + 10] << 24 | d[at + 11];
	}
	return k;
}

static int build_trace(int fd, const uint8_t *data, size_t size)
{
	struct pmt_writer *w = NULL;
	struct pmt_sched_event ev[64];
	uint64_t t = 1000000000u;
	char begin[128];
	int rc;

	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		__builtin_trap();
	rc = pmt_writer_open(&w, fd, "{\"cpus\":\"0\",\"interval_ms\":10}", NULL);
	if (rc)
		return rc;
	snprintf(begin, sizeof(begin), "{\"run_id\":0,\"pid\":%u,\"cpus\":\"0\"}", ROOT);
	rc = pmt_writer_json(w, PMT_REC_RUN_BEGIN, 0, t, begin);
	/* two samples of three threads, so the sampled estimators have a run to analyze too */
	for (int s = 0; s < 2 && !rc; s++) {
		struct pmt_thread_sample ts[3];
		for (uint32_t k = 0; k < 3; k++)
			ts[k] = (struct pmt_thread_sample){ .tid = ROOT + k, .tgid = ROOT,
							    .run_ns = (uint64_t)s * 3000000u,
							    .state = 'R', .flags = PMT_TS_SCHEDSTAT_OK };
		struct pmt_sample smp = { 0, t + (uint64_t)s * 10000000u, 100, 3, ts };
		rc = pmt_writer_sample(w, &smp);
	}
	for (size_t at = 0; at < size && !rc; at += 64 * EV_BYTES) {
		size_t n = decode(data + at, size - at < 64 * EV_BYTES ? size - at : 64 * EV_BYTES, ev, &t);
		struct pmt_sched_batch b = { 0, (uint16_t)(at / (64 * EV_BYTES) % 3),
					     (at / (64 * EV_BYTES)) % 5 == 4 ? 7u : 0u, (uint32_t)n, ev };
		rc = pmt_writer_sched(w, &b);
	}
	if (!rc)
		rc = pmt_writer_json(w, PMT_REC_RUN_END, 0, t + 1, "{\"run_id\":0,\"pid\":100}");
	if (pmt_writer_close(w) && !rc)
		rc = PMT_E_IO;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static FILE *out;
	static char path[64];
	struct pma_trace t;
	char why[512];

	if (fd < 0) {
		fd = memfd_create("fuzz-sched", MFD_CLOEXEC);
		out = fopen("/dev/null", "w");
		if (fd < 0 || !out)
			__builtin_trap();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (size > 64 * 1024 || build_trace(fd, data, size) != 0)
		return 0;
	if (pma_trace_load(&t, path, 0, why, sizeof(why)) == 0) {
		static const uint32_t cores[] = { 1, 2, 3, 8 };
		for (int k = -1; k < PMA_EST_COUNT; k++) {
			struct pma_compute_opts o = { .estimator = k, .run_id = -1, .cores = cores,
						      .ncores = 4, .mem_policy = -1 };
			struct pma_result r;
			why[0] = '\0';
			if (pma_compute(&t, 1, &o, &r, why, sizeof(why)) == 0)
				pma_render(out, &r, PMA_FMT_JSON);
			else if (why[0] == '\0')
				__builtin_trap(); /* a failure must say why */
			pma_result_free(&r);
		}
		if (t.nruns && t.runs[0].has_exact) {
			if (pma_export_perfetto(out, &t.runs[0], why, sizeof(why)) < 0)
				__builtin_trap();
			/* the replay's own laws: it always finishes (the wake edges point forward in
			 * the recorded order, so they cannot wait on each other), T(1) = U, and no
			 * core count beats the critical path */
			double T1, Tn, T1c, T2c;
			const struct pma_exact_stats *x = &t.runs[0].xst;
			/* the charged replay's barriers never leave a wait unresolved either (each
			 * participant arrived before the recorded release), and its T(1) is U too */
			struct pma_wake_charge c = { 0, 20000 };
			struct pma_replay_wakes wk;
			if (pma_exact_replay(t.runs[0].exact, 1, &T1) < 0 ||
			    pma_exact_replay(t.runs[0].exact, 64, &Tn) < 0)
				__builtin_trap();
			if (pma_exact_replay_charged(t.runs[0].exact, 2, &c, &T2c, &wk) < 0 || wk.barriers_dropped ||
			    pma_exact_replay_charged(t.runs[0].exact, 1, &c, &T1c, &wk) < 0 || wk.barriers_dropped)
				__builtin_trap();
			if (!is_U(T1, x) || !is_U(T1c, x))
				__builtin_trap();
			if (Tn < x->T_cp_ns * (1 - 1e-9) - 1)
				__builtin_trap();
		}
	} else if (why[0] == '\0') {
		__builtin_trap();
	}
	pma_trace_free(&t);
	return 0;
}
