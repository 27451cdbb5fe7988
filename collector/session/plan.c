/* SPDX-License-Identifier: MIT */
/* plan.c: builds pmcollect's run plan: a plain run, the --runs lists, or the calibration runs of
 * --calibrate from the hwloc topology (compact placement, one PU per core), their rounds, --sweep's
 * and --interfere's runs; pmc_plan_make decides which, once per session, with its reasons. */
#include "plan.h"

#include <errno.h>
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmt.h"
#include "pm_cli.h"

const char *pmc_role_name(enum pmc_run_role role)
{
	switch (role) {
	case PMC_ROLE_BASELINE:
		return "baseline";
	case PMC_ROLE_CALIBRATION:
		return "calibration";
	case PMC_ROLE_INTERFERENCE:
		return "interference";
	case PMC_ROLE_SWEEP:
		return "sweep";
	case PMC_ROLE_RUN:
		break;
	}
	return "run";
}

/* Sets r's CPUs (text, count, set) from the CPU model c. */
static void run_cpus(struct pmc_plan_run *r, const struct pmc_cpus *c)
{
	/* a list longer than the run's field is cut there, as pmc_plan_single always did */
	snprintf(r->cpus, sizeof(r->cpus), "%.*s", (int)sizeof(r->cpus) - 1, c->text);
	r->ncpus = (uint32_t)c->list.n;
	r->set = c->set;
}

/* Sets r's CPUs (text, count, set) from the hwloc bitmap set. */
static void run_bitmap(struct pmc_plan_run *r, hwloc_const_bitmap_t set)
{
	int pu = -1;

	hwloc_bitmap_list_snprintf(r->cpus, sizeof(r->cpus), set);
	r->ncpus = (uint32_t)hwloc_bitmap_weight(set);
	CPU_ZERO(&r->set);
	while ((pu = hwloc_bitmap_next(set, pu)) >= 0)
		if (pu < CPU_SETSIZE)
			CPU_SET(pu, &r->set);
}

void pmc_plan_single(struct pmc_plan *plan, const struct pmc_cpus *cpus, int threads,
		     uint32_t online_cpus)
{
	struct pmc_plan_run *r = &plan->runs[0];
	uint32_t ncpus = cpus ? (uint32_t)cpus->list.n : online_cpus;

	memset(plan, 0, sizeof(*plan));
	plan->n = 1;
	if (cpus)
		run_cpus(r, cpus);
	else
		r->ncpus = online_cpus;
	r->role = cpus && ncpus < online_cpus && (threads == 0 || threads > (int)ncpus)
			  ? PMC_ROLE_BASELINE : PMC_ROLE_RUN;
}

int pmc_plan_add_list(struct pmc_plan *plan, const struct pm_intlist *cpus, char *why, size_t whysize)
{
	struct pmc_plan_run *r;
	char text[4096];

	if (plan->n >= PMC_PLAN_MAX_RUNS) {
		snprintf(why, whysize, "more than %d runs", PMC_PLAN_MAX_RUNS);
		return PMT_E_INVAL;
	}
	pm_intlist_format(cpus, text, sizeof(text));
	r = &plan->runs[plan->n];
	if (strlen(text) >= sizeof(r->cpus)) {
		snprintf(why, whysize, "the CPU list of run %zu is longer than %zu bytes", plan->n + 1,
			 sizeof(r->cpus) - 1);
		return PMT_E_INVAL;
	}
	memset(r, 0, sizeof(*r));
	memcpy(r->cpus, text, strlen(text) + 1);
	r->ncpus = (uint32_t)cpus->n;
	for (size_t i = 0; i < cpus->n; i++)
		if (cpus->v[i] < CPU_SETSIZE)
			CPU_SET(cpus->v[i], &r->set);
	r->role = PMC_ROLE_CALIBRATION;
	plan->n++;
	return 0;
}

void pmc_plan_roles(struct pmc_plan *plan, int threads, uint32_t online_cpus)
{
	int have = 0;

	for (size_t i = 0; i < plan->n; i++) {
		struct pmc_plan_run *r = &plan->runs[i];
		int over = threads > 0 ? r->ncpus < (uint32_t)threads : r->ncpus < online_cpus;
		r->role = !have && over ? PMC_ROLE_BASELINE : PMC_ROLE_CALIBRATION;
		have |= over;
	}
}

