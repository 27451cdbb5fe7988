/* SPDX-License-Identifier: MIT */
/* interfere.c: BWThr and CSThr (Casas & Bronevetsky Fig. 2 and 3) as pinned threads of this
 * process with a stop flag, and the choice of CPUs for them from the hwloc topology. */
#include "interfere.h"

#include "sources/counters.h"
#include "sources/cpuset.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* Accesses between two publications of the counts and two looks at the stop flag: a few µs of
 * work, so stop returns quickly and the loop stays free of atomics. */
#define PUBLISH_EVERY 4096u

struct pmc_interferer {
	enum pmc_interferer_kind kind;
	int cpu;
	pthread_t thread;
	sem_t ready;
	void *bufs[PMC_BWTHR_NBUFS]; /* BWThr: all; CSThr: bufs[0] */
	size_t nbufs, buf_bytes;
	uint64_t prime;              /* BWThr's stride in lines, coprime with its line count */
	_Atomic int stop;
	_Atomic uint64_t accesses;
	_Atomic uint64_t start_ns, end_ns, cpu_ns;
	unsigned flags;              /* PMC_INTERFERER_COUNT_LLC */
	struct pmc_counters *llc;    /* the thread's own LLC miss counter, NULL when not counted */
	int64_t llc0, llc_misses;    /* its value at start; misses start..stop (-1 unknown), written
				      * by the thread before it ends (read after the join) */
	char llc_why[200];
};

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

uint64_t pmc_bwthr_prime(uint64_t n)
{
	static const uint64_t primes[] = { 1000003u, 1000033u, 1000037u, 1000039u };

	for (size_t i = 0; i < sizeof(primes) / sizeof(primes[0]); i++)
		if (gcd_u64(primes[i], n) == 1)
			return primes[i];
	return 1; /* unreachable for n below 10^24 */
}

static void publish_end(struct pmc_interferer *t, uint64_t accesses)
{
	int64_t v;

	atomic_store_explicit(&t->accesses, accesses, memory_order_relaxed);
	atomic_store(&t->cpu_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID));
	atomic_store(&t->end_ns, clock_ns(CLOCK_MONOTONIC));
	if (t->llc) { /* read and close in this thread, which owns the event set */
		if (pmc_counters_read(t->llc, &v) == 0 && v >= t->llc0)
			t->llc_misses = v - t->llc0;
		else
			snprintf(t->llc_why, sizeof(t->llc_why), "PAPI_read of the thread's LLC misses failed");
		pmc_counters_close(t->llc);
		t->llc = NULL;
	}
}

PMC_NO_SANITIZE static void bwthr_loop(struct pmc_interferer *t)
{
	uint64_t nlines = t->buf_bytes / PMC_LINE_BYTES, acc = 0;
	uint64_t *b[PMC_BWTHR_NBUFS];

	for (size_t k = 0; k < t->nbufs; k++)
		b[k] = t->bufs[k];
	for (uint64_t i = 0;; i++) {
		/* one line per round, the same in every buffer: 44 independent misses in flight */
		uint64_t idx = pmc_bwthr_element(i, t->prime, nlines);

		for (size_t k = 0; k < PMC_BWTHR_NBUFS; k++)
			b[k][idx]++;
		if ((i & (PUBLISH_EVERY / 64 - 1)) == 0) {
			acc = (i + 1) * PMC_BWTHR_NBUFS;
			atomic_store_explicit(&t->accesses, acc, memory_order_relaxed);
			if (atomic_load_explicit(&t->stop, memory_order_relaxed))
				break;
		}
	}
	publish_end(t, acc);
}

PMC_NO_SANITIZE static void csthr_loop(struct pmc_interferer *t)
{
	uint32_t *buf = t->bufs[0];
	uint64_t n = t->buf_bytes / sizeof(uint32_t), x = (uint64_t)t->cpu * 0x2545f4914f6cdd1du + 1, acc = 0;

	for (;;) {
		for (unsigned j = 0; j < PUBLISH_EVERY; j++)
			/* the high 32 bits scaled to [0, n) (Lemire's multiply-shift): no division */
			buf[((pmc_splitmix64(&x) >> 32) * n) >> 32]++;
		acc += PUBLISH_EVERY;
		atomic_store_explicit(&t->accesses, acc, memory_order_relaxed);
		if (atomic_load_explicit(&t->stop, memory_order_relaxed))
			break;
	}
	publish_end(t, acc);
}

