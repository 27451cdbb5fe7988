/* SPDX-License-Identifier: MIT */
/* interfere_cal.c: measures BW1, B and the cache capacity left with k CSThrs (Casas & Bronevetsky
 * §3) with a probe of known footprint, and reads and writes the machine file that keeps them. */
#include "interfere_cal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sources/counters.h"
#include "interfere.h"

#define CAL_FORMAT "pmtools-interference/1"
#define HUGE_PAGE_BYTES (2u << 20)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Runs fn(arg) in a thread pinned to cpu and waits for it. */
static int run_pinned(int cpu, void *(*fn)(void *), void *arg, char *why, size_t whysize)
{
	pthread_attr_t attr;
	pthread_t th;
	cpu_set_t set;
	int e;

	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		snprintf(why, whysize, "CPU %d out of range", cpu);
		return -1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&attr);
	e = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!e)
		e = pthread_create(&th, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (e) {
		snprintf(why, whysize, "cannot start a thread on CPU %d: %s", cpu,
			 e == EINVAL ? "CPU not available to this process" : strerror(e));
		return -1;
	}
	pthread_join(th, NULL);
	return 0;
}

void pmc_cal_params_default(struct pmc_cal_params *p, int probe_cpu, const int *cpus, size_t K)
{
	memset(p, 0, sizeof(*p));
	p->probe_cpu = probe_cpu;
	if (K > PMC_CAL_MAX_K)
		K = PMC_CAL_MAX_K;
	for (size_t j = 0; j < K; j++)
		p->interferer_cpus[j] = cpus[j];
	p->ninterferers = K;
	p->csthr_bytes = PMC_CSTHR_DEFAULT_BYTES;
	for (p->nF = 0; p->nF < 8; p->nF++)
		p->F_bytes[p->nF] = (uint64_t)1 << 20 << p->nF; /* 1 MiB .. 128 MiB */
	p->l2_ref_bytes = 256u << 10;
	/* not larger: on the project's VM a 1 GiB footprint costs 290 ns per access against 210 ns at
	 * 256 MiB (address translation under nested paging, whose page-walk entries live in the same
	 * caches), which would count every footprint in between as partly cached */
	p->dram_ref_bytes = (uint64_t)256 << 20;
	p->accesses = 1u << 20;
	p->probe_reps = 3;
	p->bw1_ms = 1000;
	/* many short passes rather than a few long ones: a pass counts only when every thread ran
	 * through it, and on a machine shared with other programs that happens for short passes
	 * (measured on the project's VM at load average 10: 3 x 32 MiB best of 60 gave 50-52 GB/s
	 * in 3 of 3 tries, 3 x 128 MiB best of 5 gave 22-32 and best of 30 12-18 GB/s); 3 arrays of
	 * at least the last-level cache each (the caller raises array_bytes to it) still stream */
	p->triad_array_bytes = (uint64_t)32 << 20;
	p->triad_reps = 60;
	p->counters = 1;
}

void pmc_cal_params_topology(struct pmc_cal_params *p, hwloc_topology_t topo)
{
	uint64_t llc = pmc_llc_bytes(topo, p->probe_cpu);

	if (llc > p->triad_array_bytes && llc <= (uint64_t)1 << 30)
		p->triad_array_bytes = llc;
}

int pmc_cal_bw1(int cpu, uint64_t duration_ms, int count_llc, double *BW1_bytes_per_s, int *counted,
		char *why, size_t whysize)
{
	struct pmc_interferer *t;
	struct pmc_interferer_stats st;
	char cwhy[256] = "";
	unsigned flags = 0;

	*counted = 0;
	if (count_llc) {
		if (pmc_counters_threads_init(cwhy, sizeof(cwhy)) == 0)
			flags = PMC_INTERFERER_COUNT_LLC;
	}
	if (pmc_interferer_start_ex(PMC_BWTHR, cpu, 0, flags, &t, why, whysize) < 0)
		return -1;
	sleep_ms(duration_ms);
	pmc_interferer_stop(t, &st);
	if (flags && st.llc_misses < 0)
		snprintf(cwhy, sizeof(cwhy), "%s", st.llc_why);
	/* a counter that saw no miss while the thread streamed 22.9 MB does not count this cache */
	if (flags && st.llc_misses == 0)
		snprintf(cwhy, sizeof(cwhy), "the LLC miss counter read 0 for the bandwidth thread");
	*counted = flags && st.llc_misses > 0;
	if (st.accesses == 0) {
		snprintf(why, whysize, "the bandwidth thread on CPU %d made no progress in %llu ms", cpu,
			 (unsigned long long)duration_ms);
		return -1;
	}
	/* per second of the thread's CPU time: on a shared machine the wall-clock rate would include
	 * the time other programs held the CPU; eq. 1 of counted misses, else of accesses */
	{
		double bytes = *counted ? pmc_eq1_bytes((double)st.llc_misses) : pmc_eq1_bytes((double)st.accesses);
		*BW1_bytes_per_s = st.cpu_ns ? bytes * 1e9 / (double)st.cpu_ns :
				   st.elapsed_ns ? bytes * 1e9 / (double)st.elapsed_ns : 0;
	}
	if (count_llc && !*counted)
		snprintf(why, whysize, "%s", cwhy);
	return 0;
}

struct triad_shared {
	double *a, *b, *c;
	size_t n_elems, nthreads;
	unsigned reps;
	pthread_barrier_t bar;
	pthread_mutex_t gate_mu; /* the gate: no thread reaches the barrier before all n exist */
	pthread_cond_t gate_cv;
	int gate;                /* 0 closed, 1 go, -1 abort (a thread could not be started) */
	double best_s;
};

