/* SPDX-License-Identifier: MIT */
/* setup.c: pmcollect's set-up before anything runs: the job context, the machine read once into
 * the session, the CPU sets the user named, the run plan (--calibrate, --runs, --sweep, -t LIST,
 * --interfere) and the interference calibration. Reports its errors (front end, cli.h). */
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
#include "session/bindings.h"
#include "session/mpitool.h"
#include "omp/omp.h"
#include "session/plan.h"
#include "sources/rank.h"
#include "pm_util.h"
#include "pmt.h"
#include "pm_cli.h"
#include "pm_opt.h"
#include "session/run.h"
#include "session/session.h"

#include "cli.h"
#include "session/sweep.h"

/* Parses the CPU list or expression text on the session's topology into *out, every CPU online
 * (pmc_cpus_parse); prints the error and returns -1. */
static int cpu_list(const struct pmc_session *ss, const char *text, struct pmc_cpus *out)
{
	char why[256];

	if (pmc_cpus_parse(ss->machine.topo, text, &ss->machine.online.list, out, why, sizeof(why)) < 0) {
		pm_cli_error("invalid CPU list '%s': %s", text, why);
		return -1;
	}
	return 0;
}

/* Pins pmcollect to the highest CPU it may use that the program does not, so a 1-CPU baseline keeps
 * its CPU to itself; without one, back to the start affinity. Returns the CPU or -1. */
static int pin_collector(const cpu_set_t *start, const cpu_set_t *prog, const struct pm_intlist *online)
{
	for (int cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--) {
		if (CPU_ISSET(cpu, start) && !CPU_ISSET(cpu, prog) && pmc_intlist_has(online, (uint32_t)cpu)) {
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (sched_setaffinity(0, sizeof(one), &one) == 0)
				return cpu;
			break;
		}
	}
	(void)sched_setaffinity(0, sizeof(*start), start);
	return -1;
}

/* --omp-regions: finds the tool and, with --omp-runtime, the runtime to preload. A missing tool
 * is not fatal: the program is recorded without regions and the trace says why (META
 * sources.omp_regions). */
static void omp_setup(const struct pmc_opts *o, struct pmc_session *ss)
{
	char why[1024];

	if (pmc_omp_find_tool(ss->openmp.omp.tool, sizeof(ss->openmp.omp.tool), why, sizeof(why)) < 0) {
		snprintf(ss->openmp.omp_why, sizeof(ss->openmp.omp_why), "%s", why);
		return;
	}
	if (!o->omp_runtime)
		return;
	if (strcmp(o->omp_runtime, "llvm") == 0) {
		if (pmc_omp_find_libomp(ss->openmp.omp.preload, sizeof(ss->openmp.omp.preload), why, sizeof(why)) < 0) {
			snprintf(ss->openmp.omp_why, sizeof(ss->openmp.omp_why), "%s", why);
			return;
		}
	} else if (!realpath(o->omp_runtime, ss->openmp.omp.preload)) {
		snprintf(ss->openmp.omp_why, sizeof(ss->openmp.omp_why), "--omp-runtime '%s': %s", o->omp_runtime,
			 strerror(errno));
		return;
	}
	{
		char msg[4200];
		snprintf(msg, sizeof(msg), "--omp-runtime: the program runs on %s instead of its own "
			 "OpenMP runtime (behaviour and timings may change)", ss->openmp.omp.preload);
		pmc_cli_warn(msg);
	}
}

/* What pmcollect may use, for messages: "CPUs 0 (affinity 0, cgroup cpuset 0-1, online 0-1)". */
static void usable_desc(const struct pmc_session *ss, char *buf, size_t size)
{
	int o = snprintf(buf, size, "CPUs %.400s (affinity %.400s", ss->machine.usable.text,
			 ss->machine.usable.affinity[0] ? ss->machine.usable.affinity : "unknown");
	if (o > 0 && (size_t)o < size && ss->machine.usable.cgroup_cpus[0])
		o += snprintf(buf + o, size - (size_t)o, ", cgroup cpuset %.400s", ss->machine.usable.cgroup_cpus);
	if (o > 0 && (size_t)o < size)
		snprintf(buf + o, size - (size_t)o, ", online %.400s)", ss->machine.online.text);
}

