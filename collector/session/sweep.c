// SPDX-License-Identifier: MIT
// sweep.c: parses a --sweep SPEC and expands it into an interleaved list of runs (no fork, no I/O).

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pm_util.h"
#include "sweep.h"

static const char *const keys[2] = { "cores", "threads" };

/* Parses the list of one key into *l. len: bytes of the list in SPEC (not NUL-terminated there). */
static int parse_list(const char *key, const char *s, size_t len, uint32_t online_cpus,
		      struct pm_intlist *l, char *why, size_t whysize)
{
	char list[256], reason[160];

	if (strspn(s, ",") >= len) {
		snprintf(why, whysize, "--sweep: %s= has an empty list", key);
		return PMC_SWEEP_E_EMPTY;
	}
	if (len >= sizeof(list)) {
		snprintf(why, whysize, "--sweep: the %s list is longer than %zu characters", key,
			 sizeof(list) - 1);
		return PMC_SWEEP_E_LIMIT;
	}
	memcpy(list, s, len);
	list[len] = '\0';
	if (pm_intlist_parse(list, 0, PMC_SWEEP_MAX_VALUE, l, reason, sizeof(reason))) {
		snprintf(why, whysize, "--sweep: %s=%s: %s", key, list, reason);
		return strstr(reason, "outside") ? PMC_SWEEP_E_LIMIT : PMC_SWEEP_E_SYNTAX;
	}
	if (l->v[0] == 0) {
		snprintf(why, whysize, "--sweep: %s=%s includes 0 %s", key, list, key);
		return PMC_SWEEP_E_ZERO;
	}
	if (!strcmp(key, "cores") && l->v[l->n - 1] > online_cpus) {
		snprintf(why, whysize, "--sweep: cores=%s asks for %u cores, but %u CPUs are online",
			 list, l->v[l->n - 1], online_cpus);
		return PMC_SWEEP_E_ONLINE;
	}
	return 0;
}

/* Splits SPEC into the lists of its keys: lists[0] cores, lists[1] threads (n = 0 when absent). */
static int parse_spec(const char *spec, uint32_t online_cpus, struct pm_intlist lists[2],
		      char *why, size_t whysize)
{
	const char *p = spec;

	if (!spec || !*spec) {
		snprintf(why, whysize, "--sweep: empty SPEC (e.g. cores=1,2,4 or threads=1-16)");
		return PMC_SWEEP_E_SYNTAX;
	}
	for (;;) {
		size_t itemlen = strcspn(p, ";"), keylen = strcspn(p, "=;");
		int k;
		for (k = 0; k < 2; k++)
			if (keylen == strlen(keys[k]) && !strncmp(p, keys[k], keylen))
				break;
		if (k == 2 || p[keylen] != '=') {
			snprintf(why, whysize, "--sweep: '%.*s' is not cores=LIST or threads=LIST",
				 (int)(itemlen > 40 ? 40 : itemlen), p);
			return PMC_SWEEP_E_SYNTAX;
		}
		if (lists[k].n) {
			snprintf(why, whysize, "--sweep: %s given twice", keys[k]);
			return PMC_SWEEP_E_SYNTAX;
		}
		int rc = parse_list(keys[k], p + keylen + 1, itemlen - keylen - 1, online_cpus,
				    &lists[k], why, whysize);
		if (rc)
			return rc;
		if (!p[itemlen])
			return 0;
		p += itemlen + 1;
	}
}

