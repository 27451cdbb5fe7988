/* SPDX-License-Identifier: MIT */
/* bindings.c: the collector's CPU beside a rank the launcher bound (bindings.h). */
#include "bindings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int listed(const struct pm_intlist *l, uint32_t v)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return 1;
	return 0;
}

int pmc_binding_sibling(const cpu_set_t *prog, const struct pm_intlist *online,
			const struct pm_intlist *cgroup, const char *sysfs_root)
{
	int have_cg = cgroup && cgroup->n > 0, best = -1;
	char why[128];

	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		char path[512], text[256];
		struct pm_intlist sib = { 0 };
		FILE *f;

		if (!CPU_ISSET(cpu, prog))
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/thread_siblings_list",
			 sysfs_root, cpu);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(text, sizeof(text), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		text[strcspn(text, "\n")] = '\0';
		if (pm_intlist_parse(text, 0, CPU_SETSIZE - 1, &sib, why, sizeof(why)) < 0)
			continue;
		for (size_t i = 0; i < sib.n; i++) {
			uint32_t s = sib.v[i];
			if (CPU_ISSET(s, prog) || !listed(online, s) || (have_cg && !listed(cgroup, s)))
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
