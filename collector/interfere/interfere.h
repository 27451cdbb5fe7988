/* SPDX-License-Identifier: MIT */
/* interfere.h: the active-measurement interference threads of Casas & Bronevetsky (BWThr takes
 * memory bandwidth, CSThr takes shared-cache capacity), run as pinned threads of the calling
 * process, and the choice of the CPUs they run on. */
#ifndef PMC_INTERFERE_H
#define PMC_INTERFERE_H

#include <hwloc.h>
#include <stddef.h>
#include <stdint.h>

#include "pm_cli.h"

/* Casas & Bronevetsky §2.1 and §3.1: 44 buffers of 520 KB each ("44, which we discovered to be
 * sufficient"; "using a 520KB buffer a single BWThr utilizes 5.6GB/s"). */
#define PMC_BWTHR_NBUFS 44
#define PMC_BWTHR_BUF_BYTES (520u * 1024u)
/* §3.2.3 and §5.1: CSThrs "each using 4MB buffers". */
#define PMC_CSTHR_DEFAULT_BYTES (4u << 20)
/* The cache line every byte count of this module assumes (64 bytes on every x86-64 and on the
 * paper's Xeon E5-2670, Table 1). */
#define PMC_LINE_BYTES 64u

/* The loops that load the memory system (BWThr, CSThr, the filler, the calibration's probe and
 * triad) are built without the sanitizers' checks: in the sanitizer build (make SANITIZE=...) an
 * instrumented triad read B = 15 GB/s against 42 GB/s, and an instrumented probe chain shifted
 * every time per access, so the calibration measured the instrumentation, not the machine. */
#define PMC_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

enum pmc_interferer_kind {
	PMC_BWTHR, /* bandwidth thread, Fig. 2 */
	PMC_CSTHR, /* cache-storage thread, Fig. 3 */
	PMC_FILLER, /* placebo: register arithmetic only, no memory traffic (see below) */
};

struct pmc_interferer; /* opaque: one running thread and its buffers */

struct pmc_interferer_stats {
	uint64_t accesses;     /* read-modify-write increments done so far */
	uint64_t elapsed_ns;   /* CLOCK_MONOTONIC since the thread finished touching its buffers */
	uint64_t cpu_ns;       /* the thread's own CPU time over the same span (less when it shares a CPU) */
	uint64_t bytes;        /* BWThr: eq. 1's 2 · line · misses with misses = accesses (see below);
			        * CSThr: 2 · line · accesses as well, an upper bound of its traffic */
	double bytes_per_s;    /* bytes / elapsed */
	double ns_per_access;  /* elapsed / accesses: Fig. 11's "time to perform a read, an
			        * arithmetic addition and a write" */
	int64_t llc_misses;    /* PMC_INTERFERER_COUNT_LLC: the last-level cache misses the thread
			        * counted from start to stop (bytes is then eq. 1 of them); -1 when
			        * not counted (llc_why says why) or not final (pmc_interferer_read) */
	char llc_why[200];     /* why the misses were not counted, "" when they were or not asked */
};

/* Casas & Bronevetsky eq. 1 without the time: the bytes a thread moves between the last-level
 * cache and memory for `misses` misses, 2 · line · misses (each miss fills a line, and a thread
 * that writes what it reads writes the line back). Divide by the time for BW. */
static inline double pmc_eq1_bytes(double misses)
{
	return 2.0 * PMC_LINE_BYTES * misses;
}

/* splitmix64 (Steele, Lea, Flood 2014): the next of a full-period sequence of well-mixed 64-bit
 * numbers from state *x; one multiply-xorshift chain, cheap next to a cache miss. CSThr and the
 * calibration probe draw their random positions from it (a pattern no prefetcher follows). */
static inline uint64_t pmc_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* The identity function of Fig. 2, defined in identity.c, a translation unit of its own that is
 * built without LTO (Makefile), so the compiler cannot see that BWThr's index is a constant
 * stride and cannot reorder or vectorise the 44 increments away. Returns x. */
uint64_t pmc_identity(uint64_t x);

/* The large prime BWThr strides by (Fig. 2's largePrime): the first of 1000003, 1000033, 1000037,
 * 1000039 that is coprime with nlines (a prime fails only when nlines is a multiple of it). */
