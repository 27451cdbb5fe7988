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
	double slice_ns;                 /* sched_cfs_bandwidth_slice_us, 0 =
					    PMA_QUOTA_SLICE_DEFAULT_NS (exact.h) */
	double tick_ns;                  /* the scheduler tick, 0 = PMA_QUOTA_TICK_DEFAULT_NS */
	/* memory contention on the n cores (Tudor & Teo eq. 7, omega(n) = C(n)/C(1) - 1, relative
	   to the recording's CPUs): every step of work costs 1 + omega of its recorded CPU time on
	   n cores, and spends that much of the quota (pma_exact_replay_scaled); 0 for none */
	double omega;
	const char *omega_source;        /* static: where omega came from; NULL: unknown, 0 used */
};

/* The scheduler tick a replay with per-CPU slices accounts a core's runtime at (exact.h
 * pma_exact_replay_quota), and where it came from. */
struct pma_quota_tick {
	double tick_ns;                  /* 1 s / config_hz */
	long config_hz;                  /* the tick rate, Hz (CONFIG_HZ) */
	int recorded;                    /* 1: the trace's META config_hz; 0: not recorded, the
					    kernel's default CONFIG_HZ (250, PMA_QUOTA_TICK_DEFAULT_NS)
					    assumed */
};

/* One quota's prediction. */
struct pma_quota_row {
	double Q_cpus;
	double T_ns;                     /* T(n, Q) */
	double S;                        /* T(1) / T(n, Q), T(1) unlimited on one core */
	double cost;                     /* T(n, Q) / T(n) - 1 */
	struct pma_quota_stats st;       /* periods, throttled periods and time (0 for fluid) */
	int no_throttle;                 /* Q >= n (with per-CPU slices, n x (1 + (slice + tick)
					    / P)): n cores cannot spend the pool */
};

/* The study. */
struct pma_quota_result {
	int have;
	int fluid;                       /* the sampled estimators' fluid approximation, not a replay */
	int slices;                      /* the replay has per-CPU runtime slices (the wake-charged
					    per-core replay); 0: one pool shared by the cores (no
					    wake-up cost measured: pma_exact_replay_quota) */
	const char *slices_why;          /* static: why not, when a replay has no slices */
	int recorded;                    /* 0: --quota's; 1: the trace's own limit (META cpu_limit)
					    on the run's CPUs, 2: the same, set by pmcollect --quota */
	struct pma_quota_tick tick;      /* the tick (used with slices only); set by the caller */
	uint32_t n;                      /* cores the program sees */
	double period_ns, burst_ns;
	double omega;                    /* the opts' omega the n-core replays used */
	const char *omega_source;        /* and its source, NULL: unknown (0 used) */
	double T1_ns, Tn_ns;             /* unlimited on 1 and n cores (Tn with omega) */
	double U_ns;                     /* the work: CPU time the quota is spent on */
	double Q_enough_cpus;            /* the smallest quota costing under PMA_QUOTA_COST_OK (to
					    0.01 CPU); 0 when none up to n */
	size_t nrows;
	struct pma_quota_row *rows;      /* [nrows], malloc'ed: pma_quota_result_free */
};

/* The study on n cores from a replay program x (sched-exact's events or switch-exact's program),
 * with wake charges c (NULL for none): each quota Q of o replayed with pma_exact_replay_quota
 * (quota Q * P ns per period P; with c, per-CPU slices of o->slice_ns accounted at each core's
 * events and ticks of o->tick_ns; without, one global pool), T(1) and T(n) replayed unlimited; the
 * n-core replays' work costs 1 + o->omega (pma_exact_replay_scaled). Q_enough by bisection over
 * quotas from 0.01 CPU to n (T(n, Q) does not grow with Q). Returns 0, or -1 (a replay failed, out
 * of memory). */
int pma_quota_study_exact(const struct pma_exact *x, const struct pma_wake_charge *c, uint32_t n,
			  const struct pma_quota_opts *o, struct pma_quota_result *out);

