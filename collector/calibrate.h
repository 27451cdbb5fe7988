/* SPDX-License-Identifier: MIT */
/* calibrate.h: the runs of `pmcollect --calibrate` (Tudor & Teo §II-B: the oversubscribed baseline
 * and the core counts the memory model needs), planned from the hwloc topology or given by --runs. */
#ifndef PMC_CALIBRATE_H
#define PMC_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#define PMC_CALIB_MAX_RUNS 32

struct pmc_calib_run {
	char cpus[256];      /* the run's CPUs as a cpulist */
	uint32_t ncpus;
	const char *role;    /* "baseline" or "calibration" (RUN_BEGIN role) */
};

/* Plans the calibration runs on the CPUs of the cpulist `allowed` (the CPUs pmcollect may use),
 * from the hwloc topology, one PU per core, cores of the first package first (compact):
 *   1. the baseline: 1 CPU (M threads on it give A(m,inf), and its C is C(1));
 *   2. c CPUs: every core of the first package (c = its cores);
 *   3. with several packages, c + 1: plus the first core of the second package (eq. 9, 10).
 * Returns 0 with runs[0..*nruns-1], or -1 with a one-line reason (hwloc failed, only one core).
 * Source: Tudor & Teo §II-B "(i) single socket ... two runs", "(ii) multiple socket ... 1, c and
 * c + 1 cores". */
int pmc_calib_plan(const char *allowed, struct pmc_calib_run *runs, size_t *nruns, char *why,
		   size_t whysize);

/* Adds one --runs cpulist. The role is decided by pmc_calib_roles. Returns 0, or -1 with a reason
 * (a bad list, more than PMC_CALIB_MAX_RUNS). */
int pmc_calib_add(const char *cpulist, struct pmc_calib_run *runs, size_t *nruns, char *why,
		  size_t whysize);

/* Marks the first run with fewer CPUs than threads (threads 0 = unknown: fewer than online_cpus)
 * as the "baseline" and every other as "calibration". */
void pmc_calib_roles(struct pmc_calib_run *runs, size_t nruns, int threads, uint32_t online_cpus);

#endif
