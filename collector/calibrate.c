/* SPDX-License-Identifier: MIT */
/* calibrate.c: plans the runs of pmcollect --calibrate from the hwloc topology (compact placement,
 * one PU per core) or takes them from --runs. */
#include "calibrate.h"

#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <string.h>

#include "pmt_cli.h"

int pmc_calib_add(const char *cpulist, struct pmc_calib_run *runs, size_t *nruns, char *why,
		  size_t whysize)
{
	struct pmt_intlist l;
	char e[200];

	if (*nruns >= PMC_CALIB_MAX_RUNS) {
		snprintf(why, whysize, "more than %d runs", PMC_CALIB_MAX_RUNS);
		return -1;
	}
	if (pmt_intlist_parse(cpulist, 0, 1u << 20, &l, e, sizeof(e)) < 0) {
		snprintf(why, whysize, "invalid CPU list '%s': %s", cpulist, e);
		return -1;
	}
	pmt_intlist_format(&l, runs[*nruns].cpus, sizeof(runs[*nruns].cpus));
	runs[*nruns].ncpus = (uint32_t)l.n;
	runs[*nruns].role = "calibration";
	(*nruns)++;
	pmt_intlist_free(&l);
	return 0;
}

void pmc_calib_roles(struct pmc_calib_run *runs, size_t nruns, int threads, uint32_t online_cpus)
{
	int have = 0;

	for (size_t i = 0; i < nruns; i++) {
		int over = threads > 0 ? runs[i].ncpus < (uint32_t)threads : runs[i].ncpus < online_cpus;
		runs[i].role = !have && over ? "baseline" : "calibration";
		have |= over;
	}
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

static void push(struct pmc_calib_run *runs, size_t *nruns, hwloc_const_bitmap_t set)
{
	struct pmc_calib_run *r = &runs[(*nruns)++];

	hwloc_bitmap_list_snprintf(r->cpus, sizeof(r->cpus), set);
	r->ncpus = (uint32_t)hwloc_bitmap_weight(set);
	r->role = "calibration";
}

int pmc_calib_plan(const char *allowed_list, struct pmc_calib_run *runs, size_t *nruns, char *why,
		   size_t whysize)
{
	hwloc_topology_t topo = NULL;
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
	hwloc_obj_t pkg[2] = { NULL, NULL };
	unsigned c, npkg = 0;
	int rc = -1;

	*nruns = 0;
	if (!allowed || !set || hwloc_bitmap_list_sscanf(allowed, allowed_list) != 0) {
		snprintf(why, whysize, "cannot read the CPU list '%s'", allowed_list);
		goto out;
	}
	if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
		snprintf(why, whysize, "cannot read the machine's topology (hwloc): %s", strerror(errno));
		goto out;
	}
	/* the first two packages that have an allowed CPU */
	for (hwloc_obj_t p = NULL; npkg < 2 && (p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p));)
		if (hwloc_bitmap_intersects(p->cpuset, allowed))
			pkg[npkg++] = p;
	if (npkg == 0) { /* no package objects (some VMs): the whole machine is one socket */
		pkg[0] = hwloc_get_root_obj(topo);
		npkg = 1;
	}
	add_cores(topo, pkg[0], allowed, set, 1);
	push(runs, nruns, set);
	runs[0].role = "baseline";
	c = add_cores(topo, pkg[0], allowed, set, ~0u); /* the first one again, and the rest */
	if (c < 2) {
		snprintf(why, whysize, "one core on the first socket: omega(n) needs two core counts "
			 "(give them with --runs)");
		goto out;
	}
	push(runs, nruns, set);
	if (npkg == 2 && add_cores(topo, pkg[1], allowed, set, 1) == 1)
		push(runs, nruns, set);
	rc = 0;
out:
	if (topo)
		hwloc_topology_destroy(topo);
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(set);
	return rc;
}
