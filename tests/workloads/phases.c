// SPDX-License-Identifier: MIT
// Test workload: M threads run barrier-separated phases of known CPU work and print the exact truth (work, T_cp, A_inf).

/*
 * Usage: phases [-v] [-t <threads>] [-w <ms>] [-r <repeats>] [-s <serial-ms>] <pattern>
 *
 * Every thread walks the same schedule of steps; in each step thread j burns
 * step_burn_ms(step, j) milliseconds of its OWN CPU time and then waits at a
 * barrier. Because the truth is computed by summing over that very schedule
 * (work = sum of all burns, T_cp = sum over steps of the largest burn), it is
 * exact by construction, whatever the number of CPUs (Tudor & Teo, eq. 4:
 * A(m,inf) = sum of tau_j / sum of max tau_j).
 *
 * The main thread is worker 0, so the process has exactly M threads.
 *
 * The output also gives serial_ms, the main thread's CPU time outside its burns (start-up and
 * creating the workers before, joining after: serial by construction, measured with its CPU
 * clock), and the truth with it added to work and critical path (T_cp_total_ms, A_inf_total),
 * which is what a tool that sees the whole process, start-up included, should find.
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

#define PROG "phases"
#include "workload.h"
#define MAX_THREADS 1024

enum pattern { PAT_BALANCED, PAT_IMBALANCED, PAT_SERIAL, PAT_MIXED };

/* The kinds of step a schedule is made of; see step_burn_ms(). */
enum step_kind { STEP_ALL, STEP_TRIANGLE, STEP_SERIAL, STEP_HALF };

struct config {
	int threads;
	double work_ms;
	double serial_ms;
	int repeats;
	enum pattern pattern;
	int verbose;
};

struct worker {
	pthread_t tid;
	int id;
	double measured_ms;  /* sum of this thread's measured steps (step_cpu_ns below) */
	double assigned_ms;  /* sum of this thread's burns, from the schedule */
	double loop_cpu_ms;  /* CPU time spent in the phase loop: burns plus barrier calls (-v) */
	double total_cpu_ms; /* the thread's whole CPU time; for main it includes exec and startup */
};

static struct config cfg;
static pthread_barrier_t phase_barrier;
/* step_max_ns[s]: the longest CPU time any thread spent in step s, measured from leaving the
 * previous barrier to leaving this one (its burn, the barrier's futex calls and the wake-up):
 * the measured critical path is their sum (issue 11: a nominal truth ignores the barrier cost,
 * which 16 threads on one CPU or the sanitizers make several % of a short phase). */
static int64_t *step_max_ns;
/* step_end_ns[s]: CLOCK_MONOTONIC when thread 0 left step s's barrier (the step's end for
 * everyone): the truth of the phase fallback's boundaries (issue 17). start_ns: before step 0. */
static int64_t *step_end_ns, start_mono_ns;

/* step_max_ns[s] = max(step_max_ns[s], ns), from any thread */
static void step_max_update(int s, int64_t ns)
{
	int64_t cur = __atomic_load_n(&step_max_ns[s], __ATOMIC_RELAXED);

	while (ns > cur && !__atomic_compare_exchange_n(&step_max_ns[s], &cur, ns, 0, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED))
		;
}

/* Indexed by enum pattern; also the accepted spellings of <pattern>. */
static const char *const pattern_names[] = { "balanced", "imbalanced", "serial", "mixed" };

/* Steps in one repetition of the pattern; the schedule is repeats * steps_per_repeat() steps. */
static int steps_per_repeat(enum pattern p)
{
	switch (p) {
	case PAT_BALANCED:
	case PAT_IMBALANCED:
		return 1;
	case PAT_SERIAL:
		return 2;
	case PAT_MIXED:
		return 4;
	}
	return 0;
}

static enum step_kind step_kind_of(enum pattern p, int step)
{
	/* Each row lists one repetition; mixed is serial, balanced, imbalanced, half. */
	static const enum step_kind serial_steps[] = { STEP_SERIAL, STEP_ALL };
	static const enum step_kind mixed_steps[] = { STEP_SERIAL, STEP_ALL, STEP_TRIANGLE, STEP_HALF };
	int k = step % steps_per_repeat(p);

