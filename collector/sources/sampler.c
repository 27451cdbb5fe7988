/* SPDX-License-Identifier: MIT */
/* sampler.c: the process-tree tracker and the per-sample /proc reads of pmcollect. */
#include "sampler.h"
#include "pm_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "netlink.h"
#include "procfs.h"
#include "warning.h"

enum { F_SCHEDSTAT, F_STAT, F_STATUS, F_COUNT };
static const char *const file_names[F_COUNT] = { "schedstat", "stat", "status" };

struct thr {
	uint32_t tid, tgid, ppid;
	int fd[F_COUNT];         /* kept open across samples; -1 = open/read/close each time */
	uint32_t stat_phase;     /* stat is read when seq % stat_every == stat_phase */
	uint32_t status_phase;
	uint32_t listed_gen;     /* list_gen of its process's last listing that showed the tid */
	uint64_t dead_at;        /* sample seq when it was found dead */
	uint8_t dead;            /* exited: taskstats said so, or it left /proc */
	uint8_t exit_written;    /* its EXIT record is written; kept as a tombstone while listed */
	uint8_t has_final;       /* final_* are taskstats exit values */
	uint8_t fresh;           /* appeared in the current sample: values already read */
	uint8_t comm_len;
	uint64_t final_run_ns, final_wait_ns;
	struct pmt_thread_sample v; /* last values read; flags of the current sample */
	char comm[PMC_COMM_MAX];
};

struct proc {
	uint32_t tgid, ppid;
	int task_fd;             /* /proc/<tgid>/task, O_DIRECTORY; -1 when it could not be opened */
	uint32_t list_gen;       /* counts the listings of task_fd */
	uint8_t dirty;           /* list task_fd at the next sample: something may have changed */
	uint64_t dead_at;
	uint8_t dead;            /* the task directory is gone: the process was reaped */
	uint8_t has_status;      /* pmcollect reaped it: status is its raw wait status */
	int status;
};

struct pmc_sampler {
	struct pmt_writer *w;
	struct pmc_sampler_opts o;
	struct thr *thr;
	size_t nthr, cap_thr;
	struct pm_tidmap thr_map; /* tid -> index in thr */
	struct proc *proc;
	size_t nproc, cap_proc;
	struct pm_tidmap proc_map; /* tgid -> index in proc */
	struct pmt_thread_sample *out;
	size_t cap_out;
	uint64_t seq;       /* samples taken so far */
	uint32_t phase_ctr; /* staggers the stat/status phases of threads in order of appearance */
	uint64_t t_ns;      /* time stamp of the records being written */
	int err;            /* first writer error; sticky */
	int finishing;
	uint8_t warned_fd, warned_pc_drop, warned_ts_drop;
	struct pmc_sampler_stats st;
	uint64_t exited_run_ns;   /* final run_ns of the EXIT records written */
	char dents[32768];
	char statusbuf[16384];
};

/* ---- records ---- */

static void set_err(struct pmc_sampler *s, int err)
{
	if (err < 0 && !s->err)
		s->err = err;
}

static void warn(struct pmc_sampler *s, enum pmc_warning code, const char *what)
{
	if (!s->err)
		set_err(s, pmc_warning_write(s->w, s->o.run_id, s->t_ns, code, what));
	s->st.warnings++;
}

static void write_task(struct pmc_sampler *s, uint8_t kind, uint8_t flags, const struct thr *t,
		       int32_t status, uint64_t run_ns, uint64_t wait_ns)
{
	struct pmt_task_event e = {
		.run_id = s->o.run_id,
		.t_ns = s->t_ns,
		.kind = kind,
		.flags = (uint8_t)(flags | (t->tid == t->tgid ? PMT_TASKF_PROCESS : 0)),
		.tid = t->tid,
		.tgid = t->tgid,
		.ppid = t->ppid,
		.exit_status = status,
		.final_run_ns = run_ns,
		.final_wait_ns = wait_ns,
		.comm_len = t->comm_len,
		.comm = t->comm,
	};
	if (kind == PMT_TASK_EXIT)
		s->exited_run_ns += run_ns;
	if (!s->err)
		set_err(s, pmt_writer_task(s->w, &e));
}

