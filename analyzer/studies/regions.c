/* SPDX-License-Identifier: MIT */
/* regions.c: per-region table of a run recorded with --omp-regions (see regions.h). */
#include "regions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/estimate.h"
#include "trace/machine.h"
#include "model/model.h"
#include "model/phases.h"
#include "pm_util.h"
#include "trace/symbols.h"

/* Processes of one run whose objects are symbolized; instances of more are left unnamed. */
#define MAX_PIDS 16

struct pid_syms {
	uint32_t pid;
	struct pma_symbols *s;
};

struct site {
	uint32_t pid;
	uint64_t codeptr_ra;
	size_t inst;            /* index into run->omp */
};

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->codeptr_ra != y->codeptr_ra)
		return x->codeptr_ra < y->codeptr_ra ? -1 : 1;
	return x->inst < y->inst ? -1 : x->inst > y->inst;
}

/* The symbolizer of pid's recorded objects (opened on first use), or NULL. */
static struct pma_symbols *syms_for(const struct pma_omp_info *oi, struct pid_syms *ps, size_t *nps,
				    uint32_t pid)
{
	char why[256];
	size_t i;

	for (i = 0; i < *nps; i++)
		if (ps[i].pid == pid)
			return ps[i].s;
	if (*nps == MAX_PIDS || pma_symbols_open(&ps[*nps].s, why, sizeof(why)) < 0)
		return NULL;
	ps[*nps].pid = pid;
	for (size_t k = 0; k < oi->nobjects; k++) {
		const struct pma_omp_object *o = &oi->objects[k];
		/* objects without a file (linux-vdso.so.1) or rebuilt since: left out */
		if (o->pid == pid && o->path[0] == '/')
			(void)pma_symbols_add(ps[*nps].s, o->path, o->load_addr, o->build_id,
					      o->build_id_bytes, why, sizeof(why));
	}
	return ps[(*nps)++].s;
}

void pma_region_name(const struct pma_region_row *row, char *buf, size_t size)
{
	const char *base = strrchr(row->file, '/');

	base = base ? base + 1 : row->file;
	if (row->phase)
		snprintf(buf, size, "phase %u", row->phase);
	else if (row->function[0] && row->line)
		snprintf(buf, size, "%s %s:%d", row->function, base, row->line);
	else if (row->function[0])
		snprintf(buf, size, "%s", row->function);
	else {
		/* a stripped object: its file name and the offset, enough for addr2line on a
		   debug build of the same build-id */
		const char *obj = strrchr(row->object, '/');
		snprintf(buf, size, "%s+0x%llx", obj ? obj + 1 : row->object[0] ? row->object : "?",
			 (unsigned long long)row->offset);
	}
}

static int same_row(const struct pma_region_row *r, const struct pma_symbol *s)
{
	if (s->function[0])
		return !strcmp(r->function, s->function) && !strcmp(r->file, s->file) && r->line == s->line;
	return !r->function[0] && !strcmp(r->object, s->object) && r->offset == s->offset;
}

/* Groups the run's instances into rows by source position: *rows (owned by the caller), and
 * inst_row[i] = the row of instance i (NULL: not wanted). Returns 0 or -1 (out of memory). */
static int build_rows(const struct pma_run *run, struct pma_region_row **rows, size_t *nrows,
		      size_t *inst_row, uint64_t *unnamed)
{
	struct site *sites = malloc((run->nomp ? run->nomp : 1) * sizeof(*sites));
	struct pid_syms ps[MAX_PIDS];
	size_t nps = 0, cap = 0, i = 0;
	struct pma_symbol sym;
	int rc = 0;

	*rows = NULL;
	*nrows = 0;
	*unnamed = 0;
	if (!sites)
		return -1;
	for (size_t k = 0; k < run->nomp; k++)
		sites[k] = (struct site){ run->omp[k].pid, run->omp[k].codeptr_ra, k };
	qsort(sites, run->nomp, sizeof(*sites), cmp_site);
	while (i < run->nomp && rc == 0) {
		size_t j = i, r;
		struct pma_symbols *s = syms_for(&run->info.omp, ps, &nps, sites[i].pid);

		while (j < run->nomp && sites[j].pid == sites[i].pid && sites[j].codeptr_ra == sites[i].codeptr_ra)
			j++;
		memset(&sym, 0, sizeof(sym));
		if (!s || pma_symbols_lookup(s, sites[i].codeptr_ra, 1, &sym) < 0) {
			*unnamed += j - i;
			sym.offset = sites[i].codeptr_ra;
		}
		for (r = 0; r < *nrows && !same_row(&(*rows)[r], &sym); r++)
			;
		if (r == *nrows) {
			struct pma_region_row *row;
			if (PM_GROW(*rows, cap, *nrows + 1) < 0) {
				rc = -1;
				break;
			}
			row = &(*rows)[(*nrows)++];
			memset(row, 0, sizeof(*row));
			snprintf(row->function, sizeof(row->function), "%s", sym.function);
			snprintf(row->file, sizeof(row->file), "%s", sym.file);
			snprintf(row->symbol, sizeof(row->symbol), "%s", sym.symbol);
			snprintf(row->object, sizeof(row->object), "%s", sym.object);
			row->line = sym.line;
			row->offset = sym.offset;
			row->depth = UINT32_MAX;
			row->allande = -1;
		}
		for (; i < j; i++) {
			const struct pma_omp_inst *in = &run->omp[sites[i].inst];
			struct pma_region_row *row = &(*rows)[r];
			row->calls++;
			row->open += in->open;
			row->time_ns += (double)(in->end_ns - in->begin_ns);
			row->mean_team += in->actual_team;
			if (in->depth < row->depth)
				row->depth = in->depth;
			if (inst_row)
				inst_row[sites[i].inst] = r;
		}
	}
	for (size_t r = 0; r < *nrows; r++)
		(*rows)[r].mean_team /= (double)(*rows)[r].calls;
	for (size_t k = 0; k < nps; k++)
		pma_symbols_close(ps[k].s);
	free(sites);
	return rc;
}

