/* SPDX-License-Identifier: MIT */
/* mpitime.c: computation vs time inside MPI per rank and over a job (mpitime.h, docs/mpi.md). */
#include "mpitime.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "job.h"

/* The entry of name in calls (n entries, capacity *cap), appended when missing. NULL: no memory. */

int pma_mpi_rank_from(const struct pma_mpi_info *mi, double busy_s, double T_cp_s,
		      struct pma_mpi_rank *out)
{
	double span_s;

	memset(out, 0, sizeof(*out));
	out->mpi_s = out->mpi_cpu_s = out->comp_s = out->A_comp = NAN;
	out->present = mi && mi->present;
	if (!mi || !mi->recorded)
		return 0;
	out->recorded = 1;
	out->mpi_s = mi->ns / 1e9;
	out->mpi_cpu_s = mi->cpu_ns / 1e9;
	/* the CPU the rank burnt inside MPI is not work; the clocks differ by a few ms (pmcollect
	 * counts the process tree from fork, the library from its first call): never below 0 */
	out->comp_s = isfinite(busy_s) ? fmax(0, busy_s - out->mpi_cpu_s) : NAN;
	/* Tudor & Teo eq. 4, A = work / T_cp, with the MPI time out of both. T_cp counts the time a
	 * thread of the rank ran; the thread that ran longest inside MPI (polling) carried the
	 * critical path meanwhile, so its MPI CPU time leaves the span */
	span_s = T_cp_s - mi->thread_cpu_ns / 1e9;
	if (isfinite(out->comp_s) && isfinite(span_s) && span_s > 0)
		out->A_comp = fmax(1, out->comp_s / span_s);
	if (mi->ncalls) {
		out->calls = malloc(mi->ncalls * sizeof(*out->calls));
		if (!out->calls)
			return -1;
		memcpy(out->calls, mi->calls, mi->ncalls * sizeof(*out->calls));
		out->ncalls = mi->ncalls;
	}
	return 0;
}

/* T(n) of the computation alone (mpitime.h): for each of r's cores, max over ranks of the rank's
 * T(n) scaled by comp / busy. */
static int job_T_comp(const struct pma_ranks_result *r, struct pma_mpi_job *j)
{
	if (!r->ncores)
		return 0;
	j->T_comp_ns = malloc(r->ncores * sizeof(double));
	if (!j->T_comp_ns)
		return -1;
	j->ncores = r->ncores;
	for (size_t c = 0; c < r->ncores; c++) {
		double most = -INFINITY;
		for (size_t i = 0; i < r->n; i++) {
			const struct pma_rank_row *w = &r->rows[i];
			double T = NAN;
			if (!w->complete || !w->analyzed)
				continue;
			for (size_t k = 0; k < w->ncores; k++)
				if (w->cores[k] == r->cores[c] && w->busy_s > 0)
					T = w->T_ns[k] * w->mpi.comp_s / w->busy_s;
			most = isfinite(T) ? fmax(most, T) : NAN;
			if (!isfinite(most))
				break;
		}
		j->T_comp_ns[c] = isfinite(most) ? most : NAN;
	}
	return 0;
}

int pma_mpi_job_compute(struct pma_ranks_result *r)
{
	struct pma_mpi_job *j = &r->mpi;
	double comp_sum = 0, comp_max = -1, mpi_sum = 0, wall_sum = 0;
	size_t cap = 0, npresent = 0;

	memset(j, 0, sizeof(*j));
	j->imbalance = j->mpi_s_min = j->mpi_s_max = j->mpi_s_avg = j->mpi_share = NAN;
	j->critical_rank = -1;
	for (size_t i = 0; i < r->n; i++) {
		const struct pma_rank_row *w = &r->rows[i];
		if (!w->complete || !w->analyzed)
			continue;
		j->nranks++;
		j->nrecorded += w->mpi.recorded && isfinite(w->mpi.comp_s);
		npresent += w->mpi.present;
	}
	if (j->nranks == 0 || (j->nrecorded < j->nranks && npresent == 0))
		return 0;
	if (j->nrecorded < j->nranks)
		return pma_note_add_ranks_mpi_unmeasured(&r->notes,
				&(struct pma_note_ranks_mpi_unmeasured){
				.unmeasured = (double)(j->nranks - j->nrecorded),
				.ranks = (double)j->nranks });
	for (size_t i = 0; i < r->n; i++) {
		const struct pma_rank_row *w = &r->rows[i];
		if (!w->complete || !w->analyzed)
			continue;
		comp_sum += w->mpi.comp_s;
		mpi_sum += w->mpi.mpi_s;
		wall_sum += w->wall_s;
		if (w->mpi.comp_s > comp_max) {
			comp_max = w->mpi.comp_s;
			j->critical_rank = w->rank;
			j->critical_job = w->job;
		}
		j->mpi_s_min = isfinite(j->mpi_s_min) ? fmin(j->mpi_s_min, w->mpi.mpi_s) : w->mpi.mpi_s;
		j->mpi_s_max = isfinite(j->mpi_s_max) ? fmax(j->mpi_s_max, w->mpi.mpi_s) : w->mpi.mpi_s;
		for (size_t k = 0; k < w->mpi.ncalls; k++) {
			const struct pma_mpi_call *c = &w->mpi.calls[k];
			struct pma_mpi_call *slot = pma_mpi_call_slot(&j->calls, &j->ncalls, &cap, c->name);
			if (!slot)
				return -1;
			slot->count += c->count;
			slot->ns += c->ns;
			slot->cpu_ns += c->cpu_ns;
		}
	}
	qsort(j->calls, j->ncalls, sizeof(*j->calls), pma_mpi_call_by_ns_desc);
	j->mpi_s_avg = mpi_sum / (double)j->nranks;
	if (comp_sum > 0)
		j->imbalance = comp_max / (comp_sum / (double)j->nranks);
	if (wall_sum > 0)
		j->mpi_share = mpi_sum / wall_sum;
	return job_T_comp(r, j);
}

