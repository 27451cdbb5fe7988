// SPDX-License-Identifier: MIT
// notes/text_energy.c: the wording of the notes about the energy and power model and the learned
// predictors of docs/energy.md (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

int pma_note_text_energy(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;
	char status[64];

	switch (x->code) {
	case PMA_NOTE_POWER_UNPHYSICAL:
		snprintf(buf, size, "the power fit P(x) = P_static + x P_core over %.0f runs at %.0f "
			 "core counts is not physical (P_static %.2f W, P_core %.2f W, R2 %.3f, least "
			 "P(n) %.3g W): %s, so the runs' power does not measure the program (other load "
			 "on the package, frequency or idle-state changes between runs); E(n) and the "
			 "energy-optimal core count are not shown", n[3], n[4], n[0], n[1], n[2], n[5],
			 n[1] < 0 ? "power falls as more cores are busy" :
			 n[0] < 0 ? "the power with no busy core is negative" :
			 "the predicted power is not positive");
		break;
	case PMA_NOTE_POWER_TWO_COUNTS:
		snprintf(buf, size, "the power model rests on two core counts (%.0f run%s): a line "
			 "through two points always fits, so R2 %.3f says nothing about whether power "
			 "grows linearly with busy cores%s; record a third core count to check it", n[0],
			 n[0] == 1 ? "" : "s", n[1], n[0] > 2 ? " (it measures only the spread of the "
			 "repetitions)" : "");
		break;
	case PMA_NOTE_ENERGY_GAP:
		snprintf(buf, size, "%.0f run%s read the energy counters more than 1 s apart (up to "
			 "%.2f s, run %.0f): a counter that wrapped twice between two readings counts "
			 "one wrap, so the energy may be short by max_energy_range_uj (AMD's package "
			 "counters wrap within minutes)", n[0], n[0] == 1 ? "" : "s", n[1], n[2]);
		break;
	case PMA_NOTE_LEARN_FAILED_RUNS:
		if (n[2] == PMA_RUNST_EXIT_CODE)
			snprintf(status, sizeof(status), "exited %.0f", n[3]);
		else if (n[2] == PMA_RUNST_SIGNAL)
			snprintf(status, sizeof(status), "was killed by signal %.0f", n[3]);
		else
			snprintf(status, sizeof(status), "recorded no exit status");
		snprintf(buf, size, "left out of the training table: %.0f run%s that did not exit 0 "
			 "(run %.0f of '%s' %s): a failed run measures its failure, not the program",
			 n[0], n[0] == 1 ? "" : "s", n[1], s(x, 0), status);
		break;
	default:
		return -1;
	}
	return 0;
}
