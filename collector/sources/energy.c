/* SPDX-License-Identifier: MIT */
/* energy.c: energy counters from powercap RAPL zones or the perf power PMU, and /proc/stat load. */
#include "energy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pm_util.h"
#include "pm_cli.h"
#include "pm_sysfs.h"

#define POWERCAP_DIR "/sys/class/powercap"
#define POWERCAP_PREFIX "intel-rapl:"
#define PERF_POWER_DIR "/sys/bus/event_source/devices/power"
#define PARANOID_FILE "/proc/sys/kernel/perf_event_paranoid"

struct zone_priv {
	char path[4096 + 32]; /* powercap: <root>/sys/class/powercap/<id>/energy_uj */
	int fd;            /* perf: the counter; -1 for powercap */
	double scale_j;    /* perf: Joules per count (events/<name>.scale) */
	uint64_t first_raw;
};

struct pmc_energy {
	enum pmc_energy_source source;
	size_t n;
	struct pmc_energy_zone zone[PMC_ENERGY_MAX_ZONES];
	struct zone_priv priv[PMC_ENERGY_MAX_ZONES];
};

const char *pmc_sysfs_root(void)
{
	/* Not cached: a test process points it at several fixture trees in turn. */
	const char *s = getenv("PMT_SYSFS_ROOT");

	return s ? s : "";
}

uint64_t pmc_energy_delta_uj(uint64_t e0_uj, uint64_t e1_uj, uint64_t max_uj)
{
	if (e1_uj >= e0_uj)
		return e1_uj - e0_uj;
	if (e0_uj > max_uj)
		return e1_uj;
	return e1_uj + (max_uj - e0_uj);
}

/* Reads a file holding one unsigned decimal number. Returns 0 or -errno (-EINVAL: not a number). */
static int read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	int r = pm_sysfs_read_line(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end != '\0')
		return -EINVAL;
	return 0;
}

static int path_join(char *out, size_t size, const char *a, const char *b, const char *c)
{
	int n = snprintf(out, size, "%s%s%s", a, b, c);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The gone test shared by the first reading and later ones: the attribute or its directory
 * vanished (ENOENT), or the device behind it did (ENODEV, ENXIO, or an empty read). */
static int is_gone(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -ENXIO || err == -ENODATA;
}

/* Powercap zones. Returns the number of zones added; a reason for powercap in why when 0. */
static size_t powercap_open(struct pmc_energy *e, const char *root, char *why, size_t whysize)
{
	char dir[4096], base[4096], path[4096 + 32];
	char *names[PMC_ENERGY_MAX_ZONES];
	size_t nnames = 0, i;
	int denied = 0, other_err = 0;
	struct dirent *de;
	DIR *d;

	snprintf(why, whysize, "no powercap (no %s" POWERCAP_DIR "/" POWERCAP_PREFIX "* zone)", root);
	if (path_join(dir, sizeof(dir), root, POWERCAP_DIR, "") < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d)) && nnames < PMC_ENERGY_MAX_ZONES)
		if (!strncmp(de->d_name, POWERCAP_PREFIX, strlen(POWERCAP_PREFIX)))
			names[nnames++] = strdup(de->d_name);
	closedir(d);
	/* readdir order is the file system's; sorted, package zones come before their subzones */
	qsort(names, nnames, sizeof(names[0]), cmp_str);
	for (i = 0; i < nnames; i++) {
		struct pmc_energy_zone *z = &e->zone[e->n];
		struct zone_priv *p = &e->priv[e->n];
		uint64_t v;
		int r;

		if (!names[i] || path_join(base, sizeof(base), dir, "/", names[i]) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/energy_uj", base);
		r = read_u64(path, &v);
		if (r == -EACCES || r == -EPERM) {
			if (!denied++)
				snprintf(why, whysize, "powercap energy_uj is readable by root only "
					 "(Linux >= 5.10): %s: %s", path, strerror(-r));
			continue;
		}
		if (r < 0) {
			if (!denied && !other_err++)
				snprintf(why, whysize, "powercap: cannot read '%s': %s", path, strerror(-r));
			continue;
		}
		memset(z, 0, sizeof(*z));
		memset(p, 0, sizeof(*p));
		snprintf(p->path, sizeof(p->path), "%s", path);
		p->fd = -1;
		z->last_raw = v;
		snprintf(z->id, sizeof(z->id), "%s", names[i]);
		snprintf(path, sizeof(path), "%s/name", base);
		if (pm_sysfs_read_line(path, z->name, sizeof(z->name)) < 0)
			snprintf(z->name, sizeof(z->name), "%s", names[i]);
		snprintf(path, sizeof(path), "%s/max_energy_range_uj", base);
		if (read_u64(path, &z->max_energy_range_uj) < 0)
			z->max_energy_range_uj = UINT64_MAX; /* unknown range: a decrease then counts from 0 */
		e->n++;
	}
	for (i = 0; i < nnames; i++)
		free(names[i]);
	return e->n;
}

