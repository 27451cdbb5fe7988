/* SPDX-License-Identifier: MIT */
/* scaling.c: measured against predicted speedup per sweep configuration, PMNF fits of the
 * overheads over the sweep's parameter (Iwainsky et al. §2, §4) and their data for Extra-P. */
#include "scaling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[PMA_SM_COUNT] = {
	"time", "overhead", "cpu_time", "rq_wait", "nvcsw", "cycles",
};
static const char *const metric_units[PMA_SM_COUNT] = {
	"s", "s", "s", "s", "switches", "cycles",
};

const char *pma_scaling_metric_name(enum pma_scaling_metric k)
{
	return k < PMA_SM_COUNT ? metric_names[k] : "?";
}

const char *pma_scaling_metric_unit(enum pma_scaling_metric k)
{
	return k < PMA_SM_COUNT ? metric_units[k] : "?";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n values (sorted in place); NAN when n = 0. */
static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int is_sweep_run(const struct pma_run *r)
{
	/* a quota= sweep's runs are the quota study's (quota.h pma_quota_sweep_compute) */
	return r->info.role == PMA_ROLE_SWEEP && r->info.has_sweep && !isfinite(r->info.sweep_quota_cpus);
}

/* The thread count of a run: its sweep configuration's, else RUN_BEGIN threads; 0 unknown. */
static uint32_t run_threads(const struct pma_run *r)
{
	double t = isfinite(r->info.sweep_threads) ? r->info.sweep_threads : r->info.threads;

	return isfinite(t) ? (uint32_t)t : 0;
}

/* Metric k of run r in its unit (enum pma_scaling_metric); NAN when not measured. The overhead
 * is filled in later (it needs T(1)). */
static double run_metric(const struct pma_run *r, enum pma_scaling_metric k)
{
	const struct pma_run_cost *c = &r->info.C;

	switch (k) {
	case PMA_SM_TIME:
		return pma_run_wall_s(r);
	case PMA_SM_CPU:
		if (c->present && isfinite(c->cpu_time_ns))
			return c->cpu_time_ns / 1e9;
		return pma_est_profile(r->est, PMA_EST_RUNNABLE)->work_ns / 1e9;
	case PMA_SM_WAIT:
		return r->st.intervals ? r->st.wait_total_ns / 1e9 : NAN;
	case PMA_SM_NVCSW:
		return r->st.status_reads ? (double)r->st.nvcsw_total : NAN;
	case PMA_SM_CYCLES:
		return c->present && c->unit == PMA_COST_CYCLES ? c->value : NAN;
	default:
		return NAN;
	}
}

/* Rows: one per configuration index, from the finished sweep runs. Returns 0 or -1 (memory). */
static int make_rows(const struct pma_trace *t, struct pma_scaling *s)
{
	uint32_t maxcfg = 0;

	for (uint32_t i = 0; i < t->nruns; i++)
		if (is_sweep_run(&t->runs[i]) && t->runs[i].info.sweep_config >= maxcfg)
			maxcfg = t->runs[i].info.sweep_config + 1;
	if (maxcfg > PMA_MAX_RUNS)
		maxcfg = PMA_MAX_RUNS; /* more configurations than runs: the rest have no run */
	s->rows = calloc(maxcfg ? maxcfg : 1, sizeof(*s->rows));
	double *T = calloc(t->nruns ? t->nruns : 1, sizeof(double));
	if (!s->rows || !T) {
		free(T);
		return -1;
	}
	for (uint32_t c = 0; c < maxcfg; c++) {
		struct pma_scaling_row *row = &s->rows[s->nrows];
		size_t n = 0;
		for (uint32_t i = 0; i < t->nruns; i++) {
			const struct pma_run *r = &t->runs[i];
			if (!is_sweep_run(r) || r->info.sweep_config != c)
				continue;
			if (!pma_run_exited_ok(r)) {
				s->unfinished++;
				continue;
			}
			row->cores = r->cpus_n;
			row->threads = run_threads(r);
			T[n++] = pma_run_wall_s(r);
		}
		if (!n)
			continue;
		row->config = c;
		row->nreps = n;
		row->T_med_s = median(T, n);
		row->T_min_s = T[0];
		row->T_max_s = T[n - 1];
		row->S_meas = row->S_pred = row->S_pred_err = row->T_pred_s = row->omega = NAN;
		row->err_pct = NAN;
		s->nrows++;
	}
	free(T);
	return 0;
}

/* T(1): the median wall time of the finished 1-CPU runs with the baseline's thread count (the
 * baseline itself and sweep runs of cores = 1). */
static int find_T1(const struct pma_trace *t, const struct pma_run *base, struct pma_scaling *s)
{
	double *T = calloc(t->nruns ? t->nruns : 1, sizeof(double));
	uint32_t m = base ? run_threads(base) : 0;
	size_t n = 0;

	if (!T)
		return -1;
	for (uint32_t i = 0; base && i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		if (r->cpus_n == 1 && pma_run_exited_ok(r) && run_threads(r) == m &&
		    (r == base || is_sweep_run(r)))
			T[n++] = pma_run_wall_s(r);
	}
	s->T1_s = median(T, n);
	s->T1_runs = n;
	free(T);
	return 0;
}

/* The measured speedups, the predictions of the baseline for the rows that run its thread
 * count, their errors and the mean |error|. */
static void compare(struct pma_scaling *s, const struct pma_run *base, const uint32_t *pred_cores,
		    const double *S, const double *S_err, const double *omega, size_t npred)
{
	uint32_t m = base ? run_threads(base) : 0;
	double sum = 0;

	s->m = m ? m : NAN;
	for (size_t i = 0; i < s->nrows; i++) {
		struct pma_scaling_row *row = &s->rows[i];
		if (row->threads == m)
			row->S_meas = s->T1_s / row->T_med_s;
		for (size_t k = 0; base && row->threads == m && k < npred; k++) {
			if (pred_cores[k] != row->cores || !isfinite(S[k]))
				continue;
			row->S_pred = S[k];
			row->S_pred_err = S_err[k];
			row->omega = omega[k];
			row->T_pred_s = s->T1_s / S[k];
		}
		if (isfinite(row->S_pred) && isfinite(row->S_meas) && row->S_meas > 0) {
			row->err_pct = 100 * (row->S_pred - row->S_meas) / row->S_meas;
			sum += fabs(row->err_pct);
			s->npred++;
		}
	}
	s->mean_abs_err_pct = s->npred ? sum / (double)s->npred : NAN;
}

/* Chooses the parameter and marks the rows fitted over it. */
static void choose_parameter(struct pma_scaling *s)
{
	uint32_t t0 = s->nrows ? s->rows[0].threads : 0, c0 = s->nrows ? s->rows[0].cores : 0;
	int threads_vary = 0, cores_vary = 0;
	uint32_t maxc = 0;

	for (size_t i = 0; i < s->nrows; i++) {
		threads_vary |= s->rows[i].threads != t0;
		cores_vary |= s->rows[i].cores != c0;
		if (s->rows[i].cores > maxc)
			maxc = s->rows[i].cores;
	}
	s->parameter = threads_vary ? "threads" : "cores";
	s->var = threads_vary ? "t" : "n";
	s->fit_other = threads_vary && cores_vary ? maxc : NAN;
	for (size_t i = 0; i < s->nrows; i++)
		s->rows[i].in_fit = !(threads_vary && cores_vary) || s->rows[i].cores == maxc;
}

static double row_x(const struct pma_scaling *s, const struct pma_scaling_row *row)
{
	return strcmp(s->parameter, "threads") == 0 ? row->threads : row->cores;
}

static int cmp_row_x_threads(const void *a, const void *b)
{
	const struct pma_scaling_row *x = a, *y = b;

	return (x->threads > y->threads) - (x->threads < y->threads);
}

static int cmp_row_x_cores(const void *a, const void *b)
{
	const struct pma_scaling_row *x = a, *y = b;

	return (x->cores > y->cores) - (x->cores < y->cores);
}

/* The fitted runs' metrics point by point (s->points, nreps, values). Returns 0 or -1. */
static int collect_points(const struct pma_trace *t, struct pma_scaling *s)
{
	size_t nruns = 0, o = 0;

	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].in_fit && row_x(s, &s->rows[i]) > 0) {
			s->npoints++;
			nruns += s->rows[i].nreps;
		}
	s->points = calloc(s->npoints ? s->npoints : 1, sizeof(double));
	s->nreps = calloc(s->npoints ? s->npoints : 1, sizeof(size_t));
	for (int k = 0; k < PMA_SM_COUNT; k++) {
		s->values[k] = calloc(nruns ? nruns : 1, sizeof(double));
		if (!s->values[k])
			return -1;
		s->measured[k] = nruns > 0;
	}
	if (!s->points || !s->nreps)
		return -1;
	/* rows are in configuration order; points go in increasing x (the rows of one parameter
	 * have distinct x) */
	struct pma_scaling_row *sorted = malloc((s->nrows ? s->nrows : 1) * sizeof(*sorted));
	if (!sorted)
		return -1;
	memcpy(sorted, s->rows, s->nrows * sizeof(*sorted));
	qsort(sorted, s->nrows, sizeof(*sorted),
	      strcmp(s->parameter, "threads") == 0 ? cmp_row_x_threads : cmp_row_x_cores);
	for (size_t i = 0, p = 0; i < s->nrows; i++) {
		const struct pma_scaling_row *row = &sorted[i];
		if (!row->in_fit || row_x(s, row) <= 0)
			continue;
		s->points[p] = row_x(s, row);
		for (uint32_t j = 0; j < t->nruns; j++) {
			const struct pma_run *r = &t->runs[j];
			if (!is_sweep_run(r) || r->info.sweep_config != row->config || !pma_run_exited_ok(r))
				continue;
			for (int k = 0; k < PMA_SM_COUNT; k++) {
				double v = run_metric(r, (enum pma_scaling_metric)k);
				s->values[k][o] = v;
				s->measured[k] &= isfinite(v);
			}
			s->nreps[p]++;
			o++;
		}
		p++;
	}
	free(sorted);
	s->measured[PMA_SM_OVERHEAD] = 0;
	return 0;
}

