/* SPDX-License-Identifier: MIT */
/* omp.c: the collector side of --omp-regions: the tool's socket per run, its records into the
 * trace, and why no OpenMP runtime answered. */
#include "omp.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sources/counters.h"
#include "ompt_reader.h"

/* The tool's send buffer: what a burst of regions may queue while pmcollect samples. */
#define OMP_SNDBUF_BYTES (4 << 20)

struct omp_object {
	uint32_t pid;
	uint64_t load_addr;
	char build_id[2 * PMOMPT_MAX_BUILD_ID_BYTES + 1];
	int cut;
	char *path;
};

struct pmc_omp {
	const struct pmc_omp_opts *opts;
	uint32_t run_id;
	struct pmc_ompt *rd;
	struct pmt_writer *w;     /* during pmc_omp_drain */
	int werr;                 /* first writer error */
	uint64_t regions;         /* OMP_REGION records written */
	uint64_t regions_total;   /* sum of the END records' counts */
	int hello;
	char runtime_version[48];
	struct omp_object objects[PMC_OMP_MAX_OBJECTS];
	size_t nobjects, objects_dropped;
	/* what /proc/<pid>/maps showed while no tool answered */
	unsigned probes, next_probe;
	char llvm_rt[512], gomp_rt[512];
	char reason[1024];
	int board_fd;             /* the open-region board (pmompt.h), -1 none */
	struct pmompt_slot *board;
	uint64_t open_regions;    /* regions still open at the end, written with PMT_OMP_OPEN */
	/* counters (PMT_OMPT_EVENTS): the first COUNTER_SETUP's outcome, records, failures */
	int setup_seen;
	uint32_t setup_events;
	int32_t setup_rc;
	char setup_reason[PMOMPT_SETUP_REASON_BYTES + 1];
	uint64_t counter_records, counter_failures;
};

/* The open-region board: a memfd of PMOMPT_BOARD_BYTES mapped here; without one (no memfd) regions
 * killed while open are not marked, nothing else changes. */
static void board_create(struct pmc_omp *o)
{
	void *p;

	o->board_fd = memfd_create("pmompt-board", MFD_CLOEXEC);
	if (o->board_fd < 0)
		return;
	if (ftruncate(o->board_fd, (off_t)PMOMPT_BOARD_BYTES) == 0 &&
	    (p = mmap(NULL, PMOMPT_BOARD_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, o->board_fd, 0)) !=
		    MAP_FAILED) {
		o->board = p;
		return;
	}
	close(o->board_fd);
	o->board_fd = -1;
}

static int exists(const char *p)
{
	return access(p, R_OK) == 0;
}

int pmc_omp_find_tool(char *out, size_t size, char *why, size_t whysize)
{
	return pmc_find_helper_lib("libpmompt.so", "PMT_OMPT_TOOL", out, size, why, whysize);
}

int pmc_find_helper_lib(const char *name, const char *env_var, char *out, size_t size, char *why,
			size_t whysize)
{
	static const char *const rel[] = { "../lib/pmtools/", "../build/lib/", "../lib/" };
	const char *env = getenv(env_var);
	char exe[4096], cand[8192], *slash;
	ssize_t n;

	if (env && *env) {
		if (!realpath(env, out) || !exists(out)) {
			snprintf(why, whysize, "%s '%s': %s", env_var, env, strerror(errno ? errno : ENOENT));
			return -1;
		}
		(void)size;
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(why, whysize, "cannot find pmcollect's own path: %s", strerror(errno));
		return -1;
	}
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		slash[1] = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char real[4096];

		snprintf(cand, sizeof(cand), "%s%s%s", exe, rel[i], name);
		if (exists(cand) && realpath(cand, real) && strlen(real) < size) {
			snprintf(out, size, "%s", real);
			return 0;
		}
	}
	snprintf(why, whysize, "%s not found in %s../lib/pmtools, %s../build/lib or %s../lib "
		 "(build it with `make`, or set %s)", name, exe, exe, exe, env_var);
	return -1;
}

