// SPDX-License-Identifier: MIT
// make bench: the cost per call of the PMPI preload library (issue 31, docs/performance.md).

/*
 * Usage: mpi_calls N
 * Times N calls each of MPI_Barrier and MPI_Allreduce (one double) on MPI_COMM_WORLD, and prints
 * {"barrier_ns": ..., "allreduce_ns": ...} per call (CLOCK_MONOTONIC). Run as one rank, where both
 * return without waiting, so the difference with and without LD_PRELOAD=libpmmpi.so is the
 * library's own cost per call.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	double t0, t1, t2, x = 1, y;

	MPI_Init(&argc, &argv);
	if (n < 1) {
		fprintf(stderr, "usage: mpi_calls N\n");
		MPI_Finalize();
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	t1 = now_ns();
	for (long i = 0; i < n; i++)
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	t2 = now_ns();
	printf("{\"barrier_ns\": %.2f, \"allreduce_ns\": %.2f}\n", (t1 - t0) / n, (t2 - t1) / n);
	MPI_Finalize();
	return 0;
}
