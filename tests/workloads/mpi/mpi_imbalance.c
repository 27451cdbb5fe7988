// SPDX-License-Identifier: MIT
// Test workload: MPI ranks of known unequal work meeting in busy-polling MPI calls (issue 31).

/*
 * Usage: mpi_imbalance [-w <ms>] [-p <phases>] [-s <weights>]
 *
 * P phases; in phase p rank r burns weight[r] * MS ms of its own CPU time (burn_ms: a loaded
 * machine changes the wall time, not the work), then the ranks meet in MPI_Barrier (even p) or
 * MPI_Allreduce (odd p). Both wait the way Open MPI waits by default: by polling, so a rank that
 * waits burns CPU and looks busy to /proc. weights is a comma-separated list, one per rank
 * (default 1 for every rank; a rank beyond the list takes the last).
 *
 * Truth each rank measures and prints after MPI_Finalize, one line:
 *   rank R of N work_ms W mpi_ms M mpi_cpu_ms C mpi_calls K
 * W: its thread CPU time over the phases' work; M: wall time (CLOCK_MONOTONIC) inside its own
 * MPI_Init, barriers, allreduces and MPI_Finalize; C: its thread's CPU time inside them; K: those
 * calls. These are what `pmcollect --mpi` and `pmanalyze` must find (t3710).
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROG "mpi_imbalance"
#include "../workload.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-w <ms>] [-p <phases>] [-s <weight>,<weight>...]\n");
}

/* The rank's own account of its time in MPI. */
static int64_t mpi_ns, mpi_cpu_ns, mpi_calls, t0_ns, c0_ns;

static void enter(void)
{
	c0_ns = thread_cpu_ns();
	t0_ns = mono_ns();
}

static void leave(void)
{
	mpi_ns += mono_ns() - t0_ns;
	mpi_cpu_ns += thread_cpu_ns() - c0_ns;
	mpi_calls++;
}

/* weight of rank r in list "a,b,c" (the last one for ranks beyond it); -1 when malformed */
static double weight_of(const char *list, int r)
{
	double w = 1;
	char buf[256], *save = NULL, *tok;
	int i = 0;

	if (!list)
		return 1;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++) {
		if (parse_ms(tok, &w) < 0)
			return -1;
		if (i == r)
			break;
	}
	return w;
}

int main(int argc, char **argv)
{
	double ms = 100, w;
	int phases = 6, rank, size, c;
	const char *weights = NULL;
	int64_t work_ns = 0;

	while ((c = getopt(argc, argv, "w:p:s:h")) != -1) {
		switch (c) {
		case 'w':
			if (parse_ms(optarg, &ms) < 0)
				return usage_error("invalid -w", optarg);
			break;
		case 'p':
			if (parse_int(optarg, 1, 100000, &phases) < 0)
				return usage_error("invalid -p", optarg);
			break;
		case 's':
			if (weight_of(optarg, 1 << 30) < 0)
				return usage_error("invalid -s", optarg);
			weights = optarg;
			break;
		default:
			usage(c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (no_operands(argc, argv, optind))
		return 2;
	enter();
	MPI_Init(&argc, &argv);
	leave();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	w = weight_of(weights, rank);
	for (int p = 0; p < phases; p++) {
		int64_t s_ns = thread_cpu_ns();
		double x = rank, sum;

		burn_ms(w * ms);
		work_ns += thread_cpu_ns() - s_ns;
		enter();
		if (p % 2 == 0)
			MPI_Barrier(MPI_COMM_WORLD);
		else
			MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		leave();
	}
	enter();
	MPI_Finalize();
	leave();
	printf("rank %d of %d work_ms %.3f mpi_ms %.3f mpi_cpu_ms %.3f mpi_calls %lld\n", rank, size,
	       work_ns / 1e6, mpi_ns / 1e6, mpi_cpu_ns / 1e6, (long long)mpi_calls);
	return 0;
}
