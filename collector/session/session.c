/* SPDX-License-Identifier: MIT */
/* session.c: the lifetime of a pmcollect session (session.h): the machine read once, everything
 * released in one place. */
#include "session.h"

#include <errno.h>
#include <grp.h>
#include <numa.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sources/netlink.h"
#include "sources/perfswitch.h"
#include "sources/schedtrace.h"

void pmc_session_init(struct pmc_session *ss)
{
	memset(ss, 0, sizeof(*ss));
	ss->trace.out_fd = -1;
	ss->signals.sig_fd = -1;
	ss->src.pc_fd = -1;
	ss->src.ts_fd = -1;
	ss->machine.collector_cpu = -1;
}

int pmc_session_machine(struct pmc_session *ss, char *why, size_t whysize)
{
	struct pm_intlist online;
	cpu_set_t aff;
	int have_aff, rc;

	if (hwloc_topology_init(&ss->machine.topo) != 0 || hwloc_topology_load(ss->machine.topo) != 0) {
		snprintf(why, whysize, "cannot read the machine's topology (hwloc): %s", strerror(errno));
		if (ss->machine.topo)
			hwloc_topology_destroy(ss->machine.topo);
		ss->machine.topo = NULL;
		return -1;
	}
	if (pmc_online_cpus(&online) < 0) {
		snprintf(why, whysize, "cannot read the online CPUs");
		return -1;
	}
	rc = pmc_cpus_from_list(&online, &ss->machine.online);
	pm_intlist_free(&online);
	if (rc < 0) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return -1;
	}
	/* taskset, a launcher's binding, a Slurm or container cpuset: the machine's usable CPUs */
	have_aff = sched_getaffinity(0, sizeof(aff), &aff) == 0;
	if (pmc_usable_cpus_get("", &ss->machine.online.list, have_aff ? &aff : NULL, &ss->machine.usable, why,
				whysize) < 0) {
		char e[512];

		snprintf(e, sizeof(e), "%s", why);
		snprintf(why, whysize, "cannot read the CPUs pmcollect may use: %s", e);
		return -1;
	}
	return 0;
}

void pmc_session_close(struct pmc_session *ss)
{
	pmc_counters_close(ss->src.counters);
	pmc_sched_close(ss->src.sched);
	pmc_pswitch_free(ss->src.pswitch);
	pmc_energy_close(ss->src.energy);
	pmc_procconn_close(ss->src.pc_fd);
	pmc_taskstats_close(ss->src.ts_fd);
	if (ss->signals.sig_fd >= 0)
		close(ss->signals.sig_fd);
	if (ss->env.mem_mask)
		numa_bitmask_free(ss->env.mem_mask);
	pmc_cpus_free(&ss->machine.cpus);
	pmc_cpus_free(&ss->ifr.interfere_prog);
	pmc_cpus_free(&ss->machine.online);
	pmc_run_plan_free(&ss->rplan);
	pmc_usable_cpus_free(&ss->machine.usable);
	free(ss->machine.shared_msg);
	pmc_user_free(&ss->env.user);
	{
		char why[256];
		(void)pmc_cgquota_remove(&ss->machine.quota, why, sizeof(why)); /* main() warned already */
	}
	if (ss->machine.topo)
		hwloc_topology_destroy(ss->machine.topo);
	pmc_session_init(ss);
}

int pmc_user_resolve(const char *name, struct pmc_user *u, char *why, size_t whysize)
{
	struct passwd *pw;
	gid_t *groups = NULL;
	int n = 32;
	char *end;
	unsigned long id;

	errno = 0;
	pw = getpwnam(name);
	if (!pw) {
		id = strtoul(name, &end, 10);
		if (*name && !*end && id <= UINT32_MAX)
			pw = getpwuid((uid_t)id);
	}
	if (!pw) {
		snprintf(why, whysize, "%s", errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (geteuid() != 0 && pw->pw_uid != geteuid()) {
		snprintf(why, whysize, "running the program as another user needs root");
		return -1;
	}
	for (;;) {
		gid_t *g = realloc(groups, (size_t)n * sizeof(*g));
		int want = n;
		if (!g) {
			free(groups);
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			return -1;
		}
		groups = g;
		if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &want) >= 0) {
			n = want;
			break;
		}
		if (want <= n || want > 65536) {
			free(groups);
			snprintf(why, whysize, "cannot list its groups");
			return -1;
		}
		n = want;
	}
	u->name = strdup(pw->pw_name);
	u->home = pw->pw_dir ? strdup(pw->pw_dir) : NULL;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->groups = groups;
	u->ngroups = n;
	if (!u->name) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

void pmc_user_free(struct pmc_user *u)
{
	free(u->name);
	free(u->home);
	free(u->groups);
	memset(u, 0, sizeof(*u));
}