struct triad_arg {
	struct triad_shared *sh;
	size_t id;
	int cpu;
};

/* One timed pass of the triad over [lo, hi). */
PMC_NO_SANITIZE static void triad_pass(double *a, const double *b, const double *c, size_t lo, size_t hi)
{
	const double s = 3.0;

	for (size_t i = lo; i < hi; i++)
		a[i] = b[i] + s * c[i];
}

static void *triad_main(void *arg)
{
	struct triad_arg *ta = arg;
	struct triad_shared *sh = ta->sh;
	size_t lo = sh->n_elems * ta->id / sh->nthreads, hi = sh->n_elems * (ta->id + 1) / sh->nthreads;
	int go;

	pthread_mutex_lock(&sh->gate_mu);
	while (sh->gate == 0)
		pthread_cond_wait(&sh->gate_cv, &sh->gate_mu);
	go = sh->gate;
	pthread_mutex_unlock(&sh->gate_mu);
	if (go < 0)
		return NULL;
	for (size_t i = lo; i < hi; i++) { /* first touch by the owner */
		sh->a[i] = 0;
		sh->b[i] = 1;
		sh->c[i] = 2;
	}
	for (unsigned r = 0; r < sh->reps; r++) {
		uint64_t t0;

		pthread_barrier_wait(&sh->bar);
		t0 = now_ns();
		triad_pass(sh->a, sh->b, sh->c, lo, hi);
		pthread_barrier_wait(&sh->bar);
		if (ta->id == 0) {
			double dt = (double)(now_ns() - t0) / 1e9;
			if (sh->best_s == 0 || dt < sh->best_s)
				sh->best_s = dt;
		}
	}
	return NULL;
}

int pmc_cal_triad(const int *cpus, size_t n, uint64_t array_bytes, unsigned reps, double *B_bytes_per_s,
		  char *why, size_t whysize)
{
	struct triad_shared sh = { 0 };
	struct triad_arg *args = NULL;
	pthread_t *th = NULL;
	size_t started = 0;
	int rc = -1;

	if (n == 0 || reps == 0 || array_bytes < sizeof(double) * n) {
		snprintf(why, whysize, "triad: no CPU, no repetition or arrays too small");
		return -1;
	}
	sh.n_elems = array_bytes / sizeof(double);
	sh.nthreads = n;
	sh.reps = reps;
	sh.a = malloc(array_bytes);
	sh.b = malloc(array_bytes);
	sh.c = malloc(array_bytes);
	args = calloc(n, sizeof(*args));
	th = calloc(n, sizeof(*th));
	if (!sh.a || !sh.b || !sh.c || !args || !th) {
		snprintf(why, whysize, "triad: cannot allocate 3 x %llu bytes", (unsigned long long)array_bytes);
		goto out;
	}
	pthread_barrier_init(&sh.bar, NULL, (unsigned)n);
	pthread_mutex_init(&sh.gate_mu, NULL);
	pthread_cond_init(&sh.gate_cv, NULL);
	for (; started < n; started++) {
		pthread_attr_t attr;
		cpu_set_t set;
		int e;

		args[started] = (struct triad_arg){ &sh, started, cpus[started] };
		if (cpus[started] < 0 || cpus[started] >= CPU_SETSIZE) {
			e = EINVAL;
		} else {
			CPU_ZERO(&set);
			CPU_SET(cpus[started], &set);
			pthread_attr_init(&attr);
			e = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
			if (!e)
				e = pthread_create(&th[started], &attr, triad_main, &args[started]);
			pthread_attr_destroy(&attr);
		}
		if (e) {
			snprintf(why, whysize, "triad: cannot start a thread on CPU %d: %s", cpus[started],
				 e == EINVAL ? "CPU not available to this process" : strerror(e));
			break;
		}
	}
	pthread_mutex_lock(&sh.gate_mu);
	sh.gate = started < n ? -1 : 1;
	pthread_cond_broadcast(&sh.gate_cv);
	pthread_mutex_unlock(&sh.gate_mu);
	for (size_t j = 0; j < started; j++)
		pthread_join(th[j], NULL);
	pthread_barrier_destroy(&sh.bar);
	pthread_mutex_destroy(&sh.gate_mu);
	pthread_cond_destroy(&sh.gate_cv);
	if (started < n)
		goto out;
	*B_bytes_per_s = 3.0 * (double)(sh.n_elems * sizeof(double)) / sh.best_s;
	rc = 0;
out:
	free(sh.a);
	free(sh.b);
	free(sh.c);
	free(args);
	free(th);
	return rc;
}

struct probe_arg {
	const uint64_t *F_bytes;
	size_t nF;
	uint64_t accesses;
	double *ns;
	double *miss_rate;  /* NULL: not counted */
	char count_why[256];
	uint64_t *buf;  /* 8 words per line, all 0 */
	uint64_t zero;  /* 0, but the compiler cannot know it */
};

/* Reads one word of `accesses` uniformly random lines among the first `lines` of buf, each index
 * shifted by the previous load's value (0) so the loads form one dependent chain; returns the
 * sum of the loaded values (0) so the loop is not removed. */
PMC_NO_SANITIZE static uint64_t probe_chain(const uint64_t *buf, uint64_t lines, uint64_t accesses, uint64_t *x)
{
	uint64_t v = 0;

	for (uint64_t i = 0; i < accesses; i++)
		v = buf[((((pmc_splitmix64(x) >> 32) * lines) >> 32) + v) * 8];
	return v;
}

