/* SPDX-License-Identifier: MIT */
/* test_format.c: cmocka tests of the pmtrace writer and reader (formats/pmt_writer.c, pmt_reader.c, FORMAT.md). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>
#include <zstd.h>

#include "pmt.h"
#include "testlib.h"

/* ---- byte buffers and files ---- */

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;
		while (ncap < b->n + n)
			ncap *= 2;
		b->p = realloc(b->p, ncap);
		assert_non_null(b->p);
		b->cap = ncap;
	}
	if (n)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* An anonymous file holding n bytes, positioned at offset 0. */
static int memfd_with(const void *p, size_t n)
{
	int fd = memfd_create("pmt-test", MFD_CLOEXEC);
	size_t done = 0;

	assert_true(fd >= 0);
	while (done < n) {
		ssize_t k = write(fd, (const uint8_t *)p + done, n - done);
		assert_true(k > 0);
		done += (size_t)k;
	}
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void fd_contents(int fd, struct buf *out)
{
	struct stat st;
	uint8_t tmp[65536];
	off_t off = 0;

	assert_int_equal(fstat(fd, &st), 0);
	while (off < st.st_size) {
		ssize_t k = pread(fd, tmp, sizeof(tmp), off);
		assert_true(k > 0);
		buf_add(out, tmp, (size_t)k);
		off += k;
	}
}

static char tmpdir[] = "/tmp/pmt-test-XXXXXX";

static int group_setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/fsize.pmt", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/path.pmt", tmpdir);
	unlink(path);
	return rmdir(tmpdir);
}

/* ---- the records every test writes ---- */

static const char meta_json[] = "{\"format\":\"pmtrace\",\"format_version\":\"1.0\",\"tool\":\"test\"}";

static const struct pmt_thread_sample threads3[3] = {
	{ .tid = 100, .tgid = 100, .run_ns = 123456789012ull, .wait_ns = 42, .timeslices = 7,
	  .nvcsw = 3, .nivcsw = 4, .cpu = 1, .state = 'R',
	  .flags = PMT_TS_STAT_FRESH | PMT_TS_STATUS_FRESH | PMT_TS_SCHEDSTAT_OK },
	{ .tid = UINT32_MAX, .tgid = 100, .run_ns = UINT64_MAX, .wait_ns = UINT64_MAX - 1,
	  .timeslices = 1ull << 40, .nvcsw = UINT32_MAX, .nivcsw = 0, .cpu = PMT_CPU_UNKNOWN,
	  .state = '?', .flags = 0 },
	{ .tid = 102, .tgid = 101, .run_ns = 0, .wait_ns = 0, .timeslices = 0, .nvcsw = 1,
	  .nivcsw = 0x80000000u, .cpu = 255, .state = 'S', .flags = PMT_TS_SCHEDSTAT_OK },
};
static const struct pmt_thread_sample thread1[1] = {
	{ .tid = 7, .tgid = 7, .run_ns = 5000000, .wait_ns = 10, .timeslices = 2, .nvcsw = 9,
	  .nivcsw = 8, .cpu = 3, .state = 'D', .flags = PMT_TS_STAT_FRESH },
};
static const int64_t counter_values[4] = { 1, -1, PMT_COUNTER_INVALID, INT64_MAX };
static char comm64[PMT_COMM_MAX + 1];

#define NFIX 13
static struct pmt_record fixture[NFIX];

static struct pmt_record json_rec(uint16_t type, uint32_t run_id, uint64_t t_ns, const char *text)
{
	struct pmt_record r = { .type = type };
	r.u.json.run_id = run_id;
	r.u.json.t_ns = t_ns;
	r.u.json.len = (uint32_t)strlen(text);
	r.u.json.text = text;
	return r;
}

static struct pmt_record task_rec(uint8_t kind, uint8_t flags, uint32_t tid, const char *comm)
{
	struct pmt_record r = { .type = PMT_REC_TASK };
	r.u.task.run_id = 1;
	r.u.task.t_ns = 1000000000ull + tid;
	r.u.task.kind = kind;
	r.u.task.flags = flags;
	r.u.task.tid = tid;
	r.u.task.tgid = 100;
	r.u.task.ppid = 1;
	r.u.task.exit_status = kind == PMT_TASK_EXIT ? -2 : 0;
	r.u.task.final_run_ns = kind == PMT_TASK_EXIT ? 987654321ull : 0;
	r.u.task.final_wait_ns = kind == PMT_TASK_EXIT ? UINT64_MAX : 0;
	r.u.task.comm_len = (uint32_t)strlen(comm);
	r.u.task.comm = comm;
	return r;
}

static struct pmt_record sample_rec(uint64_t t_ns, uint32_t n, const struct pmt_thread_sample *t)
{
	struct pmt_record r = { .type = PMT_REC_SAMPLE };
	r.u.sample.run_id = 1;
	r.u.sample.t_ns = t_ns;
	r.u.sample.duration_ns = 12345;
	r.u.sample.n = n;
	r.u.sample.threads = t;
	return r;
}

static struct pmt_record counters_rec(uint64_t t_ns, uint32_t n)
{
	struct pmt_record r = { .type = PMT_REC_COUNTERS };
	r.u.counters.run_id = 1;
	r.u.counters.t_ns = t_ns;
	r.u.counters.n = n;
	r.u.counters.values = counter_values;
	return r;
}

/* every field at a width-testing value: high bits set, maximum CPU, an unknown miss count; c
 * all 32 bits (PSWITCH_FORK keeps a parent tid there, above 65535 where pid_max is) */
static const struct pmt_sched_event sched_events2[2] = {
	{ .t_ns = UINT64_MAX - 1, .kind = PMT_SCHED_SWITCH, .ctx = 0, .cpu = 0xFFFE,
	  .common_pid = 4000000000u, .a = 4000000000u, .b = 7, .c = 'S' },
	{ .t_ns = 1, .kind = PMT_SCHED_WAKING, .ctx = PMT_SCHED_CTX_HARDIRQ | PMT_SCHED_CTX_NMI,
	  .cpu = 1, .common_pid = 0, .a = 101, .b = 0xFFFFFFFFu, .c = 4000000001u },
};

static struct pmt_record sched_rec(uint32_t missed, uint32_t n)
{
	struct pmt_record r = { .type = PMT_REC_SCHED };
	r.u.sched.run_id = 1;
	r.u.sched.cpu = 513;
	r.u.sched.missed = missed;
	r.u.sched.n = n;
	r.u.sched.events = sched_events2;
	return r;
}

static int setup_fixture(void **state)
{
	int i = 0;

	(void)state;
	/* every byte but NUL, including ')', ' ', '\n' and bytes >= 0x80 */
	for (unsigned k = 0; k < PMT_COMM_MAX; k++)
		comm64[k] = (char)(1 + (k * 37) % 255);
	comm64[PMT_COMM_MAX] = '\0';
	fixture[i++] = json_rec(PMT_REC_RUN_BEGIN, 1, 1000,
				"{\"run_id\":1,\"role\":\"run\",\"argv\":[\"./a) b\"]}");
	fixture[i++] = task_rec(PMT_TASK_APPEAR, PMT_TASKF_PROCESS, 100, "a) b");
	fixture[i++] = sample_rec(2000, 3, threads3);
	fixture[i++] = sample_rec(3000, 0, NULL);
	fixture[i++] = task_rec(PMT_TASK_EXIT, PMT_TASKF_FINAL | PMT_TASKF_STATUS, 102, comm64);
	fixture[i++] = counters_rec(4000, 4);
	fixture[i++] = counters_rec(4001, 0);
	fixture[i++] = task_rec(PMT_TASK_EXEC, 0, 100, "");
	fixture[i++] = json_rec(PMT_REC_WARNING, 1, 5000, "{\"what\":\"late sample\"}");
	fixture[i++] = sample_rec(6000, 1, thread1);
	fixture[i++] = sched_rec(PMT_SCHED_MISSED_UNKNOWN, 2);
	fixture[i++] = json_rec(PMT_REC_RUN_END, 1, 7000, "{\"run_id\":1,\"exit\":{\"kind\":\"exited\"}}");
	fixture[i++] = json_rec(PMT_REC_SUMMARY, 0, 8000, "{\"samples\":3}");
	return i == NFIX ? 0 : -1;
}

static int write_record(struct pmt_writer *w, const struct pmt_record *r)
{
	switch (r->type) {
	case PMT_REC_SAMPLE:
		return pmt_writer_sample(w, &r->u.sample);
	case PMT_REC_TASK:
		return pmt_writer_task(w, &r->u.task);
	case PMT_REC_COUNTERS:
		return pmt_writer_counters(w, &r->u.counters);
	case PMT_REC_SCHED:
		return pmt_writer_sched(w, &r->u.sched);
	case PMT_REC_OMP_REGION:
		return pmt_writer_omp_region(w, &r->u.omp);
	case PMT_REC_OMP_COUNTERS:
		return pmt_writer_omp_counters(w, &r->u.omp_counters);
	case PMT_REC_RUN_BEGIN:
	case PMT_REC_RUN_END:
	case PMT_REC_SUMMARY:
	case PMT_REC_WARNING:
		return pmt_writer_json(w, r->type, r->u.json.run_id, r->u.json.t_ns, r->u.json.text);
	default:
		return pmt_writer_raw(w, r->type, r->u.raw.body, r->u.raw.len);
	}
}

/* Writes recs through the writer into a memfd; flush_after[i] forces a chunk end after recs[i]. */
static void make_trace(struct buf *out, const struct pmt_record *recs, size_t n,
		       uint32_t chunk_bytes, const unsigned char *flush_after)
{
	struct pmt_writer_opts o = { .chunk_bytes = chunk_bytes };
	struct pmt_writer *w = NULL;
	int fd = memfd_create("pmt-w", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pmt_writer_open(&w, fd, meta_json, &o), 0);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(write_record(w, &recs[i]), 0);
		if (flush_after && flush_after[i])
			assert_int_equal(pmt_writer_flush(w), 0);
	}
	assert_int_equal(pmt_writer_close(w), 0);
	fd_contents(fd, out);
	close(fd);
}

/* The small multi-chunk trace of the truncation and corruption tests: 6 chunks,
 * [META] [RUN_BEGIN] [TASK SAMPLE] [SAMPLE(0) TASK(64-byte comm) COUNTERS] [COUNTERS TASK WARNING SAMPLE]
 * [RUN_END SUMMARY]. */
static void make_small_trace(struct buf *out)
{
	static const unsigned char flush_after[NFIX] = { 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0 };
	make_trace(out, fixture, NFIX, 1u << 20, flush_after);
}

