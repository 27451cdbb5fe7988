/* SPDX-License-Identifier: MIT */
/* plan.c: builds pmcollect's run plan: a plain run, the --runs lists, or the calibration runs of
 * --calibrate from the hwloc topology (compact placement, one PU per core). */
#include "plan.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
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
	}
	return 0;
}
