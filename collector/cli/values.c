/* SPDX-License-Identifier: MIT */
/* values.c: pmcollect's option values that need more than a number: decimals, CPU-list words,
 * --omp-events, --runs and --label (cli.h). They print their errors, as a front end may. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/omp.h"
#include "pm_cli.h"
#include "pmt.h"

#include "cli.h"

/* Parses a decimal number that must fill the whole string. */
int pmc_cli_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* A word of --runs: digits, '-' and ',' only (a command never looks like that). */
int pmc_cli_is_cpulist_word(const char *s)
{
	return s && *s && *s != '-' && strspn(s, "0123456789-,") == strlen(s);
}



/* --omp-events LIST: "none", or 1..PMOMPT_MAX_EVENTS comma-separated names without spaces, each
 * shorter than 128 bytes (PAPI_MAX_STR_LEN). Returns 0, or -1 with why. */
int pmc_cli_check_omp_events(const char *list, char *why, size_t whysize)
{
	unsigned n = 0;

	if (!strcmp(list, "none"))
		return 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		if (!len) {
			snprintf(why, whysize, "an empty event name");
			return -1;
		}
		if (len >= 128 || strcspn(p, " \t\n") < len) {
			snprintf(why, whysize, "event name '%.*s' %s", (int)(len < 40 ? len : 40), p,
				 len >= 128 ? "is 128 bytes or longer" : "has a space in it");
			return -1;
		}
		if (++n > PMOMPT_MAX_EVENTS) {
			snprintf(why, whysize, "more than %d events", PMOMPT_MAX_EVENTS);
			return -1;
		}
		p += len;
		if (!*p)
			return 0;
	}
}

/* --runs LISTS: one value "0 0-7 0-8" (CPU expressions allowed inside it), or the lists as
 * separate words up to the command (moving optind; plain cpulists only, so a command is never
 * taken for one). Kept as text: pmc_cli_plan_runs parses them on the session's topology. Returns -1 to go
 * on, or PMT_EXIT_USAGE after reporting. */
int pmc_cli_parse_runs(const char *value, int argc, char **argv, struct pmc_opts *o)
{
	o->calibrate = 1;
	o->runs_value = value;
	o->runs_words = argv + optind;
	o->nruns_words = 0;
	while (optind < argc && pmc_cli_is_cpulist_word(argv[optind])) {
		optind++;
		o->nruns_words++;
	}
	return -1;
}

/* -l KEY=VALUE: one more label of o (META "labels"). Returns -1 to go on, or PMT_EXIT_USAGE after
 * reporting. */
int pmc_cli_parse_label(const char *value, struct pmc_opts *o)
{
	const char *eq = strchr(value, '=');

	if (!eq || eq == value || eq - value > 64 || strlen(eq + 1) > 256) {
		pm_cli_error("invalid label '%s': want KEY=VALUE (key up to 64 bytes, "
			      "value up to 256)", value);
		return PMT_EXIT_USAGE;
	}
	if (o->nlabels == PMC_MAX_LABELS) {
		pm_cli_error("too many labels: at most %d", PMC_MAX_LABELS);
		return PMT_EXIT_USAGE;
	}
	o->labels[o->nlabels++] = value;
	return -1;
}