int pmc_omp_find_libomp(char *out, size_t size, char *why, size_t whysize)
{
	static const char *const pats[] = { "/usr/lib/llvm-*/lib/libomp.so.5",
					    "/usr/lib/*-linux-gnu/libomp.so.5", "/usr/lib/libomp.so.5" };
	const char *env = getenv("PMT_LIBOMP");
	int best_ver = -1;

	if (env && *env) {
		if (!exists(env)) {
			snprintf(why, whysize, "PMT_LIBOMP '%s': %s", env, strerror(errno));
			return -1;
		}
		snprintf(out, size, "%s", env);
		return 0;
	}
	out[0] = 0;
	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]) && !out[0]; p++) {
		glob_t g;

		if (glob(pats[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			int ver = 0;

			/* the highest LLVM version; other patterns have one match */
			(void)sscanf(g.gl_pathv[i], "/usr/lib/llvm-%d", &ver);
			if (ver > best_ver && exists(g.gl_pathv[i])) {
				best_ver = ver;
				snprintf(out, size, "%s", g.gl_pathv[i]);
			}
		}
		globfree(&g);
	}
	if (!out[0]) {
		snprintf(why, whysize, "LLVM's OpenMP runtime (libomp.so.5) not found: install Debian's "
			 "libomp-dev, or set PMT_LIBOMP");
		return -1;
	}
	return 0;
}

int pmc_omp_open(struct pmc_omp **out, const struct pmc_omp_opts *opts, uint32_t run_id,
		 char *why, size_t whysize)
{
	struct pmc_omp *o = calloc(1, sizeof(*o));

	*out = NULL;
	if (!o) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return -1;
	}
	o->opts = opts;
	o->run_id = run_id;
	o->next_probe = 1;
	if (pmc_ompt_open(&o->rd, OMP_SNDBUF_BYTES, why, whysize) < 0) {
		free(o);
		return -1;
	}
	board_create(o);
	*out = o;
	return 0;
}

