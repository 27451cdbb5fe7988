/* SPDX-License-Identifier: MIT */
/* wakecharge.h: what the n-core replay charges a wake edge, from the machine's wake-up cost
 * (META "wake_cost" of pmcollect --calibrate / --calibrate-wake, records.h struct pma_wake_cal):
 * an extension of Tudor & Teo's processor-sharing model (docs/model.md "Wake-up costs"). Pure
 * computation, except pma_wakecost_info, which renders for pmanalyze --info. */
#ifndef PMA_WAKECHARGE_H
#define PMA_WAKECHARGE_H

#include <stdint.h>
#include <stdio.h>

#include "trace/analyze.h"
#include "model/exact.h"
#include "trace/records.h"

/* The charges the replay uses, and where they came from. */
struct pma_wake_result {
	int have;                       /* a calibration was found: the charges apply */
	const char *from;               /* path of the trace whose META held it (borrowed) */
	const char *cross_class;        /* the pair class taken as "another core" */
	double same_ns, cross_ns;       /* the calibration's medians, one-way */
	struct pma_wake_charge charge;  /* net of the recorded CPU time: same 0, cross
					   max(0, cross - same) */
	double cross_err_ns;            /* uncertainty of charge.cross_ns: half the batches' range
					   of both pairs, added in quadrature */
	double wakee_cpu_ns;            /* what the charge leaves out as the wakee's CPU time: half
					   the cross-core pair's CPU time beyond the same CPU's, 0
					   when the calibration has no cpu_ns */
	struct pma_replay_wakes wakes;  /* what the replay on the most cores replayed below the
					   thread count did: its placements, barriers (exact.h; all 0
					   when none) */
	uint32_t cores;                 /* that core count */
	double T_all_ns, T_all_err_ns;  /* pma_wakecost_T's replay on a core per thread, 0 until
					   computed */
};

/* The charges from a calibration: same_cpu is the same-core figure; "another core" is the
 * nearest class a scheduler spreads to first: shared_cache, else same_package, else smt, else
 * other_package. Each wake's same-core cost (the waker's system call, the wakee's switch-in) is
 * CPU time already in the recording, so the replay charges a same-core wake nothing more and a
 * cross-core wake the difference, less the wakee's CPU time in it: a cross-core wake costs both
 * threads CPU time (cpu_ns: 18-21 us of 26-28 us one-way on the 2-vCPU VM, the IPI and the
 * hypervisor's exits) that the n-core runs' CPU time C(n) holds, hence omega(n) (Tudor & Teo eq.
 * 7); the wakee's core waits through the waker's part and the transit, and runs the wakee's part.
 * The CPU time beyond the same CPU's is split evenly between the two (the waker's send, the
 * wakee's return from its wait). Without cpu_ns (traces before 2026-11-27) the whole difference
 * is charged. Sets out->have 0 (and returns -1) when cal has no same_cpu pair or no cross-core
 * pair. */
int pma_wakecost_from_cal(const struct pma_wake_cal *cal, const char *from, struct pma_wake_result *out);

/* The calibration the replay uses among the analyzed traces: a later operand of pure
 * calibration (no runs: pmcollect --calibrate-wake on the target machine) first, else traces[0]'s
 * own META, else the first later operand that has one. out->have 0 when none has both a same_cpu
 * and a cross-core pair. */
void pma_wakecost_choose(const struct pma_trace *traces, int ntraces, struct pma_wake_result *out);

/* T(n) of the replay with the charges (w NULL or !w->have: none) and its uncertainty from the
 * calibration's spread: *T_err_ns half the difference of the replays at cross_ns -+ cross_err_ns
 * (0 without charges). wk (may be NULL) counts the placements. Returns pma_exact_replay's. */
int pma_wakecost_replay(const struct pma_exact *x, uint32_t n, const struct pma_wake_result *w,
			double *T_ns, double *T_err_ns, struct pma_replay_wakes *wk);

/* T(n) of the predictions table (compute.c): below st->threads cores the replay (with w's
 * charges when w->have); at or above, T_cp without charges (nothing shares a core), and with them
 * the replay on st->threads cores, where every wake finds an idle core (replayed once, cached in
 * w: --cores 1-100000 must not replay 100000 times). Records in w the placements of the replay on
 * the most cores below st->threads. *T_err_ns as pma_wakecost_replay. Returns 0 or -1 (a wake
 * dependency that never resolves, out of memory). */
int pma_wakecost_T(const struct pma_exact *x, const struct pma_exact_stats *st, uint32_t n,
		   struct pma_wake_result *w, double *T_ns, double *T_err_ns);

/* The report's line on the replay's charges ("wake cost  ... per cross-core wake ..."). Nothing
 * when !w->have. */
void pma_wakecost_line(FILE *out, const struct pma_wake_result *w);

/* pmanalyze --info: one "wake cost" line per measured pair. Nothing without pairs. */
void pma_wakecost_info(FILE *out, const struct pma_wake_cal *cal);

#endif