/* make_small_trace() framed as format major (the writer writes 2; 1 is re-framed: the 1.x
 * traces readers must keep reading, FORMAT.md §2). */
static void make_small_trace_major(struct buf *out, unsigned major)
{
	uint8_t *q;
	size_t n;

	make_small_trace(out);
	if (major == PMT_FORMAT_MAJOR)
		return;
	n = reframe(out->p, out->n, major, &q);
	buf_free(out);
	buf_add(out, q, n);
	free(q);
}

/* ---- reading back ---- */

/* One line holding every field of a record, to compare records exactly. */
static char *record_dump(const struct pmt_record *r)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	assert_non_null(f);
	fprintf(f, "type=%#x", r->type);
	switch (r->type) {
	case PMT_REC_META:
	case PMT_REC_RUN_BEGIN:
	case PMT_REC_RUN_END:
	case PMT_REC_SUMMARY:
	case PMT_REC_WARNING:
		fprintf(f, " run=%" PRIu32 " t=%" PRIu64 " len=%" PRIu32 " text=%s", r->u.json.run_id,
			r->u.json.t_ns, r->u.json.len, r->u.json.text);
		break;
	case PMT_REC_SAMPLE:
		fprintf(f, " run=%" PRIu32 " t=%" PRIu64 " dur=%" PRIu32 " n=%" PRIu32,
			r->u.sample.run_id, r->u.sample.t_ns, r->u.sample.duration_ns, r->u.sample.n);
		for (uint32_t i = 0; i < r->u.sample.n; i++) {
			const struct pmt_thread_sample *t = &r->u.sample.threads[i];
			fprintf(f, " [%" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32
				" %" PRIu32 " %u %d %u]", t->tid, t->tgid, t->run_ns, t->wait_ns,
				t->timeslices, t->nvcsw, t->nivcsw, t->cpu, t->state, t->flags);
		}
		break;
	case PMT_REC_TASK:
		fprintf(f, " run=%" PRIu32 " t=%" PRIu64 " kind=%u flags=%u tid=%" PRIu32 " tgid=%" PRIu32
			" ppid=%" PRIu32 " st=%" PRId32 " frun=%" PRIu64 " fwait=%" PRIu64 " comm=",
			r->u.task.run_id, r->u.task.t_ns, r->u.task.kind, r->u.task.flags, r->u.task.tid,
			r->u.task.tgid, r->u.task.ppid, r->u.task.exit_status, r->u.task.final_run_ns,
			r->u.task.final_wait_ns);
		for (uint32_t i = 0; i < r->u.task.comm_len; i++)
			fprintf(f, "%02x", (uint8_t)r->u.task.comm[i]);
		break;
	case PMT_REC_COUNTERS:
		fprintf(f, " run=%" PRIu32 " t=%" PRIu64 " n=%" PRIu32, r->u.counters.run_id,
			r->u.counters.t_ns, r->u.counters.n);
		for (uint32_t i = 0; i < r->u.counters.n; i++)
			fprintf(f, " %" PRId64, r->u.counters.values[i]);
		break;
	case PMT_REC_SCHED:
		fprintf(f, " run=%" PRIu32 " cpu=%u missed=%" PRIu32 " n=%" PRIu32, r->u.sched.run_id,
			r->u.sched.cpu, r->u.sched.missed, r->u.sched.n);
		for (uint32_t i = 0; i < r->u.sched.n; i++) {
			const struct pmt_sched_event *e = &r->u.sched.events[i];
			fprintf(f, " [%" PRIu64 " %u %u %u %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 "]",
				e->t_ns, e->kind, e->ctx, e->cpu, e->common_pid, e->a, e->b, e->c);
		}
		break;
	default:
		fprintf(f, " raw len=%" PRIu32 " ", r->u.raw.len);
		for (uint32_t i = 0; i < r->u.raw.len; i++)
			fprintf(f, "%02x", r->u.raw.body[i]);
		break;
	}
	assert_int_equal(fclose(f), 0);
	return s;
}

struct readout {
	int open_rc;
	int end_rc;      /* the pmt_reader_next() result that ended the read: 0 or an error */
	size_t n;
	char **lines;    /* record_dump() of each record returned */
	uint32_t *seqs;  /* chunk_seq of each */
	struct pmt_reader_stats st;
	char *meta;
	unsigned major, minor;
};

static void readout_free(struct readout *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->lines[i]);
	free(o->lines);
	free(o->seqs);
	free(o->meta);
	memset(o, 0, sizeof(*o));
}

static void read_fd(int fd, unsigned flags, struct readout *o)
{
	struct pmt_reader *r = NULL;
	struct pmt_record rec;
	int rc;

	memset(o, 0, sizeof(*o));
	o->open_rc = pmt_reader_open(&r, NULL, fd, flags);
	if (o->open_rc != 0) {
		assert_null(r);
		return;
	}
	o->meta = strdup(pmt_reader_meta(r));
	pmt_reader_version(r, &o->major, &o->minor);
	while ((rc = pmt_reader_next(r, &rec)) == 1) {
		assert_true(o->n < 100000);
		o->lines = realloc(o->lines, (o->n + 1) * sizeof(*o->lines));
		o->seqs = realloc(o->seqs, (o->n + 1) * sizeof(*o->seqs));
		assert_non_null(o->lines);
		assert_non_null(o->seqs);
		o->lines[o->n] = record_dump(&rec);
		o->seqs[o->n] = rec.chunk_seq;
		o->n++;
	}
	o->end_rc = rc;
	/* the end (or error) is sticky */
	assert_int_equal(pmt_reader_next(r, &rec), rc);
	pmt_reader_stats(r, &o->st);
	pmt_reader_close(r);
}

static void read_bytes(const void *p, size_t n, unsigned flags, struct readout *o)
{
	int fd = memfd_with(p, n);
	read_fd(fd, flags, o);
	close(fd);
}

/* Asserts that o returned exactly the records of full's chunks listed in order, in that order. */
static void expect_chunks(const struct readout *o, const struct readout *full,
			  const uint32_t *order, size_t norder)
{
	size_t k = 0;

	for (size_t c = 0; c < norder; c++) {
		for (size_t i = 0; i < full->n; i++) {
			if (full->seqs[i] != order[c])
				continue;
			assert_true(k < o->n);
			assert_string_equal(o->lines[k], full->lines[i]);
			assert_int_equal(o->seqs[k], full->seqs[i]);
			k++;
		}
	}
	assert_int_equal(o->n, k);
}

static void expect_chunk_range(const struct readout *o, const struct readout *full, uint32_t from,
			       uint32_t to, uint32_t except)
{
	uint32_t order[64];
	size_t n = 0;

	for (uint32_t s = from; s < to; s++)
		if (s != except)
			order[n++] = s;
	expect_chunks(o, full, order, n);
}

/* ---- hand-made chunks, for what the writer refuses to produce ---- */

static void add_record(struct buf *recs, uint16_t type, const void *body, uint32_t len)
{
	uint8_t h[8];
	put_le16(h, type);
	put_le16(h + 2, 0);
	put_le32(h + 4, len);
	buf_add(recs, h, 8);
	buf_add(recs, body, len);
}

static void add_json_record(struct buf *recs, uint16_t type, const char *text)
{
	uint8_t b[256];
	size_t n = strlen(text);
	assert_true(n + 12 <= sizeof(b));
	memset(b, 0, 12);
	memcpy(b + 12, text, n);
	add_record(recs, type, b, (uint32_t)(12 + n));
}

static void add_file_header(struct buf *f, uint16_t major, uint16_t minor)
{
	uint8_t h[FILE_HEADER_BYTES];

	memcpy(h, pmt_file_magic, sizeof(pmt_file_magic));
	put_le16(h + 8, major);
	put_le16(h + 10, minor);
	put_le32(h + 12, (uint32_t)crc32(0, h, 12));
	buf_add(f, h, 16);
}

static void add_chunk_header(struct buf *f, uint32_t seq, uint32_t csize, uint32_t usize,
			     uint32_t payload_crc)
{
	uint8_t h[CHUNK_HEADER_BYTES];

	memcpy(h, pmt_chunk_magic, sizeof(pmt_chunk_magic));
	put_le32(h + 4, seq);
	put_le32(h + 8, csize);
	put_le32(h + 12, usize);
	put_le32(h + 16, payload_crc);
	put_le32(h + 20, (uint32_t)crc32(0, h, 20));
	buf_add(f, h, 24);
}

/* Appends a chunk holding recs; frames = 1 and checksum = 1 make it valid (one zstd frame with
 * content checksum and content size), frames = 2 adds an empty second frame to the payload. */
static void add_chunk_opts(struct buf *f, uint32_t seq, const struct buf *recs, int checksum,
			   int frames)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = 2 * ZSTD_compressBound(recs->n), csize;
	uint8_t *z = malloc(cap);

	assert_non_null(c);
	assert_non_null(z);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum)));
	csize = ZSTD_compress2(c, z, cap, recs->p, recs->n);
	assert_false(ZSTD_isError(csize));
	if (frames == 2) { /* an empty second frame: decompressing both still yields usize bytes */
		size_t k = ZSTD_compress2(c, z + csize, cap - csize, "", 0);
		assert_false(ZSTD_isError(k));
		csize += k;
	}
	add_chunk_header(f, seq, (uint32_t)csize, (uint32_t)recs->n, (uint32_t)crc32(0, z, (uInt)csize));
	buf_add(f, z, csize);
	free(z);
	ZSTD_freeCCtx(c);
}

static void add_chunk(struct buf *f, uint32_t seq, const struct buf *recs)
{
	add_chunk_opts(f, seq, recs, 1, 1);
}

/* A file whose chunk 0 holds META and chunk 1 holds the given records. */
static void file_with_chunk1(struct buf *f, const struct buf *recs1)
{
	struct buf r0 = { 0 };
	add_file_header(f, 1, 0);
	add_json_record(&r0, PMT_REC_META, "{}");
	add_chunk(f, 0, &r0);
	add_chunk(f, 1, recs1);
	buf_free(&r0);
}

/* ---- (a) round trip ---- */

static void assert_threads_equal(const struct pmt_thread_sample *a, const struct pmt_thread_sample *b)
{
	assert_int_equal(a->tid, b->tid);
	assert_int_equal(a->tgid, b->tgid);
	assert_true(a->run_ns == b->run_ns);
	assert_true(a->wait_ns == b->wait_ns);
	assert_true(a->timeslices == b->timeslices);
	assert_int_equal(a->nvcsw, b->nvcsw);
	assert_int_equal(a->nivcsw, b->nivcsw);
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->state, b->state);
	assert_int_equal(a->flags, b->flags);
}

