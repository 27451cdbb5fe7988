/* SPDX-License-Identifier: MIT */
/* guard.h: pmcollect -p PID --cpus LIST: a guardian process that moves every thread of running
 * processes onto the window's CPUs and gives each thread its own affinity back when the window
 * ends, or when pmcollect dies (even by SIGKILL). */
#ifndef PMC_GUARD_H
#define PMC_GUARD_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

struct pmc_guard;

/* What the guardian did, for RUN_END "affinity". */
struct pmc_guard_stats {
	unsigned moved;     /* threads moved onto the window's CPUs (those found at the start and
			       those that appeared during the window) */
	unsigned restored;  /* threads given their own affinity back */
	unsigned kept;      /* threads that had set another affinity during the window: left so */
	unsigned gone;      /* threads that ended during the window */
};

/* Forks the guardian: it reads each thread's affinity of the npids processes pids
 * (sched_getaffinity(2) on every /proc/PID/task entry), moves it onto cpus (sched_setaffinity(2)),
 * and says so before this returns. Until pmc_guard_stop, or until the read end of its pipe reaches
 * EOF because pmcollect died, it looks for new threads every PMC_GUARD_SCAN_MS: a thread created
 * by a moved thread inherits the window's CPUs and gets its process's first thread's saved
 * affinity back; one created by a thread not yet moved is moved. At the end each thread whose
 * affinity is still the window's gets its saved one back; one the program changed is left alone.
 * The guardian keeps SIGINT, SIGTERM and SIGHUP blocked (pmcollect blocks them for its signalfd,
 * and a terminal's ^C goes to the whole process group) and closes every other descriptor.
 * Returns a new guard (free with pmc_guard_stop), or NULL with a one-line reason in why (fork or
 * pipe failed; a process's threads cannot be moved: EPERM for another user's process). */
struct pmc_guard *pmc_guard_start(const pid_t *pids, size_t npids, const cpu_set_t *cpus, char *why,
				  size_t whysize);

/* Ends the window of g: the guardian restores every thread it moved, reports, and exits; waits for
 * it (ECHILD when pmcollect's SIGCHLD reaping took it first is fine). Fills st when not NULL (zero
 * when the guardian died before reporting). Frees g; NULL is accepted. Returns 0, or -1 when the
 * guardian did not report. */
int pmc_guard_stop(struct pmc_guard *g, struct pmc_guard_stats *st);

/* How often the guardian looks for threads created during the window, ms. */
#define PMC_GUARD_SCAN_MS 10

#endif
