/* SPDX-License-Identifier: MIT */
/* counters.h: hardware counters of the traced process tree through PAPI (attach + inherit). */
#ifndef PMC_COUNTERS_H
#define PMC_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmt.h"

struct pmc_counters;

/* Initializes PAPI and resolves the events to count. events is a comma-separated list of PAPI
 * preset or native event names, or NULL for the defaults: cycles (PAPI_TOT_CYC), instructions
 * (PAPI_TOT_INS), stall cycles (PAPI_RES_STL, else a native fallback: Intel
 * CYCLE_ACTIVITY:STALLS_TOTAL, AMD DISPATCH_RESOURCE_STALL_CYCLES_1) and last-level cache misses (PAPI_L3_TCM, else native
 * fallbacks: Intel LLC_MISSES / LONGEST_LAT_CACHE:MISS, AMD Zen demand data-cache fills from outside the CCX; docs/counters.md). Defaults that do not exist are
 * dropped (and listed in the reason); explicitly requested events that do not exist fail.
 * Returns 0 and *out on success. Returns PMT_E_IO (PMT_E_INVAL for a NULL out, PMT_E_NOMEM) with a
 * one-line reason in why when counters cannot be used at all, e.g. "PAPI perf_event component disabled: libpfm4 no default PMU found". Multiplexing
 * stays off. Source: PAPI 7.0 API (PAPI_library_init, PAPI_create_eventset, PAPI_assign_eventset_component,
 * PAPI_attach, PAPI_set_opt(PAPI_INHERIT), PAPI_add_named_event, PAPI_start, PAPI_read). */
int pmc_counters_open(struct pmc_counters **out, const char *events, char *why, size_t whysize);

/* Attaches the event set to process (or thread) pid with inheritance, so threads and children
 * it creates after this call are counted too; call it while the child waits before exec. Starts
 * counting from 0. A set attached before (the previous run of a plan) is stopped and detached
 * first (PAPI_stop, PAPI_detach), so one set serves every run of a session. Returns 0, or
 * PMT_E_IO (PMT_E_INVAL for bad arguments) with a reason in why. Source: PAPI 7.0 API
 * (PAPI_attach, PAPI_start). */
int pmc_counters_attach(struct pmc_counters *c, pid_t pid, char *why, size_t whysize);

/* Number of events and the i-th event's name (the name recorded in RUN_BEGIN counters.events). */
uint32_t pmc_counters_count(const struct pmc_counters *c);
const char *pmc_counters_name(const struct pmc_counters *c, uint32_t i);

/* What an event name counts, for the memory model (Tudor & Teo §III-A-3: C(n) from PAPI_TOT_CYC,
 * r(n) from last-level misses, stall cycles): PMC_KIND_CYCLES, _INSTRUCTIONS, _STALLS or
 * _LLC_MISSES when name is one of the default set's candidates (presets or their native
 * fallbacks), else -1. */
enum { PMC_KIND_CYCLES = 0, PMC_KIND_INSTRUCTIONS, PMC_KIND_STALLS, PMC_KIND_LLC_MISSES };
int pmc_counter_kind(const char *name);

/* Reads the cumulative values into values[0..count-1]; a value that could not be read is
 * INT64_MIN (PMT_COUNTER_INVALID). Returns 0, PMT_E_IO (PAPI_read failed) or PMT_E_INVAL (NULL). */
int pmc_counters_read(struct pmc_counters *c, int64_t *values);

/* Sums per-thread counts: vals holds nthreads rows of nevents values (row-major: thread t's
 * event i at vals[t * nevents + i]); sum[i] gets the sum of column i, or PMT_COUNTER_INVALID
 * when any thread's value of event i is PMT_COUNTER_INVALID (not read) or the sum overflows
 * int64_t: a partial sum would pass for the whole. nthreads 0 gives sums of 0. Pure. */
void pmc_counts_sum(const int64_t *vals, size_t nthreads, uint32_t nevents, int64_t *sum);

