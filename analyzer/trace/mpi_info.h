/* SPDX-License-Identifier: MIT */
/* mpi_info.h: RUN_END "mpi" of one run as `pmcollect --mpi` recorded it (the PMPI library's
 * per-call totals, formats/FORMAT.md), parsed once at load time. The job's figures over ranks are
 * in result/mpitime.h. */
#ifndef PMA_MPI_INFO_H
#define PMA_MPI_INFO_H

#include <stddef.h>

struct cJSON;

#define PMA_MPI_NAME_MAX 48

/* One MPI function's totals (over threads, processes or ranks, by context). */
struct pma_mpi_call {
	char name[PMA_MPI_NAME_MAX]; /* "MPI_Allreduce" */
	double count;           /* calls */
	double ns;              /* wall time inside them (CLOCK_MONOTONIC), ns */
	double cpu_ns;          /* the calling threads' CPU time inside them, ns */
};

/* RUN_END "mpi" of one run. Numbers NAN when unknown. */
struct pma_mpi_info {
	int present;            /* RUN_END has "mpi": the run was recorded with --mpi */
	int recorded;           /* a process of the program left its totals */
	char *reason;           /* why not recorded (owned), NULL when recorded */
	double ns, cpu_ns;      /* over every process, thread and call */
	double thread_cpu_ns;   /* the largest MPI CPU time of one thread: the part of the rank's
				   critical path (time with a thread on a CPU) spent inside MPI, ns */
	size_t ncalls;          /* per MPI function, over processes and threads, by name */
	struct pma_mpi_call *calls;
};

/* Fills out from RUN_END's "mpi" object o (NULL: not present). Malformed entries are skipped.
 * Returns 0, or -1 when memory runs out (out is then freed). */
int pma_mpi_info_parse(const struct cJSON *o, struct pma_mpi_info *out);
void pma_mpi_info_free(struct pma_mpi_info *mi);

/* The slot of the call named name in *calls (n used, cap allocated), appended zeroed when new.
 * Returns NULL when memory runs out. */
struct pma_mpi_call *pma_mpi_call_slot(struct pma_mpi_call **calls, size_t *n, size_t *cap,
				       const char *name);
/* qsort comparator: calls by wall time inside them, longest first. */
int pma_mpi_call_by_ns_desc(const void *a, const void *b);

#endif