/* PMC_FILLER: eight independent multiply-adds per step in registers (no loads or stores), so the
 * thread is busy and never leaves its CPU for the kernel. */
PMC_NO_SANITIZE static void filler_loop(struct pmc_interferer *t)
{
	double x[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	uint64_t acc = 0;

	for (;;) {
		for (unsigned j = 0; j < PUBLISH_EVERY; j++)
			for (unsigned m = 0; m < 8; m++)
				x[m] = x[m] * 0.9999999 + 1e-9;
		__asm__ volatile("" : "+m"(x)); /* keep the arithmetic */
		acc += PUBLISH_EVERY;
		atomic_store_explicit(&t->accesses, acc, memory_order_relaxed);
		if (atomic_load_explicit(&t->stop, memory_order_relaxed))
			break;
	}
	publish_end(t, acc);
}

static void *interferer_main(void *arg)
{
	struct pmc_interferer *t = arg;

	/* a name for ps -L and /proc/PID/task/TID/comm, so the threads can be told apart */
	pthread_setname_np(pthread_self(), t->kind == PMC_BWTHR ? "pmc-BWThr" : t->kind == PMC_CSTHR ?
			   "pmc-CSThr" : "pmc-filler");
	/* first touch from the pinned thread, so the pages are on its NUMA node */
	for (size_t k = 0; k < t->nbufs; k++)
		memset(t->bufs[k], 1, t->buf_bytes);
	t->llc_misses = -1;
	if (t->flags & PMC_INTERFERER_COUNT_LLC) {
		if (pmc_counters_open_thread_llc(&t->llc, t->llc_why, sizeof(t->llc_why)) < 0)
			t->llc = NULL;
		else if (pmc_counters_read(t->llc, &t->llc0) < 0) {
			snprintf(t->llc_why, sizeof(t->llc_why), "PAPI_read of the thread's LLC misses failed");
			pmc_counters_close(t->llc);
			t->llc = NULL;
		}
	}
	atomic_store(&t->start_ns, clock_ns(CLOCK_MONOTONIC));
	atomic_store(&t->cpu_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID)); /* subtracted at the end */
	sem_post(&t->ready);
	if (t->kind == PMC_BWTHR)
		bwthr_loop(t);
	else if (t->kind == PMC_CSTHR)
		csthr_loop(t);
	else
		filler_loop(t);
	return NULL;
}

static void free_bufs(struct pmc_interferer *t)
{
	for (size_t k = 0; k < t->nbufs; k++)
		if (t->bufs[k])
			munmap(t->bufs[k], t->buf_bytes);
}

int pmc_interferer_start(enum pmc_interferer_kind kind, int cpu, size_t buf_bytes,
			 struct pmc_interferer **out, char *why, size_t whysize)
{
	return pmc_interferer_start_ex(kind, cpu, buf_bytes, 0, out, why, whysize);
}

int pmc_interferer_start_ex(enum pmc_interferer_kind kind, int cpu, size_t buf_bytes, unsigned flags,
			    struct pmc_interferer **out, char *why, size_t whysize)
{
	struct pmc_interferer *t;
	pthread_attr_t attr;
	cpu_set_t set;
	int e;

