/* SPDX-License-Identifier: MIT */
/* perfswitch.c: the program's context switches from perf_event_open, for users without tracefs. */
#include "perfswitch.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pm_sysfs.h"
#include "pm_util.h"

/* events per PSWITCH record, as schedtrace.c splits its SCHED records */
#define BATCH_EVENTS 16384u

struct cpubuf {
	int fd;
	uint16_t cpu;
	void *map;           /* 1 metadata page + PMC_PSWITCH_PAGES data pages */
	size_t map_bytes;
	uint64_t lost;       /* lost records not yet written in a PSWITCH record's missed field */
};

struct pmc_pswitch {
	uint32_t *online;
	size_t nonline;
	struct cpubuf *buf;
	size_t nbuf;
	int *extra;          /* pmc_pswitch_add_thread: events writing into buf[]'s buffers */
	size_t nextra, extra_cap;
	uint32_t run_id;
	struct pmt_sched_event *ev; /* BATCH_EVENTS */
	struct pmc_pswitch_stats st;
};

static long perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The event of FORMAT.md §5.10. */
static void fill_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->context_switch = 1;
	a->task = 1;
	a->inherit = 1;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 0;
}

static const char *procfs_root(void)
{
	const char *r = getenv("PMT_PROCFS_ROOT");

	return r && *r ? r : "/proc";
}

int pmc_pswitch_probe(int cpu, char *why, size_t whysize)
{
	struct perf_event_attr a;
	char path[512], buf[32];
	int paranoid = -100;
	long fd;

	snprintf(path, sizeof(path), "%s/sys/kernel/perf_event_paranoid", procfs_root());
	if (pm_sysfs_read_line(path, buf, sizeof(buf)) == 0)
		paranoid = atoi(buf);
	if (paranoid >= 3 && geteuid() != 0) {
		pm_set_why(why, whysize, "kernel.perf_event_paranoid is %d (%s): perf_event_open is not "
			   "permitted to users (it needs 2 or less, or CAP_PERFMON)", paranoid, path);
		return PMT_E_IO;
	}
	fill_attr(&a);
	fd = perf_open(&a, 0, cpu);
	if (fd < 0) {
		int e = errno;
		if (paranoid != -100)
			pm_set_why(why, whysize, "perf_event_open of a context-switch event: %s "
				   "(kernel.perf_event_paranoid is %d)", strerror(e), paranoid);
		else
			pm_set_why(why, whysize, "perf_event_open of a context-switch event: %s "
				   "(no %s)", strerror(e), path);
		return PMT_E_IO;
	}
	close((int)fd);
	return 0;
}

int pmc_pswitch_new(struct pmc_pswitch **out, const struct pm_intlist *online)
{
	struct pmc_pswitch *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return PMT_E_NOMEM;
	p->online = calloc(online->n ? online->n : 1, sizeof(*p->online));
	p->buf = calloc(online->n ? online->n : 1, sizeof(*p->buf));
	p->ev = calloc(BATCH_EVENTS, sizeof(*p->ev));
	if (!p->online || !p->buf || !p->ev) {
		pmc_pswitch_free(p);
		return PMT_E_NOMEM;
	}
	memcpy(p->online, online->v, online->n * sizeof(*p->online));
	p->nonline = online->n;
	*out = p;
	return 0;
}

int pmc_pswitch_session(struct pmc_pswitch **out, int mode, int sched_recorded,
			int sched_off_by_user, const struct pm_intlist *online, char *why,
			size_t whysize)
{
	int err;

	*out = NULL;
	if (mode == 0) {
		pm_set_why(why, whysize, "turned off with --no-perf-switch");
		return 0;
	}
	if (mode < 0 && sched_recorded) {
		pm_set_why(why, whysize, "scheduler events are recorded (--perf-switch records both)");
		return 0;
	}
	if (mode < 0 && sched_off_by_user) {
		pm_set_why(why, whysize, "turned off with --no-sched (--perf-switch records them)");
		return 0;
	}
	err = pmc_pswitch_probe(-1, why, whysize);
	if (err == 0)
		err = pmc_pswitch_new(out, online);
	if (err == PMT_E_NOMEM)
		pm_set_why(why, whysize, "out of memory");
	return err;
}

static void close_all(struct pmc_pswitch *p)
{
	for (size_t i = 0; i < p->nextra; i++)
		close(p->extra[i]);
	p->nextra = 0;
	for (size_t i = 0; i < p->nbuf; i++) {
		if (p->buf[i].map)
			munmap(p->buf[i].map, p->buf[i].map_bytes);
		if (p->buf[i].fd >= 0)
			close(p->buf[i].fd);
	}
	p->nbuf = 0;
}

