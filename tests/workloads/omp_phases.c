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
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define PROG "omp_phases"
#include "workload.h"

/* region_max_ns[r]: the longest CPU time a team thread spent in region r's burn */
static int64_t *region_max_ns;

static void region_max_update(int r, int64_t ns)
{
	int64_t cur = __atomic_load_n(&region_max_ns[r], __ATOMIC_RELAXED);

	while (ns > cur && !__atomic_compare_exchange_n(&region_max_ns[r], &cur, ns, 0, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED))
		;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-v] [-w <ms>] [-r <regions>] [balanced|imbalanced]\n"
		   "  -w, --work=MS         CPU milliseconds per thread per region [default: 20]\n"
		   "  -r, --repeats=R       parallel regions [default: 5]\n"
		   "  -v, --verbose         per-thread CPU times on stderr\n"
		   "  threads: OMP_NUM_THREADS [default: number of CPUs]\n");
}

int main(int argc, char **argv)
{
	double work_ms = 20.0, work_total_ms = 0.0, T_cp_ms = 0.0;
	double *burnt_ms, *assigned_ms;
	int repeats = 5, imbalanced = 0, verbose = 0, m, c;
	int wrong_team = 0;
	int64_t main_in_ns = 0;
	double serial_ms, work_measured_ms, T_cp_measured_ms;

	const struct workload_opt opts[] = {
		WL_OPT_MS("work", 'w', &work_ms, "invalid work in ms"),
		WL_OPT_INT("repeats", 'r', &repeats, 1, 1000000, "invalid repeat count"),
		WL_OPT_FLAG("verbose", 'v', &verbose),
	};
	if ((c = workload_options(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])))) >= 0)
		return c;
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
	region_max_ns = calloc((size_t)repeats, sizeof(*region_max_ns));
	if (!burnt_ms || !assigned_ms || !region_max_ns) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	for (int r = 0; r < repeats; r++) {
#pragma omp parallel num_threads(m)
		{
			int id = omp_get_thread_num();
			double ms = imbalanced ? (id + 1) * work_ms : work_ms;
			int64_t t0_ns = thread_cpu_ns(), t1_ns;

			if (omp_get_num_threads() != m) {
#pragma omp atomic write
				wrong_team = 1;
			}
			burn_ms(ms);
			/* Each thread writes only its own slot: no race. */
			t1_ns = thread_cpu_ns();
			burnt_ms[id] += (double)(t1_ns - t0_ns) / 1e6;
			assigned_ms[id] += ms;
			region_max_update(r, t1_ns - t0_ns);
			if (id == 0)
				main_in_ns += t1_ns - t0_ns;
		}
	}
	/* the master's CPU time outside its in-region burns (start-up, forking and joining the teams,
	 * this bookkeeping) is serial: no other thread works then */
	serial_ms = (double)(thread_cpu_ns() - main_in_ns) / 1e6;
	work_measured_ms = T_cp_measured_ms = serial_ms;
	for (int id = 0; id < m; id++)
		work_measured_ms += burnt_ms[id];
	for (int r = 0; r < repeats; r++)
		T_cp_measured_ms += (double)region_max_ns[r] / 1e6;
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
	/* the truth as the threads measured it, serial part included: what the tests compare with
	 * (the barrier's own cost stays outside: libgomp's join is not visible from the team) */
	printf(",\"serial_ms\":%.3f,\"work_measured_ms\":%.3f,\"T_cp_measured_ms\":%.3f,"
	       "\"A_inf_measured\":%.6f", serial_ms, work_measured_ms, T_cp_measured_ms,
	       work_measured_ms / T_cp_measured_ms);
	printf(",\"program\":\"" PROG "\",\"repeats\":%d,\"threads_peak\":%d}\n", repeats, m);
	free(burnt_ms);
	free(region_max_ns);
	free(assigned_ms);
	return fflush(stdout) == EOF ? 1 : 0;
}
