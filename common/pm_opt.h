/* SPDX-License-Identifier: MIT */
/* pm_opt.h: one option table per command drives getopt_long, the --help option lines and the list
 * of long options the man-page test checks, so help and behaviour cannot drift (modelled on git's
 * parse-options.h, kept small: parsing itself stays a getopt_long switch in the tool).
 *
 * Usage:
 *	static const struct pm_opt opts[] = {
 *		{ "output", 'o', PM_OPT_REQUIRED, "FILE", "trace file to create", 0 },
 *		{ "sched", 0, PM_OPT_NONE, NULL, "record scheduler events", OPT_SCHED },
 *		PM_OPT_END,
 *	};
 *	struct pm_opt_getopt g;
 *	if (pm_opt_getopt_build(opts, PM_OPT_STOP_AT_ARG | PM_OPT_COLON, &g) < 0) ...
 *	while ((c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) switch (c) ...
 *	pm_opt_getopt_free(&g);
 */
#ifndef PM_OPT_H
#define PM_OPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* Whether an option takes an argument (getopt_long's no_argument, required_argument,
 * optional_argument). An optional argument is only taken in the "--name=VALUE" form. */
enum pm_opt_arg { PM_OPT_NONE, PM_OPT_REQUIRED, PM_OPT_OPTIONAL };

/* One row of a command's option table; the table ends with PM_OPT_END (long_name NULL). */
struct pm_opt {
	const char *long_name; /* without the leading "--"; every option has one */
	int short_name;        /* its letter ('o' for -o), or 0 for a long-only option */
	enum pm_opt_arg arg;
	const char *argh;      /* the argument's name in --help ("MS", "FILE"); NULL means "VALUE" */
	/* Help text, units and [default: ...] included. '\n' starts a new help line; lines longer
	 * than the width given to pm_opt_help() are wrapped at spaces. NULL hides the option from
	 * --help and from pm_opt_print_names() (git's PARSE_OPT_HIDDEN). */
	const char *help;
	/* What getopt_long returns for this option. 0 means the short letter; a long-only option
	 * needs its own id, above 255 so that it cannot be mistaken for a letter. */
	int id;
};

#define PM_OPT_END { NULL, 0, PM_OPT_NONE, NULL, NULL, 0 }

/* Flags of pm_opt_getopt_build(): the characters the short-option string starts with. */
#define PM_OPT_STOP_AT_ARG 1 /* '+': stop at the first non-option (the traced command's options) */
#define PM_OPT_COLON 2       /* ':': return ':' for a missing argument, '?' for an unknown option */

/* getopt_long's two arguments, built from a table. */
struct pm_opt_getopt {
	struct option *longopts; /* n + 1 entries, the last all zero */
	char *shortopts;         /* e.g. "+:o:fi:" */
};

/* Returns the id getopt_long reports for o: o->id, or o->short_name when o->id is 0. */
int pm_opt_id(const struct pm_opt *o);

/* Number of rows of opts before PM_OPT_END. */
size_t pm_opt_count(const struct pm_opt *opts);

/* Builds getopt_long's long option array and short-option string from opts; flags is a set of
 * PM_OPT_STOP_AT_ARG and PM_OPT_COLON. Short letters come in table order, followed by ':' for a
 * required and "::" for an optional argument. The caller frees *g with pm_opt_getopt_free().
 * Returns 0, or -1 with errno EINVAL for a bad table (a row without a long name, a long name or
 * short letter used twice, a letter that is not alphanumeric, a long-only option whose id is not
 * above 255, an id that differs from the row's letter) or ENOMEM; *g is then zeroed. */
int pm_opt_getopt_build(const struct pm_opt *opts, int flags, struct pm_opt_getopt *g);

/* Frees what pm_opt_getopt_build() allocated and zeroes *g; accepts a zeroed *g. */
void pm_opt_getopt_free(struct pm_opt_getopt *g);

/* Help column of pm_opt_help(): option names take columns 0-25, help text starts at column 26
 * (git's USAGE_OPTS_WIDTH). */
#define PM_OPT_HELP_COLUMN 26

/* Prints one block per visible option of opts to f, in table order, git-like:
 *	"  -o, --output=FILE       trace file to create"
 *	"      --sched-buffer-kb=KB  tracefs ring buffer per CPU, KiB"
 * i.e. two spaces, "-x, " or four spaces, "--name", "=ARGH" (required) or "[=ARGH]" (optional),
 * padded to column help_col, or two spaces when the names reach past help_col - 2. Each line of the
 * help text after the first is indented to help_col; a line that would end past column width is
 * wrapped at its last space before it (width 0: no wrapping). Returns 0, or -1 when f reports a
 * write error. */
int pm_opt_help(FILE *f, const struct pm_opt *opts, int help_col, int width);

/* Prints the long name of every visible option to f, one "--name" per line in table order: the
 * list the man-page tests check against docs/<tool>.1. Returns 0, or -1 on a write error. */
int pm_opt_print_names(FILE *f, const struct pm_opt *opts);

/* Words the error of a getopt_long return of ':' (missing value) or anything unexpected (unknown
 * option) in git's grammar, into buf (size bufsize): "option '--output' needs a value",
 * "option '--force' takes no value", "unknown option '-x'". c is getopt_long's return; argv and optind, optopt are getopt's state
 * after that call. Returns buf. */
char *pm_opt_error(int c, char *const argv[], int optind_now, int optopt_now, char *buf,
		   size_t bufsize);

#endif
