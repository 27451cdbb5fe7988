/* SPDX-License-Identifier: MIT */
/* records.c: META, RUN_BEGIN, RUN_END, SUMMARY and WARNING texts into typed structs (the analyzer's
 * one set of cJSON getters). */
#include "records.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_cli.h"
#include "pm_util.h"

/* Replaces control characters and invalid UTF-8 in one string of a parsed JSON record (in place:
 * the result is never longer). */
static void sanitize_string(char *s)
{
	size_t n = strlen(s);
	char *clean = malloc(n + 1);

	if (!clean) {
		/* cannot sanitize: blank it rather than print it raw */
		memset(s, '?', n);
		return;
	}
	pm_cli_sanitize(clean, n + 1, s, n);
	memcpy(s, clean, strlen(clean) + 1);
	free(clean);
}

/* META topology.hwloc_xml is read by hwloc only, never printed: its line breaks and tabs are XML
 * whitespace that hwloc's parser needs (sanitize_string turned them into '?', and no recorded
 * topology loaded). Every other control character becomes a space. */
static void sanitize_xml(char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' && *s != '\r') || *s == 0x7f)
			*s = ' ';
}

/* Sanitizes every key and string value of a parsed tree (siblings and children). */
static void sanitize_tree(cJSON *o)
{
	for (; o; o = o->next) {
		if (o->string)
			sanitize_string(o->string);
		if (cJSON_IsString(o) && o->valuestring && o->string && !strcmp(o->string, "hwloc_xml"))
			sanitize_xml(o->valuestring);
		else if (cJSON_IsString(o) && o->valuestring)
			sanitize_string(o->valuestring);
		sanitize_tree(o->child);
	}
}

/* Parses a JSON record of the trace and sanitizes it, so nothing a trace carries (a command line,
 * a path, a warning) can put control characters on a terminal or into a report. NULL when the text
 * is not JSON. Size is bounded by the reader (PMT_MAX_JSON_BYTES, 16 MiB) and depth by cJSON
 * (CJSON_NESTING_LIMIT, 1000). */
static cJSON *parse_json(const char *text)
{
	cJSON *o = cJSON_Parse(text);

	if (o)
		sanitize_tree(o);
	return o;
}

/* ---- the getters ---- */

static const cJSON *item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A finite number at key, else dflt (a hostile trace may hold anything: cJSON reads 1e999 as
 * inf). */
static double num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = item(o, key);
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

/* A copy of the string at key, NULL when absent (or out of memory: then treated as absent). */
static char *str_dup(const cJSON *o, const char *key)
{
	const cJSON *v = item(o, key);
	return cJSON_IsString(v) && v->valuestring ? strdup(v->valuestring) : NULL;
}

/* A whole number in [0, 2^31) at key, else -1 (a rank, local rank or size). */
static long count(const cJSON *o, const char *key)
{
	double v = num(o, key, -1);
	return v >= 0 && v < 2147483648.0 && v == floor(v) ? (long)v : -1;
}

/* *out = the array at key as whole numbers in [0, 2^32), *n of them (an OS index list such as
 * META "affinity.packages"); NULL and 0 when absent, empty, or any element is something else.
 * Returns 0, or -1 when memory runs out. */
static int index_list(const cJSON *o, const char *key, uint32_t **out, size_t *n)
{
	const cJSON *a = item(o, key), *e;
	int len = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (len <= 0)
		return 0;
	cJSON_ArrayForEach(e, a)
		if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0 && e->valuedouble < 4294967296.0) ||
		    e->valuedouble != floor(e->valuedouble))
			return 0;
	if (!(*out = malloc((size_t)len * sizeof(**out))))
		return -1;
	cJSON_ArrayForEach(e, a)
		(*out)[k++] = (uint32_t)e->valuedouble;
	*n = k;
	return 0;
}

static void clock_pair_parse(const cJSON *c, struct pma_clock_pair *p)
{
	memset(p, 0, sizeof(*p));
	p->mono_ns = num(c, "mono_ns", NAN);
	p->realtime_s = num(c, "realtime_s", NAN);
	p->realtime_nsec = num(c, "realtime_nsec", NAN);
	p->uncertainty_ns = num(c, "uncertainty_ns", 0);
	p->present = isfinite(p->mono_ns) && isfinite(p->realtime_s) && isfinite(p->realtime_nsec) &&
		     p->realtime_nsec >= 0 && p->realtime_nsec < 1e9 && isfinite(p->uncertainty_ns);
}

static void job_parse(const cJSON *meta, struct pma_job *j)
{
	const cJSON *o = item(meta, "job"), *taken = item(item(meta, "node_readings"), "taken");

	j->rank = j->local_rank = j->size = -1;
	j->node_readings = cJSON_IsBool(taken) ? cJSON_IsTrue(taken) : -1;
	if (!cJSON_IsObject(o))
		return;
	j->present = 1;
	j->rank = count(o, "rank");
	j->local_rank = count(o, "local_rank");
	j->size = count(o, "size");
	j->id = str_dup(o, "id");
	j->host = str_dup(o, "host");
	j->rank_var = str_dup(o, "rank_var");
	j->id_var = str_dup(o, "id_var");
}

