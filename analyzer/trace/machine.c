/* SPDX-License-Identifier: MIT */
/* machine.c: machines for the memory model, from hwloc XML (a trace's META or a file). */
#include "machine.h"

#include <errno.h>
#include <fcntl.h>
#include <hwloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze.h"

/* Counts from a loaded hwloc topology. */
static void machine_counts(struct pma_machine *m, hwloc_topology_t topo)
{
	int pk = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

	m->sockets = pk > 0 ? (uint32_t)pk : 1;
	m->cores = (uint32_t)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	m->pus = (uint32_t)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (!m->cores)
		m->cores = m->pus;
	m->numa_nodes = nn > 0 ? (uint32_t)nn : 1;
	m->c = m->cores / m->sockets ? m->cores / m->sockets : 1;
	m->topo = topo;
}

/* The XML comes from a trace or a file, i.e. from anywhere: hwloc's own minimal parser rather
 * than its libxml2 plugin, which leaks on malformed input (fuzz_trace found it) and is more code
 * to trust (hwloc-bind(1) documents HWLOC_LIBXML_IMPORT). Set once, before any thread's hwloc
 * call reads it: pmanalyze -j loads traces in worker threads, and setenv beside getenv races. */
static void xml_import_env(void)
{
	setenv("HWLOC_LIBXML_IMPORT", "0", 1);
}

static int hwloc_xml_load(hwloc_topology_t *topo, const char *xml, size_t len)
{
	int rc;

	if (hwloc_topology_init(topo) != 0)
		return -1;
	rc = len ? hwloc_topology_set_xmlbuffer(*topo, xml, (int)len) : hwloc_topology_set_xml(*topo, xml);
	if (rc == 0)
		rc = hwloc_topology_load(*topo);
	if (rc != 0) {
		int e = errno;
		hwloc_topology_destroy(*topo);
		errno = e;
	}
	return rc;
}

/* hwloc 2.9 itself crashes on some malformed XML: a fuzzed trace (tests/fuzz/corpus/trace/0977...)
 * makes hwloc_topology_load, and lstopo -i, die of SIGSEGV in hwloc_bitmap_compare_first. So
 * the XML is first loaded in a child process: only when the child loads it and exits 0 does
 * pmanalyze load it too (hwloc is deterministic). The child writes nothing (stderr to /dev/null:
 * hwloc's own warnings) and dies after 10 s (alarm) if hwloc hangs. glibc's fork keeps malloc
 * usable in the child of a multithreaded process; the workers of pmanalyze -j do not print.
 * Returns 0 when the child loaded it, -1 with a reason otherwise (hwloc refused it, crashed, or
 * no child could be started). */
