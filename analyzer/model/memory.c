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

/* Points merged by core count and placement: the mean C and r of repeated runs, and the
 * standard error of that mean C (from the points' C_se, or PMA_MEM_C_REL_SD per run). */
struct merged {
	uint32_t cores, n_first;
	double C, r, var_C;
	unsigned nC, nr;
};

/* The variance of one point's C: C_se^2, or (PMA_MEM_C_REL_SD C)^2 when unknown; at least
 * (1e-3 C)^2 so that identical repeats do not make a point exact. */
static double point_var_C(const struct pma_mem_point *p)
{
	double se = p->C_se > 0 && isfinite(p->C_se) ? p->C_se : PMA_MEM_C_REL_SD * p->C;

	se = fmax(se, 1e-3 * p->C);
	return se * se;
}

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
		m[j].var_C += point_var_C(&pts[i]);
		m[j].nC++;
		if (isfinite(pts[i].r)) {
			m[j].r += pts[i].r;
			m[j].nr++;
		}
	}
	for (size_t j = 0; j < k; j++) {
		m[j].C /= m[j].nC;
		m[j].var_C /= (double)m[j].nC * m[j].nC; /* the mean's */
		m[j].r = m[j].nr ? m[j].r / m[j].nr : NAN;
	}
	return k;
}

/* The covariance of the least-squares line's (alpha, beta) (docs/memory-model.md): the sandwich
 * (X'X)^-1 X' V X (X'X)^-1 of X = [1 n] over the one-socket points, V diagonal with the variance
 * of each 1/C(n), var(C) / C^4 (first order), raised to the residual variance RSS / (ns - 2) when
 * there are more than two points and they scatter more than their spreads say. */
static void line_covariance(const struct merged *m, size_t k, uint32_t c, size_t ns, double sx,
			    double sxx, struct pma_mem_params *out)
{
	double det = ns * sxx - sx * sx, rss = 0, s2 = 0;
	double b00 = sxx / det, b01 = -sx / det, b11 = ns / det;
	double m00 = 0, m01 = 0, m11 = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < k; i++) {
			double x = m[i].cores, y = 1 / m[i].C, v;
			if (!(m[i].n_first == m[i].cores && m[i].cores <= (c ? c : m[i].cores)))
				continue;
			if (pass == 0) {
				double e = y - (out->alpha - out->beta * x);
				rss += e * e;
				continue;
			}
			v = fmax(m[i].var_C / (m[i].C * m[i].C * m[i].C * m[i].C), s2);
			m00 += v;
			m01 += v * x;
			m11 += v * x * x;
		}
		if (pass == 0 && ns > 2)
			s2 = rss / (double)(ns - 2);
	}
	/* B M B with B = (X'X)^-1 (symmetric); slope = -beta, so cov(alpha, beta) = -cov(a, s) */
	out->cov_aa = b00 * (b00 * m00 + b01 * m01) + b01 * (b00 * m01 + b01 * m11);
	out->cov_bb = b01 * (b01 * m00 + b11 * m01) + b11 * (b01 * m01 + b11 * m11);
	out->cov_ab = -(b00 * (b01 * m00 + b11 * m01) + b01 * (b01 * m01 + b11 * m11));
}

int pma_mem_fit(const struct pma_mem_point *pts, size_t npts, uint32_t c, enum pma_mem_model model,
		struct pma_mem_params *out, char *why, size_t whysize)
{
	struct merged *m;
	size_t k, ns = 0;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, r_sum = 0, C1 = NAN;
	double cross_num = 0, cross_den = 0, cross_var = 0;
	unsigned r_n = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->model = PMA_MEM_NONE;
	out->dC = out->r_delta = out->r = NAN;
	out->dC_err = out->r_delta_err = NAN;
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
		line_covariance(m, k, c, ns, sx, sxx, out);
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
		 * omega(1) -inf under interleave: gentrace seed 816) */
		if (!isfinite(pma_mem_omega_socket(out, m[i].n_first)) ||
		    (out->model == PMA_MEM_UMA && !isfinite(pma_mem_omega_socket(out, x)))) {
			out->cross_skipped++;
			continue;
		}
		om = pma_mem_omega_measured(m[i].C, C1) - pma_mem_omega_socket(out, m[i].n_first);
		/* om has C(n)'s spread over C(1): var(om) C(1)^2 = var(C(n)) */
		if (out->model == PMA_MEM_UMA) {
			cross_num += om - pma_mem_omega_socket(out, x);
			cross_den += 1;
			cross_var += m[i].var_C;
		} else {
			cross_num += om * x;
			cross_den += x * x;
			cross_var += x * x * m[i].var_C;
		}
		out->cross_points++;
	}
	if (out->cross_points && out->model == PMA_MEM_UMA) {
		out->dC = C1 * cross_num / cross_den;
		out->dC_err = sqrt(cross_var) / cross_den;
	} else if (out->cross_points && out->model == PMA_MEM_NUMA) {
		out->r_delta = C1 * cross_num / cross_den;
		out->r_delta_err = sqrt(cross_var) / cross_den;
	}
	rc = 0;
out:
	free(m);
	return rc;
}

