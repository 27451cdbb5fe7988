/* SPDX-License-Identifier: MIT */
/* replay.c: runs LLVMFuzzerTestOneInput on every file in the directories (or files) given, without
 * libFuzzer, so a corpus and crash files can be replayed under gcc, sanitizers or valgrind. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds one file to the target; returns 0, or 1 when it cannot be read. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t n = 0, cap = 0;
	int rc = 1;

	if (!f) {
		fprintf(stderr, "replay: error: cannot open '%s': %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		size_t k;
		if (n == cap) {
			uint8_t *nd = realloc(data, cap ? cap * 2 : 65536);
			if (!nd) {
				fprintf(stderr, "replay: error: '%s': out of memory\n", path);
				goto out;
			}
			data = nd;
			cap = cap ? cap * 2 : 65536;
		}
		k = fread(data + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: error: cannot read '%s'\n", path);
		goto out;
	}
	LLVMFuzzerTestOneInput(data, n);
	rc = 0;
out:
	free(data);
	fclose(f);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long files = 0, failed = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: replay <corpus-dir-or-file>...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: error: cannot stat '%s': %s\n", argv[i], strerror(errno));
			failed++;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			failed += replay_file(argv[i]);
			files++;
			continue;
		}
		d = opendir(argv[i]);
		if (!d) {
			fprintf(stderr, "replay: error: cannot open '%s': %s\n", argv[i], strerror(errno));
			failed++;
			continue;
		}
		while ((e = readdir(d)) != NULL) {
			char path[4096];
			struct stat fst;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (stat(path, &fst) != 0 || !S_ISREG(fst.st_mode))
				continue;
			failed += replay_file(path);
			files++;
		}
		closedir(d);
	}
	printf("replayed %lu files, %lu unreadable\n", files - failed, failed);
	return failed ? 1 : 0;
}
