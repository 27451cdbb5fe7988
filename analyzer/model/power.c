/* SPDX-License-Identifier: MIT */
/* power.c: linear power model from runs with energy, E(n), EDP and the energy-optimal n. */
#include "power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#include "memory.h"

static double run_x(const struct pma_power_run *r)
{
	return r->busy_cores > 0.0 ? r->busy_cores : (double)r->n;
}

int pma_power_fit(const struct pma_power_run *runs, size_t k, int zones, struct pma_power_model *out,
		  char *why, size_t whysize)
{
	double *x = NULL, *P = NULL, *Pc = NULL;
	double c0, c1, cov00, cov01, cov11, sumsq, mean = 0.0, ss_tot = 0.0, ss_res = 0.0;
	int use_zones = zones != 0, rc = -1;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < k; i++) {
		const struct pma_power_run *r = &runs[i];
		if (!(r->T_s > 0.0) || !(r->E_j > 0.0) || !isfinite(r->T_s) || !isfinite(r->E_j) ||
		    !(run_x(r) > 0.0) || !isfinite(run_x(r))) {
			snprintf(why, whysize, "run %zu (n = %u) has no usable time or energy", i, r->n);
			return -1;
		}
		if (!(r->E_core_j >= 0.0) || !isfinite(r->E_core_j))
			use_zones = 0;
		for (j = 0; j < i && runs[j].n != r->n; j++)
			;
		if (j == i)
			out->ncounts++;
	}
	if (out->ncounts < 2) {
		snprintf(why, whysize, "energy at two or more core counts is needed (%u given)",
			 out->ncounts);
		return -1;
	}
	x = malloc(k * sizeof(*x));
	P = malloc(k * sizeof(*P));
	Pc = malloc(k * sizeof(*Pc));
	if (!x || !P || !Pc) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	for (i = 0; i < k; i++) {
		x[i] = run_x(&runs[i]);
		P[i] = runs[i].E_j / runs[i].T_s;
		Pc[i] = use_zones ? runs[i].E_core_j / runs[i].T_s : 0.0;
		mean += P[i] / (double)k;
	}
	/* busy_cores can make two runs of different n share one x; the fit needs x to vary */
	for (i = 1; i < k && x[i] == x[0]; i++)
		;
	if (i == k) {
		snprintf(why, whysize, "the runs' busy cores do not vary: no slope to fit");
		goto out;
	}
	gsl_fit_linear(x, 1, use_zones ? Pc : P, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	out->method = use_zones ? PMA_POWER_FIT_ZONES : PMA_POWER_FIT_TOTAL;
	out->P_core_w = c1;
	out->P_static_w = c0;
	if (use_zones) {
		out->P_static_w = 0.0;
		for (i = 0; i < k; i++)
			out->P_static_w += (P[i] - x[i] * c1) / (double)k;
	}
	for (i = 0; i < k; i++) {
		double e = P[i] - (out->P_static_w + x[i] * out->P_core_w);
		ss_res += e * e;
		ss_tot += (P[i] - mean) * (P[i] - mean);
	}
	out->R2 = ss_tot > 0.0 ? 1.0 - ss_res / ss_tot : 1.0;
	out->nruns = k;
	rc = 0;
	/* Power that falls with busy cores, or negative idle power, is what other load or a
	 * frequency change between the runs makes of the fit: no physical split, no E(n). */
	if (!(out->P_core_w >= 0.0) || !(out->P_static_w >= 0.0)) {
		snprintf(why, whysize, "the power fit is not physical: %s (P_static %.2f W, P_core "
			 "%.2f W, R2 %.3f over %zu runs at %u core counts)",
			 out->P_core_w < 0.0 ? "P_core < 0, power falls as more cores are busy" :
			 "P_static < 0", out->P_static_w, out->P_core_w, out->R2, k, out->ncounts);
		rc = PMA_POWER_E_UNPHYSICAL;
	}
out:
	free(x);
	free(P);
	free(Pc);
	return rc;
}

int pma_energy_predict(const struct pma_power_model *m, const uint32_t *n, const double *T_s,
		       const double *A, size_t k, struct pma_energy_point *out)
{
	for (size_t i = 0; i < k; i++) {
		double busy = A ? A[i] : (double)n[i];

		if (!(T_s[i] > 0.0) || !isfinite(T_s[i]) || !n[i] || (i && n[i] <= n[i - 1]) ||
		    !(busy >= 0.0))
			return -1;
		out[i].n = n[i];
		out[i].T_s = T_s[i];
		out[i].P_w = m->P_static_w + busy * m->P_core_w;
		out[i].E_j = out[i].P_w * T_s[i];
		out[i].EDP_js = out[i].E_j * T_s[i];
	}
	return 0;
}