static struct proc *proc_find(struct pmc_sampler *s, uint32_t tgid)
{
	uint32_t i;
	return pm_tidmap_get(&s->proc_map, tgid, &i) ? &s->proc[i] : NULL;
}

static struct thr *thr_find(struct pmc_sampler *s, uint32_t tid)
{
	uint32_t i;
	return pm_tidmap_get(&s->thr_map, tid, &i) ? &s->thr[i] : NULL;
}

/* A process belongs to the tree when its parent does, or when pmcollect adopted it. */
static int in_tree(struct pmc_sampler *s, uint32_t tgid)
{
	struct proc *p = proc_find(s, tgid);
	return (tgid == s->o.collector_pid && !s->o.attached) || (p && !p->dead);
}

/* ---- processes ---- */

static int proc_add(struct pmc_sampler *s, uint32_t tgid, uint32_t ppid)
{
	char path[64];
	struct proc *p;

	if (proc_find(s, tgid))
		return 0;
	if (PM_GROW(s->proc, s->cap_proc, s->nproc + 1) < 0)
		return PMT_E_NOMEM;
	if (pm_tidmap_put(&s->proc_map, tgid, (uint32_t)s->nproc) < 0)
		return PMT_E_NOMEM;
	p = &s->proc[s->nproc++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->ppid = ppid;
	p->dirty = 1;
	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	/* The descriptor pins the pid, not the program: it stays valid across execve(), and its
	 * listing fails with ENOENT once the process is reaped. */
	p->task_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->task_fd < 0) {
		/* it exited before we looked; keep it a while as a member of the tree so the
		 * taskstats records of its threads are still recognized */
		p->dead = 1;
		p->dead_at = s->seq;
	}
	s->st.processes_seen++;
	return 0;
}

static void proc_remove(struct pmc_sampler *s, size_t i)
{
	struct proc *p = &s->proc[i];

	if (p->task_fd >= 0)
		close(p->task_fd);
	(void)pm_tidmap_remove(&s->proc_map, p->tgid);
	if (i != s->nproc - 1) {
		*p = s->proc[s->nproc - 1];
		(void)pm_tidmap_put(&s->proc_map, p->tgid, (uint32_t)i); /* replaces: cannot fail */
	}
	s->nproc--;
}

/* ---- threads ---- */

/* Reads one of the thread's files into buf; returns bytes read, 0 when the thread is gone, -1 on
 * another error. ESRCH/ENOENT and empty reads mean the thread exited: data, not an error. */
static ssize_t thr_read(const struct thr *t, int which, char *buf, size_t cap)
{
	ssize_t n;

	if (t->fd[which] >= 0) {
		n = pread(t->fd[which], buf, cap, 0);
	} else {
		char path[96];
		int fd;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/%s", t->tgid, t->tid, file_names[which]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return errno == ENOENT || errno == ESRCH ? 0 : -1;
		n = pread(fd, buf, cap, 0);
		close(fd);
	}
	if (n < 0)
		return errno == ESRCH || errno == ENOENT ? 0 : -1;
	return n;
}

/* Reads schedstat (always) and stat/status when asked into t->v (procfs.h pmc_sample_*: the
 * mapping of fields, tested on fixtures); sets v.flags. Returns 0 when the thread is gone, 1
 * otherwise. */
static int thr_refresh(struct pmc_sampler *s, struct thr *t, int want_stat, int want_status)
{
	char buf[1024];
	ssize_t n;

	t->v.flags = 0;
	n = thr_read(t, F_SCHEDSTAT, buf, sizeof(buf));
	if (n == 0)
		return 0;
	if (n > 0)
		(void)pmc_sample_schedstat(&t->v, buf, (size_t)n);
	if (want_stat) {
		n = thr_read(t, F_STAT, buf, sizeof(buf));
		if (n == 0)
			return 0;
		if (n > 0) {
			struct pmc_stat st;
			if (pmc_sample_stat(&t->v, buf, (size_t)n, &st) == 0) {
				t->ppid = st.ppid;
				t->comm_len = (uint8_t)st.comm_len;
				memcpy(t->comm, st.comm, st.comm_len);
			}
		}
	}
	if (want_status) {
		n = thr_read(t, F_STATUS, s->statusbuf, sizeof(s->statusbuf));
		if (n == 0)
			return 0;
		if (n > 0)
			(void)pmc_sample_status(&t->v, s->statusbuf, (size_t)n);
	}
	return 1;
}

