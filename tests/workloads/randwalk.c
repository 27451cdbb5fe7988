// SPDX-License-Identifier: MIT
// Test workload: uniformly random reads over a working set of W MiB, the ground truth for the
// cache-capacity side of active interference (issue 15; Casas & Bronevetsky §3.2.1, pattern "Uni").

/*
 * Usage: randwalk [-v] [-w <MiB>] [-n <millions of accesses>]
 *
 * Allocates W MiB (default 8; a decimal such as 2.5, rounded down to whole 64-byte lines), touches it, then reads one 8-byte word of a uniformly random
 * 64-byte line N million times (default 20), each address depending on the previous load, so the
 * run time is N times the latency of wherever the working set lives: it grows when interference
 * leaves less than W MiB of cache, and not when the cache left still holds W.
 *
 * Last line of stdout: {"workload":"randwalk","m":1,"W_bytes":...,"accesses":...,
 * "ns_per_access":...,"program":"randwalk","threads_peak":1} (ns_per_access is the thread's CPU
 * time per access, what it measured).
 */

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PROG "randwalk"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double w_mib = 8;
	long n_million = 20;
	int verbose = 0, c;
	uint64_t *buf, lines, n, x = 42, v = 0, t0, t1;
	size_t bytes;

	while ((c = getopt(argc, argv, "vw:n:")) != -1) {
		char *end;
		switch (c) {
		case 'v': verbose = 1; break;
		case 'w': w_mib = strtod(optarg, &end); if (*end || !(w_mib >= 1.0 / 16 && w_mib <= 65536)) goto usage; break;
		case 'n': n_million = strtol(optarg, &end, 10); if (*end || n_million < 1 || n_million > 100000) goto usage; break;
		default: goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	bytes = (size_t)(w_mib * 1048576.0) / 64 * 64;
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, PROG ": error: cannot allocate %g MiB\n", w_mib);
		return 1;
	}
	madvise(buf, bytes, MADV_HUGEPAGE); /* the cache, not the TLB, is what is measured */
	memset(buf, 0, bytes);
	lines = bytes / 64;
	n = (uint64_t)n_million * 1000000u;
	t0 = cpu_ns();
	for (uint64_t i = 0; i < n; i++) {
		/* splitmix64, scaled to [0, lines) by multiply-shift; + v (always 0) chains the loads */
		uint64_t z = (x += 0x9e3779b97f4a7c15u);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
		z ^= z >> 31;
		v = buf[((((z >> 32) * lines) >> 32) + v) * 8];
	}
	t1 = cpu_ns();
	if (verbose)
		fprintf(stderr, PROG ": %g MiB, %llu accesses, %.3f s CPU\n", w_mib, (unsigned long long)n,
			(double)(t1 - t0) / 1e9);
	printf("{\"workload\":\"randwalk\",\"m\":1,\"W_bytes\":%zu,\"accesses\":%llu,\"ns_per_access\":%.3f,"
	       "\"sink\":%llu,\"program\":\"randwalk\",\"threads_peak\":1}\n",
	       bytes, (unsigned long long)n, (double)(t1 - t0) / (double)n, (unsigned long long)v);
	return 0;
usage:
	fprintf(stderr, "usage: " PROG " [-v] [-w MiB] [-n MILLIONS]\n");
	return 2;
}
