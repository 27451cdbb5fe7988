/* SPDX-License-Identifier: MIT */
/* pm_opt.c: a command's option table turned into getopt_long's arguments, the parsing that sets
 * each option's field, --help lines, the synopsis and the list of long options (pm_opt.h). */
#include "pm_opt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pmt.h"

int pm_opt_id(const struct pm_opt *opts, size_t i)
{
	return opts[i].short_name ? opts[i].short_name : 256 + (int)i;
}

enum pm_opt_arg pm_opt_arg(const struct pm_opt *o)
{
	if (o->kind == PM_OPT_KIND_FLAG || (o->flags & PM_OPT_NOARG))
		return PM_OPT_NONE;
	return o->flags & PM_OPT_OPTARG ? PM_OPT_OPTIONAL : PM_OPT_REQUIRED;
}

size_t pm_opt_count(const struct pm_opt *opts)
{
	size_t n = 0;

	while (opts[n].long_name)
		n++;
	return n;
}

/* Whether row o's kind has what it needs: a destination of a size it can store, a callback, the
 * choices. */
static int check_kind(const struct pm_opt *o)
{
	switch (o->kind) {
	case PM_OPT_KIND_FLAG:
	case PM_OPT_KIND_CHOICE:
		if (o->size != sizeof(int) || (o->kind == PM_OPT_KIND_CHOICE && !o->choices))
			return -1;
		return 0;
	case PM_OPT_KIND_INT:
		return (o->size == 4 || o->size == 8) && o->min <= o->max ? 0 : -1;
	case PM_OPT_KIND_STRING:
	case PM_OPT_KIND_DOUBLE:
	case PM_OPT_KIND_LIST:
		return o->size > 0 && o->min <= o->max ? 0 : -1;
	case PM_OPT_KIND_CALLBACK:
		return o->cb ? 0 : -1;
	}
	return -1;
}

/* Checks row i of opts against the rows before it; returns 0 or -1 (a bad table). */
static int check_row(const struct pm_opt *opts, size_t i)
{
	const struct pm_opt *o = &opts[i];

	if (!o->long_name[0] || check_kind(o) < 0)
		return -1;
	if (o->short_name && (o->short_name > 127 || !isalnum(o->short_name)))
		return -1;
	for (size_t j = 0; j < i; j++) {
		if (strcmp(opts[j].long_name, o->long_name) == 0)
			return -1;
		if (o->short_name && opts[j].short_name == o->short_name)
			return -1;
	}
	return 0;
}

int pm_opt_getopt_build(const struct pm_opt *opts, int flags, struct pm_opt_getopt *g)
{
	static const int has_arg[] = { no_argument, required_argument, optional_argument };
	size_t n = pm_opt_count(opts), k = 0;

	g->longopts = calloc(n + 1, sizeof(*g->longopts));
	/* at most "+:" and "x::" per option */
	g->shortopts = malloc(2 + 3 * n + 1);
	if (!g->longopts || !g->shortopts) {
		pm_opt_getopt_free(g);
		errno = ENOMEM;
		return -1;
	}
	if (flags & PM_OPT_STOP_AT_ARG)
		g->shortopts[k++] = '+';
	if (flags & PM_OPT_COLON)
		g->shortopts[k++] = ':';
	for (size_t i = 0; i < n; i++) {
		const struct pm_opt *o = &opts[i];

		if (check_row(opts, i) < 0) {
			pm_opt_getopt_free(g);
			errno = EINVAL;
			return -1;
		}
		g->longopts[i].name = o->long_name;
		g->longopts[i].has_arg = has_arg[pm_opt_arg(o)];
		g->longopts[i].flag = NULL;
		g->longopts[i].val = pm_opt_id(opts, i);
		if (!o->short_name)
			continue;
		g->shortopts[k++] = (char)o->short_name;
		if (pm_opt_arg(o) != PM_OPT_NONE)
			g->shortopts[k++] = ':';
		if (pm_opt_arg(o) == PM_OPT_OPTIONAL)
			g->shortopts[k++] = ':';
	}
	g->shortopts[k] = '\0';
	return 0;
}

void pm_opt_getopt_free(struct pm_opt_getopt *g)
{
	free(g->longopts);
	free(g->shortopts);
	g->longopts = NULL;
	g->shortopts = NULL;
}

/* Prints the help line text[0..len) to f starting at column col, wrapped at spaces so no line ends
 * past width (0: no limit); continuation lines are indented to indent. */
