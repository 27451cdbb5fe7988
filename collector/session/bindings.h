/* SPDX-License-Identifier: MIT */
/* bindings.h: where pmcollect's own thread goes when the launcher bound the rank it records to
 * CPUs (docs/cluster.md): an SMT sibling of the binding that the rank does not use, so the sampling
 * disturbs the rank least; without one it stays on the rank's CPUs and sleeps between samples
 * (its CPU time is in the trace's SUMMARY, and pmanalyze's job report says what it cost). */
#ifndef PMC_BINDINGS_H
#define PMC_BINDINGS_H

#include <sched.h>

#include "pm_cli.h"

/* The first CPU (lowest OS index) that shares a core with a CPU of prog (sysfs
 * <sysfs_root>/devices/system/cpu/cpuN/topology/thread_siblings_list), is not in prog, is in
 * online, and is in the cgroup's cpuset cgroup (parsed once, struct pmc_usable_cpus; empty or
 * NULL: no cgroup limit). A
 * launcher's binding narrows the affinity, not the cgroup, so such a CPU is one pmcollect may
 * move to. Returns it, or -1 when there is none (no SMT, or the sibling is in prog). */
int pmc_binding_sibling(const cpu_set_t *prog, const struct pm_intlist *online,
			const struct pm_intlist *cgroup, const char *sysfs_root);

/* pmc_binding_sibling on /sys, then pins the calling thread (pmcollect) there. Returns the CPU,
 * or -1 (none, or sched_setaffinity failed: pmcollect stays where it was). */
int pmc_binding_pin(const cpu_set_t *prog, const struct pm_intlist *online,
		    const struct pm_intlist *cgroup);

#endif