int pmc_plan_interfere(struct pmc_plan *plan, const struct pmc_cpus *cpus, const uint32_t *levels,
		       size_t nlevels, uint32_t R, char *why, size_t whysize)
{
	memset(plan, 0, sizeof(*plan));
	if (nlevels == 0 || R == 0) {
		snprintf(why, whysize, "no interference level or no repetition");
		return PMT_E_INVAL;
	}
	if (nlevels * R > PMC_PLAN_MAX_RUNS) {
		snprintf(why, whysize, "%zu levels x %u repetitions is more than %d runs", nlevels, R,
			 PMC_PLAN_MAX_RUNS);
		return PMT_E_INVAL;
	}
	for (uint32_t rep = 0; rep < R; rep++) {
		for (size_t l = 0; l < nlevels; l++) {
			struct pmc_plan_run *r = &plan->runs[plan->n++];
			run_cpus(r, cpus);
			r->role = PMC_ROLE_INTERFERENCE;
			r->rep = rep;
			r->level_k = levels[l];
		}
	}
	return 0;
}

/* Sets name=value in r's environment (replacing an earlier value of name). Returns 0 or
 * PMT_E_INVAL (too long, or PMC_PLAN_MAX_ENV names already). */
static int run_setenv(struct pmc_plan_run *r, const char *name, const char *value)
{
	size_t k = 0;

	while (k < r->nenv && strcmp(r->env[k].name, name) != 0)
		k++;
	if (k == PMC_PLAN_MAX_ENV || strlen(name) >= sizeof(r->env[k].name) ||
	    strlen(value) >= sizeof(r->env[k].value))
		return PMT_E_INVAL;
	snprintf(r->env[k].name, sizeof(r->env[k].name), "%s", name);
	snprintf(r->env[k].value, sizeof(r->env[k].value), "%s", value);
	if (k == r->nenv)
		r->nenv++;
	return 0;
}

int pmc_plan_setenv(struct pmc_plan *plan, const char *name, const char *value)
{
	for (size_t i = 0; i < plan->n; i++)
		if (run_setenv(&plan->runs[i], name, value) < 0)
			return PMT_E_INVAL;
	return 0;
}

/* Appends the first allowed PU of each allowed core of package pkg to set, at most max cores;
 * returns how many cores were added. */
static unsigned add_cores(hwloc_topology_t topo, hwloc_obj_t pkg, hwloc_const_bitmap_t allowed,
			  hwloc_bitmap_t set, unsigned max)
{
	unsigned added = 0;
	hwloc_obj_t core = NULL;

	while (added < max &&
	       (core = hwloc_get_next_obj_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_CORE, core))) {
		int pu = -1;
		while ((pu = hwloc_bitmap_next(core->cpuset, pu)) >= 0 && !hwloc_bitmap_isset(allowed, (unsigned)pu))
			;
		if (pu < 0)
			continue;
		hwloc_bitmap_set(set, (unsigned)pu);
		added++;
	}
	return added;
}

static void push(struct pmc_plan *plan, hwloc_const_bitmap_t set, enum pmc_run_role role)
{
	struct pmc_plan_run *r = &plan->runs[plan->n++];

	run_bitmap(r, set);
	r->role = role;
}

/* The CPUs of the list allowed_list as the bitmap *allowed, and an empty bitmap *set to fill:
 * the preamble of the hwloc planners. Returns 0, or PMT_E_NOMEM with why; the caller frees both
 * bitmaps either way (NULL is fine). */
static int allowed_bitmaps(const struct pm_intlist *allowed_list, hwloc_bitmap_t *allowed,
			   hwloc_bitmap_t *set, char *why, size_t whysize)
{
	*allowed = hwloc_bitmap_alloc();
	*set = hwloc_bitmap_alloc();
	if (!*allowed || !*set || pmc_intlist_bitmap(allowed_list, *allowed) < 0) {
		snprintf(why, whysize, "out of memory");
		return PMT_E_NOMEM;
	}
	return 0;
}