static void print_wrapped(FILE *f, const char *text, size_t len, int col, int indent, int width)
{
	while (len > 0) {
		size_t take = len;

		if (width > 0 && col + (int)len > width) {
			size_t room = width > col ? (size_t)(width - col) : 0;
			size_t cut = room < len ? room : len;

			/* the last space at or before the width; a word longer than the line stays whole */
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0) {
				cut = room;
				while (cut < len && text[cut] != ' ')
					cut++;
			}
			take = cut;
		}
		fwrite(text, 1, take, f);
		fputc('\n', f);
		while (take < len && text[take] == ' ')
			take++;
		text += take;
		len -= take;
		if (len > 0)
			fprintf(f, "%*s", indent, "");
		col = indent;
	}
}

int pm_opt_help(FILE *f, const struct pm_opt *opts, int help_col, int width)
{
	for (const struct pm_opt *o = opts; o->long_name; o++) {
		const char *argh = o->argh ? o->argh : "VALUE";
		const char *line;
		int col;

		if (!o->help)
			continue;
		if (o->short_name)
			col = fprintf(f, "  -%c, --%s", o->short_name, o->long_name);
		else
			col = fprintf(f, "      --%s", o->long_name);
		if (pm_opt_arg(o) == PM_OPT_REQUIRED)
			col += fprintf(f, "=%s", argh);
		else if (pm_opt_arg(o) == PM_OPT_OPTIONAL)
			col += fprintf(f, "[=%s]", argh);
		col += fprintf(f, "%*s", col <= help_col - 2 ? help_col - col : 2, "");
		line = o->help;
		for (;;) {
			const char *nl = strchr(line, '\n');
			size_t len = nl ? (size_t)(nl - line) : strlen(line);

			if (len == 0)
				fputc('\n', f);
			else
				print_wrapped(f, line, len, col, help_col, width);
			if (!nl || !nl[1])
				break;
			line = nl + 1;
			col = fprintf(f, "%*s", help_col, "");
		}
	}
	return ferror(f) ? -1 : 0;
}

int pm_opt_print_names(FILE *f, const struct pm_opt *opts)
{
	for (const struct pm_opt *o = opts; o->long_name; o++)
		if (o->help)
			fprintf(f, "--%s\n", o->long_name);
	return ferror(f) ? -1 : 0;
}

char *pm_opt_error(int c, char *const argv[], int optind_now, int optopt_now, char *buf,
		   size_t bufsize)
{
	const char *arg = optind_now > 0 ? argv[optind_now - 1] : "";

	if (c == ':')
		snprintf(buf, bufsize, "option '%s' needs a value", arg);
	else if (optopt_now != 0 && strncmp(arg, "--", 2) == 0)
		/* getopt_long sets optopt to the id of a known long option given a value it takes
		 * none of ("--force=1"); an unknown one leaves it 0 */
		snprintf(buf, bufsize, "option '%.*s' takes no value", (int)strcspn(arg, "="), arg);
	else if (optopt_now > 0 && optopt_now < 256)
		snprintf(buf, bufsize, "unknown option '-%c'", optopt_now);
	else
		snprintf(buf, bufsize, "unknown option '%s'", arg);
	return buf;
}

void *pm_opt_dest(const struct pm_opt *opt, const struct pm_opt_state *st)
{
	return (char *)st->base + opt->offset;
}

/* Stores v into the integer field of size o->size (4 or 8 bytes, checked by check_kind). */
static void store_int(const struct pm_opt *o, const struct pm_opt_state *st, long v)
{
	void *p = pm_opt_dest(o, st);

	if (o->size == sizeof(int32_t)) {
		int32_t v32 = (int32_t)v;
		memcpy(p, &v32, sizeof(v32));
	} else {
		int64_t v64 = v;
		memcpy(p, &v64, sizeof(v64));
	}
}

/* "want milliseconds from 0.1 to 10000", "want a number above 0", "want a percentage above 0, up
 * to 1000": the range of a number kind, into st->why. */
static void want_range(const struct pm_opt *o, struct pm_opt_state *st)
{
	const char *unit = o->unit ? o->unit :
			   o->kind == PM_OPT_KIND_INT ? "a whole number" : "a number";

	if (!(o->flags & PM_OPT_ABOVE))
		snprintf(st->why, sizeof(st->why), "want %s from %.15g to %.15g", unit, o->min, o->max);
	else if (isinf(o->max))
		snprintf(st->why, sizeof(st->why), "want %s above %.15g", unit, o->min);
	else
		snprintf(st->why, sizeof(st->why), "want %s above %.15g, up to %.15g", unit, o->min,
			 o->max);
}

