/* SPDX-License-Identifier: MIT */
/* collector_cost.c: the collector's cost on the ranks of a bound job, as one note (bindings.h). */
#include "collector_cost.h"

#include <math.h>

#include "job.h"

int pma_ranks_collector_note(struct pma_ranks_result *r)
{
	double on_rank = 0, own_cpu = 0, total_s = 0, worst = -1, worst_rank = -1;

	for (size_t i = 0; i < r->n; i++) {
		const struct pma_rank_row *w = &r->rows[i];
		if (!w->complete || !w->analyzed || isnan(w->collector_cpu))
			continue;
		if (w->collector_cpu >= 0) {
			own_cpu++;
			continue;
		}
		on_rank++;
		if (!isfinite(w->collector_s))
			continue;
		total_s += w->collector_s;
		if (w->busy_s > 0 && 100 * w->collector_s / w->busy_s > worst) {
			worst = 100 * w->collector_s / w->busy_s;
			worst_rank = (double)w->rank;
		}
	}
	if (on_rank == 0)
		return 0;
	return pma_note_add_ranks_collector_on_rank(&r->notes,
			&(struct pma_note_ranks_collector_on_rank){ .ranks = on_rank, .cpu_s = total_s,
			.worst_pct = worst, .worst_rank = worst_rank, .own_cpu = own_cpu });
}
