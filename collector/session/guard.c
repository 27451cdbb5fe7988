/* SPDX-License-Identifier: MIT */
/* guard.c: the guardian process of pmcollect -p PID --cpus LIST (guard.h): it holds every thread's
 * own affinity while the window runs them on the window's CPUs, and gives it back at the window's
 * end or when pmcollect dies. A pipe whose write end only pmcollect holds tells it both: pmcollect
 * closes it at the end, and the kernel closes it when pmcollect is killed (SIGKILL included). */
#include "guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct pmc_guard {
	pid_t pid;    /* the guardian */
	int ctl;      /* write end of its control pipe: closed = restore and exit */
	int rep;      /* read end of its report pipe */
};

/* One thread the guardian moved: its process, id and own affinity. */
struct guard_thread {
	pid_t tgid, tid;
	cpu_set_t saved;
};

/* How many generations of processes below an attached one the guardian follows. */
#define GUARD_DEPTH 16

struct guard_state {
	const cpu_set_t *cpus;
	struct guard_thread *t;
	size_t n, cap;
	struct pmc_guard_stats st;
};

static const struct guard_thread *guard_find(const struct guard_state *g, pid_t tid)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->t[i].tid == tid)
			return &g->t[i];
	return NULL;
}

/* The saved affinity of process tgid's first thread the guardian met (its main thread when that
 * was there), or NULL. */
static const cpu_set_t *guard_process_saved(const struct guard_state *g, pid_t tgid)
{
	const struct guard_thread *main = guard_find(g, tgid);

	if (main)
		return &main->saved;
	for (size_t i = 0; i < g->n; i++)
		if (g->t[i].tgid == tgid)
			return &g->t[i].saved;
	return NULL;
}

/* When the guardian meets a thread: at the window's start, during it, or while it restores. */
enum guard_phase { GUARD_FIRST, GUARD_WINDOW, GUARD_END };

/* Remembers thread tid of tgid with its own affinity (its current one in the first scan; later a
 * thread on the window's CPUs was created by a moved thread and gets its process's, or in a process
 * started during the window its parent process's), and moves it
 * onto the window's CPUs unless the window has ended. Returns 0, or the errno of
 * sched_setaffinity(2) (ESRCH: it ended meanwhile, not an error). */
static int guard_move(struct guard_state *g, pid_t tgid, pid_t parent, pid_t tid,
		      enum guard_phase phase)
{
	cpu_set_t cur;
	const cpu_set_t *inherited;

	if (sched_getaffinity(tid, sizeof(cur), &cur) < 0)
		return errno;
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		struct guard_thread *t = realloc(g->t, cap * sizeof(*t));
		if (!t)
			return ENOMEM;
		g->t = t;
		g->cap = cap;
	}
	/* created during the window by a thread already moved: it inherited the window's CPUs, and
	   its own affinity is its process's */
	if (phase != GUARD_FIRST && CPU_EQUAL(&cur, g->cpus)) {
		inherited = guard_process_saved(g, tgid);
		if (!inherited && parent > 0)
			inherited = guard_process_saved(g, parent);
	} else {
		inherited = NULL;
	}
	g->t[g->n] = (struct guard_thread){ .tgid = tgid, .tid = tid, .saved = inherited ? *inherited : cur };
	if (phase != GUARD_END && !CPU_EQUAL(&cur, g->cpus) &&
	    sched_setaffinity(tid, sizeof(*g->cpus), g->cpus) < 0)
		return errno;
	g->n++;
	g->st.moved += phase != GUARD_END || inherited;
	return 0;
}

/* Meets the threads of tgid (a child of process parent, 0 for an attached one) not met yet
 * (guard_move), and those of the processes its threads started (/proc/PID/task/TID/children),
 * depth levels down at most. Returns 0 (the process ended: nothing to move), or the first errno
 * other than ESRCH. */
static int guard_scan(struct guard_state *g, pid_t tgid, pid_t parent, enum guard_phase phase,
		      int depth)
{
	char path[96];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	if (!(d = opendir(path)))
		return 0;
	while (!err && (de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		FILE *f;
		int child;
		if (tid <= 0)
			continue;
		if (!guard_find(g, tid)) {
			err = guard_move(g, tgid, parent, tid, phase);
			if (err == ESRCH)
				err = 0;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)tgid, (int)tid);
		if (depth <= 0 || !(f = fopen(path, "r")))
			continue;
		while (!err && fscanf(f, "%d", &child) == 1)
			err = guard_scan(g, (pid_t)child, tgid, phase, depth - 1);
		fclose(f);
	}
	closedir(d);
	return err;
}