static void *probe_main(void *arg)
{
	struct probe_arg *pa = arg;
	struct pmc_counters *llc = NULL;
	uint64_t x = 12345, sink = 0;

	/* the probe thread's own LLC misses (Casas & Bronevetsky §3.2.3 measure "the resulting L3
	 * miss rate"): an event set of this thread, opened and closed here */
	if (pa->miss_rate && pmc_counters_open_thread_llc(&llc, pa->count_why, sizeof(pa->count_why)) < 0)
		llc = NULL;
	for (size_t i = 0; i < pa->nF; i++) {
		uint64_t lines = pa->F_bytes[i] / PMC_LINE_BYTES, t0;
		int64_t m0 = 0, m1 = 0;

		sink += probe_chain(pa->buf, lines, pa->accesses / 2, &x); /* warm-up: steady state */
		/* the thread's own CPU time: time other programs take the CPU away is not an access's
		 * (the project's machines are shared, FIELD-NOTES.md) */
		if (llc && pmc_counters_read(llc, &m0) < 0)
			m0 = -1;
		t0 = thread_cpu_ns();
		sink += probe_chain(pa->buf, lines, pa->accesses, &x);
		pa->ns[i] = (double)(thread_cpu_ns() - t0) / (double)pa->accesses;
		if (llc && (m0 < 0 || pmc_counters_read(llc, &m1) < 0 || m1 < m0)) {
			snprintf(pa->count_why, sizeof(pa->count_why), "PAPI_read of the probe's LLC misses failed");
			pmc_counters_close(llc);
			llc = NULL;
		}
		if (pa->miss_rate)
			pa->miss_rate[i] = llc ? (double)(m1 - m0) / (double)pa->accesses : NAN;
	}
	if (pa->miss_rate && !llc)
		for (size_t i = 0; i < pa->nF; i++)
			pa->miss_rate[i] = NAN; /* all or none: a half-counted probe is timed */
	pmc_counters_close(llc);
	pa->zero = sink;
	return NULL;
}

int pmc_cal_probe(int cpu, const uint64_t *F_bytes, size_t nF, uint64_t accesses, double *ns,
		  double *miss_rate, char *why, size_t whysize)
{
	struct probe_arg pa = { .F_bytes = F_bytes, .nF = nF, .accesses = accesses, .ns = ns,
				.miss_rate = miss_rate };
	uint64_t max = 0;
	size_t len;
	void *p;
	int rc;

	for (size_t i = 0; i < nF; i++) {
		if (F_bytes[i] < PMC_LINE_BYTES || F_bytes[i] / PMC_LINE_BYTES > UINT32_MAX) {
			snprintf(why, whysize, "probe footprint of %llu bytes: want 64 bytes to 256 GiB",
				 (unsigned long long)F_bytes[i]);
			return -1;
		}
		if (F_bytes[i] > max)
			max = F_bytes[i];
	}
	if (accesses == 0) {
		snprintf(why, whysize, "probe: no access to time");
		return -1;
	}
	len = (size_t)((max + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, whysize, "probe: cannot allocate %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	/* huge pages where the kernel allows (THP "madvise" is Debian's default): the probe measures
	 * the cache, and a TLB miss on every access of a large footprint would blur the references */
	madvise(p, len, MADV_HUGEPAGE);
	memset(p, 0, len);
	pa.buf = p;
	/* PAPI's thread support is set up here, in the caller's thread, before the probe's */
	if (miss_rate && pmc_counters_threads_init(pa.count_why, sizeof(pa.count_why)) < 0)
		pa.miss_rate = NULL;
	rc = run_pinned(cpu, probe_main, &pa, why, whysize);
	munmap(p, len);
	if (rc == 0 && miss_rate && (!pa.miss_rate || !isfinite(miss_rate[0]))) {
		for (size_t i = 0; i < nF; i++)
			miss_rate[i] = NAN;
		snprintf(why, whysize, "%s", pa.count_why);
	}
	return rc;
}

double pmc_cal_hit_rate(double t_ns, double t_l2_ns, double t_dram_ns)
{
	double h;

	if (!(t_dram_ns > t_l2_ns))
		return 0;
	h = (t_dram_ns - t_ns) / (t_dram_ns - t_l2_ns);
	return h < 0 ? 0 : h > 1 ? 1 : h;
}

double pmc_cal_capacity_summary(struct pmc_cal_point *pts, size_t n, double t_l2_ns, double t_dram_ns,
				int *valid)
{
	double c[PMC_CAL_MAX_FOOTPRINTS];
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		pts[i].hit_rate = pmc_cal_hit_rate(pts[i].ns_per_access, t_l2_ns, t_dram_ns);
		pts[i].C_eff_bytes = pts[i].hit_rate * (double)pts[i].F_bytes;
		if (m < PMC_CAL_MAX_FOOTPRINTS && pts[i].hit_rate >= PMC_CAL_H_MIN &&
		    pts[i].hit_rate <= PMC_CAL_H_MAX)
			c[m++] = pts[i].C_eff_bytes;
	}
	*valid = m > 0;
	return median(c, m);
}

double pmc_cal_capacity_from_misses(struct pmc_cal_point *pts, size_t n, int *valid)
{
	double c[PMC_CAL_MAX_FOOTPRINTS];
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		double h = 1 - pts[i].miss_rate;

		if (!isfinite(h))
			continue;
		pts[i].hit_rate = h < 0 ? 0 : h > 1 ? 1 : h;
		pts[i].C_eff_bytes = pts[i].hit_rate * (double)pts[i].F_bytes;
		if (m < PMC_CAL_MAX_FOOTPRINTS && pts[i].hit_rate >= PMC_CAL_H_MIN &&
		    pts[i].hit_rate <= PMC_CAL_H_MAX)
			c[m++] = pts[i].C_eff_bytes;
	}
	*valid = m > 0;
	return median(c, m);
}