/* Errors out (usage, 2) when a CPU of l (given as text) is outside the CPUs pmcollect may use:
 * the program could not be pinned there. Returns 0 or -1 after reporting. */
static int check_usable(const char *text, const struct pm_intlist *l, const struct pmc_session *ss)
{
	char desc[2048];

	for (size_t i = 0; i < l->n; i++) {
		if (pmc_intlist_has(&ss->machine.usable.cpus, l->v[i]))
			continue;
		usable_desc(ss, desc, sizeof(desc));
		pm_cli_error("invalid CPU list '%s': CPU %u is not one pmcollect may use: %s", text,
			      l->v[i], desc);
		return -1;
	}
	return 0;
}

/* pin_collector for a run on the CPUs of ss->machine.prog_cpus (the cpulist prog), with a warning (once)
 * when a baseline run leaves no CPU for the collector outside them: the estimators read the
 * program's run-queue waits, and the collector's sampling would add to them (docs/model.md,
 * degraded-input case 3; FIELD-NOTES). Counted in SUMMARY "warnings". Returns the CPU or -1. */
int pmc_cli_pin_or_warn(struct pmc_session *ss, const char *prog, enum pmc_run_role role)
{
	struct pmc_machine *m = &ss->machine;
	int cpu = m->have_start_cpus ? pin_collector(&m->start_cpus, &m->prog_cpus, &m->online.list) : -1;
	char *msg, desc[2048];

	/* a rank the launcher bound: an SMT sibling of its binding, else its own CPUs without a
	 * warning per rank: the job report says what the sampling cost (bindings.h) */
	if (cpu < 0 && ss->job.in_job)
		return pmc_binding_pin(&m->prog_cpus, &m->online.list, &m->usable.cgroup);
	if (cpu >= 0 || role != PMC_ROLE_BASELINE || m->collector_shared)
		return cpu;
	m->collector_shared = 1;
	ss->book.total.warnings++;
	usable_desc(ss, desc, sizeof(desc));
	if (asprintf(&msg, "the collector shares the program's CPUs %.200s: pmcollect may use %.1800s, "
		     "none outside the program's, so its sampling takes CPU time from the program (give "
		     "pmcollect one CPU more than the program: taskset -c %.200s,N pmcollect --cpus "
		     "%.200s ...)", prog, desc, prog, prog) < 0)
		msg = NULL;
	pmc_cli_warn(msg ? msg : "the collector shares the program's CPUs");
	free(m->shared_msg);
	m->shared_msg = msg; /* written as a WARNING record before the next run (record.c) */
	return cpu;
}

/* --interfere-cpus, else hwloc's placement (Casas & Bronevetsky §2: CPUs sharing the program's
 * last-level cache that are not SMT siblings of its CPUs), into ss->ifr.isess. Returns -1 to go
 * on, or the exit status after reporting. */