int pma_energy_optimum(const struct pma_energy_point *pts, size_t k, struct pma_energy_optimum *out)
{
	struct pma_optimal opt;
	uint32_t *n;
	double *S;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!k)
		return -1;
	n = malloc(k * sizeof(*n));
	S = malloc(k * sizeof(*S));
	if (!n || !S)
		goto out;
	out->E_min_j = INFINITY;
	out->EDP_min_js = INFINITY;
	for (size_t i = 0; i < k; i++) {
		n[i] = pts[i].n;
		S[i] = pts[0].T_s / pts[i].T_s; /* S relative to the first count: same argmax */
		if (pts[i].E_j < out->E_min_j) {
			out->E_min_j = pts[i].E_j;
			out->n_energy = pts[i].n;
		}
		if (pts[i].EDP_js < out->EDP_min_js) {
			out->EDP_min_js = pts[i].EDP_js;
			out->n_edp = pts[i].n;
		}
	}
	if (pma_optimal_cores(n, S, k, &opt) < 0)
		goto out;
	out->n_time = opt.n_best;
	for (size_t i = 0; i < k; i++)
		if (pts[i].n == opt.n_best)
			out->E_at_time_opt_j = pts[i].E_j;
	rc = 0;
out:
	free(n);
	free(S);
	return rc;
}

int pma_power_series(const uint64_t *t_ns, const uint64_t *uj, size_t nreadings, size_t nzones,
		     uint64_t t_start_ns, int start_is_reading, struct pma_power_series *out)
{
	size_t cap = nreadings + 1, k = 0;
	const uint64_t *prev_uj = NULL;
	uint64_t prev_t = t_start_ns;
	double *e_j, *dt_s;

	memset(out, 0, sizeof(*out));
	if (nzones == 0)
		return -1;
	out->nzones = nzones;
	out->t0_s = malloc(cap * sizeof(double));
	out->t1_s = malloc(cap * sizeof(double));
	out->w = malloc(cap * nzones * sizeof(double));
	out->mean_w = malloc(nzones * sizeof(double));
	e_j = calloc(nzones, sizeof(double));
	dt_s = calloc(nzones, sizeof(double));
	if (!out->t0_s || !out->t1_s || !out->w || !out->mean_w || !e_j || !dt_s) {
		free(e_j);
		free(dt_s);
		return -1;
	}
	for (size_t i = 0; i < nreadings; i++) {
		const uint64_t *cur = &uj[i * nzones];
		int first = !prev_uj && !start_is_reading;
		if (i > 0 || start_is_reading) {
			if (t_ns[i] <= prev_t)
				continue; /* the same or an earlier time: no interval */
		}
		if (!first) {
			double d_ns = (double)(t_ns[i] - prev_t);
			out->t0_s[k] = ((double)prev_t - (double)t_start_ns) / 1e9;
			out->t1_s[k] = ((double)t_ns[i] - (double)t_start_ns) / 1e9;
			for (size_t z = 0; z < nzones; z++) {
				uint64_t e0 = prev_uj ? prev_uj[z] : 0;
				double w = NAN;
				if (cur[z] >= e0) {
					w = (double)(cur[z] - e0) / d_ns * 1e3; /* µJ/ns = 1e3 W */
					e_j[z] += (double)(cur[z] - e0) / 1e6;
					dt_s[z] += d_ns / 1e9;
					out->max_w = fmax(out->max_w, w);
				}
				out->w[z * cap + k] = w;
			}
			k++;
		}
		prev_uj = cur;
		prev_t = t_ns[i];
	}
	/* the rows were laid out cap apart: pack them n apart */
	for (size_t z = 1; z < nzones; z++)
		memmove(&out->w[z * k], &out->w[z * cap], k * sizeof(double));
	out->n = k;
	for (size_t z = 0; z < nzones; z++)
		out->mean_w[z] = dt_s[z] > 0 ? e_j[z] / dt_s[z] : NAN;
	free(e_j);
	free(dt_s);
	return 0;
}

void pma_power_series_free(struct pma_power_series *s)
{
	if (!s)
		return;
	free(s->t0_s);
	free(s->t1_s);
	free(s->w);
	free(s->mean_w);
	memset(s, 0, sizeof(*s));
}
