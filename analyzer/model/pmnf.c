// SPDX-License-Identifier: MIT
// pmnf.c: one-term PMNF scaling models selected by leave-one-out cross-validation (Iwainsky et al. §2, §4).

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#include "pmnf.h"
#include "pmt.h"

/* Iwainsky et al. §2: I as fractions, in increasing order. */
static const unsigned I_frac[PMA_PMNF_N_I][2] = {
	{ 0, 1 }, { 1, 4 }, { 1, 3 }, { 1, 2 }, { 2, 3 }, { 3, 4 }, { 1, 1 },
	{ 5, 4 }, { 4, 3 }, { 3, 2 }, { 5, 3 }, { 7, 4 }, { 2, 1 },
};

double pma_pmnf_exponent(const struct pma_pmnf_model *m)
{
	return m->i_den ? (double)m->i_num / m->i_den : 0;
}

/* The term without its coefficient, x^i log2^j(x). */
static double term(const struct pma_pmnf_model *m, double x)
{
	double g = m->i_num ? pow(x, pma_pmnf_exponent(m)) : 1;

	for (unsigned k = 0; k < m->j; k++)
		g *= log2(x);
	return g;
}

double pma_pmnf_eval(const struct pma_pmnf_model *m, double x)
{
	return m->c0 + (m->i_num || m->j ? m->c1 * term(m, x) : 0);
}

/* "0.25", "1.33", "1.5", "2": two decimals at most, trailing zeros cut, as Table 1 prints them. */
static void format_exponent(double e, char *buf, size_t size)
{
	snprintf(buf, size, "%.2f", e);
	char *dot = strchr(buf, '.');
	if (!dot)
		return;
	char *end = buf + strlen(buf);
	while (end > dot + 1 && end[-1] == '0')
		*--end = '\0';
	if (end == dot + 1)
		*dot = '\0';
}

char *pma_pmnf_growth(const struct pma_pmnf_model *m, const char *var, char *buf, size_t size)
{
	char e[16], pw[48] = "", lg[48] = "";

	if (!size)
		return buf;
	if (!var)
		var = "x";
	if (!m->i_num && !m->j) {
		snprintf(buf, size, "constant");
		return buf;
	}
	if (m->i_num) {
		format_exponent(pma_pmnf_exponent(m), e, sizeof(e));
		if (m->i_num == m->i_den)
			snprintf(pw, sizeof(pw), "%s", var);
		else
			snprintf(pw, sizeof(pw), "%s^%s", var, e);
	}
	if (m->j == 1)
		snprintf(lg, sizeof(lg), "log %s", var);
	else if (m->j > 1)
		snprintf(lg, sizeof(lg), "log^%u %s", m->j, var);
	snprintf(buf, size, "%s%s%s", pw, *pw && *lg ? " " : "", lg);
	return buf;
}

/* Checks the points every fit needs: n >= 3, finite values, x > 0, and x >= 1 for log terms. */
static int check_points(const double *x, const double *y, size_t n, unsigned j, char *why,
			size_t whysize)
{
	if (n < 3) {
		snprintf(why, whysize, "%zu distinct x: a one-term model with a constant needs at "
			 "least 3 for its leave-one-out adjusted R²", n);
		return PMT_E_INVAL;
	}
	for (size_t k = 0; k < n; k++) {
		if (!isfinite(x[k]) || !isfinite(y[k]) || x[k] <= 0) {
			snprintf(why, whysize, "point %zu (x %g, value %g) is not a finite value at "
				 "a positive x", k, x[k], y[k]);
			return PMT_E_INVAL;
		}
		if (j && x[k] < 1) {
			snprintf(why, whysize, "x %g < 1: log2 terms need every x >= 1", x[k]);
			return PMT_E_INVAL;
		}
	}
	return 0;
}

static double total_sum_of_squares(const double *y, size_t n)
{
	double mean = 0, tss = 0;

	for (size_t k = 0; k < n; k++)
		mean += y[k];
	mean /= n;
	for (size_t k = 0; k < n; k++)
		tss += (y[k] - mean) * (y[k] - mean);
	return tss;
}

/* 2|p - y| / (|p| + |y|), 0 when both are 0 (Extra-P's compute_cost). */
static double smape_term(double p, double y)
{
	double s = fabs(p) + fabs(y);

	return s != 0 ? 2 * fabs(p - y) / s : 0;
}

/* Least squares c0, c1 of y = c0 + c1 g over n points. gsl_fit_linear reports no errors through
 * the GSL handler (it only divides by the spread of g, which distinct x keep non-zero). */
static void fit_line(const double *g, const double *y, size_t n, double *c0, double *c1)
{
	double cov00, cov01, cov11, sumsq;

	gsl_fit_linear(g, 1, y, 1, n, c0, c1, &cov00, &cov01, &cov11, &sumsq);
}

