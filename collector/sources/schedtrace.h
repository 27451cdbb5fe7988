/* SPDX-License-Identifier: MIT */
/* schedtrace.h: records the traced program's scheduler events (sched_switch, sched_waking (or
 * sched_wakeup where it is missing), sched_wakeup_new, sched_process_fork, sched_process_exit,
 * sched_migrate_task)
 * from a private tracefs instance and writes them as SCHED records (formats/FORMAT.md §5.6).
 * Errors: every function returns 0 or a negative PMT_E_* code (pmt.h); set-up failures also give a
 * one-line reason in why, writer failures pass the writer's own code on. */
#ifndef PMC_SCHEDTRACE_H
#define PMC_SCHEDTRACE_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmt.h"
#include "pm_cli.h"

struct pmc_sched;

/* Default ring buffer per CPU, KiB: 100k context switches per second make about 300k events per
 * second (switch, waking, wakeup) of ~60 bytes in the ring buffer; drained every 10 ms that is
 * ~200 KB, so 4 MiB leaves 20x headroom for a collector that is late. */
#define PMC_SCHED_BUFFER_KB_DEFAULT 4096u

/* Names the instance of pmc_sched_open and pmc_sched_watchdog after the rank of an MPI or Slurm
 * job too: "pmcollect-<pid>-r<rank>" (docs/cluster.md: the ranks of a node each have their own instance,
 * and an instance left behind says which rank left it). rank < 0: "pmcollect-<pid>". Call before
 * both. */
void pmc_sched_set_rank(long rank);

/* Creates the private tracefs instance "pmcollect-<pid>" (see pmc_sched_set_rank; never the global buffer), removing
 * instances left by a pmcollect that was killed (name pmcollect-<pid> of a pid that is gone);
 * sets trace_clock "mono" (so event times are CLOCK_MONOTONIC like the /proc samples), a buffer
 * of buffer_kb KiB per CPU, the event-fork option (children of a followed pid are followed),
 * loads the sched event formats with libtraceevent and opens the trace_pipe_raw of every CPU in
 * online (the caller's reading of /sys/devices/system/cpu/online).
 * Nothing is enabled yet. Installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT of
 * pmcollect that remove the instance before the signal's default action.
 * Four steps: check the tracefs (pmc_sched_probe) and create the instance, load the event
 * formats, configure it, open the CPU buffers.
 * Returns 0 and *out, or PMT_E_IO (tracefs not mounted, no permission to create an instance, a
 * tracefs file that cannot be written), PMT_E_INVAL (an event or field missing) or PMT_E_NOMEM,
 * with a one-line reason in why. Source: Documentation/trace/ftrace.rst (instances,
 * set_event_pid, options/event-fork, trace_clock), libtracefs(3). */
int pmc_sched_open(struct pmc_sched **out, unsigned buffer_kb, const struct pm_intlist *online,
		   char *why, size_t whysize);

/* Starts recording run run_id of the process pid (still waiting to exec, or running: -p) and of
 * the tasks more[nmore] (NULL, 0: none; -p: every thread of the attached processes): clears the
 * buffer, limits the instance to the program's CPUs (tracing_cpumask) and records everything on
 * them when cpus is given (the program is pinned there), else filters to those tasks and their
 * descendants (set_event_pid, written whole before tracing is on, with event-fork) on every CPU;
 * enables the events and turns tracing on. Returns 0, or PMT_E_IO with a one-line reason in why
 * ("cannot start tracing pid N: ..."). Source: Documentation/trace/ftrace.rst. */
int pmc_sched_start(struct pmc_sched *s, pid_t pid, const pid_t *more, size_t nmore,
		    uint32_t run_id, const cpu_set_t *cpus, char *why, size_t whysize);

/* Reads every event the kernel has buffered so far, decodes it and appends SCHED records (one per
 * CPU with events, split at 16384 events) to w. Call it often (every sample): events that do not
 * fit the ring buffer are lost; the count of events written grows in the run's stats. With w NULL
 * the events are read and dropped, not counted (the delay before a window, pmcollect --delay).
 * Returns 0, or the writer's negative PMT_E_* code. */
int pmc_sched_drain(struct pmc_sched *s, struct pmt_writer *w);

/* What one run recorded (for RUN_END and the warnings). */
struct pmc_sched_stats {
	uint64_t events;          /* events written */
	uint64_t lost;            /* events the kernel reported lost: per-CPU "overrun" plus
				     "dropped events" (per_cpu/cpuN/stats), and counts from pages */
	uint64_t lost_pages;      /* pages whose header said events were missed before them */
	uint64_t drains;          /* pmc_sched_drain calls */
	const char *filter;       /* "pid" or "cpus": how the events were limited to the program */
};

/* Stops the run: turns tracing off, disables the events, drains what is left into w and reads
 * the per-CPU lost-event counters. Fills *st. Returns 0 or a negative PMT_E_* from the writer. */
int pmc_sched_stop(struct pmc_sched *s, struct pmt_writer *w, struct pmc_sched_stats *st);

/* Starts a watchdog for the tracefs instance this pmcollect will create (pmcollect-<pid>): a
 * grandchild, re-parented away from pmcollect (call it before PR_SET_CHILD_SUBREAPER, so it is
 * never part of the followed tree), in its own session, that waits for pmcollect's end on a pipe
 * and then removes the instance if it is still there: the one exit path no handler covers is
 * SIGKILL. Call once, early, as root. Returns 0, or PMT_E_IO / PMT_E_INVAL with a one-line reason
 * in why (pmcollect goes on without). */
int pmc_sched_watchdog(char *why, size_t whysize);

/* Checks, reading only, that tdir (a tracefs mount point; NULL: none was found) looks usable: it
 * has an events folder and events/sched/<name>/format for every event pmcollect needs
 * (sched_waking may be missing: sched_wakeup stands in). A path that exists but cannot be read
 * (EACCES, not root) passes: creating the instance then gives the reason. pmc_sched_open runs it
 * first, on <PMT_SYSFS_ROOT>/sys/kernel/tracing when that variable is set (tests: the fixture
 * trees of tests/fixtures/sysfs/README.md), else on the machine's tracefs.
 * Returns 0, PMT_E_IO ("tracefs is not mounted (...)") or PMT_E_INVAL ("the kernel has no
 * sched:<event> event (no <path>)") with the reason in why. Source: Documentation/trace/events.rst
 * (events/<system>/<event>/format). */
int pmc_sched_probe(const char *tdir, char *why, size_t whysize);

/* Closes the buffers and removes the tracefs instance. NULL is accepted. */
void pmc_sched_close(struct pmc_sched *s);

/* Events enabled (after pmc_sched_open), as a NULL-terminated list of "system:event" names (for
 * the metadata); sched_wakeup is enabled only on kernels without sched_waking. */
const char *const *pmc_sched_event_names(void);

#endif
