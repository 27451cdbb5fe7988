/* SPDX-License-Identifier: MIT */
/* test_ompt_reader.c: the decoder of libpmompt.so's batches (docs/regions.md §2) on batches built
 * byte by byte from the spec: every record type, drop counts, malformed batches rejected whole, and
 * the socket's end of file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "ompt_reader.h"

#define R PMOMPT_RECORD_BYTES

struct seen {
	int regions, objects, threads, hellos, ends;
	struct pmc_ompt_region region;
	struct pmc_ompt_object object;
	uint32_t thread_tid, thread_type;
	uint64_t end_regions, end_failures;
	unsigned setups, counters;
	uint32_t setup_events;
	int32_t setup_rc;
	char setup_reason[80];
	struct pmc_ompt_counters last;
};

static void on_hello(void *ctx, uint32_t pid, uint64_t time_ns, const char *version)
{
	struct seen *s = ctx;

	assert_int_equal(pid, 4242);
	assert_int_equal(time_ns, 7);
	assert_string_equal(version, "LLVM OMP version: 5.0.20140926");
	s->hellos++;
}

static void on_region(void *ctx, const struct pmc_ompt_region *r)
{
	struct seen *s = ctx;

	s->region = *r;
	s->regions++;
}

static void on_object(void *ctx, const struct pmc_ompt_object *o)
{
	struct seen *s = ctx;

	s->object = *o;
	s->objects++;
}

static void on_thread(void *ctx, uint32_t pid, uint32_t tid, uint32_t type, uint64_t time_ns)
{
	struct seen *s = ctx;

	(void)pid;
	(void)time_ns;
	s->thread_tid = tid;
	s->thread_type = type;
	s->threads++;
}

static void on_end(void *ctx, uint32_t pid, uint64_t time_ns, uint64_t regions_total,
		   uint64_t counter_failures)
{
	struct seen *s = ctx;

	(void)pid;
	(void)time_ns;
	s->end_regions = regions_total;
	s->end_failures = counter_failures;
	s->ends++;
}

static void on_counter_setup(void *ctx, uint32_t pid, uint32_t n, int32_t rc, const char *reason)
{
	struct seen *s = ctx;

	assert_int_equal(pid, 4242);
	s->setup_events = n;
	s->setup_rc = rc;
	snprintf(s->setup_reason, sizeof(s->setup_reason), "%s", reason);
	s->setups++;
}

static void on_counters(void *ctx, const struct pmc_ompt_counters *c)
{
	struct seen *s = ctx;

	s->last = *c;
	s->counters++;
}

static const struct pmc_ompt_handlers handlers = {on_hello, on_region, on_object, on_thread, on_end,
						  on_counter_setup, on_counters};

/* A batch header for n records, with the tool's cumulative drop counts. */
static void header(uint8_t *b, unsigned n, uint64_t dropped_records, uint64_t dropped_batches)
{
	memset(b, 0, R);
	pmompt_put16(b, 0, PMOMPT_BATCH);
	pmompt_put16(b, 2, (uint16_t)n);
	pmompt_put32(b, 4, 4243);
	pmompt_put64(b, 8, 1);
	pmompt_put64(b, 16, dropped_records);
	pmompt_put64(b, 24, dropped_batches);
	pmompt_put32(b, 32, 4242);
}

/* A region of a 17-thread team (tids 1000..1016): REGION and two TIDS records (15 + 2). */
static unsigned region17(uint8_t *p)
{
	memset(p, 0, 3 * R);
	pmompt_put16(p, 0, PMOMPT_REGION);
	pmompt_put32(p, 4, 2);
	pmompt_put64(p, 8, 9);
	pmompt_put64(p, 16, 8);
	pmompt_put64(p, 24, 0x401234);
	pmompt_put64(p, 32, 1000);
	pmompt_put64(p, 40, 5000);
	pmompt_put32(p, 48, 20);
	pmompt_put32(p, 52, 17);
	pmompt_put32(p, 56, 1000);
	pmompt_put32(p, 60, 17);
	for (unsigned j = 0; j < 2; j++) {
		uint8_t *t = p + (1 + j) * R;
		unsigned m = j ? 2 : 15;

		pmompt_put16(t, 0, PMOMPT_TIDS);
		pmompt_put16(t, 2, (uint16_t)m);
		for (unsigned i = 0; i < m; i++)
			pmompt_put32(t, 4 + 4 * i, 1000 + 15 * j + i);
	}
	return 3;
}

