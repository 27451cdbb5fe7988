/* SPDX-License-Identifier: MIT */
/* test_kconfig.c: unit tests of collector/sources/kconfig.c, CONFIG_HZ from the kernel's
 * configuration, on the fixture trees tests/fixtures/sysfs/kconfig-* and none. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kconfig.h"
#include "pm_util.h"
#include "testlib.h"

/* The fixture tree tests/fixtures/sysfs/<name> (below PMT_TOP when set). */
static const char *tree(const char *name)
{
	static char root[1024];
	const char *top = getenv("PMT_TOP");

	snprintf(root, sizeof(root), "%s/tests/fixtures/sysfs/%s", top ? top : ".", name);
	return root;
}

/* A temporary file holding text; its path in path (size 64). */
static void temp_file(char *path, const char *text, size_t len)
{
	int fd;

	snprintf(path, 64, "/tmp/test_kconfig.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* /boot/config-RELEASE with CONFIG_HZ=1000 (and CONFIG_HZ_1000=y, CONFIG_NO_HZ_*: other keys). */
static void test_boot_config_1000(void **state)
{
	struct pmc_config_hz c;
	char path[1100], why[256] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/boot/config-test", tree("kconfig-hz1000"));
	assert_int_equal(pmc_config_hz_parse_file(path, why, sizeof(why)), 1000);
	pmc_config_hz_find(tree("kconfig-hz1000"), "test", &c);
	assert_int_equal(c.hz, 1000);
	assert_string_equal(c.source, path);
	assert_string_equal(c.why, "");
}

/* A configuration without the CONFIG_HZ line: 0 and the reason; with no /proc/config.gz beside
 * it, both reasons. */
static void test_config_without_line(void **state)
{
	struct pmc_config_hz c;
	char path[1100], why[512] = "", want[2400];

	(void)state;
	snprintf(path, sizeof(path), "%s/boot/config-test", tree("kconfig-nohz"));
	assert_int_equal(pmc_config_hz_parse_file(path, why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "%s has no CONFIG_HZ line", path);
	assert_string_equal(why, want);
	pmc_config_hz_find(tree("kconfig-nohz"), "test", &c);
	assert_int_equal(c.hz, 0);
	assert_string_equal(c.source, "");
	snprintf(want, sizeof(want), "%s has no CONFIG_HZ line; %s/proc/config.gz: No such file or directory",
		 path, tree("kconfig-nohz"));
	assert_string_equal(c.why, want);
}

/* /boot's file without the line, /proc/config.gz (gzip) with CONFIG_HZ=300: the second source. */
static void test_proc_config_gz(void **state)
{
	struct pmc_config_hz c;
	char path[1100];

	(void)state;
	pmc_config_hz_find(tree("kconfig-gz"), "test", &c);
	assert_int_equal(c.hz, 300);
	snprintf(path, sizeof(path), "%s/proc/config.gz", tree("kconfig-gz"));
	assert_string_equal(c.source, path);
	/* another release: /boot has no file of it, /proc/config.gz still answers */
	pmc_config_hz_find(tree("kconfig-gz"), "6.1.0-other", &c);
	assert_int_equal(c.hz, 300);
}

/* Neither file (the tree "none"): hz 0, both files named as absent; META has null and the why. */
static void test_files_missing(void **state)
{
	struct pmc_config_hz c;
	char want[2400];
	cJSON *m = cJSON_CreateObject();

	(void)state;
	assert_int_equal(pmc_config_hz_parse_file("/nonexistent/config", NULL, 0), -1);
	pmc_config_hz_find(tree("none"), "test", &c);
	assert_int_equal(c.hz, 0);
	snprintf(want, sizeof(want), "%s/boot/config-test: No such file or directory; "
		 "%s/proc/config.gz: No such file or directory", tree("none"), tree("none"));
	assert_string_equal(c.why, want);
	assert_int_equal(pmc_meta_add_config_hz(m, &c), 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(m, "config_hz")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "config_hz_why")->valuestring, want);
	assert_null(cJSON_GetObjectItemCaseSensitive(m, "config_hz_source"));
	cJSON_Delete(m);
	/* found: the number and the file, no why */
	m = cJSON_CreateObject();
	pmc_config_hz_find(tree("kconfig-hz1000"), "test", &c);
	assert_int_equal(pmc_meta_add_config_hz(m, &c), 0);
	assert_true(cJSON_GetObjectItemCaseSensitive(m, "config_hz")->valuedouble == 1000);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "config_hz_source")->valuestring, c.source);
	assert_null(cJSON_GetObjectItemCaseSensitive(m, "config_hz_why"));
	cJSON_Delete(m);
}

/* Values that are no tick rate, a key only as a prefix of a longer line's piece, and a damaged
 * gzip stream. */
static void test_bad_values_and_damage(void **state)
{
	static const char *const bad[] = { "CONFIG_HZ=\n", "CONFIG_HZ=abc\n", "CONFIG_HZ=0\n",
					   "CONFIG_HZ=-250\n", "CONFIG_HZ=250x\n", "CONFIG_HZ=1000000\n" };
	static const uint8_t gz_cut[] = { 0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03,
					  0x73, 0xf6, 0xf7, 0x73 };
	char path[64], why[256], *long_line;
	size_t n = 5000;

	(void)state;
	for (size_t i = 0; i < PM_ARRAY_SIZE(bad); i++) {
		temp_file(path, bad[i], strlen(bad[i]));
		why[0] = '\0';
		assert_int_equal(pmc_config_hz_parse_file(path, why, sizeof(why)), 0);
		assert_non_null(strstr(why, "CONFIG_HZ is not a tick rate from 1 to 100000 Hz"));
		unlink(path);
	}
	/* "CONFIG_HZ=100" inside a line longer than the read buffer is no key; the real line after is */
	long_line = malloc(n + 64);
	assert_non_null(long_line);
	memset(long_line, 'x', n);
	memcpy(long_line, "CONFIG_CMDLINE=\"", 16);
	memcpy(long_line + 4095, "CONFIG_HZ=100", 13);
	snprintf(long_line + n, 64, "\"\nCONFIG_HZ=250\n");
	temp_file(path, long_line, strlen(long_line));
	assert_int_equal(pmc_config_hz_parse_file(path, why, sizeof(why)), 250);
	unlink(path);
	free(long_line);
	/* a gzip stream cut short: an error, not "no line" */
	temp_file(path, (const char *)gz_cut, sizeof(gz_cut));
	why[0] = '\0';
	assert_int_equal(pmc_config_hz_parse_file(path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot read it"));
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot_config_1000),
		cmocka_unit_test(test_config_without_line),
		cmocka_unit_test(test_proc_config_gz),
		cmocka_unit_test(test_files_missing),
		cmocka_unit_test(test_bad_values_and_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