static struct thr *thr_new(struct pmc_sampler *s, uint32_t tid, uint32_t tgid)
{
	struct thr *t;

	if (PM_GROW(s->thr, s->cap_thr, s->nthr + 1) < 0)
		return NULL;
	if (pm_tidmap_put(&s->thr_map, tid, (uint32_t)s->nthr) < 0)
		return NULL;
	t = &s->thr[s->nthr++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tgid;
	for (int i = 0; i < F_COUNT; i++)
		t->fd[i] = -1;
	t->v.tid = tid;
	t->v.tgid = tgid;
	t->v.cpu = PMT_CPU_UNKNOWN;
	t->v.state = '?';
	t->stat_phase = s->phase_ctr % s->o.stat_every;
	t->status_phase = s->phase_ctr % s->o.status_every;
	s->phase_ctr++;
	return t;
}

static void thr_close(struct thr *t)
{
	for (int i = 0; i < F_COUNT; i++) {
		if (t->fd[i] >= 0)
			close(t->fd[i]);
		t->fd[i] = -1;
	}
}

static void thr_remove(struct pmc_sampler *s, size_t i)
{
	struct thr *t = &s->thr[i];

	thr_close(t);
	(void)pm_tidmap_remove(&s->thr_map, t->tid);
	if (i != s->nthr - 1) {
		*t = s->thr[s->nthr - 1];
		(void)pm_tidmap_put(&s->thr_map, t->tid, (uint32_t)i);
	}
	s->nthr--;
}

/* Descriptors handed back when they run out: the kept files of this many threads. */
#define FD_RESERVE_THREADS 4
static void fd_release_reserve(struct pmc_sampler *s)
{
	int freed = 0;

	for (size_t i = s->nthr; i-- > 0 && freed < FD_RESERVE_THREADS;) {
		if (s->thr[i].fd[F_SCHEDSTAT] >= 0) {
			thr_close(&s->thr[i]);
			freed++;
		}
	}
}

/* A tid listed in /proc/<tgid>/task for the first time: open its files (kept open so each later
 * sample costs one pread), read all three, and write its APPEAR record. */
static int thr_appear(struct pmc_sampler *s, struct proc *p, uint32_t tid)
{
	struct thr *t = thr_new(s, tid, p->tgid);

	if (!t)
		return PMT_E_NOMEM;
	for (int i = 0; i < F_COUNT && !s->warned_fd; i++) {
		char rel[48];
		snprintf(rel, sizeof(rel), "%u/%s", tid, file_names[i]);
		t->fd[i] = openat(p->task_fd, rel, O_RDONLY | O_CLOEXEC);
		if (t->fd[i] >= 0)
			continue;
		if (errno == EMFILE || errno == ENFILE) {
			/* out of descriptors even after raising RLIMIT_NOFILE: from now on new
			 * threads are read with open/read/close (about 3x the cost, still correct),
			 * and a reserve is given back so that those opens, and the task directory of
			 * a new process, still find a descriptor */
			thr_close(t);
			fd_release_reserve(s);
			s->warned_fd = 1;
			warn(s, PMC_WARN_FD_LIMIT, "out of file descriptors: some threads are read with "
				"open/read/close, which costs more collector CPU");
			break;
		}
		/* gone already (ENOENT/ESRCH): forget it; its taskstats exit record, if any,
		 * makes it appear and exit with exact values (on_task_exit) */
		thr_remove(s, (size_t)(t - s->thr));
		return 0;
	}
	if (t->fd[F_SCHEDSTAT] < 0)
		s->st.fd_fallback++;
	t->listed_gen = p->list_gen;
	if (!thr_refresh(s, t, 1, 1)) {
		thr_remove(s, (size_t)(t - s->thr));
		return 0;
	}
	if (t->v.flags & PMT_TS_STAT_FRESH) {
		t->fresh = 1;
		s->st.threads_seen++;
		write_task(s, PMT_TASK_APPEAR, 0, t, 0, 0, 0);
	} else {
		/* no comm, no state: a thread we could not read is not reported */
		thr_close(t);
		t->dead = 1;
		t->exit_written = 1;
	}
	return 0;
}

/* Re-reads /proc/<tgid>/task (lseek to 0 + getdents64 on the kept descriptor: cheaper than
 * opendir each time) of the followed processes that need it, marks the listed threads, and makes
 * new tids appear when add_new. A listing that fails means the process was reaped.
 * Which processes need it: without the proc connector, all of them at every sample. With it, the
 * kernel reports every thread creation and exit, so only a process with news since its last
 * listing is listed, plus each process every LIST_EVERY samples as a safety net. On this machine
 * a listing of 64 threads costs ~90 us with cold caches, 1.4 us per thread-sample: more than the
 * stat and status refreshes together. */
#define LIST_EVERY 64
static int list_threads(struct pmc_sampler *s, int add_new, int all)
{
	for (size_t i = 0; i < s->nproc; i++) {
		struct proc *p = &s->proc[i];
		int ok = 1;

		if (p->dead || p->task_fd < 0)
			continue;
		if (!all && !p->dirty && s->o.procconn_fd >= 0 &&
		    (s->seq + p->tgid) % LIST_EVERY != 0)
			continue;
		p->dirty = 0;
		p->list_gen++;
		if (lseek(p->task_fd, 0, SEEK_SET) < 0)
			ok = 0;
		while (ok) {
			long n = syscall(SYS_getdents64, p->task_fd, s->dents, sizeof(s->dents));
			if (n < 0) {
				ok = 0;
				break;
			}
			if (n == 0)
				break;
			for (long off = 0; off < n;) {
				const char *d = s->dents + off;
				unsigned short reclen;
				const char *name = d + 19; /* d_ino 8, d_off 8, d_reclen 2, d_type 1 */
				uint32_t tid = 0;
				struct thr *t;

				memcpy(&reclen, d + 16, sizeof(reclen));
				if (reclen == 0)
					break;
				off += reclen;
				if (name[0] < '1' || name[0] > '9')
					continue;
				for (const char *c = name; *c >= '0' && *c <= '9'; c++)
					tid = tid * 10 + (uint32_t)(*c - '0');
				t = thr_find(s, tid);
				if (t && t->tgid != p->tgid) {
					/* the tid was reused by another process: drop the old entry */
					thr_remove(s, (size_t)(t - s->thr));
					t = NULL;
				}
				if (t) {
					t->listed_gen = p->list_gen;
				} else if (add_new) {
					int err = thr_appear(s, p, tid);
					if (err < 0)
						return err;
				}
			}
			/* the kernel stops filling only when the next entry does not fit, so a
			 * buffer with room for a long entry left means the listing is complete:
			 * this saves the getdents64 call that would return 0 */
			if ((size_t)n + 512 <= sizeof(s->dents))
				break;
		}
		if (!ok) {
			p->dead = 1;
			p->dead_at = s->seq;
		}
	}
	return 0;
}

/* Is t listed in the latest listing of its (live) process? */
static int thr_listed(struct pmc_sampler *s, const struct thr *t)
{
	const struct proc *p = proc_find(s, t->tgid);
	return p && !p->dead && t->listed_gen == p->list_gen;
}

static void thr_mark_dead(struct pmc_sampler *s, struct thr *t)
{
	if (!t->dead) {
		struct proc *p = proc_find(s, t->tgid);
		t->dead = 1;
		t->dead_at = s->seq;
		thr_close(t); /* its values are final; descriptors are better spent on new threads */
		if (p)
			p->dirty = 1; /* learn when it leaves the listing */
	}
}

/* Writes the EXIT records that are due and drops entries no longer needed. A dead thread's EXIT
 * waits one sample for its taskstats record (which the kernel queued before the thread left
 * /proc, but possibly after our last drain); a process leader's waits until it is reaped, so the
 * record can carry the wait status. At finish everything dead is written. */
static void write_exits(struct pmc_sampler *s)
{
	for (size_t i = 0; i < s->nthr;) {
		struct thr *t = &s->thr[i];
		int listed = thr_listed(s, t);

		if (t->dead && !t->exit_written) {
			int due;
			if (t->tid == t->tgid && listed) {
				struct proc *p = proc_find(s, t->tgid);
				due = 0; /* zombie leader: not reaped yet; look again next sample */
				if (p)
					p->dirty = 1;
			} else {
				due = t->has_final || s->o.taskstats_fd < 0 || s->finishing ||
				      s->seq > t->dead_at;
			}
			if (due) {
				const struct proc *p = proc_find(s, t->tgid);
				uint8_t flags = t->has_final ? PMT_TASKF_FINAL : 0;
				int32_t status = 0;
				if (t->tid == t->tgid && p && p->has_status) {
					flags |= PMT_TASKF_STATUS;
					status = p->status;
				}
				write_task(s, PMT_TASK_EXIT, flags, t, status,
					   t->has_final ? t->final_run_ns : t->v.run_ns,
					   t->has_final ? t->final_wait_ns : t->v.wait_ns);
				if (t->has_final)
					s->st.final_exits++;
				t->exit_written = 1;
			}
		}
		if (t->exit_written && !listed) {
			thr_remove(s, i);
			continue; /* the last entry moved into i */
		}
		if (t->exit_written) {
			struct proc *p = proc_find(s, t->tgid);
			if (p)
				p->dirty = 1; /* a tombstone: drop it once it leaves the listing */
		}
		i++;
	}
	/* processes: forget them a couple of samples after their directory went away, once the
	 * taskstats records of their last threads had time to arrive */
	for (size_t i = 0; i < s->nproc;) {
		struct proc *p = &s->proc[i];
		if (p->dead && (s->finishing || s->seq >= p->dead_at + 2)) {
			proc_remove(s, i);
			continue;
		}
		i++;
	}
}

/* ---- kernel events ---- */

static void on_proc_event(void *ctx, const struct pmc_proc_event *ev)
{
	struct pmc_sampler *s = ctx;
	struct proc *p;
	struct thr *t;

	switch (ev->kind) {
	case PMC_PROC_FORK:
		/* a new process whose parent is followed; threads show up in the listing */
		if (ev->pid == ev->tgid) {
			/* a parent that exited since (the middle process of a double fork) is
			 * kept, marked dead, for two samples: it forked while followed */
			if (in_tree(s, ev->parent_tgid) || proc_find(s, ev->parent_tgid))
				set_err(s, proc_add(s, ev->tgid, ev->parent_tgid));
		} else if ((p = proc_find(s, ev->tgid)) != NULL) {
			p->dirty = 1; /* a new thread */
		}
		break;
	case PMC_PROC_EXIT:
		if ((p = proc_find(s, ev->tgid)) != NULL)
			p->dirty = 1;
		break;
	case PMC_PROC_EXEC:
		if ((p = proc_find(s, ev->tgid)) != NULL)
			p->dirty = 1; /* exec ended the other threads */
		t = thr_find(s, ev->pid);
		if (t && t->tgid == ev->tgid && !t->dead) {
			char path[64], buf[PMC_COMM_MAX + 1];
			ssize_t n = -1;
			int fd;
			snprintf(path, sizeof(path), "/proc/%u/comm", ev->tgid);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				n = read(fd, buf, sizeof(buf));
				close(fd);
			}
			if (n > 0) {
				if (buf[n - 1] == '\n')
					n--;
				t->comm_len = (uint8_t)(n > PMC_COMM_MAX ? PMC_COMM_MAX : n);
				memcpy(t->comm, buf, t->comm_len);
			}
			write_task(s, PMT_TASK_EXEC, 0, t, 0, 0, 0);
		}
		break;
	case PMC_PROC_COMM:
		/* the trace has no rename record; later records (EXIT) carry the new name */
		t = thr_find(s, ev->pid);
		if (t && t->tgid == ev->tgid) {
			size_t n = strnlen(ev->comm, sizeof(ev->comm) - 1);
			t->comm_len = (uint8_t)n;
			memcpy(t->comm, ev->comm, n);
		}
		break;
	default:
		break;
	}
}

