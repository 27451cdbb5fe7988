/* SPDX-License-Identifier: MIT */
/* test_opt.c: cmocka tests of the option table (common/pm_opt.c): getopt_long's arguments built
 * from it, the --help lines, the list of long names and the wording of option errors. */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pm_opt.h"

enum { OPT_SCHED = 256, OPT_SCHED_BUFFER, OPT_CAL_INTERFERE, OPT_CLASSES, OPT_SECRET };

static const struct pm_opt table[] = {
	{ "output", 'o', PM_OPT_REQUIRED, "FILE", "trace file to create [default: pmtrace.zst]", 0 },
	{ "force", 'f', PM_OPT_NONE, NULL, "overwrite FILE if it exists", 0 },
	{ "sched", 0, PM_OPT_NONE, NULL, "record scheduler events\n[default: on]", OPT_SCHED },
	{ "sched-buffer-kb", 0, PM_OPT_REQUIRED, "KB", "ring buffer per CPU, KiB", OPT_SCHED_BUFFER },
	{ "calibrate-interference", 0, PM_OPT_NONE, NULL,
	  "measure BW1, B and the cache capacity left with k CSThrs", OPT_CAL_INTERFERE },
	{ "classes", 0, PM_OPT_OPTIONAL, NULL, "the PMNF classes", OPT_CLASSES },
	{ "secret", 0, PM_OPT_NONE, NULL, NULL, OPT_SECRET },
	{ "threads", 't', PM_OPT_REQUIRED, "M", "set OMP_NUM_THREADS=M", 't' },
	PM_OPT_END,
};

/* Runs pm_opt_help (or pm_opt_print_names when names) into a string; the caller frees it. */
static char *render(const struct pm_opt *opts, int names, int width)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	assert_non_null(f);
	if (names)
		assert_int_equal(pm_opt_print_names(f, opts), 0);
	else
		assert_int_equal(pm_opt_help(f, opts, PM_OPT_HELP_COLUMN, width), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_build(void **state)
{
	struct pm_opt_getopt g;

	(void)state;
	assert_int_equal(pm_opt_count(table), 8);
	assert_int_equal(pm_opt_getopt_build(table, PM_OPT_STOP_AT_ARG | PM_OPT_COLON, &g), 0);
	assert_string_equal(g.shortopts, "+:o:ft:");
	assert_string_equal(g.longopts[0].name, "output");
	assert_int_equal(g.longopts[0].has_arg, required_argument);
	assert_int_equal(g.longopts[0].val, 'o');
	assert_int_equal(g.longopts[2].has_arg, no_argument);
	assert_int_equal(g.longopts[2].val, OPT_SCHED);
	assert_int_equal(g.longopts[5].has_arg, optional_argument);
	assert_int_equal(g.longopts[7].val, 't');
	assert_null(g.longopts[8].name);
	pm_opt_getopt_free(&g);
	assert_null(g.longopts);
	assert_null(g.shortopts);
	pm_opt_getopt_free(&g); /* a zeroed one is fine */

	assert_int_equal(pm_opt_getopt_build(table, 0, &g), 0);
	assert_string_equal(g.shortopts, "o:ft:");
	pm_opt_getopt_free(&g);
	assert_int_equal(pm_opt_getopt_build(table, PM_OPT_COLON, &g), 0);
	assert_string_equal(g.shortopts, ":o:ft:");
	pm_opt_getopt_free(&g);

	static const struct pm_opt opt_short[] = {
		{ "level", 'l', PM_OPT_OPTIONAL, "N", "x", 0 },
		PM_OPT_END,
	};
	assert_int_equal(pm_opt_getopt_build(opt_short, PM_OPT_STOP_AT_ARG, &g), 0);
	assert_string_equal(g.shortopts, "+l::");
	pm_opt_getopt_free(&g);
}

/* The arrays drive getopt_long: letters and long names give the same id, '+' stops at the
 * command, ':' reports a missing value. */
static void test_parse(void **state)
{
	char a0[] = "pmcollect", a1[] = "-fo", a2[] = "x.zst", a3[] = "--sched",
	     a4[] = "--sched-buffer-kb=8", a5[] = "--classes=lin", a6[] = "--output", a7[] = "y",
	     a8[] = "cmd", a9[] = "-o", a10[] = "--secret";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, a7, a10, a8, a9, NULL };
	int want[] = { 'f', 'o', OPT_SCHED, OPT_SCHED_BUFFER, OPT_CLASSES, 'o', OPT_SECRET };
	struct pm_opt_getopt g;
	size_t k = 0;
	int c;

	(void)state;
	assert_int_equal(pm_opt_getopt_build(table, PM_OPT_STOP_AT_ARG | PM_OPT_COLON, &g), 0);
	optind = 0; /* glibc: a full re-initialisation */
	opterr = 0;
	while ((c = getopt_long(11, argv, g.shortopts, g.longopts, NULL)) != -1) {
		assert_true(k < sizeof(want) / sizeof(want[0]));
		assert_int_equal(c, want[k]);
		if (c == OPT_SCHED_BUFFER)
			assert_string_equal(optarg, "8");
		if (c == OPT_CLASSES)
			assert_string_equal(optarg, "lin");
		k++;
	}
	assert_int_equal(k, 7);
	assert_string_equal(argv[optind], "cmd"); /* "-o" after the command is the command's */

	char *argv2[] = { a0, a9, NULL };
	char msg[64];
	optind = 0;
	c = getopt_long(2, argv2, g.shortopts, g.longopts, NULL);
	assert_int_equal(c, ':');
	assert_string_equal(pm_opt_error(c, argv2, optind, optopt, msg, sizeof(msg)),
			    "option '-o' needs a value");
	pm_opt_getopt_free(&g);
}