	*out = NULL;
	if (kind != PMC_BWTHR && kind != PMC_CSTHR && kind != PMC_FILLER) {
		snprintf(why, whysize, "unknown interferer kind %d", (int)kind);
		return -1;
	}
	if (buf_bytes == 0)
		buf_bytes = kind == PMC_BWTHR ? PMC_BWTHR_BUF_BYTES : PMC_CSTHR_DEFAULT_BYTES;
	if (buf_bytes < PMC_LINE_BYTES || buf_bytes / sizeof(uint32_t) > UINT32_MAX) {
		snprintf(why, whysize, "interferer buffer of %zu bytes: want %u bytes to 16 GiB", buf_bytes,
			 PMC_LINE_BYTES);
		return -1;
	}
	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		snprintf(why, whysize, "CPU %d out of range", cpu);
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	t->kind = kind;
	t->cpu = cpu;
	t->flags = flags;
	t->buf_bytes = buf_bytes;
	t->nbufs = kind == PMC_BWTHR ? PMC_BWTHR_NBUFS : kind == PMC_CSTHR ? 1 : 0;
	t->prime = pmc_bwthr_prime(buf_bytes / PMC_LINE_BYTES);
	for (size_t k = 0; k < t->nbufs; k++) {
		void *p = mmap(NULL, buf_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			snprintf(why, whysize, "cannot allocate %zu bytes for an interferer: %s", buf_bytes,
				 strerror(errno));
			free_bufs(t);
			free(t);
			return -1;
		}
		t->bufs[k] = p;
	}
	sem_init(&t->ready, 0, 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	e = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!e)
		e = pthread_create(&t->thread, &attr, interferer_main, t);
	pthread_attr_destroy(&attr);
	if (e) {
		snprintf(why, whysize, "cannot start an interferer on CPU %d: %s", cpu,
			 e == EINVAL ? "CPU not available to this process" : strerror(e));
		sem_destroy(&t->ready);
		free_bufs(t);
		free(t);
		return -1;
	}
	while (sem_wait(&t->ready) != 0 && errno == EINTR)
		;
	*out = t;
	return 0;
}

static void fill_stats(const struct pmc_interferer *t, uint64_t acc, uint64_t elapsed_ns, uint64_t cpu_ns,
		       int64_t llc_misses, struct pmc_interferer_stats *st)
{
	st->accesses = acc;
	st->elapsed_ns = elapsed_ns;
	st->cpu_ns = cpu_ns;
	st->llc_misses = llc_misses;
	snprintf(st->llc_why, sizeof(st->llc_why), "%s", llc_misses >= 0 ? "" : t->llc_why);
	/* Casas & Bronevetsky eq. 1 with the counted misses, else misses = accesses; a filler moves
	 * nothing */
	st->bytes = t->kind == PMC_FILLER ? 0 : llc_misses >= 0 ? (uint64_t)pmc_eq1_bytes((double)llc_misses)
									: 2u * PMC_LINE_BYTES * acc;
	st->bytes_per_s = elapsed_ns ? (double)st->bytes * 1e9 / (double)elapsed_ns : 0;
	st->ns_per_access = acc ? (double)elapsed_ns / (double)acc : 0;
}

void pmc_interferer_read(const struct pmc_interferer *t, struct pmc_interferer_stats *st)
{
	uint64_t acc = atomic_load_explicit(&t->accesses, memory_order_relaxed);
	uint64_t now = clock_ns(CLOCK_MONOTONIC), start = atomic_load(&t->start_ns);
	clockid_t clk;
	uint64_t cpu = 0;
	struct timespec ts;

	if (pthread_getcpuclockid(t->thread, &clk) == 0 && clock_gettime(clk, &ts) == 0)
		cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec - atomic_load(&t->cpu_ns);
	fill_stats(t, acc, now - start, cpu, -1, st);
	st->llc_why[0] = '\0'; /* not final: the misses are read when the thread stops */
}

void pmc_interferer_stop(struct pmc_interferer *t, struct pmc_interferer_stats *st)
{
	uint64_t cpu0;

	if (!t)
		return;
	cpu0 = atomic_load(&t->cpu_ns);
	atomic_store(&t->stop, 1);
	pthread_join(t->thread, NULL);
	if (st)
		fill_stats(t, atomic_load(&t->accesses), atomic_load(&t->end_ns) - atomic_load(&t->start_ns),
			   atomic_load(&t->cpu_ns) - cpu0, t->llc_misses, st);
	sem_destroy(&t->ready);
	free_bufs(t);
	free(t);
}

