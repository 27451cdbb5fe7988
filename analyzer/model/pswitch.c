/* SPDX-License-Identifier: MIT */
/* pswitch.c: the switch-exact estimator over perf_event_open context switches (PSWITCH). */
#include "pswitch.h"

#include <stdlib.h>
#include <string.h>

#include "exact.h"
#include "pm_util.h"

struct pev {
	uint64_t t_ns;
	uint32_t seq;  /* file order: ties keep it */
	uint32_t tid;
	uint8_t kind;  /* enum pmt_pswitch_kind */
	uint8_t preempt;
	uint16_t cpu;
	uint32_t parent; /* PMT_PSWITCH_FORK: the parent thread (the record's c) */
};

struct psmp {
	uint32_t tid;
	uint64_t t_ns, wait_ns;
	uint32_t dur_ns; /* the sample's reading time: the thread was read in [t_ns, t_ns + dur_ns] */
};

struct pma_pswitch {
	struct pev *ev;
	size_t nev, ev_cap;
	struct psmp *smp;
	size_t nsmp, smp_cap;
	uint64_t lost;
	struct pma_exact *prog; /* the replay program of pma_pswitch_finish (pma_pswitch_program) */
	struct gap *gap;        /* sorted by time (pma_pswitch_finish) */
	size_t ngap, gap_cap;
	uint32_t ncpu;          /* CPUs the events came from */
	uint64_t below_ns;      /* while fewer program threads run than ncpu: since then */
	double cpu_total_ns;    /* the program's CPU time from wait4 (pma_pswitch_cpu_total), or < 0 */
	uint32_t nexit;         /* threads running at their exit record (walk) */
	uint64_t tail_ns;       /* each one's exit tail in the point estimate (pma_pswitch_finish) */
	int armed;     /* a PSWITCH record came: samples are kept from the one before it on */
};

/* A switch-in that ended a wait: after a preemption (known) or a block (wake unknown). */
struct credit {
	uint32_t tid;
	uint32_t ev;       /* index of the switch-in in the sorted events */
	uint64_t t_in_ns, gap_ns; /* gap: since the switch-out */
	int unknown;
	int after_fork;    /* the thread's first switch-in after its recorded fork: its run_delay
			      counted from 0 there (the kernel zeroes sched_info in sched_fork) */
	double wait_ns;    /* the point estimate: time from the wake to the switch-in */
	double wmin_ns, wmax_ns; /* the wake lies in [t_in - wmax_ns, t_in - wmin_ns] */
};

/* A stretch of at least PSW_HANDOFF_NS in which fewer program threads ran than the run had CPUs:
 * another process, the kernel or an idle CPU could have woken a program thread then. */
struct gap {
	uint64_t t0_ns, t1_ns;
};

enum { ST_UNKNOWN = 0, ST_RUNNING, ST_QUEUED, ST_BLOCKED, ST_GONE };

struct th {
	uint32_t tid;
	uint8_t state;
	uint8_t forked;    /* queued by a recorded fork, not yet switched in */
	uint64_t t_out_ns;
};

/* One step of a thread on the infinite-core axis, at t_ns in the recorded order (seq breaks ties). */
enum { OP_DEP, OP_WAKE, OP_RUN, OP_STOP };
struct delta {
	uint64_t t_ns;
	uint64_t a_ns; /* OP_WAKE: the earliest the wake can be (t_ns the latest) */
	uint32_t seq;
	uint32_t tid;
	uint32_t parent; /* OP_DEP: the parent thread (0: not recorded) */
	uint8_t op; /* OP_DEP: a fork: the thread starts no earlier than the position of the
		     * program thread running then (its parent); OP_WAKE: a placed or bounded wake:
		     * the same, or after a thread that stopped within PMA_PSWITCH_WAKE_SLACK_NS
		     * before it (the waker); OP_RUN: switch-in; OP_STOP: switch-out or exit of a
		     * running thread */
};

/* A thread's position F on the infinite-core axis (its own CPU time plus the dependencies). */
struct fpos {
	double F_ns;
	uint64_t t_in_ns;
	int running;
	uint32_t tid;
	uint64_t t_acc_ns; /* running: its CPU time is in the replay program up to here */
	uint64_t last_stop_ns; /* its last stop (0: none yet) */
	/* its last PSW_SEGS running segments, a ring: start, end (0: running) and F at the start */
	struct { uint64_t t0_ns, t1_ns; double F0_ns; } seg[8];
	uint32_t nseg;
};
#define PSW_SEGS 8u

struct pma_pswitch *pma_pswitch_new(void)
{
	struct pma_pswitch *p = calloc(1, sizeof(struct pma_pswitch));

	if (p)
		p->cpu_total_ns = -1;
	return p;
}

