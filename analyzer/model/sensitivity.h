/* SPDX-License-Identifier: MIT */
/* sensitivity.h: a program's sensitivity to active interference and the cache and bandwidth it
 * needs (Casas & Bronevetsky §5.2): pure arithmetic over the runtimes of runs with k = 0..K
 * interferers and the machine's calibration. */
#ifndef PMA_SENSITIVITY_H
#define PMA_SENSITIVITY_H

#include <stddef.h>
#include <stdint.h>

#define PMA_SENS_MAX_LEVELS 64
#define PMA_SENS_THRESHOLD_DEFAULT 0.05 /* 5% slowdown counts as degradation */

enum pma_sens_kind {
	PMA_SENS_CACHE,     /* k CSThrs: resource left is the capacity C(k), bytes */
	PMA_SENS_BANDWIDTH, /* k BWThrs: resource left is B - k·BW1, bytes/s */
};

enum pma_sens_verdict {
	PMA_SENS_BOUNDED,       /* some level degraded: need_lo..need_hi hold */
	PMA_SENS_NOT_SENSITIVE, /* "not sensitive in the measured range": no level degraded */
	PMA_SENS_NO_NOISE,      /* one repetition per level: no noise estimate, so neither a
				 * degradation nor its absence can be told from the run-to-run spread */
};

struct pma_sens_input {
	enum pma_sens_kind kind;
	size_t nlevels;            /* L levels, at most PMA_SENS_MAX_LEVELS; level 0 must be k = 0 */
	const uint32_t *k;         /* [L] interferers of each level, increasing */
	size_t nreps;              /* R >= 1 repetitions per level */
	const double *runtime_ns;  /* [L][R] row-major: runtime_ns[l*R + r], every value > 0 */
	const double *C_bytes;     /* cache: [L] capacity left with k[l] CSThrs (C(0) = the whole
				    * cache), from the calibration; unused for bandwidth */
	double B_bytes_per_s;      /* bandwidth: the machine's B */
	double BW1_bytes_per_s;    /* bandwidth: one BWThr's BW1 */
	uint32_t p;                /* processes sharing the cache or memory bus, >= 1 */
	double threshold;          /* degradation threshold (0.05 = 5%); 0 takes the default */
};

/* One point of a sensitivity curve. */
struct pma_sens_point {
	uint32_t k;
	double left;          /* resource left: bytes (cache) or bytes/s (bandwidth) */
	double runtime_ns;    /* median of the level's repetitions */
	double min_ns, max_ns; /* their range */
	double slowdown;      /* runtime_ns / level 0's runtime_ns - 1 */
	int degraded;         /* slowdown > threshold and the ranges do not overlap (min_ns > level 0's max_ns) */
	int within_noise;     /* slowdown > threshold but the ranges overlap: not counted */
};

struct pma_sens_result {
	size_t npoints;
	struct pma_sens_point points[PMA_SENS_MAX_LEVELS];
	enum pma_sens_verdict verdict;
	int k_ok;             /* the most interferers with no degradation below k_bad; -1 if none */
	int k_bad;            /* the fewest interferers with degradation; -1 if none */
	int nonmonotonic;     /* a level above k_bad was not degraded (noise or a real dip) */
	double need_lo, need_hi; /* per process: bytes or bytes/s; 0 unless BOUNDED */
};

/* Sensitivity curves and bounds (Casas & Bronevetsky §5.2, MCB): the curve is (resource left,
 * runtime, slowdown) per level; "for each process mapping, we consider the experiments with no
 * performance degradation and pick the one that has the most CSThrs [k_ok]. We then consider the
 * experiments with performance degradation and pick the one with the fewest CSThrs [k_bad]", and
 * "the ratio Available_cache_capacity / #processes" gives
 *     cache needed per process     in [C(k_bad)/p, C(k_ok)/p],
 *     bandwidth needed per process in [(B - k_bad·BW1)/p, (B - k_ok·BW1)/p].
 * A level is degraded when its median slowdown exceeds the threshold AND its fastest repetition is
 * slower than level 0's slowest (the repetitions' noise cannot explain it); k_ok is the last level
 * below k_bad. When no level is degraded the verdict is PMA_SENS_NOT_SENSITIVE and no bound is
 * given (the paper: not sensitive means the program "primarily uses a higher level of the memory
 * hierarchy ... or doesn't fit in level X", §1). With one repetition per level (nreps = 1) there
 * is no noise estimate (a level's range is one run, so any slower run would count): no level is
 * degraded, those above the threshold are within_noise, and the verdict is PMA_SENS_NO_NOISE
 * with no bound (§5 notes that interference makes each run's slowdown stochastic).
 * Returns 0 with *res, or -1 with a one-line reason in why: bad shapes, level 0 not k = 0, k not
 * increasing, a runtime <= 0, p = 0, a capacity < 0, or bandwidth left B - k·BW1 <= 0 at some level. */
int pma_sensitivity(const struct pma_sens_input *in, struct pma_sens_result *res, char *why, size_t whysize);

#endif
