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
	for (size_t i = 0; i < cfg->nenv; i++)
		if (setenv(cfg->env[i].name, cfg->env[i].value, 1) < 0)
			child_fail(report_fd, STAGE_ENV, errno);
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
	if (cfg->plan_run && cfg->plan_run->nrep) {
		cJSON_AddNumberToObject(o, "rep", cfg->plan_run->rep);
		cJSON_AddNumberToObject(o, "nrep", cfg->plan_run->nrep);
	}
	if (cfg->plan_run && cfg->plan_run->role == PMC_ROLE_SWEEP) {
		cJSON *sw = cJSON_AddObjectToObject(o, "sweep");
		const struct pmc_plan_run *pr = cfg->plan_run;
		if (sw) {
			cJSON_AddNumberToObject(sw, "config", pr->config);
			if (pr->sweep_cores)
				cJSON_AddNumberToObject(sw, "cores", pr->sweep_cores);
			else
				cJSON_AddNullToObject(sw, "cores");
			if (pr->sweep_threads)
				cJSON_AddNumberToObject(sw, "threads", pr->sweep_threads);
			else
				cJSON_AddNullToObject(sw, "threads");
		}
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
		add_C(o, counters, values, cpu_ns);
		(void)pmc_meta_add_cpufreq(o, cfg->cpus_text ? cfg->cpus_text : cfg->online_text);
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

/* One run in progress: what run_start sets up, run_loop drives and run_finish records. */
struct run_state {
	struct pmt_writer *w;
	uint32_t run_id;
	const struct pmc_run_config *cfg;
	struct pmc_run_result *res;
	struct pmc_sampler *s;
	struct pmc_counters *counters; /* NULL once they could not be attached */
	struct pmc_sched *sched;       /* NULL once the events could not be started */
	int go[2], report[2], tfd;
	pid_t pid;
	int64_t *values;               /* the counters' last cumulative values */
	int have_values;
	int armed;                     /* the sampling timer runs: the loop samples */
	int sampling;                  /* samples are still taken (the writer has not failed) */
	int root_status;
	struct rusage root_ru;
	uint64_t start_ns, end_ns, interval_ns, cpu0_ns, expirations;
	uint64_t next_flush_ns, next_drain_ns;
};

/* The trace cannot grow: records the writer's first error and stops sampling, but the program
 * runs on undisturbed to its end; pmcollect will exit 1. */
static void stop_sampling(struct run_state *st, int err)
{
	writer_failed(st->res, st->w, err);
	st->sampling = 0;
	if (st->tfd >= 0) {
		struct itimerspec off;
		memset(&off, 0, sizeof(off));
		(void)timerfd_settime(st->tfd, 0, &off, NULL);
	}
}

/* Writes RUN_END for a program that was never exec'd (exit kind "not_started", status 127). */
static void record_not_started(struct run_state *st, const struct child_report *cr)
{
	static const char *const what[] = { "", "cannot set the CPU affinity of",
					    "cannot set the memory policy of",
					    "cannot set the environment of",
					    "cannot switch to the user given for", "cannot run" };
	struct pmc_run_result *res = st->res;
	char *json;

	while (waitpid(st->pid, &st->root_status, 0) < 0 && errno == EINTR)
		;
	snprintf(res->error, sizeof(res->error), "%s '%s': %s",
		 cr->stage >= 1 && cr->stage <= STAGE_EXEC ? what[cr->stage] : "cannot run",
		 st->cfg->argv[0], strerror(cr->err));
	res->exit_status = 127;
	st->end_ns = pmc_now_ns();
	json = run_end_json(st->run_id, st->pid, 0, 0, st->end_ns - st->start_ns, &st->root_ru, res,
			    st->cfg, NULL, NULL, 0);
	if (!res->writer_err)
		writer_failed(res, st->w, json ? pmt_writer_json(st->w, PMT_REC_RUN_END, st->run_id,
								 st->end_ns, json)
					       : PMT_E_NOMEM);
	free(json);
}

/* Attaches the counters and starts the scheduler events while the child waits before exec;
 * either one failing is a warning, and the run goes on without it. */
static void attach_sources(struct run_state *st)
{
	const struct pmc_run_config *cfg = st->cfg;
	char why[256], msg[320];

	if (st->counters && pmc_counters_attach(st->counters, st->pid, why, sizeof(why)) < 0) {
		snprintf(msg, sizeof(msg), "hardware counters unavailable: %s", why);
		if (cfg->warn)
			cfg->warn(msg);
		st->counters = NULL;
	}
	if (st->sched) {
		if (pmc_sched_start(st->sched, st->pid, st->run_id, cfg->cpus, why, sizeof(why)) < 0) {
			snprintf(msg, sizeof(msg), "scheduler events not recorded: %s", why);
			if (cfg->warn)
				cfg->warn(msg);
			write_warning(st->res, st->w, st->run_id, msg);
			st->sched = NULL;
		} else {
			st->res->sched_recorded = 1;
		}
	}
}

/* Absolute schedule: sample k is due at start + k*interval whatever the previous sample cost, so
 * the interval does not drift. Returns 0 or -1 with errno. */
static int arm_timer(struct run_state *st)
{
	struct itimerspec its;
	uint64_t first = st->start_ns + st->interval_ns;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(first / 1000000000u);
	its.it_value.tv_nsec = (long)(first % 1000000000u);
	its.it_interval.tv_sec = (time_t)(st->interval_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(st->interval_ns % 1000000000u);
	return timerfd_settime(st->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Sets the run up and starts the program: pipes, timer, sampler, fork, counters, scheduler
 * events, RUN_BEGIN, then releases the child and learns whether exec worked. A program that could
 * not be started is recorded (RUN_END "not_started") and st->res->started stays 0. Returns 0, or
 * PMT_E_IO / PMT_E_NOMEM with a reason in why when the run could not be set up. */
static int run_start(struct run_state *st, char *why, size_t whysize)
{
	const struct pmc_run_config *cfg = st->cfg;
	struct pmc_sampler_opts so = {
		.run_id = st->run_id,
		.stat_every = cfg->stat_every,
		.status_every = cfg->status_every,
		.procconn_fd = cfg->procconn_fd,
		.taskstats_fd = cfg->taskstats_fd,
		.taskstats_family = cfg->taskstats_family,
		.collector_pid = (uint32_t)getpid(),
	};
	struct child_report cr;
	char *json;
	ssize_t n;
	int err;

	st->interval_ns = (uint64_t)(cfg->interval_ms * 1e6 + 0.5);
	if (pipe2(st->go, O_CLOEXEC) < 0 || pipe2(st->report, O_CLOEXEC) < 0) {
		snprintf(why, whysize, "cannot create a pipe: %s", strerror(errno));
		return PMT_E_IO;
	}
	st->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (st->tfd < 0) {
		snprintf(why, whysize, "cannot create a timer: %s", strerror(errno));
		return PMT_E_IO;
	}
	err = pmc_sampler_new(&st->s, st->w, &so);
	if (err < 0) {
		snprintf(why, whysize, "%s", pmt_strerror(err));
		return err;
	}
	if (st->counters) {
		uint32_t nc = pmc_counters_count(st->counters);
		st->values = calloc(nc ? nc : 1, sizeof(*st->values));
		if (!st->values) {
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			return PMT_E_NOMEM;
		}
	}

	st->pid = fork();
	if (st->pid < 0) {
		snprintf(why, whysize, "cannot fork: %s", strerror(errno));
		return PMT_E_IO;
	}
	if (st->pid == 0) {
		close(st->go[1]);
		close(st->report[0]);
		child_main(cfg, getppid(), st->go[0], st->report[1]);
	}
	close(st->go[0]);
	st->go[0] = -1;
	close(st->report[1]);
	st->report[1] = -1;

	writer_failed(st->res, st->w, pmc_sampler_add_process(st->s, (uint32_t)st->pid,
							      (uint32_t)getpid()));
	attach_sources(st);
	json = run_begin_json(st->run_id, st->pid, cfg, st->counters);
	writer_failed(st->res, st->w, json ? pmt_writer_json(st->w, PMT_REC_RUN_BEGIN, st->run_id,
							     pmc_now_ns(), json)
					   : PMT_E_NOMEM);
	free(json);

	/* release the child, then learn whether exec worked: the report pipe is close-on-exec, so
	 * EOF means the program is running */
	st->start_ns = pmc_now_ns();
	n = write(st->go[1], "g", 1);
	(void)n;
	close(st->go[1]);
	st->go[1] = -1;
	do {
		n = read(st->report[0], &cr, sizeof(cr));
	} while (n < 0 && errno == EINTR);
	close(st->report[0]);
	st->report[0] = -1;
	if (n == (ssize_t)sizeof(cr)) {
		record_not_started(st, &cr);
		return 0;
	}
	st->res->started = 1;

	if (arm_timer(st) < 0) {
		/* the run cannot be sampled: end it, wait for it (run_loop) and report */
		snprintf(why, whysize, "cannot arm the timer: %s", strerror(errno));
		kill(st->pid, SIGKILL);
		return 0;
	}
	st->armed = 1;
	st->sampling = 1;
	st->cpu0_ns = cpu_now_ns();
	st->next_flush_ns = st->start_ns + 1000000000u;
	st->next_drain_ns = st->start_ns + SCHED_DRAIN_NS;
	/* the first sample at once (run_ns ~ 0) */
	if (st->res->writer_err || pmc_sampler_sample(st->s, st->start_ns) < 0)
		st->sampling = 0;
	return 0;
}

/* The once-a-second flush and the 10 ms scheduler-event drain when samples are further apart;
 * returns the poll timeout in ms until the next of them. */
static int housekeeping(struct run_state *st)
{
	uint64_t now = pmc_now_ns();
	int timeout_ms, err;

	/* wake up for the flush even when samples are further apart, so a collector killed with
	 * SIGKILL loses at most a second of the trace */
	if (now >= st->next_flush_ns) {
		err = pmt_writer_flush(st->w);
		st->next_flush_ns = now + 1000000000u;
		if (err < 0) {
			stop_sampling(st, err);
			return 0;
		}
	}
	if (st->sched && now >= st->next_drain_ns) {
		/* samples further apart than 10 ms: drain the ring buffers anyway */
		st->next_drain_ns = now + SCHED_DRAIN_NS;
		err = pmc_sched_drain(st->sched, st->w);
		if (err < 0) {
			stop_sampling(st, err);
			return 0;
		}
	}
	timeout_ms = (int)((st->next_flush_ns - now) / 1000000u) + 1;
	if (st->sched && (int)((st->next_drain_ns - now) / 1000000u) + 1 < timeout_ms)
		timeout_ms = (int)((st->next_drain_ns - now) / 1000000u) + 1;
	return timeout_ms;
}

/* Reads the signalfd: reaps on SIGCHLD, forwards the other signals. Returns 1 when the root
 * process was reaped. */
static int handle_signals(struct run_state *st)
{
	const struct pmc_run_config *cfg = st->cfg;
	struct signalfd_siginfo si;
	int root_done = 0;

	while (read(cfg->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			root_done |= reap(st->pid, st->s, &st->root_status, &st->root_ru);
		} else if (cfg->forward && sigismember(cfg->forward, (int)si.ssi_signo) &&
			   si.ssi_code != SI_KERNEL) {
			/* sent by a process (kill, timeout, a batch system) to pmcollect: pass it
			 * on. A terminal's ^C (SI_KERNEL) already went to the whole foreground
			 * process group, program included. */
			kill(st->pid, (int)si.ssi_signo);
		}
	}
	/* SIGCHLD can coalesce: a root that ended without a readable signal is found by this extra
	 * non-blocking reap */
	return root_done | reap(st->pid, st->s, &st->root_status, &st->root_ru);
}

/* One timer expiration: a sample, the scheduler events so far and the counters. */
static void take_sample(struct run_state *st)
{
	struct pmc_run_result *res = st->res;
	uint64_t exp = 0, now, due;
	int err;

	if (read(st->tfd, &exp, sizeof(exp)) != (ssize_t)sizeof(exp) || exp == 0)
		return;
	st->expirations += exp;
	if (exp > 1)
		res->lost_samples += exp - 1;
	now = pmc_now_ns();
	due = st->start_ns + st->expirations * st->interval_ns;
	if (now > due && now - due > st->interval_ns / 2)
		res->late_samples++;
	err = pmc_sampler_sample(st->s, now);
	if (err == 0 && st->sched) {
		err = pmc_sched_drain(st->sched, st->w);
		st->next_drain_ns = now + SCHED_DRAIN_NS;
	}
	if (err == 0 && st->counters && pmc_counters_read(st->counters, st->values) == 0) {
		struct pmt_counters c = { st->run_id, now, pmc_counters_count(st->counters), st->values };
		err = pmt_writer_counters(st->w, &c);
		st->have_values = 1;
	}
	if (err < 0)
		stop_sampling(st, err);
}

/* Samples on the timer and serves the signalfd until the root process is reaped; once sampling
 * has stopped (writer failed, timer not armed) it only waits for the root. */
static void run_loop(struct run_state *st)
{
	for (;;) {
		struct pollfd pfd[2] = { { .fd = st->cfg->signal_fd, .events = POLLIN },
					 { .fd = st->tfd, .events = POLLIN } };
		int timeout_ms = st->sampling ? housekeeping(st) : -1;
		if (poll(pfd, st->sampling ? 2 : 1, timeout_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((pfd[0].revents & POLLIN) && handle_signals(st))
			break;
		if (st->sampling && (pfd[1].revents & POLLIN))
			take_sample(st);
	}
}

/* After the root was reaped: the last exits, the scheduler events left, the final counter values,
 * the run's counts, and RUN_END. */
static void run_finish(struct run_state *st)
{
	struct pmc_run_result *res = st->res;
	struct pmc_sampler_stats ss;
	char *json;

	if (st->armed) {
		res->sampling_cpu_ns = cpu_now_ns() - st->cpu0_ns;
		st->end_ns = pmc_now_ns();
		if (!res->writer_err)
			writer_failed(res, st->w, pmc_sampler_finish(st->s, st->end_ns));
	} else {
		st->end_ns = pmc_now_ns();
	}
	stop_sched(st->sched, res, st->w, st->run_id);
	/* the root is reaped: inherited counts of the whole tree are final */
	if (st->armed && st->counters && pmc_counters_read(st->counters, st->values) == 0)
		st->have_values = 1;
	pmc_sampler_stats(st->s, &ss);
	res->samples = ss.samples;
	res->thread_samples = ss.thread_samples;
	res->warnings += ss.warnings;
	res->exit_status = WIFSIGNALED(st->root_status) ? 128 + WTERMSIG(st->root_status)
							: WEXITSTATUS(st->root_status);
	json = run_end_json(st->run_id, st->pid, 1, st->root_status, st->end_ns - st->start_ns,
			    &st->root_ru, res, st->cfg, st->counters,
			    st->have_values ? st->values : NULL, ss.cpu_ns);
	if (!res->writer_err)
		writer_failed(res, st->w, json ? pmt_writer_json(st->w, PMT_REC_RUN_END, st->run_id,
								 st->end_ns, json)
					       : PMT_E_NOMEM);
	free(json);
}

int pmc_run_once(struct pmt_writer *w, uint32_t run_id, const struct pmc_run_config *cfg,
		 struct pmc_run_result *res, char *why, size_t whysize)
{
	struct run_state st = {
		.w = w, .run_id = run_id, .cfg = cfg, .res = res, .counters = cfg->counters,
		.sched = cfg->sched, .go = { -1, -1 }, .report = { -1, -1 }, .tfd = -1, .pid = -1,
	};
	int rc;

	memset(res, 0, sizeof(*res));
	why[0] = '\0';
	rc = run_start(&st, why, whysize);
	if (rc == 0 && res->started) {
		run_loop(&st);
		run_finish(&st);
		if (!st.armed)
			rc = PMT_E_IO; /* the timer: why says so */
	}
	free(st.values);
	pmc_sampler_free(st.s);
	for (int i = 0; i < 2; i++) {
		if (st.go[i] >= 0)
			close(st.go[i]);
		if (st.report[i] >= 0)
			close(st.report[i]);
	}
	if (st.tfd >= 0)
		close(st.tfd);
	return rc;
}