static int interferer_cpus(const struct pmc_opts *o, struct pmc_session *ss)
{
	struct pmc_isess *is = &ss->ifr.isess;
	const struct pmc_machine *m = &ss->machine;
	char why[512];
	int n;

	if (o->interfere_cpus) {
		struct pmc_cpus ic;
		const struct pm_intlist *l = &ic.list;
		if (cpu_list(ss, o->interfere_cpus, &ic) < 0)
			return PMT_EXIT_USAGE;
		/* a thread's affinity may name any online CPU, even one outside pmcollect's own
		 * (taskset, a cgroup cpuset): refuse those, as --cpus does */
		if (check_usable(o->interfere_cpus, l, ss) < 0) {
			pmc_cpus_free(&ic);
			return PMT_EXIT_USAGE;
		}
		n = (int)l->n;
		for (size_t j = 0; j < l->n && n <= PMC_CAL_MAX_K; j++) {
			if (o->cpus && pmc_intlist_has(&m->cpus.list, l->v[j])) {
				pmc_cpus_free(&ic);
				pm_cli_error("--interfere-cpus %s overlaps --cpus %s: the interferers need "
					      "CPUs of their own", o->interfere_cpus, m->cpus.text);
				return PMT_EXIT_USAGE;
			}
			is->cpus[j] = (int)l->v[j];
		}
		pmc_cpus_free(&ic);
		if (n > PMC_CAL_MAX_K) {
			pm_cli_error("invalid --interfere-cpus '%s': at most %d CPUs", o->interfere_cpus,
				      PMC_CAL_MAX_K);
			return PMT_EXIT_USAGE;
		}
	} else {
		/* without --cpus the program's anchor is the first CPU pmcollect may use (the usable
		 * set is sorted) */
		struct pm_intlist anchor = { .v = m->usable.cpus.v, .n = 1 };
		if (m->usable.cpus.n < 2) {
			pm_cli_error("cannot place the interferers: pmcollect may use %s CPU (%s), and the "
				      "program and the interferers need CPUs of their own; give pmcollect more "
				      "CPUs, or choose the interferers' CPUs with --interfere-cpus",
				      m->usable.cpus.n ? "only one" : "no", m->usable.text);
			return PMT_EXIT_USAGE;
		}
		n = pmc_interfere_place(m->topo, o->cpus ? &m->cpus.list : &anchor, &m->usable.cpus,
					is->cpus, PMC_CAL_MAX_K, why, sizeof(why));
		if (n < 0) {
			pm_cli_error("cannot place the interferers: %s", why);
			return PMT_EXIT_USAGE;
		}
	}
	pmc_isess_set_ncpus(is, (size_t)n);
	return -1;
}

/* --interfere / --calibrate-interference: the interferers' CPUs (interferer_cpus), the program's
 * CPUs (--cpus, else the rest), the machine file (read unless it is to be measured now) and, with
 * --interfere, the levels (levels[0..*nlevels-1]) that pmc_plan_make plans the runs of. Returns
 * -1 to go on, or the exit status after reporting. */
