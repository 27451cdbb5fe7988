/* SPDX-License-Identifier: MIT */
/* cpuset.c: the CPUs pmcollect may use, from the online CPUs, its affinity and its cgroup's
 * cpuset (cgroup v1 or v2). */
#include "cpuset.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "cpuexpr.h"
#include "pm_sysfs.h"

/* Reads the first line of root+path into buf without its newline and trailing spaces
 * (pm_sysfs_read_line). Returns 0 or a negative errno. */
static int read_first_line(const char *root, const char *path, char *buf, size_t size)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s%s", root, path);
	return pm_sysfs_read_line(full, buf, size);
}

/* Undoes mountinfo's octal escapes (\040 for a space, \011, \012, \134) in place. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* 1 when the comma-separated list has the word w. */
static int has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, w, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

/* The mount of controller ctl's hierarchy: *v1 = 1 for a cgroup (v1) mount with the controller,
 * 0 for the cgroup2 mount (used when no v1 one is mounted). Returns 0 or -1. */
static int find_mount(const char *root, const char *ctl, char *mroot, size_t mrsize, char *mpoint,
		      size_t mpsize, int *v1)
{
	char full[2048], line[4096];
	int found = 0; /* 2: v1 cpuset, 1: cgroup2 */
	FILE *f;

	snprintf(full, sizeof(full), "%s/proc/self/mountinfo", root);
	f = fopen(full, "re");
	if (!f)
		return -1;
	while (found < 2 && fgets(line, sizeof(line), f)) {
		char r[1024], mp[1024], type[64], opts[1024];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %1023s %1023s", r, mp) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
			continue;
		if (strcmp(type, "cgroup") == 0 && has_word(opts, ctl))
			found = 2;
		else if (strcmp(type, "cgroup2") == 0 && !found)
			found = 1;
		else
			continue;
		unescape_octal(r);
		unescape_octal(mp);
		snprintf(mroot, mrsize, "%s", r);
		snprintf(mpoint, mpsize, "%s", mp);
	}
	fclose(f);
	*v1 = found == 2;
	return found ? 0 : -1;
}

/* The process's path in the hierarchy (v1: the line whose controllers have ctl; v2: "0::").
 * Returns 0 or -1. */
