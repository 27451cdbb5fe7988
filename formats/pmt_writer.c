/* SPDX-License-Identifier: MIT */
/* pmt_writer.c: the pmtrace writer: records into zstd chunks with checksums (FORMAT.md §4, §5),
 * headers in zstd skippable frames so that the file is a zstd file (format 2, §2). */
#include "pmt_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

/* The writer never builds a chunk larger than this (uncompressed), so that even zstd's worst-case
 * expansion (ZSTD_compressBound, about +0.4%) keeps csize within PMT_MAX_CHUNK_BYTES. */
#define WRITER_MAX_USIZE (PMT_MAX_CHUNK_BYTES - (1u << 20))
#define WRITER_DEFAULT_CHUNK_BYTES (1u << 20)
#define WRITER_DEFAULT_LEVEL 3

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
	size_t bound, csize, hb;
	uint8_t *h;
	int rc;

	if (!w)
		return PMT_E_INVAL;
	if (w->ulen == 0)
		return 0;
	if (w->broken)
		return PMT_E_IO;
	hb = pmt_chunk_header_bytes(PMT_FORMAT_MAJOR);
	bound = hb + ZSTD_compressBound(w->ulen);
	if (bound > w->ccap) {
		uint8_t *nb = malloc(bound);
		if (!nb)
			return PMT_E_NOMEM;
		free(w->cbuf);
		w->cbuf = nb;
		w->ccap = bound;
	}
	csize = ZSTD_compress2(w->cctx, w->cbuf + hb, w->ccap - hb, w->ubuf, w->ulen);
	if (ZSTD_isError(csize))
		return PMT_E_ZSTD;
	if (csize > PMT_MAX_CHUNK_BYTES) /* impossible with WRITER_MAX_USIZE; never write it */
		return PMT_E_LIMIT;
	/* the skippable frame header and "PMCK" (FORMAT.md §2, §4.1), then the header's fields */
	memcpy(w->cbuf, pmt_chunk_magic_v2, sizeof(pmt_chunk_magic_v2));
	h = w->cbuf + pmt_header_fields_at(PMT_FORMAT_MAJOR);
	put_le32(h + 4, w->seq);
	put_le32(h + 8, (uint32_t)csize);
	put_le32(h + 12, (uint32_t)w->ulen);
	put_le32(h + 16, crc32_of(w->cbuf + hb, csize));
	put_le32(h + 20, crc32_of(h, 20));
	/* On failure the records stay pending, so a later flush may retry them. */
	rc = writer_write(w, w->cbuf, hb + csize);
	if (rc)
		return rc;
	w->bytes += hb + csize;
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
	uint8_t hdr[SKIPPABLE_HEADER_BYTES + FILE_HEADER_BYTES], *h;
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

	/* a skippable frame holding the 16-byte file header (FORMAT.md §2, §3) */
	_Static_assert(PMT_FORMAT_MAJOR >= 2, "the writer frames its headers as format 2");
	memcpy(hdr, pmt_file_magic_v2, sizeof(pmt_file_magic_v2));
	h = hdr + pmt_header_fields_at(PMT_FORMAT_MAJOR);
	put_le16(h + 8, PMT_FORMAT_MAJOR);
	put_le16(h + 10, PMT_FORMAT_MINOR);
	put_le32(h + 12, crc32_of(h, 12));
	rc = writer_write(w, hdr, sizeof(hdr));
	if (rc)
		goto out;
	w->bytes = sizeof(hdr);

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

int pmt_writer_energy(struct pmt_writer *w, const struct pmt_energy *e)
{
	uint8_t *b;
	int rc;

	if (!w || !e || (e->n && !e->energy_uj))
		return PMT_E_INVAL;
	if (e->n > PMT_MAX_ENERGY_ZONES)
		return PMT_E_LIMIT;
	rc = writer_reserve(w, PMT_REC_ENERGY, ENERGY_FIXED_BYTES + 8 * e->n, &b);
	if (rc)
		return rc;
	put_le32(b, e->run_id);
	put_le64(b + 4, e->t_ns);
	put_le32(b + 12, e->n);
	for (uint32_t i = 0; i < e->n; i++)
		put_le64(b + ENERGY_FIXED_BYTES + 8 * i, e->energy_uj[i]);
	return writer_commit(w);
}

/* SCHED and PSWITCH share one layout (FORMAT.md §5.6, §5.10) */
static int write_event_batch(struct pmt_writer *w, uint16_t type, const struct pmt_sched_batch *sb)
{
	uint8_t *b;
	int rc;

	if (!w || !sb || (sb->n && !sb->events))
		return PMT_E_INVAL;
	if (sb->n > PMT_MAX_SCHED_EVENTS)
		return PMT_E_LIMIT;
	rc = writer_reserve(w, type, SCHED_FIXED_BYTES + SCHED_ENTRY_BYTES * sb->n, &b);
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

int pmt_writer_sched(struct pmt_writer *w, const struct pmt_sched_batch *sb)
{
	return write_event_batch(w, PMT_REC_SCHED, sb);
}

int pmt_writer_pswitch(struct pmt_writer *w, const struct pmt_sched_batch *sb)
{
	return write_event_batch(w, PMT_REC_PSWITCH, sb);
}

int pmt_writer_omp_region(struct pmt_writer *w, const struct pmt_omp_region *o)
{
	uint8_t *b;
	int rc;

	if (!w || !o || (o->n_tids && !o->tids))
		return PMT_E_INVAL;
	if (o->n_tids > PMT_MAX_OMP_TIDS)
		return PMT_E_LIMIT;
	rc = writer_reserve(w, PMT_REC_OMP_REGION, OMP_REGION_FIXED_BYTES + 4u * o->n_tids, &b);
	if (rc)
		return rc;
	put_le32(b, o->run_id);
	put_le32(b + 4, o->pid);
	put_le64(b + 8, o->id);
	put_le64(b + 16, o->parent_id);
	put_le64(b + 24, o->codeptr_ra);
	put_le64(b + 32, o->begin_ns);
	put_le64(b + 40, o->end_ns);
	put_le32(b + 48, o->depth);
	put_le32(b + 52, o->requested_team);
	put_le32(b + 56, o->actual_team);
	put_le32(b + 60, o->encountering_tid);
	put_le16(b + 64, o->flags);
	put_le16(b + 66, o->n_tids);
	for (uint32_t i = 0; i < o->n_tids; i++)
		put_le32(b + OMP_REGION_FIXED_BYTES + 4 * i, o->tids[i]);
	return writer_commit(w);
}

int pmt_writer_omp_counters(struct pmt_writer *w, const struct pmt_omp_counters *c)
{
	uint8_t *b;
	int rc;

	if (!w || !c || (c->n && !c->values))
		return PMT_E_INVAL;
	if (c->n > PMT_MAX_OMP_EVENTS)
		return PMT_E_LIMIT;
	rc = writer_reserve(w, PMT_REC_OMP_COUNTERS, OMP_COUNTERS_FIXED_BYTES + 8u * c->n, &b);
	if (rc)
		return rc;
	put_le32(b, c->run_id);
	put_le32(b + 4, c->pid);
	put_le32(b + 8, c->tid);
	put_le16(b + 12, c->n);
	put_le16(b + 14, 0);
	put_le64(b + 16, c->region_id);
	for (uint32_t i = 0; i < c->n; i++)
		put_le64(b + OMP_COUNTERS_FIXED_BYTES + 8 * i, (uint64_t)c->values[i]);
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