static void assert_record_equal(const struct pmt_record *want, const struct pmt_record *got)
{
	assert_int_equal(got->type, want->type);
	switch (want->type) {
	case PMT_REC_SAMPLE:
		assert_int_equal(got->u.sample.run_id, want->u.sample.run_id);
		assert_true(got->u.sample.t_ns == want->u.sample.t_ns);
		assert_int_equal(got->u.sample.duration_ns, want->u.sample.duration_ns);
		assert_int_equal(got->u.sample.n, want->u.sample.n);
		for (uint32_t i = 0; i < want->u.sample.n; i++)
			assert_threads_equal(&want->u.sample.threads[i], &got->u.sample.threads[i]);
		break;
	case PMT_REC_TASK:
		assert_int_equal(got->u.task.run_id, want->u.task.run_id);
		assert_true(got->u.task.t_ns == want->u.task.t_ns);
		assert_int_equal(got->u.task.kind, want->u.task.kind);
		assert_int_equal(got->u.task.flags, want->u.task.flags);
		assert_int_equal(got->u.task.tid, want->u.task.tid);
		assert_int_equal(got->u.task.tgid, want->u.task.tgid);
		assert_int_equal(got->u.task.ppid, want->u.task.ppid);
		assert_int_equal(got->u.task.exit_status, want->u.task.exit_status);
		assert_true(got->u.task.final_run_ns == want->u.task.final_run_ns);
		assert_true(got->u.task.final_wait_ns == want->u.task.final_wait_ns);
		assert_int_equal(got->u.task.comm_len, want->u.task.comm_len);
		assert_memory_equal(got->u.task.comm, want->u.task.comm, want->u.task.comm_len);
		assert_int_equal(got->u.task.comm[got->u.task.comm_len], '\0');
		break;
	case PMT_REC_COUNTERS:
		assert_int_equal(got->u.counters.run_id, want->u.counters.run_id);
		assert_true(got->u.counters.t_ns == want->u.counters.t_ns);
		assert_int_equal(got->u.counters.n, want->u.counters.n);
		for (uint32_t i = 0; i < want->u.counters.n; i++)
			assert_true(got->u.counters.values[i] == want->u.counters.values[i]);
		break;
	case PMT_REC_SCHED:
		assert_int_equal(got->u.sched.run_id, want->u.sched.run_id);
		assert_int_equal(got->u.sched.cpu, want->u.sched.cpu);
		assert_int_equal(got->u.sched.missed, want->u.sched.missed);
		assert_int_equal(got->u.sched.n, want->u.sched.n);
		for (uint32_t i = 0; i < want->u.sched.n; i++) {
			const struct pmt_sched_event *a = &want->u.sched.events[i];
			const struct pmt_sched_event *b = &got->u.sched.events[i];
			assert_true(a->t_ns == b->t_ns);
			assert_int_equal(a->kind, b->kind);
			assert_int_equal(a->ctx, b->ctx);
			assert_int_equal(a->cpu, b->cpu);
			assert_int_equal(a->common_pid, b->common_pid);
			assert_int_equal(a->a, b->a);
			assert_int_equal(a->b, b->b);
			assert_int_equal(a->c, b->c);
		}
		break;
	default:
		assert_int_equal(got->u.json.run_id, want->u.json.run_id);
		assert_true(got->u.json.t_ns == want->u.json.t_ns);
		assert_int_equal(got->u.json.len, want->u.json.len);
		assert_string_equal(got->u.json.text, want->u.json.text);
		break;
	}
}

static void test_roundtrip_all_types(void **state)
{
	struct buf f = { 0 };
	struct pmt_reader *r = NULL;
	struct pmt_reader_stats st;
	struct pmt_record rec;
	uint32_t last_seq = 0;
	unsigned major = 9, minor = 9;
	int fd, seen_tasks = 0;

	(void)state;
	/* 64-byte chunks: nearly every record ends up in a chunk of its own */
	make_trace(&f, fixture, NFIX, 64, NULL);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&r, NULL, fd, 0), 0);
	assert_string_equal(pmt_reader_meta(r), meta_json);
	pmt_reader_version(r, &major, &minor);
	assert_int_equal(major, PMT_FORMAT_MAJOR);
	assert_int_equal(minor, PMT_FORMAT_MINOR);
	for (size_t i = 0; i < NFIX; i++) {
		assert_int_equal(pmt_reader_next(r, &rec), 1);
		assert_record_equal(&fixture[i], &rec);
		assert_true(rec.chunk_seq >= last_seq);
		last_seq = rec.chunk_seq;
		if (rec.type == PMT_REC_TASK && seen_tasks++ == 0) {
			/* the comm of the style guide, spelled out */
			assert_string_equal(rec.u.task.comm, "a) b");
			assert_int_equal(rec.u.task.comm_len, 4);
		}
		if (i == 2) {
			assert_int_equal(rec.u.sample.threads[1].cpu, PMT_CPU_UNKNOWN);
			assert_int_equal(rec.u.sample.threads[1].state, '?');
			assert_true(rec.u.sample.threads[1].run_ns == UINT64_MAX);
		}
		if (i == 5)
			assert_true(rec.u.counters.values[2] == INT64_MIN);
	}
	assert_int_equal(pmt_reader_next(r, &rec), 0);
	assert_int_equal(pmt_reader_next(r, &rec), 0);
	assert_true(last_seq >= 6); /* several chunks */
	pmt_reader_stats(r, &st);
	assert_int_equal(st.chunks, last_seq + 1);
	assert_int_equal(st.chunks_bad, 0);
	assert_int_equal(st.seq_gaps, 0);
	assert_int_equal(st.records_skipped, 0);
	assert_int_equal(st.bytes_skipped, 0);
	assert_int_equal(st.bytes_read, f.n);
	assert_int_equal(st.truncated, 0);
	assert_int_equal(st.has_summary, 1);
	pmt_reader_close(r);
	close(fd);
	buf_free(&f);
}

static void test_sample_zero_threads(void **state)
{
	struct pmt_record in = sample_rec(42, 0, NULL), rec;
	struct pmt_reader *r = NULL;
	struct buf f = { 0 };
	int fd;

	(void)state;
	make_trace(&f, &in, 1, 0, NULL);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&r, NULL, fd, 0), 0);
	assert_int_equal(pmt_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMT_REC_SAMPLE);
	assert_int_equal(rec.u.sample.n, 0);
	assert_int_equal(rec.u.sample.run_id, 1);
	assert_int_equal(rec.u.sample.t_ns, 42);
	assert_int_equal(rec.u.sample.duration_ns, 12345);
	assert_int_equal(pmt_reader_next(r, &rec), 0);
	pmt_reader_close(r);
	close(fd);
	buf_free(&f);
}

/* ENERGY (0x8003, format 1.2): every zone's cumulative µJ comes back bit for bit, including values
 * above 2^63 (64-bit accumulation), n = 0 is a valid record, and 65 zones are refused by the
 * writer (PMT_E_LIMIT) before anything is written. */
static void test_energy_roundtrip(void **state)
{
	static const uint64_t uj[3] = { 1328850u, UINT64_MAX - 5, 0 };
	struct pmt_record in[2] = { { .type = PMT_REC_ENERGY }, { .type = PMT_REC_ENERGY } }, rec;
	uint64_t many[PMT_MAX_ENERGY_ZONES + 1] = { 0 };
	struct pmt_energy big = { .run_id = 0, .t_ns = 1, .n = PMT_MAX_ENERGY_ZONES + 1, .energy_uj = many };
	struct pmt_writer *w = NULL;
	struct pmt_reader *r = NULL;
	struct buf f = { 0 };
	int fd;

	(void)state;
	in[0].u.energy = (struct pmt_energy){ .run_id = 7, .t_ns = 123456789, .n = 3, .energy_uj = uj };
	in[1].u.energy = (struct pmt_energy){ .run_id = 8, .t_ns = 5, .n = 0, .energy_uj = NULL };
	fd = memfd_create("pmt-e", MFD_CLOEXEC);
	assert_int_equal(pmt_writer_open(&w, fd, meta_json, NULL), 0);
	assert_int_equal(pmt_writer_energy(w, &in[0].u.energy), 0);
	assert_int_equal(pmt_writer_energy(w, &in[1].u.energy), 0);
	assert_int_equal(pmt_writer_energy(w, &big), PMT_E_LIMIT);
	assert_int_equal(pmt_writer_close(w), 0);
	fd_contents(fd, &f);
	close(fd);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&r, NULL, fd, 0), 0);
	assert_int_equal(pmt_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMT_REC_ENERGY);
	assert_int_equal(rec.u.energy.run_id, 7);
	assert_int_equal(rec.u.energy.t_ns, 123456789);
	assert_int_equal(rec.u.energy.n, 3);
	for (int i = 0; i < 3; i++)
		assert_true(rec.u.energy.energy_uj[i] == uj[i]);
	assert_int_equal(pmt_reader_next(r, &rec), 1);
	assert_int_equal(rec.u.energy.run_id, 8);
	assert_int_equal(rec.u.energy.n, 0);
	assert_int_equal(pmt_reader_next(r, &rec), 0);
	pmt_reader_close(r);
	close(fd);
	buf_free(&f);
}

/* Samples of many threads, in the default 1 MiB chunks: the reader's thread array grows. */
static void test_roundtrip_large_samples(void **state)
{
	enum { NT = 20000, NS = 12 };
	struct pmt_thread_sample *t = calloc(NT, sizeof(*t));
	struct pmt_record in[NS], rec;
	struct pmt_reader *r = NULL;
	struct pmt_reader_stats st;
	struct buf f = { 0 };
	int fd;

	(void)state;
	assert_non_null(t);
	for (uint32_t i = 0; i < NT; i++) {
		t[i].tid = 1000 + i;
		t[i].tgid = 1000;
		t[i].run_ns = (uint64_t)i * 1000003u;
		t[i].wait_ns = i;
		t[i].timeslices = i / 3;
		t[i].cpu = (uint16_t)(i % 64);
		t[i].state = "RSD"[i % 3];
		t[i].flags = PMT_TS_SCHEDSTAT_OK;
	}
	for (int s = 0; s < NS; s++)
		in[s] = sample_rec((uint64_t)s * 10000000u, (uint32_t)(NT / NS * (s + 1)), t);
	make_trace(&f, in, NS, 0, NULL);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&r, NULL, fd, 0), 0);
	for (int s = 0; s < NS; s++) {
		assert_int_equal(pmt_reader_next(r, &rec), 1);
		assert_record_equal(&in[s], &rec);
	}
	assert_int_equal(pmt_reader_next(r, &rec), 0);
	pmt_reader_stats(r, &st);
	assert_true(st.chunks >= 4); /* 12 samples of up to 880 kB in 1 MiB chunks */
	assert_int_equal(st.has_summary, 0);
	pmt_reader_close(r);
	close(fd);
	buf_free(&f);
	free(t);
}

