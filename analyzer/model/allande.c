/* SPDX-License-Identifier: MIT */
/* allande.c: per-region thread count and placement from single-socket runs (Allande et al., eq. 2-9). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allande.h"
#include "memory.h"

int pma_allande_factors(const double *T_ns, const double *TCM, uint32_t NC,
			struct pma_allande_factors *f, char *why, size_t whysize)
{
	if (NC < 1 || NC > PMA_ALLANDE_MAX_NC) {
		snprintf(why, whysize, "%u cores per socket: want 1 to %d", NC, PMA_ALLANDE_MAX_NC);
		return -1;
	}
	memset(f, 0, sizeof(*f));
	f->NC = NC;
	f->time_only = TCM == NULL;
	for (uint32_t i = 1; i <= NC; i++) {
		/* !(x > 0) also rejects NAN */
		if (!(T_ns[i - 1] > 0)) {
			snprintf(why, whysize, "time of the %u-thread run is %g ns: want > 0", i, T_ns[i - 1]);
			return -1;
		}
		if (TCM && !(TCM[i - 1] > 0)) {
			snprintf(why, whysize, "LLC misses of the %u-thread run are %g: want > 0", i, TCM[i - 1]);
			return -1;
		}
	}
	for (uint32_t i = 1; i <= NC; i++) {
		f->T_ns[i] = T_ns[i - 1];
		f->idealTime_ns[i] = T_ns[0] / i;
		if (TCM) {
			f->TCM[i] = TCM[i - 1];
			f->cf[i] = TCM[i - 1] / TCM[0];                                 /* eq. 2 */
			f->beta_ns[i] = (f->T_ns[i] - f->idealTime_ns[i]) / f->TCM[i]; /* eq. 4 */
		} else {
			f->TCM[i] = f->cf[i] = f->beta_ns[i] = NAN;
		}
	}
	return 0;
}

int pma_allande_estimate(const struct pma_allande_factors *f, const uint32_t *aff, uint32_t NS,
			 struct pma_allande_est *out)
{
	uint32_t NT = 0;

	if (!NS)
		return -1;
	for (uint32_t s = 0; s < NS; s++) {
		if (aff[s] > f->NC)
			return -1;
		NT += aff[s];
	}
	if (!NT)
		return -1;
	out->NT = NT;
	out->idealTime_ns = f->T_ns[1] / NT;
	out->estTCM = f->time_only ? NAN : 0;
	out->TOvhd_sum_ns = out->TOvhd_max_ns = 0;
	for (uint32_t s = 0; s < NS; s++) {
		uint32_t a = aff[s];
		double share = (double)a / NT, TOvhd_ns;

		if (!a)
			continue;
		if (f->time_only) {
			TOvhd_ns = share * (f->T_ns[a] - f->idealTime_ns[a]);
		} else {
			double estTCM = f->TCM[1] * share * f->cf[a];  /* eq. 6 */
			double idealTCM = f->TCM[1] * share;

			out->estTCM += estTCM;
			TOvhd_ns = (estTCM - idealTCM) * f->beta_ns[a]; /* eq. 9 */
		}
		out->TOvhd_sum_ns += TOvhd_ns;
		if (TOvhd_ns > out->TOvhd_max_ns)
			out->TOvhd_max_ns = TOvhd_ns;
	}
	out->estTime_sum_ns = out->idealTime_ns + out->TOvhd_sum_ns; /* eq. 7, 8 */
	out->estTime_max_ns = out->idealTime_ns + out->TOvhd_max_ns;
	return 0;
}

void pma_allande_plan_free(struct pma_allande_plan *p)
{
	if (!p)
		return;
	free(p->aff);
	free(p->estTime_ns);
	free(p->best);
	p->aff = NULL;
	p->estTime_ns = NULL;
	p->best = NULL;
}

/* Threads of configuration k. */
static uint32_t plan_NT(const struct pma_allande_plan *p, size_t k)
{
	uint32_t NT = 0;

	for (uint32_t s = 0; s < p->NS; s++)
		NT += p->aff[k * p->NS + s];
	return NT;
}

/* Is configuration k (time t) better than the current best b (time tb)? Fewer threads break ties:
 * the same estimated time for less of the machine. */
static int plan_better(const struct pma_allande_plan *p, size_t k, double t, size_t b, double tb)
{
	return t < tb || (t == tb && plan_NT(p, k) < plan_NT(p, b));
}

int pma_allande_plan(const struct pma_allande_factors *factors, size_t R, uint32_t NS,
		     enum pma_allande_bound bound, struct pma_allande_plan *out, char *why,
		     size_t whysize)
{
	uint32_t NC;
	double *single = NULL;

	memset(out, 0, sizeof(*out));
	if (!R || !NS) {
		snprintf(why, whysize, "%zu regions on %u sockets: want at least one of each", R, NS);
		return -1;
	}
	NC = factors[0].NC;
	for (size_t r = 1; r < R; r++) {
		if (factors[r].NC != NC) {
			snprintf(why, whysize, "region %zu was measured on %u cores per socket, region 1 on %u",
				 r + 1, factors[r].NC, NC);
			return -1;
		}
	}
	out->NS = NS;
	out->NC = NC;
	out->bound = bound;
	out->R = R;
	out->nconf = pma_place_enumerate(NS, NC, NULL, 0);
	out->aff = calloc(out->nconf * NS, sizeof(*out->aff));
	out->estTime_ns = calloc(R * out->nconf, sizeof(*out->estTime_ns));
	out->best = calloc(R, sizeof(*out->best));
	single = calloc(out->nconf, sizeof(*single));
	if (!out->nconf || !out->aff || !out->estTime_ns || !out->best || !single) {
		snprintf(why, whysize, "out of memory for %zu configurations", out->nconf);
		free(single);
		pma_allande_plan_free(out);
		return -1;
	}
	pma_place_enumerate(NS, NC, out->aff, out->nconf);
	for (size_t r = 0; r < R; r++) {
		double *t = out->estTime_ns + r * out->nconf;

		out->time_only |= factors[r].time_only;
		for (size_t k = 0; k < out->nconf; k++) {
			struct pma_allande_est e;

			/* rows come from the enumeration: valid by construction */
			pma_allande_estimate(&factors[r], out->aff + k * NS, NS, &e);
			t[k] = bound == PMA_ALLANDE_MAX ? e.estTime_max_ns : e.estTime_sum_ns;
			single[k] += t[k];
			if (k == 0 || plan_better(out, k, t[k], out->best[r], t[out->best[r]]))
				out->best[r] = k;
		}
		out->per_region_total_ns += t[out->best[r]];
	}
	for (size_t k = 1; k < out->nconf; k++)
		if (plan_better(out, k, single[k], out->best_single, single[out->best_single]))
			out->best_single = k;
	out->single_total_ns = single[out->best_single];
	out->gain_ns = out->single_total_ns - out->per_region_total_ns;
	free(single);
	return 0;
}
