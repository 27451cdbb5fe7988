/* SPDX-License-Identifier: MIT */
/* contention.c: machines (hwloc), calibration points C(n) from the runs of the traces, the memory
 * model's fit, and what to record when it cannot be fitted. */
#include "contention.h"

#include <errno.h>
#include <hwloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmt_cli.h"

static double num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Counts from a loaded hwloc topology. */
static void machine_counts(struct pma_machine *m, hwloc_topology_t topo)
{
	int pk = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

	m->sockets = pk > 0 ? (uint32_t)pk : 1;
	m->cores = (uint32_t)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	m->pus = (uint32_t)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (!m->cores)
		m->cores = m->pus;
	m->numa_nodes = nn > 0 ? (uint32_t)nn : 1;
	m->c = m->cores / m->sockets ? m->cores / m->sockets : 1;
	m->topo = topo;
}

/* Loads hwloc XML from a buffer (len > 0) or a file (len == 0). */
static int machine_xml(struct pma_machine *m, const char *xml, size_t len, char *why, size_t whysize)
{
	hwloc_topology_t topo;
	int rc;

	/* the XML comes from a trace, i.e. from anywhere: hwloc's own minimal parser rather than
	 * its libxml2 plugin, which leaks on malformed input (fuzz_trace found it) and is more
	 * code to trust; hwloc-bind(1) documents HWLOC_LIBXML_IMPORT */
	setenv("HWLOC_LIBXML_IMPORT", "0", 1);
	if (hwloc_topology_init(&topo) != 0) {
		snprintf(why, whysize, "hwloc_topology_init failed: %s", strerror(errno));
		return -1;
	}
	rc = len ? hwloc_topology_set_xmlbuffer(topo, xml, (int)len) : hwloc_topology_set_xml(topo, xml);
	if (rc == 0)
		rc = hwloc_topology_load(topo);
	if (rc != 0) {
		snprintf(why, whysize, "hwloc cannot load the topology XML: %s", strerror(errno));
		hwloc_topology_destroy(topo);
		return -1;
	}
	machine_counts(m, topo);
	return 0;
}

int pma_machine_from_meta(const cJSON *meta, const char *path, struct pma_machine *m, char *why,
			  size_t whysize)
{
	const cJSON *topo = cJSON_GetObjectItemCaseSensitive(meta, "topology");
	const char *xml = str(topo, "hwloc_xml");

	memset(m, 0, sizeof(*m));
	snprintf(m->source, sizeof(m->source), "trace '%s'", path);
	if (xml && machine_xml(m, xml, strlen(xml) + 1, why, whysize) == 0)
		return 0;
	if (!cJSON_IsObject(topo) || num(topo, "pus", 0) < 1) {
		snprintf(why, whysize, "'%s' records no machine topology", path);
		return -1;
	}
	m->sockets = num(topo, "packages", 0) >= 1 ? (uint32_t)num(topo, "packages", 1) : 1;
	m->pus = (uint32_t)num(topo, "pus", 1);
	m->cores = num(topo, "cores", 0) >= 1 ? (uint32_t)num(topo, "cores", 1) : m->pus;
	m->numa_nodes = num(topo, "numa_nodes", 0) >= 1 ? (uint32_t)num(topo, "numa_nodes", 1) : 1;
	m->c = m->cores / m->sockets ? m->cores / m->sockets : 1;
	return 0;
}

