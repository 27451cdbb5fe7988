/* SPDX-License-Identifier: MIT */
/* workload.h: the helpers every test workload shares: exact CPU burns (the ground truth of
 * tests/workloads/README.md), the thread CPU clock, and option parsing. Header-only, so each
 * workload still builds from its own .c file; define PROG and declare usage() before including. */
#ifndef PMT_WORKLOAD_H
#define PMT_WORKLOAD_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef PROG
#error "define PROG (the workload's name) before including workload.h"
#endif

/* Between two clock reads: long enough that the syscall costs ~1-2%, short enough that the
 * overshoot at the end of a burn is a few microseconds. */
#define BURN_CHECK_NS 20000

static void usage(FILE *f);

/* Own CPU time of the calling thread in ns; not wall time, so preemption does not count. */
static inline int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in ns: the clock of the collector's records. */
static inline int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin on register-resident arithmetic for n iterations; the asm keeps the compiler from
 * folding the loop away while touching no memory (so no cache or bandwidth contention). */
static inline uint64_t spin(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/*
 * burn_ms() - consume exactly @ms milliseconds of the calling thread's CPU time.
 *
 * The chunk size is recalibrated from each chunk's own CPU cost, so a check happens about
 * every BURN_CHECK_NS of work whatever the CPU speed, and the last chunk is shrunk to the
 * time left so the overshoot is about one clock_gettime() call.
 */
static inline void burn_ms(double ms)
{
	static __thread uint64_t iters_per_check = 256; /* warms up on the first chunks */
	int64_t budget_ns = llround(ms * 1e6);
	int64_t start_ns, now_ns, left_ns;
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	if (budget_ns <= 0)
		return;
	start_ns = now_ns = thread_cpu_ns();
	while ((left_ns = start_ns + budget_ns - now_ns) > 0) {
		uint64_t n = iters_per_check;
		int full = left_ns >= BURN_CHECK_NS;
		int64_t t_ns, used_ns;

		if (!full)
			n = n * (uint64_t)left_ns / BURN_CHECK_NS + 1;
		x = spin(x, n);
		t_ns = thread_cpu_ns();
		used_ns = t_ns - now_ns;
		if (full && used_ns > 0) {
			uint64_t next = n * BURN_CHECK_NS / (uint64_t)used_ns;

			iters_per_check = next < 16 ? 16 : next > (1u << 26) ? (1u << 26) : next;
		}
		now_ns = t_ns;
	}
	__asm__ volatile("" : : "r"(x));
}

/* A decimal integer in [lo, hi], the whole string; -1 otherwise. */
static inline int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static inline int parse_int(const char *s, int lo, int hi, int *out)
{
	long v;

	if (parse_long(s, lo, hi, &v))
		return -1;
	*out = (int)v;
	return 0;
}

static inline int parse_ms(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

static inline int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, PROG ": error: %s '%s'\n", what, arg);
	usage(stderr);
	return 2;
}

/* After getopt: 0 when every argument was an option, else the usage error's exit code 2. */
static inline int no_operands(int argc, char **argv, int first)
{
	if (first == argc)
		return 0;
	fprintf(stderr, PROG ": error: unexpected argument '%s'\n", argv[first]);
	usage(stderr);
	return 2;
}

#endif
