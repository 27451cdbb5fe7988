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

#include "analyze.h"
#include "forest.h"

/* Feature columns. The first PMA_LEARN_NBASE describe the configuration and the run's counters;
 * the model's columns follow. */
enum pma_learn_feature {
	PMA_F_THREADS = 0, /* m: RUN_BEGIN threads (pmcollect -t), else the peak of live threads */
	PMA_F_CORES,       /* n: CPUs of the run */
	PMA_F_SOCKETS,     /* sockets used: ceil(n / (PUs per package)) from META topology */
	PMA_F_MEMPOL,      /* memory policy: 0 default, 1 bind, 2 interleave, 3 other */
	PMA_F_SIZE,        /* META label "size" as a number (pmcollect --label size=...); NAN absent */
	PMA_F_LLC,         /* LLC misses of the run (RUN_END C.llc_misses); NAN when not counted */
	PMA_F_STALLS,      /* stall cycles (C.stall_cycles); NAN when not counted */
	PMA_F_A,           /* model: A(m,n) of eq. 6 from the configuration's baseline */
	PMA_F_OMEGA,       /* model: omega(n); NAN (not calibrated in a training table) */
	PMA_F_T_MODEL,     /* model: predicted T(n) = T(1) / S(m,n), s (eq. 1) */
	PMA_LEARN_NFEAT,
};
#define PMA_LEARN_NBASE PMA_F_A

/* Feature names, for importances ("threads", "cores", ..., "T_model_s"). */
const char *pma_learn_feature_name(int f);

enum pma_learn_target { PMA_TARGET_TIME = 0, PMA_TARGET_ENERGY };

struct pma_learn_table {
	size_t rows;
	double *X;           /* rows x PMA_LEARN_NFEAT, row-major */
	double *y;           /* [rows]: wall time in s, or package + dram energy in J */
	uint32_t *config;    /* [rows]: configuration id (threads, cores, memory policy, size) */
	uint32_t nconfigs;
	uint32_t *program;   /* [rows]: program id, one per executable (basename of META command[0]) */
	uint32_t nprograms;
	char **program_name; /* [nprograms]: the executables' basenames */
	enum pma_learn_target target;
};

/* Builds the table from every finished run of traces[0..ntraces-1] with samples (and, for the
 * energy target, RUN_END energy). The model columns come from the run's baseline: among the runs
 * of the same program (command and size label) and thread count, the one on fewest CPUs; its
 * profile predicts A(m,n) and T(n) for the row's n (pma_profile_predict, omega 0). Returns 0, or
 * -1 with a reason: no finished run, no run with energy for the energy target (with the
 * recorded reason), out of memory. */
int pma_learn_table(const struct pma_trace *traces, int ntraces, enum pma_learn_target target,
		    struct pma_learn_table *t, char *why, size_t whysize);
void pma_learn_table_free(struct pma_learn_table *t);

/* Whether the table can teach anything about configurations. Returns 0, or -1 with a reason:
 * "one configuration only: ..." (fewer than 2 configurations), or "no runs in common: ..."
 * when the traces hold several programs (executables) and none of them ran in two or more
 * configurations, so that every configuration would be predicted from other programs' runs
 * (the features do not say which program ran). */
int pma_learn_check(const struct pma_learn_table *t, char *why, size_t whysize);

/* The three predictors on held-out configurations (pma_forest_holdout, folds = min(5,
 * configurations)): the analytical model alone (T_model_s against time; n = 0 for energy),
 * the forest on the base features, and the forest on all features. */
struct pma_learn_eval {
	struct pma_fit_quality model, forest_base, forest_model;
	uint32_t folds;
};

/* Returns 0, or -1 with a reason (pma_learn_check's, a training error). */
int pma_learn_evaluate(const struct pma_learn_table *t, const struct pma_forest_params *p,
		       struct pma_learn_eval *out, char *why, size_t whysize);

#endif
