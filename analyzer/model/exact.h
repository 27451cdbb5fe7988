/* SPDX-License-Identifier: MIT */
/* exact.h: the exact mode: per-thread timelines, wake edges, the critical path and an n-core replay
 * built from a run's scheduler events (sched_switch, sched_waking/sched_wakeup, sched_process_fork,
 * sched_process_exit). Pure computation over decoded records: no I/O. */
#ifndef PMA_EXACT_H
#define PMA_EXACT_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "pmt.h"

struct pma_exact;

/* Creates an empty event store. Returns NULL when memory runs out. */
struct pma_exact *pma_exact_new(void);
void pma_exact_free(struct pma_exact *x);

/* The program's root process (RUN_BEGIN "pid"): it and every task it forks, directly or not,
 * are the program. Call before pma_exact_finish. */
void pma_exact_set_root(struct pma_exact *x, uint32_t pid);

/* Thread tid existed before the first event, like the root (a window that began after the
 * program started: pmcollect --delay). Returns 0, or -1 when memory runs out. */
int pma_exact_existing(struct pma_exact *x, uint32_t tid);

/* Events kept per run at most (40 bytes each in memory, struct ev in exact.c: 4 GB). */
#define PMA_EXACT_MAX_EVENTS 100000000u

/* Stores one SCHED record's events (copied; any order of records and CPUs). A batch with
 * missed != 0 counts as a gap. Returns 0, -1 when memory runs out, or -2 when the run would hold
 * more than PMA_EXACT_MAX_EVENTS (nothing stored). */
int pma_exact_add(struct pma_exact *x, const struct pmt_sched_batch *b);

/* What the collector said about lost events (RUN_END "sched_events.lost"). */
void pma_exact_set_lost(struct pma_exact *x, uint64_t lost);

/* A thread's process and name from a TASK record (for the timeline export). */
int pma_exact_task(struct pma_exact *x, uint32_t tid, uint32_t tgid, const char *comm);

/* Results of pma_exact_finish. */
struct pma_exact_stats {
	uint64_t events;          /* events stored */
	uint64_t lost;            /* events known lost (gaps in pages plus the collector's count) */
	uint32_t gaps;            /* records that started after a gap */
	uint32_t threads;         /* tasks of the program seen running */
	uint64_t wake_edges;      /* wakes from a program thread to a blocked program thread */
	uint64_t outside_wakes;   /* wakes of a blocked program thread by anything else (timer,
				     interrupt, I/O, another process): no dependency, no delay */
	uint64_t inferred_switch_ins; /* program threads seen running (as an event's common_pid or
				     a switch's prev) without a recorded switch to them: switched
				     in half way from their CPU's previous event */
	uint64_t inferred_switch_outs; /* program threads taken for running on a CPU whose next
				     event shows another task current, without a recorded switch
				     from them: switched out (runnable) half way from the CPU's
				     previous event */
	double inferred_ns;       /* CPU time credited or taken by those guesses: the most they
				     can be off */
	double work_ns;           /* U: total CPU time of the program's threads */
	double T_cp_ns;           /* critical path on infinite cores */
	double A_inf;             /* A(m,inf) = U / T_cp (Tudor & Teo, eq. 4 with exact tau) */
	uint32_t max_active;      /* most threads running at once on infinite cores */
	double first_t_ns, last_t_ns; /* span of the events */
};

/* Sorts the events by time and walks them once: per-thread running / runnable / blocked states,
 * wake edges (waker thread at its position in its own CPU time -> wakee), and the longest path
 * through the happens-before graph of CPU-time segments and wake edges: on infinite cores a thread
 * runs whenever it is not blocked, and a blocked thread resumes when the program thread that woke
 * it reached the point where it woke it (wakes from outside the program cost nothing, as the
 * sampled estimators leave idle time out of T_cp). The running segments placed on that
 * infinite-core time axis are the parallelism profile A(m,inf,t) (Tudor & Teo, eq. 4), added to
 * prof (initialized by the caller). Returns 0, or -1 when memory runs out. */
int pma_exact_finish(struct pma_exact *x, struct pma_profile *prof, struct pma_exact_stats *st);

/* Replays the recorded segments on n cores (valid after pma_exact_finish): the same per-thread
 * CPU work, the same wake dependencies, scheduled by processor sharing (k ready threads on n cores
 * each progress at min(1, n/k) of real time: CFS's ideal, and the assumption under Tudor & Teo's
 * eq. 6), no memory contention. Writes T(n) in ns. n = 1 gives U; n >= the most threads ever ready
 * gives T_cp. Returns 0, or -1 (n == 0, out of memory, or a dependency that never resolves). */
