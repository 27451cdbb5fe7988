// SPDX-License-Identifier: MIT
// notes/text_scaling.c: the wording of the notes about the scaling study of a sweep (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

void pma_note_text_overhead_oversubscribed(const struct pma_note_overhead_oversubscribed *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "the parallel overhead x T(x) - T(1) counts x CPUs, but the sweep "
		 "ran up to %.0f threads on %.0f CPU%s: beyond the CPU count it measures the "
		 "threads' count times the time, not CPU time lost; read the CPU time and "
		 "run-queue wait fits instead", a->threads, a->cpus, a->cpus == 1 ? "" : "s");
}