/* SPDX-License-Identifier: MIT */
/* run.c: starts the traced program, samples it on a timer until it ends, writes the run records. */
#include "run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <numa.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sources/cpuset.h"
#include "sources/energy.h"
#include "sources/meta.h"
#include "mpitool.h"
#include "pm_util.h"
#include "sources/sampler.h"
#include "sources/warning.h"

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
	return pm_mono_ns();
}

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What the child reports through the close-on-exec pipe when it cannot exec the program. */
enum child_stage { STAGE_AFFINITY = 1, STAGE_MEMPOLICY, STAGE_ENV, STAGE_USER, STAGE_EXEC, STAGE_OMP };
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
static void child_main(const struct pmc_run_config *cfg, const struct pmc_omp *omp,
		       const struct pmc_mpi *mpi, pid_t collector, int go_fd, int report_fd)
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
	if (omp && pmc_omp_child(omp) < 0)
		child_fail(report_fd, STAGE_OMP, errno);
	if (mpi && pmc_mpi_child(mpi) < 0)
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
	 * orphaned: the kernel sends it SIGKILL. Set after setuid(), which clears it. Not with
	 * --detach: that program outlives pmcollect by request. */
	if ((!cfg->detach && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) || getppid() != collector)
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

static const char *energy_source_name(const struct pmc_energy *e)
{
	return pmc_energy_source(e) == PMC_ENERGY_PERF ? "perf" : "powercap";
}

/* RUN_BEGIN "quota" of a pmcollect --quota run: {"cpus": quota / period, "quota_us",
 * "period_us", "cgroup": the transient cgroup's folder, "applied_by": "pmcollect"} (FORMAT.md
 * §6); nothing without --quota. */
static void add_quota(cJSON *o, const struct pmc_run_config *cfg)
{
	cJSON *q;

	if (!cfg->quota || !(q = cJSON_AddObjectToObject(o, "quota")))
		return;
	cJSON_AddNumberToObject(q, "cpus", cfg->quota_us / cfg->quota_period_us);
	cJSON_AddNumberToObject(q, "quota_us", cfg->quota_us);
	cJSON_AddNumberToObject(q, "period_us", cfg->quota_period_us);
	cJSON_AddStringToObject(q, "cgroup", cfg->quota->dir);
	cJSON_AddStringToObject(q, "applied_by", "pmcollect");
}

/* The events whose counts a run's values hold (RUN_END "C"): names[0..n) of the process tree's
 * set, or of the threads' sets of a -p window; n 0 without counters. */
struct counted {
	const char *names[PMT_MAX_COUNTERS];
	uint32_t n;
};

/* RUN_BEGIN's JSON (FORMAT.md §6); ev: the events of the run's COUNTERS records, in their order
 * ("counters.events"). Returns it (caller frees), NULL when out of memory. */
static char *run_begin_json(uint32_t run_id, pid_t pid, uint64_t window_delay_ns,
			    const struct pmc_run_config *cfg, const struct counted *ev_names)
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
	add_quota(o, cfg);
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
	if (cfg->plan_run && cfg->plan_run->placement)
		cJSON_AddStringToObject(o, "placement", cfg->plan_run->placement);
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
			if (pr->sweep_quota_cpus > 0) /* a quota= sweep (RUN_BEGIN "quota" too) */
				cJSON_AddNumberToObject(sw, "quota_cpus", pr->sweep_quota_cpus);
		}
	}
	if (cfg->delay_ns || cfg->duration_ns || cfg->nattach) {
		/* a window: the first sample's schedstat values are the threads' starting values
		   (pmanalyze counts from it, not from RUN_BEGIN); FORMAT.md §6, 2.0 */
		cJSON *wi = cJSON_AddObjectToObject(o, "window");
		cJSON_AddNumberToObject(wi, "delay_ns", (double)window_delay_ns);
		if (cfg->nattach) {
			cJSON *pa = cJSON_AddArrayToObject(wi, "attached");
			for (size_t i = 0; pa && i < cfg->nattach; i++)
				cJSON_AddItemToArray(pa, cJSON_CreateNumber(cfg->attach[i]));
		}
		if (cfg->duration_ns)
			cJSON_AddNumberToObject(wi, "duration_ns", (double)cfg->duration_ns);
		else
			cJSON_AddNullToObject(wi, "duration_ns");
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
	for (uint32_t i = 0; ev && i < ev_names->n; i++)
		cJSON_AddItemToArray(ev, cJSON_CreateString(ev_names->names[i]));
	if (cfg->energy) {
		/* the order of the ENERGY records' values (FORMAT.md §5.8) */
		c = cJSON_AddObjectToObject(o, "energy");
		if (c) {
			cJSON_AddStringToObject(c, "source", energy_source_name(cfg->energy));
			ev = cJSON_AddArrayToObject(c, "zones");
			for (size_t i = 0; ev && i < pmc_energy_count(cfg->energy); i++)
				cJSON_AddItemToArray(ev, cJSON_CreateString(pmc_energy_zone(cfg->energy, i)->name));
		}
	} else {
		cJSON_AddNullToObject(o, "energy");
	}
	if (cfg->annotate)
		cfg->annotate(cfg->annotate_arg, o, 0);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* RUN_END "C": the run's C(n) for the memory model (Tudor & Teo, eq. 7): total cycles when a
 * cycles counter ran (PAPI_TOT_CYC or its fallback), else the tree's schedstat CPU time as the
 * proxy; the instructions retired (PAPI_TOT_INS or its fallback), r(n) and stall cycles when
 * those counters ran. values are the last cumulative counts of ev's events (NULL when none were
 * read); a value PMT_COUNTER_INVALID was not read (a -p window with a thread not read), and its
 * key is then null or absent, never a part of the count. Returns the value written as "C"
 * "value" (NAN when out of memory). */
static double add_C(cJSON *o, const struct counted *ev, const int64_t *values, uint64_t cpu_ns)
{
	static const char *const keys[][2] = { [PMC_KIND_LLC_MISSES] = { "llc_misses", "llc_event" },
					      [PMC_KIND_STALLS] = { "stall_cycles", "stall_event" } };
	cJSON *c = cJSON_AddObjectToObject(o, "C");
	int cyc = -1, ins, idx[4] = { -1, -1, -1, -1 };
	double value;

	if (!c)
		return NAN;
	for (uint32_t i = 0; ev && values && i < ev->n; i++) {
		int k = pmc_counter_kind(ev->names[i]);
		if (k >= 0 && idx[k] < 0 && values[i] != PMT_COUNTER_INVALID)
			idx[k] = (int)i;
	}
	cyc = idx[PMC_KIND_CYCLES];
	ins = idx[PMC_KIND_INSTRUCTIONS];
	cJSON_AddStringToObject(c, "source", cyc >= 0 ? "cycles" : "cpu_time");
	cJSON_AddStringToObject(c, "event", cyc >= 0 ? ev->names[cyc] : "schedstat");
	value = cyc >= 0 ? (double)values[cyc] : (double)cpu_ns;
	cJSON_AddNumberToObject(c, "value", value);
	cJSON_AddStringToObject(c, "unit", cyc >= 0 ? "cycles" : "ns");
	cJSON_AddNumberToObject(c, "cpu_time_ns", (double)cpu_ns);
	if (ins >= 0) { /* C per instruction: a window's C(n) (FORMAT.md 2.0, docs/model.md) */
		cJSON_AddNumberToObject(c, "instructions", (double)values[ins]);
		cJSON_AddStringToObject(c, "instructions_event", ev->names[ins]);
	}
	for (int k = PMC_KIND_STALLS; k <= PMC_KIND_LLC_MISSES; k++) {
		if (idx[k] >= 0) {
			cJSON_AddNumberToObject(c, keys[k][0], (double)values[idx[k]]);
			cJSON_AddStringToObject(c, keys[k][1], ev->names[idx[k]]);
		} else {
			cJSON_AddNullToObject(c, keys[k][0]);
		}
	}
	return value;
}

struct run_state;
static void add_energy(cJSON *o, const struct run_state *st, uint64_t cpu_ns, uint64_t wall_ns);
static void add_omp_regions(cJSON *o, const struct run_state *st);
static void add_cpu_stat(cJSON *o, const struct run_state *st);
static void add_mpi(cJSON *o, const struct run_state *st);

/* RUN_END "window" (FORMAT.md §6, 2.0): the window asked for and the one recorded. */
static void add_window(cJSON *o, const struct pmc_run_config *cfg, const struct pmc_run_result *res)
{
	static const char *const ends[] = { "none", "duration", "exit", "before", "signal" };
	static const char *const afters[] = { "exited", "terminated", "killed", "detached", "left" };
	cJSON *w = cJSON_AddObjectToObject(o, "window");

	if (!w)
		return;
	cJSON_AddNumberToObject(w, "delay_ns", (double)cfg->delay_ns);
	if (cfg->duration_ns)
		cJSON_AddNumberToObject(w, "duration_ns", (double)cfg->duration_ns);
	else
		cJSON_AddNullToObject(w, "duration_ns");
	cJSON_AddNumberToObject(w, "offset_ns", (double)res->window_offset_ns);
	cJSON_AddNumberToObject(w, "length_ns", (double)res->window_length_ns);
	cJSON_AddStringToObject(w, "end", ends[res->window_end]);
	cJSON_AddStringToObject(w, "after", afters[res->window_after]);
	if (res->guarded) { /* -p --cpus: what the affinity guardian did (guard.h) */
		cJSON *a = cJSON_AddObjectToObject(w, "affinity");
		if (a) {
			cJSON_AddStringToObject(a, "cpus", cfg->cpus_text ? cfg->cpus_text : "");
			cJSON_AddNumberToObject(a, "moved", res->guard.moved);
			cJSON_AddNumberToObject(a, "restored", res->guard.restored);
			cJSON_AddNumberToObject(a, "kept", res->guard.kept);
			cJSON_AddNumberToObject(a, "gone", res->guard.gone);
		}
	}
}

