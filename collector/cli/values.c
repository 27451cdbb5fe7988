/* SPDX-License-Identifier: MIT */
/* values.c: pmcollect's option values that need more than the option table's kinds: CPU-list
 * words, --omp-events, --runs and --label (cli.h). They return their reasons; pm_opt_parse()
 * words the error. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp/omp.h"
#include "pm_cli.h"
#include "pmt.h"

#include "cli.h"

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
 * taken for one). Kept as text: pmc_cli_plan_runs parses them on the session's topology. */
int pmc_cli_opt_runs(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct pmc_opts *o = st->base;

	(void)opt;
	o->calibrate = 1;
	o->runs_value = arg;
	o->runs_words = st->argv + optind;
	o->nruns_words = 0;
	while (optind < st->argc && pmc_cli_is_cpulist_word(st->argv[optind])) {
		optind++;
		o->nruns_words++;
	}
	return PM_OPT_TAKEN;
}

/* -l KEY=VALUE: one more label (META "labels"). */
int pmc_cli_opt_label(const struct pm_opt *opt, const char *arg, struct pm_opt_state *st)
{
	struct pmc_opts *o = st->base;
	const char *eq = strchr(arg, '=');

	(void)opt;
	if (!eq || eq == arg || eq - arg > 64 || strlen(eq + 1) > 256) {
		snprintf(st->why, sizeof(st->why), "want KEY=VALUE (key up to 64 bytes, value up to 256)");
		return PM_OPT_BAD;
	}
	if (o->nlabels == PMC_MAX_LABELS) {
		snprintf(st->why, sizeof(st->why), "more than %d labels", PMC_MAX_LABELS);
		return PM_OPT_BAD;
	}
	o->labels[o->nlabels++] = arg;
	return PM_OPT_TAKEN;
}
