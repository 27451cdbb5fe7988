/* SPDX-License-Identifier: MIT */
/* pmt.c: the pmtrace writer and streaming reader (byte layout in formats/FORMAT.md). */
#include "pmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define FILE_HEADER_BYTES 16u
#define CHUNK_HEADER_BYTES 24u
#define RECORD_HEADER_BYTES 8u
#define JSON_FIXED_BYTES 12u
#define SAMPLE_FIXED_BYTES 20u
#define THREAD_ENTRY_BYTES 44u
#define TASK_FIXED_BYTES 48u
#define COUNTERS_FIXED_BYTES 16u
#define SCHED_FIXED_BYTES 16u
#define SCHED_ENTRY_BYTES 28u

/* The writer never builds a chunk larger than this (uncompressed), so that even zstd's worst-case
 * expansion (ZSTD_compressBound, about +0.4%) keeps csize within PMT_MAX_CHUNK_BYTES. */
#define WRITER_MAX_USIZE (PMT_MAX_CHUNK_BYTES - (1u << 20))
#define WRITER_DEFAULT_CHUNK_BYTES (1u << 20)
#define WRITER_DEFAULT_LEVEL 3

/* Reader input buffer: initial size, and the free space below which it is compacted before a
 * read() so reads stay large. */
#define IN_INITIAL_BYTES (256u << 10)
#define IN_MIN_READ_BYTES (64u << 10)

static const uint8_t file_magic[8] = { 0x89, 'P', 'M', 'T', '\r', '\n', 0x1a, '\n' };
static const uint8_t chunk_magic[4] = { 'P', 'M', 'C', 'K' };

/* ---- little-endian helpers (FORMAT.md §1: nothing in the file is native-endian) ---- */

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	/* n <= 24 + PMT_MAX_CHUNK_BYTES, so it fits zlib's uInt */
	return (uint32_t)crc32(0L, p, (uInt)n);
}

static int is_json_type(uint16_t type)
{
	return type == PMT_REC_META || type == PMT_REC_RUN_BEGIN || type == PMT_REC_RUN_END ||
	       type == PMT_REC_SUMMARY || type == PMT_REC_WARNING;
}

/* The field behind this thread's last reader PMT_E_LIMIT (pmt_limit_detail()). Thread-local like
 * errno, because pmt_reader_open() frees the reader when it fails. */
static __thread char limit_detail[96];

/* Records which field broke its limit (FORMAT.md §7) and returns PMT_E_LIMIT. */
static int limit_error(const char *field, uint64_t value, uint64_t max)
{
	snprintf(limit_detail, sizeof(limit_detail), "%s %llu > %llu", field,
		 (unsigned long long)value, (unsigned long long)max);
	return PMT_E_LIMIT;
}

const char *pmt_limit_detail(void)
{
	return limit_detail;
}

const char *pmt_strerror(int err)
{
	switch (err) {
	case PMT_OK: return "success";
	case PMT_E_IO: return "input/output error";
	case PMT_E_NOMEM: return "out of memory";
	case PMT_E_NOT_TRACE: return "not a pmtrace file";
	case PMT_E_VERSION: return "unsupported pmtrace major version";
	case PMT_E_CORRUPT: return "corrupt trace data";
	case PMT_E_TRUNCATED: return "trace ends inside its header or first chunk";
	case PMT_E_UNKNOWN: return "unknown required record type";
	case PMT_E_LIMIT: return "size field exceeds a format limit";
	case PMT_E_INVAL: return "invalid argument";
	case PMT_E_ZSTD: return "zstd compression failed";
	case PMT_E_NO_META: return "trace does not start with a metadata record";
	default: return "unknown error";
	}
}

/* ---- writer ---- */

struct pmt_writer {
	int fd;
	int seekable;    /* fd supports lseek/ftruncate: a failed chunk can be cut off */
	int broken;      /* part of a chunk is stuck in a non-seekable fd: refuse further writes */
	int err;         /* errno of the last PMT_E_IO */
	off_t start;     /* offset of the file header in fd (0 when not seekable) */
	uint64_t bytes;  /* header and complete chunks written */
	uint32_t seq;    /* sequence number of the next chunk */
	uint32_t chunk_bytes;
	ZSTD_CCtx *cctx;
	uint8_t *ubuf;   /* records of the pending chunk */
	size_t ulen, ucap;
	uint8_t *cbuf;   /* chunk header + compressed payload, written with one write loop */
	size_t ccap;
};

/* Writes n bytes with a loop over short writes and EINTR. On failure cuts the file back to the
 * end of the last complete chunk (FORMAT.md §4.3) and keeps errno in w->err. */
