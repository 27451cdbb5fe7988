/* SPDX-License-Identifier: MIT */
/* learn.h: TOEP's training table over run configurations (Benedict, Gschwandtner & Fahringer,
 * §III-A; ../shared/seeds/003_*): one row per recorded run, features of its configuration plus
 * the analytical model's prediction for it (Tudor & Teo eq. 1, 6), the target time or energy;
 * and the comparison of three predictors on held-out configurations (forest.h). Pure
 * computation over the typed trace model: no I/O. */
#ifndef PMA_LEARN_H
#define PMA_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "trace/analyze.h"
#include "model/forest.h"
#include "trace/machine.h"
#include "model/memory.h"
#include "model/power.h"
#include "notes/notes.h"

/* Feature columns. The first PMA_LEARN_NBASE describe the configuration and the run's counters;
 * the model's columns follow. */
enum pma_learn_feature {
	PMA_F_THREADS = 0, /* m: RUN_BEGIN threads (pmcollect -t), else the peak of live threads */
	PMA_F_CORES,       /* n: CPUs of the run */
	PMA_F_SOCKETS,     /* sockets used: packages holding a CPU of the run's CPU list (META
			      topology's hwloc XML); NAN when several packages and no XML */
	PMA_F_PLACEMENT,   /* placement: share of the run's CPUs on its most used package (1 = all
			      on one, 0.5 = spread evenly over two; Allande et al.'s AFF vector
			      reduced to one number) */
	PMA_F_MEMPOL,      /* memory policy: 0 default, 1 bind, 2 interleave, 3 other */
	PMA_F_SIZE,        /* META label "size" as a number (pmcollect --label size=...); NAN absent */
	PMA_F_LLC,         /* LLC misses of the run (RUN_END C.llc_misses); NAN when not counted */
	PMA_F_STALLS,      /* stall cycles (C.stall_cycles); NAN when not counted */
	PMA_F_A,           /* model: A(m,n) of eq. 6 from the group's baseline */
	PMA_F_OMEGA,       /* model: omega(n) (eq. 7) from the memory model (eq. 8-10) fitted to
			      the group's runs at several CPU counts; NAN when they do not allow a
			      fit (no 1-CPU run, one CPU count) or the socket saturates */
	PMA_F_T_MODEL,     /* model: T(n) = T(1) / A(m,n), s (eq. 1 without omega, which is the
			      column before: pma_learn_model_x) */
	PMA_LEARN_NFEAT,
};
#define PMA_LEARN_NBASE PMA_F_A

/* Feature names, for importances ("threads", "cores", ..., "T_model_s"). */
const char *pma_learn_feature_name(int f);

enum pma_learn_target { PMA_TARGET_TIME = 0, PMA_TARGET_ENERGY };

/* What one row needs for the model's columns, besides its run. */
struct pma_learn_row {
	const struct pma_run *run;   /* borrowed: the traces must outlive the table */
	uint32_t machine;            /* index into machine[] (the recording machine of its trace) */
	struct pma_mem_point pt;     /* its C(n) point for the memory model (pma_mem_run_C) */
	int pol;                     /* enum pma_mem_policy from its recorded memory policy */
	struct pma_power_run pw;     /* its power-model input (pma_power_run_from) */
	int has_power;
};

/* The runs left out of a training table because they did not exit 0 (pma_run_exited_ok): a run
 * that failed measured its failure, not the program (one that exited 1 after a tenth of its work
 * would say its configuration takes a tenth of the time). */
struct pma_learn_failed {
	uint32_t runs;       /* how many; 0: none (the fields below are then unset) */
	uint32_t run_id;     /* the first one's run id */
	int status;          /* its PMA_RUNST_* (notes.h) */
	double code;         /* its exit code or signal number (0 for PMA_RUNST_NO_END) */
	const char *trace;   /* its trace's path, borrowed from the traces */
};

struct pma_learn_table {
	size_t rows;
	double *X;           /* rows x PMA_LEARN_NFEAT, row-major; model columns from every row */
	double *y;           /* [rows]: wall time in s, or package + dram energy in J */
	uint32_t *config;    /* [rows]: configuration id (threads, cores, memory policy, size,
				command) */
	uint32_t nconfigs;
	uint32_t *program;   /* [rows]: program id, one per executable (basename of META command[0]) */
	uint32_t nprograms;
	char **program_name; /* [nprograms]: the executables' basenames */
	uint32_t *family;    /* [rows]: one per command and size label (the runs a --predict line
				describes) */
	uint32_t nfamilies;
	uint32_t *group;     /* [rows]: one per family and thread count: the runs whose baseline
				and memory-model fit give each other's model columns */
	uint32_t ngroups;
	struct pma_learn_row *row; /* [rows] */
	struct pma_machine *machine; /* [nmachines]: one per distinct recorded topology */
	uint32_t nmachines;
	uint32_t energy_gap_runs;    /* runs whose energy readings were over 1 s apart */
	double energy_gap_max_s;     /* the largest such gap */
	uint64_t energy_gap_run_id;  /* the run with it */
	struct pma_learn_failed failed; /* runs left out: they did not exit 0 */
	enum pma_learn_target target;
};

