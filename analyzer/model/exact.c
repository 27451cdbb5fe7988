/* SPDX-License-Identifier: MIT */
/* exact.c: timelines, critical path and n-core replay from scheduler events (see exact.h). */
#include "exact.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pm_util.h"

enum xstate { X_UNKNOWN, X_RUNNING, X_RUNNABLE, X_BLOCKED, X_WOKEN, X_DEAD };
enum step_kind { ST_WORK, ST_SIGNAL, ST_WAIT, ST_SPAWN };

/* One step of a thread's replay program: run ns of CPU, signal or wait for wake edge arg, or
 * start thread arg. */
struct step {
	uint8_t kind;
	uint32_t arg;
	double ns;
};

struct xthr {
	uint32_t tid, tgid;
	char comm[PMT_COMM_MAX + 1];
	enum xstate state;
	uint64_t t_acc;       /* running: CPU time is accounted up to here */
	uint64_t t_slice;     /* start of the current running or runnable slice */
	uint16_t cpu;
	int spawned;          /* forked by a program thread (starts at its SPAWN step) */
	double F;             /* infinite-core time the thread has reached (Tudor & Teo's T_cp axis) */
	double dep;           /* a pending wake: resume no earlier than this */
	int64_t wait_edge;    /* the pending wake's edge, -1 none */
	double cpu_ns;
	double seg_start, seg_end; /* the open segment of the profile on the infinite-core axis */
	struct step *steps;
	size_t nsteps, cap;
};

struct ev {
	struct pmt_sched_event e;
	uint32_t ord;
};
/* exact.h states the memory bound of PMA_EXACT_MAX_EVENTS with this size */
_Static_assert(sizeof(struct ev) == 40, "update PMA_EXACT_MAX_EVENTS' comment in exact.h");

struct segment {
	double t, d; /* +1 at t for d > 0 marks, stored as two entries: start (+1) and end (-1) */
};

struct pma_exact {
	uint32_t root;
	struct ev *ev;
	size_t nev, evcap;
	uint64_t lost_reported;  /* RUN_END's count */
	uint64_t lost_in_pages;  /* sum of the counts the records carry */
	uint32_t gaps;
	struct xthr *thr;
	size_t nthr, thrcap;
	struct pm_tidmap map;  /* tid -> index into thr */
	uint32_t nedges;
	double *marks;         /* profile: (time, +1/-1) pairs flattened: time, delta */
	size_t nmarks, markcap;
	struct pma_slice *slices;
	size_t nslices, slicecap;
	struct pma_wake *wakes;
	size_t nwakes, wakecap;
	uint64_t *cpulast;     /* per CPU: time of its last event so far */
	uint32_t *cpucur;      /* per CPU: the task running after that event (0 idle) */
	size_t ncpulast;
	uint32_t *existing;            /* pma_exact_existing's tids, nexisting */
	size_t nexisting, existingcap;
	double fmax_ns;                /* the largest F accounted so far */
	double *fgrid;                 /* pma_exact_cp_at: F reached by each grid time, nfgrid of
					  them from the first event to the last */
	size_t nfgrid;
	double fgrid_t0_ns, fgrid_dt_ns;
	/* TASK hints: tid -> tgid, comm */
	struct hint { uint32_t tid, tgid, ord; char comm[PMT_COMM_MAX + 1]; } *hints;
	size_t nhints, hintcap;
};

struct pma_exact *pma_exact_new(void)
{
	return calloc(1, sizeof(struct pma_exact));
}

void pma_exact_free(struct pma_exact *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->nthr; i++)
		free(x->thr[i].steps);
	free(x->thr);
	pm_tidmap_free(&x->map);
	free(x->ev);
	free(x->marks);
	free(x->slices);
	free(x->wakes);
	free(x->hints);
	free(x->existing);
	free(x->cpulast);
	free(x->cpucur);
	free(x->fgrid);
	free(x);
}

void pma_exact_set_root(struct pma_exact *x, uint32_t pid)
{
	x->root = pid;
}

int pma_exact_existing(struct pma_exact *x, uint32_t tid)
{
	if (PM_GROW(x->existing, x->existingcap, x->nexisting + 1) < 0)
		return -1;
	x->existing[x->nexisting++] = tid;
	return 0;
}

void pma_exact_set_lost(struct pma_exact *x, uint64_t lost)
{
	x->lost_reported = lost;
}

int pma_exact_add(struct pma_exact *x, const struct pmt_sched_batch *b)
{
	if (x->nev + b->n > PMA_EXACT_MAX_EVENTS)
		return -2;
	if (b->missed) {
		x->gaps++;
		if (b->missed != PMT_SCHED_MISSED_UNKNOWN)
			x->lost_in_pages += b->missed;
	}
	if (PM_GROW(x->ev, x->evcap, x->nev + b->n) < 0)
		return -1;
	for (uint32_t i = 0; i < b->n; i++) {
		x->ev[x->nev].e = b->events[i];
		x->ev[x->nev].ord = (uint32_t)x->nev;
		x->nev++;
	}
	return 0;
}

int pma_exact_task(struct pma_exact *x, uint32_t tid, uint32_t tgid, const char *comm)
{
	/* appended as they come (the last one of a tid wins); sorted once in pma_exact_finish */
	if (PM_GROW(x->hints, x->hintcap, x->nhints + 1) < 0)
		return -1;
	x->hints[x->nhints].tid = tid;
	x->hints[x->nhints].tgid = tgid;
	x->hints[x->nhints].ord = (uint32_t)x->nhints;
	snprintf(x->hints[x->nhints].comm, sizeof(x->hints[x->nhints].comm), "%s", comm ? comm : "");
	x->nhints++;
	return 0;
}

/* ---- thread table ---- */

static struct xthr *thr_find(struct pma_exact *x, uint32_t tid)
{
	uint32_t i;

	return pm_tidmap_get(&x->map, tid, &i) ? &x->thr[i] : NULL;
}

static struct xthr *thr_add(struct pma_exact *x, uint32_t tid)
{
	struct xthr *t;

	if (PM_GROW(x->thr, x->thrcap, x->nthr + 1) < 0 ||
	    pm_tidmap_put(&x->map, tid, (uint32_t)x->nthr) < 0)
		return NULL;
	t = &x->thr[x->nthr];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->wait_edge = -1;
	x->nthr++;
	return t;
}

static int step_add(struct xthr *t, uint8_t kind, uint32_t arg, double ns)
{
	if (kind == ST_WORK && t->nsteps && t->steps[t->nsteps - 1].kind == ST_WORK) {
		t->steps[t->nsteps - 1].ns += ns;
		return 0;
	}
	if (PM_GROW(t->steps, t->cap, t->nsteps + 1) < 0)
		return -1;
	t->steps[t->nsteps].kind = kind;
	t->steps[t->nsteps].arg = arg;
	t->steps[t->nsteps].ns = ns;
	t->nsteps++;
	return 0;
}

/* Closes the thread's open profile segment [seg_start, seg_end) into two marks. */
static int seg_flush(struct pma_exact *x, struct xthr *t)
{
	if (t->seg_end <= t->seg_start)
		return 0;
	if (PM_GROW(x->marks, x->markcap, x->nmarks + 4) < 0)
		return -1;
	x->marks[x->nmarks++] = t->seg_start;
	x->marks[x->nmarks++] = 1;
	x->marks[x->nmarks++] = t->seg_end;
	x->marks[x->nmarks++] = -1;
	t->seg_start = t->seg_end = t->F;
	return 0;
}

/* Accounts the CPU time of a running thread up to t_ns: a WORK step, F advances, the segment
 * [F, F + d) joins the profile. */
static int work_until(struct pma_exact *x, struct xthr *t, uint64_t t_ns)
{
	double d;

	if (t->state != X_RUNNING || t_ns <= t->t_acc)
		return 0;
	d = (double)(t_ns - t->t_acc);
	t->t_acc = t_ns;
	if (step_add(t, ST_WORK, 0, d) < 0)
		return -1;
	if (t->seg_end != t->F) { /* not contiguous with the open segment */
		if (seg_flush(x, t) < 0)
			return -1;
		t->seg_start = t->seg_end = t->F;
	}
	t->F += d;
	t->seg_end = t->F;
	t->cpu_ns += d;
	if (t->F > x->fmax_ns)
		x->fmax_ns = t->F;
	return 0;
}

static int slice_add(struct pma_exact *x, const struct xthr *t, uint8_t kind, uint64_t t0,
		     uint64_t t1)
{
	if (t1 <= t0)
		return 0;
	if (PM_GROW(x->slices, x->slicecap, x->nslices + 1) < 0)
		return -1;
	x->slices[x->nslices].tid = t->tid;
	x->slices[x->nslices].kind = kind;
	x->slices[x->nslices].cpu = t->cpu;
	x->slices[x->nslices].t0_ns = t0;
	x->slices[x->nslices].t1_ns = t1;
	x->nslices++;
	return 0;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *p = a, *q = b;
	if (p->e.t_ns != q->e.t_ns)
		return p->e.t_ns < q->e.t_ns ? -1 : 1;
	return p->ord < q->ord ? -1 : p->ord > q->ord;
}

static int cmp_mark(const void *a, const void *b)
{
	const double *p = a, *q = b;
	if (p[0] != q[0])
		return p[0] < q[0] ? -1 : 1;
	/* ends before starts at the same instant: a hand-over is not a moment of extra parallelism */
	return p[1] < q[1] ? -1 : p[1] > q[1];
}

