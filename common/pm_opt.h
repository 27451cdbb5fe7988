/* SPDX-License-Identifier: MIT */
/* pm_opt.h: one option table per command names each option, its help, its kind and the field it
 * sets, and drives the parsing, the --help option lines, the synopsis and the list of long options
 * the man-page test checks, so help and behaviour cannot drift (modelled on git's
 * parse-options.h: OPT_BOOL, OPT_INTEGER, OPT_STRING, OPT_CALLBACK).
 *
 * Usage (the destinations are fields of the tool's options struct, named by offset, so the table
 * is a static const array):
 *	static const struct pm_opt opts[] = {
 *		{ "output", 'o', "FILE", "trace file to create", PM_OPT_STR(struct opts, output) },
 *		{ "force", 'f', NULL, "overwrite it", PM_OPT_FLAG(struct opts, force, 1) },
 *		{ "interval", 'i', "MS", "sampling interval",
 *		  PM_OPT_DOUBLE(struct opts, interval_ms, 0.1, 10000, "milliseconds") },
 *		PM_OPT_END,
 *	};
 *	struct opts o = { ... };
 *	static const struct pm_opt_usage usage = { "usage: tool [options] <file>", "tool", "<file>" };
 *	int rc = pm_opt_parse(opts, PM_OPT_STOP_AT_ARG, &usage, argc, argv, &o);
 *	if (rc >= 0) return rc;   // --help done, or an error reported
 *	// argv[optind..] are the operands
 */
#ifndef PM_OPT_H
#define PM_OPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* Whether an option takes an argument (getopt_long's no_argument, required_argument,
 * optional_argument). An optional argument is only taken in the "--name=VALUE" form. */
enum pm_opt_arg { PM_OPT_NONE, PM_OPT_REQUIRED, PM_OPT_OPTIONAL };

/* What the parser does with an option's value, and with which destination field. */
enum pm_opt_kind {
	PM_OPT_KIND_FLAG,     /* no value: stores .set into an int-sized field (int, enum) */
	PM_OPT_KIND_STRING,   /* stores the value (a pointer into argv) into a const char * field */
	PM_OPT_KIND_INT,      /* a whole decimal number in [.min, .max] into a 4- or 8-byte integer
				 field (int, unsigned, uint32_t, long) */
	PM_OPT_KIND_DOUBLE,   /* a decimal number in [.min, .max] (above .min with PM_OPT_ABOVE),
				 divided by .divide_by when not 0, into a double field */
	PM_OPT_KIND_CHOICE,   /* one of .choices ("table|json|csv"): its index, or what .parse
				 returns for it, into an int-sized field */
	PM_OPT_KIND_LIST,     /* a list of whole numbers in [.min, .max] (pm_intlist_parse: 1-8,
				 1-64:4) into a struct pm_intlist field, replacing the one before */
	PM_OPT_KIND_CALLBACK, /* .cb takes the value (NULL without one) */
};

/* Flags of a row (.flags). */
#define PM_OPT_NOARG 1  /* a callback that takes no value */
#define PM_OPT_OPTARG 2 /* the value is optional ("--name=VALUE" only); without it an INT stores .set */
#define PM_OPT_ABOVE 4  /* a DOUBLE's lower bound is exclusive: "above 0" */
#define PM_OPT_FORM 8   /* the synopsis leaves it out of the first line: a form of the tool's own
			   ("or: pmanalyze --info <trace>") names it */

struct pm_opt;
struct pm_opt_state;

/* A callback's returns besides an exit status >= 0 (which stops the parsing: --help done, or an
 * error it reported itself). */
#define PM_OPT_TAKEN (-1) /* the value is taken: go on */
#define PM_OPT_BAD (-2)   /* a bad value: the parser reports "invalid --NAME 'VALUE': WHY", with
			     st->why, and stops with status 2 */

/* A callback: takes arg (NULL for a PM_OPT_NOARG row or an absent optional value) into the
 * options struct st->base (its own field at pm_opt_dest(opt, st) when the row names one).
 * Returns PM_OPT_TAKEN, PM_OPT_BAD with st->why filled, or an exit status after reporting. */
typedef int (*pm_opt_cb)(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);

/* One row of a command's option table; the table ends with PM_OPT_END (long_name NULL). The first
 * four fields are given in order, the kind and destination by one of the PM_OPT_<KIND> macros
 * below. */