/* Builds the table from every run of traces[0..ntraces-1] that exited 0 (pma_run_exited_ok) with
 * samples (and, for the energy target, RUN_END energy); those that did not exit 0 are counted
 * in t->failed. The traces must outlive the table (rows point at their runs, t->failed at a path).
 * X's model columns come from all rows (pma_learn_model_x with fold NULL): what a forest trained
 * on the whole table and --predict see. Returns 0, or -1 with a reason: no run that exited 0, no
 * run with energy for the energy target (with the recorded reason), out of memory. */
int pma_learn_table(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		    struct pma_learn_table *t, char *why, size_t whysize);
void pma_learn_table_free(struct pma_learn_table *t);

/* The analytical model's columns x[PMA_F_A], x[PMA_F_OMEGA], x[PMA_F_T_MODEL] for a
 * configuration of group g on n CPUs, n_first of them on the most used package, predicted only
 * from the group's rows i with fold == NULL or fold[i] != k (the training rows of fold k: a
 * held-out row never predicts itself):
 * - the baseline: the usable row of the group on fewest CPUs (the first such); its runnable
 *   profile gives A(m,n) (Tudor & Teo eq. 6) and the T(n) column, T(1) / A(m,n) (eq. 1 with
 *   omega 0) (pma_profile_predict);
 * - omega(n) (eq. 7): the memory model fitted to the C(n) of the group's usable rows
 *   (pma_mem_fit: eq. 8 on one socket, eq. 9-10 across sockets; it needs a 1-CPU row and a
 *   second CPU count) and evaluated for n_first and n - n_first CPUs on the two packages
 *   (pma_mem_predict); NAN when unknown, saturated, or n is more than the machine's PUs.
 * *T_s (may be NULL) gets the model's own prediction, T(n) = T(1) / S(m,n) with S = A / (1 +
 * omega) (eq. 1; omega 0 when unknown). Writes NAN to all when no usable row of the group
 * exists. Returns 1 when a baseline was found, else 0. */
int pma_learn_model_x(const struct pma_learn_table *t, uint32_t g, uint32_t n, uint32_t n_first,
		      const uint32_t *fold, uint32_t k, double *x, double *T_s);

/* The analytical model's prediction of the target from A(m,n) and its T(n) (pma_learn_model_x's
 * *T_s): T(n) for time; for energy, E(n) = (P_static + A(m,n) P_core) T(n) with pm a physical
 * power model (power.h; NULL: NAN). NAN when A or T is. */
double pma_learn_model_y(const struct pma_learn_table *t, double A, double T,
			 const struct pma_power_model *pm);

/* The base columns (threads .. stall cycles; placement from the CPU list "0-<n-1>", as pmcollect
 * -C 0-<n-1> gives) and the model columns (pma_learn_model_x over every row; *T_s its T(n) with
 * omega) of a configuration never run: family f (a command and size label) with m threads on n
 * CPUs. The model columns are NAN when the family has no run with m threads. Returns 1 when it
 * has, else 0. */
int pma_learn_config_x(const struct pma_learn_table *t, uint32_t f, uint32_t m, uint32_t n,
		       double *x, double *T_s);

/* The family's program name and size label (NAN when absent), for a --predict line. */
void pma_learn_family(const struct pma_learn_table *t, uint32_t f, const char **program,
		      double *size);

/* Whether the table can teach anything about configurations. Returns 0, or -1 with a reason:
 * "one configuration only: ..." (fewer than 2 configurations), or "no runs in common: ..."
 * when the traces hold several programs (executables) and none of them ran in two or more
 * configurations, so that every configuration would be predicted from other programs' runs
 * (the features do not say which program ran). */
int pma_learn_check(const struct pma_learn_table *t, char *why, size_t whysize);

/* The three predictors on held-out configurations (folds = min(5, configurations),
 * pma_forest_folds): the analytical model alone (pma_learn_model_y: T(n) for time; E(n) from
 * the power model fitted to the training folds' runs for energy, none when that fit fails or is
 * not physical), the forest on the base features, and the forest on all features. For each fold
 * the model's columns of every row come from the other folds' rows only (pma_learn_model_x), so
 * a held-out run is never its own baseline nor a point of its own omega fit. model.n counts the
 * rows the model could predict (a row whose group has no run in the training folds cannot). */
struct pma_learn_eval {
	struct pma_fit_quality model, forest_base, forest_model;
	uint32_t folds;
	char model_why[200];   /* when model.n is 0: why ("" otherwise) */
};

/* Returns 0, or -1 with a reason (pma_learn_check's, a training error). */
int pma_learn_evaluate(const struct pma_learn_table *t, const struct pma_forest_params *p,
		       struct pma_learn_eval *out, char *why, size_t whysize);

/* The held-out model columns as a pma_fold_x for pma_toep_run and pma_forest_holdout: for fold
 * k, every row's base columns from t->X and model columns from the rows outside fold k. When
 * model_y is not NULL, the rows of fold k get pma_learn_model_y there ([rows]; energy: with the
 * power model of the rows outside fold k). */
struct pma_learn_fold_ctx {
	const struct pma_learn_table *t;
	double *model_y;
};
int pma_learn_fold_x(void *ctx, const uint32_t *fold, uint32_t k, double *X, char *why,
		     size_t whysize);

#endif
