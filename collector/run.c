/* SPDX-License-Identifier: MIT */
/* run.c: starts the traced program, samples it on a timer until it ends, writes the run records. */
#include "run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "meta.h"
#include "sampler.h"

/* Scheduler events are drained at least this often (see PMC_SCHED_BUFFER_KB_DEFAULT). */
#define SCHED_DRAIN_NS 10000000u

/* libnuma reports failures by calling numa_error() (and prints from numa_warn()); these
 * replacements of its weak defaults keep it quiet and let the child report errno itself. */
static int numa_failed_errno;

void numa_error(char *where)
{
	(void)where;
	numa_failed_errno = errno ? errno : EINVAL;
}

void numa_warn(int num, char *fmt, ...)
{
	(void)num;
	(void)fmt;
}

uint64_t pmc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What the child reports through the close-on-exec pipe when it cannot exec the program. */
enum child_stage { STAGE_AFFINITY = 1, STAGE_MEMPOLICY, STAGE_ENV, STAGE_USER, STAGE_EXEC };
struct child_report {
	int32_t stage;
	int32_t err;
};

static void child_fail(int fd, enum child_stage stage, int err)
{
	struct child_report r = { stage, err };
	ssize_t n = write(fd, &r, sizeof(r));
	(void)n;
	_exit(127);
}

/* In the child, between fork and exec: only the program's own setup; every failure goes to the
 * parent through report_fd and the child exits 127. */
