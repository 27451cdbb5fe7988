// SPDX-License-Identifier: MIT
// notes/text_regions.c: the wording of the notes about the OpenMP regions and Allande's estimates (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

void pma_note_text_region_a_capped(const struct pma_note_region_a_capped *a, char *buf, size_t size)
{
	snprintf(buf, size, "per-region A from the samples: %.0f of %.0f regions lie in sampled "
		 "intervals with less than one runnable thread on average (regions shorter than "
		 "the %.1f ms sampling interval, the program idle between them), where the "
		 "interval's concurrency would count more critical path than work; their T_cp was "
		 "capped at their work (A >= 1; lowest A before the cap %.2f, %s); record with "
		 "scheduler events (pmcollect --sched, as root) for exact per-region A", a->capped,
		 a->regions, a->interval_ms, a->A_min, s(a->region));
}

void pma_note_text_allande_nc_capped(const struct pma_note_allande_nc_capped *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "Allande et al.'s model: the trace has runs with 1..%.0f threads but "
		 "a socket has %.0f cores (%.0f socket%s): NC is the cores of one socket (§3.1), "
		 "so the runs with more threads are left out", a->N, a->NC, a->sockets,
		 a->sockets == 1 ? "" : "s");
}

void pma_note_text_allande_span(const struct pma_note_allande_span *a, char *buf, size_t size)
{
	snprintf(buf, size, "Allande et al.'s model wants every run of 1..NC threads on one "
		 "socket (§3.1), but %.0f of them ran on CPUs of several sockets (the %.0f-thread "
		 "run on CPUs %s, %.0f sockets): cf_i and beta_i then mix cross-socket effects into "
		 "the single-socket factors; record without --cpus (pmcollect -t LIST pins the "
		 "runs to the first package) or give --cpus one package's CPUs", a->runs,
		 a->threads,
		 s(a->cpus), a->sockets);
}