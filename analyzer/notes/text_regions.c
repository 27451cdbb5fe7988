// SPDX-License-Identifier: MIT
// notes/text_regions.c: the wording of the notes about the OpenMP regions and Allande's estimates (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

int pma_note_text_regions(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_REGION_A_CAPPED:
		snprintf(buf, size, "per-region A from the samples: %.0f of %.0f regions lie in sampled "
			 "intervals with less than one runnable thread on average (regions shorter than "
			 "the %.1f ms sampling interval, the program idle between them), where the "
			 "interval's concurrency would count more critical path than work; their T_cp was "
			 "capped at their work (A >= 1; lowest A before the cap %.2f, %s); record with "
			 "scheduler events (pmcollect --sched, as root) for exact per-region A", n[0],
			 n[1], n[3], n[2], s(x, 0));
		break;
	case PMA_NOTE_ALLANDE_NC_CAPPED:
		snprintf(buf, size, "Allande et al.'s model: the trace has runs with 1..%.0f threads but "
			 "a socket has %.0f cores (%.0f socket%s): NC is the cores of one socket (§3.1), "
			 "so the runs with more threads are left out", n[0], n[1], n[2],
			 n[2] == 1 ? "" : "s");
		break;
	case PMA_NOTE_ALLANDE_SPAN:
		snprintf(buf, size, "Allande et al.'s model wants every run of 1..NC threads on one "
			 "socket (§3.1), but %.0f of them ran on CPUs of several sockets (the %.0f-thread "
			 "run on CPUs %s, %.0f sockets): cf_i and beta_i then mix cross-socket effects into "
			 "the single-socket factors; record without --cpus (pmcollect -t LIST pins the "
			 "runs to the first package) or give --cpus one package's CPUs", n[0], n[1],
			 s(x, 0), n[2]);
		break;
	default:
		return -1;
	}
	return 0;
}
