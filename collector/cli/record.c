/* SPDX-License-Identifier: MIT */
/* record.c: pmcollect's recording: the trace file, signals, the data sources and META, the runs
 * of the plan one by one, SUMMARY and the end of the trace. Reports its errors (front end, cli.h). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <math.h>
#include <numa.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/counters.h"
#include "sources/cpuset.h"
#include "sources/energy.h"
#include "interfere/interfere.h"
#include "interfere/interfere_cal.h"
#include "interfere/interfere_session.h"
#include "sources/meta.h"
#include "sources/netlink.h"
#include "omp/omp.h"
#include "session/plan.h"
#include "sources/perfswitch.h"
#include "sources/rank.h"
#include "sources/warning.h"
#include "pm_util.h"
#include "pmt.h"
#include "pm_cli.h"
#include "pm_opt.h"
#include "session/run.h"
#include "session/session.h"

#include "cli.h"
#include "session/sweep.h"
#include "sources/wakecost.h"

#define STAT_EVERY 16   /* stat costs ~4x a schedstat read: refresh 1/16 of threads per sample */
#define STATUS_EVERY 64 /* status costs ~10x: 1/64 per sample */
#define NETLINK_RCVBUF_BYTES (8 << 20) /* room for a burst of system-wide exits between samples */

/* SUMMARY "calibration" of --calibrate (formats/FORMAT.md §6 SUMMARY): the rounds run,
 * why they ended, omega's worst standard error then, and the rule (null for --repeat K alone). */
static void add_calibration(cJSON *o, const struct pmc_session *ss)
{
	cJSON *c = cJSON_AddObjectToObject(o, "calibration");

	if (!c)
		return;
	cJSON_AddNumberToObject(c, "runs", (double)ss->book.nruns_done);
	cJSON_AddNumberToObject(c, "rounds", ss->book.cal_rounds);
	cJSON_AddNumberToObject(c, "runs_per_round", (double)ss->rplan.cal_points);
	cJSON_AddStringToObject(c, "stop", pmc_calstop_reason_name(ss->book.cal_stop));
	if (isfinite(ss->book.cal_worst_se)) {
		cJSON_AddNumberToObject(c, "omega_se", ss->book.cal_worst_se);
		cJSON_AddNumberToObject(c, "omega_se_cpus", ss->book.cal_worst_cpus);
	} else {
		cJSON_AddNullToObject(c, "omega_se");
		cJSON_AddNullToObject(c, "omega_se_cpus");
	}
	if (ss->rplan.calstop_on) {
		cJSON_AddNumberToObject(c, "omega_se_target", ss->rplan.calstop.omega_se_target);
		cJSON_AddNumberToObject(c, "budget_s", (double)ss->rplan.calstop.budget_ns / 1e9);
		cJSON_AddNumberToObject(c, "min_rounds", ss->rplan.calstop.min_rounds);
		cJSON_AddNumberToObject(c, "max_rounds", ss->rplan.calstop.max_rounds);
	} else {
		cJSON_AddNullToObject(c, "omega_se_target");
		cJSON_AddNullToObject(c, "budget_s");
	}
}

/* SUMMARY "sources" (FORMAT.md §6 SUMMARY): the final state of a source META called recorded
 * when it was opened but that no run recorded. Today the energy source: opened, but no run's
 * counters advanced (a perf power PMU reading 0) or a reading failed:
 * {"energy": {"recorded": false, "reason": the first such run's RUN_END energy_reason}}. No key
 * when every source META named recorded kept its word, or no run started. */
static void add_final_sources(cJSON *o, const struct pmc_session *ss)
{
	cJSON *srcs, *e;

	if (!ss->src.energy || ss->book.total.energy_recorded || !ss->book.total.energy_reason[0])
		return;
	if ((srcs = cJSON_AddObjectToObject(o, "sources")) &&
	    (e = cJSON_AddObjectToObject(srcs, "energy"))) {
		cJSON_AddBoolToObject(e, "recorded", 0);
		cJSON_AddStringToObject(e, "reason", ss->book.total.energy_reason);
	}
}

