/* SPDX-License-Identifier: MIT */
/* interference.h: the active-interference section of a pmanalyze report (Casas & Bronevetsky §5):
 * from the runs of `pmcollect --interfere` and the calibration in META, the sensitivity curve
 * (runtime and slowdown against the resource left), the bounds of §5.2, and which estimate of the
 * resource left was used and why. Pure computation over the typed trace model. */
#ifndef PMA_INTERFERENCE_H
#define PMA_INTERFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/analyze.h"
#include "model/sensitivity.h"

/* Which estimate of the resource left the curve and the bounds use. */
enum pma_interf_estimate {
	PMA_INTERF_EST_BANDWIDTH,   /* B - k·BW1 from the calibration (§5.2) */
	PMA_INTERF_EST_CAPACITY,    /* C(k) from the calibration's probe (§3.2.3) */
	PMA_INTERF_EST_NONE,        /* none: the curve is against k only, no bound (reason says why) */
};

struct pma_interf_result {
	int present;               /* the trace has interference runs or an interference calibration */
	int bandwidth;             /* the runs' kind: BWThrs (else CSThrs) */
	const struct pma_interf_cal *cal; /* META "interference" (borrowed), NULL when absent */
	size_t nruns;              /* interference runs used (complete, exit 0) */
	size_t nreps;              /* R: repetitions per level used (the fewest any level has) */
	double threshold;          /* degradation threshold (0.05 = 5%) */
	uint32_t p;                /* processes sharing the resource (--procs, §5.2; default 1) */
	struct pma_sens_result sens; /* curve and verdict; points[l].left NAN when estimate is NONE */
	double interferers_bytes_per_s[PMA_SENS_MAX_LEVELS]; /* median measured traffic per level, NAN unknown */
	double wall_ns[PMA_SENS_MAX_LEVELS]; /* median program wall time per level (the curve's
				      runtime is its CPU time, utime + stime) */
	enum pma_interf_estimate estimate;
	char reason[384];          /* why this estimate (one line) */
	int capacity_resolvable;   /* cache: the CSThrs take more capacity than the probe's spread */
};

/* Fills *res from trace t: the runs with RUN_BEGIN "interference" that finished with exit code 0,
 * grouped by k; the runtime of a run is the program's CPU time, RUN_END rusage utime + stime
 * (wall_ns when absent): on a shared machine the wall time also holds the waits for a CPU that
 * other programs, pushed off the interferers' CPUs, cause; memory stalls are CPU time. The
 * interferers are threads of pmcollect, never part of the program's time. The curve and bounds come from
 * pma_sensitivity (Casas & Bronevetsky §5.2) with the calibration's B and BW1 (bandwidth), or its
 * C(k) (cache) when the calibration resolves the capacity the CSThrs take: every level's row
 * valid and C(0) - C(K) larger than max(the spread of row 0's probe points, 10% of C(0)); else the
 * curve is against k only and no bound is given (estimate NONE with the reason). threshold 0
 * takes PMA_SENS_THRESHOLD_DEFAULT. p is §5.2's number of the program's processes that share the
 * resource (the needs are divided by it; 0 = 1). res->present is 0 when the trace has neither interference
 * runs nor calibration. Returns 0, or -1 with a one-line reason (runs of both kinds mixed, no
 * complete run at k = 0, a failed pma_sensitivity). */
int pma_interference(const struct pma_trace *t, double threshold, uint32_t p,
		     struct pma_interf_result *res, char *why,
		     size_t whysize);

/* The verdict in one line, as the table, the JSON "summary" and the HTML report give it: "not
 * sensitive in the measured range (...)", "no verdict: one repetition per level ...", "sensitive:
 * k_ok = 0, k_bad = 1: bandwidth needed per process 45.00 to 58.50 GB/s (p = 1)" (MB for cache,
 * 2^20 bytes), or without a bound when the resource left is unknown. Into buf (size bytes). */
void pma_interf_summary(char *buf, size_t size, const struct pma_interf_result *x);

/* "bandwidth (B - k BW1)", "capacity (C(k))" or "none". Static string. */
const char *pma_interf_estimate_name(enum pma_interf_estimate e);

#endif
