// SPDX-License-Identifier: MIT
// Test workload: one thread streaming through arrays far larger than the last-level cache, the
// ground truth for the bandwidth side of active interference (issue 15; Casas & Bronevetsky §3.1).

/*
 * Usage: stream [-v] [-m <MiB per array>] [-r <passes>]
 *
 * Three arrays of MiB MiB each (default 64), touched once, then R passes (default 10) of the
 * STREAM triad a[i] = b[i] + s c[i] by the main thread alone: its time is set by the memory
 * bandwidth it gets, so it grows when BWThrs take bandwidth.
 *
 * Last line of stdout: {"workload":"stream","m":1,"bytes_moved":...,"bytes_per_s":...,
 * "program":"stream","threads_peak":1} (bytes_moved counted as STREAM does, 24 bytes per
 * element and pass; bytes_per_s over the thread's CPU time of the passes).
 */

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROG "stream"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long mib = 64, passes = 10;
	int verbose = 0, c;
	double *a, *b, *cc, sum = 0;
	size_t n;
	uint64_t t0, t1;

	while ((c = getopt(argc, argv, "vm:r:")) != -1) {
		char *end;
		switch (c) {
		case 'v': verbose = 1; break;
		case 'm': mib = strtol(optarg, &end, 10); if (*end || mib < 1 || mib > 65536) goto usage; break;
		case 'r': passes = strtol(optarg, &end, 10); if (*end || passes < 1 || passes > 100000) goto usage; break;
		default: goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	n = ((size_t)mib << 20) / sizeof(double);
	a = malloc(n * sizeof(double));
	b = malloc(n * sizeof(double));
	cc = malloc(n * sizeof(double));
	if (!a || !b || !cc) {
		fprintf(stderr, PROG ": error: cannot allocate 3 x %ld MiB\n", mib);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		a[i] = 0;
		b[i] = 1;
		cc[i] = 2;
	}
	t0 = cpu_ns();
	for (long r = 0; r < passes; r++)
		for (size_t i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * cc[i];
	t1 = cpu_ns();
	for (size_t i = 0; i < n; i += 4096)
		sum += a[i];
	if (verbose)
		fprintf(stderr, PROG ": %ld MiB x 3, %ld passes, %.3f s CPU\n", mib, passes, (double)(t1 - t0) / 1e9);
	printf("{\"workload\":\"stream\",\"m\":1,\"bytes_moved\":%.0f,\"bytes_per_s\":%.0f,\"check\":%.0f,"
	       "\"program\":\"stream\",\"threads_peak\":1}\n",
	       24.0 * (double)n * (double)passes, 24.0 * (double)n * (double)passes * 1e9 / (double)(t1 - t0), sum);
	free(a);
	free(b);
	free(cc);
	return 0;
usage:
	fprintf(stderr, "usage: " PROG " [-v] [-m MiB] [-r PASSES]\n");
	return 2;
}