static char *run_end_json(uint32_t run_id, pid_t pid, int started, int status, uint64_t wall_ns,
			  const struct pmc_clock_pair clk[2], const struct rusage *ru,
			  struct pmc_run_result *res,
			  const struct pmc_run_config *cfg, const struct counted *ev,
			  const int64_t *values, uint64_t cpu_ns, const struct run_state *st)
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
		} else if (cfg->nattach && res->window_after != PMC_AFTER_LEFT) {
			/* -p: a process pmcollect did not start ended; its status went to its parent */
			cJSON_AddStringToObject(e, "kind", "ended");
			cJSON_AddNullToObject(e, "code");
			cJSON_AddNumberToObject(e, "signal", 0);
		} else if (res->window_after == PMC_AFTER_DETACHED || res->window_after == PMC_AFTER_LEFT) {
			/* --detach: the program runs on; its status is not pmcollect's to know */
			cJSON_AddStringToObject(e, "kind", "running");
			cJSON_AddNumberToObject(e, "code", 0);
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
	if (res->window_end != PMC_WINDOW_NONE)
		add_window(o, cfg, res);
	/* CLOCK_MONOTONIC/CLOCK_REALTIME pairs at the program's start and end: a merge of the
	 * traces of several nodes aligns their runs on the realtime axis (docs/cluster.md) */
	e = cJSON_AddObjectToObject(o, "clocks");
	if (e) {
		(void)pmc_clock_pair_add(e, "begin", &clk[0]);
		(void)pmc_clock_pair_add(e, "end", &clk[1]);
	}
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
	e = cJSON_AddObjectToObject(o, "interval");
	if (e) {
		cJSON_AddNumberToObject(e, "requested_ms", cfg->interval_ms);
		cJSON_AddNumberToObject(e, "final_ms", res->interval_final_ms);
		cJSON_AddNumberToObject(e, "changes", res->interval_changes);
		if (res->interval_changes)
			cJSON_AddNumberToObject(e, "first_change_s", res->interval_first_change_s);
	}
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
		res->C_value = add_C(o, ev, values, cpu_ns);
		(void)pmc_meta_add_cpufreq(o, cfg->cpus ? cfg->cpus : cfg->online);
		add_energy(o, st, cpu_ns, wall_ns);
		add_cpu_stat(o, st);
	}
	add_omp_regions(o, st);
	if (res->pswitch_recorded)
		pmc_pswitch_run_end(o, &res->pswitch);
	add_mpi(o, st);
	if (cfg->annotate)
		cfg->annotate(cfg->annotate_arg, o, 1);
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
			  enum pmc_warning code, const char *msg)
{
	int rc;

	if (res->writer_err)
		return;
	rc = pmc_warning_write(w, run_id, pmc_now_ns(), code, msg);
	if (rc == PMT_E_NOMEM) /* no record: the warning still goes to the terminal */
		return;
	writer_failed(res, w, rc);
	res->warnings++;
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
		write_warning(res, w, run_id, PMC_WARN_SCHED_LOST, msg);
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
	struct pmc_thread_counters *tcounters; /* -p: every thread's (thread_counters_attach), NULL
				       without; their sums are written as COUNTERS every snap_every-th
				       sample and at the window's end */
	uint32_t snap_every;           /* a COUNTERS snapshot every snap_every-th sample (1: each;
				       pmc_snapshot_every for -p) */
	uint64_t timer_samples;        /* samples take_sample took (snap_every counts them) */
	struct pmc_sched *sched;       /* NULL once the events could not be started */
	struct pmc_pswitch *pswitch;   /* NULL once the perf switch events could not be started */
	struct pmc_omp *omp;           /* --omp-regions: the tool's socket of this run */
	struct pmc_mpi *mpi;           /* --mpi: the PMPI library's directory of this run */
	int go[2], report[2], tfd;
	pid_t pid;
	int64_t *values;               /* the counters' last cumulative values */
	int have_values;
	int armed;                     /* the sampling timer runs: the loop samples */
	int sampling;                  /* samples are still taken (the writer has not failed) */
	int root_status;
	struct rusage root_ru;
	uint64_t start_ns, end_ns, interval_ns, cpu0_ns, expirations;
	/* the timer's schedule: sample k is due at base_ns + k * interval_ns (start_ns until the
	   interval is lengthened); win_*: expirations and late or lost ones since the last check */
	uint64_t base_ns, win_exp, win_bad;
	uint64_t next_flush_ns, next_drain_ns;
	/* energy (cfg->energy): each zone's accumulated µJ when the run began, the readings so far */
	uint64_t *energy0_uj, *energy_run_uj;
	size_t nzones;
	int energy_on;                 /* the counters are read; 0 after a read error */
	char energy_why[512];          /* why the run has no energy, "" when it has */
	uint64_t next_energy_ns, last_energy_ns, energy_readings, energy_max_gap_ns;
	uint64_t energy_start_ns;       /* the first reading, before the program was released */
	struct pmc_stat_cpu stat0;     /* /proc/stat when the run began */
	char stat_why[512];            /* why the other load is unknown, "" when known */
	struct pmc_clock_pair clk[2]; /* RUN_END "clocks": begin, end (FORMAT.md 1.2) */
	/* a window (cfg->delay_ns, duration_ns): the program was released at release_ns; the window
	   ends at window_end_ns (0 = at the program's end); window_closed once it has, then
	   grace_ns is when SIGTERM turns into SIGKILL (0: not sent yet) */
	uint64_t release_ns, window_end_ns, grace_ns;
	int window_closed;
	int64_t *values0;              /* the counters when a delayed window (or a -p one) began */
	int pidfd[PMC_ATTACH_MAX];     /* -p: pidfd_open(2) of each process, -1 once it ended */
	int *tree_fd;                  /* a terminated window: pidfds of the root's descendants,
				       signalled with it (tree_signal) */
	size_t ntree, tree_cap;
	size_t alive;                  /* -p: processes not yet ended */
	int stop_signal;               /* -p: SIGINT/SIGTERM/SIGHUP received: end the window */
	struct pmc_guard *guard;       /* -p --cpus: the affinity guardian, NULL once stopped */
	uint64_t cpu_ns0;              /* the tree's schedstat CPU time then (sampler stats) */
	struct pmc_cgroup_cpu cg;     /* pmcollect's cgroup in the cpu hierarchy (the program's) */
	struct pmc_cpu_stat cpu0;     /* its cpu.stat when the run began */
	int have_cpu0;
};

/* RUN_END "omp_regions" of a --omp-regions run (omp.h); nothing for other runs or st NULL. */
static void add_omp_regions(cJSON *o, const struct run_state *st)
{
	if (st && st->omp)
		pmc_omp_run_end(st->omp, o);
}

/* RUN_END "mpi" of a --mpi run (mpitool.h); nothing for other runs or st NULL. */
static void add_mpi(cJSON *o, const struct run_state *st)
{
	if (st && st->mpi)
		pmc_mpi_run_end(st->mpi, o);
	else if (st && st->cfg->mpi_off)
		pmc_mpi_run_end_off(st->cfg->mpi_off, o);
}

/* RUN_END "cpu_stat": the cgroup's throttling counters over the run (cpu.stat at its end minus
 * at its start: nr_periods, nr_throttled, throttled_us; FORMAT.md §6), when the cgroup has a cpu
 * controller; nothing otherwise. */
static void add_cpu_stat(cJSON *o, const struct run_state *st)
{
	struct pmc_cpu_stat end;
	cJSON *c;

	if (!st || !st->have_cpu0 || pmc_cgroup_cpu_stat(pmc_sysfs_root(), &st->cg, &end) < 0 ||
	    !(c = cJSON_AddObjectToObject(o, "cpu_stat")))
		return;
	cJSON_AddNumberToObject(c, "nr_periods", (double)(end.nr_periods - st->cpu0.nr_periods));
	cJSON_AddNumberToObject(c, "nr_throttled", (double)(end.nr_throttled - st->cpu0.nr_throttled));
	cJSON_AddNumberToObject(c, "throttled_us", end.throttled_us - st->cpu0.throttled_us);
}

/* Takes the first energy reading and /proc/stat just before the program is released, so every
 * joule the run spends is after it. A failure is recorded as the run's reason, not an error. */