int pmc_plan_calibrate(struct pmc_plan *plan, hwloc_topology_t topo,
		       const struct pm_intlist *allowed_list, char *why, size_t whysize)
{
	hwloc_bitmap_t allowed, set;
	hwloc_obj_t pkg[2] = { NULL, NULL };
	unsigned c, npkg = 0;
	int rc;

	memset(plan, 0, sizeof(*plan));
	rc = allowed_bitmaps(allowed_list, &allowed, &set, why, whysize);
	if (rc < 0)
		goto out;
	rc = PMT_E_INVAL;
	/* the first two packages that have an allowed CPU */
	for (hwloc_obj_t p = NULL; npkg < 2 && (p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p));)
		if (hwloc_bitmap_intersects(p->cpuset, allowed))
			pkg[npkg++] = p;
	if (npkg == 0) { /* no package objects (some VMs): the whole machine is one socket */
		pkg[0] = hwloc_get_root_obj(topo);
		npkg = 1;
	}
	add_cores(topo, pkg[0], allowed, set, 1);
	push(plan, set, PMC_ROLE_BASELINE);
	c = add_cores(topo, pkg[0], allowed, set, ~0u); /* the first one again, and the rest */
	if (c < 2) {
		snprintf(why, whysize, "one core on the first socket: omega(n) needs two core counts "
			 "(give them with --runs)");
		goto out;
	}
	push(plan, set, PMC_ROLE_CALIBRATION);
	if (npkg == 2 && add_cores(topo, pkg[1], allowed, set, 1) == 1)
		push(plan, set, PMC_ROLE_CALIBRATION);
	rc = 0;
out:
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(set);
	return rc;
}

/* The first package with an allowed CPU when allowed spans several packages (NULL: one package, or
 * none in the topology). */
static hwloc_obj_t first_of_several(hwloc_topology_t topo, hwloc_const_bitmap_t allowed)
{
	hwloc_obj_t first = NULL, p = NULL;
	unsigned n = 0;

	while ((p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p)))
		if (hwloc_bitmap_intersects(p->cpuset, allowed) && n++ == 0)
			first = p;
	return n > 1 ? first : NULL;
}

int pmc_plan_thread_list(struct pmc_plan *plan, hwloc_topology_t topo, const struct pmc_plan_run *one,
			 const uint32_t *threads, size_t n, const struct pm_intlist *allowed_list, int pin,
			 char *why, size_t whysize)
{
	hwloc_bitmap_t allowed = NULL, set = NULL;
	hwloc_obj_t pkg = NULL;
	struct pmc_plan_run base = *one;
	int rc = PMT_E_INVAL;

	if (n == 0 || n > PMC_PLAN_MAX_RUNS) {
		snprintf(why, whysize, "%zu runs: want 1 to %d", n, PMC_PLAN_MAX_RUNS);
		return PMT_E_INVAL;
	}
	if (pin) {
		rc = allowed_bitmaps(allowed_list, &allowed, &set, why, whysize);
		if (rc < 0)
			goto out;
		rc = PMT_E_INVAL;
		pkg = first_of_several(topo, allowed);
	}
	base.rep = 0;
	base.nrep = 0;
	base.placement = !pin ? "cpus" : pkg ? "first_package" : "one_package";
	for (size_t i = 0; i < n; i++) {
		struct pmc_plan_run *r = &plan->runs[i];
		char text[16];

		*r = base;
		snprintf(text, sizeof(text), "%u", threads[i]);
		if (run_setenv(r, "OMP_NUM_THREADS", text) < 0) {
			snprintf(why, whysize, "cannot set OMP_NUM_THREADS=%s", text);
			goto out;
		}
		if (!pkg)
			continue;
		/* the first min(threads, c) cores of the package, one allowed PU each */
		hwloc_bitmap_zero(set);
		add_cores(topo, pkg, allowed, set, threads[i]);
		r->role = PMC_ROLE_RUN;
		if (hwloc_bitmap_list_snprintf(NULL, 0, set) >= (int)sizeof(r->cpus)) {
			snprintf(why, whysize, "the first package's cores do not fit one CPU list");
			goto out;
		}
		run_bitmap(r, set);
	}
	plan->n = n;
	rc = 0;
out:
	if (rc < 0)
		plan->n = 0;
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(set);
	return rc;
}