/* The reader must not need lseek(): feed it the file through a pipe in small, uneven pieces. */
static void test_reader_on_pipe(void **state)
{
	struct readout full, piped;
	struct buf f = { 0 };
	int p[2], status;
	pid_t pid;

	(void)state;
	make_trace(&f, fixture, NFIX, 100, NULL);
	read_bytes(f.p, f.n, 0, &full);
	assert_int_equal(full.open_rc, 0);
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t at = 0, step = 1;
		close(p[0]);
		while (at < f.n) {
			size_t k = step < f.n - at ? step : f.n - at;
			if (write(p[1], f.p + at, k) != (ssize_t)k)
				_exit(1);
			at += k;
			step = step * 3 % 97 + 1;
			usleep(100);
		}
		_exit(0);
	}
	close(p[1]);
	read_fd(p[0], 0, &piped);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(piped.open_rc, 0);
	assert_int_equal(piped.end_rc, 0);
	expect_chunk_range(&piped, &full, 0, 64, UINT32_MAX);
	assert_int_equal(piped.n, NFIX);
	assert_int_equal(piped.st.has_summary, 1);
	assert_int_equal(piped.st.truncated, 0);
	readout_free(&full);
	readout_free(&piped);
	buf_free(&f);
}

/* A writer on a pipe (no lseek, no ftruncate) writes the same readable stream. */
static void test_writer_on_pipe(void **state)
{
	struct pmt_writer_opts o = { .chunk_bytes = 128 };
	struct pmt_writer *w = NULL;
	struct readout out;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pmt_writer_open(&w, p[1], meta_json, &o), 0);
	for (size_t i = 0; i < NFIX; i++)
		assert_int_equal(write_record(w, &fixture[i]), 0);
	assert_int_equal(pmt_writer_close(w), 0); /* the whole trace fits in the pipe buffer */
	close(p[1]);
	read_fd(p[0], 0, &out);
	close(p[0]);
	assert_int_equal(out.open_rc, 0);
	assert_int_equal(out.end_rc, 0);
	assert_int_equal(out.n, NFIX);
	assert_int_equal(out.st.has_summary, 1);
	assert_string_equal(out.meta, meta_json);
	readout_free(&out);
}

static void test_open_by_path(void **state)
{
	char path[PATH_MAX];
	struct pmt_reader *r = NULL;
	struct pmt_record rec;
	struct buf f = { 0 };
	int fd, n = 0;

	(void)state;
	make_small_trace(&f);
	snprintf(path, sizeof(path), "%s/path.pmt", tmpdir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, f.p, f.n), (ssize_t)f.n);
	close(fd);
	assert_int_equal(pmt_reader_open(&r, path, -1, 0), 0);
	while (pmt_reader_next(r, &rec) == 1)
		n++;
	assert_int_equal(n, NFIX);
	pmt_reader_close(r);

	snprintf(path, sizeof(path), "%s/does-not-exist.pmt", tmpdir);
	errno = 0;
	assert_int_equal(pmt_reader_open(&r, path, -1, 0), PMT_E_IO);
	assert_int_equal(errno, ENOENT);
	assert_null(r);
	buf_free(&f);
}

/* ---- (b) truncation at every length ---- */

static void truncation_every_length_major(unsigned major)
{
	struct readout full, o;
	struct buf f = { 0 };
	size_t off[16], k;

	make_small_trace_major(&f, major);
	k = chunk_offsets(f.p, f.n, off, 15);
	assert_int_equal(k, 6);
	read_bytes(f.p, f.n, 0, &full);
	assert_int_equal(full.n, NFIX);
	for (size_t len = 0; len <= f.n; len++) {
		uint32_t complete = 0;
		for (size_t c = 0; c < k; c++)
			if (off[c + 1] <= len)
				complete = (uint32_t)c + 1;
		read_bytes(f.p, len, 0, &o);
		if (complete == 0) {
			/* inside the file header or chunk 0: nothing to return */
			assert_int_equal(o.open_rc, PMT_E_TRUNCATED);
			readout_free(&o);
			continue;
		}
		assert_int_equal(o.open_rc, 0);
		assert_int_equal(o.end_rc, 0);
		expect_chunk_range(&o, &full, 0, complete, UINT32_MAX);
		assert_int_equal(o.st.chunks, complete);
		assert_int_equal(o.st.chunks_bad, 0);
		assert_int_equal(o.st.truncated, len != off[complete]);
		assert_int_equal(o.st.has_summary, len == f.n);
		assert_int_equal(o.st.bytes_read, len);
		/* salvage mode does not change the result of a clean cut */
		readout_free(&o);
		read_bytes(f.p, len, PMT_READ_SALVAGE, &o);
		assert_int_equal(o.end_rc, 0);
		expect_chunk_range(&o, &full, 0, complete, UINT32_MAX);
		assert_int_equal(o.st.truncated, len != off[complete]);
		readout_free(&o);
	}
	readout_free(&full);
	buf_free(&f);
}

static void test_truncation_every_length(void **state)
{
	(void)state;
	truncation_every_length_major(PMT_FORMAT_MAJOR);
	truncation_every_length_major(1);
}

/* ---- (c) a flipped byte anywhere ---- */

/* Which part of the file position pos is in: -1 file header, else the chunk index. */
static int region_of(size_t pos, const size_t *off, size_t k)
{
	if (pos < off[0])
		return -1;
	for (size_t c = 0; c < k; c++)
		if (pos < off[c + 1])
			return (int)c;
	fail();
	return -2;
}

static void flip_every_byte_major(unsigned major)
{
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };
	struct readout full, o;
	struct buf f = { 0 };
	size_t off[16], k;

	make_small_trace_major(&f, major);
	k = chunk_offsets(f.p, f.n, off, 15);
	read_bytes(f.p, f.n, 0, &full);
	for (size_t pos = 0; pos < f.n; pos++) {
		int reg = region_of(pos, off, k);
		for (size_t x = 0; x < sizeof(flips); x++) {
			f.p[pos] ^= flips[x];
			read_bytes(f.p, f.n, 0, &o);
			f.p[pos] ^= flips[x];
			if (reg < 0) {
				/* the magic (in format 2 with its skippable frame header), the major */
				size_t at = pmt_header_fields_at(major);
				int want = pos < at + 8 ? PMT_E_NOT_TRACE : pos < at + 10 ? PMT_E_VERSION :
					   PMT_E_CORRUPT;
				assert_int_equal(o.open_rc, want);
			} else if (reg == 0) {
				assert_int_equal(o.open_rc, PMT_E_CORRUPT);
			} else {
				/* the chunks before the damaged one, then an error: never a changed record */
				assert_int_equal(o.open_rc, 0);
				assert_int_equal(o.end_rc, PMT_E_CORRUPT);
				expect_chunk_range(&o, &full, 0, (uint32_t)reg, UINT32_MAX);
				assert_int_equal(o.st.truncated, 0);
			}
			readout_free(&o);
		}
	}
	readout_free(&full);
	buf_free(&f);
}

static void test_flip_every_byte(void **state)
{
	(void)state;
	flip_every_byte_major(PMT_FORMAT_MAJOR);
	flip_every_byte_major(1);
}

static void flip_every_byte_salvage_major(unsigned major)
{
	struct readout full, o;
	struct buf f = { 0 };
	size_t off[16], k;

	make_small_trace_major(&f, major);
	k = chunk_offsets(f.p, f.n, off, 15);
	read_bytes(f.p, f.n, 0, &full);
	for (size_t pos = 0; pos < f.n; pos++) {
		int reg = region_of(pos, off, k);
		f.p[pos] ^= 0x5a;
		read_bytes(f.p, f.n, PMT_READ_SALVAGE, &o);
		f.p[pos] ^= 0x5a;
		if (reg <= 0) {
			/* the file header and chunk 0 (META) cannot be salvaged */
			assert_true(o.open_rc < 0);
			readout_free(&o);
			continue;
		}
		assert_int_equal(o.open_rc, 0);
		assert_int_equal(o.end_rc, 0);
		expect_chunk_range(&o, &full, 0, (uint32_t)k, (uint32_t)reg);
		assert_int_equal(o.st.chunks, k - 1);
		assert_int_equal(o.st.chunks_bad, 1);
		/* the scan passes over the whole damaged chunk */
		assert_int_equal(o.st.bytes_skipped, off[reg + 1] - off[reg]);
		/* a lost chunk in the middle is a gap in the sequence; the last one is not seen */
		assert_int_equal(o.st.seq_gaps, (size_t)reg + 1 < k ? 1 : 0);
		assert_int_equal(o.st.has_summary, (size_t)reg + 1 < k);
		assert_int_equal(o.st.truncated, 0);
		readout_free(&o);
	}
	readout_free(&full);
	buf_free(&f);
}

static void test_flip_every_byte_salvage(void **state)
{
	(void)state;
	flip_every_byte_salvage_major(PMT_FORMAT_MAJOR);
	flip_every_byte_salvage_major(1);
}

/* Garbage between two chunks, including a fake "PMCK": salvage skips exactly the garbage. */
static void salvage_garbage_between_chunks_major(unsigned major)
{
	static const char junk[] = "junk PMCK more junk PMCKPMC";
	struct readout full, o;
	struct buf f = { 0 }, g = { 0 };
	size_t off[16], k;

	make_small_trace_major(&f, major);
	k = chunk_offsets(f.p, f.n, off, 15);
	buf_add(&g, f.p, off[2]);
	buf_add(&g, junk, sizeof(junk) - 1);
	buf_add(&g, f.p + off[2], f.n - off[2]);
	read_bytes(f.p, f.n, 0, &full);

	read_bytes(g.p, g.n, 0, &o);
	assert_int_equal(o.end_rc, PMT_E_CORRUPT);
	expect_chunk_range(&o, &full, 0, 2, UINT32_MAX);
	readout_free(&o);

	read_bytes(g.p, g.n, PMT_READ_SALVAGE, &o);
	assert_int_equal(o.end_rc, 0);
	expect_chunk_range(&o, &full, 0, (uint32_t)k, UINT32_MAX);
	assert_int_equal(o.st.chunks_bad, 1);
	assert_int_equal(o.st.bytes_skipped, sizeof(junk) - 1);
	assert_int_equal(o.st.seq_gaps, 0);
	assert_int_equal(o.st.has_summary, 1);
	readout_free(&o);
	readout_free(&full);
	buf_free(&f);
	buf_free(&g);
}

