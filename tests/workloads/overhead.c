// SPDX-License-Identifier: MIT
// Test workload: T threads share fixed parallel work plus a serial overhead that grows with T by construction (∝ T or ∝ log2 T), and print the truth and what they measured.

/*
 * Usage: overhead [-v] [-t <threads>] [-w <ms>] [-s <ms>] [-r <repeats>] <mode>
 *
 * For the scaling study of issue 13 (Iwainsky et al.'s PMNF models fitted over a sweep of thread
 * counts): a program whose overhead class is known, so that a sweep over -t can be checked to be
 * classified as "t" (mode linear) or "log t" (mode log). Each repetition has three steps, each
 * ended by a barrier (threads block in the kernel, never spin):
 *   1. overhead, serial by construction:
 *        linear: every thread in turn burns S ms holding one mutex (the others sleep on it):
 *                per-thread serial work, T S in total, all on the critical path;
 *        log:    thread 0 alone burns S log2(T) ms while the others wait at the barrier;
 *        none:   nothing;
 *   2. parallel work: every thread burns W / T ms (strong scaling: the total W does not change).
 * Truth per repetition: overhead_ms = T S | S log2 T | 0; work_ms = W + overhead_ms;
 * T_cp_ms = overhead_ms + W / T. So the total CPU time grows as c0 + c1 T or c0 + c1 log2 T, and
 * so does the wall time on any number of CPUs >= T (on fewer CPUs the parallel step takes
 * W / CPUs instead of W / T).
 *
 * Each thread also measures its own CPU time (CLOCK_THREAD_CPUTIME_ID): of the whole loop and of
 * the overhead step; their sums are printed as measured_cpu_ms and measured_overhead_ms, next to
 * the truth. The main thread is thread 0, so the process has exactly T threads.
 */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#define PROG "overhead"
#include "workload.h"
#define MAX_THREADS 1024

enum mode { MODE_LINEAR, MODE_LOG, MODE_NONE };
static const char *const mode_names[] = { "linear", "log", "none" };

struct config {
	int threads;
	double work_ms;   /* W: total parallel work per repetition */
	double serial_ms; /* S: the unit of overhead */
	int repeats;
	enum mode mode;
	int verbose;
};

struct worker {
	pthread_t tid;
	int id;
	double loop_cpu_ms;     /* CPU time of the whole loop, measured */
	double overhead_cpu_ms; /* CPU time of the overhead steps, measured */
};

static struct config cfg;
static pthread_barrier_t step_barrier;
static pthread_mutex_t serial_lock = PTHREAD_MUTEX_INITIALIZER;

/* The overhead of one repetition with T threads, in ms: the single source of run and truth. */
static double overhead_ms(int T)
{
	switch (cfg.mode) {
	case MODE_LINEAR:
		return T * cfg.serial_ms;
	case MODE_LOG:
		return cfg.serial_ms * log2(T);
	case MODE_NONE:
		return 0;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int64_t start_ns = thread_cpu_ns();

	for (int r = 0; r < cfg.repeats; r++) {
		int64_t t0 = thread_cpu_ns();
		if (cfg.mode == MODE_LINEAR) {
			pthread_mutex_lock(&serial_lock);
			burn_ms(cfg.serial_ms);
			pthread_mutex_unlock(&serial_lock);
		} else if (cfg.mode == MODE_LOG && w->id == 0) {
			burn_ms(overhead_ms(cfg.threads));
		}
		w->overhead_cpu_ms += (double)(thread_cpu_ns() - t0) / 1e6;
		/* futex sleep, not a spin: a waiting thread must not be runnable */
		pthread_barrier_wait(&step_barrier);
		burn_ms(cfg.work_ms / cfg.threads);
		pthread_barrier_wait(&step_barrier);
	}
	w->loop_cpu_ms = (double)(thread_cpu_ns() - start_ns) / 1e6;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-v] [-t <threads>] [-w <ms>] [-s <ms>] [-r <repeats>] <mode>\n"
		"  <mode>                linear (overhead T*S) | log (overhead S*log2 T) | none\n"
		"  -t, --threads=N       threads, main included [default: 4]\n"
		"  -w, --work=MS         parallel CPU milliseconds per repetition, split over the\n"
		"                        threads [default: 200]\n"
		"  -s, --serial=MS       the unit S of the serial overhead, CPU ms [default: 10]\n"
		"  -r, --repeats=N       repetitions [default: 1]\n"
		"  -v, --verbose         per-thread CPU times on stderr\n");
}