void pma_pswitch_cpu_total(struct pma_pswitch *p, double cpu_ns)
{
	p->cpu_total_ns = cpu_ns >= 0 ? cpu_ns : -1;
}

void pma_pswitch_free(struct pma_pswitch *p)
{
	if (!p)
		return;
	free(p->ev);
	free(p->smp);
	free(p->gap);
	pma_exact_free(p->prog);
	free(p);
}

int pma_pswitch_add(struct pma_pswitch *p, const struct pmt_sched_batch *b)
{
	p->armed = 1;
	if (b->missed != PMT_SCHED_MISSED_UNKNOWN)
		p->lost += b->missed;
	else
		p->lost++;
	if (p->nev + b->n > PMA_PSWITCH_MAX_EVENTS)
		return -2;
	if (PM_GROW(p->ev, p->ev_cap, p->nev + b->n) < 0)
		return -1;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct pmt_sched_event *e = &b->events[i];
		if (e->kind < PMT_PSWITCH_IN || e->kind > PMT_PSWITCH_EXIT || e->b == 0)
			continue; /* kinds this reader does not know; the idle task */
		p->ev[p->nev] = (struct pev){ e->t_ns, (uint32_t)p->nev, e->b, e->kind, e->c != 0,
					      e->cpu, e->kind == PMT_PSWITCH_FORK ? e->c : 0 };
		p->nev++;
	}
	return 0;
}

int pma_pswitch_sample(struct pma_pswitch *p, const struct pmt_sample *s)
{
	if (!p->armed)
		p->nsmp = 0; /* a run without PSWITCH records keeps one sample, not all */
	if (p->nsmp + s->n > PMA_PSWITCH_MAX_SAMPLES)
		return 0; /* the wakes after this are bounded, not placed */
	if (PM_GROW(p->smp, p->smp_cap, p->nsmp + s->n) < 0)
		return -1;
	for (uint32_t i = 0; i < s->n; i++)
		if (s->threads[i].flags & PMT_TS_SCHEDSTAT_OK)
			p->smp[p->nsmp++] = (struct psmp){ s->threads[i].tid, s->t_ns,
							   s->threads[i].wait_ns, s->duration_ns };
	return 0;
}

/* Slack around a sample's reading window (ns): the perf and CLOCK_MONOTONIC stamps of one
 * instant differ by the time taken to read the clock. */
#define PSW_READ_MARGIN_NS 2000u
/* A switch-out and the next switch-in of the program less than this apart (ns) hand the CPU from
 * one program thread to the next: nothing else ran there in between (a switch to another task
 * and back takes two switches and that task's run; measured hand-overs here: 2-10 us). */
#define PSW_HANDOFF_NS 20000u
/* An exiting thread's CPU time after its exit record, at most (ns): the rest of do_exit
 * (exit_notify, the cgroup and perf teardown); measured 10-250 us against sched_switch. */
#define PSW_EXIT_TAIL_MAX_NS 1000000u

