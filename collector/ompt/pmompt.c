/* SPDX-License-Identifier: MIT */
/* pmompt.c: libpmompt.so, the OMPT tool loaded into the traced program by OMP_TOOL_LIBRARIES: one
 * record per parallel region instance, sent to pmcollect over the socket named by PMT_OMPT_FD. */

/*
 * Callbacks (OpenMP 5.0 §4.5.2): parallel_begin and parallel_end on the encountering thread,
 * implicit_task (scope begin on every team thread: its tid and the actual team size) and
 * thread_begin / thread_end. A region's record is built in a small heap block hung on
 * parallel_data->ptr and appended, at parallel_end, to the encountering thread's batch buffer
 * (thread-local, 4096 bytes). A batch is sent as one SOCK_SEQPACKET message with MSG_DONTWAIT: the
 * program never waits for the collector; when the socket buffer is full the batch is dropped and
 * counted, and the counts travel in every later batch header and in the END record. Memory is
 * bounded by 4 KiB per thread plus one block per open region (nesting depth), whatever the number
 * of regions. Wire format: pmompt.h and docs/regions.md.
 */

#include <errno.h>
#include <link.h>
#include <omp-tools.h>
#include <papi.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pmompt.h"

/* A batch older than this is sent at the next record, so the collector sees regions while the
 * program runs, not only every 63 regions. */
#define FLUSH_AGE_NS 10000000ull
/* How long thread_end and finalize wait for room in the socket before they drop. */
#define FINAL_WAIT_MS 200
/* Threads whose unsent batch finalize can reach. */
#define MAX_THREADS 1024

struct region {
	uint64_t id, parent_id, codeptr_ra, begin_ns;
	uint32_t depth, requested, encountering_tid;
	int32_t slot;              /* its slot on the open-region board, -1 none */
	_Atomic uint32_t actual;   /* 0 until an implicit task reports it */
	_Atomic uint32_t cut;      /* a team index beyond ntids */
	uint32_t ntids;            /* slots in use in tids[] */
	uint32_t cap;              /* slots allocated */
	_Atomic uint32_t tids[];   /* by team index; 0 = not reported */
};

struct batch {
	uint8_t buf[PMOMPT_BATCH_BYTES];
	uint32_t nrec;             /* records after the BATCH header */
	uint64_t first_ns;         /* time of the oldest record in buf */
	uint32_t tid;
};

static int sock_fd = -1;
static uint32_t pid;
static _Atomic uint64_t next_region_id = 1, next_batch_seq = 1;
static _Atomic uint64_t regions_total, dropped_records, dropped_batches;
static _Thread_local struct batch tb;
static _Thread_local int tb_registered;
/* Region blocks this thread has finished with, reused: no malloc per region in the steady state
 * (and no growth under allocators that hold freed memory back, such as ASan's quarantine). */
#define CACHE_BLOCKS 8
static _Thread_local struct region *cache[CACHE_BLOCKS];
static _Thread_local unsigned ncache;
static struct batch *_Atomic registry[MAX_THREADS];
static char runtime_version[40]; /* NUL-padded, as in the HELLO record */
static struct pmompt_slot *board; /* the collector's open-region board, NULL none */

/* PAPI counters per thread and implicit task (PMT_OMPT_EVENTS; pmompt.h). */
#define CTR_DEPTHS 8               /* nesting levels whose implicit tasks are counted */
static int n_events;               /* events every thread counts; 0: counters off */
static int event_codes[PMOMPT_MAX_EVENTS];
static _Atomic uint64_t counter_failures; /* threads whose event set failed, failed reads */
static _Thread_local int ctr_set = PAPI_NULL;
static _Thread_local int ctr_state; /* 0 not started, 1 counting, -1 failed */
struct ctr_read {
	uint64_t region_id;        /* 0: no read at this depth */
	long long v[PMOMPT_MAX_EVENTS];
};
/* By nesting depth: the read at implicit_task begin, and the read as the thread enters the
 * region's closing barrier (a worker's implicit_task end comes only when the next region wakes it
 * from the fork barrier, OpenMP 5.0 §4.5.2.11 lets it; the time in between is not the region's). */