int pma_exact_replay(const struct pma_exact *x, uint32_t n, double *T_ns);

/* A replay program built directly rather than from scheduler events (the switch-exact
 * estimator, analyzer/model/pswitch.c, whose wakers are guessed): x from pma_exact_new, no
 * pma_exact_add or pma_exact_finish; only pma_exact_replay, pma_exact_replay_charged and
 * pma_exact_thread_count read it. Steps are appended per thread in the order the thread runs
 * them; a thread first named by any of these calls is new and starts at time 0 unless that call
 * is pma_exact_prog_spawn. All return 0, or -1 when memory runs out.
 * pma_exact_prog_work: thread tid runs ns of its own CPU time next (ns > 0).
 * pma_exact_prog_wake: a wake edge from waker, at the point its steps have reached, to wakee,
 *   which waits for it before its next step (Tudor & Teo's happens-before edge).
 * pma_exact_prog_spawn: parent starts child (new, not yet named) at the point its steps have
 *   reached; a child already named keeps its start and the call adds nothing. */
int pma_exact_prog_work(struct pma_exact *x, uint32_t tid, double ns);
int pma_exact_prog_wake(struct pma_exact *x, uint32_t waker, uint32_t wakee);
int pma_exact_prog_spawn(struct pma_exact *x, uint32_t parent, uint32_t child);

/* What a wake edge costs in the replay beyond the recorded CPU time, in ns of real time during
 * which the wakee is not yet ready (analyzer/studies/wakecharge.h derives it from the machine's futex
 * ping-pong calibration). */
struct pma_wake_charge {
	double same_ns;   /* the wakee runs on the waker's core */
	double cross_ns;  /* the wakee runs on another core */
};
/* How the replay placed the wakes of blocked wakees. */
struct pma_replay_wakes {
	uint64_t same, cross;
	uint64_t barriers;   /* group wakes kept as barriers (charged replay) */
	uint64_t reordered;  /* barriers released by another participant than the recorded waker */
	int barriers_dropped; /* the barriers left a wait unresolved (a damaged trace): replayed with
				 the recorded edges alone */
};

/* pma_exact_replay with wake costs and per-core run queues (an extension of Tudor & Teo's
 * processor-sharing model, eq. 6; see docs/model.md "Wake-up costs in the replay"). c NULL is
 * pma_exact_replay (one pool of n cores shared by every ready thread). With c, each ready thread
 * belongs to one core, and each core is shared by its own ready threads (1/k each for k):
 * - a woken or spawned thread goes to an idle core (nobody holds it: no ready thread, none
 *   advancing, no wake on its way to it) and becomes ready c->cross_ns later; that core serves
 *   nobody until it arrives (on a VM the halted vCPU waits for the interrupt). The waker holds its
 *   own core while it signals, even when it blocks right after: a join's last arrival wakes the
 *   master onto another, idle core, as measured (no look-ahead, no sync-wakeup affinity). With
 *   no idle core it queues on the least loaded core (the waker's on a tie), c->same_ns later.
 *   Threads that start at time 0 are placed alike, without a charge;
 * - a thread keeps its core until it blocks (a WAIT not yet signalled) or ends;
 * - idle balancing (Linux's newidle balance): an idle core pulls, from the core with the most
 *   ready threads (two or more), the one with the most of its current step left when that is
 *   0.5 ms or more (Linux's sched_migration_cost; no charge): long phases stay balanced as under
 *   processor sharing, a short region is not migrated.
 * - barriers: a group wake of the recording (one thread's signals to two or more waiting threads,
 *   in one run of at most 10 us of its CPU time without being switched out: a futex wake-all) is
 *   replayed as a barrier of the waker and those wakees. On 1 CPU the waker arrived last; on n
 *   cores the last to arrive (the waker at its first signal, a wakee at its wait) releases the
 *   others, woken from its core in the order they arrived, and goes on. Without it a waker that
 *   arrives first would signal early and the wakees would pass their waits without blocking:
 *   a barrier whose other participants run late on another core would cost no wake at all;
 * A wake of a thread that has not reached its wait yet costs nothing. wk (may be NULL) counts the
 * wakes of blocked threads by placement (spawns not counted), the barriers and those released by
 * another participant than the recorded waker. Should the barriers leave a wait unresolved (only a
 * recording whose order is no schedule can), the replay runs again with the recorded edges alone
 * (wk->barriers_dropped). Returns as pma_exact_replay. */
