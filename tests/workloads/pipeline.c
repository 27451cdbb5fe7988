// SPDX-License-Identifier: MIT
// Test workload: a chain of K stage threads passing items through blocking queues, with the exact truth of its critical path.

/*
 * Usage: pipeline [-v] [-s] [-t <stages>] [-w <ms>] [-n <items>]
 *
 * Stage 0 (the main thread) makes ITEMS items; stage i > 0 takes each item from
 * the queue of stage i-1, burns MS of its own CPU time and hands it to stage
 * i+1. Queues are unbounded counters guarded by a mutex and a condition
 * variable, so a stage with nothing to do sleeps on a futex and is not runnable.
 *
 * Truth on infinite cores (Tudor & Teo, eq. 4, with tau = MS per item and stage):
 *   streaming: item i leaves stage s at (i + s + 1) * MS, so
 *              T_cp = (ITEMS + K - 1) * MS          (fill, then one item per MS)
 *   strict -s: the next item enters only when the previous one left stage K-1,
 *              so every burn is on one dependency chain and T_cp = K * ITEMS * MS
 *   work = K * ITEMS * MS in both.  -t 2 is the producer/consumer pair.
 * serial_ms is the main thread's CPU time outside its stage (start-up, creating and joining the
 * stages), serial by construction; work_total_ms and T_cp_total_ms add it (see phases.c).
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

#define PROG "pipeline"
#include "workload.h"
#define MAX_STAGES 1024

/* An unbounded queue of anonymous items: only how many are waiting matters. */
struct queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	long count;
};

struct stage {
	pthread_t tid;
	int id;
	int64_t *item_ns;    /* measured CPU time per item: taking it, the burn, handing it on */
	double loop_cpu_ms;  /* CPU time spent in the item loop: burns plus queue calls (-v) */
	double total_cpu_ms; /* the thread's whole CPU time; for main it includes exec and startup */
};

static int n_stages = 4;
static long n_items = 10;
static double work_ms = 20.0;
static int strict;
static struct queue *inbox; /* inbox[i] feeds stage i; inbox[0] is used only in strict mode */
static struct stage *stages;

static void queue_init(struct queue *q)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->nonempty, NULL);
	q->count = 0;
}

static void queue_destroy(struct queue *q)
{
	pthread_cond_destroy(&q->nonempty);
	pthread_mutex_destroy(&q->lock);
}

static void queue_put(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->count++;
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

/* Blocks (futex sleep) until an item is there, then takes it. */
static void queue_take(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == 0)
		pthread_cond_wait(&q->nonempty, &q->lock);
	q->count--;
	pthread_mutex_unlock(&q->lock);
}

static void *stage_main(void *arg)
{
	struct stage *st = arg;
	int last = st->id == n_stages - 1;
	int64_t start_ns = thread_cpu_ns(), prev_ns = start_ns;

	for (long item = 0; item < n_items; item++) {
		int64_t now_ns;

		/* Stage 0 makes items; in strict mode it first waits for the previous one to come back. */
		if (st->id > 0 || (strict && item > 0))
			queue_take(&inbox[st->id]);
		burn_ms(work_ms);
		if (!last)
			queue_put(&inbox[st->id + 1]);
		else if (strict)
			queue_put(&inbox[0]);
		now_ns = thread_cpu_ns();
		st->item_ns[item] = now_ns - prev_ns;
		prev_ns = now_ns;
	}
	st->total_cpu_ms = (double)thread_cpu_ns() / 1e6;
	st->loop_cpu_ms = st->total_cpu_ms - (double)start_ns / 1e6;
	return NULL;
}

/*
 * The truth from the CPU time each stage measured per item (the burn plus its queue calls and
 * wake-up), not the nominal MS: on infinite cores item i leaves stage s at
 *   finish(s, i) = max(finish(s-1, i), finish(s, i-1)) + item_ns[s][i],
 * and in strict mode item i enters stage 0 only after item i-1 left stage K-1. T_cp is the last
 * finish plus the serial start-up and tear-down; work is every item's CPU plus the same.
 */
static void measured_truth(double serial_ms, double *work_ms_out, double *T_cp_ms_out)
{
	double *finish = calloc((size_t)n_stages, sizeof(*finish)); /* finish(s, i-1), in ns */
	double work_ns = 0.0, last_ns = 0.0;

	if (!finish) {
		*work_ms_out = *T_cp_ms_out = NAN;
		return;
	}
	for (long i = 0; i < n_items; i++) {
		double ready_ns = strict ? last_ns : 0.0; /* strict: after item i-1 left the chain */

		for (int s = 0; s < n_stages; s++) {
			double start_ns = finish[s] > ready_ns ? finish[s] : ready_ns;

			finish[s] = start_ns + (double)stages[s].item_ns[i];
			work_ns += (double)stages[s].item_ns[i];
			ready_ns = finish[s];
		}
		last_ns = ready_ns;
	}
	*work_ms_out = work_ns / 1e6 + serial_ms;
	*T_cp_ms_out = last_ns / 1e6 + serial_ms;
	free(finish);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-v] [-s] [-t <stages>] [-w <ms>] [-n <items>]\n"
		   "  -t, --stages=K        stage threads, main is stage 0 [default: 4]\n"
		   "  -w, --work=MS         CPU milliseconds per item per stage [default: 20]\n"
		   "  -n, --items=N         items sent through the chain [default: 10]\n"
		   "  -s, --strict          one item in the chain at a time (a pure dependency chain)\n"
		   "  -v, --verbose         per-thread CPU times on stderr\n");
}