/* The work-conserving fluid approximation, for estimators without a replay program: the quota as
 * a rate cap, T(n, Q) = max(T(n), U (1 + o->omega) / Q) with U the work and T(n) the unlimited
 * prediction (ns, its omega included by the caller).
 * It ignores where in the period the work falls: a program whose parallel bursts spend the pool
 * early in the period while a serial phase waits takes longer
 * (docs/model.md "Containers and CPU quotas"). No throttling counts. Returns 0 or -1 (no memory). */
int pma_quota_study_fluid(double U_ns, double T1_ns, double Tn_ns, uint32_t n,
			  const struct pma_quota_opts *o, struct pma_quota_result *out);

struct pma_run;
struct pma_wake_result;
/* The study of a run with its estimator est (enum pma_estimator_kind): the replay of its
 * sched-exact or switch-exact program (wake charges w for sched-exact, as its predictions), else
 * the fluid approximation over its profile's T(n) (Tudor & Teo eq. 6 with o->omega). Returns 0
 * or -1. */
int pma_quota_for_run(const struct pma_run *run, int est, const struct pma_wake_result *w,
		      uint32_t n, const struct pma_quota_opts *o, struct pma_quota_result *out);

void pma_quota_result_free(struct pma_quota_result *r);

/* One configuration of a `pmcollect --sweep quota=LIST` (RUN_BEGIN "sweep" "quota_cpus"): its
 * finished runs (exit status 0) measured against the prediction for its quota and cores. */
struct pma_quota_sweep_row {
	uint32_t config;                 /* RUN_BEGIN "sweep" "config" */
	double Q_cpus, period_ns;        /* the quota its runs ran under (RUN_BEGIN "quota") */
	uint32_t n;                      /* cores the runs saw (RUN_BEGIN cpus, else META usable_cpus) */
	size_t nreps;
	double T_meas_ns;                /* median wall time (RUN_END wall_ns) */
	double thr_meas;                 /* median RUN_END cpu_stat nr_throttled, NAN when not recorded */
	double periods_meas;             /* median RUN_END cpu_stat nr_periods, NAN when not recorded */
	double T_pred_ns;                /* T(n, Q) of the baseline's replay (pma_quota_for_run) */
	double omega;                    /* the contention it used: the median C(run)/C(base) - 1 of
					    the other configurations' runs on n cores (held out:
					    this row's runs do not predict themselves); 0 and
					    omega_runs 0 when there are none */
	size_t omega_runs;               /* the runs that median is of */
	double thr_pred, periods_pred;   /* its throttled periods and periods (NAN for fluid) */
	double err_pct;                  /* 100 (T_pred - T_meas) / T_meas */
};

struct pma_quota_sweep {
	int present;                     /* the trace has quota sweep runs */
	int fluid;                       /* predicted by the fluid approximation (no replay program) */
	int slices;                      /* pma_quota_result's slices */
	const char *slices_why;          /* and its slices_why */
	struct pma_quota_tick tick;      /* the tick (used with slices only); set by the caller */
	size_t nrows;
	struct pma_quota_sweep_row *rows; /* by configuration, malloc'ed: pma_quota_sweep_free */
	size_t unfinished;               /* quota sweep runs left out: not finished with status 0 */
	double mean_abs_err_pct;         /* over the rows, NAN none */
};

struct pma_trace;
/* The quota sweep of trace t: its runs of role sweep with a "quota_cpus", grouped by
 * configuration, measured (median wall time and cpu.stat nr_throttled over the repetitions)
 * against the prediction of run base with estimator est (wake charges w) on the configuration's
 * cores under its quota and period (pma_quota_for_run), with the contention omega of the other
 * configurations' runs (pma_quota_sweep_row's omega) and the scheduler tick tick_ns (ns, the
 * trace kernel's 1 s / CONFIG_HZ; 0 = PMA_QUOTA_TICK_DEFAULT_NS). ncpus_default: the cores of a
 * run that recorded no CPU list. A trace without such runs gives present = 0. Returns 0, or -1 (a
 * replay failed, out of memory). Free with pma_quota_sweep_free (also on error). */
int pma_quota_sweep_compute(const struct pma_trace *t, const struct pma_run *base, int est,
			    const struct pma_wake_result *w, uint32_t ncpus_default, double tick_ns,
			    struct pma_quota_sweep *out);
void pma_quota_sweep_free(struct pma_quota_sweep *s);

#endif