static int writer_write(struct pmt_writer *w, const uint8_t *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = write(w->fd, p + done, n - done);
		if (k > 0) {
			done += (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		/* write() returning 0 for a non-empty buffer would loop forever; call it EIO */
		w->err = k < 0 ? errno : EIO;
		goto fail;
	}
	return 0;
fail:
	if (done > 0) {
		int cut = 0;
		if (w->seekable) {
			off_t end = w->start + (off_t)w->bytes;
			cut = ftruncate(w->fd, end) == 0 && lseek(w->fd, end, SEEK_SET) == end;
		}
		/* Bytes of a partial chunk we cannot remove would make every later chunk unreadable
		 * without salvage: stop writing instead. */
		if (!cut)
			w->broken = 1;
	}
	return PMT_E_IO;
}

int pmt_writer_flush(struct pmt_writer *w)
{
	size_t bound, csize;
	uint8_t *h;
	int rc;

	if (!w)
		return PMT_E_INVAL;
	if (w->ulen == 0)
		return 0;
	if (w->broken)
		return PMT_E_IO;
	bound = CHUNK_HEADER_BYTES + ZSTD_compressBound(w->ulen);
	if (bound > w->ccap) {
		uint8_t *nb = malloc(bound);
		if (!nb)
			return PMT_E_NOMEM;
		free(w->cbuf);
		w->cbuf = nb;
		w->ccap = bound;
	}
	csize = ZSTD_compress2(w->cctx, w->cbuf + CHUNK_HEADER_BYTES, w->ccap - CHUNK_HEADER_BYTES,
			       w->ubuf, w->ulen);
	if (ZSTD_isError(csize))
		return PMT_E_ZSTD;
	if (csize > PMT_MAX_CHUNK_BYTES) /* impossible with WRITER_MAX_USIZE; never write it */
		return PMT_E_LIMIT;
	h = w->cbuf;
	memcpy(h, chunk_magic, 4);
	put_le32(h + 4, w->seq);
	put_le32(h + 8, (uint32_t)csize);
	put_le32(h + 12, (uint32_t)w->ulen);
	put_le32(h + 16, crc32_of(h + CHUNK_HEADER_BYTES, csize));
	put_le32(h + 20, crc32_of(h, 20));
	/* On failure the records stay pending, so a later flush may retry them. */
	rc = writer_write(w, h, CHUNK_HEADER_BYTES + csize);
	if (rc)
		return rc;
	w->bytes += CHUNK_HEADER_BYTES + csize;
	w->seq++;
	w->ulen = 0;
	return 0;
}

/* Appends a record header for a body of len bytes to the pending chunk (flushing it first when
 * the record would not fit in one chunk) and points *body at the len bytes to fill. */
static int writer_reserve(struct pmt_writer *w, uint16_t type, uint32_t len, uint8_t **body)
{
	size_t need = RECORD_HEADER_BYTES + (size_t)len;
	uint8_t *p;
	int rc;

	if (need > WRITER_MAX_USIZE)
		return PMT_E_LIMIT;
	if (w->broken)
		return PMT_E_IO;
	if (w->ulen + need > WRITER_MAX_USIZE) {
		rc = pmt_writer_flush(w);
		if (rc)
			return rc;
	}
	if (w->ulen + need > w->ucap) {
		size_t ncap = w->ucap ? w->ucap * 2 : 4096;
		uint8_t *nb;
		if (ncap < w->ulen + need)
			ncap = w->ulen + need;
		if (ncap > WRITER_MAX_USIZE)
			ncap = WRITER_MAX_USIZE;
		nb = realloc(w->ubuf, ncap);
		if (!nb)
			return PMT_E_NOMEM;
		w->ubuf = nb;
		w->ucap = ncap;
	}
	p = w->ubuf + w->ulen;
	put_le16(p, type);
	put_le16(p + 2, 0); /* flags: reserved, written 0 (FORMAT.md §5.1) */
	put_le32(p + 4, len);
	w->ulen += need;
	*body = p + RECORD_HEADER_BYTES;
	return 0;
}

/* Called after a record body is filled: flushes the chunk once it reached chunk_bytes. */
static int writer_commit(struct pmt_writer *w)
{
	return w->ulen >= w->chunk_bytes ? pmt_writer_flush(w) : 0;
}

static int writer_json_record(struct pmt_writer *w, uint16_t type, uint32_t run_id, uint64_t t_ns,
			      const char *json, size_t len)
{
	uint8_t *b;
	int rc = writer_reserve(w, type, (uint32_t)(JSON_FIXED_BYTES + len), &b);

	if (rc)
		return rc;
	put_le32(b, run_id);
	put_le64(b + 4, t_ns);
	memcpy(b + JSON_FIXED_BYTES, json, len);
	return writer_commit(w);
}

int pmt_writer_open(struct pmt_writer **out, int fd, const char *meta_json,
		    const struct pmt_writer_opts *opts)
{
	struct pmt_writer *w = NULL;
	uint8_t hdr[FILE_HEADER_BYTES];
	int level = WRITER_DEFAULT_LEVEL;
	uint32_t chunk_bytes = WRITER_DEFAULT_CHUNK_BYTES;
	size_t meta_len;
	struct timespec ts;
	uint64_t t_ns = 0;
	int rc, saved_errno = 0;

	if (!out)
		return PMT_E_INVAL;
	*out = NULL;
	if (fd < 0 || !meta_json)
		return PMT_E_INVAL;
	if (opts) {
		if (opts->zstd_level)
			level = opts->zstd_level;
		if (opts->chunk_bytes)
			chunk_bytes = opts->chunk_bytes;
	}
	if (chunk_bytes > WRITER_MAX_USIZE)
		chunk_bytes = WRITER_MAX_USIZE;
	meta_len = strnlen(meta_json, (size_t)PMT_MAX_JSON_BYTES + 1);
	if (meta_len > PMT_MAX_JSON_BYTES)
		return PMT_E_LIMIT;

	w = calloc(1, sizeof(*w));
	if (!w)
		return PMT_E_NOMEM;
	w->fd = fd;
	w->chunk_bytes = chunk_bytes;
	w->start = lseek(fd, 0, SEEK_CUR);
	w->seekable = w->start >= 0;
	if (!w->seekable)
		w->start = 0;
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx) {
		rc = PMT_E_NOMEM;
		goto out;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1))) {
		rc = PMT_E_INVAL;
		goto out;
	}

	memcpy(hdr, file_magic, sizeof(file_magic));
	put_le16(hdr + 8, PMT_FORMAT_MAJOR);
	put_le16(hdr + 10, PMT_FORMAT_MINOR);
	put_le32(hdr + 12, crc32_of(hdr, 12));
	rc = writer_write(w, hdr, sizeof(hdr));
	if (rc)
		goto out;
	w->bytes = FILE_HEADER_BYTES;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		t_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	rc = writer_json_record(w, PMT_REC_META, 0, t_ns, meta_json, meta_len);
	if (rc == 0)
		rc = pmt_writer_flush(w);
