// SPDX-License-Identifier: MIT
// sweep.c: parses a --sweep SPEC and expands it into an interleaved list of runs (no fork, no I/O).

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pm_util.h"
#include "sweep.h"

static const char *const keys[3] = { "cores", "threads", "quota" };

/* quota=QLIST parsed: CPUs and period (us) of each value, in the order given. */
struct quota_list {
	size_t n;
	double cpus[PMC_SWEEP_MAX_QUOTAS], period_us[PMC_SWEEP_MAX_QUOTAS];
};

/* Parses one quota value [s, end), Q[/PERIOD], into q's next slot. */
static int parse_quota_one(const char *s, const char *end, struct quota_list *q, char *why,
			   size_t whysize)
{
	const char *slash = memchr(s, '/', (size_t)(end - s)), *qend = slash ? slash : end;
	double period_ns = PMC_SWEEP_PERIOD_DEFAULT_US * 1e3, cpus;
	char num[64], *e;
	int len = (int)(end - s);

	if (q->n == PMC_SWEEP_MAX_QUOTAS) {
		snprintf(why, whysize, "--sweep: more than %u quotas", PMC_SWEEP_MAX_QUOTAS);
		return PMC_SWEEP_E_LIMIT;
	}
	if (slash && (pm_cli_parse_time_ns(slash + 1, end, &period_ns) < 0 || period_ns < 1e6 ||
		      period_ns > 1e9)) {
		snprintf(why, whysize, "--sweep: quota %.*s: want a period from 1ms to 1s (the kernel's "
			 "limits)", len, s);
		return PMC_SWEEP_E_SYNTAX;
	}
	snprintf(num, sizeof(num), "%.*s", (int)(qend - s) < 63 ? (int)(qend - s) : 63, s);
	cpus = strtod(num, &e);
	if (e == num || *e || (size_t)(qend - s) >= sizeof(num) || !isfinite(cpus)) {
		snprintf(why, whysize, "--sweep: quota '%.*s' is not CPUs[/PERIOD] (0.5, 1.5/10ms)", len, s);
		return PMC_SWEEP_E_SYNTAX;
	}
	if (!(cpus > 0)) {
		snprintf(why, whysize, "--sweep: quota=%.*s: a quota must be above 0 CPUs", len, s);
		return PMC_SWEEP_E_ZERO;
	}
	if (cpus * period_ns < 1e6) {
		snprintf(why, whysize, "--sweep: quota=%.*s: %.3g ms per period is below the kernel's "
			 "minimum quota of 1 ms", len, s, cpus * period_ns / 1e6);
		return PMC_SWEEP_E_SYNTAX;
	}
	q->cpus[q->n] = cpus;
	q->period_us[q->n++] = period_ns / 1e3;
	return 0;
}

/* Parses quota=QLIST ([s, s + len)) into *q. */
static int parse_quota(const char *s, size_t len, struct quota_list *q, char *why, size_t whysize)
{
	const char *end = s + len;

	if (strspn(s, ",") >= len) {
		snprintf(why, whysize, "--sweep: quota= has an empty list");
		return PMC_SWEEP_E_EMPTY;
	}
	while (s < end) {
		const char *comma = memchr(s, ',', (size_t)(end - s)), *vend = comma ? comma : end;
		int rc = vend > s ? parse_quota_one(s, vend, q, why, whysize) : 0;
		if (rc)
			return rc;
		s = vend + (comma != NULL);
	}
	return 0;
}

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

/* Splits SPEC into the lists of its keys: lists[0] cores, lists[1] threads, *q the quotas (n = 0
 * when absent). */
static int parse_spec(const char *spec, uint32_t online_cpus, struct pm_intlist lists[2],
		      struct quota_list *q, char *why, size_t whysize)
{
	const char *p = spec;

