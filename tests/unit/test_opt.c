/* SPDX-License-Identifier: MIT */
/* test_opt.c: cmocka tests of the option table (common/pm_opt.c): getopt_long's arguments built
 * from it, the parsing into each row's field, the --help lines, the synopsis, the list of long
 * names and the wording of option errors. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pm_opt.h"

#include "pm_cli.h"

/* The options struct the test tables set. */
struct topts {
	const char *output;
	int force, sched;
	long buffer_kb;
	int calibrate_interference;
	unsigned classes;
	int threads;
	double interval_ms;
	int format;
	struct pm_intlist cores;
	int ncb;
	const char *cb_arg;
};

#define T struct topts

/* A callback: counts its calls and keeps its value; "bad" is a bad value. */
static int cb_count(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct topts *o = st->base;

	(void)opt;
	o->ncb++;
	o->cb_arg = arg;
	if (arg && strcmp(arg, "bad") == 0) {
		snprintf(st->why, sizeof(st->why), "want anything but bad");
		return PM_OPT_BAD;
	}
	return PM_OPT_TAKEN;
}

static const struct pm_opt table[] = {
	{ "output", 'o', "FILE", "trace file to create [default: pmtrace.zst]", PM_OPT_STR(T, output) },
	{ "force", 'f', NULL, "overwrite FILE if it exists", PM_OPT_FLAG(T, force, 1) },
	{ "sched", 0, NULL, "record scheduler events\n[default: on]", PM_OPT_FLAG(T, sched, 1) },
	{ "sched-buffer-kb", 0, "KB", "ring buffer per CPU, KiB",
	  PM_OPT_INT(T, buffer_kb, 4, 4194304, "KiB") },
	{ "calibrate-interference", 0, NULL,
	  "measure BW1, B and the cache capacity left with k CSThrs",
	  PM_OPT_FLAG(T, calibrate_interference, 1) },
	{ "classes", 0, NULL, "the PMNF classes", PM_OPT_INT(T, classes, 1, 64, "a unit"),
	  .flags = PM_OPT_OPTARG, .set = 1 },
	{ "secret", 0, NULL, NULL, PM_OPT_CALLBACK(cb_count), .flags = PM_OPT_NOARG },
	{ "threads", 't', "M", "set OMP_NUM_THREADS=M", PM_OPT_INT(T, threads, 1, 1000, NULL) },
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
	assert_int_equal(g.longopts[2].val, 256 + 2);
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
		{ "level", 'l', "N", "x", PM_OPT_INT(T, threads, 0, 9, NULL), .flags = PM_OPT_OPTARG },
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
	int want[] = { 'f', 'o', 256 + 2, 256 + 3, 256 + 5, 'o', 256 + 6 };
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
		if (c == 256 + 3)
			assert_string_equal(optarg, "8");
		if (c == 256 + 5)
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
	assert_string_equal(pm_opt_error('?', argv, 4, 256 + 2, msg, sizeof(msg)),
			    "option '--force' takes no value");
	assert_string_equal(pm_opt_error('?', argv, 2, 0, msg, 10), "unknown o");
}

