/* SPDX-License-Identifier: MIT */
/* stationarity.c: A(m,inf) over each quarter of a recording, with its uncertainty, and the
 * chi-square test of their agreement (stationarity.h). */
#include "stationarity.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>

#include "model/estimate.h"
#include "model/exact.h"
#include "regions.h"

#define NPARTS (PMA_STAT_QUARTERS * PMA_STAT_BLOCKS)
/* the windows cut: the parts, then the quarters */
#define NWIN (NPARTS + PMA_STAT_QUARTERS)

/* Quarter q's A is its own cut's (W / T: the critical path bound by the longest thread over the
 * whole quarter); its statistical uncertainty is the ratio estimator's standard error over its
 * parts (Cochran, Sampling Techniques, §6.3, with the parts as the sample), relative to the
 * parts' own ratio. */
static void quarter_of_parts(const double *work_ns, const double *T_cp_ns, double W, double T,
			     struct pma_stat_quarter *q)
{
	double Wp = 0, Tp = 0, ss = 0, Ap;

	for (int k = 0; k < PMA_STAT_BLOCKS; k++) {
		Wp += work_ns[k];
		Tp += T_cp_ns[k];
	}
	q->work_ns = W;
	q->T_cp_ns = T;
	q->A = T > 0 ? W / T : NAN;
	Ap = Tp > 0 ? Wp / Tp : NAN;
	for (int k = 0; Tp > 0 && k < PMA_STAT_BLOCKS; k++) {
		double d = work_ns[k] - Ap * T_cp_ns[k];
		ss += d * d;
	}
	q->A_err_stat = Tp > 0 && T > 0 ?
		q->A * sqrt((double)PMA_STAT_BLOCKS / (PMA_STAT_BLOCKS - 1) * ss) / Tp / Ap : NAN;
}

/* The chi-square test of homogeneity over the quarters (inverse-variance weighted mean). */
static void test_quarters(struct pma_stationarity *out)
{
	double sw = 0, swa = 0, mean;
	int zero_err = 0;

	out->q_min = out->q_max = 0;
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		const struct pma_stat_quarter *q = &out->q[i];
		if (q->A < out->q[out->q_min].A)
			out->q_min = i;
		if (q->A > out->q[out->q_max].A)
			out->q_max = i;
		if (q->A_err > 0) {
			sw += 1 / (q->A_err * q->A_err);
			swa += q->A / (q->A_err * q->A_err);
		} else {
			zero_err = 1;
		}
	}
	out->chi2 = 0;
	if (zero_err) {
		/* a quarter known exactly: the quarters agree only when they are equal (to rounding) */
		double lo = out->q[out->q_min].A, hi = out->q[out->q_max].A;
		out->chi2 = hi - lo <= 1e-9 * hi ? 0 : INFINITY;
	} else {
		mean = swa / sw;
		for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
			double z = (out->q[i].A - mean) / out->q[i].A_err;
			out->chi2 += z * z;
		}
	}
	out->p = isfinite(out->chi2) ? gsl_cdf_chisq_Q(out->chi2, PMA_STAT_QUARTERS - 1) : 0;
	out->disagree = out->p < PMA_STAT_P;
}

/* The mean length of the program's running slices, ns (0 without). */
static double mean_slice_ns(const struct pma_exact *x)
{
	size_t n = 0, nrun = 0;
	const struct pma_slice *sl = x ? pma_exact_slices(x, &n) : NULL;
	double sum = 0;

	for (size_t i = 0; sl && i < n; i++)
		if (sl[i].kind == PMA_SLICE_RUNNING && sl[i].t1_ns > sl[i].t0_ns) {
			sum += (double)(sl[i].t1_ns - sl[i].t0_ns);
			nrun++;
		}
	return nrun ? sum / (double)nrun : 0;
}

/* The resolution of a quarter's A, as the report's uncertainty of A(m,inf) counts it for the
 * estimator (result/compute.c compute_uncertainty), and where the quarter's edges cut: *rel, the
 * exact mode's lost events as a share of its events plus the CPU time credited to unrecorded
 * switches as a share of the work (0 for the samples); *misplaced_ns, the critical path a
 * quarter's two edges can misplace, one unit at each in quadrature: a running slice (a thread's
 * CPU time inside the quarter, which bounds its critical path, is cut to within the slice in
 * progress; the mean slice) or a sampled interval. */
static void resolution(const struct pma_run *run, int exact, double *rel, double *misplaced_ns)
{
	const struct pma_exact_stats *x = &run->xst;

	*rel = 0;
	if (exact && x->events + x->lost > 0 && x->work_ns > 0)
		*rel = (double)x->lost / (double)(x->events + x->lost) + x->inferred_ns / x->work_ns;
	*misplaced_ns = M_SQRT2 * (exact ? mean_slice_ns(run->exact) : run->st.window_ns);
	if (!isfinite(*rel) || *rel < 0)
		*rel = 0;
	if (!isfinite(*misplaced_ns) || *misplaced_ns < 0)
		*misplaced_ns = 0;
}

int pma_stationarity_compute(const struct pma_run *run, int est, struct pma_stationarity *out)
{
	double misplaced_ns;
	double work_ns[NWIN], T_cp_ns[NWIN], b[NWIN], e[NWIN];
	uint64_t t0_ns, t1_ns, cut = 0;
	size_t nint = 0;
	double len_s;

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < NPARTS; k++) {
		b[k] = (double)k / NPARTS;
		e[k] = (double)(k + 1) / NPARTS;
	}
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		b[NPARTS + i] = (double)i / PMA_STAT_QUARTERS;
		e[NPARTS + i] = (double)(i + 1) / PMA_STAT_QUARTERS;
	}
	if (pma_regions_parts(run, NWIN, b, e, &t0_ns, &t1_ns, work_ns, T_cp_ns, &out->method) < 0)
		return -1;
	if (!out->method) {
		out->why_not = "the run has neither scheduler events nor sampled intervals";
		return 0;
	}
	if (strcmp(out->method, "samples") == 0) {
		if (run->est)
			(void)pma_est_series(run->est, &nint, &cut);
		out->sampled_fallback = est == PMA_EST_SWITCH || est == PMA_EST_SCHED;
		if (nint < PMA_STAT_MIN_INTERVALS) {
			out->why_not = out->sampled_fallback ?
				"switch-exact has no real-time timelines, and the samples are too few "
				"intervals (two per eighth of a quarter)" :
				"too few sampled intervals (two per eighth of a quarter)";
			return 0;
		}
	}
	resolution(run, strcmp(out->method, "sched-exact") == 0, &out->rel_err, &misplaced_ns);
	len_s = (double)(t1_ns - t0_ns) / 1e9 / PMA_STAT_QUARTERS;
	for (int i = 0; i < PMA_STAT_QUARTERS; i++) {
		struct pma_stat_quarter *q = &out->q[i];
		double est_err;

		quarter_of_parts(work_ns + i * PMA_STAT_BLOCKS, T_cp_ns + i * PMA_STAT_BLOCKS,
				 work_ns[NPARTS + i], T_cp_ns[NPARTS + i], q);
		if (!(q->T_cp_ns > 0) || !isfinite(q->A_err_stat)) {
			out->why_not = "a quarter of the recording holds no CPU time of the program";
			return 0;
		}
		q->start_s = i * len_s;
		q->length_s = len_s;
		est_err = q->A * hypot(out->rel_err, misplaced_ns / q->T_cp_ns);
		q->A_err = sqrt(q->A_err_stat * q->A_err_stat + est_err * est_err);
	}
	out->have = 1;
	test_quarters(out);
	return 0;
}
