/* SPDX-License-Identifier: MIT */
/* pswitch.h: the switch-exact estimator: A(m,inf), T_cp and the parallelism profile from the
 * program's context switches as perf_event_open reports them to a user without root (PSWITCH
 * records, formats/FORMAT.md §5.10), with the wake-ups the kernel does not report placed from
 * the schedstat run-queue delay of the samples (docs/model.md). Pure computation: no I/O. */
#ifndef PMA_PSWITCH_H
#define PMA_PSWITCH_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "pmt.h"

struct pma_pswitch;

/* Creates an empty store. Returns NULL when memory runs out. */
struct pma_pswitch *pma_pswitch_new(void);
void pma_pswitch_free(struct pma_pswitch *p);

/* Events kept per run at most (32 bytes each); beyond, pma_pswitch_add refuses (-2). */
#define PMA_PSWITCH_MAX_EVENTS 100000000u
/* Thread samples kept for placing wakes (24 bytes each); beyond, wakes are bounded only. */
#define PMA_PSWITCH_MAX_SAMPLES 50000000u
/* A wake placed from schedstat falls up to a few tens of us after the real one (run_delay starts
 * at the enqueue, after sched_waking; measured against tracefs on omp_loop: 0-37 us late, once
 * 125 us): its waker may have switched out just before. A placed wake also depends on the program
 * threads that stopped running at most this long before it (ns). */
#define PMA_PSWITCH_WAKE_SLACK_NS 50000u

/* Stores one PSWITCH record's events (copied; records of different CPUs in any order); its missed
 * count adds to the lost records. Returns 0, -1 when memory runs out, -2 beyond
 * PMA_PSWITCH_MAX_EVENTS (nothing stored). */
int pma_pswitch_add(struct pma_pswitch *p, const struct pmt_sched_batch *b);

/* Stores the schedstat run-queue delay (wait_ns, proc(5) schedstat field 2) of each thread of
 * one SAMPLE, for placing wakes; until the first PSWITCH record only the latest sample is kept
 * (the collector writes a sample before the context switches it drains after it). Returns 0 or
 * -1 (out of memory). */
int pma_pswitch_sample(struct pma_pswitch *p, const struct pmt_sample *s);

/* Gives p the program's whole CPU time (ns; < 0: unknown), as wait4's rusage has it (utime +
 * stime of the run's process tree, getrusage(2)): the exiting threads' CPU time after their exit
 * record, which perf does not report (the task's events close in do_exit before its last
 * switch-out), is what it has beyond the records' U, at most 1 ms per exiting thread. The point
 * estimate shares it equally among the threads running at their exit record; nothing in the
 * program waits on that part of do_exit (a joiner is woken from exit_mm, before it), so each is a
 * leaf: the bounds add the whole sum to U and, for A_lo, to T_cp. Call before
 * pma_pswitch_finish. */
void pma_pswitch_cpu_total(struct pma_pswitch *p, double cpu_ns);

/* Results of pma_pswitch_finish. Wake-ups: a thread that blocked becomes runnable again at a
 * time the records do not give. Where its next switch-in is the only one after a block in a
 * sampling interval, the wake is placed at switch-in - (delta run_delay - the waits after
 * preemptions, which the records give exactly): schedstat adds a thread's run-queue wait at its
 * switch-in (sched_info_arrive). Otherwise the interval's unexplained wait is shared among its
 * switch-ins (point) and each wake is bounded between its switch-in and that whole wait. */
struct pma_pswitch_stats {
	uint64_t events;          /* events stored */
	uint64_t lost;            /* records the kernel reported lost */
	uint32_t threads;         /* threads seen */
	uint64_t switch_ins;
	uint64_t preempted;       /* switch-outs still runnable: their wait is exact */
	uint64_t wakes_placed;    /* wakes placed from schedstat */
	uint64_t wakes_bounded;   /* wakes only bounded (several in one interval, or no samples) */
	double bound_ns;          /* sum of the bounded wakes' ranges */
	uint64_t anomalies;       /* transitions that did not fit (a switch-in while running...) */
	double work_ns;           /* U: CPU time of the program's threads: exact segments, plus
				     the exit tails */
	double exit_tail_ns;      /* CPU time of exiting threads after their exit record, from
				     wait4's total (pma_pswitch_cpu_total); 0 without it */
	double T_cp_ns;           /* critical path on the infinite-core axis (pma_pswitch_finish) */
	double A_inf;             /* U / T_cp with the placed (and shared) wakes */
	double A_lo, A_hi;        /* bounds on the recording's true A: every unknown wake depends on
				     the furthest / least position a program thread reached in the
				     wake's window (none where one may have come from outside) */
	double first_t_ns, last_t_ns;
};

/* Sorts the events by time and walks the threads' states: running between switch-in and
 * switch-out (exact), runnable after a preempted switch-out (exact) or from a placed or bounded
 * wake, blocked after a voluntary switch-out, runnable from a fork (exact). Each thread's
 * position F on the infinite-core axis advances by its own recorded CPU time; a thread forked at
 * t starts at its parent's position then (the fork record names the parent); a thread woken at t
 * resumes no earlier than the position at t of the program thread running then (the waker on
 * the baseline's one CPU; the furthest of several; none: no dependency), and
 * a woken one no earlier than that of a thread that stopped at most PMA_PSWITCH_WAKE_SLACK_NS
 * before the placed wake (its waker, when the placed wake falls just after the waker blocked);
 * when no program thread ran then, the one that ran last is taken as the waker. The
 * running segments placed on that axis are the profile A(m,inf,t), added to prof (initialized by
 * the caller), and T_cp is the length they cover (Tudor & Teo, eq. 4 over exact segments), as
 * sched-exact computes it with recorded wake edges. Processor sharing (dT_cp = dt c/r) read
 * barrier phases short by the scheduler's unfairness at their end (issue 34's omp_loop, 1-4%).
 * T_cp is the critical path under the recorded order of wakes, with the waker taken as the
 * thread running at the placed wake. Returns 0, or -1 when memory runs out. */
int pma_pswitch_finish(struct pma_pswitch *p, struct pma_profile *prof,
		       struct pma_pswitch_stats *st);

/* The replay program pma_pswitch_finish built (owned by p; NULL before it, after a failure, or
 * for a run without events), for pma_exact_replay / pma_exact_replay_charged (exact.h): T(n) on
 * n cores. Each thread's recorded CPU time (exact), split where a thread it woke or forked
 * depends on it; a fork is a spawn, a wake an edge from the thread pma_pswitch_finish takes as
 * the waker (the candidate furthest on the infinite-core axis), at the wake placed from
 * schedstat or, when only bounded, at the point estimate (docs/model.md "switch-exact"). With
 * every thread on its own core the replay gives T_cp (Tudor & Teo, eq. 4); below, processor
 * sharing as in sched-exact (eq. 6's assumption). */
struct pma_exact;
const struct pma_exact *pma_pswitch_program(const struct pma_pswitch *p);

#include <stdio.h>
/* One line for the table report: what the switch-exact numbers rest on (segments exact; wakes
 * exact after a preemption or fork, placed from schedstat, or bounded) and A's bounds. */
void pma_pswitch_describe(FILE *out, const struct pma_pswitch_stats *st);

/* Relative uncertainty of A(m,inf) of st: the larger distance of A_lo and A_hi from A_inf, plus
 * the share of records lost, over A_inf (0 when A_inf is 0). */
double pma_pswitch_rel_err(const struct pma_pswitch_stats *st);

#endif
