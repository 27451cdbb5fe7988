/* SPDX-License-Identifier: MIT */
/* mpitime.h: time inside MPI per rank (issue 31): RUN_END "mpi" as `pmcollect --mpi` recorded it
 * (the PMPI library's per-call totals, formats/FORMAT.md), each rank's computation apart from its
 * MPI time, and the job's figures over the ranks: the imbalance of the computation, time in MPI per
 * rank and per call (mpiP's table), the critical rank and T(n) with MPI time not counted as work.
 * Pure computation, apart from pma_mpi_table and pma_mpi_json that render the result. */
#ifndef PMA_MPITIME_H
#define PMA_MPITIME_H

#include <stddef.h>
#include <stdio.h>

struct cJSON;
struct pma_ranks_result;

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

/* One rank's split of its time (set by the ranks merge from its trace). NAN unknown. */
struct pma_mpi_rank {
	int present;            /* its trace has RUN_END "mpi": the program links libmpi */
	int recorded;           /* its trace has --mpi totals */
	double mpi_s;           /* wall time inside MPI, s (what the rank waited or talked) */
	double mpi_cpu_s;       /* CPU time inside MPI, s (busy-polling waits burn it) */
	double comp_s;          /* computation: busy_s - mpi_cpu_s, s */
	double A_comp;          /* A(m,inf) over the non-MPI time: comp_s / (T_cp_s - thread MPI
				   CPU s), Tudor & Teo eq. 4 with MPI left out of work and span */
	size_t ncalls;          /* per MPI function (owned copy) */
	struct pma_mpi_call *calls;
};

/* Splits a rank: busy_s its process tree's CPU time, T_cp_s its critical-path time, mi its
 * RUN_END "mpi" (NULL or not recorded: out->recorded 0, numbers NAN). Returns 0, or -1 when
 * memory runs out. */
int pma_mpi_rank_from(const struct pma_mpi_info *mi, double busy_s, double T_cp_s,
		      struct pma_mpi_rank *out);
void pma_mpi_rank_free(struct pma_mpi_rank *r);

/* The job's figures over its complete, analyzed ranks. */
struct pma_mpi_job {
	size_t nranks;          /* complete, analyzed ranks */
	size_t nrecorded;       /* of them with --mpi totals; the figures below need all */
	/* load-imbalance factor of the computation: max_r comp_r / mean_r comp_r (the busy-time
	   imbalance of ranks.h with the MPI time taken out of busy) */
	double imbalance;
	long critical_rank;     /* the rank of max computation (the job waits for it), -1 none */
	const char *critical_job; /* its job id (borrowed), NULL none */
	double mpi_s_min, mpi_s_max, mpi_s_avg; /* time in MPI per rank, s */
	double mpi_share;       /* sum of MPI wall over sum of the ranks' wall times */
	/* T(n) of the computation alone: max over ranks of T_r(n) comp_r / busy_r, for the
	   merge's cores[i] (ncores), NAN where unknown */
	size_t ncores;
	double *T_comp_ns;
	size_t ncalls;          /* per MPI function over the ranks, by wall time, largest first */
	struct pma_mpi_call *calls;
};

/* Computes r->mpi from its rows' pma_mpi_rank (r->rows[i].mpi), the ranks' T_ns and r->cores (after
 * the merge's predictions). Nothing is computed (nrecorded < nranks) unless every complete,
 * analyzed rank was recorded with --mpi; then, when some rank was measured or has RUN_END "mpi"
 * (its program links libmpi), r->notes gets PMA_NOTE_RANKS_MPI_UNMEASURED (busy time includes
 * the time ranks polled inside MPI): a job of non-MPI programs under srun gets no note. Returns 0, or -1 when memory runs out. */
int pma_mpi_job_compute(struct pma_ranks_result *r);
void pma_mpi_job_free(struct pma_mpi_job *j);

/* Renders the per-rank split and the mpiP table of r (text, after the ranks table). Prints
 * nothing when no rank was recorded with --mpi. */
void pma_mpi_table(FILE *out, const struct pma_ranks_result *r);

/* Adds "mpi" to the job's JSON report root: null when not measured, else {"imbalance",
 * "critical_rank", "mpi_share", "ranks": [{"rank", "mpi_s", "mpi_cpu_s", "comp_s", "A_comp"}],
 * "calls": [{"name", "count", "s", "cpu_s", "share"}], "T_comp": [{"n", "s"}]}. */
void pma_mpi_json(struct cJSON *root, const struct pma_ranks_result *r);

#endif
