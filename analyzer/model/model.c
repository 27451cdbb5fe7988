/* SPDX-License-Identifier: MIT */
/* model.c: Tudor & Teo's speedup model (eq. 1-6) over a streamed parallelism profile. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"

void pma_profile_init(struct pma_profile *p)
{
	memset(p, 0, sizeof(*p));
	/* without the series the model is still right: only the over-time plot is missing */
	p->series = calloc(1, sizeof(*p->series));
}

/* Merges neighbouring buckets pairwise: half as many, twice as wide. */
static void series_halve(struct pma_series *s)
{
	size_t j = 0;

	for (size_t i = 0; i < s->n; i += 2, j++) {
		double a = s->AdT_ns[i], d = s->dT_ns[i];
		if (i + 1 < s->n) {
			a += s->AdT_ns[i + 1];
			d += s->dT_ns[i + 1];
		}
		s->AdT_ns[j] = a;
		s->dT_ns[j] = d;
	}
	memset(s->AdT_ns + j, 0, (PMA_SERIES_BUCKETS - j) * sizeof(double));
	memset(s->dT_ns + j, 0, (PMA_SERIES_BUCKETS - j) * sizeof(double));
	s->n = j;
	s->width_ns *= 2;
}

/* Adds the piece A_t over [pos, pos + dT) of the critical-path axis (pos = T_cp before it). */
static void series_add(struct pma_series *s, double pos, double A_t, double dT)
{
	double end = pos + dT;

	if (s->width_ns <= 0)
		s->width_ns = fmax(dT, 1000.0); /* the first piece sets the scale; merging widens it */
	while (end > s->width_ns * PMA_SERIES_BUCKETS)
		series_halve(s);
	while (pos < end) {
		size_t b = (size_t)(pos / s->width_ns);
		double edge, d;
		if (b >= PMA_SERIES_BUCKETS) /* rounding at the last edge */
			b = PMA_SERIES_BUCKETS - 1;
		edge = (double)(b + 1) * s->width_ns;
		d = fmin(end, edge) - pos;
		if (d <= 0) /* rounding: the rest lies on the edge */
			d = end - pos;
		s->AdT_ns[b] += A_t * d;
		s->dT_ns[b] += d;
		if (b + 1 > s->n)
			s->n = b + 1;
		pos += d;
	}
}

void pma_profile_free(struct pma_profile *p)
{
	if (!p)
		return;
	free(p->bin_dT_ns);
	free(p->bin_AdT_ns);
	free(p->series);
	memset(p, 0, sizeof(*p));
}

/* Grows both bin arrays to at least need bins, new bins zero. Returns 0 or -1. */
static int grow(struct pma_profile *p, size_t need)
{
	size_t cap_dT = p->nbins, cap_AdT = p->nbins;

	/* the same growth rule for both, so they end at the same capacity */
	if (PM_GROW(p->bin_dT_ns, cap_dT, need) < 0 || PM_GROW(p->bin_AdT_ns, cap_AdT, need) < 0)
		return -1;
	memset(p->bin_dT_ns + p->nbins, 0, (cap_dT - p->nbins) * sizeof(double));
	memset(p->bin_AdT_ns + p->nbins, 0, (cap_AdT - p->nbins) * sizeof(double));
	p->nbins = cap_dT;
	return 0;
}

int pma_profile_add(struct pma_profile *p, double A_t, double dT_cp_ns)
{
	size_t k;

	if (!(dT_cp_ns > 0) || !(A_t >= 0))
		return 0;
	if (A_t > PMA_MAX_PARALLELISM)
		return -1;
	if (A_t == 0) {
		p->idle_ns += dT_cp_ns;
		return 0;
	}
	k = (size_t)ceil(A_t);
	if (k >= p->nbins && grow(p, k + 1) < 0)
		return -1;
	p->pieces++;
	if (p->series)
		series_add(p->series, p->T_cp_ns, A_t, dT_cp_ns);
	p->T_cp_ns += dT_cp_ns;
	p->work_ns += A_t * dT_cp_ns;
	p->bin_dT_ns[k] += dT_cp_ns;
	p->bin_AdT_ns[k] += A_t * dT_cp_ns;
	return 0;
}

void pma_profile_parallelism(const struct pma_profile *p, double m, struct pma_parallelism *out)
{
	out->T_cp_ns = p->T_cp_ns;
	out->work_ns = p->work_ns;
	out->A_inf = p->T_cp_ns > 0 ? p->work_ns / p->T_cp_ns : 0; /* eq. 4 */
	out->D = m - out->A_inf;                                      /* eq. 2 / eq. 5 */
}

double pma_speedup(double A_mn, double omega)
{
	return A_mn / (1 + omega); /* eq. 1 */
}

double pma_speedup_loss(double A_mn, double omega)
{
	return A_mn * omega / (1 + omega); /* eq. 3 */
}

double pma_profile_level_ns(const struct pma_profile *p, size_t k)
{
	return k < p->nbins ? p->bin_dT_ns[k] : 0;
}

int pma_profile_predict(const struct pma_profile *p, const uint32_t *cores, size_t ncores,
			const double *omega, struct pma_prediction *out)
{
	/* running sums over the bins for ascending n: dT of bins k <= n, A dT of bins k > n; one
	 * pass over the bins for all n (a trace with 10^5 threads has 10^5 bins and as many default
	 * core counts: per-n sums would be quadratic) */
	double dT_le = 0, AdT_gt = 0;
	size_t kb = 1;

	for (size_t k = 1; k < p->nbins; k++)
		AdT_gt += p->bin_AdT_ns[k];
	for (size_t i = 0; i < ncores; i++) {
		double w = omega ? omega[i] : 0;
		double n = cores[i], T_n = 0;
		struct pma_prediction *o = &out[i];

		if (!(w > -1) || cores[i] == 0)
			return -1;
		if (i > 0 && cores[i] < cores[i - 1]) { /* not ascending: start the sums again */
			dT_le = 0;
			AdT_gt = 0;
			for (size_t k = 1; k < p->nbins; k++)
				AdT_gt += p->bin_AdT_ns[k];
			kb = 1;
		}
		/* sum of dT(n): pieces with A <= n keep dT_cp, wider ones stretch to A dT_cp / n.
		 * Bin k holds A in (k-1, k], so bins k <= n are entirely A <= n. */
		for (; kb < p->nbins && (double)kb <= n; kb++) {
			dT_le += p->bin_dT_ns[kb];
			AdT_gt -= p->bin_AdT_ns[kb];
		}
		T_n = dT_le + (kb < p->nbins && AdT_gt > 0 ? AdT_gt / n : 0);
		o->cores = cores[i];
		o->omega = w;
		/* eq. 6: sum A(m,n,t) dT(n) = sum A dT_cp = U whatever n is */
		o->A = T_n > 0 ? p->work_ns / T_n : 0;
		o->S = pma_speedup(o->A, w);
		o->R = pma_speedup_loss(o->A, w);
		/* T(n) = (U + M(n)) / A(m,n) with M(n) = omega U (eq. 7); idle time does not shrink */
		o->T_ns = (o->A > 0 ? p->work_ns * (1 + w) / o->A : 0) + p->idle_ns;
	}
	return 0;
}