static void on_task_exit(void *ctx, const struct pmc_task_exit *ex)
{
	struct pmc_sampler *s = ctx;
	struct thr *t = thr_find(s, ex->pid);

	if (t && (ex->tgid == 0 || ex->tgid == t->tgid)) {
		if (t->exit_written || t->has_final)
			return;
		t->has_final = 1;
		t->final_run_ns = ex->run_ns;
		/* cpu_delay_total is the run-queue delay schedstat shows; should a kernel leave it
		 * out, the last sampled value is the better bound */
		t->final_wait_ns = ex->wait_ns >= t->v.wait_ns ? ex->wait_ns : t->v.wait_ns;
		thr_mark_dead(s, t);
		return;
	}
	if (!t && ex->tgid && proc_find(s, ex->tgid)) {
		/* a thread of a followed process that lived and died between two samples: its
		 * CPU time would otherwise be lost, so it appears and exits here */
		struct thr *n = thr_new(s, ex->pid, ex->tgid);
		size_t len = strnlen(ex->comm, sizeof(ex->comm) - 1);
		if (!n) {
			set_err(s, PMT_E_NOMEM);
			return;
		}
		n->ppid = ex->ppid;
		n->comm_len = (uint8_t)(len > PMC_COMM_MAX ? PMC_COMM_MAX : len);
		memcpy(n->comm, ex->comm, n->comm_len);
		n->v.run_ns = ex->run_ns;
		n->v.wait_ns = ex->wait_ns;
		n->v.timeslices = ex->timeslices;
		n->has_final = 1;
		n->final_run_ns = ex->run_ns;
		n->final_wait_ns = ex->wait_ns;
		n->dead = 1;
		n->dead_at = s->seq;
		{
			/* a zombie leader may still be listed: check at the next listing */
			struct proc *p = proc_find(s, ex->tgid);
			n->listed_gen = p->list_gen;
			p->dirty = 1;
		}
		s->st.threads_seen++;
		write_task(s, PMT_TASK_APPEAR, 0, n, 0, 0, 0);
	}
}