static void test_salvage_garbage_between_chunks(void **state)
{
	(void)state;
	salvage_garbage_between_chunks_major(PMT_FORMAT_MAJOR);
	salvage_garbage_between_chunks_major(1);
}

/* ---- (d) unknown record types ---- */

static const uint8_t opaque[5] = { 1, 2, 3, 0, 0xff };

static void make_trace_with(struct buf *f, uint16_t type)
{
	struct pmt_record in[3];

	in[0] = fixture[2];
	in[1].type = type;
	in[1].u.raw.body = opaque;
	in[1].u.raw.len = sizeof(opaque);
	in[2] = fixture[9];
	make_trace(f, in, 3, 0, NULL);
}

static void test_unknown_optional_skipped(void **state)
{
	struct readout o;
	struct buf f = { 0 };

	(void)state;
	make_trace_with(&f, 0x8123);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, 0);
	assert_int_equal(o.end_rc, 0);
	assert_int_equal(o.n, 2);
	assert_true(strstr(o.lines[0], "type=0x4 ") == o.lines[0]);
	assert_true(strstr(o.lines[1], "type=0x4 ") == o.lines[1]);
	assert_int_equal(o.st.records_skipped, 1);
	readout_free(&o);
	buf_free(&f);
}

static void test_unknown_optional_raw(void **state)
{
	struct pmt_reader *r = NULL;
	struct pmt_record rec;
	struct pmt_reader_stats st;
	struct buf f = { 0 };
	int fd;

	(void)state;
	make_trace_with(&f, 0x8123);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&r, NULL, fd, PMT_READ_RAW), 0);
	assert_int_equal(pmt_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMT_REC_SAMPLE);
	assert_int_equal(pmt_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, 0x8123);
	assert_int_equal(rec.u.raw.len, sizeof(opaque));
	assert_memory_equal(rec.u.raw.body, opaque, sizeof(opaque));
	assert_int_equal(pmt_reader_next(r, &rec), 1);
	assert_int_equal(rec.type, PMT_REC_SAMPLE);
	assert_int_equal(pmt_reader_next(r, &rec), 0);
	pmt_reader_stats(r, &st);
	assert_int_equal(st.records_skipped, 0);
	pmt_reader_close(r);
	close(fd);
	buf_free(&f);
}

static void test_unknown_required_refused(void **state)
{
	struct readout o;
	struct buf f = { 0 };

	(void)state;
	make_trace_with(&f, 0x0123);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, 0);
	assert_int_equal(o.n, 1); /* the record before it */
	assert_int_equal(o.end_rc, PMT_E_UNKNOWN);
	readout_free(&o);
	/* salvage does not help: the trace needs a newer reader */
	read_bytes(f.p, f.n, PMT_READ_SALVAGE | PMT_READ_RAW, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.end_rc, PMT_E_UNKNOWN);
	readout_free(&o);
	buf_free(&f);
}

/* ---- (e) file header and META ---- */

/* Sets the version fields of the file header of f (either framing) to major.minor. */
static void patch_header(struct buf *f, uint16_t major, uint16_t minor, int fix_crc)
{
	uint8_t *h = f->p + pmt_header_fields_at(pmt_major_of(f->p, f->n));

	put_le16(h + 8, major);
	put_le16(h + 10, minor);
	if (fix_crc)
		put_le32(h + 12, (uint32_t)crc32(0, h, 12));
}

static void test_major_version_refused(void **state)
{
	struct readout o;
	struct buf f = { 0 };

	(void)state;
	make_small_trace(&f);
	patch_header(&f, PMT_FORMAT_MAJOR + 1, 0, 1);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_VERSION);
	read_bytes(f.p, f.n, PMT_READ_SALVAGE, &o);
	assert_int_equal(o.open_rc, PMT_E_VERSION);
	patch_header(&f, 0, 0, 1);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_VERSION);
	/* a framed header names major 2 or later, a bare one major 1 (FORMAT.md §3) */
	patch_header(&f, 1, 3, 1);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_VERSION);
	buf_free(&f);
	make_small_trace_major(&f, 1);
	patch_header(&f, 2, 0, 1);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_VERSION);
	buf_free(&f);
}

static void test_minor_version_accepted(void **state)
{
	struct readout o;
	struct buf f = { 0 };

	(void)state;
	for (unsigned major = 1; major <= PMT_FORMAT_MAJOR; major++) {
		make_small_trace_major(&f, major);
		patch_header(&f, (uint16_t)major, 7, 1);
		read_bytes(f.p, f.n, 0, &o);
		assert_int_equal(o.open_rc, 0);
		assert_int_equal(o.major, major);
		assert_int_equal(o.minor, 7);
		assert_int_equal(o.n, NFIX);
		readout_free(&o);
		buf_free(&f);
	}
}

static void test_header_crc_checked(void **state)
{
	struct readout o;
	struct buf f = { 0 };

	(void)state;
	make_small_trace(&f);
	patch_header(&f, PMT_FORMAT_MAJOR, PMT_FORMAT_MINOR + 1, 0); /* minor changed, CRC not updated */
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_CORRUPT);
	buf_free(&f);
}

static void test_wrong_magic(void **state)
{
	static const char text[] = "hello, world: this is not a trace at all\n";
	struct readout o;
	struct buf f = { 0 };

	(void)state;
	make_small_trace(&f);
	f.p[3] = 'X';
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_NOT_TRACE);
	read_bytes(text, sizeof(text) - 1, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_NOT_TRACE);
	read_bytes(text, 3, 0, &o); /* short, and not even a prefix of the magic */
	assert_int_equal(o.open_rc, PMT_E_NOT_TRACE);
	read_bytes(text, 0, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_TRUNCATED);
	buf_free(&f);
}

static void test_first_record_not_meta(void **state)
{
	struct readout o;
	struct buf f = { 0 }, recs = { 0 };

	(void)state;
	add_file_header(&f, 1, 0);
	add_json_record(&recs, PMT_REC_RUN_BEGIN, "{}");
	add_json_record(&recs, PMT_REC_META, "{}");
	add_chunk(&f, 0, &recs);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, PMT_E_NO_META);
	read_bytes(f.p, f.n, PMT_READ_SALVAGE, &o);
	assert_int_equal(o.open_rc, PMT_E_NO_META);
	buf_free(&f);
	buf_free(&recs);

	/* the same file with META first opens, and the hand-made chunk matches the writer's view */
	add_file_header(&f, 1, 0);
	add_json_record(&recs, PMT_REC_META, "{\"x\":1}");
	add_json_record(&recs, PMT_REC_RUN_BEGIN, "{}");
	add_chunk(&f, 0, &recs);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.open_rc, 0);
	assert_string_equal(o.meta, "{\"x\":1}");
	assert_int_equal(o.n, 1);
	readout_free(&o);
	buf_free(&f);
	buf_free(&recs);
}

/* ---- (f) limits and malformed records ---- */

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

static void test_chunk_csize_over_limit(void **state)
{
	struct pmt_reader *r = NULL;
	struct pmt_record rec;
	struct buf f = { 0 }, recs = { 0 }, g = { 0 };
	struct readout o;
	size_t before;
	int fd;

	(void)state;
	add_file_header(&f, 1, 0);
	add_json_record(&recs, PMT_REC_META, "{}");
	add_chunk(&f, 0, &recs);
	/* a header with a valid CRC claiming a 1 GiB payload, followed by a few bytes */
	add_chunk_header(&f, 1, 1u << 30, 100, 0);
	buf_add(&f, "0123456789", 10);

	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&r, NULL, fd, 0), 0);
	before = heap_in_use();
	assert_int_equal(pmt_reader_next(r, &rec), PMT_E_LIMIT);
	/* refused before any allocation of that size (mallinfo2 reads 0 under ASan: still passes) */
	assert_true(heap_in_use() < before + (1u << 20));
	pmt_reader_close(r);
	close(fd);

	/* usize over the limit, csize fine */
	buf_add(&g, f.p, f.n - 34);
	add_chunk_header(&g, 1, 10, PMT_MAX_CHUNK_BYTES + 1, 0);
	buf_add(&g, "0123456789", 10);
	read_bytes(g.p, g.n, 0, &o);
	assert_int_equal(o.end_rc, PMT_E_LIMIT);
	readout_free(&o);

	/* salvage passes over it to a good chunk behind */
	buf_free(&recs);
	add_json_record(&recs, PMT_REC_SUMMARY, "{}");
	add_chunk(&f, 2, &recs);
	read_bytes(f.p, f.n, PMT_READ_SALVAGE, &o);
	assert_int_equal(o.end_rc, 0);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.st.chunks_bad, 1);
	assert_int_equal(o.st.has_summary, 1);
	assert_int_equal(o.st.bytes_skipped, 34);
	readout_free(&o);
	buf_free(&f);
	buf_free(&g);
	buf_free(&recs);
}

/* Reads a file whose chunk 1 holds one record of type with this body; returns next()'s result. */
static int read_one_record(uint16_t type, const uint8_t *body, uint32_t len, unsigned flags,
			   struct readout *o)
{
	struct buf f = { 0 }, recs = { 0 };

	add_record(&recs, type, body, len);
	file_with_chunk1(&f, &recs);
	read_bytes(f.p, f.n, flags, o);
	buf_free(&f);
	buf_free(&recs);
	assert_int_equal(o->open_rc, 0);
	return o->n == 1 ? 1 : o->end_rc;
}

static void test_sample_n_exceeds_body(void **state)
{
	uint8_t b[20 + 2 * 44] = { 0 };
	struct readout o;

	(void)state;
	put_le32(b + 16, 3); /* three entries claimed, two present */
	assert_int_equal(read_one_record(PMT_REC_SAMPLE, b, sizeof(b), 0, &o), PMT_E_CORRUPT);
	readout_free(&o);
	put_le32(b + 16, 2);
	assert_int_equal(read_one_record(PMT_REC_SAMPLE, b, sizeof(b), 0, &o), 1);
	readout_free(&o);
	put_le32(b + 16, PMT_MAX_SAMPLE_THREADS + 1);
	assert_int_equal(read_one_record(PMT_REC_SAMPLE, b, sizeof(b), 0, &o), PMT_E_LIMIT);
	readout_free(&o);
	put_le32(b + 16, UINT32_MAX); /* 44 * n overflows 32 bits */
	assert_int_equal(read_one_record(PMT_REC_SAMPLE, b, sizeof(b), 0, &o), PMT_E_LIMIT);
	readout_free(&o);
}