static int find_cgroup_path(const char *root, const char *ctl, int v1, char *path, size_t size)
{
	char full[2048], line[4096];
	int found = 0;
	FILE *f;

	snprintf(full, sizeof(full), "%s/proc/self/cgroup", root);
	f = fopen(full, "re");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c1, *c2;
		line[strcspn(line, "\n")] = '\0';
		c1 = strchr(line, ':');
		c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		/* v1: "4:cpuset:/path" (or "3:cpu,cpuset:/path"); v2: "0::/path" */
		if (v1 ? has_word(c1 + 1, ctl) : strcmp(line, "0") == 0 && c2 == c1 + 1) {
			snprintf(path, size, "%s", c2 + 1);
			found = 1;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

int pmc_cgroup_cpuset(const char *root, char *cpus, size_t cpussize, char *file, size_t filesize,
		      char *why, size_t whysize)
{
	char mroot[1024], mpoint[1024], path[1024], dir[2048];
	const char *name, *rel;
	size_t mrlen;
	int v1;

	if (find_mount(root, "cpuset", mroot, sizeof(mroot), mpoint, sizeof(mpoint), &v1) < 0) {
		snprintf(why, whysize, "no cgroup hierarchy with the cpuset controller is mounted");
		return -1;
	}
	if (find_cgroup_path(root, "cpuset", v1, path, sizeof(path)) < 0) {
		snprintf(why, whysize, "no cpuset cgroup in /proc/self/cgroup");
		return -1;
	}
	name = v1 ? "cpuset.effective_cpus" : "cpuset.cpus.effective";
	/* the mount shows the hierarchy from mroot down (a container's own subtree) */
	mrlen = strcmp(mroot, "/") == 0 ? 0 : strlen(mroot);
	rel = mrlen && strncmp(path, mroot, mrlen) == 0 && (path[mrlen] == '/' || !path[mrlen])
		      ? path + mrlen : path;
	snprintf(dir, sizeof(dir), "%s%s", mpoint, strcmp(rel, "/") == 0 ? "" : rel);
	for (;;) {
		char f[3072];
		char *slash;
		snprintf(f, sizeof(f), "%s/%s", dir, name);
		if (read_first_line(root, f, cpus, cpussize) == 0 && cpus[0]) {
			snprintf(file, filesize, "%s", f);
			return 0;
		}
		/* the parent's, up to the mount point */
		if (strlen(dir) <= strlen(mpoint))
			break;
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (strlen(dir) < strlen(mpoint))
			snprintf(dir, sizeof(dir), "%s", mpoint);
	}
	snprintf(why, whysize, "no readable %s under %s%s", name, mpoint, strcmp(rel, "/") ? rel : "");
	return -1;
}

int pmc_cgroup_cpu_limit(const char *root, struct pmc_cgroup_cpu *out, char *why, size_t whysize)
{
	char mroot[1024], mpoint[1024], path[1024], f[3072], line[256];
	const char *rel;
	size_t mrlen;

	memset(out, 0, sizeof(*out));
	if (find_mount(root, "cpu", mroot, sizeof(mroot), mpoint, sizeof(mpoint), &out->v1) < 0 ||
	    find_cgroup_path(root, "cpu", out->v1, path, sizeof(path)) < 0) {
		snprintf(why, whysize, "no cgroup with the cpu controller");
		return -1;
	}
	mrlen = strcmp(mroot, "/") == 0 ? 0 : strlen(mroot);
	rel = mrlen && strncmp(path, mroot, mrlen) == 0 && (path[mrlen] == '/' || !path[mrlen])
		      ? path + mrlen : path;
	snprintf(out->dir, sizeof(out->dir), "%s%s", mpoint, strcmp(rel, "/") == 0 ? "" : rel);
	out->quota_us = -1;
	if (out->v1) {
		/* cpu.cfs_quota_us: -1 for no limit; cpu.cfs_burst_us since Linux 5.14 */
		long long q;
		snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", out->dir);
		if (read_first_line(root, f, line, sizeof(line)) < 0 || sscanf(line, "%lld", &q) != 1)
			goto nofile;
		out->quota_us = q < 0 ? -1 : (double)q;
		snprintf(f, sizeof(f), "%s/cpu.cfs_period_us", out->dir);
		if (read_first_line(root, f, line, sizeof(line)) < 0 ||
		    sscanf(line, "%lf", &out->period_us) != 1)
			goto nofile;
		snprintf(f, sizeof(f), "%s/cpu.cfs_burst_us", out->dir);
	} else {
		/* cpu.max: "$MAX $PERIOD", $MAX "max" for no limit (cgroup-v2.rst) */
		char q[64];
		snprintf(f, sizeof(f), "%s/cpu.max", out->dir);
		if (read_first_line(root, f, line, sizeof(line)) < 0 ||
		    sscanf(line, "%63s %lf", q, &out->period_us) != 2)
			goto nofile;
		out->quota_us = strcmp(q, "max") == 0 ? -1 : strtod(q, NULL);
		snprintf(f, sizeof(f), "%s/cpu.max.burst", out->dir);
	}
	if (read_first_line(root, f, line, sizeof(line)) == 0)
		sscanf(line, "%lf", &out->burst_us);
	out->found = 1;
	return 0;
nofile:
	snprintf(why, whysize, "no readable %s", f);
	return -1;
}

int pmc_cgroup_cpu_stat(const char *root, const struct pmc_cgroup_cpu *cg, struct pmc_cpu_stat *out)
{
	char full[4096], key[64];
	double v;
	FILE *f;

	memset(out, 0, sizeof(*out));
	snprintf(full, sizeof(full), "%s%s/cpu.stat", root, cg->dir);
	f = fopen(full, "re");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lf", key, &v) == 2) {
		if (strcmp(key, "nr_periods") == 0)
			out->nr_periods = (uint64_t)v;
		else if (strcmp(key, "nr_throttled") == 0)
			out->nr_throttled = (uint64_t)v;
		else if (strcmp(key, "throttled_usec") == 0) /* v2 */
			out->throttled_us = v;
		else if (strcmp(key, "throttled_time") == 0) /* v1, in ns */
			out->throttled_us = v / 1e3;
	}
	fclose(f);
	return 0;
}

int pmc_usable_cpus_get(const char *root, const struct pm_intlist *online, const cpu_set_t *aff,
			struct pmc_usable_cpus *u, char *why, size_t whysize)
{
	struct pm_intlist *cg = &u->cgroup;
	int have_cg = 0;
	char e[200];

	memset(u, 0, sizeof(*u));
	u->cpus.v = malloc((online->n ? online->n : 1) * sizeof(uint32_t));
	if (!u->cpus.v) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	if (root && pmc_cgroup_cpuset(root, u->cgroup_cpus, sizeof(u->cgroup_cpus), u->cgroup_file,
				      sizeof(u->cgroup_file), e, sizeof(e)) == 0)
		have_cg = pm_intlist_parse(u->cgroup_cpus, 0, UINT32_MAX - 1, cg, e, sizeof(e)) == 0;
	if (!have_cg)
		u->cgroup_cpus[0] = u->cgroup_file[0] = '\0';
	for (int pass = 0; pass < 2 && u->cpus.n == 0; pass++) {
		/* pass 1 leaves out a cgroup list that shares nothing with the affinity */
		for (size_t i = 0; i < online->n; i++) {
			uint32_t c = online->v[i];
			if (aff && (c >= CPU_SETSIZE || !CPU_ISSET(c, aff)))
				continue;
			if (pass == 0 && have_cg && !pmc_intlist_has(cg, c))
				continue;
			u->cpus.v[u->cpus.n++] = c;
		}
	}
	if (aff) {
		struct pm_intlist a = { .v = malloc((online->n ? online->n : 1) * sizeof(uint32_t)) };
		for (size_t i = 0; a.v && i < online->n; i++)
			if (online->v[i] < CPU_SETSIZE && CPU_ISSET(online->v[i], aff))
				a.v[a.n++] = online->v[i];
		if (a.v && a.n)
			pm_intlist_format(&a, u->affinity, sizeof(u->affinity));
		free(a.v);
	}
	if (u->cpus.n == 0) {
		snprintf(why, whysize, "none of the online CPUs is in pmcollect's affinity");
		pmc_usable_cpus_free(u);
		return -1;
	}
	pm_intlist_format(&u->cpus, u->text, sizeof(u->text));
	u->restricted = u->cpus.n < online->n;
	return 0;
}

void pmc_usable_cpus_free(struct pmc_usable_cpus *u)
{
	if (u) {
		pm_intlist_free(&u->cpus);
		pm_intlist_free(&u->cgroup);
	}
}

int pmc_online_cpus(struct pm_intlist *out)
{
	char buf[4096], why[128];
	long ncpu;

	if (pm_sysfs_read_line("/sys/devices/system/cpu/online", buf, sizeof(buf)) == 0 &&
	    pm_intlist_parse(buf, 0, UINT32_MAX - 1, out, why, sizeof(why)) == 0)
		return 0;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(buf, sizeof(buf), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
	return pm_intlist_parse(buf, 0, UINT32_MAX - 1, out, why, sizeof(why));
}

int pmc_intlist_has(const struct pm_intlist *l, uint32_t v)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return 1;
	return 0;
}

int pmc_intlist_bitmap(const struct pm_intlist *l, hwloc_bitmap_t set)
{
	hwloc_bitmap_zero(set);
	for (size_t i = 0; i < l->n; i++)
		if (hwloc_bitmap_set(set, l->v[i]) != 0)
			return -1;
	return 0;
}

int pmc_cpus_parse(hwloc_topology_t topo, const char *expr, const struct pm_intlist *online,
		   struct pmc_cpus *out, char *why, size_t whysize)
{
	memset(out, 0, sizeof(*out));
	/* a plain OS CPU list is taken as written, exactly as before CPU expressions */
	if (strspn(expr, "0123456789-,:") == strlen(expr)) {
		if (pm_intlist_parse(expr, 0, UINT32_MAX - 1, &out->list, why, whysize) < 0)
			return -1;
	} else {
		struct pm_cpuexpr e;

		if (!topo) {
			snprintf(why, whysize, "a CPU expression needs the machine's topology");
			return -1;
		}
		if (pm_cpuexpr_parse(topo, expr, &e, why, whysize) < 0)
			return -1;
		out->list = e.set; /* the sorted set; the expression's order is not needed here */
		e.set.v = NULL;
		e.set.n = 0;
		pm_cpuexpr_free(&e);
	}
	CPU_ZERO(&out->set);
	for (size_t i = 0; i < out->list.n; i++) {
		if (!pmc_intlist_has(online, out->list.v[i]) || out->list.v[i] >= CPU_SETSIZE) {
			char online_text[4096];

			snprintf(why, whysize, "CPU %u is not online (online: %s)", out->list.v[i],
				 pm_intlist_format(online, online_text, sizeof(online_text)));
			pmc_cpus_free(out);
			return -1;
		}
		CPU_SET(out->list.v[i], &out->set);
	}
	pm_intlist_format(&out->list, out->text, sizeof(out->text));
	return 0;
}

int pmc_cpus_from_list(const struct pm_intlist *l, struct pmc_cpus *out)
{
	memset(out, 0, sizeof(*out));
	if (l->n) {
		out->list.v = malloc(l->n * sizeof(*l->v));
		if (!out->list.v)
			return -1;
		memcpy(out->list.v, l->v, l->n * sizeof(*l->v));
		out->list.n = l->n;
	}
	CPU_ZERO(&out->set);
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] < CPU_SETSIZE)
			CPU_SET(l->v[i], &out->set);
	pm_intlist_format(&out->list, out->text, sizeof(out->text));
	return 0;
}