static void drain_events(struct pmc_sampler *s)
{
	int dropped = 0;

	if (s->o.procconn_fd >= 0) {
		(void)pmc_procconn_drain(s->o.procconn_fd, on_proc_event, s, &dropped);
		if (dropped) {
			/* events were lost: list every process at this sample */
			for (size_t i = 0; i < s->nproc; i++)
				s->proc[i].dirty = 1;
		}
		if (dropped && !s->warned_pc_drop) {
			s->warned_pc_drop = 1;
			warn(s, PMC_WARN_PROC_CONNECTOR_DROPPED, "the proc connector dropped events (receive buffer full): "
				"processes created then may be missing");
		}
	}
	dropped = 0;
	if (s->o.taskstats_fd >= 0) {
		(void)pmc_taskstats_drain(s->o.taskstats_fd, s->o.taskstats_family, on_task_exit, s,
					  &dropped);
		if (dropped && !s->warned_ts_drop) {
			s->warned_ts_drop = 1;
			warn(s, PMC_WARN_TASKSTATS_DROPPED, "taskstats dropped exit records (receive buffer full): some exits "
				"carry sampled rather than exact final values");
		}
	}
}

/* Without the proc connector: finds processes whose parent is followed (or is pmcollect, which
 * adopts orphans as subreaper) by reading the ppid of every /proc/<pid>/stat. Costs about 5 us per
 * process on the machine, so it runs every scan_every samples; a process living less than that is
 * missed. */