/* Measures refs and footprints p->probe_reps times with whatever interferers run now; fills out.
 * With p->counters the probe also counts its LLC misses; the row uses them (out->counted) when
 * every repetition counted, else the times, and *count_why (when not NULL) gets the reason. */
static int measure_capacity(const struct pmc_cal_params *p, struct pmc_cal_capacity *out, char *count_why,
			    size_t count_whysize, char *why, size_t whysize)
{
	uint64_t F[PMC_CAL_MAX_FOOTPRINTS + 2];
	double ns[PMC_CAL_MAX_FOOTPRINTS + 2], reps[PMC_CAL_MAX_FOOTPRINTS + 2][16];
	double mr[PMC_CAL_MAX_FOOTPRINTS + 2], mreps[PMC_CAL_MAX_FOOTPRINTS + 2][16];
	size_t nF = p->nF < PMC_CAL_MAX_FOOTPRINTS ? p->nF : PMC_CAL_MAX_FOOTPRINTS;
	unsigned R = p->probe_reps ? (p->probe_reps < 16 ? p->probe_reps : 16) : 1;
	int counted = p->counters;

	F[0] = p->l2_ref_bytes;
	memcpy(F + 1, p->F_bytes, nF * sizeof(F[0]));
	F[nF + 1] = p->dram_ref_bytes;
	for (unsigned r = 0; r < R; r++) {
		char cwhy[256] = "";
		if (pmc_cal_probe(p->probe_cpu, F, nF + 2, p->accesses, ns, counted ? mr : NULL, cwhy,
				  sizeof(cwhy)) < 0) {
			snprintf(why, whysize, "%s", cwhy);
			return -1;
		}
		if (counted && !isfinite(mr[0])) {
			counted = 0;
			if (count_why && !count_why[0])
				snprintf(count_why, count_whysize, "%s", cwhy);
		}
		for (size_t i = 0; i < nF + 2; i++) {
			reps[i][r] = ns[i];
			mreps[i][r] = counted ? mr[i] : NAN;
		}
	}
	for (size_t i = 0; i < nF + 2; i++) {
		ns[i] = median(reps[i], R);
		mr[i] = counted ? median(mreps[i], R) : NAN;
	}
	out->t_l2_ns = ns[0];
	out->t_dram_ns = ns[nF + 1];
	out->npoints = nF;
	for (size_t i = 0; i < nF; i++) {
		out->points[i].F_bytes = F[i + 1];
		out->points[i].ns_per_access = ns[i + 1];
		out->points[i].miss_rate = mr[i + 1];
	}
	out->counted = counted;
	if (counted)
		out->C_bytes = pmc_cal_capacity_from_misses(out->points, nF, &out->valid);
	else
		out->C_bytes = pmc_cal_capacity_summary(out->points, nF, out->t_l2_ns, out->t_dram_ns,
							&out->valid);
	return 0;
}

