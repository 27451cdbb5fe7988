/* SPDX-License-Identifier: MIT */
/* calstop.h: when pmcollect --calibrate has repeated its core counts enough: the
 * standard error of omega(n) = C(n)/C(1) - 1 at each calibrated core count from the runs so far
 * (Tudor & Teo, eq. 7), computed as pmanalyze computes it (analyzer/studies/contention.c), and
 * the rule that ends the rounds: a target standard error, a time budget, the plan's last round. */
#ifndef PMC_CALSTOP_H
#define PMC_CALSTOP_H

#include <stddef.h>
#include <stdint.h>

/* Why the rounds of a calibration ended; its name is SUMMARY "calibration" "stop". */
enum pmc_calstop_reason {
	PMC_CALSTOP_CONTINUE = 0, /* not yet: run another round */
	PMC_CALSTOP_TARGET,       /* every calibrated omega's standard error is at most the target */
	PMC_CALSTOP_BUDGET,       /* another round would end past the time budget */
	PMC_CALSTOP_MAX_ROUNDS,   /* the plan holds no more rounds (PMC_PLAN_MAX_RUNS runs) */
	PMC_CALSTOP_REPEAT,       /* a fixed number of rounds (--repeat K alone) */
	PMC_CALSTOP_FAILED,       /* a run failed or pmcollect was stopped by a signal */
};

/* The stopping rule. Rounds are checked after each complete round r = 1, 2, ...:
 *   1. r >= max_rounds: MAX_ROUNDS;
 *   2. r >= min_rounds and r >= PMC_CALSTOP_MIN_SE_ROUNDS and the worst standard error is at
 *      most omega_se_target: TARGET;
 *   3. budget_ns > 0 and elapsed + elapsed / r (the mean round so far) > budget_ns: BUDGET, so a
 *      round that would end past the budget is not started (the budget beats min_rounds: at
 *      least one round always runs);
 *   4. else CONTINUE. */
struct pmc_calstop_rule {
	double omega_se_target; /* the standard error of omega wanted at every calibrated count */
	uint64_t budget_ns;     /* time for all rounds, ns; 0 = no budget */
	uint32_t min_rounds;    /* rounds run before the target may stop them (--repeat K) */
	uint32_t max_rounds;    /* rounds the plan holds */
};

/* The target is checked from 3 runs per core count on: with 2, pmanalyze keeps only the smaller
 * of two C(1) that differ by more than 10% (contention.c fit_points), so its standard error is
 * not the runs' spread. */
#define PMC_CALSTOP_MIN_SE_ROUNDS 3

/* "target", "budget", "max_rounds", "repeat", "failed" ("continue" for CONTINUE). Static. */
const char *pmc_calstop_reason_name(enum pmc_calstop_reason r);

/* C(n) of n >= 1 runs C[0..n) (ns of CPU time or cycles) summarized as pmanalyze does
 * (contention.c summarize_points): *median, and *se the standard error of C, sample sd /
 * sqrt(n), at least 1e-3 of the median (identical runs still measured it). With n = 1, *se is
 * NAN. C is not modified. */
void pmc_calstop_C(const double *C, size_t n, double *median, double *se);

/* omega(n) = C(n)/C(1) - 1 (Tudor & Teo, eq. 7) from the medians of the runs C1[0..n1) on one
 * CPU and Cn[0..nn) on n CPUs, and its standard error by the delta method,
 * (C(n)/C(1)) hypot(se1/C(1), sen/C(n)): on one socket this is exactly pmanalyze's omega_err
 * (the line of eq. 8 through two points, its covariance propagated; tests/unit/test_contention.c
 * checks both on the same numbers). *omega_se is NAN when either count has fewer than two runs
 * or a median is not positive. */
void pmc_calstop_omega(const double *C1, size_t n1, const double *Cn, size_t nn, double *omega,
		       double *omega_se);

/* The worst (largest) standard error of omega over the calibrated core counts of `rounds`
 * complete rounds of C[rounds * npoints] (run r of round k at C[k * npoints + r]; point one is
 * C(1), every other point a calibrated count). Writes the point with it to *worst_point (npoints
 * when none). Returns NAN when a standard error is unknown (fewer than two rounds, one >= npoints,
 * npoints < 2) so that the target cannot stop the rounds. */
double pmc_calstop_worst_se(const double *C, uint32_t rounds, size_t npoints, size_t one,
			    size_t *worst_point);

/* The rule after `rounds` complete rounds that took elapsed_ns, the worst standard error so far
 * worst_se (NAN unknown). Returns CONTINUE, TARGET, BUDGET or MAX_ROUNDS (see the rule). */
enum pmc_calstop_reason pmc_calstop_decide(const struct pmc_calstop_rule *rule, uint32_t rounds,
					   uint64_t elapsed_ns, double worst_se);

#endif