static void scan_proc(struct pmc_sampler *s)
{
	struct cand {
		uint32_t pid, ppid;
	} *c = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	int added;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[64], buf[1024];
		struct pmc_stat st;
		uint32_t pid = 0;
		ssize_t len;
		int fd;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		for (const char *q = de->d_name; *q >= '0' && *q <= '9'; q++)
			pid = pid * 10 + (uint32_t)(*q - '0');
		if (proc_find(s, pid) || pid == s->o.collector_pid)
			continue;
		snprintf(path, sizeof(path), "/proc/%u/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf));
		close(fd);
		if (len <= 0 || pmc_parse_stat(buf, (size_t)len, &st) < 0)
			continue;
		if (PM_GROW(c, cap, n + 1) < 0)
			break;
		c[n].pid = pid;
		c[n].ppid = st.ppid;
		n++;
	}
	closedir(d);
	/* children before parents is possible (pid wrap), so repeat until nothing is added */
	do {
		added = 0;
		for (size_t i = 0; i < n; i++) {
			if (c[i].pid && in_tree(s, c[i].ppid)) {
				set_err(s, proc_add(s, c[i].pid, c[i].ppid));
				c[i].pid = 0;
				added = 1;
			}
		}
	} while (added);
	free(c);
}

/* ---- public ---- */

