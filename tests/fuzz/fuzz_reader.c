/* SPDX-License-Identifier: MIT */
/* fuzz_reader.c: libFuzzer target that reads arbitrary bytes as a pmtrace file (formats/pmt_reader.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "pmt_internal.h"

/* The first input byte picks how the rest becomes a file. Random bytes almost never pass the
 * CRCs and zstd's checksum, so modes 1 and 2 make the inner layers reachable:
 *   0: the rest is the file, as is;
 *   1: the rest is the file with its header and chunk CRCs recomputed (reaches the zstd decoder;
 *      either framing, FORMAT.md §2);
 *   2: the rest is a list of chunk bodies, each a u16 length then the bytes, which are compressed
 *      and framed here (reaches the record decoder with arbitrary records): as format 1 when
 *      (first byte / 3) is even, as format 2 (headers in zstd skippable frames) when odd. */
enum { MODE_RAW, MODE_FIX_CRC, MODE_RECORDS, MODES };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touches every byte a record points at, so the sanitizers see any pointer past its buffer. */
static uint64_t consume(const struct pmt_record *rec)
{
	uint64_t h = rec->type ^ rec->chunk_seq;

	switch (rec->type) {
	case PMT_REC_META:
	case PMT_REC_RUN_BEGIN:
	case PMT_REC_RUN_END:
	case PMT_REC_SUMMARY:
	case PMT_REC_WARNING:
		h += rec->u.json.run_id + rec->u.json.t_ns + rec->u.json.len;
		for (uint32_t i = 0; i <= rec->u.json.len; i++) /* including the NUL the reader adds */
			h = h * 31 + (uint8_t)rec->u.json.text[i];
		break;
	case PMT_REC_SAMPLE:
		h += rec->u.sample.run_id + rec->u.sample.t_ns + rec->u.sample.duration_ns;
		for (uint32_t i = 0; i < rec->u.sample.n; i++) {
			const struct pmt_thread_sample *t = &rec->u.sample.threads[i];
			h = h * 31 + t->tid + t->tgid + t->run_ns + t->wait_ns + t->timeslices + t->nvcsw +
			    t->nivcsw + t->cpu + (uint8_t)t->state + t->flags;
		}
		break;
	case PMT_REC_TASK:
		h += rec->u.task.tid + rec->u.task.final_run_ns + (uint32_t)rec->u.task.exit_status;
		for (uint32_t i = 0; i <= rec->u.task.comm_len; i++)
			h = h * 31 + (uint8_t)rec->u.task.comm[i];
		break;
	case PMT_REC_COUNTERS:
		for (uint32_t i = 0; i < rec->u.counters.n; i++)
			h = h * 31 + (uint64_t)rec->u.counters.values[i];
		break;
	case PMT_REC_SCHED:
		h += rec->u.sched.run_id + rec->u.sched.cpu + rec->u.sched.missed;
		for (uint32_t i = 0; i < rec->u.sched.n; i++) {
			const struct pmt_sched_event *e = &rec->u.sched.events[i];
			h = h * 31 + e->t_ns + e->kind + e->ctx + e->cpu + e->common_pid + e->a + e->b + e->c;
		}
		break;
	default:
		for (uint32_t i = 0; i < rec->u.raw.len; i++)
			h = h * 31 + rec->u.raw.body[i];
		break;
	}
	return h;
}

static void read_all(int fd, unsigned flags)
{
	static volatile uint64_t sink;
	struct pmt_reader *r = NULL;
	struct pmt_reader_stats st;
	struct pmt_record rec;
	const char *meta;
	int rc;

	if (lseek(fd, 0, SEEK_SET) != 0)
		__builtin_trap();
	rc = pmt_reader_open(&r, NULL, fd, flags);
	if (rc != 0) {
		if (r != NULL || rc >= 0 || pmt_strerror(rc)[0] == '\0')
			__builtin_trap();
		return;
	}
	meta = pmt_reader_meta(r);
	sink = sink + strlen(meta);
	while ((rc = pmt_reader_next(r, &rec)) == 1)
		sink = sink + consume(&rec);
	if (rc > 0 || pmt_reader_next(r, &rec) != rc) /* the end and errors are sticky */
		__builtin_trap();
	pmt_reader_stats(r, &st);
	if (rc == 0 && !(flags & PMT_READ_SALVAGE) && st.chunks_bad != 0)
		__builtin_trap();
	pmt_reader_close(r);
}

