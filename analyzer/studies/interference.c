/* SPDX-License-Identifier: MIT */
/* interference.c: the runs of pmcollect --interfere grouped by level, the choice of the estimate
 * of the resource left (calibration's B - k·BW1, its C(k), or none) and the §5.2 bounds. */
#include "interference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"

#define MB (1024.0 * 1024.0)
/* The capacity the CSThrs take must exceed this share of C(0) as well as the probe's spread. */
#define CAPACITY_MIN_DROP 0.10

const char *pma_interf_disturbed_name(enum pma_interf_disturbed d)
{
	switch (d) {
	case PMA_INTERF_CAL_B_TAKEN:
		return "B_taken";
	case PMA_INTERF_CAL_B_EXCEEDED:
		return "B_exceeded";
	case PMA_INTERF_CAL_BW1_EXCEEDED:
		return "BW1_exceeded";
	case PMA_INTERF_CAL_OK:
		break;
	}
	return "no";
}

const char *pma_interf_estimate_name(enum pma_interf_estimate e)
{
	switch (e) {
	case PMA_INTERF_EST_BANDWIDTH:
		return "bandwidth left B - k BW1";
	case PMA_INTERF_EST_CAPACITY:
		return "capacity left C(k)";
	case PMA_INTERF_EST_NONE:
		break;
	}
	return "none";
}

/* The usable runs of level k: interference runs with that k that ran to exit code 0. */
static int usable(const struct pma_run *r)
{
	return r->info.interf.present && pma_run_exited_ok(r) && r->info.wall_ns > 0;
}

/* A run's runtime for the curve: utime + stime (RUN_END rusage), else wall_ns. */
static double runtime_ns(const struct pma_run *r)
{
	double cpu = r->info.utime_ns + r->info.stime_ns;

	return cpu > 0 ? cpu : r->info.wall_ns;
}

/* Whether the bandwidth calibration contradicts itself or the runs (enum pma_interf_disturbed):
 * sets res->disturbed, disturbed_k and disturbed_bytes_per_s from the levels k[0..L-1] and the
 * interferers' median traffic res->interferers_bytes_per_s[] (NAN: not measured, not compared).
 * Returns nonzero when disturbed. */
static int bandwidth_disturbed(struct pma_interf_result *res, const uint32_t *k, size_t L)
{
	const struct pma_interf_cal *c = res->cal;

	res->disturbed = PMA_INTERF_CAL_OK;
	res->disturbed_bytes_per_s = NAN;
	if (!(c->B_bytes_per_s - k[L - 1] * c->BW1_bytes_per_s > 0)) {
		res->disturbed = PMA_INTERF_CAL_B_TAKEN;
		res->disturbed_k = k[L - 1];
		return 1;
	}
	for (size_t l = 0; l < L; l++) {
		double x = res->interferers_bytes_per_s[l];
		if (!k[l] || !isfinite(x))
			continue;
		if (x > c->B_bytes_per_s)
			res->disturbed = PMA_INTERF_CAL_B_EXCEEDED;
		else if (x > PMA_INTERF_BW1_EXCESS * k[l] * c->BW1_bytes_per_s)
			res->disturbed = PMA_INTERF_CAL_BW1_EXCEEDED;
		else
			continue;
		res->disturbed_k = k[l];
		res->disturbed_bytes_per_s = x;
		return 1;
	}
	return 0;
}

/* The words of res->disturbed for the reason line, into buf (size bytes): what contradicts what,
 * and which number is no longer trusted. */
static void disturbed_why(char *buf, size_t size, const struct pma_interf_result *res)
{
	const struct pma_interf_cal *c = res->cal;

	switch (res->disturbed) {
	case PMA_INTERF_CAL_B_TAKEN:
		snprintf(buf, size, "%u BWThrs of BW1 = %.2f GB/s take all of B = %.2f GB/s, so B "
			 "is not trusted", res->disturbed_k, c->BW1_bytes_per_s / 1e9, c->B_bytes_per_s / 1e9);
		break;
	case PMA_INTERF_CAL_B_EXCEEDED:
		snprintf(buf, size, "at k = %u the interferers alone moved %.2f GB/s, more than B = "
			 "%.2f GB/s, so B is not trusted", res->disturbed_k, res->disturbed_bytes_per_s / 1e9,
			 c->B_bytes_per_s / 1e9);
		break;
	case PMA_INTERF_CAL_BW1_EXCEEDED:
		snprintf(buf, size, "at k = %u the interferers moved %.2f GB/s, more than %.1f x k "
			 "BW1 = %.2f GB/s, so BW1 is not trusted", res->disturbed_k,
			 res->disturbed_bytes_per_s / 1e9, PMA_INTERF_BW1_EXCESS,
			 PMA_INTERF_BW1_EXCESS * res->disturbed_k * c->BW1_bytes_per_s / 1e9);
		break;
	case PMA_INTERF_CAL_OK:
		buf[0] = 0;
		break;
	}
}

