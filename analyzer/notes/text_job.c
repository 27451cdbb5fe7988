// SPDX-License-Identifier: MIT
// notes/text_job.c: the wording of the notes about the merge of an MPI job's rank traces (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

int pma_note_text_job(const struct pma_note *x, char *buf, size_t size)
{
	const double *n = x->n;

	switch (x->code) {
	case PMA_NOTE_RANKS_OMEGA_UNKNOWN:
		snprintf(buf, size, "omega unknown for %.0f multithreaded rank%s", n[0],
			 n[0] == 1 ? "" : "s");
		if (n[1] > 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, ": the calibration runs failed in %.0f of them (%.0f "
				 "run%s; in '%s' %s): under a launcher a second start of an MPI program "
				 "fails (Open MPI: orte_init in MPI_Init) or its binding leaves no CPU for "
				 "the runs", n[1], n[2], n[2] == 1 ? "" : "s", s(x, 0), s(x, 1));
		}
		{
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, "; calibrate outside the launcher, on one node: "
				 "'pmcollect --calibrate -t M -o cal.zst -- ./app args' (the program as a "
				 "single rank, or its non-MPI equivalent, with the ranks' M threads), then "
				 "'pmanalyze --calibration cal.zst' with these traces (docs/cluster.md)");
		}
		break;
	case PMA_NOTE_RANKS_CAL_FILE:
		snprintf(buf, size, "omega of %.0f rank%s from the calibration trace '%s' (its runs of "
			 "%.0f threads, fitted on their own: Tudor & Teo, eq. 7-10)", n[0],
			 n[0] == 1 ? "" : "s", s(x, 0), n[2]);
		if (n[1] > 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, "; it replaces the rank's own calibration runs in "
				 "%.0f of them", n[1]);
		}
		break;
	case PMA_NOTE_RANKS_MPI_UNMEASURED:
		snprintf(buf, size, "time inside MPI not measured in %.0f of %.0f ranks: their busy "
			 "time includes the time they polled inside MPI (Open MPI and MPICH wait by "
			 "polling), so the imbalance is underestimated; record with 'pmcollect --mpi' "
			 "(the default when the program links libmpi)", n[0], n[1]);
		break;
	case PMA_NOTE_RANKS_COLLECTOR_ON_RANK:
		snprintf(buf, size, "pmcollect sampled %.0f rank%s from the rank's own CPUs (the "
			 "launcher's binding left no CPU outside them and no free SMT sibling), sleeping "
			 "between samples: %.3f s of CPU in all, at most %.2f%% of a rank's busy time "
			 "(rank %.0f)", n[0], n[0] == 1 ? "" : "s", n[1], n[2], n[3]);
		if (n[4] > 0) {
			size_t o = strlen(buf);
			snprintf(buf + o, size - o, "; %.0f rank%s had pmcollect on a CPU of its own", n[4],
				 n[4] == 1 ? "" : "s");
		}
		break;
	default:
		return -1;
	}
	return 0;
}
