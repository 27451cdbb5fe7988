/* SPDX-License-Identifier: MIT */
/* interfere_session.c: the interferers beside each run of `pmcollect --interfere`, the machine
 * file's default location and the interference keys of RUN_BEGIN / RUN_END. */
#include "interfere_session.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int pmc_interfere_kind_parse(const char *word, enum pmc_interferer_kind *kind)
{
	if (strcmp(word, "cache") == 0)
		*kind = PMC_CSTHR;
	else if (strcmp(word, "bandwidth") == 0)
		*kind = PMC_BWTHR;
	else
		return -1;
	return 0;
}

const char *pmc_interfere_kind_name(enum pmc_interferer_kind kind)
{
	return kind == PMC_CSTHR ? "cache" : "bandwidth";
}

int pmc_interference_file_default(char *buf, size_t size, char *why, size_t whysize)
{
	const char *env = getenv("PMTOOLS_INTERFERENCE_FILE"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char host[256];
	int w;

	if (env && *env) {
		w = snprintf(buf, size, "%s", env);
	} else {
		if (gethostname(host, sizeof(host)) < 0)
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		if (xdg && *xdg == '/')
			w = snprintf(buf, size, "%s/pmtools/interference-%s.json", xdg, host);
		else if (home && *home)
			w = snprintf(buf, size, "%s/.cache/pmtools/interference-%s.json", home, host);
		else {
			snprintf(why, whysize, "neither XDG_CACHE_HOME nor HOME is set: name the machine "
				 "file with --interference-file");
			return -1;
		}
	}
	if (w < 0 || (size_t)w >= size) {
		snprintf(why, whysize, "the machine file's path is too long");
		return -1;
	}
	return 0;
}

int pmc_mkdir_parents(const char *path, char *why, size_t whysize)
{
	char dir[4096];

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
		snprintf(why, whysize, "path too long");
		return -1;
	}
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			snprintf(why, whysize, "cannot create '%s': %s", dir, strerror(errno));
			return -1;
		}
		*p = '/';
	}
	return 0;
}

int pmc_isess_start(struct pmc_isess *s, uint32_t k, char *why, size_t whysize)
{
	s->k = 0;
	if (k > s->ncpus) {
		snprintf(why, whysize, "%u interferers but only %zu CPUs for them", k, s->ncpus);
		return -1;
	}
	s->nfill = 0;
	if (k && pmc_interferers_start(s->kind, s->cpus, k, s->kind == PMC_CSTHR ? s->csthr_bytes : 0,
				       s->ts, why, whysize) < 0)
		return -1;
	/* the other interferer CPUs run fillers, so every level has the same CPUs busy
	 * (interfere.h, PMC_FILLER) and k = 0 differs from k only in the memory traffic */
	if (pmc_interferers_start(PMC_FILLER, s->cpus + k, s->ncpus - k, 0, s->fill, why, whysize) < 0) {
		pmc_interferers_stop(s->ts, k, NULL);
		return -1;
	}
	s->nfill = (uint32_t)(s->ncpus - k);
	s->k = k;
	memset(s->begin, 0, sizeof(s->begin));
	return 0;
}

void pmc_isess_stop(struct pmc_isess *s)
{
	pmc_interferers_stop(s->ts, s->k, NULL);
	pmc_interferers_stop(s->fill, s->nfill, NULL);
	s->k = 0;
	s->nfill = 0;
}

/* The resource left at level k by the calibration: C(k) bytes for cache (-1 when that row is not
 * valid or absent), B - k·BW1 bytes/s for bandwidth. */
static double left(const struct pmc_isess *s, uint32_t k)
{
	if (s->kind == PMC_BWTHR)
		return s->cal.B_bytes_per_s - (double)k * s->cal.BW1_bytes_per_s;
	return k < s->cal.ncap && s->cal.cap[k].valid ? s->cal.cap[k].C_bytes : -1;
}

void pmc_isess_annotate(void *arg, cJSON *record, int end)
{
	struct pmc_isess *s = arg;
	cJSON *o;

	if (!end) {
		double l = left(s, s->k);
		o = cJSON_AddObjectToObject(record, "interference");
		if (!o)
			return;
		cJSON_AddStringToObject(o, "kind", pmc_interfere_kind_name(s->kind));
		cJSON_AddNumberToObject(o, "k", s->k);
		cJSON_AddStringToObject(o, "thread", s->kind == PMC_CSTHR ? "CSThr" : "BWThr");
		cJSON_AddStringToObject(o, "cpus", s->cpus_text);
		cJSON_AddNumberToObject(o, "fillers", s->nfill);
		if (s->kind == PMC_CSTHR) {
			cJSON_AddNumberToObject(o, "csthr_bytes", (double)(s->csthr_bytes ? s->csthr_bytes
									       : PMC_CSTHR_DEFAULT_BYTES));
			if (l >= 0)
				cJSON_AddNumberToObject(o, "left_bytes", l);
			else
				cJSON_AddNullToObject(o, "left_bytes");
		} else {
			cJSON_AddNumberToObject(o, "left_bytes_per_s", l);
		}
		for (uint32_t j = 0; j < s->k; j++)
			pmc_interferer_read(s->ts[j], &s->begin[j]);
		return;
	}
	o = cJSON_AddObjectToObject(record, "interferers");
	if (!o)
		return;
	{
		double bytes = 0, cpu_ns = 0, accesses = 0, elapsed_ns = 0;
		for (uint32_t j = 0; j < s->k; j++) {
			struct pmc_interferer_stats now;
			pmc_interferer_read(s->ts[j], &now);
			bytes += (double)(now.bytes - s->begin[j].bytes);
			accesses += (double)(now.accesses - s->begin[j].accesses);
			cpu_ns += (double)(now.cpu_ns - s->begin[j].cpu_ns);
			elapsed_ns = (double)(now.elapsed_ns - s->begin[j].elapsed_ns);
		}
		cJSON_AddNumberToObject(o, "k", s->k);
		cJSON_AddNumberToObject(o, "bytes_per_s", elapsed_ns > 0 ? bytes / elapsed_ns * 1e9 : 0);
		cJSON_AddNumberToObject(o, "cpu_ns", cpu_ns);
		cJSON_AddNumberToObject(o, "accesses", accesses);
	}
}
