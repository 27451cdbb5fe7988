/* SPDX-License-Identifier: MIT */
/* wakecost.h: the machine's wake-up cost, measured by a futex ping-pong between pairs of CPUs
 * chosen from hwloc's view of the machine (pmcollect --calibrate and --calibrate-wake; META
 * "wake_cost", formats/FORMAT.md). The analyzer charges it to the wake edges of its n-core replay
 * (analyzer/studies/wakecharge.h, docs/model.md "Wake-up costs"). */
#ifndef PMC_WAKECOST_H
#define PMC_WAKECOST_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <hwloc.h>

#include "pm_cli.h"

/* The pair classes, nearest first: both threads on one CPU; SMT siblings of one core; two cores
 * sharing a cache; two cores of one package that share no cache; two packages. */
enum pmc_wake_class { PMC_WAKE_SAME_CPU = 0, PMC_WAKE_SMT, PMC_WAKE_SHARED_CACHE,
		      PMC_WAKE_SAME_PACKAGE, PMC_WAKE_OTHER_PACKAGE, PMC_WAKE_NCLASSES };

/* The class's name in META "wake_cost.pairs[].class". */
const char *pmc_wake_class_name(enum pmc_wake_class c);

/* One measured pair: the one-way wake latency (futex_wake to the woken thread running again, the
 * waker's system call included) of `batches` batches of `round_trips` round trips each, each
 * round trip timed (half of it is one wake); a batch's figure is the median of its round trips. */
struct pmc_wake_pair {
	enum pmc_wake_class cls;
	int cpu_a, cpu_b;        /* OS CPU numbers */
	uint32_t batches, round_trips;
	double median_ns;        /* median of the batches' figures */
	double min_ns, max_ns;   /* the lowest and highest batch figure: the spread */
	double cpu_ns;           /* CPU time of both threads per one-way wake, the median of the
				    batches' means (CLOCK_THREAD_CPUTIME_ID): the part of a wake that
				    is work of the two CPUs, not waiting */
};

struct pmc_wakecost {
	size_t n;                /* measured pairs, one per class the CPUs offer, nearest first */
	struct pmc_wake_pair pairs[PMC_WAKE_NCLASSES];
};

/* Batches and round trips per pair of pmcollect's calibration: about 0.5 s at 50 us per wake. */
#define PMC_WAKE_BATCHES 9u
#define PMC_WAKE_ROUND_TRIPS 500u

/* Measures one pair per class among the CPUs in cpus (OS numbers; the first is the pairs' first
 * CPU): the same CPU always, then for each farther class the first CPU of that class in topo,
 * the session's loaded topology of this machine (borrowed). Pins two threads of the calling
 * process for the time of the measurement (about batches * round_trips * 2 wake latencies per
 * pair). Returns 0, or -1 with why (no CPU, a thread could not be pinned or started). */
int pmc_wakecost_measure(hwloc_topology_t topo, const struct pm_intlist *cpus, uint32_t batches,
			 uint32_t round_trips, struct pmc_wakecost *out, char *why, size_t whysize);

/* META "wake_cost" (formats/FORMAT.md): {"method": "futex ping-pong", "unit": "ns one-way",
 * "pairs": [{"class", "cpus": [a, b], "batches", "round_trips", "median_ns", "min_ns",
 * "max_ns"}...]}. Returns a new object, NULL when memory runs out. */
cJSON *pmc_wakecost_to_json(const struct pmc_wakecost *w);

/* pmcollect's calibration: measures the pairs among cpus (PMC_WAKE_BATCHES of
 * PMC_WAKE_ROUND_TRIPS) into *w and adds META "wake_cost" to meta. Returns 0, or -1 with why. */
int pmc_wakecost_meta(cJSON *meta, hwloc_topology_t topo, const struct pm_intlist *cpus,
		      struct pmc_wakecost *w, char *why, size_t whysize);

/* One line for the user: "same_cpu CPUs 0,0 1.52 us (1.31-1.70); shared_cache CPUs 0,1 ...",
 * medians and the batches' range in microseconds (truncated to size). */
void pmc_wakecost_describe(const struct pmc_wakecost *w, char *buf, size_t size);

#endif
