/* SPDX-License-Identifier: MIT */
/* pmt_internal.h: what the pmtrace writer and reader share and pmt.h does not export: the byte
 * layout sizes and magics of formats/FORMAT.md and the little-endian put/get helpers. Also for the
 * unit tests and fuzz targets that build or patch trace bytes by hand; not for the tools. */
#ifndef PMT_INTERNAL_H
#define PMT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "pmt.h"

/* Fixed sizes in bytes (FORMAT.md §3 file header, §4 chunk header, §5 records). FILE_HEADER_BYTES
 * and CHUNK_HEADER_BYTES are the pmtrace headers themselves; from format 2 each travels in a zstd
 * skippable frame, whose 8-byte frame header (SKIPPABLE_HEADER_BYTES) comes first (§2). */
#define FILE_HEADER_BYTES 16u
#define CHUNK_HEADER_BYTES 24u
#define SKIPPABLE_HEADER_BYTES 8u
#define RECORD_HEADER_BYTES 8u
#define JSON_FIXED_BYTES 12u
#define SAMPLE_FIXED_BYTES 20u
#define THREAD_ENTRY_BYTES 44u
#define TASK_FIXED_BYTES 48u
#define COUNTERS_FIXED_BYTES 16u
#define SCHED_FIXED_BYTES 16u
#define ENERGY_FIXED_BYTES 16u
#define SCHED_ENTRY_BYTES 28u
#define OMP_REGION_FIXED_BYTES 68u
#define OMP_COUNTERS_FIXED_BYTES 24u

/* The file magic (FORMAT.md §3, after PNG's) and the magic opening every chunk header (§4).
 * Defined in pmt.c. */
extern const uint8_t pmt_file_magic[8];
extern const uint8_t pmt_chunk_magic[4];

/* Format 2 (FORMAT.md §2): the zstd skippable-frame magic number pmtrace uses (RFC 8878 §3.1.2;
 * 0x184D2A50 is pzstd's and 0x184D2A5E the seekable format's, so neither), and the bytes that
 * open a format-2 file (skippable frame header of 16 bytes, then pmt_file_magic) and a format-2
 * chunk (skippable frame header of 24 bytes, then pmt_chunk_magic). Defined in pmt.c. */
#define PMT_SKIPPABLE_MAGIC 0x184D2A5Bu
extern const uint8_t pmt_file_magic_v2[SKIPPABLE_HEADER_BYTES + 8];
extern const uint8_t pmt_chunk_magic_v2[SKIPPABLE_HEADER_BYTES + 4];

/* Bytes before the first chunk, and from a chunk's start to its payload, in a file of format
 * major (1: bare headers; 2 and later: headers in skippable frames). */
static inline size_t pmt_file_header_bytes(unsigned major)
{
	return major >= 2 ? SKIPPABLE_HEADER_BYTES + FILE_HEADER_BYTES : FILE_HEADER_BYTES;
}

static inline size_t pmt_chunk_header_bytes(unsigned major)
{
	return major >= 2 ? SKIPPABLE_HEADER_BYTES + CHUNK_HEADER_BYTES : CHUNK_HEADER_BYTES;
}

/* Where the pmtrace header fields start within those bytes (after the skippable frame header). */
static inline size_t pmt_header_fields_at(unsigned major)
{
	return major >= 2 ? SKIPPABLE_HEADER_BYTES : 0;
}

/* The format major of a file from its first n bytes (1 or 2), 0 when they match neither magic
 * (or too few bytes to tell). For tests and tools that walk a trace's bytes. */
static inline unsigned pmt_major_of(const uint8_t *p, size_t n)
{
	if (n >= 8 && memcmp(p, pmt_file_magic, 8) == 0)
		return 1;
	if (n >= sizeof(pmt_file_magic_v2) && memcmp(p, pmt_file_magic_v2, sizeof(pmt_file_magic_v2)) == 0)
		return 2;
	return 0;
}

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

static inline uint32_t crc32_of(const uint8_t *p, size_t n)
{
	/* n <= 24 + PMT_MAX_CHUNK_BYTES, so it fits zlib's uInt */
	return (uint32_t)crc32(0L, p, (uInt)n);
}

static inline int is_json_type(uint16_t type)
{
	return type == PMT_REC_META || type == PMT_REC_RUN_BEGIN || type == PMT_REC_RUN_END ||
	       type == PMT_REC_SUMMARY || type == PMT_REC_WARNING;
}

/* Records which field broke its FORMAT.md §7 limit, for pmt_limit_detail() (the field name as in
 * §7, e.g. "SAMPLE n"), and returns PMT_E_LIMIT. Defined in pmt.c. */
int pmt_limit_error(const char *field, uint64_t value, uint64_t max);

#endif
