/* SPDX-License-Identifier: MIT */
/* kconfig.h: the kernel's scheduler tick rate (CONFIG_HZ) from its build configuration, for META
 * "config_hz" (FORMAT.md §6): the analyzer's quota replay accounts a core's runtime at each tick. */
#ifndef PMC_KCONFIG_H
#define PMC_KCONFIG_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Where CONFIG_HZ was found, or why it was not. */
struct pmc_config_hz {
	long hz;                 /* CONFIG_HZ, scheduler ticks per second; 0 when not found */
	char source[4200];       /* the file it came from, "" when not found */
	char why[1024];          /* why not, one line; "" when found */
};

/* Reads the line "CONFIG_HZ=N" of the kernel configuration file at path: the plain text of
 * /boot/config-RELEASE or the gzip of /proc/config.gz (CONFIG_IKCONFIG_PROC), both through zlib's
 * gzopen/gzgets, which read a file that is not gzip as it is. N is the tick rate in Hz
 * (kernel/Kconfig.hz: 100, 250, 300 or 1000; any whole number from 1 to 100000 is taken).
 * Returns N, 0 when the file has no such line or its value is not such a number, or -1 when
 * the file cannot be opened or read; for 0 and -1 a one-line reason naming path goes into why. */
long pmc_config_hz_parse_file(const char *path, char *why, size_t whysize);

/* Finds CONFIG_HZ for the running kernel of release `release` (uname(2)): in
 * <root>/boot/config-<release>, else <root>/proc/config.gz; root is a fixture tree in tests
 * (pmc_sysfs_root()), "" otherwise. Fills *out: hz and source, or hz 0 and why (the reasons of
 * both files: absent, unreadable, no CONFIG_HZ line). */
void pmc_config_hz_find(const char *root, const char *release, struct pmc_config_hz *out);

/* Adds META "config_hz" (the number) and "config_hz_source" (the file), or "config_hz": null and
 * "config_hz_why" (FORMAT.md §6) from c. Returns 0, or -1 when out of memory. */
int pmc_meta_add_config_hz(cJSON *meta, const struct pmc_config_hz *c);

#endif
