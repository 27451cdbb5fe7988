/* SPDX-License-Identifier: MIT */
/* schedtrace.c: scheduler events from a private tracefs instance (libtracefs), decoded at record
 * time with libtraceevent into the trace's own compact SCHED records. */
#include "schedtrace.h"
#include "energy.h"
#include "pm_util.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#define INSTANCE_PREFIX "pmcollect-"
#define BATCH_MAX 16384u

/* One event we decode: which fields fill a, b, c of struct pmt_sched_event. */
struct evdesc {
	const char *name;
	uint8_t kind;
	int optional;            /* sched_waking is missing on kernels before 4.3 */
	const char *fa, *fb, *fc; /* field names for a, b, c (NULL: 0) */
	int id;                  /* tracefs event id, -1 when not available */
	struct tep_format_field *f[3];
};

static struct evdesc evdescs[] = {
	{ "sched_switch", PMT_SCHED_SWITCH, 0, "prev_pid", "next_pid", "prev_state", -1, { 0 } },
	{ "sched_waking", PMT_SCHED_WAKING, 1, "pid", "target_cpu", NULL, -1, { 0 } },
	{ "sched_wakeup", PMT_SCHED_WAKEUP, 0, "pid", "target_cpu", NULL, -1, { 0 } },
	{ "sched_wakeup_new", PMT_SCHED_WAKEUP_NEW, 0, "pid", "target_cpu", NULL, -1, { 0 } },
	{ "sched_process_fork", PMT_SCHED_FORK, 0, "child_pid", NULL, NULL, -1, { 0 } },
	{ "sched_process_exit", PMT_SCHED_EXIT, 0, "pid", NULL, NULL, -1, { 0 } },
	{ "sched_migrate_task", PMT_SCHED_MIGRATE, 0, "pid", "dest_cpu", "orig_cpu", -1, { 0 } },
};
#define NEVENTS PM_ARRAY_SIZE(evdescs)

static const char *event_names[NEVENTS + 1];

struct cpubuf {
	int cpu;
	int fd;
	struct tracefs_cpu *tcpu;
};

struct pmc_sched {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	struct tep_format_field *common_pid, *common_flags;
	struct cpubuf *cpus;
	int ncpus;
	void *page;
	int page_bytes;
	uint32_t run_id;
	struct pmt_sched_event *batch;
	uint32_t nbatch;
	uint32_t batch_missed;
	const char *filter;      /* "pid" (set_event_pid) or "cpus" (tracing_cpumask) */
	struct pmc_sched_stats st;
};

/* For the crash handler: async-signal-safe cleanup needs plain data. */
static char crash_dir[512];
/* The rank of an MPI/Slurm job this pmcollect records (pmc_sched_set_rank), -1 outside a job. */
static long instance_rank = -1;

void pmc_sched_set_rank(long rank)
{
	instance_rank = rank;
}

/* The instance's name: pmcollect-<pid>, or pmcollect-<pid>-r<rank> for one rank of a job. */
static void instance_name(char *buf, size_t size)
{
	if (instance_rank >= 0)
		snprintf(buf, size, INSTANCE_PREFIX "%ld-r%ld", (long)getpid(), instance_rank);
	else
		snprintf(buf, size, INSTANCE_PREFIX "%ld", (long)getpid());
}
static int crash_fds[1024];
static volatile sig_atomic_t crash_nfds;

static void crash_handler(int sig)
{
	for (int i = 0; i < crash_nfds; i++)
		close(crash_fds[i]);
	if (crash_dir[0])
		rmdir(crash_dir);
	/* SA_RESETHAND restored the default action: die of the same signal */
	raise(sig);
}

