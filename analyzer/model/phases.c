/* SPDX-License-Identifier: MIT */
/* phases.c: parallel phases of a parallelism profile, cut at serial gaps longer than a threshold. */
#include "phases.h"

long pma_phases_segment(const uint64_t *t_ns, const double *active, size_t n, uint64_t end_ns,
			double min_active, uint64_t gap_ns, struct pma_phase *out, size_t max)
{
	struct pma_phase cur = {0, 0, 0, 0};
	double gap_work_ns = 0; /* work in the serial steps since the phase's last parallel step */
	int open = 0;
	long count = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t t1 = i + 1 < n ? t_ns[i + 1] : end_ns;
		double w;

		if (t1 < t_ns[i] || !(active[i] >= 0))
			return -1;
		w = active[i] * (double)(t1 - t_ns[i]);
		if (active[i] < min_active) {
			if (open)
				gap_work_ns += w;
			continue;
		}
		if (open && t_ns[i] - cur.end_ns <= gap_ns) {
			cur.work_ns += gap_work_ns; /* a short gap: the phase goes on */
		} else {
			if (open) {
				if ((size_t)count < max)
					out[count] = cur;
				count++;
			}
			cur.begin_ns = t_ns[i];
			cur.work_ns = 0;
			open = 1;
		}
		gap_work_ns = 0;
		cur.work_ns += w;
		cur.end_ns = t1;
	}
	if (open) {
		if ((size_t)count < max)
			out[count] = cur;
		count++;
	}
	for (long k = 0; k < count && (size_t)k < max; k++)
		out[k].A = out[k].end_ns > out[k].begin_ns ?
			   out[k].work_ns / (double)(out[k].end_ns - out[k].begin_ns) : 0;
	return count;
}