int pmc_plan_repeat(struct pmc_plan *plan, uint32_t K, char *why, size_t whysize)
{
	size_t n = plan->n;

	if (K == 0) {
		snprintf(why, whysize, "--repeat must be at least 1");
		return PMT_E_INVAL;
	}
	if (K == 1)
		return 0;
	if (n * K > PMC_PLAN_MAX_RUNS) {
		snprintf(why, whysize, "%zu runs repeated %u times is more than %d runs", n, K,
			 PMC_PLAN_MAX_RUNS);
		return PMT_E_INVAL;
	}
	for (uint32_t k = 0; k < K; k++)
		for (size_t i = 0; i < n; i++) {
			struct pmc_plan_run *r = &plan->runs[k * n + i];
			if (k)
				*r = plan->runs[i];
			r->rep = k;
			r->nrep = K;
		}
	plan->n = n * K;
	return 0;
}

int pmc_plan_compact_order(hwloc_topology_t topo, const struct pm_intlist *allowed_list,
			   uint32_t *order, size_t max, size_t *n, char *why, size_t whysize)
{
	hwloc_bitmap_t allowed, set;
	int rc, pu = -1;
	hwloc_obj_t pkg = NULL;

	*n = 0;
	rc = allowed_bitmaps(allowed_list, &allowed, &set, why, whysize);
	if (rc < 0)
		goto out;
	/* one PU per core, package by package (the whole machine when there is no package) */
	while ((pkg = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pkg)))
		add_cores(topo, pkg, allowed, set, ~0u);
	if (hwloc_bitmap_iszero(set))
		add_cores(topo, hwloc_get_root_obj(topo), allowed, set, ~0u);
	/* add_cores sets bits, so read the order back core by core */
	for (hwloc_obj_t core = NULL;
	     (core = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, core)) && *n < max;) {
		int p = -1;
		while ((p = hwloc_bitmap_next(core->cpuset, p)) >= 0)
			if (hwloc_bitmap_isset(set, (unsigned)p)) {
				order[(*n)++] = (uint32_t)p;
				break;
			}
	}
	/* then every other allowed PU (SMT siblings, PUs outside any core object) */
	while ((pu = hwloc_bitmap_next(allowed, pu)) >= 0 && *n < max)
		if (!hwloc_bitmap_isset(set, (unsigned)pu) &&
		    hwloc_get_pu_obj_by_os_index(topo, (unsigned)pu))
			order[(*n)++] = (uint32_t)pu;
	rc = 0;
out:
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(set);
	return rc;
}

int pmc_plan_sweep_run(const struct pmc_sweep_plan *sw, size_t i, const uint32_t *compact,
			size_t ncompact, uint32_t online_cpus, uint32_t default_threads,
			struct pmc_plan_run *run)
{
	const struct pmc_sweep_run *sr = &sw->runs[i];
	uint32_t k = sr->baseline ? 1 : sr->cores, threads = sr->threads ? sr->threads : default_threads;
	size_t off = 0;

	memset(run, 0, sizeof(*run));
	run->role = sr->baseline ? PMC_ROLE_BASELINE : PMC_ROLE_SWEEP;
	for (uint32_t c = 0; c < k && c < ncompact; c++) {
		off += (size_t)snprintf(run->cpus + off, sizeof(run->cpus) - off, "%s%u", c ? "," : "",
					compact[c]);
		if (off >= sizeof(run->cpus))
			return -1;
		if (compact[c] < CPU_SETSIZE)
			CPU_SET(compact[c], &run->set);
	}
	run->ncpus = k ? k : online_cpus;
	if (threads) {
		snprintf(run->env[0].name, sizeof(run->env[0].name), "OMP_NUM_THREADS");
		snprintf(run->env[0].value, sizeof(run->env[0].value), "%u", threads);
		run->nenv = 1;
	}
	if (!sr->baseline) {
		run->rep = sr->rep;
		run->nrep = sw->repeat;
		run->config = sr->config;
		run->sweep_cores = sr->cores;
		run->sweep_threads = sr->threads;
		run->sweep_quota_cpus = sr->quota_cpus;
		run->sweep_quota_period_us = sr->quota_period_us;
	}
	return 0;
}

