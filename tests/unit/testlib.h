/* SPDX-License-Identifier: MIT */
/* testlib.h: helpers the cmocka unit tests share (include after <cmocka.h>): the one tolerance
 * compare of doubles (assert_double_equal, assert_rel) and the chunk layout of a trace. Trace
 * bytes are built and patched with the format's own little-endian helpers and sizes
 * (formats/pmt_internal.h), not test copies. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Offsets of the chunks of the well-formed trace p[0..n) (FORMAT.md §3, §4): off[i] is where chunk
 * i starts and off[k] = n, for the k chunks returned. off has room for max + 1 entries; a NULL off
 * only counts. Fails the test when a chunk does not start with the chunk magic, the trace has
 * more than max chunks, or the chunks do not end exactly at n. */
static inline size_t chunk_offsets(const uint8_t *p, size_t n, size_t *off, size_t max)
{
	size_t k = 0, at = FILE_HEADER_BYTES;

	while (at < n) {
		assert_true(at + CHUNK_HEADER_BYTES <= n);
		assert_memory_equal(p + at, pmt_chunk_magic, sizeof(pmt_chunk_magic));
		if (off) {
			assert_true(k < max);
			off[k] = at;
		}
		k++;
		at += CHUNK_HEADER_BYTES + (size_t)get_le32(p + at + 8); /* csize */
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

#endif