static void test_count_fields_over_limit(void **state)
{
	uint8_t b[48 + 65 * 8] = { 0 };
	struct readout o;

	(void)state;
	put_le16(b + 14, PMT_COMM_MAX + 1); /* TASK comm_len 65, and the body has room for it */
	assert_int_equal(read_one_record(PMT_REC_TASK, b, 48 + 65, 0, &o), PMT_E_LIMIT);
	readout_free(&o);
	assert_string_equal(pmt_limit_detail(), "TASK comm_len 65 > 64"); /* the field is named */
	put_le16(b + 14, 10); /* comm runs past the body */
	assert_int_equal(read_one_record(PMT_REC_TASK, b, 48 + 9, 0, &o), PMT_E_CORRUPT);
	readout_free(&o);
	memset(b, 0, sizeof(b));
	put_le32(b + 12, PMT_MAX_COUNTERS + 1); /* COUNTERS n 65 */
	assert_int_equal(read_one_record(PMT_REC_COUNTERS, b, 16 + 65 * 8, 0, &o), PMT_E_LIMIT);
	readout_free(&o);
	assert_string_equal(pmt_limit_detail(), "COUNTERS n 65 > 64");
	put_le32(b + 12, 3);
	assert_int_equal(read_one_record(PMT_REC_COUNTERS, b, 16 + 2 * 8, 0, &o), PMT_E_CORRUPT);
	readout_free(&o);
	/* SCHED n names its own field, not the previous limit error's (the detail used to go stale) */
	memset(b, 0, sizeof(b));
	put_le32(b + 12, PMT_MAX_SCHED_EVENTS + 1);
	assert_int_equal(read_one_record(PMT_REC_SCHED, b, 16, 0, &o), PMT_E_LIMIT);
	readout_free(&o);
	assert_string_equal(pmt_limit_detail(), "SCHED n 1000001 > 1000000");
	memset(b, 0, sizeof(b));
	put_le32(b + 12, PMT_MAX_ENERGY_ZONES + 1);
	assert_int_equal(read_one_record(PMT_REC_ENERGY, b, 16 + 65 * 8, 0, &o), PMT_E_LIMIT);
	readout_free(&o);
	assert_string_equal(pmt_limit_detail(), "ENERGY n 65 > 64");
	put_le32(b + 12, 3);
	assert_int_equal(read_one_record(PMT_REC_ENERGY, b, 16 + 2 * 8, 0, &o), PMT_E_CORRUPT);
	readout_free(&o);
}

static void test_body_shorter_than_fixed_part(void **state)
{
	static const struct {
		uint16_t type;
		uint32_t fixed;
	} t[] = {
		{ PMT_REC_META, 12 }, { PMT_REC_RUN_BEGIN, 12 }, { PMT_REC_RUN_END, 12 },
		{ PMT_REC_SUMMARY, 12 }, { PMT_REC_WARNING, 12 }, { PMT_REC_SAMPLE, 20 },
		{ PMT_REC_TASK, 48 }, { PMT_REC_COUNTERS, 16 },
	};
	uint8_t b[64] = { 0 };
	struct readout o;

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(read_one_record(t[i].type, b, t[i].fixed - 1, 0, &o), PMT_E_CORRUPT);
		readout_free(&o);
		assert_int_equal(read_one_record(t[i].type, b, 0, 0, &o), PMT_E_CORRUPT);
		readout_free(&o);
		/* exactly the fixed part: a valid, empty record */
		assert_int_equal(read_one_record(t[i].type, b, t[i].fixed, 0, &o), 1);
		readout_free(&o);
	}
}

/* Bytes after the fixed part of a known type are reserved for minor versions: ignored. */
static void test_reserved_tail_ignored(void **state)
{
	uint8_t b[20 + 44 + 7];
	struct readout o;

	(void)state;
	memset(b, 0xee, sizeof(b));
	put_le32(b + 16, 1);
	assert_int_equal(read_one_record(PMT_REC_SAMPLE, b, sizeof(b), 0, &o), 1);
	assert_non_null(strstr(o.lines[0], " n=1 ["));
	readout_free(&o);
	memset(b, 0, sizeof(b));
	memcpy(b + 12, "{}", 2); /* JSON: the text is the whole rest of the body, not a tail */
	assert_int_equal(read_one_record(PMT_REC_WARNING, b, 14, 0, &o), 1);
	assert_non_null(strstr(o.lines[0], "len=2 text={}"));
	readout_free(&o);
}

static void test_record_len_past_chunk(void **state)
{
	struct buf f = { 0 }, recs = { 0 };
	uint8_t h[8];
	struct readout o;

	(void)state;
	add_json_record(&recs, PMT_REC_WARNING, "{}");
	put_le16(h, PMT_REC_WARNING);
	put_le16(h + 2, 0);
	put_le32(h + 4, 100); /* claims 100 bytes, 14 follow */
	buf_add(&recs, h, 8);
	buf_add(&recs, "\0\0\0\0\0\0\0\0\0\0\0\0{}", 14);
	file_with_chunk1(&f, &recs);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.end_rc, PMT_E_CORRUPT);
	readout_free(&o);
	/* a chunk that ends inside a record header */
	buf_free(&f);
	recs.n -= 14 + 3;
	file_with_chunk1(&f, &recs);
	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.end_rc, PMT_E_CORRUPT);
	readout_free(&o);
	buf_free(&f);
	buf_free(&recs);
}

/* Salvage: a malformed record makes the rest of its chunk bad; the next chunks are read. */
static void test_malformed_record_salvage(void **state)
{
	struct buf f = { 0 }, r0 = { 0 }, r1 = { 0 }, r2 = { 0 };
	uint8_t sample[20] = { 0 };
	struct readout o;

	(void)state;
	add_file_header(&f, 1, 0);
	add_json_record(&r0, PMT_REC_META, "{}");
	add_chunk(&f, 0, &r0);
	add_json_record(&r1, PMT_REC_WARNING, "{\"what\":\"before\"}");
	put_le32(sample + 16, 5); /* 5 entries claimed, none present */
	add_record(&r1, PMT_REC_SAMPLE, sample, sizeof(sample));
	add_json_record(&r1, PMT_REC_WARNING, "{\"what\":\"after, same chunk\"}");
	add_chunk(&f, 1, &r1);
	add_json_record(&r2, PMT_REC_SUMMARY, "{}");
	add_chunk(&f, 2, &r2);

	read_bytes(f.p, f.n, 0, &o);
	assert_int_equal(o.n, 1);
	assert_int_equal(o.end_rc, PMT_E_CORRUPT);
	readout_free(&o);

	read_bytes(f.p, f.n, PMT_READ_SALVAGE, &o);
	assert_int_equal(o.end_rc, 0);
	assert_int_equal(o.n, 2);
	assert_non_null(strstr(o.lines[0], "before"));
	assert_true(strstr(o.lines[1], "type=0x7 ") == o.lines[1]);
	assert_int_equal(o.st.chunks, 3);
	assert_int_equal(o.st.chunks_bad, 1);
	assert_int_equal(o.st.seq_gaps, 0);
	assert_int_equal(o.st.has_summary, 1);
	readout_free(&o);
	buf_free(&f);
	buf_free(&r0);
	buf_free(&r1);
	buf_free(&r2);
}

/* A chunk whose CRCs pass but whose zstd payload breaks FORMAT.md §4.2 is bad. */
static void test_payload_content_size_checked(void **state)
{
	struct buf f = { 0 }, recs = { 0 }, bad = { 0 };
	size_t off[8];
	uint8_t *h;
	struct readout o;

	(void)state;
	add_json_record(&recs, PMT_REC_WARNING, "{}");
	file_with_chunk1(&f, &recs);
	assert_int_equal(chunk_offsets(f.p, f.n, off, 7), 2);
	/* rewrite chunk 1's usize (content size stays 22) with a valid header CRC */
	buf_add(&bad, f.p, f.n);
	h = bad.p + off[1];
	put_le32(h + 12, 23);
	put_le32(h + 20, (uint32_t)crc32(0, h, 20));
	read_bytes(bad.p, bad.n, 0, &o);
	assert_int_equal(o.end_rc, PMT_E_CORRUPT);
	assert_int_equal(o.n, 0);
	readout_free(&o);

	/* a frame without the content checksum FORMAT.md §4.2 requires */
	bad.n = off[1];
	add_chunk_opts(&bad, 1, &recs, 0, 1);
	read_bytes(bad.p, bad.n, 0, &o);
	assert_int_equal(o.end_rc, PMT_E_CORRUPT);
	assert_int_equal(o.n, 0);
	readout_free(&o);

	/* two frames in one payload: only one is allowed */
	bad.n = off[1];
	add_chunk_opts(&bad, 1, &recs, 1, 2);
	read_bytes(bad.p, bad.n, 0, &o);
	assert_int_equal(o.end_rc, PMT_E_CORRUPT);
	assert_int_equal(o.n, 0);
	readout_free(&o);

	/* the control: the same chunk made properly reads */
	bad.n = off[1];
	add_chunk_opts(&bad, 1, &recs, 1, 1);
	read_bytes(bad.p, bad.n, 0, &o);
	assert_int_equal(o.end_rc, 0);
	assert_int_equal(o.n, 1);
	readout_free(&o);
	buf_free(&f);
	buf_free(&recs);
	buf_free(&bad);
}

/* ---- (g) chunk sequence ---- */

static void reorder_chunks(const struct buf *f, const size_t *off, const uint32_t *order,
			   size_t n, struct buf *out)
{
	buf_add(out, f->p, off[0]);
	for (size_t i = 0; i < n; i++)
		buf_add(out, f->p + off[order[i]], off[order[i] + 1] - off[order[i]]);
}

static void check_order(const uint32_t *order, size_t n, uint64_t want_gaps)
{
	struct readout full, o;
	struct buf f = { 0 }, g = { 0 };
	size_t off[16];

	make_small_trace(&f);
	assert_int_equal(chunk_offsets(f.p, f.n, off, 15), 6);
	read_bytes(f.p, f.n, 0, &full);
	reorder_chunks(&f, off, order, n, &g);
	read_bytes(g.p, g.n, 0, &o);
	assert_int_equal(o.open_rc, 0);
	assert_int_equal(o.end_rc, 0);
	expect_chunks(&o, &full, order, n); /* records come in file order */
	assert_int_equal(o.st.seq_gaps, want_gaps);
	assert_int_equal(o.st.chunks, n);
	readout_free(&o);
	readout_free(&full);
	buf_free(&f);
	buf_free(&g);
}

