/* SPDX-License-Identifier: MIT */
/* quota.h: the run time under a CPU quota (CFS bandwidth control, cgroup cpu.max): T(n, Q) on n
 * cores for each quota asked, the throttling, and the smallest quota that costs under 5%. Pure
 * computation over the exact replay (model/exact.h) or, for the sampled estimators, a fluid
 * approximation. */
#ifndef PMA_QUOTA_H
#define PMA_QUOTA_H

#include <stddef.h>
#include <stdint.h>

#include "model/exact.h"
#include "model/model.h"

/* The default period of cgroup v1 and v2 (sched-bwc.rst: cpu.cfs_period_us = 100 ms). */
#define PMA_QUOTA_PERIOD_DEFAULT_NS 100e6
/* The cost over an unlimited run under which a quota counts as enough (5%). */
#define PMA_QUOTA_COST_OK 0.05
/* At most this many quotas in a --quota list. */
#define PMA_QUOTA_MAX 1024

/* --quota as given: the quotas in CPUs (Q, CPU time per period over the period), one period. */
struct pma_quota_opts {
	size_t nQ;                       /* 0: no quota study */
	double Q_cpus[PMA_QUOTA_MAX];
	double period_ns;                /* P, 0 = PMA_QUOTA_PERIOD_DEFAULT_NS */
	double burst_ns;                 /* cpu.max.burst, 0 none */
};

/* One quota's prediction. */
struct pma_quota_row {
	double Q_cpus;
	double T_ns;                     /* T(n, Q) */
	double S;                        /* T(1) / T(n, Q), T(1) unlimited on one core */
	double cost;                     /* T(n, Q) / T(n) - 1 */
	struct pma_quota_stats st;       /* periods, throttled periods and time (0 for fluid) */
	int no_throttle;                 /* Q >= n: n cores cannot spend the pool */
};

/* The study. */
struct pma_quota_result {
	int have;
	int fluid;                       /* the sampled estimators' fluid approximation, not a replay */
	int recorded;                    /* 0: --quota's; 1: the trace's own limit (META cpu_limit)
					    on the run's CPUs, 2: the same, set by pmcollect --quota */
	uint32_t n;                      /* cores the program sees */
	double period_ns, burst_ns;
	double T1_ns, Tn_ns;             /* unlimited on 1 and n cores */
	double U_ns;                     /* the work: CPU time the quota is spent on */
	double Q_enough_cpus;            /* the smallest quota costing under PMA_QUOTA_COST_OK (to
					    0.01 CPU); 0 when none up to n */
	size_t nrows;
	struct pma_quota_row *rows;      /* [nrows], malloc'ed: pma_quota_result_free */
};

/* The study on n cores from a replay program x (sched-exact's events or switch-exact's program),
 * with wake charges c (NULL for none): each quota Q of o replayed with pma_exact_replay_quota
 * (quota Q * P ns per period P), T(1) and T(n) replayed unlimited. Q_enough by bisection over
 * quotas from 0.01 CPU to n (T(n, Q) does not grow with Q). Returns 0, or -1 (a replay failed, out
 * of memory). */
int pma_quota_study_exact(const struct pma_exact *x, const struct pma_wake_charge *c, uint32_t n,
			  const struct pma_quota_opts *o, struct pma_quota_result *out);

/* The work-conserving fluid approximation, for estimators without a replay program: the quota as
 * a rate cap, T(n, Q) = max(T(n), U / Q) with U the work and T(n) the unlimited prediction (ns).
 * It ignores where in the period the work falls: a program whose parallel bursts spend the pool
 * early in the period while a serial phase waits takes longer
 * (docs/model.md "Containers and CPU quotas"). No throttling counts. Returns 0 or -1 (no memory). */
int pma_quota_study_fluid(double U_ns, double T1_ns, double Tn_ns, uint32_t n,
			  const struct pma_quota_opts *o, struct pma_quota_result *out);

struct pma_run;
struct pma_wake_result;
/* The study of a run with its estimator est (enum pma_estimator_kind): the replay of its
 * sched-exact or switch-exact program (wake charges w for sched-exact, as its predictions), else
 * the fluid approximation over its profile's T(n) (Tudor & Teo eq. 6, omega 0). Returns 0 or -1. */
int pma_quota_for_run(const struct pma_run *run, int est, const struct pma_wake_result *w,
		      uint32_t n, const struct pma_quota_opts *o, struct pma_quota_result *out);

void pma_quota_result_free(struct pma_quota_result *r);

#endif