int pma_exact_replay_charged(const struct pma_exact *x, uint32_t n, const struct pma_wake_charge *c,
			     double *T_ns, struct pma_replay_wakes *wk);

/* A CPU quota under CFS bandwidth control (the kernel's Documentation/scheduler/sched-bwc.rst;
 * cgroup v2 cpu.max "quota_us period_us" and cpu.max.burst, v1 cpu.cfs_quota_us, cpu.cfs_period_us
 * and cpu.cfs_burst_us). */
struct pma_quota {
	double quota_ns;   /* CPU time the program may use per period, ns (Q CPUs x P) */
	double period_ns;  /* the period P, ns (the kernel accepts 1 ms to 1 s) */
	double burst_ns;   /* cpu.max.burst, ns: unused quota carried over, 0 for none */
	double slice_ns;   /* the runtime a CPU draws from the pool at a time, ns (the sysctl
			      kernel.sched_cfs_bandwidth_slice_us); 0: PMA_QUOTA_SLICE_DEFAULT_NS */
	double tick_ns;    /* the scheduler tick, ns (1 s / CONFIG_HZ): a CPU's runtime is
			      accounted at its own events and at each tick; 0: exactly */
};
/* The kernel's default sched_cfs_bandwidth_slice_us: 5 ms (kernel/sched/fair.c). */
#define PMA_QUOTA_SLICE_DEFAULT_NS 5e6
/* The tick of the kernel's default CONFIG_HZ (250, kernel/Kconfig.hz): 4 ms. */
#define PMA_QUOTA_TICK_DEFAULT_NS 4e6
/* The throttling a quota replay saw, as the cgroup's cpu.stat counts it. */
struct pma_quota_stats {
	uint64_t periods;           /* nr_periods: periods the run reached */
	uint64_t throttled_periods; /* nr_throttled: periods at whose end a core was throttled
				       (its runtime and the pool spent, a thread wanting to run) */
	double throttled_ns;        /* real time one core or more was throttled, ns (cpu.stat's
				       throttled_usec sums each CPU's throttled run queue, so it
				       reads up to n times this) */
};

/* pma_exact_replay_charged (c NULL: pma_exact_replay) under CFS bandwidth control, q NULL for
 * none (the kernel's Documentation/scheduler/sched-bwc.rst and kernel/sched/fair.c). A pool of
 * q->quota_ns of CPU time is refilled at every multiple of q->period_ns from the start to
 * min(pool + quota, quota + burst): unused quota carries over up to the burst
 * (__refill_cfs_bandwidth_runtime).
 * - With wake charges (c != NULL, per-core run queues) each core draws its own runtime from the
 *   pool in slices of q->slice_ns, or what is left (assign_cfs_rq_runtime); a core that has spent
 *   its runtime and finds the pool empty is throttled: its threads wait (they are not balanced
 *   to another core) while the other cores run on their own runtime. With q->tick_ns > 0 a core
 *   finds its runtime spent only when it is accounted (update_curr): when a thread is queued on
 *   it (woken, arriving, spawned, moved there) or leaves it (blocks, ends, is moved away), at
 *   each switch between two ready threads (EEVDF's base slice), or at a tick (every q->tick_ns
 *   from the start); it runs into debt until then, and its next draw pays the debt
 *   (the slice plus the debt). At each period's end every throttled core, longest throttled
 *   first while the pool lasts, is given its debt and unthrottled (distribute_cfs_runtime: the
 *   deficit plus 1 ns), and draws when it is next accounted; a core's runtime does not expire.
 *   A core whose last ready thread blocks or ends returns
 *   its runtime beyond 1 ms to the pool (__return_cfs_rq_runtime, min_cfs_rq_runtime); if the
 *   pool then holds more than a slice while a core is throttled, and the period has at least
 *   7 ms left, the throttled cores draw from it 5 ms later unless the period ends within 2 ms
 *   (start_cfs_slack_bandwidth, do_sched_cfs_slack_timer: cfs_bandwidth_slack_period,
 *   min_bandwidth_expiration).
 * - Without (c NULL, the shared pool of cores, which has no per-core state) the pool is one
 *   global pool without slices: k busy cores spend it k times as fast as real time, and when it
 *   is empty and a thread wants to run every thread is held until the period ends.
 * A throttled period is a period at whose end a core was throttled (the kernel's nr_throttled).
 * qs (may be NULL) gets the counters. Returns as pma_exact_replay_charged; -1 also for a q with a
 * period or quota <= 0, a burst or slice < 0. */