int pmc_interferers_start(enum pmc_interferer_kind kind, const int *cpus, size_t n, size_t buf_bytes,
			  struct pmc_interferer **ts, char *why, size_t whysize)
{
	for (size_t j = 0; j < n; j++) {
		if (pmc_interferer_start(kind, cpus[j], buf_bytes, &ts[j], why, whysize) < 0) {
			pmc_interferers_stop(ts, j, NULL);
			return -1;
		}
	}
	return 0;
}

void pmc_interferers_stop(struct pmc_interferer **ts, size_t n, struct pmc_interferer_stats *st)
{
	/* raise every flag first, so the threads wind down together rather than one by one */
	for (size_t j = 0; j < n; j++)
		atomic_store(&ts[j]->stop, 1);
	for (size_t j = 0; j < n; j++) {
		pmc_interferer_stop(ts[j], st ? &st[j] : NULL);
		ts[j] = NULL;
	}
}

/* The outermost data or unified cache above obj (its last-level cache), or NULL. */
static hwloc_obj_t llc_of(hwloc_obj_t obj)
{
	hwloc_obj_t llc = NULL;

	for (; obj; obj = obj->parent)
		if (hwloc_obj_type_is_cache(obj->type) && !hwloc_obj_type_is_icache(obj->type))
			llc = obj;
	return llc;
}

uint64_t pmc_llc_bytes(hwloc_topology_t topo, int cpu)
{
	hwloc_obj_t pu = cpu >= 0 ? hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu) : NULL;
	hwloc_obj_t llc = pu ? llc_of(pu) : NULL;

	return llc && llc->attr ? llc->attr->cache.size : 0;
}

static hwloc_obj_t l2_of(hwloc_obj_t obj)
{
	for (; obj; obj = obj->parent)
		if (obj->type == HWLOC_OBJ_L2CACHE)
			return obj;
	return NULL;
}

int pmc_csthr_bytes(hwloc_topology_t topo, int cpu, unsigned l2_multiple, size_t *bytes, char *why,
		    size_t whysize)
{
	hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)cpu), l2 = pu ? l2_of(pu) : NULL;
	uint64_t l2_bytes;

	if (!l2 || !l2->attr || l2->attr->cache.size == 0) {
		snprintf(why, whysize, "hwloc shows no L2 cache above CPU %d", cpu);
		return -1;
	}
	l2_bytes = l2->attr->cache.size;
	*bytes = l2_multiple ? (size_t)l2_multiple * l2_bytes : PMC_CSTHR_DEFAULT_BYTES;
	if (*bytes <= l2_bytes) {
		snprintf(why, whysize, "a CSThr buffer of %zu bytes is not larger than CPU %d's L2 (%llu bytes)",
			 *bytes, cpu, (unsigned long long)l2_bytes);
		return -1;
	}
	return 0;
}

static const char *cache_name(hwloc_obj_t c, char *buf, size_t size)
{
	hwloc_obj_type_snprintf(buf, size, c, 0);
	return buf;
}

static void size_text(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= 1u << 20)
		snprintf(buf, size, "%llu MB", (unsigned long long)(bytes >> 20));
	else
		snprintf(buf, size, "%llu KB", (unsigned long long)(bytes >> 10));
}