static void test_error_words(void **state)
{
	char a0[] = "p", a1[] = "--nope", a2[] = "-z", a3[] = "--force=1";
	char *argv[] = { a0, a1, a2, a3, NULL };
	char msg[64];

	(void)state;
	assert_string_equal(pm_opt_error('?', argv, 2, 0, msg, sizeof(msg)),
			    "unknown option '--nope'");
	assert_string_equal(pm_opt_error('?', argv, 3, 'z', msg, sizeof(msg)),
			    "unknown option '-z'");
	/* a value given to a long option that takes none: getopt sets optopt to its id */
	assert_string_equal(pm_opt_error('?', argv, 4, 'f', msg, sizeof(msg)),
			    "option '--force' takes no value");
	assert_string_equal(pm_opt_error(':', argv, 2, 0, msg, sizeof(msg)),
			    "option '--nope' needs a value");
	assert_string_equal(pm_opt_error('?', argv, 4, OPT_SCHED, msg, sizeof(msg)),
			    "option '--force' takes no value");
	assert_string_equal(pm_opt_error('?', argv, 2, 0, msg, 10), "unknown o");
}

static void test_bad_tables(void **state)
{
	static const struct pm_opt dup_long[] = {
		{ "a", 'a', PM_OPT_NONE, NULL, "x", 0 }, { "a", 'b', PM_OPT_NONE, NULL, "x", 0 },
		PM_OPT_END,
	};
	static const struct pm_opt dup_short[] = {
		{ "a", 'a', PM_OPT_NONE, NULL, "x", 0 }, { "b", 'a', PM_OPT_NONE, NULL, "x", 0 },
		PM_OPT_END,
	};
	static const struct pm_opt low_id[] = {
		{ "a", 0, PM_OPT_NONE, NULL, "x", 'a' }, PM_OPT_END,
	};
	static const struct pm_opt other_id[] = {
		{ "a", 'a', PM_OPT_NONE, NULL, "x", 300 }, PM_OPT_END,
	};
	static const struct pm_opt bad_letter[] = {
		{ "a", '-', PM_OPT_NONE, NULL, "x", 0 }, PM_OPT_END,
	};
	static const struct pm_opt empty_name[] = {
		{ "", 'a', PM_OPT_NONE, NULL, "x", 0 }, PM_OPT_END,
	};
	const struct pm_opt *bad[] = { dup_long, dup_short, low_id, other_id, bad_letter, empty_name };
	struct pm_opt_getopt g;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_int_equal(pm_opt_getopt_build(bad[i], PM_OPT_COLON, &g), -1);
		assert_int_equal(errno, EINVAL);
		assert_null(g.longopts);
		assert_null(g.shortopts);
	}
}

/* git-like alignment: names padded to column 26, or two spaces when they reach past 24; '\n' in
 * the help indents the next line to 26; hidden options are not listed. */
static void test_help_lines(void **state)
{
	char *out = render(table, 0, 0);

	(void)state;
	assert_string_equal(out,
		"  -o, --output=FILE       trace file to create [default: pmtrace.zst]\n"
		"  -f, --force             overwrite FILE if it exists\n"
		"      --sched             record scheduler events\n"
		"                          [default: on]\n"
		"      --sched-buffer-kb=KB  ring buffer per CPU, KiB\n"
		"      --calibrate-interference  measure BW1, B and the cache capacity left with k CSThrs\n"
		"      --classes[=VALUE]   the PMNF classes\n"
		"  -t, --threads=M         set OMP_NUM_THREADS=M\n");
	free(out);
}

/* A help line longer than the width wraps at its last space before the width, the rest
 * indented to the help column; a word longer than the room is not cut. */
static void test_help_wrap(void **state)
{
	static const struct pm_opt wrap[] = {
		{ "interval", 'i', PM_OPT_REQUIRED, "MS",
		  "sampling interval in milliseconds, 0.1 to 10000 [default: 10]\nsecond line", 0 },
		{ "long", 0, PM_OPT_NONE, NULL, "abcdefghijklmnopqrstuvwxyz0123456789 x", 300 },
		PM_OPT_END,
	};
	char *out = render(wrap, 0, 60);

	(void)state;
	assert_string_equal(out,
		"  -i, --interval=MS       sampling interval in milliseconds,\n"
		"                          0.1 to 10000 [default: 10]\n"
		"                          second line\n"
		"      --long              abcdefghijklmnopqrstuvwxyz0123456789\n"
		"                          x\n");
	free(out);
	for (int width = 30; width <= 90; width++) { /* no line ends past the width unless a word */
		char *o = render(wrap, 0, width), *line = o, *nl;

		for (; (nl = strchr(line, '\n')); line = nl + 1)
			assert_true(nl - line <= (width > 62 ? width : 62));
		free(o);
	}
}

static void test_names(void **state)
{
	char *out = render(table, 1, 0);

	(void)state;
	assert_string_equal(out, "--output\n--force\n--sched\n--sched-buffer-kb\n"
				 "--calibrate-interference\n--classes\n--threads\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_error_words),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_help_lines),
		cmocka_unit_test(test_help_wrap),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