int pma_machine_load(const char *path, struct pma_machine *m, char *why, size_t whysize)
{
	FILE *f = fopen(path, "rb");
	int ch;

	memset(m, 0, sizeof(*m));
	if (!f) {
		snprintf(why, whysize, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((ch = fgetc(f)) == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
		;
	fclose(f);
	if (ch == '<') {
		char e[300];
		if (machine_xml(m, path, 0, e, sizeof(e)) < 0) {
			snprintf(why, whysize, "'%s': %s", path, e);
			return -1;
		}
		snprintf(m->source, sizeof(m->source), "hwloc XML '%s'", path);
		return 0;
	} else {
		struct pma_trace t;
		char e[512];
		int rc = pma_trace_load(&t, path, 0, e, sizeof(e));
		if (rc < 0)
			snprintf(why, whysize, "--machine '%s' is neither hwloc XML nor a readable trace: %s",
				 path, e);
		else
			rc = pma_machine_from_meta(t.meta, path, m, why, whysize);
		pma_trace_free(&t);
		return rc < 0 ? -1 : 0;
	}
}

void pma_machine_free(struct pma_machine *m)
{
	if (m && m->topo)
		hwloc_topology_destroy((hwloc_topology_t)m->topo);
	if (m)
		m->topo = NULL;
}

uint32_t pma_machine_first_socket(const struct pma_machine *m, const char *cpus, uint32_t n)
{
	hwloc_topology_t topo = (hwloc_topology_t)m->topo;
	hwloc_bitmap_t set;
	uint32_t best = 0;

	if (!topo || !cpus || !cpus[0] || !(set = hwloc_bitmap_alloc()))
		return n < m->c ? n : m->c;
	if (hwloc_bitmap_list_sscanf(set, cpus) == 0) {
		for (hwloc_obj_t p = NULL; (p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p));) {
			hwloc_bitmap_t and = hwloc_bitmap_alloc();
			if (!and)
				break;
			hwloc_bitmap_and(and, set, p->cpuset);
			if ((uint32_t)hwloc_bitmap_weight(and) > best)
				best = (uint32_t)hwloc_bitmap_weight(and);
			hwloc_bitmap_free(and);
		}
	}
	hwloc_bitmap_free(set);
	/* no package objects: one socket holds them all */
	return best ? best : n;
}

int pma_traces_same_program(const struct pma_trace *traces, int ntraces, char *why, size_t whysize)
{
	const cJSON *c0 = cJSON_GetObjectItemCaseSensitive(traces[0].meta, "command");

	for (int i = 1; i < ntraces; i++) {
		const cJSON *ci = cJSON_GetObjectItemCaseSensitive(traces[i].meta, "command");
		int n0 = cJSON_GetArraySize(c0), ni = cJSON_GetArraySize(ci);
		for (int k = 0; k < (n0 > ni ? n0 : ni); k++) {
			const cJSON *a = cJSON_GetArrayItem(c0, k), *b = cJSON_GetArrayItem(ci, k);
			const char *sa = cJSON_IsString(a) ? a->valuestring : "(nothing)";
			const char *sb = cJSON_IsString(b) ? b->valuestring : "(nothing)";
			char ca[120], cb[120];
			if (strcmp(sa, sb) == 0)
				continue;
			snprintf(why, whysize, "'%s' records a different program than '%s': argument %d is "
				 "'%s', not '%s' (use --force to combine them)", traces[i].path,
				 traces[0].path, k, pmt_cli_sanitize(cb, sizeof(cb), sb, strlen(sb)),
				 pmt_cli_sanitize(ca, sizeof(ca), sa, strlen(sa)));
			return -1;
		}
	}
	return 0;
}

/* The command of META as shell words, quoted where needed (for the suggested pmcollect line). */
static void shell_command(const cJSON *meta, char *buf, size_t size)
{
	const cJSON *a;
	size_t o = 0;

	buf[0] = '\0';
	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(meta, "command")) {
		char clean[256];
		const char *w;
		if (!cJSON_IsString(a) || o >= size)
			continue;
		w = pmt_cli_sanitize(clean, sizeof(clean), a->valuestring, strlen(a->valuestring));
		if (w[0] && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       "-_./=:,+@%") == strlen(w))
			o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? " " : "", w);
		else
			o += (size_t)snprintf(buf + o, size - o, "%s'%s'", o ? " " : "", w);
	}
}

/* C(n) of one run: RUN_END "C", else the schedstat CPU time the samples add up to. */
static double run_C(const struct pma_run *r, int want_cycles, double *llc, int *is_cycles)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(r->end, "C");
	const char *src = str(c, "source");

	*llc = num(c, "llc_misses", NAN);
	*is_cycles = src && strcmp(src, "cycles") == 0;
	if (want_cycles && *is_cycles)
		return num(c, "value", NAN);
	if (c)
		return num(c, "cpu_time_ns", NAN);
	{
		const struct pma_profile *p = pma_est_profile(r->est, PMA_EST_RUNNABLE);
		return p->work_ns;
	}
}

