/* SPDX-License-Identifier: MIT */
/* breakdown.h: where the wall time of the calibration runs on c CPUs goes, from their own
 * scheduler events, beside the prediction made from the 1-CPU baseline (docs/model.md "Where the
 * runs' time goes"). The prediction (Tudor & Teo eq. 6 by the replay) gives c CPUs to the
 * baseline's CPU time U(1) and leaves them idle only where fewer than c threads are ready. A run
 * on c CPUs of wall time T(c) spends its c T(c) CPU-seconds as
 *   c T(c) = U(c) + L + I,
 * U(c) its threads' CPU time, L the CPU time its ready threads (runnable, not running) did not get
 * on its c CPUs, I the rest (no thread ready). So T(c) - T_pred = (U(c) - U(1)) / c + L / c +
 * rest: the program's own CPU time changed (memory contention, or the baseline's cost of being
 * oversubscribed gone; the part a different clock frequency explains apart, where the runs
 * recorded their clocks), CPUs not running ready threads (other processes' time, the hypervisor's
 * steal, wake-up latency, preempted threads waiting), and the rest (threads not ready where the replay had them ready).
 * Pure computation over a run's slices (exact.h), except pma_breakdown_trace, which reads the
 * traces' runs. */
#ifndef PMA_BREAKDOWN_H
#define PMA_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "model/exact.h"
#include "trace/analyze.h"

/* One run replayed from its scheduler events' slices. */
struct pma_breakdown_run {
	double U_ns;              /* the program's CPU time: its running slices */
	double lost_ns;           /* L = integral of min(ready, max(0, c - running)) dt: CPU time
				     of the run's c CPUs not given to the program's ready threads */
	double lost_wake_ns;      /* L's share held by woken threads not yet switched in (at each
				     instant L's rate times woken / ready) */
	double lost_preempt_ns;   /* L's share held by preempted threads (switched out runnable) */
	double wake_latency_ns;   /* sum over wakes of sched_wakeup to sched_switch-in: runnable
				     slices that follow no running slice of the thread (thread-ns) */
	uint64_t wakes;           /* those slices */
	uint64_t switch_ins;      /* running slices */
	uint64_t preemptions;     /* runnable slices right after a running slice (prev_state R) */
	uint64_t migrations;      /* switch-ins on another CPU than the thread's last one */
	double migration_wait_ns; /* the runnable time right before those switch-ins (thread-ns) */
};

/* Replays one run from its slices s[0 .. n) (pma_exact_slices: RUNNING and RUNNABLE slices of
 * the program's threads, any order) on c CPUs (c >= 1, the run's CPUs). Returns 0, or -1 when
 * memory runs out or c is 0. */
int pma_breakdown_replay(const struct pma_slice *s, size_t n, uint32_t c,
			 struct pma_breakdown_run *out);

/* Rows at most: one per calibrated core count. */
#define PMA_BREAKDOWN_MAX 16

/* The terms at one calibrated core count c, in seconds of wall time, means over the runs (means
 * keep the sum: T_meas_s - T_pred_s = cpu_s + other_s + steal_s + lost_wake_s +
 * lost_preempt_s + rest_s). */
struct pma_breakdown_row {
	uint32_t cores;             /* c */
	size_t runs;                /* calibration runs on c CPUs replayed */
	double T_pred_s;            /* the prediction at c from the baseline (eq. 6, by the replay) */
	double T_meas_s;            /* the runs' program wall times (RUN_END wall_ns), mean */
	double cpu_s;               /* (U(c) - U(1) f1 / fc) / c: the program's own CPU time at
				       the baseline's clock ((U(c) - U(1)) / c less freq_s) */
	double freq_s;              /* (U(1) f1 / fc - U(1)) / c: what the runs' mean clock fc
				       against the baseline's f1 explains of U(c) - U(1) (cycles
				       constant); 0 when either clock is unknown (freq_known 0) */
	int freq_known;             /* every run of the row and the baseline have a clock */
	double f_ratio;             /* fc / f1; NAN unknown */
	double fc_sum_hz;           /* the sum of the runs' clocks (fc = fc_sum_hz / runs); NAN once
				       a run has none */
	double lost_s;              /* L / c: CPUs not running ready threads, the sum of: */
	double other_s;             /* other processes' time: RUN_END other_load.cpus x wall
				       (proc(5) /proc/stat) / c, at most lost_s; 0 unknown */
	double steal_s;             /* the hypervisor's steal: RUN_END other_load.steal_cpus x wall
				       / c, at most what other_s leaves of lost_s; 0 unknown */
	double lost_wake_s;         /* the rest's share while woken threads waited for their
				       switch-in (the runs' wake-up latency) */
	double lost_preempt_s;      /* the rest's share while preempted threads waited */
	double rest_s;              /* T_meas - T_pred - cpu_s - lost_s: threads not ready where the
				       replay had them ready (dependencies, wake-ups the replay did not
				       charge before the wakee became runnable) */
	double wake_latency_s;      /* sched_wakeup to switch-in, summed over the wakes (thread-s) */
	double wakes;               /* wakes per run */
	double migrations;          /* migrations per run */
	double migration_wait_s;    /* runnable time before the migrations' switch-ins (thread-s) */
	double switch_ins;          /* switch-ins per run on c CPUs */
	double preemptions;         /* preemptions per run on c CPUs */
	double U_s;                 /* U(c), mean */
	double U_per_switch_ms;     /* U(c) / switch-ins: the CPU time between two switches, to set
				       beside the baseline's (an oversubscribed baseline that pays for
				       its switches runs shorter slices for more CPU time); 0 without */
	const char *largest;        /* the term of largest magnitude: "cpu", "freq", "other",
				       "steal", "wake", "preempt" or "rest" */
	double largest_s;           /* its value */
};

struct pma_breakdown {
	size_t n;                   /* rows; 0 without a baseline with scheduler events or runs */
	double U1_s;                /* the baseline's U(1) */
	double switch_ins_1;        /* the baseline's switch-ins on one CPU */
	double preemptions_1;       /* its preemptions */
	double U_per_switch_1_ms;   /* U(1) / its switch-ins; 0 without */
	double f1_hz;               /* the baseline's mean clock (pma_breakdown_clock_hz); NAN */
	const char *f1_source;      /* "cycles", "cpufreq" or NULL */
	struct pma_breakdown_row rows[PMA_BREAKDOWN_MAX];
};

/* The breakdown of the runs of traces[0 .. ntraces) that are calibration runs (RUN_BEGIN role)
 * with scheduler events, exited 0 with m threads, on c > 1 CPUs where cores[j] = c has a finite
 * prediction T_pred_ns[j] (ncores of them), against baseline (a run on one CPU with scheduler
 * events: U(1) and its switches). out->n 0 when baseline has no scheduler events or ran on more
 * than one CPU. Returns 0, or -1 when memory runs out. */
int pma_breakdown_trace(const struct pma_trace *traces, int ntraces, const struct pma_run *baseline,
			double m, const uint32_t *cores, const double *T_pred_ns, size_t ncores,
			struct pma_breakdown *out);

/* A run's mean clock frequency in Hz over its CPU time: RUN_END C's cycles over its CPU time
 * (`source` "cycles": PAPI_TOT_CYC or its fallback, formats/FORMAT.md "C"), else the midpoint of
 * RUN_END cpufreq's range of scaling_cur_freq (kHz, read at the run's end: sysfs
 * cpufreq/scaling_cur_freq of the run's CPUs), else NAN. *src is "cycles", "cpufreq" or NULL. */
double pma_breakdown_clock_hz(const struct pma_run *r, const char **src);

#endif
