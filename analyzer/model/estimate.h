/* SPDX-License-Identifier: MIT */
/* estimate.h: turns one run's run-queue samples into parallelism profiles, with two estimators
 * side by side. Pure computation over decoded records: no I/O. */
#ifndef PMA_ESTIMATE_H
#define PMA_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "pmt.h"

enum pma_estimator_kind {
	/* Tudor & Teo, eq. 4 as published: per sampling interval, tau_j = CPU time thread j received,
	 * A(m,inf,t) = sum tau_j / max tau_j and dT_cp = max tau_j. Exact when every runnable thread
	 * gets service in every interval; biased low when scheduler slices exceed the interval. */
	PMA_EST_PAPER = 0,
	/* Ours: per interval, the time each thread was runnable (schedstat run + run-queue wait, the
	 * wait moved back to the intervals where it was spent, since the kernel credits it only when
	 * the thread gets a CPU). A(m,inf,t) = sum runnable_j / dT (the paper's x + q, time-averaged)
	 * and dT_cp = dT * sum tau_j / sum runnable_j: under processor sharing each runnable thread
	 * progresses sum tau / sum runnable of the time, and on infinite cores it would progress all
	 * of it. Robust to slices longer than the interval; see docs/model.md, "The estimators". */
	PMA_EST_RUNNABLE = 1,
	/* Exact mode (analyzer/model/exact.h): the critical path of the happens-before graph of the
	 * scheduler events, and replay on n cores; only when the trace holds SCHED records. */
	PMA_EST_SCHED = 2,
	/* Exact run segments without root (analyzer/model/pswitch.h): the program's context switches from
	 * perf_event_open, wakes placed from schedstat; only when the trace holds PSWITCH records. */
	PMA_EST_SWITCH = 3,
	PMA_EST_COUNT = 4,
};
/* How many kinds (the first ones, PAPER and RUNNABLE) are built from samples here: a count, not
 * a kind, so it is not one of the enum's names. */
#define PMA_EST_SAMPLED 2

/* Name used in output and on the command line: "paper", "runnable", "sched-exact",
 * "switch-exact". */
const char *pma_estimator_name(enum pma_estimator_kind k);
/* Returns the kind for a name, or -1. */
int pma_estimator_parse(const char *name);

struct pma_est_stats {
	uint64_t samples;          /* SAMPLE records consumed */
	uint64_t intervals;        /* intervals with a positive length */
	uint64_t bad_intervals;    /* samples whose time did not advance (skipped) */
	uint64_t thread_samples;   /* thread entries consumed */
	uint32_t m_peak;           /* most threads alive in one sample */
	uint64_t threads_seen;     /* distinct threads */
	uint64_t first_t_ns, last_t_ns;
	double unplaced_wait_ns;   /* run-queue wait that could not be moved back (runnable est.) */
	double exit_tail_ns;       /* CPU time after a thread's last sample, from TASK EXIT finals */
	double mean_interval_ns;   /* the samples' mean spacing: first SAMPLE to last over samples - 1
				      (not RUN_BEGIN's short gap to the first, nor the closing part
				      interval to RUN_END, which the estimators' intervals hold) */
	uint64_t first_sample_ns, last_sample_ns;
	/* samples merged into the next interval on an oversubscribed baseline (pma_est_set_cpus),
	 * and the mean interval the sampled estimators used (with none merged, mean_interval_ns
	 * but for the opening and closing part intervals it also holds) */
	uint64_t merged_samples;
	double window_ns;
	/* intervals that ended in a sample listing more threads than the run's CPUs, and their
	 * summed length */
	uint64_t oversub_intervals;
	double oversub_ns;
	/* voluntary context switches of all threads over the run (status nvcsw, summed deltas
	 * between fresh reads): the spinning check's "blocking per thread per second" */
	uint64_t nvcsw_total;
	/* the thread time those deltas cover, summed over threads (from a thread's first fresh read
	 * to its last): a thread read once (status is re-read every 64 samples) covers none, so its
	 * blocking is unknown, not zero */
	double nvcsw_span_ns;
	uint64_t status_reads;     /* thread entries with fresh nvcsw/nivcsw */
	/* run-queue wait of all threads over the run (schedstat field 2, summed deltas, with the
	 * final values of TASK EXIT): the scaling study's "run-queue wait" metric (docs/scaling.md) */
	double wait_total_ns;
};

struct pma_est;

/* Creates an estimator.
 * Returns NULL when memory runs out. */
struct pma_est *pma_est_new(void);
void pma_est_free(struct pma_est *e);

/* Intervals of at least this length on an oversubscribed baseline: several CFS/EEVDF slices
 * (about 3 ms each on 1-2 CPUs), so that every runnable thread gets the CPU in each one. */
#define PMA_EST_OVERSUB_WINDOW_NS 5000000u

/* The run's CPU count (0: unknown, no merging). A sample that lists more threads than cpus_n
 * within PMA_EST_OVERSUB_WINDOW_NS of the last interval boundary is merged into the next interval
 * (counted in pma_est_stats.merged_samples); schedstat (proc(5) /proc/PID/task/TID/schedstat)
 * is cumulative, so nothing is lost but time resolution. */
void pma_est_set_cpus(struct pma_est *e, uint32_t cpus_n);

/* Start of the run: t_ns of RUN_BEGIN (the first interval starts there). */
void pma_est_begin(struct pma_est *e, uint64_t t_ns);
/* One SAMPLE of the run, in file order. Returns 0 or -1 (out of memory). */
int pma_est_sample(struct pma_est *e, const struct pmt_sample *s);
/* A TASK record of the run; EXIT with PMT_TASKF_FINAL adds the thread's CPU time after its last
 * sample to the next interval. Returns 0 or -1. */
int pma_est_task(struct pma_est *e, const struct pmt_task_event *ev);
/* End of the run (t_ns of RUN_END, or 0 when unknown): closes the last interval and finalizes
 * every pending one. Returns 0 or -1. */
int pma_est_finish(struct pma_est *e, uint64_t t_end_ns);

/* The profile built by sampled estimator k < PMA_EST_SAMPLED (valid after pma_est_finish, owned
 * by e); NULL for other k. */
const struct pma_profile *pma_est_profile(const struct pma_est *e, enum pma_estimator_kind k);
void pma_est_get_stats(const struct pma_est *e, struct pma_est_stats *st);

/* One finalized sampling interval, kept in time order so that the run can be cut in time: the
 * regions of a trace without scheduler events and the phase fallback (docs/regions.md). Per interval the
 * runnable estimator's A(m,inf,t) is runnable_ns / dT_ns and its dT_cp is dT_ns tau_ns /
 * runnable_ns (PMA_EST_RUNNABLE above; the wait already moved back to where it was spent). */
struct pma_est_interval {
	uint64_t t0_ns;        /* start of the interval (the previous sample) */
	float dT_ns;           /* its length */
	float tau_ns;          /* CPU time of all threads in it (sum tau_j) */
	float runnable_ns;     /* sum of the threads' runnable time (running or waiting) */
};

/* At most this many intervals are kept (5.8 h at 10 ms, 48 MiB); later ones are counted in *cut. */
#define PMA_EST_SERIES_MAX (1u << 21)

/* The kept intervals in time order (valid after pma_est_finish, owned by e; NULL when none); *cut
 * = intervals left out beyond PMA_EST_SERIES_MAX or for want of memory. */
const struct pma_est_interval *pma_est_series(const struct pma_est *e, size_t *n, uint64_t *cut);

#endif