/* Warns when CPU time stands in for cycles and the clock may have changed between runs. */
static void check_frequency(const struct pma_trace *traces, struct pma_mem_cal *out)
{
	double lo = INFINITY, hi = 0;
	const char *gov = NULL;
	int any = 0, mixed_gov = 0;

	for (size_t i = 0; i < out->npts; i++) {
		const struct pma_trace *t = &traces[out->trace[i]];
		for (uint32_t k = 0; k < t->nruns; k++) {
			const cJSON *cf, *v;
			if (t->runs[k].run_id != out->run_id[i])
				continue;
			cf = cJSON_GetObjectItemCaseSensitive(t->runs[k].end, "cpufreq");
			if (!cJSON_IsObject(cf))
				cf = cJSON_GetObjectItemCaseSensitive(t->meta, "cpufreq");
			if (!cJSON_IsObject(cf))
				continue;
			any = 1;
			if (str(cf, "governor")) {
				if (gov && strcmp(gov, str(cf, "governor")) != 0)
					mixed_gov = 1;
				gov = str(cf, "governor");
			}
			cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(cf, "cur_khz")) {
				if (cJSON_IsNumber(v) && v->valuedouble > 0) {
					lo = fmin(lo, v->valuedouble);
					hi = fmax(hi, v->valuedouble);
				}
			}
		}
	}
	if (!any)
		snprintf(out->freq, sizeof(out->freq), "C(n) is CPU time, which assumes one clock "
			 "frequency in every run; no cpufreq data was recorded (no cpufreq driver, e.g. a "
			 "VM), so this cannot be checked");
	else if (mixed_gov || (gov && strcmp(gov, "performance") != 0) || hi > 1.05 * lo)
		snprintf(out->freq, sizeof(out->freq), "C(n) is CPU time, which assumes one clock "
			 "frequency in every run, but the governor is %s and the recorded frequencies "
			 "range %.0f-%.0f MHz: omega may reflect frequency changes (use the performance "
			 "governor, or hardware counters)", mixed_gov ? "mixed" : gov ? gov : "unknown",
			 isfinite(lo) ? lo / 1e3 : 0, hi / 1e3);
}

/* Says which core counts are missing and how to record them. */
static void explain_missing(const struct pma_trace *traces, const struct pma_machine *rec,
			    uint32_t m_peak, const char *fit_why, struct pma_mem_cal *out)
{
	uint32_t need[3] = { 1, rec->c, rec->c + 1 }, nneed = rec->sockets > 1 ? 3 : 2;
	char have[200] = "", missing[200] = "", cmd[700];
	size_t oh = 0, om = 0;

	for (size_t i = 0; i < out->npts && oh < sizeof(have); i++) {
		int dup = 0;
		for (size_t j = 0; j < i; j++)
			dup |= out->pts[j].cores == out->pts[i].cores;
		if (!dup)
			oh += (size_t)snprintf(have + oh, sizeof(have) - oh, "%s%u", oh ? ", " : "",
					       out->pts[i].cores);
	}
	for (uint32_t k = 0; k < nneed && om < sizeof(missing); k++) {
		int found = 0;
		for (size_t i = 0; i < out->npts; i++)
			found |= out->pts[i].cores == need[k];
		if (!found)
			om += (size_t)snprintf(missing + om, sizeof(missing) - om, "%s%u", om ? ", " : "",
					       need[k]);
	}
	shell_command(traces[0].meta, cmd, sizeof(cmd));
	snprintf(out->why, sizeof(out->why), "omega unknown (%s): the memory model needs runs on %s "
		 "cores (%u socket%s of %u cores); the traces have %s, missing %s; record them with "
		 "'pmcollect --calibrate -t %u -o calib.zst -- %s' and analyze with 'pmanalyze %s "
		 "calib.zst'", fit_why, nneed == 3 ? "1, c and c+1" : "1 and c", rec->sockets,
		 rec->sockets == 1 ? "" : "s", rec->c, have[0] ? have : "none",
		 missing[0] ? missing : "none (see above)", m_peak, cmd, traces[0].path);
}