/* A wake of blocked thread X at t by task common_pid (ctx = interrupt flags). */
static int on_wake(struct pma_exact *x, struct pma_exact_stats *st, struct xthr *X,
		   const struct pmt_sched_event *e)
{
	struct xthr *W = e->ctx ? NULL : thr_find(x, e->common_pid);

	/* a thread there before the events began (the root, or a thread a late window found)
	 * whose first sign is its wakeup was asleep until then, not running: its waker's
	 * position binds it as any other wake does (in a window that starts while the root waits
	 * for a child, the child's exit is what lets it go on) */
	if (X->state == X_UNKNOWN)
		X->state = X_BLOCKED;
	if (X->state != X_BLOCKED)
		return 0; /* running or runnable already: nothing to wait for */
	X->state = X_WOKEN;
	X->t_slice = e->t_ns;
	X->dep = X->F;
	X->wait_edge = -1;
	if (!W || W == X || W->state == X_DEAD) {
		st->outside_wakes++;
		return 0;
	}
	/* the waker's own position: CPU time accounted up to this instant */
	if (work_until(x, W, e->t_ns) < 0)
		return -1;
	if (step_add(W, ST_SIGNAL, x->nedges, 0) < 0)
		return -1;
	X->wait_edge = x->nedges++;
	if (W->F > X->dep)
		X->dep = W->F;
	st->wake_edges++;
	if (PM_GROW(x->wakes, x->wakecap, x->nwakes + 1) < 0)
		return -1;
	x->wakes[x->nwakes].waker = W->tid;
	x->wakes[x->nwakes].wakee = X->tid;
	x->wakes[x->nwakes].t_ns = e->t_ns;
	x->wakes[x->nwakes].waker_cpu_ns = W->cpu_ns;
	x->wakes[x->nwakes].binding = 0;
	x->nwakes++;
	return 0;
}

/* Y gets a CPU at t: the runnable slice ends; after a wake from a program thread it waits for
 * the waker's position (a WAIT step; F jumps to the dependency). */
static int switch_in(struct pma_exact *x, struct xthr *Y, uint64_t t, uint16_t cpu)
{
	/* a thread there before the events (the root, or one a window found) whose first sign is
	 * its switch-in was runnable since the events began: a wakeup of it would have been
	 * recorded (tracefs records the wakeups of the pid filter's tasks in any context:
	 * kernel/trace/trace_events.c, event_filter_pid_sched_wakeup_probe_pre) */
	if (Y->state == X_RUNNABLE || Y->state == X_WOKEN || Y->state == X_UNKNOWN)
		if (slice_add(x, Y, PMA_SLICE_RUNNABLE, Y->t_slice, t) < 0)
			return -1;
	if (Y->state == X_WOKEN && Y->wait_edge >= 0) {
		if (step_add(Y, ST_WAIT, (uint32_t)Y->wait_edge, 0) < 0)
			return -1;
		if (Y->dep > Y->F) {
			/* the waker, not Y, decided when Y resumes (wakes[] and edges share indices) */
			x->wakes[Y->wait_edge].binding = 1;
			if (seg_flush(x, Y) < 0)
				return -1;
			Y->F = Y->seg_start = Y->seg_end = Y->dep;
			if (Y->F > x->fmax_ns)
				x->fmax_ns = Y->F;
		}
	}
	/* a thread found running without its wakeup (lost events, or events of another CPU
	 * stamped a little later) resumes without a dependency */
	Y->wait_edge = -1;
	Y->state = X_RUNNING;
	Y->t_acc = Y->t_slice = t;
	Y->cpu = cpu;
	return 0;
}

/* The event e on CPU c shows another task current than the program thread O the replay has
 * running there since c's previous event: the kernel recorded no switch from O (as it sometimes
 * records none to a thread: on_event). O is switched out half way from c's previous event,
 * runnable (preempted, the likelier; a later wake of it then binds nothing); without this it ran
 * on, on two CPUs at once once it was switched in elsewhere. */
static int missed_switch_out(struct pma_exact *x, struct pma_exact_stats *st,
			     const struct pmt_sched_event *e)
{
	struct xthr *O;
	uint64_t t0, t;

	if (e->cpu >= x->ncpulast || !x->cpulast[e->cpu] || !x->cpucur[e->cpu] ||
	    x->cpucur[e->cpu] == e->common_pid)
		return 0;
	O = thr_find(x, x->cpucur[e->cpu]);
	if (!O || O->state != X_RUNNING || O->cpu != e->cpu)
		return 0;
	t0 = x->cpulast[e->cpu] > O->t_slice ? x->cpulast[e->cpu] : O->t_slice;
	t = t0 + (e->t_ns - t0) / 2;
	if (work_until(x, O, t) < 0 || slice_add(x, O, PMA_SLICE_RUNNING, O->t_slice, t) < 0)
		return -1;
	O->t_slice = t;
	O->state = X_RUNNABLE;
	st->inferred_switch_outs++;
	st->inferred_ns += (double)(e->t_ns - t);
	return 0;
}

static int on_event(struct pma_exact *x, struct pma_exact_stats *st, const struct pmt_sched_event *e)
{
	struct xthr *X, *Y, *cur;

	if (missed_switch_out(x, st, e) < 0)
		return -1;
	cur = e->common_pid ? thr_find(x, e->common_pid) : NULL;

	/* common_pid is the task running on the event's CPU. The root, which exists before
	 * tracing starts, was running from the first event if this is the first sign of it. A
	 * program thread found running without its switch-in: the kernel sometimes records no
	 * sched_switch back to a program thread, mostly from the idle task or from a kernel thread
	 * woken in an interrupt (with and without set_event_pid), though it reports nothing lost.
	 * It is switched in at the CPU's previous event if that left the CPU idle (an idle CPU
	 * runs a woken thread at once), else half way from there: that guess is off by at most
	 * half the gap, which is reported (inferred_ns) and counted in the uncertainty. */
	if (cur && cur->state == X_UNKNOWN) {
		/* a thread there before the events (the root, or one a late window found), first
		 * seen running: running from the first event only if no event of this CPU came
		 * before with another task on it; else it was switched in unseen since then (a
		 * thread of an attached process, runnable at the window's start, switched in from a
		 * task the events' pid filter leaves out), inferred as below */
		int earlier = e->cpu < x->ncpulast && x->cpulast[e->cpu] &&
			      x->cpucur[e->cpu] != cur->tid;
		cur->state = earlier ? X_RUNNABLE : X_RUNNING;
		cur->cpu = e->cpu;
	}
	if (cur && cur->state != X_RUNNING && cur->state != X_DEAD && cur->state != X_UNKNOWN) {
		int known = e->cpu < x->ncpulast && x->cpulast[e->cpu];
		uint64_t t0 = known ? x->cpulast[e->cpu] : e->t_ns, t;
		if (t0 < cur->t_slice)
			t0 = cur->t_slice;
		if (known && x->cpucur[e->cpu] == 0) {
			/* the CPU was idle: it ran the thread as soon as it was runnable */
			t = t0;
		} else {
			t = t0 + (e->t_ns - t0) / 2;
			st->inferred_ns += (double)(e->t_ns - t);
		}
		st->inferred_switch_ins++;
		if (switch_in(x, cur, t, e->cpu) < 0)
			return -1;
	}

	switch (e->kind) {
	case PMT_SCHED_FORK: {
		struct xthr *P = thr_find(x, e->common_pid), *C;
		/* child 0 is no task (a damaged or hand-made trace): nothing to follow */
		if (!P || !e->a || thr_find(x, e->a))
			return 0;
		if (work_until(x, P, e->t_ns) < 0 || !(C = thr_add(x, e->a)))
			return -1;
		P = thr_find(x, e->common_pid); /* thr_add may have moved the table */
		C->spawned = 1;
		C->state = X_RUNNABLE;
		C->t_slice = e->t_ns;
		C->F = C->seg_start = C->seg_end = P->F;
		C->tgid = P->tgid;
		return step_add(P, ST_SPAWN, (uint32_t)(C - x->thr), 0);
	}
	case PMT_SCHED_WAKING:
	case PMT_SCHED_WAKEUP:
		X = thr_find(x, e->a);
		return X ? on_wake(x, st, X, e) : 0;
	case PMT_SCHED_SWITCH:
		X = thr_find(x, e->a);
		if (X && X->state == X_UNKNOWN) {
			X->state = X_RUNNING;
			X->cpu = e->cpu;
		}
		if (X && X->state == X_RUNNING) {
			if (work_until(x, X, e->t_ns) < 0 ||
			    slice_add(x, X, PMA_SLICE_RUNNING, X->t_slice, e->t_ns) < 0)
				return -1;
			X->t_slice = e->t_ns;
			if (e->c == 'R') {
				X->state = X_RUNNABLE;
			} else if (e->c == 'X' || e->c == 'Z') {
				X->state = X_DEAD;
			} else {
				X->state = X_BLOCKED;
				if (seg_flush(x, X) < 0)
					return -1;
			}
		}
		Y = thr_find(x, e->b);
		if (Y && Y->state != X_DEAD && Y->state != X_RUNNING && switch_in(x, Y, e->t_ns, e->cpu) < 0)
			return -1;
		return 0;
	case PMT_SCHED_EXIT:
	case PMT_SCHED_WAKEUP_NEW:
	case PMT_SCHED_MIGRATE:
	default:
		return 0;
	}
}

static int cmp_hint(const void *a, const void *b)
{
	const struct hint *p = a, *q = b;
	if (p->tid != q->tid)
		return p->tid < q->tid ? -1 : 1;
	return p->ord < q->ord ? -1 : p->ord > q->ord;
}

