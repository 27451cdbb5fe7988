/* SPDX-License-Identifier: MIT */
/* collector_cost.h: what pmcollect's sampling cost the ranks of a job whose launcher bound each rank to
 * its CPUs (docs/cluster.md): pmcollect ran on an SMT sibling of the binding where one was free, else on
 * the rank's own CPUs, sleeping between samples. One note for the job instead of a warning per
 * rank. Pure computation over the merge's rows. */
#ifndef PMA_COLLECTOR_COST_H
#define PMA_COLLECTOR_COST_H

struct pma_ranks_result;

/* Adds PMA_NOTE_RANKS_COLLECTOR_ON_RANK to r->notes when the collector of some complete, analyzed
 * rank ran on the rank's CPUs (row collector_cpu < 0): how many ranks, the sampling's CPU time
 * over them (SUMMARY sampling_cpu_ns), its largest share of a rank's busy time and that rank, and
 * how many ranks had it on a CPU of its own. Returns 0, or -1 when memory runs out. */
int pma_ranks_collector_note(struct pma_ranks_result *r);

#endif