	switch (p) {
	case PAT_BALANCED:
		return STEP_ALL;
	case PAT_IMBALANCED:
		return STEP_TRIANGLE;
	case PAT_SERIAL:
		return serial_steps[k];
	case PAT_MIXED:
		return mixed_steps[k];
	}
	return STEP_ALL;
}

/* CPU milliseconds thread j burns in the given step: the single source of both the run and the truth. */
static double step_burn_ms(int step, int j)
{
	switch (step_kind_of(cfg.pattern, step)) {
	case STEP_ALL:
		return cfg.work_ms;
	case STEP_TRIANGLE:
		return (j + 1) * cfg.work_ms;
	case STEP_SERIAL:
		return j == 0 ? cfg.serial_ms : 0.0;
	case STEP_HALF:
		/* ceil(M/2) so that one thread still works when M is 1 */
		return j < (cfg.threads + 1) / 2 ? cfg.work_ms : 0.0;
	}
	return 0.0;
}

static int total_steps(void)
{
	return cfg.repeats * steps_per_repeat(cfg.pattern);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int steps = total_steps();
	int64_t start_ns = thread_cpu_ns(), prev_ns = start_ns;

	for (int s = 0; s < steps; s++) {
		double ms = step_burn_ms(s, w->id);
		int64_t now_ns;

		burn_ms(ms);
		w->assigned_ms += ms;
		/* futex sleep, not a spin: a waiting thread must not be runnable */
		pthread_barrier_wait(&phase_barrier);
		if (w->id == 0)
			step_end_ns[s] = mono_ns();
		now_ns = thread_cpu_ns();
		step_max_update(s, now_ns - prev_ns);
		w->measured_ms += (double)(now_ns - prev_ns) / 1e6;
		prev_ns = now_ns;
	}
	w->total_cpu_ms = (double)thread_cpu_ns() / 1e6;
	w->loop_cpu_ms = w->total_cpu_ms - (double)start_ns / 1e6;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-v] [-t <threads>] [-w <ms>] [-r <repeats>] [-s <serial-ms>] <pattern>\n"
		"  <pattern>             balanced | imbalanced | serial | mixed\n"
		"  -t, --threads=N       worker threads, main included [default: 4]\n"
		"  -w, --work=MS         CPU milliseconds per thread per phase [default: 30]\n"
		"  -r, --repeats=N       repetitions of the pattern [default: 3]\n"
		"  -s, --serial=MS       CPU milliseconds of the serial phase [default: the -w value]\n"
		"  -v, --verbose         per-thread CPU times on stderr\n");
}