static void test_seq_in_order(void **state)
{
	static const uint32_t order[] = { 0, 1, 2, 3, 4, 5 };
	(void)state;
	check_order(order, 6, 0);
}

static void test_seq_swap_counted(void **state)
{
	static const uint32_t order[] = { 0, 2, 1, 3, 4, 5 };
	(void)state;
	check_order(order, 6, 2); /* 1 missing when 2 arrives, then 1 out of order */
}

static void test_seq_duplicate_counted(void **state)
{
	static const uint32_t order[] = { 0, 1, 2, 2, 3, 4, 5 };
	(void)state;
	check_order(order, 7, 1);
}

static void test_seq_missing_counted(void **state)
{
	static const uint32_t order[] = { 0, 3, 4, 5 };
	(void)state;
	check_order(order, 4, 2);
}

/* ---- OMP_COUNTERS (1.3, FORMAT.md §5.9) ---- */

/* One thread's counter deltas written and read back (a negative delta stays signed); more values
 * than PMT_MAX_OMP_EVENTS are refused by the writer, and a record whose n claims more bytes than it
 * has is corrupt for the reader. */
static void test_omp_counters_roundtrip(void **state)
{
	static const int64_t v[3] = { 123456789012345ll, -7, 0 };
	struct pmt_record in = { .type = PMT_REC_OMP_COUNTERS };
	struct pmt_reader *rd = NULL;
	struct pmt_writer *w = NULL;
	struct pmt_record rec;
	struct buf f = { 0 };
	uint8_t body[24 + 8] = { 0 }; /* the fixed 24 bytes (FORMAT.md §5.9) and one value */
	int fd;

	(void)state;
	in.u.omp_counters = (struct pmt_omp_counters){ .run_id = 3, .pid = 100, .tid = 0x01020304u,
		.region_id = 0x1122334455667788ull, .n = 3, .values = v };
	make_trace(&f, &in, 1, 1u << 20, NULL);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&rd, NULL, fd, 0), 0);
	assert_int_equal(pmt_reader_next(rd, &rec), 1);
	assert_int_equal(rec.type, PMT_REC_OMP_COUNTERS);
	assert_int_equal(rec.u.omp_counters.run_id, 3);
	assert_int_equal(rec.u.omp_counters.pid, 100);
	assert_int_equal(rec.u.omp_counters.tid, 0x01020304u);
	assert_int_equal(rec.u.omp_counters.region_id, 0x1122334455667788ull);
	assert_int_equal(rec.u.omp_counters.n, 3);
	assert_memory_equal(rec.u.omp_counters.values, v, sizeof(v));
	assert_int_equal(pmt_reader_next(rd, &rec), 0);
	pmt_reader_close(rd);
	close(fd);
	free(f.p);
	memset(&f, 0, sizeof(f));
	fd = memfd_create("pmt-ompc", MFD_CLOEXEC);
	assert_int_equal(pmt_writer_open(&w, fd, meta_json, NULL), 0);
	in.u.omp_counters.n = PMT_MAX_OMP_EVENTS + 1;
	assert_int_equal(pmt_writer_omp_counters(w, &in.u.omp_counters), PMT_E_LIMIT);
	/* n = 2 in a body with room for one value */
	body[12] = 2;
	assert_int_equal(pmt_writer_raw(w, PMT_REC_OMP_COUNTERS, body, sizeof(body)), 0);
	assert_int_equal(pmt_writer_close(w), 0);
	fd_contents(fd, &f);
	close(fd);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&rd, NULL, fd, 0), 0);
	assert_int_equal(pmt_reader_next(rd, &rec), PMT_E_CORRUPT);
	pmt_reader_close(rd);
	close(fd);
	free(f.p);
}

/* ---- OMP_REGION (1.2, FORMAT.md §5.7) ---- */

/* An OpenMP region written and read back field by field; a record claiming more team tids than
 * PMT_MAX_OMP_TIDS is refused with PMT_E_LIMIT before anything is read. */
static void test_omp_region_roundtrip(void **state)
{
	static const uint32_t tids[3] = { 100, 101, 0x01020304u };
	struct pmt_record in = { .type = PMT_REC_OMP_REGION };
	struct pmt_reader *rd = NULL;
	struct pmt_record rec;
	struct buf f = { 0 };
	int fd;

	(void)state;
	in.u.omp = (struct pmt_omp_region){ .run_id = 7, .pid = 100, .id = 42, .parent_id = 41,
		.codeptr_ra = 0x7f0011223344ull, .begin_ns = 1000, .end_ns = 2500, .depth = 2,
		.requested_team = 4, .actual_team = 3, .encountering_tid = 101,
		.flags = PMT_OMP_TIDS_CUT, .n_tids = 3, .tids = tids };
	make_trace(&f, &in, 1, 1u << 20, NULL);
	fd = memfd_with(f.p, f.n);
	assert_int_equal(pmt_reader_open(&rd, NULL, fd, 0), 0);
	assert_int_equal(pmt_reader_next(rd, &rec), 1);
	assert_int_equal(rec.type, PMT_REC_OMP_REGION);
	assert_int_equal(rec.u.omp.run_id, 7);
	assert_int_equal(rec.u.omp.pid, 100);
	assert_int_equal(rec.u.omp.id, 42);
	assert_int_equal(rec.u.omp.parent_id, 41);
	assert_int_equal(rec.u.omp.codeptr_ra, 0x7f0011223344ull);
	assert_int_equal(rec.u.omp.begin_ns, 1000);
	assert_int_equal(rec.u.omp.end_ns, 2500);
	assert_int_equal(rec.u.omp.depth, 2);
	assert_int_equal(rec.u.omp.requested_team, 4);
	assert_int_equal(rec.u.omp.actual_team, 3);
	assert_int_equal(rec.u.omp.encountering_tid, 101);
	assert_int_equal(rec.u.omp.flags, PMT_OMP_TIDS_CUT);
	assert_int_equal(rec.u.omp.n_tids, 3);
	assert_memory_equal(rec.u.omp.tids, tids, sizeof(tids));
	assert_int_equal(pmt_reader_next(rd, &rec), 0);
	pmt_reader_close(rd);
	close(fd);
	free(f.p);
	memset(&f, 0, sizeof(f));
	in.u.omp.n_tids = PMT_MAX_OMP_TIDS + 1;
	{
		struct pmt_writer *w = NULL;
		fd = memfd_create("pmt-omp", MFD_CLOEXEC);
		assert_int_equal(pmt_writer_open(&w, fd, meta_json, NULL), 0);
		assert_int_equal(pmt_writer_omp_region(w, &in.u.omp), PMT_E_LIMIT);
		/* end before begin: the writer copies, the reader refuses */
		in.u.omp.n_tids = 0;
		in.u.omp.end_ns = 10;
		assert_int_equal(pmt_writer_omp_region(w, &in.u.omp), 0);
		assert_int_equal(pmt_writer_close(w), 0);
		fd_contents(fd, &f);
		close(fd);
		fd = memfd_with(f.p, f.n);
		assert_int_equal(pmt_reader_open(&rd, NULL, fd, 0), 0);
		assert_int_equal(pmt_reader_next(rd, &rec), PMT_E_CORRUPT);
		pmt_reader_close(rd);
		close(fd);
		free(f.p);
	}
}

/* ---- (h) byte layout ---- */

static void test_little_endian_layout(void **state)
{
	/* format 2.0 (FORMAT.md §2, §3): a zstd skippable frame (magic 0x184D2A5B, 16 bytes) holding
	 * the file header */
	static const uint8_t header[24] = { 0x5b, 0x2a, 0x4d, 0x18, 0x10, 0x00, 0x00, 0x00,
					    0x89, 0x50, 0x4d, 0x54, 0x0d, 0x0a, 0x1a, 0x0a,
					    0x02, 0x00, 0x00, 0x00,
					    /* CRC-32 of bytes 8-19 = 0xc77e6918, little-endian */
					    0x18, 0x69, 0x7e, 0xc7 };
	_Static_assert(PMT_FORMAT_MAJOR == 2 && PMT_FORMAT_MINOR == 0, "header[] spells out 2.0");
	struct pmt_thread_sample t = { .tid = 0x04030201, .tgid = 0x08070605,
				       .run_ns = 0x1817161514131211ull, .wait_ns = 1, .timeslices = 2,
				       .nvcsw = 0xa1a2a3a4u, .nivcsw = 5, .cpu = PMT_CPU_UNKNOWN,
				       .state = '?', .flags = PMT_TS_SCHEDSTAT_OK };
	struct pmt_sample s = { .run_id = 0x11223344, .t_ns = 0x0102030405060708ull,
				.duration_ns = 0x99, .n = 1, .threads = &t };
	struct pmt_writer *w = NULL;
	struct buf f = { 0 };
	uint8_t u[128];
	size_t c1, csize0, csize1;
	int fd;

	(void)state;
	fd = memfd_create("pmt-le", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pmt_writer_open(&w, fd, "{}", NULL), 0);
	assert_int_equal(pmt_writer_bytes(w), lseek(fd, 0, SEEK_CUR));
	assert_int_equal(pmt_writer_sample(w, &s), 0);
	assert_int_equal(pmt_writer_close(w), 0);
	fd_contents(fd, &f);
	close(fd);

	assert_memory_equal(f.p, header, 24);
	/* chunk 0 at offset 24: a skippable frame of 24 bytes, then "PMCK", seq 0,
	 * usize = 8 + 12 + 2 = 22 */
	assert_memory_equal(f.p + 24, "\x5b\x2a\x4d\x18\x18\x00\x00\x00", 8);
	assert_memory_equal(f.p + 32, "PMCK", 4);
	assert_memory_equal(f.p + 36, "\x00\x00\x00\x00", 4);
	assert_memory_equal(f.p + 44, "\x16\x00\x00\x00", 4);
	csize0 = get_le32(f.p + 40);
	assert_int_equal(get_le32(f.p + 48), (uint32_t)crc32(0, f.p + 56, (uInt)csize0));
	assert_int_equal(get_le32(f.p + 52), (uint32_t)crc32(0, f.p + 32, 20));
	/* zstd frame magic 0xFD2FB528, little-endian; checksum flag set in the descriptor */
	assert_memory_equal(f.p + 56, "\x28\xb5\x2f\xfd", 4);
	assert_true(f.p[60] & 0x04);
	assert_int_equal(ZSTD_decompress(u, sizeof(u), f.p + 56, csize0), 22);
	assert_memory_equal(u, "\x01\x00\x00\x00\x0e\x00\x00\x00", 8); /* META, flags 0, len 14 */
	assert_memory_equal(u + 8, "\x00\x00\x00\x00", 4);             /* run_id 0 */
	assert_memory_equal(u + 20, "{}", 2);

	/* chunk 1: seq 1, usize = 8 + 20 + 44 = 72 */
	c1 = 24 + 32 + csize0;
	assert_memory_equal(f.p + c1, "\x5b\x2a\x4d\x18\x18\x00\x00\x00PMCK\x01\x00\x00\x00", 16);
	assert_memory_equal(f.p + c1 + 20, "\x48\x00\x00\x00", 4);
	csize1 = get_le32(f.p + c1 + 16);
	assert_int_equal(f.n, c1 + 32 + csize1);
	assert_int_equal(ZSTD_decompress(u, sizeof(u), f.p + c1 + 32, csize1), 72);
	assert_memory_equal(u, "\x04\x00\x00\x00\x40\x00\x00\x00", 8); /* SAMPLE, len 64 */
	assert_memory_equal(u + 8, "\x44\x33\x22\x11", 4);
	assert_memory_equal(u + 12, "\x08\x07\x06\x05\x04\x03\x02\x01", 8);
	assert_memory_equal(u + 20, "\x99\x00\x00\x00\x01\x00\x00\x00", 8); /* duration, n */
	assert_memory_equal(u + 28, "\x01\x02\x03\x04\x05\x06\x07\x08", 8); /* tid, tgid */
	assert_memory_equal(u + 36, "\x11\x12\x13\x14\x15\x16\x17\x18", 8); /* run_ns */
	assert_memory_equal(u + 60, "\xa4\xa3\xa2\xa1\x05\x00\x00\x00", 8); /* nvcsw, nivcsw */
	assert_memory_equal(u + 68, "\xff\xff\x3f\x04", 4);                 /* cpu, '?', flags */
	buf_free(&f);
}

