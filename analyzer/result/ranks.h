/* SPDX-License-Identifier: MIT */
/* ranks.h: the merged analysis of the traces of one MPI or Slurm job, one trace per rank
 * (pmcollect -o 'pm-%j/trace.%r.zst', docs/cluster.md): a row per rank from that rank's own analysis,
 * then the job's figures: Min/Max/Avg/Sum over the ranks, the load-imbalance factor, the ranks the
 * job waits for, the job's predicted T(n), and how the ranks' clocks line up. Pure computation:
 * render/report_job.c renders it. The job's types are job.h's: the body of a PMA_RESULT_JOB result. */
#ifndef PMA_RANKS_H
#define PMA_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "job.h"

struct pma_trace;
struct pma_compute_opts;
struct pma_result;

/* Fills row from one loaded rank trace: its META job and clocks and, through pma_compute on this
 * trace alone with o, its own A(m,inf), T_cp, wall, busy time and predictions. With cal (a trace
 * of calibration runs recorded outside the launcher, pmanalyze --calibration; NULL none), omega(n)
 * is fitted on cal's runs alone (Tudor & Teo, eq. 7-10) and replaces the rank's own: T(n) =
 * T_0(n) (1 + omega(n)) (eq. 1 and 6, T_0 the prediction without contention). A rank that cannot
 * be analyzed (no samples, a cut trace) is not an error: row->analyzed is 0 and row->problem says
 * why. Returns 0, or -1 with a reason in why when the trace is not a rank of a job (no META
 * "job" with a rank) or memory ran out. row is freed with pma_rank_row_free also on error.
 * Reads t and cal only (several threads may share cal). */
int pma_rank_row_from(const struct pma_trace *t, const struct pma_compute_opts *o,
		      const struct pma_trace *cal, struct pma_rank_row *row, char *why,
		      size_t whysize);

/* Checks that cal (pmanalyze --calibration) gives omega: it has finished runs of its baseline's
 * thread count on enough core counts for the memory model (Tudor & Teo, eq. 8-10). Returns 0, or
 * -1 with a reason in why. */
int pma_ranks_calibration_check(const struct pma_trace *cal, const struct pma_compute_opts *o,
				char *why, size_t whysize);

enum { PMA_RANKS_E_BAD = -1, PMA_RANKS_E_MIXED = -2 };

/* Merges n rows (taking them over: out owns rows afterwards, also on error) into out. The rows
 * must be of one job: the same job id and size, unless force; with force the rows are grouped
 * by (job id, rank), each job with its own size and missing ranks. cal_path names the
 * --calibration trace the rows were given (NULL none), for the notes. Returns 0;
 * PMA_RANKS_E_MIXED with a reason in why when two rows name different jobs or sizes (without
 * force); PMA_RANKS_E_BAD when two rows of one job claim the same rank, a rank is not below its
 * size, there is no row, or memory ran out. out is freed with pma_ranks_free in every case. */
int pma_ranks_merge(struct pma_rank_row *rows, size_t n, int force, const char *cal_path,
		    struct pma_ranks_result *out, char *why, size_t whysize);

/* The job result of n rows: out (any previous content ignored) becomes a result of
 * kind PMA_RESULT_JOB (compute.h) whose body pma_ranks_merge fills; its header has no trace. Takes
 * the rows over as pma_ranks_merge does; returns as pma_ranks_merge; out is freed with
 * pma_result_free in every case. */
int pma_ranks_job_result(struct pma_rank_row *rows, size_t n, int force, const char *cal_path,
			 struct pma_result *out, char *why, size_t whysize);

#endif