static int energy_start(struct run_state *st)
{
	const struct pmc_run_config *cfg = st->cfg;

	char cg_why[256];

	if (pmc_read_proc_stat(&st->stat0, st->stat_why, sizeof(st->stat_why)) < 0 && !st->stat_why[0])
		snprintf(st->stat_why, sizeof(st->stat_why), "cannot read /proc/stat");
	/* the program runs in pmcollect's cgroup: its throttling is the cgroup's over the run */
	st->have_cpu0 = (cfg->quota ? pmc_cgquota_describe(cfg->quota, &st->cg, cg_why, sizeof(cg_why))
				    : pmc_cgroup_cpu_limit(pmc_sysfs_root(), &st->cg, cg_why, sizeof(cg_why))) == 0 &&
			pmc_cgroup_cpu_stat(pmc_sysfs_root(), &st->cg, &st->cpu0) == 0;
	if (!cfg->energy) {
		snprintf(st->energy_why, sizeof(st->energy_why), "%s",
			 cfg->energy_why ? cfg->energy_why : "no energy source");
		return 0;
	}
	st->nzones = pmc_energy_count(cfg->energy);
	st->energy0_uj = calloc(st->nzones ? st->nzones : 1, sizeof(*st->energy0_uj));
	st->energy_run_uj = calloc(st->nzones ? st->nzones : 1, sizeof(*st->energy_run_uj));
	if (!st->energy0_uj || !st->energy_run_uj)
		return PMT_E_NOMEM;
	if (pmc_energy_sample(cfg->energy, st->energy_why, sizeof(st->energy_why)) < 0)
		return 0;
	for (size_t i = 0; i < st->nzones; i++)
		st->energy0_uj[i] = pmc_energy_zone(cfg->energy, i)->energy_uj;
	st->energy_on = 1;
	st->last_energy_ns = pmc_now_ns();
	st->energy_start_ns = st->last_energy_ns;
	st->next_energy_ns = st->last_energy_ns + PMC_ENERGY_PERIOD_NS;
	return 0;
}

/* One energy reading at now: accumulates the wrap-corrected deltas, writes an ENERGY record of
 * the run's energy so far (when write is set) and keeps the largest gap between readings (two
 * wraps in one gap would read as one). A read error ends the run's energy with its reason. */
static void energy_tick(struct run_state *st, uint64_t now, int write)
{
	const struct pmc_run_config *cfg = st->cfg;
	char why[400];

	if (!st->energy_on)
		return;
	st->next_energy_ns = now + PMC_ENERGY_PERIOD_NS;
	if (pmc_energy_sample(cfg->energy, why, sizeof(why)) < 0) {
		snprintf(st->energy_why, sizeof(st->energy_why), "energy reading failed during the run: %s",
			 why);
		st->energy_on = 0;
		write_warning(st->res, st->w, st->run_id, PMC_WARN_ENERGY_FAILED, st->energy_why);
		if (cfg->warn)
			cfg->warn(st->energy_why);
		return;
	}
	for (size_t i = 0; i < st->nzones; i++)
		st->energy_run_uj[i] = pmc_energy_zone(cfg->energy, i)->energy_uj - st->energy0_uj[i];
	if (now - st->last_energy_ns > st->energy_max_gap_ns)
		st->energy_max_gap_ns = now - st->last_energy_ns;
	st->last_energy_ns = now;
	st->energy_readings++;
	if (write && !st->res->writer_err) {
		struct pmt_energy e = { st->run_id, now, (uint32_t)st->nzones, st->energy_run_uj };
		writer_failed(st->res, st->w, pmt_writer_energy(st->w, &e));
	}
}

/* A source none of whose counters advanced over the run measured nothing: a perf `power` PMU
 * whose energy-psys reads 0 throughout (FIELD-NOTES, kernel 6.18 guests; docs/energy.md) would
 * otherwise be recorded as a working source of 0 J. Such a run's energy is "unavailable: the
 * counter did not advance (N readings over T s)": a warning, a WARNING record and RUN_END's
 * energy_reason (add_energy then writes energy null). */
static void energy_check_advanced(struct run_state *st)
{
	uint64_t total_uj = 0;

	if (!st->energy_on)
		return;
	for (size_t i = 0; i < st->nzones; i++)
		total_uj += st->energy_run_uj[i];
	if (total_uj > 0)
		return;
	snprintf(st->energy_why, sizeof(st->energy_why),
		 "energy unavailable: the counter did not advance (%llu readings over %.1f s, %s)",
		 (unsigned long long)st->energy_readings + 1,
		 (double)(st->last_energy_ns - st->energy_start_ns) / 1e9,
		 pmc_energy_source(st->cfg->energy) == PMC_ENERGY_PERF ? "perf power PMU" : "powercap");
	st->energy_on = 0;
	write_warning(st->res, st->w, st->run_id, PMC_WARN_ENERGY_STUCK, st->energy_why);
	if (st->cfg->warn)
		st->cfg->warn(st->energy_why);
}

/* RUN_END "energy" (per zone and the run's totals by kind) or null with "energy_reason", and
 * "other_load": the machine's busy CPUs during the run that were not the program's (/proc/stat
 * busy ticks minus the program's CPU time cpu_ns, over wall_ns; pmc_other_load_cpus), or null
 * with "other_load_reason". Keys: FORMAT.md §6, RUN_END since 1.2. */
static void add_energy(cJSON *o, const struct run_state *st, uint64_t cpu_ns, uint64_t wall_ns)
{
	static const char *const kinds[] = { "package", "core", "uncore", "dram", "psys" };
	const struct pmc_run_config *cfg = st->cfg;
	struct pmc_stat_cpu stat1;
	char why[512];
	cJSON *e, *zs, *l;

	if (st->energy_on && (e = cJSON_AddObjectToObject(o, "energy"))) {
		double by_kind[PM_ARRAY_SIZE(kinds)] = { 0 };
		int have[PM_ARRAY_SIZE(kinds)] = { 0 };
		cJSON_AddStringToObject(e, "source", energy_source_name(cfg->energy));
		zs = cJSON_AddArrayToObject(e, "zones");
		for (size_t i = 0; zs && i < st->nzones; i++) {
			const struct pmc_energy_zone *z = pmc_energy_zone(cfg->energy, i);
			const char *kind = pmc_energy_zone_kind(z->name);
			cJSON *zo = cJSON_CreateObject();
			if (!zo || !cJSON_AddItemToArray(zs, zo)) {
				cJSON_Delete(zo);
				break;
			}
			cJSON_AddStringToObject(zo, "name", z->name);
			cJSON_AddStringToObject(zo, "id", z->id);
			cJSON_AddStringToObject(zo, "kind", kind);
			cJSON_AddNumberToObject(zo, "energy_uj", (double)st->energy_run_uj[i]);
			cJSON_AddNumberToObject(zo, "max_energy_range_uj", (double)z->max_energy_range_uj);
			cJSON_AddNumberToObject(zo, "wraps", (double)z->wraps);
			cJSON_AddBoolToObject(zo, "gone", z->gone);
			for (size_t k = 0; k < PM_ARRAY_SIZE(kinds); k++)
				if (strcmp(kind, kinds[k]) == 0) {
					by_kind[k] += (double)st->energy_run_uj[i];
					have[k] = 1;
				}
		}
		for (size_t k = 0; k < PM_ARRAY_SIZE(kinds); k++) {
			char key[32];
			snprintf(key, sizeof(key), "%s_uj", kinds[k]);
			if (have[k])
				cJSON_AddNumberToObject(e, key, by_kind[k]);
			else
				cJSON_AddNullToObject(e, key);
		}
		cJSON_AddNumberToObject(e, "readings", (double)st->energy_readings);
		cJSON_AddNumberToObject(e, "max_gap_ns", (double)st->energy_max_gap_ns);
	} else {
		cJSON_AddNullToObject(o, "energy");
		cJSON_AddStringToObject(o, "energy_reason", st->energy_why[0] ? st->energy_why
									 : "no energy source");
	}
	/* for SUMMARY "sources": what the run's energy source turned out to be */
	st->res->energy_recorded = st->energy_on;
	snprintf(st->res->energy_reason, sizeof(st->res->energy_reason), "%s",
		 st->energy_on ? "" : st->energy_why[0] ? st->energy_why : "no energy source");
	if (!st->stat_why[0] && pmc_read_proc_stat(&stat1, why, sizeof(why)) == 0 &&
	    pmc_other_load_cpus(&st->stat0, &stat1, cpu_ns, wall_ns, cfg->user_hz) >= 0.0 &&
	    (l = cJSON_AddObjectToObject(o, "other_load"))) {
		double hz = (double)cfg->user_hz, wall_s = (double)wall_ns / 1e9;
		cJSON_AddNumberToObject(l, "cpus", pmc_other_load_cpus(&st->stat0, &stat1, cpu_ns,
								       wall_ns, cfg->user_hz));
		cJSON_AddNumberToObject(l, "busy_cpus",
					(double)(stat1.busy_ticks - st->stat0.busy_ticks) / hz / wall_s);
		cJSON_AddNumberToObject(l, "steal_cpus",
					(double)(stat1.steal_ticks - st->stat0.steal_ticks) / hz / wall_s);
		cJSON_AddNumberToObject(l, "program_cpus", (double)cpu_ns / (double)wall_ns);
	} else {
		cJSON_AddNullToObject(o, "other_load");
		cJSON_AddStringToObject(o, "other_load_reason",
					st->stat_why[0] ? st->stat_why
							: "/proc/stat could not be read at the end of the run");
	}
}

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
					    "cannot switch to the user given for", "cannot run",
					    "cannot pass the OMPT tool's socket and variables to" };
	struct pmc_run_result *res = st->res;
	char *json;

	while (waitpid(st->pid, &st->root_status, 0) < 0 && errno == EINTR)
		;
	snprintf(res->error, sizeof(res->error), "%s '%s': %s",
		 cr->stage >= 1 && cr->stage <= STAGE_OMP ? what[cr->stage] : "cannot run",
		 st->cfg->argv[0], strerror(cr->err));
	res->exit_status = 127;
	st->end_ns = pmc_now_ns();
	pmc_clock_pair_now(&st->clk[1]);
	json = run_end_json(st->run_id, st->pid, 0, 0, st->end_ns - st->start_ns, st->clk,
			    &st->root_ru, res, st->cfg, NULL, NULL, 0, st);
	if (!res->writer_err)
		writer_failed(res, st->w, json ? pmt_writer_json(st->w, PMT_REC_RUN_END, st->run_id,
								 st->end_ns, json)
					       : PMT_E_NOMEM);
	free(json);
}