struct pm_opt {
	const char *long_name; /* without the leading "--"; every option has one */
	int short_name;        /* its letter ('o' for -o), or 0 for a long-only option */
	const char *argh;      /* the argument's name in --help ("MS", "<file>"); NULL means "VALUE" */
	/* Help text, units and [default: ...] included. '\n' starts a new help line; lines longer
	 * than the width given to pm_opt_help() are wrapped at spaces. NULL hides the option from
	 * --help, the synopsis and pm_opt_print_names() (git's PARSE_OPT_HIDDEN). */
	const char *help;
	enum pm_opt_kind kind;
	unsigned flags;        /* PM_OPT_NOARG, PM_OPT_OPTARG, PM_OPT_ABOVE, PM_OPT_FORM */
	size_t offset, size;   /* the destination field in the options struct; size 0: none */
	long set;              /* FLAG: the value stored; INT with PM_OPT_OPTARG: the value without one */
	double min, max;       /* INT, DOUBLE, LIST: the accepted range */
	const char *unit;      /* INT, DOUBLE: what the number counts, for the error ("milliseconds");
				  NULL: "a whole number", "a number" */
	double divide_by;      /* DOUBLE: the value stored is the given one divided by it (0: as
				  given); 100 turns a percentage into a fraction */
	const char *choices;   /* CHOICE: the accepted words, '|'-separated; any kind: shown in the
				  synopsis instead of argh */
	int (*parse)(const char *word); /* CHOICE: maps a word to its value (-1: none); NULL: the
					   word's index in choices */
	pm_opt_cb cb;          /* CALLBACK */
};

#define PM_OPT_END { NULL, 0, NULL, NULL, PM_OPT_KIND_FLAG, 0, 0, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL }

/* The destination: field f of struct type T; a compile error (-Werror: comparison of distinct
 * pointer types) unless f has type FT. */
#define PM_OPT_AT(T, f, FT) \
	.offset = offsetof(T, f) + 0 * sizeof((FT *)0 == &((T *)0)->f), .size = sizeof(((T *)0)->f)
/* The same for the integer kinds, whose fields may be any 4- or 8-byte integer. */
#define PM_OPT_AT_INT(T, f) .offset = offsetof(T, f), .size = sizeof(((T *)0)->f)

/* The kinds, each with its destination (the rest of a row after its first four fields). */
#define PM_OPT_FLAG(T, f, value) .kind = PM_OPT_KIND_FLAG, PM_OPT_AT_INT(T, f), .set = (value)
#define PM_OPT_STR(T, f) .kind = PM_OPT_KIND_STRING, PM_OPT_AT(T, f, const char *)
#define PM_OPT_INT(T, f, lo, hi, unit_) \
	.kind = PM_OPT_KIND_INT, PM_OPT_AT_INT(T, f), .min = (lo), .max = (hi), .unit = (unit_)
#define PM_OPT_DOUBLE(T, f, lo, hi, unit_) \
	.kind = PM_OPT_KIND_DOUBLE, PM_OPT_AT(T, f, double), .min = (lo), .max = (hi), .unit = (unit_)
#define PM_OPT_CHOICE(T, f, words) .kind = PM_OPT_KIND_CHOICE, PM_OPT_AT_INT(T, f), .choices = (words)
#define PM_OPT_LIST(T, f, lo, hi) \
	.kind = PM_OPT_KIND_LIST, PM_OPT_AT(T, f, struct pm_intlist), .min = (lo), .max = (hi)
#define PM_OPT_CALLBACK(fn) .kind = PM_OPT_KIND_CALLBACK, .cb = (fn)

/* Flags of pm_opt_getopt_build() and pm_opt_parse(). */
#define PM_OPT_STOP_AT_ARG 1 /* '+': stop at the first non-option (the traced command's options) */
#define PM_OPT_COLON 2       /* ':': return ':' for a missing value, '?' for an unknown option
				(pm_opt_parse always sets it) */

/* A command's usage texts besides its option table. */
struct pm_opt_usage {
	const char *short_usage;   /* printed after a malformed command line: "usage: tool [options]" */
	const char *prog;          /* the command's name in the synopsis */
	const char *operands;      /* what follows the options on the synopsis's first line */
	const char *const *forms;  /* the synopsis's other forms (pm_opt_synopsis), or NULL */
	const char *intro;         /* --help: the text between the synopsis and the option lines */
	const char *outro;         /* --help: the text after the option lines */
	int help_width;            /* pm_opt_help's width (0: no wrapping) */
};

/* What pm_opt_parse() hands a callback. */
struct pm_opt_state {
	const struct pm_opt *opts; /* the table */
	const struct pm_opt_usage *usage;
	int argc;
	char **argv;               /* the command line (getopt's optind: the next word) */
	void *base;                /* the options struct the offsets point into */
	char why[512];             /* a callback's reason for PM_OPT_BAD */
};