static _Thread_local struct ctr_read ctr_begin[CTR_DEPTHS + 1], ctr_join[CTR_DEPTHS + 1];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t my_tid(void)
{
	if (!tb.tid)
		tb.tid = (uint32_t)gettid();
	return tb.tid;
}

/* Sends b's records as one message. wait_ms > 0: wait that long for room (thread end, finalize);
 * 0: never block the program (drop and count). */
static void batch_send(struct batch *b, int wait_ms)
{
	uint8_t *h = b->buf;
	size_t len = (size_t)(b->nrec + 1) * PMOMPT_RECORD_BYTES;
	ssize_t n;

	if (!b->nrec)
		return;
	memset(h, 0, PMOMPT_RECORD_BYTES);
	pmompt_put16(h, 0, PMOMPT_BATCH);
	pmompt_put16(h, 2, (uint16_t)b->nrec);
	pmompt_put32(h, 4, b->tid ? b->tid : my_tid());
	pmompt_put64(h, 8, atomic_fetch_add(&next_batch_seq, 1));
	pmompt_put64(h, 16, atomic_load(&dropped_records));
	pmompt_put64(h, 24, atomic_load(&dropped_batches));
	pmompt_put32(h, 32, pid);
	for (;;) {
		n = send(sock_fd, h, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n >= 0 || errno == EINTR)
			break;
		if (errno == EAGAIN && wait_ms > 0) {
			struct pollfd p = {.fd = sock_fd, .events = POLLOUT};

			if (poll(&p, 1, wait_ms) > 0) {
				wait_ms = 0;
				continue;
			}
		}
		break;
	}
	if (n < 0) {
		atomic_fetch_add(&dropped_records, b->nrec);
		atomic_fetch_add(&dropped_batches, 1);
	}
	b->nrec = 0;
}

static void batch_register(void)
{
	tb_registered = -1;
	for (int i = 0; i < MAX_THREADS; i++) {
		struct batch *expected = NULL;

		if (atomic_compare_exchange_strong(&registry[i], &expected, &tb)) {
			tb_registered = i + 1;
			return;
		}
	}
}

/* Room for k records in this thread's batch (sending it first when needed); returns the first. */
static uint8_t *batch_reserve(unsigned k, uint64_t t_ns)
{
	uint8_t *r;

	if (!tb_registered)
		batch_register();
	if (tb.nrec + k > PMOMPT_BATCH_RECORDS - 1)
		batch_send(&tb, 0);
	if (!tb.nrec)
		tb.first_ns = t_ns;
	r = tb.buf + (size_t)(tb.nrec + 1) * PMOMPT_RECORD_BYTES;
	memset(r, 0, (size_t)k * PMOMPT_RECORD_BYTES);
	tb.nrec += k;
	return r;
}

/* Sends the batch when its oldest record is older than FLUSH_AGE_NS. */
static void batch_age(uint64_t t_ns)
{
	if (tb.nrec && t_ns - tb.first_ns > FLUSH_AGE_NS)
		batch_send(&tb, 0);
}

/* A zeroed region block with at least ntids tid slots, from this thread's cache when one fits. */
static struct region *region_get(uint32_t ntids)
{
	struct region *r = NULL;
	uint32_t cap = ntids < 16 ? 16 : ntids;

	if (ncache && cache[ncache - 1]->cap >= ntids) {
		r = cache[--ncache];
		cap = r->cap;
		memset(r, 0, sizeof(*r) + cap * sizeof(r->tids[0]));
	} else {
		r = calloc(1, sizeof(*r) + cap * sizeof(r->tids[0]));
		if (!r)
			return NULL;
	}
	r->cap = cap;
	r->ntids = ntids;
	return r;
}

static void region_put(struct region *r)
{
	if (ncache < CACHE_BLOCKS)
		cache[ncache++] = r;
	else
		free(r);
}