/* ---- writer errors ---- */

static void test_writer_cuts_back_after_write_error(void **state)
{
	char path[PATH_MAX];
	struct pmt_thread_sample t[16];
	struct pmt_sample s = { .run_id = 1, .n = 16, .threads = t };
	struct pmt_writer_opts opts = { .chunk_bytes = 1u << 20 };
	struct pmt_writer *w = NULL;
	struct rlimit old, lim;
	struct stat st;
	uint64_t x = 88172645463325252ull;
	int fd, rc = 0, flushed = 0, saved, written_ok;

	(void)state;
	snprintf(path, sizeof(path), "%s/fsize.pmt", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(pmt_writer_open(&w, fd, meta_json, &opts), 0);

	/* files may grow to 4000 bytes: the chunk that crosses it is written short, then EFBIG */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 4000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (int i = 0; i < 100 && rc == 0; i++) {
		for (int k = 0; k < 16; k++) { /* xorshift: barely compressible */
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			t[k] = (struct pmt_thread_sample){ .tid = (uint32_t)x, .run_ns = x, .wait_ns = ~x,
							   .state = 'R' };
		}
		s.t_ns = (uint64_t)i;
		rc = pmt_writer_sample(w, &s);
		if (rc == 0)
			rc = pmt_writer_flush(w);
		if (rc == 0)
			flushed++;
	}
	saved = pmt_writer_errno(w);
	written_ok = fstat(fd, &st) == 0;
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, SIG_DFL);

	assert_int_equal(rc, PMT_E_IO);
	assert_int_equal(saved, EFBIG);
	assert_true(flushed >= 1);
	assert_true(written_ok);
	/* the partial chunk is gone: the file ends with the last complete chunk */
	assert_int_equal(st.st_size, pmt_writer_bytes(w));
	assert_true(st.st_size < 4000);
	{
		struct pmt_reader *r = NULL;
		struct pmt_record rec;
		struct pmt_reader_stats rs;
		int n = 0;
		assert_int_equal(pmt_reader_open(&r, path, -1, 0), 0);
		while (pmt_reader_next(r, &rec) == 1)
			n++;
		pmt_reader_stats(r, &rs);
		assert_int_equal(n, flushed);
		assert_int_equal(rs.truncated, 0);
		assert_int_equal(rs.chunks, (uint64_t)flushed + 1);
		pmt_reader_close(r);
	}
	/* with room again, the pending sample is retried by close and the trace is whole */
	assert_int_equal(pmt_writer_close(w), 0);
	close(fd);
	{
		struct pmt_reader *r = NULL;
		struct pmt_record rec;
		struct pmt_reader_stats rs;
		int n = 0;
		assert_int_equal(pmt_reader_open(&r, path, -1, 0), 0);
		while (pmt_reader_next(r, &rec) == 1) {
			assert_int_equal(rec.u.sample.t_ns, (uint64_t)n);
			n++;
		}
		pmt_reader_stats(r, &rs);
		assert_int_equal(n, flushed + 1);
		assert_int_equal(rs.seq_gaps, 0);
		assert_int_equal(rs.truncated, 0);
		pmt_reader_close(r);
	}
}

static void test_writer_rejects_bad_arguments(void **state)
{
	struct pmt_thread_sample t = { 0 };
	struct pmt_sample s = { .n = 1, .threads = NULL };
	struct pmt_task_event e = { .comm = "a\0b", .comm_len = 3 };
	struct pmt_counters c = { .n = PMT_MAX_COUNTERS + 1, .values = counter_values };
	struct pmt_writer *w = NULL;
	int fd = memfd_create("pmt-args", MFD_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pmt_writer_open(NULL, fd, "{}", NULL), PMT_E_INVAL);
	assert_int_equal(pmt_writer_open(&w, -1, "{}", NULL), PMT_E_INVAL);
	assert_int_equal(pmt_writer_open(&w, fd, NULL, NULL), PMT_E_INVAL);
	assert_null(w);
	assert_int_equal(pmt_writer_open(&w, fd, "{}", NULL), 0);
	assert_int_equal(pmt_writer_sample(w, &s), PMT_E_INVAL);
	s.threads = &t;
	s.n = PMT_MAX_SAMPLE_THREADS + 1;
	assert_int_equal(pmt_writer_sample(w, &s), PMT_E_LIMIT);
	assert_int_equal(pmt_writer_task(w, &e), PMT_E_INVAL); /* NUL in comm */
	e.comm = comm64;
	e.comm_len = PMT_COMM_MAX + 1;
	assert_int_equal(pmt_writer_task(w, &e), PMT_E_LIMIT);
	assert_int_equal(pmt_writer_counters(w, &c), PMT_E_LIMIT);
	assert_int_equal(pmt_writer_json(w, PMT_REC_META, 0, 0, "{}"), PMT_E_INVAL);
	assert_int_equal(pmt_writer_json(w, PMT_REC_SAMPLE, 0, 0, "{}"), PMT_E_INVAL);
	assert_int_equal(pmt_writer_json(w, PMT_REC_WARNING, 0, 0, NULL), PMT_E_INVAL);
	assert_int_equal(pmt_writer_raw(w, 0x8001, NULL, 3), PMT_E_INVAL);
	assert_int_equal(pmt_writer_raw(w, 0x8002, opaque, PMT_MAX_CHUNK_BYTES), PMT_E_LIMIT);
	/* nothing was appended by the refused calls */
	assert_int_equal(pmt_writer_flush(w), 0);
	assert_int_equal(pmt_writer_bytes(w), lseek(fd, 0, SEEK_CUR));
	assert_int_equal(pmt_writer_close(w), 0);
	assert_int_equal(pmt_writer_close(NULL), 0);
	pmt_reader_close(NULL);
	close(fd);
}

static void test_reader_rejects_bad_arguments(void **state)
{
	struct pmt_reader *r = (struct pmt_reader *)&r;
	struct pmt_reader_stats st;

	(void)state;
	assert_int_equal(pmt_reader_open(NULL, NULL, 0, 0), PMT_E_INVAL);
	assert_int_equal(pmt_reader_open(&r, NULL, -1, 0), PMT_E_INVAL);
	assert_null(r);
	assert_int_equal(pmt_reader_next(NULL, NULL), PMT_E_INVAL);
	memset(&st, 0xff, sizeof(st));
	pmt_reader_stats(NULL, &st);
	assert_int_equal(st.chunks, 0);
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(pmt_strerror(PMT_E_NOT_TRACE), "not a pmtrace file");
	assert_string_equal(pmt_strerror(12345), "unknown error");
	for (int e = PMT_E_NO_META; e <= PMT_OK; e++)
		assert_string_not_equal(pmt_strerror(e), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all_types),
		cmocka_unit_test(test_sample_zero_threads),
		cmocka_unit_test(test_energy_roundtrip),
		cmocka_unit_test(test_roundtrip_large_samples),
		cmocka_unit_test(test_reader_on_pipe),
		cmocka_unit_test(test_writer_on_pipe),
		cmocka_unit_test(test_open_by_path),
		cmocka_unit_test(test_truncation_every_length),
		cmocka_unit_test(test_flip_every_byte),
		cmocka_unit_test(test_flip_every_byte_salvage),
		cmocka_unit_test(test_salvage_garbage_between_chunks),
		cmocka_unit_test(test_unknown_optional_skipped),
		cmocka_unit_test(test_unknown_optional_raw),
		cmocka_unit_test(test_unknown_required_refused),
		cmocka_unit_test(test_major_version_refused),
		cmocka_unit_test(test_minor_version_accepted),
		cmocka_unit_test(test_header_crc_checked),
		cmocka_unit_test(test_wrong_magic),
		cmocka_unit_test(test_first_record_not_meta),
		cmocka_unit_test(test_chunk_csize_over_limit),
		cmocka_unit_test(test_sample_n_exceeds_body),
		cmocka_unit_test(test_count_fields_over_limit),
		cmocka_unit_test(test_body_shorter_than_fixed_part),
		cmocka_unit_test(test_reserved_tail_ignored),
		cmocka_unit_test(test_record_len_past_chunk),
		cmocka_unit_test(test_malformed_record_salvage),
		cmocka_unit_test(test_payload_content_size_checked),
		cmocka_unit_test(test_seq_in_order),
		cmocka_unit_test(test_seq_swap_counted),
		cmocka_unit_test(test_seq_duplicate_counted),
		cmocka_unit_test(test_seq_missing_counted),
		cmocka_unit_test(test_little_endian_layout),
		cmocka_unit_test(test_omp_region_roundtrip),
		cmocka_unit_test(test_omp_counters_roundtrip),
		cmocka_unit_test(test_writer_cuts_back_after_write_error),
		cmocka_unit_test(test_writer_rejects_bad_arguments),
		cmocka_unit_test(test_reader_rejects_bad_arguments),
		cmocka_unit_test(test_strerror),
	};
	if (setup_fixture(NULL) != 0)
		return 1;
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