void pmc_cpus_free(struct pmc_cpus *c)
{
	pm_intlist_free(&c->list);
	memset(c, 0, sizeof(*c));
}

/* Writes text to root-prefixed file path (O_CREAT only matters on a plain directory tree: a
 * cgroup's control files exist). Returns 0 or a negative errno. */
static int write_file(const char *root, const char *path, const char *text)
{
	char full[4096];
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int pmc_cgquota_make(const char *root, struct pmc_cgquota *q, char *why, size_t whysize)
{
	char mroot[1024], full[4096], f[3072];
	int err;

	memset(q, 0, sizeof(*q));
	snprintf(q->root, sizeof(q->root), "%s", root);
	if (find_mount(root, "cpu", mroot, sizeof(mroot), q->mpoint, sizeof(q->mpoint), &q->v1) < 0) {
		snprintf(why, whysize, "no cgroup hierarchy with the cpu controller is mounted");
		return -1;
	}
	snprintf(q->dir, sizeof(q->dir), "%s/pmcollect-%ld", q->mpoint, (long)getpid());
	if (!q->v1) {
		/* the top cgroup may hold processes and still enable a controller for its children */
		snprintf(f, sizeof(f), "%s/cgroup.subtree_control", q->mpoint);
		err = write_file(root, f, "+cpu\n");
		if (err < 0) {
			snprintf(why, whysize, "cannot enable the cpu controller in %s: %s", f, strerror(-err));
			return -1;
		}
	}
	snprintf(full, sizeof(full), "%s%s", root, q->dir);
	if (mkdir(full, 0755) < 0) {
		snprintf(why, whysize, "cannot create cgroup %s: %s", q->dir, strerror(errno));
		return -1;
	}
	q->made = 1;
	return 0;
}

int pmc_cgquota_set(const struct pmc_cgquota *q, double quota_us, double period_us, char *why,
		    size_t whysize)
{
	char f[3072], text[64];
	int err;

	if (q->v1) {
		/* no limit first, so a new period never meets an old quota the kernel would refuse */
		snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", q->dir);
		err = write_file(q->root, f, "-1\n");
		if (!err) {
			snprintf(f, sizeof(f), "%s/cpu.cfs_period_us", q->dir);
			snprintf(text, sizeof(text), "%.0f\n", period_us);
			err = write_file(q->root, f, text);
		}
		if (!err) {
			snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", q->dir);
			snprintf(text, sizeof(text), "%.0f\n", quota_us);
			err = write_file(q->root, f, text);
		}
	} else {
		snprintf(f, sizeof(f), "%s/cpu.max", q->dir);
		snprintf(text, sizeof(text), "%.0f %.0f\n", quota_us, period_us);
		err = write_file(q->root, f, text);
	}
	if (err < 0) {
		snprintf(why, whysize, "cannot write %s: %s", f, strerror(-err));
		return -1;
	}
	return 0;
}

int pmc_cgquota_enter(const struct pmc_cgquota *q, pid_t pid, char *why, size_t whysize)
{
	char f[3072], text[32];
	int err;

	snprintf(f, sizeof(f), "%s/cgroup.procs", q->dir);
	snprintf(text, sizeof(text), "%ld\n", (long)pid);
	err = write_file(q->root, f, text);
	if (err < 0) {
		snprintf(why, whysize, "cannot move the program into %s: %s", f, strerror(-err));
		return -1;
	}
	return 0;
}

int pmc_cgquota_describe(const struct pmc_cgquota *q, struct pmc_cgroup_cpu *out, char *why,
			 size_t whysize)
{
	char f[3072], line[256], qt[64];

	memset(out, 0, sizeof(*out));
	out->v1 = q->v1;
	out->quota_us = -1;
	snprintf(out->dir, sizeof(out->dir), "%s", q->dir);
	if (q->v1) {
		long long v;
		snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", q->dir);
		if (read_first_line(q->root, f, line, sizeof(line)) < 0 || sscanf(line, "%lld", &v) != 1)
			goto bad;
		out->quota_us = v < 0 ? -1 : (double)v;
		snprintf(f, sizeof(f), "%s/cpu.cfs_period_us", q->dir);
		if (read_first_line(q->root, f, line, sizeof(line)) < 0 ||
		    sscanf(line, "%lf", &out->period_us) != 1)
			goto bad;
	} else {
		snprintf(f, sizeof(f), "%s/cpu.max", q->dir);
		if (read_first_line(q->root, f, line, sizeof(line)) < 0 ||
		    sscanf(line, "%63s %lf", qt, &out->period_us) != 2)
			goto bad;
		out->quota_us = strcmp(qt, "max") == 0 ? -1 : strtod(qt, NULL);
	}
	out->found = 1;
	return 0;
bad:
	snprintf(why, whysize, "no readable %s", f);
	return -1;
}

int pmc_cgquota_remove(struct pmc_cgquota *q, char *why, size_t whysize)
{
	static const char *const written[] = { "cgroup.procs", "cpu.max", "cpu.cfs_quota_us",
					       "cpu.cfs_period_us" };
	char full[4096], f[4200], top[3072], line[64];
	FILE *procs;
	int err;

	if (!q->made)
		return 0;
	/* what is left in it (a process the program left running) back to the top */
	snprintf(full, sizeof(full), "%s%s/cgroup.procs", q->root, q->dir);
	snprintf(top, sizeof(top), "%s/cgroup.procs", q->mpoint);
	procs = fopen(full, "re");
	while (procs && fgets(line, sizeof(line), procs)) {
		if (line[0] != '\n')
			(void)write_file(q->root, top, line);
	}
	if (procs)
		fclose(procs);
	snprintf(full, sizeof(full), "%s%s", q->root, q->dir);
	err = rmdir(full) < 0 ? errno : 0;
	if (err == ENOTEMPTY) {
		/* a plain directory (a test's tree): a cgroup's rmdir never says ENOTEMPTY */
		for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++) {
			snprintf(f, sizeof(f), "%s/%s", full, written[i]);
			(void)unlink(f);
		}
		err = rmdir(full) < 0 ? errno : 0;
	}
	if (err) {
		snprintf(why, whysize, "cannot remove cgroup %s: %s", q->dir, strerror(err));
		return -1;
	}
	q->made = 0;
	return 0;
}