void pma_mpi_table(FILE *out, const struct pma_ranks_result *r)
{
	const struct pma_mpi_job *j = &r->mpi;
	double mpi_total_ns = 0;

	if (j->nranks == 0 || j->nrecorded < j->nranks)
		return;
	fprintf(out, "\nMPI (pmcollect --mpi: time inside the blocking MPI calls, per rank)\n");
	fprintf(out, "%-6s %9s %9s %9s %9s %8s %9s\n", "rank", "busy s", "MPI s", "MPI cpu s",
		"comp s", "MPI %", "A comp");
	for (size_t i = 0; i < r->n; i++) {
		const struct pma_rank_row *w = &r->rows[i];
		if (!w->complete || !w->analyzed)
			continue;
		fprintf(out, "%-6ld %9.3f %9.3f %9.3f %9.3f %7.1f%% %9.2f\n", w->rank, w->busy_s,
			w->mpi.mpi_s, w->mpi.mpi_cpu_s, w->mpi.comp_s,
			w->wall_s > 0 ? 100 * w->mpi.mpi_s / w->wall_s : NAN, w->mpi.A_comp);
	}
	fprintf(out, "%-13s%.3f (max/mean of comp s; the busy-time imbalance counts MPI polling "
		"as work)\n", "imbalance", j->imbalance);
	fprintf(out, "%-13srank %ld (most computation: the job waits for it)\n", "critical",
		j->critical_rank);
	fprintf(out, "%-13smin %.3f s, max %.3f s, mean %.3f s per rank; %.1f%% of the ranks' "
		"time\n", "time in MPI", j->mpi_s_min, j->mpi_s_max, j->mpi_s_avg,
		100 * j->mpi_share);
	for (size_t c = 0; c < j->ncores; c++)
		if (isfinite(j->T_comp_ns[c]))
			fprintf(out, "%-13sn=%u: %.3f s (computation only: MPI time not counted as "
				"work)\n", c ? "" : "T(n)", r->cores[c], j->T_comp_ns[c] / 1e9);
	for (size_t k = 0; k < j->ncalls; k++)
		mpi_total_ns += j->calls[k].ns;
	fprintf(out, "\n%-22s %10s %11s %11s %7s\n", "MPI call", "calls", "time s", "cpu s",
		"MPI %");
	for (size_t k = 0; k < j->ncalls; k++) {
		const struct pma_mpi_call *c = &j->calls[k];
		fprintf(out, "%-22s %10.0f %11.3f %11.3f %6.1f%%\n", c->name, c->count, c->ns / 1e9,
			c->cpu_ns / 1e9, mpi_total_ns > 0 ? 100 * c->ns / mpi_total_ns : 0);
	}
}

static void add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void pma_mpi_json(cJSON *root, const struct pma_ranks_result *r)
{
	const struct pma_mpi_job *j = &r->mpi;
	cJSON *m, *ranks, *calls, *T;
	double mpi_total_ns = 0;

	if (j->nranks == 0 || j->nrecorded < j->nranks) {
		cJSON_AddNullToObject(root, "mpi");
		return;
	}
	m = cJSON_AddObjectToObject(root, "mpi");
	if (!m)
		return;
	add_num(m, "imbalance", j->imbalance);
	if (j->critical_rank >= 0)
		cJSON_AddNumberToObject(m, "critical_rank", (double)j->critical_rank);
	else
		cJSON_AddNullToObject(m, "critical_rank");
	add_num(m, "mpi_share", j->mpi_share);
	ranks = cJSON_AddArrayToObject(m, "ranks");
	for (size_t i = 0; ranks && i < r->n; i++) {
		const struct pma_rank_row *w = &r->rows[i];
		cJSON *o;
		if (!w->complete || !w->analyzed || !(o = cJSON_CreateObject()))
			continue;
		cJSON_AddNumberToObject(o, "rank", (double)w->rank);
		add_num(o, "busy_s", w->busy_s);
		add_num(o, "mpi_s", w->mpi.mpi_s);
		add_num(o, "mpi_cpu_s", w->mpi.mpi_cpu_s);
		add_num(o, "comp_s", w->mpi.comp_s);
		add_num(o, "A_comp", w->mpi.A_comp);
		cJSON_AddItemToArray(ranks, o);
	}
	for (size_t k = 0; k < j->ncalls; k++)
		mpi_total_ns += j->calls[k].ns;
	calls = cJSON_AddArrayToObject(m, "calls");
	for (size_t k = 0; calls && k < j->ncalls; k++) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			continue;
		cJSON_AddStringToObject(o, "name", j->calls[k].name);
		cJSON_AddNumberToObject(o, "count", j->calls[k].count);
		cJSON_AddNumberToObject(o, "s", j->calls[k].ns / 1e9);
		cJSON_AddNumberToObject(o, "cpu_s", j->calls[k].cpu_ns / 1e9);
		add_num(o, "share", mpi_total_ns > 0 ? j->calls[k].ns / mpi_total_ns : NAN);
		cJSON_AddItemToArray(calls, o);
	}
	T = cJSON_AddArrayToObject(m, "T_comp");
	for (size_t c = 0; T && c < j->ncores; c++) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			continue;
		cJSON_AddNumberToObject(o, "n", r->cores[c]);
		add_num(o, "s", j->T_comp_ns[c] / 1e9);
		cJSON_AddItemToArray(T, o);
	}
}
