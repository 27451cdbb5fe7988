/* SPDX-License-Identifier: MIT */
/* procfs.h: parsers of the per-thread /proc files the sampler reads (schedstat, stat, status),
 * over a buffer the caller filled with one pread(): no I/O here, so they are tested on fixtures. */
#ifndef PMC_PROCFS_H
#define PMC_PROCFS_H

#include <stddef.h>
#include <stdint.h>

#include "pmt.h"

#define PMC_COMM_MAX 64 /* bytes of a comm we keep; the kernel's TASK_COMM_LEN is 16, but kernel
			   threads can report up to 64 (proc_task_name()) */

/* /proc/<tgid>/task/<tid>/schedstat: "run_ns wait_ns timeslices\n" (proc(5) "schedstat";
 * Documentation/scheduler/sched-stats.rst, "/proc/<pid>/schedstat"). */
struct pmc_schedstat {
	uint64_t run_ns;     /* field 1: time spent on the CPU, ns, cumulative */
	uint64_t wait_ns;    /* field 2: time spent waiting on a run queue, ns, cumulative */
	uint64_t timeslices; /* field 3: number of timeslices run on a CPU, cumulative */
};

/* Parses a schedstat buffer of len bytes (need not be NUL-terminated): exactly three decimal
 * numbers separated by single spaces, optionally followed by one newline.
 * Returns 0 and fills *out, or PMT_E_CORRUPT when the buffer is empty, truncated, has anything else in it or a
 * number that does not fit in 64 bits; *out is then unchanged. */
int pmc_parse_schedstat(const char *buf, size_t len, struct pmc_schedstat *out);

/* The fields of /proc/<tgid>/task/<tid>/stat the collector uses; numbers are proc(5) field numbers. */
struct pmc_stat {
	uint32_t pid;              /* field 1: the thread id (tid) */
	char comm[PMC_COMM_MAX + 1]; /* field 2 without the parentheses, NUL-terminated, truncated
				       to PMC_COMM_MAX bytes; may contain ')', spaces, any byte */
	size_t comm_len;           /* bytes in comm */
	char state;                /* field 3: R S D Z T t X I (W P K x on old kernels) */
	uint32_t ppid;             /* field 4: parent's pid (tgid of the parent process) */
	uint64_t utime_ticks;      /* field 14: user time, clock ticks (sysconf(_SC_CLK_TCK)) */
	uint64_t stime_ticks;      /* field 15: system time, clock ticks */
	uint32_t num_threads;      /* field 20: threads in the thread group */
	uint64_t starttime_ticks;  /* field 22: start time after boot, clock ticks */
	int32_t processor;         /* field 39: CPU the thread last ran on */
};

/* Parses a stat buffer of len bytes (need not be NUL-terminated). comm (field 2) is delimited by
 * the first '(' and the LAST ')' in the buffer, as htop's LinuxProcessTable.c does, because a
 * thread can name itself "a) b" with prctl(PR_SET_NAME). Every field up to 39 must be present.
 * Returns 0 and fills *out, or PMT_E_CORRUPT when the buffer is truncated, a field is not a number, a number
 * overflows its type or the state is not a letter; *out is then unspecified. */
int pmc_parse_stat(const char *buf, size_t len, struct pmc_stat *out);

/* Context switches from /proc/<tgid>/task/<tid>/status (proc(5) "voluntary_ctxt_switches",
 * "nonvoluntary_ctxt_switches"; counted since the thread started). */
struct pmc_ctxt {
	uint64_t nvcsw;  /* voluntary_ctxt_switches: the thread blocked */
	uint64_t nivcsw; /* nonvoluntary_ctxt_switches: the thread was preempted */
};

/* Parses the two context-switch lines of a status buffer of len bytes (need not be
 * NUL-terminated); other lines are skipped. Each key must start a line and be followed by ':',
 * tabs or spaces, a decimal number and a newline or the end of the buffer.
 * Returns 0 and fills *out, or PMT_E_CORRUPT when either line is missing or malformed. */
int pmc_parse_status_ctxt(const char *buf, size_t len, struct pmc_ctxt *out);

/* The sampler's mapping of the three files into a thread's SAMPLE entry (formats/pmt.h
 * struct pmt_thread_sample), over buffers filled by one pread() each; each sets only its own
 * fields and flag and leaves v unchanged (flags included) when the buffer does not parse
 * (PMT_E_CORRUPT). Returns 0 otherwise.
 * pmc_sample_schedstat: run_ns = schedstat field 1 (on the CPU), wait_ns = field 2 (waiting on a
 * run queue), timeslices = field 3, all cumulative; sets PMT_TS_SCHEDSTAT_OK.
 * pmc_sample_stat: state = stat field 3, cpu = field 39 (PMT_CPU_UNKNOWN when negative or out of
 * range); sets PMT_TS_STAT_FRESH; the whole parse is left in *st (ppid, comm) for the caller.
 * pmc_sample_status: nvcsw = voluntary_ctxt_switches, nivcsw = nonvoluntary_ctxt_switches
 * (truncated to 32 bits); sets PMT_TS_STATUS_FRESH. */
int pmc_sample_schedstat(struct pmt_thread_sample *v, const char *buf, size_t len);
int pmc_sample_stat(struct pmt_thread_sample *v, const char *buf, size_t len, struct pmc_stat *st);
int pmc_sample_status(struct pmt_thread_sample *v, const char *buf, size_t len);

#endif
