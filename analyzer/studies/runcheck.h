/* SPDX-License-Identifier: MIT */
/* runcheck.h: the predictions checked against the analyzed trace's own runs (docs/model.md
 * "Checked against the trace's own runs"). pmcollect --calibrate runs the program on one CPU
 * (baseline runs) and on n CPUs (calibration runs) to measure C(n) for omega (Tudor & Teo eq. 7);
 * their wall times also measure S(n) = T(1) / T(n) on the recording machine, which the model
 * predicts from the baseline alone (eq. 1). Where the two disagree beyond the prediction's ±S, the
 * model's error there is larger than it says. Pure computation. */
#ifndef PMA_RUNCHECK_H
#define PMA_RUNCHECK_H

#include <stddef.h>
#include <stdint.h>

#define PMA_RUNCHECK_MAX 64

/* One core count n > 1 with runs on one CPU and on n. */
struct pma_runcheck_row {
	uint32_t cores;            /* n: the runs' CPUs */
	size_t runs_1, runs_n;     /* runs on one CPU, on n CPUs */
	double S;                  /* median T(1) / median T(n), wall times */
	double S_min, S_max;       /* median T(1) / T(n) of each run on n CPUs: the runs' spread */
	double S_pred, S_pred_err; /* the prediction at n (eq. 1) and its ±S */
	int outside;               /* [S_pred - S_pred_err, S_pred + S_pred_err] misses
				      [S_min, S_max] */
};

struct pma_runcheck {
	size_t n;
	struct pma_runcheck_row rows[PMA_RUNCHECK_MAX];
};

/* The rows of out from runs i < nruns that took wall_s[i] > 0 seconds on cpus[i] CPUs (the
 * caller's choice of runs: finished, of the analyzed thread count, on the recording machine):
 * one per predicted core count cores[j] > 1 (prediction S[j] ± S_err[j]) that has runs on one
 * CPU and on cores[j], at most PMA_RUNCHECK_MAX. A prediction that is not finite (saturated) is
 * never outside. Runs of other CPU counts, and wall times not above 0 or not finite, are left
 * out. Returns out->n. */
size_t pma_runcheck_rows(const double *wall_s, const uint32_t *cpus, size_t nruns,
			 const uint32_t *cores, const double *S, const double *S_err, size_t ncores,
			 struct pma_runcheck *out);

/* The row whose prediction misses its runs by the most (relative to the runs' nearest S), NULL
 * when none is outside. */
const struct pma_runcheck_row *pma_runcheck_worst(const struct pma_runcheck *c);

#endif