static void install_crash_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	for (size_t i = 0; i < PM_ARRAY_SIZE(sigs); i++) {
		struct sigaction sa, old;
		/* leave a handler someone else installed alone (the sanitizers report crashes) */
		if (sigaction(sigs[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = crash_handler;
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

/* tracefs_instances_walk callback: removes pmcollect-<pid> and pmcollect-<pid>-r<rank> of a pid
 * that no longer exists (the instances of the other ranks on this node are alive: kept). */
static int sweep_stale(const char *name, void *ctx)
{
	char *end;
	long pid;

	(void)ctx;
	if (strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) != 0)
		return 0;
	errno = 0;
	pid = strtol(name + strlen(INSTANCE_PREFIX), &end, 10);
	if (strncmp(end, "-r", 2) == 0 && strspn(end + 2, "0123456789") > 0)
		end += 2 + strspn(end + 2, "0123456789");
	if (errno || *end || pid <= 0 || pid == (long)getpid())
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	{
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);
		if (old) {
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	return 0;
}

/* sched_wakeup only where sched_waking is missing: it repeats sched_waking's news (the wakee
 * becomes runnable) a moment later, and every event costs the program ~0.3-0.5 us of kernel time
 * here (make bench, section 7), so leaving it out makes tracing a third cheaper. */
static int event_wanted(const struct evdesc *d)
{
	if (d->id < 0)
		return 0;
	if (d->kind == PMT_SCHED_WAKEUP)
		for (size_t i = 0; i < NEVENTS; i++)
			if (evdescs[i].kind == PMT_SCHED_WAKING && evdescs[i].id >= 0)
				return 0;
	return 1;
}

const char *const *pmc_sched_event_names(void)
{
	static char names[NEVENTS][40];
	size_t n = 0;

	for (size_t i = 0; i < NEVENTS; i++)
		if (event_wanted(&evdescs[i])) {
			snprintf(names[n], sizeof(names[n]), "sched:%s", evdescs[i].name);
			event_names[n] = names[n];
			n++;
		}
	event_names[n] = NULL;
	return (const char *const *)event_names;
}

int pmc_sched_watchdog(char *why, size_t whysize)
{
	static int keep_fd = -1; /* the write end, open until pmcollect ends (close-on-exec) */
	const char *tdir = tracefs_tracing_dir();
	char dir[PATH_MAX], name[64];
	int fds[2];
	pid_t pid;

	if (!tdir || keep_fd >= 0) {
		snprintf(why, whysize, "%s", keep_fd >= 0 ? "a watchdog runs already" : "tracefs is not mounted");
		return PMT_E_INVAL;
	}
	instance_name(name, sizeof(name));
	snprintf(dir, sizeof(dir), "%s/instances/%s", tdir, name);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, whysize, "cannot create a pipe: %s", strerror(errno));
		return PMT_E_IO;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, whysize, "cannot fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return PMT_E_IO;
	}
	if (pid == 0) {
		char c;
		/* the middle process exits at once, so the watchdog is nobody's child here */
		if (fork() != 0)
			_exit(0);
		setsid();
		close(fds[1]);
		for (int fd = 0; fd < 1024; fd++)
			if (fd != fds[0])
				close(fd);
		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
		/* pmcollect is gone: its descriptors of the instance are closed, so rmdir works */
		rmdir(dir);
		_exit(0);
	}
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	keep_fd = fds[1];
	return 0;
}

int pmc_sched_probe(const char *tdir, char *why, size_t whysize)
{
	char path[PATH_MAX];
	struct stat sb;

	if (!tdir) {
		snprintf(why, whysize, "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return PMT_E_IO;
	}
	/* ENOENT only: without permission (EACCES) the instance's step says "needs root" */
	snprintf(path, sizeof(path), "%s/events", tdir);
	if (stat(path, &sb) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		snprintf(why, whysize, "tracefs is not mounted (no %s; mount -t tracefs nodev "
			 "/sys/kernel/tracing)", path);
		return PMT_E_IO;
	}
	for (size_t i = 0; i < NEVENTS; i++) {
		if (evdescs[i].optional)
			continue;
		snprintf(path, sizeof(path), "%s/events/sched/%s/format", tdir, evdescs[i].name);
		if (stat(path, &sb) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
			snprintf(why, whysize, "the kernel has no sched:%s event (no %s)",
				 evdescs[i].name, path);
			return PMT_E_INVAL;
		}
	}
	return 0;
}

/* Step 1a: the tracefs pmcollect would use (tdir, the machine's) has the events. PMT_SYSFS_ROOT
 * (tests) replaces the machine's tracefs by <root>/sys/kernel/tracing for this check only: a
 * fixture cannot hold a kernel ring buffer, so when the fixture passes, the machine's own
 * tracefs records. */
static int probe_tracefs(const char *tdir, char *why, size_t whysize)
{
	char dir[PATH_MAX];
	const char *root = pmc_sysfs_root();

	if (!root[0])
		return pmc_sched_probe(tdir, why, whysize);
	snprintf(dir, sizeof(dir), "%s/sys/kernel/tracing", root);
	return pmc_sched_probe(dir, why, whysize);
}

static void instance_error(char *why, size_t whysize, const char *name, int e)
{
	snprintf(why, whysize, "cannot create the tracefs instance '%s': %s%s", name, strerror(e),
		 e == EACCES || e == EPERM ? " (needs root or CAP_SYS_ADMIN)" : "");
}

/* Step 1: the private instance pmcollect-<pid>, after checking the tracefs (step 1a) and removing
 * the instances of pmcollects that are gone. */
static int create_instance(struct pmc_sched *s, char *why, size_t whysize)
{
	const char *tdir;
	char name[64], dir[PATH_MAX];
	int rc;

	/* called once: libtracefs 1.6 re-finds (and leaks) the directory when its cached copy does
	 * not pass its check, which is what happens without permission */
	tdir = tracefs_tracing_dir();
	if ((rc = probe_tracefs(tdir, why, whysize)) < 0)
		return rc;
	instance_name(name, sizeof(name));
	/* asked first: libtracefs 1.6 leaks a few strings when an instance cannot be made */
	snprintf(dir, sizeof(dir), "%s/instances", tdir);
	if (access(dir, W_OK) < 0) {
		instance_error(why, whysize, name, errno);
		return PMT_E_IO;
	}
	tracefs_instances_walk(sweep_stale, NULL);
	errno = 0;
	s->inst = tracefs_instance_create(name);
	if (!s->inst) {
		instance_error(why, whysize, name, errno ? errno : EACCES);
		return PMT_E_IO;
	}
	{
		char *idir = tracefs_instance_get_dir(s->inst);
		if (idir) {
			snprintf(crash_dir, sizeof(crash_dir), "%s", idir);
			tracefs_put_tracing_file(idir);
		}
	}
	return 0;
}

/* Step 2: the formats of our events (libtraceevent), their field offsets and the kbuffer that
 * reads the ring buffer's pages. */
static int load_formats(struct pmc_sched *s, char *why, size_t whysize)
{
	enum tep_endian host = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
								  : TEP_LITTLE_ENDIAN;

	/* only the formats of our events: tracefs_local_events_system() would also parse
	 * /proc/kallsyms and the printk formats, 0.3 s here (2.6 s under AddressSanitizer) */
	s->tep = tep_alloc();
	if (!s->tep) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return PMT_E_NOMEM;
	}
	tep_set_file_bigendian(s->tep, host);
	tep_set_local_bigendian(s->tep, host);
	tep_set_long_size(s->tep, (int)sizeof(long));
	tep_set_page_size(s->tep, getpagesize());
	for (size_t i = 0; i < NEVENTS; i++) {
		int size = 0;
		char *fmt = tracefs_event_file_read(NULL, "sched", evdescs[i].name, "format", &size);
		if (fmt && size > 0)
			(void)tep_parse_event(s->tep, fmt, (unsigned long)size, "sched");
		free(fmt);
	}
	for (size_t i = 0; i < NEVENTS; i++) {
		struct evdesc *d = &evdescs[i];
		struct tep_event *ev = tep_find_event_by_name(s->tep, "sched", d->name);
		const char *fn[3] = { d->fa, d->fb, d->fc };
		d->id = -1;
		if (!ev) {
			if (d->optional)
				continue;
			snprintf(why, whysize, "the kernel has no sched:%s event", d->name);
			return PMT_E_INVAL;
		}
		for (int k = 0; k < 3; k++) {
			d->f[k] = fn[k] ? tep_find_field(ev, fn[k]) : NULL;
			if (fn[k] && !d->f[k]) {
				snprintf(why, whysize, "sched:%s has no field '%s'", d->name, fn[k]);
				return PMT_E_INVAL;
			}
		}
		if (!s->common_pid) {
			s->common_pid = tep_find_common_field(ev, "common_pid");
			s->common_flags = tep_find_common_field(ev, "common_flags");
		}
		d->id = ev->id;
	}
	if (!s->common_pid) {
		snprintf(why, whysize, "the sched events have no common_pid field");
		return PMT_E_INVAL;
	}
	/* the ring buffer is in this machine's own byte order and long size */
	s->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? KBUFFER_ENDIAN_BIG
								      : KBUFFER_ENDIAN_LITTLE);
	if (!s->kbuf) {
		snprintf(why, whysize, "cannot allocate a kbuffer");
		return PMT_E_NOMEM;
	}
	return 0;
}

/* Step 3: tracing off, trace_clock mono, the buffer size, event-fork. */
static int configure(struct pmc_sched *s, unsigned buffer_kb, char *why, size_t whysize)
{
	if (tracefs_trace_off(s->inst) < 0 ||
	    tracefs_instance_file_write(s->inst, "trace_clock", "mono") < 0) {
		snprintf(why, whysize, "cannot set trace_clock 'mono' in the tracefs instance");
		return PMT_E_IO;
	}
	if (tracefs_instance_set_buffer_size(s->inst, buffer_kb, -1) < 0) {
		snprintf(why, whysize, "cannot set a %u KiB tracefs buffer per CPU: %s", buffer_kb,
			 strerror(errno));
		return PMT_E_IO;
	}
	if (tracefs_option_enable(s->inst, TRACEFS_OPTION_EVENT_FORK) < 0) {
		snprintf(why, whysize, "cannot enable the tracefs option event-fork");
		return PMT_E_IO;
	}
	return 0;
}

/* Step 4: trace_pipe_raw of every online CPU, read a page at a time. */
static int open_cpu_buffers(struct pmc_sched *s, const struct pm_intlist *online, char *why,
			    size_t whysize)
{
	if (!online->n) {
		snprintf(why, whysize, "no online CPUs");
		return PMT_E_INVAL;
	}
	s->page_bytes = getpagesize();
	s->page = malloc((size_t)s->page_bytes);
	s->cpus = calloc(online->n, sizeof(*s->cpus));
	s->batch = malloc(BATCH_MAX * sizeof(*s->batch));
	if (!s->page || !s->cpus || !s->batch) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return PMT_E_NOMEM;
	}
	for (size_t i = 0; i < online->n; i++) {
		char file[64];
		char *path;
		struct cpubuf *c = &s->cpus[s->ncpus];
		snprintf(file, sizeof(file), "per_cpu/cpu%u/trace_pipe_raw", online->v[i]);
		path = tracefs_instance_get_file(s->inst, file);
		c->cpu = (int)online->v[i];
		c->fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
		if (c->fd < 0) {
			snprintf(why, whysize, "cannot open %s of the tracefs instance: %s", file,
				 strerror(errno));
			return PMT_E_IO;
		}
		c->tcpu = tracefs_cpu_alloc_fd(c->fd, s->page_bytes, true);
		if (!c->tcpu) {
			close(c->fd);
			snprintf(why, whysize, "cannot read %s of the tracefs instance", file);
			return PMT_E_IO;
		}
		s->ncpus++;
		if (crash_nfds < (int)PM_ARRAY_SIZE(crash_fds))
			crash_fds[crash_nfds++] = c->fd;
	}
	return 0;
}