out:
	if (rc) {
		saved_errno = w->err;
		/* leave no half-written header behind: without chunk 0 the file is unreadable */
		if (w->seekable && w->bytes > 0 && ftruncate(fd, w->start) == 0)
			(void)lseek(fd, w->start, SEEK_SET);
		w->ulen = 0;
		pmt_writer_close(w);
		if (rc == PMT_E_IO)
			errno = saved_errno;
		return rc;
	}
	*out = w;
	return 0;
}

int pmt_writer_sample(struct pmt_writer *w, const struct pmt_sample *s)
{
	uint8_t *b;
	int rc;

	if (!w || !s || (s->n && !s->threads))
		return PMT_E_INVAL;
	if (s->n > PMT_MAX_SAMPLE_THREADS)
		return PMT_E_LIMIT;
	rc = writer_reserve(w, PMT_REC_SAMPLE, SAMPLE_FIXED_BYTES + THREAD_ENTRY_BYTES * s->n, &b);
	if (rc)
		return rc;
	put_le32(b, s->run_id);
	put_le64(b + 4, s->t_ns);
	put_le32(b + 12, s->duration_ns);
	put_le32(b + 16, s->n);
	b += SAMPLE_FIXED_BYTES;
	for (uint32_t i = 0; i < s->n; i++, b += THREAD_ENTRY_BYTES) {
		const struct pmt_thread_sample *t = &s->threads[i];
		put_le32(b, t->tid);
		put_le32(b + 4, t->tgid);
		put_le64(b + 8, t->run_ns);
		put_le64(b + 16, t->wait_ns);
		put_le64(b + 24, t->timeslices);
		put_le32(b + 32, t->nvcsw);
		put_le32(b + 36, t->nivcsw);
		put_le16(b + 40, t->cpu);
		b[42] = (uint8_t)t->state;
		b[43] = t->flags;
	}
	return writer_commit(w);
}

int pmt_writer_task(struct pmt_writer *w, const struct pmt_task_event *e)
{
	uint8_t *b;
	int rc;

	if (!w || !e || (e->comm_len && !e->comm))
		return PMT_E_INVAL;
	if (e->comm_len > PMT_COMM_MAX)
		return PMT_E_LIMIT;
	/* FORMAT.md §5.4: comm may contain any byte but NUL */
	if (e->comm_len && memchr(e->comm, '\0', e->comm_len))
		return PMT_E_INVAL;
	rc = writer_reserve(w, PMT_REC_TASK, TASK_FIXED_BYTES + e->comm_len, &b);
	if (rc)
		return rc;
	put_le32(b, e->run_id);
	put_le64(b + 4, e->t_ns);
	b[12] = e->kind;
	b[13] = e->flags;
	put_le16(b + 14, (uint16_t)e->comm_len);
	put_le32(b + 16, e->tid);
	put_le32(b + 20, e->tgid);
	put_le32(b + 24, e->ppid);
	put_le32(b + 28, (uint32_t)e->exit_status);
	put_le64(b + 32, e->final_run_ns);
	put_le64(b + 40, e->final_wait_ns);
	if (e->comm_len)
		memcpy(b + TASK_FIXED_BYTES, e->comm, e->comm_len);
	return writer_commit(w);
}

int pmt_writer_counters(struct pmt_writer *w, const struct pmt_counters *c)
{
	uint8_t *b;
	int rc;

	if (!w || !c || (c->n && !c->values))
		return PMT_E_INVAL;
	if (c->n > PMT_MAX_COUNTERS)
		return PMT_E_LIMIT;
	rc = writer_reserve(w, PMT_REC_COUNTERS, COUNTERS_FIXED_BYTES + 8 * c->n, &b);
	if (rc)
		return rc;
	put_le32(b, c->run_id);
	put_le64(b + 4, c->t_ns);
	put_le32(b + 12, c->n);
	for (uint32_t i = 0; i < c->n; i++)
		put_le64(b + COUNTERS_FIXED_BYTES + 8 * i, (uint64_t)c->values[i]);
	return writer_commit(w);
}