/* The context switches could not be recorded (why): warns, says so in a WARNING record, and
 * goes on without them. */
static void pswitch_unavailable(struct run_state *st, const char *why)
{
	char msg[320];

	snprintf(msg, sizeof(msg), "context switches not recorded: %s", why);
	if (st->cfg->warn)
		st->cfg->warn(msg);
	write_warning(st->res, st->w, st->run_id, PMC_WARN_PSWITCH_UNAVAILABLE, msg);
	st->pswitch = NULL;
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
		if (pmc_sched_start(st->sched, st->pid, NULL, 0, st->run_id, cfg->cpus, why,
				    sizeof(why)) < 0) {
			snprintf(msg, sizeof(msg), "scheduler events not recorded: %s", why);
			if (cfg->warn)
				cfg->warn(msg);
			write_warning(st->res, st->w, st->run_id, PMC_WARN_SCHED_UNAVAILABLE, msg);
			st->sched = NULL;
		} else {
			st->res->sched_recorded = 1;
		}
	}
	if (st->pswitch && pmc_pswitch_start(st->pswitch, st->pid, st->run_id, cfg->cpus, why,
					     sizeof(why)) < 0)
		pswitch_unavailable(st, why);
	st->res->pswitch_recorded = st->pswitch != NULL;
}

/* Absolute schedule: sample k is due at start + k*interval whatever the previous sample cost, so
 * the interval does not drift. Returns 0 or -1 with errno. */
static int arm_timer(struct run_state *st)
{
	struct itimerspec its;
	uint64_t first = st->base_ns + st->interval_ns;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(first / 1000000000u);
	its.it_value.tv_nsec = (long)(first % 1000000000u);
	its.it_interval.tv_sec = (time_t)(st->interval_ns / 1000000000u);
	its.it_interval.tv_nsec = (long)(st->interval_ns % 1000000000u);
	return timerfd_settime(st->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void counted_events(const struct run_state *st, struct counted *ev);
static int write_snapshot(struct run_state *st, uint64_t now);

/* Writes RUN_BEGIN at now (before the program is released, or when a delayed window begins). */
static void write_run_begin(struct run_state *st)
{
	struct counted ev;
	char *json;

	counted_events(st, &ev);
	json = run_begin_json(st->run_id, st->pid, st->cfg->nattach ? st->res->window_offset_ns
								     : st->cfg->delay_ns,
			      st->cfg, &ev);

	writer_failed(st->res, st->w, json ? pmt_writer_json(st->w, PMT_REC_RUN_BEGIN, st->run_id,
							     pmc_now_ns(), json)
					   : PMT_E_NOMEM);
	free(json);
}

static int handle_signals(struct run_state *st);

/* --delay: lets the program run unrecorded until release_ns + delay_ns, serving the signalfd
 * (forwarding, reaping) and reading the scheduler events and context switches into nothing
 * every 10 ms (pmc_sched_drain, pmc_pswitch_drain with no writer), so the window starts with
 * empty buffers; then the counters' values, which the window's are counted from. Returns 1 when
 * the window begins, 0 when the program ended first (res window_end PMC_WINDOW_BEFORE, its
 * status in exit_status). */
static int wait_delay(struct run_state *st)
{
	const struct pmc_run_config *cfg = st->cfg;
	uint64_t begin_ns = st->release_ns + cfg->delay_ns, now;

	while ((now = pmc_now_ns()) < begin_ns) {
		struct pollfd pfd = { .fd = cfg->signal_fd, .events = POLLIN };
		uint64_t left_ms = (begin_ns - now) / 1000000u + 1;
		if (left_ms > SCHED_DRAIN_NS / 1000000u)
			left_ms = SCHED_DRAIN_NS / 1000000u;
		if (poll(&pfd, 1, (int)left_ms) < 0 && errno != EINTR)
			break;
		if ((pfd.revents & POLLIN) && handle_signals(st)) {
			st->res->window_end = PMC_WINDOW_BEFORE;
			st->res->window_offset_ns = pmc_now_ns() - st->release_ns;
			st->res->exit_status = WIFSIGNALED(st->root_status) ? 128 + WTERMSIG(st->root_status)
									    : WEXITSTATUS(st->root_status);
			return 0;
		}
		if (st->sched)
			(void)pmc_sched_drain(st->sched, NULL);
		if (st->pswitch)
			(void)pmc_pswitch_drain(st->pswitch, NULL);
	}
	if (st->sched)
		(void)pmc_sched_drain(st->sched, NULL);
	if (st->pswitch)
		(void)pmc_pswitch_drain(st->pswitch, NULL);
	if (st->counters && st->values0 && pmc_counters_read(st->counters, st->values0) < 0) {
		free(st->values0);
		st->values0 = NULL;
	}
	return 1;
}

/* The window begins at st->start_ns (RUN_BEGIN written): its end, the timer, the first sample (the
 * threads' starting values when they ran before it: --delay, -p). Returns 0; a timer that cannot
 * be armed leaves st->armed 0 with why set (the program is killed, an attached one left alone). */
static int start_sampling(struct run_state *st, char *why, size_t whysize)
{
	const struct pmc_run_config *cfg = st->cfg;

	if (cfg->delay_ns || cfg->duration_ns || cfg->nattach) {
		st->res->window_end = PMC_WINDOW_EXIT; /* until the duration ends it */
		st->res->window_offset_ns = st->start_ns - st->release_ns;
		if (cfg->duration_ns)
			st->window_end_ns = st->start_ns + cfg->duration_ns;
	}

	st->base_ns = st->start_ns;
	if (arm_timer(st) < 0) {
		/* the run cannot be sampled: end it, wait for it (run_loop) and report */
		snprintf(why, whysize, "cannot arm the timer: %s", strerror(errno));
		if (!cfg->nattach)
			kill(st->pid, SIGKILL);
		return 0;
	}
	st->armed = 1;
	st->sampling = 1;
	st->cpu0_ns = cpu_now_ns();
	st->next_flush_ns = st->start_ns + 1000000000u;
	st->next_drain_ns = st->start_ns + SCHED_DRAIN_NS;
	/* the first sample at once (run_ns ~ 0; after --delay the threads' starting values) */
	if (st->res->writer_err || pmc_sampler_sample(st->s, st->start_ns) < 0)
		st->sampling = 0;
	if (cfg->delay_ns || cfg->nattach) {
		struct pmc_sampler_stats ss0;
		pmc_sampler_stats(st->s, &ss0);
		st->cpu_ns0 = ss0.cpu_ns;
	}
	return 0;
}

/* The timer, the sampler and the counters' buffers of a run (run_start, attach_start). Returns 0,
 * or PMT_E_IO / PMT_E_NOMEM with a reason in why. */
static int setup_sampling(struct run_state *st, const struct pmc_sampler_opts *so, char *why,
			  size_t whysize)
{
	const struct pmc_run_config *cfg = st->cfg;
	int err;

	st->interval_ns = (uint64_t)(cfg->interval_ms * 1e6 + 0.5);
	st->res->interval_final_ms = cfg->interval_ms;
	st->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (st->tfd < 0) {
		snprintf(why, whysize, "cannot create a timer: %s", strerror(errno));
		return PMT_E_IO;
	}
	err = pmc_sampler_new(&st->s, st->w, so);
	if (err < 0) {
		snprintf(why, whysize, "%s", pmt_strerror(err));
		return err;
	}
	if (st->counters) {
		uint32_t nc = pmc_counters_count(st->counters);
		st->values = calloc(nc ? nc : 1, sizeof(*st->values));
		if (cfg->delay_ns)
			st->values0 = calloc(nc ? nc : 1, sizeof(*st->values0));
		if (!st->values || (cfg->delay_ns && !st->values0)) {
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			return PMT_E_NOMEM;
		}
	}

	return 0;
}

/* The fields of /proc/<pid>/stat after the comm's closing parenthesis (field 3, state, on), in
 * buf; NULL when it cannot be read. Source: proc(5). */
static const char *proc_stat_fields(pid_t pid, char *buf, size_t size)
{
	char path[64], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return NULL;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (p = strrchr(buf, ')')) && p[1] == ' ' ? p + 2 : NULL;
}

/* How long ago process pid started, ns: now on CLOCK_BOOTTIME less its starttime (proc(5)
 * /proc/<pid>/stat field 22, clock ticks since boot). 0 when unknown. */
static uint64_t process_age_ns(pid_t pid, long user_hz)
{
	char buf[1024];
	const char *p = proc_stat_fields(pid, buf, sizeof(buf));
	unsigned long long start_ticks = 0;
	struct timespec ts;
	double age;

	if (!p || user_hz <= 0 ||
	    sscanf(p, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &start_ticks) != 1 || clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	age = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)start_ticks * 1e9 / (double)user_hz;
	return age > 0 ? (uint64_t)age : 0;
}

/* The parent process of pid (proc(5) /proc/<pid>/stat field 4), 0 when unknown. */
static uint32_t process_ppid(pid_t pid)
{
	char buf[1024];
	const char *p = proc_stat_fields(pid, buf, sizeof(buf));
	unsigned ppid = 0;

	return p && sscanf(p, "%*c %u", &ppid) == 1 ? ppid : 0;
}

/* -p: the tids of every thread of the attached processes as /proc/PID/task lists them now, into
 * *tids (capacity *cap, grown with PM_GROW), their number in *n; a process that ended lists none
 * (its pidfd says so). Returns 0, or PMT_E_NOMEM. Source: proc(5) /proc/pid/task. */
static int list_threads(const struct pmc_run_config *cfg, pid_t **tids, size_t *n, size_t *cap)
{
	int rc = 0;

	*n = 0;
	for (size_t i = 0; rc == 0 && i < cfg->nattach; i++) {
		char path[64];
		struct dirent *de;
		DIR *d;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)cfg->attach[i]);
		if (!(d = opendir(path)))
			continue;
		while ((de = readdir(d))) {
			pid_t tid = (pid_t)atoi(de->d_name);
			if (tid <= 0)
				continue;
			if (PM_GROW(*tids, *cap, *n + 1) < 0) {
				rc = PMT_E_NOMEM;
				break;
			}
			(*tids)[(*n)++] = tid;
		}
		closedir(d);
	}
	return rc;
}

