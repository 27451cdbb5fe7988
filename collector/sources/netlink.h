/* SPDX-License-Identifier: MIT */
/* netlink.h: the two kernel event sources of the collector: the proc connector (fork, exec, exit,
 * comm of every process; NETLINK_CONNECTOR) and taskstats exit records (exact CPU time of every
 * exiting thread; generic netlink family "TASKSTATS"). Both need root; both are optional. */
#ifndef PMC_NETLINK_H
#define PMC_NETLINK_H

#include <stddef.h>
#include <stdint.h>

/* ---- proc connector (linux/cn_proc.h) ---- */

enum pmc_proc_event_kind {
	PMC_PROC_FORK = 1, /* a task was created: a process (child_pid == child_tgid) or a thread */
	PMC_PROC_EXEC = 2, /* process tgid called execve(); pid is the thread that did (now the leader) */
	PMC_PROC_EXIT = 3, /* task pid of process tgid exited */
	PMC_PROC_COMM = 4, /* task pid renamed itself (prctl PR_SET_NAME); comm holds the new name */
};

struct pmc_proc_event {
	int kind;             /* enum pmc_proc_event_kind */
	uint32_t pid, tgid;   /* FORK: the child; others: the task the event is about */
	uint32_t parent_pid;  /* FORK: the parent thread; EXIT: the parent (kernel >= 4.x); else 0 */
	uint32_t parent_tgid; /* FORK: the parent process; EXIT: the parent's tgid; else 0 */
	uint32_t exit_code;   /* EXIT: the raw wait status the exiting task leaves */
	char comm[17];        /* COMM: new name, NUL-terminated */
};

typedef void (*pmc_proc_event_fn)(void *ctx, const struct pmc_proc_event *ev);

/* Opens a non-blocking NETLINK_CONNECTOR socket, joins CN_IDX_PROC and sends PROC_CN_MCAST_LISTEN.
 * Returns the descriptor (close-on-exec), or PMT_E_IO with a one-line reason in why (binding the group
 * needs CAP_NET_ADMIN: without root it fails with EPERM). rcvbuf_bytes is the socket receive buffer
 * to ask for (SO_RCVBUFFORCE, which root may raise past net.core.rmem_max). */
int pmc_procconn_open(int rcvbuf_bytes, char *why, size_t whysize);

/* Parses one datagram of len bytes from the proc connector socket and calls fn for each FORK,
 * EXEC, EXIT and COMM event in it (other events and malformed messages are skipped).
 * Returns the number of events passed to fn. Pure: no I/O. */
int pmc_procconn_parse(const void *buf, size_t len, pmc_proc_event_fn fn, void *ctx);

/* Reads every datagram queued on fd and passes its events to fn. Returns the number of events.
 * *dropped is set to 1 (else left alone) when the kernel reported ENOBUFS: events were lost because
 * the receive buffer was full; the events queued after the loss are still delivered. */
int pmc_procconn_drain(int fd, pmc_proc_event_fn fn, void *ctx, int *dropped);

/* Sends PROC_CN_MCAST_IGNORE and closes fd; a negative fd is accepted. */
void pmc_procconn_close(int fd);

/* ---- taskstats exit records (linux/taskstats.h, Documentation/accounting/taskstats.rst) ---- */

/* One exiting thread, from its struct taskstats. */
struct pmc_task_exit {
	uint32_t pid;        /* ac_pid: the thread id */
	uint32_t tgid;       /* ac_tgid (taskstats v12+), else 0 */
	uint32_t ppid;       /* ac_ppid: tgid of the parent process */
	uint32_t version;    /* taskstats version of the record */
	uint64_t run_ns;     /* cpu_run_virtual_total: se.sum_exec_runtime, the same clock as
				schedstat field 1 (cpu_run_real_total is utime+stime instead) */
	uint64_t wait_ns;    /* cpu_delay_total: sched_info.run_delay, as schedstat field 2 */
	uint64_t timeslices; /* cpu_count: sched_info.pcount, as schedstat field 3 */
	uint64_t nvcsw;      /* voluntary context switches */
	uint64_t nivcsw;     /* involuntary context switches */
	char comm[33];       /* ac_comm, NUL-terminated */
};

typedef void (*pmc_task_exit_fn)(void *ctx, const struct pmc_task_exit *ex);

/* Opens a non-blocking generic netlink socket, resolves the TASKSTATS family and registers it for
 * exit records of tasks exiting on the CPUs in cpumask (cpulist text, e.g. "0-1": every online CPU,
 * since a thread may exit anywhere). Returns the descriptor (close-on-exec) and the family id in
 * *family, or PMT_E_IO with a one-line reason in why (registration needs CAP_NET_ADMIN: EPERM
 * without root).
 * The registration ends when the descriptor is closed. */
int pmc_taskstats_open(const char *cpumask, int rcvbuf_bytes, uint16_t *family, char *why,
		       size_t whysize);

/* Parses one datagram of len bytes and calls fn for each per-thread exit record
 * (TASKSTATS_TYPE_AGGR_PID) in it; per-process aggregates are skipped. Returns the count. Pure. */
int pmc_taskstats_parse(const void *buf, size_t len, uint16_t family, pmc_task_exit_fn fn,
			void *ctx);

/* Reads every datagram queued on fd; returns the number of records. *dropped is set to 1 (else left
 * alone) when records were lost because the receive buffer was full (ENOBUFS). */
int pmc_taskstats_drain(int fd, uint16_t family, pmc_task_exit_fn fn, void *ctx, int *dropped);

/* Closes fd (the kernel drops the registration); a negative fd is accepted. */
void pmc_taskstats_close(int fd);

#endif
