// SPDX-License-Identifier: MIT
// Test workload: a STREAM-like triad over arrays far larger than the last-level cache (memory
// bound), or the same thread structure on register arithmetic (compute bound), for calibrating
// the memory-contention model (Tudor & Teo, eq. 7).

/*
 * Usage: triad [-v] [-t <threads>] [-m <MiB per array>] [-r <passes>] [-c]
 *
 * T threads (default 2; main is thread 0) each own 1/T of three arrays of MiB MiB each (default
 * 64, so 192 MiB in all, six times a 32 MB L3), touch their part first (first-touch placement),
 * then run R passes (default 10) of a[i] = b[i] + s c[i] over it without synchronizing. The
 * total work is fixed (strong scaling): the same bytes move whatever T and the CPU count, so
 * the total CPU time C(n) grows only by contention. With -c each thread instead runs the same
 * number of iterations of a dependent floating-point recurrence held in registers: no memory
 * traffic, so C(n) should not grow with n.
 *
 * Last line of stdout: {"workload":"triad"|"compute","m":T,"bytes_moved":...,"program":"triad",
 * "threads_peak":T}. No timing truth: what the calibration measures is C(n) itself.
 */

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "triad"
#define MAX_THREADS 256

static double *a, *b, *c;
static size_t n_elems;
static int threads = 2, passes = 10, compute, verbose;
static double sink[MAX_THREADS];

/* Not instrumented under AddressSanitizer: the instrumented loop would be compute bound. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN __attribute__((no_sanitize("address")))
#endif
#endif
#if !defined(NO_ASAN) && defined(__SANITIZE_ADDRESS__)
#define NO_ASAN __attribute__((no_sanitize("address")))
#endif
#ifndef NO_ASAN
#define NO_ASAN
#endif

NO_ASAN static void triad_part(size_t lo, size_t hi)
{
	const double s = 3.0;
	for (int p = 0; p < passes; p++)
		for (size_t i = lo; i < hi; i++)
			a[i] = b[i] + s * c[i];
}

/* One dependent multiply-add per element a pass would touch: the same loop count, no loads. */
static double compute_part(size_t lo, size_t hi)
{
	double x = 1.0 + (double)lo * 1e-12;
	for (int p = 0; p < passes; p++)
		for (size_t i = lo; i < hi; i++)
			x = x * 0.999999999 + 1e-9;
	return x;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	size_t lo = n_elems * (size_t)id / (size_t)threads;
	size_t hi = n_elems * (size_t)(id + 1) / (size_t)threads;

	if (compute) {
		sink[id] = compute_part(lo, hi);
		return NULL;
	}
	for (size_t i = lo; i < hi; i++) { /* first touch by the owner */
		a[i] = 0;
		b[i] = 1.0;
		c[i] = 2.0;
	}
	triad_part(lo, hi);
	sink[id] = a[lo];
	return NULL;
}

static int usage(void)
{
	fprintf(stderr, "usage: " PROG " [-v] [-t <threads>] [-m <MiB per array>] [-r <passes>] [-c]\n");
	return 2;
}

int main(int argc, char **argv)
{
	pthread_t tid[MAX_THREADS];
	long mib = 64;
	int opt;

	while ((opt = getopt(argc, argv, "vt:m:r:c")) != -1) {
		switch (opt) {
		case 'v': verbose = 1; break;
		case 't': threads = atoi(optarg); break;
		case 'm': mib = atol(optarg); break;
		case 'r': passes = atoi(optarg); break;
		case 'c': compute = 1; break;
		default: return usage();
		}
	}
	if (threads < 1 || threads > MAX_THREADS || mib < 1 || mib > 65536 || passes < 1)
		return usage();
	n_elems = (size_t)mib * 1024 * 1024 / sizeof(double);
	if (!compute) {
		a = malloc(n_elems * sizeof(double));
		b = malloc(n_elems * sizeof(double));
		c = malloc(n_elems * sizeof(double));
		if (!a || !b || !c) {
			fprintf(stderr, PROG ": cannot allocate 3 x %ld MiB: %s\n", mib, strerror(errno));
			return 1;
		}
	}
	for (int i = 1; i < threads; i++) {
		int e = pthread_create(&tid[i], NULL, worker, (void *)(intptr_t)i);
		if (e) {
			fprintf(stderr, PROG ": pthread_create: %s\n", strerror(e));
			return 1;
		}
	}
	worker((void *)0);
	for (int i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	if (verbose)
		fprintf(stderr, PROG ": sink %g\n", sink[0]);
	printf("{\"workload\":\"%s\",\"m\":%d,\"bytes_moved\":%.0f,\"program\":\"" PROG "\","
	       "\"threads_peak\":%d}\n", compute ? "compute" : "triad", threads,
	       compute ? 0.0 : 3.0 * (double)n_elems * sizeof(double) * passes, threads);
	free(a);
	free(b);
	free(c);
	return 0;
}
