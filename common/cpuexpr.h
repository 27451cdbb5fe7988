/* SPDX-License-Identifier: MIT */
/* cpuexpr.h: LIKWID-style CPU expressions ("S0:0-3", "E:N:8:1:2", "S:scatter:4", "M0:0-1@M1:0-1",
 * "0-3,8") turned into OS CPU numbers on an hwloc topology, for --cpus, --runs and the other CPU
 * options. The grammar and what differs from LIKWID are in docs/cpu-expressions.md. */
#ifndef PM_CPUEXPR_H
#define PM_CPUEXPR_H

#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "pm_cli.h"

/* The CPUs an expression selects. */
struct pm_cpuexpr {
	uint32_t *cpus;         /* OS CPU numbers (hwloc PU os_index), in the expression's order:
				   the order in which likwid-pin would pin threads 0, 1, 2, ... */
	size_t ncpus;           /* entries in cpus; >= 1, no number twice */
	struct pm_intlist set; /* the same CPUs sorted, for cpulist output and affinity masks */
};

/* Parses expr against topo (loaded by the caller: the live machine, or an XML file with
 * hwloc_topology_set_xml; only its allowed PUs are CPUs) into *out. The grammar
 * (docs/cpu-expressions.md; LIKWID's likwid-pin(1) "CPU EXPRESSION" and its cpustring.c):
 *   expr    := part ('@' part)*            parts concatenated in order
 *   part    := cpulist                     OS CPU numbers as pm_intlist_parse ("0-3,8", "1-7:2"),
 *                                          kept in the order written
 *            | DOM                         all CPUs of DOM in its hardware-thread order
 *            | ['L:'] DOM ':' indexlist    logical indices in DOM, physical cores first
 *            | 'L:' indexlist              the same in N
 *            | 'E:' DOM [':' COUNT [':' CHUNK ':' STRIDE [':' OFFSET]]]
 *            | KIND ':scatter' [':' COUNT]  round robin over the domains of KIND, physical cores first
 *            | KIND ':balanced' [':' COUNT] COUNT split evenly over the domains of KIND
 *   DOM     := 'N' | 'S'# (package) | 'D'# (die) | 'C'# (last-level cache) | 'M'# (NUMA node)
 *   KIND    := 'N' | 'S' | 'D' | 'C' | 'M'
 * Domain numbers are hwloc logical indices (likwid-topology's numbering). A domain's
 * hardware-thread order is core by core with each core's SMT threads together (LIKWID's
 * processorList); "physical cores first" is the first thread of every core, then the second, ...
 * NUMA domains (M#, M:scatter, M:balanced) take their cores by each core's lowest OS CPU number;
 * C# is one domain per last-level cache instance, also where that cache holds one core (both as
 * likwid-pin 5.2.2: tests/unit/test_likwid_compat.c).
 * Unlike LIKWID, an index past the end of a domain, a COUNT larger than what is there, and a CPU
 * selected twice are errors, not wrapped around or repeated.
 * On success returns 0 and fills *out (free with pm_cpuexpr_free). On error returns -1, leaves
 * *out empty and writes a one-line reason into why (size whysize), e.g.
 * "CPU 3 is selected twice, by 'S0:3' and by '0-3'" or "in 'S2:0': 'S2': the topology has
 * S0-S1". */
int pm_cpuexpr_parse(hwloc_topology_t topo, const char *expr, struct pm_cpuexpr *out,
		      char *why, size_t whysize);

/* Frees what pm_cpuexpr_parse allocated and empties *e; accepts NULL and an empty struct. */
void pm_cpuexpr_free(struct pm_cpuexpr *e);

#endif