int pmt_writer_sched(struct pmt_writer *w, const struct pmt_sched_batch *sb)
{
	uint8_t *b;
	int rc;

	if (!w || !sb || (sb->n && !sb->events))
		return PMT_E_INVAL;
	if (sb->n > PMT_MAX_SCHED_EVENTS)
		return PMT_E_LIMIT;
	rc = writer_reserve(w, PMT_REC_SCHED, SCHED_FIXED_BYTES + SCHED_ENTRY_BYTES * sb->n, &b);
	if (rc)
		return rc;
	put_le32(b, sb->run_id);
	put_le16(b + 4, sb->cpu);
	put_le16(b + 6, 0);
	put_le32(b + 8, sb->missed);
	put_le32(b + 12, sb->n);
	b += SCHED_FIXED_BYTES;
	for (uint32_t i = 0; i < sb->n; i++, b += SCHED_ENTRY_BYTES) {
		const struct pmt_sched_event *e = &sb->events[i];
		put_le64(b, e->t_ns);
		b[8] = e->kind;
		b[9] = e->ctx;
		put_le16(b + 10, e->cpu);
		put_le32(b + 12, e->common_pid);
		put_le32(b + 16, e->a);
		put_le32(b + 20, e->b);
		put_le32(b + 24, e->c);
	}
	return writer_commit(w);
}

int pmt_writer_json(struct pmt_writer *w, uint16_t type, uint32_t run_id, uint64_t t_ns,
		    const char *json)
{
	size_t len;

	/* META is written once, by pmt_writer_open */
	if (!w || !json || !is_json_type(type) || type == PMT_REC_META)
		return PMT_E_INVAL;
	len = strnlen(json, (size_t)PMT_MAX_JSON_BYTES + 1);
	if (len > PMT_MAX_JSON_BYTES)
		return PMT_E_LIMIT;
	return writer_json_record(w, type, run_id, t_ns, json, len);
}

int pmt_writer_raw(struct pmt_writer *w, uint16_t type, const void *body, uint32_t len)
{
	uint8_t *b;
	int rc;

	if (!w || (len && !body))
		return PMT_E_INVAL;
	rc = writer_reserve(w, type, len, &b);
	if (rc)
		return rc;
	if (len)
		memcpy(b, body, len);
	return writer_commit(w);
}

uint64_t pmt_writer_bytes(const struct pmt_writer *w)
{
	return w ? w->bytes : 0;
}

int pmt_writer_errno(const struct pmt_writer *w)
{
	return w ? w->err : 0;
}

int pmt_writer_close(struct pmt_writer *w)
{
	int rc;

	if (!w)
		return 0;
	rc = pmt_writer_flush(w);
	ZSTD_freeCCtx(w->cctx);
	free(w->ubuf);
	free(w->cbuf);
	free(w);
	return rc;
}

/* ---- reader ---- */

struct pmt_reader {
	int fd;
	int own_fd;
	unsigned flags;
	int err;            /* sticky error returned by every later pmt_reader_next() */
	int sys_errno;      /* errno of the last PMT_E_IO */
	int at_end;
	unsigned major, minor;
	char *meta;

	/* input: file bytes in[in_pos, in_end) not yet consumed */
	uint8_t *in;
	size_t in_cap, in_pos, in_end;
	int in_eof;

	/* the current chunk, decompressed: records in dbuf[dpos, dlen) not yet returned */
	ZSTD_DCtx *dctx;
	uint8_t *dbuf;
	size_t dcap, dlen, dpos;
	uint32_t seq;
	uint64_t next_seq;  /* sequence number expected for the next chunk */

	/* decoded record storage, reused for every record */
	struct pmt_thread_sample *ts;
	size_t ts_cap;
	char *jbuf;
	size_t jcap;
	char comm[PMT_COMM_MAX + 1];
	int64_t values[PMT_MAX_COUNTERS];
	struct pmt_sched_event *ev;
	size_t ev_cap;

	struct pmt_reader_stats st;
};

/* Makes at least need bytes available at in[in_pos] unless the file ends first (then fewer are).
 * The buffer grows with the data actually read, so a size field claiming 64 MiB in a small file
 * does not allocate 64 MiB. Works on pipes: only read(), never lseek(). */
static int in_fill(struct pmt_reader *r, size_t need)
{
	while (r->in_end - r->in_pos < need && !r->in_eof) {
		size_t have = r->in_end - r->in_pos;
		ssize_t k;

		if (r->in_pos > 0 &&
		    (r->in_cap - r->in_end < IN_MIN_READ_BYTES || r->in_cap - r->in_pos < need)) {
			memmove(r->in, r->in + r->in_pos, have);
			r->in_pos = 0;
			r->in_end = have;
		}
		if (r->in_end == r->in_cap) {
			/* in_pos is 0 here and need > in_cap: grow geometrically, not straight to need */
			size_t ncap = r->in_cap * 2;
			uint8_t *nb;
			if (ncap > need + IN_MIN_READ_BYTES)
				ncap = need + IN_MIN_READ_BYTES;
			nb = realloc(r->in, ncap);
			if (!nb)
				return PMT_E_NOMEM;
			r->in = nb;
			r->in_cap = ncap;
		}
		k = read(r->fd, r->in + r->in_end, r->in_cap - r->in_end);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r->sys_errno = errno;
			return PMT_E_IO;
		}
		if (k == 0) {
			r->in_eof = 1;
			break;
		}
		r->in_end += (size_t)k;
		r->st.bytes_read += (uint64_t)k;
	}
	return 0;
}