/* task_data of an implicit task: the region id (high 56 bits) and its depth (low 8 bits). */
static uint64_t task_value(uint64_t region_id, uint32_t depth)
{
	return region_id << 8 | (depth > 255 ? 255 : depth);
}

/* Marks r open on the board: its slot, or -1 (no board, or every slot taken). */
static int32_t board_open(const struct region *r)
{
	if (!board)
		return -1;
	for (uint32_t i = 0, k = r->encountering_tid % PMOMPT_BOARD_SLOTS; i < PMOMPT_BOARD_SLOTS;
	     i++, k = (k + 1) % PMOMPT_BOARD_SLOTS) {
		struct pmompt_slot *s = &board[k];
		uint32_t free_ = PMOMPT_SLOT_FREE;

		if (atomic_load_explicit(&s->state, memory_order_relaxed) != PMOMPT_SLOT_FREE ||
		    !atomic_compare_exchange_strong(&s->state, &free_, PMOMPT_SLOT_WRITING))
			continue;
		s->pid = pid;
		s->tid = r->encountering_tid;
		s->depth = r->depth;
		s->requested = r->requested;
		s->id = r->id;
		s->parent_id = r->parent_id;
		s->codeptr_ra = r->codeptr_ra;
		s->begin_ns = r->begin_ns;
		atomic_store_explicit(&s->state, PMOMPT_SLOT_OPEN, memory_order_release);
		return (int32_t)k;
	}
	return -1;
}

static void on_parallel_begin(ompt_data_t *encountering_task_data,
			      const ompt_frame_t *encountering_task_frame, ompt_data_t *parallel_data,
			      unsigned int requested_parallelism, int flags, const void *codeptr_ra)
{
	uint64_t enc = encountering_task_data ? encountering_task_data->value : 0;
	uint32_t ntids = requested_parallelism < PMOMPT_MAX_TIDS ? requested_parallelism : PMOMPT_MAX_TIDS;
	struct region *r;

	(void)encountering_task_frame;
	(void)flags;
	if (!ntids)
		ntids = 1;
	r = region_get(ntids);
	parallel_data->ptr = r;
	if (!r) {
		atomic_fetch_add(&dropped_records, 1);
		return;
	}
	r->id = atomic_fetch_add(&next_region_id, 1);
	r->parent_id = enc >> 8;
	r->depth = (uint32_t)(enc & 0xff) + 1;
	r->codeptr_ra = (uint64_t)(uintptr_t)codeptr_ra;
	r->requested = requested_parallelism;
	r->encountering_tid = my_tid();
	r->begin_ns = now_ns();
	r->slot = board_open(r);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
			    int flags, const void *codeptr_ra)
{
	struct region *r = parallel_data->ptr;
	uint64_t end_ns = now_ns();
	uint32_t actual, n, k;
	uint16_t rflags = 0;
	uint8_t *p;

	(void)encountering_task_data;
	(void)flags;
	(void)codeptr_ra;
	if (!r)
		return;
	parallel_data->ptr = NULL;
	if (r->slot >= 0)
		atomic_store_explicit(&board[r->slot].state, PMOMPT_SLOT_FREE, memory_order_release);
	atomic_fetch_add(&regions_total, 1);
	actual = atomic_load(&r->actual);
	if (!actual)
		rflags |= PMOMPT_REGION_TEAM_UNKNOWN;
	n = actual < r->ntids ? actual : r->ntids;
	if (atomic_load(&r->cut) || actual > r->ntids)
		rflags |= PMOMPT_REGION_TIDS_CUT;
	k = (n + PMOMPT_TIDS_PER_RECORD - 1) / PMOMPT_TIDS_PER_RECORD;
	p = batch_reserve(1 + k, end_ns);
	pmompt_put16(p, 0, PMOMPT_REGION);
	pmompt_put16(p, 2, rflags);
	pmompt_put32(p, 4, r->depth);
	pmompt_put64(p, 8, r->id);
	pmompt_put64(p, 16, r->parent_id);
	pmompt_put64(p, 24, r->codeptr_ra);
	pmompt_put64(p, 32, r->begin_ns);
	pmompt_put64(p, 40, end_ns);
	pmompt_put32(p, 48, r->requested);
	pmompt_put32(p, 52, actual);
	pmompt_put32(p, 56, r->encountering_tid);
	pmompt_put32(p, 60, n);
	for (uint32_t j = 0; j < k; j++) {
		uint8_t *t = p + (size_t)(1 + j) * PMOMPT_RECORD_BYTES;
		uint32_t m = n - j * PMOMPT_TIDS_PER_RECORD;

		if (m > PMOMPT_TIDS_PER_RECORD)
			m = PMOMPT_TIDS_PER_RECORD;
		pmompt_put16(t, 0, PMOMPT_TIDS);
		pmompt_put16(t, 2, (uint16_t)m);
		for (uint32_t i = 0; i < m; i++)
			pmompt_put32(t, 4 + 4 * i, atomic_load(&r->tids[j * PMOMPT_TIDS_PER_RECORD + i]));
	}
	region_put(r);
	batch_age(end_ns);
}

