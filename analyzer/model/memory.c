/* SPDX-License-Identifier: MIT */
/* memory.c: memory contention omega(n) (Tudor & Teo, eq. 7-11) and thread placement (Allande et
 * al.): fits over calibration points and predictions, no I/O. */
#include "memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const model_names[] = { "none", "single-socket", "uma", "numa" };
static const char *const policy_names[] = { "local", "interleave", "local-then-remote" };

const char *pma_mem_model_name(enum pma_mem_model m)
{
	return (unsigned)m < 4 ? model_names[m] : "none";
}

const char *pma_mem_policy_name(enum pma_mem_policy p)
{
	return (unsigned)p < 3 ? policy_names[p] : "local";
}

int pma_mem_policy_parse(const char *name)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(name, policy_names[i]) == 0)
			return i;
	return -1;
}

double pma_mem_omega_measured(double C_n, double C1)
{
	return C_n / C1 - 1;
}

double pma_mem_omega_socket(const struct pma_mem_params *p, double k)
{
	double denom = p->alpha - p->beta * k;

	if (k <= 0)
		return 0;
	if (denom <= 0)
		return INFINITY;
	return (p->alpha - p->beta) / denom - 1;
}

/* Points merged by core count and placement: the mean C and r of repeated runs. */
struct merged {
	uint32_t cores, n_first;
	double C, r;
	unsigned nC, nr;
};

static size_t merge_points(const struct pma_mem_point *pts, size_t npts, struct merged *m)
{
	size_t k = 0;

	for (size_t i = 0; i < npts; i++) {
		size_t j;
		for (j = 0; j < k; j++)
			if (m[j].cores == pts[i].cores && m[j].n_first == pts[i].n_first)
				break;
		if (j == k) {
			memset(&m[k], 0, sizeof(m[k]));
			m[k].cores = pts[i].cores;
			m[k].n_first = pts[i].n_first;
			k++;
		}
		m[j].C += pts[i].C;
		m[j].nC++;
		if (isfinite(pts[i].r)) {
			m[j].r += pts[i].r;
			m[j].nr++;
		}
	}
	for (size_t j = 0; j < k; j++) {
		m[j].C /= m[j].nC;
		m[j].r = m[j].nr ? m[j].r / m[j].nr : NAN;
	}
	return k;
}

int pma_mem_fit(const struct pma_mem_point *pts, size_t npts, uint32_t c, enum pma_mem_model model,
		struct pma_mem_params *out, char *why, size_t whysize)
{
	struct merged *m;
	size_t k, ns = 0;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, r_sum = 0, C1 = NAN;
	double cross_num = 0, cross_den = 0;
	unsigned r_n = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->model = PMA_MEM_NONE;
	out->dC = out->r_delta = out->r = NAN;
	out->n_sat = INFINITY;
	for (size_t i = 0; i < npts; i++) {
		if (!(pts[i].C > 0) || !isfinite(pts[i].C) || pts[i].cores == 0) {
			snprintf(why, whysize, "calibration run on %u cores has no usable C(n) (%g)",
				 pts[i].cores, pts[i].C);
			return -1;
		}
	}
	m = calloc(npts ? npts : 1, sizeof(*m));
	if (!m) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	k = merge_points(pts, npts, m);
	for (size_t i = 0; i < k; i++) {
		if (m[i].cores == 1)
			C1 = m[i].C;
		if (m[i].n_first == m[i].cores && m[i].cores <= (c ? c : m[i].cores)) {
			double x = m[i].cores, y = 1 / m[i].C;
			sx += x;
			sy += y;
			sxx += x * x;
			sxy += x * y;
			ns++;
		}
		if (isfinite(m[i].r)) {
			r_sum += m[i].r;
			r_n++;
		}
	}
	if (isnan(C1)) {
		snprintf(why, whysize, "no calibration run on 1 core: omega(n) = C(n)/C(1) - 1 needs C(1)");
		goto out;
	}
	if (ns < 2) {
		snprintf(why, whysize, "fewer than two core counts on one socket (%zu): the line through "
			 "(n, 1/C(n)) of eq. 8 needs two", ns);
		goto out;
	}
	/* least squares of 1/C(n) = alpha - beta n */
	{
		double det = ns * sxx - sx * sx;
		double slope = (ns * sxy - sx * sy) / det;
		out->alpha = (sy - slope * sx) / ns;
		out->beta = -slope + 0.0; /* + 0.0: a flat line is L = 0, not -0 */
	}
	out->C1 = C1;
	out->c = c;
	out->socket_points = (uint32_t)ns;
	out->r = r_n ? r_sum / r_n : NAN;
	out->mu = isfinite(out->r) ? out->alpha * out->r : out->alpha;
	out->L = isfinite(out->r) ? out->beta * out->r : out->beta;
	out->n_sat = out->beta > 0 ? out->alpha / out->beta : INFINITY;
	out->model = model == PMA_MEM_NONE ? PMA_MEM_SINGLE : model;