/* LOO core with g[] = term(x) precomputed; scratch holds 2 (n - 1) doubles. Point `skip` (n:
 * none) is left out of the SMAPE only (PMA_PMNF_ZERO_AT_1). */
static void loo_core(const double *g, const double *y, size_t n, size_t skip, double *scratch,
		     double *press, double *smape)
{
	double *gt = scratch, *yt = scratch + (n - 1);

	*press = 0;
	*smape = 0;
	for (size_t k = 0; k < n; k++) {
		size_t t = 0;
		for (size_t l = 0; l < n; l++) {
			if (l == k)
				continue;
			gt[t] = g[l];
			yt[t++] = y[l];
		}
		double c0, c1;
		fit_line(gt, yt, n - 1, &c0, &c1);
		double p = c0 + c1 * g[k];
		*press += (y[k] - p) * (y[k] - p);
		if (k != skip)
			*smape += smape_term(p, y[k]);
	}
	*smape *= 100.0 / (double)(n - (skip < n));
}

static double adjusted_R2(double press, double tss, size_t n)
{
	return tss > 0 ? 1 - (press / tss) * (double)(n - 1) / (double)(n - 2) : NAN;
}

int pma_pmnf_loo(const double *x, const double *y, size_t n, const struct pma_pmnf_model *m,
		 double *PRESS, double *SMAPE, double *R2_adj, char *why, size_t whysize)
{
	int rc = check_points(x, y, n, m->j, why, whysize);
	if (rc)
		return rc;
	double *g = malloc(3 * n * sizeof(*g));
	if (!g) {
		snprintf(why, whysize, "out of memory");
		return PMT_E_NOMEM;
	}
	double press, smape;
	for (size_t k = 0; k < n; k++)
		g[k] = term(m, x[k]);
	loo_core(g, y, n, n, g + n, &press, &smape);
	if (PRESS)
		*PRESS = press;
	if (SMAPE)
		*SMAPE = smape;
	if (R2_adj)
		*R2_adj = adjusted_R2(press, total_sum_of_squares(y, n), n);
	free(g);
	return 0;
}

/* Faster than log x: any power of x, or log^2 (Iwainsky et al. §4.2 count O(log^2 t) among the
 * "worse-than-logarithmic" barriers). */
static int grows_faster_than_log(const struct pma_pmnf_model *m)
{
	return m->c1 > 0 && (m->i_num > 0 || m->j >= 2);
}

int pma_pmnf_fit_points(const double *x, const double *y, size_t n, struct pma_pmnf_fit *out,
			char *why, size_t whysize)
{
	return pma_pmnf_fit_points_ex(x, y, n, 0, out, why, whysize);
}

int pma_pmnf_fit_points_ex(const double *x, const double *y, size_t n, unsigned flags,
			   struct pma_pmnf_fit *out, char *why, size_t whysize)
{
	size_t skip = n;
	int rc = check_points(x, y, n, 0, why, whysize);
	if (rc)
		return rc;
	for (size_t k = 0; k < n; k++)
		for (size_t l = k + 1; l < n; l++)
			if (x[k] == x[l]) {
				snprintf(why, whysize, "x %g appears twice: summarize repetitions "
					 "first", x[k]);
				return PMT_E_INVAL;
			}

	for (size_t k = 0; k < n && (flags & PMA_PMNF_ZERO_AT_1); k++)
		if (x[k] == 1)
			skip = k;

	memset(out, 0, sizeof(*out));
	out->spread_pct = out->change_pct = NAN;
	out->n = n;
	out->smape_points = n - (skip < n);
	out->few_points = n < PMA_PMNF_MIN_POINTS;
	out->log_allowed = 1;
	for (size_t k = 0; k < n; k++)
		if (x[k] < 1)
			out->log_allowed = 0;
	out->TSS = total_sum_of_squares(y, n);

	/* The constant model first, scored in sample as Extra-P's create_constant_model does. */
	double mean = 0;
	for (size_t k = 0; k < n; k++)
		mean += y[k];
	mean /= n;
	out->model = (struct pma_pmnf_model){ 0, 1, 0, mean, 0 };
	out->PRESS = out->TSS;
	out->R2_adj = 1;
	for (size_t k = 0; k < n; k++)
		if (k != skip)
			out->SMAPE += smape_term(mean, y[k]);
	out->SMAPE *= 100.0 / (double)out->smape_points;
	out->tried = 1;