static void cpufreq_parse(const cJSON *cf, struct pma_cpufreq *out)
{
	const cJSON *v;

	out->lo_khz = INFINITY;
	out->hi_khz = 0;
	if (!cJSON_IsObject(cf))
		return;
	out->present = 1;
	out->governor = str_dup(cf, "governor");
	cJSON_ArrayForEach(v, item(cf, "cur_khz")) {
		if (cJSON_IsNumber(v) && v->valuedouble > 0) {
			out->lo_khz = fmin(out->lo_khz, v->valuedouble);
			out->hi_khz = fmax(out->hi_khz, v->valuedouble);
		}
	}
}

static void cpufreq_free(struct pma_cpufreq *c)
{
	free(c->governor);
	c->governor = NULL;
}

/* ---- META ---- */

/* *p = one zeroed element of size bytes per child of o (array or object), NULL when it has
 * none. Returns 0 or -1 (out of memory). */
static int alloc_children(const cJSON *o, void **p, size_t size)
{
	int n = cJSON_GetArraySize(o);

	*p = n > 0 ? calloc((size_t)n, size) : NULL;
	return n > 0 && !*p ? -1 : 0;
}

static int meta_command(const cJSON *meta, struct pma_meta *m)
{
	const cJSON *cmd = item(meta, "command"), *a;

	if (alloc_children(cmd, (void **)&m->command, sizeof(*m->command)) < 0)
		return -1;
	/* a non-string word is kept as absent (NULL) at its place, so positions stay comparable */
	cJSON_ArrayForEach(a, cmd)
		m->command[m->ncommand++] = cJSON_IsString(a) ? strdup(a->valuestring) : NULL;
	return 0;
}

/* The string members of obj ("env", "labels") as name/value pairs; other members are skipped. */
static int string_pairs(const cJSON *obj, struct pma_env_var **out, size_t *n)
{
	const cJSON *e;

	if (alloc_children(obj, (void **)out, sizeof(**out)) < 0)
		return -1;
	cJSON_ArrayForEach(e, obj) {
		struct pma_env_var *v = &(*out)[*n];
		if (!cJSON_IsString(e))
			continue;
		(*n)++;
		v->name = strdup(e->string ? e->string : "");
		v->value = strdup(e->valuestring);
		if (!v->name || !v->value)
			return -1;
	}
	return 0;
}

static int meta_sources(const cJSON *meta, struct pma_meta *m)
{
	const cJSON *src = item(meta, "sources"), *s;

	if (src)
		m->sources_json = cJSON_PrintUnformatted(src);
	if (alloc_children(src, (void **)&m->sources, sizeof(*m->sources)) < 0)
		return -1;
	cJSON_ArrayForEach(s, src) {
		struct pma_source *o = &m->sources[m->nsources++];
		if (!(o->name = strdup(s->string ? s->string : "(null)")))
			return -1;
		o->recorded = cJSON_IsTrue(item(s, "recorded"));
		o->reason = str_dup(s, "reason");
	}
	return 0;
}

int pma_meta_source_unrecorded(struct pma_meta *m, const char *name, const char *reason)
{
	cJSON *all = m->sources_json ? cJSON_Parse(m->sources_json) : NULL, *s;
	char *copy = NULL, *json = NULL;
	int rc = -1;

	s = all ? cJSON_GetObjectItemCaseSensitive(all, name) : NULL;
	if (cJSON_IsObject(s)) {
		cJSON_DeleteItemFromObjectCaseSensitive(s, "recorded");
		cJSON_DeleteItemFromObjectCaseSensitive(s, "reason");
		if (!cJSON_AddFalseToObject(s, "recorded") ||
		    !cJSON_AddStringToObject(s, "reason", reason) ||
		    !(json = cJSON_PrintUnformatted(all)))
			goto out;
		free(m->sources_json);
		m->sources_json = json;
	}
	for (size_t i = 0; i < m->nsources; i++) {
		struct pma_source *src = &m->sources[i];
		if (strcmp(src->name, name) != 0)
			continue;
		if (!(copy = strdup(reason)))
			goto out;
		free(src->reason);
		src->reason = copy;
		src->recorded = 0;
	}
	rc = 0;
out:
	cJSON_Delete(all);
	return rc;
}