#define PLAN_INTERFERE_REPEAT 3 /* --interfere without --repeat: runs per level */
#define PLAN_CALIBRATE_REPEAT 3 /* --calibrate without --repeat: runs per core count (docs/scaling.md) */

const char *pmc_plan_reason_name(enum pmc_plan_reason reason)
{
	static const char *const names[] = {
		[PMC_PLAN_WHY_NONE] = "none", [PMC_PLAN_WHY_ALL_CPUS] = "all_cpus",
		[PMC_PLAN_WHY_CPUS] = "cpus", [PMC_PLAN_WHY_RESTRICTED] = "restricted",
		[PMC_PLAN_WHY_CAL_ONE] = "cal_one", [PMC_PLAN_WHY_CAL_PACKAGE] = "cal_package",
		[PMC_PLAN_WHY_CAL_NEXT] = "cal_next_package", [PMC_PLAN_WHY_RUNS_LIST] = "runs_list",
		[PMC_PLAN_WHY_REPEAT] = "repeat", [PMC_PLAN_WHY_REPEAT_DEFAULT] = "repeat_default",
		[PMC_PLAN_WHY_ADAPTIVE] = "adaptive", [PMC_PLAN_WHY_SWEEP] = "sweep",
		[PMC_PLAN_WHY_SWEEP_BASELINE] = "sweep_baseline", [PMC_PLAN_WHY_THREADS] = "threads",
		[PMC_PLAN_WHY_THREAD_LIST] = "thread_list", [PMC_PLAN_WHY_INTERFERE] = "interfere",
		[PMC_PLAN_WHY_CAL_WINDOW] = "cal_window",
	};

	return (size_t)reason < sizeof(names) / sizeof(names[0]) && names[reason] ? names[reason] : "none";
}

