/* SPDX-License-Identifier: MIT */
/* calstop.c: the stopping rule of an adaptive --calibrate: omega's standard error from
 * the runs so far, as pmanalyze computes it, against a target and a time budget. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calstop.h"

#define CALSTOP_MAX_RUNS 1024

const char *pmc_calstop_reason_name(enum pmc_calstop_reason r)
{
	switch (r) {
	case PMC_CALSTOP_TARGET: return "target";
	case PMC_CALSTOP_BUDGET: return "budget";
	case PMC_CALSTOP_MAX_ROUNDS: return "max_rounds";
	case PMC_CALSTOP_REPEAT: return "repeat";
	case PMC_CALSTOP_FAILED: return "failed";
	case PMC_CALSTOP_CONTINUE: break;
	}
	return "continue";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void pmc_calstop_C(const double *C, size_t n, double *median, double *se)
{
	double v[CALSTOP_MAX_RUNS], mean = 0, ss = 0;

	*median = *se = NAN;
	if (n == 0 || n > CALSTOP_MAX_RUNS)
		return;
	memcpy(v, C, n * sizeof(v[0]));
	qsort(v, n, sizeof(v[0]), cmp_double);
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (n < 2)
		return;
	for (size_t j = 0; j < n; j++)
		mean += v[j] / (double)n;
	for (size_t j = 0; j < n; j++)
		ss += (v[j] - mean) * (v[j] - mean);
	*se = fmax(sqrt(ss / (double)(n - 1) / (double)n), 1e-3 * *median);
}

void pmc_calstop_omega(const double *C1, size_t n1, const double *Cn, size_t nn, double *omega,
		       double *omega_se)
{
	double m1, s1, mn, sn;

	pmc_calstop_C(C1, n1, &m1, &s1);
	pmc_calstop_C(Cn, nn, &mn, &sn);
	*omega = m1 > 0 ? mn / m1 - 1 : NAN;
	*omega_se = m1 > 0 && mn > 0 && isfinite(s1) && isfinite(sn)
			    ? mn / m1 * hypot(s1 / m1, sn / mn) : NAN;
}

double pmc_calstop_worst_se(const double *C, uint32_t rounds, size_t npoints, size_t one,
			    size_t *worst_point)
{
	double c1[CALSTOP_MAX_RUNS], cn[CALSTOP_MAX_RUNS], worst = -INFINITY;

	*worst_point = npoints;
	if (rounds < 2 || rounds > CALSTOP_MAX_RUNS || one >= npoints || npoints < 2)
		return NAN;
	for (uint32_t k = 0; k < rounds; k++)
		c1[k] = C[k * npoints + one];
	for (size_t p = 0; p < npoints; p++) {
		double w, se;
		if (p == one)
			continue;
		for (uint32_t k = 0; k < rounds; k++)
			cn[k] = C[k * npoints + p];
		pmc_calstop_omega(c1, rounds, cn, rounds, &w, &se);
		if (!isfinite(se)) {
			*worst_point = p;
			return NAN;
		}
		if (se > worst) {
			worst = se;
			*worst_point = p;
		}
	}
	return worst;
}

enum pmc_calstop_reason pmc_calstop_decide(const struct pmc_calstop_rule *rule, uint32_t rounds,
					   uint64_t elapsed_ns, double worst_se)
{
	if (rounds >= rule->max_rounds)
		return PMC_CALSTOP_MAX_ROUNDS;
	if (rounds >= rule->min_rounds && rounds >= PMC_CALSTOP_MIN_SE_ROUNDS && isfinite(worst_se) &&
	    worst_se <= rule->omega_se_target)
		return PMC_CALSTOP_TARGET;
	/* the next round is predicted to take the mean of those so far */
	if (rule->budget_ns && rounds &&
	    (double)elapsed_ns + (double)elapsed_ns / rounds > (double)rule->budget_ns)
		return PMC_CALSTOP_BUDGET;
	return PMC_CALSTOP_CONTINUE;
}
