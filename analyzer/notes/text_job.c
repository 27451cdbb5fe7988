// SPDX-License-Identifier: MIT
// notes/text_job.c: the wording of the notes about the merge of an MPI job's rank traces (one file per topic).
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "notes.h"
#include "topics.h"

void pma_note_text_ranks_omega_unknown(const struct pma_note_ranks_omega_unknown *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "omega unknown for %.0f multithreaded rank%s", a->ranks,
		 a->ranks == 1 ? "" : "s");
	if (a->failed_ranks > 0) {
		size_t o = strlen(buf);
		snprintf(buf + o, size - o, ": the calibration runs failed in %.0f of them (%.0f "
			 "run%s; in '%s' %s): under a launcher a second start of an MPI program "
			 "fails (Open MPI: orte_init in MPI_Init) or its binding leaves no CPU for "
			 "the runs", a->failed_ranks, a->failed_runs,
			 a->failed_runs == 1 ? "" : "s", s(a->trace), s(a->failure));
	}
	{
		size_t o = strlen(buf);
		snprintf(buf + o, size - o, "; calibrate outside the launcher, on one node: "
			 "'pmcollect --calibrate -t M -o cal.zst -- ./app args' (the program as a "
			 "single rank, or its non-MPI equivalent, with the ranks' M threads), then "
			 "'pmanalyze --calibration cal.zst' with these traces (docs/cluster.md)");
	}
}

void pma_note_text_ranks_cal_file(const struct pma_note_ranks_cal_file *a, char *buf, size_t size)
{
	snprintf(buf, size, "omega of %.0f rank%s from the calibration trace '%s' (its runs of "
		 "%.0f threads, fitted on their own: Tudor & Teo, eq. 7-10)", a->ranks,
		 a->ranks == 1 ? "" : "s", s(a->trace), a->threads);
	if (a->replaced > 0) {
		size_t o = strlen(buf);
		snprintf(buf + o, size - o, "; it replaces the rank's own calibration runs in "
			 "%.0f of them", a->replaced);
	}
}

void pma_note_text_ranks_mpi_unmeasured(const struct pma_note_ranks_mpi_unmeasured *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "time inside MPI not measured in %.0f of %.0f ranks: their busy "
		 "time includes the time they polled inside MPI (Open MPI and MPICH wait by "
		 "polling), so the imbalance is underestimated; record with 'pmcollect --mpi' "
		 "(the default when the program links libmpi)", a->unmeasured, a->ranks);
}

void pma_note_text_ranks_collector_on_rank(const struct pma_note_ranks_collector_on_rank *a,
				char *buf, size_t size)
{
	snprintf(buf, size, "pmcollect sampled %.0f rank%s from the rank's own CPUs (the "
		 "launcher's binding left no CPU outside them and no free SMT sibling), sleeping "
		 "between samples: %.3f s of CPU in all, at most %.2f%% of a rank's busy time "
		 "(rank %.0f)", a->ranks, a->ranks == 1 ? "" : "s", a->cpu_s, a->worst_pct,
		 a->worst_rank);
	if (a->own_cpu > 0) {
		size_t o = strlen(buf);
		snprintf(buf + o, size - o, "; %.0f rank%s had pmcollect on a CPU of its own",
		a->own_cpu,
			 a->own_cpu == 1 ? "" : "s");
	}
}