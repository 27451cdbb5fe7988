// SPDX-License-Identifier: MIT
// Test workload: double-forks a daemon (fork, setsid, fork, the middle process exits), for the
// collector's fault tests: is the daemon followed, and what is left when the program ends.

/*
 * Usage: daemonize [-a MS] [-d MS] [-v]
 *   the program (root) forks; the child calls setsid() and forks the daemon, then exits; the
 *   root reaps the child, waits until the daemon runs, stays alive MS more (-a, default 300) and
 *   exits 0. The daemon sleeps MS (-d, default 2000) after the root's exit and exits 0.
 *
 * The JSON line gives the daemon's pid, so a test can find it (and end it) afterwards:
 * {"workload":"daemon","daemon_pid":N,"program":"daemonize","threads_peak":1}
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "daemonize"

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long parse_ms(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 3600000) {
		fprintf(stderr, PROG ": error: invalid time in ms '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long alive_ms = 300, daemon_ms = 2000;
	int verbose = 0, c, fd[2], status;
	pid_t child, daemon_pid = 0;
	ssize_t n;

	while ((c = getopt(argc, argv, "a:d:vh")) != -1) {
		switch (c) {
		case 'a': alive_ms = parse_ms(optarg); break;
		case 'd': daemon_ms = parse_ms(optarg); break;
		case 'v': verbose = 1; break;
		case 'h':
			printf("usage: " PROG " [-a MS] [-d MS] [-v]\n");
			return 0;
		default:
			fprintf(stderr, "usage: " PROG " [-a MS] [-d MS] [-v]\n");
			return 2;
		}
	}
	if (pipe(fd) < 0) {
		fprintf(stderr, PROG ": error: pipe: %s\n", strerror(errno));
		return 1;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, PROG ": error: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		pid_t d;
		setsid();
		d = fork();
		if (d < 0)
			_exit(1);
		if (d == 0) {
			/* the daemon: tell the root its pid, then outlive it */
			pid_t me = getpid();
			close(fd[0]);
			n = write(fd[1], &me, sizeof(me));
			close(fd[1]);
			if (n != (ssize_t)sizeof(me))
				_exit(1);
			sleep_ms(alive_ms + daemon_ms);
			_exit(0);
		}
		_exit(0);
	}
	close(fd[1]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	do {
		n = read(fd[0], &daemon_pid, sizeof(daemon_pid));
	} while (n < 0 && errno == EINTR);
	close(fd[0]);
	if (n != (ssize_t)sizeof(daemon_pid) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, PROG ": error: the daemon did not start\n");
		return 1;
	}
	if (verbose)
		fprintf(stderr, PROG ": daemon %d started; parent %d\n", (int)daemon_pid, (int)getppid());
	sleep_ms(alive_ms);
	printf("{\"workload\":\"daemon\",\"daemon_pid\":%d,\"program\":\"" PROG "\",\"threads_peak\":1}\n",
	       (int)daemon_pid);
	return 0;
}