/* This thread's event set, started on first use: 1 counting, 0 not (counted once as a failure). */
static int ctr_thread(void)
{
	if (ctr_state)
		return ctr_state > 0;
	ctr_state = -1;
	if (PAPI_register_thread() != PAPI_OK || PAPI_create_eventset(&ctr_set) != PAPI_OK) {
		atomic_fetch_add(&counter_failures, 1);
		return 0;
	}
	if (PAPI_add_events(ctr_set, event_codes, n_events) != PAPI_OK || PAPI_start(ctr_set) != PAPI_OK) {
		PAPI_cleanup_eventset(ctr_set);
		PAPI_destroy_eventset(&ctr_set);
		atomic_fetch_add(&counter_failures, 1);
		return 0;
	}
	ctr_state = 1;
	return 1;
}

/* implicit_task begin, last thing: the counts at the start of the task of region_id. */
static void ctr_task_begin(uint64_t region_id, uint32_t depth)
{
	if (depth > CTR_DEPTHS || !ctr_thread())
		return;
	ctr_begin[depth].region_id = ctr_join[depth].region_id = 0;
	if (PAPI_read(ctr_set, ctr_begin[depth].v) != PAPI_OK) {
		atomic_fetch_add(&counter_failures, 1);
		return;
	}
	ctr_begin[depth].region_id = region_id;
}

/* sync_region begin of the barrier that closes a parallel region, first thing: the counts at
 * the end of this thread's work in the region (the barrier wait is left out). */
static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
			   ompt_data_t *parallel_data, ompt_data_t *task_data, const void *codeptr_ra)
{
	uint64_t id;
	uint32_t depth;

	(void)parallel_data;
	(void)codeptr_ra;
	/* 2: ompt_sync_region_barrier_implicit (5.0), 9: _implicit_parallel (5.1) */
	if (endpoint != ompt_scope_begin || (kind != 2 && kind != 9) || !task_data || ctr_state <= 0)
		return;
	id = task_data->value >> 8;
	depth = (uint32_t)(task_data->value & 0xff);
	if (!id || depth > CTR_DEPTHS || ctr_begin[depth].region_id != id)
		return;
	if (PAPI_read(ctr_set, ctr_join[depth].v) == PAPI_OK)
		ctr_join[depth].region_id = id;
}

/* implicit_task end, first thing: one COUNTERS record with the deltas from ctr_task_begin to the
 * region's closing barrier (or to now when that read is missing). */
