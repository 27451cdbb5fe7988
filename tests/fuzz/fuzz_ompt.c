/* SPDX-License-Identifier: MIT */
/* fuzz_ompt.c: libFuzzer target that decodes arbitrary bytes as one libpmompt.so batch
 * (collector/omp/ompt_reader.c, docs/regions.md §2). Seeds: tests/fuzz/make_ompt_seeds.py. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ompt_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t sink;

/* Each handler touches every byte it is given, so the sanitizers see a read past a buffer. */
static void on_hello(void *ctx, uint32_t pid, uint64_t time_ns, const char *version)
{
	(void)ctx;
	sink += pid + time_ns;
	while (*version)
		sink = sink * 31 + (uint8_t)*version++;
}

static void on_region(void *ctx, const struct pmc_ompt_region *r)
{
	(void)ctx;
	sink += r->pid + r->depth + r->id + r->parent_id + r->codeptr_ra + r->end_ns - r->begin_ns +
		r->requested_team + r->actual_team + r->encountering_tid + r->flags;
	for (uint32_t i = 0; i < r->n_tids; i++)
		sink = sink * 31 + r->tids[i];
}

static void on_object(void *ctx, const struct pmc_ompt_object *o)
{
	(void)ctx;
	sink += o->pid + o->load_addr + (uint64_t)o->name_cut;
	for (uint32_t i = 0; i < o->build_id_bytes; i++)
		sink = sink * 31 + o->build_id[i];
	for (const char *p = o->path; *p; p++)
		sink = sink * 31 + (uint8_t)*p;
}

static void on_thread(void *ctx, uint32_t pid, uint32_t tid, uint32_t type, uint64_t time_ns)
{
	(void)ctx;
	sink += pid + tid + type + time_ns;
}

static void on_end(void *ctx, uint32_t pid, uint64_t time_ns, uint64_t regions_total,
		   uint64_t counter_failures)
{
	(void)ctx;
	sink += pid + time_ns + regions_total + counter_failures;
}

static void on_counter_setup(void *ctx, uint32_t pid, uint32_t n, int32_t rc, const char *reason)
{
	(void)ctx;
	sink += pid + n + (uint32_t)rc + strlen(reason);
}

static void on_counters(void *ctx, const struct pmc_ompt_counters *c)
{
	(void)ctx;
	sink += c->pid + c->tid + c->region_id;
	for (uint32_t k = 0; k < c->n_events; k++)
		sink += (uint64_t)c->values[k];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pmc_ompt_handlers h = {on_hello, on_region, on_object, on_thread, on_end,
						      on_counter_setup, on_counters};
	static struct pmc_ompt *r;
	char why[128];

	if (!r && pmc_ompt_open(&r, 0, why, sizeof(why)))
		return 0;
	pmc_ompt_decode(r, data, size, &h, NULL);
	return 0;
}
