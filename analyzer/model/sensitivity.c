/* SPDX-License-Identifier: MIT */
/* sensitivity.c: sensitivity curves, k_ok, k_bad and the per-process cache and bandwidth bounds
 * of Casas & Bronevetsky §5.2, from runtimes with k interferers. Pure computation. */
#include "sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, min and max of v[0..n-1] (n >= 1) without changing v. */
static void summarize(const double *v, size_t n, double *med, double *lo, double *hi)
{
	double *s = malloc(n * sizeof(*s));

	if (!s) { /* the median of a copy we cannot make: fall back to the mean */
		double sum = 0;
		*lo = *hi = v[0];
		for (size_t i = 0; i < n; i++) {
			sum += v[i];
			*lo = v[i] < *lo ? v[i] : *lo;
			*hi = v[i] > *hi ? v[i] : *hi;
		}
		*med = sum / (double)n;
		return;
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	*med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	*lo = s[0];
	*hi = s[n - 1];
	free(s);
}

static double left_of(const struct pma_sens_input *in, size_t l)
{
	return in->kind == PMA_SENS_CACHE ? in->C_bytes[l] : in->B_bytes_per_s - in->k[l] * in->BW1_bytes_per_s;
}

static int check(const struct pma_sens_input *in, char *why, size_t whysize)
{
	if (in->nlevels < 2 || in->nlevels > PMA_SENS_MAX_LEVELS || in->nreps == 0 || !in->k || !in->runtime_ns) {
		snprintf(why, whysize, "want 2 to %d levels and at least one repetition", PMA_SENS_MAX_LEVELS);
		return -1;
	}
	if (in->kind != PMA_SENS_CACHE && in->kind != PMA_SENS_BANDWIDTH) {
		snprintf(why, whysize, "unknown interference kind %d", (int)in->kind);
		return -1;
	}
	if (in->p == 0 || in->threshold < 0 || !isfinite(in->threshold)) {
		snprintf(why, whysize, "processes p must be >= 1 and the threshold >= 0");
		return -1;
	}
	if (in->k[0] != 0) {
		snprintf(why, whysize, "the first level must be the run without interference (k = 0), not k = %u",
			 in->k[0]);
		return -1;
	}
	if (in->kind == PMA_SENS_CACHE && !in->C_bytes) {
		snprintf(why, whysize, "cache sensitivity needs the capacity left at each level");
		return -1;
	}
	if (in->kind == PMA_SENS_BANDWIDTH && !(in->BW1_bytes_per_s > 0 && isfinite(in->B_bytes_per_s))) {
		snprintf(why, whysize, "bandwidth sensitivity needs B and BW1 > 0");
		return -1;
	}
	for (size_t l = 0; l < in->nlevels; l++) {
		double left = left_of(in, l);

		if (l && in->k[l] <= in->k[l - 1]) {
			snprintf(why, whysize, "levels must increase: k = %u after k = %u", in->k[l], in->k[l - 1]);
			return -1;
		}
		for (size_t r = 0; r < in->nreps; r++) {
			double t = in->runtime_ns[l * in->nreps + r];
			if (!(t > 0) || !isfinite(t)) {
				snprintf(why, whysize, "runtime %zu of level k = %u is not a positive number", r, in->k[l]);
				return -1;
			}
		}
		if (in->kind == PMA_SENS_CACHE && (!(left >= 0) || !isfinite(left))) {
			snprintf(why, whysize, "capacity left with k = %u is not a number >= 0", in->k[l]);
			return -1;
		}
		if (in->kind == PMA_SENS_BANDWIDTH && !(left > 0)) {
			snprintf(why, whysize, "%u BWThrs take all of B (%.3g bytes/s): bandwidth left %.3g", in->k[l],
				 in->B_bytes_per_s, left);
			return -1;
		}
	}
	return 0;
}

int pma_sensitivity(const struct pma_sens_input *in, struct pma_sens_result *res, char *why, size_t whysize)
{
	double thr;
	size_t l, bad = 0;

	memset(res, 0, sizeof(*res));
	res->k_ok = res->k_bad = -1;
	if (check(in, why, whysize) < 0)
		return -1;
	thr = in->threshold > 0 ? in->threshold : PMA_SENS_THRESHOLD_DEFAULT;
	res->npoints = in->nlevels;
	for (l = 0; l < in->nlevels; l++) {
		struct pma_sens_point *pt = &res->points[l];

		pt->k = in->k[l];
		pt->left = left_of(in, l);
		summarize(in->runtime_ns + l * in->nreps, in->nreps, &pt->runtime_ns, &pt->min_ns, &pt->max_ns);
		pt->slowdown = pt->runtime_ns / res->points[0].runtime_ns - 1;
		if (l && pt->slowdown > thr) {
			/* one repetition: min = max = the run, no noise to compare with */
			pt->degraded = in->nreps > 1 && pt->min_ns > res->points[0].max_ns;
			pt->within_noise = !pt->degraded;
		}
	}
	if (in->nreps == 1) {
		res->verdict = PMA_SENS_NO_NOISE;
		return 0;
	}
	for (l = 1; l < in->nlevels && !res->points[l].degraded; l++)
		;
	if (l == in->nlevels) {
		res->verdict = PMA_SENS_NOT_SENSITIVE;
		return 0;
	}
	bad = l;
	res->verdict = PMA_SENS_BOUNDED;
	res->k_bad = (int)in->k[bad];
	res->k_ok = (int)in->k[bad - 1]; /* level 0 is never degraded, so bad >= 1 */
	for (l = bad + 1; l < in->nlevels; l++)
		res->nonmonotonic |= !res->points[l].degraded;
	res->need_lo = res->points[bad].left / in->p;
	res->need_hi = res->points[bad - 1].left / in->p;
	return 0;
}
