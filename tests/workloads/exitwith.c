// SPDX-License-Identifier: MIT
// Test workload: ends with a chosen exit status, a chosen signal, or exit() from one of several busy threads, for the collector's status tests.

/*
 * Usage: exitwith <code>                 exit(<code>), code 0..255
 *        exitwith -k <signal>            die by <signal> (number or name such as TERM, SIGSEGV);
 *                                        signals that by default are ignored or stop are refused
 *        exitwith -T <n> [-e] [-w <ms>]  n threads; with -e one calls exit(3) after burning MS
 *                                        of CPU while the others keep burning; without -e all
 *                                        burn MS, are joined and the process exits 0
 *
 * The JSON line (printed and flushed first, since the process may die) says what the
 * traced command's status must be: "status" as the shell reports it (128+N for signal N,
 * which is what pmcollect must return) and "signal" when it dies by one.
 * In -T mode the main thread sleeps in pthread_join, so m = n + 1.
 */

/* sigabbrev_np() is a GNU extension; the workload build does not pass -D_GNU_SOURCE. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PROG "exitwith"
#include "workload.h"
#define MAX_THREADS 1024
#define THREAD_EXIT_STATUS 3

static double work_ms = 50.0;
static int exit_from_thread;
static pthread_barrier_t start_barrier;

static void *thread_main(void *arg)
{
	int id = (int)(intptr_t)arg;

	/* Everyone is alive and busy before the exit, so the collector sees exit() tear down
	 * running threads, not ones that never started. */
	pthread_barrier_wait(&start_barrier);
	if (!exit_from_thread) {
		burn_ms(work_ms);
		return NULL;
	}
	if (id == 0) {
		burn_ms(work_ms);
		exit(THREAD_EXIT_STATUS);
	}
	for (;;)
		burn_ms(10.0); /* until exit() from thread 0 ends the whole process */
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " <code>\n"
		   "   or: " PROG " -k <signal>\n"
		   "   or: " PROG " -T <threads> [-e] [-w <ms>]\n"
		   "  <code>                exit status, 0..255\n"
		   "  -k, --kill=SIG        raise SIG (number or name) with its default action\n"
		   "  -T, --threads=N       run N threads besides main\n"
		   "  -e, --exit            one thread calls exit(3) while the others burn CPU\n"
		   "  -w, --work=MS         CPU milliseconds each thread burns (-e: before exit) [default: 50]\n");
}

/* Accepts 15, TERM and SIGTERM; sigabbrev_np() needs glibc 2.32 (Debian 12 has 2.36). */
static int parse_signal(const char *s, int *out)
{
	if (!parse_int(s, 1, SIGRTMAX, out))
		return 0;
	if (!strncmp(s, "SIG", 3))
		s += 3;
	for (int sig = 1; sig < NSIG; sig++) {
		const char *name = sigabbrev_np(sig);

		if (name && !strcmp(name, s)) {
			*out = sig;
			return 0;
		}
	}
	return -1;
}

/* The JSON promises death by the signal, so refuse those whose default action is to be
 * ignored or to stop the process (signal(7)). */
static int terminates_by_default(int sig)
{
	static const int harmless[] = { SIGCHLD, SIGCONT, SIGURG, SIGWINCH,
					SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU };

	for (size_t i = 0; i < sizeof(harmless) / sizeof(harmless[0]); i++)
		if (sig == harmless[i])
			return 0;
	return 1;
}

static void print_truth(const char *workload, int m, int status, int sig)
{
	printf("{\"workload\":\"%s\",\"m\":%d,\"status\":%d", workload, m, status);
	if (sig)
		printf(",\"signal\":%d", sig);
	printf(",\"program\":\"" PROG "\",\"threads_peak\":%d}\n", m);
	fflush(stdout);
}

static int die_by_signal(int sig)
{
	struct sigaction sa;
	struct rlimit no_core = { 0, 0 };
	sigset_t set;

	/* Core-dumping signals (SEGV, ABRT, ...) must not leave core files in the test tree. */
	setrlimit(RLIMIT_CORE, &no_core);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL); /* fails for KILL and STOP, whose action is fixed anyway */
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	print_truth("signal", 1, 128 + sig, sig);
	raise(sig);
	/* Not reached unless something outside undid the default action. */
	fprintf(stderr, PROG ": error: signal %d did not terminate the process\n", sig);
	return 1;
}

static int run_threads(int n)
{
	pthread_t tids[MAX_THREADS];

	pthread_barrier_init(&start_barrier, NULL, (unsigned)n);
	print_truth(exit_from_thread ? "thread_exit" : "threads", n + 1,
		    exit_from_thread ? THREAD_EXIT_STATUS : 0, 0);
	for (int i = 0; i < n; i++) {
		int err = pthread_create(&tids[i], NULL, thread_main, (void *)(intptr_t)i);

		if (err) {
			fprintf(stderr, PROG ": error: cannot create thread %d: %s\n", i, strerror(err));
			exit(1);
		}
	}
	for (int i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&start_barrier);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kill", required_argument, NULL, 'k' }, { "threads", required_argument, NULL, 'T' },
		{ "exit", no_argument, NULL, 'e' },	  { "work", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },	  { NULL, 0, NULL, 0 }
	};
	int sig = 0, n_threads = 0, code, c;
	char *end;

	while ((c = getopt_long(argc, argv, "+k:T:ew:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (parse_signal(optarg, &sig))
				return usage_error("invalid signal", optarg);
			if (!terminates_by_default(sig))
				return usage_error("signal that does not terminate by default", optarg);
			break;
		case 'T':
			if (parse_int(optarg, 1, MAX_THREADS, &n_threads))
				return usage_error("invalid thread count", optarg);
			break;
		case 'e':
			exit_from_thread = 1;
			break;
		case 'w':
			errno = 0;
			work_ms = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(work_ms) || work_ms < 0 || work_ms > 1e7)
				return usage_error("invalid work in ms", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (sig && n_threads) {
		fprintf(stderr, PROG ": error: -k and -T cannot be combined\n");
		usage(stderr);
		return 2;
	}
	if (exit_from_thread && !n_threads) {
		fprintf(stderr, PROG ": error: -e needs -T\n");
		usage(stderr);
		return 2;
	}
	if (sig || n_threads) {
		if (optind != argc)
			return usage_error("unexpected argument", argv[optind]);
		return sig ? die_by_signal(sig) : run_threads(n_threads);
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": error: expected an exit code, -k or -T\n");
		usage(stderr);
		return 2;
	}
	if (parse_int(argv[optind], 0, 255, &code))
		return usage_error("invalid exit code", argv[optind]);
	print_truth("exit", 1, code, 0);
	exit(code);
}