int pma_exact_replay_quota(const struct pma_exact *x, uint32_t n, const struct pma_wake_charge *c,
			   const struct pma_quota *q, double *T_ns, struct pma_replay_wakes *wk,
			   struct pma_quota_stats *qs);

/* pma_exact_replay_quota with memory contention: every WORK step costs 1 + omega times its
 * recorded CPU time (Tudor & Teo eq. 7: C(n) = C(1) (1 + omega(n)); omega relative to the
 * recording's own CPU count, 0 for none), wake charges unchanged. Under a quota the scaled work
 * is what the cores draw from the pool: contention spends the quota too. Returns as
 * pma_exact_replay_quota; -1 also for omega <= -1 or not finite. */
int pma_exact_replay_scaled(const struct pma_exact *x, uint32_t n, const struct pma_wake_charge *c,
			    const struct pma_quota *q, double omega, double *T_ns,
			    struct pma_replay_wakes *wk, struct pma_quota_stats *qs);

/* One slice of a thread's timeline, real time of the recording. */
enum pma_slice_kind { PMA_SLICE_RUNNING = 1, PMA_SLICE_RUNNABLE = 2 };
struct pma_slice {
	uint32_t tid;
	uint8_t kind;       /* enum pma_slice_kind */
	uint16_t cpu;       /* CPU of a running slice */
	uint64_t t0_ns, t1_ns;
};
/* A wake edge: waker thread woke wakee at t_ns (real time), when the waker had run
 * waker_cpu_ns of its own CPU time (its position in its own work: where the edge leaves). */
struct pma_wake {
	uint32_t waker, wakee;
	uint64_t t_ns;
	double waker_cpu_ns;
	uint8_t binding;    /* the wake delayed the wakee on the infinite-core axis (the waker
			       reached this point later than the wakee stopped): a critical-path edge */
};

/* The timelines (valid after pma_exact_finish, owned by x): slices in time order of their end,
 * wake edges in time order. */
const struct pma_slice *pma_exact_slices(const struct pma_exact *x, size_t *n);
const struct pma_wake *pma_exact_wakes(const struct pma_exact *x, size_t *n);
/* Points of pma_exact_cp_at's grid over the events' span. */
#define PMA_EXACT_CP_GRID 1024

/* How far along the infinite-core axis (Tudor & Teo's T_cp axis, ns) the program had got by real
 * time t_ns of the recording (valid after pma_exact_finish): the largest position any thread had
 * reached, a running thread counted to t. It rises from 0 at the first event to the run's T_cp
 * (st->T_cp_ns) at the last, so F(t1) - F(t0) is the critical path of [t0, t1) and the parts of
 * a recording add up to its T_cp. Sampled on PMA_EXACT_CP_GRID points from the first event to
 * the last, linear between them; clamped outside. NAN before pma_exact_finish or without
 * events. */
double pma_exact_cp_at(const struct pma_exact *x, double t_ns);

/* One piece of the critical path in real time of the recording: thread tid from t0 to t1. */
struct pma_cp_seg {
	uint32_t tid;
	uint64_t t0_ns, t1_ns;
};
/* The critical path drawn on the real-time timelines (valid after pma_exact_finish): from the
 * thread that reaches the end of the infinite-core axis last, backwards through the binding wake
 * edges (the ones that set when their wakee resumed, Tudor & Teo's T_cp as the longest
 * happens-before path) to the start of the first thread. Fork edges are not followed: the path
 * starts at the first slice of the thread where the walk stops. *out (malloc'ed, in time order,
 * the caller frees it) has *n pieces, none when the run has no CPU time. Returns 0, or -1 when
 * memory runs out. */
int pma_exact_critical_path(const struct pma_exact *x, struct pma_cp_seg **out, size_t *n);

/* Process id and name of a thread (from TASK records; tgid 0 and "" when unknown). */
uint32_t pma_exact_tgid(const struct pma_exact *x, uint32_t tid, const char **comm);
/* The program's threads: count, and thread i < count (returns its tid; *tgid, *comm as above). */
size_t pma_exact_thread_count(const struct pma_exact *x);
uint32_t pma_exact_thread(const struct pma_exact *x, size_t i, uint32_t *tgid, const char **comm);

#endif
