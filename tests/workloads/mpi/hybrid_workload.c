// SPDX-License-Identifier: MIT
// Test workload: an MPI + OpenMP job whose ranks do known, different work (issue 18).

/*
 * Usage: hybrid_workload [-w <ms>] [-p <phases>]
 *
 * P phases; in each, every OpenMP thread of rank r burns (r+1)*MS ms of its own CPU time
 * (burn_ms: thread CPU time, so a loaded machine changes the wall time, not the work), then the
 * ranks meet at a barrier. The barrier waits without burning CPU (MPI_Ibarrier polled with
 * MPI_Test and 1 ms sleeps): Open MPI's MPI_Barrier spins, and a spinning wait would make every
 * rank's CPU time the same and hide the imbalance the test measures.
 *
 * Truth, with m = omp_get_max_threads() threads per rank and N ranks:
 *   busy time of rank r (CPU time of its threads' work) = m * (r+1) * P * MS
 *   load-imbalance factor max/mean = N / ((N+1)/2) = 2N/(N+1)  (1.6 for 4 ranks)
 *   slowest rank N-1;  A(m,inf) of each rank = m (its threads work together)
 * Each rank prints "rank R of N threads M busy_ms B", and after MPI_Finalize "rank R cpu_ms C":
 * its whole CPU time (getrusage RUSAGE_SELF), MPI's start-up and end included, the measured
 * truth a trace's busy time is compared with; then "rank R phases_cpu_ms W phases_cp_ms P": the
 * phases' work as measured (each thread's CLOCK_THREAD_CPUTIME_ID over its part of a phase, W
 * their sum over threads and phases, P the sum over phases of the largest thread's: the phases'
 * share of the critical path). With the rest of the CPU time (C - W: MPI's start-up and end, the
 * barriers) on one thread, A(m,inf) = C / (P + C - W) (Tudor & Teo, eq. 4).
 */

#include <errno.h>
#include <getopt.h>
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define PROG "hybrid_workload"
#include "../workload.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-w <ms>] [-p <phases>]\n");
}

/* A barrier that sleeps while it waits (see the header comment). */
static void quiet_barrier(void)
{
	MPI_Request req;
	int done = 0;
	struct timespec ms = { 0, 1000000 };

	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	for (;;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&ms, NULL);
	}
}

int main(int argc, char **argv)
{
	double ms = 50;
	long phases = 3;
	int rank, size, m, c;
	double phases_cpu_ns = 0, phases_cp_ns = 0;
	int64_t *d_ns;

	while ((c = getopt(argc, argv, "w:p:h")) != -1) {
		char *end;
		switch (c) {
		case 'w':
			ms = strtod(optarg, &end);
			if (*end || !(ms > 0 && ms < 1e6)) {
				usage(stderr);
				return 2;
			}
			break;
		case 'p':
			phases = strtol(optarg, &end, 10);
			if (*end || phases < 1 || phases > 100000) {
				usage(stderr);
				return 2;
			}
			break;
		default:
			usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	omp_set_dynamic(0);
	m = omp_get_max_threads();
	d_ns = calloc((size_t)m, sizeof(*d_ns));
	if (!d_ns)
		return 1;
	for (long p = 0; p < phases; p++) {
		int64_t most = 0;
#pragma omp parallel num_threads(m)
		{
			int64_t t0 = thread_cpu_ns();
			burn_ms((rank + 1) * ms);
			d_ns[omp_get_thread_num()] = thread_cpu_ns() - t0;
		}
		for (int i = 0; i < m; i++) {
			phases_cpu_ns += (double)d_ns[i];
			most = d_ns[i] > most ? d_ns[i] : most;
		}
		phases_cp_ns += (double)most;
		quiet_barrier();
	}
	free(d_ns);
	printf("rank %d of %d threads %d busy_ms %.0f\n", rank, size, m, m * (rank + 1) * phases * ms);
	fflush(stdout);
	MPI_Finalize();
	{
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		printf("rank %d cpu_ms %.1f\n", rank,
		       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
		printf("rank %d phases_cpu_ms %.2f phases_cp_ms %.2f\n", rank, phases_cpu_ns / 1e6,
		       phases_cp_ns / 1e6);
	}
	return 0;
}