static int xml_loads_in_child(const char *xml, size_t len, char *why, size_t whysize)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		snprintf(why, whysize, "cannot check the topology XML in a child process: fork: %s",
			 strerror(errno));
		return -1;
	}
	if (pid == 0) {
		hwloc_topology_t topo;
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		alarm(10);
		_exit(hwloc_xml_load(&topo, xml, len) == 0 ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, whysize, "cannot check the topology XML: waitpid: %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(why, whysize, "hwloc cannot load the topology XML: it %s on it (signal %d, %s; "
			 "a malformed XML)", WTERMSIG(status) == SIGALRM ? "hung" : "crashed",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(why, whysize, "hwloc cannot load the topology XML: Invalid argument");
	return -1;
}

/* Loads hwloc XML from a buffer (len > 0) or a file (len == 0). */
static int machine_xml(struct pma_machine *m, const char *xml, size_t len, char *why, size_t whysize)
{
	static pthread_once_t env_once = PTHREAD_ONCE_INIT;
	hwloc_topology_t topo;

	pthread_once(&env_once, xml_import_env);
	if (xml_loads_in_child(xml, len, why, whysize) != 0)
		return -1;
	if (hwloc_xml_load(&topo, xml, len) != 0) {
		snprintf(why, whysize, "hwloc cannot load the topology XML: %s", strerror(errno));
		return -1;
	}
	machine_counts(m, topo);
	return 0;
}

/* a recorded count as a uint32_t: dflt below 1, saturated at UINT32_MAX */
static uint32_t count(double v, uint32_t dflt)
{
	return v >= 1 ? v < UINT32_MAX ? (uint32_t)v : UINT32_MAX : dflt;
}

int pma_machine_from_meta(const struct pma_meta *meta, const char *path, struct pma_machine *m,
			  char *why, size_t whysize)
{
	const struct pma_topology *topo = &meta->topo;
	const char *xml = topo->hwloc_xml;

	memset(m, 0, sizeof(*m));
	snprintf(m->source, sizeof(m->source), "trace '%s'", path);
	if (xml && machine_xml(m, xml, strlen(xml) + 1, why, whysize) == 0)
		return 0;
	if (!topo->present || topo->pus < 1) {
		snprintf(why, whysize, "'%s' records no machine topology", path);
		return -1;
	}
	m->sockets = count(topo->packages, 1);
	m->pus = count(topo->pus, 1);
	m->cores = count(topo->cores, m->pus);
	m->numa_nodes = count(topo->numa_nodes, 1);
	m->c = m->cores / m->sockets ? m->cores / m->sockets : 1;
	return 0;
}

int pma_machine_load(const char *path, struct pma_machine *m, char *why, size_t whysize)
{
	FILE *f = fopen(path, "rb");
	int ch;

	memset(m, 0, sizeof(*m));
	if (!f) {
		snprintf(why, whysize, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((ch = fgetc(f)) == ' ' || ch == '\n' || ch == '\r' || ch == '\t')
		;
	fclose(f);
	if (ch == '<') {
		char e[300];
		if (machine_xml(m, path, 0, e, sizeof(e)) < 0) {
			snprintf(why, whysize, "'%s': %s", path, e);
			return -1;
		}
		snprintf(m->source, sizeof(m->source), "hwloc XML '%s'", path);
		return 0;
	} else {
		struct pma_trace t;
		char e[512];
		int rc = pma_trace_load(&t, path, 0, e, sizeof(e));
		if (rc < 0)
			snprintf(why, whysize, "--machine '%s' is neither hwloc XML nor a readable trace: %s",
				 path, e);
		else
			rc = pma_machine_from_meta(&t.meta, path, m, why, whysize);
		pma_trace_free(&t);
		return rc < 0 ? -1 : 0;
	}
}

void pma_machine_free(struct pma_machine *m)
{
	if (m && m->topo)
		hwloc_topology_destroy((hwloc_topology_t)m->topo);
	if (m)
		m->topo = NULL;
}

uint32_t pma_machine_first_socket(const struct pma_machine *m, const char *cpus, uint32_t n)
{
	hwloc_topology_t topo = (hwloc_topology_t)m->topo;
	hwloc_bitmap_t set;
	uint32_t best = 0;

	if (!topo || !cpus || !cpus[0] || !(set = hwloc_bitmap_alloc()))
		return n < m->c ? n : m->c;
	if (hwloc_bitmap_list_sscanf(set, cpus) == 0) {
		for (hwloc_obj_t p = NULL; (p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p));) {
			hwloc_bitmap_t and = hwloc_bitmap_alloc();
			if (!and)
				break;
			hwloc_bitmap_and(and, set, p->cpuset);
			if ((uint32_t)hwloc_bitmap_weight(and) > best)
				best = (uint32_t)hwloc_bitmap_weight(and);
			hwloc_bitmap_free(and);
		}
	}
	hwloc_bitmap_free(set);
	/* no package objects: one socket holds them all */
	return best ? best : n;
}


uint32_t pma_machine_sockets_used(const struct pma_machine *m, const char *cpus, uint32_t n)
{
	hwloc_topology_t topo = (hwloc_topology_t)m->topo;
	hwloc_bitmap_t set, and;
	uint32_t used = 0;

	if (!topo || !cpus || !cpus[0] || !n)
		return m->sockets <= 1 && n ? 1 : 0;
	set = hwloc_bitmap_alloc();
	and = hwloc_bitmap_alloc();
	if (set && and && hwloc_bitmap_list_sscanf(set, cpus) == 0)
		for (hwloc_obj_t p = NULL; (p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p));) {
			hwloc_bitmap_and(and, set, p->cpuset);
			used += !hwloc_bitmap_iszero(and);
		}
	hwloc_bitmap_free(set);
	hwloc_bitmap_free(and);
	/* no package objects: one socket holds them all */
	return used ? used : m->sockets <= 1 ? 1 : 0;
}