/* Chooses the estimate of the resource left at levels k[0..L-1] (Casas & Bronevetsky §5.2 for
 * bandwidth, §3.2.3 for capacity) and fills left[] with it. */
static void choose_estimate(struct pma_interf_result *res, const uint32_t *k, size_t L, double *left)
{
	const struct pma_interf_cal *c = res->cal;

	res->estimate = PMA_INTERF_EST_NONE;
	if (!c || !c->present) {
		snprintf(res->reason, sizeof(res->reason), "the trace has no interference calibration");
		return;
	}
	if (res->bandwidth) {
		if (!(c->B_bytes_per_s > 0 && c->BW1_bytes_per_s > 0)) {
			snprintf(res->reason, sizeof(res->reason), "the calibration has no B or BW1");
			return;
		}
		if (bandwidth_disturbed(res, k, L)) {
			char what[256];
			disturbed_why(what, sizeof(what), res);
			snprintf(res->reason, sizeof(res->reason), "calibration disturbed: %s; the "
				 "bandwidth left is unknown, the curve is against k only (recalibrate on a "
				 "quiet machine)", what);
			return;
		}
		for (size_t l = 0; l < L; l++)
			left[l] = c->B_bytes_per_s - k[l] * c->BW1_bytes_per_s;
		res->estimate = PMA_INTERF_EST_BANDWIDTH;
		snprintf(res->reason, sizeof(res->reason), "B = %.2f GB/s (STREAM triad) and BW1 = %.2f GB/s "
			 "(one BWThr, eq. 1 with %s) from the calibration", c->B_bytes_per_s / 1e9,
			 c->BW1_bytes_per_s / 1e9, c->bw1_counters ? "counted LLC misses" : "misses = accesses, "
			 "no counters");
		return;
	}
	for (size_t l = 0; l < L; l++) {
		if (k[l] >= c->ncap || !isfinite(c->C_bytes[k[l]])) {
			snprintf(res->reason, sizeof(res->reason), "capacity not resolvable: the calibration "
				 "has no valid capacity with %u CSThrs", k[l]);
			return;
		}
	}
	{
		double C0 = c->C_bytes[0], CK = c->C_bytes[k[L - 1]];
		double spread = isfinite(c->C0_hi_bytes) ? c->C0_hi_bytes - c->C0_lo_bytes : 0;
		double noise = fmax(spread, CAPACITY_MIN_DROP * C0);
		if (!(C0 - CK > noise)) {
			snprintf(res->reason, sizeof(res->reason), "capacity not resolvable: %u CSThrs leave "
				 "%.1f MB of C(0) = %.1f MB, a drop within the probe's noise (%.1f MB: its "
				 "spread over footprints, at least %.0f%% of C(0)); the curve is against k only",
				 k[L - 1], CK / MB, C0 / MB, noise / MB, 100 * CAPACITY_MIN_DROP);
			return;
		}
		res->capacity_resolvable = 1;
	}
	for (size_t l = 0; l < L; l++)
		left[l] = c->C_bytes[k[l]];
	res->estimate = PMA_INTERF_EST_CAPACITY;
	snprintf(res->reason, sizeof(res->reason), "C(k) from the calibration's probe (%s method), "
		 "C(0) - C(%u) above the probe's noise", c->counters ? "counter" : "timing", k[L - 1]);
}