static char *summary_json(const struct pmc_session *ss, int runs, int exit_status)
{
	const struct pmc_run_result *r = &ss->book.total;
	cJSON *o = cJSON_CreateObject();
	struct rusage ru;
	char *text;
	double cpu_ns = 0;

	if (!o)
		return NULL;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu_ns = ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
			 ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
	cJSON_AddNumberToObject(o, "samples", (double)r->samples);
	cJSON_AddNumberToObject(o, "thread_samples", (double)r->thread_samples);
	cJSON_AddNumberToObject(o, "late_samples", (double)r->late_samples);
	cJSON_AddNumberToObject(o, "lost_samples", (double)r->lost_samples);
	cJSON_AddNumberToObject(o, "collector_cpu_ns", cpu_ns);
	/* collector_cpu_ns includes start-up (hwloc topology, PAPI); this is the sampling alone */
	cJSON_AddNumberToObject(o, "sampling_cpu_ns", (double)r->sampling_cpu_ns);
	cJSON_AddNumberToObject(o, "exit_status", exit_status);
	cJSON_AddNumberToObject(o, "runs", runs);
	cJSON_AddNumberToObject(o, "warnings", r->warnings);
	if (ss->rplan.cal_points)
		add_calibration(o, ss);
	add_final_sources(o, ss);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* Creates the trace file 0644 (never writable by others) and its missing directories (0755),
 * refusing to replace an existing file unless force. Returns the descriptor (*created = 1 when this call made the file, so only then
 * may a failure remove it) or -1 after reporting the error. */
int pmc_cli_create_output(const char *path, int force, int *created)
{
	struct stat st;
	int fd;

	if (force && lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
		/* replace rather than truncate or follow: another link to the old file keeps its
		 * contents, and a symlink cannot redirect the trace */
		if (unlink(path) < 0) {
			pm_cli_error("cannot remove '%s': %s", path, strerror(errno));
			return -1;
		}
	}
	if (force && lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		/* /dev/null and the like: write to it as it is, and never remove it */
		fd = open(path, O_WRONLY | O_CLOEXEC);
	} else {
		char why[4096 + 128];

		/* -o's missing directories are made, as --help says (and as for a % template) */
		if (pmc_mkdir_parents(path, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return -1;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		*created = fd >= 0;
	}
	if (fd < 0) {
		/* --force replaces a file, never a directory: "use --force" would not help there */
		if (errno == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			pm_cli_error("'%s' is a directory (give the trace a file name, e.g. -o '%s/trace.zst')",
				     path, path);
		else if (errno == EEXIST)
			pm_cli_error("'%s' already exists (use --force to overwrite it)", path);
		else
			pm_cli_error("cannot create '%s': %s", path, strerror(errno));
	}
	return fd;
}

/* Creates the trace of an expanded -o template (collector/sources/rank.h): missing directories made
 * (another rank making one at the same moment is fine), the file with O_EXCL; with force an
 * existing regular file or link is replaced first. Returns the descriptor or -1 after reporting. */
int pmc_cli_create_rank_output(const char *path, int force)
{
	struct stat st;
	char why[4096 + 128];
	int fd;

	if (force && lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
	    unlink(path) < 0) {
		pm_cli_error("cannot remove '%s': %s", path, strerror(errno));
		return -1;
	}
	fd = pmc_output_create(path, why, sizeof(why));
	if (fd < 0)
		pm_cli_error("%s", why);
	return fd;
}

/* The per-thread region counters of --omp-regions (ss->openmp.omp.events): --omp-events, else the cycles
 * and LLC-miss events of pmcollect's own counters when they opened (what Allande's eq. 2 needs,
 * and few enough to sit beside the process counters without multiplexing); else none, and why. */
static void omp_events(const struct pmc_opts *o, struct pmc_session *ss, const char *papi_why)
{
	size_t len = 0;

	ss->openmp.omp.events[0] = 0;
	if (o->omp_events && !strcmp(o->omp_events, "none")) {
		snprintf(ss->openmp.omp.events_why, sizeof(ss->openmp.omp.events_why), "--omp-events none");
	} else if (o->omp_events) {
		snprintf(ss->openmp.omp.events, sizeof(ss->openmp.omp.events), "%s", o->omp_events); /* checked: fits */
	} else if (!ss->src.counters) {
		snprintf(ss->openmp.omp.events_why, sizeof(ss->openmp.omp.events_why), "hardware counters unavailable: %s",
			 papi_why);
	} else {
		for (uint32_t i = 0; i < pmc_counters_count(ss->src.counters); i++) {
			const char *name = pmc_counters_name(ss->src.counters, i);
			int kind = pmc_counter_kind(name);
			if (kind != PMC_KIND_CYCLES && kind != PMC_KIND_LLC_MISSES)
				continue;
			len += (size_t)snprintf(ss->openmp.omp.events + len, sizeof(ss->openmp.omp.events) - len, "%s%s",
						len ? "," : "", name);
		}
		if (!len)
			snprintf(ss->openmp.omp.events_why, sizeof(ss->openmp.omp.events_why), "pmcollect's counters (-e) "
				 "have no cycles or LLC-miss event; name them with --omp-events");
	}
}

/* Signals: SIGCHLD and the forwarded ones arrive through a signalfd. A signal that was ignored
 * when pmcollect started (nohup, a background job of a non-interactive shell) stays ignored for
 * pmcollect and the program alike. Also becomes child subreaper and raises RLIMIT_NOFILE.
 * Returns 0, or -1 after reporting. */
int pmc_cli_setup_signals(const struct pmc_opts *o, struct pmc_session *ss)
{
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	struct rlimit nofile;
	sigset_t block;
	char why[256];

	sigprocmask(SIG_SETMASK, NULL, &ss->signals.orig_mask);
	sigemptyset(&block);
	sigemptyset(&ss->signals.forward);
	sigaddset(&block, SIGCHLD);
	for (size_t i = 0; i < PM_ARRAY_SIZE(fwd); i++) {
		if (sigaction(fwd[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(&block, fwd[i]);
		sigaddset(&ss->signals.forward, fwd[i]);
	}
	ss->signals.sigpipe_ignored = sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
	ss->signals.sigxfsz_ignored = sigaction(SIGXFSZ, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
	/* a full pipe or a file-size limit must come back as a write error (EPIPE, EFBIG) that
	 * the writer reports, not kill pmcollect in the middle of a chunk */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	/* an inherited SIGCHLD ignore would make the kernel reap the program before wait4() */
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_BLOCK, &block, NULL);
	ss->signals.sig_fd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ss->signals.sig_fd < 0) {
		pm_cli_error("cannot create a signalfd: %s", strerror(errno));
		return -1;
	}
	/* before becoming subreaper: the watchdog must not end up as pmcollect's child */
	if (o->sched_mode != 0 && geteuid() == 0)
		(void)pmc_sched_watchdog(why, sizeof(why));
	/* double-forked daemons are reparented to pmcollect instead of init, so they stay in the
	 * followed tree and are reaped here */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		pmc_cli_warn("cannot become child subreaper: orphaned processes will not be followed");
	/* one descriptor per thread file is kept open: use all the descriptors we may have */
	if (getrlimit(RLIMIT_NOFILE, &ss->signals.nofile_orig) == 0) {
		nofile = ss->signals.nofile_orig;
		nofile.rlim_cur = nofile.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &nofile);
	}
	if (sched_getaffinity(0, sizeof(ss->machine.start_cpus), &ss->machine.start_cpus) == 0)
		ss->machine.have_start_cpus = 1;
	return 0;
}

/* META sources.omp_regions (FORMAT.md §6, 1.2). */
static void omp_source(cJSON *meta, const struct pmc_session *ss)
{
	cJSON *src = cJSON_GetObjectItemCaseSensitive(meta, "sources");
	cJSON *e = src ? cJSON_AddObjectToObject(src, "omp_regions") : NULL;

	if (!e)
		return;
	cJSON_AddBoolToObject(e, "recorded", !ss->openmp.omp_why[0]);
	if (ss->openmp.omp_why[0]) {
		cJSON_AddStringToObject(e, "reason", ss->openmp.omp_why);
		return;
	}
	cJSON_AddStringToObject(e, "tool", ss->openmp.omp.tool);
	cJSON_AddStringToObject(e, "runtime", ss->openmp.omp.preload[0] ? "llvm-preload" : "program");
	if (ss->openmp.omp.preload[0])
		cJSON_AddStringToObject(e, "preload", ss->openmp.omp.preload);
}

/* META "labels": {"KEY": "VALUE", ...} from -l (the last of a repeated key wins). Returns 0 or
 * PMT_E_NOMEM. */
static int add_labels(cJSON *meta, const struct pmc_opts *o)
{
	cJSON *l = cJSON_AddObjectToObject(meta, "labels");

	for (size_t i = 0; l && i < o->nlabels; i++) {
		char key[65];
		const char *eq = strchr(o->labels[i], '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - o->labels[i]), o->labels[i]);
		cJSON_DeleteItemFromObjectCaseSensitive(l, key);
		if (!cJSON_AddStringToObject(l, key, eq + 1))
			return PMT_E_NOMEM;
	}
	return l ? 0 : PMT_E_NOMEM;
}

/* META of the session (pmc_meta_build): the command, the CPU sets, the job, the topology and
 * the clocks now, into *meta. Returns 0, or a negative code with the reason in why. */
static int build_meta(const struct pmc_opts *o, const struct pmc_session *ss, cJSON **meta, char *why,
		      size_t whysize)
{
	struct pmc_clock_pair start;
	struct pmc_meta_input mi = {
		.argc = o->argc,
		.argv = o->argv,
		.interval_ms = o->interval_ms,
		.cpus = o->cpus ? ss->machine.cpus.text : ss->rplan.interfering ? ss->rplan.plan.runs[0].cpus
					  : ss->machine.usable.restricted ? ss->machine.usable.text : NULL,
		.usable_cpus = ss->machine.usable.text,
		.cgroup_cpus = ss->machine.usable.cgroup_cpus[0] ? ss->machine.usable.cgroup_cpus : NULL,
		.cgroup_file = ss->machine.usable.cgroup_file,
		.online = &ss->machine.online,
		.collector_cpu = ss->machine.collector_cpu,
		.mem_mode = o->mem_mode,
		.mem_nodes = o->mem_nodes,
		.start_mono_ns = pmc_now_ns(),
		.clocks = &start,
		.rank = ss->job.in_job ? &ss->job.rank : NULL,
		.node_readings = ss->job.node_readings,
		.affinity = ss->machine.have_start_cpus ? &ss->machine.start_cpus : NULL,
		.topo = ss->machine.topo,
		/* a quota sweep's limits are each run's (RUN_BEGIN quota), not the trace's */
		.quota = ss->machine.quota.made && !ss->rplan.sweep.has_quota ? &ss->machine.quota : NULL,
	};
	pmc_clock_pair_now(&start);
	return pmc_meta_build(&mi, meta, why, whysize);
}

/* The tracefs scheduler events (schedtrace.h) into ss->src.sched, or why not in src (sched_why
 * holds it): off with --no-sched, a warning when the default cannot have them. Returns 0, or -1
 * after reporting when --sched asked for them and they cannot be had. */
static int open_sched(const struct pmc_opts *o, struct pmc_session *ss, struct pmc_meta_sources *src,
		      char *sched_why, size_t whysize)
{
	if (o->sched_mode == 0) {
		src->sched_why = "turned off with --no-sched";
	} else if (pmc_sched_open(&ss->src.sched, o->sched_buffer_kb, &ss->machine.online.list, sched_why,
				  whysize) < 0 && o->sched_mode == 1) {
		/* asked for with --sched: not recording them would not be what was asked */
		pm_cli_error("cannot record scheduler events (--sched): %s", sched_why);
		return -1;
	} else if (!ss->src.sched) {
		char msg[600];
		snprintf(msg, sizeof(msg), "scheduler events not recorded: %s", sched_why);
		pmc_cli_warn(msg);
		src->sched_why = sched_why;
	} else {
		src->sched_events = pmc_sched_event_names();
	}
	return 0;
}

/* Package energy (energy.h) into s->energy, or why not in s->energy_why and src: only the process
 * that takes the node's readings (node_readings) opens it. */
static void open_energy(struct pmc_sources *s, int node_readings, struct pmc_meta_sources *src)
{
	if (!node_readings) {
		/* package energy is the whole node's: one reading per node (docs/cluster.md) */
		snprintf(s->energy_why, sizeof(s->energy_why), "taken by local rank 0 of this node "
			 "(package energy covers every rank on it)");
		s->energy = NULL;
		src->energy_why = s->energy_why;
	} else if (pmc_energy_open(&s->energy, s->energy_why, sizeof(s->energy_why)) < 0) {
		s->energy = NULL;
		src->energy_why = s->energy_why;
	} else {
		src->energy = s->energy;
	}
}

/* Opens the trace writer on t->out_fd with META meta_text (freed here) and puts META on disk.
 * Returns 0, or -1 after reporting. */
static int open_writer(const struct pmc_opts *o, struct pmc_trace_out *t, char *meta_text)
{
	int err;

	err = pmt_writer_open(&t->w, t->out_fd, meta_text, NULL);
	free(meta_text);
	if (err < 0) {
		/* pmt_writer_open leaves errno of a PMT_E_IO failure in errno */
		pm_cli_error("cannot write '%s': %s", o->output,
			      err == PMT_E_IO ? strerror(errno) : pmt_strerror(err));
		t->w = NULL;
		return -1;
	}
	t->started_writer = 1;
	/* META on disk at once: a rank killed before its first one-second flush (a launcher
	 * aborting the job while 64 collectors start) still leaves a trace that says which rank it
	 * was, instead of an empty file */
	err = pmt_writer_flush(t->w);
	if (err < 0) {
		t->writer_err = err;
		t->writer_errno = pmt_writer_errno(t->w);
	}
	return 0;
}

/* Opens the data sources (counters, proc connector, taskstats, scheduler events), describes the
 * machine and them in META and starts the trace. Returns 0, or -1 after reporting. */
int pmc_cli_open_sources(const struct pmc_opts *o, struct pmc_session *ss)
{
	char papi_why[512] = "", pc_why[512] = "", ts_why[512] = "", sched_why[512] = "";
	char why[512], *meta_text;
	struct pmc_meta_sources src = {
		.stat_every = STAT_EVERY, .status_every = STATUS_EVERY,
		.sched_buffer_kb = o->sched_buffer_kb,
	};
	cJSON *meta;
	int err;

	if (pmc_counters_open(&ss->src.counters, o->events, papi_why, sizeof(papi_why)) < 0) {
		char msg[600];
		snprintf(msg, sizeof(msg), "hardware counters unavailable: %s", papi_why);
		pmc_cli_warn(msg);
		ss->src.counters = NULL;
		src.papi_why = papi_why;
	}
	if (o->omp_regions)
		omp_events(o, ss, papi_why);
	ss->src.pc_fd = pmc_procconn_open(NETLINK_RCVBUF_BYTES, pc_why, sizeof(pc_why));
	src.procconn_why = ss->src.pc_fd < 0 ? pc_why : NULL;
	ss->src.ts_fd = pmc_taskstats_open(ss->machine.online.text, NETLINK_RCVBUF_BYTES, &ss->src.ts_family, ts_why,
				       sizeof(ts_why));
	src.taskstats_why = ss->src.ts_fd < 0 ? ts_why : NULL;
	/* pin pmcollect to a CPU the program does not use, so a 1-CPU baseline keeps its CPU to
	 * itself (the runs of a plan pin again, each for its own CPUs) */
	if (o->cpus || ss->rplan.interfering || (!o->calibrate && ss->machine.usable.restricted))
		ss->machine.collector_cpu = pmc_cli_pin_or_warn(ss, ss->rplan.plan.runs[0].cpus, ss->rplan.plan.runs[0].role);
	err = build_meta(o, ss, &meta, why, sizeof(why));
	if (err < 0) {
		pm_cli_error("cannot describe the machine: %s", why);
		return -1;
	}
	if (open_sched(o, ss, &src, sched_why, sizeof(sched_why)) < 0) {
		cJSON_Delete(meta);
		return -1;
	}
	if (pmc_pswitch_session(&ss->src.pswitch, o->pswitch_mode, ss->src.sched != NULL, o->sched_mode == 0,
				&ss->machine.online.list, ss->src.pswitch_why, sizeof(ss->src.pswitch_why)) < 0) {
		char msg[600];
		snprintf(msg, sizeof(msg), "context switches not recorded: %s", ss->src.pswitch_why);
		pmc_cli_warn(msg);
	}
	if (ss->ifr.have_cal) {
		cJSON *ic = pmc_cal_to_json(&ss->ifr.isess.cal);
		if (ic)
			cJSON_AddStringToObject(ic, "machine_file", ss->ifr.interference_file);
		if (!ic || !cJSON_AddItemToObject(meta, "interference", ic)) {
			cJSON_Delete(ic);
			cJSON_Delete(meta);
			pm_cli_error("cannot describe the machine: %s", strerror(ENOMEM));
			return -1;
		}
	}
	open_energy(&ss->src, ss->job.node_readings, &src);
	err = add_labels(meta, o);
	if (err == 0 && (o->calibrate || o->calibrate_wake || o->quota_us > 0 ||
			 (o->sweep && ss->rplan.sweep.has_quota))) {
		/* the machine's wake-up cost, for the replay's wake edges (wakecost.h); the
		 * predictions of a run under --quota or a quota sweep need it too: the per-CPU
		 * runtime slices of CFS bandwidth control are replayed in the per-core replay, which
		 * runs with wake-up costs */
		struct pmc_wakecost wc;
		char line[600];
		if (pmc_wakecost_meta(meta, ss->machine.topo, &ss->machine.usable.cpus, &wc, why, sizeof(why)) < 0) {
			snprintf(line, sizeof(line), "wake-up cost not measured: %s", why);
			pmc_cli_warn(line);
		} else if (!pmc_cli_quiet) {
			pmc_wakecost_describe(&wc, line, sizeof(line));
			fprintf(stderr, "pmcollect: wake-up cost (futex ping-pong, one way): %s\n", line);
		}
	}
	if (err == 0)
		err = pmc_meta_add_sources(meta, &src, why, sizeof(why));
	if (err == 0 && o->omp_regions)
		omp_source(meta, ss);
	if (err == 0)
		pmc_meta_source(meta, "perf_switch", ss->src.pswitch != NULL,
				ss->src.pswitch ? NULL : ss->src.pswitch_why);
	meta_text = err < 0 ? NULL : cJSON_PrintUnformatted(meta);
	cJSON_Delete(meta);
	if (!meta_text) {
		pm_cli_error("cannot describe the machine: %s", strerror(ENOMEM));
		return -1;
	}
	return open_writer(o, &ss->trace, meta_text);
}

/* RUN_BEGIN "threads" of a run: its OMP_NUM_THREADS override (-t, one count of a -t list). */
static int run_threads(const struct pmc_opts *o, const struct pmc_plan_run *run)
{
	for (size_t i = 0; i < run->nenv; i++)
		if (strcmp(run->env[i].name, "OMP_NUM_THREADS") == 0)
			return atoi(run->env[i].value);
	return o->threads;
}

/* The configuration of one run of the plan for pmc_run_once: the run's CPUs (ss->machine.prog_cpus must
 * hold them), role and environment, and what the session opened. */
static struct pmc_run_config run_config(const struct pmc_opts *o, struct pmc_session *ss,
					const struct pmc_plan_run *run)
{
	struct pmc_run_config cfg = {
		.argv = o->argv,
		.cpus = run->cpus[0] ? &ss->machine.prog_cpus : NULL,
		.child_default_cpus = ss->machine.have_start_cpus ? &ss->machine.start_cpus : NULL,
		.cpus_text = run->cpus[0] ? run->cpus : NULL,
		.online = &ss->machine.online.set,
		.collector_cpu = ss->machine.collector_cpu,
		.threads = run_threads(o, run),
		.env = run->env,
		.nenv = run->nenv,
		.mem_mode = o->mem_mode,
		.mem_nodes = o->mem_nodes,
		.mem_mask = ss->env.mem_mask,
		.interval_ms = o->interval_ms,
		.stat_every = STAT_EVERY,
		.status_every = STATUS_EVERY,
		.counters = ss->src.counters,
		.procconn_fd = ss->src.pc_fd,
		.taskstats_fd = ss->src.ts_fd,
		.taskstats_family = ss->src.ts_family,
		.signal_fd = ss->signals.sig_fd,
		.forward = &ss->signals.forward,
		.child_sigmask = &ss->signals.orig_mask,
		.child_sigpipe_ignored = ss->signals.sigpipe_ignored,
		.child_sigxfsz_ignored = ss->signals.sigxfsz_ignored,
		.child_nofile = &ss->signals.nofile_orig,
		.user = ss->env.have_user ? &ss->env.user : NULL,
		.role = pmc_role_name(run->role),
		.plan_run = run,
		.warn = pmc_cli_warn,
		.sched = ss->src.sched,
		.pswitch = ss->src.pswitch,
		.omp = o->omp_regions && !ss->openmp.omp_why[0] ? &ss->openmp.omp : NULL,
		.mpi_tool = ss->mpi.mpi_on ? ss->mpi.mpi_tool : NULL,
		.mpi_off = ss->mpi.mpi_off,
		.energy = ss->src.energy,
		.energy_why = ss->src.energy_why,
		.user_hz = sysconf(_SC_CLK_TCK),
		.annotate = ss->rplan.interfering ? pmc_isess_annotate : NULL,
		.annotate_arg = &ss->ifr.isess,
		.delay_ns = (uint64_t)(o->delay_s * 1e9 + 0.5),
		.duration_ns = (uint64_t)((o->window_s > 0 ? o->window_s : o->duration_s) * 1e9 + 0.5),
		.detach = o->detach,
		.attach = o->npids ? o->pids : NULL,
		.nattach = o->npids,
		.quota = ss->machine.quota.made ? &ss->machine.quota : NULL,
		.quota_us = o->quota_us,
		.quota_period_us = o->quota_period_us,
	};
	if (ss->rplan.sweep.has_quota) { /* --sweep quota=: the run's own, the baseline unlimited */
		cfg.quota = run->sweep_quota_cpus > 0 ? cfg.quota : NULL;
		cfg.quota_us = run->sweep_quota_cpus * run->sweep_quota_period_us;
		cfg.quota_period_us = run->sweep_quota_period_us;
	}
	return cfg;
}

/* A forwarded signal (SIGINT, SIGTERM, SIGHUP) waiting in the signalfd: pmcollect was told to stop
 * between two runs of a plan. Returns the signal or 0. */
static int stop_pending(const struct pmc_session *ss)
{
	sigset_t pend;

	if (sigpending(&pend) < 0)
		return 0;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&ss->signals.forward, sig) == 1 && sigismember(&pend, sig) == 1)
			return sig;
	return 0;
}

/* --calibrate after `rounds` complete rounds of C[] (run i of the plan at C[i]) that took
 * elapsed_ns: omega's worst standard error so far into ss (none for windows, --window), and with
 * an adaptive calibration the rule of calstop.h. Returns 1 when the rounds end here (ss->book.cal_stop says why), else 0. */
static int calibration_round(struct pmc_session *ss, const double *C, uint32_t rounds,
			     uint64_t elapsed_ns)
{
	size_t p;

	ss->book.cal_rounds = rounds;
	if (ss->rplan.plan.n && ss->rplan.plan.runs[0].reason == PMC_PLAN_WHY_CAL_WINDOW)
		return 0; /* windows: their CPU time is no C(n), so no omega (docs/model.md "Windows") */
	ss->book.cal_worst_se = pmc_calstop_worst_se(C, rounds, ss->rplan.cal_points, ss->rplan.cal_one, &p);
	ss->book.cal_worst_cpus = p < ss->rplan.cal_points ? ss->rplan.plan.runs[p].ncpus : 0;
	if (!ss->rplan.calstop_on)
		return 0;
	ss->book.cal_stop = pmc_calstop_decide(&ss->rplan.calstop, rounds, elapsed_ns, ss->book.cal_worst_se);
	return ss->book.cal_stop != PMC_CALSTOP_CONTINUE;
}

/* The calibration's last word: why its rounds ended into ss->book.cal_stop (a run that failed or a
 * signal: "failed"; --repeat K alone: "repeat") and one line on stderr unless -q:
 * "pmcollect: calibration: 10 runs (5 rounds of 2) in 12.3 s, stopped: target (omega's standard
 * error 0.043 at 2 CPUs, target 0.05)". */
static void calibration_report(const struct pmc_opts *o, struct pmc_session *ss, int ret,
			       uint64_t elapsed_ns)
{
	char se[96], target[48] = "";

	if (ret != 0 || ss->trace.writer_err || ss->book.nruns_done != (size_t)ss->book.cal_rounds * ss->rplan.cal_points)
		ss->book.cal_stop = PMC_CALSTOP_FAILED;
	else if (!ss->rplan.calstop_on)
		ss->book.cal_stop = PMC_CALSTOP_REPEAT;
	if (pmc_cli_quiet)
		return;
	if (isfinite(ss->book.cal_worst_se))
		snprintf(se, sizeof(se), "omega's standard error %.3g at %u CPUs", ss->book.cal_worst_se,
			 ss->book.cal_worst_cpus);
	else
		snprintf(se, sizeof(se), "omega's standard error unknown");
	if (ss->rplan.calstop_on)
		snprintf(target, sizeof(target), ", target %g", o->omega_se);
	fprintf(stderr, "pmcollect: calibration: %zu run%s (%u round%s of %zu) in %.1f s, stopped: %s "
		"(%s%s)\n", ss->book.nruns_done, ss->book.nruns_done == 1 ? "" : "s", ss->book.cal_rounds,
		ss->book.cal_rounds == 1 ? "" : "s", ss->rplan.cal_points, (double)elapsed_ns / 1e9,
		pmc_calstop_reason_name(ss->book.cal_stop), se, target);
}

/* Adds one run's counts to the session's totals for SUMMARY; its energy outcome too: SUMMARY
 * "sources" has energy recorded when any run's counter advanced, else the first run's reason. */
static void add_run_totals(struct pmc_session *ss, const struct pmc_run_result *res)
{
	ss->book.total.samples += res->samples;
	ss->book.total.thread_samples += res->thread_samples;
	ss->book.total.late_samples += res->late_samples;
	ss->book.total.lost_samples += res->lost_samples;
	ss->book.total.sampling_cpu_ns += res->sampling_cpu_ns;
	ss->book.total.warnings += res->warnings;
	if (res->started && (res->energy_recorded || !ss->book.total.energy_reason[0])) {
		ss->book.total.energy_recorded |= res->energy_recorded;
		snprintf(ss->book.total.energy_reason, sizeof(ss->book.total.energy_reason), "%s",
			 res->energy_reason);
	}
}

/* Says why the plan stopped after run i (0-based) of nruns: the run's role and CPUs, and the
 * program's status (exit status, 127: not started, 128+N: signal N). With the calibration's
 * stopping rule nruns is only the most runs the rounds may take, so the run is named within its
 * round instead. */
static void run_failed(const struct pmc_opts *o, const struct pmc_session *ss,
		       const struct pmc_plan_run *run, size_t i, size_t nruns, int status)
{
	const char *what = o->sweep ? "sweep" : ss->rplan.interfering ? "interference measurement" : "calibration";
	char st[64];

	if (status > 128)
		snprintf(st, sizeof(st), "was killed by signal %d", status - 128);
	else if (status == 127)
		snprintf(st, sizeof(st), "could not be started");
	else
		snprintf(st, sizeof(st), "exited with status %d", status);
	if (o->calibrate && !o->sweep)
		pm_cli_error("%s stopped: run %zu (%s on CPUs %s, round %zu) %s", what,
			     ss->rplan.cal_points ? i % ss->rplan.cal_points + 1 : i + 1, pmc_role_name(run->role),
			     run->cpus, ss->rplan.cal_points ? i / ss->rplan.cal_points + 1 : 1, st);
	else
		pm_cli_error("%s stopped: run %zu of %zu %s", what, i + 1, nruns, st);
}

/* Before run i of nruns of the plan: pmcollect's CPU beside the run's (runs on CPUs of their own,
 * `many` in pmc_cli_collect), --calibrate's [k/N] line, and the WARNING record of a warning
 * pmc_cli_pin_or_warn just gave (FORMAT.md §5). */
static void before_run(const struct pmc_opts *o, struct pmc_session *ss, const struct pmc_plan_run *run,
		       size_t i, size_t nruns, uint64_t plan_start_ns)
{
	const struct pmc_run_plan *rp = &ss->rplan;
	struct pmc_machine *m = &ss->machine;

	if ((o->calibrate || o->sweep || o->threads_list) && run->cpus[0]) {
		m->prog_cpus = run->set;
		m->collector_cpu = pmc_cli_pin_or_warn(ss, run->cpus, run->role);
	} else if (o->calibrate || o->sweep || o->threads_list) {
		/* the program on every CPU: pmcollect back on its start affinity */
		if (m->have_start_cpus)
			(void)sched_setaffinity(0, sizeof(m->start_cpus), &m->start_cpus);
		m->collector_cpu = -1;
	}
	if (o->calibrate && rp->calstop_on) /* [k/n]: the run within its round */
		pmc_cli_progress(i % rp->cal_points + 1, rp->cal_points, plan_start_ns,
				 "%s, CPUs %s, round %zu of at most %u", pmc_role_name(run->role),
				 run->cpus, i / rp->cal_points + 1, rp->calstop.max_rounds);
	else if (o->calibrate)
		pmc_cli_progress(i + 1, nruns, plan_start_ns, "%s, CPUs %s", pmc_role_name(run->role),
				 run->cpus);
	if (m->shared_msg) {
		(void)pmc_warning_write(ss->trace.w, (uint32_t)i, pmc_now_ns(), PMC_WARN_COLLECTOR_SHARED,
					m->shared_msg);
		free(m->shared_msg);
		m->shared_msg = NULL;
	}
}

/* pmcollect's exit status after a run: pmc_run_once's result once (reason in why) and *res,
 * reported on stderr when it is not the program's own. */
static int run_status(const struct pmc_opts *o, int once, const struct pmc_run_result *res,
		      const char *why)
{
	if (once < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (!res->started) {
		pm_cli_error("%s", res->error);
		return 127;
	}
	if (res->window_end == PMC_WINDOW_BEFORE) {
		pm_cli_error("the program ended %.3f s after it started, before --delay %g s: "
			     "nothing was recorded", (double)res->window_offset_ns / 1e9, o->delay_s);
		return PMC_EXIT_NO_WINDOW;
	}
	return res->exit_status;
}

/* --omp-regions: warns when a run that started recorded no region, and why. */
static void omp_regions_warn(const struct pmc_session *ss, const struct pmc_run_result *res)
{
	char msg[1200];

	if (ss->openmp.omp_why[0])
		snprintf(msg, sizeof(msg), "no OpenMP regions recorded: %s", ss->openmp.omp_why);
	else if (!res->omp_answered)
		snprintf(msg, sizeof(msg), "no OpenMP regions recorded: %s", res->omp_reason);
	if (ss->openmp.omp_why[0] || !res->omp_answered)
		pmc_cli_warn(msg);
}

/* After a run: keeps the writer's first failure in *t, else, when another run follows (more),
 * flushes the finished run to disk before the next starts: runs shorter than the once-a-second
 * flush would otherwise all wait for the end of the plan. */
static void after_run_flush(struct pmc_trace_out *t, const struct pmc_run_result *res, int more)
{
	if (res->writer_err) {
		t->writer_err = res->writer_err;
		t->writer_errno = res->writer_errno;
	} else if (more) {
		int err = pmt_writer_flush(t->w);
		if (err < 0) {
			t->writer_err = err;
			t->writer_errno = errno;
		}
	}
}

/* Records every run of the plan (or of --sweep), in order; stops after a run that failed (a
 * calibration of a failing program measures the failure), when the trace cannot grow, or when
 * SIGINT/SIGTERM/SIGHUP came (the runs recorded so far stay in the trace). Returns what
 * pmcollect exits with so far: the last run's status (the program's, 127 when it could not
 * start, 128+N after signal N), or 1. */
int pmc_cli_collect(const struct pmc_opts *o, struct pmc_session *ss)
{
	struct pmc_plan *plan = &ss->rplan.plan;
	size_t nruns = o->sweep ? ss->rplan.sweep.nruns : plan->n;
	uint64_t plan_start_ns = pmc_now_ns();
	/* no runs: the interference calibration alone */
	int ret = nruns ? PMT_EXIT_FAILURE : PMT_EXIT_OK,
	    many = o->calibrate || o->sweep || o->threads_list; /* runs on CPUs of their own */
	char why[512];
	double cal_C[PMC_PLAN_MAX_RUNS]; /* --calibrate: C of run i (RUN_END "C" "value") */

	for (size_t i = 0; i < nruns; i++) {
		struct pmc_plan_run sweep_tmp;
		const struct pmc_plan_run *run = o->sweep ? &sweep_tmp : &plan->runs[i];
		struct pmc_run_result res;
		char **argv = NULL, line[160];
		uint64_t t0;
		int once, sig = i ? stop_pending(ss) : 0;
		if (sig) {
			pm_cli_error("stopped by signal %d after %zu of %zu runs", sig, i, nruns);
			ret = 128 + sig;
			break;
		}
		if (o->sweep) {
			if (pmc_plan_sweep_run(&ss->rplan.sweep, i, ss->rplan.compact, ss->rplan.ncompact,
					       (uint32_t)ss->machine.online.list.n,
					       (uint32_t)(o->threads > 0 ? o->threads : 0), &sweep_tmp) < 0) {
				pm_cli_error("run %zu of %zu: too many CPUs for one CPU list", i + 1, nruns);
				break;
			}
			argv = pmc_sweep_argv(o->argv, ss->rplan.sweep.runs[i].threads);
			if (!argv) {
				pm_cli_error("%s", strerror(ENOMEM));
				break;
			}
		}
		if (o->threads_list)
			pmc_cli_progress(i + 1, nruns, plan_start_ns, "%d threads", run_threads(o, run));
		if (ss->rplan.interfering) {
			if (pmc_isess_start(&ss->ifr.isess, run->level_k, why, sizeof(why)) < 0) {
				pm_cli_error("cannot start the interferers: %s", why);
				ret = PMT_EXIT_FAILURE;
				break;
			}
			pmc_cli_progress(i + 1, nruns, plan_start_ns, "interference: %u %s on CPUs %s, program on "
				 "CPUs %s, round %u", run->level_k,
				 ss->ifr.isess.kind == PMC_CSTHR ? "CSThr" : "BWThr",
				 run->level_k ? ss->ifr.isess.cpus_text : "-", run->cpus, run->rep + 1);
		}
		before_run(o, ss, run, i, nruns, plan_start_ns);
		struct pmc_run_config cfg = run_config(o, ss, run);
		if (argv) {
			cfg.argv = argv;
			if (run->nenv)
				cfg.threads = atoi(run->env[0].value);
		}
		t0 = pmc_now_ns();
		once = pmc_run_once(ss->trace.w, (uint32_t)i, &cfg, &res, why, sizeof(why));
		if (ss->rplan.interfering)
			pmc_isess_stop(&ss->ifr.isess); /* also after SIGINT: the runs so far stay recorded */
		ret = run_status(o, once, &res, why);
		pmc_sweep_argv_free(argv);
		if (o->sweep && pmc_cli_show_progress())
			fprintf(stderr, "pmcollect: %s\n", pmc_sweep_progress(&ss->rplan.sweep, i,
					(double)(pmc_now_ns() - t0) / 1e9, line, sizeof(line)));
		ss->book.nruns_done = i + 1;
		/* a program that ended before --delay was over left no run in the trace */
		ss->book.nruns_started += res.started != 0 && res.window_end != PMC_WINDOW_BEFORE;
		if (o->omp_regions && res.started)
			omp_regions_warn(ss, &res);
		if (ret != 0 && i + 1 < nruns)
			run_failed(o, ss, run, i, nruns, ret);
		add_run_totals(ss, &res);
		after_run_flush(&ss->trace, &res, i + 1 < nruns);
		if (ret != 0 || ss->trace.writer_err)
			break;
		if (res.stop_signal && i + 1 < nruns) { /* -p: the signal ended a window of the plan */
			pm_cli_error("stopped by signal %d after %zu of %zu runs", res.stop_signal, i + 1, nruns);
			ret = 128 + res.stop_signal;
			break;
		}
		if (o->calibrate && ss->rplan.cal_points) {
			cal_C[i] = res.C_value;
			if ((i + 1) % ss->rplan.cal_points == 0 &&
			    calibration_round(ss, cal_C, (uint32_t)((i + 1) / ss->rplan.cal_points),
					      pmc_now_ns() - plan_start_ns))
				break;
		}
	}
	if (o->calibrate && ss->rplan.cal_points)
		calibration_report(o, ss, ret, pmc_now_ns() - plan_start_ns);
	if ((many || ss->rplan.interfering) && pmc_cli_show_progress())
		fprintf(stderr, "pmcollect: %zu run%s done in %.1f s\n", ss->book.nruns_done,
			ss->book.nruns_done == 1 ? "" : "s", (double)(pmc_now_ns() - plan_start_ns) / 1e9);
	return ret;
}

/* Appends SUMMARY (the runs' totals and pmcollect's exit status) and flushes; a failure is kept
 * in ss->trace.writer_err for finish_trace. */
void pmc_cli_write_summary(struct pmc_session *ss, int exit_status)
{
	char *json;
	int err;

	if (ss->trace.writer_err)
		return;
	json = summary_json(ss, (int)ss->book.nruns_done, exit_status);
	err = json ? pmt_writer_json(ss->trace.w, PMT_REC_SUMMARY, 0, pmc_now_ns(), json) : PMT_E_NOMEM;
	free(json);
	if (err == 0)
		err = pmt_writer_flush(ss->trace.w);
	if (err < 0) {
		ss->trace.writer_err = err;
		ss->trace.writer_errno = pmt_writer_errno(ss->trace.w);
	}
}

/* Ends the trace file: the writer's last flush, then close(2). A trace that could not be
 * finished is always reported, once, whatever the program's status was: pmcollect then exits 1.
 * Removes the file when set-up failed before the trace began (and only a file it made).
 * Returns the exit status. */
int pmc_cli_finish_trace(const struct pmc_opts *o, struct pmc_session *ss, int ret)
{
	if (ss->trace.w) {
		/* flush first: pmt_writer_errno() is gone once the writer is freed */
		int err = pmt_writer_flush(ss->trace.w);
		if (err < 0 && !ss->trace.writer_err) {
			ss->trace.writer_err = err;
			ss->trace.writer_errno = pmt_writer_errno(ss->trace.w);
		}
		(void)pmt_writer_close(ss->trace.w);
		ss->trace.w = NULL;
	}
	if (ss->trace.out_fd >= 0 && close(ss->trace.out_fd) < 0 && ss->trace.started_writer && !ss->trace.writer_err) {
		ss->trace.writer_err = PMT_E_IO;
		ss->trace.writer_errno = errno;
	}
	ss->trace.out_fd = -1;
	if (ss->trace.writer_err) {
		/* the program ran to its end regardless; the trace holds every complete chunk */
		pm_cli_error("cannot write '%s': %s", o->output,
			      ss->trace.writer_err == PMT_E_IO ? strerror(ss->trace.writer_errno)
							 : pmt_strerror(ss->trace.writer_err));
		ret = PMT_EXIT_FAILURE;
	}
	/* nothing was recorded (set-up failed before the trace began, or the program could not
	 * be started, so the trace holds no run of it): remove the file we made, and only that,
	 * so that the corrected command needs no -f */
	if (ss->trace.created_output && (!ss->trace.started_writer || (ss->book.nruns_done && !ss->book.nruns_started)))
		unlink(o->output);
	return ret;
}
