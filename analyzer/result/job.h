/* SPDX-License-Identifier: MIT */
/* job.h: the shape of a merged MPI or Slurm job (docs/cluster.md), one row per rank: the body of a
 * result of kind PMA_RESULT_JOB (compute.h). Types and their free functions only; ranks.h builds
 * them from the ranks' run results (pma_rank_row_from, pma_ranks_merge). */
#ifndef PMA_JOB_H
#define PMA_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "notes/notes.h"
#include "trace/mpi_info.h"

/* A rank whose busy time is at least this share of the slowest rank's is reported on the
 * critical path: the job waits for it nearly as long as for the slowest. */
#define PMA_RANKS_CRITICAL_SHARE 0.95

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

void pma_mpi_rank_free(struct pma_mpi_rank *r);
void pma_mpi_job_free(struct pma_mpi_job *j);

/* One rank: what its own trace says (pma_rank_row_from). Strings are owned; numbers NAN when
 * unknown. */
struct pma_rank_row {
	char *path;             /* the trace */
	long rank, local_rank, size; /* META job; -1 unknown */
	char *job;              /* job id, NULL when the launcher gave none */
	char *host;             /* META job.host (else META hostname), NULL unknown */
	char *cpus;             /* the CPUs the rank could use: META affinity.cpus, else the run's */
	int complete;           /* the program exited and the trace was finished (SUMMARY) */
	char *problem;          /* why the rank is incomplete or was not analyzed; NULL when neither */
	int analyzed;           /* its own analysis succeeded: the numbers below are set */
	const char *estimator;  /* name of the estimator of A (static) */
	double m;               /* threads of the rank (Tudor & Teo's m) */
	double A_inf;           /* A(m,inf) of the rank (Tudor & Teo, eq. 4) */
	double T_cp_s;          /* critical-path time of the rank: time with a thread active, s */
	double wall_s;          /* the rank's run, RUN_BEGIN to RUN_END, s */
	double busy_s;          /* CPU time of the rank's process tree (RUN_END C.cpu_time_ns), s */
	double omega;           /* omega(n) for n = the rank's CPUs (its META affinity, else its
				   run's), Tudor & Teo eq. 7-10, when its trace has calibration
				   runs (pmcollect --calibrate) or a calibration trace was given
				   (pmanalyze --calibration); else NAN */
	const char *omega_source; /* "trace" (its own calibration runs), "calibration" (the
				   --calibration trace) or NULL (no omega); static */
	int cal_replaced;       /* the --calibration trace replaced its own calibration */
	double cal_m;           /* threads of the --calibration trace's runs it took omega from */
	uint32_t n_rank;        /* the rank's CPUs, the n of omega above; 0 unknown */
	/* calibration runs of the rank's trace that did not finish with status 0 (under a launcher
	 * a second start of an MPI program fails in MPI_Init): how many, and the first as
	 * "run 1: exited 1" (NULL when none) */
	long cal_failed;
	char *cal_failed_what;
	/* clocks (FORMAT.md 1.2): the run's start on the realtime axis, seconds since the epoch,
	 * and the drift of CLOCK_REALTIME against CLOCK_MONOTONIC over the run */
	double begin_realtime_s;
	double drift_ppm;
	double start_offset_s;  /* begin_realtime_s less the earliest rank's (set by the merge) */
	/* predictions of the rank: T(n) for n = cores[i] (Tudor & Teo, eq. 1 and 6), with the
	 * omega(n) they used (NAN where unknown; omega_n NULL without calibration) */
	size_t ncores;
	uint32_t *cores;
	double *T_ns;
	double *omega_n;
	double packages;        /* sockets of the rank's node (META topology), 0 unknown */
	uint32_t *on_packages;  /* OS indexes of the packages (sockets) the rank's CPUs cover
				   (META affinity.packages), non_packages of them; NULL unknown */
	size_t non_packages;
	/* ranks of its job sharing a socket's memory system with this one (set by the merge): the
	 * most on any package the rank covers, a rank covering s packages counting 1/s on each,
	 * rounded up; for a rank without affinity.packages, the ranks of its job on its host over
	 * the host's sockets, rounded up */
	long ranks_per_socket;
	struct pma_mpi_rank mpi;  /* computation vs time inside MPI (pmcollect --mpi, mpitime.h) */
	double collector_cpu;   /* the CPU pmcollect ran on, -1 the rank's own (bindings.h), NAN unknown */
	double collector_s;     /* pmcollect's sampling CPU time (SUMMARY), s; NAN unknown */
};

