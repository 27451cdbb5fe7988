/* SPDX-License-Identifier: MIT */
/* wakecost.c: the machine's wake-up cost by a futex ping-pong between pairs of CPUs (wakecost.h). */
#include "wakecost.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>

static const char *const class_names[PMC_WAKE_NCLASSES] = {
	"same_cpu", "smt", "shared_cache", "same_package", "other_package",
};

const char *pmc_wake_class_name(enum pmc_wake_class c)
{
	return (unsigned)c < PMC_WAKE_NCLASSES ? class_names[c] : "unknown";
}

/* ---- the ping-pong ---- */

struct pingpong {
	int turn;                /* (atomic builtins) 0: the first thread's turn, 1: the second's, 2: stop */
	int cpu_b;
	int pin_err;             /* the second thread's pthread_setaffinity_np error, 0 none */
	clockid_t clock_b;       /* the second thread's CPU-time clock */
};

static long futex(int *addr, int op, int val)
{
	return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

/* Sleeps in FUTEX_WAIT while *turn is value. */
static void wait_while(int *turn, int value)
{
	while (__atomic_load_n(turn, __ATOMIC_ACQUIRE) == value)
		futex(turn, FUTEX_WAIT_PRIVATE, value);
}

static void hand_over(int *turn, int value)
{
	__atomic_store_n(turn, value, __ATOMIC_RELEASE);
	futex(turn, FUTEX_WAKE_PRIVATE, 1);
}

/* The second thread: answers each wake with one back, until told to stop. */
static void *pong(void *arg)
{
	struct pingpong *p = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(p->cpu_b, &set);
	p->pin_err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	for (;;) {
		wait_while(&p->turn, 0);
		if (__atomic_load_n(&p->turn, __ATOMIC_ACQUIRE) == 2)
			return NULL;
		hand_over(&p->turn, 0);
	}
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of both threads of the ping-pong, ns. */
static uint64_t both_cpu_ns(const struct pingpong *p)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID) + clock_ns(p->clock_b);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place). */
static double median_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One pair: the calling thread pinned to cpu_a, a second one to cpu_b; each round trip is two
 * wakes (each side sleeps in FUTEX_WAIT until the other wakes it: every hand-over is a real
 * wake), timed one by one; a batch's figure is the median of its round trips over 2. Medians,
 * not means: on a shared machine a few round trips wait milliseconds for a CPU that another
 * process holds, which is the machine's load, not the cost of a wake-up. Returns 0 or -1 with
 * why. */
static int measure_pair(int cpu_a, int cpu_b, uint32_t batches, uint32_t round_trips,
			struct pmc_wake_pair *out, char *why, size_t whysize)
{
	struct pingpong p = { .cpu_b = cpu_b };
	double *v = calloc(batches, sizeof(*v)), *rt = calloc(round_trips, sizeof(*rt));
	double *cpu = calloc(batches, sizeof(*cpu));
	cpu_set_t set, old;
	pthread_t th;
	int e, have_old = pthread_getaffinity_np(pthread_self(), sizeof(old), &old) == 0;

	if (!v || !rt || !cpu) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		free(v);
		free(rt);
		free(cpu);
		return -1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu_a, &set);
	if ((e = pthread_setaffinity_np(pthread_self(), sizeof(set), &set)) != 0) {
		snprintf(why, whysize, "cannot pin to CPU %d: %s", cpu_a, strerror(e));
		free(v);
		free(rt);
		free(cpu);
		return -1;
	}
	if ((e = pthread_create(&th, NULL, pong, &p)) != 0) {
		snprintf(why, whysize, "cannot start the ping-pong thread: %s", strerror(e));
		goto restore;
	}
	if ((e = pthread_getcpuclockid(th, &p.clock_b)) != 0) {
		snprintf(why, whysize, "no CPU-time clock for the ping-pong thread: %s", strerror(e));
		hand_over(&p.turn, 2);
		pthread_join(th, NULL);
		goto restore;
	}
	/* a warm-up batch, not kept: both threads on their CPUs, the futex hashed */
	for (uint32_t b = 0; b <= batches; b++) {
		uint64_t t0 = now_ns(), c0 = both_cpu_ns(&p);
		for (uint32_t i = 0; i < round_trips; i++) {
			uint64_t t1;
			hand_over(&p.turn, 1);
			wait_while(&p.turn, 1);
			t1 = now_ns();
			rt[i] = (double)(t1 - t0) / 2;
			t0 = t1;
		}
		if (b > 0) {
			v[b - 1] = median_sort(rt, round_trips);
			cpu[b - 1] = (double)(both_cpu_ns(&p) - c0) / (2.0 * round_trips);
		}
	}
	hand_over(&p.turn, 2);
	pthread_join(th, NULL);
	if (p.pin_err) {
		snprintf(why, whysize, "cannot pin to CPU %d: %s", cpu_b, strerror(p.pin_err));
		e = p.pin_err;
		goto restore;
	}
	out->median_ns = median_sort(v, batches);
	out->cpu_a = cpu_a;
	out->cpu_b = cpu_b;
	out->batches = batches;
	out->round_trips = round_trips;
	out->min_ns = v[0];
	out->max_ns = v[batches - 1];
	out->cpu_ns = median_sort(cpu, batches);
restore:
	if (have_old)
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	free(v);
	free(rt);
	free(cpu);
	return e ? -1 : 0;
}

/* ---- the pairs from the topology ---- */

