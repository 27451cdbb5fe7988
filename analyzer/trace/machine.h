/* SPDX-License-Identifier: MIT */
/* machine.h: a machine's shape for the memory model (sockets, cores per socket, NUMA nodes), from
 * a trace's META topology or an hwloc XML file (hwloc 2.x, hwloc_topology_set_xml). */
#ifndef PMA_MACHINE_H
#define PMA_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "records.h"

/* A machine's shape as the memory model sees it. */
struct pma_machine {
	uint32_t sockets;       /* packages (1 when hwloc shows none) */
	uint32_t c;             /* cores per socket (cores / sockets) */
	uint32_t cores, pus;
	uint32_t numa_nodes;    /* >= 1 */
	void *topo;             /* hwloc_topology_t when hwloc XML was available, else NULL */
	char source[300];       /* where it came from: "trace 'x.zst'" or "hwloc XML 'm.xml'" */
};

/* The machine recorded in a trace's META "topology" (meta->topo; path names the trace in source
 * and messages): hwloc's XML export loaded with hwloc_topology_set_xmlbuffer when present, else
 * the counts packages/cores/pus/numa_nodes. Returns 0, or -1 with a reason when META has no
 * topology. Free m with pma_machine_free. */
int pma_machine_from_meta(const struct pma_meta *meta, const char *path, struct pma_machine *m,
			  char *why, size_t whysize);

/* --machine FILE: an hwloc XML file (`lstopo --of xml`, detected by a leading '<') through
 * hwloc_topology_set_xml, or else a pmtrace whose META topology is used. Returns 0, or -1 with a
 * one-line reason (unreadable, not XML and not a trace, hwloc refused the XML). */
int pma_machine_load(const char *path, struct pma_machine *m, char *why, size_t whysize);
void pma_machine_free(struct pma_machine *m);

/* "2 packages of 18 cores, 36 cores, 72 PUs, 2 NUMA nodes": m's shape in one line, written to
 * buf (size bytes, cut to fit). Returns buf. */
char *pma_machine_summary(const struct pma_machine *m, char *buf, size_t size);

/* CPUs of the cpulist `cpus` on the package that holds most of them (n_1 of eq. 9-10): counted
 * with the hwloc topology when m has one, else min(n, c) (compact). */
uint32_t pma_machine_first_socket(const struct pma_machine *m, const char *cpus, uint32_t n);

/* Packages that hold at least one CPU of the cpulist `cpus` (n CPUs): counted with the hwloc
 * topology when m has one; else 1 on a one-socket machine, and 0 (unknown: the placement is not
 * recorded) on several sockets without a topology. */
uint32_t pma_machine_sockets_used(const struct pma_machine *m, const char *cpus, uint32_t n);

#endif