/* "want table, json or csv": the words of o->choices, into st->why. */
static void want_choices(const struct pm_opt *o, struct pm_opt_state *st)
{
	const char *p = o->choices;
	size_t k = (size_t)snprintf(st->why, sizeof(st->why), "want ");

	while (*p && k < sizeof(st->why)) {
		size_t len = strcspn(p, "|");
		const char *sep = !p[len] ? "" : strchr(p + len + 1, '|') ? ", " : " or ";

		k += (size_t)snprintf(st->why + k, sizeof(st->why) - k, "%.*s%s", (int)len, p, sep);
		p += len + (p[len] != '\0');
	}
}

/* The index of word among o->choices ("a|b|c"), or -1. */
static int choice_index(const char *choices, const char *word)
{
	size_t wlen = strlen(word);

	for (int i = 0;; i++) {
		size_t len = strcspn(choices, "|");

		if (len == wlen && strncmp(choices, word, len) == 0)
			return i;
		if (!choices[len])
			return -1;
		choices += len + 1;
	}
}

/* Sets row o's field from arg (NULL: no value given). Returns PM_OPT_TAKEN, PM_OPT_BAD with
 * st->why, or a callback's exit status. */
static int take(const struct pm_opt *o, const char *arg, struct pm_opt_state *st)
{
	char *end;
	long v;
	double d;

	switch (o->kind) {
	case PM_OPT_KIND_FLAG:
		store_int(o, st, o->set);
		return PM_OPT_TAKEN;
	case PM_OPT_KIND_STRING:
		memcpy(pm_opt_dest(o, st), &arg, sizeof(arg));
		return PM_OPT_TAKEN;
	case PM_OPT_KIND_INT:
		if (!arg) {
			store_int(o, st, o->set);
			return PM_OPT_TAKEN;
		}
		if (pm_cli_parse_long(arg, (long)o->min, (long)o->max, &v) < 0) {
			want_range(o, st);
			return PM_OPT_BAD;
		}
		store_int(o, st, v);
		return PM_OPT_TAKEN;
	case PM_OPT_KIND_DOUBLE:
		errno = 0;
		d = strtod(arg, &end);
		/* written so that NaN fails too */
		if (errno || end == arg || *end || !isfinite(d) || !(o->flags & PM_OPT_ABOVE ? d > o->min : d >= o->min) ||
		    !(d <= o->max)) {
			want_range(o, st);
			return PM_OPT_BAD;
		}
		if (o->divide_by != 0)
			d /= o->divide_by;
		memcpy(pm_opt_dest(o, st), &d, sizeof(d));
		return PM_OPT_TAKEN;
	case PM_OPT_KIND_CHOICE:
		v = o->parse ? o->parse(arg) : choice_index(o->choices, arg);
		if (v < 0) {
			want_choices(o, st);
			return PM_OPT_BAD;
		}
		store_int(o, st, v);
		return PM_OPT_TAKEN;
	case PM_OPT_KIND_LIST: {
		struct pm_intlist *l = pm_opt_dest(o, st), nl;

		if (pm_intlist_parse(arg, (uint32_t)o->min, (uint32_t)o->max, &nl, st->why,
				     sizeof(st->why)) < 0)
			return PM_OPT_BAD;
		pm_intlist_free(l);
		*l = nl;
		return PM_OPT_TAKEN;
	}
	case PM_OPT_KIND_CALLBACK:
		return o->cb(o, arg, st);
	}
	return PM_OPT_TAKEN;
}