uint64_t pmc_bwthr_prime(uint64_t nlines);

/* BWThr's element index (8-byte elements) in round i over a buffer of nlines cache lines:
 * (identity(prime·i) mod nlines) · (PMC_LINE_BYTES / 8), the first element of a line. Fig. 2
 * indexes elements (buf[identity(largePrime·i) % bufSize]); indexing whole lines keeps its
 * constant stride and coprimality, and makes every nlines consecutive rounds touch every line
 * exactly once (prime·i mod nlines runs through all residues when gcd(prime, nlines) = 1), so
 * no line is touched twice within one pass, i.e. within PMC_BWTHR_NBUFS · buffer bytes of the
 * thread's own traffic. With element indexing (stride 1000003 mod 66560 = 1603 elements) a line's
 * 8 elements were touched at 8 times spread over the pass, half of the accesses with only 12.6 MiB
 * of other lines touched since the line's previous access (LRU stack distance; 22.3 MiB for 3/8,
 * 17.6 MiB for 1/8), so an LLC holding 13-22 MB for the thread served many of them and misses =
 * accesses overestimated BW1 there. */
static inline uint64_t pmc_bwthr_element(uint64_t i, uint64_t prime, uint64_t nlines)
{
	return (pmc_identity(prime * i) % nlines) * (PMC_LINE_BYTES / sizeof(uint64_t));
}

/* Starts one interference thread of the calling process, pinned to `cpu` (pthread attribute, so
 * it never runs elsewhere), and returns once it has touched its buffers and is running:
 *   PMC_BWTHR: PMC_BWTHR_NBUFS buffers of buf_bytes (0 = PMC_BWTHR_BUF_BYTES) of 8-byte integers;
 *     round i increments element pmc_bwthr_element(i, P, buf_bytes / PMC_LINE_BYTES) of every
 *     buffer in turn, one whole line per buffer and round, P = pmc_bwthr_prime (Casas &
 *     Bronevetsky Fig. 2, §2.1: the constant stride lets the prefetcher help, coprimality makes
 *     the working set the whole buffer).
 *   PMC_CSTHR: one buffer of buf_bytes (0 = PMC_CSTHR_DEFAULT_BYTES) of 4-byte integers; each
 *     access increments a uniformly random element (splitmix64, so the prefetcher sees no pattern
 *     and two consecutive accesses rarely share a line; Fig. 3, §2.2).
 *   PMC_FILLER: no buffer (buf_bytes ignored); a dependent floating-point recurrence held in
 *     registers, counted as one access per step and 0 bytes. It keeps an interferer CPU busy
 *     without touching memory, so that every level k of an experiment has the same CPUs busy
 *     and differs from k = 0 only in the memory traffic. On a VM the program's speed depends on
 *     whether the other vCPU is busy (measured here: with other programs' work on vCPU 1 a
 *     program on vCPU 0 loses 20% of its time in VM exits, with one spinning thread there 5%),
 *     and on a machine with group scheduling (autogroup) the session's CPU share is split
 *     between its busy CPUs; an idle k = 0 baseline would measure those, not the cache or the
 *     bandwidth (docs/interference.md).
 * Byte counts: eq. 1 is BW = 2 · line · misses / time. Without counters, misses = accesses: every
 * BWThr access is to a line not touched since one whole pass over its 44 buffers (44 × 520 KB =
 * 22.9 MB of its own traffic, pmc_bwthr_element), which misses in any LRU cache of which the
 * thread holds less than that, so BWThr's count is eq. 1 exactly on such a machine and an upper
 * bound where it can keep more (a last-level cache above 22.9 MB, e.g. a 32 MB Zen 4 CCX with
 * no other load). For CSThr (which is meant to hit the shared cache) it is only an upper bound
 * of its traffic.
 * The thread runs until pmc_interferer_stop(); it is a thread of this process, so it cannot
 * outlive it. The caller owns *out. Returns 0, or -1 with a one-line reason (bad size, out of
 * memory, CPU not allowed). */
int pmc_interferer_start(enum pmc_interferer_kind kind, int cpu, size_t buf_bytes,
			 struct pmc_interferer **out, char *why, size_t whysize);

