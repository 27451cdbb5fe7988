/* SPDX-License-Identifier: MIT */
/* phases.h: the phase fallback for programs without OMPT regions: parallel phases cut out of a
 * parallelism profile at long serial gaps (docs/regions.md). Pure computation: no I/O. */
#ifndef PMA_PHASES_H
#define PMA_PHASES_H

#include <stddef.h>
#include <stdint.h>

/* One phase: [begin_ns, end_ns) on the profile's clock. */
struct pma_phase {
	uint64_t begin_ns, end_ns;
	double work_ns;    /* integral of the active-thread count over the phase (thread-ns), the
			      absorbed serial gaps included */
	double A;          /* work_ns / (end_ns - begin_ns): the phase's average parallelism
			      (Tudor & Teo, eq. 4, restricted to the phase) */
};

/* Segments a parallelism profile into phases: maximal intervals made of steps with at least
 * min_active active threads (2 in the issue: "with >= 2 active threads"), where a serial gap (a run
 * of steps with fewer) of at most gap_ns between two parallel steps is absorbed into the phase and
 * a longer one ends it. Leading and trailing serial time belongs to no phase.
 * The profile is a step function: step i starts at t_ns[i] (non-decreasing) and lasts until
 * t_ns[i + 1], the last one until end_ns (>= t_ns[n - 1]); active[i] is the number of threads
 * active (running, or runnable in an oversubscribed baseline) during step i, an average for sampled
 * profiles. Writes up to max phases to out[] in time order and returns how many there are (call with
 * max 0 to size; there are at most n / 2 + 1), or -1 when the times are not non-decreasing or an
 * active count is negative or NAN. */
long pma_phases_segment(const uint64_t *t_ns, const double *active, size_t n, uint64_t end_ns,
			double min_active, uint64_t gap_ns, struct pma_phase *out, size_t max);

#endif