	/* the second socket's term, from points that spill over the first socket */
	for (size_t i = 0; i < k; i++) {
		double om, x;
		if (m[i].cores <= m[i].n_first)
			continue;
		x = m[i].cores - m[i].n_first;
		/* a socket at or past the one-socket fit's saturation has no finite omega_s to take
		 * away: the point says nothing about the cross term (it made r delta -inf, and
		 * omega(1) -inf under interleave: issue 19, gentrace seed 816) */
		if (!isfinite(pma_mem_omega_socket(out, m[i].n_first)) ||
		    (out->model == PMA_MEM_UMA && !isfinite(pma_mem_omega_socket(out, x)))) {
			out->cross_skipped++;
			continue;
		}
		om = pma_mem_omega_measured(m[i].C, C1) - pma_mem_omega_socket(out, m[i].n_first);
		if (out->model == PMA_MEM_UMA) {
			cross_num += om - pma_mem_omega_socket(out, x);
			cross_den += 1;
		} else {
			cross_num += om * x;
			cross_den += x * x;
		}
		out->cross_points++;
	}
	if (out->cross_points && out->model == PMA_MEM_UMA)
		out->dC = C1 * cross_num / cross_den;
	else if (out->cross_points && out->model == PMA_MEM_NUMA)
		out->r_delta = C1 * cross_num / cross_den;
	rc = 0;
out:
	free(m);
	return rc;
}

int pma_mem_predict(const struct pma_mem_params *p, const uint32_t *per_socket, uint32_t nsockets,
		    uint32_t numa_nodes, enum pma_mem_policy pol, struct pma_mem_omega *out)
{
	double n = 0, sum_s = 0;
	uint32_t active = 0;

	memset(out, 0, sizeof(*out));
	if (p->model == PMA_MEM_NONE || nsockets == 0)
		return -1;
	for (uint32_t s = 0; s < nsockets; s++) {
		double w;
		if (!per_socket[s])
			continue;
		n += per_socket[s];
		active++;
		w = pma_mem_omega_socket(p, per_socket[s]);
		if (isinf(w) && !out->saturated_socket)
			out->saturated_socket = s + 1;
		sum_s += w;
	}
	if (active <= 1 && !(numa_nodes > 1 && pol == PMA_POL_INTERLEAVE)) {
		out->omega = sum_s;
		return 0;
	}
	if (numa_nodes <= 1) { /* UMA, eq. 9 */
		out->cross = (active - 1) * p->dC / p->C1;
		out->omega = sum_s + (isnan(out->cross) ? 0 : out->cross);
		return 0;
	}
	switch (pol) {
	case PMA_POL_LOCAL:
		out->cross = 0;
		out->omega = sum_s;
		break;
	case PMA_POL_INTERLEAVE: {
		double N = numa_nodes, w = pma_mem_omega_socket(p, n / N);
		out->saturated_socket = isinf(w) ? 1 : 0;
		out->cross = p->r_delta * n * (N - 1) / N / p->C1;
		out->omega = N * w + (isnan(out->cross) ? 0 : out->cross);
		break;
	}
	default: { /* local-then-remote, eq. 10 */
		double w = pma_mem_omega_socket(p, per_socket[0]);
		out->saturated_socket = isinf(w) ? 1 : 0;
		out->cross = p->r_delta * (n - per_socket[0]) / p->C1;
		out->omega = w + (isnan(out->cross) ? 0 : out->cross);
		break;
	}
	}
	return 0;
}