int pmc_omp_child(const struct pmc_omp *o)
{
	char fd_var[64], lib_var[4200];
	const char *old;
	char *eq;

	if (fcntl(pmc_ompt_child_fd(o->rd), F_SETFD, 0) < 0)
		return -1;
	if (pmc_ompt_env(o->rd, o->opts->tool, fd_var, sizeof(fd_var), lib_var, sizeof(lib_var)) < 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	eq = strchr(fd_var, '=');
	*eq = 0;
	if (setenv(fd_var, eq + 1, 1) < 0)
		return -1;
	eq = strchr(lib_var, '=');
	*eq = 0;
	if (setenv(lib_var, eq + 1, 1) < 0)
		return -1;
	if (o->opts->events[0] ? setenv(PMOMPT_ENV_EVENTS, o->opts->events, 1) < 0 :
				  unsetenv(PMOMPT_ENV_EVENTS) < 0)
		return -1;
	if (o->board) {
		char n[16];
		snprintf(n, sizeof(n), "%d", o->board_fd);
		if (fcntl(o->board_fd, F_SETFD, 0) < 0 || setenv(PMOMPT_ENV_BOARD, n, 1) < 0)
			return -1;
	}
	if (o->opts->preload[0]) {
		char pre[8192];

		old = getenv("LD_PRELOAD");
		snprintf(pre, sizeof(pre), "%s%s%s", o->opts->preload, old && *old ? " " : "",
			 old ? old : "");
		if (setenv("LD_PRELOAD", pre, 1) < 0)
			return -1;
	}
	return 0;
}

void pmc_omp_after_fork(struct pmc_omp *o)
{
	pmc_ompt_after_fork(o->rd);
}

int pmc_omp_fd(const struct pmc_omp *o)
{
	return pmc_ompt_fd(o->rd);
}

static void on_hello(void *ctx, uint32_t pid, uint64_t time_ns, const char *version)
{
	struct pmc_omp *o = ctx;

	(void)pid;
	(void)time_ns;
	if (!o->hello)
		snprintf(o->runtime_version, sizeof(o->runtime_version), "%s", version);
	o->hello = 1;
}

static void on_region(void *ctx, const struct pmc_ompt_region *g)
{
	struct pmc_omp *o = ctx;
	struct pmt_omp_region r = {
		.run_id = o->run_id, .pid = g->pid, .id = g->id, .parent_id = g->parent_id,
		.codeptr_ra = g->codeptr_ra, .begin_ns = g->begin_ns, .end_ns = g->end_ns,
		.depth = g->depth, .requested_team = g->requested_team, .actual_team = g->actual_team,
		.encountering_tid = g->encountering_tid, .n_tids = (uint16_t)g->n_tids, .tids = g->tids,
	};
	int err;

	o->hello = 1; /* a region without HELLO: its batch came, the HELLO's was dropped */
	if (g->flags & PMOMPT_REGION_TIDS_CUT)
		r.flags |= PMT_OMP_TIDS_CUT;
	if (g->flags & PMOMPT_REGION_TEAM_UNKNOWN)
		r.flags |= PMT_OMP_TEAM_UNKNOWN;
	if (o->werr)
		return;
	err = pmt_writer_omp_region(o->w, &r);
	if (err < 0)
		o->werr = err;
	else
		o->regions++;
}

static void on_object(void *ctx, const struct pmc_ompt_object *ob)
{
	struct pmc_omp *o = ctx;
	struct omp_object *d;

	if (o->nobjects == PMC_OMP_MAX_OBJECTS) {
		o->objects_dropped++;
		return;
	}
	d = &o->objects[o->nobjects];
	d->path = strdup(ob->path);
	if (!d->path) {
		o->objects_dropped++;
		return;
	}
	d->pid = ob->pid;
	d->load_addr = ob->load_addr;
	d->cut = ob->name_cut;
	for (uint32_t i = 0; i < ob->build_id_bytes && i < PMOMPT_MAX_BUILD_ID_BYTES; i++)
		snprintf(d->build_id + 2 * i, 3, "%02x", ob->build_id[i]);
	o->nobjects++;
}

static void on_end(void *ctx, uint32_t pid, uint64_t time_ns, uint64_t regions_total,
		   uint64_t counter_failures)
{
	struct pmc_omp *o = ctx;

	(void)pid;
	(void)time_ns;
	o->regions_total += regions_total;
	o->counter_failures += counter_failures;
}

static void on_counter_setup(void *ctx, uint32_t pid, uint32_t n_events, int32_t papi_rc,
			     const char *reason)
{
	struct pmc_omp *o = ctx;

	(void)pid;
	if (o->setup_seen++)
		return; /* a descendant's: the first process's outcome is the run's */
	o->setup_events = n_events;
	o->setup_rc = papi_rc;
	snprintf(o->setup_reason, sizeof(o->setup_reason), "%s", reason);
}

static void on_counters(void *ctx, const struct pmc_ompt_counters *c)
{
	struct pmc_omp *o = ctx;
	struct pmt_omp_counters r = {
		.run_id = o->run_id, .pid = c->pid, .tid = c->tid, .region_id = c->region_id,
		.n = (uint16_t)c->n_events, .values = c->values,
	};
	int err;

	if (o->werr)
		return;
	err = pmt_writer_omp_counters(o->w, &r);
	if (err < 0)
		o->werr = err;
	else
		o->counter_records++;
}

int pmc_omp_drain(struct pmc_omp *o, struct pmt_writer *w)
{
	static const struct pmc_ompt_handlers h = {
		.hello = on_hello, .region = on_region, .object = on_object, .end = on_end,
		.counter_setup = on_counter_setup, .counters = on_counters,
	};
	char why[256];
	int n;

	o->w = w;
	n = pmc_ompt_read(o->rd, &h, o, why, sizeof(why));
	o->w = NULL;
	if (o->werr)
		return o->werr;
	return n < 0 ? 0 : n;
}

/* The path of the first mapping in maps text whose file name starts with one of names. */
static void find_mapping(const char *maps, const char *const *names, char *out, size_t size)
{
	for (const char *line = maps; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *path = strchr(line, '/'), *end = strchr(line, '\n'), *base;

		if (!path || (end && path > end))
			continue;
		if (!end)
			end = path + strlen(path);
		for (base = end; base > path && base[-1] != '/'; base--)
			;
		for (size_t i = 0; names[i]; i++) {
			if (!strncmp(base, names[i], strlen(names[i]))) {
				snprintf(out, size, "%.*s", (int)(end - path), path);
				return;
			}
		}
	}
}

void pmc_omp_probe(struct pmc_omp *o, uint32_t pid)
{
	static const char *const llvm[] = { "libomp.so", "libiomp5.so", NULL };
	static const char *const gomp[] = { "libgomp.so", NULL };
	char path[64], *buf;
	size_t len = 0, cap = 1 << 20;
	ssize_t n;
	int fd;

	if (o->hello || ++o->probes != o->next_probe)
		return;
	o->next_probe *= 2;
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = malloc(cap + 1);
	while (buf && len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (!buf)
		return;
	buf[len] = 0;
	if (!o->llvm_rt[0])
		find_mapping(buf, llvm, o->llvm_rt, sizeof(o->llvm_rt));
	if (!o->gomp_rt[0])
		find_mapping(buf, gomp, o->gomp_rt, sizeof(o->gomp_rt));
	free(buf);
}

const char *pmc_omp_reason(struct pmc_omp *o)
{
	const char *tool = getenv("OMP_TOOL");

	if (o->hello)
		o->reason[0] = 0;
	else if (tool && !strcmp(tool, "disabled"))
		snprintf(o->reason, sizeof(o->reason), "OMP_TOOL=disabled in the environment: the OpenMP "
			 "runtime loads no tool");
	else if (o->llvm_rt[0])
		snprintf(o->reason, sizeof(o->reason), "the OpenMP runtime %s was loaded but did not start "
			 "the OMPT tool (a runtime built without OMPT, or OMP_TOOL_LIBRARIES overridden)",
			 o->llvm_rt);
	else if (o->gomp_rt[0])
		snprintf(o->reason, sizeof(o->reason), "the program uses GCC's OpenMP runtime %s, which "
			 "has no OMPT interface (record it with --omp-runtime llvm to run it on LLVM's "
			 "libomp)", o->gomp_rt);
	else
		snprintf(o->reason, sizeof(o->reason), "no OpenMP runtime answered: none was seen in the "
			 "program's memory map (not an OpenMP program, or it ran too briefly to be seen)");
	return o->reason;
}

uint64_t pmc_omp_regions(const struct pmc_omp *o, int *answered)
{
	*answered = o->hello;
	return o->regions;
}

int pmc_omp_finish(struct pmc_omp *o, struct pmt_writer *w, uint64_t end_ns)
{
	for (uint32_t k = 0; o->board && k < PMOMPT_BOARD_SLOTS; k++) {
		const struct pmompt_slot *s = &o->board[k];
		struct pmt_omp_region r;
		int err;

		if (atomic_load_explicit(&s->state, memory_order_acquire) != PMOMPT_SLOT_OPEN)
			continue;
		r = (struct pmt_omp_region){
			.run_id = o->run_id, .pid = s->pid, .id = s->id, .parent_id = s->parent_id,
			.codeptr_ra = s->codeptr_ra, .begin_ns = s->begin_ns,
			.end_ns = end_ns > s->begin_ns ? end_ns : s->begin_ns, .depth = s->depth,
			.requested_team = s->requested, .encountering_tid = s->tid,
			.flags = PMT_OMP_OPEN | PMT_OMP_TEAM_UNKNOWN,
		};
		if ((err = pmt_writer_omp_region(w, &r)) < 0)
			return err;
		o->regions++;
		o->open_regions++;
	}
	return 0;
}

/* RUN_END omp_regions.counters (FORMAT.md §6): the events asked for, whether the tool counted
 * them, or why not. */
static void counters_json(const struct pmc_omp *o, cJSON *j)
{
	static const char *const kind_names[] = {
		[PMC_KIND_CYCLES] = "cycles", [PMC_KIND_INSTRUCTIONS] = "instructions",
		[PMC_KIND_STALLS] = "stall_cycles", [PMC_KIND_LLC_MISSES] = "llc_misses",
	};
	cJSON *c = cJSON_AddObjectToObject(j, "counters"), *ev, *kinds;
	const char *why = NULL;
	char buf[160];

	if (!c)
		return;
	ev = cJSON_AddArrayToObject(c, "events");
	kinds = cJSON_AddArrayToObject(c, "kinds");
	for (const char *p = o->opts->events; ev && kinds && *p;) {
		size_t n = strcspn(p, ",");
		char name[128];
		int kind;
		snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), p);
		cJSON_AddItemToArray(ev, cJSON_CreateString(name));
		kind = pmc_counter_kind(name);
		cJSON_AddItemToArray(kinds, kind >= 0 ? cJSON_CreateString(kind_names[kind]) : cJSON_CreateNull());
		p += n + (p[n] == ',');
	}
	if (!o->opts->events[0])
		why = o->opts->events_why[0] ? o->opts->events_why : "no events asked for";
	else if (!o->hello)
		why = "no OpenMP runtime answered";
	else if (!o->setup_seen)
		why = "the OMPT tool sent no counter setup (its record was dropped)";
	else if (!o->setup_events) {
		snprintf(buf, sizeof(buf), "PAPI in the program: %s", o->setup_reason[0] ? o->setup_reason : "failed");
		why = buf;
	}
	cJSON_AddBoolToObject(c, "recorded", !why);
	if (why)
		cJSON_AddStringToObject(c, "reason", why);
	if (o->setup_seen && !o->setup_events)
		cJSON_AddNumberToObject(c, "papi_rc", o->setup_rc);
	cJSON_AddNumberToObject(c, "records", (double)o->counter_records);
	cJSON_AddNumberToObject(c, "failures", (double)o->counter_failures);
}

