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

/* Why a bandwidth calibration is not trusted: its numbers contradict themselves or what the
 * interferers moved during the runs, as when another process moved memory while B or BW1 was
 * measured (the load average does not show memory traffic). */
enum pma_interf_disturbed {
	PMA_INTERF_CAL_OK,          /* consistent */
	PMA_INTERF_CAL_B_TAKEN,     /* k BWThrs of BW1 take all of B: B is too low (or BW1 too high) */
	PMA_INTERF_CAL_B_EXCEEDED,  /* the interferers alone moved more than B during the runs: B is
				       less than the machine's total */
	PMA_INTERF_CAL_BW1_EXCEEDED, /* the interferers moved more than PMA_INTERF_BW1_EXCESS x k BW1:
				       BW1 is too low, so B - k BW1 overstates the bandwidth left */
};

/* How far above k BW1 the interferers' median traffic must be for BW1 to be called disturbed:
 * beside the program a BWThr moves less than alone (quiet runs: 6.5-7.1 GB/s at k = 1 for a BW1
 * of about 10), so 1.5 x is not noise. */
#define PMA_INTERF_BW1_EXCESS 1.5

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
	enum pma_interf_disturbed disturbed; /* bandwidth: why the calibration's B or BW1 is not
				      trusted (then estimate NONE), PMA_INTERF_CAL_OK when trusted */
	uint32_t disturbed_k;      /* the level that showed it */
	double disturbed_bytes_per_s; /* the interferers' median traffic at that level (NAN for
				      PMA_INTERF_CAL_B_TAKEN, which compares the calibration's numbers only) */
};

/* Fills *res from trace t: the runs with RUN_BEGIN "interference" that finished with exit code 0,
 * grouped by k; the runtime of a run is the program's CPU time, RUN_END rusage utime + stime
 * (wall_ns when absent): on a shared machine the wall time also holds the waits for a CPU that
 * other programs, pushed off the interferers' CPUs, cause; memory stalls are CPU time. The
 * interferers are threads of pmcollect, never part of the program's time. The curve and bounds come from
 * pma_sensitivity (Casas & Bronevetsky §5.2) with the calibration's B and BW1 (bandwidth), or its
 * C(k) (cache) when the calibration resolves the capacity the CSThrs take: every level's row
 * valid and C(0) - C(K) larger than max(the spread of row 0's probe points, 10% of C(0)); else the
 * curve is against k only and no bound is given (estimate NONE with the reason). A bandwidth
 * calibration is not used when it is disturbed (res->disturbed, enum pma_interf_disturbed: K BWThrs
 * take all of B, or the interferers' median traffic at a level exceeds B or
 * PMA_INTERF_BW1_EXCESS x k BW1): estimate NONE, the curve against k only, the verdict from the
 * slowdowns alone and no bound. threshold 0
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

/* "no", "B_taken", "B_exceeded" or "BW1_exceeded" (JSON interference.calibration_disturbed).
 * Static string. */
const char *pma_interf_disturbed_name(enum pma_interf_disturbed d);

/* "bandwidth (B - k BW1)", "capacity (C(k))" or "none". Static string. */
const char *pma_interf_estimate_name(enum pma_interf_estimate e);

#endif