	/* A constant series leaves nothing to explain (Extra-P: "use constant model when cost is 0"). */
	if (out->TSS > 0) {
		double *g = malloc(3 * n * sizeof(*g));
		if (!g) {
			snprintf(why, whysize, "out of memory");
			return PMT_E_NOMEM;
		}
		for (unsigned ii = 0; ii < PMA_PMNF_N_I; ii++) {
			for (unsigned j = 0; j < PMA_PMNF_N_J; j++) {
				struct pma_pmnf_model h = { I_frac[ii][0], I_frac[ii][1], j, 0, 0 };
				if ((!h.i_num && !j) || (j && !out->log_allowed))
					continue;
				out->tried++;
				for (size_t k = 0; k < n; k++)
					g[k] = term(&h, x[k]);
				fit_line(g, y, n, &h.c0, &h.c1);
				double contribution = 0;
				for (size_t k = 0; k < n; k++)
					if (k != skip)
						contribution = fmax(contribution,
								    fabs(h.c1 * g[k] / y[k]));
				double press, smape;
				loo_core(g, y, n, skip, g + n, &press, &smape);
				if (h.c1 == 0 || contribution < PMA_PMNF_EPSILON || !isfinite(press) ||
				    !isfinite(smape)) {
					out->rejected++;
					continue;
				}
				if (smape < out->SMAPE) {
					out->model = h;
					out->SMAPE = smape;
					out->PRESS = press;
					out->R2_adj = adjusted_R2(press, out->TSS, n);
				}
			}
		}
		free(g);
	}
	out->valid = out->R2_adj >= PMA_PMNF_R2_VALID &&
		     (out->model.i_num || out->model.j || out->SMAPE <= PMA_PMNF_CONST_SMAPE_VALID);
	out->scalability_problem = out->valid && grows_faster_than_log(&out->model);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double u = *(const double *)a, v = *(const double *)b;

	return (u > v) - (u < v);
}

double pma_pmnf_summarize(double *values, size_t K)
{
	if (!K)
		return NAN;
	for (size_t k = 0; k < K; k++)
		if (!isfinite(values[k]))
			return NAN;
	qsort(values, K, sizeof(*values), cmp_double);
	if (K < 4)
		return K % 2 ? values[K / 2] : (values[K / 2 - 1] + values[K / 2]) / 2;
	size_t drop = K / 4;
	double sum = 0;
	for (size_t k = drop; k < K - drop; k++)
		sum += values[k];
	return sum / (double)(K - 2 * drop);
}

double pma_pmnf_aggregate(double *values, size_t K, enum pma_pmnf_aggregate a)
{
	double sum = 0;

	if (a == PMA_PMNF_AGG_TRIMMED)
		return pma_pmnf_summarize(values, K);
	if (!K || (unsigned)a >= PMA_PMNF_AGG_COUNT)
		return NAN;
	for (size_t k = 0; k < K; k++) {
		if (!isfinite(values[k]))
			return NAN;
		sum += values[k];
	}
	if (a == PMA_PMNF_AGG_MEAN)
		return sum / (double)K;
	qsort(values, K, sizeof(*values), cmp_double);
	if (a == PMA_PMNF_AGG_MIN)
		return values[0];
	return K % 2 ? values[K / 2] : (values[K / 2 - 1] + values[K / 2]) / 2;
}

static const char *const aggregate_names[PMA_PMNF_AGG_COUNT] = {
	[PMA_PMNF_AGG_TRIMMED] = "trimmed",
	[PMA_PMNF_AGG_MEDIAN] = "median",
	[PMA_PMNF_AGG_MEAN] = "mean",
	[PMA_PMNF_AGG_MIN] = "min",
};

const char *pma_pmnf_aggregate_name(enum pma_pmnf_aggregate a)
{
	return (unsigned)a < PMA_PMNF_AGG_COUNT ? aggregate_names[a] : "?";
}

const char *pma_pmnf_aggregate_what(enum pma_pmnf_aggregate a)
{
	switch (a) {
	case PMA_PMNF_AGG_TRIMMED:
		return "the trimmed mean of its repetitions (Iwainsky et al. 4.1: the middle half from 4 "
		       "on, else the median)";
	case PMA_PMNF_AGG_MEDIAN: return "the median of its repetitions";
	case PMA_PMNF_AGG_MEAN: return "the mean of its repetitions (as Extra-P by default)";
	case PMA_PMNF_AGG_MIN: return "the minimum of its repetitions";
	default: return "?";
	}
}

int pma_pmnf_aggregate_parse(const char *s)
{
	for (int a = 0; s && a < PMA_PMNF_AGG_COUNT; a++)
		if (strcmp(s, aggregate_names[a]) == 0)
			return a;
	return -1;
}

const char *pma_pmnf_class_name(enum pma_pmnf_class c)
{
	switch (c) {
	case PMA_PMNF_ALL: return "all";
	case PMA_PMNF_PO2: return "po2";
	case PMA_PMNF_ODD: return "odd";
	case PMA_PMNF_EVEN: return "even";
	}
	return "?";
}

