// SPDX-License-Identifier: MIT
// Test workload: many short OpenMP parallel regions, each ending in a barrier that wakes the team (issue 35).

/*
 * Usage: omp_barrier [ITERS [WORK]]   [20000 20000]
 *
 * The program of issue 35: ITERS `#pragma omp parallel for` regions of 4*m chunks, each chunk
 * WORK dependent multiply-adds, schedule(static) (4 chunks per thread); each region's barrier
 * and the next region's start wake the team. A region lasts about 4*WORK*(~2 ns) per thread on
 * a core of its own: WORK 20000 is ~0.2 ms, 2000 ~0.02 ms, 2000000 ~20 ms on this machine.
 * Truth: the schedule is balanced (A(m,inf) near m), so what the speedup loses on n cores is
 * the barriers' wake-ups: a test compares pmanalyze's S(m,n) with measured runs, not with a
 * number printed here. The last line of stdout is {"workload":"omp_barrier", ...}.
 */

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROG "omp_barrier"
#include "workload.h"

static volatile double sink;

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [ITERS [WORK]]   (regions [20000], multiply-adds per chunk [20000])\n");
}

int main(int argc, char **argv)
{
	long iters = 20000, work = 20000;
	double acc = 0;
	int64_t t0;

	if (argc > 3 || (argc > 1 && parse_long(argv[1], 1, 100000000, &iters)))
		return usage_error("invalid ITERS", argc > 1 ? argv[1] : "");
	if (argc > 2 && parse_long(argv[2], 1, 1000000000, &work))
		return usage_error("invalid WORK", argv[2]);
	t0 = mono_ns();
	for (long it = 0; it < iters; it++) {
#pragma omp parallel for reduction(+:acc) schedule(static)
		for (int t = 0; t < omp_get_num_threads() * 4; t++) {
			double x = t;
			for (long i = 0; i < work; i++)
				x = x * 1.0000001 + 1e-9;
			acc += x;
		}
	}
	sink = acc;
	printf("{\"workload\":\"omp_barrier\",\"m\":%d,\"regions\":%ld,\"work\":%ld,\"wall_ms\":%.3f,"
	       "\"program\":\"" PROG "\"}\n", omp_get_max_threads(), iters, work,
	       (double)(mono_ns() - t0) / 1e6);
	return 0;
}
