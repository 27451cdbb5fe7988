// SPDX-License-Identifier: MIT
// notes/text_energy.c: the wording of the notes about the energy and power model and the learned
// predictors of docs/energy.md (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

void pma_note_text_power_unphysical(const struct pma_note_power_unphysical *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "the power fit P(x) = P_static + x P_core over %.0f runs at %.0f "
		 "core counts is not physical (P_static %.2f W, P_core %.2f W, R2 %.3f, least "
		 "P(n) %.3g W): %s, so the runs' power does not measure the program (other load "
		 "on the package, frequency or idle-state changes between runs); E(n) and the "
		 "energy-optimal core count are not shown", a->runs, a->counts, a->P_static_w,
		 a->P_core_w, a->R2, a->P_min_w,
		 a->P_core_w < 0 ? "power falls as more cores are busy" :
		 a->P_static_w < 0 ? "the power with no busy core is negative" :
		 "the predicted power is not positive");
}

void pma_note_text_power_two_counts(const struct pma_note_power_two_counts *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "the power model rests on two core counts (%.0f run%s): a line "
		 "through two points always fits, so R2 %.3f says nothing about whether power "
		 "grows linearly with busy cores%s; record a third core count to check it", a->runs,
		 a->runs == 1 ? "" : "s", a->R2,
		 a->runs > 2 ? " (it measures only the spread of the "
		 "repetitions)" : "");
}

void pma_note_text_energy_gap(const struct pma_note_energy_gap *a, char *buf, size_t size)
{
	snprintf(buf, size, "%.0f run%s read the energy counters more than 1 s apart (up to "
		 "%.2f s, run %.0f): a counter that wrapped twice between two readings counts "
		 "one wrap, so the energy may be short by max_energy_range_uj (AMD's package "
		 "counters wrap within minutes)", a->runs, a->runs == 1 ? "" : "s", a->gap_s,
		 a->run_id);
}

void pma_note_text_learn_failed_runs(const struct pma_note_learn_failed_runs *a,
				char *buf, size_t size)
{
	char status[64];

	if (a->status == PMA_RUNST_EXIT_CODE)
		snprintf(status, sizeof(status), "exited %.0f", a->code);
	else if (a->status == PMA_RUNST_SIGNAL)
		snprintf(status, sizeof(status), "was killed by signal %.0f", a->code);
	else
		snprintf(status, sizeof(status), "recorded no exit status");
	snprintf(buf, size, "left out of the training table: %.0f run%s that did not exit 0 "
		 "(run %.0f of '%s' %s): a failed run measures its failure, not the program",
		 a->runs, a->runs == 1 ? "" : "s", a->run_id, s(a->trace), status);
}