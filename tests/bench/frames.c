/* SPDX-License-Identifier: MIT */
/* frames.c: copies the zstd frames of a pmtrace (formats/FORMAT.md §2-§4: a 16-byte file header,
 * then chunks of a 24-byte header and one zstd frame; in format 2 each header in an 8-byte-headed
 * skippable frame) to a plain .zst file of the payloads only, so that `zstd -d` can be timed on
 * exactly the data pmanalyze decompresses (make bench, analyzer throughput).
 * No checks beyond the sizes: the input is a trace the benchmark has just written.
 * usage: frames TRACE OUT.zst */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmt_internal.h"

int main(int argc, char **argv)
{
	uint8_t hdr[SKIPPABLE_HEADER_BYTES + CHUNK_HEADER_BYTES];
	FILE *in, *out;
	char *buf = NULL;
	size_t cap = 0, pre = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: frames TRACE OUT.zst\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	out = fopen(argv[2], "wb");
	if (!in || !out || fread(hdr, 1, FILE_HEADER_BYTES, in) != FILE_HEADER_BYTES) {
		perror("frames");
		return 1;
	}
	/* format 1 starts with the magic's 0x89, format 2 with a skippable frame (FORMAT.md §2.1) */
	if (hdr[0] != 0x89) {
		pre = SKIPPABLE_HEADER_BYTES;
		if (fread(hdr, 1, pre, in) != pre)
			return 1;
	}
	while (fread(hdr, 1, pre + CHUNK_HEADER_BYTES, in) == pre + CHUNK_HEADER_BYTES) {
		uint32_t csize = get_le32(hdr + pre + 8); /* FORMAT.md §4: compressed size at offset 8 */
		if (csize > 64u << 20)
			return 1;
		if (csize > cap) {
			char *nb = realloc(buf, csize);
			if (!nb)
				return 1;
			buf = nb;
			cap = csize;
		}
		if (fread(buf, 1, csize, in) != csize || fwrite(buf, 1, csize, out) != csize)
			return 1;
	}
	free(buf);
	fclose(in);
	return fclose(out) != 0;
}
