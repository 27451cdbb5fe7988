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

/* Row w against the measurement S (the runs' range [lo, hi]): outside when the prediction's ±S
 * misses the range; the model's error, the part of |S - S_pred| that neither the runs' spread
 * nor the prediction's ±S explains. */
static void judge(struct pma_runcheck_row *w, double S, double lo, double hi)
{
	double Sp = w->S_pred, dS = isfinite(w->S_pred_err) ? w->S_pred_err : 0;

	w->outside = isfinite(Sp) && (Sp + w->S_pred_err < lo || Sp - w->S_pred_err > hi);
	w->model_rel = 0;
	if (isfinite(Sp) && Sp > 0) {
		double d = S - Sp;
		w->model_rel = sqrt(fmax(0, d * d - w->S_sd * w->S_sd - dS * dS)) / Sp;
	}
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
		w->S_sd = w->S * hypot(se1, median_rel_se(scratch, nn, Tn));
		w->S_own = w->S;
		w->S_own_min = lo;
		w->S_own_max = hi;
		judge(w, w->S, lo, hi);
		out->n++;
	}
	free(scratch);
	return out->n;
}

/* How far row w's prediction is from its runs' range (their own time where corrected), relative
 * to the nearer end. */
static double miss(const struct pma_runcheck_row *w)
{
	if (w->S_pred < w->S_own_min)
		return (w->S_own_min - w->S_pred) / w->S_own_min;
	return (w->S_pred - w->S_own_max) / w->S_own_max;
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

double pma_runcheck_spread_rel(const struct pma_runcheck *c, uint32_t n)
{
	double best_dist, e = 0, ln;

	if (!c->n || n < 1)
		return 0;
	ln = log2(n);
	best_dist = ln; /* n = 1: spread 0 */
	for (size_t i = 0; i < c->n; i++) {
		const struct pma_runcheck_row *w = &c->rows[i];
		double dist = fabs(ln - log2(w->cores));
		double rel = w->S_own > 0 && isfinite(w->S_sd) ? w->S_sd / w->S_own : 0;
		if (dist < best_dist || (dist == best_dist && rel > e)) {
			best_dist = dist;
			e = rel;
		}
	}
	return e;
}

void pma_runcheck_set_total(struct pma_runcheck *c, const uint32_t *cores, const double *S_err,
			    size_t ncores)
{
	for (size_t i = 0; i < c->n; i++)
		for (size_t j = 0; j < ncores; j++)
			if (cores[j] == c->rows[i].cores)
				c->rows[i].S_err_total = S_err[j];
}

/* Medians over the runs on `want` CPUs of the wall times less other processes' time (*own), of
 * that time (*other) and of its share of each wall time (*pct, %); scratch holds nruns, and is
 * left holding the runs' own times, sorted. Returns the number of runs. */
static size_t own_on(const double *wall_s, const double *other_s, const uint32_t *cpus,
		     size_t nruns, uint32_t want, double *scratch, double *own, double *other,
		     double *pct)
{
	size_t k = 0;

	for (int pass = 2; pass >= 0; pass--) {
		k = 0;
		for (size_t i = 0; i < nruns; i++) {
			double o;
			if (cpus[i] != want || !(wall_s[i] > 0) || !isfinite(wall_s[i]))
				continue;
			o = isfinite(other_s[i]) ? fmin(fmax(other_s[i], 0), wall_s[i]) : 0;
			scratch[k++] = pass == 2 ? o : pass == 1 ? 100 * o / wall_s[i] : wall_s[i] - o;
		}
		if (!k)
			return 0;
		*(pass == 2 ? other : pass == 1 ? pct : own) =
			pma_pmnf_aggregate(scratch, k, PMA_PMNF_AGG_MEDIAN);
	}
	return k;
}

size_t pma_runcheck_set_other(struct pma_runcheck *c, const double *wall_s, const double *other_s,
			      const uint32_t *cpus, size_t nruns)
{
	double *scratch = nruns ? malloc(nruns * sizeof(*scratch)) : NULL;
	double T1, o1, p1, se1;
	size_t ncorr = 0, n1;

	if (!scratch)
		return 0;
	if (!(n1 = own_on(wall_s, other_s, cpus, nruns, 1, scratch, &T1, &o1, &p1)) || !(T1 > 0)) {
		free(scratch);
		return 0;
	}
	se1 = median_rel_se(scratch, n1, T1); /* the runs' own times on one CPU */
	for (size_t j = 0; j < c->n; j++) {
		struct pma_runcheck_row *w = &c->rows[j];
		double Tn, on, pn;
		size_t nn = own_on(wall_s, other_s, cpus, nruns, w->cores, scratch, &Tn, &on, &pn);

		if (!nn || !(Tn > 0) || !(scratch[0] > 0))
			continue;
		w->other_1_s = o1;
		w->other_1_pct = p1;
		w->other_n_s = on;
		w->other_n_pct = pn;
		w->corrected = p1 > 100 * PMA_RUNCHECK_OTHER_MIN || pn > 100 * PMA_RUNCHECK_OTHER_MIN;
		if (!w->corrected)
			continue; /* S_own stays the wall times' S */
		w->S_own = T1 / Tn;
		w->S_own_min = T1 / scratch[nn - 1];
		w->S_own_max = T1 / scratch[0];
		/* the spread of the S judged: the runs' own times, not their wall times */
		w->S_sd = w->S_own * hypot(se1, median_rel_se(scratch, nn, Tn));
		judge(w, w->S_own, w->S_own_min, w->S_own_max);
		ncorr++;
	}
	free(scratch);
	return ncorr;
}
