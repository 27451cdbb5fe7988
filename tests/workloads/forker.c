// SPDX-License-Identifier: MIT
// Test workload: a parent forks P children of T threads each that burn MS once, so the traced work spans several processes.

/*
 * Usage: forker [-v] [-p <children>] [-t <threads>] [-w <ms>]
 *
 * Every child creates its T-1 extra threads, reports "ready" on a pipe, and
 * sleeps until the parent closes a gate pipe; only then do all P*T threads burn
 * MS of their own CPU time. The gate makes the peak exact by construction: at
 * that moment all P*T workers and the parent (blocked, never runnable) are alive
 * at once, and nothing has been burnt before.
 *
 * Truth (Tudor & Teo, eq. 4): work = P*T*MS, T_cp = MS, A_inf = P*T;
 * m = P*T workers; threads_peak = P*T + 1 counting the blocked parent.
 * The parent exits 0 when every child exited 0, else 1.
 */

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "forker"
#include "workload.h"
#define MAX_CHILDREN 256
#define MAX_THREADS 256

static int n_children = 2;
static int n_threads = 2;
static double work_ms = 100.0;
static int verbose;
static pthread_barrier_t start_barrier; /* per child: its threads wait here for the gate */

static void *child_thread_main(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_barrier);
	burn_ms(work_ms);
	return NULL;
}

/* Body of child number @idx; never returns. _exit() so the parent's stdio buffers are not
 * flushed twice. */
static void child_main(int idx, int ready_fd, int gate_fd)
{
	pthread_t tids[MAX_THREADS];
	double cpu_ms;
	char byte = 'r';

	pthread_barrier_init(&start_barrier, NULL, (unsigned)n_threads);
	for (int j = 1; j < n_threads; j++) {
		int err = pthread_create(&tids[j], NULL, child_thread_main, NULL);

		if (err) {
			fprintf(stderr, PROG ": error: child %d: cannot create thread %d: %s\n", idx, j,
				strerror(err));
			_exit(1);
		}
	}
	if (write(ready_fd, &byte, 1) != 1)
		_exit(1);
	close(ready_fd);
	/* Sleeps until the parent closes its end: EOF releases every child at the same moment. */
	while (read(gate_fd, &byte, 1) < 0 && errno == EINTR)
		;
	close(gate_fd);
	pthread_barrier_wait(&start_barrier);
	burn_ms(work_ms);
	cpu_ms = (double)thread_cpu_ns() / 1e6;
	for (int j = 1; j < n_threads; j++)
		pthread_join(tids[j], NULL);
	if (verbose) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "child %d: main cpu_ms=%.3f process cpu_ms=%.3f assigned_ms=%.3f\n", idx,
			cpu_ms,
			(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
			n_threads * work_ms);
	}
	_exit(0);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-v] [-p <children>] [-t <threads>] [-w <ms>]\n"
		   "  -p, --children=P      child processes [default: 2]\n"
		   "  -t, --threads=T       threads per child, child main included [default: 2]\n"
		   "  -w, --work=MS         CPU milliseconds each thread burns once [default: 100]\n"
		   "  -v, --verbose         per-child CPU times on stderr\n");
}

int main(int argc, char **argv)
{
	int ready_pipe[2], gate_pipe[2];
	int started = 0, ready = 0, failed = 0, c;
	double work_total_ms, T_cp_ms;
	char byte;

	const struct workload_opt opts[] = {
		WL_OPT_INT("children", 'p', &n_children, 1, MAX_CHILDREN, "invalid child count"),
		WL_OPT_INT("threads", 't', &n_threads, 1, MAX_THREADS, "invalid thread count"),
		WL_OPT_MS("work", 'w', &work_ms, "invalid work in ms"),
		WL_OPT_FLAG("verbose", 'v', &verbose),
	};
	if ((c = workload_options(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])))) >= 0)
		return c;
	if (no_operands(argc, argv, optind))
		return 2;
	work_total_ms = (double)n_children * n_threads * work_ms;
	T_cp_ms = work_ms;

	if (pipe(ready_pipe) || pipe(gate_pipe)) {
		fprintf(stderr, PROG ": error: cannot create pipe: %s\n", strerror(errno));
		return 1;
	}
	fflush(NULL); /* nothing buffered may be inherited and written twice */
	for (int i = 0; i < n_children; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, PROG ": error: cannot fork child %d: %s\n", i, strerror(errno));
			failed = 1;
			break;
		}
		if (pid == 0) {
			/* The child must not hold the gate's write end, or the gate would never see EOF. */
			close(ready_pipe[0]);
			close(gate_pipe[1]);
			child_main(i, ready_pipe[1], gate_pipe[0]);
		}
		started++;
	}
	close(ready_pipe[1]);
	close(gate_pipe[0]);
	/* A child that died before writing leaves fewer bytes; read() then ends with EOF once
	 * every child has exited or written, so this cannot hang. */
	while (ready < started) {
		ssize_t got = read(ready_pipe[0], &byte, 1);

		if (got == 1)
			ready++;
		else if (got == 0 || errno != EINTR)
			break;
	}
	close(ready_pipe[0]);
	if (ready < started)
		failed = 1;
	close(gate_pipe[1]); /* opens the gate: every child starts burning now */

	for (int i = 0; i < started; i++) {
		int status;

		if (wait(&status) < 0) {
			failed = 1;
			break;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed = 1;
	}
	if (failed) {
		fprintf(stderr, PROG ": error: a child failed\n");
		return 1;
	}
	printf("{\"workload\":\"forker\",\"m\":%d,\"work_ms\":%.3f,\"T_cp_ms\":%.3f,\"A_inf\":",
	       n_children * n_threads, work_total_ms, T_cp_ms);
	if (T_cp_ms > 0)
		printf("%.6f", work_total_ms / T_cp_ms);
	else
		printf("null"); /* 0/0: no work at all */
	printf(",\"program\":\"" PROG "\",\"children\":%d,\"threads_peak\":%d,\"processes_peak\":%d}\n",
	       n_children, n_children * n_threads + 1, n_children + 1);
	return fflush(stdout) == EOF ? 1 : 0;
}