int pmc_sched_open(struct pmc_sched **out, unsigned buffer_kb, const struct pm_intlist *online,
		   char *why, size_t whysize)
{
	struct pmc_sched *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return PMT_E_NOMEM;
	}
	if ((rc = create_instance(s, why, whysize)) < 0 || (rc = load_formats(s, why, whysize)) < 0 ||
	    (rc = configure(s, buffer_kb, why, whysize)) < 0 ||
	    (rc = open_cpu_buffers(s, online, why, whysize)) < 0) {
		pmc_sched_close(s);
		return rc;
	}
	install_crash_handlers();
	*out = s;
	return 0;
}

/* cpus as tracing_cpumask wants it: hex, 32-bit groups separated by commas, most significant
 * first ("1", "ffffffff,00000001"); all online CPUs when cpus is NULL. */
static void cpumask_text(const struct pmc_sched *s, const cpu_set_t *cpus, char *buf, size_t size)
{
	int top = 0;
	size_t o = 0;

	for (int i = 0; i < s->ncpus; i++)
		if (s->cpus[i].cpu > top)
			top = s->cpus[i].cpu;
	buf[0] = '\0';
	for (int g = top / 32; g >= 0 && o + 10 < size; g--) {
		uint32_t word = 0;
		for (int b = 0; b < 32; b++) {
			int cpu = g * 32 + b;
			if (cpu < CPU_SETSIZE && (cpus ? CPU_ISSET(cpu, cpus) : cpu <= top))
				word |= 1u << b;
		}
		o += (size_t)snprintf(buf + o, size - o, o ? ",%08x" : "%x", word);
	}
}