static void decide(struct pmc_run_plan *rp, enum pmc_plan_reason reason, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int plan_fail(int code, char *why, size_t whysize, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Records a decision of the plan (dropped past PMC_PLAN_MAX_DECISIONS). */
static void decide(struct pmc_run_plan *rp, enum pmc_plan_reason reason,
				   const char *fmt, ...)
{
	struct pmc_plan_decision *d;
	va_list ap;

	if (rp->ndecisions >= PMC_PLAN_MAX_DECISIONS)
		return;
	d = &rp->decisions[rp->ndecisions++];
	d->reason = reason;
	va_start(ap, fmt);
	vsnprintf(d->text, sizeof(d->text), fmt, ap);
	va_end(ap);
}

/* Writes the message into why and returns code (a pmc_plan_err). */
static int plan_fail(int code, char *why, size_t whysize, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysize, fmt, ap);
	va_end(ap);
	return code;
}

/* Sets the reason of runs from..plan->n-1. */
static void tag(struct pmc_plan *plan, size_t from, enum pmc_plan_reason reason)
{
	for (size_t i = from; i < plan->n; i++)
		plan->runs[i].reason = reason;
}

/* The run of the first round (runs[0..npoints)) on one CPU, whose C is C(1); npoints when none. */
static size_t cal_one_cpu(const struct pmc_plan *plan, size_t npoints)
{
	for (size_t r = 0; r < npoints && r < plan->n; r++)
		if (plan->runs[r].ncpus == 1)
			return r;
	return npoints;
}

/* --sweep: the sweep's plan from SPEC (every bad SPEC refused here, before anything starts) and
 * the compact CPU order its core counts take CPUs from. */
static int make_sweep(const struct pmc_plan_request *rq, struct pmc_run_plan *rp, char *why,
		      size_t whysize)
{
	char w[512];
	uint32_t K = rq->repeat ? rq->repeat : 1;

	if (pmc_sweep_plan_make(rq->sweep, K, (uint32_t)rq->usable->n, rq->argv, rq->sweep_baseline,
				&rp->sweep, w, sizeof(w)) < 0)
		return plan_fail(PMC_PLAN_E_USAGE, why, whysize, "invalid --sweep '%s': %s", rq->sweep,
				 strncmp(w, "--sweep: ", 9) == 0 ? w + 9 : w);
	if (rp->sweep.has_threads && rq->threads > 0)
		return plan_fail(PMC_PLAN_E_USAGE, why, whysize, "-t cannot be combined with a threads= sweep");
	rp->compact = calloc(rq->online_cpus ? rq->online_cpus : 1, sizeof(*rp->compact));
	if (!rp->compact)
		return plan_fail(PMC_PLAN_E_FAILED, why, whysize, "%s", strerror(ENOMEM));
	if (pmc_plan_compact_order(rq->topo, rq->usable, rp->compact, rq->online_cpus, &rp->ncompact, w,
				   sizeof(w)) < 0)
		return plan_fail(PMC_PLAN_E_FAILED, why, whysize, "cannot plan the sweep's CPUs: %s", w);
	if (rp->sweep.nruns && rp->sweep.runs[0].baseline)
		decide(rp, PMC_PLAN_WHY_SWEEP_BASELINE, "a baseline run on 1 CPU first (--no-baseline "
		       "leaves it out)");
	decide(rp, PMC_PLAN_WHY_SWEEP, "%zu configuration%s x %u repetition%s (%s), interleaved, "
	       "made one at a time", rp->sweep.nconfigs, rp->sweep.nconfigs == 1 ? "" : "s", K,
	       K == 1 ? "" : "s", rq->repeat ? "--repeat" : "the default");
	return 0;
}

/* One plain run: on --cpus, else every CPU, else (pmcollect's affinity or cgroup leaves out
 * online CPUs) the CPUs it may use; a baseline when it has fewer CPUs than threads. */
static int make_single(const struct pmc_plan_request *rq, struct pmc_run_plan *rp, char *why,
		       size_t whysize)
{
	struct pmc_plan *p = &rp->plan;
	enum pmc_plan_reason r = rq->cpus ? PMC_PLAN_WHY_CPUS : PMC_PLAN_WHY_ALL_CPUS;

	if (rq->cpus || !rq->usable_restricted) {
		pmc_plan_single(p, rq->cpus, rq->threads, rq->online_cpus);
	} else {
		struct pmc_cpus u;
		if (pmc_cpus_from_list(rq->usable, &u) < 0)
			return plan_fail(PMC_PLAN_E_FAILED, why, whysize, "%s", strerror(ENOMEM));
		pmc_plan_single(p, &u, rq->threads, rq->online_cpus);
		pmc_cpus_free(&u);
		rp->prog_cpus = p->runs[0].set;
		rp->have_prog_cpus = 1;
		r = PMC_PLAN_WHY_RESTRICTED;
	}
	tag(p, 0, r);
	decide(rp, r, "one run on %s%s", r == PMC_PLAN_WHY_ALL_CPUS ? "every CPU" : p->runs[0].cpus,
	       p->runs[0].role == PMC_ROLE_BASELINE ? ", the baseline: fewer CPUs than threads" : "");
	return 0;
}

/* --calibrate's core counts from the topology, or --runs' lists. */
static int make_calibration(const struct pmc_plan_request *rq, struct pmc_run_plan *rp, char *why,
			    size_t whysize)
{
	static const enum pmc_plan_reason point[] = { PMC_PLAN_WHY_CAL_ONE, PMC_PLAN_WHY_CAL_PACKAGE,
						      PMC_PLAN_WHY_CAL_NEXT };
	struct pmc_plan *p = &rp->plan;
	char w[512];

	if (!rq->runs) {
		if (pmc_plan_calibrate(p, rq->topo, rq->usable, w, sizeof(w)) < 0)
			return plan_fail(PMC_PLAN_E_FAILED, why, whysize,
					 "cannot plan the calibration runs: %s", w);
		for (size_t i = 0; i < p->n && i < 3; i++)
			p->runs[i].reason = point[i];
		decide(rp, PMC_PLAN_WHY_CAL_PACKAGE, "%zu core counts from the topology: 1, the first "
		       "package's %u cores%s", p->n, p->n > 1 ? p->runs[1].ncpus : 0,
		       p->n > 2 ? ", and one core of the second package" : "");
		return 0;
	}
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < rq->nruns; i++)
		if (pmc_plan_add_list(p, &rq->runs[i], w, sizeof(w)) < 0)
			return plan_fail(PMC_PLAN_E_USAGE, why, whysize, "invalid --runs: %s", w);
	pmc_plan_roles(p, rq->threads, rq->online_cpus);
	tag(p, 0, PMC_PLAN_WHY_RUNS_LIST);
	decide(rp, PMC_PLAN_WHY_RUNS_LIST, "%zu run%s of --runs", p->n, p->n == 1 ? "" : "s");
	return 0;
}

