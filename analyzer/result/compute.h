/* SPDX-License-Identifier: MIT */
/* compute.h: everything a pmanalyze report shows, computed once from loaded traces into
 * struct pma_result: the estimator choice, the parallelism of the analyzed run, the predictions
 * per core count with their uncertainty, the memory model, the optimal core count and the notes.
 * Pure computation over the typed trace model (analyze.h): no I/O; report.c renders the result. */
#ifndef PMA_COMPUTE_H
#define PMA_COMPUTE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/analyze.h"
#include "studies/contention.h"
#include "studies/energy_eval.h"
#include "model/estimate.h"
#include "studies/interference.h"
#include "model/memory.h"
#include "model/model.h"
#include "notes/notes.h"
#include "studies/regions.h"
#include "studies/runcheck.h"
#include "studies/breakdown.h"
#include "job.h"
#include "training.h"
#include "studies/scaling.h"
#include "studies/wakecharge.h"
#include "studies/quota.h"
#include "studies/stationarity.h"

/* Default core counts run from 1 to max(m, PUs of the recording machine), at most this many (a
 * trace claiming millions of PUs must not make millions of rows); --cores has no such cap. */
#define PMA_DEFAULT_MAX_CORES 1024u

/* What to compute (the command line's choices). */
struct pma_compute_opts {
	int estimator;          /* enum pma_estimator_kind for the headline numbers, -1 = choose */
	long run_id;            /* run to analyze, -1 = the baseline run */
	const uint32_t *cores;  /* n values, sorted; NULL = the default range */
	size_t ncores;
	const struct pma_machine *machine; /* --machine (hwloc XML or a trace to predict for), loaded
				   before the computation (pma_machine_load) and borrowed; NULL =
				   the recording machine */
	uint32_t chunk;         /* --placement: threads per socket turn, 0 = compact, 1 = scatter */
	int mem_policy;         /* --mem: enum pma_mem_policy, -1 = from the recorded policy */
	double threshold;       /* --threshold: degradation threshold of the interference
				   analysis (0.05 = 5%), 0 = PMA_SENS_THRESHOLD_DEFAULT */
	uint32_t procs;         /* --procs: the program's processes sharing the resource
				   (Casas & Bronevetsky §5.2's p), 0 = 1 */
	int phases;             /* --phases: the phase table for any run (regions.h) */
	const char *tcm_event;  /* --tcm-event: the region counter used as Allande's TCM, NULL = the
				   one marked llc_misses */
	int allande_all;        /* --allande-all: report every configuration's estimates */
	int no_wake_cost;       /* --no-wake-cost: the replay charges no wake-up cost */
	unsigned pmnf_class_unit; /* --pmnf-classes: fit the sweep's PMNF classes PO2, ODD, EVEN
				     separately with this unit (scaling.h), 0 = not */
	int pmnf_aggregate;     /* --pmnf-aggregate: enum pma_pmnf_aggregate of the sweep's fits,
				   0 = PMA_PMNF_AGG_TRIMMED */
	const struct pma_quota_opts *quota; /* --quota (quota.h), NULL or nQ 0 for none */
	uint32_t quota_cores;   /* the cores the quota's program sees: --cores' largest, 0 = the
				   machine's PUs (else the run's CPUs) */
};

/* Section: the analyzed run's parallelism (Tudor & Teo, eq. 2, 4, 5). */
struct pma_par_result {
	int est;                                  /* the estimator the headline numbers use */
	struct pma_parallelism by_est[PMA_EST_COUNT];
	int have[PMA_EST_COUNT];                  /* the run has data for estimator k */
	double m;                                 /* threads */
	const char *m_source;
	double A_err;                             /* uncertainty of A(m,inf) of est, threads */
	double T1_s, wall_s;
	double interval_ms;                       /* the sampling interval the collector used (RUN_END
						     interval.final_ms, else META interval_ms) */
	double interval_requested_ms;             /* -i as asked when pmcollect lengthened it, else 0 */
	uint32_t baseline_cores;                  /* CPUs of the run, 0 unknown */
	const char *baseline_case;
	/* degraded inputs (docs/model.md "Invariants") */
	char status[160];                         /* how the run ended: "exited 0", "killed by
						     signal 11 (SIGSEGV)", "interrupted: ..." */
	int failed;                               /* not "exited 0": the profile covers a failed
						     or partial run */
	double unexplained_s;                     /* wall time the profile does not explain (the
						     program ready while its CPUs ran others) */
};