static int with_interferers(const struct pmc_cal_params *p, enum pmc_interferer_kind kind, uint32_t k,
			    size_t buf_bytes, struct pmc_cal_capacity *out, char *count_why, size_t count_whysize,
			    char *why, size_t whysize)
{
	struct pmc_interferer *ts[PMC_CAL_MAX_K], *fill[PMC_CAL_MAX_K];
	size_t nfill;
	int rc;

	if (k > p->ninterferers) {
		snprintf(why, whysize, "%u interferers asked for, %zu CPUs given", k, p->ninterferers);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->k = k;
	if (pmc_interferers_start(kind, p->interferer_cpus, k, buf_bytes, ts, why, whysize) < 0)
		return -1;
	/* fillers on the other interferer CPUs: every row has the same CPUs busy (PMC_FILLER) */
	nfill = p->ninterferers - k;
	if (pmc_interferers_start(PMC_FILLER, p->interferer_cpus + k, nfill, 0, fill, why, whysize) < 0) {
		pmc_interferers_stop(ts, k, NULL);
		return -1;
	}
	rc = measure_capacity(p, out, count_why, count_whysize, why, whysize);
	pmc_interferers_stop(ts, k, NULL);
	pmc_interferers_stop(fill, nfill, NULL);
	return rc;
}

int pmc_cal_capacity(const struct pmc_cal_params *p, uint32_t k, struct pmc_cal_capacity *out, char *why,
		     size_t whysize)
{
	return with_interferers(p, PMC_CSTHR, k, p->csthr_bytes, out, NULL, 0, why, whysize);
}

int pmc_cal_orthogonality(const struct pmc_cal_params *p, uint32_t jmax, double *C_by_j, char *why,
			  size_t whysize)
{
	struct pmc_cal_capacity c;

	for (uint32_t j = 0; j <= jmax; j++) {
		if (with_interferers(p, PMC_BWTHR, j, 0, &c, NULL, 0, why, whysize) < 0)
			return -1;
		C_by_j[j] = c.valid ? c.C_bytes : 0;
	}
	return 0;
}

int pmc_cal_orthogonal_bwthrs(const double *C_by_j, size_t n, double rel_tol)
{
	int j = 0;

	if (n == 0 || !(C_by_j[0] > 0))
		return -1;
	while ((size_t)j + 1 < n && fabs(C_by_j[j + 1] - C_by_j[0]) <= rel_tol * C_by_j[0])
		j++;
	return j;
}

/* The caller's progress callback, if any, with a formatted step name. */
static void cal_step(const struct pmc_cal_params *p, unsigned step, unsigned nsteps, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void cal_step(const struct pmc_cal_params *p, unsigned step, unsigned nsteps, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	if (!p->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->progress(p->progress_arg, step, nsteps, what);
}

int pmc_cal_run(hwloc_topology_t topo, const struct pmc_cal_params *params, struct pmc_interference_cal *cal,
		char *why, size_t whysize)
{
	struct pmc_cal_params pc = *params, *p = &pc;
	int counted = 0, all_counted = 1;
	int cpus[PMC_CAL_MAX_K + 1];
	size_t ncpus = 0;
	unsigned step = 0, nsteps = (unsigned)p->ninterferers + 4;

	memset(cal, 0, sizeof(*cal));
	if (p->ninterferers == 0 || p->ninterferers > PMC_CAL_MAX_K) {
		snprintf(why, whysize, "calibration needs 1 to %d interferer CPUs", PMC_CAL_MAX_K);
		return -1;
	}
	if (pmc_cal_topology_signature(topo, cal->topology, sizeof(cal->topology)) < 0) {
		snprintf(why, whysize, "topology description too long");
		return -1;
	}
	cal->method = cal->bw1_method = PMC_CAL_TIMING;
	/* counters where PAPI counts (the probe's and the BWThr's own LLC misses), else timing */
	if (p->counters && pmc_counters_threads_init(cal->counters_why, sizeof(cal->counters_why)) < 0)
		p->counters = 0;
	else if (!p->counters)
		snprintf(cal->counters_why, sizeof(cal->counters_why), "not asked for");
	cal->probe_cpu = p->probe_cpu;
	memcpy(cal->interferer_cpus, p->interferer_cpus, sizeof(cal->interferer_cpus));
	cal->ninterferers = p->ninterferers;
	cal->csthr_bytes = p->csthr_bytes;
	cal_step(p, ++step, nsteps, "BW1: one BWThr alone on CPU %d", p->interferer_cpus[0]);
	{
		char bwhy[256] = "";
		if (pmc_cal_bw1(p->interferer_cpus[0], p->bw1_ms, p->counters, &cal->BW1_bytes_per_s, &counted,
				bwhy, sizeof(bwhy)) < 0) {
			snprintf(why, whysize, "%s", bwhy);
			return -1;
		}
		if (counted)
			cal->bw1_method = PMC_CAL_COUNTERS;
		else if (p->counters && !cal->counters_why[0])
			snprintf(cal->counters_why, sizeof(cal->counters_why), "BW1: %s", bwhy);
	}
	/* B on the CPUs the measurement uses: the probe's and each distinct interferer CPU */
	cpus[ncpus++] = p->probe_cpu;
	for (size_t j = 0; j < p->ninterferers; j++) {
		size_t i = 0;
		while (i < ncpus && cpus[i] != p->interferer_cpus[j])
			i++;
		if (i == ncpus)
			cpus[ncpus++] = p->interferer_cpus[j];
	}
	cal_step(p, ++step, nsteps, "B: STREAM triad on %zu CPU%s", ncpus, ncpus == 1 ? "" : "s");
	if (pmc_cal_triad(cpus, ncpus, p->triad_array_bytes, p->triad_reps, &cal->B_bytes_per_s, why,
			  whysize) < 0)
		return -1;
	for (uint32_t k = 0; k <= p->ninterferers; k++) {
		cal_step(p, ++step, nsteps, "cache capacity left with %u CSThr%s", k, k == 1 ? "" : "s");
		if (with_interferers(p, PMC_CSTHR, k, p->csthr_bytes, &cal->cap[k], cal->counters_why,
				     sizeof(cal->counters_why), why, whysize) < 0)
			return -1;
		all_counted &= cal->cap[k].counted;
	}
	cal->ncap = p->ninterferers + 1;
	if (p->counters && all_counted)
		cal->method = PMC_CAL_COUNTERS;
	cal_step(p, ++step, nsteps, "orthogonality: capacity with 0..%zu BWThrs", p->ninterferers);
	if (pmc_cal_orthogonality(p, (uint32_t)p->ninterferers, cal->orth_C_bytes, why, whysize) < 0)
		return -1;
	cal->north = p->ninterferers + 1;
	cal->orth_bwthrs = pmc_cal_orthogonal_bwthrs(cal->orth_C_bytes, cal->north, 0.10);
	return 0;
}

int pmc_cal_topology_signature(hwloc_topology_t topo, char *buf, size_t size)
{
	static const hwloc_obj_type_t caches[] = { HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
						   HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE };
	hwloc_obj_t pkg = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, NULL);
	const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	char m[128];
	size_t len, n = 0;
	int w;

	/* the model string without trailing blanks (hypervisors pad it) */
	snprintf(m, sizeof(m), "%s", model ? model : "unknown");
	for (len = strlen(m); len && m[len - 1] == ' '; len--)
		m[len - 1] = '\0';
	w = snprintf(buf, size, "cpu=%s packages=%d cores=%d pus=%d numa=%d", m,
		     hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
		     hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE));
	if (w < 0 || (size_t)w >= size)
		return -1;
	n = (size_t)w;
	for (size_t i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		int count = hwloc_get_nbobjs_by_type(topo, caches[i]);
		hwloc_obj_t c = hwloc_get_next_obj_by_type(topo, caches[i], NULL);

		if (count <= 0 || !c)
			continue;
		w = snprintf(buf + n, size - n, " L%u=%llux%d", c->attr->cache.depth,
			     (unsigned long long)c->attr->cache.size, count);
		if (w < 0 || (size_t)w >= size - n)
			return -1;
		n += (size_t)w;
	}
	return 0;
}

static cJSON *int_array(const int *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	return a;
}

cJSON *pmc_cal_to_json(const struct pmc_interference_cal *cal)
{
	cJSON *o = cJSON_CreateObject(), *caps, *orth;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "format", CAL_FORMAT);
	cJSON_AddStringToObject(o, "topology", cal->topology);
	if (cal->written.id[0]) {
		cJSON *w = cJSON_AddObjectToObject(o, "written");

		cJSON_AddStringToObject(w, "id", cal->written.id);
		cJSON_AddStringToObject(w, "user", cal->written.user);
		cJSON_AddNumberToObject(w, "uid", (double)cal->written.uid);
		cJSON_AddStringToObject(w, "host", cal->written.host);
		cJSON_AddStringToObject(w, "time_utc", cal->written.time_utc);
		cJSON_AddNumberToObject(w, "time_unix_s", (double)cal->written.time_unix_s);
	}
	cJSON_AddStringToObject(o, "method", cal->method == PMC_CAL_COUNTERS ? "counters" : "timing");
	cJSON_AddStringToObject(o, "bw1_method", cal->bw1_method == PMC_CAL_COUNTERS ? "counters" : "accesses");
	if (cal->counters_why[0])
		cJSON_AddStringToObject(o, "counters_why", cal->counters_why);
	cJSON_AddNumberToObject(o, "probe_cpu", cal->probe_cpu);
	cJSON_AddItemToObject(o, "interferer_cpus", int_array(cal->interferer_cpus, cal->ninterferers));
	cJSON_AddNumberToObject(o, "csthr_bytes", (double)cal->csthr_bytes);
	cJSON_AddNumberToObject(o, "BW1_bytes_per_s", cal->BW1_bytes_per_s);
	cJSON_AddNumberToObject(o, "B_bytes_per_s", cal->B_bytes_per_s);
	caps = cJSON_AddArrayToObject(o, "capacity");
	for (size_t k = 0; caps && k < cal->ncap; k++) {
		const struct pmc_cal_capacity *c = &cal->cap[k];
		cJSON *row = cJSON_CreateObject(), *pts;

		cJSON_AddItemToArray(caps, row);
		cJSON_AddNumberToObject(row, "k", c->k);
		cJSON_AddNumberToObject(row, "C_bytes", c->C_bytes);
		cJSON_AddBoolToObject(row, "valid", c->valid);
		cJSON_AddStringToObject(row, "method", c->counted ? "counters" : "timing");
		cJSON_AddNumberToObject(row, "t_l2_ns", c->t_l2_ns);
		cJSON_AddNumberToObject(row, "t_dram_ns", c->t_dram_ns);
		pts = cJSON_AddArrayToObject(row, "points");
		for (size_t i = 0; pts && i < c->npoints; i++) {
			cJSON *pt = cJSON_CreateObject();

			cJSON_AddItemToArray(pts, pt);
			cJSON_AddNumberToObject(pt, "F_bytes", (double)c->points[i].F_bytes);
			cJSON_AddNumberToObject(pt, "ns_per_access", c->points[i].ns_per_access);
			if (isfinite(c->points[i].miss_rate))
				cJSON_AddNumberToObject(pt, "miss_rate", c->points[i].miss_rate);
			else
				cJSON_AddNullToObject(pt, "miss_rate");
			cJSON_AddNumberToObject(pt, "hit_rate", c->points[i].hit_rate);
			cJSON_AddNumberToObject(pt, "C_eff_bytes", c->points[i].C_eff_bytes);
		}
	}
	orth = cJSON_AddArrayToObject(o, "orthogonality_C_bytes");
	for (size_t j = 0; orth && j < cal->north; j++)
		cJSON_AddItemToArray(orth, cJSON_CreateNumber(cal->orth_C_bytes[j]));
	cJSON_AddNumberToObject(o, "orthogonal_bwthrs", cal->orth_bwthrs);
	return o;
}

