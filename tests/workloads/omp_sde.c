// SPDX-License-Identifier: MIT
// Test workload: OpenMP regions whose per-thread counter deltas are known, through a PAPI
// software-defined event (SDE) the program defines itself.

/*
 * Usage: omp_sde [-r <repetitions>] [-u <units>] [-w <ms>] [-s <ms>]
 *
 * Built with clang -fopenmp (LLVM libomp, OMPT) and linked with libsde (libpapi-dev). Before main
 * it registers the PAPI software-defined event
 *   sde:::pmt_work::units
 * as a callback counter that returns the calling thread's own count, so a PAPI_read on a thread
 * gives that thread's units, as a hardware counter of that thread would (PAPI SDE, sde_lib.h:
 * papi_sde_init, papi_sde_register_counter_cb); and sde:::pmt_work::cpu_ns, the calling thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID), which counts whatever the thread runs, spinning included,
 * as a cycle counter does. Each repetition (-r, default 3) runs:
 *   ladder  team thread i (omp_get_thread_num) adds (i+1) x U units (-u, default 1000) and burns
 *           (i+1) x MS of its CPU time (-w, default 5): a team of T counts U T(T+1)/2 per instance
 *   master  only thread 0 adds 2 x U units; the other threads burn MS and add nothing
 * With -s, the initial thread burns MS of CPU alone before each region (a serial part, while the
 * workers wait, spinning with KMP_BLOCKTIME=infinite).
 * The team is OMP_NUM_THREADS (or the runtime's default). Units are added inside the region only,
 * so the counter deltas of a thread's implicit task are exactly its units; its cpu_ns delta is its
 * burn plus the runtime's own work in the region. Prints the truth:
 *   {"region":"ladder","team":T,"instances":R,"units_by_thread":[U,2U,...],"units":U T(T+1)/2 R}
 *   {"region":"master","team":T,"instances":R,"units_by_thread":[2U,0,...],"units":2 U R}
 */

#include <getopt.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <sde_lib.h>

#define PROG "omp_sde"
#define MAX_TEAM 256

static _Thread_local long long units;

static long long units_of_this_thread(void *param)
{
	(void)param;
	return units;
}

static long long cpu_ns_of_this_thread(void *param)
{
	struct timespec ts;

	(void)param;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

__attribute__((constructor)) static void register_event(void)
{
	papi_handle_t h = papi_sde_init("pmt_work");

	if (papi_sde_register_counter_cb(h, "units", PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long,
					 units_of_this_thread, NULL) != 0 ||
	    papi_sde_register_counter_cb(h, "cpu_ns", PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long,
					 cpu_ns_of_this_thread, NULL) != 0)
		fprintf(stderr, PROG ": warning: papi_sde_register_counter_cb failed\n");
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Burns ms of the calling thread's own CPU time. */
static void burn_ms(double ms)
{
	int64_t end = thread_cpu_ns() + (int64_t)(ms * 1e6);
	volatile uint64_t x = 88172645463325252ull;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 2000; i++)
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
}

static void truth(const char *name, int team, long reps, const long long *by_thread)
{
	long long total = 0;

	printf("{\"region\":\"%s\",\"team\":%d,\"instances\":%ld,\"units_by_thread\":[", name, team, reps);
	for (int i = 0; i < team; i++) {
		printf("%s%lld", i ? "," : "", by_thread[i]);
		total += by_thread[i] * reps;
	}
	printf("],\"units\":%lld}\n", total);
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: " PROG " [-r repetitions] [-u units] [-w ms] [-s ms]\n");
	return rc;
}

int main(int argc, char **argv)
{
	static long long ladder[MAX_TEAM], master[MAX_TEAM];
	long reps = 3, u = 1000;
	double ms = 5, serial_ms = 0;
	int team = 1, c;
	char *end;

	while ((c = getopt(argc, argv, "r:u:w:s:h")) != -1) {
		switch (c) {
		case 'r':
			reps = strtol(optarg, &end, 10);
			if (*end || reps < 1 || reps > 1000000)
				return usage(stderr, 2);
			break;
		case 'u':
			u = strtol(optarg, &end, 10);
			if (*end || u < 0 || u > 1000000000)
				return usage(stderr, 2);
			break;
		case 'w':
			ms = strtod(optarg, &end);
			if (*end || !(ms >= 0 && ms <= 60000))
				return usage(stderr, 2);
			break;
		case 's':
			serial_ms = strtod(optarg, &end);
			if (*end || !(serial_ms >= 0 && serial_ms <= 60000))
				return usage(stderr, 2);
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (optind != argc)
		return usage(stderr, 2);
	for (long r = 0; r < reps; r++) {
		burn_ms(serial_ms);
#pragma omp parallel
		{
			int i = omp_get_thread_num();

			if (i == 0)
				team = omp_get_num_threads();
			units += (long long)(i + 1) * u;
			burn_ms((i + 1) * ms);
		}
#pragma omp parallel
		{
			if (omp_get_thread_num() == 0)
				units += 2LL * u;
			else
				burn_ms(ms);
		}
		burn_ms(serial_ms);
	}
	if (team > MAX_TEAM) {
		fprintf(stderr, PROG ": a team of %d: at most %d\n", team, MAX_TEAM);
		return 1;
	}
	for (int i = 0; i < team; i++) {
		ladder[i] = (long long)(i + 1) * u;
		master[i] = i ? 0 : 2LL * u;
	}
	truth("ladder", team, reps, ladder);
	truth("master", team, reps, master);
	return 0;
}