/* -p: the context switches of every thread of the attached processes (perfswitch.h): the events
 * of the first process's main thread on every online CPU, then each other thread's redirected
 * into them; the threads are listed again until no new one shows (one made by a thread not yet
 * recorded does not inherit the events), at most PSWITCH_ATTACH_PASSES times. Threads and
 * processes made later by recorded threads inherit the events. Returns 0, or a negative PMT_E_*
 * with the reason in why (the events are closed). */
#define PSWITCH_ATTACH_PASSES 4
static int pswitch_attach(struct run_state *st, char *why, size_t whysize)
{
	const struct pmc_run_config *cfg = st->cfg;
	pid_t *seen = NULL, *now = NULL;
	size_t nseen = 0, cap = 0, nnow = 0, cap_now = 0, added = 1;
	int rc = pmc_pswitch_start(st->pswitch, cfg->attach[0], st->run_id, NULL, why, whysize);

	for (int pass = 0; rc == 0 && added && pass < PSWITCH_ATTACH_PASSES; pass++) {
		added = 0;
		if (list_threads(cfg, &now, &nnow, &cap_now) < 0) {
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			rc = PMT_E_NOMEM;
			break;
		}
		for (size_t j = 0; rc == 0 && j < nnow; j++) {
			pid_t tid = now[j];
			size_t k = 0;
			while (k < nseen && seen[k] != tid)
				k++;
			if (tid == cfg->attach[0] || k < nseen)
				continue;
			if (PM_GROW(seen, cap, nseen + 1) < 0) {
				snprintf(why, whysize, "%s", strerror(ENOMEM));
				rc = PMT_E_NOMEM;
				break;
			}
			seen[nseen++] = tid;
			added++;
			rc = pmc_pswitch_add_thread(st->pswitch, tid, why, whysize);
		}
	}
	free(seen);
	free(now);
	if (rc < 0) {
		struct pmc_pswitch_stats unused;
		(void)pmc_pswitch_stop(st->pswitch, NULL, &unused);
	}
	return rc;
}

/* Descriptors pmcollect has open now (the entries of /proc/self/fd, less the one that lists
 * them); 0 when it cannot be listed. Source: proc(5) /proc/pid/fd. */
static uint64_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	uint64_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n ? n - 1 : 0;
}

/* Whether thread tid has ended (its /proc entry is gone): a thread that ended between the
 * listing and its attach did its work before the window. Source: proc(5). */
static int thread_gone(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	return access(path, F_OK) < 0 && errno == ENOENT;
}

/* -p: cycles and instructions of every thread of the attached processes over the window
 * (counters.h pmc_thread_counters: an event set per thread of the session's events, st->cfg->
 * counters, attached with inheritance, so that what a counted thread starts later is counted in
 * its set). The threads are listed, each one counted, and listed again: a thread that shows only
 * in the second listing was created while the sets were being attached, by a thread that may have
 * been counted already (then it inherited that thread's events, and a set of its own would count
 * it twice) or not (then nothing counts it): the window then has no counters, rather than a count
 * too high or too low. None either when the threads outnumber what the open-file limit leaves
 * (pmc_thread_counters_cap), or when an attach fails: a part of the threads' counts would pass
 * for all of them in C(n) per instruction. Returns the started sets, or NULL with the reason in
 * why. */
static struct pmc_thread_counters *thread_counters_attach(struct run_state *st, char *why,
							  size_t whysize)
{
	const struct pmc_run_config *cfg = st->cfg;
	struct pmc_thread_counters *tc = NULL;
	struct rlimit nofile;
	pid_t *tids = NULL;
	size_t ntids = 0, cap = 0, max;
	uint64_t limit = 0;
	int rc = pmc_thread_counters_open(&tc, cfg->counters, why, whysize);

	if (rc == 0 && list_threads(cfg, &tids, &ntids, &cap) < 0) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		rc = PMT_E_NOMEM;
	}
	if (rc == 0) {
		if (getrlimit(RLIMIT_NOFILE, &nofile) == 0)
			limit = nofile.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)nofile.rlim_cur;
		max = pmc_thread_counters_cap(limit, open_fds(), pmc_thread_counters_count(tc));
		if (ntids > max) {
			snprintf(why, whysize, "%zu threads, more than the %zu whose counters fit in the "
				 "open-file limit (ulimit -n %llu): none counted rather than a part", ntids,
				 max, (unsigned long long)limit);
			rc = PMT_E_LIMIT;
		}
	}
	for (size_t j = 0; rc == 0 && j < ntids; j++) {
		rc = pmc_thread_counters_add(tc, tids[j], why, whysize);
		if (rc == PMT_E_IO && thread_gone(tids[j]))
			rc = 0;
	}
	/* the second listing: a thread created meanwhile cannot be counted right */
	if (rc == 0 && list_threads(cfg, &tids, &ntids, &cap) < 0) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		rc = PMT_E_NOMEM;
	}
	for (size_t j = 0; rc == 0 && j < ntids; j++)
		if (!pmc_thread_counters_has(tc, tids[j])) {
			snprintf(why, whysize, "thread %d started while the counters were being attached "
				 "(it may or may not have inherited a counted thread's): none counted rather "
				 "than a wrong count", (int)tids[j]);
			rc = PMT_E_IO;
		}
	if (rc == 0 && pmc_thread_counters_threads(tc) == 0) {
		snprintf(why, whysize, "no thread left to count");
		rc = PMT_E_IO;
	}
	free(tids);
	if (rc < 0) {
		pmc_thread_counters_close(tc);
		return NULL;
	}
	return tc;
}

/* -p: the threads' counters (thread_counters_attach) and their buffers, or a warning (terminal and
 * WARNING record) saying why the window has none; the run goes on either way. Without the
 * session's counters (no PMU, perf_event_paranoid: META says why) nothing is tried. Returns 0,
 * or PMT_E_NOMEM. */
static int attach_thread_counters(struct run_state *st)
{
	char why[256], msg[320];
	uint32_t nc;

	if (!st->cfg->counters)
		return 0;
	st->tcounters = thread_counters_attach(st, why, sizeof(why));
	if (!st->tcounters) {
		snprintf(msg, sizeof(msg), "cycles and instructions not counted: %s", why);
		if (st->cfg->warn)
			st->cfg->warn(msg);
		write_warning(st->res, st->w, st->run_id, PMC_WARN_COUNTERS_UNAVAILABLE, msg);
		return 0;
	}
	nc = pmc_thread_counters_count(st->tcounters);
	/* a snapshot reads every thread's set: thinned for many threads (pmc_snapshot_every) */
	st->snap_every = pmc_snapshot_every(pmc_thread_counters_threads(st->tcounters), nc,
					    st->interval_ns, st->cfg->duration_ns);
	st->values = calloc(nc, sizeof(*st->values));
	st->values0 = calloc(nc, sizeof(*st->values0));
	return st->values && st->values0 ? 0 : PMT_E_NOMEM;
}

/* -p: starts recording processes that run already (cfg->attach): the sampler follows them and
 * what they start, a pidfd each tells when it ends, the scheduler events are filtered to their
 * threads, the perf context switches opened on each thread (pswitch_attach), and the cycles and
 * instructions counted on each thread (attach_thread_counters; the process tree's counters of a
 * run need the process before exec, so st->counters stays NULL), read when the window begins,
 * every snap_every-th sample (COUNTERS records of their sums) and when it ends. RUN_BEGIN
 * "window" "delay_ns" is the first process's age. Returns 0, or a negative PMT_E_* with a reason in why. */
