/* SPDX-License-Identifier: MIT */
/* cpuset.h: the CPUs pmcollect may use: the online CPUs, its own affinity (taskset, a launcher's
 * binding) and its cgroup's cpuset (Slurm, a container), so a program started inside a restricted
 * set is recorded on the CPUs it really had (docs/model.md, degraded-input case 3). */
#ifndef PMC_CPUSET_H
#define PMC_CPUSET_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwloc.h>

#include "pm_cli.h"

/* What the CPU sets of pmcollect's process were at the start. Texts are cpulists ("0-3,8"). */
struct pmc_usable_cpus {
	struct pm_intlist cpus;   /* online ∩ affinity ∩ cgroup cpuset, sorted; free with
				      pmc_usable_cpus_free */
	char text[4096];           /* cpus as a cpulist */
	char affinity[4096];       /* sched_getaffinity(2) ∩ online, "" when not known */
	char cgroup_cpus[4096];    /* the cgroup's effective cpuset, "" when none was found */
	struct pm_intlist cgroup;  /* the same CPUs, parsed once (empty when none was found) */
	char cgroup_file[1024];    /* the file it was read from (relative to the root given) */
	int restricted;            /* 1 when cpus is not every online CPU */
};

/* Finds the cpuset of the cgroup pmcollect runs in: the hierarchy that holds the cpuset
 * controller (cgroup v1: a "cgroup" mount with the cpuset option, file cpuset.effective_cpus;
 * else the cgroup2 mount, file cpuset.cpus.effective) from root/proc/self/mountinfo (proc(5):
 * field 4 the mount's root, field 5 its mount point, the file system type and super options after
 * " - ") and the process's path in it from root/proc/self/cgroup (cgroups(7): "id:controllers:path").
 * A cgroup without the file (cgroup v2 with the cpuset controller not enabled there) inherits its
 * parent's: the search walks up to the mount point. root is prefixed to every path read ("" on a
 * real system; a directory of fixtures in the tests). Writes the cpulist into cpus (trailing space
 * removed) and the file into file. Returns 0, or -1 with a one-line reason in why (no cpuset
 * hierarchy, no readable file: the caller records no cgroup restriction). */
int pmc_cgroup_cpuset(const char *root, char *cpus, size_t cpussize, char *file, size_t filesize,
		      char *why, size_t whysize);

/* The CPU limit of the cgroup pmcollect runs in (CFS bandwidth control: the kernel's
 * Documentation/scheduler/sched-bwc.rst), found as pmc_cgroup_cpuset finds the cpuset but in the
 * cpu controller's hierarchy: v1 cpu.cfs_quota_us, cpu.cfs_period_us, cpu.cfs_burst_us; v2
 * cpu.max ("max 100000" or "150000 100000") and cpu.max.burst (Documentation/admin-guide/
 * cgroup-v2.rst). Only the process's own cgroup: a parent's tighter limit is not looked up. */
struct pmc_cgroup_cpu {
	int found, v1;
	char dir[2048];       /* the cgroup's folder (under root) */
	double quota_us;      /* per period, -1 for none ("max", v1 -1) */
	double period_us;
	double burst_us;      /* 0 when none or not supported */
};
/* Returns 0, or -1 with a one-line reason (no cpu hierarchy, no readable limit file). */
int pmc_cgroup_cpu_limit(const char *root, struct pmc_cgroup_cpu *out, char *why, size_t whysize);

/* The cgroup's throttling counters (cpu.stat: nr_periods, nr_throttled, v2 throttled_usec, v1
 * throttled_time in ns), cumulative since the cgroup was made. Returns 0 or -1 (no cpu.stat). */
struct pmc_cpu_stat {
	uint64_t nr_periods, nr_throttled;
	double throttled_us;
};
int pmc_cgroup_cpu_stat(const char *root, const struct pmc_cgroup_cpu *cg, struct pmc_cpu_stat *out);

/* A transient cgroup of `pmcollect --quota` (CFS bandwidth control, sched-bwc.rst): made at the
 * top of the cpu controller's hierarchy (v1: the "cgroup" mount with the cpu option; else the
 * cgroup2 mount, its cpu controller enabled in the top's cgroup.subtree_control), named
 * pmcollect-<pid>. The program is moved into it; pmcollect is not, so its own sampling is not
 * charged to the quota. */
struct pmc_cgquota {
	int made, v1;
	char root[1024];     /* prefix of every path (pmc_sysfs_root: "" on a real system) */
	char mpoint[1024];   /* the hierarchy's mount point (under root) */
	char dir[2048];      /* the cgroup's folder (under root), as pmc_cgroup_cpu.dir */
};

/* Makes the cgroup under root (see above). Returns 0, or -1 with a one-line reason (no cpu
 * controller mounted; mkdir(2) failed: EACCES/EPERM when not root, EROFS for a read-only
 * cgroupfs; the cpu controller cannot be enabled on v2); nothing is left behind then. */
