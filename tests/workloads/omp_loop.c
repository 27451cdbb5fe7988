// SPDX-License-Identifier: MIT
// Test workload: issue 34's OpenMP program (a serial part, then a dynamic loop) with its truth measured by the threads' own CPU clocks.

/*
 * Usage: omp_loop [-v] [-r <repeats>] [-s <serial-iterations>] [-n <loop-iterations>] [-i <chunks>]
 *
 * R times: the master computes x = sin(x) + 1.0001 S times (serial), then a
 * `#pragma omp parallel for schedule(dynamic,1)` loop of I chunks of N such steps each, as the
 * 20-line program of issue 34 does (defaults: R = 4, S = 6000000, N = 300000, I = 64). Every
 * thread adds the CPU time of its own chunks (CLOCK_THREAD_CPUTIME_ID) per repeat; the truth is
 * work = serial + all chunks, T_cp = serial + the largest per-thread sum of each loop (on
 * infinite cores each thread runs its chunks one after the other), A = work / T_cp. The loop's
 * implicit barrier and libgomp's hand-out of chunks stay outside (not visible from inside), as
 * in omp_phases. Threads from OMP_NUM_THREADS; m = omp_get_max_threads().
 */

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PROG "omp_loop"
#include "workload.h"

static double work(long n, double x)
{
	for (long i = 0; i < n; i++)
		x = sin(x) + 1.0001;
	return x;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-v] [-r <repeats>] [-s <serial-iterations>] [-n <loop-iterations>] "
		   "[-i <chunks>]\n");
}

int main(int argc, char **argv)
{
	int repeats = 4, chunks = 64, verbose = 0, m, c;
	long serial_n = 6000000, loop_n = 300000;
	double acc = 0, work_ms = 0, T_cp_ms = 0, serial_ms = 0;
	double *mine;
	int64_t main_in_ns = 0;

	while ((c = getopt(argc, argv, "vr:s:n:i:h")) != -1) {
		switch (c) {
		case 'v':
			verbose = 1;
			break;
		case 'r':
			if (parse_int(optarg, 1, 1000, &repeats) < 0)
				return usage_error("repeats", optarg);
			break;
		case 's':
			if (parse_long(optarg, 0, 1000000000L, &serial_n) < 0)
				return usage_error("serial iterations", optarg);
			break;
		case 'n':
			if (parse_long(optarg, 0, 1000000000L, &loop_n) < 0)
				return usage_error("loop iterations", optarg);
			break;
		case 'i':
			if (parse_int(optarg, 1, 1000000, &chunks) < 0)
				return usage_error("chunks", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (no_operands(argc, argv, optind) < 0)
		return 2;
	m = omp_get_max_threads();
	mine = calloc((size_t)m, sizeof(*mine));
	if (!mine) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	for (int r = 0; r < repeats; r++) {
		double longest = 0;
		acc += work(serial_n, acc); /* serial part: counted below with the master's other time */
		memset(mine, 0, (size_t)m * sizeof(*mine));
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : acc)
		for (int i = 0; i < chunks; i++) {
			int64_t t0 = thread_cpu_ns();
			int id = omp_get_thread_num();
			acc += work(loop_n, i);
			mine[id] += (double)(thread_cpu_ns() - t0) / 1e6; /* own slot: no race */
			if (id == 0)
				main_in_ns += thread_cpu_ns() - t0;
		}
		for (int id = 0; id < m; id++) {
			work_ms += mine[id];
			if (mine[id] > longest)
				longest = mine[id];
		}
		T_cp_ms += longest;
	}
	/* the master's CPU time outside its chunks (start-up, the serial parts, forking and joining
	 * the team) is serial: no other thread works then */
	serial_ms = (double)(thread_cpu_ns() - main_in_ns) / 1e6;
	work_ms += serial_ms;
	T_cp_ms += serial_ms;
	if (verbose)
		fprintf(stderr, "acc %f threads %d\n", acc, m);
	printf("{\"workload\":\"omp_loop\",\"m\":%d,\"serial_ms\":%.3f,\"work_measured_ms\":%.3f,"
	       "\"T_cp_measured_ms\":%.3f,\"A_inf_measured\":%.6f,\"program\":\"" PROG "\","
	       "\"repeats\":%d,\"threads_peak\":%d}\n", m, serial_ms, work_ms, T_cp_ms,
	       T_cp_ms > 0 ? work_ms / T_cp_ms : 0, repeats, m);
	free(mine);
	return 0;
}
