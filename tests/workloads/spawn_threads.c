// SPDX-License-Identifier: MIT
// Test workload: creates and joins many short-lived threads, a few at a time, to stress the collector's thread tracking.

/*
 * Usage: spawn_threads [-v] [-n <threads>] [-w <ms>] [-a <alive>]
 *
 * Threads are made in batches of at most ALIVE (default 8): every thread of a
 * batch waits at a barrier until the whole batch exists, burns MS of its own
 * CPU time (default 0: it exits at once), and is joined by main, which sleeps
 * in pthread_join. The barrier makes the peak exact by construction.
 *
 * Truth (Tudor & Teo, eq. 4), with B = ceil(N / ALIVE) batches run one after another:
 *   work = N*MS, T_cp = B*MS, A_inf = N/B (null when MS is 0: no work at all),
 *   m = min(N, ALIVE) + 1 (the batch plus the main thread).
 */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define PROG "spawn_threads"
#include "workload.h"
#define MAX_ALIVE 1024

static double work_ms;
static pthread_barrier_t batch_barrier;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&batch_barrier);
	burn_ms(work_ms);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-v] [-n <threads>] [-w <ms>] [-a <alive>]\n"
		   "  -n, --threads=N       threads created and joined in all [default: 1000]\n"
		   "  -w, --work=MS         CPU milliseconds each thread burns [default: 0]\n"
		   "  -a, --alive=K         most worker threads alive at once [default: 8]\n"
		   "  -v, --verbose         process CPU time on stderr\n");
}

int main(int argc, char **argv)
{
	pthread_t tids[MAX_ALIVE];
	long n_threads = 1000, alive = 8, batches, created = 0;
	double work_total_ms, T_cp_ms;
	int verbose = 0, c;

	const struct workload_opt opts[] = {
		WL_OPT_LONG("threads", 'n', &n_threads, 1, 100000000, "invalid thread count"),
		WL_OPT_MS("work", 'w', &work_ms, "invalid work in ms"),
		WL_OPT_LONG("alive", 'a', &alive, 1, MAX_ALIVE, "invalid alive count"),
		WL_OPT_FLAG("verbose", 'v', &verbose),
	};
	if ((c = workload_options(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])))) >= 0)
		return c;
	if (no_operands(argc, argv, optind))
		return 2;
	batches = (n_threads + alive - 1) / alive;
	work_total_ms = (double)n_threads * work_ms;
	T_cp_ms = (double)batches * work_ms;

	while (created < n_threads) {
		long batch = n_threads - created < alive ? n_threads - created : alive;

		/* Re-initialized per batch because the last batch may be smaller. */
		pthread_barrier_init(&batch_barrier, NULL, (unsigned)batch);
		for (long i = 0; i < batch; i++) {
			int err = pthread_create(&tids[i], NULL, thread_main, NULL);

			if (err) {
				/* The batch waits at its barrier forever: nothing to join. */
				fprintf(stderr, PROG ": error: cannot create thread %ld: %s\n", created + i,
					strerror(err));
				exit(1);
			}
		}
		for (long i = 0; i < batch; i++)
			pthread_join(tids[i], NULL);
		pthread_barrier_destroy(&batch_barrier);
		created += batch;
	}

	if (verbose) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "process: cpu_ms=%.3f work_ms=%.3f threads=%ld batches=%ld\n",
			(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
			work_total_ms, created, batches);
	}
	printf("{\"workload\":\"spawn_threads\",\"m\":%ld,\"work_ms\":%.3f,\"T_cp_ms\":%.3f,\"A_inf\":",
	       (n_threads < alive ? n_threads : alive) + 1, work_total_ms, T_cp_ms);
	if (T_cp_ms > 0)
		printf("%.6f", work_total_ms / T_cp_ms);
	else
		printf("null"); /* 0/0: no work at all */
	printf(",\"program\":\"" PROG "\",\"threads_created\":%ld,\"batches\":%ld,\"threads_peak\":%ld}\n",
	       n_threads, batches, (n_threads < alive ? n_threads : alive) + 1);
	return fflush(stdout) == EOF ? 1 : 0;
}