/* Stamps w with this process's user, host and the time, and a new id. */
static void cal_stamp(struct pmc_cal_written *w)
{
	struct timespec ts;
	struct passwd *pw;
	struct tm tm;

	memset(w, 0, sizeof(*w));
	clock_gettime(CLOCK_REALTIME, &ts);
	w->uid = (long)getuid();
	pw = getpwuid(getuid());
	if (pw && pw->pw_name)
		snprintf(w->user, sizeof(w->user), "%s", pw->pw_name);
	else
		snprintf(w->user, sizeof(w->user), "%ld", w->uid);
	if (gethostname(w->host, sizeof(w->host)) != 0)
		snprintf(w->host, sizeof(w->host), "unknown");
	w->host[sizeof(w->host) - 1] = '\0';
	w->time_unix_s = (int64_t)ts.tv_sec;
	gmtime_r(&ts.tv_sec, &tm);
	strftime(w->time_utc, sizeof(w->time_utc), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(w->id, sizeof(w->id), "%.12s-%ld-%llx", w->host, (long)getpid(),
		 (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
}

int pmc_cal_write(const char *path, struct pmc_interference_cal *cal, char *why, size_t whysize)
{
	cJSON *o;
	char *text = NULL, tmp[4096];
	FILE *f = NULL;
	int rc = -1, fd;

	cal_stamp(&cal->written);
	o = pmc_cal_to_json(cal);
	text = o ? cJSON_Print(o) : NULL;
	if (!text)
		goto oom;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(tmp)) {
		snprintf(why, whysize, "cannot write '%s': path too long", path);
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		snprintf(why, whysize, "cannot write '%s': %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		goto out;
	}
	if (fputs(text, f) < 0 || fputc('\n', f) == EOF || fflush(f) != 0 || fsync(fileno(f)) != 0 ||
	    fchmod(fileno(f), 0644) != 0) {
		snprintf(why, whysize, "cannot write '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (fclose(f) != 0) {
		f = NULL;
		snprintf(why, whysize, "cannot write '%s': %s", path, strerror(errno));
		goto fail;
	}
	f = NULL;
	if (rename(tmp, path) != 0) {
		snprintf(why, whysize, "cannot write '%s': %s", path, strerror(errno));
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	if (f)
		fclose(f);
	f = NULL;
	unlink(tmp);
	goto out;
oom:
	snprintf(why, whysize, "out of memory");
out:
	free(text);
	cJSON_Delete(o);
	return rc;
}

int pmc_cal_foreign(const struct pmc_interference_cal *cal, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!cal->written.id[0] || cal->written.uid == (long)getuid())
		return 0;
	snprintf(buf, size, "its calibration %s was made by user %s (uid %ld) on %s at %s, not by you",
		 cal->written.id, cal->written.user, cal->written.uid, cal->written.host,
		 cal->written.time_utc);
	return 1;
}

/* Reads number `key` of o into *v; -1 with why naming it when missing or not a number. */
static int get_num(const cJSON *o, const char *key, double *v, const char *path, char *why, size_t whysize)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) {
		snprintf(why, whysize, "'%s': \"%s\" missing or not a number", path, key);
		return -1;
	}
	*v = it->valuedouble;
	return 0;
}

static char *slurp(const char *path, char *why, size_t whysize)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	long len;

	if (!f) {
		snprintf(why, whysize, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || len > (1 << 24) || fseek(f, 0, SEEK_SET) != 0) {
		snprintf(why, whysize, "cannot read '%s' (or larger than 16 MiB)", path);
		goto out;
	}
	text = malloc((size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		snprintf(why, whysize, "cannot read '%s'", path);
		free(text);
		text = NULL;
		goto out;
	}
	text[len] = '\0';
out:
	fclose(f);
	return text;
}

static int read_cap(const cJSON *row, struct pmc_cal_capacity *c, const char *path, char *why, size_t whysize)
{
	const cJSON *pts = cJSON_GetObjectItemCaseSensitive(row, "points"), *pt;
	const cJSON *valid = cJSON_GetObjectItemCaseSensitive(row, "valid"), *it;
	double k;

	if (get_num(row, "k", &k, path, why, whysize) < 0 || get_num(row, "C_bytes", &c->C_bytes, path, why, whysize) < 0 ||
	    get_num(row, "t_l2_ns", &c->t_l2_ns, path, why, whysize) < 0 ||
	    get_num(row, "t_dram_ns", &c->t_dram_ns, path, why, whysize) < 0)
		return -1;
	if (!cJSON_IsBool(valid) || !cJSON_IsArray(pts) || k < 0 || k > PMC_CAL_MAX_K) {
		snprintf(why, whysize, "'%s': a capacity row has a bad \"k\", \"valid\" or \"points\"", path);
		return -1;
	}
	c->k = (uint32_t)k;
	c->valid = cJSON_IsTrue(valid);
	it = cJSON_GetObjectItemCaseSensitive(row, "method"); /* absent in files before counters */
	c->counted = cJSON_IsString(it) && strcmp(it->valuestring, "counters") == 0;
	c->npoints = 0;
	cJSON_ArrayForEach(pt, pts) {
		struct pmc_cal_point *q = &c->points[c->npoints];
		double F;

		if (c->npoints == PMC_CAL_MAX_FOOTPRINTS) {
			snprintf(why, whysize, "'%s': more than %d probe points", path, PMC_CAL_MAX_FOOTPRINTS);
			return -1;
		}
		if (get_num(pt, "F_bytes", &F, path, why, whysize) < 0 ||
		    get_num(pt, "ns_per_access", &q->ns_per_access, path, why, whysize) < 0 ||
		    get_num(pt, "hit_rate", &q->hit_rate, path, why, whysize) < 0 ||
		    get_num(pt, "C_eff_bytes", &q->C_eff_bytes, path, why, whysize) < 0)
			return -1;
		it = cJSON_GetObjectItemCaseSensitive(pt, "miss_rate"); /* null or absent: not counted */
		q->miss_rate = cJSON_IsNumber(it) && isfinite(it->valuedouble) ? it->valuedouble : NAN;
		q->F_bytes = (uint64_t)F;
		c->npoints++;
	}
	return 0;
}

int pmc_cal_read(const char *path, const char *topology_now, int strict, struct pmc_interference_cal *cal,
		 char *why, size_t whysize)
{
	char *text = slurp(path, why, whysize);
	cJSON *o = NULL;
	const cJSON *it, *row;
	double v;
	int rc = -1;

	memset(cal, 0, sizeof(*cal));
	if (!text)
		return -1;
	o = cJSON_Parse(text);
	if (!o || !cJSON_IsObject(o)) {
		snprintf(why, whysize, "'%s' is not a JSON object", path);
		goto out;
	}
	it = cJSON_GetObjectItemCaseSensitive(o, "format");
	if (!cJSON_IsString(it) || strcmp(it->valuestring, CAL_FORMAT) != 0) {
		snprintf(why, whysize, "'%s' is not a %s machine file", path, CAL_FORMAT);
		goto out;
	}
	it = cJSON_GetObjectItemCaseSensitive(o, "topology");
	if (!cJSON_IsString(it) || strlen(it->valuestring) >= sizeof(cal->topology)) {
		snprintf(why, whysize, "'%s': \"topology\" missing or too long", path);
		goto out;
	}
	strcpy(cal->topology, it->valuestring);
	it = cJSON_GetObjectItemCaseSensitive(o, "written"); /* optional: files before provenance */
	if (cJSON_IsObject(it)) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(it, "id");
		const cJSON *user = cJSON_GetObjectItemCaseSensitive(it, "user");
		const cJSON *host = cJSON_GetObjectItemCaseSensitive(it, "host");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "time_utc");

		if (!cJSON_IsString(id) || get_num(it, "uid", &v, path, why, whysize) < 0) {
			snprintf(why, whysize, "'%s': \"written\" lacks its \"id\" or \"uid\"", path);
			goto out;
		}
		snprintf(cal->written.id, sizeof(cal->written.id), "%s", id->valuestring);
		cal->written.uid = (long)v;
		snprintf(cal->written.user, sizeof(cal->written.user), "%s",
			 cJSON_IsString(user) ? user->valuestring : "?");
		snprintf(cal->written.host, sizeof(cal->written.host), "%s",
			 cJSON_IsString(host) ? host->valuestring : "?");
		snprintf(cal->written.time_utc, sizeof(cal->written.time_utc), "%s",
			 cJSON_IsString(t) ? t->valuestring : "?");
		if (get_num(it, "time_unix_s", &v, path, why, whysize) == 0)
			cal->written.time_unix_s = (int64_t)v;
	}
	it = cJSON_GetObjectItemCaseSensitive(o, "method");
	if (!cJSON_IsString(it) || (strcmp(it->valuestring, "timing") && strcmp(it->valuestring, "counters"))) {
		snprintf(why, whysize, "'%s': \"method\" is neither \"timing\" nor \"counters\"", path);
		goto out;
	}
	cal->method = strcmp(it->valuestring, "timing") ? PMC_CAL_COUNTERS : PMC_CAL_TIMING;
	/* optional (files before counted BW1 have neither): BW1 was eq. 1 of accesses */
	it = cJSON_GetObjectItemCaseSensitive(o, "bw1_method");
	if (it && (!cJSON_IsString(it) || (strcmp(it->valuestring, "accesses") && strcmp(it->valuestring, "counters")))) {
		snprintf(why, whysize, "'%s': \"bw1_method\" is neither \"accesses\" nor \"counters\"", path);
		goto out;
	}
	cal->bw1_method = it && strcmp(it->valuestring, "counters") == 0 ? PMC_CAL_COUNTERS : PMC_CAL_TIMING;
	it = cJSON_GetObjectItemCaseSensitive(o, "counters_why");
	if (cJSON_IsString(it))
		snprintf(cal->counters_why, sizeof(cal->counters_why), "%s", it->valuestring);
	if (get_num(o, "probe_cpu", &v, path, why, whysize) < 0)
		goto out;
	cal->probe_cpu = (int)v;
	if (get_num(o, "csthr_bytes", &v, path, why, whysize) < 0)
		goto out;
	cal->csthr_bytes = (uint64_t)v;
	if (get_num(o, "BW1_bytes_per_s", &cal->BW1_bytes_per_s, path, why, whysize) < 0 ||
	    get_num(o, "B_bytes_per_s", &cal->B_bytes_per_s, path, why, whysize) < 0)
		goto out;
	if (get_num(o, "orthogonal_bwthrs", &v, path, why, whysize) < 0)
		goto out;
	cal->orth_bwthrs = (int)v;
	it = cJSON_GetObjectItemCaseSensitive(o, "interferer_cpus");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > PMC_CAL_MAX_K) {
		snprintf(why, whysize, "'%s': \"interferer_cpus\" missing or longer than %d", path, PMC_CAL_MAX_K);
		goto out;
	}
	cJSON_ArrayForEach(row, it) {
		if (!cJSON_IsNumber(row)) {
			snprintf(why, whysize, "'%s': \"interferer_cpus\" holds a non-number", path);
			goto out;
		}
		cal->interferer_cpus[cal->ninterferers++] = row->valueint;
	}
	it = cJSON_GetObjectItemCaseSensitive(o, "capacity");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > PMC_CAL_MAX_K + 1) {
		snprintf(why, whysize, "'%s': \"capacity\" missing or longer than %d", path, PMC_CAL_MAX_K + 1);
		goto out;
	}
	cJSON_ArrayForEach(row, it)
		if (read_cap(row, &cal->cap[cal->ncap++], path, why, whysize) < 0)
			goto out;
	it = cJSON_GetObjectItemCaseSensitive(o, "orthogonality_C_bytes");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) > PMC_CAL_MAX_K + 1) {
		snprintf(why, whysize, "'%s': \"orthogonality_C_bytes\" missing or longer than %d", path,
			 PMC_CAL_MAX_K + 1);
		goto out;
	}
	cJSON_ArrayForEach(row, it) {
		if (!cJSON_IsNumber(row)) {
			snprintf(why, whysize, "'%s': \"orthogonality_C_bytes\" holds a non-number", path);
			goto out;
		}
		cal->orth_C_bytes[cal->north++] = row->valuedouble;
	}
	rc = 0;
	if (topology_now && strcmp(topology_now, cal->topology) != 0) {
		snprintf(why, whysize, "'%s' was measured on another machine (%s; this one: %s)", path,
			 cal->topology, topology_now);
		rc = strict ? -1 : 1;
	}
out:
	cJSON_Delete(o);
	free(text);
	return rc;
}
