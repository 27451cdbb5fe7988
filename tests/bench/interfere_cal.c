/* SPDX-License-Identifier: MIT */
/* interfere_cal.c: calibrates this machine for active interference (collector/interfere/interfere_cal.h)
 * and prints BW1, B, the capacity-left table and the orthogonality check, until pmcollect has
 * --calibrate-interference (issue 15). Built by `make interfere-cal` into build/bench/.
 * usage: interfere_cal [-p PROBE_CPU] [-i INTERFERER_CPUS] [-o MACHINE_FILE] [-a ACCESSES] [-r REPS]
 *                      [-d DRAM_REFERENCE_MB] [-T]
 *   defaults: -p 0, -i from pmc_interfere_place (fails with its reason if hwloc shows none);
 *   LLC miss counters where PAPI counts them, -T: the timing methods only (to compare the two on
 *   a machine with counters, docs/interference.md). */
#include <getopt.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "interfere.h"
#include "interfere_cal.h"
#include "pm_cli.h"

#define MB (1024.0 * 1024.0)

int main(int argc, char **argv)
{
	struct pmc_cal_params p;
	struct pmc_interference_cal cal;
	hwloc_topology_t topo;
	char why[512];
	const char *icpus = NULL, *out = NULL;
	int probe = 0, cpus[PMC_CAL_MAX_K], n = 0, c;
	long accesses = 0, reps = 0, dram_mb = 0;
	int timing_only = 0;

	pm_cli_set_prog("interfere_cal");
	while ((c = getopt(argc, argv, "p:i:o:a:r:d:T")) != -1) {
		long v;
		switch (c) {
		case 'p':
			if (pm_cli_parse_long(optarg, 0, 4095, &v) < 0)
				return pm_cli_usage_error(NULL, "bad -p '%s'", optarg);
			probe = (int)v;
			break;
		case 'i': icpus = optarg; break;
		case 'o': out = optarg; break;
		case 'T': timing_only = 1; break;
		case 'a':
			if (pm_cli_parse_long(optarg, 1000, 1L << 30, &accesses) < 0)
				return pm_cli_usage_error(NULL, "bad -a '%s'", optarg);
			break;
		case 'd':
			if (pm_cli_parse_long(optarg, 1, 65536, &dram_mb) < 0)
				return pm_cli_usage_error(NULL, "bad -d '%s'", optarg);
			break;
		case 'r':
			if (pm_cli_parse_long(optarg, 1, 15, &reps) < 0)
				return pm_cli_usage_error(NULL, "bad -r '%s'", optarg);
			break;
		default:
			return pm_cli_usage_error(NULL, "usage: interfere_cal [-p CPU] [-i CPUS] [-o FILE] [-a N] [-r R] [-d MB] [-T]");
		}
	}
	if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
		pm_cli_report("error", "cannot read the topology (hwloc)");
		return 1;
	}
	if (icpus) {
		struct pm_intlist l;
		if (pm_intlist_parse(icpus, 0, 4095, &l, why, sizeof(why)) < 0 || l.n > PMC_CAL_MAX_K)
			return pm_cli_usage_error(NULL, "bad -i '%s'", icpus);
		for (size_t j = 0; j < l.n; j++)
			cpus[n++] = (int)l.v[j];
		pm_intlist_free(&l);
	} else {
		uint32_t probe_cpu = (uint32_t)probe;
		const struct pm_intlist probe_list = { .v = &probe_cpu, .n = 1 };

		n = pmc_interfere_place(topo, &probe_list, NULL, cpus, PMC_CAL_MAX_K, why, sizeof(why));
		if (n < 0) {
			pm_cli_report("error", "%s", why);
			return 1;
		}
	}
	pmc_cal_params_default(&p, probe, cpus, (size_t)n);
	if (accesses)
		p.accesses = (uint64_t)accesses;
	if (reps)
		p.probe_reps = (unsigned)reps;
	if (dram_mb)
		p.dram_ref_bytes = (uint64_t)dram_mb << 20;
	if (timing_only)
		p.counters = 0;
	pmc_cal_params_topology(&p, topo);
	if (pmc_cal_run(topo, &p, &cal, why, sizeof(why)) < 0) {
		pm_cli_report("error", "%s", why);
		return 1;
	}
	printf("topology: %s\ncapacity method: %s\nBW1 method: %s\n", cal.topology,
	       cal.method == PMC_CAL_TIMING ? "timing" : "counters",
	       cal.bw1_method == PMC_CAL_TIMING ? "misses = accesses" : "counted LLC misses");
	if (cal.counters_why[0])
		printf("counters not used: %s\n", cal.counters_why);
	printf("BW1 = %.2f GB/s (one BWThr on CPU %d)\n", cal.BW1_bytes_per_s / 1e9, cpus[0]);
	printf("B   = %.2f GB/s (triad on CPU %d and the interferer CPUs)\n", cal.B_bytes_per_s / 1e9, probe);
	for (size_t k = 0; k < cal.ncap; k++) {
		const struct pmc_cal_capacity *r = &cal.cap[k];
		printf("k=%u CSThrs: t_L2 %.1f ns, t_DRAM %.1f ns, capacity left %s%.1f MB\n", r->k, r->t_l2_ns,
		       r->t_dram_ns, r->valid ? "" : "(no point in range) ", r->C_bytes / MB);
		for (size_t i = 0; i < r->npoints; i++)
			printf("    F %7.1f MB  %6.1f ns/access  miss rate %5.3f  h %.3f  C_eff %6.1f MB\n",
			       r->points[i].F_bytes / MB, r->points[i].ns_per_access, r->points[i].miss_rate,
			       r->points[i].hit_rate, r->points[i].C_eff_bytes / MB);
	}
	for (size_t j = 0; j < cal.north; j++)
		printf("orthogonality: %zu BWThrs, capacity %.1f MB\n", j, cal.orth_C_bytes[j] / MB);
	printf("orthogonal BWThrs (capacity within 10%%): %d\n", cal.orth_bwthrs);
	if (out && pmc_cal_write(out, &cal, why, sizeof(why)) < 0) {
		pm_cli_report("error", "%s", why);
		return 1;
	}
	hwloc_topology_destroy(topo);
	return 0;
}
