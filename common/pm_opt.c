/* SPDX-License-Identifier: MIT */
/* pm_opt.c: a command's option table turned into getopt_long's arguments, --help lines and the
 * list of long options (pm_opt.h). */
#include "pm_opt.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int pm_opt_id(const struct pm_opt *o)
{
	return o->id ? o->id : o->short_name;
}

size_t pm_opt_count(const struct pm_opt *opts)
{
	size_t n = 0;

	while (opts[n].long_name)
		n++;
	return n;
}

/* Checks row i of opts against the rows before it; returns 0 or -1 (a bad table). */
static int check_row(const struct pm_opt *opts, size_t i)
{
	const struct pm_opt *o = &opts[i];

	if (!o->long_name[0] || o->arg < PM_OPT_NONE || o->arg > PM_OPT_OPTIONAL)
		return -1;
	if (o->short_name && (o->short_name > 127 || !isalnum(o->short_name) ||
			      (o->id && o->id != o->short_name)))
		return -1;
	if (!o->short_name && o->id <= 255)
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
		g->longopts[i].has_arg = has_arg[o->arg];
		g->longopts[i].flag = NULL;
		g->longopts[i].val = pm_opt_id(o);
		if (!o->short_name)
			continue;
		g->shortopts[k++] = (char)o->short_name;
		if (o->arg != PM_OPT_NONE)
			g->shortopts[k++] = ':';
		if (o->arg == PM_OPT_OPTIONAL)
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
		if (o->arg == PM_OPT_REQUIRED)
			col += fprintf(f, "=%s", argh);
		else if (o->arg == PM_OPT_OPTIONAL)
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