/* Section: one prediction per core count (eq. 1, 3, 6). */
struct pma_pred_result {
	size_t ncores;
	uint32_t *cores;                          /* [ncores] */
	struct pma_prediction *by_est[PMA_EST_COUNT]; /* [ncores] each; NULL when !have[k] */
	double *S_err;                            /* [ncores]: uncertainty of S of est, the parts
						     below in quadrature (docs/model.md
						     "Uncertainty") */
	double *S_err_A;                          /* [ncores]: A's part: S A_err / A */
	double *S_err_omega;                      /* [ncores]: omega's, S domega / (1 + omega); 0
						     where omega is unknown */
	double *S_err_wake;                       /* [ncores]: the replay's wake cost's, S dT / T */
	double *S_err_model;                      /* [ncores]: the model's error at the trace's own
						     runs, carried to n (runcheck.h) */
	double *S_err_runs;                       /* [ncores]: a measured S's own spread: the
						     trace's runs' standard error of S at the
						     nearest measured n, relative, times S
						     (pma_runcheck_spread_rel); 0 without runs */
	double *T_err_ns;                         /* [ncores]: uncertainty of the replay's T(n) from
						     the wake-up cost's spread (0 without) */
	double *S_opt;                            /* [ncores]: the S the optimum is chosen over
						     (enforce_optimum): the runs' S where they
						     measured it, NAN where a row is left out
						     (unknown omega beside known ones, n > m) */
	double *S_gap_err;                        /* [ncores]: uncertainty of S(n_max) - S(n), the
						     difference of each part of ±S between the two
						     rows in quadrature (one replay, one fit); NAN
						     where S_opt is */
	size_t n_opt_measured;                    /* the optimum (opt) took S measured by the
						     trace's own runs (runcheck) at these cores */
#define PMA_OPT_MEASURED_MAX 16
	uint32_t opt_measured[PMA_OPT_MEASURED_MAX];
};

/* Section: measured speedups of the traces' finished runs with the analyzed run's m and a known CPU
 * count: S(n) = T(1) / T(n), wall times, T(1) the mean wall time of the runs on one CPU. Empty when
 * no run has one CPU. For the speedup plot's measured points. */
#define PMA_MEASURED_MAX 64
struct pma_measured_result {
	size_t n;
	uint32_t cores[PMA_MEASURED_MAX];
	double S[PMA_MEASURED_MAX];
	double wall_s[PMA_MEASURED_MAX];
};

/* The kinds of result: which member of struct pma_result's body is live. */
enum pma_result_kind {
	PMA_RESULT_RUN = 0,       /* one run of traces[0]: pma_compute on a recorded program */
	PMA_RESULT_INTERFERENCE,  /* a trace of pmcollect --interfere (Casas & Bronevetsky) */
	PMA_RESULT_JOB,           /* the traces of an MPI job's ranks merged (ranks.h) */
	PMA_RESULT_LEARN,         /* a training set's evaluation, --learn (learning.h) */
	PMA_RESULT_TOEP,          /* TOEP's procedure over a training set, --toep (learning.h) */
	PMA_RESULT_PREDICT,       /* the forest's predictions, --predict with --model (learning.h) */
};

/* The result: a common header (what was analyzed, the notes) plus a body tagged by kind, one
 * shape per kind. pma_compute makes a run or an interference result; pma_ranks_merge's job
 * becomes a result of kind PMA_RESULT_JOB (ranks.h) without pma_compute knowing of ranks. The run
 * body holds the numbers of the report's sections (section.h), each computed by its section's
 * steps and rendered by its file of render/ (report_<section>.c).
 * The learned kinds (training.h) are built by learning.h and rendered by render/report_learn.h. The
 * members of the body are anonymous: r->par is the run's, r->interf the interference study's,
 * r->job the job's, r->learn, r->toep and r->predict the learned kinds'; only the member of
 * r->kind may be read. */
