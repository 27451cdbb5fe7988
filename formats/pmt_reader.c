/* SPDX-License-Identifier: MIT */
/* pmt_reader.c: the streaming pmtrace reader: checks every chunk, salvages what it can (FORMAT.md §8). */
#include "pmt_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <zstd.h>

/* Reader input buffer: initial size, and the free space below which it is compacted before a
 * read() so reads stay large. */
#define IN_INITIAL_BYTES (256u << 10)
#define IN_MIN_READ_BYTES (64u << 10)

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

	/* the framing of the file's major (FORMAT.md §2): what opens a chunk, the bytes from a
	 * chunk's start to its payload, and where its header fields start */
	const uint8_t *chunk_magic;
	size_t chunk_magic_len, chunk_hb, fields_at;

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
	uint64_t energy_uj[PMT_MAX_ENERGY_ZONES];
	struct pmt_sched_event *ev;
	size_t ev_cap;
	uint32_t omp_tids[PMT_MAX_OMP_TIDS];
	int64_t omp_values[PMT_MAX_OMP_EVENTS];

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
	if (memcmp(h, pmt_chunk_magic, 4) != 0)
		return PMT_E_CORRUPT;
	if (crc32_of(h, 20) != get_le32(h + 20))
		return PMT_E_CORRUPT;
	*seq = get_le32(h + 4);
	*csize = get_le32(h + 8);
	*usize = get_le32(h + 12);
	if (*csize == 0 || *usize == 0)
		return PMT_E_CORRUPT;
	if (*csize > PMT_MAX_CHUNK_BYTES)
		return pmt_limit_error("chunk csize", *csize, PMT_MAX_CHUNK_BYTES);
	if (*usize > PMT_MAX_CHUNK_BYTES)
		return pmt_limit_error("chunk usize", *usize, PMT_MAX_CHUNK_BYTES);
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

/* Salvage: passes over the byte at in_pos, then up to the next chunk magic ("PMCK", in format 2
 * with its skippable frame header before it) or the end of the file. */
