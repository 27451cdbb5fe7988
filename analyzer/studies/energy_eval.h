/* SPDX-License-Identifier: MIT */
/* energy_eval.h: the energy section of a pmanalyze report: the power model fitted to the runs
 * with energy readings of the loaded traces (power.h), E(n) and EDP(n) over the predicted T(n),
 * the energy-optimal core count beside eq. 11's time-optimal one, and how far the readings can
 * be trusted given the machine's other load. Pure computation over the typed trace model. */
#ifndef PMA_ENERGY_EVAL_H
#define PMA_ENERGY_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "trace/analyze.h"
#include "model/model.h"
#include "notes/notes.h"
#include "model/power.h"

/* A run whose energy readings were further apart than this may have missed a counter wrap
 * (two wraps between readings read as one; the collector reads every 100 ms). */
#define PMA_ENERGY_MAX_GAP_NS 1000000000.0

/* How far package energy measures the program: the other processes' share of the machine's busy
 * CPUs during the runs, o / (o + p) with o = RUN_END other_load.cpus and p = other_load.
 * program_cpus, at its largest over the runs used. Package energy includes every process on the
 * package (docs/energy.md §2), so this share of the dynamic power is not the program's. */
enum pma_energy_trust {
	PMA_TRUST_UNKNOWN = 0, /* no run recorded its other load */
	PMA_TRUST_GOOD,        /* share < 0.10 */
	PMA_TRUST_FAIR,        /* share < 0.30 */
	PMA_TRUST_POOR,        /* share >= 0.30 */
};

struct pma_energy_result {
	int have;                    /* the power model was fitted: the fields below are valid */
	char reason[512];            /* when !have: why ("no powercap ..." as recorded, or energy at
				      * one core count only); "" when have */
	const char *source;          /* "powercap" or "perf" (borrowed from the trace), or NULL */
	struct pma_power_model model;
	size_t nruns;                /* runs with energy readings used for the fit */
	double other_share_max;      /* largest other-load share among them (enum above); NAN unknown */
	double other_load_max_cpus;  /* largest other_load.cpus among them; NAN unknown */
	enum pma_energy_trust trust;
	size_t npts;                 /* core counts with a finite predicted time */
	struct pma_energy_point *pts;/* [npts]: E(n), EDP(n) */
	struct pma_energy_optimum opt; /* n_time here is argmin T over pts */
	int unphysical;              /* the fit was refused (P_core < 0, P_static < 0 or a P(n) <= 0):
				      model holds it for the note, have is 0 */
	struct pma_notes notes;      /* PMA_NOTE_POWER_UNPHYSICAL, _POWER_TWO_COUNTS, _ENERGY_GAP */
};

/* The run as a power-model input (n, busy cores = RUN_END C.cpu_time / wall time, T = wall
 * time, E = package + dram J, E_core = core zones J or -1). Returns 1, or 0 when the run has no
 * finished end, no package energy or no wall time. */
int pma_power_run_from(const struct pma_run *run, struct pma_power_run *p);

/* Collects every finished run of traces[0..ntraces-1] with RUN_END energy (package + dram J,
 * core zones when present, its CPU count n, busy cores = CPU time / wall time, wall time T),
 * fits P(x) = P_static + x P_core (pma_power_fit, zones' split when every run has a core zone),
 * and predicts E(n) = P(A(m,n)) T(n) for the core counts cores[k] with predictions pred[k]
 * (Tudor & Teo eq. 1, 6: T from T(1)/S, A from eq. 6); points with a non-finite T are skipped.
 * Without energy, out->have is 0 and out->reason says why (the first run's recorded
 * energy_reason, or the fit's reason): no guessed watts. A fit that is not physical (P_core < 0,
 * P_static < 0, or P(n) <= 0 at a predicted n) is refused the same way, with
 * PMA_NOTE_POWER_UNPHYSICAL in out->notes; a fit on two core counts gets
 * PMA_NOTE_POWER_TWO_COUNTS (R² is then 1 by construction), and runs whose readings were over
 * PMA_ENERGY_MAX_GAP_NS apart PMA_NOTE_ENERGY_GAP. Returns 0, or -1 when memory runs out. */
int pma_energy_eval(const struct pma_trace *traces, int ntraces, const uint32_t *cores,
		    const struct pma_prediction *pred, size_t ncores, struct pma_energy_result *out);
void pma_energy_result_free(struct pma_energy_result *e);

/* The power of the analyzed run's energy zones over its time (the energy plot). */
struct pma_run_power {
	struct pma_power_series s; /* s.n 0: the run has fewer than two readings (no ENERGY records) */
	char **labels;             /* [s.nzones]: the zone's RUN_BEGIN name ("package-0", "dram"), with
				      its RUN_END id when the name repeats ("core (intel-rapl:1:0)");
				      "zone i" when unnamed */
	const char *source;        /* RUN_END energy.source ("powercap", "perf"; borrowed), or NULL */
};

/* The power of run's zones from its ENERGY records (pma_power_series: W = ΔµJ / Δns × 1e3 between
 * consecutive readings), in seconds since its RUN_BEGIN, whose time is that of the run's first
 * reading of 0 µJ (FORMAT.md §5.8; without RUN_BEGIN, since the first record). out is freed with
 * pma_run_power_free, also on error. Returns 0 (out->s.n 0 when the run has no energy series), or
 * -1 when memory runs out. */
int pma_run_power(const struct pma_run *run, struct pma_run_power *out);
void pma_run_power_free(struct pma_run_power *p);

/* "good", "fair", "poor" or "unknown". */
const char *pma_energy_trust_name(enum pma_energy_trust t);

#endif