static void fix_crcs(uint8_t *p, size_t n)
{
	unsigned major = pmt_major_of(p, n) == 2 ? 2 : 1;
	size_t at = pmt_file_header_bytes(major), hb = pmt_chunk_header_bytes(major);
	size_t fa = pmt_header_fields_at(major);
	const uint8_t *magic = major == 2 ? pmt_chunk_magic_v2 : pmt_chunk_magic;
	size_t mlen = major == 2 ? sizeof(pmt_chunk_magic_v2) : sizeof(pmt_chunk_magic);

	if (n < at)
		return;
	put_le32(p + fa + 12, (uint32_t)crc32(0, p + fa, 12));
	while (at + hb <= n && memcmp(p + at, magic, mlen) == 0) {
		uint8_t *h = p + at + fa;
		uint32_t csize = get_le32(h + 8);
		if (csize > n - at - hb)
			csize = (uint32_t)(n - at - hb);
		put_le32(h + 16, (uint32_t)crc32(0, p + at + hb, csize));
		put_le32(h + 20, (uint32_t)crc32(0, h, 20));
		at += hb + (size_t)get_le32(h + 8);
	}
}

/* Length of the next chunk body in mode 2: a u16 prefix, cut to the bytes that remain. */
static size_t body_len(const uint8_t *p, size_t left)
{
	size_t len = (size_t)p[0] | (size_t)p[1] << 8;
	return len > left - 2 ? left - 2 : len;
}

/* Mode 2: frames the chunk bodies of d as a valid file of format major (1 or 2) in *out
 * (malloc'd); returns its size. */
static size_t frame_records(const uint8_t *d, size_t n, unsigned major, uint8_t **out)
{
	static ZSTD_CCtx *cctx;
	const uint8_t *p = d;
	const size_t hb = pmt_chunk_header_bytes(major), fa = pmt_header_fields_at(major);
	size_t left = n, cap = pmt_file_header_bytes(major), o = cap;
	uint32_t seq = 0;
	uint8_t *f;

	if (!cctx) {
		cctx = ZSTD_createCCtx();
		if (!cctx || ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)))
			__builtin_trap();
	}
	while (left >= 2) {
		size_t len = body_len(p, left);
		cap += hb + ZSTD_compressBound(len);
		p += 2 + len;
		left -= 2 + len;
	}
	f = malloc(cap);
	if (!f)
		__builtin_trap();
	if (major == 2)
		memcpy(f, pmt_file_magic_v2, sizeof(pmt_file_magic_v2));
	else
		memcpy(f, pmt_file_magic, sizeof(pmt_file_magic));
	put_le32(f + fa + 8, major); /* major, minor 0 */
	put_le32(f + fa + 12, (uint32_t)crc32(0, f + fa, 12));
	for (p = d, left = n; left >= 2;) {
		size_t len = body_len(p, left);
		uint8_t *h = f + o + fa;
		size_t csize = ZSTD_compress2(cctx, f + o + hb, cap - o - hb, p + 2, len);
		if (ZSTD_isError(csize))
			__builtin_trap();
		if (major == 2)
			memcpy(f + o, pmt_chunk_magic_v2, SKIPPABLE_HEADER_BYTES);
		memcpy(h, pmt_chunk_magic, 4);
		put_le32(h + 4, seq++);
		put_le32(h + 8, (uint32_t)csize);
		put_le32(h + 12, (uint32_t)len);
		put_le32(h + 16, (uint32_t)crc32(0, f + o + hb, (uInt)csize));
		put_le32(h + 20, (uint32_t)crc32(0, h, 20));
		o += hb + csize;
		p += 2 + len;
		left -= 2 + len;
	}
	*out = f;
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	uint8_t *buf = NULL;
	const uint8_t *file;
	size_t n, done = 0;
	int mode;

	if (size < 1)
		return 0;
	mode = data[0] % MODES;
	file = data + 1;
	n = size - 1;
	if (mode == MODE_FIX_CRC) {
		buf = malloc(n ? n : 1);
		if (!buf)
			__builtin_trap();
		memcpy(buf, file, n);
		fix_crcs(buf, n);
		file = buf;
	} else if (mode == MODE_RECORDS) {
		n = frame_records(file, n, (data[0] / MODES) % 2 ? 2 : 1, &buf);
		file = buf;
	}
	if (fd < 0) {
		fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
		if (fd < 0)
			__builtin_trap();
	}
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0)
		__builtin_trap();
	while (done < n) {
		ssize_t k = write(fd, file + done, n - done);
		if (k <= 0)
			__builtin_trap();
		done += (size_t)k;
	}
	read_all(fd, 0);
	read_all(fd, PMT_READ_SALVAGE);
	read_all(fd, PMT_READ_SALVAGE | PMT_READ_RAW);
	free(buf);
	return 0;
}
