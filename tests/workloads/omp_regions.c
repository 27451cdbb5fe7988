// SPDX-License-Identifier: MIT
// Test workload: OpenMP parallel regions of known shape, each timed by the program itself, for the OMPT tool (libpmompt.so).

/*
 * Usage: omp_regions [-w <ms>] [-t <threads>] [-n <tiny regions>] [-p <ms>]
 *
 * Built with clang -fopenmp (LLVM libomp, which has OMPT). Runs, in order:
 *   balanced    every team thread burns MS of its own CPU time (A = m)
 *   imbalanced  team thread i burns (i+1)*MS (work MS m(m+1)/2, T_cp m MS, A = (m+1)/2)
 *   single      one thread burns MS inside `#pragma omp single` (A = 1)
 *   set2, set3  omp_set_num_threads(2), a balanced region, omp_set_num_threads(3), another
 *   nested      2 outer threads, each opening an inner team of 2 (depth 2)
 *   tiny        N empty regions (-n, default 0), for the tool's overhead and memory bound, with
 *               the team of -t (or OMP_NUM_THREADS), not set3's; with -p, the initial thread
 *               sleeps P ms (wall time) after each one: short regions with the program idle
 *               between them, as in an event loop
 * and prints one JSON line per region instance (tiny: one line for all), with the source line of
 * its `#pragma omp parallel`, the function holding it, the team size requested and seen, and its
 * CLOCK_MONOTONIC begin and end read just outside the construct:
 *   {"region":"balanced","function":"balanced","line":77,"requested":4,"team":4,"depth":1,
 *    "begin_ns":...,"end_ns":...}
 * The OMPT record of a region must lie inside [begin_ns, end_ns]. The last line totals the run:
 *   {"regions":N,"tiny_ns":...}
 */

#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROG "omp_regions"

static long regions;

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Burns ms of the calling thread's own CPU time (not wall time: preemption does not count). */
static void burn_ms(double ms)
{
	int64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (int64_t)(ms * 1e6);
	volatile uint64_t x = 88172645463325252ull;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 2000; i++)
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
}

static void report(const char *name, const char *function, int line, int requested, int team,
		   int depth, int64_t begin_ns, int64_t end_ns)
{
	printf("{\"region\":\"%s\",\"function\":\"%s\",\"line\":%d,\"requested\":%d,\"team\":%d,"
	       "\"depth\":%d,\"begin_ns\":%lld,\"end_ns\":%lld}\n",
	       name, function, line, requested, team, depth, (long long)begin_ns, (long long)end_ns);
	regions++;
}

static void balanced(const char *name, double ms)
{
	int team = 0, requested = omp_get_max_threads();
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	const int line = __LINE__ + 1;
#pragma omp parallel
	{
		burn_ms(ms);
		if (omp_get_thread_num() == 0)
			team = omp_get_num_threads();
	}
	report(name, __func__, line, requested, team, 1, t0, clock_ns(CLOCK_MONOTONIC));
}

static void imbalanced(double ms)
{
	int team = 0, requested = omp_get_max_threads();
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	const int line = __LINE__ + 1;
#pragma omp parallel
	{
		burn_ms(ms * (omp_get_thread_num() + 1));
		if (omp_get_thread_num() == 0)
			team = omp_get_num_threads();
	}
	report("imbalanced", __func__, line, requested, team, 1, t0, clock_ns(CLOCK_MONOTONIC));
}

static void serial_single(double ms)
{
	int team = 0, requested = omp_get_max_threads();
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	const int line = __LINE__ + 1;
#pragma omp parallel
	{
#pragma omp single
		{
			burn_ms(ms);
			team = omp_get_num_threads();
		}
	}
	report("single", __func__, line, requested, team, 1, t0, clock_ns(CLOCK_MONOTONIC));
}

/* Each outer thread opens an inner team of 2; the inner regions are reported by outer thread. */
static void nested(double ms)
{
	int outer_team = 0;
	int64_t t0 = clock_ns(CLOCK_MONOTONIC), inner_begin[2] = {0, 0}, inner_end[2] = {0, 0};
	int inner_team[2] = {0, 0}, inner_line_out = 0;
	const int outer_line = __LINE__ + 1;
#pragma omp parallel num_threads(2)
	{
		int o = omp_get_thread_num();
		int64_t b = clock_ns(CLOCK_MONOTONIC);
		int team = 0;
		const int inner_line = __LINE__ + 1;
#pragma omp parallel num_threads(2)
		{
			burn_ms(ms);
			if (omp_get_thread_num() == 0)
				team = omp_get_num_threads();
		}
		inner_end[o] = clock_ns(CLOCK_MONOTONIC);
		inner_begin[o] = b;
		inner_team[o] = team;
		if (o == 0) {
			outer_team = omp_get_num_threads();
			inner_line_out = inner_line;
		}
	}
	report("nested-outer", __func__, outer_line, 2, outer_team, 1, t0, clock_ns(CLOCK_MONOTONIC));
	for (int o = 0; o < 2; o++)
		report("nested-inner", __func__, inner_line_out, 2, inner_team[o], 2, inner_begin[o], inner_end[o]);
}

static void tiny(long n, double pause_ms)
{
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	struct timespec pause = { (time_t)(pause_ms / 1000), (long)(fmod(pause_ms, 1000) * 1e6) };
	volatile int sink = 0;

	for (long i = 0; i < n; i++) {
#pragma omp parallel
		{
			if (omp_get_thread_num() == 0)
				sink++;
		}
		if (pause_ms > 0)
			nanosleep(&pause, NULL);
	}
	printf("{\"tiny\":%ld,\"tiny_ns\":%lld}\n", n, (long long)(clock_ns(CLOCK_MONOTONIC) - t0));
}

int main(int argc, char **argv)
{
	double ms = 20, pause_ms = 0;
	int threads = 0, team, c;
	long ntiny = 0;

	while ((c = getopt(argc, argv, "w:t:n:p:")) != -1) {
		switch (c) {
		case 'w': ms = atof(optarg); break;
		case 't': threads = atoi(optarg); break;
		case 'n': ntiny = atol(optarg); break;
		case 'p': pause_ms = atof(optarg); break;
		default:
			fprintf(stderr, "usage: " PROG " [-w <ms>] [-t <threads>] [-n <tiny regions>] "
				"[-p <ms>]\n");
			return 2;
		}
	}
	if (ms < 0 || threads < 0 || ntiny < 0 || pause_ms < 0) {
		fprintf(stderr, PROG ": error: negative argument\n");
		return 2;
	}
	omp_set_dynamic(0);
	omp_set_max_active_levels(2);
	if (threads)
		omp_set_num_threads(threads);
	team = omp_get_max_threads();
	balanced("balanced", ms);
	imbalanced(ms);
	serial_single(ms);
	omp_set_num_threads(2);
	balanced("set2", ms);
	omp_set_num_threads(3);
	balanced("set3", ms);
	nested(ms);
	omp_set_num_threads(team);
	tiny(ntiny, pause_ms);
	printf("{\"regions\":%ld}\n", regions + ntiny);
	return 0;
}