int pmc_sched_start(struct pmc_sched *s, pid_t pid, const pid_t *more, size_t nmore,
		    uint32_t run_id, const cpu_set_t *cpus, char *why, size_t whysize)
{
	char text[32], mask[4096];
	int ok = 1;

	s->run_id = run_id;
	s->nbatch = 0;
	s->batch_missed = 0;
	memset(&s->st, 0, sizeof(s->st));
	errno = 0;
	cpumask_text(s, cpus, mask, sizeof(mask));
	ok = tracefs_instance_file_clear(s->inst, "trace") == 0 &&
	     tracefs_instance_file_write(s->inst, "tracing_cpumask", mask) >= 0;
	if (ok && cpus) {
		/* the program's own CPUs: everything on them, no pid filter (half the cost per
		 * event, and the filter drops some switches to the program, see docs/model.md) */
		s->filter = "cpus";
		ok = tracefs_instance_file_clear(s->inst, "set_event_pid") == 0;
	} else if (ok) {
		s->filter = "pid";
		snprintf(text, sizeof(text), "%ld", (long)pid);
		ok = tracefs_instance_file_write(s->inst, "set_event_pid", text) >= 0;
		/* every task before tracing is on: one added later misses what it does until then */
		for (size_t i = 0; ok && i < nmore; i++)
			if (more[i] != pid) {
				snprintf(text, sizeof(text), "%ld", (long)more[i]);
				ok = tracefs_instance_file_append(s->inst, "set_event_pid", text) >= 0;
			}
	}
	for (size_t i = 0; ok && i < NEVENTS; i++)
		if (event_wanted(&evdescs[i]) && tracefs_event_enable(s->inst, "sched", evdescs[i].name) < 0)
			ok = 0;
	if (ok && tracefs_trace_on(s->inst) == 0)
		return 0;
	snprintf(why, whysize, "cannot start tracing pid %ld: %s", (long)pid, strerror(errno));
	return PMT_E_IO;
}