static int cmp_ev(const void *a, const void *b)
{
	const struct pev *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_smp(const void *a, const void *b)
{
	const struct psmp *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

static int cmp_credit(const void *a, const void *b)
{
	const struct credit *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->t_in_ns < y->t_in_ns ? -1 : x->t_in_ns > y->t_in_ns;
}

static int cmp_delta(const void *a, const void *b)
{
	const struct delta *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct th *thread_of(struct pm_tidmap *map, struct th **ths, size_t *n, size_t *cap,
			    uint32_t tid)
{
	uint32_t i;

	if (pm_tidmap_get(map, tid, &i))
		return &(*ths)[i];
	if (PM_GROW(*ths, *cap, *n + 1) < 0 || pm_tidmap_put(map, tid, (uint32_t)*n) < 0)
		return NULL;
	(*ths)[*n] = (struct th){ .tid = tid, .state = ST_UNKNOWN };
	return &(*ths)[(*n)++];
}

/* First sample of thread tid's run [lo, hi) of p->smp at or after t_ns (hi when none). */
static size_t first_at(const struct psmp *s, size_t lo, size_t hi, uint64_t t_ns)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].t_ns < t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keeps, in place, the samples s[0..ns) of one thread whose reading window [t_ns - margin,
 * t_ns + dur_ns + margin] holds none of its switch-ins c[0..n) (both sorted by time), and returns
 * how many. The collector stamps a sample when it starts reading and reads the threads one after
 * the other, so a switch-in inside the window may be counted in the sample's run_delay or in the
 * next one's: Delta run_delay over an interval that ends there is not the waits of the switch-ins
 * before t_ns. On a pigz trace 13 of 172 wakes were placed 5-96 ms off that way, all within a
 * sample's window (switch-ins bunch at the tick, as does the sampling timer). Without the sample,
 * the intervals either side are one, whose ends are clean. */
static size_t clean_samples(const struct credit *c, size_t n, struct psmp *s, size_t ns)
{
	size_t k = 0, ci = 0;

	for (size_t i = 0; i < ns; i++) {
		uint64_t lo = s[i].t_ns > PSW_READ_MARGIN_NS ? s[i].t_ns - PSW_READ_MARGIN_NS : 0;
		uint64_t hi = s[i].t_ns + s[i].dur_ns + PSW_READ_MARGIN_NS;
		while (ci < n && c[ci].t_in_ns < lo)
			ci++;
		if (ci < n && c[ci].t_in_ns <= hi)
			continue;
		s[k++] = s[i];
	}
	return k;
}

/* Places the waits of the credits of one thread, c[0..n), from its samples s[0..ns). */
static void place_thread(struct credit *c, size_t n, const struct psmp *s, size_t ns,
			 struct pma_pswitch_stats *st)
{
	size_t i = 0;

	while (i < n) {
		size_t at = first_at(s, 0, ns, c[i].t_in_ns), j = i, unknown = 0;
		double known = 0, W;
		/* the credits that the same sample revealed: one sampling interval */
		while (j < n && first_at(s, 0, ns, c[j].t_in_ns) == at) {
			if (c[j].unknown)
				unknown++;
			else
				known += c[j].wait_ns;
			j++;
		}
		if (at == ns || (at == 0 && !c[0].after_fork)) {
			W = -1; /* no sample on one side: nothing to place from */
		} else {
			/* before the thread's first sample: its run_delay since its recorded fork, where
			 * it was 0 (the fork's wait to the first switch-in is a known credit here) */
			W = (double)s[at].wait_ns - (at ? (double)s[at - 1].wait_ns : 0) - known;
			if (W < 0)
				W = 0;
		}
		for (size_t k = i; k < j; k++) {
			struct credit *x = &c[k];
			double gap = (double)x->gap_ns;
			if (!x->unknown)
				continue;
			if (W >= 0 && unknown == 1) {
				double w = W < gap ? W : gap;
				x->wait_ns = x->wmin_ns = w;
				/* the wake came up to the enqueue lag before run_delay started */
				x->wmax_ns = w + PMA_PSWITCH_WAKE_SLACK_NS < gap ?
					     w + PMA_PSWITCH_WAKE_SLACK_NS : gap;
				st->wakes_placed++;
			} else {
				double hi = W >= 0 ? (W < gap ? W : gap) : gap;
				double pt = W >= 0 ? W / (double)unknown : 0;
				x->wait_ns = pt < hi ? pt : hi;
				x->wmin_ns = 0;
				/* W holds the other wakes' waits too, but not the enqueue lag */
				hi += PMA_PSWITCH_WAKE_SLACK_NS;
				x->wmax_ns = hi < gap ? hi : gap;
				st->wakes_bounded++;
				st->bound_ns += x->wmax_ns;
			}
		}
		i = j;
	}
}

/* Counts a program thread that starts (d = 1) or stops (-1) running at t_ns into *nrun, and
 * notes the stretches of at least PSW_HANDOFF_NS with fewer running than p->ncpu in p->gap.
 * Returns 0 or -1 (memory). */
static int note_running(struct pma_pswitch *p, uint32_t *nrun, int d, uint64_t t_ns)
{
	if (d < 0 && *nrun == p->ncpu)
		p->below_ns = t_ns;
	if (d > 0 && *nrun + 1 == p->ncpu && t_ns - p->below_ns >= PSW_HANDOFF_NS) {
		if (PM_GROW(p->gap, p->gap_cap, p->ngap + 1) < 0)
			return -1;
		p->gap[p->ngap++] = (struct gap){ p->below_ns, t_ns };
	}
	*nrun = d < 0 ? (*nrun ? *nrun - 1 : 0) : *nrun + 1;
	return 0;
}

/* Whether a gap of p (sorted, disjoint) meets [a_ns, b_ns]. */
static int gap_meets(const struct pma_pswitch *p, uint64_t a_ns, uint64_t b_ns)
{
	size_t lo = 0, hi = p->ngap;

	while (lo < hi) { /* the first gap that ends at or after a_ns */
		size_t mid = lo + (hi - lo) / 2;
		if (p->gap[mid].t1_ns < a_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->ngap && p->gap[lo].t0_ns <= b_ns;
}

/* Walks the sorted events once: thread states; with collect, the credits of every switch-in
 * that ended a wait (into credits, *ncred, and the counts into st); without, each thread's steps
 * (switch-in, stop, and the dependency at a fork or at variant v's wake, credits[cred_of[i]] for
 * event i) into deltas. */
static int walk(struct pma_pswitch *p, struct credit *credits, size_t *ncred, int collect,
		const int32_t *cred_of, int v, struct delta *deltas, size_t *ndel,
		struct pma_pswitch_stats *st)
{
	struct pm_tidmap map;
	struct th *ths = NULL;
	size_t nth = 0, cap = 0;
	uint32_t nrun = 0;
	int rc = 0, was;

	pm_tidmap_init(&map);
	if (collect) {
		p->ngap = 0;
		p->below_ns = 0;
		p->nexit = 0;
	}
	*ndel = 0;
	if (collect)
		*ncred = 0;
	for (size_t i = 0; i < p->nev; i++) {
		const struct pev *e = &p->ev[i];
		struct th *t = thread_of(&map, &ths, &nth, &cap, e->tid);
		uint32_t seq = (uint32_t)i * 2 + 1;
#define DELTA(T, OP) (!collect ? (void)(deltas[(*ndel)++] = (struct delta){ (T), (T), seq, e->tid, e->parent, (OP) }) : (void)0)
		if (!t) {
			rc = -1;
			break;
		}
		was = t->state == ST_RUNNING;
		switch (e->kind) {
		case PMT_PSWITCH_FORK:
			if (t->state == ST_UNKNOWN || t->state == ST_GONE) {
				t->state = ST_QUEUED;
				t->forked = 1;
				t->t_out_ns = e->t_ns;
				DELTA(e->t_ns, OP_DEP);
			}
			break;
		case PMT_PSWITCH_IN:
			if (collect)
				st->switch_ins++;
			if (t->state == ST_QUEUED || t->state == ST_BLOCKED) {
				int unknown = t->state == ST_BLOCKED;
				if (collect) {
					struct credit *c = &credits[(*ncred)++];
					memset(c, 0, sizeof(*c));
					c->tid = e->tid;
					c->ev = (uint32_t)i;
					c->t_in_ns = e->t_ns;
					c->gap_ns = e->t_ns - t->t_out_ns;
					c->unknown = unknown;
					c->after_fork = t->forked;
					if (!unknown)
						c->wait_ns = c->wmin_ns = c->wmax_ns = (double)c->gap_ns;
				}
				if (unknown && !collect && cred_of[i] >= 0) {
					const struct credit *c = &credits[cred_of[i]];
					uint64_t wake = e->t_ns - (uint64_t)(v ? c->wmin_ns : c->wait_ns);
					uint64_t a = v ? e->t_ns - (uint64_t)c->wmax_ns : wake;
					/* seq 0: before the switches of its instant, so that a wake at
					 * the switch-in depends on the thread that ran until then */
					deltas[(*ndel)++] = (struct delta){ wake, a, 0, e->tid, 0, OP_WAKE };
				} else if (unknown) {
					DELTA(e->t_ns, OP_WAKE);
				}
				DELTA(e->t_ns, OP_RUN);
				t->forked = 0;
			} else if (t->state == ST_UNKNOWN || t->state == ST_GONE) {
				/* no fork seen (a lost record): after the thread that ran until now */
				if (!collect)
					deltas[(*ndel)++] = (struct delta){ e->t_ns, e->t_ns, 0, e->tid, 0,
									    OP_WAKE };
				DELTA(e->t_ns, OP_RUN);
			} else {
				st->anomalies += collect;
				break;
			}
			t->state = ST_RUNNING;
			break;
		case PMT_PSWITCH_OUT:
			if (t->state != ST_RUNNING) {
				st->anomalies += collect && t->state != ST_GONE;
				break;
			}
			t->t_out_ns = e->t_ns;
			if (e->preempt) {
				st->preempted += collect;
				t->state = ST_QUEUED;
			} else {
				t->state = ST_BLOCKED;
			}
			DELTA(e->t_ns, OP_STOP);
			break;
		case PMT_PSWITCH_EXIT:
			/* the task's events are closed in do_exit before its last switch-out: perf
			 * reports none, so a running task stops here, after its share of the exit
			 * tails in the point estimate (v 0), at the record in the bounds' sweeps */
			if (t->state == ST_RUNNING) {
				p->nexit += collect;
				DELTA(e->t_ns + (v == 0 ? p->tail_ns : 0), OP_STOP);
			}
			t->state = ST_GONE;
			break;
		}
#undef DELTA
		if (collect && (t->state == ST_RUNNING) != was &&
		    note_running(p, &nrun, t->state == ST_RUNNING ? 1 : -1, e->t_ns) < 0) {
			rc = -1;
			break;
		}
	}
	if (collect && rc == 0 && nrun < p->ncpu && PM_GROW(p->gap, p->gap_cap, p->ngap + 1) >= 0)
		p->gap[p->ngap++] = (struct gap){ p->below_ns, UINT64_MAX };
	if (collect)
		st->threads = (uint32_t)nth;
	free(ths);
	pm_tidmap_free(&map);
	return rc;
}

struct mark {
	double F_ns;
	int d; /* +1 a segment starts, -1 it ends */
};

static int cmp_mark(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;

	if (x->F_ns != y->F_ns)
		return x->F_ns < y->F_ns ? -1 : 1;
	return x->d - y->d; /* ends before starts: a hand-over is no moment of extra parallelism */
}

/* A thread's stop (switch-out or exit) at t_ns, at position F_ns; k its index (UINT32_MAX: none). */
struct stop {
	uint64_t t_ns;
	double F_ns;
	uint32_t k;
};
#define PSW_RECENT 16 /* stops kept for the wakes after them: more than a CPU has in the slack */

/* Closes thread f's running segment at t_ns: [F, F + run) on the infinite-core axis. */
static void seg_close(struct fpos *f, uint64_t t_ns, struct mark *mk, size_t *nmk, double *U_ns)
{
	double run = t_ns > f->t_in_ns ? (double)(t_ns - f->t_in_ns) : 0;

	f->running = 0;
	if (run <= 0)
		return;
	mk[(*nmk)++] = (struct mark){ f->F_ns, 1 };
	f->F_ns += run;
	mk[(*nmk)++] = (struct mark){ f->F_ns, -1 };
	*U_ns += run;
}

/* The CPU time of running thread f up to t_ns into the replay program. */
static int prog_work(struct pma_exact *prog, struct fpos *f, uint64_t t_ns)
{
	double ns = t_ns > f->t_acc_ns ? (double)(t_ns - f->t_acc_ns) : 0;

	if (t_ns > f->t_acc_ns)
		f->t_acc_ns = t_ns;
	return pma_exact_prog_work(prog, f->tid, ns);
}

/* The dependency sweep() gives thread tid at t_ns, as a replay edge from waker w (running, or
 * stopped: its program then ends where it stopped): a spawn at a fork, a wake edge otherwise.
 * The waker is the guess sweep() makes (pswitch.h): the candidate furthest on the axis. */
static int prog_edge(struct pma_exact *prog, struct fpos *w, uint32_t tid, uint64_t t_ns, int fork)
{
	if (w->running && prog_work(prog, w, t_ns) < 0)
		return -1;
	return fork ? pma_exact_prog_spawn(prog, w->tid, tid) : pma_exact_prog_wake(prog, w->tid, tid);
}

/* Thread j of fp's position on the infinite-core axis at t_ns, when it ran then. */
static double pos_at(const struct fpos *w, uint64_t t_ns)
{
	return w->F_ns + (double)(t_ns - w->t_in_ns);
}

/* The bound on the dependency of thread k's wake, known to lie in [a_ns, b_ns] (the sweep is at
 * b_ns), for pma_pswitch_stats A_lo (mode 1) and A_hi (mode 2). The waker ran at the wake, so
 * it is a program thread that ran in the window, or, where fewer of them ran than the run had
 * CPUs (a gap of p), possibly none (a timer, I/O, another process: no dependency, as sched-exact
 * counts it). Mode 1: the furthest any candidate reached by b_ns; mode 2: 0 when a gap meets the
 * window, else the least position a candidate had in it (0 when its segments in the window are
 * older than its ring). Every position is itself a bound of the same side, so by induction T_cp
 * of mode 1 is at least, and of mode 2 at most, the recording's true one. */
static double bound_dep(const struct pma_pswitch *p, int mode, const struct fpos *fp, size_t nfp,
			uint32_t k, uint64_t a_ns, uint64_t b_ns)
{
	double F = mode == 1 ? 0 : -1;

	if (mode == 2 && gap_meets(p, a_ns, b_ns))
		return 0;
	for (size_t j = 0; j < nfp; j++) {
		const struct fpos *w = &fp[j];
		double lo = 0;
		uint32_t s;
		if (j == k || !(w->running || w->last_stop_ns >= a_ns))
			continue;
		if (mode == 1) {
			double at = w->running ? pos_at(w, b_ns) : w->F_ns;
			F = at > F ? at : F;
			continue;
		}
		/* the oldest kept segment that reaches into the window */
		for (s = 0; s < PSW_SEGS && s < w->nseg; s++) {
			uint32_t q = (w->nseg - 1 - s) % PSW_SEGS;
			uint64_t t0 = w->seg[q].t0_ns, t1 = w->seg[q].t1_ns;
			if (t1 && t1 < a_ns)
				break;
			lo = w->seg[q].F0_ns + (t0 < a_ns ? (double)(a_ns - t0) : 0);
		}
		if (s == PSW_SEGS && s < w->nseg)
			lo = 0;
		F = F < 0 || lo < F ? lo : F;
	}
	return F < 0 ? 0 : F;
}

/* Places one variant's steps on the infinite-core axis, as sched-exact does with its wake edges
 * (docs/model.md): each thread's position F advances by its own recorded CPU time (exact), and a
 * thread that is woken or forked at t resumes no earlier than the position at t of the program
 * thread running then (on the baseline's one CPU, its waker or parent; with several running, the
 * furthest); a woken one also no earlier than a thread that stopped up to
 * PMA_PSWITCH_WAKE_SLACK_NS before, or, when none ran then, than the thread that ran last
 * (pswitch.h). The running segments placed on that axis
 * are the profile A(m,inf,t) (Tudor & Teo, eq. 4 over exact segments): U and T_cp = the length
 * of the axis they cover (and the pieces into prof when not NULL). With prog (not NULL), the
 * same steps become a replay program (exact.h pma_exact_prog_*): each thread's CPU time split at
 * the edges, a fork a spawn, a wake an edge from the thread taken as its waker. Returns 0 or -1
 * (memory). */
static int sweep(const struct pma_pswitch *p, int mode, struct delta *d, size_t n,
		 struct pma_profile *prof, struct pma_exact *prog, double *U_ns, double *T_ns)
{
	struct pm_tidmap map;
	struct fpos *fp = NULL;
	struct mark *mk = NULL;
	uint32_t *run = NULL; /* indices in fp of the running threads */
	struct stop recent[PSW_RECENT]; /* the last stops, a ring */
	size_t nfp = 0, fcap = 0, nmk = 0, nrun = 0, nrecent = 0;
	long active = 0;
	double prev = 0;
	int rc = -1;

	*U_ns = *T_ns = 0;
	for (size_t j = 0; j < PSW_RECENT; j++)
		recent[j] = (struct stop){ 0, 0, UINT32_MAX };
	pm_tidmap_init(&map);
	qsort(d, n, sizeof(*d), cmp_delta);
	mk = malloc((2 * n + 2) * sizeof(*mk));
	run = malloc((n + 1) * sizeof(*run));
	if (!mk || !run)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint32_t k, par;
		struct fpos *f;
		if (!pm_tidmap_get(&map, d[i].tid, &k)) {
			if (PM_GROW(fp, fcap, nfp + 1) < 0 || pm_tidmap_put(&map, d[i].tid, (uint32_t)nfp) < 0)
				goto out;
			k = (uint32_t)nfp++;
			memset(&fp[k], 0, sizeof(fp[k]));
			fp[k].tid = d[i].tid;
		}
		f = &fp[k];
		if (d[i].op == OP_DEP && d[i].parent && pm_tidmap_get(&map, d[i].parent, &par) &&
		    par != k) {
			/* a fork: the record names the parent, which ran then */
			const struct fpos *w = &fp[par];
			double at = w->running ? pos_at(w, d[i].t_ns) : w->F_ns;
			if (at > f->F_ns)
				f->F_ns = at;
			if (prog && prog_edge(prog, &fp[par], f->tid, d[i].t_ns, 1) < 0)
				goto out;
		} else if (d[i].op == OP_WAKE && mode && !f->running) {
			double F = bound_dep(p, mode, fp, nfp, k, d[i].a_ns, d[i].t_ns);
			if (F > f->F_ns)
				f->F_ns = F;
		} else if ((d[i].op == OP_DEP || d[i].op == OP_WAKE) && !f->running) {
			/* (running: a wake at its own block) */
			const struct stop *last;
			int found = 0;
			uint32_t waker = UINT32_MAX; /* the candidate furthest on the axis */
			double waker_F = -1;
			for (size_t j = 0; j < nrun; j++) {
				const struct fpos *w = &fp[run[j]];
				double at = w->F_ns + (double)(d[i].t_ns - w->t_in_ns);
				if (run[j] != k && at > f->F_ns)
					f->F_ns = at;
				if (run[j] != k && at > waker_F) {
					waker = run[j];
					waker_F = at;
				}
			}
			for (size_t j = 0; d[i].op == OP_WAKE && j < PSW_RECENT; j++) {
				const struct stop *r = &recent[j];
				if (r->k != k && r->t_ns + PMA_PSWITCH_WAKE_SLACK_NS >= d[i].t_ns &&
				    r->t_ns <= d[i].t_ns) {
					found = 1;
					if (r->F_ns > f->F_ns)
						f->F_ns = r->F_ns;
					if (r->F_ns > waker_F) {
						waker = r->k;
						waker_F = r->F_ns;
					}
				}
			}
			/* nothing of the program ran then (another process did, or the placement
			 * is off by more than the slack): the program thread that ran last since
			 * the wakee blocked is taken as its waker */
			last = &recent[(nrecent + PSW_RECENT - 1) % PSW_RECENT];
			if (d[i].op == OP_WAKE && !found && nrun == 0 && nrecent && last->k != k) {
				if (last->F_ns > f->F_ns)
					f->F_ns = last->F_ns;
				waker = last->k;
			}
			if (prog && waker != UINT32_MAX &&
			    prog_edge(prog, &fp[waker], f->tid, d[i].t_ns, d[i].op == OP_DEP) < 0)
				goto out;
		} else if (d[i].op == OP_RUN && !f->running) {
			f->running = 1;
			f->t_in_ns = f->t_acc_ns = d[i].t_ns;
			f->seg[f->nseg++ % PSW_SEGS].t0_ns = d[i].t_ns;
			f->seg[(f->nseg - 1) % PSW_SEGS].t1_ns = 0;
			f->seg[(f->nseg - 1) % PSW_SEGS].F0_ns = f->F_ns;
			run[nrun++] = k;
			if (prog && pma_exact_prog_work(prog, f->tid, 0) < 0)
				goto out; /* (names the thread: one that never waits starts at 0) */
		} else if (d[i].op == OP_STOP && f->running) {
			if (prog && prog_work(prog, f, d[i].t_ns) < 0)
				goto out;
			seg_close(f, d[i].t_ns, mk, &nmk, U_ns);
			f->seg[(f->nseg - 1) % PSW_SEGS].t1_ns = d[i].t_ns;
			f->last_stop_ns = d[i].t_ns;
			recent[nrecent++ % PSW_RECENT] = (struct stop){ d[i].t_ns, f->F_ns, k };
			for (size_t j = 0; j < nrun; j++)
				if (run[j] == k) {
					run[j] = run[--nrun];
					break;
				}
		}
	}
	/* still running at the last step: until then */
	for (size_t j = 0; j < nrun && n > 0; j++) {
		if (prog && prog_work(prog, &fp[run[j]], d[n - 1].t_ns) < 0)
			goto out;
		seg_close(&fp[run[j]], d[n - 1].t_ns, mk, &nmk, U_ns);
	}
	qsort(mk, nmk, sizeof(*mk), cmp_mark);
	for (size_t i = 0; i < nmk; i++) {
		if (active > 0 && mk[i].F_ns > prev) {
			*T_ns += mk[i].F_ns - prev;
			if (prof && pma_profile_add(prof, (double)active, mk[i].F_ns - prev) < 0)
				goto out;
		}
		active += mk[i].d;
		prev = mk[i].F_ns;
	}
	rc = 0;
out:
	free(fp);
	free(mk);
	free(run);
	pm_tidmap_free(&map);
	return rc;
}

/* How many CPUs p's events came from (at least 1). */
static uint32_t count_cpus(const struct pma_pswitch *p)
{
	uint8_t seen[65536 / 8] = { 0 };
	uint32_t n = 0;

	for (size_t i = 0; i < p->nev; i++) {
		uint16_t c = p->ev[i].cpu;
		if (!(seen[c / 8] & 1u << (c % 8))) {
			seen[c / 8] |= (uint8_t)(1u << (c % 8));
			n++;
		}
	}
	return n ? n : 1;
}

/* The CPU time of exiting threads after their exit record, which perf does not report (do_exit
 * closes the task's events before its last switch-out; 10-250 us per thread measured against
 * sched_switch): the program's CPU time from wait4 less the records' U_ns, at most
 * PSW_EXIT_TAIL_MAX_NS per thread running at its exit record (more is time the records lost, not
 * exit tails). Returns the sum (0 without the CPU time or such threads) and each thread's equal
 * share in *each_ns. */
static double exit_tails(const struct pma_pswitch *p, double U_ns, uint64_t *each_ns)
{
	double D = p->cpu_total_ns - U_ns, cap = (double)p->nexit * PSW_EXIT_TAIL_MAX_NS;

	*each_ns = 0;
	if (p->cpu_total_ns < 0 || !p->nexit || !(D > 0))
		return 0;
	if (D > cap)
		D = cap;
	*each_ns = (uint64_t)(D / p->nexit);
	return (double)*each_ns * p->nexit;
}

int pma_pswitch_finish(struct pma_pswitch *p, struct pma_profile *prof,
		       struct pma_pswitch_stats *st)
{
	struct credit *cr = NULL;
	struct delta *d = NULL;
	int32_t *cred_of = NULL;
	size_t ncred = 0, nd = 0;
	double U[3], T[3], tail = 0;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	st->events = p->nev;
	st->lost = p->lost;
	if (!p->nev)
		return 0;
	qsort(p->ev, p->nev, sizeof(*p->ev), cmp_ev);
	if (p->nsmp) /* qsort's array may not be NULL, even for 0 elements */
		qsort(p->smp, p->nsmp, sizeof(*p->smp), cmp_smp);
	st->first_t_ns = (double)p->ev[0].t_ns;
	st->last_t_ns = (double)p->ev[p->nev - 1].t_ns;
	p->ncpu = count_cpus(p);
	cr = malloc(p->nev * sizeof(*cr));
	d = malloc(2 * p->nev * sizeof(*d));
	cred_of = malloc(p->nev * sizeof(*cred_of));
	pma_exact_free(p->prog);
	p->prog = pma_exact_new();
	if (!cr || !d || !cred_of || !p->prog)
		goto out;
	if (walk(p, cr, &ncred, 1, NULL, 0, d, &nd, st) < 0)
		goto out;
	/* wakes per thread, from its samples */
	qsort(cr, ncred, sizeof(*cr), cmp_credit);
	for (size_t i = 0, s0 = 0; i < ncred;) {
		size_t j = i, s1;
		while (j < ncred && cr[j].tid == cr[i].tid)
			j++;
		while (s0 < p->nsmp && p->smp[s0].tid < cr[i].tid)
			s0++;
		s1 = s0;
		while (s1 < p->nsmp && p->smp[s1].tid == cr[i].tid)
			s1++;
		place_thread(&cr[i], j - i, &p->smp[s0], clean_samples(&cr[i], j - i, &p->smp[s0],
									  s1 - s0), st);
		i = j;
	}
	for (size_t i = 0; i < p->nev; i++)
		cred_of[i] = -1;
	for (size_t i = 0; i < ncred; i++)
		cred_of[cr[i].ev] = (int32_t)i;
	/* the bounds first, without exit tails: their U is the records' own */
	p->tail_ns = 0;
	for (int v = 1; v <= 3; v++) {
		int m = v % 3;
		if (m == 0)
			tail = exit_tails(p, U[1], &p->tail_ns);
		if (walk(p, cr, &ncred, 0, cred_of, m, d, &nd, st) < 0 ||
		    sweep(p, m, d, nd, m == 0 ? prof : NULL, m == 0 ? p->prog : NULL, &U[m], &T[m]) < 0)
			goto out;
	}
	st->work_ns = U[0];
	st->T_cp_ns = T[0];
	st->exit_tail_ns = tail;
	st->A_inf = T[0] > 0 ? U[0] / T[0] : 0;
	/* the tails are leaves of the schedule (pma_pswitch_cpu_total): they add their sum to U,
	 * and to T_cp at most that sum; (U + x) / (T + x) falls with x where U >= T */
	st->A_lo = T[1] > 0 ? (U[1] + tail) / (T[1] + tail) : 0;
	st->A_hi = T[2] > 0 ? (U[2] + tail) / T[2] : 0;
	/* the point takes the thread that ran last as the waker where none ran in the window, a
	 * dependency the bounds do not assume: they still hold the point */
	if (st->A_lo > st->A_inf)
		st->A_lo = st->A_inf;
	if (st->A_hi < st->A_inf)
		st->A_hi = st->A_inf;
	rc = 0;
out:
	if (rc < 0) { /* half a program replays wrongly: none */
		pma_exact_free(p->prog);
		p->prog = NULL;
	}
	free(cr);
	free(d);
	free(cred_of);
	return rc;
}

double pma_pswitch_rel_err(const struct pma_pswitch_stats *st)
{
	double d_hi = st->A_hi - st->A_inf, d_lo = st->A_inf - st->A_lo, d = d_hi > d_lo ? d_hi : d_lo;

	if (!(st->A_inf > 0))
		return 0;
	if (d < 0)
		d = 0;
	return d / st->A_inf + (double)st->lost / (double)(st->events + st->lost + 1);
}

void pma_pswitch_describe(FILE *out, const struct pma_pswitch_stats *st)
{
	fprintf(out, "%-13s%llu records, %llu lost, %u threads: run segments exact; %llu "
		"preempted (wait exact), %llu wakes placed from schedstat, %llu bounded "
		"(%.1f ms); A(m,inf) %.2f with wakes placed, %.2f-%.2f over the bounds\n",
		"switches", (unsigned long long)st->events, (unsigned long long)st->lost, st->threads,
		(unsigned long long)st->preempted, (unsigned long long)st->wakes_placed,
		(unsigned long long)st->wakes_bounded, st->bound_ns / 1e6, st->A_inf, st->A_lo,
		st->A_hi);
}

const struct pma_exact *pma_pswitch_program(const struct pma_pswitch *p)
{
	return p->prog;
}