/* A rank named in the merged result: its rank number and job id (borrowed from a row; NULL when
 * the launcher gave none). Without --force all rows share one job. */
struct pma_rank_ref {
	const char *job;
	long rank;
};

/* One job of the merge (several only with --force): the rows rows[first .. first+n-1]. */
struct pma_rank_job {
	const char *job;                /* borrowed from a row; NULL when none */
	long size;                      /* the largest size its rows claim, -1 unknown */
	size_t first, n;
	size_t nmissing;                /* its ranks 0..size-1 without a trace */
};

/* A Min/Max/Avg/Sum line over the analyzed ranks (likwid-mpirun's summary). */
struct pma_rank_stat {
	double min, max, avg, sum;
	size_t n;               /* ranks with a finite value */
};

/* The merged job. */
struct pma_ranks_result {
	size_t n;                       /* rows, sorted by job id (NULL first, then strverscmp),
					   then rank */
	struct pma_rank_row *rows;
	char *job;                      /* the job id all rows share (NULL when none, or when the
					   rows are of several jobs) */
	size_t njobs;                   /* distinct job ids (more than 1 only with --force) */
	struct pma_rank_job *jobs;
	long size;                      /* ranks the launchers started: the sum over the jobs, -1
					   when a job's size is unknown */
	size_t nhosts;                  /* distinct hosts */
	size_t nincomplete;             /* rows with !complete */
	struct pma_rank_ref *missing;   /* per job, ranks 0..size-1 without a trace (nmissing) */
	size_t nmissing;
	struct pma_rank_stat m, A_inf, T_cp_s, wall_s, busy_s; /* over complete, analyzed ranks */
	/* Load-imbalance factor lambda = max_r busy_r / mean_r busy_r over the complete ranks
	 * (1 = balanced; the job waits for its slowest rank, so the others idle for lambda - 1 of
	 * the mean): the inverse of the POP "load balance" efficiency mean/max. NAN with no rank. */
	double imbalance;
	struct pma_rank_ref slowest;    /* the rank of max busy time; rank -1 none */
	struct pma_rank_ref *critical;  /* ranks with busy >= PMA_RANKS_CRITICAL_SHARE * max */
	size_t ncritical;
	/* clocks: spread of the runs' starts on the realtime axis (max - min) and the largest
	 * |drift| of a rank; NAN when no rank recorded clock pairs (traces before 1.2) */
	double start_spread_s;
	double max_abs_drift_ppm;
	/* the job's T(n): the max over complete ranks of each rank's T(n) (the job waits for its
	 * slowest rank), and the sum as the other bound (the ranks one after another). A rank with
	 * calibration runs and k = ranks_per_socket > 1 has its T(n) scaled by
	 * (1 + omega(k n)) / (1 + omega(n)): k ranks of n cores load one socket's memory system
	 * like k n cores (Tudor & Teo, eq. 1 and 7); omega_shared counts such ranks. */
	size_t omega_shared;
	size_t ncores;
	uint32_t *cores;
	double *T_max_ns, *T_sum_ns;
	struct pma_rank_ref *T_max;     /* the rank of T_max_ns[i]; rank -1 none */
	/* what the user should know: PMA_NOTE_RANKS_OMEGA_UNKNOWN (ranks without omega, with
	 * failed calibration runs), PMA_NOTE_RANKS_CAL_FILE (omega from --calibration) */
	struct pma_notes notes;
	struct pma_mpi_job mpi;         /* the job's MPI figures (pma_mpi_job_compute) */
};

/* Frees what row owns and zeroes it; NULL is accepted. */
void pma_rank_row_free(struct pma_rank_row *row);
/* Frees the rows and everything r owns and zeroes it; NULL is accepted. */
void pma_ranks_free(struct pma_ranks_result *r);

#endif