/* The overhead x T(x) - T(1) of every fitted run, T(1) the summarized time at x = 1 when the
 * sweep has it, else (a cores sweep) the 1-CPU runs' T(1). */
static void overheads(struct pma_scaling *s)
{
	double T1 = NAN, *tv = s->values[PMA_SM_TIME], *ov = s->values[PMA_SM_OVERHEAD];
	size_t o = 0;

	for (size_t p = 0; p < s->npoints; p++) {
		if (s->points[p] == 1) {
			double *tmp = malloc(s->nreps[p] * sizeof(double));
			if (tmp) {
				memcpy(tmp, tv + o, s->nreps[p] * sizeof(double));
				T1 = pma_pmnf_summarize(tmp, s->nreps[p]);
				free(tmp);
			}
		}
		o += s->nreps[p];
	}
	if (!isfinite(T1) && strcmp(s->parameter, "cores") == 0)
		T1 = s->T1_s;
	if (!isfinite(T1) || T1 <= 0)
		return;
	o = 0;
	for (size_t p = 0; p < s->npoints; p++)
		for (size_t k = 0; k < s->nreps[p]; k++, o++)
			if (pma_parallel_overhead_ns(&s->points[p], &tv[o], 1, T1, &ov[o]) < 0)
				return;
	s->measured[PMA_SM_OVERHEAD] = o > 0;
}