/* META "wake_cost" (pmcollect --calibrate, --calibrate-wake). */
static void meta_wake_cost(const cJSON *o, struct pma_wake_cal *w)
{
	static const char *const classes[] = { "same_cpu", "smt", "shared_cache", "same_package",
						"other_package" };
	const cJSON *p;

	w->n = 0;
	cJSON_ArrayForEach(p, item(o, "pairs")) {
		const cJSON *cls = item(p, "class"), *cpus = item(p, "cpus");
		double med = num(p, "median_ns", NAN);
		struct pma_wake_pair *q = &w->pairs[w->n];
		size_t k = 0;
		while (k < PM_ARRAY_SIZE(classes) && !(cJSON_IsString(cls) &&
							strcmp(cls->valuestring, classes[k]) == 0))
			k++;
		if (w->n == PMA_WAKE_MAX_PAIRS || k == PM_ARRAY_SIZE(classes) || !(med >= 0) || isinf(med))
			continue;
		snprintf(q->cls, sizeof(q->cls), "%s", classes[k]);
		q->cpu_a = cJSON_IsNumber(cJSON_GetArrayItem(cpus, 0)) ? cJSON_GetArrayItem(cpus, 0)->valueint : -1;
		q->cpu_b = cJSON_IsNumber(cJSON_GetArrayItem(cpus, 1)) ? cJSON_GetArrayItem(cpus, 1)->valueint : -1;
		q->median_ns = med;
		q->min_ns = fmin(num(p, "min_ns", med), med);
		q->max_ns = fmax(num(p, "max_ns", med), med);
		if (!isfinite(q->min_ns) || q->min_ns < 0)
			q->min_ns = med;
		if (!isfinite(q->max_ns))
			q->max_ns = med;
		q->cpu_ns = num(p, "cpu_ns", NAN);
		if (!(q->cpu_ns >= 0 && q->cpu_ns <= 2 * med))
			q->cpu_ns = NAN;
		w->n++;
	}
}

/* buf (size bytes) = the string member key of o, cut to fit, or "" */
static void str_member(const cJSON *o, const char *key, char *buf, size_t size)
{
	const cJSON *v = item(o, key);

	snprintf(buf, size, "%s", cJSON_IsString(v) && v->valuestring ? v->valuestring : "");
}

/* META "interference" "written": the calibration's id, user, host and time (FORMAT.md) */
static void meta_interference_written(const cJSON *w, struct pma_interf_cal *c)
{
	c->written_unix_s = NAN;
	if (!cJSON_IsObject(w))
		return;
	str_member(w, "id", c->written_id, sizeof(c->written_id));
	str_member(w, "user", c->written_user, sizeof(c->written_user));
	str_member(w, "host", c->written_host, sizeof(c->written_host));
	str_member(w, "time_utc", c->written_time_utc, sizeof(c->written_time_utc));
	c->written_unix_s = num(w, "time_unix_s", NAN);
}

/* META "interference" (pmcollect's machine file as recorded). Rows beyond PMA_INTERF_MAX_K are
 * ignored; a row that is not valid, or whose C_bytes is not a finite number >= 0, reads NAN. */
static void meta_interference(const cJSON *o, struct pma_interf_cal *c)
{
	const cJSON *caps = item(o, "capacity"), *row, *method = item(o, "method");

	c->BW1_bytes_per_s = c->B_bytes_per_s = c->C0_lo_bytes = c->C0_hi_bytes = NAN;
	if (!cJSON_IsObject(o))
		return;
	c->present = 1;
	c->counters = cJSON_IsString(method) && strcmp(method->valuestring, "counters") == 0;
	method = item(o, "bw1_method");
	c->bw1_counters = cJSON_IsString(method) && strcmp(method->valuestring, "counters") == 0;
	c->BW1_bytes_per_s = num(o, "BW1_bytes_per_s", NAN);
	c->B_bytes_per_s = num(o, "B_bytes_per_s", NAN);
	c->csthr_bytes = num(o, "csthr_bytes", NAN);
	c->orth_bwthrs = num(o, "orthogonal_bwthrs", -1);
	meta_interference_written(item(o, "written"), c);
	if (!cJSON_IsArray(caps))
		caps = NULL;
	cJSON_ArrayForEach(row, caps) {
		const cJSON *pt, *pts = c->ncap == 0 && cJSON_IsArray(item(row, "points")) ? item(row, "points") : NULL;
		double C = num(row, "C_bytes", NAN);
		if (c->ncap > PMA_INTERF_MAX_K)
			break;
		c->C_bytes[c->ncap] = cJSON_IsTrue(item(row, "valid")) && C >= 0 ? C : NAN;
		/* the spread of row 0's in-range points: how well one calibration resolves C */
		cJSON_ArrayForEach(pt, pts) {
			double h = num(pt, "hit_rate", NAN), Ce = num(pt, "C_eff_bytes", NAN);
			if (!(h >= 0.10 && h <= 0.90) || !(Ce >= 0))
				continue;
			c->C0_lo_bytes = isnan(c->C0_lo_bytes) ? Ce : fmin(c->C0_lo_bytes, Ce);
			c->C0_hi_bytes = isnan(c->C0_hi_bytes) ? Ce : fmax(c->C0_hi_bytes, Ce);
		}
		c->ncap++;
	}
}