int pma_pmnf_in_class(double x, enum pma_pmnf_class c, unsigned unit)
{
	if (c == PMA_PMNF_ALL)
		return 1;
	if (!(x >= 1 && x <= 9007199254740992.0) || x != floor(x) || !unit)
		return 0;
	uint64_t v = (uint64_t)x;
	int po2 = (v & (v - 1)) == 0;
	if (c == PMA_PMNF_PO2)
		return po2;
	if (po2 || v % unit)
		return 0;
	return c == PMA_PMNF_ODD ? (v / unit) % 2 == 1 : (v / unit) % 2 == 0;
}

/* The repetitions' spread against the model's change over the range (struct pma_pmnf_fit:
 * spread_pct, change_pct, noisy; PMA_PMNF_NOISY_RATIO): n fitted points (px, py), the nrange
 * ranges of the points with repetitions (sorted here by the median). */
static void weigh_noise(const double *px, const double *py, size_t n, double *range,
			size_t nrange, struct pma_pmnf_fit *out)
{
	double scale = 0, lo = INFINITY, hi = -INFINITY;

	for (size_t k = 0; k < n; k++) {
		double f = pma_pmnf_eval(&out->model, px[k]);
		scale += fabs(py[k]) / (double)n;
		lo = fmin(lo, f);
		hi = fmax(hi, f);
	}
	if (!nrange || !(scale > 0) || !isfinite(hi - lo))
		return;
	double spread = pma_pmnf_aggregate(range, nrange, PMA_PMNF_AGG_MEDIAN);
	out->spread_pct = 100 * spread / scale;
	out->change_pct = 100 * (hi - lo) / scale;
	out->noisy = (out->model.i_num || out->model.j) &&
		     out->spread_pct >= PMA_PMNF_NOISY_RATIO * out->change_pct;
	if (out->noisy)
		out->scalability_problem = 0;
}

int pma_pmnf_fit_runs(const double *x, const double *v, size_t nv, enum pma_pmnf_class c,
		      unsigned unit, unsigned flags, struct pma_pmnf_fit *out, char *why,
		      size_t whysize)
{
	/* px: distinct x of the class; py: their summaries; reps: scratch for one x's values;
	 * range: the ranges of the x with 2 or more runs (nrange of them). */
	double *px = malloc(4 * (nv ? nv : 1) * sizeof(double));
	if (!px) {
		snprintf(why, whysize, "out of memory");
		return PMT_E_NOMEM;
	}
	double *py = px + nv, *reps = py + nv, *range = reps + nv;
	size_t n = 0, nrange = 0;
	for (size_t r = 0; r < nv; r++) {
		if (!pma_pmnf_in_class(x[r], c, unit))
			continue;
		int seen = 0;
		for (size_t k = 0; k < n && !seen; k++)
			seen = px[k] == x[r];
		if (seen)
			continue;
		size_t K = 0;
		for (size_t s = r; s < nv; s++)
			if (x[s] == x[r])
				reps[K++] = v[s];
		px[n] = x[r];
		py[n++] = pma_pmnf_aggregate(reps, K, PMA_PMNF_AGGREGATE_OF(flags));
		if (K >= 2) {
			/* the middle half from 4 runs on: one wild run does not make a sweep noisy */
			size_t drop = K >= 4 ? K / 4 : 0;
			qsort(reps, K, sizeof(*reps), cmp_double);
			range[nrange++] = reps[K - 1 - drop] - reps[drop];
		}
	}
	int rc = PMT_E_INVAL;
	if (n < 3)
		snprintf(why, whysize, "%zu distinct x in class %s (of %zu runs): a fit needs at "
			 "least 3", n, pma_pmnf_class_name(c), nv);
	else
		rc = pma_pmnf_fit_points_ex(px, py, n, flags & ~PMA_PMNF_AGGREGATE(0xfu), out, why,
					    whysize);
	if (rc == 0)
		weigh_noise(px, py, n, range, nrange, out);
	free(px);
	return rc;
}

int pma_parallel_overhead_ns(const double *x, const double *T_ns, size_t n, double T1_ns,
			     double *overhead_ns)
{
	if (!isfinite(T1_ns) || T1_ns <= 0)
		return PMT_E_INVAL;
	for (size_t k = 0; k < n; k++)
		if (!isfinite(T_ns[k]) || T_ns[k] <= 0 || !(x[k] > 0) || !isfinite(x[k]))
			return PMT_E_INVAL;
	for (size_t k = 0; k < n; k++)
		overhead_ns[k] = x[k] * T_ns[k] - T1_ns;
	return 0;
}