/* C_s(k) / C_s(k0) - 1 = (alpha - beta k0) / (alpha - beta k) - 1 (eq. 8 with eq. 7 on a base of k0
 * cores); adds its gradient over (alpha, beta), (k - k0) / D^2 (-beta, alpha) with D = alpha -
 * beta k, to g (delta method). INFINITY at or past saturation (D <= 0). */
static double omega_socket_grad(const struct pma_mem_params *p, double k0, double k, double g[2])
{
	double D = p->alpha - p->beta * k;

	if (k <= 0)
		return 0;
	if (D <= 0)
		return INFINITY;
	g[0] += (k - k0) / (D * D) * -p->beta;
	g[1] += (k - k0) / (D * D) * p->alpha;
	return (p->alpha - p->beta * k0) / D - 1;
}

/* The standard error of omega from its gradient g over (alpha, beta) and the cross term's
 * standard error cross_se (0 or NAN: none). */
static double omega_se(const struct pma_mem_params *p, const double g[2], double cross_se)
{
	double v = g[0] * g[0] * p->cov_aa + 2 * g[0] * g[1] * p->cov_ab + g[1] * g[1] * p->cov_bb;

	return sqrt(fmax(v, 0) + (isfinite(cross_se) ? cross_se * cross_se : 0));
}

int pma_mem_predict(const struct pma_mem_params *p, const uint32_t *per_socket, uint32_t nsockets,
		    uint32_t numa_nodes, enum pma_mem_policy pol, struct pma_mem_omega *out)
{
	double n = 0, sum_s = 0, g[2] = { 0, 0 }, cross_se = 0;
	/* a negative cross-socket cost is the calibration's noise: 0 (the header's rule) */
	double dC = p->dC > 0 ? p->dC : isnan(p->dC) ? NAN : 0;
	double r_delta = p->r_delta > 0 ? p->r_delta : isnan(p->r_delta) ? NAN : 0;
	uint32_t active = 0;

	memset(out, 0, sizeof(*out));
	out->omega_err = NAN;
	if (p->model == PMA_MEM_NONE || nsockets == 0)
		return -1;
	for (uint32_t s = 0; s < nsockets; s++) {
		double w;
		if (!per_socket[s])
			continue;
		n += per_socket[s];
		active++;
		w = omega_socket_grad(p, 1, per_socket[s], g);
		if (isinf(w) && !out->saturated_socket)
			out->saturated_socket = s + 1;
		sum_s += w;
	}
	if (active <= 1 && !(numa_nodes > 1 && pol == PMA_POL_INTERLEAVE)) {
		out->omega = sum_s;
	} else if (numa_nodes <= 1) { /* UMA, eq. 9 */
		out->cross = (active - 1) * dC / p->C1;
		cross_se = (active - 1) * p->dC_err / p->C1;
		out->omega = sum_s + (isnan(out->cross) ? 0 : out->cross);
	} else if (pol == PMA_POL_LOCAL) {
		out->cross = 0;
		out->omega = sum_s;
	} else if (pol == PMA_POL_INTERLEAVE) {
		double N = numa_nodes, w;
		g[0] = g[1] = 0;
		w = omega_socket_grad(p, 1 / N, n / N, g);
		out->saturated_socket = isinf(w) ? 1 : 0;
		/* one busy core: its remote share is in C(1) already, the cross term is 0, known */
		out->cross = n > 1 ? r_delta * (n - 1) * (N - 1) / N / p->C1 : 0;
		cross_se = n > 1 ? p->r_delta_err * (n - 1) * (N - 1) / N / p->C1 : 0;
		out->omega = w + (isnan(out->cross) ? 0 : out->cross);
	} else { /* local-then-remote, eq. 10 */
		double w, remote = n - per_socket[0];
		g[0] = g[1] = 0;
		w = omega_socket_grad(p, 1, per_socket[0], g);
		out->saturated_socket = isinf(w) ? 1 : 0;
		/* every thread beside its memory: no remote term, known to be 0 */
		out->cross = remote > 0 ? r_delta * remote / p->C1 : 0;
		cross_se = remote > 0 ? p->r_delta_err * remote / p->C1 : 0;
		out->omega = w + (isnan(out->cross) ? 0 : out->cross);
	}
	if (isfinite(out->omega))
		out->omega_err = omega_se(p, g, cross_se);
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
	out->n_max = out->n_best;
	out->S_max = out->S_best;
	for (size_t i = 0; i < k; i++) {
		if (isfinite(S[i]) && S[i] >= 0.95 * out->S_best) {
			out->n_95 = n[i];
			break;
		}
	}
	return 0;
}

void pma_optimal_in_noise(const uint32_t *n, const double *S, const double *gap_err, size_t k,
			  double rel, struct pma_optimal *out)
{
	if (!out->n_best)
		return;
	for (size_t i = 0; i < k && n[i] < out->n_max; i++) {
		double err = gap_err && isfinite(gap_err[i]) ? gap_err[i] : 0;
		if (!isfinite(S[i]) || out->S_max - S[i] > fmax(rel * out->S_max, err))
			continue;
		out->n_best = n[i];
		out->S_best = S[i];
		out->gap_err = err;
		out->rule = rel * out->S_max >= err ? PMA_OPT_WITHIN_REL : PMA_OPT_WITHIN_ERR;
		return;
	}
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