/* The class of PU b seen from PU a (a != b). */
static enum pmc_wake_class classify(hwloc_topology_t topo, hwloc_obj_t a, hwloc_obj_t b)
{
	hwloc_obj_t common = hwloc_get_common_ancestor_obj(topo, a, b);

	for (hwloc_obj_t o = common; o; o = o->parent) {
		if (o->type == HWLOC_OBJ_CORE)
			return PMC_WAKE_SMT;
		if (hwloc_obj_type_is_cache(o->type))
			return PMC_WAKE_SHARED_CACHE;
		if (o->type == HWLOC_OBJ_PACKAGE)
			return PMC_WAKE_SAME_PACKAGE;
	}
	return PMC_WAKE_OTHER_PACKAGE;
}

int pmc_wakecost_measure(hwloc_topology_t topo, const struct pm_intlist *cpus, uint32_t batches,
			 uint32_t round_trips, struct pmc_wakecost *out, char *why, size_t whysize)
{
	int partner[PMC_WAKE_NCLASSES];
	hwloc_obj_t a;

	memset(out, 0, sizeof(*out));
	if (!cpus->n || batches == 0 || round_trips == 0) {
		snprintf(why, whysize, "no CPU to measure on");
		return -1;
	}
	for (size_t k = 0; k < PMC_WAKE_NCLASSES; k++)
		partner[k] = -1;
	partner[PMC_WAKE_SAME_CPU] = (int)cpus->v[0];
	a = hwloc_get_pu_obj_by_os_index(topo, cpus->v[0]);
	for (size_t i = 1; a && i < cpus->n; i++) {
		hwloc_obj_t b = hwloc_get_pu_obj_by_os_index(topo, cpus->v[i]);
		enum pmc_wake_class c;
		if (!b || b == a)
			continue;
		c = classify(topo, a, b);
		if (partner[c] < 0)
			partner[c] = (int)cpus->v[i];
	}
	for (size_t k = 0; k < PMC_WAKE_NCLASSES; k++) {
		if (partner[k] < 0)
			continue;
		out->pairs[out->n].cls = (enum pmc_wake_class)k;
		if (measure_pair((int)cpus->v[0], partner[k], batches, round_trips,
				 &out->pairs[out->n], why, whysize) < 0)
			return -1;
		out->n++;
	}
	return 0;
}

cJSON *pmc_wakecost_to_json(const struct pmc_wakecost *w)
{
	cJSON *o = cJSON_CreateObject(), *pairs = cJSON_CreateArray();

	if (!o || !pairs || !cJSON_AddItemToObject(o, "pairs", pairs)) {
		cJSON_Delete(o);
		cJSON_Delete(pairs);
		return NULL;
	}
	if (!cJSON_AddStringToObject(o, "method", "futex ping-pong") ||
	    !cJSON_AddStringToObject(o, "unit", "ns one-way"))
		goto nomem;
	for (size_t i = 0; i < w->n; i++) {
		const struct pmc_wake_pair *p = &w->pairs[i];
		cJSON *e = cJSON_CreateObject(), *c = cJSON_CreateArray();
		if (!e || !c || !cJSON_AddItemToArray(pairs, e) || !cJSON_AddItemToObject(e, "cpus", c)) {
			cJSON_Delete(e);
			cJSON_Delete(c);
			goto nomem;
		}
		if (!cJSON_AddStringToObject(e, "class", pmc_wake_class_name(p->cls)) ||
		    !cJSON_AddItemToArray(c, cJSON_CreateNumber(p->cpu_a)) ||
		    !cJSON_AddItemToArray(c, cJSON_CreateNumber(p->cpu_b)) ||
		    !cJSON_AddNumberToObject(e, "batches", p->batches) ||
		    !cJSON_AddNumberToObject(e, "round_trips", p->round_trips) ||
		    !cJSON_AddNumberToObject(e, "median_ns", p->median_ns) ||
		    !cJSON_AddNumberToObject(e, "min_ns", p->min_ns) ||
		    !cJSON_AddNumberToObject(e, "max_ns", p->max_ns) ||
		    !cJSON_AddNumberToObject(e, "cpu_ns", p->cpu_ns))
			goto nomem;
	}
	return o;
nomem:
	cJSON_Delete(o);
	return NULL;
}

int pmc_wakecost_meta(cJSON *meta, hwloc_topology_t topo, const struct pm_intlist *cpus,
		      struct pmc_wakecost *w, char *why, size_t whysize)
{
	cJSON *o;

	if (pmc_wakecost_measure(topo, cpus, PMC_WAKE_BATCHES, PMC_WAKE_ROUND_TRIPS, w, why, whysize) < 0)
		return -1;
	o = pmc_wakecost_to_json(w);
	if (!o || !cJSON_AddItemToObject(meta, "wake_cost", o)) {
		cJSON_Delete(o);
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

void pmc_wakecost_describe(const struct pmc_wakecost *w, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < w->n && len < size; i++) {
		const struct pmc_wake_pair *p = &w->pairs[i];
		int k = snprintf(buf + len, size - len, "%s%s CPUs %d,%d %.2f us (%.2f-%.2f)", i ? "; " : "",
				 pmc_wake_class_name(p->cls), p->cpu_a, p->cpu_b, p->median_ns / 1e3,
				 p->min_ns / 1e3, p->max_ns / 1e3);
		if (k < 0)
			break;
		len += (size_t)k;
	}
}