int pma_interference(const struct pma_trace *t, double threshold, uint32_t p,
		     struct pma_interf_result *res, char *why,
		     size_t whysize)
{
	uint32_t k[PMA_SENS_MAX_LEVELS];
	size_t count[PMA_SENS_MAX_LEVELS] = { 0 }, L = 0, R = SIZE_MAX;
	double left[PMA_SENS_MAX_LEVELS], *rt = NULL, v[PMA_MAX_RUNS], w[PMA_MAX_RUNS];
	int have_bw = 0, have_cache = 0, rc = -1;
	struct pma_sens_input in = { 0 };

	memset(res, 0, sizeof(*res));
	res->threshold = threshold > 0 ? threshold : PMA_SENS_THRESHOLD_DEFAULT;
	res->p = p ? p : 1;
	res->cal = t->meta.interf.present ? &t->meta.interf : NULL;
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run_interf *ri = &t->runs[i].info.interf;
		if (!ri->present)
			continue;
		have_bw |= ri->bandwidth;
		have_cache |= !ri->bandwidth;
	}
	res->present = have_bw || have_cache || res->cal;
	if (!have_bw && !have_cache) { /* the calibration alone */
		res->estimate = PMA_INTERF_EST_NONE;
		snprintf(res->reason, sizeof(res->reason), "the trace holds the calibration only (no runs)");
		return 0;
	}
	if (have_bw && have_cache) {
		snprintf(why, whysize, "'%s': interference runs of both kinds in one trace", t->path);
		return -1;
	}
	res->bandwidth = have_bw;
	/* the levels, in increasing k, and how many usable runs each has */
	for (uint32_t i = 0; i < t->nruns; i++) {
		const struct pma_run *r = &t->runs[i];
		size_t l = 0;
		if (!usable(r))
			continue;
		while (l < L && k[l] != r->info.interf.k)
			l++;
		if (l == L) {
			if (L == PMA_SENS_MAX_LEVELS)
				continue;
			k[L++] = r->info.interf.k;
		}
		count[l]++;
		res->nruns++;
	}
	for (size_t a = 1; a < L; a++) /* insertion sort of (k, count) by k */
		for (size_t b = a; b > 0 && k[b - 1] > k[b]; b--) {
			uint32_t tk = k[b]; size_t tc = count[b];
			k[b] = k[b - 1]; count[b] = count[b - 1];
			k[b - 1] = tk; count[b - 1] = tc;
		}
	if (L == 0 || k[0] != 0) {
		snprintf(why, whysize, "'%s': no complete interference run without interferers (k = 0)", t->path);
		return -1;
	}
	if (L < 2) {
		snprintf(why, whysize, "'%s': interference runs at k = 0 only: no curve", t->path);
		return -1;
	}
	for (size_t l = 0; l < L; l++)
		R = count[l] < R ? count[l] : R;
	res->nreps = R;
	rt = calloc(L * R, sizeof(*rt));
	if (!rt) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	/* runtimes [L][R]: the first R usable runs of each level in trace order */
	for (size_t l = 0; l < L; l++) {
		size_t n = 0, nv = 0;
		for (uint32_t i = 0; i < t->nruns; i++) {
			const struct pma_run *r = &t->runs[i];
			if (!usable(r) || r->info.interf.k != k[l] || n == R)
				continue;
			/* the program's CPU time: on a shared machine its wall time also counts the
			 * waits for a CPU that other programs, pushed off the interferers' CPUs, cause */
			rt[l * R + n++] = runtime_ns(r);
			v[nv] = r->info.interf.bytes_per_s;
			w[nv++] = r->info.wall_ns;
		}
		res->interferers_bytes_per_s[l] = k[l] ? pm_median_finite(v, nv) : 0;
		res->wall_ns[l] = pm_median_finite(w, nv);
	}
	choose_estimate(res, k, L, left);
	in.nlevels = L;
	in.k = k;
	in.nreps = R;
	in.runtime_ns = rt;
	in.p = res->p;
	in.threshold = res->threshold;
	if (res->estimate == PMA_INTERF_EST_BANDWIDTH) {
		in.kind = PMA_SENS_BANDWIDTH;
		in.B_bytes_per_s = res->cal->B_bytes_per_s;
		in.BW1_bytes_per_s = res->cal->BW1_bytes_per_s;
	} else {
		/* capacity, or the curve against k only: the slowdowns and the verdict do not depend
		 * on the resource left, which is blanked below when unknown */
		in.kind = PMA_SENS_CACHE;
		if (res->estimate == PMA_INTERF_EST_NONE)
			for (size_t l = 0; l < L; l++)
				left[l] = 0;
		in.C_bytes = left;
	}
	if (pma_sensitivity(&in, &res->sens, why, whysize) < 0)
		goto out;
	if (res->estimate == PMA_INTERF_EST_NONE) {
		for (size_t l = 0; l < L; l++)
			res->sens.points[l].left = NAN;
		res->sens.need_lo = res->sens.need_hi = NAN;
	}
	rc = 0;
out:
	free(rt);
	return rc;
}

void pma_interf_summary(char *buf, size_t size, const struct pma_interf_result *x)
{
	const struct pma_sens_result *s = &x->sens;

	if (x->sens.npoints == 0)
		snprintf(buf, size, "no runs: the calibration only");
	else if (s->verdict == PMA_SENS_NO_NOISE)
		snprintf(buf, size, "no verdict: one repetition per level, so no noise estimate and no "
			 "bound (record with --repeat 3 or more)");
	else if (s->verdict == PMA_SENS_NOT_SENSITIVE)
		snprintf(buf, size, "not sensitive in the measured range (no level slower by more than "
			 "%.0f%% beyond the repetitions' noise)", 100 * x->threshold);
	else if (x->estimate == PMA_INTERF_EST_NONE)
		snprintf(buf, size, "sensitive: k_ok = %d, k_bad = %d; no %s bound (%s)", s->k_ok, s->k_bad,
			 x->bandwidth ? "bandwidth" : "cache", x->disturbed != PMA_INTERF_CAL_OK ?
			 "the calibration was disturbed: the bandwidth left is unknown" :
			 "the resource left is unknown");
	else if (x->bandwidth)
		snprintf(buf, size, "sensitive: k_ok = %d, k_bad = %d: bandwidth needed per process %.2f to "
			 "%.2f GB/s (p = %u)", s->k_ok, s->k_bad, s->need_lo / 1e9, s->need_hi / 1e9, x->p);
	else
		snprintf(buf, size, "sensitive: k_ok = %d, k_bad = %d: cache needed per process %.1f to "
			 "%.1f MB (p = %u)", s->k_ok, s->k_bad, s->need_lo / MB, s->need_hi / MB, x->p);
}