int pm_opt_parse(const struct pm_opt *opts, int flags, const struct pm_opt_usage *usage, int argc,
		 char **argv, void *base)
{
	struct pm_opt_state st = { .opts = opts, .usage = usage, .argc = argc, .argv = argv,
				   .base = base };
	struct pm_opt_getopt g;
	size_t n = pm_opt_count(opts);
	int c, rc = PM_OPT_TAKEN;

	if (pm_opt_getopt_build(opts, (flags & PM_OPT_STOP_AT_ARG) | PM_OPT_COLON, &g) < 0) {
		pm_cli_error("%s", errno == ENOMEM ? strerror(errno) : "bad option table");
		return PMT_EXIT_FAILURE;
	}
	opterr = 0; /* messages in our grammar, not getopt's */
	while (rc == PM_OPT_TAKEN && (c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
		size_t i = 0;

		while (i < n && pm_opt_id(opts, i) != c)
			i++;
		if (c == ':' || c == '?' || i == n) {
			char msg[256];

			rc = pm_cli_usage_error(usage->short_usage, "%s",
						pm_opt_error(c, argv, optind, optopt, msg, sizeof(msg)));
			break;
		}
		st.why[0] = '\0';
		rc = take(&opts[i], optarg, &st);
		if (rc == PM_OPT_BAD) {
			pm_cli_error("invalid --%s '%.200s': %s", opts[i].long_name, optarg ? optarg : "",
				     st.why);
			rc = PMT_EXIT_USAGE;
		}
	}
	pm_opt_getopt_free(&g);
	return rc;
}

int pm_opt_cb_list_names(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	(void)opt;
	(void)arg;
	return pm_opt_print_names(stdout, st->opts) < 0 ? PMT_EXIT_FAILURE : PMT_EXIT_OK;
}

int pm_opt_print_help(FILE *f, const struct pm_opt *opts, const struct pm_opt_usage *usage)
{
	pm_opt_synopsis(f, usage->prog, opts, usage->operands, usage->forms, 80);
	fprintf(f, "\n%s", usage->intro ? usage->intro : "");
	pm_opt_help(f, opts, PM_OPT_HELP_COLUMN, usage->help_width);
	fputs(usage->outro ? usage->outro : "", f);
	return ferror(f) ? -1 : 0;
}

int pm_opt_cb_help(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	(void)opt;
	(void)arg;
	return pm_opt_print_help(stdout, st->opts, st->usage) < 0 ? PMT_EXIT_FAILURE : PMT_EXIT_OK;
}

int pm_opt_cb_version(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	(void)opt;
	(void)arg;
	(void)st;
	printf("%s %s (pmtrace format %d.%d)\n", pm_cli_prog(), PMT_TOOLS_VERSION, PMT_FORMAT_MAJOR,
	       PMT_FORMAT_MINOR);
	return ferror(stdout) ? PMT_EXIT_FAILURE : PMT_EXIT_OK;
}

/* The synopsis word of row o into buf: "[--name]", "[--name <arg>]", "[--name[=<arg>]]". */
static void synopsis_word(const struct pm_opt *o, char *buf, size_t size)
{
	char arg[160];
	size_t k = 0;

	if (o->choices) {
		snprintf(arg, sizeof(arg), "%s", o->choices);
	} else {
		/* "KEY=VALUE" -> "<key>=<value>", "MS" -> "<ms>"; "<file>" stays */
		const char *a = o->argh ? o->argh : "VALUE";
		int upper = 0;

		for (; *a && k + 3 < sizeof(arg); a++) {
			int u = isupper((unsigned char)*a) || (upper && (isdigit((unsigned char)*a) ||
								       *a == '_'));
			if (u && !upper)
				arg[k++] = '<';
			if (!u && upper)
				arg[k++] = '>';
			arg[k++] = (char)tolower((unsigned char)*a);
			upper = u;
		}
		if (upper)
			arg[k++] = '>';
		arg[k] = '\0';
	}
	switch (pm_opt_arg(o)) {
	case PM_OPT_NONE:
		snprintf(buf, size, "[--%s]", o->long_name);
		break;
	case PM_OPT_REQUIRED:
		snprintf(buf, size, "[--%s %s]", o->long_name, arg);
		break;
	case PM_OPT_OPTIONAL:
		snprintf(buf, size, "[--%s[=%s]]", o->long_name, arg);
		break;
	}
}

int pm_opt_synopsis(FILE *f, const char *prog, const struct pm_opt *opts, const char *operands,
		    const char *const *forms, int width)
{
	int indent = fprintf(f, "usage: %s", prog), col = indent;

	for (const struct pm_opt *o = opts;; o++) {
		char word[256];
		int len;

		if (o->long_name && (!o->help || (o->flags & PM_OPT_FORM)))
			continue;
		if (o->long_name)
			synopsis_word(o, word, sizeof(word));
		else
			snprintf(word, sizeof(word), "%s", operands ? operands : "");
		len = (int)strlen(word);
		if (len == 0)
			break;
		if (col > indent && col + 1 + len > width)
			col = fprintf(f, "\n%*s", indent, "") - 1;
		col += fprintf(f, " %s", word);
		if (!o->long_name)
			break;
	}
	fputc('\n', f);
	for (size_t i = 0; forms && forms[i]; i++)
		fprintf(f, "   or: %s %s\n", prog, forms[i]);
	return ferror(f) ? -1 : 0;
}