static int attach_start(struct run_state *st, char *why, size_t whysize)
{
	const struct pmc_run_config *cfg = st->cfg;
	struct pmc_sampler_opts so = {
		.run_id = st->run_id, .stat_every = cfg->stat_every, .status_every = cfg->status_every,
		.procconn_fd = cfg->procconn_fd, .taskstats_fd = cfg->taskstats_fd,
		.taskstats_family = cfg->taskstats_family, .collector_pid = (uint32_t)getpid(),
		.attached = 1,
	};
	char swhy[256], msg[320];
	uint64_t age;
	int err;

	st->counters = NULL;
	err = setup_sampling(st, &so, why, whysize);
	if (err < 0)
		return err;
	st->pid = cfg->attach[0];
	for (size_t i = 0; i < cfg->nattach; i++) {
		st->pidfd[i] = (int)syscall(SYS_pidfd_open, cfg->attach[i], 0);
		if (st->pidfd[i] < 0 && errno == ESRCH)
			continue; /* it ended since -p was checked: its end ends the window */
		if (st->pidfd[i] < 0) {
			snprintf(why, whysize, "cannot follow process %d: %s", (int)cfg->attach[i],
				 strerror(errno));
			return PMT_E_IO;
		}
		st->alive++;
		writer_failed(st->res, st->w, pmc_sampler_add_process(st->s, (uint32_t)cfg->attach[i],
								      process_ppid(cfg->attach[i])));
	}
	if (cfg->cpus) { /* --cpus: every thread onto them for the window, restored at its end */
		st->guard = pmc_guard_start(cfg->attach, cfg->nattach, cfg->cpus, why, whysize);
		if (!st->guard)
			return PMT_E_IO;
		st->res->guarded = 1;
	}
	if (st->sched) {
		pid_t *tids = NULL;
		size_t ntids = 0, cap = 0;
		/* the threads that exist now into the pid filter, before tracing is on; those
		 * started during the window follow through event-fork */
		int rc = list_threads(cfg, &tids, &ntids, &cap);
		if (rc < 0)
			snprintf(swhy, sizeof(swhy), "out of memory");
		else
			rc = pmc_sched_start(st->sched, st->pid, tids, ntids, st->run_id, NULL, swhy,
					     sizeof(swhy));
		free(tids);
		if (rc < 0) {
			snprintf(msg, sizeof(msg), "scheduler events not recorded: %s", swhy);
			if (cfg->warn)
				cfg->warn(msg);
			write_warning(st->res, st->w, st->run_id, PMC_WARN_SCHED_UNAVAILABLE, msg);
			if (rc == 0 || st->sched)
				(void)pmc_sched_stop(st->sched, NULL, &st->res->sched);
			st->sched = NULL;
		} else {
			st->res->sched_recorded = 1;
		}
	}
	if (st->pswitch && pswitch_attach(st, swhy, sizeof(swhy)) < 0)
		pswitch_unavailable(st, swhy);
	st->res->pswitch_recorded = st->pswitch != NULL;
	if (attach_thread_counters(st) < 0) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return PMT_E_NOMEM;
	}
	age = process_age_ns(st->pid, cfg->user_hz);
	st->start_ns = pmc_now_ns();
	st->release_ns = st->start_ns - (age < st->start_ns ? age : 0);
	st->res->window_offset_ns = st->start_ns - st->release_ns;
	write_run_begin(st);
	err = energy_start(st);
	if (err < 0) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return err;
	}
	st->res->started = 1;
	st->start_ns = pmc_now_ns();
	pmc_clock_pair_now(&st->clk[0]);
	/* the window's counts are counted from here (counters_read subtracts these), and the first
	   snapshot says so: 0 at the window's start, not read where a set could not be read */
	if (st->tcounters) {
		uint32_t nc = pmc_thread_counters_count(st->tcounters);
		(void)pmc_thread_counters_read(st->tcounters, st->values0);
		for (uint32_t i = 0; i < nc; i++)
			st->values[i] = st->values0[i] == PMT_COUNTER_INVALID ? PMT_COUNTER_INVALID : 0;
		writer_failed(st->res, st->w, write_snapshot(st, st->start_ns));
	}
	return start_sampling(st, why, whysize);
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
	ssize_t n;
	int err;

	if (pipe2(st->go, O_CLOEXEC) < 0 || pipe2(st->report, O_CLOEXEC) < 0) {
		snprintf(why, whysize, "cannot create a pipe: %s", strerror(errno));
		return PMT_E_IO;
	}
	err = setup_sampling(st, &so, why, whysize);
	if (err < 0)
		return err;

	if (cfg->omp && pmc_omp_open(&st->omp, cfg->omp, st->run_id, why, whysize) < 0)
		return PMT_E_IO;
	if (cfg->mpi_tool && pmc_mpi_open(&st->mpi, cfg->mpi_tool, cfg->user ? cfg->user->uid : (uid_t)-1,
					  cfg->user ? cfg->user->gid : (gid_t)-1, why, whysize) < 0)
		return PMT_E_IO;

	if (cfg->quota && pmc_cgquota_set(cfg->quota, cfg->quota_us, cfg->quota_period_us, why,
					  whysize) < 0)
		return PMT_E_IO;
	st->pid = fork();
	if (st->pid < 0) {
		snprintf(why, whysize, "cannot fork: %s", strerror(errno));
		return PMT_E_IO;
	}
	if (st->pid == 0) {
		close(st->go[1]);
		close(st->report[0]);
		child_main(cfg, st->omp, st->mpi, getppid(), st->go[0], st->report[1]);
	}
	/* into the quota's cgroup while it waits for the go: the program never runs outside it */
	if (cfg->quota && pmc_cgquota_enter(cfg->quota, st->pid, why, whysize) < 0) {
		close(st->go[1]); /* EOF: the child exits 127 without exec */
		st->go[1] = -1;
		while (waitpid(st->pid, NULL, 0) < 0 && errno == EINTR)
			;
		return PMT_E_IO;
	}
	if (st->omp)
		pmc_omp_after_fork(st->omp);
	close(st->go[0]);
	st->go[0] = -1;
	close(st->report[1]);
	st->report[1] = -1;

	writer_failed(st->res, st->w, pmc_sampler_add_process(st->s, (uint32_t)st->pid,
							      (uint32_t)getpid()));
	attach_sources(st);
	if (!cfg->delay_ns) {
		write_run_begin(st);
		err = energy_start(st);
		if (err < 0) {
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			return err;
		}
	}
	/* release the child, then learn whether exec worked: the report pipe is close-on-exec, so
	 * EOF means the program is running */
	st->start_ns = st->release_ns = pmc_now_ns();
	pmc_clock_pair_now(&st->clk[0]);
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
	if (cfg->delay_ns) {
		if (wait_delay(st) == 0)
			return 0; /* the program ended before the window: nothing recorded */
		write_run_begin(st);
		err = energy_start(st);
		if (err < 0) {
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			return err;
		}
		st->start_ns = pmc_now_ns();
		pmc_clock_pair_now(&st->clk[0]);
	}
	return start_sampling(st, why, whysize);
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
	if ((st->sched || st->pswitch) && now >= st->next_drain_ns) {
		/* samples further apart than 10 ms: drain the ring buffers anyway */
		st->next_drain_ns = now + SCHED_DRAIN_NS;
		err = st->sched ? pmc_sched_drain(st->sched, st->w) : 0;
		if (err == 0 && st->pswitch)
			err = pmc_pswitch_drain(st->pswitch, st->w);
		if (err < 0) {
			stop_sampling(st, err);
			return 0;
		}
	}
	if (st->energy_on && now >= st->next_energy_ns)
		energy_tick(st, now, 1);
	timeout_ms = (int)((st->next_flush_ns - now) / 1000000u) + 1;
	if ((st->sched || st->pswitch) && (int)((st->next_drain_ns - now) / 1000000u) + 1 < timeout_ms)
		timeout_ms = (int)((st->next_drain_ns - now) / 1000000u) + 1;
	if (st->energy_on && (int)((st->next_energy_ns - now) / 1000000u) + 1 < timeout_ms)
		timeout_ms = (int)((st->next_energy_ns - now) / 1000000u) + 1;
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
		} else if (cfg->nattach && cfg->forward && sigismember(cfg->forward, (int)si.ssi_signo)) {
			/* -p: the processes are not pmcollect's: the signal ends the window */
			st->stop_signal = (int)si.ssi_signo;
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
	if (cfg->nattach)
		return 0; /* reaping only: none of the attached processes is a child */
	return root_done | reap(st->pid, st->s, &st->root_status, &st->root_ru);
}

/* An interval pmcollect cannot keep (docs/model.md, degraded-input case 1): when more than half of the last
 * PMC_KEEP_WINDOW expirations were lost (the timer fired again before the sample was read) or
 * late (taken more than half an interval after it was due), the interval is doubled from now on
 * (up to PMC_KEEP_MAX_MS), with a WARNING record; RUN_END "interval" has the outcome. A
 * sample taken later than planned places the changes of parallelism no better than a longer
 * interval would, and lost expirations are no samples at all, while every sample costs the
 * collector (and on a shared CPU the program) a read of every thread. */