/* ---- A and T_cp inside windows: the exact mode's timelines, or the sampled intervals ---- */

/* The program's concurrency as a step function: from t[k] to t[k + 1], r[k] threads running and
 * q[k] running or runnable; averages over the interval for sampled steps. The last step is 0. */
struct steps {
	uint64_t *t;
	double *r, *q;
	size_t n;
	const char *method;     /* "sched-exact" or "samples" */
	/* sched-exact only: every thread's running slices, sorted by thread then time, with the
	 * thread's running time before each (cum_ns); thread k owns slices first[k]..first[k+1]-1 */
	struct tslice { uint64_t t0, t1; double cum_ns; } *ts;
	size_t *first, nthr;
};

struct edge {
	uint64_t t;
	int dr, dq;
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static int alloc_steps(struct steps *st, size_t n)
{
	st->t = malloc((n + 1) * sizeof(*st->t));
	st->r = malloc((n + 1) * sizeof(*st->r));
	st->q = malloc((n + 1) * sizeof(*st->q));
	return st->t && st->r && st->q ? 0 : -1;
}

static void push_step(struct steps *st, uint64_t t, double r, double q)
{
	st->t[st->n] = t;
	st->r[st->n] = r;
	st->q[st->n] = q;
	st->n++;
}

struct tid_slice {
	uint32_t tid;
	uint64_t t0, t1;
};

static int cmp_tid_slice(const void *a, const void *b)
{
	const struct tid_slice *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* st->ts and st->first from the running slices sl[ns]. Returns 0 or -1 (out of memory). */
static int build_thread_slices(const struct pma_slice *sl, size_t ns, struct steps *st)
{
	struct tid_slice *v = malloc((ns + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < ns; i++)
		if (sl[i].kind == PMA_SLICE_RUNNING && sl[i].t1_ns > sl[i].t0_ns)
			v[n++] = (struct tid_slice){ sl[i].tid, sl[i].t0_ns, sl[i].t1_ns };
	qsort(v, n, sizeof(*v), cmp_tid_slice);
	st->ts = malloc((n + 1) * sizeof(*st->ts));
	st->first = malloc((n + 1) * sizeof(*st->first));
	if (!st->ts || !st->first) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		int same = i > 0 && v[i].tid == v[i - 1].tid;
		if (!same)
			st->first[st->nthr++] = i;
		st->ts[i] = (struct tslice){ v[i].t0, v[i].t1, same ?
			st->ts[i - 1].cum_ns + (double)(st->ts[i - 1].t1 - st->ts[i - 1].t0) : 0 };
	}
	st->first[st->nthr] = n;
	free(v);
	return 0;
}

/* Running time of thread k before time x, in ns. */
static double thread_run_before(const struct steps *st, size_t k, uint64_t x)
{
	size_t lo = st->first[k], hi = st->first[k + 1];
	const struct tslice *s;

	if (lo == hi || st->ts[lo].t0 >= x)
		return 0;
	/* the last slice starting before x */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (st->ts[mid].t0 < x)
			lo = mid;
		else
			hi = mid;
	}
	s = &st->ts[lo];
	return s->cum_ns + (double)((x < s->t1 ? x : s->t1) - s->t0);
}

/* The most CPU time one thread ran inside [b, e), in ns; 0 without the exact mode's slices. */
static double longest_thread_ns(const struct steps *st, uint64_t b, uint64_t e)
{
	double best = 0;

	for (size_t k = 0; st->ts && k < st->nthr; k++) {
		size_t last = st->first[k + 1] - 1;
		double tau;
		if (st->ts[st->first[k]].t0 >= e || st->ts[last].t1 <= b)
			continue; /* the thread did not run in the window */
		tau = thread_run_before(st, k, e) - thread_run_before(st, k, b);
		if (tau > best)
			best = tau;
	}
	return best;
}

/* From the scheduler events: exact boundaries (Tudor & Teo's A from the happens-before timelines). */
static int build_steps_exact(const struct pma_run *run, struct steps *st)
{
	size_t ns, n = 0;
	const struct pma_slice *sl = pma_exact_slices(run->exact, &ns);
	struct edge *e = malloc((2 * ns + 1) * sizeof(*e));
	int32_t r = 0, q = 0;

	if (!e || alloc_steps(st, 2 * ns) < 0) {
		free(e);
		return -1;
	}
	st->method = "sched-exact";
	if (build_thread_slices(sl, ns, st) < 0) {
		free(e);
		return -1;
	}
	for (size_t i = 0; i < ns; i++) {
		int run_ = sl[i].kind == PMA_SLICE_RUNNING;
		e[n++] = (struct edge){ sl[i].t0_ns, run_, 1 };
		e[n++] = (struct edge){ sl[i].t1_ns, -run_, -1 };
	}
	qsort(e, n, sizeof(*e), cmp_edge);
	for (size_t i = 0; i < n; i++) {
		r += e[i].dr;
		q += e[i].dq;
		if (i + 1 < n && e[i + 1].t == e[i].t)
			continue;
		push_step(st, e[i].t, r > 0 ? r : 0, q > 0 ? q : 0);
	}
	free(e);
	return 0;
}

/* From the samples: per interval the runnable estimator's averages, r = sum tau_j / dT and
 * q = sum runnable_j / dT (estimate.h, PMA_EST_RUNNABLE). A window that covers part of an interval
 * gets that part of it (prorated): a region shorter than the sampling interval is approximate. */
static int build_steps_sampled(const struct pma_run *run, struct steps *st)
{
	size_t n;
	uint64_t cut;
	const struct pma_est_interval *iv = run->est ? pma_est_series(run->est, &n, &cut) : NULL;

	if (!iv || !n)
		return 0;
	if (alloc_steps(st, 2 * n) < 0)
		return -1;
	st->method = "samples";
	for (size_t i = 0; i < n; i++) {
		uint64_t t1 = iv[i].t0_ns + (uint64_t)iv[i].dT_ns;
		double dT = iv[i].dT_ns > 0 ? iv[i].dT_ns : 1;

		if (st->n && st->t[st->n - 1] >= iv[i].t0_ns)
			continue; /* not after the previous one: a damaged trace */
		push_step(st, iv[i].t0_ns, iv[i].tau_ns / dT, iv[i].runnable_ns / dT);
		/* the end, or a gap without samples (dT is a float: a few ns of rounding are none) */
		if (i + 1 == n || iv[i + 1].t0_ns > t1 + 1000)
			push_step(st, t1, 0, 0);
	}
	return 0;
}

/* The run's steps: from the scheduler events when it has them, else from the samples; st->n 0
 * when neither. Returns 0 or -1 (out of memory). */
static int build_steps(const struct pma_run *run, struct steps *st)
{
	memset(st, 0, sizeof(*st));
	return run->has_exact ? build_steps_exact(run, st) : build_steps_sampled(run, st);
}

static void free_steps(struct steps *st)
{
	free(st->ts);
	free(st->first);
	free(st->t);
	free(st->r);
	free(st->q);
}

/* Adds the steps inside [b, e) to the profile (Tudor & Teo §II-B: q active threads for
 * dt r / q of critical-path time, as the runnable estimator does per interval) and to work.
 * A sampled step is an interval's average: q below 1 means the program had no runnable thread
 * for part of the interval (idle between short regions, or starting), and dt r / q would then
 * count more critical path than the work it holds (A < 1: a region of one thread read 0.68).
 * Whatever ran in the step ran at a concurrency of at least 1, so the step counts at
 * max(q, 1): its critical path is capped at its work (A >= 1); *capped_ns gets what the cap
 * removed (the raw dt r / q minus dt r), for the report's note. With the exact mode's steps q is a
 * whole count and the cap never applies.
 * With the exact mode's slices, the window's critical path is at least the longest CPU time one
 * thread ran in it (a thread's own work is sequential): where processor sharing's r / q gives
 * less, as for the one thread of an OpenMP `single` among team members that wait runnable, the
 * window's pieces are stretched to that length, A scaled down by the same factor, so the
 * window's work is unchanged. */
static int cut_window(const struct steps *st, uint64_t b, uint64_t e, struct pma_profile *p,
		      double *work_ns, double *capped_ns)
{
	size_t lo = 0, hi = st->n;
	double work = 0, T_cp = 0, stretch = 1, tau_max, capped = 0;

	/* the last step starting at or before b */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (st->t[mid] <= b)
			lo = mid;
		else
			hi = mid;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = lo; k + 1 < st->n && st->t[k] < e; k++) {
			uint64_t t0 = st->t[k] > b ? st->t[k] : b, t1 = st->t[k + 1] < e ? st->t[k + 1] : e;
			double dt = (double)(t1 - t0), q = st->q[k] > 1 ? st->q[k] : 1;
			double dT_cp = st->q[k] > 0 ? dt * st->r[k] / q : dt;

			if (t1 <= t0)
				continue;
			if (pass == 0) {
				work += dt * st->r[k];
				if (st->q[k] > 0) {
					T_cp += dT_cp;
					capped += dt * st->r[k] / st->q[k] - dT_cp;
				}
			} else if (pma_profile_add(p, st->q[k] > 0 ? q / stretch : 0,
						   st->q[k] > 0 ? dT_cp * stretch : dt) < 0) {
				return -1; /* idle pieces (q = 0) keep their length: not critical path */
			}
		}
		/* only a window with more work than critical path can have a thread longer than it */
		if (pass == 0 && st->ts && work > T_cp && (tau_max = longest_thread_ns(st, b, e)) > T_cp &&
		    T_cp > 0)
			stretch = tau_max / T_cp;
	}
	*work_ns += work;
	if (capped_ns)
		*capped_ns += capped;
	return 0;
}