int main(int argc, char **argv)
{
	double work_total_ms, T_cp_ms, serial_ms, work_measured_ms, T_cp_measured_ms;
	int verbose = 0, c;

	const struct workload_opt opts[] = {
		WL_OPT_INT("stages", 't', &n_stages, 1, MAX_STAGES, "invalid stage count"),
		WL_OPT_MS("work", 'w', &work_ms, "invalid work in ms"),
		WL_OPT_LONG("items", 'n', &n_items, 1, 100000000, "invalid item count"),
		WL_OPT_FLAG("strict", 's', &strict),
		WL_OPT_FLAG("verbose", 'v', &verbose),
	};
	if ((c = workload_options(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])))) >= 0)
		return c;
	if (no_operands(argc, argv, optind))
		return 2;

	work_total_ms = (double)n_stages * (double)n_items * work_ms;
	T_cp_ms = strict ? work_total_ms : (double)(n_items + n_stages - 1) * work_ms;

	stages = calloc((size_t)n_stages, sizeof(*stages));
	inbox = calloc((size_t)n_stages, sizeof(*inbox));
	if (!stages || !inbox) {
		fprintf(stderr, PROG ": error: out of memory\n");
		return 1;
	}
	for (int i = 0; i < n_stages; i++) {
		stages[i].id = i;
		stages[i].item_ns = calloc((size_t)n_items, sizeof(*stages[i].item_ns));
		if (!stages[i].item_ns) {
			fprintf(stderr, PROG ": error: out of memory\n");
			return 1;
		}
		queue_init(&inbox[i]);
	}
	for (int i = 1; i < n_stages; i++) {
		int err = pthread_create(&stages[i].tid, NULL, stage_main, &stages[i]);

		if (err) {
			/* Stages already started wait forever for items: nothing to join. */
			fprintf(stderr, PROG ": error: cannot create thread %d: %s\n", i, strerror(err));
			exit(1);
		}
	}
	/* the main thread's CPU time outside its stage is serial by construction: before (start-up,
	 * creating the stages) and after (joining, this bookkeeping) */
	serial_ms = (double)thread_cpu_ns() / 1e6;
	stage_main(&stages[0]);
	for (int i = 1; i < n_stages; i++)
		pthread_join(stages[i].tid, NULL);
	serial_ms += (double)thread_cpu_ns() / 1e6 - stages[0].total_cpu_ms;
	measured_truth(serial_ms, &work_measured_ms, &T_cp_measured_ms);

	if (verbose) {
		struct rusage ru;

		for (int i = 0; i < n_stages; i++)
			fprintf(stderr, "stage %d: assigned_ms=%.3f loop_cpu_ms=%.3f total_cpu_ms=%.3f\n", i,
				(double)n_items * work_ms, stages[i].loop_cpu_ms, stages[i].total_cpu_ms);
		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "process: cpu_ms=%.3f work_ms=%.3f\n",
			(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
			work_total_ms);
	}
	printf("{\"workload\":\"%s\",\"m\":%d,\"work_ms\":%.3f,\"T_cp_ms\":%.3f,\"A_inf\":",
	       strict ? "pipeline_strict" : "pipeline", n_stages, work_total_ms, T_cp_ms);
	if (T_cp_ms > 0)
		printf("%.6f", work_total_ms / T_cp_ms);
	else
		printf("null"); /* 0/0: no work at all */
	/* the truth with that serial time added to work and critical path (see phases.c) */
	printf(",\"serial_ms\":%.3f,\"work_total_ms\":%.3f,\"T_cp_total_ms\":%.3f", serial_ms,
	       work_total_ms + serial_ms, T_cp_ms + serial_ms);
	printf(",\"work_measured_ms\":%.3f,\"T_cp_measured_ms\":%.3f", work_measured_ms,
	       T_cp_measured_ms);
	/* the stages' queue waits and start-up too */
	printf(",\"process_cpu_ms\":%.3f", (double)process_cpu_ns() / 1e6);
	printf(",\"program\":\"" PROG "\",\"items\":%ld,\"threads_peak\":%d}\n", n_items, n_stages);
	for (int i = 0; i < n_stages; i++)
		queue_destroy(&inbox[i]);
	free(inbox);
	for (int i = 0; i < n_stages; i++)
		free(stages[i].item_ns);
	free(stages);
	return fflush(stdout) == EOF ? 1 : 0;
}
