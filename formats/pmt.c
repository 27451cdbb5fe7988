/* SPDX-License-Identifier: MIT */
/* pmt.c: what the pmtrace writer (pmt_writer.c) and reader (pmt_reader.c) share: error strings,
 * the limit detail and the magics (byte layout in formats/FORMAT.md). */
#include "pmt_internal.h"

#include <stdio.h>

const uint8_t pmt_file_magic[8] = { 0x89, 'P', 'M', 'T', '\r', '\n', 0x1a, '\n' };
const uint8_t pmt_chunk_magic[4] = { 'P', 'M', 'C', 'K' };
/* FORMAT.md §2: skippable magic 0x184D2A5B (little-endian), frame size 16 or 24, then the magic */
const uint8_t pmt_file_magic_v2[SKIPPABLE_HEADER_BYTES + 8] = {
	0x5B, 0x2A, 0x4D, 0x18, FILE_HEADER_BYTES, 0, 0, 0,
	0x89, 'P', 'M', 'T', '\r', '\n', 0x1a, '\n'
};
const uint8_t pmt_chunk_magic_v2[SKIPPABLE_HEADER_BYTES + 4] = {
	0x5B, 0x2A, 0x4D, 0x18, CHUNK_HEADER_BYTES, 0, 0, 0, 'P', 'M', 'C', 'K'
};

/* The field behind this thread's last reader PMT_E_LIMIT (pmt_limit_detail()). Thread-local like
 * errno, because pmt_reader_open() frees the reader when it fails. */
static __thread char limit_detail[96];

int pmt_limit_error(const char *field, uint64_t value, uint64_t max)
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
