/* SPDX-License-Identifier: MIT */
/* pmmpi.h: what libpmmpi.so (the PMPI preload library inside each MPI rank, pmmpi.c) hands to
 * pmcollect (collector/session/mpitool.c): the environment variable naming the directory it writes into,
 * and the lines of the file it writes there at exit. docs/mpi.md describes both. */
#ifndef PMMPI_H
#define PMMPI_H

/* The directory (made by pmcollect for this run, mode 0700) the library writes "pmmpi.<pid>" into.
 * Unset or empty: the library forwards every call and records nothing. */
#define PMMPI_ENV_DIR "PMT_MPI_DIR"

#define PMMPI_VERSION 1

/* The file, one record per line, fields separated by one space, numbers in decimal:
 *   pmmpi 1                                 first line: magic and PMMPI_VERSION
 *   process PID RANK SIZE                   RANK SIZE of MPI_COMM_WORLD, -1 before MPI_Init
 *   span INIT_END_NS FINALIZE_BEGIN_NS      CLOCK_MONOTONIC ns; 0 when that call never came
 *   call TID NAME COUNT NS CPU_NS MISSED    per thread and MPI function: calls, ns inside them
 *                                           (CLOCK_MONOTONIC) and the thread's CPU ns inside
 *                                           them (CLOCK_THREAD_CPUTIME_ID: a busy-polling wait
 *                                           burns CPU, a blocking one does not; calls in a run
 *                                           of short ones are estimated, pmmpi.c); MISSED: long
 *                                           calls whose CPU was estimated
 *   end                                     last line: the file is complete
 * NAME is the MPI function ("MPI_Allreduce"). A thread that made no wrapped call has no line. */
#define PMMPI_FILE_PREFIX "pmmpi."

#endif