struct pma_result {
	/* header */
	enum pma_result_kind kind;
	const struct pma_trace *traces;           /* borrowed: the caller keeps them loaded; NULL
						     for a job (its rows name their traces) */
	int ntraces;
	const struct pma_trace *t;                /* traces[0] */
	const struct pma_run *run;                /* the analyzed run of traces[0] */
	struct pma_notes notes;                   /* for the user, in the order they arose */
	/* body, by kind */
	union {
		struct {                          /* PMA_RESULT_RUN */
			struct pma_par_result par;
			struct pma_pred_result pred;
			struct pma_mem_eval mem;          /* omega(n): calibration, fit, per core count */
			struct pma_optimal opt;           /* eq. 11 over S; opt.n_best 0 when none */
			struct pma_regions_result regions; /* OpenMP regions (--omp-regions traces) */
			struct pma_energy_result energy;  /* E(n), energy-optimal n; energy.have 0 with
							     energy.reason when no run has energy */
			struct pma_run_power run_power;   /* the analyzed run's power by energy zone over
							     time (ENERGY records); run_power.s.n 0 without */
			struct pma_measured_result measured; /* measured S(n) of the runs, for the plots */
			struct pma_scaling scaling;       /* --sweep runs: measured vs predicted, PMNF
							     fits (scaling.h); scaling.present 0 without */
			struct pma_wake_result wake;      /* the replay's wake charges (wakecharge.h) */
			struct pma_quota_result quota;    /* --quota (quota.h); quota.have 0 without */
			struct pma_quota_sweep quota_sweep; /* pmcollect --sweep quota= runs measured
							     against T(n, Q) (quota.h); present 0 without */
			struct pma_stationarity stat;     /* A(m,inf) by quarter of the recording
							     (stationarity.h); stat.have 0 without */
			struct pma_runcheck runcheck;     /* S measured by the trace's own runs on 1 and n
							     CPUs against the predictions (runcheck.h);
							     runcheck.n 0 without such runs or with
							     --machine */
			struct pma_breakdown breakdown;   /* where the calibration runs' time on c CPUs
							     goes beside the prediction (breakdown.h);
							     breakdown.n 0 without scheduler events */
		};
		struct pma_interf_result interf;  /* PMA_RESULT_INTERFERENCE: active interference */
		struct pma_ranks_result job;      /* PMA_RESULT_JOB: the merged ranks (job.h) */
		struct pma_learn_result learn;    /* PMA_RESULT_LEARN (training.h) */
		struct pma_toep_study toep;       /* PMA_RESULT_TOEP (training.h) */
		struct pma_predictions predict;   /* PMA_RESULT_PREDICT (training.h) */
	};
};

/* Computes the result for the chosen run of traces[0] (the others add calibration runs): the
 * steps of every section (section.h), stage by stage; for a trace of pmcollect --interfere or
 * --calibrate-interference, the interference study only.
 * r borrows traces until pma_result_free. A program that ran one
 * thread at a time (m = 1) is an answer: A(m,inf) = 1, S = 1 at every n, the note serial. Returns
 * 0, or -1 with a one-line reason in why (no such run, no samples, a
 * failed replay, out of memory); no I/O: what it reads is loaded before; r is freed with pma_result_free also on
 * error. */
int pma_compute(const struct pma_trace *traces, int ntraces, const struct pma_compute_opts *o,
		struct pma_result *r, char *why, size_t whysize);
/* Frees what r owns, by its kind (a job's rows too), and zeroes it; NULL is accepted. */
void pma_result_free(struct pma_result *r);

/* The estimator of the headline numbers for run: requested (enum pma_estimator_kind) when >= 0,
 * else the exact mode when the run has scheduler events and lost under 1% of them, else the
 * runnable estimator. */
int pma_choose_estimator(const struct pma_run *run, int requested);

/* The headline profile of r (its run's profile by r->par.est); NULL when r is not of kind
 * PMA_RESULT_RUN or the run has no profile of that estimator. */
const struct pma_profile *pma_result_profile(const struct pma_result *r);

#endif
