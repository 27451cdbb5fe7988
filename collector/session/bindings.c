/* SPDX-License-Identifier: MIT */
/* bindings.c: the collector's CPU beside a rank the launcher bound (bindings.h). */
#include "bindings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/cpuset.h"
#include "pm_sysfs.h"

int pmc_binding_sibling(const cpu_set_t *prog, const struct pm_intlist *online,
			const struct pm_intlist *cgroup, const char *sysfs_root)
{
	int have_cg = cgroup && cgroup->n > 0, best = -1;
	char why[128];

	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char path[512], text[256];
		struct pm_intlist sib = { 0 };

		if (!CPU_ISSET(cpu, prog))
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 sysfs_root, cpu);
		if (pm_sysfs_read_line(path, text, sizeof(text)) < 0 ||
		    pm_intlist_parse(text, 0, CPU_SETSIZE - 1, &sib, why, sizeof(why)) < 0)
			continue;
		for (size_t i = 0; i < sib.n; i++) {
			uint32_t s = sib.v[i];
			if (CPU_ISSET(s, prog) || !pmc_intlist_has(online, s) || (have_cg && !pmc_intlist_has(cgroup, s)))
				continue;
			if (best < 0 || (int)s < best)
				best = (int)s;
		}
		pm_intlist_free(&sib);
	}
	return best;
}

int pmc_binding_pin(const cpu_set_t *prog, const struct pm_intlist *online,
		    const struct pm_intlist *cgroup)
{
	int cpu = pmc_binding_sibling(prog, online, cgroup, "/sys");
	cpu_set_t one;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) == 0 ? cpu : -1;
}
