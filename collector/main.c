/* SPDX-License-Identifier: MIT */
/* main.c: pmcollect's command line: runs a program and records its run-queue activity (a trace). */
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

#include "counters.h"
#include "meta.h"
#include "netlink.h"
#include "plan.h"
#include "pm_util.h"
#include "pmt.h"
#include "pmt_cli.h"
#include "run.h"
#include "sweep.h"

#define DEFAULT_OUTPUT "pmtrace.zst"
#define STAT_EVERY 16   /* stat costs ~4x a schedstat read: refresh 1/16 of threads per sample */
#define STATUS_EVERY 64 /* status costs ~10x: 1/64 per sample */
#define NETLINK_RCVBUF_BYTES (8 << 20) /* room for a burst of system-wide exits between samples */
#define CALIBRATE_REPEAT 3 /* --calibrate without --repeat: runs per core count (issue 13) */
#define REPEAT_MAX 1000

static const char usage_line[] = "usage: pmcollect [options] [--] <command> [<args>...]";

static void usage(FILE *f)
{
	fprintf(f,
		"%s\n"
		"\n"
		"Runs <command> and records the run-queue activity of its threads (from /proc) and\n"
		"hardware-counter snapshots into a pmtrace file for pmanalyze.\n"
		"\n"
		"  -o, --output=FILE       trace file to create [default: " DEFAULT_OUTPUT "]\n"
		"  -f, --force             overwrite FILE if it exists\n"
		"  -i, --interval=MS       sampling interval in milliseconds, 0.1 to 10000 [default: 10]\n"
		"  -C, --cpus=LIST         run the program on these online CPUs (cpulist: 0 or 0-3,8)\n"
		"                          [default: every CPU pmcollect may use]\n"
		"  -t, --threads=M         set OMP_NUM_THREADS=M in the program's environment\n"
		"      --membind=NODES     allocate the program's memory only on these NUMA nodes\n"
		"      --interleave=NODES  interleave the program's memory over these NUMA nodes\n"
		"  -e, --events=LIST       hardware counters to record, comma-separated PAPI event names\n"
		"                          [default: cycles, instructions, stall cycles, LLC misses]\n"
		"      --sched             record scheduler events from a private tracefs instance\n"
		"                          (exact mode of pmanalyze) [default: on when tracefs is usable]\n"
		"      --no-sched          do not record scheduler events\n"
		"      --sched-buffer-kb=KB  tracefs ring buffer per CPU, KiB [default: 4096]\n"
		"      --calibrate         run the program several times into one trace: the baseline\n"
		"                          (1 CPU) and the core counts of the memory model (all cores\n"
		"                          of a socket; with several sockets also one more core)\n"
		"      --runs=LISTS        the runs' CPU lists instead, e.g. --runs 0 0-7 0-8\n"
		"      --sweep=SPEC        run the program once per configuration of SPEC:\n"
		"                          cores=1,2,4 (CPUs chosen compactly), threads=1-16\n"
		"                          (OMP_NUM_THREADS and {threads} in the command), or both\n"
		"                          as cores=1,2;threads=1-16; a baseline run (1 CPU) first\n"
		"      --repeat=K          run each configuration of --sweep or --calibrate K times,\n"
		"                          interleaved [default: 1 for --sweep and --runs, 3 for\n"
		"                          --calibrate]\n"
		"      --no-baseline       --sweep without the baseline run\n"
		"  -u, --user=NAME         run the program as user NAME (pmcollect keeps root)\n"
		"                          [default as root under sudo: SUDO_USER]\n"
		"  -q, --quiet             do not print warnings\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Baseline run of the Tudor & Teo model (more threads than CPUs):\n"
		"  pmcollect --cpus 0 -t 8 -- ./app\n"
		"Baseline and memory-contention calibration in one trace:\n"
		"  pmcollect --calibrate -t 8 -- ./app\n"
		"Scaling sweep, 3 repetitions per core count:\n"
		"  pmcollect --sweep cores=1,2,4,8 --repeat 3 -t 8 -- ./app\n"
		"  pmcollect --sweep 'threads=1-8' -- pigz -k -f -p {threads} big.tar\n",
		usage_line);
}

/* An error in the command line itself: one error line, the usage line, status 2. */
#define usage_error(...) pmt_cli_usage_error(usage_line, __VA_ARGS__)

static int quiet;

static void warn_user(const char *msg)
{
	if (!quiet)
		pmt_cli_warning("%s", msg);
}

/* Parses a decimal number that must fill the whole string. */
static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* The online CPUs (/sys/devices/system/cpu/online), else 0..nprocs-1. */
static int online_cpus(struct pmt_intlist *out)
{
	char buf[4096], why[128];
	ssize_t n = -1;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n > 0) {
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
			n--;
		buf[n] = '\0';
		if (pmt_intlist_parse(buf, 0, UINT32_MAX - 1, out, why, sizeof(why)) == 0)
			return 0;
	}
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(buf, sizeof(buf), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
		return pmt_intlist_parse(buf, 0, UINT32_MAX - 1, out, why, sizeof(why));
	}
}

/* A word of --runs: digits, '-' and ',' only (a command never looks like that). */
static int is_cpulist_word(const char *s)
{
	return s && *s && *s != '-' && strspn(s, "0123456789-,") == strlen(s);
}

static int in_list(const struct pmt_intlist *l, uint32_t v)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return 1;
	return 0;
}