int pmc_sampler_new(struct pmc_sampler **out, struct pmt_writer *w,
		    const struct pmc_sampler_opts *opts)
{
	struct pmc_sampler *s;

	if (!out || !w || !opts)
		return PMT_E_INVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return PMT_E_NOMEM;
	s->w = w;
	s->o = *opts;
	if (!s->o.stat_every)
		s->o.stat_every = 16;
	if (!s->o.status_every)
		s->o.status_every = 64;
	if (!s->o.scan_every)
		s->o.scan_every = 10;
	*out = s;
	return 0;
}

int pmc_sampler_add_process(struct pmc_sampler *s, uint32_t tgid, uint32_t ppid)
{
	return proc_add(s, tgid, ppid);
}

void pmc_sampler_reaped(struct pmc_sampler *s, uint32_t pid, int status)
{
	struct proc *p = proc_find(s, pid);

	if (p) {
		p->has_status = 1;
		p->status = status;
	}
}

int pmc_sampler_sample(struct pmc_sampler *s, uint64_t t_ns)
{
	struct pmt_sample rec;
	struct timespec ts;
	uint64_t end_ns;
	size_t n = 0;
	int err;

	if (s->err)
		return s->err;
	s->t_ns = t_ns;
	drain_events(s);
	if (s->o.procconn_fd < 0 && s->seq % s->o.scan_every == 0)
		scan_proc(s);
	err = list_threads(s, 1, 0);
	if (err < 0)
		set_err(s, err);
	if (PM_GROW(s->out, s->cap_out, s->nthr) < 0)
		return s->err = PMT_E_NOMEM;
	for (size_t i = 0; i < s->nthr; i++) {
		struct thr *t = &s->thr[i];
		int want_stat, want_status;

		if (t->dead)
			continue;
		if (!thr_listed(s, t)) {
			thr_mark_dead(s, t);
			continue;
		}
		if (t->fresh) {
			/* appeared in this listing: thr_appear has just read all three files */
			t->fresh = 0;
			s->out[n++] = t->v;
			continue;
		}
		want_stat = s->seq % s->o.stat_every == t->stat_phase;
		want_status = s->seq % s->o.status_every == t->status_phase;
		if (!thr_refresh(s, t, want_stat, want_status)) {
			thr_mark_dead(s, t);
			continue;
		}
		s->out[n++] = t->v;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	write_exits(s);
	rec.run_id = s->o.run_id;
	rec.t_ns = t_ns;
	rec.duration_ns = end_ns - t_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)(end_ns - t_ns);
	rec.n = (uint32_t)n;
	rec.threads = s->out;
	if (!s->err)
		set_err(s, pmt_writer_sample(s->w, &rec));
	s->seq++;
	if (!s->err) {
		s->st.samples++;
		s->st.thread_samples += n;
	}
	return s->err;
}

int pmc_sampler_finish(struct pmc_sampler *s, uint64_t t_ns)
{
	if (s->err)
		return s->err;
	s->t_ns = t_ns;
	drain_events(s);
	set_err(s, list_threads(s, 0, 1));
	for (size_t i = 0; i < s->nthr; i++) {
		struct thr *t = &s->thr[i];
		if (!t->dead && !thr_listed(s, t))
			thr_mark_dead(s, t);
	}
	s->finishing = 1;
	write_exits(s);
	return s->err;
}

void pmc_sampler_stats(const struct pmc_sampler *s, struct pmc_sampler_stats *st)
{
	*st = s->st;
	st->cpu_ns = s->exited_run_ns;
	for (size_t i = 0; i < s->nthr; i++)
		if (!s->thr[i].exit_written)
			st->cpu_ns += s->thr[i].v.run_ns;
}

void pmc_sampler_free(struct pmc_sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nthr; i++)
		thr_close(&s->thr[i]);
	for (size_t i = 0; i < s->nproc; i++)
		if (s->proc[i].task_fd >= 0)
			close(s->proc[i].task_fd);
	pm_tidmap_free(&s->thr_map);
	pm_tidmap_free(&s->proc_map);
	free(s->thr);
	free(s->proc);
	free(s->out);
	free(s);
}