int pmc_pswitch_start(struct pmc_pswitch *p, pid_t pid, uint32_t run_id, const cpu_set_t *cpus,
		      char *why, size_t whysize)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = PMC_PSWITCH_PAGES;
	struct perf_event_attr a;

	close_all(p);
	memset(&p->st, 0, sizeof(p->st));
	p->run_id = run_id;
	fill_attr(&a);
	for (size_t i = 0; i < p->nonline; i++) {
		struct cpubuf *b = &p->buf[p->nbuf];
		int cpu = (int)p->online[i];
		long fd;
		if (cpus && !CPU_ISSET((size_t)cpu, cpus))
			continue;
		fd = perf_open(&a, pid, cpu);
		if (fd < 0) {
			pm_set_why(why, whysize, "perf_event_open for pid %d on CPU %d: %s", (int)pid,
				   cpu, strerror(errno));
			close_all(p);
			return PMT_E_IO;
		}
		b->fd = (int)fd;
		b->cpu = (uint16_t)cpu;
		b->lost = 0;
		do {
			b->map_bytes = (size_t)page * (1 + pages);
			b->map = mmap(NULL, b->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd,
				      0);
		} while (b->map == MAP_FAILED && (errno == EPERM || errno == ENOMEM) &&
			 (pages /= 2) >= PMC_PSWITCH_PAGES_MIN);
		p->nbuf++;
		if (b->map == MAP_FAILED) {
			b->map = NULL;
			pm_set_why(why, whysize, "cannot map the perf buffer of CPU %d (%zu KiB): %s",
				   cpu, b->map_bytes / 1024, strerror(errno));
			close_all(p);
			return PMT_E_IO;
		}
	}
	p->st.cpus = (uint32_t)p->nbuf;
	p->st.pages = (uint32_t)pages;
	return 0;
}

int pmc_pswitch_add_thread(struct pmc_pswitch *p, pid_t tid, char *why, size_t whysize)
{
	struct perf_event_attr a;

	fill_attr(&a);
	for (size_t i = 0; i < p->nbuf; i++) {
		long fd;
		if (PM_GROW(p->extra, p->extra_cap, p->nextra + 1) < 0) {
			pm_set_why(why, whysize, "out of memory");
			return PMT_E_NOMEM;
		}
		fd = perf_open(&a, tid, p->buf[i].cpu);
		if (fd < 0 && errno == ESRCH)
			return 0; /* the thread ended: nothing to record */
		if (fd < 0 || ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, p->buf[i].fd) < 0) {
			pm_set_why(why, whysize, "perf_event_open for thread %d on CPU %u: %s", (int)tid,
				   p->buf[i].cpu, strerror(errno));
			if (fd >= 0)
				close((int)fd);
			return PMT_E_IO;
		}
		p->extra[p->nextra++] = (int)fd;
	}
	return 0;
}

static int flush_batch(struct pmc_pswitch *p, struct cpubuf *b, uint32_t n, struct pmt_writer *w)
{
	struct pmt_sched_batch sb = { p->run_id, b->cpu, 0, n, p->ev };
	int err;

	if (!w)
		return 0;
	if (!n && !b->lost)
		return 0;
	sb.missed = b->lost > 0xFFFFFFFEu ? PMT_SCHED_MISSED_UNKNOWN : (uint32_t)b->lost;
	err = pmt_writer_pswitch(w, &sb);
	if (err == 0)
		b->lost = 0;
	return err;
}

