/* SPDX-License-Identifier: MIT */
/* ompt_reader.h: the collector's end of the libpmompt.so socket: creates it, tells the child how to
 * reach it, and decodes the tool's batches of region records (docs/regions.md §2). */
#ifndef PMC_OMPT_READER_H
#define PMC_OMPT_READER_H

#include <stddef.h>
#include <stdint.h>

#include "ompt/pmompt.h"

struct pmc_ompt;

/* One parallel region instance (REGION record and its TIDS). Times: CLOCK_MONOTONIC ns of the
 * traced program (the same clock as the collector's). */
struct pmc_ompt_region {
	uint32_t pid;
	uint32_t depth;             /* 1 = outermost parallel region, 2 = nested in one, ... */
	uint64_t id, parent_id;     /* per-process sequence at parallel_begin; parent 0 at depth 1 */
	uint64_t codeptr_ra;        /* OMPT parallel_begin codeptr_ra: return address of the runtime
				       call in the function holding the construct */
	uint64_t begin_ns, end_ns;  /* parallel_begin and parallel_end on the encountering thread */
	uint32_t requested_team;    /* requested_parallelism of parallel_begin */
	uint32_t actual_team;       /* actual_parallelism of implicit_task (0: unknown) */
	uint32_t encountering_tid;
	uint32_t flags;             /* PMOMPT_REGION_* */
	uint32_t n_tids;            /* tids[0..n_tids-1] by team index (thread_num); 0: not seen */
	uint32_t tids[PMOMPT_MAX_TIDS];
};

/* One object mapped in the traced program when the tool started (dl_iterate_phdr): what offline
 * symbolization needs. */
struct pmc_ompt_object {
	uint32_t pid;
	uint64_t load_addr;         /* dlpi_addr: the load bias (0 for a non-PIE executable) */
	uint32_t build_id_bytes;
	uint8_t build_id[PMOMPT_MAX_BUILD_ID_BYTES];
	int name_cut;               /* the path was longer than PMOMPT_MAX_NAME_BYTES */
	char path[PMOMPT_MAX_NAME_BYTES + 1];
};

/* One implicit task's PAPI counter deltas (COUNTERS record), read by thread tid at the task's
 * begin and end (pmompt.h): values[k] for the k-th event of PMT_OMPT_EVENTS, k < n_events. */
struct pmc_ompt_counters {
	uint32_t pid, tid;
	uint64_t region_id;         /* the REGION record's id in process pid */
	uint32_t n_events;          /* <= PMOMPT_MAX_EVENTS */
	int64_t values[PMOMPT_MAX_EVENTS];
};

/* What the decoder hands over; any member may be NULL. ctx is the caller's. */
struct pmc_ompt_handlers {
	void (*hello)(void *ctx, uint32_t pid, uint64_t time_ns, const char *runtime_version);
	void (*region)(void *ctx, const struct pmc_ompt_region *r);
	void (*object)(void *ctx, const struct pmc_ompt_object *o);
	void (*thread)(void *ctx, uint32_t pid, uint32_t tid, uint32_t ompt_thread_type, uint64_t time_ns);
	void (*end)(void *ctx, uint32_t pid, uint64_t time_ns, uint64_t regions_total,
		    uint64_t counter_failures);
	/* COUNTER_SETUP: events counted (0: none), PAPI's return code and the tool's reason */
	void (*counter_setup)(void *ctx, uint32_t pid, uint32_t n_events, int32_t papi_rc,
			      const char *reason);
	void (*counters)(void *ctx, const struct pmc_ompt_counters *c);
};

/* Counts since open. */
struct pmc_ompt_stats {
	uint64_t batches, records, regions, objects;
	uint64_t counter_records;   /* COUNTERS records */
	uint64_t dropped_records;   /* records the tool could not send (largest count it reported;
				       for several processes, the sum of each one's largest) */
	uint64_t dropped_batches;
	uint64_t bad_batches;       /* malformed messages skipped (wrong size, bad header, a REGION
				       without its TIDS...) */
	uint32_t processes_ended;   /* END records seen */
	int eof;                    /* every writer has closed the socket */
};

/* Creates the socket pair (AF_UNIX, SOCK_SEQPACKET, close-on-exec on both ends) and sizes the
 * tool's send buffer to about sndbuf_bytes (SO_SNDBUFFORCE as root, else SO_SNDBUF within the
 * system's limit): that buffer is the only place records wait for the collector. The caller owns
 * *out (pmc_ompt_close). Returns 0, or -1 with the reason in why (socketpair failed, no memory). */
int pmc_ompt_open(struct pmc_ompt **out, int sndbuf_bytes, char *why, size_t whysize);

/* The descriptor the child must inherit: between fork and exec, clear its FD_CLOEXEC
 * (fcntl(fd, F_SETFD, 0), async-signal-safe) and pass the environment of pmc_ompt_env. */
int pmc_ompt_child_fd(const struct pmc_ompt *r);

/* Writes the two environment entries the child needs, "PMT_OMPT_FD=<fd>" and
 * "OMP_TOOL_LIBRARIES=<tool_path>", into fd_var and lib_var. Returns 0, or -1 when a buffer is
 * too small. */
int pmc_ompt_env(const struct pmc_ompt *r, const char *tool_path, char *fd_var, size_t fd_size,
		 char *lib_var, size_t lib_size);

/* In the parent after the fork: closes its copy of the child's end, so that the end of the last
 * writer is seen as end of file. */
void pmc_ompt_after_fork(struct pmc_ompt *r);

/* The descriptor to poll for input (POLLIN). */
int pmc_ompt_fd(const struct pmc_ompt *r);

/* Batches one pmc_ompt_read decodes at most (4 MiB): a program that sends faster than the caller
 * reads cannot hold the caller's loop; the rest waits for the next call. */
#define PMC_OMPT_READ_MAX_BATCHES 1024

/* Decodes the batches waiting on the socket (at most PMC_OMPT_READ_MAX_BATCHES) without blocking,
 * calling h's members in stream order; for the collector's sampling loop. Returns the number of
 * batches read (0: none waiting), or -1
 * with the reason in why when recv failed (other than EAGAIN/EINTR). Malformed batches are
 * counted (stats.bad_batches) and skipped, never fatal. */
int pmc_ompt_read(struct pmc_ompt *r, const struct pmc_ompt_handlers *h, void *ctx, char *why,
		  size_t whysize);

/* Decodes one batch (one message of len bytes), as pmc_ompt_read does; for tests and fuzzing.
 * Returns 0, or -1 when the batch is malformed (counted in stats.bad_batches). */
int pmc_ompt_decode(struct pmc_ompt *r, const uint8_t *msg, size_t len,
		    const struct pmc_ompt_handlers *h, void *ctx);

/* Copies the counts since pmc_ompt_open into *out (drop counts summed over the processes). */
void pmc_ompt_stats(const struct pmc_ompt *r, struct pmc_ompt_stats *out);

/* Closes the socket and frees the reader (accepts NULL). */
void pmc_ompt_close(struct pmc_ompt *r);

#endif