int pma_mem_calibrate(const struct pma_trace *traces, int ntraces, const struct pma_machine *rec,
		      uint32_t m_peak, struct pma_mem_cal *out)
{
	enum pma_mem_model model = rec->sockets <= 1 ? PMA_MEM_SINGLE :
				   rec->numa_nodes > 1 ? PMA_MEM_NUMA : PMA_MEM_UMA;
	int all_cycles = 1;
	size_t os = 0;
	char fit_why[300];

	memset(out, 0, sizeof(*out));
	out->source = "none";
	out->params.model = PMA_MEM_NONE;
	for (int pass = 0; pass < 2; pass++) { /* 1: are all cycles? 2: collect */
		out->npts = 0;
		for (int ti = 0; ti < ntraces; ti++) {
			for (uint32_t k = 0; k < traces[ti].nruns; k++) {
				const struct pma_run *r = &traces[ti].runs[k];
				const cJSON *ex = cJSON_GetObjectItemCaseSensitive(r->end, "exit");
				const char *kind = str(ex, "kind");
				double llc;
				int cyc;
				struct pma_mem_point *p = &out->pts[out->npts];
				if (!r->end || !kind || strcmp(kind, "exited") != 0 || num(ex, "code", 1) != 0 ||
				    !r->cpus_n || r->st.m_peak != m_peak) {
					if (pass && os < sizeof(out->skipped))
						os += (size_t)snprintf(out->skipped + os, sizeof(out->skipped) - os,
								       "%srun %u of '%s' (%s)", os ? ", " : "",
								       r->run_id, traces[ti].path,
								       r->st.m_peak != m_peak ? "other thread count" :
								       "not finished with status 0");
					continue;
				}
				if (out->npts == PMA_CAL_MAX_POINTS)
					continue;
				p->C = run_C(r, all_cycles, &llc, &cyc);
				all_cycles &= cyc;
				p->r = llc;
				p->cores = r->cpus_n;
				p->n_first = pma_machine_first_socket(rec, r->cpus, r->cpus_n);
				out->run_id[out->npts] = r->run_id;
				out->trace[out->npts] = ti;
				out->npts++;
			}
		}
	}
	out->source = out->npts ? (all_cycles ? "cycles" : "cpu_time") : "none";
	if (out->npts && pma_mem_fit(out->pts, out->npts, rec->c, model, &out->params, fit_why,
				     sizeof(fit_why)) == 0) {
		for (size_t i = 0; i < out->npts; i++) {
			uint32_t per[2] = { out->pts[i].n_first, out->pts[i].cores - out->pts[i].n_first };
			struct pma_mem_omega o;
			out->omega_meas[i] = pma_mem_omega_measured(out->pts[i].C, out->params.C1);
			pma_mem_predict(&out->params, per, 2, rec->numa_nodes,
					PMA_POL_LOCAL_THEN_REMOTE, &o);
			out->omega_model[i] = o.omega;
		}
		if (!all_cycles)
			check_frequency(traces, out);
		return 0;
	}
	if (!out->npts)
		snprintf(fit_why, sizeof(fit_why), "no finished run of the program with %u threads", m_peak);
	explain_missing(traces, rec, m_peak, fit_why, out);
	out->source = "none";
	return 0;
}