static void test_every_record(void **state)
{
	static const char path[] = "/usr/lib/x86_64-linux-gnu/a-rather-long-library-name-for-two-records.so.1";
	uint8_t b[PMOMPT_BATCH_BYTES];
	unsigned n = 1, plen = sizeof(path) - 1;
	struct pmc_ompt *r;
	struct pmc_ompt_stats st;
	struct seen s = {0};
	char why[128];
	uint8_t *p;

	(void)state;
	assert_int_equal(pmc_ompt_open(&r, 0, why, sizeof(why)), 0);
	p = b + n++ * R; /* HELLO */
	memset(p, 0, R);
	pmompt_put16(p, 0, PMOMPT_HELLO);
	pmompt_put16(p, 2, PMOMPT_VERSION);
	pmompt_put32(p, 4, 4242);
	pmompt_put64(p, 8, 7);
	memcpy(p + 24, "LLVM OMP version: 5.0.20140926", 30);
	p = b + n++ * R; /* OBJECT, its path in two NAME records */
	memset(p, 0, 3 * R);
	pmompt_put16(p, 0, PMOMPT_OBJECT);
	pmompt_put16(p, 2, (uint16_t)plen);
	p[4] = 3;
	pmompt_put64(p, 8, 0x7f0000000000);
	memcpy(p + 16, "\xab\xcd\xef", 3);
	pmompt_put16(p + R, 0, PMOMPT_NAME);
	pmompt_put16(p + R, 2, 60);
	memcpy(p + R + 4, path, 60);
	pmompt_put16(p + 2 * R, 0, PMOMPT_NAME);
	pmompt_put16(p + 2 * R, 2, (uint16_t)(plen - 60));
	memcpy(p + 2 * R + 4, path + 60, plen - 60);
	n += 2;
	p = b + n++ * R; /* THREAD */
	memset(p, 0, R);
	pmompt_put16(p, 0, PMOMPT_THREAD);
	pmompt_put16(p, 2, 2);
	pmompt_put32(p, 4, 1001);
	n += region17(b + n * R);
	p = b + n++ * R; /* COUNTER_SETUP: two events, a failure's code and text */
	memset(p, 0, R);
	pmompt_put16(p, 0, PMOMPT_COUNTER_SETUP);
	pmompt_put16(p, 2, 2);
	pmompt_put32(p, 4, (uint32_t)-7);
	memcpy(p + 8, "PAPI_L3_TCM: Event does not exist", 33);
	p = b + n++ * R; /* COUNTERS of thread 1001 in region 9: a negative delta stays signed */
	memset(p, 0, R);
	pmompt_put16(p, 0, PMOMPT_COUNTERS);
	pmompt_put16(p, 2, 2);
	pmompt_put32(p, 4, 1001);
	pmompt_put64(p, 8, 9);
	pmompt_put64(p, 16, 123456789012ull);
	pmompt_put64(p, 24, (uint64_t)-5);
	p = b + n++ * R; /* END */
	memset(p, 0, R);
	pmompt_put16(p, 0, PMOMPT_END);
	pmompt_put64(p, 16, 1);
	pmompt_put64(p, 24, 6);
	pmompt_put64(p, 32, 2);
	pmompt_put64(p, 40, 3);
	header(b, n - 1, 4, 1);
	assert_int_equal(pmc_ompt_decode(r, b, n * R, &handlers, &s), 0);
	assert_int_equal(s.hellos, 1);
	assert_int_equal(s.objects, 1);
	assert_string_equal(s.object.path, path);
	assert_int_equal(s.object.load_addr, 0x7f0000000000);
	assert_int_equal(s.object.build_id_bytes, 3);
	assert_memory_equal(s.object.build_id, "\xab\xcd\xef", 3);
	assert_int_equal(s.threads, 1);
	assert_int_equal(s.thread_tid, 1001);
	assert_int_equal(s.thread_type, 2);
	assert_int_equal(s.regions, 1);
	assert_int_equal(s.region.pid, 4242);
	assert_int_equal(s.region.depth, 2);
	assert_int_equal(s.region.id, 9);
	assert_int_equal(s.region.parent_id, 8);
	assert_int_equal(s.region.codeptr_ra, 0x401234);
	assert_int_equal(s.region.end_ns - s.region.begin_ns, 4000);
	assert_int_equal(s.region.requested_team, 20);
	assert_int_equal(s.region.actual_team, 17);
	assert_int_equal(s.region.n_tids, 17);
	for (unsigned i = 0; i < 17; i++)
		assert_int_equal(s.region.tids[i], 1000 + i);
	assert_int_equal(s.ends, 1);
	assert_int_equal(s.end_regions, 1);
	assert_int_equal(s.end_failures, 3);
	assert_int_equal(s.setups, 1);
	assert_int_equal(s.setup_events, 2);
	assert_int_equal(s.setup_rc, -7);
	assert_string_equal(s.setup_reason, "PAPI_L3_TCM: Event does not exist");
	assert_int_equal(s.counters, 1);
	assert_int_equal(s.last.pid, 4242);
	assert_int_equal(s.last.tid, 1001);
	assert_int_equal(s.last.region_id, 9);
	assert_int_equal(s.last.n_events, 2);
	assert_true(s.last.values[0] == 123456789012ll);
	assert_true(s.last.values[1] == -5);
	pmc_ompt_stats(r, &st);
	assert_int_equal(st.batches, 1);
	assert_int_equal(st.records, n - 1);
	assert_int_equal(st.regions, 1);
	assert_int_equal(st.objects, 1);
	assert_int_equal(st.counter_records, 1);
	assert_int_equal(st.processes_ended, 1);
	/* the END record's counts (6, 2) are the largest the tool reported */
	assert_int_equal(st.dropped_records, 6);
	assert_int_equal(st.dropped_batches, 2);
	assert_int_equal(st.bad_batches, 0);
	pmc_ompt_close(r);
}

