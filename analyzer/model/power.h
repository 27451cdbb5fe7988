/* SPDX-License-Identifier: MIT */
/* power.h: power model P(n) = P_static + n P_core fitted to runs with energy readings, predicted
 * energy E(n) = P(n) T(n), energy-delay product and the energy-optimal core count. Pure
 * computation over plain structs: no I/O. */
#ifndef PMA_POWER_H
#define PMA_POWER_H

#include <stddef.h>
#include <stdint.h>

/* One run with energy readings (a calibration or sweep run). */
struct pma_power_run {
	uint32_t n;          /* cores the run was given */
	double busy_cores;   /* average busy cores, CPU time / wall time; 0 = unknown, n is used */
	double T_s;          /* wall time of the run */
	double E_j;          /* energy of the run: package zones plus dram zones, in J */
	double E_core_j;     /* core (PP0) zones alone, J; < 0 when there is no core zone */
};

enum pma_power_method {
	PMA_POWER_FIT_TOTAL = 0,  /* least squares on the runs' total power */
	PMA_POWER_FIT_ZONES,      /* slope from the core zones, the rest is static */
};

struct pma_power_model {
	enum pma_power_method method;
	double P_static_w;   /* power with no busy core: uncore, dram, idle cores, rest of the package */
	double P_core_w;     /* power of one busy core */
	double R2;           /* R² of P_static + x P_core against the runs' total power E/T */
	size_t nruns;
	uint32_t ncounts;    /* distinct core counts among the runs */
};

/* Fits P(x) = P_static + x P_core to the runs' mean power P_i = E_i / T_i, with x the run's busy
 * cores (its n when busy_cores is 0), by linear least squares (GSL gsl_fit_linear). When every
 * run has a core zone (E_core_j >= 0) and zones is nonzero, uses the zones' own split instead:
 * P_core is the slope of the core zones' power E_core/T against x (only cores scale with x) and
 * P_static the mean of P_i - x_i P_core (uncore and dram are static). runs has k entries.
 * Source: TOEP (Benedict et al.) §III-A-5 measures energy per run; the linear power model is the
 * issue's (docs/energy.md).
 * Returns 0 and *out, or -1 with a reason in why: fewer than 2 distinct core counts ("energy at
 * two or more core counts is needed"), a run with T_s <= 0, E_j <= 0 or a non-finite number;
 * or PMA_POWER_E_UNPHYSICAL with *out filled and the reason ("the power fit is not physical:
 * ...") when P_core < 0 or P_static < 0: power cannot fall as cores get busy, so the readings
 * measure something else (other load, frequency changes) and E(n) must not be predicted. With
 * two core counts R² is 1 by construction whatever the readings (callers say so). */
#define PMA_POWER_E_UNPHYSICAL (-2)
int pma_power_fit(const struct pma_power_run *runs, size_t k, int zones, struct pma_power_model *out,
		  char *why, size_t whysize);

/* Energy prediction for one core count. */
struct pma_energy_point {
	uint32_t n;       /* cores */
	double T_s;       /* predicted time T(n) (given: Tudor & Teo, T(n) = T(1) / S(m,n), eq. 1) */
	double P_w;       /* P(n) = P_static + x P_core, x = A(m,n) busy cores or n */
	double E_j;       /* E(n) = P(n) T(n) */
	double EDP_js;    /* energy-delay product E(n) T(n), J s */
};

/* Fills out[i] for n[i] (increasing, >= 1) with time T_s[i] > 0 and busy cores A[i] (Tudor &
 * Teo's A(m,n), eq. 6: the average number of busy cores on n cores; NULL = n[i]). k entries in
 * each array. Returns 0, or -1 when a time is not positive and finite or n is not increasing. */
int pma_energy_predict(const struct pma_power_model *m, const uint32_t *n, const double *T_s,
		       const double *A, size_t k, struct pma_energy_point *out);

/* The core counts to choose from, side by side. */
struct pma_energy_optimum {
	uint32_t n_time;     /* time-optimal n: argmax S = argmin T (Tudor & Teo eq. 11, pma_optimal_cores) */
	uint32_t n_energy;   /* argmin E(n) (ties: the smaller n) */
	uint32_t n_edp;      /* argmin E(n) T(n) */
	double E_min_j;
	double EDP_min_js;
	double E_at_time_opt_j;  /* E(n_time): what the fastest choice costs */
};

/* Finds the optima among pts[0..k-1] (n increasing). Returns 0, or -1 when k is 0. */
int pma_energy_optimum(const struct pma_energy_point *pts, size_t k, struct pma_energy_optimum *out);

/* The power of each energy zone over a run, interval by interval (the energy plot). */
struct pma_power_series {
	size_t nzones;
	size_t n;            /* intervals between consecutive readings */
	double *t0_s, *t1_s; /* [n]: interval k runs from t0_s[k] to t1_s[k], s since t_start_ns */
	double *w;           /* [nzones * n]: zone z's mean power over interval k at w[z * n + k], W;
				NAN where its energy went down (never in a pmcollect trace) */
	double *mean_w;      /* [nzones]: zone z's energy over its finite intervals / their time, W;
				NAN when it has none */
	double max_w;        /* the largest finite w, 0 when none */
};

/* Turns cumulative energy readings into power: W = ΔµJ / Δns × 1e3 between consecutive readings.
 * t_ns[nreadings] are the readings' times (CLOCK_MONOTONIC ns), uj[nreadings * nzones] their µJ
 * (reading k's zone z at uj[k * nzones + z]), cumulative since the run's first reading and
 * wrap-corrected, as in ENERGY records (FORMAT.md §5.8: pmcollect has already added
 * max_energy_range_uj at each wrap, so a counter never goes down here). Times are seconds since
 * t_start_ns. start_is_reading: a reading of 0 µJ in every zone was taken at t_start_ns (pmcollect
 * takes the run's first reading just after it writes RUN_BEGIN, and records none for it), so the
 * first interval starts there; else the first reading only starts the first interval. A reading
 * not later than the previous one is skipped. The arrays of out are malloc'ed (free with
 * pma_power_series_free, also on error). Returns 0 (out->n may be 0: fewer than two readings), or
 * -1 when memory runs out or nzones is 0. */
int pma_power_series(const uint64_t *t_ns, const uint64_t *uj, size_t nreadings, size_t nzones,
		     uint64_t t_start_ns, int start_is_reading, struct pma_power_series *out);
void pma_power_series_free(struct pma_power_series *s);

#endif