static void child_main(const struct pmc_run_config *cfg, pid_t collector, int go_fd, int report_fd)
{
	const cpu_set_t *cpus = cfg->cpus ? cfg->cpus : cfg->child_default_cpus;
	ssize_t n;
	char c;

	if (cpus && sched_setaffinity(0, sizeof(*cpus), cpus) < 0)
		child_fail(report_fd, STAGE_AFFINITY, errno);
	if (cfg->mem_mask) {
		/* set_mempolicy(2) is inherited across execve, so the program allocates under it */
		numa_failed_errno = 0;
		errno = 0;
		if (strcmp(cfg->mem_mode, "interleave") == 0)
			numa_set_interleave_mask(cfg->mem_mask);
		else
			numa_set_membind(cfg->mem_mask);
		if (numa_failed_errno)
			child_fail(report_fd, STAGE_MEMPOLICY, numa_failed_errno);
	}
	if (cfg->threads > 0) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%d", cfg->threads);
		if (setenv("OMP_NUM_THREADS", buf, 1) < 0)
			child_fail(report_fd, STAGE_ENV, errno);
	}
	/* undo what pmcollect did to itself: the program gets the limits, mask and dispositions
	 * pmcollect was started with */
	if (cfg->child_nofile)
		(void)setrlimit(RLIMIT_NOFILE, cfg->child_nofile);
	if (!cfg->child_sigpipe_ignored)
		signal(SIGPIPE, SIG_DFL);
	if (!cfg->child_sigxfsz_ignored)
		signal(SIGXFSZ, SIG_DFL);
	if (cfg->child_sigmask)
		sigprocmask(SIG_SETMASK, cfg->child_sigmask, NULL);
	if (cfg->user) {
		const struct pmc_user *u = cfg->user;
		/* groups first: after setuid() the child may no longer change them */
		if (setgroups((size_t)u->ngroups, u->groups) < 0 || setgid(u->gid) < 0 ||
		    setuid(u->uid) < 0)
			child_fail(report_fd, STAGE_USER, errno);
		if (setenv("USER", u->name, 1) < 0 || setenv("LOGNAME", u->name, 1) < 0 ||
		    (u->home && setenv("HOME", u->home, 1) < 0))
			child_fail(report_fd, STAGE_ENV, errno);
	}
	/* If pmcollect dies (SIGKILL, OOM killer), the program must not run on unobserved and
	 * orphaned: the kernel sends it SIGKILL. Set after setuid(), which clears it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != collector)
		_exit(127);
	/* wait until the parent has attached counters and written RUN_BEGIN; EOF means it died */
	do {
		n = read(go_fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	close(go_fd);
	execvp(cfg->argv[0], cfg->argv);
	child_fail(report_fd, STAGE_EXEC, errno);
}

static char *run_begin_json(uint32_t run_id, pid_t pid, const struct pmc_run_config *cfg,
			    const struct pmc_counters *counters)
{
	cJSON *o = cJSON_CreateObject(), *a, *m, *c, *ev;
	char *text = NULL;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "run_id", run_id);
	cJSON_AddStringToObject(o, "role", cfg->role ? cfg->role : "run");
	cJSON_AddNumberToObject(o, "pid", pid);
	a = cJSON_AddArrayToObject(o, "argv");
	for (int i = 0; a && cfg->argv[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(cfg->argv[i]));
	if (cfg->cpus_text)
		cJSON_AddStringToObject(o, "cpus", cfg->cpus_text);
	else
		cJSON_AddNullToObject(o, "cpus");
	if (cfg->threads > 0)
		cJSON_AddNumberToObject(o, "threads", cfg->threads);
	else
		cJSON_AddNullToObject(o, "threads");
	if (cfg->user) {
		cJSON *u = cJSON_AddObjectToObject(o, "user");
		cJSON_AddStringToObject(u, "name", cfg->user->name);
		cJSON_AddNumberToObject(u, "uid", cfg->user->uid);
		cJSON_AddNumberToObject(u, "gid", cfg->user->gid);
	}
	cJSON_AddNumberToObject(o, "collector_cpu", cfg->collector_cpu);
	cJSON_AddNumberToObject(o, "interval_ms", cfg->interval_ms);
	m = cJSON_AddObjectToObject(o, "mempolicy");
	if (m) {
		cJSON_AddStringToObject(m, "mode", cfg->mem_mode ? cfg->mem_mode : "default");
		if (cfg->mem_nodes)
			cJSON_AddStringToObject(m, "nodes", cfg->mem_nodes);
	}
	c = cJSON_AddObjectToObject(o, "counters");
	ev = c ? cJSON_AddArrayToObject(c, "events") : NULL;
	for (uint32_t i = 0; ev && counters && i < pmc_counters_count(counters); i++)
		cJSON_AddItemToArray(ev, cJSON_CreateString(pmc_counters_name(counters, i)));
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* RUN_END "C": the run's C(n) for the memory model (Tudor & Teo, eq. 7): total cycles when a
 * cycles counter ran (PAPI_TOT_CYC or its fallback), else the tree's schedstat CPU time as the
 * proxy; r(n) and stall cycles when those counters ran. values are the last cumulative counts
 * (NULL when none were read). */
static void add_C(cJSON *o, const struct pmc_counters *counters, const int64_t *values,
		  uint64_t cpu_ns)
{
	static const char *const keys[][2] = { [PMC_KIND_LLC_MISSES] = { "llc_misses", "llc_event" },
					      [PMC_KIND_STALLS] = { "stall_cycles", "stall_event" } };
	cJSON *c = cJSON_AddObjectToObject(o, "C");
	int cyc = -1, idx[4] = { -1, -1, -1, -1 };

	if (!c)
		return;
	for (uint32_t i = 0; counters && values && i < pmc_counters_count(counters); i++) {
		int k = pmc_counter_kind(pmc_counters_name(counters, i));
		if (k >= 0 && idx[k] < 0 && values[i] != PMT_COUNTER_INVALID)
			idx[k] = (int)i;
	}
	cyc = idx[PMC_KIND_CYCLES];
	cJSON_AddStringToObject(c, "source", cyc >= 0 ? "cycles" : "cpu_time");
	cJSON_AddStringToObject(c, "event", cyc >= 0 ? pmc_counters_name(counters, (uint32_t)cyc) : "schedstat");
	cJSON_AddNumberToObject(c, "value", cyc >= 0 ? (double)values[cyc] : (double)cpu_ns);
	cJSON_AddStringToObject(c, "unit", cyc >= 0 ? "cycles" : "ns");
	cJSON_AddNumberToObject(c, "cpu_time_ns", (double)cpu_ns);
	for (int k = PMC_KIND_STALLS; k <= PMC_KIND_LLC_MISSES; k++) {
		if (idx[k] >= 0) {
			cJSON_AddNumberToObject(c, keys[k][0], (double)values[idx[k]]);
			cJSON_AddStringToObject(c, keys[k][1], pmc_counters_name(counters, (uint32_t)idx[k]));
		} else {
			cJSON_AddNullToObject(c, keys[k][0]);
		}
	}
}

static char *run_end_json(uint32_t run_id, pid_t pid, int started, int status, uint64_t wall_ns,
			  const struct rusage *ru, const struct pmc_run_result *res,
			  const struct pmc_run_config *cfg, const struct pmc_counters *counters,
			  const int64_t *values, uint64_t cpu_ns)
{
	cJSON *o = cJSON_CreateObject(), *e, *r;
	char *text;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "run_id", run_id);
	cJSON_AddNumberToObject(o, "pid", pid);
	e = cJSON_AddObjectToObject(o, "exit");
	if (e) {
		if (!started) {
			cJSON_AddStringToObject(e, "kind", "not_started");
			cJSON_AddNumberToObject(e, "code", 127);
			cJSON_AddNumberToObject(e, "signal", 0);
		} else if (WIFSIGNALED(status)) {
			cJSON_AddStringToObject(e, "kind", "signaled");
			cJSON_AddNumberToObject(e, "code", 128 + WTERMSIG(status));
			cJSON_AddNumberToObject(e, "signal", WTERMSIG(status));
			cJSON_AddBoolToObject(e, "core_dumped", WCOREDUMP(status));
		} else {
			cJSON_AddStringToObject(e, "kind", "exited");
			cJSON_AddNumberToObject(e, "code", WEXITSTATUS(status));
			cJSON_AddNumberToObject(e, "signal", 0);
		}
	}
	cJSON_AddNumberToObject(o, "wall_ns", (double)wall_ns);
	r = cJSON_AddObjectToObject(o, "rusage");
	if (r) {
		cJSON_AddNumberToObject(r, "utime_ns", (double)ru->ru_utime.tv_sec * 1e9 +
						       (double)ru->ru_utime.tv_usec * 1e3);
		cJSON_AddNumberToObject(r, "stime_ns", (double)ru->ru_stime.tv_sec * 1e9 +
						       (double)ru->ru_stime.tv_usec * 1e3);
		cJSON_AddNumberToObject(r, "maxrss_bytes", (double)ru->ru_maxrss * 1024.0);
	}
	cJSON_AddNumberToObject(o, "samples", (double)res->samples);
	cJSON_AddNumberToObject(o, "late_samples", (double)res->late_samples);
	cJSON_AddNumberToObject(o, "lost_samples", (double)res->lost_samples);
	if (res->sched_recorded) {
		cJSON *se = cJSON_AddObjectToObject(o, "sched_events");
		if (se) {
			cJSON_AddNumberToObject(se, "events", (double)res->sched.events);
			cJSON_AddNumberToObject(se, "lost", (double)res->sched.lost);
			cJSON_AddNumberToObject(se, "lost_pages", (double)res->sched.lost_pages);
			cJSON_AddNumberToObject(se, "drains", (double)res->sched.drains);
			if (res->sched.filter)
				cJSON_AddStringToObject(se, "filter", res->sched.filter);
		}
	}
	if (started) {
		char all[64];
		add_C(o, counters, values, cpu_ns);
		snprintf(all, sizeof(all), "0-%ld", sysconf(_SC_NPROCESSORS_ONLN) - 1);
		(void)pmc_meta_add_cpufreq(o, cfg->cpus_text ? cfg->cpus_text : all);
	}
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static void writer_failed(struct pmc_run_result *res, struct pmt_writer *w, int err)
{
	if (err < 0 && !res->writer_err) {
		res->writer_err = err;
		res->writer_errno = pmt_writer_errno(w);
	}
}

/* Writes a WARNING record (the trace says what went wrong, not only the terminal). */
static void write_warning(struct pmc_run_result *res, struct pmt_writer *w, uint32_t run_id,
			  const char *msg)
{
	cJSON *o;
	char *text;

	if (res->writer_err || !(o = cJSON_CreateObject()))
		return;
	cJSON_AddStringToObject(o, "what", msg);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (text) {
		writer_failed(res, w, pmt_writer_json(w, PMT_REC_WARNING, run_id, pmc_now_ns(), text));
		res->warnings++;
	}
	free(text);
}

/* Ends the scheduler-event recording of the run: last drain, lost-event count, and a warning in
 * the trace when the kernel lost events. */
static void stop_sched(struct pmc_sched *sched, struct pmc_run_result *res, struct pmt_writer *w,
		       uint32_t run_id)
{
	if (!sched)
		return;
	writer_failed(res, w, pmc_sched_stop(sched, res->writer_err ? NULL : w, &res->sched));
	if (res->sched.lost) {
		char msg[256];
		snprintf(msg, sizeof(msg), "scheduler events: the kernel lost %llu events (%llu pages "
			 "with gaps); raise --sched-buffer-kb", (unsigned long long)res->sched.lost,
			 (unsigned long long)res->sched.lost_pages);
		write_warning(res, w, run_id, msg);
	}
}

static void disarm(int tfd)
{
	struct itimerspec off;
	memset(&off, 0, sizeof(off));
	(void)timerfd_settime(tfd, 0, &off, NULL);
}

/* Reaps every child that has ended; returns 1 when the root was among them. pmcollect is child
 * subreaper, so orphans of the tree become its children and must be reaped here too. */
static int reap(pid_t root, struct pmc_sampler *s, int *root_status, struct rusage *root_ru)
{
	int found = 0;

	for (;;) {
		struct rusage ru;
		int status;
		pid_t pid = wait4(-1, &status, WNOHANG, &ru);
		if (pid <= 0) {
			if (pid < 0 && errno == EINTR)
				continue;
			break;
		}
		if (s)
			pmc_sampler_reaped(s, (uint32_t)pid, status);
		if (pid == root) {
			*root_status = status;
			*root_ru = ru;
			found = 1;
		}
	}
	return found;
}

int pmc_run_once(struct pmt_writer *w, uint32_t run_id, const struct pmc_run_config *cfg,
		 struct pmc_run_result *res)
{
	struct pmc_sampler_opts so = {
		.run_id = run_id,
		.stat_every = cfg->stat_every,
		.status_every = cfg->status_every,
		.procconn_fd = cfg->procconn_fd,
		.taskstats_fd = cfg->taskstats_fd,
		.taskstats_family = cfg->taskstats_family,
		.collector_pid = (uint32_t)getpid(),
	};
	struct pmc_sampler *s = NULL;
	struct pmc_counters *counters = cfg->counters;
	struct pmc_sched *sched = cfg->sched;
	int go[2] = { -1, -1 }, report[2] = { -1, -1 }, tfd = -1;
	struct child_report cr;
	struct rusage root_ru;
	uint64_t start_ns, end_ns, interval_ns, next_flush_ns, next_drain_ns, cpu0 = 0, expirations = 0;
	int64_t *values = NULL;
	int root_status = 0, sampling = 1, rc = -1, err, have_values = 0;
	uint64_t cpu_ns = 0;
	char *json = NULL;
	ssize_t n;
	pid_t pid = -1;

	memset(res, 0, sizeof(*res));
	memset(&root_ru, 0, sizeof(root_ru));
	interval_ns = (uint64_t)(cfg->interval_ms * 1e6 + 0.5);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
		snprintf(res->error, sizeof(res->error), "cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tfd < 0) {
		snprintf(res->error, sizeof(res->error), "cannot create a timer: %s", strerror(errno));
		goto out;
	}
	err = pmc_sampler_new(&s, w, &so);
	if (err < 0) {
		snprintf(res->error, sizeof(res->error), "%s", pmt_strerror(err));
		goto out;
	}
	if (counters) {
		uint32_t nc = pmc_counters_count(counters);
		values = calloc(nc ? nc : 1, sizeof(*values));
		if (!values) {
			snprintf(res->error, sizeof(res->error), "%s", strerror(ENOMEM));
			goto out;
		}
	}

	pid = fork();
	if (pid < 0) {
		snprintf(res->error, sizeof(res->error), "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		close(go[1]);
		close(report[0]);
		child_main(cfg, getppid(), go[0], report[1]);
	}
	close(go[0]);
	go[0] = -1;
	close(report[1]);
	report[1] = -1;

	err = pmc_sampler_add_process(s, (uint32_t)pid, (uint32_t)getpid());
	if (err < 0)
		writer_failed(res, w, err);
	if (counters) {
		char why[256];
		if (pmc_counters_attach(counters, pid, why, sizeof(why)) < 0) {
			char msg[320];
			snprintf(msg, sizeof(msg), "hardware counters unavailable: %s", why);
			if (cfg->warn)
				cfg->warn(msg);
			counters = NULL;
		}
	}
	if (sched) {
		if (pmc_sched_start(sched, pid, run_id, cfg->cpus) < 0) {
			char msg[320];
			snprintf(msg, sizeof(msg), "scheduler events not recorded: cannot start tracing "
				 "pid %ld: %s", (long)pid, strerror(errno));
			if (cfg->warn)
				cfg->warn(msg);
			write_warning(res, w, run_id, msg);
			sched = NULL;
		} else {
			res->sched_recorded = 1;
		}
	}
	json = run_begin_json(run_id, pid, cfg, counters);
	writer_failed(res, w, json ? pmt_writer_json(w, PMT_REC_RUN_BEGIN, run_id, pmc_now_ns(), json)
				   : PMT_E_NOMEM);
	free(json);
	json = NULL;

	/* release the child, then learn whether exec worked: the report pipe is close-on-exec, so
	 * EOF means the program is running */
	start_ns = pmc_now_ns();
	n = write(go[1], "g", 1);
	(void)n;
	close(go[1]);
	go[1] = -1;
	do {
		n = read(report[0], &cr, sizeof(cr));
	} while (n < 0 && errno == EINTR);
	close(report[0]);
	report[0] = -1;
	if (n == (ssize_t)sizeof(cr)) {
		static const char *const what[] = { "", "cannot set the CPU affinity of",
						    "cannot set the memory policy of",
						    "cannot set the environment of",
						    "cannot switch to the user given for", "cannot run" };
		while (waitpid(pid, &root_status, 0) < 0 && errno == EINTR)
			;
		snprintf(res->error, sizeof(res->error), "%s '%s': %s",
			 cr.stage >= 1 && cr.stage <= STAGE_EXEC ? what[cr.stage] : "cannot run", cfg->argv[0],
			 strerror(cr.err));
		res->exit_status = 127;
		end_ns = pmc_now_ns();
		json = run_end_json(run_id, pid, 0, 0, end_ns - start_ns, &root_ru, res, cfg, NULL,
				    NULL, 0);
		if (!res->writer_err)
			writer_failed(res, w, json ? pmt_writer_json(w, PMT_REC_RUN_END, run_id, end_ns, json)
						   : PMT_E_NOMEM);
		rc = 0;
		goto out;
	}
	res->started = 1;

	/* Absolute schedule: sample k is due at start + k*interval whatever the previous sample
	 * cost, so the interval does not drift; the first sample is taken at once (run_ns ~ 0). */
	{
		struct itimerspec its;
		uint64_t first = start_ns + interval_ns;
		memset(&its, 0, sizeof(its));
		its.it_value.tv_sec = (time_t)(first / 1000000000u);
		its.it_value.tv_nsec = (long)(first % 1000000000u);
		its.it_interval.tv_sec = (time_t)(interval_ns / 1000000000u);
		its.it_interval.tv_nsec = (long)(interval_ns % 1000000000u);
		if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
			snprintf(res->error, sizeof(res->error), "cannot arm the timer: %s",
				 strerror(errno));
			kill(pid, SIGKILL);
			goto wait_root;
		}
	}
	cpu0 = cpu_now_ns();
	next_flush_ns = start_ns + 1000000000u;
	next_drain_ns = start_ns + SCHED_DRAIN_NS;
	if (res->writer_err)
		sampling = 0;
	else if (pmc_sampler_sample(s, start_ns) < 0)
		sampling = 0;

	for (;;) {
		struct pollfd pfd[2] = { { .fd = cfg->signal_fd, .events = POLLIN },
					 { .fd = tfd, .events = POLLIN } };
		int timeout_ms = -1;
		if (sampling) {
			/* wake up for the once-a-second flush even when samples are further apart,
			 * so a collector killed with SIGKILL loses at most a second of the trace */
			uint64_t now = pmc_now_ns();
			if (now >= next_flush_ns) {
				err = pmt_writer_flush(w);
				next_flush_ns = now + 1000000000u;
				if (err < 0) {
					writer_failed(res, w, err);
					sampling = 0;
					disarm(tfd);
					continue;
				}
			}
			if (sched && now >= next_drain_ns) {
				/* samples further apart than 10 ms: drain the ring buffers anyway */
				next_drain_ns = now + SCHED_DRAIN_NS;
				err = (int)pmc_sched_drain(sched, w);
				if (err < 0) {
					writer_failed(res, w, err);
					sampling = 0;
					disarm(tfd);
					continue;
				}
			}
			timeout_ms = (int)((next_flush_ns - now) / 1000000u) + 1;
			if (sched && (int)((next_drain_ns - now) / 1000000u) + 1 < timeout_ms)
				timeout_ms = (int)((next_drain_ns - now) / 1000000u) + 1;
		}
		if (poll(pfd, sampling ? 2 : 1, timeout_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			int root_done = 0;
			while (read(cfg->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGCHLD) {
					root_done |= reap(pid, s, &root_status, &root_ru);
				} else if (cfg->forward && sigismember(cfg->forward, (int)si.ssi_signo) &&
					   si.ssi_code != SI_KERNEL) {
					/* sent by a process (kill, timeout, a batch system) to pmcollect:
					 * pass it on. A terminal's ^C (SI_KERNEL) already went to the
					 * whole foreground process group, program included. */
					kill(pid, (int)si.ssi_signo);
				}
			}
			/* SIGCHLD can coalesce: a root that ended without a readable signal is found
			 * by this extra non-blocking reap */
			root_done |= reap(pid, s, &root_status, &root_ru);
			if (root_done)
				break;
		}
		if (sampling && (pfd[1].revents & POLLIN)) {
			uint64_t exp = 0, now, due;
			if (read(tfd, &exp, sizeof(exp)) != (ssize_t)sizeof(exp) || exp == 0)
				continue;
			expirations += exp;
			if (exp > 1)
				res->lost_samples += exp - 1;
			now = pmc_now_ns();
			due = start_ns + expirations * interval_ns;
			if (now > due && now - due > interval_ns / 2)
				res->late_samples++;
			err = pmc_sampler_sample(s, now);
			if (err == 0 && sched) {
				long ev = pmc_sched_drain(sched, w);
				next_drain_ns = now + SCHED_DRAIN_NS;
				err = ev < 0 ? (int)ev : 0;
			}
			if (err == 0 && counters && pmc_counters_read(counters, values) == 0) {
				struct pmt_counters cr2 = { run_id, now, pmc_counters_count(counters),
							    values };
				err = pmt_writer_counters(w, &cr2);
				have_values = 1;
			}
			if (err < 0) {
				/* the trace cannot grow: stop sampling, but let the program finish
				 * undisturbed; pmcollect will exit 1 */
				writer_failed(res, w, err);
				sampling = 0;
				disarm(tfd);
			}
		}
	}
	res->sampling_cpu_ns = cpu_now_ns() - cpu0;
	end_ns = pmc_now_ns();
	if (!res->writer_err)
		writer_failed(res, w, pmc_sampler_finish(s, end_ns));
	stop_sched(sched, res, w, run_id);
	/* the root is reaped: inherited counts of the whole tree are final */
	if (counters && pmc_counters_read(counters, values) == 0)
		have_values = 1;
	goto end_record;

wait_root:
	while (!reap(pid, s, &root_status, &root_ru)) {
		struct pollfd pfd = { .fd = cfg->signal_fd, .events = POLLIN };
		struct signalfd_siginfo si;
		if (poll(&pfd, 1, -1) > 0)
			while (read(cfg->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				;
	}
	end_ns = pmc_now_ns();
	stop_sched(sched, res, w, run_id);

end_record:
	{
		struct pmc_sampler_stats st;
		pmc_sampler_stats(s, &st);
		res->samples = st.samples;
		res->thread_samples = st.thread_samples;
		res->warnings += st.warnings;
		cpu_ns = st.cpu_ns;
	}
	res->exit_status = WIFSIGNALED(root_status) ? 128 + WTERMSIG(root_status)
						    : WEXITSTATUS(root_status);
	json = run_end_json(run_id, pid, 1, root_status, end_ns - start_ns, &root_ru, res, cfg,
			    counters, have_values ? values : NULL, cpu_ns);
	if (!res->writer_err)
		writer_failed(res, w, json ? pmt_writer_json(w, PMT_REC_RUN_END, run_id, end_ns, json)
					   : PMT_E_NOMEM);
	rc = res->error[0] ? -1 : 0;
out:
	free(json);
	free(values);
	pmc_sampler_free(s);
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (report[i] >= 0)
			close(report[i]);
	}
	if (tfd >= 0)
		close(tfd);
	return rc;
}