/* Gives threads from..g->n-1 their own affinity back, unless the program set another one. */
static void guard_restore(struct guard_state *g, size_t from)
{
	for (size_t i = from; i < g->n; i++) {
		cpu_set_t cur;
		if (sched_getaffinity(g->t[i].tid, sizeof(cur), &cur) < 0)
			g->st.gone++;
		else if (!CPU_EQUAL(&cur, g->cpus))
			g->st.kept++;
		else if (sched_setaffinity(g->t[i].tid, sizeof(g->t[i].saved), &g->t[i].saved) == 0)
			g->st.restored++;
		else
			g->st.gone++;
	}
}

/* Closes every descriptor but a and b (a < b). */
static void close_others(int a, int b)
{
	for (int fd = 0; fd < 3; fd++) /* stdin, stdout, stderr: a terminal or pmcollect's pipes */
		if (fd != a && fd != b) {
			int nul = open("/dev/null", O_RDWR);
			if (nul >= 0 && nul != fd) {
				dup2(nul, fd);
				close(nul);
			}
		}
	for (int fd = 3; fd < 65536; fd++)
		if (fd != a && fd != b && fcntl(fd, F_GETFD) >= 0)
			close(fd);
}

/* The guardian: the first scan, a byte of 0 (ready) or an error line on rep; rescans until ctl
 * reaches EOF; restores; its stats on rep. Never returns. */
static void guard_main(const pid_t *pids, size_t npids, const cpu_set_t *cpus, int ctl, int rep)
{
	struct guard_state g = { .cpus = cpus };
	char msg[256];
	int err = 0;

	close_others(ctl < rep ? ctl : rep, ctl < rep ? rep : ctl);
	for (size_t i = 0; !err && i < npids; i++) {
		err = guard_scan(&g, pids[i], 0, GUARD_FIRST, GUARD_DEPTH);
		if (err)
			snprintf(msg, sizeof(msg), "cannot move the threads of process %d onto --cpus: %s",
				 (int)pids[i], strerror(err));
	}
	if (err) {
		guard_restore(&g, 0);
		(void)!write(rep, msg, strlen(msg));
		_exit(1);
	}
	(void)!write(rep, "", 1);
	for (;;) {
		struct pollfd p = { .fd = ctl, .events = POLLIN };
		char c;
		int r = poll(&p, 1, PMC_GUARD_SCAN_MS);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && read(ctl, &c, 1) <= 0)
			break; /* pmcollect closed it, or died */
		for (size_t i = 0; i < npids; i++)
			(void)guard_scan(&g, pids[i], 0, GUARD_WINDOW, GUARD_DEPTH);
	}
	/* a thread created by a thread not yet restored is on the window's CPUs: scan again until a
	   scan finds none (bounded: a program that makes threads without end is not waited for) */
	for (size_t from = 0, round = 0; round < 100; round++) {
		for (size_t i = 0; i < npids; i++)
			(void)guard_scan(&g, pids[i], 0, GUARD_END, GUARD_DEPTH);
		if (round > 0 && g.n == from)
			break;
		guard_restore(&g, from);
		from = g.n;
	}
	(void)!write(rep, &g.st, sizeof(g.st));
	_exit(0);
}

struct pmc_guard *pmc_guard_start(const pid_t *pids, size_t npids, const cpu_set_t *cpus, char *why,
				  size_t whysize)
{
	struct pmc_guard *g = calloc(1, sizeof(*g));
	int ctl[2] = { -1, -1 }, rep[2] = { -1, -1 };
	char buf[256];
	ssize_t n;

	if (!g || pipe2(ctl, O_CLOEXEC) < 0 || pipe2(rep, O_CLOEXEC) < 0) {
		snprintf(why, whysize, "cannot create a pipe: %s", g ? strerror(errno) : strerror(ENOMEM));
		goto fail;
	}
	g->pid = fork();
	if (g->pid < 0) {
		snprintf(why, whysize, "cannot fork the affinity guardian: %s", strerror(errno));
		goto fail;
	}
	if (g->pid == 0)
		guard_main(pids, npids, cpus, ctl[0], rep[1]);
	close(ctl[0]);
	close(rep[1]);
	g->ctl = ctl[1];
	g->rep = rep[0];
	do
		n = read(g->rep, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && buf[0] == '\0')
		return g;
	buf[n > 0 ? n : 0] = '\0';
	snprintf(why, whysize, "%s", n > 0 ? buf : "the affinity guardian ended before it was ready");
	(void)pmc_guard_stop(g, NULL);
	return NULL;
fail:
	for (int i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	free(g);
	return NULL;
}

int pmc_guard_stop(struct pmc_guard *g, struct pmc_guard_stats *st)
{
	struct pmc_guard_stats got = { 0 };
	ssize_t n;

	if (!g)
		return 0;
	close(g->ctl);
	do
		n = read(g->rep, &got, sizeof(got));
	while (n < 0 && errno == EINTR);
	close(g->rep);
	while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (st)
		*st = n == (ssize_t)sizeof(got) ? got : (struct pmc_guard_stats){ 0 };
	free(g);
	return n == (ssize_t)sizeof(got) ? 0 : -1;
}