/* pmc_interferer_start with flags: PMC_INTERFERER_COUNT_LLC counts the thread's own last-level
 * cache misses from when it has touched its buffers until it stops (a PAPI event set of that
 * thread, pmc_counters_open_thread_llc; the caller runs pmc_counters_threads_init first), for
 * eq. 1 with counted misses (§3.1: "computed based on the number of L3 cache misses it incurs").
 * When they cannot be counted the thread runs all the same and the final stats have
 * llc_misses = -1 and the reason in llc_why. */
#define PMC_INTERFERER_COUNT_LLC 1u
int pmc_interferer_start_ex(enum pmc_interferer_kind kind, int cpu, size_t buf_bytes, unsigned flags,
			    struct pmc_interferer **out, char *why, size_t whysize);

/* Fills *st with the thread's counts so far (lock-free: the thread publishes them every few
 * thousand accesses), without stopping it. */
void pmc_interferer_read(const struct pmc_interferer *t, struct pmc_interferer_stats *st);

/* Sets the thread's stop flag, joins it, fills *st (if not NULL) with its final counts and frees
 * it. NULL is accepted. */
void pmc_interferer_stop(struct pmc_interferer *t, struct pmc_interferer_stats *st);

/* Starts n interferers of one kind, thread j on cpus[j] (a CPU may repeat: those threads then
 * share it), into ts[0..n-1]. On failure the ones already started are stopped. Returns 0 or -1
 * with a reason naming the CPU. */
int pmc_interferers_start(enum pmc_interferer_kind kind, const int *cpus, size_t n, size_t buf_bytes,
			  struct pmc_interferer **ts, char *why, size_t whysize);

/* Stops ts[0..n-1] (pmc_interferer_stop each); st, if not NULL, has n entries. */
void pmc_interferers_stop(struct pmc_interferer **ts, size_t n, struct pmc_interferer_stats *st);

/* The CSThr buffer for CPU `cpu` of topo: PMC_CSTHR_DEFAULT_BYTES when l2_multiple is 0, else
 * l2_multiple times the size of the L2 cache above that CPU according to hwloc. Either must be
 * larger than that L2 (the private cache), or CSThr would only use its own core's cache (§2.2).
 * Returns 0 with *bytes, or -1 with a reason (no L2 in the topology, not larger than it). */
int pmc_csthr_bytes(hwloc_topology_t topo, int cpu, unsigned l2_multiple, size_t *bytes, char *why,
		    size_t whysize);

/* The size in bytes of the last-level cache above CPU `cpu` (the outermost data or unified cache
 * of its PU in topo), or 0 when hwloc shows none. */
uint64_t pmc_llc_bytes(hwloc_topology_t topo, int cpu);

/* Chooses the interferers' CPUs (Casas & Bronevetsky §2: interference threads run "on different
 * cores that share the resource", the last-level cache; §5.1 fills "some or all of the remaining
 * cores"): the CPUs of topo that share a last-level cache (the outermost data or unified cache
 * above the PU) with one of the program's CPUs, are not the program's, not SMT siblings of them
 * (another PU of one of their cores) and are in `allowed` (NULL = the topology's allowed CPUs).
 * program_cpus and allowed are lists already parsed (the session's CPU model). Writes at most maxcpus of them in increasing
 * order to cpus[] and returns how many (>= 1), or -1 with a one-line reason that names
 * --interfere-cpus, e.g. when hwloc shows every CPU with a private last-level cache (as microVMs
 * do: a private 508 MB "L3" per vCPU, whatever the host shares). */
int pmc_interfere_place(hwloc_topology_t topo, const struct pm_intlist *program_cpus,
			const struct pm_intlist *allowed, int *cpus, size_t maxcpus, char *why,
			size_t whysize);

/* The program's CPUs beside the interferers when --cpus is not given: the CPUs of allowed (what
 * pmcollect may use) minus the cores of the interferers' CPUs icpus[0..n-1] (so no SMT sibling of
 * an interferer runs the program), sorted into *out (free with pm_intlist_free). Returns the count
 * (0: none left, or out of memory; *out then empty). */
int pmc_interfere_program_cpus(hwloc_topology_t topo, const struct pm_intlist *allowed,
			       const int *icpus, size_t n, struct pm_intlist *out);

#endif