static void eval_note(struct pma_mem_eval *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void eval_note(struct pma_mem_eval *e, const char *fmt, ...)
{
	va_list ap;

	if (e->nnotes == PMA_EVAL_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(e->notes[e->nnotes++], sizeof(e->notes[0]), fmt, ap);
	va_end(ap);
}

static enum pma_mem_policy recorded_policy(const cJSON *meta)
{
	const char *mode = str(cJSON_GetObjectItemCaseSensitive(meta, "mempolicy"), "mode");

	if (mode && strcmp(mode, "interleave") == 0)
		return PMA_POL_INTERLEAVE;
	if (mode && strcmp(mode, "bind") == 0)
		return PMA_POL_LOCAL_THEN_REMOTE;
	return PMA_POL_LOCAL;
}

int pma_mem_eval(const struct pma_trace *traces, int ntraces, const char *machine_path,
		 uint32_t chunk, int pol, uint32_t m, const uint32_t *cores, size_t ncores,
		 struct pma_mem_eval *out, char *why, size_t whysize)
{
	const struct pma_mem_params *p = &out->cal.params;
	const struct pma_machine *t;
	uint32_t *per;
	double sat_n = 0;

	memset(out, 0, sizeof(*out));
	out->omega = calloc(ncores ? ncores : 1, sizeof(double));
	out->cross = calloc(ncores ? ncores : 1, sizeof(double));
	out->per_socket = calloc(ncores ? ncores : 1, sizeof(*out->per_socket));
	if (!out->omega || !out->cross || !out->per_socket) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	out->ncores = ncores;
	if (pma_machine_from_meta(traces[0].meta, traces[0].path, &out->rec, why, whysize) < 0) {
		/* a trace without topology (written by another tool, or damaged) still gets its
		 * parallelism: one socket of one core is assumed, and said */
		memset(&out->rec, 0, sizeof(out->rec));
		out->rec.sockets = out->rec.c = out->rec.cores = out->rec.pus = 1;
		out->rec.numa_nodes = 1;
		snprintf(out->rec.source, sizeof(out->rec.source),
			 "assumed (1 socket, 1 core): %s", why);
		why[0] = '\0';
	}
	if (machine_path) {
		if (pma_machine_load(machine_path, &out->target, why, whysize) < 0)
			return -1;
		out->target_given = 1;
	} else {
		out->target = out->rec;
		out->target.topo = NULL; /* owned by rec */
	}
	t = &out->target;
	out->pol = pol >= 0 ? (enum pma_mem_policy)pol : recorded_policy(traces[0].meta);
	out->pol_source = pol >= 0 ? "--mem" : "recorded memory policy";
	out->chunk = chunk ? chunk : t->c;
	if (out->chunk >= t->c)
		snprintf(out->placement, sizeof(out->placement), "compact");
	else if (out->chunk == 1)
		snprintf(out->placement, sizeof(out->placement), "scatter");
	else
		snprintf(out->placement, sizeof(out->placement), "chunks of %u", out->chunk);

	pma_mem_calibrate(traces, ntraces, &out->rec, m, &out->cal);
	if (out->cal.why[0])
		eval_note(out, "%s", out->cal.why);
	if (out->cal.freq[0])
		eval_note(out, "%s", out->cal.freq);
	if (out->cal.skipped[0])
		eval_note(out, "left out of the calibration: %s", out->cal.skipped);
	if (out->target_given && p->model != PMA_MEM_NONE)
		eval_note(out, "--machine %s (%u socket%s of %u cores, %u NUMA node%s): A(m,n) "
			  "transfers as is; the per-socket M/M/1 parameters (mu, L) are assumed the same "
			  "per socket as on the calibration machine (%u x %u cores)%s; %s",
			  t->source, t->sockets, t->sockets == 1 ? "" : "s", t->c, t->numa_nodes,
			  t->numa_nodes == 1 ? "" : "s", out->rec.sockets, out->rec.c,
			  t->c > out->rec.c ? ", extrapolated past the calibrated core counts" : "",
			  t->sockets > 1 && out->rec.sockets == 1 ?
			  "the cross-socket term was not calibrated (one socket): omega beyond one "
			  "socket leaves it out and is a lower bound" : "the cross-socket term is the "
			  "calibration machine's");

	per = calloc(t->sockets, sizeof(*per));
	if (!per) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < ncores; i++) {
		struct pma_mem_omega o;
		size_t k = 0;
		out->omega[i] = out->cross[i] = NAN;
		if (pma_place(t->sockets, t->c, cores[i], out->chunk, per) < 0) {
			snprintf(out->per_socket[i], sizeof(out->per_socket[i]), "-");
			continue; /* more cores than the machine has */
		}
		for (uint32_t s = 0; s < t->sockets && k < sizeof(out->per_socket[i]); s++)
			k += (size_t)snprintf(out->per_socket[i] + k, sizeof(out->per_socket[i]) - k,
					      "%s%u", s ? "," : "{", per[s]);
		if (k < sizeof(out->per_socket[i]))
			snprintf(out->per_socket[i] + k, sizeof(out->per_socket[i]) - k, "}");
		if (pma_mem_predict(p, per, t->sockets, t->numa_nodes, out->pol, &o) < 0)
			continue;
		out->omega[i] = o.omega;
		out->cross[i] = t->sockets > 1 ? o.cross : 0;
		if (isinf(o.omega) && !sat_n)
			sat_n = cores[i];
	}
	free(per);
	if (sat_n)
		eval_note(out, "saturated: the fit gives mu <= nL from n = %.2f cores on one socket "
			  "(eq. 8 has no finite C(n) there), first reached at %.0f cores; omega and S "
			  "are not given from there on", p->n_sat, sat_n);
	return 0;
}

void pma_mem_eval_free(struct pma_mem_eval *e)
{
	if (!e)
		return;
	pma_machine_free(&e->rec);
	pma_machine_free(&e->target);
	free(e->omega);
	free(e->cross);
	free(e->per_socket);
	e->omega = e->cross = NULL;
	e->per_socket = NULL;
}