/* Fits every metric over the x of class c into fits[] (PMA_SM_COUNT entries). */
static void fit_metrics(struct pma_scaling *s, const double *x, size_t nv, enum pma_pmnf_class c,
			unsigned unit, struct pma_scaling_fit *fits)
{
	for (int k = PMA_SM_OVERHEAD; k < PMA_SM_COUNT; k++) {
		struct pma_scaling_fit *f = &fits[k];
		f->metric = (enum pma_scaling_metric)k;
		f->cls = c;
		if (!x) {
			snprintf(f->why, sizeof(f->why), "out of memory");
		} else if (!s->measured[k]) {
			snprintf(f->why, sizeof(f->why), "%s",
				 k == PMA_SM_CYCLES ? "no cycles counter in the runs" :
				 k == PMA_SM_OVERHEAD ? "no T(1): the sweep has no x = 1" :
				 "not measured in every run");
		} else if (pma_pmnf_fit_runs(x, s->values[k], nv, c, unit,
					     (k == PMA_SM_OVERHEAD ? PMA_PMNF_ZERO_AT_1 : 0) |
					     PMA_PMNF_AGGREGATE(s->aggregate), &f->fit,
					     f->why, sizeof(f->why)) == 0) {
			f->fitted = 1;
			pma_pmnf_growth(&f->fit.model, s->var, f->growth, sizeof(f->growth));
		}
	}
}