int pmc_sweep_plan_make(const char *spec, uint32_t repeat, uint32_t online_cpus,
			char *const *argv, int baseline, struct pmc_sweep_plan *out, char *why,
			size_t whysize)
{
	struct pm_intlist lists[2] = { { NULL, 0 }, { NULL, 0 } };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!repeat) {
		snprintf(why, whysize, "--repeat 0: each configuration must run at least once");
		return PMC_SWEEP_E_REPEAT;
	}
	if ((rc = parse_spec(spec, online_cpus, lists, why, whysize)))
		goto out;
	if (pmc_sweep_argv_uses_threads(argv) && !lists[1].n) {
		snprintf(why, whysize, "the command uses %s but --sweep has no threads=LIST",
			 PM_SWEEP_PLACEHOLDER);
		rc = PMC_SWEEP_E_PLACEHOLDER;
		goto out;
	}

	size_t nc = lists[0].n ? lists[0].n : 1, nt = lists[1].n ? lists[1].n : 1;
	size_t nconfigs = nc * nt;
	/* both factors are <= PMC_SWEEP_MAX_VALUE + 1, so nconfigs does not overflow */
	if (nconfigs > PMC_SWEEP_MAX_RUNS || repeat > PMC_SWEEP_MAX_RUNS / nconfigs) {
		snprintf(why, whysize, "--sweep: %zu configurations x %u repetitions is more than "
			 "%u runs", nconfigs, repeat, PMC_SWEEP_MAX_RUNS);
		rc = PMC_SWEEP_E_LIMIT;
		goto out;
	}
	size_t nruns = nconfigs * repeat + (baseline != 0);
	out->runs = calloc(nruns, sizeof(*out->runs));
	if (!out->runs) {
		snprintf(why, whysize, "out of memory");
		rc = PMC_SWEEP_E_NOMEM;
		goto out;
	}
	struct pmc_sweep_run *r = out->runs;
	if (baseline)
		*r++ = (struct pmc_sweep_run){ 1, lists[1].n ? lists[1].v[lists[1].n - 1] : 0, 0, 0, 1 };
	/* interleaved: every configuration once per round, K rounds */
	for (uint32_t rep = 0; rep < repeat; rep++)
		for (size_t c = 0; c < nconfigs; c++)
			*r++ = (struct pmc_sweep_run){
				lists[0].n ? lists[0].v[c / nt] : 0,
				lists[1].n ? lists[1].v[c % nt] : 0,
				(uint32_t)c, rep, 0,
			};
	out->nruns = nruns;
	out->nconfigs = nconfigs;
	out->repeat = repeat;
	out->has_cores = lists[0].n > 0;
	out->has_threads = lists[1].n > 0;
out:
	free(lists[0].v);
	free(lists[1].v);
	return rc;
}

void pmc_sweep_plan_free(struct pmc_sweep_plan *plan)
{
	if (!plan)
		return;
	free(plan->runs);
	memset(plan, 0, sizeof(*plan));
}

int pmc_sweep_argv_uses_threads(char *const *argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		if (strstr(argv[i], PM_SWEEP_PLACEHOLDER))
			return 1;
	return 0;
}

void pmc_sweep_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char **pmc_sweep_argv(char *const *argv, uint32_t threads)
{
	char num[16];
	size_t n = 0;

	while (argv && argv[n])
		n++;
	char **v = calloc(n + 1, sizeof(*v));
	if (!v)
		return NULL;
	snprintf(num, sizeof(num), "%u", threads);
	for (size_t i = 0; i < n; i++)
		if (!(v[i] = pm_str_replace(argv[i], PM_SWEEP_PLACEHOLDER, num))) {
			pmc_sweep_argv_free(v);
			return NULL;
		}
	return v;
}

char *pmc_sweep_progress(const struct pmc_sweep_plan *plan, size_t i, double seconds, char *buf,
			 size_t size)
{
	const struct pmc_sweep_run *r = &plan->runs[i];
	char cores[24] = "", threads[24] = "", rep[32] = "", time[32] = "";

	if (!size)
		return buf;
	if (r->cores)
		snprintf(cores, sizeof(cores), " cores=%u", r->cores);
	if (r->threads)
		snprintf(threads, sizeof(threads), " threads=%u", r->threads);
	if (!r->baseline)
		snprintf(rep, sizeof(rep), " rep %u/%u", r->rep + 1, plan->repeat);
	if (seconds >= 0)
		snprintf(time, sizeof(time), ": %.2f s", seconds);
	snprintf(buf, size, "[%zu/%zu]%s%s%s%s%s", i + 1, plan->nruns,
		 r->baseline ? " baseline" : "", cores, threads, rep, time);
	return buf;
}
