/* SPDX-License-Identifier: MIT */
/* testlib.h: helpers the cmocka unit tests share (include after <cmocka.h>): the one tolerance
 * compare of doubles (assert_double_equal, assert_rel), a CPU list from text (cpulist) and the chunk layout of a trace. Trace
 * bytes are built and patched with the format's own little-endian helpers and sizes
 * (formats/pmt_internal.h), not test copies. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pmt_internal.h"

/* cmocka 1.1.5 (Debian 12) has no assert_double_equal: |a - b| <= tol, printing both (and the
 * expression) on failure. A NaN on either side fails. */
#define assert_double_equal(a, b, tol) testlib_assert_near((a), (b), (tol), #a, __FILE__, __LINE__)
/* relative: |a - b| <= rel |b| */
#define assert_rel(a, b, rel) assert_double_equal((a), (b), (rel) * fabs(b))

static inline void testlib_assert_near(double a, double b, double tol, const char *expr,
				       const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s = %.9g, want %.9g (tolerance %g)\n", expr, a, b, tol);
		_fail(file, line);
	}
}

/* The CPUs of the cpulist text ("0-3,8") as a list, parsed as pmcollect parses its CPU sets,
 * once: the collector's planners and META take lists and sets, never text. A ring of 4, so the
 * lists of one call stay alive while it runs. Fails the test on a bad list. */
static inline const struct pm_intlist *cpulist(const char *text)
{
	static struct pm_intlist ring[4];
	static unsigned next;
	struct pm_intlist *l = &ring[next++ % 4];
	char why[128];

	pm_intlist_free(l);
	assert_int_equal(pm_intlist_parse(text, 0, 1u << 20, l, why, sizeof(why)), 0);
	return l;
}

/* Offsets of the chunks of the well-formed trace p[0..n) of either format major (FORMAT.md §2-§4):
 * off[i] is where chunk i starts (its skippable frame header in format 2) and off[k] = n, for the
 * k chunks returned. off has room for max + 1 entries; a NULL off only counts. Fails the test
 * when a chunk does not start with the chunk magic, the trace has more than max chunks, or the
 * chunks do not end exactly at n. */
static inline size_t chunk_offsets(const uint8_t *p, size_t n, size_t *off, size_t max)
{
	unsigned major = pmt_major_of(p, n);
	size_t k = 0, at = pmt_file_header_bytes(major), hb = pmt_chunk_header_bytes(major);
	const uint8_t *magic = major >= 2 ? pmt_chunk_magic_v2 : pmt_chunk_magic;
	size_t mlen = major >= 2 ? sizeof(pmt_chunk_magic_v2) : sizeof(pmt_chunk_magic);

	assert_true(major == 1 || major == 2);
	while (at < n) {
		assert_true(at + hb <= n);
		assert_memory_equal(p + at, magic, mlen);
		if (off) {
			assert_true(k < max);
			off[k] = at;
		}
		k++;
		at += hb + (size_t)get_le32(p + at + pmt_header_fields_at(major) + 8); /* csize */
	}
	assert_int_equal(at, n);
	if (off)
		off[k] = at;
	return k;
}

/* chunk_offsets() into a malloc'd array (*off, k + 1 entries; the caller frees it). Returns k. */
static inline size_t chunk_offsets_alloc(const uint8_t *p, size_t n, size_t **off)
{
	size_t k = chunk_offsets(p, n, NULL, 0);

	*off = malloc((k + 1) * sizeof(**off));
	assert_non_null(*off);
	return chunk_offsets(p, n, *off, k);
}

/* The well-formed trace p[0..n) of either major re-framed as format major (1: bare headers, minor
 * 3, the last 1.x; 2: headers in skippable frames, minor PMT_FORMAT_MINOR), every chunk's fields
 * and payload byte for byte, header CRC recomputed (FORMAT.md §2-§4). *out is malloc'd (the
 * caller frees it); returns its size. To run one test on both majors' framing. */
static inline size_t reframe(const uint8_t *p, size_t n, unsigned major, uint8_t **out)
{
	unsigned from = pmt_major_of(p, n);
	size_t *off, k = chunk_offsets_alloc(p, n, &off), o, fh = pmt_file_header_bytes(major);
	uint8_t *q = malloc(n + (k + 1) * SKIPPABLE_HEADER_BYTES), *h;

	assert_non_null(q);
	if (major >= 2)
		memcpy(q, pmt_file_magic_v2, sizeof(pmt_file_magic_v2));
	else
		memcpy(q, pmt_file_magic, sizeof(pmt_file_magic));
	h = q + pmt_header_fields_at(major);
	put_le16(h + 8, (uint16_t)major);
	put_le16(h + 10, major >= 2 ? PMT_FORMAT_MINOR : 3);
	put_le32(h + 12, crc32_of(h, 12));
	o = fh;
	for (size_t i = 0; i < k; i++) {
		size_t skip = pmt_header_fields_at(from), len = off[i + 1] - off[i] - skip;
		if (major >= 2) {
			memcpy(q + o, pmt_chunk_magic_v2, SKIPPABLE_HEADER_BYTES);
			o += SKIPPABLE_HEADER_BYTES;
		}
		memcpy(q + o, p + off[i] + skip, len);
		o += len;
	}
	free(off);
	*out = q;
	return o;
}

#endif