/* COUNTER_SETUP and COUNTERS with 1..PMOMPT_MAX_EVENTS events are taken, other counts reject the
 * batch. */
static void test_counter_limits(void **state)
{
	uint8_t b[3 * R];
	struct pmc_ompt *r;
	struct seen s = {0};
	char why[128];

	(void)state;
	assert_int_equal(pmc_ompt_open(&r, 0, why, sizeof(why)), 0);
	for (unsigned type = PMOMPT_COUNTER_SETUP; type <= PMOMPT_COUNTERS; type++) {
		for (unsigned ev = 0; ev <= PMOMPT_MAX_EVENTS + 1; ev++) {
			int good = ev <= PMOMPT_MAX_EVENTS && (ev > 0 || type == PMOMPT_COUNTER_SETUP);

			memset(b + R, 0, R);
			pmompt_put16(b + R, 0, (uint16_t)type);
			pmompt_put16(b + R, 2, (uint16_t)ev);
			header(b, 1, 0, 0);
			assert_int_equal(pmc_ompt_decode(r, b, 2 * R, &handlers, &s), good ? 0 : -1);
		}
	}
	assert_int_equal(s.setups, PMOMPT_MAX_EVENTS + 1);
	assert_int_equal(s.counters, PMOMPT_MAX_EVENTS);
	assert_int_equal(s.last.n_events, PMOMPT_MAX_EVENTS);
	pmc_ompt_close(r);
}