static int scan_for_chunk(struct pmt_reader *r)
{
	const size_t mlen = r->chunk_magic_len;

	r->in_pos++;
	r->st.bytes_skipped++;
	for (;;) {
		size_t avail = r->in_end - r->in_pos;
		const uint8_t *p = NULL;
		int rc;

		if (avail >= mlen)
			p = memmem(r->in + r->in_pos, avail, r->chunk_magic, mlen);
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
		/* keep the last mlen - 1 bytes: they may begin a magic split across two reads */
		if (avail > mlen - 1) {
			r->in_pos += avail - (mlen - 1);
			r->st.bytes_skipped += avail - (mlen - 1);
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
	const size_t hb = r->chunk_hb;
	int scanning = 0;

	for (;;) {
		uint32_t seq = 0, csize = 0, usize = 0;
		const uint8_t *h;
		size_t avail;
		int rc;

		rc = in_fill(r, hb);
		if (rc < 0)
			return rc;
		avail = r->in_end - r->in_pos;
		if (avail == 0)
			return 0;
		if (avail < hb) {
			r->st.truncated = 1;
			return 0;
		}
		h = r->in + r->in_pos;
		/* format 2: the skippable frame header before "PMCK" must be ours, sized 24 (§4.3) */
		rc = memcmp(h, r->chunk_magic, r->fields_at) == 0 ?
			check_chunk_header(h + r->fields_at, &seq, &csize, &usize) : PMT_E_CORRUPT;
		if (rc == 0) {
			rc = in_fill(r, hb + (size_t)csize);
			if (rc < 0)
				return rc;
			if (r->in_end - r->in_pos < hb + (size_t)csize) {
				r->st.truncated = 1;
				return 0;
			}
			h = r->in + r->in_pos;
			rc = decode_payload(r, h + hb, csize, usize, get_le32(h + r->fields_at + 16));
			if (rc == 0) {
				r->in_pos += hb + (size_t)csize;
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
		return pmt_limit_error("JSON record length", tlen, PMT_MAX_JSON_BYTES);
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

/* The entry count of a record of len bytes whose fixed part (fixed bytes) holds the count at
 * offset off (a u16 when wide is 0, else a u32) and is followed by entry-byte entries: 1 with *n,
 * PMT_E_CORRUPT when the record is too short for its fixed part or its entries, or the limit error
 * (FORMAT.md §7) naming what when the count exceeds max. */
static int entry_count(const uint8_t *b, uint32_t len, uint32_t fixed, unsigned off, int wide,
		       uint32_t entry, uint32_t max, const char *what, uint32_t *n)
{
	if (len < fixed)
		return PMT_E_CORRUPT;
	*n = wide ? get_le32(b + off) : get_le16(b + off);
	if (*n > max)
		return pmt_limit_error(what, *n, max);
	if ((uint64_t)*n * entry > len - fixed)
		return PMT_E_CORRUPT;
	return 1;
}

static int decode_sample(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			 struct pmt_sample *s)
{
	struct pmt_thread_sample *t;
	uint32_t n;
	int rc = entry_count(b, len, SAMPLE_FIXED_BYTES, 16, 1, THREAD_ENTRY_BYTES,
			     PMT_MAX_SAMPLE_THREADS, "SAMPLE n", &n);

	if (rc != 1)
		return rc;
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
		return pmt_limit_error("TASK comm_len", comm_len, PMT_COMM_MAX);
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

_Static_assert(COUNTERS_FIXED_BYTES == ENERGY_FIXED_BYTES, "COUNTERS and ENERGY share one layout");

/* The layout COUNTERS (§5.5) and ENERGY (§5.8) share: run_id u32, t_ns u64, n u32, then n
 * 64-bit values into dst (at most max of them; name for the limit error). Returns 1 or PMT_E_*. */
static int decode_u64_series(const uint8_t *b, uint32_t len, uint32_t max, const char *name,
			     uint32_t *run_id, uint64_t *t_ns, uint32_t *n_out, uint64_t *dst)
{
	const uint32_t fixed = COUNTERS_FIXED_BYTES;
	uint32_t n;
	int rc = entry_count(b, len, fixed, 12, 1, 8, max, name, &n);

	if (rc != 1)
		return rc;
	*run_id = get_le32(b);
	*t_ns = get_le64(b + 4);
	*n_out = n;
	for (uint32_t i = 0; i < n; i++)
		dst[i] = get_le64(b + fixed + 8 * i);
	return 1;
}

static int decode_counters(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			   struct pmt_counters *c)
{
	uint64_t raw[PMT_MAX_COUNTERS];
	int rc = decode_u64_series(b, len, PMT_MAX_COUNTERS, "COUNTERS n", &c->run_id, &c->t_ns,
				   &c->n, raw);

	for (uint32_t i = 0; rc == 1 && i < c->n; i++)
		r->values[i] = (int64_t)raw[i];
	c->values = r->values;
	return rc;
}

static int decode_energy(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			 struct pmt_energy *e)
{
	e->energy_uj = r->energy_uj;
	return decode_u64_series(b, len, PMT_MAX_ENERGY_ZONES, "ENERGY n", &e->run_id, &e->t_ns,
				 &e->n, r->energy_uj);
}

static int decode_sched(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			struct pmt_sched_batch *sb)
{
	struct pmt_sched_event *e;
	uint32_t n;
	int rc = entry_count(b, len, SCHED_FIXED_BYTES, 12, 1, SCHED_ENTRY_BYTES, PMT_MAX_SCHED_EVENTS,
			     "SCHED n", &n);

	if (rc != 1)
		return rc;
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

static int decode_omp_region(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			     struct pmt_omp_region *o)
{
	uint32_t n;
	int rc = entry_count(b, len, OMP_REGION_FIXED_BYTES, 66, 0, 4, PMT_MAX_OMP_TIDS,
			     "OMP_REGION n_tids", &n);

	if (rc != 1)
		return rc;
	o->run_id = get_le32(b);
	o->pid = get_le32(b + 4);
	o->id = get_le64(b + 8);
	o->parent_id = get_le64(b + 16);
	o->codeptr_ra = get_le64(b + 24);
	o->begin_ns = get_le64(b + 32);
	o->end_ns = get_le64(b + 40);
	if (o->end_ns < o->begin_ns)
		return PMT_E_CORRUPT;
	o->depth = get_le32(b + 48);
	o->requested_team = get_le32(b + 52);
	o->actual_team = get_le32(b + 56);
	o->encountering_tid = get_le32(b + 60);
	o->flags = get_le16(b + 64);
	o->n_tids = (uint16_t)n;
	for (uint32_t i = 0; i < n; i++)
		r->omp_tids[i] = get_le32(b + OMP_REGION_FIXED_BYTES + 4 * i);
	o->tids = r->omp_tids;
	return 1;
}

static int decode_omp_counters(struct pmt_reader *r, const uint8_t *b, uint32_t len,
			       struct pmt_omp_counters *c)
{
	uint32_t n;
	int rc = entry_count(b, len, OMP_COUNTERS_FIXED_BYTES, 12, 0, 8, PMT_MAX_OMP_EVENTS,
			     "OMP_COUNTERS n", &n);

	if (rc != 1)
		return rc;
	c->run_id = get_le32(b);
	c->pid = get_le32(b + 4);
	c->tid = get_le32(b + 8);
	c->n = (uint16_t)n;
	c->region_id = get_le64(b + 16);
	for (uint32_t i = 0; i < n; i++)
		r->omp_values[i] = (int64_t)get_le64(b + OMP_COUNTERS_FIXED_BYTES + 8 * i);
	c->values = r->omp_values;
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
	case PMT_REC_PSWITCH:
		return decode_sched(r, b, len, &rec->u.pswitch); /* one layout, §5.10 */
	case PMT_REC_OMP_REGION:
		return decode_omp_region(r, b, len, &rec->u.omp);
	case PMT_REC_ENERGY:
		return decode_energy(r, b, len, &rec->u.energy);
	case PMT_REC_OMP_COUNTERS:
		return decode_omp_counters(r, b, len, &rec->u.omp_counters);
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

/* Checks the file header (FORMAT.md §3, in the order of §8: magic, version, CRC): bare in format
 * 1, in a zstd skippable frame from format 2 (§2). Sets the framing the chunks are read with. */
static int read_file_header(struct pmt_reader *r)
{
	const uint8_t *h, *magic;
	size_t avail, mlen, m;
	unsigned framed;
	int rc;

	rc = in_fill(r, pmt_file_header_bytes(2));
	if (rc < 0)
		return rc;
	avail = r->in_end - r->in_pos;
	h = r->in + r->in_pos;
	/* format 1 opens with the PNG-style magic, format 2 with a skippable frame holding it */
	framed = avail > 0 && h[0] != pmt_file_magic[0];
	magic = framed ? pmt_file_magic_v2 : pmt_file_magic;
	mlen = framed ? sizeof(pmt_file_magic_v2) : sizeof(pmt_file_magic);
	m = avail < mlen ? avail : mlen;
	if (memcmp(h, magic, m) != 0)
		return PMT_E_NOT_TRACE;
	if (avail < pmt_file_header_bytes(framed ? 2 : 1))
		return PMT_E_TRUNCATED;
	h += pmt_header_fields_at(framed ? 2 : 1);
	r->major = get_le16(h + 8);
	r->minor = get_le16(h + 10);
	/* a framed header names major 2 or later, a bare one major 1 (§3) */
	if (framed ? r->major < 2 || r->major > PMT_FORMAT_MAJOR : r->major != 1)
		return PMT_E_VERSION;
	if (crc32_of(h, 12) != get_le32(h + 12))
		return PMT_E_CORRUPT;
	r->in_pos += pmt_file_header_bytes(r->major);
	r->chunk_magic = framed ? pmt_chunk_magic_v2 : pmt_chunk_magic;
	r->chunk_magic_len = framed ? sizeof(pmt_chunk_magic_v2) : sizeof(pmt_chunk_magic);
	r->chunk_hb = pmt_chunk_header_bytes(r->major);
	r->fields_at = pmt_header_fields_at(r->major);
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