static void keep_interval(struct run_state *st, uint64_t now, uint64_t exp, int late)
{
	struct pmc_run_result *res = st->res;
	char msg[300];
	double from_ms = (double)st->interval_ns / 1e6;

	st->win_exp += exp;
	st->win_bad += exp - 1 + (uint64_t)late;
	if (st->win_exp < PMC_KEEP_WINDOW)
		return;
	if (2 * st->win_bad > st->win_exp && from_ms * 2 <= PMC_KEEP_MAX_MS) {
		snprintf(msg, sizeof(msg), "cannot keep a %.2f ms interval (%llu of the last %llu "
			 "samples late or lost): sampling every %.2f ms from %.3f s into the run",
			 from_ms, (unsigned long long)st->win_bad, (unsigned long long)st->win_exp,
			 from_ms * 2, (double)(now - st->start_ns) / 1e9);
		st->interval_ns *= 2;
		st->base_ns = now;
		st->expirations = 0;
		if (arm_timer(st) < 0)
			stop_sampling(st, 0);
		if (!res->interval_changes)
			res->interval_first_change_s = (double)(now - st->start_ns) / 1e9;
		res->interval_changes++;
		res->interval_final_ms = (double)st->interval_ns / 1e6;
		write_warning(res, st->w, st->run_id, PMC_WARN_INTERVAL_LENGTHENED, msg);
	}
	st->win_exp = st->win_bad = 0;
}

/* Reads the counters into st->values, counted from the window's start (st->values0) when the
 * window was delayed or is one of -p. The threads' sets of a -p window are summed
 * (pmc_thread_counters_read): an event some thread's set could not read is PMT_COUNTER_INVALID
 * and the others count. Returns 0 or -1 (not read). */
static int counters_read(struct run_state *st)
{
	uint32_t nc;

	if (st->tcounters) {
		nc = pmc_thread_counters_count(st->tcounters);
		(void)pmc_thread_counters_read(st->tcounters, st->values);
	} else {
		nc = pmc_counters_count(st->counters);
		if (pmc_counters_read(st->counters, st->values) < 0)
			return -1;
	}
	pmc_counts_since(st->values, st->values0, nc);
	return 0;
}

/* The events of st->values (RUN_END "C"): the threads' sets of a -p window, else the process
 * tree's set (none without counters). */
static void counted_events(const struct run_state *st, struct counted *ev)
{
	uint32_t n = st->tcounters ? pmc_thread_counters_count(st->tcounters)
				   : pmc_counters_count(st->counters);

	for (ev->n = 0; ev->n < n && ev->n < PMT_MAX_COUNTERS; ev->n++)
		ev->names[ev->n] = st->tcounters ? pmc_thread_counters_name(st->tcounters, ev->n)
						 : pmc_counters_name(st->counters, ev->n);
}

/* A COUNTERS record of st->values (counters_read: counted from the window's start) at now; a
 * failed write is the writer's failure (writer_failed). */
static int write_snapshot(struct run_state *st, uint64_t now)
{
	struct counted ev;
	struct pmt_counters c;

	counted_events(st, &ev);
	c = (struct pmt_counters){ st->run_id, now, ev.n, st->values };
	return ev.n ? pmt_writer_counters(st->w, &c) : 0;
}

/* Walks the program's tree from its root (/proc/<pid>/task/<tid>/children, Linux 3.5 with
 * CONFIG_PROC_CHILDREN; where it is absent only the root's threads): on_thread(tid, arg) for every
 * thread of every process, on_child(pid, arg) for every process below the root, before its own
 * threads. Either may be NULL. A thread or process that ended meanwhile is skipped. Source:
 * proc(5). */
static void tree_walk(pid_t pid, int depth, void (*on_thread)(pid_t, void *),
		      void (*on_child)(pid_t, void *), void *arg)
{
	char path[96];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (depth > 64 || !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		FILE *f;
		int child;
		if (tid <= 0)
			continue;
		if (on_thread)
			on_thread(tid, arg);
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tid);
		if (!(f = fopen(path, "r")))
			continue;
		while (fscanf(f, "%d", &child) == 1) {
			if (on_child)
				on_child((pid_t)child, arg);
			tree_walk((pid_t)child, depth + 1, on_thread, on_child, arg);
		}
		fclose(f);
	}
	closedir(d);
}

static void thread_affinity(pid_t tid, void *cpus)
{
	(void)sched_setaffinity(tid, sizeof(cpu_set_t), cpus);
}

/* The program's tree from its root (tree_walk): sched_setaffinity(cpus) on every thread of every
 * process. Errors (a thread that ended meanwhile) are skipped. */
static void set_tree_affinity(pid_t pid, const cpu_set_t *cpus, int depth)
{
	cpu_set_t set = *cpus;

	tree_walk(pid, depth, thread_affinity, NULL, &set);
}

/* A descendant of the root into st->tree_fd as a pidfd (tree_collect); one that ended
 * meanwhile, or one that cannot be opened, is skipped; the list stops growing when memory runs
 * out. Source: pidfd_open(2). */
static void tree_add(pid_t pid, void *arg)
{
	struct run_state *st = arg;
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		return;
	if (PM_GROW(st->tree_fd, st->tree_cap, st->ntree + 1) < 0) {
		close(fd);
		return;
	}
	st->tree_fd[st->ntree++] = fd;
}

/* The root's descendants into st->tree_fd (tree_walk): the window's end signals the whole
 * program, not its root alone (a shell's children would run on, orphaned). */
static void tree_collect(struct run_state *st, pid_t pid, int depth)
{
	tree_walk(pid, depth, NULL, tree_add, st);
}

/* Sends sig to the descendants tree_collect found (those that ended are not signalled:
 * pidfd_send_signal(2) refuses them). */
static void tree_signal(const struct run_state *st, int sig)
{
	for (size_t i = 0; i < st->ntree; i++)
		(void)syscall(SYS_pidfd_send_signal, st->tree_fd[i], sig, NULL, 0);
}

/* After the root was reaped: the descendants still running get until the grace period's end to
 * exit after their SIGTERM, then SIGKILL, as the root would have (PMC_WINDOW_GRACE_NS); their
 * pidfds are closed. */
static void tree_finish(struct run_state *st)
{
	for (size_t i = 0; i < st->ntree; i++) {
		struct pollfd p = { .fd = st->tree_fd[i], .events = POLLIN };
		uint64_t now = pmc_now_ns();
		int left_ms = st->grace_ns > now ? (int)((st->grace_ns - now) / 1000000u) + 1 : 0;
		if (poll(&p, 1, left_ms) == 0)
			(void)syscall(SYS_pidfd_send_signal, st->tree_fd[i], SIGKILL, NULL, 0);
		close(st->tree_fd[i]);
	}
	free(st->tree_fd);
	st->tree_fd = NULL;
	st->ntree = 0;
}

/* The window's end (--duration elapsed): a last sample, the scheduler events and context switches
 * up to now, the counters; then the program is sent SIGTERM (run_loop sends SIGKILL after
 * PMC_WINDOW_GRACE_NS), or with --detach gets the CPUs it would have had back and runs on.
 * Returns 1 when run_loop is done (detached), 0 to wait for the root. */
static int close_window(struct run_state *st, uint64_t now)
{
	struct pmc_run_result *res = st->res;

	if (st->sampling) {
		writer_failed(res, st->w, pmc_sampler_sample(st->s, now));
		stop_sampling(st, 0);
	}
	st->window_closed = 1;
	st->end_ns = now;
	pmc_clock_pair_now(&st->clk[1]);
	res->window_end = PMC_WINDOW_DURATION;
	stop_sched(st->sched, res, st->w, st->run_id);
	st->sched = NULL;
	if (st->pswitch)
		writer_failed(res, st->w, pmc_pswitch_stop(st->pswitch, res->writer_err ? NULL : st->w,
							   &res->pswitch));
	st->pswitch = NULL;
	if ((st->counters || st->tcounters) && counters_read(st) == 0) {
		st->have_values = 1;
		/* the last snapshot, at the window's end: its quarters are covered to the end */
		if (!res->writer_err)
			writer_failed(res, st->w, write_snapshot(st, now));
	}
	if (st->cfg->nattach) {
		res->window_after = PMC_AFTER_LEFT;
		return 1;
	}
	if (st->cfg->detach) {
		if (st->cfg->cpus && st->cfg->child_default_cpus)
			set_tree_affinity(st->pid, st->cfg->child_default_cpus, 0);
		res->window_after = PMC_AFTER_DETACHED;
		return 1;
	}
	res->window_after = PMC_AFTER_TERMINATED;
	tree_collect(st, st->pid, 0);
	kill(st->pid, SIGTERM);
	tree_signal(st, SIGTERM);
	st->grace_ns = now + PMC_WINDOW_GRACE_NS;
	return 0;
}

/* One timer expiration: a sample, the scheduler events so far and the counters. */
static void take_sample(struct run_state *st)
{
	struct pmc_run_result *res = st->res;
	uint64_t exp = 0, now, due;
	int err, late;

	if (read(st->tfd, &exp, sizeof(exp)) != (ssize_t)sizeof(exp) || exp == 0)
		return;
	st->expirations += exp;
	if (exp > 1)
		res->lost_samples += exp - 1;
	now = pmc_now_ns();
	due = st->base_ns + st->expirations * st->interval_ns;
	late = now > due && now - due > st->interval_ns / 2;
	res->late_samples += (uint64_t)late;
	err = pmc_sampler_sample(st->s, now);
	if (st->omp)
		pmc_omp_probe(st->omp, (uint32_t)st->pid);
	if (err == 0 && st->sched) {
		err = pmc_sched_drain(st->sched, st->w);
		st->next_drain_ns = now + SCHED_DRAIN_NS;
	}
	if (err == 0 && st->pswitch)
		err = pmc_pswitch_drain(st->pswitch, st->w);
	/* the counters: the process tree's set at every sample (one read per event), a -p window's
	   threads' sets every snap_every-th (a read per thread per event) */
	if (err == 0 && (st->counters || st->tcounters) && ++st->timer_samples % st->snap_every == 0 &&
	    counters_read(st) == 0) {
		err = write_snapshot(st, now);
		st->have_values = 1;
	}
	if (err < 0)
		stop_sampling(st, err);
	else
		keep_interval(st, now, exp, late);
}

