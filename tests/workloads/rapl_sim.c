// SPDX-License-Identifier: MIT
// Test workload: a package energy counter whose power is known: T threads burn CPU, then the
// program adds P_static * wall + P_core * CPU time to a powercap-style energy_uj file.

/*
 * Usage: rapl_sim [-v] [-t <threads>] [-w <ms>] -s <P_static W> -c <P_core W> <energy_uj file>
 *
 * T threads (main is thread 0) each burn MS of their own CPU time, all released together. Then
 * the program reads the decimal counter in FILE, adds
 *
 *     E = P_static * wall + P_core * cpu   (µJ, from W and s)
 *
 * with wall its time since main started (CLOCK_MONOTONIC) and cpu its own CPU time
 * (getrusage RUSAGE_SELF: every thread, start-up included), and replaces the file (a temporary
 * file, then rename: a reader never sees half a number). So a run's mean power is exactly
 * P(x) = P_static + x P_core with x = cpu / wall its busy cores, the linear power model of
 * analyzer/model/power.h: pmcollect with PMT_SYSFS_ROOT on a fixture powercap tree records it as the
 * run's package energy (tests/cli/t1400-energy.sh). P_core may be negative (an impossible
 * machine, for the analyzer's refusal); the counter never goes below 0.
 *
 * Truth: work = T*MS, T_cp = MS, A_inf = T; energy_uj, wall_ms and cpu_ms as added.
 */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define PROG "rapl_sim"
#include "workload.h"
#define MAX_THREADS 64

static double work_ms = 100;
static pthread_barrier_t start;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	burn_ms(work_ms);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-v] [-t <threads>] [-w <ms>] -s <W> -c <W> <energy_uj file>\n"
		   "  -t, --threads=T       threads, main included [default: 2]\n"
		   "  -w, --work=MS         CPU milliseconds each thread burns [default: 100]\n"
		   "  -s, --static=W        P_static: watts with no busy core\n"
		   "  -c, --core=W          P_core: watts per busy core (may be negative)\n"
		   "  -v, --verbose         the energy added on stderr\n");
}

static int parse_watts(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) || fabs(*out) > 1e6 ? -1 : 0;
}

int main(int argc, char **argv)
{
	int64_t t0_ns = mono_ns();
	pthread_t tids[MAX_THREADS];
	int threads = 2, verbose = 0, have_s = 0, have_c = 0, c;
	double P_static = 0, P_core = 0, wall_s, cpu_s, e_uj;
	unsigned long long counter = 0;
	char tmp[4200], buf[64];
	struct rusage ru;
	FILE *f;

	const struct workload_opt opts[] = {
		WL_OPT_INT("threads", 't', &threads, 1, MAX_THREADS, "invalid thread count"),
		WL_OPT_MS("work", 'w', &work_ms, "invalid work in ms"),
		{ "static", 's', WL_DOUBLE, &P_static, 0, 0, "invalid P_static", parse_watts, &have_s },
		{ "core", 'c', WL_DOUBLE, &P_core, 0, 0, "invalid P_core", parse_watts, &have_c },
		WL_OPT_FLAG("verbose", 'v', &verbose),
	};
	if ((c = workload_options(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])))) >= 0)
		return c;
	if (!have_s || !have_c || optind + 1 != argc) {
		fprintf(stderr, PROG ": error: -s, -c and one energy_uj file are needed\n");
		usage(stderr);
		return 2;
	}
	if (strlen(argv[optind]) > 4096)
		return usage_error("path too long", argv[optind]);
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 1; i < threads; i++)
		if (pthread_create(&tids[i], NULL, thread_main, NULL) != 0) {
			fprintf(stderr, PROG ": error: cannot create thread %d\n", i);
			return 1;
		}
	thread_main(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(tids[i], NULL);

	f = fopen(argv[optind], "r");
	if (!f || !fgets(buf, sizeof(buf), f) || sscanf(buf, "%llu", &counter) != 1) {
		fprintf(stderr, PROG ": error: cannot read a counter from '%s'\n", argv[optind]);
		return 1;
	}
	fclose(f);
	getrusage(RUSAGE_SELF, &ru);
	cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	wall_s = (double)(mono_ns() - t0_ns) / 1e9;
	e_uj = (P_static * wall_s + P_core * cpu_s) * 1e6;
	if (e_uj < -(double)counter)
		e_uj = -(double)counter;
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[optind]);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%llu\n", counter + (unsigned long long)llround(e_uj)) < 0 ||
	    fclose(f) != 0 || rename(tmp, argv[optind]) != 0) {
		fprintf(stderr, PROG ": error: cannot write '%s': %s\n", tmp, strerror(errno));
		return 1;
	}
	if (verbose)
		fprintf(stderr, PROG ": %.0f uJ over %.4f s wall, %.4f s CPU\n", e_uj, wall_s, cpu_s);
	printf("{\"workload\":\"rapl_sim\",\"m\":%d,\"work_ms\":%.3f,\"T_cp_ms\":%.3f,\"A_inf\":%d,"
	       "\"P_static_w\":%g,\"P_core_w\":%g,\"wall_ms\":%.3f,\"cpu_ms\":%.3f,\"energy_uj\":%.0f,"
	       "\"program\":\"" PROG "\",\"threads_peak\":%d}\n", threads, threads * work_ms, work_ms,
	       threads, P_static, P_core, wall_s * 1e3, cpu_s * 1e3, e_uj, threads);
	return 0;
}
