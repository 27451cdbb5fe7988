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

#include "pm_cli.h"

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

int pmc_isess_csthr_size(struct pmc_isess *is, hwloc_topology_t topo, unsigned l2x, char *why,
			 size_t whysize)
{
	if (l2x)
		return pmc_csthr_bytes(topo, is->cpus[0], l2x, &is->csthr_bytes, why, whysize) < 0 ? -1 : 0;
	if (pmc_csthr_bytes(topo, is->cpus[0], 0, &is->csthr_bytes, why, whysize) == 0)
		return 0;
	if (pmc_csthr_bytes(topo, is->cpus[0], 2, &is->csthr_bytes, why, whysize) < 0)
		is->csthr_bytes = PMC_CSTHR_DEFAULT_BYTES; /* no L2 in the topology */
	return 0;
}

void pmc_isess_set_ncpus(struct pmc_isess *is, size_t n)
{
	uint32_t v[PMC_CAL_MAX_K];
	struct pm_intlist l = { .v = v, .n = n < PMC_CAL_MAX_K ? n : PMC_CAL_MAX_K };

	is->ncpus = l.n;
	for (size_t j = 0; j < l.n; j++)
		v[j] = (uint32_t)is->cpus[j];
	pm_intlist_format(&l, is->cpus_text, sizeof(is->cpus_text));
}

int pmc_isess_load_cal(struct pmc_isess *is, hwloc_topology_t topo, const char *file,
		       enum pmc_interferer_kind kind, unsigned l2x, char *why, size_t whysize)
{
	char sig[512], e[512];

	if (pmc_cal_topology_signature(topo, sig, sizeof(sig)) < 0 ||
	    pmc_cal_read(file, sig, 1, &is->cal, e, sizeof(e)) < 0) {
		snprintf(why, whysize, "no usable interference calibration: %s (measure this machine "
			 "with pmcollect --calibrate-interference)", e);
		return -1;
	}
	if (!(is->cal.B_bytes_per_s > 0) || !(is->cal.BW1_bytes_per_s > 0) || is->cal.ncap == 0) {
		snprintf(why, whysize, "no usable interference calibration: '%s' has no B, BW1 or "
			 "capacity (measure this machine with pmcollect --calibrate-interference)", file);
		return -1;
	}
	if (kind == PMC_CSTHR && is->cal.csthr_bytes && is->cal.csthr_bytes != is->csthr_bytes) {
		if (l2x) {
			snprintf(why, whysize, "--csthr-l2 %u gives CSThr buffers of %zu bytes, but the "
				 "machine file '%s' measured the capacity left with %llu (recalibrate with "
				 "--calibrate-interference --csthr-l2 %u)", l2x, is->csthr_bytes, file,
				 (unsigned long long)is->cal.csthr_bytes, l2x);
			return -1;
		}
		is->csthr_bytes = (size_t)is->cal.csthr_bytes; /* the curve's "left" is per that size */
	}
	return 0;
}

int pmc_isess_levels(const struct pmc_isess *is, const char *text, enum pmc_interferer_kind kind,
		     const char *cal_file, uint32_t *levels, size_t max, size_t *n, char *why, size_t whysize)
{
	struct pm_intlist lv = { 0 };
	char dflt[32], e[256];

	*n = 0;
	snprintf(dflt, sizeof(dflt), "0-%zu", is->ncpus);
	if (pm_intlist_parse(text ? text : dflt, 0, PMC_CAL_MAX_K, &lv, e, sizeof(e)) < 0) {
		snprintf(why, whysize, "invalid --levels '%s': %s", text ? text : dflt, e);
		return -1;
	}
	if (lv.n < 2 || lv.v[0] != 0 || lv.v[lv.n - 1] > is->ncpus || lv.n > max) {
		/* lv is sorted and deduplicated: "0" and "0,0" are one level, no curve (pmanalyze
		 * needs k = 0 and at least one k > 0) */
		snprintf(why, whysize, "invalid --levels '%s': want 0 and at least one more level up to "
			 "%zu (one interferer per CPU of --interfere-cpus %s)", text ? text : "",
			 is->ncpus, is->cpus_text);
		pm_intlist_free(&lv);
		return -1;
	}
	for (size_t i = 0; i < lv.n; i++)
		levels[i] = lv.v[i];
	*n = lv.n;
	pm_intlist_free(&lv);
	if (kind == PMC_CSTHR && cal_file && levels[*n - 1] >= is->cal.ncap) {
		snprintf(why, whysize, "invalid --levels: the machine file '%s' has the capacity left "
			 "for up to %zu CSThrs (recalibrate with more --interfere-cpus)", cal_file,
			 is->cal.ncap - 1);
		*n = 0;
		return -1;
	}
	return 0;
}