/* Checks a chunk header (FORMAT.md §4.3 order: header_crc, then the size limits). */
static int check_chunk_header(const uint8_t *h, uint32_t *seq, uint32_t *csize, uint32_t *usize)
{
	if (memcmp(h, chunk_magic, 4) != 0)
		return PMT_E_CORRUPT;
	if (crc32_of(h, 20) != get_le32(h + 20))
		return PMT_E_CORRUPT;
	*seq = get_le32(h + 4);
	*csize = get_le32(h + 8);
	*usize = get_le32(h + 12);
	if (*csize == 0 || *usize == 0)
		return PMT_E_CORRUPT;
	if (*csize > PMT_MAX_CHUNK_BYTES)
		return limit_error("chunk csize", *csize, PMT_MAX_CHUNK_BYTES);
	if (*usize > PMT_MAX_CHUNK_BYTES)
		return limit_error("chunk usize", *usize, PMT_MAX_CHUNK_BYTES);
	return 0;
}

/* Checks the payload (CRC, one zstd frame with checksum and content size = usize) and
 * decompresses it into dbuf. */
static int decode_payload(struct pmt_reader *r, const uint8_t *payload, uint32_t csize,
			  uint32_t usize, uint32_t crc)
{
	size_t n;

	if (crc32_of(payload, csize) != crc)
		return PMT_E_CORRUPT;
	if (ZSTD_getFrameContentSize(payload, csize) != usize)
		return PMT_E_CORRUPT;
	/* byte 4 is the frame header descriptor; bit 2 = content checksum (RFC 8878 §3.1.1.1.1) */
	if (!(payload[4] & 0x04))
		return PMT_E_CORRUPT;
	if (ZSTD_findFrameCompressedSize(payload, csize) != csize)
		return PMT_E_CORRUPT;
	if (usize > r->dcap) {
		uint8_t *nb = malloc(usize);
		if (!nb)
			return PMT_E_NOMEM;
		free(r->dbuf);
		r->dbuf = nb;
		r->dcap = usize;
	}
	n = ZSTD_decompressDCtx(r->dctx, r->dbuf, usize, payload, csize);
	if (ZSTD_isError(n) || n != usize)
		return PMT_E_CORRUPT;
	return 0;
}

/* Counts sequence numbers missing, repeated or out of order (FORMAT.md §4.3). */
static void note_seq(struct pmt_reader *r, uint32_t seq)
{
	if (seq > r->next_seq)
		r->st.seq_gaps += seq - r->next_seq;
	else if (seq < r->next_seq)
		r->st.seq_gaps++;
	if (seq >= r->next_seq)
		r->next_seq = (uint64_t)seq + 1;
}

/* Salvage: passes over the byte at in_pos, then up to the next "PMCK" or the end of the file. */
static int scan_for_chunk(struct pmt_reader *r)
{
	r->in_pos++;
	r->st.bytes_skipped++;
	for (;;) {
		size_t avail = r->in_end - r->in_pos;
		const uint8_t *p = NULL;
		int rc;

		if (avail >= sizeof(chunk_magic))
			p = memmem(r->in + r->in_pos, avail, chunk_magic, sizeof(chunk_magic));
		if (p) {
			size_t off = (size_t)(p - (r->in + r->in_pos));
			r->in_pos += off;
			r->st.bytes_skipped += off;
			return 0;
		}
		if (r->in_eof) {
			r->in_pos = r->in_end;
			r->st.bytes_skipped += avail;
			return 0;
		}
		/* keep the last 3 bytes: they may begin a magic split across two reads */
		if (avail > 3) {
			r->in_pos += avail - 3;
			r->st.bytes_skipped += avail - 3;
		}
		rc = in_fill(r, r->in_end - r->in_pos + 1);
		if (rc < 0)
			return rc;
	}
}

/* Reads and decompresses the next good chunk into dbuf. Returns 1, 0 at the end of the file
 * (stats.truncated set when it ends inside a chunk) or a negative error. Bad chunks are an
 * error unless salvaging (never for chunk 0, which must hold META). */
