/* SPDX-License-Identifier: MIT */
/* pmompt.h: the wire format between libpmompt.so (the OMPT tool inside the traced program) and
 * pmcollect: 64-byte little-endian records in batches of at most 4096 bytes (docs/regions.md §2). */
#ifndef PMOMPT_H
#define PMOMPT_H

#include <stdatomic.h>
#include <stdint.h>

/* The environment variable that carries the descriptor number of the collector's socket (an
 * AF_UNIX SOCK_SEQPACKET socket; the tool stays silent when it is anything else). */
#define PMOMPT_ENV_FD "PMT_OMPT_FD"

#define PMOMPT_VERSION 2 /* 2: COUNTER_SETUP, COUNTERS, END counter_failures */
#define PMOMPT_RECORD_BYTES 64
/* One batch = one SOCK_SEQPACKET message: a BATCH record and up to 63 more. */
#define PMOMPT_BATCH_BYTES 4096
#define PMOMPT_BATCH_RECORDS (PMOMPT_BATCH_BYTES / PMOMPT_RECORD_BYTES)
/* Team tids carried per region (larger teams are cut and flagged) and per TIDS record. */
#define PMOMPT_MAX_TIDS 256
#define PMOMPT_TIDS_PER_RECORD 15
/* Bytes of an object's path carried (longer paths are cut and flagged) and per NAME record. */
#define PMOMPT_MAX_NAME_BYTES 1020
#define PMOMPT_NAME_PER_RECORD 60
#define PMOMPT_MAX_BUILD_ID_BYTES 32

/* Record types: the u16 at offset 0. */
enum pmompt_type {
	PMOMPT_HELLO = 1,   /* the tool started: aux = version */
	PMOMPT_BATCH = 2,   /* first record of every batch: aux = records that follow */
	PMOMPT_REGION = 3,  /* one parallel region instance, ended: aux = flags */
	PMOMPT_TIDS = 4,    /* team tids of the REGION before it: aux = tids in this record */
	PMOMPT_THREAD = 5,  /* an OpenMP thread began: aux = ompt_thread_t */
	PMOMPT_OBJECT = 6,  /* a mapped object (dl_iterate_phdr): aux = path bytes in NAME records */
	PMOMPT_NAME = 7,    /* path bytes of the OBJECT before it: aux = bytes in this record */
	PMOMPT_END = 8,     /* ompt finalize: totals */
	PMOMPT_COUNTER_SETUP = 9, /* PAPI in the tool: aux = events counted (0: none, see reason) */
	PMOMPT_COUNTERS = 10, /* one implicit task ended: aux = events; the thread's counter deltas */
};

/* Per-thread PAPI counters (docs/regions.md §7). PMT_OMPT_EVENTS, when set, is a
 * comma-separated list of at most PMOMPT_MAX_EVENTS PAPI event names; the tool resolves them in the
 * traced program (so events the program defines itself, PAPI software-defined events, work too),
 * all or none, and reports the outcome in one COUNTER_SETUP record after HELLO:
 *   aux events counted, i32 at 4 the PAPI return code of the failure (0 none), 8..63 the reason
 *   (NUL-padded text, "" when counting).
 * Each thread that runs an implicit task starts its own event set (PAPI_register_thread,
 * PAPI_create_eventset, PAPI_add_events, PAPI_start) and reads it at implicit_task begin and at
 * the begin of the barrier that closes the region (sync_region, implicit barrier; a worker's
 * implicit_task end comes only when the next region wakes it): one COUNTERS record per implicit
 * task, sent by that thread at implicit_task end:
 *   aux events, u32 at 4 tid, u64 at 8 region id (the REGION record's id, same pid), i64 at
 *   16 + 8 k the delta of event k (k < aux). */
#define PMOMPT_ENV_EVENTS "PMT_OMPT_EVENTS"
#define PMOMPT_MAX_EVENTS 6
#define PMOMPT_SETUP_REASON_BYTES 56

/* REGION flags */
#define PMOMPT_REGION_TIDS_CUT 0x1   /* the team had more than PMOMPT_MAX_TIDS threads */
#define PMOMPT_REGION_TEAM_UNKNOWN 0x2 /* no implicit task reported the actual team size */
/* The open-region board: a shared memory file (memfd) that the collector creates and names in
 * PMT_OMPT_BOARD_FD. At parallel_begin the tool claims a free slot and writes the region there
 * (state OPEN last, with release order); at parallel_end it frees the slot before the REGION record
 * is queued. A slot still OPEN when the run is over is a region the program never ended (killed
 * inside it, or exited from it): the collector writes it as an open OMP_REGION. Slots are claimed
 * with a compare-and-swap, starting at tid % slots; with all slots taken a region is not marked.
 * Written and read on one machine by one build: native layout, not a file format. */
#define PMOMPT_ENV_BOARD "PMT_OMPT_BOARD_FD"
#define PMOMPT_BOARD_SLOTS 512
enum { PMOMPT_SLOT_FREE = 0, PMOMPT_SLOT_WRITING = 1, PMOMPT_SLOT_OPEN = 2 };
struct pmompt_slot {
	_Atomic uint32_t state;
	uint32_t pid, tid, depth, requested, pad;
	uint64_t id, parent_id, codeptr_ra, begin_ns;
} __attribute__((aligned(64)));
#define PMOMPT_BOARD_BYTES (PMOMPT_BOARD_SLOTS * sizeof(struct pmompt_slot))

/* OBJECT flags (u8 at offset 5) */
#define PMOMPT_OBJECT_NAME_CUT 0x1

/* Little-endian field access at a byte offset of a record. */
static inline void pmompt_put16(uint8_t *r, unsigned off, uint16_t v)
{
	r[off] = (uint8_t)v;
	r[off + 1] = (uint8_t)(v >> 8);
}

static inline void pmompt_put32(uint8_t *r, unsigned off, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		r[off + i] = (uint8_t)(v >> (8 * i));
}

static inline void pmompt_put64(uint8_t *r, unsigned off, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		r[off + i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t pmompt_get16(const uint8_t *r, unsigned off)
{
	return (uint16_t)(r[off] | r[off + 1] << 8);
}

static inline uint32_t pmompt_get32(const uint8_t *r, unsigned off)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < 4; i++)
		v |= (uint32_t)r[off + i] << (8 * i);
	return v;
}

static inline uint64_t pmompt_get64(const uint8_t *r, unsigned off)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)r[off + i] << (8 * i);
	return v;
}

#endif