int pmc_interfere_place(hwloc_topology_t topo, const struct pm_intlist *program_cpus,
			const struct pm_intlist *allowed_list, int *cpus, size_t maxcpus, char *why,
			size_t whysize)
{
	hwloc_bitmap_t prog = hwloc_bitmap_alloc(), allowed = hwloc_bitmap_alloc();
	hwloc_bitmap_t share = hwloc_bitmap_alloc(), smt = hwloc_bitmap_alloc(), cand = hwloc_bitmap_alloc();
	hwloc_obj_t first_llc = NULL;
	int rc = -1, pu = -1, first = -1, shared = 0;
	size_t n = 0;

	if (!prog || !allowed || !share || !smt || !cand) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	if (pmc_intlist_bitmap(program_cpus, prog) < 0 ||
	    (allowed_list && pmc_intlist_bitmap(allowed_list, allowed) < 0)) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	if (hwloc_bitmap_iszero(prog)) {
		snprintf(why, whysize, "the program has no CPU");
		goto out;
	}
	if (!allowed_list) {
		hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
	}
	while ((pu = hwloc_bitmap_next(prog, pu)) >= 0) {
		hwloc_obj_t p = hwloc_get_pu_obj_by_os_index(topo, (unsigned)pu), llc, core;

		if (!p) {
			snprintf(why, whysize, "CPU %d of the program is not in the machine's topology", pu);
			goto out;
		}
		llc = llc_of(p);
		if (!llc) {
			snprintf(why, whysize, "hwloc shows no cache above CPU %d, so no CPU is known to share "
				 "its last-level cache; choose the interferers' CPUs with --interfere-cpus", pu);
			goto out;
		}
		if (!first_llc) {
			first_llc = llc;
			first = pu;
		}
		hwloc_bitmap_or(share, share, llc->cpuset);
		shared |= hwloc_bitmap_weight(llc->cpuset) > 1;
		core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, p);
		hwloc_bitmap_or(smt, smt, core ? core->cpuset : p->cpuset);
	}
	hwloc_bitmap_andnot(cand, share, prog);
	if (hwloc_bitmap_iszero(cand) && shared) {
		snprintf(why, whysize, "every CPU that shares the program's last-level cache runs the program; "
			 "leave one out of its CPUs, or choose the interferers' CPUs with --interfere-cpus");
		goto out;
	}
	if (hwloc_bitmap_iszero(cand)) {
		char name[32], size[32];

		size_text(first_llc->attr->cache.size, size, sizeof(size));
		snprintf(why, whysize, "the last-level cache of CPU %d (%s, %s) is private to it according "
			 "to hwloc, so no other CPU shares it (a virtual machine may hide that the host's is "
			 "shared: measure, and choose the interferers' CPUs with --interfere-cpus)",
			 first, cache_name(first_llc, name, sizeof(name)), size);
		goto out;
	}
	hwloc_bitmap_andnot(cand, cand, smt);
	if (hwloc_bitmap_iszero(cand)) {
		snprintf(why, whysize, "the only other CPUs that share CPU %d's last-level cache are SMT "
			 "siblings of the program's CPUs, which would also share their core; choose the "
			 "interferers' CPUs with --interfere-cpus", first);
		goto out;
	}
	hwloc_bitmap_and(cand, cand, allowed);
	if (hwloc_bitmap_iszero(cand)) {
		snprintf(why, whysize, "no CPU that shares the program's last-level cache is available to "
			 "pmcollect; choose the interferers' CPUs with --interfere-cpus");
		goto out;
	}
	pu = -1;
	while ((pu = hwloc_bitmap_next(cand, pu)) >= 0 && n < maxcpus)
		cpus[n++] = pu;
	rc = (int)n;
out:
	hwloc_bitmap_free(prog);
	hwloc_bitmap_free(allowed);
	hwloc_bitmap_free(share);
	hwloc_bitmap_free(smt);
	hwloc_bitmap_free(cand);
	return rc;
}

int pmc_interfere_program_cpus(hwloc_topology_t topo, const struct pm_intlist *allowed,
			       const int *icpus, size_t n, struct pm_intlist *out)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int w, cpu = -1;

	out->v = NULL;
	out->n = 0;
	if (!set || pmc_intlist_bitmap(allowed, set) < 0) {
		hwloc_bitmap_free(set);
		return 0;
	}
	for (size_t j = 0; j < n; j++) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)icpus[j]);
		hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu) : NULL;
		if (core)
			hwloc_bitmap_andnot(set, set, core->cpuset);
		hwloc_bitmap_clr(set, (unsigned)icpus[j]);
	}
	w = hwloc_bitmap_weight(set);
	out->v = w > 0 ? malloc((size_t)w * sizeof(*out->v)) : NULL;
	while (out->v && (cpu = hwloc_bitmap_next(set, cpu)) >= 0)
		out->v[out->n++] = (uint32_t)cpu;
	hwloc_bitmap_free(set);
	return (int)out->n;
}