/* The fits over every x and, when asked, over each class. */
static void fit_all(struct pma_scaling *s)
{
	size_t nv = 0;
	double *x;

	for (size_t p = 0; p < s->npoints; p++)
		nv += s->nreps[p];
	x = malloc((nv ? nv : 1) * sizeof(double));
	for (size_t p = 0, o = 0; x && p < s->npoints; p++)
		for (size_t k = 0; k < s->nreps[p]; k++)
			x[o++] = s->points[p];
	fit_metrics(s, x, nv, PMA_PMNF_ALL, 1, s->fits);
	for (int c = 0; s->class_unit && c < PMA_SCALING_NCLASSES; c++)
		fit_metrics(s, x, nv, (enum pma_pmnf_class)(PMA_PMNF_PO2 + c), s->class_unit,
			    s->class_fits[c]);
	free(x);
}

/* The largest thread count above its CPU count among the fitted rows of a threads sweep. */
static void find_oversubscription(struct pma_scaling *s)
{
	for (size_t i = 0; strcmp(s->parameter, "threads") == 0 && i < s->nrows; i++) {
		const struct pma_scaling_row *row = &s->rows[i];
		if (row->in_fit && row->cores && row->threads > row->cores &&
		    row->threads > s->oversub_threads) {
			s->oversub_threads = row->threads;
			s->oversub_cores = row->cores;
		}
	}
}

int pma_scaling_compute(const struct pma_trace *t, const struct pma_run *base,
			const uint32_t *pred_cores, const double *S, const double *S_err,
			const double *omega, size_t npred, unsigned class_unit,
			enum pma_pmnf_aggregate aggregate, struct pma_scaling *out)
{
	int any = 0;

	memset(out, 0, sizeof(*out));
	out->class_unit = class_unit;
	out->aggregate = aggregate;
	out->T1_s = out->m = out->mean_abs_err_pct = out->fit_other = NAN;
	for (uint32_t i = 0; i < t->nruns; i++)
		any |= is_sweep_run(&t->runs[i]);
	if (!any)
		return 0;
	out->present = 1;
	if (make_rows(t, out) < 0 || find_T1(t, base, out) < 0)
		return -1;
	compare(out, base, pred_cores, S, S_err, omega, npred);
	choose_parameter(out);
	if (collect_points(t, out) < 0)
		return -1;
	overheads(out);
	fit_all(out);
	if (out->measured[PMA_SM_OVERHEAD])
		find_oversubscription(out);
	return 0;
}

void pma_scaling_free(struct pma_scaling *s)
{
	if (!s)
		return;
	free(s->rows);
	free(s->points);
	free(s->nreps);
	for (int k = 0; k < PMA_SM_COUNT; k++)
		free(s->values[k]);
	memset(s, 0, sizeof(*s));
}
