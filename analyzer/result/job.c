// SPDX-License-Identifier: MIT
// job.c: the free functions of a merged job's types (job.h).

#include <stdlib.h>
#include <string.h>

#include "job.h"

void pma_rank_row_free(struct pma_rank_row *row)
{
	if (!row)
		return;
	free(row->path);
	free(row->job);
	free(row->host);
	free(row->cpus);
	free(row->problem);
	free(row->cores);
	free(row->T_ns);
	free(row->omega_n);
	free(row->on_packages);
	free(row->cal_failed_what);
	pma_mpi_rank_free(&row->mpi);
	memset(row, 0, sizeof(*row));
}

void pma_ranks_free(struct pma_ranks_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		pma_rank_row_free(&r->rows[i]);
	free(r->rows);
	free(r->job);
	free(r->jobs);
	free(r->missing);
	free(r->critical);
	free(r->cores);
	free(r->T_max_ns);
	free(r->T_sum_ns);
	free(r->T_max);
	pma_notes_free(&r->notes);
	pma_mpi_job_free(&r->mpi);
	memset(r, 0, sizeof(*r));
}

void pma_mpi_rank_free(struct pma_mpi_rank *r)
{
	if (!r)
		return;
	free(r->calls);
	memset(r, 0, sizeof(*r));
}

void pma_mpi_job_free(struct pma_mpi_job *j)
{
	if (!j)
		return;
	free(j->T_comp_ns);
	free(j->calls);
	memset(j, 0, sizeof(*j));
}