int pma_meta_parse(const char *text, struct pma_meta *m)
{
	cJSON *meta = parse_json(text);
	const cJSON *topo;
	int rc = 0;

	memset(m, 0, sizeof(*m));
	m->collector_cpu = -1;
	if (!cJSON_IsObject(meta)) {
		cJSON_Delete(meta);
		return -1;
	}
	m->cwd = str_dup(meta, "cwd");
	m->start_utc = str_dup(meta, "start_utc");
	m->tool = str_dup(meta, "tool");
	m->tool_version = str_dup(meta, "tool_version");
	m->hostname = str_dup(meta, "hostname");
	m->kernel_release = str_dup(item(meta, "kernel"), "release");
	m->interval_ms = num(meta, "interval_ms", 0);
	m->cpus = str_dup(meta, "cpus");
	m->collector_cpu = num(meta, "collector_cpu", -1);
	m->mempolicy_mode = str_dup(item(meta, "mempolicy"), "mode");
	topo = item(meta, "topology");
	if (cJSON_IsObject(topo)) {
		m->topo.present = 1;
		m->topo.packages = num(topo, "packages", 0);
		m->topo.cores = num(topo, "cores", 0);
		m->topo.pus = num(topo, "pus", 0);
		m->topo.numa_nodes = num(topo, "numa_nodes", 0);
	}
	m->topo.hwloc_xml = str_dup(topo, "hwloc_xml");
	cpufreq_parse(item(meta, "cpufreq"), &m->cpufreq);
	meta_interference(item(meta, "interference"), &m->interf);
	meta_wake_cost(item(meta, "wake_cost"), &m->wake);
	job_parse(meta, &m->job);
	clock_pair_parse(item(meta, "clocks"), &m->clocks);
	m->affinity_cpus = str_dup(item(meta, "affinity"), "cpus");
	if (index_list(item(meta, "affinity"), "packages", &m->affinity_packages,
		       &m->naffinity_packages) < 0)
		rc = -1;
	m->online_cpus = str_dup(meta, "online_cpus");
	m->usable_cpus = str_dup(meta, "usable_cpus");
	m->cgroup_cpus = str_dup(item(meta, "cgroup_cpuset"), "cpus");
	{
		double hz = num(meta, "config_hz", 0);
		m->config_hz = hz >= 1 && hz <= 100000 && hz == floor(hz) ? (long)hz : 0;
	}
	{
		const cJSON *cl = item(meta, "cpu_limit");
		m->cpu_limit_present = cJSON_IsObject(cl);
		m->cpu_quota_us = num(cl, "quota_us", -1);
		m->cpu_period_us = num(cl, "period_us", 0);
		m->cpu_burst_us = num(cl, "burst_us", 0);
		m->cpu_limit_by_pmcollect = cJSON_IsString(item(cl, "applied_by")) &&
					    strcmp(item(cl, "applied_by")->valuestring, "pmcollect") == 0;
	}
	if (meta_command(meta, m) < 0 || string_pairs(item(meta, "env"), &m->env, &m->nenv) < 0 || meta_sources(meta, m) < 0 ||
	    string_pairs(item(meta, "labels"), &m->labels, &m->nlabels) < 0)
		rc = -1;
	cJSON_Delete(meta);
	return rc;
}

void pma_meta_free(struct pma_meta *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ncommand; i++)
		free(m->command[i]);
	free(m->command);
	free(m->cwd);
	free(m->start_utc);
	free(m->tool);
	free(m->tool_version);
	free(m->hostname);
	free(m->kernel_release);
	free(m->cpus);
	for (size_t i = 0; i < m->nenv; i++) {
		free(m->env[i].name);
		free(m->env[i].value);
	}
	free(m->env);
	for (size_t i = 0; i < m->nlabels; i++) {
		free(m->labels[i].name);
		free(m->labels[i].value);
	}
	free(m->labels);
	for (size_t i = 0; i < m->nsources; i++) {
		free(m->sources[i].name);
		free(m->sources[i].reason);
	}
	free(m->sources);
	free(m->sources_json);
	free(m->mempolicy_mode);
	free(m->topo.hwloc_xml);
	cpufreq_free(&m->cpufreq);
	free(m->job.id);
	free(m->job.host);
	free(m->job.rank_var);
	free(m->job.id_var);
	free(m->affinity_cpus);
	free(m->affinity_packages);
	free(m->online_cpus);
	free(m->usable_cpus);
	free(m->cgroup_cpus);
	memset(m, 0, sizeof(*m));
}

/* ---- RUN_BEGIN, RUN_END ---- */

/* key of o as a whole number from 1 to 2^32 - 1, NAN when absent, null or anything else */
static double positive(const cJSON *o, const char *key)
{
	double v = num(o, key, NAN);

	return v >= 1 && v <= UINT32_MAX && v == floor(v) ? v : NAN;
}

/* The number at key when above 0 (a quota, a period), else NAN. */
static double above_zero(const cJSON *o, const char *key)
{
	double v = num(o, key, NAN);

	return v > 0 ? v : NAN;
}