static void ctr_task_end(uint64_t region_id, uint32_t depth)
{
	long long now[PMOMPT_MAX_EVENTS], *v = now;
	uint8_t *p;

	if (depth > CTR_DEPTHS || ctr_state <= 0 || !region_id || ctr_begin[depth].region_id != region_id)
		return;
	ctr_begin[depth].region_id = 0;
	if (ctr_join[depth].region_id == region_id) {
		v = ctr_join[depth].v;
		ctr_join[depth].region_id = 0;
	} else if (PAPI_read(ctr_set, now) != PAPI_OK) {
		atomic_fetch_add(&counter_failures, 1);
		return;
	}
	p = batch_reserve(1, now_ns());
	pmompt_put16(p, 0, PMOMPT_COUNTERS);
	pmompt_put16(p, 2, (uint16_t)n_events);
	pmompt_put32(p, 4, my_tid());
	pmompt_put64(p, 8, region_id);
	for (int k = 0; k < n_events; k++)
		pmompt_put64(p, 16 + 8 * (unsigned)k, (uint64_t)(v[k] - ctr_begin[depth].v[k]));
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
			     ompt_data_t *task_data, unsigned int actual_parallelism,
			     unsigned int index, int flags)
{
	struct region *r;

	if (endpoint != ompt_scope_begin) {
		/* the task's own data: parallel_data may be NULL at the end of a worker's task */
		if (n_events && task_data && !(flags & ompt_task_initial))
			ctr_task_end(task_data->value >> 8, (uint32_t)(task_data->value & 0xff));
		return;
	}
	if (flags & ompt_task_initial) {
		task_data->value = 0; /* the initial task: depth 0, no region */
		return;
	}
	r = parallel_data ? parallel_data->ptr : NULL;
	if (!r) {
		task_data->value = 0;
		return;
	}
	task_data->value = task_value(r->id, r->depth);
	atomic_store(&r->actual, actual_parallelism);
	if (index < r->ntids)
		atomic_store(&r->tids[index], my_tid());
	else
		atomic_store(&r->cut, 1);
	if (n_events)
		ctr_task_begin(r->id, r->depth);
}

static void on_thread_begin(ompt_thread_t thread_type, ompt_data_t *thread_data)
{
	uint64_t t_ns = now_ns();
	uint8_t *p = batch_reserve(1, t_ns);

	thread_data->value = my_tid();
	pmompt_put16(p, 0, PMOMPT_THREAD);
	pmompt_put16(p, 2, (uint16_t)thread_type);
	pmompt_put32(p, 4, my_tid());
	pmompt_put64(p, 8, t_ns);
}

static void on_thread_end(ompt_data_t *thread_data)
{
	(void)thread_data;
	while (ncache)
		free(cache[--ncache]);
	if (ctr_state > 0) {
		long long v[PMOMPT_MAX_EVENTS];

		PAPI_stop(ctr_set, v);
		PAPI_cleanup_eventset(ctr_set);
		PAPI_destroy_eventset(&ctr_set);
		PAPI_unregister_thread();
		ctr_state = 0;
	}
	batch_send(&tb, FINAL_WAIT_MS);
	if (tb_registered > 0)
		atomic_store(&registry[tb_registered - 1], NULL);
	tb_registered = 0;
}

/* The GNU build-id note of an object, from its PT_NOTE segments; returns its length (0: none). */
static unsigned build_id(const struct dl_phdr_info *info, uint8_t *out)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

		if (ph->p_type != PT_NOTE)
			continue;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
			const uint8_t *name = p + sizeof(*nh);
			const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				unsigned n = nh->n_descsz < PMOMPT_MAX_BUILD_ID_BYTES ?
					     nh->n_descsz : PMOMPT_MAX_BUILD_ID_BYTES;
				memcpy(out, desc, n);
				return n;
			}
			p = desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

