/* SPDX-License-Identifier: MIT */
/* test_cli.c: cmocka tests of the front ends' shared helpers (common/pm_cli.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "pm_cli.h"

/* Parses s in [lo, hi] and asserts success with exactly the values want[0..n-1]. */
static void expect_list(const char *s, uint32_t lo, uint32_t hi, const uint32_t *want, size_t n)
{
	struct pm_intlist l;
	char why[128] = "";

	assert_int_equal(pm_intlist_parse(s, lo, hi, &l, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(l.n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l.v[i], want[i]);
	pm_intlist_free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
}

/* Parses s and asserts failure with an empty list and a reason containing needle. */
static void expect_reject(const char *s, uint32_t lo, uint32_t hi, const char *needle)
{
	struct pm_intlist l = { (uint32_t *)&l, 99 };
	char why[128] = "";

	assert_int_equal(pm_intlist_parse(s, lo, hi, &l, why, sizeof(why)), -1);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	assert_true(why[0] != '\0');
	assert_null(strchr(why, '\n'));
	if (needle && !strstr(why, needle))
		fail_msg("reason for '%s' is '%s', want it to mention '%s'", s, why, needle);
}

static void test_parse_single(void **state)
{
	static const uint32_t want[] = { 0 };
	(void)state;
	expect_list("0", 0, 1023, want, 1);
}

static void test_parse_range_and_value(void **state)
{
	static const uint32_t want[] = { 0, 1, 2, 3, 8 };
	(void)state;
	expect_list("0-3,8", 0, 1023, want, 5);
}

static void test_parse_stride(void **state)
{
	uint32_t want[16];
	(void)state;
	for (uint32_t i = 0; i < 16; i++)
		want[i] = 1 + 4 * i; /* 1, 5, ..., 61: 65 is past the range */
	expect_list("1-64:4", 1, 1024, want, 16);
}

static void test_parse_values(void **state)
{
	static const uint32_t want[] = { 1, 2, 4, 8 };
	(void)state;
	expect_list("1,2,4,8", 1, 8, want, 4);
}

static void test_parse_sorts_and_dedups(void **state)
{
	static const uint32_t want[] = { 1, 3 };
	static const uint32_t want2[] = { 0, 1, 2, 3, 4, 5, 6 };
	(void)state;
	expect_list("3,1,1", 0, 10, want, 2);
	expect_list("4-6,0-3,2-5", 0, 10, want2, 7);
}

static void test_parse_bounds_inclusive(void **state)
{
	static const uint32_t want[] = { 1, 64 };
	static const uint32_t want2[] = { 4294967295u };
	(void)state;
	expect_list("1,64", 1, 64, want, 2);
	expect_list("4294967295", 0, UINT32_MAX, want2, 1);
}

static void test_reject_open_range(void **state)
{
	(void)state;
	expect_reject("0-", 0, 1023, "0-");
}

static void test_reject_not_a_number(void **state)
{
	(void)state;
	expect_reject("x", 0, 1023, "'x'");
	expect_reject("1-x", 0, 1023, NULL);
	expect_reject(" 1", 0, 1023, NULL);
	expect_reject("-1", 0, 1023, NULL);
	expect_reject("1-4:0", 0, 1023, NULL);
	expect_reject("3:2", 0, 1023, NULL); /* a stride needs a range */
	expect_reject("99999999999", 0, UINT32_MAX, NULL);
}

static void test_reject_backwards(void **state)
{
	(void)state;
	expect_reject("5-2", 0, 1023, "backwards");
	expect_reject("0,5-2", 0, 1023, "'5-2'");
}

static void test_reject_empty(void **state)
{
	struct pm_intlist l;
	char why[64];
	(void)state;
	expect_reject("", 0, 1023, "empty");
	assert_int_equal(pm_intlist_parse(NULL, 0, 10, &l, why, sizeof(why)), -1);
}

static void test_reject_empty_item(void **state)
{
	(void)state;
	expect_reject("1,,2", 0, 1023, NULL);
	expect_reject("1,", 0, 1023, NULL);
	expect_reject(",1", 0, 1023, NULL);
}

static void test_reject_above_max(void **state)
{
	(void)state;
	expect_reject("1024", 0, 1023, "outside 0-1023");
	expect_reject("1000-1030", 0, 1023, "outside");
	expect_reject("0-64:4", 0, 63, "outside");
}

static void test_reject_below_min(void **state)
{
	(void)state;
	expect_reject("0", 1, 64, "outside 1-64");
	expect_reject("0-3", 1, 64, "outside");
}

/* The documented limit is 1,000,000 values: exactly that many must parse. */
static void test_million_values(void **state)
{
	struct pm_intlist l;
	char why[128] = "";
	(void)state;
	assert_int_equal(pm_intlist_parse("0-999999", 0, UINT32_MAX, &l, why, sizeof(why)), 0);
	assert_int_equal(l.n, 1000000);
	assert_int_equal(l.v[999999], 999999);
	pm_intlist_free(&l);
	expect_reject("0-1000000", 0, UINT32_MAX, "more than 1000000 values");
	pm_intlist_free(NULL);
}

static void test_reject_without_why(void **state)
{
	struct pm_intlist l;
	(void)state;
	assert_int_equal(pm_intlist_parse("5-2", 0, 10, &l, NULL, 0), -1);
}

/* Formats s parsed in [lo, hi]; asserts the text and that it parses back to the same list. */
static void expect_format(const char *s, const char *want)
{
	struct pm_intlist a, b;
	char why[128], buf[512];

	assert_int_equal(pm_intlist_parse(s, 0, 100000, &a, why, sizeof(why)), 0);
	assert_string_equal(pm_intlist_format(&a, buf, sizeof(buf)), want);
	assert_int_equal(pm_intlist_parse(buf, 0, 100000, &b, why, sizeof(why)), 0);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.v, b.v, a.n * sizeof(*a.v));
	pm_intlist_free(&a);
	pm_intlist_free(&b);
}

static void test_format_round_trip(void **state)
{
	(void)state;
	expect_format("0", "0");
	expect_format("0-3,8", "0-3,8");
	expect_format("8,3,2,1,0", "0-3,8");
	expect_format("1,2,4,8", "1-2,4,8");
	expect_format("1-64:4", "1,5,9,13,17,21,25,29,33,37,41,45,49,53,57,61");
	expect_format("0-1,3-4,100000", "0-1,3-4,100000");
}

static void test_format_empty_list(void **state)
{
	struct pm_intlist l = { NULL, 0 };
	char buf[8] = "junk";
	(void)state;
	assert_string_equal(pm_intlist_format(&l, buf, sizeof(buf)), "");
}

/* A list that does not fit ends in "...", never in a cut number that would parse as another list. */
static void test_format_truncated(void **state)
{
	struct pm_intlist l;
	char why[64], buf[7];
	(void)state;
	assert_int_equal(pm_intlist_parse("0-31,1000", 0, 1000, &l, why, sizeof(why)), 0);
	assert_string_equal(pm_intlist_format(&l, buf, sizeof(buf)), "...");
	assert_string_equal(pm_intlist_format(&l, why, 9), "0-31,...");
	assert_string_equal(pm_intlist_format(&l, why, 10), "0-31,1000");
	assert_string_equal(pm_intlist_format(&l, why, 3), "");
	pm_intlist_free(&l);
	assert_int_equal(pm_intlist_parse("1,3,5,7,9,11", 0, 1000, &l, why, sizeof(why)), 0);
	assert_string_equal(pm_intlist_format(&l, buf, sizeof(buf)), "1,...");
	pm_intlist_free(&l);
}

static void expect_sanitized(const char *in, size_t inlen, size_t dstsize, const char *want)
{
	char out[256];
	assert_true(dstsize <= sizeof(out));
	memset(out, 'Z', sizeof(out));
	assert_ptr_equal(pm_cli_sanitize(out, dstsize, in, inlen), out);
	assert_string_equal(out, want);
}

static void test_sanitize_controls(void **state)
{
	(void)state;
	expect_sanitized("a\tb\nc\x1b[31md\x7f", 13, 64, "a?b?c?[31md?");
	expect_sanitized("plain ascii a) b", 16, 64, "plain ascii a) b");
}

static void test_sanitize_keeps_utf8(void **state)
{
	(void)state;
	expect_sanitized("caf\xc3\xa9", 5, 64, "caf\xc3\xa9");                 /* é */
	expect_sanitized("\xe2\x82\xac \xf0\x9f\x98\x80", 8, 64, "\xe2\x82\xac \xf0\x9f\x98\x80");
}

static void test_sanitize_invalid_utf8(void **state)
{
	(void)state;
	expect_sanitized("a\xff" "b", 3, 64, "a?b");
	expect_sanitized("\xc3(", 2, 64, "?(");             /* lead byte without continuation */
	expect_sanitized("\xc0\xaf", 2, 64, "??");          /* overlong '/' */
	expect_sanitized("\xed\xa0\x80", 3, 64, "???");     /* surrogate U+D800 */
	expect_sanitized("\xf4\x90\x80\x80", 4, 64, "????"); /* past U+10FFFF */
	expect_sanitized("ab\xc3", 3, 64, "ab?");           /* cut at the end of the input */
	expect_sanitized("\xc3\xa9", 1, 64, "?");           /* cut by srclen */
	expect_sanitized("\xc2\x9b" "1m", 4, 64, "?1m");    /* C1 control CSI (U+009B) */
	expect_sanitized("\xc2\xa0", 2, 64, "\xc2\xa0");    /* U+00A0 is not a control */
}

static void test_sanitize_bounds(void **state)
{
	(void)state;
	expect_sanitized("abcdef", 6, 4, "abc");
	expect_sanitized("ab\xc3\xa9", 4, 4, "ab");    /* é does not fit: not cut in half */
	expect_sanitized("abc\0def", 7, 64, "abc");    /* stops at NUL */
	expect_sanitized("abcdef", 2, 64, "ab");
	expect_sanitized("x", 1, 1, "");
}

/* pm_cli_report prints one sanitized line "<prog>: <level>: <message>" to stderr. */
static void test_report_line(void **state)
{
	char got[256] = "";
	int fd = memfd_create("stderr", 0), saved;
	ssize_t n;

	(void)state;
	assert_true(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	pm_cli_set_prog("pmanalyze");
	pm_cli_error("cannot open '%s': %s", "x\x1b]0;owned\x07.zst", "No such file or directory");
	pm_cli_warning("trace ends inside chunk %d", 3);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	n = pread(fd, got, sizeof(got) - 1, 0);
	close(fd);
	assert_true(n > 0);
	assert_string_equal(got, "pmanalyze: error: cannot open 'x?]0;owned?.zst': No such file or "
				 "directory\npmanalyze: warning: trace ends inside chunk 3\n");
	assert_string_equal(pm_cli_prog(), "pmanalyze");
}

/* Whole decimal numbers in range only; *out untouched on refusal. */
static void test_parse_long(void **state)
{
	long v = 7;

	(void)state;
	assert_int_equal(pm_cli_parse_long("4096", 4, 4194304, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(pm_cli_parse_long("4", 4, 10, &v), 0);
	assert_int_equal(v, 4);
	v = 7;
	assert_int_equal(pm_cli_parse_long("3", 4, 10, &v), -1);
	assert_int_equal(pm_cli_parse_long("11", 4, 10, &v), -1);
	assert_int_equal(pm_cli_parse_long("", 0, 10, &v), -1);
	assert_int_equal(pm_cli_parse_long("5k", 0, 10, &v), -1);
	assert_int_equal(pm_cli_parse_long("99999999999999999999", 0, 10, &v), -1);
	assert_int_equal(v, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_single),
		cmocka_unit_test(test_parse_range_and_value),
		cmocka_unit_test(test_parse_stride),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_parse_sorts_and_dedups),
		cmocka_unit_test(test_parse_bounds_inclusive),
		cmocka_unit_test(test_reject_open_range),
		cmocka_unit_test(test_reject_not_a_number),
		cmocka_unit_test(test_reject_backwards),
		cmocka_unit_test(test_reject_empty),
		cmocka_unit_test(test_reject_empty_item),
		cmocka_unit_test(test_reject_above_max),
		cmocka_unit_test(test_reject_below_min),
		cmocka_unit_test(test_million_values),
		cmocka_unit_test(test_reject_without_why),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_format_empty_list),
		cmocka_unit_test(test_format_truncated),
		cmocka_unit_test(test_sanitize_controls),
		cmocka_unit_test(test_sanitize_keeps_utf8),
		cmocka_unit_test(test_sanitize_invalid_utf8),
		cmocka_unit_test(test_sanitize_bounds),
		cmocka_unit_test(test_report_line),
		cmocka_unit_test(test_parse_long),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
