/* SPDX-License-Identifier: MIT */
/* workload.h: the helpers every test workload shares: exact CPU burns (the ground truth of
 * tests/workloads/README.md), the thread CPU clock, and option parsing. Header-only, so each
 * workload still builds from its own .c file; define PROG and declare usage() before including. */
#ifndef PMT_WORKLOAD_H
#define PMT_WORKLOAD_H

#include <errno.h>
#include <getopt.h>
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

/* The whole process's CPU time in ns (CLOCK_PROCESS_CPUTIME_ID: every thread, work loops, waits
 * and start-up alike): the U of a tool that counts every running slice, at any load. */
static inline int64_t process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
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

/* What an option of workload_options() sets. */
enum workload_opt_kind {
	WL_FLAG,   /* int *dest = 1; no argument */
	WL_INT,    /* int *dest, a decimal integer in [lo, hi] */
	WL_LONG,   /* long *dest, a decimal integer in [lo, hi] */
	WL_MS,     /* double *dest, milliseconds in [0, 1e7] (parse_ms) */
	WL_DOUBLE, /* double *dest, through the option's own parse() */
};

/* One option of a workload: -letter / --name. On a bad argument the workload prints
 * PROG ": error: <what> '<argument>'" and its usage to stderr, and exits with 2. */
struct workload_opt {
	const char *name;
	int letter;
	enum workload_opt_kind kind;
	void *dest;
	long lo, hi;                         /* WL_INT, WL_LONG: the accepted range */
	const char *what;                    /* the usage error's words: "invalid thread count" */
	int (*parse)(const char *, double *); /* WL_DOUBLE: 0, or -1 for a bad argument */
	int *given;                          /* if not NULL: set to 1 when the option is given */
};

/* The rows of a table of struct workload_opt, by kind. */
#define WL_OPT_FLAG(name, letter, dest) { name, letter, WL_FLAG, dest, 0, 0, NULL, NULL, NULL }
#define WL_OPT_INT(name, letter, dest, lo, hi, what) \
	{ name, letter, WL_INT, dest, lo, hi, what, NULL, NULL }
#define WL_OPT_LONG(name, letter, dest, lo, hi, what) \
	{ name, letter, WL_LONG, dest, lo, hi, what, NULL, NULL }
#define WL_OPT_MS(name, letter, dest, what) { name, letter, WL_MS, dest, 0, 0, what, NULL, NULL }

#define WORKLOAD_MAX_OPTS 16

/*
 * workload_options() - parse the options opts[0..n) of a workload, and -h/--help.
 *
 * Options stop at the first operand ("+": the operands are left at argv[optind..argc)). -h prints
 * usage() to stdout; an unknown option gets getopt's message and usage() on stderr.
 * Returns -1 when the workload should go on, else its exit status: 0 after -h, 2 on a usage
 * error. n is at most WORKLOAD_MAX_OPTS.
 */
static inline int workload_options(int argc, char **argv, const struct workload_opt *opts, int n)
{
	struct option longopts[WORKLOAD_MAX_OPTS + 2];
	char shortopts[2 * WORKLOAD_MAX_OPTS + 3], *p = shortopts;
	int c, i;

	if (n > WORKLOAD_MAX_OPTS)
		return 2;
	*p++ = '+';
	for (i = 0; i < n; i++) {
		int has_arg = opts[i].kind == WL_FLAG ? no_argument : required_argument;

		longopts[i] = (struct option){ opts[i].name, has_arg, NULL, opts[i].letter };
		*p++ = (char)opts[i].letter;
		if (has_arg == required_argument)
			*p++ = ':';
	}
	longopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n + 1] = (struct option){ NULL, 0, NULL, 0 };
	*p++ = 'h';
	*p = '\0';
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct workload_opt *o = NULL;
		int bad = 0;

		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		for (i = 0; i < n && !o; i++)
			if (opts[i].letter == c)
				o = &opts[i];
		if (!o) {
			usage(stderr);
			return 2;
		}
		switch (o->kind) {
		case WL_FLAG:
			*(int *)o->dest = 1;
			break;
		case WL_INT:
			bad = parse_int(optarg, (int)o->lo, (int)o->hi, o->dest);
			break;
		case WL_LONG:
			bad = parse_long(optarg, o->lo, o->hi, o->dest);
			break;
		case WL_MS:
			bad = parse_ms(optarg, o->dest);
			break;
		case WL_DOUBLE:
			bad = o->parse(optarg, o->dest);
			break;
		}
		if (bad)
			return usage_error(o->what, optarg);
		if (o->given)
			*o->given = 1;
	}
	return -1;
}

#endif
