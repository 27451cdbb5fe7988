// SPDX-License-Identifier: MIT
// Test workload: R OpenMP parallel regions of known per-thread CPU work, with the exact truth (work, T_cp, A_inf).

/*
 * Usage: omp_phases [-v] [-w <ms>] [-r <regions>] [balanced|imbalanced]
 *
 * Each of R `#pragma omp parallel` regions has every team thread burn MS of its
 * own CPU time (imbalanced: thread id burns (id+1)*MS), followed by the
 * region's implicit barrier. The team size m is omp_get_max_threads(), i.e.
 * OMP_NUM_THREADS or the number of CPUs; dynamic adjustment is turned off so
 * every region really gets m threads (checked at run time). The main thread is
 * the team's master (thread 0), so the process has exactly m threads.
 *
 * Truth (Tudor & Teo, eq. 4):
 *   balanced:   work = R*m*MS,          T_cp = R*MS
 *   imbalanced: work = R*MS*m(m+1)/2,   T_cp = R*m*MS
 * Under OMP_WAIT_POLICY=active libgomp threads spin at the barrier instead of
 * sleeping; the truth is the same, the process's CPU time is not.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define PROG "omp_phases"

/* Between two clock reads: long enough that the syscall costs ~1-2%, short enough that the
 * overshoot at the end of a burn is a few microseconds. */
#define BURN_CHECK_NS 20000

/* Own CPU time of the calling thread in ns; not wall time, so preemption does not count. */
static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin on register-resident arithmetic for n iterations; the asm keeps the compiler from
 * folding the loop away while touching no memory (so no cache or bandwidth contention). */
static uint64_t spin(uint64_t x, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/*
 * burn_ms() - consume exactly @ms milliseconds of the calling thread's CPU time.
 *
 * The chunk size is recalibrated from each chunk's own CPU cost, so a check happens about
 * every BURN_CHECK_NS of work whatever the CPU speed, and the last chunk is shrunk to the
 * time left so the overshoot is about one clock_gettime() call.
 */
static void burn_ms(double ms)
{
	static __thread uint64_t iters_per_check = 256; /* warms up on the first chunks */
	int64_t budget_ns = llround(ms * 1e6);
	int64_t start_ns, now_ns, left_ns;
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	if (budget_ns <= 0)
		return;
	start_ns = now_ns = thread_cpu_ns();
	while ((left_ns = start_ns + budget_ns - now_ns) > 0) {
		uint64_t n = iters_per_check;
		int full = left_ns >= BURN_CHECK_NS;
		int64_t t_ns, used_ns;

		if (!full)
			n = n * (uint64_t)left_ns / BURN_CHECK_NS + 1;
		x = spin(x, n);
		t_ns = thread_cpu_ns();
		used_ns = t_ns - now_ns;
		if (full && used_ns > 0) {
			uint64_t next = n * BURN_CHECK_NS / (uint64_t)used_ns;

			iters_per_check = next < 16 ? 16 : next > (1u << 26) ? (1u << 26) : next;
		}
		now_ns = t_ns;
	}
	__asm__ volatile("" : : "r"(x));
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-v] [-w <ms>] [-r <regions>] [balanced|imbalanced]\n"
		   "  -w, --work=MS         CPU milliseconds per thread per region [default: 20]\n"
		   "  -r, --repeats=R       parallel regions [default: 5]\n"
		   "  -v, --verbose         per-thread CPU times on stderr\n"
		   "  threads: OMP_NUM_THREADS [default: number of CPUs]\n");
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, PROG ": error: %s '%s'\n", what, arg);
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "work", required_argument, NULL, 'w' },
						  { "repeats", required_argument, NULL, 'r' },
						  { "verbose", no_argument, NULL, 'v' },
						  { "help", no_argument, NULL, 'h' },
						  { NULL, 0, NULL, 0 } };
	double work_ms = 20.0, work_total_ms = 0.0, T_cp_ms = 0.0;
	double *burnt_ms, *assigned_ms;
	int repeats = 5, imbalanced = 0, verbose = 0, m, c;
	int wrong_team = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "+w:r:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			errno = 0;
			work_ms = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(work_ms) || work_ms < 0 || work_ms > 1e7)
				return usage_error("invalid work in ms", optarg);
			break;
		case 'r': {
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 1 || v > 1000000)
				return usage_error("invalid repeat count", optarg);
			repeats = (int)v;
			break;
		}
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		if (optind != argc - 1 ||
		    (strcmp(argv[optind], "imbalanced") && strcmp(argv[optind], "balanced")))
			return usage_error("unknown pattern", argv[optind]);
		imbalanced = !strcmp(argv[optind], "imbalanced");
	}

	/* Without this libgomp may hand a region fewer threads, and the truth would be wrong. */
	omp_set_dynamic(0);
	m = omp_get_max_threads();
	for (int id = 0; id < m; id++) {
		double ms = imbalanced ? (id + 1) * work_ms : work_ms;

		work_total_ms += repeats * ms;
	}
	T_cp_ms = repeats * (imbalanced ? m * work_ms : work_ms);

	burnt_ms = calloc((size_t)m, sizeof(*burnt_ms));
	assigned_ms = calloc((size_t)m, sizeof(*assigned_ms));
	if (!burnt_ms || !assigned_ms) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	for (int r = 0; r < repeats; r++) {
#pragma omp parallel num_threads(m)
		{
			int id = omp_get_thread_num();
			double ms = imbalanced ? (id + 1) * work_ms : work_ms;
			int64_t t0_ns = thread_cpu_ns();

			if (omp_get_num_threads() != m) {
#pragma omp atomic write
				wrong_team = 1;
			}
			burn_ms(ms);
			/* Each thread writes only its own slot: no race. */
			burnt_ms[id] += (double)(thread_cpu_ns() - t0_ns) / 1e6;
			assigned_ms[id] += ms;
		}
	}
	if (wrong_team) {
		fprintf(stderr, PROG ": error: a parallel region did not get %d threads\n", m);
		return 1;
	}
	if (verbose) {
		struct rusage ru;

		for (int id = 0; id < m; id++)
			fprintf(stderr, "thread %d: assigned_ms=%.3f burnt_cpu_ms=%.3f\n", id, assigned_ms[id],
				burnt_ms[id]);
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "process: cpu_ms=%.3f work_ms=%.3f\n",
			(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
			work_total_ms);
	}
	printf("{\"workload\":\"%s\",\"m\":%d,\"work_ms\":%.3f,\"T_cp_ms\":%.3f,\"A_inf\":",
	       imbalanced ? "omp_imbalanced" : "omp_balanced", m, work_total_ms, T_cp_ms);
	if (T_cp_ms > 0)
		printf("%.6f", work_total_ms / T_cp_ms);
	else
		printf("null"); /* 0/0: no work at all */
	printf(",\"program\":\"" PROG "\",\"repeats\":%d,\"threads_peak\":%d}\n", repeats, m);
	free(burnt_ms);
	free(assigned_ms);
	return fflush(stdout) == EOF ? 1 : 0;
}