/* The counts of a window, in place: values[i] -= values0[i] (the counts at the window's start),
 * PMT_COUNTER_INVALID when either is, or when the difference is negative. values0 NULL: nothing
 * to subtract. Pure. */
void pmc_counts_since(int64_t *values, const int64_t *values0, uint32_t n);

/* Hardware counters of every thread of running processes (pmcollect -p): one event set per
 * thread (pmc_counters_open with the events given, pmc_counters_attach to its tid, inheritance
 * on), so that what a counted thread creates later (threads, processes) is counted into its set.
 * A process that runs already cannot be counted as a tree from its start (the inherited events of
 * pmc_counters_attach need the process before exec), but each of its threads can, from now on. */
struct pmc_thread_counters;

/* The most threads one pmc_thread_counters counts, whatever the open-file limit allows. */
#define PMC_THREAD_COUNTERS_MAX 4096u

/* How many threads' event sets fit in the open-file limit: each set takes nevents descriptors
 * (PAPI's perf_event component opens every event on a perf_event_open(2) descriptor of its own),
 * from half of the descriptors still free (nofile, the soft RLIMIT_NOFILE, less in_use, those
 * open), the other half being left to pmcollect's per-thread /proc files and to the threads the
 * program starts later; at most PMC_THREAD_COUNTERS_MAX. 0 when none fit (or nevents is 0).
 * Pure. */
size_t pmc_thread_counters_cap(uint64_t nofile, uint64_t in_use, uint32_t nevents);

/* The most counter reads (one per thread per event) a COUNTERS snapshot of a -p window may cost
 * per sample before snapshots are thinned to every k-th sample (pmc_snapshot_every). A read of an
 * inherited perf event is a read(2) of a few microseconds: 256 of them are about 1 ms, a tenth of
 * a 10 ms interval on one CPU at most. */
#define PMC_SNAPSHOT_READS 256u
/* The longest time between two snapshots when the window's length is not known (-p without
 * --duration): 8 per quarter of any window of 3.2 s or more. */
#define PMC_SNAPSHOT_MAX_NS 100000000ull

/* Every how many samples a -p window writes a COUNTERS snapshot of its threads' summed sets
 * (pmc_thread_counters_read: threads x nevents reads): the fewest samples, k, whose reads stay
 * within PMC_SNAPSHOT_READS per sample (ceil(threads x nevents / PMC_SNAPSHOT_READS)), but at most
 * as many as keep 8 snapshots in each quarter of the window (duration_ns / interval_ns / 32 when
 * the window's length is known, duration_ns > 0; else PMC_SNAPSHOT_MAX_NS / interval_ns), so that
 * pmanalyze's stationarity check can cut C(n) by quarter; at least 1 (every sample). interval_ns
 * 0 gives 1. Pure. */
uint32_t pmc_snapshot_every(size_t threads, uint32_t nevents, uint64_t interval_ns,
			    uint64_t duration_ns);

/* Prepares per-thread counting of the cycles and instructions events of like (an opened set,
 * pmc_counters_open: the concrete names PAPI accepted on this CPU, pmc_counter_kind; like must
 * outlive *out, which borrows its names). Returns 0 and *out (nothing counted yet);
 * PMT_E_INVAL with a reason when like is NULL or counts neither cycles nor instructions (an -e
 * list without them); PMT_E_NOMEM. */
int pmc_thread_counters_open(struct pmc_thread_counters **out, const struct pmc_counters *like,
			     char *why, size_t whysize);

/* Starts counting thread tid (a tid of /proc/PID/task): an event set of the events, inheritance
 * on, attached and started (PAPI_attach, PAPI_start through pmc_counters_open/attach). Returns 0;
 * PMT_E_LIMIT when PMC_THREAD_COUNTERS_MAX are counted already (the caller keeps the count
 * within pmc_thread_counters_cap); PMT_E_IO with a reason (attach refused:
 * permissions, perf_event_paranoid; the thread ended); PMT_E_NOMEM; PMT_E_INVAL (NULL, tid <= 0,
 * or tid counted already). */
