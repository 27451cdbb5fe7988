/* SPDX-License-Identifier: MIT */
/* kconfig.c: CONFIG_HZ, the kernel's scheduler tick rate, from its build configuration (see kconfig.h). */
#include "kconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pm_util.h"

/* Above any tick rate a kernel is built with (kernel/Kconfig.hz offers 100 to 1000). */
#define CONFIG_HZ_MAX 100000L

long pmc_config_hz_parse_file(const char *path, char *why, size_t whysize)
{
	static const char key[] = "CONFIG_HZ=";
	char line[4096];
	const char *msg;
	int line_start = 1, errnum;
	long hz = 0;
	gzFile f;

	errno = 0;
	f = gzopen(path, "rb");
	if (f == NULL) {
		pm_set_why(why, whysize, "%s: %s", path, errno ? strerror(errno) : "cannot open");
		return -1;
	}
	while (gzgets(f, line, (int)sizeof(line)) != NULL) {
		size_t len = strlen(line);
		/* a line longer than the buffer comes in pieces: only a piece at a line's start is a key */
		int at_start = line_start;

		line_start = len > 0 && line[len - 1] == '\n';
		if (at_start && strncmp(line, key, sizeof(key) - 1) == 0) {
			const char *v = line + sizeof(key) - 1;
			char *end;

			errno = 0;
			hz = strtol(v, &end, 10);
			if (end == v || errno || (*end != '\n' && *end != '\0') || hz < 1 || hz > CONFIG_HZ_MAX) {
				pm_set_why(why, whysize, "%s: CONFIG_HZ is not a tick rate from 1 to %ld Hz",
					   path, CONFIG_HZ_MAX);
				hz = 0;
			}
			gzclose(f);
			return hz;
		}
	}
	/* gzgets returns NULL at the end and on an error (a damaged gzip stream) */
	msg = gzerror(f, &errnum);
	if (errnum != Z_OK) {
		pm_set_why(why, whysize, "%s: cannot read it: %s", path, msg);
		gzclose(f);
		return -1;
	}
	gzclose(f);
	pm_set_why(why, whysize, "%s has no CONFIG_HZ line", path);
	return 0;
}

void pmc_config_hz_find(const char *root, const char *release, struct pmc_config_hz *out)
{
	char boot[sizeof(out->source)], boot_why[480] = "", proc_why[480] = "";

	memset(out, 0, sizeof(*out));
	snprintf(boot, sizeof(boot), "%s/boot/config-%s", root, release);
	out->hz = pmc_config_hz_parse_file(boot, boot_why, sizeof(boot_why));
	if (out->hz > 0) {
		snprintf(out->source, sizeof(out->source), "%s", boot);
		return;
	}
	snprintf(out->source, sizeof(out->source), "%s/proc/config.gz", root);
	out->hz = pmc_config_hz_parse_file(out->source, proc_why, sizeof(proc_why));
	if (out->hz > 0)
		return;
	out->hz = 0;
	out->source[0] = '\0';
	pm_set_why(out->why, sizeof(out->why), "%s; %s", boot_why, proc_why);
}

int pmc_meta_add_config_hz(cJSON *meta, const struct pmc_config_hz *c)
{
	if (c->hz > 0)
		return cJSON_AddNumberToObject(meta, "config_hz", (double)c->hz) != NULL &&
		       cJSON_AddStringToObject(meta, "config_hz_source", c->source) != NULL ? 0 : -1;
	return cJSON_AddNullToObject(meta, "config_hz") != NULL &&
	       cJSON_AddStringToObject(meta, "config_hz_why", c->why) != NULL ? 0 : -1;
}
