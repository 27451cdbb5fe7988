/* SPDX-License-Identifier: MIT */
/* sampler.h: follows the traced process tree (threads, child processes, exec, exit) and writes one
 * SAMPLE record per sampling instant with every live thread's /proc run-queue data. */
#ifndef PMC_SAMPLER_H
#define PMC_SAMPLER_H

#include <stdint.h>

#include "pmt.h"

struct pmc_sampler;

struct pmc_sampler_opts {
	uint32_t run_id;
	uint32_t stat_every;      /* samples between two reads of a thread's stat (staggered across
				     threads); 0 = 16 */
	uint32_t status_every;    /* samples between two reads of a thread's status; 0 = 64 */
	uint32_t scan_every;      /* without the proc connector: samples between two scans of /proc
				     for new processes of the tree; 0 = 10 */
	int procconn_fd;          /* pmc_procconn_open() descriptor, or -1: scan /proc instead */
	int taskstats_fd;         /* pmc_taskstats_open() descriptor, or -1: no exact exit values */
	uint16_t taskstats_family;
	uint32_t collector_pid;   /* getpid() of pmcollect: as child subreaper it adopts orphans of
				     the tree, so a process whose parent it is belongs to the tree */
	int attached;             /* pmcollect -p: the tree's roots are running processes, not
				     pmcollect's children, so a child of pmcollect (the affinity
				     guardian, guard.h) is not the program's */
};

/* Counts for RUN_END/SUMMARY and the tests. */
struct pmc_sampler_stats {
	uint64_t samples;          /* SAMPLE records written */
	uint64_t thread_samples;   /* thread entries in them */
	uint64_t threads_seen;     /* distinct threads that appeared */
	uint64_t processes_seen;   /* distinct processes that appeared */
	uint64_t final_exits;      /* EXIT records with exact taskstats values */
	uint64_t fd_fallback;      /* threads read with open/read/close for want of descriptors */
	uint32_t warnings;         /* WARNING records written */
	uint64_t cpu_ns;           /* schedstat time on CPU of every thread of the tree: the final
				      value of exited threads plus the last one read of live ones
				      (C(n) when there are no cycle counters, Tudor & Teo eq. 7) */
};

/* Creates a sampler that writes its TASK, SAMPLE and WARNING records to w (not owned).
 * Returns 0 and *out, or PMT_E_NOMEM / PMT_E_INVAL. */
int pmc_sampler_new(struct pmc_sampler **out, struct pmt_writer *w,
		    const struct pmc_sampler_opts *opts);

/* Adds process tgid (whose parent process is ppid) to the followed tree: the root of the run,
 * added right after fork(). Its threads appear at the next sample. Returns 0 or PMT_E_NOMEM. */
int pmc_sampler_add_process(struct pmc_sampler *s, uint32_t tgid, uint32_t ppid);

/* Takes one sample at t_ns (CLOCK_MONOTONIC, measured by the caller when the sample started):
 * drains the proc connector (new processes, exec) and taskstats (exact exit values), re-reads
 * each followed process's /proc/<tgid>/task directory (lseek + getdents64 on a kept descriptor) to
 * find new and vanished threads, preads every live thread's schedstat, and stat / status when due,
 * then writes TASK records (appear, exec, exit) and one SAMPLE record.
 * Returns 0, or the writer's negative PMT_E_* code (the caller stops sampling). */
int pmc_sampler_sample(struct pmc_sampler *s, uint64_t t_ns);

/* Tells the sampler that pmcollect reaped its child pid with raw wait status; the EXIT record of
 * that process's leader will carry it (PMT_TASKF_STATUS). */
void pmc_sampler_reaped(struct pmc_sampler *s, uint32_t pid, int status);

/* Ends following at t_ns after the root process was reaped: drains taskstats one last time (the
 * kernel queues a thread's exit record before the thread can be reaped, so every exit of the root
 * process is there), and writes EXIT records for every thread that is gone. Threads still alive
 * (e.g. of a daemon the program left behind) get no EXIT record. Returns 0 or a PMT_E_* code. */
int pmc_sampler_finish(struct pmc_sampler *s, uint64_t t_ns);

void pmc_sampler_stats(const struct pmc_sampler *s, struct pmc_sampler_stats *st);

/* Closes every descriptor and frees; NULL is accepted. */
void pmc_sampler_free(struct pmc_sampler *s);

#endif
