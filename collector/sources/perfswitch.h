/* SPDX-License-Identifier: MIT */
/* perfswitch.h: records the traced program's context switches, forks and exits with
 * perf_event_open (PERF_RECORD_SWITCH, PERF_RECORD_FORK, PERF_RECORD_EXIT), which an unprivileged
 * user may open on their own processes, and writes them as PSWITCH records (formats/FORMAT.md
 * §5.10): the exact mode for users who cannot use tracefs (docs/model.md "switch-exact").
 * Errors: every function returns 0 or a negative PMT_E_* code (pmt.h); set-up failures also give a
 * one-line reason in why, writer failures pass the writer's own code on. */
#ifndef PMC_PERFSWITCH_H
#define PMC_PERFSWITCH_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pm_cli.h"
#include "pmt.h"

struct pmc_pswitch;

/* Ring buffer per CPU: data pages (a power of two) of the mmapped perf buffer. A switch record
 * is 40 bytes; 256 pages (1 MiB) hold 26000 of them, 0.3 s of a ping-pong at 87k records per
 * second, drained at every sample and at least every 10 ms: a collector starved by load 40 lost
 * 0.7% and 5.5% of them with 64 pages (make bench section 7). A user's mmapped perf buffers
 * are limited (kernel.perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK): where the kernel
 * refuses, the size is halved down to PMC_PSWITCH_PAGES_MIN. */
#define PMC_PSWITCH_PAGES 256u
#define PMC_PSWITCH_PAGES_MIN 8u

/* Whether this process may record context switches: reads kernel.perf_event_paranoid from
 * $PMT_PROCFS_ROOT/sys/kernel/perf_event_paranoid (PMT_PROCFS_ROOT defaults to /proc; tests point
 * it at a fixture), refuses at 3 or more without root (Debian's and Android's "no perf for
 * users"), then opens and closes the event of pmc_pswitch_start on pmcollect itself on CPU
 * cpu, so seccomp filters, containers and kernels without PERF_RECORD_SWITCH (< 4.3) are found
 * here. Returns 0, or PMT_E_IO with a one-line reason in why ("kernel.perf_event_paranoid is 3
 * ...", "perf_event_open: Operation not permitted ..."). Source: perf_event_open(2),
 * Documentation/admin-guide/sysctl/kernel.rst (perf_event_paranoid). */
int pmc_pswitch_probe(int cpu, char *why, size_t whysize);

/* The session's choice (pmcollect --perf-switch, --no-perf-switch): mode 1 records the context
 * switches whatever else is recorded, 0 does not, -1 (the default) records them when the
 * scheduler events are not recorded (sched_recorded 0) for a reason other than --no-sched
 * (sched_off_by_user 0): tracefs is the exact mode where it works. Probes (pmc_pswitch_probe) and
 * creates the recorder in *out. Returns 0 with *out, or with *out NULL and why saying why it was
 * not wanted ("turned off with --no-perf-switch"); PMT_E_IO with why when it was wanted but is not
 * permitted; PMT_E_NOMEM. */
int pmc_pswitch_session(struct pmc_pswitch **out, int mode, int sched_recorded,
			int sched_off_by_user, const struct pm_intlist *online, char *why,
			size_t whysize);

/* Creates a recorder for the CPUs of online (the caller's reading of
 * /sys/devices/system/cpu/online; copied). Nothing is opened yet. Returns 0 and *out, or
 * PMT_E_NOMEM. */
int pmc_pswitch_new(struct pmc_pswitch **out, const struct pm_intlist *online);

/* Starts recording run run_id of process pid (still waiting to exec, so every thread and child
 * it makes inherits the events): one PERF_COUNT_SW_DUMMY event with context_switch, task,
 * inherit, sample_id_all, PERF_SAMPLE_TID | PERF_SAMPLE_TIME and use_clockid CLOCK_MONOTONIC per
 * CPU of cpus (every online CPU when cpus is NULL), each mmapped with PMC_PSWITCH_PAGES data
 * pages, or fewer where the kernel's limits refuse them. Returns 0, or PMT_E_IO / PMT_E_NOMEM with a one-line reason in why (nothing stays
 * open). */
int pmc_pswitch_start(struct pmc_pswitch *p, pid_t pid, uint32_t run_id, const cpu_set_t *cpus,
		      char *why, size_t whysize);

/* pmcollect -p: after pmc_pswitch_start on one thread of a running process, records thread tid
 * too: the same event on tid for each CPU of the run, its output redirected into that CPU's
 * buffer (PERF_EVENT_IOC_SET_OUTPUT), so one ring per CPU holds every thread's records. A thread
 * that tid creates later inherits the event (inherit); one created by a thread not yet added
 * does not, so the caller lists the threads again until none is new. A thread that has ended
 * (ESRCH) is not an error. Returns 0, or PMT_E_IO / PMT_E_NOMEM with a one-line reason in why
 * (the events added so far stay open until pmc_pswitch_stop). Source: perf_event_open(2),
 * PERF_EVENT_IOC_SET_OUTPUT. */
int pmc_pswitch_add_thread(struct pmc_pswitch *p, pid_t tid, char *why, size_t whysize);

/* Reads every record the kernel has buffered so far and appends one PSWITCH record per CPU with
 * events (split at 16384 events) to w (w NULL: read and dropped, e.g. during pmcollect --delay). Call it often: records that do not fit the buffer are
 * lost (counted). Returns 0, or the writer's negative PMT_E_* code. */
int pmc_pswitch_drain(struct pmc_pswitch *p, struct pmt_writer *w);

/* What one run recorded (RUN_END "perf_switch"). */
struct pmc_pswitch_stats {
	uint64_t switches;  /* switch-in and switch-out events written */
	uint64_t preempted; /* switch-outs with the preempt flag */
	uint64_t tasks;     /* fork and exit events written */
	uint64_t lost;      /* records the kernel reported lost (PERF_RECORD_LOST) */
	uint32_t cpus;      /* buffers (CPUs) recorded */
	uint32_t pages;     /* data pages per buffer (PMC_PSWITCH_PAGES or fewer) */
};

/* Stops the run: disables the events, drains what is left into w (when w is not NULL), closes
 * them and fills *st. Returns 0 or the writer's negative PMT_E_* code. */
int pmc_pswitch_stop(struct pmc_pswitch *p, struct pmt_writer *w, struct pmc_pswitch_stats *st);

struct cJSON;
/* Adds RUN_END key "perf_switch" (FORMAT.md §6 RUN_END) to o: {"switches", "preempted", "tasks",
 * "lost", "cpus", "pages_per_cpu"}. Out of memory leaves the key out. */
void pmc_pswitch_run_end(struct cJSON *o, const struct pmc_pswitch_stats *st);

/* Frees the recorder (stopping a run still open, without draining). NULL is accepted. */
void pmc_pswitch_free(struct pmc_pswitch *p);

#endif