int pmc_thread_counters_add(struct pmc_thread_counters *t, pid_t tid, char *why, size_t whysize);

/* Whether tid is counted (1) or not (0). */
int pmc_thread_counters_has(const struct pmc_thread_counters *t, pid_t tid);

/* Threads counted; the number of events and the i-th event's name (NULL past the last). */
size_t pmc_thread_counters_threads(const struct pmc_thread_counters *t);
uint32_t pmc_thread_counters_count(const struct pmc_thread_counters *t);
const char *pmc_thread_counters_name(const struct pmc_thread_counters *t, uint32_t i);

/* Reads every thread's set and sums them (pmc_counts_sum) into values[0..count-1]: each
 * thread's counts since its set started, with what its later threads and children inherited
 * (the kernel adds an exited inheriting task's counts to its parent's event, and a thread that
 * ended keeps its final counts readable). An event any thread's set could not read is
 * PMT_COUNTER_INVALID. Returns 0, PMT_E_IO (some value not read) or PMT_E_INVAL (NULL). */
int pmc_thread_counters_read(struct pmc_thread_counters *t, int64_t *values);

/* Stops and frees every thread's set (pmc_counters_close); NULL is accepted. */
void pmc_thread_counters_close(struct pmc_thread_counters *t);

/* Stops counting, detaches; NULL is accepted. A set of pmc_counters_open_thread_llc must be
 * closed by the thread that opened it (it also unregisters that thread from PAPI). */
void pmc_counters_close(struct pmc_counters *c);

/* Prepares PAPI for event sets that count single threads of this process (the interference
 * calibration's probe and BWThr, Casas & Bronevetsky §3.1 and §3.2.3): PAPI_library_init,
 * PAPI_thread_init(pthread_self), then the same checks as pmc_counters_open (perf_event component
 * enabled with counters, the kernel counts a hardware event). Call from the main thread before
 * any thread calls pmc_counters_open_thread_llc; calling it again is harmless. Returns 0, or
 * PMT_E_IO with a one-line reason (e.g. "PAPI perf_event component enabled, but the kernel counts
 * no hardware event ..." on a VM without a PMU). Source: PAPI 7.0 API (PAPI_thread_init). */
int pmc_counters_threads_init(char *why, size_t whysize);

/* Opens and starts an event set that counts the calling thread only (no attach, no inherit) with
 * one event: the default set's last-level cache misses, the first candidate PAPI accepts on this
 * CPU (PAPI_L3_TCM; Intel LLC_MISSES, LONGEST_LAT_CACHE:MISS; AMD Zen demand data-cache fills
 * from outside the CCX, see pmc_counters_open). pmc_counters_read gives the misses so far in
 * values[0]; pmc_counters_name(c, 0) the event used. Needs pmc_counters_threads_init first.
 * Returns 0 with *out, or PMT_E_IO with a reason (no such event on this CPU, PAPI_start failed). */
int pmc_counters_open_thread_llc(struct pmc_counters **out, char *why, size_t whysize);

/* Asks the kernel itself whether it counts a hardware event: a disabled perf_event_open(2) of
 * PERF_COUNT_HW_CPU_CYCLES on this thread, user space only. libpfm4 can recognise the CPU from
 * CPUID (so PAPI's component is enabled and reports counters) in a VM whose hypervisor exposes no
 * PMU, where the kernel has no "cpu" PMU under /sys/bus/event_source/devices and every hardware
 * event fails with ENOENT (seen on a KVM guest, AMD Zen 4, Linux 6.18). Returns 0 when the kernel
 * counts cycles or refuses only for permission (attach reports that later, with the
 * perf_event_paranoid level); PMT_E_IO with a reason when it has no hardware PMU. */
int pmc_kernel_counts_hardware(char *why, size_t whysize);

#endif