static void test_bad_tables(void **state)
{
	static const struct pm_opt dup_long[] = {
		{ "a", 'a', NULL, "x", PM_OPT_FLAG(T, force, 1) }, { "a", 'b', NULL, "x", PM_OPT_FLAG(T, force, 1) },
		PM_OPT_END,
	};
	static const struct pm_opt dup_short[] = {
		{ "a", 'a', NULL, "x", PM_OPT_FLAG(T, force, 1) }, { "b", 'a', NULL, "x", PM_OPT_FLAG(T, force, 1) },
		PM_OPT_END,
	};
	static const struct pm_opt no_dest[] = { { "a", 0, NULL, "x", .kind = PM_OPT_KIND_STRING }, PM_OPT_END };
	static const struct pm_opt no_cb[] = { { "a", 0, NULL, "x", .kind = PM_OPT_KIND_CALLBACK }, PM_OPT_END };
	static const struct pm_opt flag_double[] = {
		{ "a", 0, NULL, "x", .kind = PM_OPT_KIND_FLAG, PM_OPT_AT(T, interval_ms, double) }, PM_OPT_END,
	};
	static const struct pm_opt no_choices[] = {
		{ "a", 0, NULL, "x", .kind = PM_OPT_KIND_CHOICE, PM_OPT_AT_INT(T, format) }, PM_OPT_END,
	};
	static const struct pm_opt bad_range[] = {
		{ "a", 0, NULL, "x", PM_OPT_INT(T, threads, 9, 1, NULL) }, PM_OPT_END,
	};
	static const struct pm_opt bad_letter[] = { { "a", '-', NULL, "x", PM_OPT_FLAG(T, force, 1) }, PM_OPT_END };
	static const struct pm_opt empty_name[] = { { "", 'a', NULL, "x", PM_OPT_FLAG(T, force, 1) }, PM_OPT_END };
	const struct pm_opt *bad[] = { dup_long, dup_short, no_dest, no_cb, flag_double, no_choices,
				       bad_range, bad_letter, empty_name };
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

static const struct pm_opt_usage prog_usage = { .short_usage = "usage: prog", .prog = "prog" };

/* Runs pm_opt_parse of table over the words (NULL-terminated) into *o, stderr to /dev/null;
 * returns its result. */
static int parse_words(const struct pm_opt *opts, struct topts *o, const char **words)
{
	char *argv[16];
	int argc = 0, rc, saved = dup(2), null = open("/dev/null", O_WRONLY);

	argv[argc++] = (char *)(uintptr_t)"prog";
	while (*words && argc < 15)
		argv[argc++] = (char *)(uintptr_t)*words++;
	argv[argc] = NULL;
	optind = 0;
	fflush(stderr);
	dup2(null, 2);
	rc = pm_opt_parse(opts, PM_OPT_STOP_AT_ARG, &prog_usage, argc, argv, o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(null);
	return rc;
}

/* Each kind sets its field; a bad value, an unknown option and a missing value stop with 2. */
static void test_parse_kinds(void **state)
{
	static const struct pm_opt kinds[] = {
		{ "interval", 'i', "MS", "x", PM_OPT_DOUBLE(T, interval_ms, 0.1, 10000, "milliseconds") },
		{ "above", 0, "X", "x", PM_OPT_DOUBLE(T, interval_ms, 0, 100, NULL), .flags = PM_OPT_ABOVE,
		  .divide_by = 100 },
		{ "format", 'F', NULL, "x", PM_OPT_CHOICE(T, format, "table|json|csv") },
		{ "cores", 'c', NULL, "x", PM_OPT_LIST(T, cores, 1, 64) },
		{ "cb", 0, NULL, "x", PM_OPT_CALLBACK(cb_count) },
		PM_OPT_END,
	};
	struct topts o = { 0 };

	(void)state;
	assert_int_equal(parse_words(table, &o, (const char *[]){ "-f", "--sched", "-o", "x.zst",
		"--sched-buffer-kb=8", "--classes", "-t", "12", "--secret", "cmd", "-o", NULL }), -1);
	assert_int_equal(o.force, 1);
	assert_int_equal(o.sched, 1);
	assert_string_equal(o.output, "x.zst");
	assert_int_equal(o.buffer_kb, 8);
	assert_int_equal(o.classes, 1); /* no value: .set */
	assert_int_equal(o.threads, 12);
	assert_int_equal(o.ncb, 1);
	assert_null(o.cb_arg);
	assert_int_equal(parse_words(table, &o, (const char *[]){ "--classes=7", NULL }), -1);
	assert_int_equal(o.classes, 7);

	assert_int_equal(parse_words(kinds, &o, (const char *[]){ "-i", "2.5", "-F", "csv", "-c", "1-4,8",
		"--cb", "v", NULL }), -1);
	assert_true(o.interval_ms == 2.5);
	assert_int_equal(o.format, 2);
	assert_int_equal(o.cores.n, 5);
	assert_int_equal(o.cores.v[4], 8);
	assert_string_equal(o.cb_arg, "v");
	assert_int_equal(parse_words(kinds, &o, (const char *[]){ "--above", "50", NULL }), -1);
	assert_true(o.interval_ms == 0.5); /* divided by .divide_by */

	/* bad values: status 2, the field left alone */
	const char *bad[][3] = {
		{ "-i", "0", NULL }, { "-i", "nan", NULL }, { "-i", "inf", NULL }, { "-i", "1x", NULL },
		{ "--above", "0", NULL }, { "-F", "xml", NULL }, { "-c", "0", NULL }, { "-c", "5-2", NULL },
		{ "--cb", "bad", NULL },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_words(kinds, &o, bad[i]), 2);
	assert_true(o.interval_ms == 0.5);
	assert_int_equal(o.format, 2);
	assert_int_equal(o.cores.n, 5);
	assert_int_equal(parse_words(table, &o, (const char *[]){ "-t", "0", NULL }), 2);
	assert_int_equal(parse_words(table, &o, (const char *[]){ "--sched-buffer-kb", "3", NULL }), 2);
	assert_int_equal(o.threads, 12);
	assert_int_equal(parse_words(table, &o, (const char *[]){ "--nope", NULL }), 2);
	assert_int_equal(parse_words(table, &o, (const char *[]){ "-o", NULL }), 2);
	pm_intlist_free(&o.cores);
}

/* The error lines of bad values, as the user reads them. */
static void test_parse_errors(void **state)
{
	static const struct pm_opt kinds[] = {
		{ "interval", 'i', "MS", "x", PM_OPT_DOUBLE(T, interval_ms, 0.1, 10000, "milliseconds") },
		{ "se", 0, "X", "x", PM_OPT_DOUBLE(T, interval_ms, 0, INFINITY, NULL), .flags = PM_OPT_ABOVE },
		{ "pct", 0, "X", "x", PM_OPT_DOUBLE(T, interval_ms, 0, 1000, "a percentage"), .flags = PM_OPT_ABOVE },
		{ "jobs", 'j', "N", "x", PM_OPT_INT(T, threads, 1, 4096, NULL) },
		{ "format", 'F', NULL, "x", PM_OPT_CHOICE(T, format, "table|json|csv") },
		{ "two", 0, NULL, "x", PM_OPT_CHOICE(T, format, "svg|png") },
		{ "cores", 'c', NULL, "x", PM_OPT_LIST(T, cores, 1, 64) },
		PM_OPT_END,
	};
	const char *cases[][3] = {
		{ "-i", "0", "prog: error: invalid --interval '0': want milliseconds from 0.1 to 10000\n" },
		{ "--se", "-1", "prog: error: invalid --se '-1': want a number above 0\n" },
		{ "--pct", "2000", "prog: error: invalid --pct '2000': want a percentage above 0, up to 1000\n" },
		{ "-j", "x", "prog: error: invalid --jobs 'x': want a whole number from 1 to 4096\n" },
		{ "-F", "xml", "prog: error: invalid --format 'xml': want table, json or csv\n" },
		{ "--two", "gif", "prog: error: invalid --two 'gif': want svg or png\n" },
		{ "-c", "5-2", "prog: error: invalid --cores '5-2': range '5-2' runs backwards\n" },
		{ "-x", NULL, "prog: error: unknown option '-x'\nusage: prog\n" },
	};
	struct topts o = { 0 };

	(void)state;
	pm_cli_set_prog("prog");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { (char *)(uintptr_t)"prog", (char *)(uintptr_t)cases[i][0],
				 (char *)(uintptr_t)cases[i][1], NULL };
		char path[] = "/tmp/test_opt.XXXXXX", got[512];
		int fd = mkstemp(path), saved = dup(2);
		ssize_t n;

		assert_true(fd >= 0);
		optind = 0;
		fflush(stderr);
		dup2(fd, 2);
		assert_int_equal(pm_opt_parse(kinds, 0, &prog_usage, cases[i][1] ? 3 : 2, argv, &o), 2);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		n = pread(fd, got, sizeof(got) - 1, 0);
		close(fd);
		unlink(path);
		assert_true(n > 0);
		got[n] = '\0';
		assert_string_equal(got, cases[i][2]);
	}
}

/* The synopsis: every visible option not in a form, in table order, wrapped under the first. */
static void test_synopsis(void **state)
{
	static const struct pm_opt syn[] = {
		{ "output", 'o', "FILE", "x", PM_OPT_STR(T, output) },
		{ "format", 'F', "<fmt>", "x", PM_OPT_CHOICE(T, format, "table|json|csv") },
		{ "label", 'l', "KEY=VALUE", "x", PM_OPT_STR(T, output) },
		{ "classes", 0, "<unit>", "x", PM_OPT_INT(T, classes, 1, 9, NULL), .flags = PM_OPT_OPTARG },
		{ "force", 'f', NULL, "x", PM_OPT_FLAG(T, force, 1) },
		{ "info", 'I', NULL, "x", PM_OPT_FLAG(T, force, 1), .flags = PM_OPT_FORM },
		{ "hidden", 0, NULL, NULL, PM_OPT_FLAG(T, force, 1) },
		PM_OPT_END,
	};
	static const char *const forms[] = { "--info <trace>", NULL };
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	(void)state;
	assert_non_null(f);
	assert_int_equal(pm_opt_synopsis(f, "tool", syn, "<trace>...", forms, 60), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf,
		"usage: tool [--output <file>] [--format table|json|csv]\n"
		"            [--label <key>=<value>] [--classes[=<unit>]]\n"
		"            [--force] <trace>...\n"
		"   or: tool --info <trace>\n");
	free(buf);
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
		{ "interval", 'i', "MS",
		  "sampling interval in milliseconds, 0.1 to 10000 [default: 10]\nsecond line",
		  PM_OPT_DOUBLE(T, interval_ms, 0.1, 10000, "milliseconds") },
		{ "long", 0, NULL, "abcdefghijklmnopqrstuvwxyz0123456789 x", PM_OPT_FLAG(T, force, 1) },
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
		cmocka_unit_test(test_parse_kinds),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_synopsis),
		cmocka_unit_test(test_help_lines),
		cmocka_unit_test(test_help_wrap),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
