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
static hwloc_topology_t plugins_anchor;
static void xml_import_env(void)
{
	setenv("HWLOC_LIBXML_IMPORT", "0", 1);
	/* hwloc dlopens its plugins (hwloc_gl with libX11, hwloc_opencl...) when the first topology
	 * is initialised and dlcloses them when the last is destroyed: one topology kept for the
	 * process keeps them loaded once (re-loading them for each trace was half of what reading
	 * a trace cost in test_corrupt). It is never loaded, only initialised. */
	if (hwloc_topology_init(&plugins_anchor) != 0)
		plugins_anchor = NULL;
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

/* The text of a file (len == 0: xml is its path) or of the buffer xml[0..len): malloc'ed and
 * NUL-terminated in *text, at most 64 MiB of it. Returns its length, or -1 (*text NULL). */
static long xml_text(const char *xml, size_t len, char **text)
{
	FILE *f;
	size_t n = 0, cap = 1 << 16;
	char *buf;

	*text = NULL;
	if (len) {
		if (!(buf = malloc(len + 1)))
			return -1;
		memcpy(buf, xml, len);
		buf[len] = '\0';
		*text = buf;
		return (long)strnlen(buf, len);
	}
	if (!(f = fopen(xml, "rb")))
		return -1;
	buf = malloc(cap + 1);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0 || n == (size_t)64 << 20)
			break;
		if (n == cap) {
			char *b = cap < (size_t)32 << 20 ? realloc(buf, 2 * cap + 1) : NULL;
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	buf[n] = '\0';
	*text = buf;
	return (long)n;
}

/* Why hwloc refused an XML that did not crash it (it says only EINVAL; lstopo prints the reason
 * on stderr): not XML, a root element other than <topology>, an XML version newer than this
 * hwloc reads (hwloc 3.0 writes version="3.0"; hwloc 2.x reads "2.x" and "1.x"), no object in
 * the topology, or else a malformed XML. One line into why. */
static void xml_diagnose(const char *xml, size_t len, char *why, size_t whysize)
{
	char *text, *p, *end, name[32], ver[16] = "";
	unsigned api = hwloc_get_api_version();
	size_t k = 0;

	if (xml_text(xml, len, &text) < 0) {
		snprintf(why, whysize, "hwloc cannot load the topology XML: %s", strerror(errno));
		return;
	}
	p = text;
	for (;;) { /* the prolog: whitespace, <?xml ...?>, <!DOCTYPE ...>, <!-- ... --> */
		p += strspn(p, " \t\r\n");
		if (strncmp(p, "\xef\xbb\xbf", 3) == 0)
			p += 3;
		else if (strncmp(p, "<?", 2) == 0 && (end = strstr(p, "?>")))
			p = end + 2;
		else if (strncmp(p, "<!--", 4) == 0 && (end = strstr(p, "-->")))
			p = end + 3;
		else if (strncmp(p, "<!", 2) == 0 && (end = strchr(p, '>')))
			p = end + 1;
		else
			break;
	}
	if (*p != '<') {
		snprintf(why, whysize, "not XML: no element where the topology should start");
		goto out;
	}
	for (p++; *p && !strchr(" \t\r\n/>", *p) && k + 1 < sizeof(name); p++)
		name[k++] = *p;
	name[k] = '\0';
	if (strcmp(name, "topology") != 0) {
		snprintf(why, whysize, "not an hwloc topology: the root element is <%s>, not <topology>",
			 name);
		goto out;
	}
	end = strchr(p, '>');
	{
		char *v = strstr(p, "version=\"");
		if (v && (!end || v < end))
			sscanf(v + 9, "%15[^\"]", ver);
	}
	if (ver[0] && (unsigned)atoi(ver) > api >> 16) {
		snprintf(why, whysize, "hwloc XML version %s is newer than this hwloc %u reads (up to "
			 "%u.x): export the topology with hwloc %u's lstopo --of xml", ver, api >> 16,
			 api >> 16, api >> 16);
		goto out;
	}
	if (!end || !strstr(end, "<object")) {
		snprintf(why, whysize, "the topology is empty: no object (lstopo --of xml writes a "
			 "Machine object and its children)");
		goto out;
	}
	snprintf(why, whysize, "hwloc cannot parse the topology XML (malformed or cut short; "
		 "lstopo -i FILE says where)");
out:
	free(text);
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
		xml_diagnose(xml, len, why, whysize);
	return -1;
}

/* XML buffers a child has loaded, so the same topology is checked once per process: every trace
 * of a sweep, a job's ranks and pmanalyze -j's traces carry their machine's XML, usually the same
 * text (a fork and two hwloc loads per trace was half the cost of reading 8,000 damaged traces in
 * test_corrupt). The texts themselves are kept and compared, not a hash of them. */
#define XML_CHECKED_MAX 4
static struct { char *xml; size_t len; } xml_checked[XML_CHECKED_MAX];
static unsigned xml_checked_next;
static pthread_mutex_t xml_checked_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 when the buffer xml (len bytes) is one a child already loaded */
static int xml_was_checked(const char *xml, size_t len)
{
	int hit = 0;

	pthread_mutex_lock(&xml_checked_lock);
	for (unsigned i = 0; i < XML_CHECKED_MAX && !hit; i++)
		hit = xml_checked[i].xml && xml_checked[i].len == len &&
		      memcmp(xml_checked[i].xml, xml, len) == 0;
	pthread_mutex_unlock(&xml_checked_lock);
	return hit;
}

/* remembers the buffer xml (len bytes) as loaded by a child, replacing the oldest one; without
 * memory it is simply checked again next time */
static void xml_mark_checked(const char *xml, size_t len)
{
	char *copy = malloc(len);

	if (!copy)
		return;
	memcpy(copy, xml, len);
	pthread_mutex_lock(&xml_checked_lock);
	free(xml_checked[xml_checked_next].xml);
	xml_checked[xml_checked_next].xml = copy;
	xml_checked[xml_checked_next].len = len;
	xml_checked_next = (xml_checked_next + 1) % XML_CHECKED_MAX;
	pthread_mutex_unlock(&xml_checked_lock);
}

/* Loads hwloc XML from a buffer (len > 0) or a file (len == 0, checked in a child every time: the
 * file may change). */
static int machine_xml(struct pma_machine *m, const char *xml, size_t len, char *why, size_t whysize)
{
	static pthread_once_t env_once = PTHREAD_ONCE_INIT;
	hwloc_topology_t topo;

	pthread_once(&env_once, xml_import_env);
	if (!(len && xml_was_checked(xml, len))) {
		if (xml_loads_in_child(xml, len, why, whysize) != 0)
			return -1;
		if (len)
			xml_mark_checked(xml, len);
	}
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

char *pma_machine_summary(const struct pma_machine *m, char *buf, size_t size)
{
	snprintf(buf, size, "%u package%s of %u cores, %u cores, %u PUs, %u NUMA node%s", m->sockets,
		 m->sockets == 1 ? "" : "s", m->c, m->cores, m->pus, m->numa_nodes,
		 m->numa_nodes == 1 ? "" : "s");
	return buf;
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