static long sys_perf_event_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Opens one counter of event `name` (config) on each CPU of the PMU's cpumask. Returns the number
 * opened, or -errno of the first failure with the reason in why. */
static int perf_open_event(struct pmc_energy *e, const char *pmu, const char *root, uint32_t type,
			   const char *name, const struct pm_intlist *cpus, char *why, size_t whysize)
{
	char path[4096 + 64], buf[128], *end;
	unsigned long long config;
	double scale_j;
	size_t i;
	int opened = 0;

	snprintf(path, sizeof(path), "%s/events/%s", pmu, name);
	if (pm_sysfs_read_line(path, buf, sizeof(buf)) < 0 || sscanf(buf, "event=%llx", &config) != 1)
		return 0; /* not an event description: skip it */
	snprintf(path, sizeof(path), "%s/events/%s.unit", pmu, name);
	if (pm_sysfs_read_line(path, buf, sizeof(buf)) < 0 || strcmp(buf, "Joules"))
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s.scale", pmu, name);
	if (pm_sysfs_read_line(path, buf, sizeof(buf)) < 0)
		return 0;
	scale_j = strtod(buf, &end);
	if (end == buf || !(scale_j > 0.0) || !isfinite(scale_j))
		return 0;
	for (i = 0; i < cpus->n && e->n < PMC_ENERGY_MAX_ZONES; i++) {
		struct perf_event_attr attr;
		struct pmc_energy_zone *z = &e->zone[e->n];
		struct zone_priv *p = &e->priv[e->n];
		uint64_t v;
		long fd;

		memset(&attr, 0, sizeof(attr));
		attr.type = type;
		attr.size = sizeof(attr);
		attr.config = config;
		fd = sys_perf_event_open(&attr, (int)cpus->v[i]);
		if (fd < 0) {
			int err = errno;
			long paranoid;

			if (err == EACCES || err == EPERM) {
				snprintf(path, sizeof(path), "%s" PARANOID_FILE, root);
				if (pm_sysfs_read_line(path, buf, sizeof(buf)) < 0 ||
				    pm_cli_parse_long(buf, -10, 10, &paranoid) < 0)
					snprintf(why, whysize, "perf power PMU: perf_event_open(%s, CPU %" PRIu32
						 ") denied (%s unreadable; system-wide events need it <= 0 "
						 "or CAP_PERFMON)", name, cpus->v[i], path);
				else
					snprintf(why, whysize, "perf power PMU: perf_event_open(%s, CPU %" PRIu32
						 ") denied: perf_event_paranoid is %ld (system-wide events "
						 "need <= 0 or CAP_PERFMON)", name, cpus->v[i], paranoid);
			} else {
				snprintf(why, whysize, "perf power PMU: perf_event_open(%s, CPU %" PRIu32
					 "): %s", name, cpus->v[i], strerror(err));
			}
			return -err;
		}
		if (read((int)fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
			snprintf(why, whysize, "perf power PMU: cannot read %s on CPU %" PRIu32 ": %s",
				 name, cpus->v[i], strerror(errno));
			close((int)fd);
			return -EIO;
		}
		memset(z, 0, sizeof(*z));
		memset(p, 0, sizeof(*p));
		snprintf(z->name, sizeof(z->name), "%s@cpu%" PRIu32, name, cpus->v[i]);
		snprintf(z->id, sizeof(z->id), "%s", name);
		z->last_raw = v;
		p->fd = (int)fd;
		p->scale_j = scale_j;
		p->first_raw = v;
		e->n++;
		opened++;
	}
	return opened;
}

/* The perf power PMU. Returns the number of counters opened; the reason for perf in why when 0. */
static size_t perf_open(struct pmc_energy *e, const char *root, char *why, size_t whysize)
{
	char pmu[4096], path[4096 + 32], buf[4096], why1[256] = "";
	struct pm_intlist cpus = { NULL, 0 };
	char *names[PMC_ENERGY_MAX_ZONES];
	size_t nnames = 0, i;
	struct dirent *de;
	uint64_t type;
	DIR *d;

	snprintf(why, whysize, "no perf power PMU (%s" PERF_POWER_DIR ")", root);
	if (path_join(pmu, sizeof(pmu), root, PERF_POWER_DIR, "") < 0)
		return 0;
	snprintf(path, sizeof(path), "%s/type", pmu);
	if (read_u64(path, &type) < 0 || type > UINT32_MAX)
		return 0;
	snprintf(path, sizeof(path), "%s/cpumask", pmu);
	if (pm_sysfs_read_line(path, buf, sizeof(buf)) < 0 ||
	    pm_intlist_parse(buf, 0, 1u << 20, &cpus, why1, sizeof(why1)) < 0) {
		snprintf(why, whysize, "perf power PMU: bad cpumask '%s'", path);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/events", pmu);
	d = opendir(path);
	if (!d) {
		snprintf(why, whysize, "perf power PMU: no events in '%s'", path);
		pm_intlist_free(&cpus);
		return 0;
	}
	while ((de = readdir(d)) && nnames < PMC_ENERGY_MAX_ZONES)
		if (!strncmp(de->d_name, "energy-", 7) && !strchr(de->d_name, '.'))
			names[nnames++] = strdup(de->d_name);
	closedir(d);
	qsort(names, nnames, sizeof(names[0]), cmp_str);
	snprintf(why, whysize, "perf power PMU: no energy-* event in Joules under '%s'", path);
	for (i = 0; i < nnames; i++) {
		if (names[i] && perf_open_event(e, pmu, root, (uint32_t)type, names[i], &cpus, why,
						whysize) < 0)
			break;
	}
	/* all or nothing: a partial set of events would under-count the machine */
	if (i < nnames) {
		for (size_t k = 0; k < e->n; k++)
			close(e->priv[k].fd);
		e->n = 0;
	}
	for (i = 0; i < nnames; i++)
		free(names[i]);
	pm_intlist_free(&cpus);
	return e->n;
}

const char *pmc_energy_zone_kind(const char *name)
{
	static const char *const map[][2] = {
		{ "package", "package" }, { "energy-pkg", "package" }, { "core", "core" },
		{ "energy-cores", "core" }, { "uncore", "uncore" }, { "energy-gpu", "uncore" },
		{ "dram", "dram" }, { "energy-ram", "dram" }, { "psys", "psys" },
		{ "energy-psys", "psys" },
	};

	for (size_t i = 0; i < PM_ARRAY_SIZE(map); i++) {
		size_t n = strlen(map[i][0]);
		if (strncmp(name, map[i][0], n) == 0 &&
		    (name[n] == '\0' || name[n] == '-' || name[n] == '@'))
			return map[i][1];
	}
	return "other";
}

int pmc_energy_open(struct pmc_energy **out, char *why, size_t whysize)
{
	char why_pc[8192], why_perf[8192]; /* paths of up to 4096 bytes in each */
	const char *root = pmc_sysfs_root();
	struct pmc_energy *e;

	*out = NULL;
	e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	if (powercap_open(e, root, why_pc, sizeof(why_pc)) > 0) {
		e->source = PMC_ENERGY_POWERCAP;
		*out = e;
		return 0;
	}
	if (perf_open(e, root, why_perf, sizeof(why_perf)) > 0) {
		e->source = PMC_ENERGY_PERF;
		*out = e;
		return 0;
	}
	snprintf(why, whysize, "%s; %s", why_pc, why_perf);
	free(e);
	return -1;
}

int pmc_energy_sample(struct pmc_energy *e, char *why, size_t whysize)
{
	int alive = 0;

	for (size_t i = 0; i < e->n; i++) {
		struct pmc_energy_zone *z = &e->zone[i];
		struct zone_priv *p = &e->priv[i];
		uint64_t v;
		int r;

		if (z->gone)
			continue;
		if (e->source == PMC_ENERGY_PERF) {
			/* read(), not pread(): a perf event descriptor is not seekable and refuses
			 * pread with ESPIPE; each read returns the counter's current value */
			if (read(p->fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
				snprintf(why, whysize, "cannot read %s: %s", z->name, strerror(errno));
				return -1;
			}
			z->last_raw = v;
			z->energy_uj = (uint64_t)llround((double)(v - p->first_raw) * p->scale_j * 1e6);
			alive++;
			continue;
		}
		/* Opened by path every time (pmcollect reads every 100 ms): a descriptor kept open
		 * would keep reading a removed fixture file, and the path is what disappears. */
		r = read_u64(p->path, &v);
		if (is_gone(r)) {
			z->gone = 1;
			continue;
		}
		if (r < 0) {
			snprintf(why, whysize, "cannot read '%s': %s", p->path,
				 r == -EINVAL ? "not a number" : strerror(-r));
			return -1;
		}
		if (v < z->last_raw)
			z->wraps++;
		z->energy_uj += pmc_energy_delta_uj(z->last_raw, v, z->max_energy_range_uj);
		z->last_raw = v;
		alive++;
	}
	return alive;
}

enum pmc_energy_source pmc_energy_source(const struct pmc_energy *e)
{
	return e->source;
}

size_t pmc_energy_count(const struct pmc_energy *e)
{
	return e->n;
}

const struct pmc_energy_zone *pmc_energy_zone(const struct pmc_energy *e, size_t i)
{
	return i < e->n ? &e->zone[i] : NULL;
}

void pmc_energy_close(struct pmc_energy *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n; i++)
		if (e->priv[i].fd >= 0)
			close(e->priv[i].fd);
	free(e);
}

int pmc_parse_proc_stat(const char *buf, size_t len, struct pmc_stat_cpu *out)
{
	/* proc(5) /proc/stat "cpu" line: user nice system idle iowait irq softirq steal guest
	 * guest_nice, in USER_HZ ticks; fields 1..8 are the ones used here */
	uint64_t f[8] = { 0 };
	char line[512], *s, *end;
	size_t n = 0, k;

	while (n < len && n < sizeof(line) - 1 && buf[n] != '\n' && buf[n] != '\0')
		n++;
	memcpy(line, buf, n);
	line[n] = '\0';
	if (strncmp(line, "cpu ", 4))
		return -1;
	s = line + 4;
	for (k = 0; k < 8; k++) {
		while (*s == ' ')
			s++;
		if (*s == '\0' && k >= 7)
			break; /* no steal field (before Linux 2.6.11) */
		if (*s < '0' || *s > '9')
			return -1;
		errno = 0;
		f[k] = strtoull(s, &end, 10);
		if (errno || (*end != ' ' && *end != '\0'))
			return -1;
		s = end;
	}
	out->busy_ticks = f[0] + f[1] + f[2] + f[5] + f[6];
	out->idle_ticks = f[3] + f[4];
	out->steal_ticks = f[7];
	return 0;
}

int pmc_read_proc_stat(struct pmc_stat_cpu *out, char *why, size_t whysize)
{
	char path[4096], buf[512];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/stat", pmc_sysfs_root());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whysize, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	r = read(fd, buf, sizeof(buf));
	close(fd);
	if (r <= 0 || pmc_parse_proc_stat(buf, (size_t)r, out) < 0) {
		snprintf(why, whysize, "cannot parse the cpu line of '%s'", path);
		return -1;
	}
	return 0;
}

double pmc_other_load_cpus(const struct pmc_stat_cpu *a, const struct pmc_stat_cpu *b,
			   uint64_t program_cpu_ns, uint64_t wall_ns, long user_hz)
{
	double busy_ns, other_ns;

	if (!wall_ns || user_hz <= 0 || b->busy_ticks < a->busy_ticks)
		return -1.0;
	busy_ns = (double)(b->busy_ticks - a->busy_ticks) * 1e9 / (double)user_hz;
	other_ns = busy_ns - (double)program_cpu_ns;
	return other_ns > 0.0 ? other_ns / (double)wall_ns : 0.0;
}