static int on_object(struct dl_phdr_info *info, size_t size, void *ctx)
{
	char path[PMOMPT_MAX_NAME_BYTES + 2];
	uint8_t id[PMOMPT_MAX_BUILD_ID_BYTES];
	unsigned idlen = build_id(info, id), k;
	size_t len;
	uint8_t *p;
	int cut = 0;

	(void)size;
	(void)ctx;
	if (info->dlpi_name && info->dlpi_name[0]) {
		snprintf(path, sizeof(path), "%s", info->dlpi_name);
	} else {
		/* the main program has no name here */
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = 0;
	}
	len = strlen(path);
	if (len > PMOMPT_MAX_NAME_BYTES) {
		len = PMOMPT_MAX_NAME_BYTES;
		cut = 1;
	}
	k = (unsigned)((len + PMOMPT_NAME_PER_RECORD - 1) / PMOMPT_NAME_PER_RECORD);
	p = batch_reserve(1 + k, now_ns());
	pmompt_put16(p, 0, PMOMPT_OBJECT);
	pmompt_put16(p, 2, (uint16_t)len);
	p[4] = (uint8_t)idlen;
	p[5] = cut ? PMOMPT_OBJECT_NAME_CUT : 0;
	pmompt_put64(p, 8, (uint64_t)info->dlpi_addr);
	memcpy(p + 16, id, idlen);
	for (unsigned j = 0; j < k; j++) {
		uint8_t *q = p + (size_t)(1 + j) * PMOMPT_RECORD_BYTES;
		size_t m = len - (size_t)j * PMOMPT_NAME_PER_RECORD;

		if (m > PMOMPT_NAME_PER_RECORD)
			m = PMOMPT_NAME_PER_RECORD;
		pmompt_put16(q, 0, PMOMPT_NAME);
		pmompt_put16(q, 2, (uint16_t)m);
		memcpy(q + 4, path + (size_t)j * PMOMPT_NAME_PER_RECORD, m);
	}
	return 0;
}

static unsigned long papi_thread_id(void)
{
	return my_tid();
}

/* PMT_OMPT_EVENTS: resolves the events (all or none) and queues the COUNTER_SETUP record. */
static void counters_setup(void)
{
	const char *env = getenv(PMOMPT_ENV_EVENTS);
	char list[PMOMPT_MAX_EVENTS * 128], reason[PMOMPT_SETUP_REASON_BYTES] = "", *save = NULL, *name;
	int rc = PAPI_OK, n = 0;
	uint8_t *p;

	if (!env || !*env)
		return;
	if (strlen(env) >= sizeof(list)) {
		snprintf(reason, sizeof(reason), "event list longer than %zu bytes", sizeof(list) - 1);
		goto out;
	}
	strcpy(list, env);
	rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT) {
		snprintf(reason, sizeof(reason), "PAPI_library_init: %s", PAPI_strerror(rc));
		goto out;
	}
	rc = PAPI_thread_init(papi_thread_id);
	if (rc != PAPI_OK) {
		snprintf(reason, sizeof(reason), "PAPI_thread_init: %s", PAPI_strerror(rc));
		goto out;
	}
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (n == PMOMPT_MAX_EVENTS) {
			rc = PAPI_EINVAL;
			snprintf(reason, sizeof(reason), "more than %d events", PMOMPT_MAX_EVENTS);
			n = 0;
			goto out;
		}
		rc = PAPI_event_name_to_code(name, &event_codes[n]);
		if (rc != PAPI_OK) {
			snprintf(reason, sizeof(reason), "%s: %s", name, PAPI_strerror(rc));
			n = 0;
			goto out;
		}
		n++;
	}
	rc = PAPI_OK;
	if (!n) {
		rc = PAPI_EINVAL;
		snprintf(reason, sizeof(reason), "no event names in %s", PMOMPT_ENV_EVENTS);
	}
