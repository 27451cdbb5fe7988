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
	double S_pred, S_pred_err; /* the prediction at n (eq. 1) and its ±S from the spreads
				      (A, omega, the wake cost), the model's error not included */
	int outside;               /* [S_pred - S_pred_err, S_pred + S_pred_err] misses
				      [S_min, S_max] */
	double S_sd;               /* standard error of S: each median's (1.2533 sd / sqrt(k),
				      sd the runs' sample standard deviation) relative, in
				      quadrature (of the own times S_own where corrected); 0
				      with one run on each side */
	double S_err_total;        /* ±S at n with the model's error (pma_runcheck_set_total) */
	double model_rel;          /* the model's error at n, relative to S_pred: the part of
				      |S - S_pred| that neither S_sd nor the S_err given explains,
				      sqrt(max(0, d^2 - S_sd^2 - S_err^2)) / S_pred; 0 when S_pred
				      is not finite */
	/* Other processes' time (pma_runcheck_set_other): medians over the runs on one CPU (_1)
	 * and on n (_n) of the seconds each run waited for CPUs that other processes used, and of
	 * that time's share of each run's wall time (%) */
	double other_1_s, other_n_s, other_n_pct, other_1_pct;
	int corrected;             /* the runs waited for other processes (over
				      PMA_RUNCHECK_OTHER_MIN of a median wall time on either side):
				      S_own is the measurement the prediction is checked against */
	double S_own;              /* corrected: median (T(1) - other) / median (T(n) - other), the
				      runs' own time, like with like with the prediction (the
				      program alone); else S */
	double S_own_min, S_own_max; /* the same per run on n CPUs (else S_min, S_max) */
};

/* The share of a median wall time that the runs' waits for other processes' CPUs must exceed
 * for the check to compare their own time rather than the wall time: 10%, where the analyzed
 * run's own wait gets the note that its T(n) and wall time are not comparable (compute.c
 * check_unexplained). Below it, a wait may as well be Linux balancing woken threads with a CPU
 * idle, which other processes' CPU time over the run (machine-wide, the collector's included)
 * cannot tell apart and which is the model's to answer for. */
#define PMA_RUNCHECK_OTHER_MIN 0.10

struct pma_runcheck {
	size_t n;
	double quota_cpus;         /* > 0: the runs ran under this CPU quota (META cpu_limit) and
				      S_pred is T(1, Q) / T(n, Q) (quota.h); 0: no limit recorded */
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

/* Takes other processes' time out of c's rows: other_s[i] seconds of run i's wall_s[i] (same
 * runs and order as pma_runcheck_rows was given, cpus[i] CPUs) the run was ready to run while
 * its CPUs ran other processes, 0 when it did not or it is unknown (the caller's measurement:
 * compute.c takes the wall time its own replay on those CPUs leaves unexplained, at most the
 * other processes' busy CPUs /proc/stat counted over the run, RUN_END other_load.cpus x wall).
 * Sets the rows' other_* and S_own*; a row whose runs waited more than PMA_RUNCHECK_OTHER_MIN
 * of their median wall time is corrected: its outside and model_rel are judged on S_own (the
 * prediction is for the program alone on n CPUs). Returns the number of rows corrected. */
size_t pma_runcheck_set_other(struct pma_runcheck *c, const double *wall_s, const double *other_s,
			      const uint32_t *cpus, size_t nruns);

/* The model's relative error at n carried from the rows (docs/model.md "The model's error"):
 * the points are n = 1, where the prediction is the baseline itself (error 0), and each row's
 * (cores, model_rel); the error grows from the nearest point c (in log2 n) at the steepest rate
 * the rows show per doubling from one CPU: e(c) + rate |log2(n / c)|, rate = max over rows of
 * model_rel / log2(cores). 0 without rows or when every row's runs explain its difference. */
double pma_runcheck_model_rel(const struct pma_runcheck *c, uint32_t n);

/* The relative spread of a measured S at n (docs/model.md "A measured S's own spread"): the
 * standard error of the runs' median S relative to it, S_sd / S_own (S_own: the runs' own
 * times' S where corrected, else S), of the row nearest n in log2 n, where n = 1 counts as a
 * point of spread 0 (S(1) = 1 by definition); of two as near, the larger. It is
 * what a new measurement of S(n), the median of as many runs, scatters by around the truth, so a
 * prediction interval for it holds it beside the model's parts. 0 without rows. */
double pma_runcheck_spread_rel(const struct pma_runcheck *c, uint32_t n);

/* Sets each row's S_err_total to the S_err of its core count in cores: the final ±S, the model's
 * part included. S_pred_err and outside stay the model's own (its spreads without the error the
 * runs measure, which would explain the runs by construction). */
void pma_runcheck_set_total(struct pma_runcheck *c, const uint32_t *cores, const double *S_err,
			  size_t ncores);

/* The row whose prediction misses its runs by the most (relative to the runs' nearest S), NULL
 * when none is outside. */
const struct pma_runcheck_row *pma_runcheck_worst(const struct pma_runcheck *c);

#endif
