// SPDX-License-Identifier: MIT
// notes/text_scaling.c: the wording of the notes about the scaling study of a sweep (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

int pma_note_text_scaling(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_OVERHEAD_OVERSUBSCRIBED:
		snprintf(buf, size, "the parallel overhead x T(x) - T(1) counts x CPUs, but the sweep "
			 "ran up to %.0f threads on %.0f CPU%s: beyond the CPU count it measures the "
			 "threads' count times the time, not CPU time lost; read the CPU time and "
			 "run-queue wait fits instead", n[0], n[1], n[1] == 1 ? "" : "s");
		break;
	default:
		return -1;
	}
	return 0;
}