static int next_chunk(struct pmt_reader *r, int first)
{
	int scanning = 0;

	for (;;) {
		uint32_t seq = 0, csize = 0, usize = 0;
		const uint8_t *h;
		size_t avail;
		int rc;

		rc = in_fill(r, CHUNK_HEADER_BYTES);
		if (rc < 0)
			return rc;
		avail = r->in_end - r->in_pos;
		if (avail == 0)
			return 0;
		if (avail < CHUNK_HEADER_BYTES) {
			r->st.truncated = 1;
			return 0;
		}
		rc = check_chunk_header(r->in + r->in_pos, &seq, &csize, &usize);
		if (rc == 0) {
			rc = in_fill(r, CHUNK_HEADER_BYTES + (size_t)csize);
			if (rc < 0)
				return rc;
			if (r->in_end - r->in_pos < CHUNK_HEADER_BYTES + (size_t)csize) {
				r->st.truncated = 1;
				return 0;
			}
			h = r->in + r->in_pos;
			rc = decode_payload(r, h + CHUNK_HEADER_BYTES, csize, usize, get_le32(h + 16));
			if (rc == 0) {
				r->in_pos += CHUNK_HEADER_BYTES + (size_t)csize;
				r->dlen = usize;
				r->dpos = 0;
				r->seq = seq;
				note_seq(r, seq);
				r->st.chunks++;
				return 1;
			}
			if (rc == PMT_E_NOMEM)
				return rc;
		}
		if (first || !(r->flags & PMT_READ_SALVAGE))
			return rc;
		/* one bad chunk; the candidates that fail while scanning are part of it */
		if (!scanning) {
			r->st.chunks_bad++;
			scanning = 1;
		}
		rc = scan_for_chunk(r);
		if (rc < 0)
			return rc;
	}
}

static int decode_json(struct pmt_reader *r, const uint8_t *b, uint32_t len, struct pmt_json *j)
{
	uint32_t tlen;

	if (len < JSON_FIXED_BYTES)
		return PMT_E_CORRUPT;
	tlen = len - JSON_FIXED_BYTES;
	if (tlen > PMT_MAX_JSON_BYTES)
		return limit_error("JSON record length", tlen, PMT_MAX_JSON_BYTES);
	if ((size_t)tlen + 1 > r->jcap) {
		size_t ncap = r->jcap ? r->jcap : 256;
		char *nb;
		while (ncap < (size_t)tlen + 1)
			ncap *= 2;
		nb = malloc(ncap);
		if (!nb)
			return PMT_E_NOMEM;
		free(r->jbuf);
		r->jbuf = nb;
		r->jcap = ncap;
	}
	memcpy(r->jbuf, b + JSON_FIXED_BYTES, tlen);
	r->jbuf[tlen] = '\0';
	j->run_id = get_le32(b);
	j->t_ns = get_le64(b + 4);
	j->len = tlen;
	j->text = r->jbuf;
	return 1;
}

/* Makes the reusable entry array *p (capacity *cap) hold n entries of size sz, n <= max (checked
 * by the caller against the record length first, so a size field cannot make us allocate more
 * than the record holds). Contents are not kept. Returns 0 or -1. */
static int reserve_entries(void **p, size_t *cap, size_t n, size_t sz, size_t max)
{
	size_t ncap = *cap * 2;
	void *np;

	if (n <= *cap)
		return 0;
	if (ncap < n)
		ncap = n;
	if (ncap > max)
		ncap = max;
	np = malloc(ncap * sz);
	if (!np)
		return -1;
	free(*p);
	*p = np;
	*cap = ncap;
	return 0;
}

static int decode_sample(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			 struct pmt_sample *s)
{
	struct pmt_thread_sample *t;
	uint32_t n;

	if (len < SAMPLE_FIXED_BYTES)
		return PMT_E_CORRUPT;
	n = get_le32(b + 16);
	if (n > PMT_MAX_SAMPLE_THREADS)
		return limit_error("SAMPLE n", n, PMT_MAX_SAMPLE_THREADS);
	if ((uint64_t)n * THREAD_ENTRY_BYTES > len - SAMPLE_FIXED_BYTES)
		return PMT_E_CORRUPT;
	if (reserve_entries((void **)&r->ts, &r->ts_cap, n, sizeof(*r->ts), PMT_MAX_SAMPLE_THREADS) < 0)
		return PMT_E_NOMEM;
	s->run_id = get_le32(b);
	s->t_ns = get_le64(b + 4);
	s->duration_ns = get_le32(b + 12);
	s->n = n;
	s->threads = r->ts;
	t = r->ts;
	b += SAMPLE_FIXED_BYTES;
	for (uint32_t i = 0; i < n; i++, b += THREAD_ENTRY_BYTES) {
		t[i].tid = get_le32(b);
		t[i].tgid = get_le32(b + 4);
		t[i].run_ns = get_le64(b + 8);
		t[i].wait_ns = get_le64(b + 16);
		t[i].timeslices = get_le64(b + 24);
		t[i].nvcsw = get_le32(b + 32);
		t[i].nivcsw = get_le32(b + 36);
		t[i].cpu = get_le16(b + 40);
		t[i].state = (char)b[42];
		t[i].flags = b[43];
	}
	return 1;
}

static int decode_task(struct pmt_reader *r, const uint8_t *b, uint32_t len,
		       struct pmt_task_event *e)
{
	uint16_t comm_len;