int main(int argc, char **argv)
{
	struct worker *workers;
	int c, rc = 0;

	cfg.threads = 4;
	cfg.work_ms = 200.0;
	cfg.serial_ms = 10.0;
	cfg.repeats = 1;
	const struct workload_opt opts[] = {
		WL_OPT_INT("threads", 't', &cfg.threads, 1, MAX_THREADS, "invalid thread count"),
		WL_OPT_MS("work", 'w', &cfg.work_ms, "invalid work in ms"),
		WL_OPT_MS("serial", 's', &cfg.serial_ms, "invalid serial work in ms"),
		WL_OPT_INT("repeats", 'r', &cfg.repeats, 1, 1000000, "invalid repeat count"),
		WL_OPT_FLAG("verbose", 'v', &cfg.verbose),
	};
	if ((c = workload_options(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])))) >= 0)
		return c;
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": error: expected exactly one mode\n");
		usage(stderr);
		return 2;
	}
	for (c = 0; c < 3 && strcmp(argv[optind], mode_names[c]); c++)
		;
	if (c == 3)
		return usage_error("unknown mode", argv[optind]);
	cfg.mode = (enum mode)c;

	workers = calloc((size_t)cfg.threads, sizeof(*workers));
	if (!workers || pthread_barrier_init(&step_barrier, NULL, (unsigned)cfg.threads)) {
		fprintf(stderr, PROG ": error: cannot set up %d threads: %s\n", cfg.threads, strerror(errno));
		return 1;
	}
	for (int i = 0; i < cfg.threads; i++)
		workers[i].id = i;
	for (int i = 1; i < cfg.threads; i++) {
		int err = pthread_create(&workers[i].tid, NULL, worker_main, &workers[i]);
		if (err) {
			fprintf(stderr, PROG ": error: cannot create thread %d: %s\n", i, strerror(err));
			return 1; /* threads already started block at the barrier; exit ends them */
		}
	}
	worker_main(&workers[0]);
	for (int i = 1; i < cfg.threads; i++)
		pthread_join(workers[i].tid, NULL);

	double measured_cpu_ms = 0, measured_overhead_ms = 0;
	for (int i = 0; i < cfg.threads; i++) {
		measured_cpu_ms += workers[i].loop_cpu_ms;
		measured_overhead_ms += workers[i].overhead_cpu_ms;
		if (cfg.verbose)
			fprintf(stderr, PROG ": thread %d: loop %.3f ms CPU, overhead step %.3f ms CPU\n",
				i, workers[i].loop_cpu_ms, workers[i].overhead_cpu_ms);
	}
	double ov_ms = cfg.repeats * overhead_ms(cfg.threads);
	double work_ms = cfg.repeats * cfg.work_ms + ov_ms;
	double T_cp_ms = ov_ms + cfg.repeats * cfg.work_ms / cfg.threads;
	printf("{\"workload\":\"overhead_%s\",\"m\":%d,\"work_ms\":%.3f,\"T_cp_ms\":%.3f,\"A_inf\":",
	       mode_names[cfg.mode], cfg.threads, work_ms, T_cp_ms);
	if (T_cp_ms > 0)
		printf("%.6f", work_ms / T_cp_ms);
	else
		printf("null");
	printf(",\"overhead_ms\":%.3f,\"measured_cpu_ms\":%.3f,\"measured_overhead_ms\":%.3f",
	       ov_ms, measured_cpu_ms, measured_overhead_ms);
	printf(",\"program\":\"" PROG "\",\"repeats\":%d,\"threads_peak\":%d}\n", cfg.repeats,
	       cfg.threads);
	pthread_barrier_destroy(&step_barrier);
	free(workers);
	return rc;
}
