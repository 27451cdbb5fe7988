/* SPDX-License-Identifier: MIT */
/* mpitime.h: time inside MPI per rank (docs/mpi.md): RUN_END "mpi" as `pmcollect --mpi` recorded it
 * (the PMPI library's per-call totals, formats/FORMAT.md), each rank's computation apart from its
 * MPI time, and the job's figures over the ranks: the imbalance of the computation, time in MPI per
 * rank and per call (mpiP's table), the critical rank and T(n) with MPI time not counted as work.
 * Pure computation, apart from pma_mpi_table and pma_mpi_json that render the result. */
#ifndef PMA_MPITIME_H
#define PMA_MPITIME_H

#include <stddef.h>
#include <stdio.h>

#include "job.h"

struct cJSON;
struct pma_ranks_result;


/* Splits a rank: busy_s its process tree's CPU time, T_cp_s its critical-path time, mi its
 * RUN_END "mpi" (NULL or not recorded: out->recorded 0, numbers NAN). Returns 0, or -1 when
 * memory runs out. */
int pma_mpi_rank_from(const struct pma_mpi_info *mi, double busy_s, double T_cp_s,
		      struct pma_mpi_rank *out);


/* Computes r->mpi from its rows' pma_mpi_rank (r->rows[i].mpi), the ranks' T_ns and r->cores (after
 * the merge's predictions). Nothing is computed (nrecorded < nranks) unless every complete,
 * analyzed rank was recorded with --mpi; then, when some rank was measured or has RUN_END "mpi"
 * (its program links libmpi), r->notes gets PMA_NOTE_RANKS_MPI_UNMEASURED (busy time includes
 * the time ranks polled inside MPI): a job of non-MPI programs under srun gets no note. Returns 0, or -1 when memory runs out. */
int pma_mpi_job_compute(struct pma_ranks_result *r);

/* Renders the per-rank split and the mpiP table of r (text, after the ranks table). Prints
 * nothing when no rank was recorded with --mpi. */
void pma_mpi_table(FILE *out, const struct pma_ranks_result *r);

/* Adds "mpi" to the job's JSON report root: null when not measured, else {"imbalance",
 * "critical_rank", "mpi_share", "ranks": [{"rank", "mpi_s", "mpi_cpu_s", "comp_s", "A_comp"}],
 * "calls": [{"name", "count", "s", "cpu_s", "share"}], "T_comp": [{"n", "s"}]}. */
void pma_mpi_json(struct cJSON *root, const struct pma_ranks_result *r);

#endif