/* Each corruption rejects the whole batch: the good REGION before it is not handed over. */
static void test_malformed(void **state)
{
	uint8_t b[PMOMPT_BATCH_BYTES], bad[PMOMPT_BATCH_BYTES];
	struct pmc_ompt *r;
	struct pmc_ompt_stats st;
	struct seen s = {0};
	char why[128];
	unsigned n;
	int cases = 0;

	(void)state;
	assert_int_equal(pmc_ompt_open(&r, 0, why, sizeof(why)), 0);
	n = 1 + region17(b + R);
	n += region17(b + n * R);
	header(b, n - 1, 0, 0);
	assert_int_equal(pmc_ompt_decode(r, b, n * R, &handlers, &s), 0);
	assert_int_equal(s.regions, 2);
	s.regions = 0;
#define BAD(mutation, len)                                                                        \
	do {                                                                                      \
		memcpy(bad, b, sizeof(b));                                                        \
		mutation;                                                                         \
		assert_int_equal(pmc_ompt_decode(r, bad, (len), &handlers, &s), -1);              \
		cases++;                                                                          \
	} while (0)
	BAD((void)0, n * R - 1);                                /* not whole records */
	BAD((void)0, R);                                        /* a header alone */
	BAD(pmompt_put16(bad, 2, (uint16_t)n), n * R);          /* count says one more */
	BAD(pmompt_put16(bad, 0, PMOMPT_REGION), n * R);        /* no BATCH first */
	BAD(pmompt_put16(bad + 4 * R, 0, 99), n * R);           /* unknown type */
	BAD(pmompt_put32(bad + 4 * R, 60, 40), n * R);          /* 40 tids, 2 TIDS records */
	BAD(pmompt_put32(bad + 4 * R, 60, PMOMPT_MAX_TIDS + 1), n * R);
	BAD(pmompt_put16(bad + 6 * R, 2, 3), n * R);            /* last TIDS holds 3, not 2 */
	BAD(pmompt_put64(bad + 4 * R, 40, 999), n * R);         /* ends before it begins */
	BAD((void)0, PMOMPT_BATCH_BYTES + 1);                   /* longer than a batch */
#undef BAD
	assert_int_equal(s.regions, 0);
	pmc_ompt_stats(r, &st);
	assert_int_equal(st.bad_batches, cases);
	assert_int_equal(st.batches, 1);
	pmc_ompt_close(r);
}

/* Through the socket: two batches whose drop counts arrive out of order (the larger is kept), then
 * end of file once the writer's end is closed. */
static void test_socket(void **state)
{
	uint8_t b[4 * R];
	struct pmc_ompt *r;
	struct pmc_ompt_stats st;
	struct seen s = {0};
	char why[128], fd_var[32], lib_var[64];

	(void)state;
	assert_int_equal(pmc_ompt_open(&r, 1 << 16, why, sizeof(why)), 0);
	assert_int_equal(pmc_ompt_env(r, "/x/libpmompt.so", fd_var, sizeof(fd_var), lib_var, sizeof(lib_var)), 0);
	assert_string_equal(lib_var, "OMP_TOOL_LIBRARIES=/x/libpmompt.so");
	assert_int_equal(strncmp(fd_var, "PMT_OMPT_FD=", 12), 0);
	assert_int_equal(pmc_ompt_env(r, "/x/libpmompt.so", fd_var, 8, lib_var, sizeof(lib_var)), -1);
	region17(b + R);
	header(b, 3, 10, 2);
	assert_int_equal(send(pmc_ompt_child_fd(r), b, sizeof(b), 0), (ssize_t)sizeof(b));
	header(b, 3, 4, 1);
	assert_int_equal(send(pmc_ompt_child_fd(r), b, sizeof(b), 0), (ssize_t)sizeof(b));
	assert_int_equal(pmc_ompt_read(r, &handlers, &s, why, sizeof(why)), 2);
	assert_int_equal(s.regions, 2);
	pmc_ompt_stats(r, &st);
	assert_int_equal(st.dropped_records, 10);
	assert_int_equal(st.dropped_batches, 2);
	assert_false(st.eof);
	assert_int_equal(pmc_ompt_read(r, &handlers, &s, why, sizeof(why)), 0);
	pmc_ompt_after_fork(r);
	assert_int_equal(pmc_ompt_read(r, &handlers, &s, why, sizeof(why)), 0);
	pmc_ompt_stats(r, &st);
	assert_true(st.eof);
	pmc_ompt_close(r);
	pmc_ompt_close(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_record),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_counter_limits),
		cmocka_unit_test(test_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