int pma_optimal_cores(const uint32_t *n, const double *S, size_t k, struct pma_optimal *out)
{
	size_t prev = k; /* index of the previous finite S */
	int rising = 0;

	memset(out, 0, sizeof(*out));
	out->S_best = -INFINITY;
	for (size_t i = 0; i < k; i++) {
		if (!isfinite(S[i])) {
			rising = 0;
			prev = k;
			continue;
		}
		if (S[i] > out->S_best) {
			out->S_best = S[i];
			out->n_best = n[i];
		}
		if (prev < k) {
			/* eq. 11 by finite differences: S increases from n[prev] to n[i] */
			double dS_dn = (S[i] - S[prev]) / ((double)n[i] - (double)n[prev]);
			int up = dS_dn * ((double)n[i] - (double)n[prev]) > 1e-9 * fabs(S[prev]);
			if (up && !rising && out->nintervals < PMA_OPT_MAX_INTERVALS) {
				out->interval[out->nintervals][0] = n[prev];
				out->nintervals++;
			}
			if (up && out->nintervals)
				out->interval[out->nintervals - 1][1] = n[i];
			rising = up;
		}
		prev = i;
	}
	if (!out->n_best)
		return -1;
	for (size_t i = 0; i < k; i++) {
		if (isfinite(S[i]) && S[i] >= 0.95 * out->S_best) {
			out->n_95 = n[i];
			break;
		}
	}
	return 0;
}

int pma_place(uint32_t sockets, uint32_t c, uint32_t threads, uint32_t chunk, uint32_t *per_socket)
{
	uint32_t left = threads, s = 0;

	if (!sockets || !c || !chunk || (uint64_t)threads > (uint64_t)sockets * c)
		return -1;
	memset(per_socket, 0, sockets * sizeof(*per_socket));
	while (left) {
		uint32_t room = c - per_socket[s], give = chunk < room ? chunk : room;
		if (give > left)
			give = left;
		per_socket[s] += give;
		left -= give;
		s = (s + 1) % sockets;
	}
	return 0;
}

/* Non-increasing vectors v[pos..sockets-1] with entries <= hi, counted and written in order. */
static size_t enum_rec(uint32_t sockets, uint32_t hi, uint32_t pos, uint32_t *v, uint32_t *out,
		       size_t max, size_t count)
{
	if (pos == sockets) {
		int any = 0;
		for (uint32_t s = 0; s < sockets; s++)
			any |= v[s] != 0;
		if (!any)
			return count;
		if (out && count < max)
			memcpy(out + count * sockets, v, sockets * sizeof(*v));
		return count + 1;
	}
	for (uint32_t x = hi + 1; x-- > 0;) {
		v[pos] = x;
		count = enum_rec(sockets, x, pos + 1, v, out, max, count);
	}
	return count;
}

size_t pma_place_enumerate(uint32_t sockets, uint32_t c, uint32_t *out, size_t max)
{
	uint32_t *v;
	size_t n;

	if (!sockets)
		return 0;
	v = calloc(sockets, sizeof(*v));
	if (!v)
		return 0;
	n = enum_rec(sockets, c, 0, v, out, max, 0);
	free(v);
	return n;
}