int main(int argc, char **argv)
{
	struct worker *workers;
	double work_total_ms = 0.0, T_cp_ms = 0.0, serial_ms = 0.0;
	double work_measured_ms, T_cp_measured_ms;
	int serial_given = 0, c, steps, rc = 0;

	cfg.threads = 4;
	cfg.work_ms = 30.0;
	cfg.repeats = 3;
	const struct workload_opt opts[] = {
		WL_OPT_INT("threads", 't', &cfg.threads, 1, MAX_THREADS, "invalid thread count"),
		WL_OPT_MS("work", 'w', &cfg.work_ms, "invalid work in ms"),
		WL_OPT_INT("repeats", 'r', &cfg.repeats, 1, 1000000, "invalid repeat count"),
		{ "serial", 's', WL_MS, &cfg.serial_ms, 0, 0, "invalid serial work in ms", NULL,
		  &serial_given, },
		WL_OPT_FLAG("verbose", 'v', &cfg.verbose),
	};
	if ((c = workload_options(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])))) >= 0)
		return c;
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": error: expected exactly one pattern\n");
		usage(stderr);
		return 2;
	}
	for (c = 0; c < 4 && strcmp(argv[optind], pattern_names[c]); c++)
		;
	if (c == 4)
		return usage_error("unknown pattern", argv[optind]);
	cfg.pattern = (enum pattern)c;
	if (!serial_given)
		cfg.serial_ms = cfg.work_ms;

	/* The truth, summed over the same schedule the threads run. */
	steps = total_steps();
	for (int s = 0; s < steps; s++) {
		double longest_ms = 0.0;

		for (int j = 0; j < cfg.threads; j++) {
			double ms = step_burn_ms(s, j);

			work_total_ms += ms;
			longest_ms = ms > longest_ms ? ms : longest_ms;
		}
		T_cp_ms += longest_ms;
	}

	workers = calloc((size_t)cfg.threads, sizeof(*workers));
	step_max_ns = calloc((size_t)steps, sizeof(*step_max_ns));
	step_end_ns = calloc((size_t)steps, sizeof(*step_end_ns));
	if (!workers || !step_max_ns || !step_end_ns) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	pthread_barrier_init(&phase_barrier, NULL, (unsigned)cfg.threads);
	for (int j = 0; j < cfg.threads; j++)
		workers[j].id = j;
	for (int j = 1; j < cfg.threads; j++) {
		int err = pthread_create(&workers[j].tid, NULL, worker_main, &workers[j]);

		if (err) {
			/* Threads already started would wait forever at the barrier: nothing to join. */
			fprintf(stderr, PROG ": error: cannot create thread %d: %s\n", j, strerror(err));
			exit(1);
		}
	}
	/* the main thread's CPU time outside its burns is serial by construction: before its first
	 * burn (exec, start-up, creating the workers; the last worker starts no later) and after its
	 * last barrier (joining, this bookkeeping) */
	serial_ms = (double)thread_cpu_ns() / 1e6;
	start_mono_ns = mono_ns();
	worker_main(&workers[0]);
	for (int j = 1; j < cfg.threads; j++)
		pthread_join(workers[j].tid, NULL);
	serial_ms += (double)thread_cpu_ns() / 1e6 - workers[0].total_cpu_ms;
	work_measured_ms = T_cp_measured_ms = serial_ms;
	for (int j = 0; j < cfg.threads; j++)
		work_measured_ms += workers[j].measured_ms;
	for (int s = 0; s < steps; s++)
		T_cp_measured_ms += (double)step_max_ns[s] / 1e6;

	if (cfg.verbose) {
		struct rusage ru;

		for (int j = 0; j < cfg.threads; j++)
			fprintf(stderr, "thread %d: assigned_ms=%.3f loop_cpu_ms=%.3f total_cpu_ms=%.3f\n", j,
				workers[j].assigned_ms, workers[j].loop_cpu_ms, workers[j].total_cpu_ms);
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "process: cpu_ms=%.3f work_ms=%.3f\n",
			(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
			work_total_ms);
	}
	printf("{\"workload\":\"%s\",\"m\":%d,\"work_ms\":%.3f,\"T_cp_ms\":%.3f,\"A_inf\":",
	       pattern_names[cfg.pattern], cfg.threads, work_total_ms, T_cp_ms);
	if (T_cp_ms > 0)
		printf("%.6f", work_total_ms / T_cp_ms);
	else
		printf("null"); /* 0/0: no work at all */
	/* the same truth with the serial start-up and tear-down measured above added to both work
	 * and critical path: what a tool that sees the whole process should find */
	printf(",\"serial_ms\":%.3f,\"T_cp_total_ms\":%.3f,\"A_inf_total\":%.6f", serial_ms,
	       T_cp_ms + serial_ms, (work_total_ms + serial_ms) / (T_cp_ms + serial_ms));
	/* the truth as the threads measured it (serial part included): what the tests compare with */
	printf(",\"work_measured_ms\":%.3f,\"T_cp_measured_ms\":%.3f,\"A_inf_measured\":%.6f",
	       work_measured_ms, T_cp_measured_ms, work_measured_ms / T_cp_measured_ms);
	/* what a tool that counts every running slice sees as U at any load, where waiting threads
	 * may spend CPU outside their work loops */
	printf(",\"process_cpu_ms\":%.3f", (double)process_cpu_ns() / 1e6);
	printf(",\"program\":\"" PROG "\",\"repeats\":%d,\"threads_peak\":%d", cfg.repeats, cfg.threads);
	/* CLOCK_MONOTONIC at the start of step 0 and at the end of every step */
	printf(",\"start_ns\":%lld,\"step_end_ns\":[", (long long)start_mono_ns);
	for (int s = 0; s < steps; s++)
		printf("%s%lld", s ? "," : "", (long long)step_end_ns[s]);
	printf("]}\n");
	pthread_barrier_destroy(&phase_barrier);
	free(workers);
	free(step_max_ns);
	free(step_end_ns);
	if (fflush(stdout) == EOF)
		rc = 1;
	return rc;
}