/* Samples on the timer and serves the signalfd until the root process is reaped; once sampling
 * has stopped (writer failed, timer not armed) it only waits for the root. */
static void run_loop(struct run_state *st)
{
	for (;;) {
		struct pollfd pfd[3 + PMC_ATTACH_MAX] = { { .fd = st->cfg->signal_fd, .events = POLLIN },
					 { .fd = st->omp && st->sampling ? pmc_omp_fd(st->omp) : -1,
					   .events = POLLIN },
					 { .fd = st->tfd, .events = POLLIN } };
		size_t npfd = 3 + st->cfg->nattach;
		int on = st->sampling && !st->window_closed;
		int timeout_ms = on ? housekeeping(st) : -1;
		uint64_t now = pmc_now_ns();
		uint64_t due_ns = st->window_closed ? st->grace_ns : st->window_end_ns;

		if (due_ns) {
			int to_due_ms = now >= due_ns ? 0 : (int)((due_ns - now) / 1000000u) + 1;
			if (timeout_ms < 0 || to_due_ms < timeout_ms)
				timeout_ms = to_due_ms;
		}
		for (size_t i = 0; i < st->cfg->nattach; i++)
			pfd[3 + i] = (struct pollfd){ .fd = st->pidfd[i], .events = POLLIN };
		if (!on) /* the signalfd alone, and the attached processes' ends */
			pfd[1].fd = pfd[2].fd = -1;
		if (poll(pfd, npfd, timeout_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((pfd[0].revents & POLLIN) && handle_signals(st))
			break;
		for (size_t i = 0; i < st->cfg->nattach; i++)
			if (st->pidfd[i] >= 0 && (pfd[3 + i].revents & (POLLIN | POLLHUP))) {
				close(st->pidfd[i]);
				st->pidfd[i] = -1;
				st->alive--;
			}
		now = pmc_now_ns();
		if (st->cfg->nattach && (st->alive == 0 || st->stop_signal)) {
			/* -p: every process ended (the window ends with them), or pmcollect was
			 * told to stop: the window ends now, the processes are left alone */
			if (st->stop_signal) {
				st->res->stop_signal = st->stop_signal;
				st->res->window_end = PMC_WINDOW_SIGNAL;
				(void)close_window(st, now);
				st->res->window_end = PMC_WINDOW_SIGNAL;
			}
			break;
		}
		if (!st->window_closed && st->window_end_ns && now >= st->window_end_ns) {
			if (close_window(st, now))
				break;
			continue;
		}
		if (st->window_closed) {
			if (st->grace_ns && now >= st->grace_ns) {
				/* SIGTERM was not enough within the grace period */
				kill(st->pid, SIGKILL);
				tree_signal(st, SIGKILL);
				st->res->window_after = PMC_AFTER_KILLED;
				st->grace_ns = 0;
			}
			continue;
		}
		if (st->sampling && (pfd[1].revents & (POLLIN | POLLHUP))) {
			int err = pmc_omp_drain(st->omp, st->w);
			if (err < 0)
				stop_sampling(st, err);
		}
		if (st->sampling && (pfd[2].revents & POLLIN))
			take_sample(st);
	}
}

/* After the root was reaped: the last exits, the scheduler events left, the final counter values,
 * the run's counts, and RUN_END. */
static void run_finish(struct run_state *st)
{
	struct pmc_run_result *res = st->res;
	struct pmc_sampler_stats ss;
	struct counted ev;
	char *json;

	if (st->armed) {
		uint64_t exp = 0;

		/* expirations the loop never read: the root was reaped first (a collector starved
		 * at the end of the run, or preempted between its last read and its last sample).
		 * They were not served: lost, as those a late read finds (RUN_END lost_samples) */
		if (st->sampling && st->tfd >= 0 && read(st->tfd, &exp, sizeof(exp)) == (ssize_t)sizeof(exp))
			res->lost_samples += exp;
		res->sampling_cpu_ns = cpu_now_ns() - st->cpu0_ns;
		if (!st->window_closed)
			st->end_ns = pmc_now_ns();
		if (!res->writer_err)
			writer_failed(res, st->w, pmc_sampler_finish(st->s, st->end_ns));
	} else if (!st->window_closed) {
		st->end_ns = pmc_now_ns();
	}
	/* the last energy reading, after the root was reaped: the run's energy is complete */
	energy_tick(st, st->end_ns, !res->writer_err);
	energy_check_advanced(st);
	if (!st->window_closed)
		pmc_clock_pair_now(&st->clk[1]);
	stop_sched(st->sched, res, st->w, st->run_id);
	if (st->pswitch)
		writer_failed(res, st->w, pmc_pswitch_stop(st->pswitch, res->writer_err ? NULL : st->w,
							   &res->pswitch));
	if (st->omp) {
		/* the tool's last batches (thread ends, finalize) were sent before the program ended */
		int err = 1;
		while (!res->writer_err && err > 0)
			err = pmc_omp_drain(st->omp, st->w);
		if (!res->writer_err && err == 0)
			err = pmc_omp_finish(st->omp, st->w, st->end_ns);
		writer_failed(res, st->w, err < 0 ? err : 0);
		res->omp_regions = pmc_omp_regions(st->omp, &res->omp_answered);
		snprintf(res->omp_reason, sizeof(res->omp_reason), "%s", pmc_omp_reason(st->omp));
	}
	/* the root is reaped: inherited counts of the whole tree are final (-p: every process
	   ended, or pmcollect was told to stop) */
	if (st->armed && !st->window_closed && (st->counters || st->tcounters) && counters_read(st) == 0) {
		st->have_values = 1;
		if (!res->writer_err) /* the last snapshot, at the end */
			writer_failed(res, st->w, write_snapshot(st, st->end_ns));
	}
	pmc_sampler_stats(st->s, &ss);
	res->samples = ss.samples;
	res->thread_samples = ss.thread_samples;
	res->warnings += ss.warnings;
	res->exit_status = WIFSIGNALED(st->root_status) ? 128 + WTERMSIG(st->root_status)
							: WEXITSTATUS(st->root_status);
	if (res->window_end == PMC_WINDOW_DURATION)
		res->exit_status = 0; /* the window ran its course; the program's end was pmcollect's */
	if (res->window_end != PMC_WINDOW_NONE)
		res->window_length_ns = st->end_ns - st->start_ns;
	if (res->interval_changes && st->cfg->warn) {
		char msg[300];
		snprintf(msg, sizeof(msg), "could not keep the %.2f ms interval: lengthened %u time%s, "
			 "the first at %.3f s, to %.2f ms (see the trace's warnings)", st->cfg->interval_ms,
			 res->interval_changes, res->interval_changes == 1 ? "" : "s",
			 res->interval_first_change_s, res->interval_final_ms);
		st->cfg->warn(msg);
	}
	counted_events(st, &ev);
	json = run_end_json(st->run_id, st->pid, 1, st->root_status, st->end_ns - st->start_ns,
			    st->clk, &st->root_ru, res, st->cfg, &ev,
			    st->have_values ? st->values : NULL,
			    ss.cpu_ns > st->cpu_ns0 ? ss.cpu_ns - st->cpu_ns0 : 0, st);
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
		.snap_every = 1,
		.sched = cfg->sched, .pswitch = cfg->pswitch, .go = { -1, -1 }, .report = { -1, -1 }, .tfd = -1, .pid = -1,
	};
	int rc;

	memset(res, 0, sizeof(*res));
	res->C_value = NAN;
	why[0] = '\0';
	for (size_t i = 0; i < PMC_ATTACH_MAX; i++)
		st.pidfd[i] = -1;
	rc = cfg->nattach ? attach_start(&st, why, whysize) : run_start(&st, why, whysize);
	if (rc == 0 && res->started && res->window_end != PMC_WINDOW_BEFORE) {
		run_loop(&st);
		tree_finish(&st);
		if (st.guard) /* before RUN_END, which says what it did */
			(void)pmc_guard_stop(st.guard, &res->guard);
		st.guard = NULL;
		run_finish(&st);
		if (!st.armed)
			rc = PMT_E_IO; /* the timer: why says so */
	}
	(void)pmc_guard_stop(st.guard, NULL);
	pmc_thread_counters_close(st.tcounters);
	free(st.values);
	free(st.values0);
	free(st.energy0_uj);
	free(st.energy_run_uj);
	pmc_sampler_free(st.s);
	pmc_omp_close(st.omp);
	pmc_mpi_close(st.mpi);
	for (int i = 0; i < 2; i++) {
		if (st.go[i] >= 0)
			close(st.go[i]);
		if (st.report[i] >= 0)
			close(st.report[i]);
	}
	if (st.tfd >= 0)
		close(st.tfd);
	for (size_t i = 0; i < PMC_ATTACH_MAX; i++)
		if (st.pidfd[i] >= 0)
			close(st.pidfd[i]);
	return rc;
}