	if (!spec || !*spec) {
		snprintf(why, whysize, "--sweep: empty SPEC (e.g. cores=1,2,4 or threads=1-16)");
		return PMC_SWEEP_E_SYNTAX;
	}
	for (;;) {
		size_t itemlen = strcspn(p, ";"), keylen = strcspn(p, "=;");
		int k;
		for (k = 0; k < 3; k++)
			if (keylen == strlen(keys[k]) && !strncmp(p, keys[k], keylen))
				break;
		if (k == 3 || p[keylen] != '=') {
			snprintf(why, whysize, "--sweep: '%.*s' is not cores=LIST, threads=LIST or quota=LIST",
				 (int)(itemlen > 40 ? 40 : itemlen), p);
			return PMC_SWEEP_E_SYNTAX;
		}
		if (k < 2 ? lists[k].n != 0 : q->n != 0) {
			snprintf(why, whysize, "--sweep: %s given twice", keys[k]);
			return PMC_SWEEP_E_SYNTAX;
		}
		int rc = k == 2 ? parse_quota(p + keylen + 1, itemlen - keylen - 1, q, why, whysize)
				: parse_list(keys[k], p + keylen + 1, itemlen - keylen - 1, online_cpus,
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
	struct quota_list q = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!repeat) {
		snprintf(why, whysize, "--repeat 0: each configuration must run at least once");
		return PMC_SWEEP_E_REPEAT;
	}
	if ((rc = parse_spec(spec, online_cpus, lists, &q, why, whysize)))
		goto out;
	if (pmc_sweep_argv_uses_threads(argv) && !lists[1].n) {
		snprintf(why, whysize, "the command uses %s but --sweep has no threads=LIST",
			 PM_SWEEP_PLACEHOLDER);
		rc = PMC_SWEEP_E_PLACEHOLDER;
		goto out;
	}

	size_t nc = lists[0].n ? lists[0].n : 1, nt = lists[1].n ? lists[1].n : 1, nq = q.n ? q.n : 1;
	size_t nconfigs = nc * nt * nq;
	/* the factors are <= PMC_SWEEP_MAX_VALUE + 1 and PMC_SWEEP_MAX_QUOTAS: no overflow */
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
		*r++ = (struct pmc_sweep_run){ .cores = 1,
			.threads = lists[1].n ? lists[1].v[lists[1].n - 1] : 0, .baseline = 1 };
	/* interleaved: every configuration once per round, K rounds */
	for (uint32_t rep = 0; rep < repeat; rep++)
		for (size_t c = 0; c < nconfigs; c++)
			*r++ = (struct pmc_sweep_run){
				.cores = lists[0].n ? lists[0].v[c / (nt * nq)] : 0,
				.threads = lists[1].n ? lists[1].v[c / nq % nt] : 0,
				.quota_cpus = q.n ? q.cpus[c % nq] : 0,
				.quota_period_us = q.n ? q.period_us[c % nq] : 0,
				.config = (uint32_t)c, .rep = rep,
			};
	out->nruns = nruns;
	out->nconfigs = nconfigs;
	out->repeat = repeat;
	out->has_cores = lists[0].n > 0;
	out->has_threads = lists[1].n > 0;
	out->has_quota = q.n > 0;
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
	char cores[24] = "", threads[24] = "", quota[48] = "", rep[32] = "", time[32] = "";

	if (!size)
		return buf;
	if (r->cores)
		snprintf(cores, sizeof(cores), " cores=%u", r->cores);
	if (r->threads)
		snprintf(threads, sizeof(threads), " threads=%u", r->threads);
	if (r->quota_cpus > 0)
		snprintf(quota, sizeof(quota), " quota=%g%s", r->quota_cpus,
			 r->quota_period_us != PMC_SWEEP_PERIOD_DEFAULT_US ? "/" : "");
	if (r->quota_cpus > 0 && r->quota_period_us != PMC_SWEEP_PERIOD_DEFAULT_US)
		snprintf(quota + strlen(quota), sizeof(quota) - strlen(quota), "%gms",
			 r->quota_period_us / 1e3);
	if (!r->baseline)
		snprintf(rep, sizeof(rep), " rep %u/%u", r->rep + 1, plan->repeat);
	if (seconds >= 0)
		snprintf(time, sizeof(time), ": %.2f s", seconds);
	snprintf(buf, size, "[%zu/%zu]%s%s%s%s%s%s", i + 1, plan->nruns,
		 r->baseline ? " baseline" : "", cores, threads, quota, rep, time);
	return buf;
}