/* Copies len bytes at ring offset off (wrapping) into dst. */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t off, void *dst, size_t len)
{
	uint64_t at = off & (size - 1);
	size_t first = at + len > size ? (size_t)(size - at) : len;

	memcpy(dst, data + at, first);
	if (first < len)
		memcpy((uint8_t *)dst + first, data, len - first);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Decodes one record (perf_event_open(2) "MMAP layout") into ev; returns 1 when it is an event
 * to keep, 0 otherwise (lost counts go to b->lost). With sample_id_all and PERF_SAMPLE_TID |
 * PERF_SAMPLE_TIME every record ends in { u32 pid, tid; u64 time; }. */
static int decode(struct pmc_pswitch *p, struct cpubuf *b, const uint8_t *r, size_t size,
		  struct pmt_sched_event *ev)
{
	const struct perf_event_header *h = (const void *)r;
	const uint8_t *id = r + size - 16;

	if (size < sizeof(*h) + 16)
		return 0;
	memset(ev, 0, sizeof(*ev));
	ev->cpu = b->cpu;
	ev->t_ns = get64(id + 8);
	switch (h->type) {
	case PERF_RECORD_SWITCH:
		ev->a = get32(id);
		ev->b = get32(id + 4);
		ev->common_pid = ev->b;
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			ev->kind = PMT_PSWITCH_OUT;
			ev->c = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? 1 : 0;
			p->st.preempted += ev->c;
		} else {
			ev->kind = PMT_PSWITCH_IN;
		}
		p->st.switches++;
		return 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/* { u32 pid, ppid, tid, ptid; u64 time; sample_id } */
		if (size < sizeof(*h) + 24 + 16)
			return 0;
		ev->kind = h->type == PERF_RECORD_FORK ? PMT_PSWITCH_FORK : PMT_PSWITCH_EXIT;
		ev->a = get32(r + sizeof(*h));
		ev->common_pid = h->type == PERF_RECORD_FORK ? get32(r + sizeof(*h) + 4)
							     : get32(r + sizeof(*h) + 8);
		ev->b = get32(r + sizeof(*h) + 8);
		ev->c = h->type == PERF_RECORD_FORK ? get32(r + sizeof(*h) + 12) : 0;
		ev->t_ns = get64(r + sizeof(*h) + 16);
		p->st.tasks++;
		return 1;
	case PERF_RECORD_LOST:
		/* { u64 id, lost; sample_id } */
		if (size >= sizeof(*h) + 16 + 16) {
			uint64_t n = get64(r + sizeof(*h) + 8);
			b->lost += n;
			p->st.lost += n;
		}
		return 0;
	default:
		return 0;
	}
}

static int drain_one(struct pmc_pswitch *p, struct cpubuf *b, struct pmt_writer *w)
{
	struct perf_event_mmap_page *mp = b->map;
	const uint8_t *data = (const uint8_t *)b->map + mp->data_offset;
	uint64_t size = mp->data_size, tail = mp->data_tail;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint8_t rec[512];
	uint32_t n = 0;
	int err = 0;

	while (tail < head) {
		struct perf_event_header h;
		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break; /* a broken buffer: give it up rather than spin */
		if (h.size <= sizeof(rec)) {
			ring_copy(data, size, tail, rec, h.size);
			if (decode(p, b, rec, h.size, &p->ev[n]))
				n++;
		}
		tail += h.size;
		if (n == BATCH_EVENTS) {
			err = flush_batch(p, b, n, w);
			n = 0;
			if (err < 0)
				break;
		}
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	if (err == 0)
		err = flush_batch(p, b, n, w);
	return err;
}

int pmc_pswitch_drain(struct pmc_pswitch *p, struct pmt_writer *w)
{
	for (size_t i = 0; i < p->nbuf; i++) {
		int err = drain_one(p, &p->buf[i], w);
		if (err < 0)
			return err;
	}
	return 0;
}

int pmc_pswitch_stop(struct pmc_pswitch *p, struct pmt_writer *w, struct pmc_pswitch_stats *st)
{
	int err = 0;

	for (size_t i = 0; i < p->nbuf; i++)
		ioctl(p->buf[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	for (size_t i = 0; i < p->nextra; i++)
		ioctl(p->extra[i], PERF_EVENT_IOC_DISABLE, 0);
	err = pmc_pswitch_drain(p, w);
	close_all(p);
	*st = p->st;
	return err;
}

void pmc_pswitch_free(struct pmc_pswitch *p)
{
	if (!p)
		return;
	close_all(p);
	free(p->extra);
	free(p->online);
	free(p->buf);
	free(p->ev);
	free(p);
}

void pmc_pswitch_run_end(cJSON *o, const struct pmc_pswitch_stats *st)
{
	cJSON *e = cJSON_AddObjectToObject(o, "perf_switch");

	if (!e)
		return;
	cJSON_AddNumberToObject(e, "switches", (double)st->switches);
	cJSON_AddNumberToObject(e, "preempted", (double)st->preempted);
	cJSON_AddNumberToObject(e, "tasks", (double)st->tasks);
	cJSON_AddNumberToObject(e, "lost", (double)st->lost);
	cJSON_AddNumberToObject(e, "cpus", st->cpus);
	cJSON_AddNumberToObject(e, "pages_per_cpu", st->pages);
}