void pmc_omp_run_end(const struct pmc_omp *o, struct cJSON *run_end)
{
	cJSON *j = cJSON_AddObjectToObject(run_end, "omp_regions"), *objs;
	struct pmc_ompt_stats st;

	if (!j)
		return;
	pmc_ompt_stats(o->rd, &st);
	cJSON_AddBoolToObject(j, "recorded", o->hello);
	if (!o->hello)
		cJSON_AddStringToObject(j, "reason", o->reason[0] ? o->reason : "no OpenMP runtime answered");
	if (o->hello)
		cJSON_AddStringToObject(j, "runtime_version", o->runtime_version);
	else
		cJSON_AddNullToObject(j, "runtime_version");
	cJSON_AddNumberToObject(j, "regions", (double)o->regions);
	cJSON_AddNumberToObject(j, "open_regions", (double)o->open_regions);
	if (st.processes_ended)
		cJSON_AddNumberToObject(j, "regions_total", (double)o->regions_total);
	else
		cJSON_AddNullToObject(j, "regions_total");
	cJSON_AddNumberToObject(j, "dropped_records", (double)st.dropped_records);
	cJSON_AddNumberToObject(j, "dropped_batches", (double)st.dropped_batches);
	cJSON_AddNumberToObject(j, "bad_batches", (double)st.bad_batches);
	cJSON_AddNumberToObject(j, "processes_ended", st.processes_ended);
	if (o->opts->preload[0])
		cJSON_AddStringToObject(j, "preload", o->opts->preload);
	else
		cJSON_AddNullToObject(j, "preload");
	counters_json(o, j);
	cJSON_AddNumberToObject(j, "objects_dropped", (double)o->objects_dropped);
	objs = cJSON_AddArrayToObject(j, "objects");
	for (size_t i = 0; objs && i < o->nobjects; i++) {
		const struct omp_object *d = &o->objects[i];
		cJSON *e = cJSON_CreateObject();

		if (!e)
			break;
		cJSON_AddNumberToObject(e, "pid", d->pid);
		cJSON_AddStringToObject(e, "path", d->path);
		cJSON_AddNumberToObject(e, "load_addr", (double)d->load_addr);
		cJSON_AddStringToObject(e, "build_id", d->build_id);
		cJSON_AddBoolToObject(e, "path_cut", d->cut);
		cJSON_AddItemToArray(objs, e);
	}
}

void pmc_omp_close(struct pmc_omp *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->nobjects; i++)
		free(o->objects[i].path);
	if (o->board)
		munmap(o->board, PMOMPT_BOARD_BYTES);
	if (o->board_fd >= 0)
		close(o->board_fd);
	pmc_ompt_close(o->rd);
	free(o);
}