	if (len < TASK_FIXED_BYTES)
		return PMT_E_CORRUPT;
	comm_len = get_le16(b + 14);
	if (comm_len > PMT_COMM_MAX)
		return limit_error("TASK comm_len", comm_len, PMT_COMM_MAX);
	if (TASK_FIXED_BYTES + (uint32_t)comm_len > len)
		return PMT_E_CORRUPT;
	e->run_id = get_le32(b);
	e->t_ns = get_le64(b + 4);
	e->kind = b[12];
	e->flags = b[13];
	e->tid = get_le32(b + 16);
	e->tgid = get_le32(b + 20);
	e->ppid = get_le32(b + 24);
	e->exit_status = (int32_t)get_le32(b + 28);
	e->final_run_ns = get_le64(b + 32);
	e->final_wait_ns = get_le64(b + 40);
	memcpy(r->comm, b + TASK_FIXED_BYTES, comm_len);
	r->comm[comm_len] = '\0';
	e->comm_len = comm_len;
	e->comm = r->comm;
	return 1;
}

static int decode_counters(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			   struct pmt_counters *c)
{
	uint32_t n;

	if (len < COUNTERS_FIXED_BYTES)
		return PMT_E_CORRUPT;
	n = get_le32(b + 12);
	if (n > PMT_MAX_COUNTERS)
		return limit_error("COUNTERS n", n, PMT_MAX_COUNTERS);
	if (COUNTERS_FIXED_BYTES + 8 * n > len)
		return PMT_E_CORRUPT;
	c->run_id = get_le32(b);
	c->t_ns = get_le64(b + 4);
	c->n = n;
	for (uint32_t i = 0; i < n; i++)
		r->values[i] = (int64_t)get_le64(b + COUNTERS_FIXED_BYTES + 8 * i);
	c->values = r->values;
	return 1;
}

static int decode_sched(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			struct pmt_sched_batch *sb)
{
	struct pmt_sched_event *e;
	uint32_t n;

	if (len < SCHED_FIXED_BYTES)
		return PMT_E_CORRUPT;
	n = get_le32(b + 12);
	if (n > PMT_MAX_SCHED_EVENTS)
		return limit_error("SCHED n", n, PMT_MAX_SCHED_EVENTS);
	if ((uint64_t)n * SCHED_ENTRY_BYTES > len - SCHED_FIXED_BYTES)
		return PMT_E_CORRUPT;
	if (reserve_entries((void **)&r->ev, &r->ev_cap, n, sizeof(*r->ev), PMT_MAX_SCHED_EVENTS) < 0)
		return PMT_E_NOMEM;
	sb->run_id = get_le32(b);
	sb->cpu = get_le16(b + 4);
	sb->missed = get_le32(b + 8);
	sb->n = n;
	sb->events = r->ev;
	e = r->ev;
	b += SCHED_FIXED_BYTES;
	for (uint32_t i = 0; i < n; i++, b += SCHED_ENTRY_BYTES) {
		e[i].t_ns = get_le64(b);
		e[i].kind = b[8];
		e[i].ctx = b[9];
		e[i].cpu = get_le16(b + 10);
		e[i].common_pid = get_le32(b + 12);
		e[i].a = get_le32(b + 16);
		e[i].b = get_le32(b + 20);
		e[i].c = get_le32(b + 24);
	}
	return 1;
}

/* Decodes the record at dbuf[dpos]. Returns 1 with *rec filled, 0 when an unknown optional
 * record was skipped, PMT_E_UNKNOWN, or PMT_E_CORRUPT/PMT_E_LIMIT/PMT_E_NOMEM for a record that
 * is malformed (after which the rest of the chunk cannot be trusted). */
static int decode_record(struct pmt_reader *r, struct pmt_record *rec)
{
	const uint8_t *p = r->dbuf + r->dpos;
	size_t left = r->dlen - r->dpos;
	const uint8_t *b;
	uint16_t type;
	uint32_t len;

	if (left < RECORD_HEADER_BYTES)
		return PMT_E_CORRUPT;
	type = get_le16(p);
	/* p + 2: flags, reserved; ignored by 1.x readers (FORMAT.md §5.1) */
	len = get_le32(p + 4);
	if (len > left - RECORD_HEADER_BYTES)
		return PMT_E_CORRUPT;
	b = p + RECORD_HEADER_BYTES;
	r->dpos += RECORD_HEADER_BYTES + (size_t)len;
	rec->type = type;
	rec->chunk_seq = r->seq;
	switch (type) {
	case PMT_REC_META:
	case PMT_REC_RUN_BEGIN:
	case PMT_REC_RUN_END:
	case PMT_REC_SUMMARY:
	case PMT_REC_WARNING:
		return decode_json(r, b, len, &rec->u.json);
	case PMT_REC_SAMPLE:
		return decode_sample(r, b, len, &rec->u.sample);
	case PMT_REC_TASK:
		return decode_task(r, b, len, &rec->u.task);
	case PMT_REC_COUNTERS:
		return decode_counters(r, b, len, &rec->u.counters);
	case PMT_REC_SCHED:
		return decode_sched(r, b, len, &rec->u.sched);
	default:
		if (!(type & PMT_REC_OPTIONAL_BIT))
			return PMT_E_UNKNOWN;
		if (!(r->flags & PMT_READ_RAW)) {
			r->st.records_skipped++;
			return 0;
		}
		rec->u.raw.len = len;
		rec->u.raw.body = b;
		return 1;
	}
}