static int flush_batch(struct pmc_sched *s, struct pmt_writer *w, int cpu)
{
	struct pmt_sched_batch b = { s->run_id, (uint16_t)cpu, s->batch_missed, s->nbatch, s->batch };
	int rc;

	if (s->nbatch == 0 && s->batch_missed == 0)
		return 0;
	rc = w ? pmt_writer_sched(w, &b) : 0; /* no writer: read into nothing (pmcollect --delay) */
	s->st.events += w ? s->nbatch : 0;
	s->nbatch = 0;
	s->batch_missed = 0;
	return rc;
}

static uint32_t field_u32(struct pmc_sched *s, const struct tep_format_field *f, const uint8_t *data,
			  int size)
{
	if (!f || f->offset < 0 || f->size <= 0 || f->size > 8 || f->offset + f->size > size)
		return 0;
	return (uint32_t)tep_read_number(s->tep, data + f->offset, f->size);
}

/* prev_state of sched_switch as the letter ps(1) and /proc/<pid>/stat use. The kernel reports
 * TASK_REPORT bits (1 S, 2 D, 4 T, 8 t, 16 X, 32 Z, 64 P, 128 I) and, for a task preempted
 * while runnable, the bit above them (TASK_REPORT_MAX, "R+"): see its print fmt. */
static uint32_t state_letter(uint64_t st)
{
	static const char letters[] = "SDTtXZPI";
	if ((st & 0xff) == 0)
		return 'R';
	for (int i = 0; i < 8; i++)
		if (st & (1u << i))
			return (uint32_t)letters[i];
	return '?';
}

