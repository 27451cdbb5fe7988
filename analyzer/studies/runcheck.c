/* SPDX-License-Identifier: MIT */
/* runcheck.c: the predictions against the analyzed trace's own runs (runcheck.h). */
#include "runcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/pmnf.h"

/* The median of the wall times of the runs on `want` CPUs (scratch holds nruns: those wall
 * times, sorted), 0 when none; *count their number. */
static double median_on(const double *wall_s, const uint32_t *cpus, size_t nruns, uint32_t want,
			double *scratch, size_t *count)
{
	size_t k = 0;

	for (size_t i = 0; i < nruns; i++)
		if (cpus[i] == want && wall_s[i] > 0 && isfinite(wall_s[i]))
			scratch[k++] = wall_s[i];
	*count = k;
	return k ? pma_pmnf_aggregate(scratch, k, PMA_PMNF_AGG_MEDIAN) : 0;
}

/* The standard error of the median of the k values v[] relative to med: 1.2533 (sqrt(pi / 2),
 * the median's efficiency for normal data) times the sample standard deviation over sqrt(k); 0
 * for k < 2. */
static double median_rel_se(const double *v, size_t k, double med)
{
	double mean = 0, ss = 0;

	if (k < 2 || !(med > 0))
		return 0;
	for (size_t i = 0; i < k; i++)
		mean += v[i] / (double)k;
	for (size_t i = 0; i < k; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return 1.2533141373155 * sqrt(ss / (double)(k - 1)) / sqrt((double)k) / med;
}

size_t pma_runcheck_rows(const double *wall_s, const uint32_t *cpus, size_t nruns,
			 const uint32_t *cores, const double *S, const double *S_err, size_t ncores,
			 struct pma_runcheck *out)
{
	double *scratch = nruns ? malloc(nruns * sizeof(*scratch)) : NULL;
	double T1, se1;
	size_t n1;

	memset(out, 0, sizeof(*out));
	if (!scratch)
		return 0;
	T1 = median_on(wall_s, cpus, nruns, 1, scratch, &n1);
	se1 = median_rel_se(scratch, n1, T1);
	for (size_t j = 0; n1 && j < ncores && out->n < PMA_RUNCHECK_MAX; j++) {
		struct pma_runcheck_row *w = &out->rows[out->n];
		size_t nn;
		double Tn, lo, hi;

		if (cores[j] <= 1 || !(Tn = median_on(wall_s, cpus, nruns, cores[j], scratch, &nn)))
			continue;
		/* scratch holds the runs on n CPUs, sorted: the slowest gives the least S */
		lo = T1 / scratch[nn - 1];
		hi = T1 / scratch[0];
		*w = (struct pma_runcheck_row){ .cores = cores[j], .runs_1 = n1, .runs_n = nn,
						.S = T1 / Tn, .S_min = lo, .S_max = hi,
						.S_pred = S[j], .S_pred_err = S_err[j] };
		w->outside = isfinite(S[j]) && (S[j] + S_err[j] < lo || S[j] - S_err[j] > hi);
		w->S_sd = w->S * hypot(se1, median_rel_se(scratch, nn, Tn));
		if (isfinite(S[j]) && S[j] > 0) {
			double d = w->S - S[j], dS = isfinite(S_err[j]) ? S_err[j] : 0;
			w->model_rel = sqrt(fmax(0, d * d - w->S_sd * w->S_sd - dS * dS)) / S[j];
		}
		out->n++;
	}
	free(scratch);
	return out->n;
}

/* How far row w's prediction is from its runs' range, relative to the nearer end. */
static double miss(const struct pma_runcheck_row *w)
{
	if (w->S_pred < w->S_min)
		return (w->S_min - w->S_pred) / w->S_min;
	return (w->S_pred - w->S_max) / w->S_max;
}

const struct pma_runcheck_row *pma_runcheck_worst(const struct pma_runcheck *c)
{
	const struct pma_runcheck_row *worst = NULL;

	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].outside && (!worst || miss(&c->rows[i]) > miss(worst)))
			worst = &c->rows[i];
	return worst;
}

double pma_runcheck_model_rel(const struct pma_runcheck *c, uint32_t n)
{
	double rate = 0, best_dist = INFINITY, e = 0, ln;

	if (!c->n || n < 1)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].cores > 1)
			rate = fmax(rate, c->rows[i].model_rel / log2(c->rows[i].cores));
	/* the nearest point in log2 n: n = 1 (error 0) or a row; of two as near, the larger error */
	ln = log2(n);
	best_dist = ln;
	for (size_t i = 0; i < c->n; i++) {
		double dist = fabs(ln - log2(c->rows[i].cores));
		if (dist < best_dist || (dist == best_dist && c->rows[i].model_rel > e)) {
			best_dist = dist;
			e = c->rows[i].model_rel;
		}
	}
	return e + rate * best_dist;
}

void pma_runcheck_set_total(struct pma_runcheck *c, const uint32_t *cores, const double *S_err,
			    size_t ncores)
{
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < ncores; j++)
			if (cores[j] == c->rows[i].cores)
				c->rows[i].S_err_total = S_err[j];
}