/* Checks the 16-byte file header (FORMAT.md §3, in the order of §8: magic, version, CRC). */
static int read_file_header(struct pmt_reader *r)
{
	const uint8_t *h;
	size_t avail;
	int rc;

	rc = in_fill(r, FILE_HEADER_BYTES);
	if (rc < 0)
		return rc;
	avail = r->in_end - r->in_pos;
	h = r->in + r->in_pos;
	if (avail < FILE_HEADER_BYTES) {
		size_t m = avail < sizeof(file_magic) ? avail : sizeof(file_magic);
		return memcmp(h, file_magic, m) == 0 ? PMT_E_TRUNCATED : PMT_E_NOT_TRACE;
	}
	if (memcmp(h, file_magic, sizeof(file_magic)) != 0)
		return PMT_E_NOT_TRACE;
	r->major = get_le16(h + 8);
	r->minor = get_le16(h + 10);
	if (r->major != PMT_FORMAT_MAJOR)
		return PMT_E_VERSION;
	if (crc32_of(h, 12) != get_le32(h + 12))
		return PMT_E_CORRUPT;
	r->in_pos += FILE_HEADER_BYTES;
	return 0;
}

/* Chunk 0 is decoded: its first record must be META (FORMAT.md §8 step 2). */
static int read_meta(struct pmt_reader *r)
{
	struct pmt_record rec;
	int rc;

	if (r->dlen < RECORD_HEADER_BYTES)
		return PMT_E_CORRUPT;
	if (get_le16(r->dbuf) != PMT_REC_META)
		return PMT_E_NO_META;
	rc = decode_record(r, &rec);
	if (rc < 0)
		return rc;
	r->meta = malloc((size_t)rec.u.json.len + 1);
	if (!r->meta)
		return PMT_E_NOMEM;
	memcpy(r->meta, rec.u.json.text, (size_t)rec.u.json.len + 1);
	return 0;
}

int pmt_reader_open(struct pmt_reader **out, const char *path, int fd, unsigned flags)
{
	struct pmt_reader *r;
	int rc, saved_errno;

	if (!out)
		return PMT_E_INVAL;
	*out = NULL;
	if ((!path && fd < 0) || (flags & ~(PMT_READ_SALVAGE | PMT_READ_RAW)))
		return PMT_E_INVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return PMT_E_NOMEM;
	r->fd = fd;
	r->flags = flags;
	if (path) {
		r->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (r->fd < 0) {
			r->sys_errno = errno;
			rc = PMT_E_IO;
			goto out;
		}
		r->own_fd = 1;
	}
	r->dctx = ZSTD_createDCtx();
	r->in = malloc(IN_INITIAL_BYTES);
	if (!r->dctx || !r->in) {
		rc = PMT_E_NOMEM;
		goto out;
	}
	r->in_cap = IN_INITIAL_BYTES;
	rc = read_file_header(r);
	if (rc < 0)
		goto out;
	rc = next_chunk(r, 1);
	if (rc == 0)
		rc = PMT_E_TRUNCATED; /* the file ends before chunk 0 is complete */
	if (rc < 0)
		goto out;
	rc = read_meta(r);
out:
	if (rc < 0) {
		saved_errno = r->sys_errno;
		pmt_reader_close(r);
		/* the reader is gone, so pmt_reader_errno() cannot tell: leave it in errno */
		if (rc == PMT_E_IO)
			errno = saved_errno;
		return rc;
	}
	*out = r;
	return 0;
}

const char *pmt_reader_meta(const struct pmt_reader *r)
{
	return r ? r->meta : NULL;
}

void pmt_reader_version(const struct pmt_reader *r, unsigned *major, unsigned *minor)
{
	if (major)
		*major = r ? r->major : 0;
	if (minor)
		*minor = r ? r->minor : 0;
}

int pmt_reader_next(struct pmt_reader *r, struct pmt_record *rec)
{
	int rc;

	if (!r || !rec)
		return PMT_E_INVAL;
	for (;;) {
		if (r->err)
			return r->err;
		if (r->dpos < r->dlen) {
			rc = decode_record(r, rec);
			if (rc == 1) {
				if (rec->type == PMT_REC_SUMMARY)
					r->st.has_summary = 1;
				return 1;
			}
			if (rc == 0)
				continue;
			if ((rc == PMT_E_CORRUPT || rc == PMT_E_LIMIT) &&
			    (r->flags & PMT_READ_SALVAGE)) {
				/* the chunk passed its checksums, so the next one starts where it ends */
				r->st.chunks_bad++;
				r->dpos = r->dlen;
				continue;
			}
			r->err = rc;
			return rc;
		}
		if (r->at_end)
			return 0;
		rc = next_chunk(r, 0);
		if (rc == 0) {
			r->at_end = 1;
			return 0;
		}
		if (rc < 0)
			r->err = rc;
	}
}

void pmt_reader_stats(const struct pmt_reader *r, struct pmt_reader_stats *st)
{
	if (!st)
		return;
	if (!r) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = r->st;
}

int pmt_reader_errno(const struct pmt_reader *r)
{
	return r ? r->sys_errno : 0;
}

void pmt_reader_close(struct pmt_reader *r)
{
	if (!r)
		return;
	if (r->own_fd)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->in);
	free(r->dbuf);
	free(r->ts);
	free(r->ev);
	free(r->jbuf);
	free(r->meta);
	free(r);
}