/* The runs before any repetition: --interfere's levels, --sweep, one plain run, or --calibrate's. */
static int make_base(const struct pmc_plan_request *rq, struct pmc_run_plan *rp, char *why,
		     size_t whysize)
{
	char w[512];

	if (rq->interfere_prog) {
		uint32_t R = rq->repeat ? rq->repeat : PLAN_INTERFERE_REPEAT;
		if (pmc_plan_interfere(&rp->plan, rq->interfere_prog, rq->levels, rq->nlevels, R, w,
				       sizeof(w)) < 0)
			return plan_fail(PMC_PLAN_E_USAGE, why, whysize,
					 "cannot plan the interference runs: %s", w);
		tag(&rp->plan, 0, PMC_PLAN_WHY_INTERFERE);
		rp->interfering = 1;
		rp->prog_cpus = rq->interfere_prog->set;
		rp->have_prog_cpus = 1;
		decide(rp, PMC_PLAN_WHY_INTERFERE, "%zu level%s x %u round%s (%s), interleaved",
		       rq->nlevels, rq->nlevels == 1 ? "" : "s", R, R == 1 ? "" : "s",
		       rq->repeat ? "--repeat" : "the default");
		return 0;
	}
	if (rq->sweep)
		return make_sweep(rq, rp, why, whysize);
	if (!rq->calibrate)
		return make_single(rq, rp, why, whysize);
	return make_calibration(rq, rp, why, whysize);
}

/* --calibrate's rounds: --repeat K (3 by default, 1 for --runs), or with an adaptive --calibrate
 * as many as fit (PMC_PLAN_MAX_RUNS), which record.c ends by calstop.h's rule: --repeat K (or 3)
 * rounds at least, then until omega's standard error is at most --omega-se or the next round
 * would end past --calibrate-budget. */
static int make_rounds(const struct pmc_plan_request *rq, struct pmc_run_plan *rp, char *why,
		       size_t whysize)
{
	struct pmc_plan *p = &rp->plan;
	size_t npoints = p->n;
	uint32_t K = rq->repeat ? rq->repeat : rq->runs ? 1 : PLAN_CALIBRATE_REPEAT;
	uint32_t max = npoints ? (uint32_t)(PMC_PLAN_MAX_RUNS / npoints) : 0;
	char w[256];

	if (rq->adaptive && K > max)
		return plan_fail(PMC_PLAN_E_USAGE_LINE, why, whysize, "invalid --repeat: %u rounds of %zu "
				 "runs exceed %d runs", K, npoints, PMC_PLAN_MAX_RUNS);
	if (pmc_plan_repeat(p, rq->adaptive ? max : K, w, sizeof(w)) < 0)
		return plan_fail(PMC_PLAN_E_USAGE_LINE, why, whysize, "invalid --repeat: %s", w);
	rp->cal_points = rq->adaptive ? npoints : p->n / K;
	rp->cal_one = cal_one_cpu(p, rp->cal_points);
	if (!rq->adaptive) {
		decide(rp, rq->repeat ? PMC_PLAN_WHY_REPEAT : PMC_PLAN_WHY_REPEAT_DEFAULT,
		       "%u round%s of %zu run%s (%s)", K, K == 1 ? "" : "s", rp->cal_points,
		       rp->cal_points == 1 ? "" : "s", rq->repeat ? "--repeat" : "the default");
		return 0;
	}
	rp->calstop_on = 1;
	rp->calstop.omega_se_target = rq->omega_se;
	rp->calstop.budget_ns = (uint64_t)(rq->budget_s * 1e9);
	rp->calstop.min_rounds = K;
	rp->calstop.max_rounds = max;
	decide(rp, PMC_PLAN_WHY_ADAPTIVE, "%u to %u rounds of %zu run%s: after %u, until omega's "
	       "standard error is at most %g or the budget of %g s ends", K, max, npoints,
	       npoints == 1 ? "" : "s", K, rq->omega_se, rq->budget_s);
	return 0;
}