struct window {
	size_t row;
	uint64_t b, e;
};

static int cmp_window(const void *a, const void *b)
{
	const struct window *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The whole run cut at every window's boundaries, so that its critical path holds each window's
 * (cut_window's bound per piece): the run's T_cp is never less than the sum of its disjoint
 * regions'. Returns 0 or -1 (out of memory). */
static int cut_run(const struct steps *st, const struct window *w, size_t nw, struct pma_profile *p,
		   double *work_ns)
{
	uint64_t *cut = malloc((2 * nw + 2) * sizeof(*cut)), first = st->t[0], last = st->t[st->n - 1];
	size_t n = 0;
	int rc = 0;

	if (!cut)
		return -1;
	cut[n++] = first;
	cut[n++] = last;
	for (size_t i = 0; i < nw; i++) {
		if (w[i].b > first && w[i].b < last)
			cut[n++] = w[i].b;
		if (w[i].e > first && w[i].e < last)
			cut[n++] = w[i].e;
	}
	qsort(cut, n, sizeof(*cut), cmp_u64);
	for (size_t i = 0; rc == 0 && i + 1 < n; i++)
		if (cut[i + 1] > cut[i])
			rc = cut_window(st, cut[i], cut[i + 1], p, work_ns, NULL);
	free(cut);
	return rc;
}

/* PMA_NOTE_REGION_A_CAPPED when the cap of cut_window changed some row's T_cp by over 1%: how
 * many rows, the lowest A before the cap and its row. Returns 0 or -1 (out of memory). */
static int note_capped(struct pma_regions_result *out, double interval_ns)
{
	double lowest = INFINITY, n = 0;
	char name[1400] = "";

	for (size_t r = 0; r < out->nrows; r++) {
		const struct pma_region_row *w = &out->rows[r];
		double raw = w->T_cp_ns + w->T_cp_capped_ns;
		if (!(w->T_cp_capped_ns > 0.01 * w->T_cp_ns) || !(raw > 0))
			continue;
		n++;
		if (w->work_ns / raw < lowest) {
			lowest = w->work_ns / raw;
			pma_region_name(w, name, sizeof(name));
		}
	}
	if (!n)
		return 0;
	return pma_note_add_region_a_capped(&out->notes, &(struct pma_note_region_a_capped){
			.capped = n, .regions = (double)out->nrows, .A_min = lowest,
			.interval_ms = interval_ns / 1e6, .region = name });
}

/* row->pred at the core counts out->cores[0..k) from the row's profile p (eq. 6, omega 0), tmp
 * [k] scratch. docs/model.md's bounds, S <= min(n, A) and T >= max(T_cp, U/n), hold for eq. 6 by
 * construction (each piece takes max(dT_cp, A dT_cp / n) on n cores); fmin/fmax only absorb the
 * rounding of the bins' sums. Returns 0 or -1 (out of memory). */
static int row_predictions(const struct pma_profile *p, struct pma_regions_result *out,
			   struct pma_region_row *row, size_t k, struct pma_prediction *tmp)
{
	if (!k)
		return 0;
	row->pred = calloc(k, sizeof(*row->pred));
	if (!row->pred)
		return -1;
	if (pma_profile_predict(p, out->cores, k, NULL, tmp) < 0) {
		/* a core count of 0: the caller's list is refused before it gets here */
		free(row->pred);
		row->pred = NULL;
		return 0;
	}
	for (size_t i = 0; i < k; i++) {
		struct pma_region_pred *q = &row->pred[i];
		double n = tmp[i].cores, cap = fmin(n, row->A);

		q->cores = tmp[i].cores;
		q->A = fmin(tmp[i].A, cap);
		q->S = fmin(tmp[i].S, cap);
		q->T_ns = fmax(tmp[i].T_ns, fmax(row->T_cp_ns, row->work_ns / n));
		q->gain_ns = fmax(q->T_ns - row->work_ns / n, 0);
	}
	row->npred = k;
	return 0;
}

/* Per row: its windows w[nw] (the union of its instances' intervals; sorted here) cut out of the
 * steps st: work, T_cp, A and the predictions at out->n cores and at out->cores. */
static int rows_A(const struct steps *st, struct pma_regions_result *out, struct window *w, size_t nw)
{
	struct pma_profile whole;
	struct pma_prediction *tmp = NULL;
	size_t i = 0, k = out->ncores;
	int rc = 0;

	if (out->nrows && k > PMA_REGION_MAX_PREDICTIONS / out->nrows) {
		k = PMA_REGION_MAX_PREDICTIONS / out->nrows;
		if (!k)
			k = 1;
		out->pred_left_out = out->ncores - k;
	}
	if (k && !(tmp = malloc(k * sizeof(*tmp))))
		return -1;
	if (nw) /* qsort of a null array is undefined, even of 0 elements */
		qsort(w, nw, sizeof(*w), cmp_window);
	while (i < nw && rc == 0) {
		struct pma_region_row *row = &out->rows[w[i].row];
		struct pma_profile p;
		struct pma_prediction pred;
		uint64_t b = w[i].b, e = w[i].e;
		size_t r = w[i].row;

		pma_profile_init(&p);
		for (; rc == 0 && i <= nw; i++) {
			/* merge overlapping windows (nested instances of one region run at once) */
			if (i < nw && w[i].row == r && w[i].b <= e) {
				if (w[i].e > e)
					e = w[i].e;
				continue;
			}
			rc = cut_window(st, b, e, &p, &row->work_ns, &row->T_cp_capped_ns);
			if (i == nw || w[i].row != r)
				break;
			b = w[i].b;
			e = w[i].e;
		}
		if (!(p.T_cp_ns > 0) || !(row->work_ns > 0)) {
			/* nothing of the program ran inside the row's instances as far as the trace
			 * tells (from the samples: every instance fell between two samples): A is
			 * unknown, not 0 */
			row->A_why = out->method && !strcmp(out->method, "samples") ? "no sampled interval holds CPU time inside its "
				"instances (they are shorter than the sampling interval)" :
				"no CPU time of the program inside its instances";
			pma_profile_free(&p);
			continue;
		}
		row->have_A = 1;
		row->T_cp_ns = p.T_cp_ns;
		row->A = p.work_ns / p.T_cp_ns;
		if (rc == 0 && pma_profile_predict(&p, &out->n, 1, NULL, &pred) == 0) {
			row->T_n_ns = pred.T_ns;
			row->S_n = pred.S;
			row->gain_ns = pred.T_ns - row->work_ns / out->n;
			if (row->gain_ns < 0)
				row->gain_ns = 0;
		}
		if (rc == 0)
			rc = row_predictions(&p, out, row, k, tmp);
		pma_profile_free(&p);
	}
	free(tmp);
	pma_profile_init(&whole);
	if (rc == 0 && st->n)
		rc = cut_run(st, w, nw, &whole, &out->run_work_ns);
	out->run_T_cp_ns = whole.T_cp_ns;
	for (size_t r = 0; r < out->nrows; r++)
		out->rows[r].cp_share = whole.T_cp_ns > 0 ? out->rows[r].T_cp_ns / whole.T_cp_ns : 0;
	pma_profile_free(&whole);
	return rc;
}

/* ---- the phase fallback (no region recorded) ---- */

/* Rows for the phases of the steps: maximal intervals with >= 2 active threads (q), serial gaps
 * longer than out->gap_ns cutting (analyzer/model/phases.h); phases shorter than out->gap_ns (one
 * sampling interval: threads created or woken for a moment, and runnable a while on a busy
 * machine) are left out. Fills out->rows and w (one window per phase). */
static int build_phase_rows(const struct pma_run *run, const struct steps *st,
			    struct pma_regions_result *out, struct window **w)
{
	struct pma_phase *ph;
	long np, k = 0;

	*w = NULL;
	if (st->n < 2)
		return 0;
	np = pma_phases_segment(st->t, st->q, st->n - 1, st->t[st->n - 1], 2, out->gap_ns, NULL, 0);
	if (np <= 0)
		return 0;
	ph = malloc((size_t)np * sizeof(*ph));
	out->rows = calloc((size_t)np, sizeof(*out->rows));
	*w = malloc((size_t)np * sizeof(**w));
	if (!ph || !out->rows || !*w) {
		free(ph);
		return -1;
	}
	pma_phases_segment(st->t, st->q, st->n - 1, st->t[st->n - 1], 2, out->gap_ns, ph, (size_t)np);
	for (long i = 0; i < np; i++) {
		struct pma_region_row *row = &out->rows[k];
		if (ph[i].end_ns - ph[i].begin_ns < out->gap_ns)
			continue;
		row->phase = (uint32_t)k + 1;
		row->begin_ns = ph[i].begin_ns - run->t_begin_ns;
		row->end_ns = ph[i].end_ns - run->t_begin_ns;
		row->calls = 1;
		row->depth = 1;
		row->allande = -1;
		row->time_ns = (double)(ph[i].end_ns - ph[i].begin_ns);
		(*w)[k] = (struct window){ (size_t)k, ph[i].begin_ns, ph[i].end_ns };
		k++;
	}
	out->nrows = (size_t)k;
	free(ph);
	return 0;
}

static int cmp_gain(const void *a, const void *b)
{
	const struct pma_region_row *x = a, *y = b;

	if (x->gain_ns != y->gain_ns)
		return x->gain_ns > y->gain_ns ? -1 : 1;
	if (x->time_ns != y->time_ns)
		return x->time_ns > y->time_ns ? -1 : 1;
	return 0;
}

/* ---- per-thread counters of the regions (OMP_COUNTERS) ---- */

struct inst_key {
	uint64_t id;
	uint32_t pid;
	size_t k;
};

static int cmp_inst_key(const void *a, const void *b)
{
	const struct inst_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Adds each OMP_COUNTERS record of run to the row of its region instance (by pid and region id;
 * inst_row[k] is the row of instance k): rows[r].counters[e] and counter_tasks. Records naming no
 * instance (the tool dropped the region's record) are counted in *unmatched. Returns 0, or -1 when
 * memory runs out. */
static int row_counters(const struct pma_run *run, struct pma_region_row *rows, const size_t *inst_row,
			uint64_t *matched, uint64_t *unmatched)
{
	struct inst_key *keys;
	uint32_t cn = run->omp_cn < PMA_OMP_MAX_EVENTS ? run->omp_cn : PMA_OMP_MAX_EVENTS;

	*matched = *unmatched = 0;
	if (!run->nomp_ctr)
		return 0;
	keys = malloc((run->nomp ? run->nomp : 1) * sizeof(*keys));
	if (!keys)
		return -1;
	for (size_t k = 0; k < run->nomp; k++)
		keys[k] = (struct inst_key){ run->omp[k].id, run->omp[k].pid, k };
	qsort(keys, run->nomp, sizeof(*keys), cmp_inst_key);
	for (size_t c = 0; c < run->nomp_ctr; c++) {
		struct inst_key q = { run->omp_ctr[c].region_id, run->omp_ctr[c].pid, 0 };
		const struct inst_key *hit = bsearch(&q, keys, run->nomp, sizeof(*keys), cmp_inst_key);
		struct pma_region_row *row;

		if (!hit) {
			(*unmatched)++;
			continue;
		}
		row = &rows[inst_row[hit->k]];
		for (uint32_t e = 0; e < cn; e++)
			row->counters[e] += (double)run->omp_cv[c * run->omp_cn + e];
		row->counter_tasks++;
		(*matched)++;
	}
	free(keys);
	return 0;
}

/* The index of the TCM event in run's counter events: tcm_event by name, else the one the collector
 * marked "llc_misses"; -1 when none (why says so). */
static long tcm_index(const struct pma_run *run, const char *tcm_event, char *why, size_t whysize)
{
	const struct pma_omp_counters_info *c = &run->info.omp.counters;

	if (run->nomp_ctr && run->omp_cn != c->nevents) {
		snprintf(why, whysize, "run %u's counter records hold %u values for %zu named events",
			 run->run_id, run->omp_cn, c->nevents);
		return -1;
	}
	for (size_t e = 0; c->recorded && e < c->nevents; e++)
		if (tcm_event ? !strcmp(c->events[e], tcm_event) : c->llc[e])
			return (long)e;
	if (!c->recorded || !c->nevents)
		snprintf(why, whysize, "no per-thread counters in run %u (%s)", run->run_id,
			 c->reason ? c->reason : "recorded before format 1.3");
	else if (tcm_event)
		snprintf(why, whysize, "run %u did not count %s", run->run_id, tcm_event);
	else
		snprintf(why, whysize, "run %u counted no LLC-miss event (name one with --tcm-event)",
			 run->run_id);
	return -1;
}

/* ---- Allande et al.: one run per thread count 1..NC ---- */

/* Is a the same source region as b (of another run)? By function and file:line, or for a region
 * no symbol names (a stripped library's static function) by object and offset: the load address
 * changes from run to run, the offset does not. */
static int same_source(const struct pma_region_row *a, const struct pma_region_row *b)
{
	if (a->function[0] || b->function[0])
		return !strcmp(a->function, b->function) && !strcmp(a->file, b->file) && a->line == b->line;
	return a->object[0] && !strcmp(a->object, b->object) && a->offset == b->offset;
}

/* The CPUs run r ran on: RUN_BEGIN "cpus", else what META says the program was allowed. */
static const char *run_cpus(const struct pma_trace *t, const struct pma_run *r)
{
	const struct pma_meta *m = &t->meta;

	return r->info.cpus ? r->info.cpus : m->cpus ? m->cpus : m->usable_cpus ? m->usable_cpus :
	       m->online_cpus;
}

/* The recording machine's limits on Allande's runs (§3.1: NC runs on one socket of NC cores):
 * out->NS from its topology (1 when unknown), *NC capped at its cores per socket, and the runs of
 * 1..NC threads whose CPUs span sockets, as notes. Returns 0 or -1 (out of memory). */
static int machine_limits(const struct pma_trace *t, struct pma_regions_result *out, uint32_t *NC)
{
	struct pma_machine m;
	char e[300];
	double span = 0, first_th = 0, first_ns = 0;
	const char *first_cpus = NULL;
	int rc = 0;

	out->NS = t->meta.topo.packages >= 1 ? (uint32_t)t->meta.topo.packages : 1;
	if (pma_machine_from_meta(&t->meta, "trace", &m, e, sizeof(e)) < 0)
		return 0; /* no topology recorded: NC as the runs give it */
	out->NS = m.sockets;
	if (*NC > m.c) {
		rc = pma_note_add_allande_nc_capped(&out->notes, &(struct pma_note_allande_nc_capped){
				.N = *NC, .NC = m.c, .sockets = m.sockets });
		*NC = m.c;
	}
	for (uint32_t th = 1; rc == 0 && th <= *NC; th++) {
		const char *cpus = run_cpus(t, &t->runs[out->run_of_threads[th]]);
		/* the CPU count only tells "some CPUs" from none here: the topology decides */
		uint32_t k = cpus ? pma_machine_sockets_used(&m, cpus, th) : 0;
		if (k <= 1)
			continue;
		if (!span++) {
			first_th = th;
			first_ns = k;
			first_cpus = cpus;
		}
	}
	if (rc == 0 && span)
		rc = pma_note_add_allande_span(&out->notes, &(struct pma_note_allande_span){
				.runs = span, .threads = first_th, .sockets = first_ns,
				.cpus = first_cpus });
	pma_machine_free(&m);
	return rc;
}

static int allande(const struct pma_trace *t, const char *tcm_event, struct pma_regions_result *out,
		   char *why, size_t whysize)
{
	uint32_t NC = 0, NC_runs;
	double *T, *TCM;
	size_t R = 0;

	memset(out->run_of_threads, 0xff, sizeof(out->run_of_threads));
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		uint32_t th = (uint32_t)r->info.threads;
		if (th >= 1 && th <= PMA_ALLANDE_MAX_NC && r->info.omp.recorded && r->nomp &&
		    out->run_of_threads[th] == UINT32_MAX)
			out->run_of_threads[th] = i;
	}
	while (NC < PMA_ALLANDE_MAX_NC && out->run_of_threads[NC + 1] != UINT32_MAX)
		NC++;
	NC_runs = NC;
	if (NC >= 2 && machine_limits(t, out, &NC) < 0)
		return -1;
	if (NC < 2) {
		if (NC < NC_runs)
			snprintf(out->allande_why, sizeof(out->allande_why), "NC is the cores of one "
				 "socket, and a socket of the recording machine has %u", NC);
		else if (out->run_of_threads[2] != UINT32_MAX || t->nruns > 1)
			snprintf(out->allande_why, sizeof(out->allande_why), "needs runs with 1, 2, ... NC "
				 "threads (pmcollect --omp-regions -t 1-NC)");
		return 0;
	}
	T = calloc((size_t)out->nrows * (NC + 1), sizeof(*T));
	TCM = calloc((size_t)out->nrows * (NC + 1), sizeof(*TCM));
	if (!T || !TCM) {
		free(T);
		free(TCM);
		return -1;
	}
	/* each run's time (and TCM: the sum of its threads' deltas of the TCM event) per row, matched
	 * by source position (addresses differ between runs); a TCM of -1 is "not counted" */
	for (uint32_t th = 1; th <= NC; th++) {
		const struct pma_run *r = &t->runs[out->run_of_threads[th]];
		struct pma_region_row *rows;
		size_t n, *inst_row = malloc((r->nomp ? r->nomp : 1) * sizeof(*inst_row));
		uint64_t unnamed, matched, unmatched;
		long e = tcm_index(r, tcm_event, out->tcm_why[0] ? NULL : out->tcm_why,
				   out->tcm_why[0] ? 0 : sizeof(out->tcm_why));

		if (!inst_row || build_rows(r, &rows, &n, inst_row, &unnamed) < 0 ||
		    row_counters(r, rows, inst_row, &matched, &unmatched) < 0) {
			free(inst_row);
			free(T);
			free(TCM);
			return -1;
		}
		if (e >= 0)
			snprintf(out->tcm_name, sizeof(out->tcm_name), "%s", r->info.omp.counters.events[e]);
		for (size_t a = 0; a < n; a++)
			for (size_t b = 0; b < out->nrows; b++)
				if (same_source(&rows[a], &out->rows[b])) {
					T[b * (NC + 1) + th] = rows[a].time_ns;
					TCM[b * (NC + 1) + th] = e >= 0 && rows[a].counter_tasks ?
								 rows[a].counters[e] : -1;
				}
		free(rows);
		free(inst_row);
	}
	out->factors = calloc(out->nrows, sizeof(*out->factors));
	if (!out->factors) {
		free(T);
		free(TCM);
		return -1;
	}
	for (size_t b = 0; b < out->nrows; b++) {
		int all = out->rows[b].function[0] || out->rows[b].object[0], counted = 1;
		for (uint32_t th = 1; th <= NC; th++) {
			all &= T[b * (NC + 1) + th] > 0;
			counted &= TCM[b * (NC + 1) + th] > 0;
		}
		if (!all)
			continue;
		/* eq. 2 divides by TCM_1 and eq. 4 by TCM_i: a region without misses in some run is
		 * time-only */
		if (!counted && !out->tcm_why[0])
			snprintf(out->tcm_why, sizeof(out->tcm_why), "a region's TCM is 0 or missing in "
				 "one of the runs");
		if (pma_allande_factors(&T[b * (NC + 1) + 1], counted ? &TCM[b * (NC + 1) + 1] : NULL, NC,
					&out->factors[R], why, whysize) < 0)
			continue;
		out->time_only |= out->factors[R].time_only;
		out->rows[b].allande = (long)R++;
	}
	free(T);
	free(TCM);
	if (!out->time_only)
		out->tcm_why[0] = 0;
	out->nfactors = R;
	out->NC = NC;
	if (!R) {
		snprintf(out->allande_why, sizeof(out->allande_why), "no region ran in every run");
		return 0;
	}
	for (int bound = PMA_ALLANDE_SUM; bound <= PMA_ALLANDE_MAX; bound++)
		if (pma_allande_plan(out->factors, R, out->NS, (enum pma_allande_bound)bound,
				     &out->plan[bound], why, whysize) < 0)
			return -1;
	out->allande = 1;
	return 0;
}

int pma_regions_compute(const struct pma_trace *t, const struct pma_run *run, uint32_t n,
			const uint32_t *cores, size_t ncores, int want_phases, const char *tcm_event,
			struct pma_regions_result *out, char *why, size_t whysize)
{
	struct window *w = NULL;
	struct steps st;
	double wall_ns = pma_run_wall_s(run) * 1e9;
	uint64_t interval_ns;
	int phases;

	memset(out, 0, sizeof(*out));
	memset(&st, 0, sizeof(st));
	phases = want_phases || (run->info.omp.present && !run->nomp);
	if (!run->info.omp.present && !run->nomp && !phases)
		return 0;
	out->present = run->info.omp.present || run->nomp;
	out->recorded = run->info.omp.recorded || run->nomp;
	out->reason = out->recorded ? NULL : run->info.omp.reason;
	out->run_id = run->run_id;
	out->n = n ? n : 1;
	out->cores = cores;
	out->ncores = cores ? ncores : 0;
	out->instances = run->nomp;
	out->phases = phases;
	if (!run->nomp && !phases)
		return 0;
	if (build_steps(run, &st) < 0)
		goto nomem;
	out->method = st.n ? st.method : NULL;
	/* one sampling interval: what the sampled profile can resolve */
	interval_ns = run->st.window_ns > 0 ? (uint64_t)run->st.window_ns :
		      t->meta.interval_ms > 0 ? (uint64_t)(t->meta.interval_ms * 1e6) : 10000000;
	if (phases) {
		out->gap_ns = interval_ns;
		if (build_phase_rows(run, &st, out, &w) < 0)
			goto nomem;
	} else {
		size_t *inst_row = malloc(run->nomp * sizeof(*inst_row));
		if (!inst_row || build_rows(run, &out->rows, &out->nrows, inst_row, &out->unnamed) < 0 ||
		    row_counters(run, out->rows, inst_row, &out->counter_tasks, &out->counter_unmatched) < 0 ||
		    !(w = malloc(run->nomp * sizeof(*w)))) {
			free(inst_row);
			goto nomem;
		}
		out->events = run->info.omp.counters.events;
		out->nevents = run->info.omp.counters.recorded ? run->info.omp.counters.nevents : 0;
		out->counters_reason = run->info.omp.counters.reason;
		if (run->nomp_ctr && run->omp_cn != out->nevents) {
			out->nevents = 0;
			out->counters_reason = "the counter records do not match RUN_END's list of events";
		}
		out->tcm_event = out->nevents ? tcm_index(run, tcm_event, NULL, 0) : -1;
		for (size_t k = 0; k < run->nomp; k++)
			w[k] = (struct window){ inst_row[k], run->omp[k].begin_ns, run->omp[k].end_ns };
		free(inst_row);
	}
	for (size_t r = 0; r < out->nrows; r++) {
		out->rows[r].share = wall_ns > 0 ? out->rows[r].time_ns / wall_ns : 0;
		out->open += out->rows[r].open;
	}
	if (st.n) {
		if (rows_A(&st, out, w, phases ? out->nrows : run->nomp) < 0 ||
		    note_capped(out, (double)interval_ns) < 0)
			goto nomem;
		out->have_A = 1;
	}
	free(w);
	free_steps(&st);
	if (out->nrows) /* a run without regions has no rows array */
		qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_gain);
	if (!phases && allande(t, tcm_event, out, why, whysize) < 0)
		return -1;
	return 0;
nomem:
	free(w);
	free_steps(&st);
	snprintf(why, whysize, "out of memory");
	return -1;
}

void pma_regions_free(struct pma_regions_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->rows && i < r->nrows; i++)
		free(r->rows[i].pred);
	free(r->rows);
	free(r->factors);
	pma_allande_plan_free(&r->plan[0]);
	pma_allande_plan_free(&r->plan[1]);
	pma_notes_free(&r->notes);
	memset(r, 0, sizeof(*r));
}

int pma_regions_parts(const struct pma_run *run, size_t nw, const double *b_frac,
		      const double *e_frac, uint64_t *t0_ns, uint64_t *t1_ns, double *work_ns,
		      double *T_cp_ns, const char **method)
{
	struct steps st;
	uint64_t first;
	double span;
	int rc = 0;

	*method = NULL;
	*t0_ns = *t1_ns = 0;
	if (build_steps(run, &st) < 0) {
		free_steps(&st);
		return -1;
	}
	if (st.n < 2 || st.t[st.n - 1] <= st.t[0]) {
		free_steps(&st);
		return 0;
	}
	first = st.t[0];
	span = (double)(st.t[st.n - 1] - first);
	for (size_t k = 0; k < nw && rc == 0; k++) {
		uint64_t b = first + (uint64_t)(span * b_frac[k]), e = first + (uint64_t)(span * e_frac[k]);
		struct pma_profile p;

		pma_profile_init(&p);
		work_ns[k] = 0;
		rc = cut_window(&st, b, e, &p, &work_ns[k], NULL);
		T_cp_ns[k] = p.T_cp_ns;
		pma_profile_free(&p);
	}
	if (rc == 0) {
		*method = st.method;
		*t0_ns = first;
		*t1_ns = st.t[st.n - 1];
	}
	free_steps(&st);
	return rc;
}