/* Decodes the page in s->page (read from CPU cpu) into the batch. */
static int decode_page(struct pmc_sched *s, struct pmt_writer *w, int cpu)
{
	unsigned long long ts;
	void *data;
	int missed, rc;

	if (kbuffer_load_subbuffer(s->kbuf, s->page) < 0)
		return 0;
	missed = kbuffer_missed_events(s->kbuf);
	if (missed) {
		/* a gap: the events before it go in their own record */
		if ((rc = flush_batch(s, w, cpu)) < 0)
			return rc;
		s->st.lost_pages++;
		s->batch_missed = missed > 0 ? (uint32_t)missed : PMT_SCHED_MISSED_UNKNOWN;
		if (missed > 0)
			s->st.lost += (uint64_t)missed;
	}
	for (data = kbuffer_read_event(s->kbuf, &ts); data; data = kbuffer_next_event(s->kbuf, &ts)) {
		int size = kbuffer_event_size(s->kbuf);
		const uint8_t *d = data;
		struct pmt_sched_event *e;
		const struct evdesc *desc = NULL;
		int id;

		if (size < 8)
			continue;
		id = (int)tep_read_number(s->tep, d, 2);
		for (size_t i = 0; i < NEVENTS; i++)
			if (evdescs[i].id == id) {
				desc = &evdescs[i];
				break;
			}
		if (!desc)
			continue;
		if (s->nbatch == BATCH_MAX && (rc = flush_batch(s, w, cpu)) < 0)
			return rc;
		e = &s->batch[s->nbatch++];
		e->t_ns = ts;
		e->kind = desc->kind;
		e->cpu = (uint16_t)cpu;
		e->common_pid = field_u32(s, s->common_pid, d, size);
		{
			/* common_flags: TRACE_FLAG_HARDIRQ 0x08, SOFTIRQ 0x10, NMI 0x40
			 * (kernel/trace/trace.h) */
			uint32_t fl = field_u32(s, s->common_flags, d, size);
			e->ctx = (uint8_t)(((fl & 0x08) ? PMT_SCHED_CTX_HARDIRQ : 0) |
					   ((fl & 0x10) ? PMT_SCHED_CTX_SOFTIRQ : 0) |
					   ((fl & 0x40) ? PMT_SCHED_CTX_NMI : 0));
		}
		e->a = field_u32(s, desc->f[0], d, size);
		e->b = field_u32(s, desc->f[1], d, size);
		if (desc->kind == PMT_SCHED_SWITCH) {
			const struct tep_format_field *f = desc->f[2];
			uint64_t st = f && f->offset + f->size <= size && f->size <= 8 ?
				tep_read_number(s->tep, d + f->offset, f->size) : 0;
			e->c = state_letter(st);
		} else {
			e->c = field_u32(s, desc->f[2], d, size);
		}
	}
	return 0;
}

int pmc_sched_drain(struct pmc_sched *s, struct pmt_writer *w)
{
	int rc;

	s->st.drains++;
	for (int i = 0; i < s->ncpus; i++) {
		struct cpubuf *c = &s->cpus[i];
		/* a bounded number of pages per call, so a flood cannot starve the sampler */
		for (int pages = 0; pages < 4096; pages++) {
			int n = tracefs_cpu_read(c->tcpu, s->page, true);
			if (n <= 0)
				break;
			if ((rc = decode_page(s, w, c->cpu)) < 0)
				return rc;
		}
		if ((rc = flush_batch(s, w, c->cpu)) < 0)
			return rc;
	}
	return 0;
}

/* Sums "overrun:", "commit overrun:" and "dropped events:" of per_cpu/cpuN/stats. */
static uint64_t kernel_lost(struct pmc_sched *s)
{
	uint64_t total = 0;

	for (int i = 0; i < s->ncpus; i++) {
		char file[64], *text, *line;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", s->cpus[i].cpu);
		text = tracefs_instance_file_read(s->inst, file, NULL);
		if (!text)
			continue;
		for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			unsigned long long v;
			if (sscanf(line, "overrun: %llu", &v) == 1 ||
			    sscanf(line, "commit overrun: %llu", &v) == 1 ||
			    sscanf(line, "dropped events: %llu", &v) == 1)
				total += v;
		}
		free(text);
	}
	return total;
}

int pmc_sched_stop(struct pmc_sched *s, struct pmt_writer *w, struct pmc_sched_stats *st)
{
	int rc;
	uint64_t k;

	tracefs_trace_off(s->inst);
	for (size_t i = 0; i < NEVENTS; i++)
		if (event_wanted(&evdescs[i]))
			tracefs_event_disable(s->inst, "sched", evdescs[i].name);
	rc = w ? pmc_sched_drain(s, w) : 0;
	/* the kernel's own count covers pages overwritten before they were read, which no page
	 * header can report */
	k = kernel_lost(s);
	if (k > s->st.lost)
		s->st.lost = k;
	tracefs_instance_file_clear(s->inst, "set_event_pid");
	s->st.filter = s->filter;
	*st = s->st;
	return rc;
}

void pmc_sched_close(struct pmc_sched *s)
{
	if (!s)
		return;
	crash_nfds = 0;
	for (int i = 0; i < s->ncpus; i++) {
		tracefs_cpu_free_fd(s->cpus[i].tcpu);
		close(s->cpus[i].fd);
	}
	if (s->inst) {
		tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
	}
	crash_dir[0] = '\0';
	if (s->kbuf)
		kbuffer_free(s->kbuf);
	tep_free(s->tep);
	free(s->cpus);
	free(s->page);
	free(s->batch);
	free(s);
}
