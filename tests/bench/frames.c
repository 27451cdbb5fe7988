/* SPDX-License-Identifier: MIT */
/* frames.c: copies the zstd frames of a pmtrace (formats/FORMAT.md §4: a 16-byte file header,
 * then chunks of a 24-byte header and one zstd frame) to a plain .zst file, so that `zstd -d` can
 * be timed on exactly the data pmanalyze decompresses (make bench, analyzer throughput).
 * No checks beyond the sizes: the input is a trace the benchmark has just written.
 * usage: frames TRACE OUT.zst */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned char hdr[24];
	FILE *in, *out;
	char *buf = NULL;
	size_t cap = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: frames TRACE OUT.zst\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	out = fopen(argv[2], "wb");
	if (!in || !out || fread(hdr, 1, 16, in) != 16) {
		perror("frames");
		return 1;
	}
	while (fread(hdr, 1, 24, in) == 24) {
		uint32_t csize = (uint32_t)hdr[8] | (uint32_t)hdr[9] << 8 | (uint32_t)hdr[10] << 16 |
				 (uint32_t)hdr[11] << 24;
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