static int plan_interference(const struct pmc_opts *o, struct pmc_session *ss, uint32_t *levels,
			     size_t *nlevels)
{
	struct pmc_isess *is = &ss->ifr.isess;
	struct pmc_cpus *prog = &ss->ifr.interfere_prog;
	char why[512];
	int ret;

	if (o->calibrate)
		return usage_error("--interfere and --calibrate-interference cannot be combined with "
				   "--calibrate or --runs");
	ret = interferer_cpus(o, ss);
	if (ret >= 0)
		return ret;
	/* the program's CPUs: --cpus, else what is left beside the interferers */
	if (o->cpus) {
		if (pmc_cpus_from_list(&ss->machine.cpus.list, prog) < 0) {
			pm_cli_error("%s", strerror(ENOMEM));
			return PMT_EXIT_FAILURE;
		}
	} else {
		struct pm_intlist left;
		int bad = pmc_interfere_program_cpus(ss->machine.topo, &ss->machine.usable.cpus, is->cpus,
						     is->ncpus, &left) == 0 || pmc_cpus_from_list(&left, prog) < 0;
		pm_intlist_free(&left);
		if (bad) {
			pm_cli_error("no CPU is left for the program beside the interferers' (%s): give "
				      "fewer with --interfere-cpus", is->cpus_text);
			return PMT_EXIT_USAGE;
		}
	}
	if (pmc_isess_csthr_size(is, ss->machine.topo, o->csthr_l2, why, sizeof(why)) < 0) {
		pm_cli_error("cannot use --csthr-l2 %u: %s", o->csthr_l2, why);
		return PMT_EXIT_USAGE;
	}
	/* the machine file */
	if (o->interference_file)
		snprintf(ss->ifr.interference_file, sizeof(ss->ifr.interference_file), "%s", o->interference_file);
	else if (pmc_interference_file_default(ss->ifr.interference_file, sizeof(ss->ifr.interference_file),
					       why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	if (!o->calibrate_interference) {
		if (pmc_isess_load_cal(is, ss->machine.topo, ss->ifr.interference_file, o->interfere_kind,
				       o->csthr_l2, why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return PMT_EXIT_USAGE;
		}
		ss->ifr.have_cal = 1;
		/* one machine file per host is shared by its users: say when another made it */
		if (pmc_cal_foreign(&is->cal, why, sizeof(why)))
			pm_cli_warning("machine file '%s': %s", ss->ifr.interference_file, why);
	}
	if (!o->interfere)
		return -1; /* the calibration alone: no runs */
	if (pmc_isess_levels(is, o->levels, o->interfere_kind,
			     ss->ifr.have_cal ? ss->ifr.interference_file : NULL, levels,
			     PMC_PLAN_MAX_RUNS, nlevels, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	is->kind = o->interfere_kind;
	return -1;
}

static uint64_t cal_start_ns; /* when pmc_cli_calibrate_interference started measuring */

/* pmc_cal_params.progress: the calibration's steps as [k/N] lines. */
static void cal_progress(void *arg, unsigned step, unsigned nsteps, const char *what)
{
	(void)arg;
	pmc_cli_progress(step, nsteps, cal_start_ns, "%s", what);
}

/* --calibrate-interference: measures the machine (Casas & Bronevetsky §3, interfere_cal.h) with
 * the probe on the program's first CPU and the interferers on theirs, prints the result on stderr
 * and writes the machine file. Returns -1 to go on, or the exit status after reporting. */
int pmc_cli_calibrate_interference(struct pmc_session *ss)
{
	struct pmc_isess *is = &ss->ifr.isess;
	struct pmc_interference_cal *cal = &is->cal;
	struct pmc_cal_params p;
	char why[512];
	int probe = -1;

	for (int c = 0; c < CPU_SETSIZE && probe < 0; c++)
		if (CPU_ISSET(c, &ss->machine.prog_cpus))
			probe = c;
	if (probe < 0) { /* calibration alone: the first CPU that is not an interferer's */
		for (size_t i = 0; i < ss->machine.online.list.n && probe < 0; i++) {
			int c = (int)ss->machine.online.list.v[i], mine = 0;
			for (size_t j = 0; j < is->ncpus; j++)
				mine |= is->cpus[j] == c;
			if (!mine && (!ss->machine.have_start_cpus || CPU_ISSET(c, &ss->machine.start_cpus)))
				probe = c;
		}
	}
	if (probe < 0) {
		pm_cli_error("no CPU is left for the calibration's probe beside the interferers' (%s): "
			      "give fewer with --interfere-cpus", is->cpus_text);
		return PMT_EXIT_USAGE;
	}
	pmc_cal_params_default(&p, probe, is->cpus, is->ncpus);
	p.csthr_bytes = is->csthr_bytes;
	pmc_cal_params_topology(&p, ss->machine.topo);
	cal_start_ns = pmc_now_ns();
	p.progress = cal_progress;
	if (!pmc_cli_quiet)
		fprintf(stderr, "pmcollect: calibrating interference: probe on CPU %d, interferers on "
			"CPUs %s (BW1, B, capacity left with 0..%zu CSThrs, orthogonality)\n", probe,
			is->cpus_text, is->ncpus);
	if (pmc_cal_run(ss->machine.topo, &p, cal, why, sizeof(why)) < 0) {
		pm_cli_error("calibration failed: %s", why);
		return PMT_EXIT_FAILURE;
	}
	ss->ifr.have_cal = 1;
	fprintf(stderr, "pmcollect: BW1 = %.2f GB/s (eq. 1 with %s), B = %.2f GB/s; capacity: %s method\n",
		cal->BW1_bytes_per_s / 1e9, cal->bw1_method == PMC_CAL_COUNTERS ? "counted LLC misses" :
		"misses = accesses", cal->B_bytes_per_s / 1e9,
		cal->method == PMC_CAL_TIMING ? "timing" : "counters");
	/* the same test as pmanalyze's interf-cal-disturbed B_taken at the top level: a B that the
	 * BWThrs take whole was measured while another process moved memory, which the load average
	 * does not show */
	if (!(cal->B_bytes_per_s - (double)is->ncpus * cal->BW1_bytes_per_s > 0))
		pm_cli_warning("the calibration looks disturbed: %zu BWThr%s of BW1 = %.2f GB/s take%s all "
			       "of B = %.2f GB/s, so another process was moving memory while it measured; "
			       "pmanalyze will not use this B (recalibrate on a quiet machine)", is->ncpus,
			       is->ncpus == 1 ? "" : "s", cal->BW1_bytes_per_s / 1e9, is->ncpus == 1 ? "s" : "",
			       cal->B_bytes_per_s / 1e9);
	if (cal->counters_why[0] && !pmc_cli_quiet)
		fprintf(stderr, "pmcollect: no LLC miss counters for the calibration: %s\n", cal->counters_why);
	for (size_t k = 0; k < cal->ncap; k++)
		fprintf(stderr, "pmcollect: capacity left with %zu CSThrs: %s%.1f MB (probe %.1f..%.1f ns "
			"per access)\n", k, cal->cap[k].valid ? "" : "not measurable, ",
			cal->cap[k].C_bytes / 1048576.0, cal->cap[k].t_l2_ns, cal->cap[k].t_dram_ns);
	fprintf(stderr, "pmcollect: BWThrs leaving the capacity unchanged (Fig. 11): %d\n", cal->orth_bwthrs);
	if (pmc_mkdir_parents(ss->ifr.interference_file, why, sizeof(why)) < 0 ||
	    pmc_cal_write(ss->ifr.interference_file, cal, why, sizeof(why)) < 0) {
		pm_cli_error("cannot write the machine file: %s", why);
		return PMT_EXIT_FAILURE;
	}
	if (!pmc_cli_quiet)
		fprintf(stderr, "pmcollect: machine file '%s' written\n", ss->ifr.interference_file);
	return -1;
}

/* The job context (docs/cluster.md): the rank from the launcher's variables, the
 * output name expanded from its template (into ss->job.output, o->output then points there), the
 * tracefs instance named after the rank, who takes the whole-node readings, and a warning when the
 * wrapped command is itself a launcher. Returns -1 to go on, or the exit status after reporting
 * (2: a variable that is not a number, a template that cannot be expanded). */
int pmc_cli_job_context(struct pmc_opts *o, struct pmc_session *ss)
{
	extern char **environ;
	char why[512], host[256];
	const char *launcher;

	if (pmc_rank_detect(environ, &ss->job.rank, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	ss->job.in_job = ss->job.rank.rank_var || ss->job.rank.local_rank_var || ss->job.rank.size_var ||
		     ss->job.rank.job_var;
	/* a rank whose local rank is unknown takes the readings too: better twice than never */
	ss->job.node_readings = !ss->job.in_job || ss->job.rank.local_rank <= 0;
	pmc_sched_set_rank(ss->job.rank.rank);
	if (strchr(o->output, '%')) {
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
		if (pmc_output_name(o->output, &ss->job.rank, host, (long)getpid(), ss->job.output,
				    sizeof(ss->job.output), why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return PMT_EXIT_USAGE;
		}
		ss->job.output_template = 1;
		o->output = ss->job.output;
	}
	launcher = o->argc > 0 && o->argv ? pmc_launcher_name(o->argv[0]) : NULL; /* none with --calibrate-interference alone */
	if (launcher) {
		char msg[512];
		snprintf(msg, sizeof(msg), "the command is the launcher '%s': this records the launcher, "
			 "not the ranks (put pmcollect inside it: %s ... pmcollect -o 'trace.%%r.zst' -- "
			 "./app)", launcher, launcher);
		pmc_cli_warn(msg);
	}
	return -1;
}

/* --user, or the user who ran `sudo pmcollect`. Returns -1 to go on, or the exit status after
 * reporting. */
static int plan_user(const struct pmc_opts *o, struct pmc_session *ss)
{
	const char *name = o->user, *su = getenv("SUDO_USER");
	char why[512];

	if (!name && geteuid() == 0 && su && *su && strcmp(su, "root") != 0)
		name = su;
	if (name && pmc_user_resolve(name, &ss->env.user, why, sizeof(why)) < 0) {
		pm_cli_error("invalid user '%s': %s", name, why);
		return PMT_EXIT_USAGE;
	}
	ss->env.have_user = name != NULL;
	return -1;
}

/* The CPU lists of --runs, parsed and checked once: each list of its value, then each plain list
 * after it, in order. */
struct runs_lists {
	struct pmc_cpus *c;
	struct pm_intlist *l; /* the lists of c, for pmc_plan_request.runs */
	size_t n;
};

static void runs_lists_free(struct runs_lists *rl)
{
	for (size_t i = 0; i < rl->n; i++)
		pmc_cpus_free(&rl->c[i]);
	free(rl->c);
	free(rl->l);
	memset(rl, 0, sizeof(*rl));
}

/* One run of --runs on the CPUs of text (a cpulist or CPU expression), parsed on the session's
 * topology and checked against the CPUs pmcollect may use. Returns 0 or -1 after reporting. */
static int add_run_list(struct pmc_session *ss, const char *text, struct runs_lists *rl)
{
	struct pmc_cpus *c = &rl->c[rl->n];

	if (cpu_list(ss, text, c) < 0)
		return -1;
	rl->n++;
	return check_usable(text, &c->list, ss);
}

/* Parses the lists of --runs into *rl (rl->l non-NULL even without one). Returns -1 to go on, or
 * the exit status after reporting. */
static int parse_runs_lists(const struct pmc_opts *o, struct pmc_session *ss, struct runs_lists *rl)
{
	char buf[4096], *save = NULL;
	size_t max = o->nruns_words + strlen(o->runs_value) / 2 + 1;

	rl->c = calloc(max, sizeof(*rl->c));
	rl->l = calloc(max, sizeof(*rl->l));
	if (!rl->c || !rl->l) {
		pm_cli_error("%s", strerror(ENOMEM));
		return PMT_EXIT_FAILURE;
	}
	snprintf(buf, sizeof(buf), "%s", o->runs_value);
	for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		if (add_run_list(ss, tok, rl) < 0)
			return PMT_EXIT_USAGE;
	for (size_t i = 0; i < o->nruns_words; i++)
		if (add_run_list(ss, o->runs_words[i], rl) < 0)
			return PMT_EXIT_USAGE;
	for (size_t i = 0; i < rl->n; i++)
		rl->l[i] = rl->c[i].list;
	return -1;
}

/* The run plan, made once by pmc_plan_make from the options and the machine (lists is --runs',
 * levels --interfere's), into ss->rplan; with --progress its decisions, one line each. Returns -1
 * to go on, or the exit status after reporting. */
static int make_plan(const struct pmc_opts *o, struct pmc_session *ss, const struct runs_lists *rl,
		     const uint32_t *levels, size_t nlevels)
{
	const struct pmc_machine *m = &ss->machine;
	struct pmc_plan_request rq = {
		.topo = m->topo, .usable = &m->usable.cpus, .usable_restricted = m->usable.restricted,
		.online_cpus = (uint32_t)m->online.list.n, .cpus = o->cpus ? &m->cpus : NULL,
		.threads = o->threads, .repeat = (uint32_t)o->repeat, .calibrate = o->calibrate,
		.adaptive = o->calibrate_adaptive, .omega_se = o->omega_se, .window_s = o->window_s,
		.budget_s = o->calibrate_budget_s, .runs = rl->l, .nruns = rl->n, .sweep = o->sweep,
		.argv = o->argv, .sweep_baseline = !o->no_baseline, .threads_list = o->threads_list,
		.interfere_calibration_only = o->calibrate_interference && !o->interfere,
		.interfere_prog = o->interfere ? &ss->ifr.interfere_prog : NULL,
		.levels = levels, .nlevels = nlevels,
	};
	char why[1024];

	switch (pmc_plan_make(&rq, &ss->rplan, why, sizeof(why))) {
	case 0:
		break;
	case PMC_PLAN_E_USAGE_LINE:
		return usage_error("%s", why);
	case PMC_PLAN_E_USAGE:
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	default:
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (ss->rplan.have_prog_cpus)
		ss->machine.prog_cpus = ss->rplan.prog_cpus; /* for pin_collector and META */
	if (o->calibrate)
		ss->book.cal_worst_se = NAN;
	for (size_t i = 0; i < ss->rplan.ndecisions && pmc_cli_show_progress(); i++)
		fprintf(stderr, "pmcollect: plan: %s: %s\n",
			pmc_plan_reason_name(ss->rplan.decisions[i].reason), ss->rplan.decisions[i].text);
	return -1;
}

/* The options that need the machine: --cpus, --interfere's CPUs and machine file, --runs' lists
 * (parsed once on the session's topology), then the run plan (make_plan). Returns -1 to go on, or
 * the exit status after reporting. */
static int plan_inputs(const struct pmc_opts *o, struct pmc_session *ss)
{
	struct runs_lists rl = { 0 };
	uint32_t levels[PMC_PLAN_MAX_RUNS];
	size_t nlevels = 0;
	int ret = -1;

	if (o->cpus) {
		/* every CPU must be online (and fit a cpu_set_t) */
		if (cpu_list(ss, o->cpus, &ss->machine.cpus) < 0 ||
		    check_usable(o->cpus, &ss->machine.cpus.list, ss) < 0)
			return PMT_EXIT_USAGE;
		ss->machine.prog_cpus = ss->machine.cpus.set;
	}
	if (o->interfere || o->calibrate_interference)
		ret = plan_interference(o, ss, levels, &nlevels);
	else if (o->calibrate && o->runs_value)
		ret = parse_runs_lists(o, ss, &rl);
	if (ret < 0)
		ret = make_plan(o, ss, &rl, levels, nlevels);
	runs_lists_free(&rl);
	return ret;
}

/* Checks the options against the machine and builds the run plan: the online CPUs (read once
 * here), --cpus, the runs (pmc_plan_make), --omp-regions, --mpi, the NUMA node mask, the user.
 * Returns -1 to go on, or the exit status after reporting. */
int pmc_cli_plan_runs(const struct pmc_opts *o, struct pmc_session *ss)
{
	char why[512];
	int ret;

	if (pmc_session_machine(ss, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_FAILURE;
	}
	if (o->calibrate_wake && !o->argv && !o->calibrate_interference)
		return -1; /* the wake-up cost alone: no runs */
	if (o->calibrate && o->cpus)
		return usage_error("--cpus cannot be combined with --calibrate or --runs (give the "
				   "runs' CPUs with --runs)");
	if (o->sweep && o->cpus) {
		pm_cli_error("--cpus cannot be combined with --sweep (give the core counts in SPEC: "
			      "cores=1,2,4)");
		return PMT_EXIT_USAGE;
	}
	ret = plan_inputs(o, ss);
	if (ret >= 0)
		return ret;
	if (o->omp_regions)
		omp_setup(o, ss);
	ss->mpi.mpi_on = pmc_mpi_decide(o->mpi, o->argc > 0 && o->argv ? o->argv[0] : NULL,
					ss->mpi.mpi_tool, sizeof(ss->mpi.mpi_tool), ss->mpi.mpi_why,
					sizeof(ss->mpi.mpi_why));
	if (ss->mpi.mpi_why[0])
		pm_cli_warning("--mpi: %s", ss->mpi.mpi_why);
	if (!ss->mpi.mpi_on && o->argc > 0 && o->argv && pmc_mpi_program_links_mpi(o->argv[0]))
		ss->mpi.mpi_off = ss->mpi.mpi_why[0] ? ss->mpi.mpi_why : "--no-mpi";
	if (o->mem_nodes) {
		if (numa_available() < 0) {
			pm_cli_error("cannot use --%s: NUMA is not available on this machine",
				      strcmp(o->mem_mode, "bind") == 0 ? "membind" : "interleave");
			return PMT_EXIT_USAGE;
		}
		ss->env.mem_mask = numa_parse_nodestring(o->mem_nodes);
		if (!ss->env.mem_mask) {
			pm_cli_error("invalid NUMA node list '%s'", o->mem_nodes);
			return PMT_EXIT_USAGE;
		}
	}
	/* an explicit --sched is a request, the default only a wish that falls back with a warning:
	 * the tracefs instance needs root */
	if (o->sched_mode == 1 && geteuid() != 0) {
		pm_cli_error("cannot record scheduler events (--sched): tracefs needs root (leave "
			     "--sched out to record without them; --perf-switch records context "
			     "switches without root)");
		return PMT_EXIT_USAGE;
	}
	return plan_user(o, ss);
}

/* --sweep quota=LIST: refuses --quota and --no-baseline beside it (pmanalyze predicts each quota
 * from the unlimited baseline's replay), warns once for each configuration whose quota is not
 * below its CPUs, and makes the transient cgroup whose limit each run writes (run.c). */
static int make_sweep_quota(const struct pmc_opts *o, struct pmc_session *ss)
{
	const struct pmc_sweep_plan *sw = &ss->rplan.sweep;
	char why[4096];

	if (o->quota) {
		pm_cli_error("--quota cannot be combined with a quota= sweep (each run has the sweep's)");
		return PMT_EXIT_USAGE;
	}
	if (o->no_baseline) {
		pm_cli_error("--no-baseline cannot be combined with a quota= sweep (the predictions replay "
			     "the unlimited baseline)");
		return PMT_EXIT_USAGE;
	}
	for (size_t i = 0; i < sw->nruns; i++) {
		const struct pmc_sweep_run *r = &sw->runs[i];
		size_t ncpus = r->cores ? r->cores : ss->machine.usable.cpus.n;
		if (!r->baseline && r->rep == 0 && r->quota_cpus >= (double)ncpus)
			pm_cli_warning("--sweep quota=%g: not below the run's CPUs (%zu): throttled only "
				       "where the kernel's per-CPU slices of the quota run out (short "
				       "periods)", r->quota_cpus, ncpus);
	}
	if (pmc_cgquota_make(pmc_sysfs_root(), &ss->machine.quota, why, sizeof(why)) < 0) {
		pm_cli_error("--sweep quota=: %s", why);
		return PMT_EXIT_FAILURE;
	}
	return -1;
}

int pmc_cli_make_quota(const struct pmc_opts *o, struct pmc_session *ss)
{
	size_t ncpus = o->cpus ? ss->machine.cpus.list.n : ss->machine.usable.cpus.n;
	char why[4096];

	const struct pmc_sweep_plan *sw = &ss->rplan.sweep;

	if (sw->has_quota)
		return make_sweep_quota(o, ss);
	if (!o->quota)
		return -1;
	if (o->quota_us >= (double)ncpus * o->quota_period_us)
		pm_cli_warning("--quota %s: not below the program's CPUs (%zu): throttled only where the "
			       "kernel's per-CPU slices of the quota run out (short periods)", o->quota,
			       ncpus);
	if (pmc_cgquota_make(pmc_sysfs_root(), &ss->machine.quota, why, sizeof(why)) < 0 ||
	    pmc_cgquota_set(&ss->machine.quota, o->quota_us, o->quota_period_us, why, sizeof(why)) < 0) {
		pm_cli_error("--quota: %s", why);
		return PMT_EXIT_FAILURE;
	}
	return -1;
}

void pmc_cli_remove_quota(struct pmc_session *ss)
{
	char why[4096];

	if (pmc_cgquota_remove(&ss->machine.quota, why, sizeof(why)) < 0)
		pm_cli_warning("--quota: %s", why);
}