/* Parses the cpulist text into set and l, every CPU online; prints the error and returns -1. */
static int cpu_list(const char *text, const struct pmt_intlist *online, const char *online_text,
		    cpu_set_t *set, struct pmt_intlist *l)
{
	char why[256];

	if (pmt_intlist_parse(text, 0, UINT32_MAX - 1, l, why, sizeof(why)) < 0) {
		pmt_cli_error("invalid CPU list '%s': %s", text, why);
		return -1;
	}
	CPU_ZERO(set);
	for (size_t i = 0; i < l->n; i++) {
		if (!in_list(online, l->v[i]) || l->v[i] >= CPU_SETSIZE) {
			pmt_cli_error("invalid CPU list '%s': CPU %u is not online (online: %s)", text,
				      l->v[i], online_text);
			return -1;
		}
		CPU_SET(l->v[i], set);
	}
	return 0;
}

/* Pins pmcollect to the highest CPU it may use that the program does not, so a 1-CPU baseline keeps
 * its CPU to itself; without one, back to the start affinity. Returns the CPU or -1. */
static int pin_collector(const cpu_set_t *start, const cpu_set_t *prog, const struct pmt_intlist *online)
{
	for (int cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--) {
		if (CPU_ISSET(cpu, start) && !CPU_ISSET(cpu, prog) && in_list(online, (uint32_t)cpu)) {
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

/* The online CPUs pmcollect may run on (its affinity) as a cpulist. Returns 0 or -1. */
static int allowed_cpus(const struct pmt_intlist *online, char *buf, size_t size)
{
	cpu_set_t aff;
	size_t o = 0;

	if (sched_getaffinity(0, sizeof(aff), &aff) < 0)
		return -1;
	buf[0] = '\0';
	for (size_t i = 0; i < online->n && o < size; i++)
		if (online->v[i] < CPU_SETSIZE && CPU_ISSET(online->v[i], &aff))
			o += (size_t)snprintf(buf + o, size - o, "%s%u", o ? "," : "", online->v[i]);
	return o && o < size ? 0 : -1;
}

static char *summary_json(const struct pmc_run_result *r, int runs, int exit_status)
{
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
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* Looks up user name (or a numeric uid) for --user: uid, primary gid, supplementary groups,
 * home (getpwnam(3), getgrouplist(3)). Switching to another user needs root (CAP_SETUID): a
 * non-root pmcollect may only name itself. Returns 0, or -1 with a reason in why. */
static int resolve_user(const char *name, struct pmc_user *u, char *why, size_t whysize)
{
	struct passwd *pw;
	gid_t *groups = NULL;
	int n = 32;
	char *end;
	unsigned long id;

	errno = 0;
	pw = getpwnam(name);
	if (!pw) {
		id = strtoul(name, &end, 10);
		if (*name && !*end && id <= UINT32_MAX)
			pw = getpwuid((uid_t)id);
	}
	if (!pw) {
		snprintf(why, whysize, "%s", errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (geteuid() != 0 && pw->pw_uid != geteuid()) {
		snprintf(why, whysize, "running the program as another user needs root");
		return -1;
	}
	for (;;) {
		gid_t *g = realloc(groups, (size_t)n * sizeof(*g));
		int want = n;
		if (!g) {
			free(groups);
			snprintf(why, whysize, "%s", strerror(ENOMEM));
			return -1;
		}
		groups = g;
		if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &want) >= 0) {
			n = want;
			break;
		}
		if (want <= n || want > 65536) {
			free(groups);
			snprintf(why, whysize, "cannot list its groups");
			return -1;
		}
		n = want;
	}
	u->name = strdup(pw->pw_name);
	u->home = pw->pw_dir ? strdup(pw->pw_dir) : NULL;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->groups = groups;
	u->ngroups = n;
	if (!u->name) {
		snprintf(why, whysize, "%s", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

static void user_free(struct pmc_user *u)
{
	free(u->name);
	free(u->home);
	free(u->groups);
	memset(u, 0, sizeof(*u));
}

/* Creates the trace file 0644 (never writable by others), refusing to replace an existing one
 * unless force. Returns the descriptor (*created = 1 when this call made the file, so only then
 * may a failure remove it) or -1 after reporting the error. */
static int create_output(const char *path, int force, int *created)
{
	struct stat st;
	int fd;

	if (force && lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
		/* replace rather than truncate or follow: another link to the old file keeps its
		 * contents, and a symlink cannot redirect the trace */
		if (unlink(path) < 0) {
			pmt_cli_error("cannot remove '%s': %s", path, strerror(errno));
			return -1;
		}
	}
	if (force && lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		/* /dev/null and the like: write to it as it is, and never remove it */
		fd = open(path, O_WRONLY | O_CLOEXEC);
	} else {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		*created = fd >= 0;
	}
	if (fd < 0) {
		if (errno == EEXIST)
			pmt_cli_error("'%s' already exists (use --force to overwrite it)", path);
		else
			pmt_cli_error("cannot create '%s': %s", path, strerror(errno));
	}
	return fd;
}

/* The command line, parsed (parse_options). */
struct pmc_opts {
	const char *output;
	int force;
	double interval_ms;
	const char *cpus;           /* --cpus text, NULL = every CPU */
	int threads;                /* -t, 0 = not given */
	const char *mem_mode;       /* "default", "bind" (--membind) or "interleave" */
	const char *mem_nodes;      /* their node list, NULL for default */
	const char *events;         /* -e, NULL = the default counters */
	int sched_mode;             /* -1 default (when usable), 0 --no-sched, 1 --sched */
	unsigned sched_buffer_kb;
	int calibrate;              /* --calibrate or --runs */
	struct pmc_plan runs;       /* the --runs lists (roles not yet decided) */
	const char *sweep;          /* --sweep SPEC, NULL = no sweep */
	long repeat;                /* --repeat K, 0 = not given */
	int no_baseline;            /* --no-baseline */
	const char *user;           /* -u, NULL = SUDO_USER under sudo */
	char **argv;                /* the command, NULL-terminated */
	int argc;
};

/* What pmcollect sets up and holds while it records; session_close releases it all. */
struct session {
	struct pmt_intlist online;  /* /sys/devices/system/cpu/online, read once */
	char online_text[4096];
	struct pmt_intlist cpus;    /* --cpus */
	cpu_set_t prog_cpus;        /* the CPUs of the current run */
	char cpus_text[4096];
	struct pmc_plan plan;
	struct pmc_user user;
	int have_user;
	struct bitmask *mem_mask;
	int out_fd, created_output, started_writer;
	struct pmt_writer *w;
	int writer_err, writer_errno; /* the first writer failure, reported once */
	/* signals (setup_signals) */
	int sig_fd;
	sigset_t forward, orig_mask;
	int sigpipe_ignored, sigxfsz_ignored;
	struct rlimit nofile_orig;
	cpu_set_t start_cpus;
	int have_start_cpus;
	int collector_cpu;
	/* data sources (open_sources) */
	struct pmc_counters *counters;
	struct pmc_sched *sched;
	int pc_fd, ts_fd;
	uint16_t ts_family;
	/* the runs' totals for SUMMARY */
	struct pmc_run_result total;
	size_t nruns_done;
	/* --sweep: its plan, and the allowed CPUs in compact order (the first k for k cores) */
	struct pmc_sweep_plan sweep;
	uint32_t *compact;
	size_t ncompact;
};

/* Parses the command line into o (getopt_long with a leading '+': the command's own options are
 * left alone). Returns -1 to go on, or the exit status: 0 after --help / --version, 2 after a
 * usage error (reported). */
static int parse_options(int argc, char **argv, struct pmc_opts *o)
{
	enum { OPT_MEMBIND = 256, OPT_INTERLEAVE, OPT_SCHED, OPT_NO_SCHED, OPT_SCHED_BUFFER,
	       OPT_CALIBRATE, OPT_RUNS, OPT_SWEEP, OPT_REPEAT, OPT_NO_BASELINE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "interval", required_argument, NULL, 'i' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "threads", required_argument, NULL, 't' },
		{ "membind", required_argument, NULL, OPT_MEMBIND },
		{ "interleave", required_argument, NULL, OPT_INTERLEAVE },
		{ "events", required_argument, NULL, 'e' },
		{ "sched", no_argument, NULL, OPT_SCHED },
		{ "no-sched", no_argument, NULL, OPT_NO_SCHED },
		{ "sched-buffer-kb", required_argument, NULL, OPT_SCHED_BUFFER },
		{ "calibrate", no_argument, NULL, OPT_CALIBRATE },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "sweep", required_argument, NULL, OPT_SWEEP },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "no-baseline", no_argument, NULL, OPT_NO_BASELINE },
		{ "user", required_argument, NULL, 'u' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char why[512];
	long v;
	int c;

	opterr = 0; /* messages in our grammar, not getopt's */
	while ((c = getopt_long(argc, argv, "+:o:fi:C:t:e:u:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'i':
			if (parse_double(optarg, &o->interval_ms) < 0 || o->interval_ms < 0.1 ||
			    o->interval_ms > 10000) {
				pmt_cli_error("invalid interval '%s': want milliseconds from 0.1 to 10000",
					      optarg);
				return PMT_EXIT_USAGE;
			}
			break;
		case 'C':
			o->cpus = optarg;
			break;
		case 't':
			if (pmt_cli_parse_long(optarg, 1, 1000000, &v) < 0) {
				pmt_cli_error("invalid thread count '%s': want 1 to 1000000", optarg);
				return PMT_EXIT_USAGE;
			}
			o->threads = (int)v;
			break;
		case OPT_MEMBIND:
		case OPT_INTERLEAVE:
			if (o->mem_nodes) {
				pmt_cli_error("--membind and --interleave cannot be combined");
				return PMT_EXIT_USAGE;
			}
			o->mem_mode = c == OPT_MEMBIND ? "bind" : "interleave";
			o->mem_nodes = optarg;
			break;
		case 'e':
			o->events = optarg;
			break;
		case OPT_SCHED:
		case OPT_NO_SCHED:
			o->sched_mode = c == OPT_SCHED;
			break;
		case OPT_SCHED_BUFFER:
			if (pmt_cli_parse_long(optarg, 4, 4194304, &v) < 0) {
				pmt_cli_error("invalid --sched-buffer-kb '%s': want KiB from 4 to 4194304",
					      optarg);
				return PMT_EXIT_USAGE;
			}
			o->sched_buffer_kb = (unsigned)v;
			break;
		case OPT_CALIBRATE:
			o->calibrate = 1;
			break;
		case OPT_RUNS: {
			/* one argument "0 0-7 0-8", or the lists as separate words up to the command */
			char buf[4096], *save = NULL, *tok;
			int bad = 0;
			snprintf(buf, sizeof(buf), "%s", optarg);
			o->calibrate = 1;
			for (tok = strtok_r(buf, " \t", &save); tok && !bad; tok = strtok_r(NULL, " \t", &save))
				bad = pmc_plan_add(&o->runs, tok, why, sizeof(why)) < 0;
			while (!bad && optind < argc && is_cpulist_word(argv[optind]))
				bad = pmc_plan_add(&o->runs, argv[optind++], why, sizeof(why)) < 0;
			if (bad) {
				pmt_cli_error("invalid --runs: %s", why);
				return PMT_EXIT_USAGE;
			}
			break;
		}
		case OPT_SWEEP:
			o->sweep = optarg;
			break;
		case OPT_REPEAT:
			if (pmt_cli_parse_long(optarg, 1, REPEAT_MAX, &v) < 0) {
				pmt_cli_error("invalid --repeat '%s': want 1 to %d", optarg, REPEAT_MAX);
				return PMT_EXIT_USAGE;
			}
			o->repeat = v;
			break;
		case OPT_NO_BASELINE:
			o->no_baseline = 1;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return PMT_EXIT_OK;
		case 'V':
			printf("pmcollect %s (pmtrace format %d.%d)\n", PMT_TOOLS_VERSION, PMT_FORMAT_MAJOR,
			       PMT_FORMAT_MINOR);
			return PMT_EXIT_OK;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, '\0' };
				return usage_error("unknown option '%s'", opt);
			}
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->sweep && o->calibrate) {
		pmt_cli_error("--sweep cannot be combined with --calibrate or --runs");
		return PMT_EXIT_USAGE;
	}
	if (o->repeat && !o->sweep && !o->calibrate) {
		pmt_cli_error("--repeat needs --sweep or --calibrate");
		return PMT_EXIT_USAGE;
	}
	if (o->no_baseline && !o->sweep) {
		pmt_cli_error("--no-baseline needs --sweep");
		return PMT_EXIT_USAGE;
	}
	if (optind >= argc)
		return usage_error("no command given");
	o->argv = argv + optind;
	o->argc = argc - optind;
	return -1;
}

/* --user, or the user who ran `sudo pmcollect`. Returns -1 to go on, or the exit status after
 * reporting. */
static int plan_user(const struct pmc_opts *o, struct session *ss)
{
	const char *name = o->user, *su = getenv("SUDO_USER");
	char why[512];

	if (!name && geteuid() == 0 && su && *su && strcmp(su, "root") != 0)
		name = su;
	if (name && resolve_user(name, &ss->user, why, sizeof(why)) < 0) {
		pmt_cli_error("invalid user '%s': %s", name, why);
		return PMT_EXIT_USAGE;
	}
	ss->have_user = name != NULL;
	return -1;
}

/* The rest of plan_runs for --sweep: the sweep's plan from SPEC (every bad SPEC refused here,
 * before anything starts), the compact CPU order its core counts take CPUs from, the user.
 * Returns -1 to go on, or the exit status after reporting. */
static int plan_sweep(const struct pmc_opts *o, struct session *ss)
{
	char why[512], allowed[4096];
	struct pmt_intlist al = { 0 };
	int err;

	if (allowed_cpus(&ss->online, allowed, sizeof(allowed)) < 0 ||
	    pmt_intlist_parse(allowed, 0, UINT32_MAX - 1, &al, why, sizeof(why)) < 0) {
		pmt_cli_error("cannot read the CPUs pmcollect may use");
		return PMT_EXIT_FAILURE;
	}
	err = pmc_sweep_plan_make(o->sweep, o->repeat ? (uint32_t)o->repeat : 1, (uint32_t)al.n,
				  o->argv, !o->no_baseline, &ss->sweep, why, sizeof(why));
	pmt_intlist_free(&al);
	if (err < 0) {
		pmt_cli_error("invalid --sweep '%s': %s", o->sweep,
			      strncmp(why, "--sweep: ", 9) == 0 ? why + 9 : why);
		return PMT_EXIT_USAGE;
	}
	if (ss->sweep.has_threads && o->threads > 0) {
		pmt_cli_error("-t cannot be combined with a threads= sweep");
		return PMT_EXIT_USAGE;
	}
	ss->compact = calloc(ss->online.n ? ss->online.n : 1, sizeof(*ss->compact));
	if (!ss->compact) {
		pmt_cli_error("%s", strerror(ENOMEM));
		return PMT_EXIT_FAILURE;
	}
	if (pmc_plan_compact_order(allowed, ss->compact, ss->online.n, &ss->ncompact, why,
				   sizeof(why)) < 0) {
		pmt_cli_error("cannot plan the sweep's CPUs: %s", why);
		return PMT_EXIT_FAILURE;
	}
	return -1;
}

/* Checks the options against the machine and builds the run plan: the online CPUs (read once
 * here), --cpus, the runs of --calibrate / --runs or the one plain run, their environment,
 * the NUMA node mask, the user. Returns -1 to go on, or the exit status after reporting. */
static int plan_runs(const struct pmc_opts *o, struct session *ss)
{
	char why[512];

	if (online_cpus(&ss->online) < 0) {
		pmt_cli_error("cannot read the online CPUs");
		return PMT_EXIT_FAILURE;
	}
	pmt_intlist_format(&ss->online, ss->online_text, sizeof(ss->online_text));
	if (o->calibrate && o->cpus)
		return usage_error("--cpus cannot be combined with --calibrate or --runs (give the "
				   "runs' CPUs with --runs)");
	if (o->sweep && o->cpus) {
		pmt_cli_error("--cpus cannot be combined with --sweep (give the core counts in SPEC: "
			      "cores=1,2,4)");
		return PMT_EXIT_USAGE;
	}
	if (o->sweep) {
		int ret = plan_sweep(o, ss);
		if (ret >= 0)
			return ret;
	}
	if (o->cpus) {
		/* every CPU must be online (and fit a cpu_set_t) */
		if (cpu_list(o->cpus, &ss->online, ss->online_text, &ss->prog_cpus, &ss->cpus) < 0)
			return PMT_EXIT_USAGE;
		pmt_intlist_format(&ss->cpus, ss->cpus_text, sizeof(ss->cpus_text));
	}
	if (o->sweep) {
		/* the runs are made one at a time from ss->sweep (sweep_run) */
	} else if (!o->calibrate) {
		pmc_plan_single(&ss->plan, o->cpus ? ss->cpus_text : NULL, (uint32_t)ss->cpus.n,
				o->threads, (uint32_t)ss->online.n);
	} else if (o->runs.n == 0) {
		char allowed[4096];
		if (allowed_cpus(&ss->online, allowed, sizeof(allowed)) < 0 ||
		    pmc_plan_calibrate(&ss->plan, allowed, why, sizeof(why)) < 0) {
			pmt_cli_error("cannot plan the calibration runs: %s", why);
			return PMT_EXIT_FAILURE;
		}
	} else {
		ss->plan = o->runs;
		pmc_plan_roles(&ss->plan, o->threads, (uint32_t)ss->online.n);
	}
	if (o->calibrate && pmc_plan_repeat(&ss->plan, o->repeat ? (uint32_t)o->repeat :
					    o->runs.n ? 1 : CALIBRATE_REPEAT, why, sizeof(why)) < 0)
		return usage_error("invalid --repeat: %s", why);
	for (size_t i = 0; o->calibrate && i < ss->plan.n; i++) {
		struct pmt_intlist l = { 0 };
		cpu_set_t set;
		int bad = cpu_list(ss->plan.runs[i].cpus, &ss->online, ss->online_text, &set, &l);
		pmt_intlist_free(&l);
		if (bad)
			return PMT_EXIT_USAGE;
	}
	if (o->threads > 0) {
		char text[16];
		snprintf(text, sizeof(text), "%d", o->threads);
		(void)pmc_plan_setenv(&ss->plan, "OMP_NUM_THREADS", text); /* fits: 7 digits */
	}
	if (o->mem_nodes) {
		if (numa_available() < 0) {
			pmt_cli_error("cannot use --%s: NUMA is not available on this machine",
				      strcmp(o->mem_mode, "bind") == 0 ? "membind" : "interleave");
			return PMT_EXIT_USAGE;
		}
		ss->mem_mask = numa_parse_nodestring(o->mem_nodes);
		if (!ss->mem_mask) {
			pmt_cli_error("invalid NUMA node list '%s'", o->mem_nodes);
			return PMT_EXIT_USAGE;
		}
	}
	return plan_user(o, ss);
}

/* Signals: SIGCHLD and the forwarded ones arrive through a signalfd. A signal that was ignored
 * when pmcollect started (nohup, a background job of a non-interactive shell) stays ignored for
 * pmcollect and the program alike. Also becomes child subreaper and raises RLIMIT_NOFILE.
 * Returns 0, or -1 after reporting. */
static int setup_signals(const struct pmc_opts *o, struct session *ss)
{
	static const int fwd[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	struct rlimit nofile;
	sigset_t block;
	char why[256];

	sigprocmask(SIG_SETMASK, NULL, &ss->orig_mask);
	sigemptyset(&block);
	sigemptyset(&ss->forward);
	sigaddset(&block, SIGCHLD);
	for (size_t i = 0; i < PM_ARRAY_SIZE(fwd); i++) {
		if (sigaction(fwd[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			continue;
		sigaddset(&block, fwd[i]);
		sigaddset(&ss->forward, fwd[i]);
	}
	ss->sigpipe_ignored = sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
	ss->sigxfsz_ignored = sigaction(SIGXFSZ, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
	/* a full pipe or a file-size limit must come back as a write error (EPIPE, EFBIG) that
	 * the writer reports, not kill pmcollect in the middle of a chunk */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	/* an inherited SIGCHLD ignore would make the kernel reap the program before wait4() */
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_BLOCK, &block, NULL);
	ss->sig_fd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ss->sig_fd < 0) {
		pmt_cli_error("cannot create a signalfd: %s", strerror(errno));
		return -1;
	}
	/* before becoming subreaper: the watchdog must not end up as pmcollect's child */
	if (o->sched_mode != 0 && geteuid() == 0)
		(void)pmc_sched_watchdog(why, sizeof(why));
	/* double-forked daemons are reparented to pmcollect instead of init, so they stay in the
	 * followed tree and are reaped here */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		warn_user("cannot become child subreaper: orphaned processes will not be followed");
	/* one descriptor per thread file is kept open: use all the descriptors we may have */
	if (getrlimit(RLIMIT_NOFILE, &ss->nofile_orig) == 0) {
		nofile = ss->nofile_orig;
		nofile.rlim_cur = nofile.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &nofile);
	}
	if (sched_getaffinity(0, sizeof(ss->start_cpus), &ss->start_cpus) == 0)
		ss->have_start_cpus = 1;
	return 0;
}

/* Opens the data sources (counters, proc connector, taskstats, scheduler events), describes the
 * machine and them in META and starts the trace. Returns 0, or -1 after reporting. */
static int open_sources(const struct pmc_opts *o, struct session *ss)
{
	char papi_why[512] = "", pc_why[512] = "", ts_why[512] = "", sched_why[512] = "";
	char why[512], *meta_text;
	struct pmc_meta_sources src = {
		.stat_every = STAT_EVERY, .status_every = STATUS_EVERY,
		.sched_buffer_kb = o->sched_buffer_kb,
	};
	cJSON *meta;
	int err;

	if (pmc_counters_open(&ss->counters, o->events, papi_why, sizeof(papi_why)) < 0) {
		char msg[600];
		snprintf(msg, sizeof(msg), "hardware counters unavailable: %s", papi_why);
		warn_user(msg);
		ss->counters = NULL;
		src.papi_why = papi_why;
	}
	ss->pc_fd = pmc_procconn_open(NETLINK_RCVBUF_BYTES, pc_why, sizeof(pc_why));
	src.procconn_why = ss->pc_fd < 0 ? pc_why : NULL;
	ss->ts_fd = pmc_taskstats_open(ss->online_text, NETLINK_RCVBUF_BYTES, &ss->ts_family, ts_why,
				       sizeof(ts_why));
	src.taskstats_why = ss->ts_fd < 0 ? ts_why : NULL;
	/* pin pmcollect to a CPU the program does not use, so a 1-CPU baseline keeps its CPU to
	 * itself (the runs of a plan pin again, each for its own CPUs) */
	if (o->cpus && ss->have_start_cpus)
		ss->collector_cpu = pin_collector(&ss->start_cpus, &ss->prog_cpus, &ss->online);
	{
		struct pmc_meta_input mi = {
			.argc = o->argc,
			.argv = o->argv,
			.interval_ms = o->interval_ms,
			.cpus = o->cpus ? ss->cpus_text : NULL,
			.online_cpus = ss->online_text,
			.collector_cpu = ss->collector_cpu,
			.mem_mode = o->mem_mode,
			.mem_nodes = o->mem_nodes,
			.start_mono_ns = pmc_now_ns(),
		};
		err = pmc_meta_build(&mi, &meta, why, sizeof(why));
	}
	if (err < 0) {
		pmt_cli_error("cannot describe the machine: %s", why);
		return -1;
	}
	if (o->sched_mode == 0) {
		src.sched_why = "turned off with --no-sched";
	} else if (pmc_sched_open(&ss->sched, o->sched_buffer_kb, &ss->online, sched_why,
				  sizeof(sched_why)) < 0) {
		char msg[600];
		snprintf(msg, sizeof(msg), "scheduler events not recorded: %s", sched_why);
		warn_user(msg);
		src.sched_why = sched_why;
	} else {
		src.sched_events = pmc_sched_event_names();
	}
	err = pmc_meta_add_sources(meta, &src, why, sizeof(why));
	meta_text = err < 0 ? NULL : cJSON_PrintUnformatted(meta);
	cJSON_Delete(meta);
	if (!meta_text) {
		pmt_cli_error("cannot describe the machine: %s", strerror(ENOMEM));
		return -1;
	}
	err = pmt_writer_open(&ss->w, ss->out_fd, meta_text, NULL);
	free(meta_text);
	if (err < 0) {
		/* pmt_writer_open leaves errno of a PMT_E_IO failure in errno */
		pmt_cli_error("cannot write '%s': %s", o->output,
			      err == PMT_E_IO ? strerror(errno) : pmt_strerror(err));
		ss->w = NULL;
		return -1;
	}
	ss->started_writer = 1;
	return 0;
}

/* The configuration of one run of the plan for pmc_run_once: the run's CPUs (ss->prog_cpus must
 * hold them), role and environment, and what the session opened. */
static struct pmc_run_config run_config(const struct pmc_opts *o, struct session *ss,
					const struct pmc_plan_run *run)
{
	struct pmc_run_config cfg = {
		.argv = o->argv,
		.cpus = run->cpus[0] ? &ss->prog_cpus : NULL,
		.child_default_cpus = ss->have_start_cpus ? &ss->start_cpus : NULL,
		.cpus_text = run->cpus[0] ? run->cpus : NULL,
		.online_text = ss->online_text,
		.collector_cpu = ss->collector_cpu,
		.threads = o->threads,
		.env = run->env,
		.nenv = run->nenv,
		.mem_mode = o->mem_mode,
		.mem_nodes = o->mem_nodes,
		.mem_mask = ss->mem_mask,
		.interval_ms = o->interval_ms,
		.stat_every = STAT_EVERY,
		.status_every = STATUS_EVERY,
		.counters = ss->counters,
		.procconn_fd = ss->pc_fd,
		.taskstats_fd = ss->ts_fd,
		.taskstats_family = ss->ts_family,
		.signal_fd = ss->sig_fd,
		.forward = &ss->forward,
		.child_sigmask = &ss->orig_mask,
		.child_sigpipe_ignored = ss->sigpipe_ignored,
		.child_sigxfsz_ignored = ss->sigxfsz_ignored,
		.child_nofile = &ss->nofile_orig,
		.user = ss->have_user ? &ss->user : NULL,
		.role = pmc_role_name(run->role),
		.plan_run = run,
		.warn = warn_user,
		.sched = ss->sched,
	};
	return cfg;
}

/* Run i of --sweep as a plan run: the baseline (1 CPU) or configuration (cores, threads) with
 * its repetition; k cores are the first k CPUs of the compact order; OMP_NUM_THREADS is the
 * configuration's threads, else -t. Returns 0, or -1 when the CPU list does not fit. */
static int sweep_run(const struct pmc_opts *o, const struct session *ss, size_t i,
		     struct pmc_plan_run *run)
{
	const struct pmc_sweep_run *sr = &ss->sweep.runs[i];
	uint32_t k = sr->baseline ? 1 : sr->cores, threads = sr->threads ? sr->threads :
							(uint32_t)(o->threads > 0 ? o->threads : 0);
	size_t off = 0;

	memset(run, 0, sizeof(*run));
	run->role = sr->baseline ? PMC_ROLE_BASELINE : PMC_ROLE_SWEEP;
	for (uint32_t c = 0; c < k && c < ss->ncompact; c++) {
		off += (size_t)snprintf(run->cpus + off, sizeof(run->cpus) - off, "%s%u", c ? "," : "",
					ss->compact[c]);
		if (off >= sizeof(run->cpus))
			return -1;
	}
	run->ncpus = k ? k : (uint32_t)ss->online.n;
	if (threads) {
		snprintf(run->env[0].name, sizeof(run->env[0].name), "OMP_NUM_THREADS");
		snprintf(run->env[0].value, sizeof(run->env[0].value), "%u", threads);
		run->nenv = 1;
	}
	if (!sr->baseline) {
		run->rep = sr->rep;
		run->nrep = ss->sweep.repeat;
		run->config = sr->config;
		run->sweep_cores = sr->cores;
		run->sweep_threads = sr->threads;
	}
	return 0;
}

/* A forwarded signal (SIGINT, SIGTERM, SIGHUP) waiting in the signalfd: pmcollect was told to stop
 * between two runs of a plan. Returns the signal or 0. */
static int stop_pending(const struct session *ss)
{
	sigset_t pend;

	if (sigpending(&pend) < 0)
		return 0;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&ss->forward, sig) == 1 && sigismember(&pend, sig) == 1)
			return sig;
	return 0;
}

/* Records every run of the plan (or of --sweep), in order; stops after a run that failed (a
 * calibration of a failing program measures the failure), when the trace cannot grow, or when
 * SIGINT/SIGTERM/SIGHUP came (the runs recorded so far stay in the trace). Returns what
 * pmcollect exits with so far: the last run's status (the program's, 127 when it could not
 * start, 128+N after signal N), or 1. */
static int collect(const struct pmc_opts *o, struct session *ss)
{
	struct pmc_plan *plan = &ss->plan;
	size_t nruns = o->sweep ? ss->sweep.nruns : plan->n;
	uint64_t plan_start_ns = pmc_now_ns();
	int ret = PMT_EXIT_FAILURE, many = o->calibrate || o->sweep;
	char why[512];

	for (size_t i = 0; i < nruns; i++) {
		struct pmc_plan_run sweep_tmp;
		const struct pmc_plan_run *run = o->sweep ? &sweep_tmp : &plan->runs[i];
		struct pmc_run_result res;
		char **argv = NULL, line[160];
		uint64_t t0;
		int sig = i ? stop_pending(ss) : 0;
		if (sig) {
			pmt_cli_error("stopped by signal %d after %zu of %zu runs", sig, i, nruns);
			ret = 128 + sig;
			break;
		}
		if (o->sweep) {
			if (sweep_run(o, ss, i, &sweep_tmp) < 0) {
				pmt_cli_error("run %zu of %zu: too many CPUs for one CPU list", i + 1, nruns);
				break;
			}
			argv = pmc_sweep_argv(o->argv, ss->sweep.runs[i].threads);
			if (!argv) {
				pmt_cli_error("%s", strerror(ENOMEM));
				break;
			}
		}
		if (many && run->cpus[0]) {
			struct pmt_intlist l = { 0 };
			(void)cpu_list(run->cpus, &ss->online, ss->online_text, &ss->prog_cpus, &l);
			pmt_intlist_free(&l);
			ss->collector_cpu = ss->have_start_cpus
				? pin_collector(&ss->start_cpus, &ss->prog_cpus, &ss->online) : -1;
		} else if (many) {
			/* the program on every CPU: pmcollect back on its start affinity */
			if (ss->have_start_cpus)
				(void)sched_setaffinity(0, sizeof(ss->start_cpus), &ss->start_cpus);
			ss->collector_cpu = -1;
		}
		if (o->calibrate && !quiet)
			fprintf(stderr, "pmcollect: run %zu of %zu (%s, CPUs %s), elapsed %.1f s\n",
				i + 1, nruns, pmc_role_name(run->role), run->cpus,
				(double)(pmc_now_ns() - plan_start_ns) / 1e9);
		struct pmc_run_config cfg = run_config(o, ss, run);
		if (argv) {
			cfg.argv = argv;
			if (run->nenv)
				cfg.threads = atoi(run->env[0].value);
		}
		t0 = pmc_now_ns();
		if (pmc_run_once(ss->w, (uint32_t)i, &cfg, &res, why, sizeof(why)) < 0) {
			pmt_cli_error("%s", why);
			ret = PMT_EXIT_FAILURE;
		} else if (!res.started) {
			pmt_cli_error("%s", res.error);
			ret = 127;
		} else {
			ret = res.exit_status;
		}
		pmc_sweep_argv_free(argv);
		if (o->sweep && !quiet)
			fprintf(stderr, "pmcollect: %s\n", pmc_sweep_progress(&ss->sweep, i,
					(double)(pmc_now_ns() - t0) / 1e9, line, sizeof(line)));
		ss->nruns_done = i + 1;
		if (ret != 0 && i + 1 < nruns)
			pmt_cli_error("run %zu of %zu ended with status %d: %s stopped", i + 1, nruns, ret,
				      o->sweep ? "sweep" : "calibration");
		ss->total.samples += res.samples;
		ss->total.thread_samples += res.thread_samples;
		ss->total.late_samples += res.late_samples;
		ss->total.lost_samples += res.lost_samples;
		ss->total.sampling_cpu_ns += res.sampling_cpu_ns;
		ss->total.warnings += res.warnings;
		if (res.writer_err) {
			ss->writer_err = res.writer_err;
			ss->writer_errno = res.writer_errno;
		}
		if (ret != 0 || ss->writer_err)
			break;
	}
	if (many && !quiet)
		fprintf(stderr, "pmcollect: %zu run%s done in %.1f s\n", ss->nruns_done,
			ss->nruns_done == 1 ? "" : "s", (double)(pmc_now_ns() - plan_start_ns) / 1e9);
	return ret;
}

/* Appends SUMMARY (the runs' totals and pmcollect's exit status) and flushes; a failure is kept
 * in ss->writer_err for finish_trace. */
static void write_summary(struct session *ss, int exit_status)
{
	char *json;
	int err;

	if (ss->writer_err)
		return;
	json = summary_json(&ss->total, (int)ss->nruns_done, exit_status);
	err = json ? pmt_writer_json(ss->w, PMT_REC_SUMMARY, 0, pmc_now_ns(), json) : PMT_E_NOMEM;
	free(json);
	if (err == 0)
		err = pmt_writer_flush(ss->w);
	if (err < 0) {
		ss->writer_err = err;
		ss->writer_errno = pmt_writer_errno(ss->w);
	}
}

/* Ends the trace file: the writer's last flush, then close(2). A trace that could not be
 * finished is always reported, once, whatever the program's status was: pmcollect then exits 1.
 * Removes the file when set-up failed before the trace began (and only a file it made).
 * Returns the exit status. */
static int finish_trace(const struct pmc_opts *o, struct session *ss, int ret)
{
	if (ss->w) {
		/* flush first: pmt_writer_errno() is gone once the writer is freed */
		int err = pmt_writer_flush(ss->w);
		if (err < 0 && !ss->writer_err) {
			ss->writer_err = err;
			ss->writer_errno = pmt_writer_errno(ss->w);
		}
		(void)pmt_writer_close(ss->w);
		ss->w = NULL;
	}
	if (ss->out_fd >= 0 && close(ss->out_fd) < 0 && ss->started_writer && !ss->writer_err) {
		ss->writer_err = PMT_E_IO;
		ss->writer_errno = errno;
	}
	ss->out_fd = -1;
	if (ss->writer_err) {
		/* the program ran to its end regardless; the trace holds every complete chunk */
		pmt_cli_error("cannot write '%s': %s", o->output,
			      ss->writer_err == PMT_E_IO ? strerror(ss->writer_errno)
							 : pmt_strerror(ss->writer_err));
		ret = PMT_EXIT_FAILURE;
	}
	/* nothing was recorded (set-up failed before the trace began): remove the file we made,
	 * and only that */
	if (!ss->started_writer && ss->created_output)
		unlink(o->output);
	return ret;
}

static void session_close(struct session *ss)
{
	pmc_counters_close(ss->counters);
	pmc_sched_close(ss->sched);
	pmc_procconn_close(ss->pc_fd);
	pmc_taskstats_close(ss->ts_fd);
	if (ss->sig_fd >= 0)
		close(ss->sig_fd);
	if (ss->mem_mask)
		numa_bitmask_free(ss->mem_mask);
	pmt_intlist_free(&ss->cpus);
	pmt_intlist_free(&ss->online);
	pmc_sweep_plan_free(&ss->sweep);
	free(ss->compact);
	user_free(&ss->user);
}

int main(int argc, char **argv)
{
	struct pmc_opts o = {
		.output = DEFAULT_OUTPUT, .interval_ms = 10.0, .mem_mode = "default",
		.sched_mode = -1, .sched_buffer_kb = PMC_SCHED_BUFFER_KB_DEFAULT,
	};
	struct session ss = {
		.out_fd = -1, .sig_fd = -1, .pc_fd = -1, .ts_fd = -1, .collector_cpu = -1,
	};
	int ret;

	pmt_cli_set_prog("pmcollect");
	ret = parse_options(argc, argv, &o);
	if (ret < 0)
		ret = plan_runs(&o, &ss);
	if (ret < 0) {
		/* the output last, so no other error leaves an empty file behind; before the
		 * program starts, so an unwritable path is a usage error */
		ss.out_fd = create_output(o.output, o.force, &ss.created_output);
		if (ss.out_fd < 0)
			ret = PMT_EXIT_USAGE;
	}
	if (ret < 0 && (setup_signals(&o, &ss) < 0 || open_sources(&o, &ss) < 0))
		ret = PMT_EXIT_FAILURE;
	if (ret < 0) {
		ret = collect(&o, &ss);
		write_summary(&ss, ret);
	}
	if (ret < 0)
		ret = PMT_EXIT_FAILURE;
	ret = finish_trace(&o, &ss, ret);
	session_close(&ss);
	return ret;
}
