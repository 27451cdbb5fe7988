// SPDX-License-Identifier: MIT
// Test workload: T pthreads meeting at a mutex + condition-variable barrier after each of R regions (issue 35).

/*
 * Usage: cond_barrier [-t T] [ITERS [WORK]]   [4 threads, 20000 regions, 20000 multiply-adds]
 *
 * Main is thread 0. In each of ITERS regions every thread runs 4 chunks of WORK dependent
 * multiply-adds, then waits at a barrier made of one mutex and one condition variable (a
 * generation counter; the last thread to arrive broadcasts): every region ends with T-1
 * futex wakes by the last arrival, no spinning. The pthread twin of omp_barrier with libgomp's
 * spinning left out. The last line of stdout is {"workload":"cond_barrier", ...}.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROG "cond_barrier"
#include "workload.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int arrived, nthreads;
static unsigned long generation;
static long iters = 20000, work = 20000;
static volatile double sink;

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-t T] [ITERS [WORK]]   (threads [4], regions [20000], "
		   "multiply-adds per chunk [20000])\n");
}

static void barrier_wait(void)
{
	pthread_mutex_lock(&mu);
	if (++arrived == nthreads) {
		arrived = 0;
		generation++;
		pthread_cond_broadcast(&cv);
	} else {
		unsigned long g = generation;
		while (g == generation)
			pthread_cond_wait(&cv, &mu);
	}
	pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
	double acc = (double)(intptr_t)arg;

	for (long it = 0; it < iters; it++) {
		for (int c = 0; c < 4; c++) {
			double x = c;
			for (long i = 0; i < work; i++)
				x = x * 1.0000001 + 1e-9;
			acc += x;
		}
		barrier_wait();
	}
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[256];
	int64_t t0;
	int opt;

	nthreads = 4;
	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt == 't' && parse_int(optarg, 1, 256, &nthreads) == 0)
			continue;
		return opt == 't' ? usage_error("invalid thread count", optarg) : (usage(stderr), 2);
	}
	if (argc - optind > 2 || (argc > optind && parse_long(argv[optind], 1, 100000000, &iters)))
		return usage_error("invalid ITERS", argc > optind ? argv[optind] : "");
	if (argc > optind + 1 && parse_long(argv[optind + 1], 1, 1000000000, &work))
		return usage_error("invalid WORK", argv[optind + 1]);
	t0 = mono_ns();
	for (int i = 1; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0) {
			fprintf(stderr, PROG ": error: cannot start thread %d: %s\n", i, strerror(errno));
			return 1;
		}
	worker(NULL);
	for (int i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("{\"workload\":\"cond_barrier\",\"m\":%d,\"regions\":%ld,\"work\":%ld,\"wall_ms\":%.3f,"
	       "\"program\":\"" PROG "\"}\n", nthreads, iters, work, (double)(mono_ns() - t0) / 1e6);
	return 0;
}