/* The destination field of opt in st->base. */
void *pm_opt_dest(const struct pm_opt *opt, const struct pm_opt_state *st);

/* Parses argv with getopt_long (flags: PM_OPT_STOP_AT_ARG or 0) into base, row by row of opts:
 * each kind sets its field, a callback does what it does. Errors, on stderr in git's grammar
 * (pm_cli.h), status 2:
 *	a bad value: one line, "invalid --interval '0': want milliseconds from 0.1 to 10000";
 *	an unknown option or a missing value: its line, then usage->short_usage.
 * Returns -1 when the options are parsed (optind is the first operand), or the exit status to
 * return now (a callback's, after --help; 2 after an error; 1 for a bad table or no memory). */
int pm_opt_parse(const struct pm_opt *opts, int flags, const struct pm_opt_usage *usage, int argc,
		 char **argv, void *base);

/* Returns the id getopt_long reports for row i of opts: its letter, or 256 + i. */
int pm_opt_id(const struct pm_opt *opts, size_t i);

/* Whether row o takes a value: PM_OPT_NONE, PM_OPT_REQUIRED or PM_OPT_OPTIONAL (from its kind
 * and flags). */
enum pm_opt_arg pm_opt_arg(const struct pm_opt *o);

/* Number of rows of opts before PM_OPT_END. */
size_t pm_opt_count(const struct pm_opt *opts);

/* getopt_long's two arguments, built from a table. */
struct pm_opt_getopt {
	struct option *longopts; /* n + 1 entries, the last all zero */
	char *shortopts;         /* e.g. "+:o:fi:" */
};

/* Builds getopt_long's long option array and short-option string from opts; flags is a set of
 * PM_OPT_STOP_AT_ARG and PM_OPT_COLON. Short letters come in table order, followed by ':' for a
 * required and "::" for an optional argument. The caller frees *g with pm_opt_getopt_free().
 * Returns 0, or -1 with errno EINVAL for a bad table (a row without a long name, a long name or
 * short letter used twice, a letter that is not alphanumeric, a kind without its destination or
 * callback, an integer field that is not 4 or 8 bytes, a CHOICE without choices) or ENOMEM; *g is
 * then zeroed. */
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

/* Prints the synopsis in git's notation, generated from opts: "usage: PROG" and every visible
 * option not marked PM_OPT_FORM, in table order, as "[--name]", "[--name <arg>]" or
 * "[--name[=<arg>]]" (<arg>: the row's choices, else its argh with upper-case words turned into
 * <lower-case> ones: "KEY=VALUE" -> "<key>=<value>"), then operands; lines are wrapped before
 * column width and continued under the first option. Then one "   or: PROG FORM" line per
 * string of forms (NULL-terminated; may be NULL). Returns 0, or -1 on a write error. */
int pm_opt_synopsis(FILE *f, const char *prog, const struct pm_opt *opts, const char *operands,
		    const char *const *forms, int width);

/* Prints the long name of every visible option to f, one "--name" per line in table order: the
 * list the man-page tests check against docs/<tool>.1. Returns 0, or -1 on a write error. */
int pm_opt_print_names(FILE *f, const struct pm_opt *opts);

/* A callback for a hidden --list-options row: pm_opt_print_names() of st->opts on stdout;
 * returns 0, or 1 on a write error. */
int pm_opt_cb_list_names(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);

/* Prints --help to f: the synopsis (pm_opt_synopsis, 80 columns), an empty line, usage->intro,
 * the option lines (pm_opt_help) and usage->outro. Returns 0, or -1 on a write error. */
int pm_opt_print_help(FILE *f, const struct pm_opt *opts, const struct pm_opt_usage *usage);

/* A callback for a --help row: pm_opt_print_help() of st's table and usage on stdout; returns 0,
 * or 1 on a write error. */
int pm_opt_cb_help(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);

/* A callback for a --version row: "<prog> <version> (pmtrace format X.Y)" on stdout (pm_cli.h
 * PMT_TOOLS_VERSION, pmt.h PMT_FORMAT_MAJOR.PMT_FORMAT_MINOR); returns 0, or 1 on a write error. */
int pm_opt_cb_version(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st);

/* Words the error of a getopt_long return of ':' (missing value) or anything unexpected (unknown
 * option) in git's grammar, into buf (size bufsize): "option '--output' needs a value",
 * "option '--force' takes no value", "unknown option '-x'". c is getopt_long's return; argv and optind, optopt are getopt's state
 * after that call. Returns buf. */
char *pm_opt_error(int c, char *const argv[], int optind_now, int optopt_now, char *buf,
		   size_t bufsize);

#endif