out:
	n_events = n;
	p = batch_reserve(1, now_ns());
	pmompt_put16(p, 0, PMOMPT_COUNTER_SETUP);
	pmompt_put16(p, 2, (uint16_t)n);
	pmompt_put32(p, 4, (uint32_t)rc);
	memcpy(p + 8, reason, sizeof(reason));
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
			   ompt_data_t *tool_data)
{
	ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
	uint8_t *p = batch_reserve(1, now_ns());

	(void)initial_device_num;
	(void)tool_data;
	pmompt_put16(p, 0, PMOMPT_HELLO);
	pmompt_put16(p, 2, PMOMPT_VERSION);
	pmompt_put32(p, 4, pid);
	pmompt_put64(p, 8, now_ns());
	pmompt_put32(p, 16, PMOMPT_RECORD_BYTES);
	pmompt_put32(p, 20, PMOMPT_BATCH_BYTES);
	memcpy(p + 24, runtime_version, sizeof(runtime_version));
	counters_setup();
	dl_iterate_phdr(on_object, NULL);
	if (!set_callback)
		return 0;
	set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set_callback(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
	set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set_callback(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
	set_callback(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
	if (n_events)
		set_callback(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
	batch_send(&tb, 0);
	return 1; /* keep the tool active */
}

static void tool_finalize(ompt_data_t *tool_data)
{
	uint8_t *p;

	(void)tool_data;
	/* batches of threads that have not ended: the runtime is shutting down, they are idle */
	for (int i = 0; i < MAX_THREADS; i++) {
		struct batch *b = atomic_load(&registry[i]);

		if (b && b != &tb)
			batch_send(b, FINAL_WAIT_MS);
	}
	p = batch_reserve(1, now_ns());
	pmompt_put16(p, 0, PMOMPT_END);
	pmompt_put32(p, 4, pid);
	pmompt_put64(p, 8, now_ns());
	pmompt_put64(p, 16, atomic_load(&regions_total));
	pmompt_put64(p, 24, atomic_load(&dropped_records));
	pmompt_put64(p, 32, atomic_load(&dropped_batches));
	pmompt_put64(p, 40, atomic_load(&counter_failures));
	batch_send(&tb, FINAL_WAIT_MS);
}

/* In the child of a fork without exec: its copy of the parent's unsent batch, thread registry and
 * counts are the parent's, not its own. */
static void on_fork_child(void)
{
	pid = (uint32_t)getpid();
	tb.nrec = 0;
	tb.tid = 0;
	tb_registered = 0;
	for (int i = 0; i < MAX_THREADS; i++)
		atomic_store(&registry[i], NULL);
	atomic_store(&regions_total, 0);
	atomic_store(&dropped_records, 0);
	atomic_store(&dropped_batches, 0);
	atomic_store(&counter_failures, 0);
	/* PAPI's thread state is the parent's: the child does not count */
	n_events = 0;
	ctr_state = 0;
}

/* The collector's socket from PMT_OMPT_FD, or -1: unset, not a number, or not a SOCK_SEQPACKET
 * socket (an inherited variable whose descriptor is now something else must not be written). */
static int collector_socket(void)
{
	const char *s = getenv(PMOMPT_ENV_FD);
	char *end;
	long fd;
	int type = 0;
	socklen_t len = sizeof(type);
	struct stat st;

	if (!s || !*s)
		return -1;
	errno = 0;
	fd = strtol(s, &end, 10);
	if (errno || *end || fd < 0 || fd > 1 << 20)
		return -1;
	if (fstat((int)fd, &st) || !S_ISSOCK(st.st_mode) ||
	    getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_SEQPACKET)
		return -1;
	return (int)fd;
}

/* The collector's open-region board from PMT_OMPT_BOARD_FD, or NULL: unset, not a number, or not
 * a file of the board's size. */
static struct pmompt_slot *collector_board(void)
{
	const char *s = getenv(PMOMPT_ENV_BOARD);
	char *end;
	long fd;
	struct stat st;
	void *p;

	if (!s || !*s)
		return NULL;
	errno = 0;
	fd = strtol(s, &end, 10);
	if (errno || *end || fd < 0 || fd > 1 << 20)
		return NULL;
	if (fstat((int)fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size != PMOMPT_BOARD_BYTES)
		return NULL;
	p = mmap(NULL, PMOMPT_BOARD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* OpenMP 5.0 §4.2.1: called by the runtime when it starts; NULL declines (no collector). */
__attribute__((visibility("default")))
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version_in);
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version_in)
{
	static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};

	(void)omp_version;
	sock_fd = collector_socket();
	if (sock_fd < 0)
		return NULL;
	/* The descriptor stays inheritable: a descendant that execs another OpenMP program reports
	 * too, its records told apart by the pid in every batch header. */
	strncpy(runtime_version, runtime_version_in ? runtime_version_in : "", sizeof(runtime_version) - 1);
	pid = (uint32_t)getpid();
	board = collector_board();
	pthread_atfork(NULL, NULL, on_fork_child);
	return &result;
}