int pmc_cgquota_make(const char *root, struct pmc_cgquota *q, char *why, size_t whysize);

/* Writes the limit: quota_us of CPU time per period_us (v1 cpu.cfs_period_us then
 * cpu.cfs_quota_us; v2 cpu.max "quota_us period_us"). The kernel accepts a period of 1 ms to 1 s
 * and a quota of at least 1 ms (sched-bwc.rst); the caller checks. Returns 0, or -1 with a reason. */
int pmc_cgquota_set(const struct pmc_cgquota *q, double quota_us, double period_us, char *why,
		    size_t whysize);

/* Moves process pid (every thread of it) into the cgroup: its cgroup.procs. Its children are born
 * there. Returns 0, or -1 with a reason. */
int pmc_cgquota_enter(const struct pmc_cgquota *q, pid_t pid, char *why, size_t whysize);

/* The cgroup as pmc_cgroup_cpu_limit would describe it (for pmc_cgroup_cpu_stat). Returns 0 or -1
 * (its limit files cannot be read). */
int pmc_cgquota_describe(const struct pmc_cgquota *q, struct pmc_cgroup_cpu *out, char *why,
			 size_t whysize);

/* Removes the cgroup (q->made 0 is fine): processes still in it (a daemon the program left) go back
 * to the hierarchy's top first, then rmdir(2). On a plain directory tree (a test's root) the
 * files written are unlinked first. Returns 0, or -1 with a reason (the folder stays). */
int pmc_cgquota_remove(struct pmc_cgquota *q, char *why, size_t whysize);

/* Fills u with the CPUs pmcollect may use: the online CPUs (online, sorted), restricted to aff
 * (pmcollect's affinity; NULL = unknown) and to the cgroup's cpuset found under root (see
 * pmc_cgroup_cpuset; NULL = not looked up). A cgroup list that shares no CPU with the rest is
 * ignored (the kernel keeps a task's affinity inside its cpuset, so that is a stale file).
 * Returns 0, or -1 when out of memory or when no online CPU is left (a one-line reason in why). */
int pmc_usable_cpus_get(const char *root, const struct pm_intlist *online, const cpu_set_t *aff,
			struct pmc_usable_cpus *u, char *why, size_t whysize);

void pmc_usable_cpus_free(struct pmc_usable_cpus *u);

/* The online CPUs (/sys/devices/system/cpu/online), else 0..sysconf(_SC_NPROCESSORS_ONLN)-1, into
 * *out (free with pm_intlist_free). Returns 0, or -1 when neither can be read. */
int pmc_online_cpus(struct pm_intlist *out);

/* Whether v is in the list l (sorted or not). */
int pmc_intlist_has(const struct pm_intlist *l, uint32_t v);

/* Sets the hwloc bitmap set to the CPUs of the list l (OS indexes), for the planners that walk
 * the topology with a set of CPUs already parsed (collector/session/plan.c, interfere.c). Returns 0, or
 * -1 when hwloc runs out of memory (set then partly filled). */
int pmc_intlist_bitmap(const struct pm_intlist *l, hwloc_bitmap_t set);

/* One set of CPUs the user named (--cpus, --interfere-cpus, a --runs list), parsed once into the
 * three forms its users need: planning and checks read list, placement reads set, META and the
 * messages read text. */
struct pmc_cpus {
	struct pm_intlist list; /* sorted, deduplicated OS CPU numbers */
	cpu_set_t set;          /* the same CPUs, for sched_setaffinity(2) */
	char text[4096];        /* the same CPUs as a cpulist ("0-3,8") */
};

/* Parses expr, a cpulist ("0-3,8", "1-7:2") or a CPU expression ("S0:0-3", "E:N:4";
 * common/cpuexpr.h, docs/cpu-expressions.md) evaluated on topo (the session's topology; a plain
 * cpulist does not need it, so topo may be NULL for those), into *out; every CPU must be in online
 * and below CPU_SETSIZE. Returns 0, or -1 with *out empty and a one-line reason in why (the caller
 * prefixes "invalid CPU list '<expr>': "), e.g. "CPU 9 is not online (online: 0-1)". Free with
 * pmc_cpus_free. */
int pmc_cpus_parse(hwloc_topology_t topo, const char *expr, const struct pm_intlist *online,
		   struct pmc_cpus *out, char *why, size_t whysize);

/* Builds *out from the list l (copied; CPUs at or above CPU_SETSIZE are left out of out->set):
 * the CPU model of a set pmcollect computed itself (the usable CPUs, hwloc's placement). Returns 0,
 * or -1 when out of memory (*out empty). Free with pmc_cpus_free. */
int pmc_cpus_from_list(const struct pm_intlist *l, struct pmc_cpus *out);

/* Frees out->list and empties *c; accepts an empty (zeroed) one. */
void pmc_cpus_free(struct pmc_cpus *c);

#endif