/* --calibrate -p --window: the calibration's core counts become windows of the running process
 * (the threads moved onto each run's CPUs for window_s s, then given their affinity back). */
static void make_windows(const struct pmc_plan_request *rq, struct pmc_run_plan *rp)
{
	struct pmc_plan *p = &rp->plan;
	char counts[96];
	size_t o = 0;

	for (size_t i = 0; i < p->n && o < sizeof(counts); i++)
		o += (size_t)snprintf(counts + o, sizeof(counts) - o, "%s%u", i ? ", " : "", p->runs[i].ncpus);
	tag(p, 0, PMC_PLAN_WHY_CAL_WINDOW);
	decide(rp, PMC_PLAN_WHY_CAL_WINDOW, "windows of %g s of the running process on %s CPU%s, "
	       "its threads' own CPUs restored after each", rq->window_s, counts,
	       p->n == 1 && p->runs[0].ncpus == 1 ? "" : "s");
}

/* -t N: OMP_NUM_THREADS on every run; -t LIST: one run per thread count (pmc_plan_thread_list). */
static int make_threads(const struct pmc_plan_request *rq, struct pmc_run_plan *rp, char *why,
			size_t whysize)
{
	struct pm_intlist l = { 0 };
	uint32_t threads[PMC_PLAN_MAX_RUNS];
	char w[256];

	if (rq->threads > 0 && rp->plan.n) {
		char text[16];
		snprintf(text, sizeof(text), "%d", rq->threads);
		(void)pmc_plan_setenv(&rp->plan, "OMP_NUM_THREADS", text); /* fits: 7 digits */
		decide(rp, PMC_PLAN_WHY_THREADS, "OMP_NUM_THREADS=%d on every run (-t)", rq->threads);
	}
	if (!rq->threads_list)
		return 0;
	if (pm_intlist_parse(rq->threads_list, 1, 1000000, &l, w, sizeof(w)) < 0)
		return plan_fail(PMC_PLAN_E_USAGE, why, whysize, "invalid thread counts '%s': %s",
				 rq->threads_list, w);
	if (l.n > PMC_PLAN_MAX_RUNS) {
		pm_intlist_free(&l);
		return plan_fail(PMC_PLAN_E_USAGE, why, whysize, "invalid thread counts '%s': %zu runs, "
				 "at most %d", rq->threads_list, l.n, PMC_PLAN_MAX_RUNS);
	}
	for (size_t i = 0; i < l.n; i++)
		threads[i] = l.v[i];
	if (pmc_plan_thread_list(&rp->plan, rq->topo, &rp->plan.runs[0], threads, l.n, rq->usable,
				 !rq->cpus, w, sizeof(w)) < 0) {
		pm_intlist_free(&l);
		return plan_fail(PMC_PLAN_E_FAILED, why, whysize, "cannot plan the runs of '-t %s': %s",
				 rq->threads_list, w);
	}
	tag(&rp->plan, 0, PMC_PLAN_WHY_THREAD_LIST);
	decide(rp, PMC_PLAN_WHY_THREAD_LIST, "%zu run%s, one per thread count of -t %s (%s)", l.n,
	       l.n == 1 ? "" : "s", rq->threads_list, l.n ? rp->plan.runs[0].placement : "");
	pm_intlist_free(&l);
	return 0;
}

int pmc_plan_make(const struct pmc_plan_request *rq, struct pmc_run_plan *out, char *why,
		  size_t whysize)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (rq->interfere_calibration_only) {
		decide(out, PMC_PLAN_WHY_NONE, "no run: the interference calibration alone");
		return 0;
	}
	rc = make_base(rq, out, why, whysize);
	if (rc == 0 && rq->calibrate && rq->window_s > 0)
		make_windows(rq, out);
	if (rc == 0 && rq->calibrate)
		rc = make_rounds(rq, out, why, whysize);
	if (rc == 0)
		rc = make_threads(rq, out, why, whysize);
	return rc;
}

void pmc_run_plan_free(struct pmc_run_plan *rp)
{
	pmc_sweep_plan_free(&rp->sweep);
	free(rp->compact);
	rp->compact = NULL;
	rp->ncompact = 0;
}