/* The strings of array arr (or, with key, each element's string member key) into a malloc'ed
 * array of at most PMT_MAX_ENERGY_ZONES malloc'ed strings (NULL where absent). Returns 0, or -1
 * when memory runs out. */
static int string_list(const cJSON *arr, const char *key, char ***out, size_t *n)
{
	const cJSON *el;
	size_t k = 0, len = (size_t)cJSON_GetArraySize(arr);

	*out = NULL;
	*n = 0;
	if (!cJSON_IsArray(arr) || len == 0)
		return 0;
	if (len > PMT_MAX_ENERGY_ZONES)
		len = PMT_MAX_ENERGY_ZONES;
	if (!(*out = calloc(len, sizeof(**out))))
		return -1;
	cJSON_ArrayForEach(el, arr) {
		const cJSON *s = key ? item(el, key) : el;
		if (k == len)
			break;
		*n = ++k; /* the slot is freed with the others, filled or not */
		if (cJSON_IsString(s) && s->valuestring && !((*out)[k - 1] = strdup(s->valuestring)))
			return -1;
	}
	return 0;
}

static void string_list_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int pma_run_begin_parse(const char *text, struct pma_run_info *ri)
{
	cJSON *o = parse_json(text);
	const cJSON *pid = item(o, "pid");
	char *role;

	ri->threads = 0;
	ri->rep = ri->nrep = ri->sweep_cores = ri->sweep_threads = NAN;
	ri->sweep_quota_cpus = ri->quota_cpus = ri->quota_period_us = NAN;
	if (!o)
		return 0;
	ri->has_begin = 1;
	role = str_dup(o, "role");
	ri->role = !role ? PMA_ROLE_UNKNOWN : strcmp(role, "baseline") == 0 ? PMA_ROLE_BASELINE :
		   strcmp(role, "calibration") == 0 ? PMA_ROLE_CALIBRATION :
		   strcmp(role, "interference") == 0 ? PMA_ROLE_INTERFERENCE :
		   strcmp(role, "sweep") == 0 ? PMA_ROLE_SWEEP : PMA_ROLE_OTHER;
	free(role);
	{
		const cJSON *in = item(o, "interference"), *kind = item(in, "kind");
		double k = num(in, "k", -1);
		if (cJSON_IsString(kind) && k >= 0 && k <= PMA_INTERF_MAX_K && k == floor(k) &&
		    (strcmp(kind->valuestring, "cache") == 0 || strcmp(kind->valuestring, "bandwidth") == 0)) {
			ri->interf.present = 1;
			ri->interf.bandwidth = strcmp(kind->valuestring, "bandwidth") == 0;
			ri->interf.k = (uint32_t)k;
		}
	}
	ri->rep = num(o, "rep", NAN);
	ri->nrep = positive(o, "nrep");
	if (!(ri->rep >= 0 && ri->rep < 1e9 && ri->rep == floor(ri->rep)))
		ri->rep = NAN;
	{
		const cJSON *sw = item(o, "sweep");
		double cfg = num(sw, "config", NAN);
		ri->has_sweep = cJSON_IsObject(sw) && cfg >= 0 && cfg < UINT32_MAX && cfg == floor(cfg);
		ri->sweep_config = ri->has_sweep ? (uint32_t)cfg : 0;
		ri->sweep_cores = positive(sw, "cores");
		ri->sweep_threads = positive(sw, "threads");
		ri->sweep_quota_cpus = above_zero(sw, "quota_cpus");
		ri->quota_cpus = above_zero(item(o, "quota"), "cpus");
		ri->quota_period_us = above_zero(item(o, "quota"), "period_us");
	}
	if (cJSON_IsNumber(pid) && pid->valuedouble > 0 && pid->valuedouble <= UINT32_MAX)
		ri->pid = (uint32_t)pid->valuedouble;
	ri->cpus = str_dup(o, "cpus");
	ri->collector_cpu = num(o, "collector_cpu", NAN);
	ri->threads = num(o, "threads", 0);
	if (!(ri->threads >= 1 && ri->threads <= 1e6))
		ri->threads = 0;
	ri->mem_mode = str_dup(item(o, "mempolicy"), "mode");
	ri->window_delay_ns = num(item(o, "window"), "delay_ns", NAN);
	if (!(ri->window_delay_ns >= 0))
		ri->window_delay_ns = NAN;
	{
		const cJSON *att = item(item(o, "window"), "attached");
		ri->window_attached = cJSON_IsArray(att) && cJSON_GetArraySize(att) > 0;
	}
	if (string_list(item(item(o, "energy"), "zones"), NULL, &ri->energy_zones, &ri->nenergy_zones) < 0 ||
	    string_list(item(item(o, "counters"), "events"), NULL, &ri->counter_events,
			&ri->ncounter_events) < 0) {
		cJSON_Delete(o);
		return -1;
	}
	cJSON_Delete(o);
	return 0;
}

