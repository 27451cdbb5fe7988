/* SPDX-License-Identifier: MIT */
/* pread_floor.c: the floor of pmcollect's per-thread cost: preads the schedstat of every thread of
 * one process, from descriptors opened once, every INTERVAL ms for SECONDS seconds, and nothing
 * else (no listing, no stat/status, no trace). Prints its own CPU time per thread-sample.
 * Built and run by tests/bench/bench.py (section 2) next to a real pmcollect run.
 * usage: pread_floor PID INTERVAL_MS SECONDS [CPU] */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static uint64_t ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char path[512], buf[256];
	int fds[4096], nfd = 0, tfd;
	uint64_t interval_ns, end_ns, cpu0, samples = 0, thread_samples = 0;
	struct itimerspec its = { 0 };
	struct dirent *de;
	DIR *d;

	if (argc < 4) {
		fprintf(stderr, "usage: pread_floor PID INTERVAL_MS SECONDS [CPU]\n");
		return 2;
	}
	if (argc > 4) {
		/* same CPU as the collector, so both pay the same cache and wake-up costs */
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(atoi(argv[4]), &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	snprintf(path, sizeof(path), "/proc/%s/task", argv[1]);
	d = opendir(path);
	if (!d) {
		perror(path);
		return 1;
	}
	while ((de = readdir(d)) != NULL && nfd < 4096) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/schedstat", argv[1], de->d_name);
		if ((fds[nfd] = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
			nfd++;
	}
	closedir(d);
	interval_ns = (uint64_t)(atof(argv[2]) * 1e6);
	end_ns = ns(CLOCK_MONOTONIC) + (uint64_t)(atof(argv[3]) * 1e9);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	its.it_value.tv_sec = (time_t)((ns(CLOCK_MONOTONIC) + interval_ns) / 1000000000u);
	its.it_value.tv_nsec = (long)((ns(CLOCK_MONOTONIC) + interval_ns) % 1000000000u);
	its.it_interval.tv_sec = (time_t)(interval_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(interval_ns % 1000000000u);
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
	cpu0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	while (ns(CLOCK_MONOTONIC) < end_ns) {
		uint64_t exp;
		int live = 0;
		if (read(tfd, &exp, sizeof(exp)) != (ssize_t)sizeof(exp))
			break;
		for (int i = 0; i < nfd; i++)
			if (pread(fds[i], buf, sizeof(buf), 0) > 0)
				live++;
		if (live == 0)
			break;
		samples++;
		thread_samples += (uint64_t)live;
	}
	printf("{\"samples\":%llu,\"thread_samples\":%llu,\"cpu_ns\":%llu}\n",
	       (unsigned long long)samples, (unsigned long long)thread_samples,
	       (unsigned long long)(ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0));
	return 0;
}