/* The thread's last TASK hint (hints sorted by tid, then order). */
static void hint_apply(struct pma_exact *x, struct xthr *t)
{
	size_t lo = 0, hi = x->nhints;

	while (lo < hi) { /* first hint with a tid above t's */
		size_t mid = lo + (hi - lo) / 2;
		if (x->hints[mid].tid <= t->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && x->hints[lo - 1].tid == t->tid) {
		t->tgid = x->hints[lo - 1].tgid;
		memcpy(t->comm, x->hints[lo - 1].comm, sizeof(t->comm));
	}
}

/* F reached by real time t (t not before the last event handled): the largest accounted, or a
 * thread running since its last accounting (the CPUs' current tasks) further on. */
static double fmax_at(struct pma_exact *x, uint64_t t)
{
	double f = x->fmax_ns;

	for (size_t c = 0; c < x->ncpulast; c++) {
		const struct xthr *r = x->cpucur[c] ? thr_find(x, x->cpucur[c]) : NULL;
		if (r && r->state == X_RUNNING && r->cpu == c && t > r->t_acc &&
		    r->F + (double)(t - r->t_acc) > f)
			f = r->F + (double)(t - r->t_acc);
	}
	return f;
}

/* Fills the grid of pma_exact_cp_at up to real time t (the next event's). */
static void fgrid_fill(struct pma_exact *x, size_t *g, uint64_t t)
{
	for (; *g < x->nfgrid && x->fgrid_t0_ns + (double)*g * x->fgrid_dt_ns <= (double)t; (*g)++)
		x->fgrid[*g] = fmax_at(x, (uint64_t)(x->fgrid_t0_ns + (double)*g * x->fgrid_dt_ns));
}

int pma_exact_finish(struct pma_exact *x, struct pma_profile *prof, struct pma_exact_stats *st)
{
	struct xthr *root;
	uint64_t last = 0;
	size_t g = 0;

	memset(st, 0, sizeof(*st));
	st->events = x->nev;
	st->gaps = x->gaps;
	st->lost = x->lost_reported > x->lost_in_pages ? x->lost_reported : x->lost_in_pages;
	if (x->nev == 0)
		return 0;
	qsort(x->ev, x->nev, sizeof(*x->ev), cmp_ev);
	if (x->nhints) /* qsort's array may not be NULL, even for 0 elements */
		qsort(x->hints, x->nhints, sizeof(*x->hints), cmp_hint);
	st->first_t_ns = (double)x->ev[0].e.t_ns;
	st->last_t_ns = (double)x->ev[x->nev - 1].e.t_ns;
	free(x->fgrid);
	x->nfgrid = PMA_EXACT_CP_GRID;
	if (!(x->fgrid = malloc(x->nfgrid * sizeof(*x->fgrid))))
		return -1;
	x->fgrid_t0_ns = st->first_t_ns;
	x->fgrid_dt_ns = (st->last_t_ns - st->first_t_ns) / (double)(x->nfgrid - 1);
	x->fmax_ns = 0;
	if (!(root = thr_add(x, x->root)))
		return -1;
	root->tgid = x->root;
	/* the root exists before tracing starts; if its first event is a switch away from it, it
	 * was running all along (no switch to it was seen), from the first event on */
	root->state = X_UNKNOWN;
	root->t_acc = root->t_slice = x->ev[0].e.t_ns;
	for (size_t i = 0; i < x->nexisting; i++) {
		/* threads a late window found: there all along, as the root */
		struct xthr *o;
		if (thr_find(x, x->existing[i]))
			continue;
		if (!(o = thr_add(x, x->existing[i])))
			return -1;
		o->tgid = x->root;
		o->state = X_UNKNOWN;
		o->t_acc = o->t_slice = x->ev[0].e.t_ns;
	}
	for (size_t i = 0; i < x->nev; i++) {
		const struct pmt_sched_event *e = &x->ev[i].e;
		fgrid_fill(x, &g, e->t_ns);
		if (on_event(x, st, e) < 0)
			return -1;
		last = e->t_ns;
		if (e->cpu >= x->ncpulast) {
			size_t old = x->ncpulast, n = (size_t)e->cpu + 1, cap = old;
			if (PM_GROW(x->cpulast, x->ncpulast, n) < 0 || PM_GROW(x->cpucur, cap, n) < 0)
				return -1;
			memset(x->cpulast + old, 0, (x->ncpulast - old) * sizeof(*x->cpulast));
		}
		x->cpulast[e->cpu] = e->t_ns;
		/* the task on the CPU after the event (0: the idle task) */
		x->cpucur[e->cpu] = e->kind == PMT_SCHED_SWITCH ? e->b : e->common_pid;
	}
	for (size_t i = 0; i < x->nthr; i++) {
		struct xthr *t = &x->thr[i];
		if (t->state == X_RUNNING &&
		    (work_until(x, t, last) < 0 || slice_add(x, t, PMA_SLICE_RUNNING, t->t_slice, last) < 0))
			return -1;
		if (seg_flush(x, t) < 0)
			return -1;
		hint_apply(x, t);
		if (t->cpu_ns > 0)
			st->threads++;
		st->work_ns += t->cpu_ns;
	}
	/* the grid's end: every thread accounted to the last event */
	for (; g < x->nfgrid; g++)
		x->fgrid[g] = x->fmax_ns;
	/* the profile: sweep the segment starts and ends along the infinite-core axis */
	if (x->nmarks)
		qsort(x->marks, x->nmarks / 2, 2 * sizeof(double), cmp_mark);
	{
		long active = 0;
		double prev = 0;
		for (size_t i = 0; i < x->nmarks; i += 2) {
			double t = x->marks[i];
			if (active > 0 && t > prev && pma_profile_add(prof, (double)active, t - prev) < 0)
				return -1;
			active += (long)x->marks[i + 1];
			if (active > (long)st->max_active)
				st->max_active = (uint32_t)active;
			prev = t;
		}
	}
	st->T_cp_ns = prof->T_cp_ns;
	st->A_inf = st->T_cp_ns > 0 ? st->work_ns / st->T_cp_ns : 0;
	return 0;
}

/* ---- a replay program built by hand (exact.h: pma_exact_prog_*) ---- */

/* Thread tid of x, added (not spawned, no steps) when new; NULL when memory runs out. */
static struct xthr *prog_thr(struct pma_exact *x, uint32_t tid)
{
	struct xthr *t = thr_find(x, tid);

	return t ? t : thr_add(x, tid);
}

int pma_exact_prog_work(struct pma_exact *x, uint32_t tid, double ns)
{
	struct xthr *t = prog_thr(x, tid);

	if (!t)
		return -1;
	if (!(ns > 0))
		return 0;
	t->cpu_ns += ns;
	return step_add(t, ST_WORK, 0, ns);
}

int pma_exact_prog_wake(struct pma_exact *x, uint32_t waker, uint32_t wakee)
{
	struct xthr *W, *X;

	/* both exist before either pointer is taken: thr_add may move the table */
	if (!prog_thr(x, waker) || !prog_thr(x, wakee))
		return -1;
	W = thr_find(x, waker);
	X = thr_find(x, wakee);
	if (W == X)
		return 0;
	if (step_add(W, ST_SIGNAL, x->nedges, 0) < 0 || step_add(X, ST_WAIT, x->nedges, 0) < 0)
		return -1;
	x->nedges++;
	return 0;
}

int pma_exact_prog_spawn(struct pma_exact *x, uint32_t parent, uint32_t child)
{
	struct xthr *C;

	if (parent == child || thr_find(x, child))
		return 0;
	if (!prog_thr(x, parent) || !(C = thr_add(x, child)))
		return -1;
	C->spawned = 1;
	return step_add(thr_find(x, parent), ST_SPAWN, (uint32_t)(C - x->thr), 0);
}

/* ---- replay ---- */

struct rthr {
	size_t pc;
	int started, done;
	int woken; /* on the work stack after a signal, not yet advanced */
};

struct heapent {
	double v;
	uint32_t i;
};

static void heap_push(struct heapent *h, size_t *n, struct heapent e)
{
	size_t i = (*n)++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (h[p].v <= e.v)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

/* Removes entry j of a heap (any position) and returns it. */
static struct heapent heap_remove(struct heapent *h, size_t *n, size_t j)
{
	struct heapent e = h[j], last = h[--(*n)];
	size_t i = j;

	if (j == *n)
		return e;
	while (i > 0 && h[(i - 1) / 2].v > last.v) { /* up */
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	for (;;) { /* down */
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].v < h[c].v)
			c++;
		if (last.v <= h[c].v)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
	return e;
}

static struct heapent heap_pop(struct heapent *h, size_t *n)
{
	return heap_remove(h, n, 0);
}

/* ---- CFS bandwidth control (pma_exact_replay_quota) ---- */

/* Below this much CPU time (ns) the pool counts as spent, and a period as ended: the clocks are
 * sums of doubles. */
#define BWC_EPS_NS 1e-3

/* The kernel's constants of the per-CPU slices (kernel/sched/fair.c): the runtime a CPU's run
 * queue keeps when it goes idle (min_cfs_rq_runtime, 1 ms), the delay after which returned
 * runtime goes to throttled run queues (cfs_bandwidth_slack_period, 5 ms), and how close to the
 * period's refill that is not done (min_bandwidth_expiration, 2 ms). */
#define BWC_MIN_RQ_RUNTIME_NS 1e6
#define BWC_SLACK_PERIOD_NS 5e6
#define BWC_MIN_EXPIRATION_NS 2e6

/* The quota's state during a replay: q NULL is no quota (every function leaves the clock alone).
 * The per-core fields are the per-core replay's (replay_percore); the shared one has one pool. */
struct bwc {
	const struct pma_quota *q;
	double pool_ns;   /* runtime left in this period */
	double end_ns;    /* the end of this period */
	double slice_ns;  /* what a core draws from the pool at a time */
	double tick_ns;   /* the tick a core's runtime is accounted at, 0: exactly */
	double slack_ns;  /* when the slack timer fires, INFINITY when it is not armed */
	uint32_t nthrottled;  /* cores throttled */
	uint64_t nthrottles;  /* throttles so far: a throttled core's rank (first throttled first) */
	struct pma_quota_stats st;
};

static void bwc_init(struct bwc *b, const struct pma_quota *q)
{
	memset(b, 0, sizeof(*b));
	b->q = q;
	b->slack_ns = INFINITY;
	if (q) {
		b->pool_ns = q->quota_ns;
		b->end_ns = q->period_ns;
		b->slice_ns = q->slice_ns > 0 ? q->slice_ns : PMA_QUOTA_SLICE_DEFAULT_NS;
		b->tick_ns = q->tick_ns;
		b->st.periods = 1;
	}
}

/* The period ends: unused quota carries over up to the burst (sched-bwc.rst; the kernel's
 * __refill_cfs_bandwidth_runtime: runtime = min(runtime + quota, quota + burst)). */
static void bwc_refill(struct bwc *b)
{
	double cap = b->q->quota_ns + b->q->burst_ns;

	b->pool_ns = b->pool_ns + b->q->quota_ns < cap ? b->pool_ns + b->q->quota_ns : cap;
	b->end_ns += b->q->period_ns;
	b->st.periods++;
}

/* At time t, with threads that want to run: when the pool is spent, every thread is held to the
 * period's end (one throttled period). Returns the time the replay goes on from. */
static double bwc_gate(struct bwc *b, double t)
{
	if (!b->q || b->pool_ns > BWC_EPS_NS)
		return t;
	b->st.throttled_periods++;
	b->st.throttled_ns += b->end_ns - t;
	t = b->end_ns;
	bwc_refill(b);
	return t;
}

/* How long busy cores may run from t before the pool is spent or the period ends (ns of real
 * time; INFINITY without a quota or with no core busy). */
static double bwc_room(const struct bwc *b, double t, uint32_t busy)
{
	double room;

	if (!b->q || busy == 0)
		return INFINITY;
	room = b->pool_ns / (double)busy;
	return b->end_ns - t < room ? b->end_ns - t : room;
}

/* The clock moved to t, busy cores having run for dt of it: they spent busy * dt of the pool;
 * the periods that ended on the way refill it. */
static void bwc_spend(struct bwc *b, double t, uint32_t busy, double dt)
{
	if (!b->q)
		return;
	b->pool_ns -= (double)busy * dt;
	while (t >= b->end_ns - BWC_EPS_NS)
		bwc_refill(b);
}

/* The uncharged replay: one pool of n cores shared by every ready thread. */
struct shreplay {
	const struct pma_exact *x;
	uint32_t n;
	struct pma_replay_wakes *wk;
	struct rthr *r;
	struct heapent *heap;     /* ready threads keyed by the shared service clock V */
	size_t nheap;
	uint32_t *work;           /* stack of threads to advance through their zero-time steps */
	size_t nwork, nwoken, done;
	uint8_t *signaled;
	int64_t *waiter;
	double V, t;
	double scale;             /* each WORK step's CPU time times this (1 + omega) */
	struct bwc bw;
};

/* Thread i signals edge e: a wakee blocked on it goes to the work stack. wk counts where it would
 * run: another core when one is idle (fewer than n threads hold a core: the waker, the ready
 * threads, the woken ones not yet advanced), else the waker's. */
static void shared_signal(struct shreplay *S, uint32_t e)
{
	int64_t w = S->waiter[e];

	S->signaled[e] = 1;
	if (w < 0)
		return;
	if (S->wk && S->n >= 2 && S->nheap + S->nwoken + 1 < S->n)
		S->wk->cross++;
	else if (S->wk)
		S->wk->same++;
	S->work[S->nwork++] = (uint32_t)w;
	S->r[w].woken = 1;
	S->nwoken++;
	S->waiter[e] = -1;
}

/* Advances thread i through its zero-time steps, to a WORK step (it joins the ready threads), an
 * unsignalled WAIT (it blocks) or its end. */
static void shared_step(struct shreplay *S, uint32_t i)
{
	const struct xthr *th = &S->x->thr[i];
	struct rthr *r = &S->r[i];

	if (r->woken) {
		r->woken = 0;
		S->nwoken--;
	}
	if (!r->started || r->done)
		return;
	for (;;) {
		const struct step *s;
		if (r->pc >= th->nsteps) {
			r->done = 1;
			S->done++;
			return;
		}
		s = &th->steps[r->pc];
		if (s->kind == ST_WORK) {
			heap_push(S->heap, &S->nheap, (struct heapent){ S->V + s->ns * S->scale, i });
			return;
		}
		if (s->kind == ST_WAIT && !S->signaled[s->arg]) {
			S->waiter[s->arg] = i;
			return;
		}
		r->pc++;
		if (s->kind == ST_SIGNAL) {
			shared_signal(S, s->arg);
		} else if (s->kind == ST_SPAWN && !S->r[s->arg].started) {
			S->r[s->arg].started = 1;
			S->work[S->nwork++] = s->arg;
		}
	}
}

/* The replay's clock, to the end of the first ready thread's step: processor sharing gives the k
 * ready threads min(1, n/k) of a core each, so the shared service clock V runs at that rate; the
 * threads whose step ends go on the work stack (pc moves on). */
static void shared_advance(struct shreplay *S)
{
	double rate = (double)S->nheap <= (double)S->n ? 1.0 : (double)S->n / (double)S->nheap;
	uint32_t busy = S->nheap < S->n ? (uint32_t)S->nheap : S->n;
	struct heapent top;
	double dt, room;

	/* under a quota the clock also stops where the pool runs out or the period ends */
	S->t = bwc_gate(&S->bw, S->t);
	dt = (S->heap[0].v - S->V) / rate;
	room = bwc_room(&S->bw, S->t, busy);
	if (room < dt) {
		S->V += room * rate;
		S->t += room;
		bwc_spend(&S->bw, S->t, busy, room);
		return;
	}
	top = heap_pop(S->heap, &S->nheap);
	S->t += dt;
	S->V = top.v;
	bwc_spend(&S->bw, S->t, busy, dt);
	S->r[top.i].pc++;
	S->work[S->nwork++] = top.i;
	while (S->nheap && S->heap[0].v <= S->V) {
		top = heap_pop(S->heap, &S->nheap);
		S->r[top.i].pc++;
		S->work[S->nwork++] = top.i;
	}
}

/* pma_exact_replay (exact.h), wk as pma_exact_replay_charged's with c NULL. */
static int replay_shared(const struct pma_exact *x, uint32_t n, const struct pma_quota *q,
			 double scale, double *T_ns, struct pma_replay_wakes *wk,
			 struct pma_quota_stats *qs)
{
	struct shreplay S = { .x = x, .n = n, .wk = wk, .scale = scale };
	size_t started = 0;
	int rc = -1;

	bwc_init(&S.bw, q);

	S.r = calloc(x->nthr, sizeof(*S.r));
	S.heap = malloc(x->nthr * sizeof(*S.heap));
	/* a thread is on the stack at most once: it is pushed only when it leaves the heap, when its
	 * wait is signalled (it is then not in the heap) or when it is spawned (before it ever ran) */
	S.work = malloc(x->nthr * sizeof(*S.work));
	S.signaled = calloc(x->nedges ? x->nedges : 1, 1);
	S.waiter = malloc((x->nedges ? x->nedges : 1) * sizeof(*S.waiter));
	if (!S.r || !S.heap || !S.work || !S.signaled || !S.waiter)
		goto out;
	for (uint32_t e = 0; e < x->nedges; e++)
		S.waiter[e] = -1;
	for (size_t i = 0; i < x->nthr; i++)
		if (!x->thr[i].spawned) {
			S.r[i].started = 1;
			S.work[S.nwork++] = (uint32_t)i;
		}
	for (;;) {
		while (S.nwork)
			shared_step(&S, S.work[--S.nwork]);
		if (!S.nheap)
			break;
		shared_advance(&S);
	}
	for (size_t i = 0; i < x->nthr; i++)
		started += S.r[i].started;
	/* every started thread must have run to its end: otherwise a wait was never signalled */
	rc = S.done == started ? 0 : -1;
	*T_ns = S.t;
	if (qs)
		*qs = S.bw.st;
out:
	free(S.r);
	free(S.heap);
	free(S.work);
	free(S.signaled);
	free(S.waiter);
	return rc;
}

int pma_exact_replay(const struct pma_exact *x, uint32_t n, double *T_ns)
{
	return pma_exact_replay_charged(x, n, NULL, T_ns, NULL);
}

/* ---- the charged replay: per-core run queues ---- */

/* Idle balancing pulls a ready thread to an idle core only when it has at least this much of its
 * current step left (ns of its own CPU time): Linux's sysctl_sched_migration_cost (0.5 ms), below
 * which it skips newidle balancing and treats a task as cache hot. A thread that waits a few tens
 * of microseconds for its share of a 0.1 ms region is not migrated; a long phase is balanced. */
#define PMA_MIGRATION_COST_NS 500000.0

/* One core of the charged replay: its own ready threads share it (processor sharing within the
 * core, Tudor & Teo eq. 6's discipline applied per core), keyed by the core's service clock V. */
struct pcore {
	struct heapent *heap;
	size_t nheap, cap;
	double V;            /* service clock: each of its nheap threads has run V since V = 0 */
	uint32_t nassigned;  /* threads holding it: ready, advancing, or on their way to it */
	uint32_t reserved;   /* cross-core wakes on their way: it serves nobody until they arrive */
	double rt_ns;        /* under a quota: its run queue's runtime left (the kernel's
				cfs_rq->runtime_remaining), ns */
	uint64_t throttled;  /* under a quota: 0, or throttled (its rank: bwc.nthrottles then) */
	int accounted;       /* under a quota with a tick: an event of its own or a tick since the
				last pc_bw_settle: its runtime is looked at */
};

struct pcthr {
	size_t pc;
	int started, done;
	int reserving;       /* on its way to an idle core that waits for it */
	int64_t core;        /* the core it holds, -1 none (blocked, not started, done) */
	double served_ns;    /* CPU time of its finished steps (periodic balancing's pick) */
};

/* A group wake of the recording taken as a barrier (pc_groups): the waker's signals, at most
 * PMA_GROUP_GAP_NS of its CPU time apart, to two or more threads that wait for them. */
struct pcgroup {
	uint32_t parts;      /* participants: the waker and the wakees that wait for its edges */
	uint32_t arrived;    /* participants that reached the barrier in the replay */
	int waker_in;        /* the waker reached its first signal of the group */
	uint32_t waker;
	size_t first;        /* its edges: gedge[first .. first + nedges) */
	uint32_t nedges;
	size_t boff;         /* the participants blocked in it: gblocked[boff .. boff + nblocked) */
	uint32_t nblocked;
};

struct pcreplay {
	const struct pma_exact *x;
	uint32_t n;
	const struct pma_wake_charge *c;
	struct pma_replay_wakes *wk;
	struct pcore *core;
	struct pcthr *r;
	struct heapent *delayed;  /* threads on their way, keyed by real arrival time */
	size_t ndelayed;
	uint32_t *work;           /* stack of threads to advance through their zero-time steps */
	size_t nwork;
	uint8_t *signaled;
	int64_t *waiter;
	size_t done;
	double t;
	struct pcgroup *grp;      /* barriers (pc_groups) */
	uint32_t ngrp;
	int64_t *egroup;          /* per edge: its barrier, -1 none */
	uint32_t *gedge;          /* the barriers' edges */
	uint32_t *gblocked;       /* per barrier, from its first: the participants blocked in it */
	double scale;             /* each WORK step's CPU time times this (1 + omega) */
	struct bwc bw;
};

/* Where a woken or spawned thread goes (waker_core -1: none, a thread started at time 0): the
 * first idle core (nobody holds it; the waker always holds its own), *cross = 1; else the least
 * loaded core, the waker's on a tie, *cross = 0. */
static uint32_t pc_place(const struct pcreplay *R, int64_t waker_core, int *cross)
{
	uint32_t best = waker_core >= 0 ? (uint32_t)waker_core : 0;

	for (uint32_t k = 0; k < R->n; k++)
		if (R->core[k].nassigned == 0) {
			*cross = 1;
			return k;
		}
	*cross = 0;
	for (uint32_t k = 0; k < R->n; k++)
		if (R->core[k].nassigned < R->core[best].nassigned)
			best = k;
	return best;
}

/* Thread i becomes ready: placed by pc_place, ready after the charge of its placement (none for
 * a thread started at time 0). A cross-core wake with a charge reserves its idle core. */
static void pc_wake(struct pcreplay *R, uint32_t i, int64_t waker_core, int spawn)
{
	int cross;
	uint32_t k = pc_place(R, waker_core, &cross);
	double cost = waker_core < 0 ? 0 : cross ? R->c->cross_ns : R->c->same_ns;

	R->core[k].nassigned++;
	R->r[i].core = k;
	if (R->wk && !spawn && waker_core >= 0) {
		R->wk->cross += (uint64_t)cross;
		R->wk->same += (uint64_t)!cross;
	}
	if (!(cost > 0)) {
		R->core[k].accounted = 1; /* enqueued on it */
		R->work[R->nwork++] = i;
		return;
	}
	R->r[i].reserving = cross;
	R->core[k].reserved += (uint32_t)cross;
	heap_push(R->delayed, &R->ndelayed, (struct heapent){ R->t + cost, i });
}

/* Thread i gives up its core (it blocks or ends). */
static void pc_release(struct pcreplay *R, uint32_t i)
{
	R->core[R->r[i].core].accounted = 1; /* dequeued from it */
	R->core[R->r[i].core].nassigned--;
	R->r[i].core = -1;
}

/* Participant i (holding a core) reaches barrier g. The last to arrive releases it: every edge
 * of the group is signalled and the participants blocked in it are woken from its core, in the
 * order they arrived (a futex wake-all), and it goes on (returns 1); the others block (0). */
static int pc_arrive(struct pcreplay *R, uint32_t g, uint32_t i)
{
	struct pcgroup *G = &R->grp[g];
	int64_t core = R->r[i].core;

	if (++G->arrived < G->parts) {
		R->gblocked[G->boff + G->nblocked++] = i;
		pc_release(R, i);
		return 0;
	}
	if (R->wk)
		R->wk->reordered += i != G->waker;
	for (size_t q = G->first; q < G->first + G->nedges; q++) {
		R->signaled[R->gedge[q]] = 1;
		R->waiter[R->gedge[q]] = -1;
	}
	for (uint32_t q = 0; q < G->nblocked; q++) {
		uint32_t w = R->gblocked[G->boff + q];
		if (w != G->waker)
			R->r[w].pc++; /* past its WAIT; the waker resumes at its signal, now a no-op */
		pc_wake(R, w, core, 0);
	}
	return 1;
}

static int pc_push(struct pcore *k, uint32_t i, double ns)
{
	if (PM_GROW(k->heap, k->cap, k->nheap + 1) < 0)
		return -1;
	heap_push(k->heap, &k->nheap, (struct heapent){ k->V + ns, i });
	return 0;
}

/* Advances thread i (holding a core) through its zero-time steps, to a WORK step (queued on its
 * core), an unsignalled WAIT (it blocks and gives up its core) or its end. A SIGNAL to a thread
 * blocked on it wakes that thread past its WAIT; a SPAWN starts a thread. Returns 0, or -1 when
 * memory runs out. */
static int pc_step(struct pcreplay *R, uint32_t i)
{
	const struct xthr *th = &R->x->thr[i];
	struct pcthr *r = &R->r[i];

	for (;;) {
		const struct step *s;
		int64_t g; /* the barrier of the step's edge, -1 none */
		if (r->pc >= th->nsteps) {
			r->done = 1;
			R->done++;
			pc_release(R, i);
			return 0;
		}
		s = &th->steps[r->pc];
		if (s->kind == ST_WORK)
			return pc_push(&R->core[r->core], i, s->ns * R->scale);
		g = s->kind == ST_SPAWN ? -1 : R->egroup[s->arg]; /* a spawn's arg is a thread */
		if (s->kind == ST_WAIT && !R->signaled[s->arg] && g >= 0) {
			if (!pc_arrive(R, (uint32_t)g, i))
				return 0;
			r->pc++; /* the last to arrive: past its WAIT */
			continue;
		}
		if (s->kind == ST_WAIT && !R->signaled[s->arg]) {
			R->waiter[s->arg] = i;
			pc_release(R, i);
			return 0;
		}
		if (s->kind == ST_SIGNAL && g >= 0 && !R->grp[g].waker_in) {
			R->grp[g].waker_in = 1;
			if (!pc_arrive(R, (uint32_t)g, i))
				return 0; /* it signals when the last one arrives */
		}
		r->pc++;
		if (s->kind == ST_SIGNAL) {
			int64_t w = R->waiter[s->arg];
			R->signaled[s->arg] = 1;
			if (w >= 0) {
				R->waiter[s->arg] = -1;
				R->r[w].pc++; /* past its WAIT */
				pc_wake(R, (uint32_t)w, r->core, 0);
			}
		} else if (s->kind == ST_SPAWN && !R->r[s->arg].started) {
			R->r[s->arg].started = 1;
			pc_wake(R, s->arg, r->core, 1);
		}
	}
}

/* Idle balancing (Linux's newidle balance): each idle core pulls, from the unthrottled core with
 * the most ready threads (two at least: a thread running alone stays), the one with the most of
 * its step left, if that is PMA_MIGRATION_COST_NS or more. No charge: a migration is no wake-up.
 * A throttled core keeps its threads (the kernel's load balancing leaves a throttled hierarchy's
 * tasks alone: throttled_lb_pair). */
static int pc_balance(struct pcreplay *R)
{
	for (uint32_t k = 0; k < R->n; k++) {
		struct pcore *busy = NULL;
		size_t j = 0;
		double left = 0;
		if (R->core[k].nassigned)
			continue;
		for (uint32_t b = 0; b < R->n; b++)
			if (R->core[b].nheap >= 2 && !R->core[b].throttled &&
			    (!busy || R->core[b].nheap > busy->nheap))
				busy = &R->core[b];
		if (!busy)
			return 0;
		for (size_t q = 0; q < busy->nheap; q++)
			if (busy->heap[q].v - busy->V > left) {
				left = busy->heap[q].v - busy->V;
				j = q;
			}
		if (left < PMA_MIGRATION_COST_NS)
			continue;
		uint32_t i = heap_remove(busy->heap, &busy->nheap, j).i;
		busy->nassigned--;
		busy->accounted = 1;
		R->core[k].accounted = 1;
		R->core[k].nassigned++;
		R->r[i].core = k;
		if (pc_push(&R->core[k], i, left) < 0)
			return -1;
	}
	return 0;
}

/* Periodic load balancing (Linux's load_balance from the scheduler tick, kernel/sched/fair.c):
 * a busy CPU balances its lowest domain every balance_interval x busy_factor, the interval
 * starting at the domain's weight in ms (sd_init: n ms for n CPUs, busy_factor 16) and capped at
 * max_load_balance_interval (HZ / 10: 100 ms). One domain of n cores is taken: every
 * min(16 n ms, 100 ms). */
static double pc_lb_interval_ns(uint32_t n)
{
	return fmin(16e6 * (double)n, 100e6);
}

/* Whether periodic balancing would move a thread: an unthrottled core with two ready threads or
 * more (one running, one to take) holds more threads than another unthrottled core with no wake
 * on its way. Linux moves a task then even when the counts would only swap (2 against 1: after
 * one failed attempt, detach_tasks' shr_bound(load, nr_balance_failed) lets a task of load 1024
 * go for an imbalance of 512), so over time the threads share the cores evenly, as in one
 * shared pool. *from, *to: the busiest and the least loaded core. */
static int pc_lb_wanted(const struct pcreplay *R, uint32_t *from, uint32_t *to)
{
	int64_t a = -1, b = -1;

	for (uint32_t k = 0; k < R->n; k++) {
		const struct pcore *q = &R->core[k];
		if (q->throttled || q->reserved)
			continue;
		if (q->nheap >= 2 && (a < 0 || q->nassigned > R->core[a].nassigned))
			a = k;
		if (b < 0 || q->nassigned < R->core[b].nassigned)
			b = k;
	}
	if (a < 0 || b < 0 || a == b || R->core[a].nassigned <= R->core[b].nassigned)
		return 0;
	*from = (uint32_t)a;
	*to = (uint32_t)b;
	return 1;
}

/* At a periodic balance (pc_lb_interval_ns): the busiest core's ready thread with the least CPU
 * time so far (finished steps plus its current step's part done; ties: the most of its step
 * left) moves to the least loaded core (pc_lb_wanted), if it has PMA_MIGRATION_COST_NS or more
 * of its step left. Returns 0, or -1 when memory runs out. */
static int pc_lb_periodic(struct pcreplay *R)
{
	uint32_t a, b, i;
	struct pcore *from;
	size_t j = 0;
	double best = INFINITY, left = 0;

	if (!pc_lb_wanted(R, &a, &b))
		return 0;
	from = &R->core[a];
	for (size_t q = 0; q < from->nheap; q++) {
		const struct pcthr *r = &R->r[from->heap[q].i];
		double l = from->heap[q].v - from->V;
		double served = r->served_ns +
				R->x->thr[from->heap[q].i].steps[r->pc].ns * R->scale - l;
		if (served < best - BWC_EPS_NS || (served < best + BWC_EPS_NS && l > left)) {
			best = served;
			left = l;
			j = q;
		}
	}
	if (left < PMA_MIGRATION_COST_NS)
		return 0;
	i = heap_remove(from->heap, &from->nheap, j).i;
	from->nassigned--;
	from->accounted = 1;
	R->core[b].accounted = 1;
	R->core[b].nassigned++;
	R->r[i].core = b;
	return pc_push(&R->core[b], i, left);
}

/* The wakes on their way that have arrived by R->t: their threads hold their cores (to the work
 * stack). */
static void pc_arrivals(struct pcreplay *R)
{
	while (R->ndelayed && R->delayed[0].v <= R->t) {
		uint32_t i = heap_pop(R->delayed, &R->ndelayed).i;
		R->core[R->r[i].core].reserved -= (uint32_t)R->r[i].reserving;
		R->r[i].reserving = 0;
		R->core[R->r[i].core].accounted = 1;
		R->work[R->nwork++] = i;
	}
}

/* ---- the per-core replay under a quota: per-CPU slices of the pool ---- */

/* Whether core q runs its ready threads: it has some, no wake on its way to it, and is not
 * throttled. */
static int pc_serving(const struct pcore *q)
{
	return q->nheap && !q->reserved && !q->throttled;
}

/* Core q wants to run with its runtime spent (or in debt): it draws a slice from the pool plus
 * its debt, or what is left (the kernel's assign_cfs_rq_runtime: the slice less what it still
 * has, at most the pool), and if that leaves it nothing it is throttled (throttle_cfs_rq). */
static void pc_bw_draw(struct pcreplay *R, struct pcore *q)
{
	struct bwc *b = &R->bw;
	double want = b->slice_ns - q->rt_ns, take = b->pool_ns < want ? b->pool_ns : want;

	if (take > 0) {
		b->pool_ns -= take;
		q->rt_ns += take;
	}
	if (q->rt_ns > BWC_EPS_NS)
		return;
	b->nthrottled++;
	q->throttled = ++b->nthrottles;
}

/* The pool pays the throttled cores' debts, the longest throttled first, and each paid is
 * unthrottled, until the pool is spent (the kernel's distribute_cfs_runtime gives each its
 * deficit plus 1 ns). Each draws a slice when it is next accounted: at once without a tick (in
 * that order), else at its next event or tick (pc_bw_settle), running into a new debt until
 * then. */
static void pc_bw_distribute(struct pcreplay *R)
{
	struct bwc *b = &R->bw;

	while (b->nthrottled && b->pool_ns > BWC_EPS_NS) {
		struct pcore *first = NULL;
		double want;
		for (uint32_t k = 0; k < R->n; k++)
			if (R->core[k].throttled && (!first || R->core[k].throttled < first->throttled))
				first = &R->core[k];
		want = 1.0 - first->rt_ns; /* its deficit plus 1 ns */
		if (want >= b->pool_ns) {
			first->rt_ns += b->pool_ns; /* its debt outlasts the pool: still throttled */
			b->pool_ns = 0;
			return;
		}
		b->pool_ns -= want;
		first->rt_ns = 1.0;
		first->throttled = 0;
		b->nthrottled--;
		if (!b->tick_ns)
			pc_bw_draw(R, first);
	}
}

/* Core q's run queue has no ready thread left: it returns its runtime beyond min_cfs_rq_runtime
 * to the pool; when the pool then holds more than a slice while a core is throttled, the slack
 * timer is armed for cfs_bandwidth_slack_period later, unless the period ends within that plus
 * min_bandwidth_expiration or it is armed already (the kernel's __return_cfs_rq_runtime and
 * start_cfs_slack_bandwidth). */
static void pc_bw_idle(struct pcreplay *R, struct pcore *q)
{
	struct bwc *b = &R->bw;
	double slack = q->rt_ns - BWC_MIN_RQ_RUNTIME_NS;

	if (!(slack > 0))
		return;
	b->pool_ns += slack;
	q->rt_ns -= slack;
	if (b->pool_ns > b->slice_ns && b->nthrottled && b->slack_ns == INFINITY &&
	    b->end_ns - R->t >= BWC_SLACK_PERIOD_NS + BWC_MIN_EXPIRATION_NS)
		b->slack_ns = R->t + BWC_SLACK_PERIOD_NS;
}

/* The bandwidth timers due at R->t: the slack timer hands the pool to the throttled cores if it
 * holds more than a slice and the period does not end within min_bandwidth_expiration
 * (do_sched_cfs_slack_timer); the period's end counts a throttled period if a core is throttled
 * (do_sched_cfs_period_timer's nr_throttled), refills the pool (bwc_refill) and hands it to the
 * throttled cores. */
static void pc_bw_timers(struct pcreplay *R)
{
	struct bwc *b = &R->bw;

	if (R->t >= b->slack_ns - BWC_EPS_NS) {
		b->slack_ns = INFINITY;
		if (b->end_ns - R->t >= BWC_MIN_EXPIRATION_NS && b->pool_ns > b->slice_ns)
			pc_bw_distribute(R);
	}
	if (R->t >= b->end_ns - BWC_EPS_NS) {
		b->st.throttled_periods += b->nthrottled > 0;
		bwc_refill(b);
		pc_bw_distribute(R);
	}
}

/* Before the clock moves, in the order of the cores: each unthrottled core with its runtime spent
 * draws (pc_bw_draw; it may be throttled) if it is accounted now: a core that runs threads at
 * once without a tick, any core at an event of its own or a tick (update_curr draws at a dequeue
 * too, so a core that went idle in debt draws); then each unthrottled core with no ready thread
 * returns its runtime beyond min_cfs_rq_runtime (pc_bw_idle), keeping 1 ms for its next
 * wakee. */
static void pc_bw_settle(struct pcreplay *R)
{
	for (uint32_t k = 0; k < R->n; k++) {
		struct pcore *q = &R->core[k];
		if (q->rt_ns <= BWC_EPS_NS && !q->throttled &&
		    (pc_serving(q) ? !R->bw.tick_ns || q->accounted : q->accounted))
			pc_bw_draw(R, q);
		if (!q->nheap && !q->throttled)
			pc_bw_idle(R, q);
		q->accounted = 0;
	}
}

/* Whether a throttled core holds a thread (ready, or on its way to it): the replay goes on to
 * the refill that unthrottles it. A throttled core with none (it went idle in debt) holds up
 * nothing. */
static int pc_throttled_work(const struct pcreplay *R)
{
	for (uint32_t k = 0; R->bw.nthrottled && k < R->n; k++)
		if (R->core[k].throttled && (R->core[k].nheap || R->core[k].reserved))
			return 1;
	return 0;
}

/* How often a core that runs two threads or more switches between them, ns: EEVDF's base slice
 * (sysctl_sched_base_slice: 0.75 ms x (1 + ilog2(min(n, 8))), SCHED_TUNABLESCALING_LOG,
 * kernel/sched/fair.c). Each switch accounts the core's runtime (update_curr), so such a core
 * finds its runtime spent within a slice, not only at the tick. */
static double pc_switch_ns(uint32_t n)
{
	uint32_t c = n < 8 ? n : 8, lg = 0;

	while (c >>= 1)
		lg++;
	return 0.75e6 * (1 + lg);
}

/* Whether a core of R serves two threads or more (they switch: pc_switch_ns). */
static int pc_any_switching(const struct pcreplay *R)
{
	for (uint32_t k = 0; k < R->n; k++)
		if (pc_serving(&R->core[k]) && R->core[k].nheap >= 2)
			return 1;
	return 0;
}

/* The next time under a quota at which something may change besides the steps and arrivals:
 * the slack timer, the period's end, and a serving core's runtime running out (without a tick)
 * or the next tick or switch between two threads of a core (with a tick). */
static double pc_bw_next(const struct pcreplay *R)
{
	const struct bwc *b = &R->bw;
	double tb = b->end_ns < b->slack_ns ? b->end_ns : b->slack_ns;

	if (b->tick_ns > 0) {
		double tick = (floor((R->t + BWC_EPS_NS) / b->tick_ns) + 1) * b->tick_ns;
		if (pc_any_switching(R)) {
			double sw = pc_switch_ns(R->n);
			double ts = (floor((R->t + BWC_EPS_NS) / sw) + 1) * sw;
			tick = ts < tick ? ts : tick;
		}
		return tick < tb ? tick : tb;
	}
	for (uint32_t k = 0; k < R->n; k++)
		if (pc_serving(&R->core[k]) && R->t + R->core[k].rt_ns < tb)
			tb = R->t + R->core[k].rt_ns;
	return tb;
}

/* The clock to the next event: each serving core (pc_serving) runs its k ready threads at 1/k
 * each; the next event is an arrival (the thread holds its core: to the work stack), the end of
 * a step (pc moves on, to the work stack), or under a quota a serving core's runtime running out,
 * the slack timer or the period's end (pc_bw_timers), or a periodic balance (pc_lb_periodic).
 * Returns 1, 0 when nothing is ready, throttled or on its way (the replay is over), or -1 when
 * memory runs out. */
static int pc_advance(struct pcreplay *R)
{
	struct bwc *b = &R->bw;
	double t_next = R->ndelayed ? R->delayed[0].v : INFINITY, dt;
	double lb_ns = pc_lb_interval_ns(R->n);
	int64_t first = -1;
	uint32_t lb_from, lb_to;
	int held; /* a throttled core holds threads (pc_throttled_work) */

	if (b->q)
		pc_bw_settle(R);
	for (uint32_t k = 0; k < R->n; k++) {
		const struct pcore *q = &R->core[k];
		double tk = R->t + (q->nheap ? q->heap[0].v - q->V : 0) * (double)q->nheap;
		if (pc_serving(q) && tk < t_next) {
			t_next = tk;
			first = k;
		}
	}
	held = pc_throttled_work(R);
	if (t_next == INFINITY && !held)
		return 0;
	if (pc_lb_wanted(R, &lb_from, &lb_to)) {
		double tl = (floor((R->t + BWC_EPS_NS) / lb_ns) + 1) * lb_ns;
		if (tl < t_next) {
			t_next = tl;
			first = -1;
		}
	}
	if (b->q) {
		double tb = pc_bw_next(R);
		if (tb < t_next) {
			t_next = tb;
			first = -1;
		}
	}
	dt = t_next - R->t;
	if (held)
		b->st.throttled_ns += dt; /* cpu.stat's throttled time: a throttled core with threads */
	for (uint32_t k = 0; k < R->n; k++) {
		struct pcore *q = &R->core[k];
		if (!pc_serving(q))
			continue;
		q->V = k == first ? q->heap[0].v : q->V + dt / (double)q->nheap;
		q->rt_ns -= dt;
		while (q->nheap && q->heap[0].v <= q->V) {
			uint32_t i = heap_pop(q->heap, &q->nheap).i;
			R->r[i].served_ns += R->x->thr[i].steps[R->r[i].pc].ns * R->scale;
			R->r[i].pc++;
			R->work[R->nwork++] = i;
		}
	}
	R->t = t_next;
	if (fabs(R->t - round(R->t / lb_ns) * lb_ns) < BWC_EPS_NS && pc_lb_periodic(R) < 0)
		return -1;
	if (b->tick_ns > 0 && fabs(R->t - round(R->t / b->tick_ns) * b->tick_ns) < BWC_EPS_NS)
		for (uint32_t k = 0; k < R->n; k++)
			R->core[k].accounted = 1; /* a tick */
	if (b->tick_ns > 0 && b->q) {
		double sw = pc_switch_ns(R->n);
		if (fabs(R->t - round(R->t / sw) * sw) < BWC_EPS_NS)
			for (uint32_t k = 0; k < R->n; k++)
				if (R->core[k].nheap >= 2)
					R->core[k].accounted = 1; /* a switch */
	}
	if (b->q)
		pc_bw_timers(R);
	pc_arrivals(R);
	return 1;
}

/* The longest a waker runs between two signals of one group wake, ns of its CPU time: a futex
 * wake-all wakes its waiters one after the other in one system call (1-2 us apart as traced on
 * the 2-vCPU VM, tracing included); a thread that signals again after more work than this is
 * signalling something else. */
#define PMA_GROUP_GAP_NS 10000.0

/* Whether the waker of edges a and b (signalled in that order, steps apart by at most
 * PMA_GROUP_GAP_NS of work) ran without a break between them: in a recording, real time and its
 * CPU time advanced alike (1 us of slack for the clocks' rounding); a thread switched out in
 * between (preempted, or blocked and woken) signalled twice. A program built by hand
 * (pma_exact_prog_*) has no times: its consecutive signals are one group. */
static int pc_unbroken(const struct pma_exact *x, uint32_t a, uint32_t b)
{
	if (x->nwakes != x->nedges)
		return 1;
	return (double)(x->wakes[b].t_ns - x->wakes[a].t_ns) -
	       (x->wakes[b].waker_cpu_ns - x->wakes[a].waker_cpu_ns) <= 1000.0;
}

/* Finds the recording's barriers: a run of one thread's SIGNAL steps, at most PMA_GROUP_GAP_NS of
 * its CPU time apart, run without a break (pc_unbroken), to two or more distinct threads that
 * wait for them (threads blocked when it came: a barrier's last arrival, or a broadcast, waking
 * the others). The replay keeps each as a barrier of the waker and those wakees: on 1 CPU the
 * waker was the last to arrive, on n cores any of them may be, and the last one releases the
 * others (pc_arrive). barriers 0: none (every edge on its own). Sets R's grp, ngrp, egroup, gedge
 * and gblocked; returns 0, or -1 when memory runs out. */
static int pc_groups(struct pcreplay *R, int barriers)
{
	const struct pma_exact *x = R->x;
	size_t ne = x->nedges ? x->nedges : 1, nge = 0, nb = 0, gcap = 0;
	int64_t *ewaiter = malloc(ne * sizeof(*ewaiter));

	R->egroup = malloc(ne * sizeof(*R->egroup));
	R->gedge = malloc(ne * sizeof(*R->gedge)); /* an edge is in one group at most */
	if (!ewaiter || !R->egroup || !R->gedge)
		goto fail;
	for (uint32_t e = 0; e < x->nedges; e++)
		R->egroup[e] = ewaiter[e] = -1;
	for (size_t i = 0; i < x->nthr; i++)
		for (size_t j = 0; j < x->thr[i].nsteps; j++)
			if (x->thr[i].steps[j].kind == ST_WAIT)
				ewaiter[x->thr[i].steps[j].arg] = (int64_t)i;
	for (size_t i = 0; barriers && i < x->nthr; i++) {
		const struct step *st = x->thr[i].steps;
		size_t ns = x->thr[i].nsteps, j = 0;
		while (j < ns) {
			size_t first = nge;
			int64_t last = -1; /* the run's previous signal */
			if (st[j].kind != ST_SIGNAL) {
				j++;
				continue;
			}
			for (; j < ns; j++) {
				if (st[j].kind == ST_SIGNAL) {
					uint32_t e = st[j].arg;
					int dup = 0;
					if (last >= 0 && !pc_unbroken(x, (uint32_t)last, e))
						break;
					for (size_t q = first; q < nge && ewaiter[e] >= 0; q++)
						dup |= ewaiter[R->gedge[q]] == ewaiter[e];
					if (dup)
						break; /* a thread woken twice: two groups */
					if (ewaiter[e] >= 0)
						R->gedge[nge++] = e;
					last = e;
				} else if (!(st[j].kind == ST_WORK && st[j].ns <= PMA_GROUP_GAP_NS &&
					     j + 1 < ns && st[j + 1].kind == ST_SIGNAL)) {
					break;
				}
			}
			if (nge - first < 2) {
				nge = first;
				continue;
			}
			if (PM_GROW(R->grp, gcap, (size_t)R->ngrp + 1) < 0)
				goto fail;
			R->grp[R->ngrp] = (struct pcgroup){ .parts = (uint32_t)(nge - first) + 1,
							   .waker = (uint32_t)i, .first = first,
							   .nedges = (uint32_t)(nge - first), .boff = nb };
			nb += nge - first + 1;
			for (size_t q = first; q < nge; q++)
				R->egroup[R->gedge[q]] = R->ngrp;
			R->ngrp++;
		}
	}
	free(ewaiter);
	R->gblocked = malloc((nb ? nb : 1) * sizeof(*R->gblocked));
	return R->gblocked ? 0 : -1;
fail:
	free(ewaiter);
	return -1;
}

static void pc_free(struct pcreplay *R)
{
	free(R->grp);
	free(R->egroup);
	free(R->gedge);
	free(R->gblocked);
	for (uint32_t k = 0; R->core && k < R->n; k++)
		free(R->core[k].heap);
	free(R->core);
	free(R->r);
	free(R->delayed);
	free(R->work);
	free(R->signaled);
	free(R->waiter);
}

/* pma_exact_replay_charged with c != NULL (exact.h): per-core run queues instead of one shared
 * pool. Processor sharing over all n cores (Tudor & Teo eq. 6, pma_exact_replay) lets the other
 * ready threads borrow a core whose wakee is late, which spreads a cross-core wake's delay over
 * every core; Linux keeps a woken thread on the core it was woken to, so a late core's delay
 * stays on it (docs/model.md "Wake-up costs in the replay"). */
static int replay_percore(const struct pma_exact *x, uint32_t n, const struct pma_wake_charge *c,
			  const struct pma_quota *q, double scale, double *T_ns,
			  struct pma_replay_wakes *wk, struct pma_quota_stats *qs, int barriers)
{
	struct pcreplay R = { .x = x, .n = n, .c = c, .wk = wk, .scale = scale };
	size_t started = 0;
	int rc = -1, more;

	bwc_init(&R.bw, q);

	R.core = calloc(n, sizeof(*R.core));
	R.r = calloc(x->nthr, sizeof(*R.r));
	R.delayed = malloc(x->nthr * sizeof(*R.delayed));
	R.work = malloc(x->nthr * sizeof(*R.work)); /* a thread is on it at most once */
	R.signaled = calloc(x->nedges ? x->nedges : 1, 1);
	R.waiter = malloc((x->nedges ? x->nedges : 1) * sizeof(*R.waiter));
	if (!R.core || !R.r || !R.delayed || !R.work || !R.signaled || !R.waiter ||
	    pc_groups(&R, barriers) < 0)
		goto out;
	if (wk)
		wk->barriers = R.ngrp;
	for (uint32_t e = 0; e < x->nedges; e++)
		R.waiter[e] = -1;
	for (size_t i = 0; i < x->nthr; i++) {
		R.r[i].core = -1;
		if (!x->thr[i].spawned) {
			R.r[i].started = 1;
			pc_wake(&R, (uint32_t)i, -1, 1);
		}
	}
	do {
		while (R.nwork)
			if (pc_step(&R, R.work[--R.nwork]) < 0)
				goto out;
		if (pc_balance(&R) < 0)
			goto out;
	} while ((more = pc_advance(&R)) > 0);
	if (more < 0)
		goto out;
	for (size_t i = 0; i < x->nthr; i++)
		started += R.r[i].started;
	/* every started thread must have run to its end: otherwise a wait was never signalled */
	rc = R.done == started ? 0 : -2;
	*T_ns = R.t;
	if (qs)
		*qs = R.bw.st;
out:
	pc_free(&R);
	return rc;
}

int pma_exact_replay_charged(const struct pma_exact *x, uint32_t n, const struct pma_wake_charge *c,
			     double *T_ns, struct pma_replay_wakes *wk)
{
	return pma_exact_replay_quota(x, n, c, NULL, T_ns, wk, NULL);
}

int pma_exact_replay_quota(const struct pma_exact *x, uint32_t n, const struct pma_wake_charge *c,
			   const struct pma_quota *q, double *T_ns, struct pma_replay_wakes *wk,
			   struct pma_quota_stats *qs)
{
	return pma_exact_replay_scaled(x, n, c, q, 0, T_ns, wk, qs);
}

int pma_exact_replay_scaled(const struct pma_exact *x, uint32_t n, const struct pma_wake_charge *c,
			    const struct pma_quota *q, double omega, double *T_ns,
			    struct pma_replay_wakes *wk, struct pma_quota_stats *qs)
{
	int rc;

	*T_ns = 0;
	if (wk)
		memset(wk, 0, sizeof(*wk));
	if (qs) {
		memset(qs, 0, sizeof(*qs));
		qs->periods = q ? 1 : 0;
	}
	if (n == 0 || !(omega > -1) || !isfinite(omega) ||
	    (q && (!(q->period_ns > 0) || !(q->quota_ns > 0) || q->burst_ns < 0 ||
		   q->slice_ns < 0 || q->tick_ns < 0)))
		return -1;
	if (x->nthr == 0)
		return 0;
	if (!c)
		return replay_shared(x, n, q, 1 + omega, T_ns, wk, qs);
	rc = replay_percore(x, n, c, q, 1 + omega, T_ns, wk, qs, 1);
	if (rc == -2) {
		/* a barrier left a wait unresolved: the recorded order was no schedule (a damaged
		 * trace; a consistent one cannot, as every participant arrived before the recorded
		 * release): the recorded edges alone */
		if (wk)
			memset(wk, 0, sizeof(*wk));
		rc = replay_percore(x, n, c, q, 1 + omega, T_ns, wk, qs, 0);
		if (wk)
			wk->barriers_dropped = 1;
	}
	return rc < 0 ? -1 : 0;
}

const struct pma_slice *pma_exact_slices(const struct pma_exact *x, size_t *n)
{
	*n = x->nslices;
	return x->slices;
}

double pma_exact_cp_at(const struct pma_exact *x, double t_ns)
{
	double u, k;
	size_t i;

	if (!x->fgrid || x->nfgrid < 2)
		return NAN;
	if (!(x->fgrid_dt_ns > 0) || t_ns <= x->fgrid_t0_ns)
		return t_ns < x->fgrid_t0_ns + x->fgrid_dt_ns * (double)(x->nfgrid - 1) ?
			x->fgrid[0] : x->fgrid[x->nfgrid - 1];
	u = (t_ns - x->fgrid_t0_ns) / x->fgrid_dt_ns;
	if (u >= (double)(x->nfgrid - 1))
		return x->fgrid[x->nfgrid - 1];
	i = (size_t)u;
	k = u - (double)i;
	return x->fgrid[i] + k * (x->fgrid[i + 1] - x->fgrid[i]);
}

const struct pma_wake *pma_exact_wakes(const struct pma_exact *x, size_t *n)
{
	*n = x->nwakes;
	return x->wakes;
}

uint32_t pma_exact_tgid(const struct pma_exact *x, uint32_t tid, const char **comm)
{
	uint32_t i;

	if (pm_tidmap_get(&x->map, tid, &i)) {
		const struct xthr *t = &x->thr[i];
		if (comm)
			*comm = t->comm;
		return t->tgid;
	}
	if (comm)
		*comm = "";
	return 0;
}

size_t pma_exact_thread_count(const struct pma_exact *x)
{
	return x->nthr;
}

uint32_t pma_exact_thread(const struct pma_exact *x, size_t i, uint32_t *tgid, const char **comm)
{
	*tgid = x->thr[i].tgid;
	*comm = x->thr[i].comm;
	return x->thr[i].tid;
}

int pma_exact_critical_path(const struct pma_exact *x, struct pma_cp_seg **out, size_t *n)
{
	const struct xthr *last = NULL;
	struct pma_cp_seg *v = NULL;
	size_t nv = 0, cap = 0;
	uint32_t cur;
	uint64_t t_end = 0, t_start = UINT64_MAX;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < x->nthr; i++)
		if (x->thr[i].cpu_ns > 0 && (!last || x->thr[i].F > last->F))
			last = &x->thr[i];
	if (!last)
		return 0;
	cur = last->tid;
	for (size_t i = 0; i < x->nslices; i++)
		if (x->slices[i].tid == cur && x->slices[i].t1_ns > t_end)
			t_end = x->slices[i].t1_ns;
	/* backwards through the wakes (in time order): the latest binding wake of the current
	 * thread before the current end hands the path to its waker */
	for (size_t i = x->nwakes; i-- > 0;) {
		const struct pma_wake *w = &x->wakes[i];
		if (w->wakee != cur || !w->binding || w->t_ns >= t_end)
			continue;
		if (PM_GROW(v, cap, nv + 1) < 0)
			goto nomem;
		v[nv++] = (struct pma_cp_seg){ cur, w->t_ns, t_end };
		cur = w->waker;
		t_end = w->t_ns;
	}
	for (size_t i = 0; i < x->nslices; i++)
		if (x->slices[i].tid == cur && x->slices[i].t0_ns < t_start)
			t_start = x->slices[i].t0_ns;
	if (t_start < t_end) {
		if (PM_GROW(v, cap, nv + 1) < 0)
			goto nomem;
		v[nv++] = (struct pma_cp_seg){ cur, t_start, t_end };
	}
	/* in time order */
	for (size_t i = 0; i < nv / 2; i++) {
		struct pma_cp_seg tmp = v[i];
		v[i] = v[nv - 1 - i];
		v[nv - 1 - i] = tmp;
	}
	*out = v;
	*n = nv;
	return 0;
nomem:
	free(v);
	return -1;
}
