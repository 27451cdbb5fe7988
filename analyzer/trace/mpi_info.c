/* SPDX-License-Identifier: MIT */
/* mpi_info.c: RUN_END "mpi" (pmcollect --mpi) parsed into struct pma_mpi_info (mpi_info.h). */
#include "mpi_info.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pm_util.h"

struct pma_mpi_call *pma_mpi_call_slot(struct pma_mpi_call **calls, size_t *n, size_t *cap,
				      const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*calls)[i].name, name) == 0)
			return &(*calls)[i];
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct pma_mpi_call *v = realloc(*calls, ncap * sizeof(*v));
		if (!v)
			return NULL;
		*calls = v;
		*cap = ncap;
	}
	memset(&(*calls)[*n], 0, sizeof(**calls));
	snprintf((*calls)[*n].name, sizeof((*calls)[*n].name), "%s", name);
	return &(*calls)[(*n)++];
}

static double num_or(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 ? v->valuedouble
										    : dflt;
}

/* Per thread id of one process, the sum of its calls' CPU ns: the largest goes to *thread_cpu_ns. */
static void thread_max(const cJSON *calls, double *thread_cpu_ns)
{
	const cJSON *c, *d;

	cJSON_ArrayForEach(c, calls) {
		double tid = num_or(c, "tid", NAN), sum = 0;
		cJSON_ArrayForEach(d, calls)
			if (num_or(d, "tid", NAN) == tid)
				sum += num_or(d, "cpu_ns", 0);
		if (sum > *thread_cpu_ns)
			*thread_cpu_ns = sum;
	}
}

int pma_mpi_call_by_ns_desc(const void *a, const void *b)
{
	const struct pma_mpi_call *x = a, *y = b;
	return (x->ns < y->ns) - (x->ns > y->ns);
}

int pma_mpi_info_parse(const cJSON *o, struct pma_mpi_info *out)
{
	const cJSON *procs, *p, *c;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	out->ns = out->cpu_ns = out->thread_cpu_ns = NAN;
	if (!cJSON_IsObject(o))
		return 0;
	out->present = 1;
	out->recorded = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "recorded"));
	if (!out->recorded) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "reason");
		const char *s = cJSON_IsString(r) ? r->valuestring : "not recorded";
		out->reason = malloc(strlen(s) + 1);
		if (!out->reason)
			goto nomem;
		pm_cli_sanitize(out->reason, strlen(s) + 1, s, strlen(s));
		return 0;
	}
	out->ns = out->cpu_ns = out->thread_cpu_ns = 0;
	procs = cJSON_GetObjectItemCaseSensitive(o, "processes");
	cJSON_ArrayForEach(p, procs) {
		const cJSON *calls = cJSON_GetObjectItemCaseSensitive(p, "calls");
		thread_max(calls, &out->thread_cpu_ns);
		cJSON_ArrayForEach(c, calls) {
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
			char clean[PMA_MPI_NAME_MAX];
			struct pma_mpi_call *slot;
			if (!cJSON_IsString(name))
				continue;
			pm_cli_sanitize(clean, sizeof(clean), name->valuestring,
					strlen(name->valuestring));
			slot = pma_mpi_call_slot(&out->calls, &out->ncalls, &cap, clean);
			if (!slot)
				goto nomem;
			slot->count += num_or(c, "count", 0);
			slot->ns += num_or(c, "ns", 0);
			slot->cpu_ns += num_or(c, "cpu_ns", 0);
			out->ns += num_or(c, "ns", 0);
			out->cpu_ns += num_or(c, "cpu_ns", 0);
		}
	}
	return 0;
nomem:
	pma_mpi_info_free(out);
	return -1;
}

void pma_mpi_info_free(struct pma_mpi_info *mi)
{
	if (!mi)
		return;
	free(mi->reason);
	free(mi->calls);
	memset(mi, 0, sizeof(*mi));
}