/* Two hex digits per byte into out (at most max bytes); returns the bytes, 0 when not hex. */
static size_t hex_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = 0;

	for (; hex && hex[0] && hex[1] && n < max; hex += 2) {
		unsigned v;
		if (sscanf(hex, "%2x", &v) != 1)
			return 0;
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* RUN_END "omp_regions.counters" into c: events beyond PMA_OMP_MAX_EVENTS or not strings make
 * the list unusable (nevents 0, a reason). Returns 0, or -1 when memory runs out. */
static int omp_counters_parse(const cJSON *j, struct pma_omp_counters_info *c)
{
	const cJSON *ev = item(j, "events"), *kinds = item(j, "kinds"), *e;

	c->records = c->failures = NAN;
	if (!cJSON_IsObject(j))
		return 0;
	c->present = 1;
	c->recorded = cJSON_IsTrue(item(j, "recorded"));
	c->reason = str_dup(j, "reason");
	c->records = num(j, "records", NAN);
	c->failures = num(j, "failures", NAN);
	if (!cJSON_IsArray(ev))
		return 0;
	cJSON_ArrayForEach(e, ev) {
		const cJSON *k = cJSON_GetArrayItem(kinds, (int)c->nevents);
		if (!cJSON_IsString(e) || c->nevents == PMA_OMP_MAX_EVENTS) {
			while (c->nevents)
				free(c->events[--c->nevents]);
			c->recorded = 0;
			free(c->reason);
			c->reason = strdup("RUN_END omp_regions.counters.events is not a list of at most 16 names");
			return c->reason ? 0 : -1;
		}
		if (!(c->events[c->nevents] = strdup(e->valuestring)))
			return -1;
		c->llc[c->nevents++] = cJSON_IsString(k) && !strcmp(k->valuestring, "llc_misses");
	}
	return 0;
}

/* RUN_END "omp_regions" into oi. Returns 0, or -1 when memory runs out. */
static int omp_parse(const cJSON *j, struct pma_omp_info *oi)
{
	const cJSON *objs, *e;
	size_t n;

	oi->regions = oi->regions_total = oi->dropped_records = NAN;
	if (omp_counters_parse(item(j, "counters"), &oi->counters) < 0)
		return -1;
	if (!cJSON_IsObject(j))
		return 0;
	oi->present = 1;
	oi->recorded = cJSON_IsTrue(item(j, "recorded"));
	oi->reason = str_dup(j, "reason");
	oi->runtime_version = str_dup(j, "runtime_version");
	oi->regions = num(j, "regions", NAN);
	oi->regions_total = num(j, "regions_total", NAN);
	oi->dropped_records = num(j, "dropped_records", NAN);
	objs = item(j, "objects");
	n = cJSON_IsArray(objs) ? (size_t)cJSON_GetArraySize(objs) : 0;
	if (!n)
		return 0;
	oi->objects = calloc(n, sizeof(*oi->objects));
	if (!oi->objects)
		return -1;
	cJSON_ArrayForEach(e, objs) {
		struct pma_omp_object *d = &oi->objects[oi->nobjects];
		double pid = num(e, "pid", 0), load = num(e, "load_addr", -1);
		char *bid;

		if (!cJSON_IsObject(e) || !(pid > 0 && pid <= UINT32_MAX) || !(load >= 0 && load < 0x1p64))
			continue;
		d->path = str_dup(e, "path");
		if (!d->path)
			continue;
		d->pid = (uint32_t)pid;
		d->load_addr = (uint64_t)load;
		bid = str_dup(e, "build_id");
		d->build_id_bytes = hex_bytes(bid, d->build_id, sizeof(d->build_id));
		free(bid);
		oi->nobjects++;
	}
	return 0;
}

/* A trace recorded before pmcollect judged its counters (docs/energy.md) can claim a working source
 * none of whose zones advanced over the run: a perf `power` PMU whose energy-psys reads 0
 * throughout. Such a run has no energy: present 0 and the reason pmcollect now records, "energy
 * unavailable: the counter did not advance (N readings over T s)", with N = energy.readings + 1
 * (the first reading is not counted there) and T the run's wall_ns. Returns 0, or -1 when memory
 * runs out. */
static int energy_did_not_advance(const cJSON *run_end, const cJSON *en, struct pma_run_energy *e)
{
	const cJSON *zs = item(en, "zones"), *z;
	double total_uj = 0;
	char why[160];

	cJSON_ArrayForEach(z, zs)
		total_uj += fabs(num(z, "energy_uj", 0));
	if (!cJSON_IsArray(zs) || total_uj > 0)
		return 0;
	snprintf(why, sizeof(why), "energy unavailable: the counter did not advance "
		 "(%.0f readings over %.1f s, %s)", num(en, "readings", 0) + 1,
		 num(run_end, "wall_ns", 0) / 1e9, e->source && strcmp(e->source, "perf") == 0 ?
		 "perf power PMU" : "powercap");
	e->present = 0;
	e->package_uj = e->core_uj = e->dram_uj = e->max_gap_ns = NAN;
	free(e->source);
	e->source = NULL;
	return (e->reason = strdup(why)) ? 0 : -1;
}

/* RUN_END "energy", "energy_reason" and "other_load" (FORMAT.md §6, since 1.2). Returns 0, or -1
 * when memory runs out. */
static int energy_parse(const cJSON *o, struct pma_run_energy *e)
{
	const cJSON *en = item(o, "energy"), *l = item(o, "other_load");

	e->package_uj = e->core_uj = e->dram_uj = e->other_load_cpus = e->program_cpus = e->steal_cpus = NAN;
	e->max_gap_ns = NAN;
	if (cJSON_IsObject(en)) {
		e->present = 1;
		e->source = str_dup(en, "source");
		e->package_uj = num(en, "package_uj", NAN);
		e->core_uj = num(en, "core_uj", NAN);
		e->dram_uj = num(en, "dram_uj", NAN);
		e->max_gap_ns = num(en, "max_gap_ns", NAN);
		if (energy_did_not_advance(o, en, e) < 0)
			return -1;
	} else {
		e->reason = str_dup(o, "energy_reason");
	}
	e->other_load_cpus = num(l, "cpus", NAN);
	e->program_cpus = num(l, "program_cpus", NAN);
	e->steal_cpus = num(l, "steal_cpus", NAN);
	return string_list(item(en, "zones"), "id", &e->zone_ids, &e->nzone_ids);
}

int pma_run_end_parse(const char *text, struct pma_run_info *ri)
{
	cJSON *o = parse_json(text);
	const cJSON *ex, *c, *lost;
	char *src;

	ri->exit_code = ri->exit_signal = NAN;
	ri->nr_periods = ri->nr_throttled = ri->throttled_us = NAN;
	ri->wall_ns = ri->utime_ns = ri->stime_ns = ri->interf.bytes_per_s = ri->interf.cpu_ns = NAN;
	ri->C.value = ri->C.cpu_time_ns = ri->C.llc_misses = ri->C.stall_cycles = NAN;
	ri->C.instructions = NAN;
	ri->cpufreq.lo_khz = INFINITY;
	ri->samples = ri->late_samples = ri->lost_samples = NAN;
	ri->interval_requested_ms = ri->interval_final_ms = ri->interval_changes = NAN;
	ri->window_offset_ns = ri->window_length_ns = NAN;
	if (!o)
		return 0;
	ri->has_end = 1;
	ex = item(o, "exit");
	ri->exit_kind_name = str_dup(ex, "kind");
	ri->exit_kind = !ri->exit_kind_name ? PMA_EXIT_UNKNOWN :
		strcmp(ri->exit_kind_name, "exited") == 0 ? PMA_EXIT_EXITED :
		strcmp(ri->exit_kind_name, "signaled") == 0 ? PMA_EXIT_SIGNALED : PMA_EXIT_OTHER;
	ri->exit_code = num(ex, "code", NAN);
	ri->exit_signal = num(ex, "signal", NAN);
	lost = item(item(o, "sched_events"), "lost");
	if (cJSON_IsNumber(lost) && lost->valuedouble > 0)
		ri->sched_lost = (uint64_t)lost->valuedouble;
	c = item(o, "C");
	if (c) {
		ri->C.present = 1;
		src = str_dup(c, "source");
		ri->C.unit = src && strcmp(src, "cycles") == 0 ? PMA_COST_CYCLES : PMA_COST_NS;
		free(src);
		ri->C.value = num(c, "value", NAN);
		ri->C.cpu_time_ns = num(c, "cpu_time_ns", NAN);
		ri->C.instructions = num(c, "instructions", NAN);
		if (ri->C.unit == PMA_COST_CYCLES)
			ri->C.event = str_dup(c, "event");
		ri->C.instructions_event = str_dup(c, "instructions_event");
		ri->C.llc_misses = num(c, "llc_misses", NAN);
		ri->C.stall_cycles = num(c, "stall_cycles", NAN);
	}
	cpufreq_parse(item(o, "cpufreq"), &ri->cpufreq);
	if (omp_parse(item(o, "omp_regions"), &ri->omp) < 0) {
		cJSON_Delete(o);
		return -1;
	}
	if (energy_parse(o, &ri->energy) < 0 || pma_mpi_info_parse(item(o, "mpi"), &ri->mpi) < 0) {
		cJSON_Delete(o);
		return -1;
	}
	ri->wall_ns = num(o, "wall_ns", NAN);
	{
		const cJSON *cs = item(o, "cpu_stat");
		ri->nr_periods = num(cs, "nr_periods", NAN);
		ri->nr_throttled = num(cs, "nr_throttled", NAN);
		ri->throttled_us = num(cs, "throttled_us", NAN);
	}
	{
		const cJSON *win = item(o, "window");
		ri->window_offset_ns = num(win, "offset_ns", NAN);
		ri->window_length_ns = num(win, "length_ns", NAN);
		ri->window_end = str_dup(win, "end");
		ri->window_after = str_dup(win, "after");
	}
	ri->utime_ns = num(item(o, "rusage"), "utime_ns", NAN);
	ri->stime_ns = num(item(o, "rusage"), "stime_ns", NAN);
	ri->interf.bytes_per_s = num(item(o, "interferers"), "bytes_per_s", NAN);
	ri->interf.cpu_ns = num(item(o, "interferers"), "cpu_ns", NAN);
	clock_pair_parse(item(item(o, "clocks"), "begin"), &ri->clk_begin);
	clock_pair_parse(item(item(o, "clocks"), "end"), &ri->clk_end);
	ri->samples = num(o, "samples", NAN);
	ri->late_samples = num(o, "late_samples", NAN);
	ri->lost_samples = num(o, "lost_samples", NAN);
	ri->interval_requested_ms = num(item(o, "interval"), "requested_ms", NAN);
	ri->interval_final_ms = num(item(o, "interval"), "final_ms", NAN);
	ri->interval_changes = num(item(o, "interval"), "changes", NAN);
	cJSON_Delete(o);
	return 0;
}

int pma_window_label(const struct pma_run_info *ri, char *buf, size_t size)
{
	const char *end = ri->window_end ? ri->window_end : "", *after;

	buf[0] = '\0';
	if (!ri->window_end || !isfinite(ri->window_length_ns) || !isfinite(ri->window_offset_ns))
		return 0;
	after = !ri->window_after ? "" :
		strcmp(ri->window_after, "terminated") == 0 ? " (the program was then terminated)" :
		strcmp(ri->window_after, "killed") == 0 ? " (the program was then killed: SIGTERM was "
							  "not enough)" :
		strcmp(ri->window_after, "detached") == 0 ? " (the program was left running)" :
		strcmp(ri->window_after, "left") == 0 ? " (pmcollect -p: the process was left running)" : "";
	snprintf(buf, size, "window of %.3f s from %.3f s after the start, ended %s%s",
		 ri->window_length_ns / 1e9, ri->window_offset_ns / 1e9,
		 strcmp(end, "duration") == 0 ? "at --duration" :
		 strcmp(end, "exit") == 0 ? "when the program did" :
		 strcmp(end, "signal") == 0 ? "at a signal to pmcollect" : end, after);
	return 1;
}

void pma_run_info_free(struct pma_run_info *ri)
{
	if (!ri)
		return;
	free(ri->cpus);
	free(ri->exit_kind_name);
	free(ri->window_end);
	free(ri->window_after);
	free(ri->mem_mode);
	free(ri->energy.source);
	free(ri->energy.reason);
	string_list_free(ri->energy.zone_ids, ri->energy.nzone_ids);
	string_list_free(ri->energy_zones, ri->nenergy_zones);
	string_list_free(ri->counter_events, ri->ncounter_events);
	free(ri->C.event);
	free(ri->C.instructions_event);
	cpufreq_free(&ri->cpufreq);
	free(ri->omp.reason);
	pma_mpi_info_free(&ri->mpi);
	free(ri->omp.runtime_version);
	free(ri->omp.counters.reason);
	for (size_t i = 0; i < ri->omp.counters.nevents; i++)
		free(ri->omp.counters.events[i]);
	for (size_t i = 0; i < ri->omp.nobjects; i++)
		free(ri->omp.objects[i].path);
	free(ri->omp.objects);
	memset(ri, 0, sizeof(*ri));
}

/* ---- SUMMARY, WARNING ---- */

void pma_summary_parse(const char *text, struct pma_summary *s)
{
	cJSON *o = parse_json(text);

	memset(s, 0, sizeof(*s));
	if (!o)
		return;
	s->present = 1;
	s->samples = num(o, "samples", 0);
	s->late_samples = num(o, "late_samples", 0);
	s->lost_samples = num(o, "lost_samples", 0);
	s->collector_cpu_ns = num(o, "collector_cpu_ns", 0);
	s->sampling_cpu_ns = num(o, "sampling_cpu_ns", NAN);
	cJSON_Delete(o);
}

int pma_summary_sources_apply(const char *text, struct pma_meta *m)
{
	cJSON *o = parse_json(text);
	const cJSON *s;
	int rc = 0;

	cJSON_ArrayForEach(s, item(o, "sources")) {
		const cJSON *why = item(s, "reason");
		if (rc == 0 && s->string && cJSON_IsFalse(item(s, "recorded")) && cJSON_IsString(why))
			rc = pma_meta_source_unrecorded(m, s->string, why->valuestring);
	}
	cJSON_Delete(o);
	return rc;
}

char *pma_warning_parse(const char *text, char **code)
{
	cJSON *o = parse_json(text);
	char *what = str_dup(o, "what");

	*code = what ? str_dup(o, "code") : NULL;
	cJSON_Delete(o);
	return what;
}
