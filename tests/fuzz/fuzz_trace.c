/* SPDX-License-Identifier: MIT */
/* fuzz_trace.c: libFuzzer target for the metadata/JSON path: arbitrary JSON texts become the META,
 * RUN_BEGIN, RUN_END, SUMMARY and WARNING records of an otherwise valid trace, which pmanalyze's
 * loader (analyzer/trace/analyze.c) and every report (--info, table, JSON, CSV, --dump) then read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyze.h"
#include "compute.h"
#include "dump.h"
#include "estimate.h"
#include "pmt.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is up to five texts separated by NUL bytes, in this order. A missing text is "{}". */
enum { T_META, T_BEGIN, T_END, T_SUMMARY, T_WARNING, NTEXTS };

#define NTHREADS 3
#define NSAMPLES 40
#define INTERVAL_NS 10000000u

/* A small, plausible program: NTHREADS threads on one CPU, thread k runnable for the first
 * (k+1)/NTHREADS of the run, so the estimators have real work to do. */
static int write_samples(struct pmt_writer *w)
{
	struct pmt_thread_sample ts[NTHREADS];
	uint64_t run[NTHREADS] = { 0 }, wait[NTHREADS] = { 0 };
	int rc = 0;

	for (uint32_t i = 0; i < NSAMPLES && rc == 0; i++) {
		uint32_t active = 0;
		for (uint32_t k = 0; k < NTHREADS; k++)
			active += i * NTHREADS < (k + 1) * NSAMPLES;
		for (uint32_t k = 0; k < NTHREADS; k++) {
			int on = i * NTHREADS < (k + 1) * NSAMPLES;
			if (i > 0 && on) {
				run[k] += INTERVAL_NS / (active ? active : 1);
				wait[k] += INTERVAL_NS - INTERVAL_NS / (active ? active : 1);
			}
			ts[k] = (struct pmt_thread_sample){ .tid = 100 + k, .tgid = 100, .run_ns = run[k],
							    .wait_ns = wait[k], .timeslices = i,
							    .cpu = 0, .state = on ? 'R' : 'S',
							    .flags = PMT_TS_SCHEDSTAT_OK | PMT_TS_STAT_FRESH };
		}
		struct pmt_sample s = { .run_id = 0, .t_ns = 1000000000u + (uint64_t)i * INTERVAL_NS,
					.duration_ns = 1000, .n = NTHREADS, .threads = ts };
		rc = pmt_writer_sample(w, &s);
	}
	return rc;
}

/* Writes the trace made of texts into fd (truncated first). Returns 0 or a PMT_E_* (a text with
 * a NUL inside cannot happen: NUL separates the texts). */
static int build_trace(int fd, char *const texts[NTEXTS])
{
	struct pmt_writer *w = NULL;
	uint64_t t_end = 1000000000u + (uint64_t)NSAMPLES * INTERVAL_NS;
	int rc;

	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		__builtin_trap();
	rc = pmt_writer_open(&w, fd, texts[T_META], NULL);
	if (rc)
		return rc;
	rc = pmt_writer_json(w, PMT_REC_RUN_BEGIN, 0, 1000000000u, texts[T_BEGIN]);
	if (!rc)
		rc = pmt_writer_json(w, PMT_REC_WARNING, 0, 1000000000u, texts[T_WARNING]);
	if (!rc)
		rc = write_samples(w);
	if (!rc)
		rc = pmt_writer_json(w, PMT_REC_RUN_END, 0, t_end, texts[T_END]);
	if (!rc)
		rc = pmt_writer_json(w, PMT_REC_SUMMARY, 0, t_end, texts[T_SUMMARY]);
	if (pmt_writer_close(w) && !rc)
		rc = PMT_E_IO;
	return rc;
}

static void analyze(const char *path, FILE *out)
{
	static const enum pma_format formats[] = { PMA_FMT_TABLE, PMA_FMT_JSON, PMA_FMT_CSV };
	struct pma_trace t;
	char why[512];

	if (pma_trace_load(&t, path, 0, why, sizeof(why)) == 0) {
		pma_info(out, &t);
		for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
			struct pma_compute_opts o = { .estimator = PMA_EST_RUNNABLE, .run_id = -1 };
			struct pma_result r;
			why[0] = '\0';
			if (pma_compute(&t, 1, &o, &r, why, sizeof(why)) == 0)
				pma_render(out, &r, formats[f]);
			else if (why[0] == '\0')
				__builtin_trap(); /* a failure must say why */
			pma_result_free(&r);
		}
	} else if (why[0] == '\0') {
		__builtin_trap();
	}
	pma_trace_free(&t);
	{
		struct pmt_reader *rd;
		why[0] = '\0';
		if (pma_dump_open(&rd, path, 0, why, sizeof(why)) == 0)
			(void)pma_dump(out, rd, path, why, sizeof(why));
		else if (why[0] == '\0')
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static FILE *out;
	static char path[64];
	static char empty[] = "{}";
	char *copy, *texts[NTEXTS];
	size_t at = 0;

	if (fd < 0) {
		fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
		out = fopen("/dev/null", "w");
		if (fd < 0 || !out)
			__builtin_trap();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	/* NUL-terminated copy, so the texts can be split in place */
	copy = malloc(size + 1);
	if (!copy)
		__builtin_trap();
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (int i = 0; i < NTEXTS; i++) {
		if (at <= size) {
			texts[i] = copy + at;
			at += strlen(copy + at) + 1;
		} else {
			texts[i] = empty;
		}
	}
	if (build_trace(fd, texts) == 0)
		analyze(path, out);
	free(copy);
	return 0;
}
