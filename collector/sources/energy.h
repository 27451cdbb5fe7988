/* SPDX-License-Identifier: MIT */
/* energy.h: energy counters of the machine (powercap RAPL zones, else the perf power PMU) with
 * wrap-corrected 64-bit accumulation, and the machine's other load from /proc/stat. */
#ifndef PMC_ENERGY_H
#define PMC_ENERGY_H

#include <stddef.h>
#include <stdint.h>

/* The root that every /sys and /proc path of this module (and meta.c's cpufreq, schedtrace.c's
 * tracefs check) is read under:
 * the environment variable PMT_SYSFS_ROOT (read here and nowhere else), "" when unset, so tests
 * can run the real code on a fixture tree (tests/fixtures/sysfs/). The string is static: do not
 * free. */
const char *pmc_sysfs_root(void);

/* Where the energy readings come from. */
enum pmc_energy_source {
	PMC_ENERGY_NONE = 0,
	PMC_ENERGY_POWERCAP,   /* /sys/class/powercap/intel-rapl:* (Intel and AMD) */
	PMC_ENERGY_PERF,       /* perf_event_open on /sys/bus/event_source/devices/power */
};

#define PMC_ENERGY_MAX_ZONES 64

/* pmcollect reads the counters this often while a run goes on (the issue asks for at least once
 * a second: AMD's package counter wraps within minutes; FORMAT.md §5.8). */
#define PMC_ENERGY_PERIOD_NS 100000000u

/* One zone (powercap) or one event on one package (perf). */
struct pmc_energy_zone {
	char name[48];                /* powercap <zone>/name ("package-0", "core", "dram", "psys"),
	                               * or the perf event and its CPU ("energy-pkg@cpu0") */
	char id[48];                  /* powercap directory ("intel-rapl:0:1") or perf event name */
	uint64_t max_energy_range_uj; /* powercap max_energy_range_uj; 0 for perf (64-bit counter) */
	uint64_t last_raw;            /* last raw reading: energy_uj, or the perf count */
	uint64_t energy_uj;           /* accumulated since pmc_energy_open, wrap-corrected */
	uint64_t wraps;               /* how many times the counter wrapped */
	int gone;                     /* 1 once the zone disappeared (energy_uj keeps what it had) */
};

struct pmc_energy;

/* Wrap-corrected delta of a powercap counter that counts 0..max_uj and wraps (Linux powercap
 * sysfs doc, energy_uj and max_energy_range_uj): e1 >= e0 ? e1 - e0 : e1 + max_uj - e0. Read at
 * least once a second: AMD's package counter wraps within minutes, and two wraps between
 * readings cannot be told from one. When e0 > max_uj (a counter that does not respect its range)
 * the wrapped branch returns e1, the energy counted since the counter restarted. */
uint64_t pmc_energy_delta_uj(uint64_t e0_uj, uint64_t e1_uj, uint64_t max_uj);

/* Finds the energy counters under pmc_sysfs_root(): every powercap zone
 * sys/class/powercap/intel-rapl:<p>[:<z>] with a readable energy_uj (name, energy_uj and
 * max_energy_range_uj are read), else, when energy_uj is unreadable or there is no powercap, the
 * perf power PMU (sys/bus/event_source/devices/power: type, events/energy-* with their .scale and
 * .unit, one counter per CPU of its cpumask, i.e. per package). Takes the first reading.
 * Returns 0 and *out (free with pmc_energy_close). Returns -1 with the reason in why when there
 * is no source, naming each one that was tried, e.g. "no powercap (no
 * /sys/class/powercap/intel-rapl:* zone) and no perf power PMU
 * (/sys/bus/event_source/devices/power)", or "powercap energy_uj is readable by root only (Linux
 * >= 5.10) ...; perf: ... perf_event_paranoid is 2 ...". */
int pmc_energy_open(struct pmc_energy **out, char *why, size_t whysize);

/* Reads every zone once and adds the wrap-corrected delta since the previous reading to its
 * energy_uj; call it at least once a second (pmc_energy_delta_uj). A zone whose files vanish
 * (ENOENT, ENODEV: a driver unloaded, a CPU package offlined) is marked gone and keeps the
 * energy it had; that is data, not an error. Returns the number of zones still counting (0 when
 * all are gone), or -1 with a reason on any other read error. */
int pmc_energy_sample(struct pmc_energy *e, char *why, size_t whysize);

/* Source, number of zones and the i-th zone (i < count; the pointer lives as long as e). */
enum pmc_energy_source pmc_energy_source(const struct pmc_energy *e);
size_t pmc_energy_count(const struct pmc_energy *e);
const struct pmc_energy_zone *pmc_energy_zone(const struct pmc_energy *e, size_t i);

/* What a zone measures, from its name: "package" (powercap package-N, perf energy-pkg), "core"
 * (core, energy-cores: inside the package), "uncore" (uncore, energy-gpu: inside the package),
 * "dram" (dram, energy-ram: outside the package), "psys" (psys, energy-psys: the platform,
 * which includes the packages) or "other". Sources: Linux powercap sysfs zone names
 * (drivers/powercap/intel_rapl_common.c), perf's power PMU event names (arch/x86/events/rapl.c).
 * A run's total is package + dram; core is the part of the package that scales with busy cores. */
const char *pmc_energy_zone_kind(const char *name);

/* Closes the perf descriptors and frees e; NULL is accepted. */
void pmc_energy_close(struct pmc_energy *e);

/* The machine-wide "cpu" line of /proc/stat (proc(5)), in USER_HZ ticks. */
struct pmc_stat_cpu {
	uint64_t busy_ticks;   /* user + nice + system + irq + softirq (fields 1, 2, 3, 6, 7);
	                        * guest time is already inside user and nice */
	uint64_t idle_ticks;   /* idle + iowait (fields 4, 5) */
	uint64_t steal_ticks;  /* field 8: taken by the hypervisor */
};

/* Parses the first line of a /proc/stat buffer of len bytes ("cpu  user nice system idle iowait
 * irq softirq steal ..."; kernels before 2.6.11 lack steal, which then reads 0). Returns 0, or
 * -1 when the line is not there or a field is not a number. */
int pmc_parse_proc_stat(const char *buf, size_t len, struct pmc_stat_cpu *out);

/* Reads <root>/proc/stat (pmc_sysfs_root) and parses it. Returns 0, or -1 with a reason. */
int pmc_read_proc_stat(struct pmc_stat_cpu *out, char *why, size_t whysize);

/* The machine's other load during a run, in CPUs (average number of CPUs busy with work that is
 * not the program's): (busy ticks between a and b, in ns at user_hz ticks a second, minus the
 * program's own CPU time program_cpu_ns) / wall_ns, clamped at 0 (tick rounding). Package
 * energy includes every process on the package, so the analyzer says how far to trust a reading
 * from this. Returns -1.0 when wall_ns or user_hz is 0 or b is older than a. */
double pmc_other_load_cpus(const struct pmc_stat_cpu *a, const struct pmc_stat_cpu *b,
			   uint64_t program_cpu_ns, uint64_t wall_ns, long user_hz);

#endif
