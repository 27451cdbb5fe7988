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

#include "calibrate.h"
#include "counters.h"
#include "meta.h"
#include "netlink.h"
#include "pmt.h"
#include "pmt_cli.h"
#include "run.h"

#define DEFAULT_OUTPUT "pmtrace.zst"
#define STAT_EVERY 16   /* stat costs ~4x a schedstat read: refresh 1/16 of threads per sample */
#define STATUS_EVERY 64 /* status costs ~10x: 1/64 per sample */
#define NETLINK_RCVBUF_BYTES (8 << 20) /* room for a burst of system-wide exits between samples */

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
		"  -u, --user=NAME         run the program as user NAME (pmcollect keeps root)\n"
		"                          [default as root under sudo: SUDO_USER]\n"
		"  -q, --quiet             do not print warnings\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Baseline run of the Tudor & Teo model (more threads than CPUs):\n"
		"  pmcollect --cpus 0 -t 8 -- ./app\n"
		"Baseline and memory-contention calibration in one trace:\n"
		"  pmcollect --calibrate -t 8 -- ./app\n",
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

/* Adds "every_samples" to an existing sources.<name> entry. */
static void source_every(cJSON *meta, const char *name, int every)
{
	cJSON *src = cJSON_GetObjectItemCaseSensitive(meta, "sources");
	cJSON *e = src ? cJSON_GetObjectItemCaseSensitive(src, name) : NULL;
	if (e)
		cJSON_AddNumberToObject(e, "every_samples", every);
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

int main(int argc, char **argv)
{
	enum { OPT_MEMBIND = 256, OPT_INTERLEAVE, OPT_SCHED, OPT_NO_SCHED, OPT_SCHED_BUFFER,
	       OPT_CALIBRATE, OPT_RUNS };
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
		{ "user", required_argument, NULL, 'u' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = DEFAULT_OUTPUT, *cpus_arg = NULL, *events = NULL, *mem_mode = "default";
	const char *mem_nodes = NULL, *user_arg = NULL;
	struct pmc_user user = { 0 };
	int have_user = 0;
	struct pmt_intlist cpus = { 0 }, online = { 0 };
	struct bitmask *mem_mask = NULL;
	struct pmc_counters *counters = NULL;
	struct pmc_sched *sched = NULL;
	int sched_mode = -1; /* -1 default (when usable), 0 --no-sched, 1 --sched */
	unsigned sched_buffer_kb = PMC_SCHED_BUFFER_KB_DEFAULT;
	struct pmt_writer *w = NULL;
	struct pmc_run_result res, total;
	uint64_t calib_start_ns;
	struct rlimit nofile_orig, nofile;
	sigset_t block, forward, orig_mask;
	cpu_set_t prog_cpus, start_cpus;
	char cpus_text[4096], online_text[4096], why[512], papi_why[512] = "";
	double interval_ms = 10.0;
	int force = 0, threads = 0, out_fd = -1, sig_fd = -1, pc_fd = -1, ts_fd = -1;
	int collector_cpu = -1, have_start_cpus = 0, sigpipe_ignored = 0, sigxfsz_ignored = 0;
	int ret = PMT_EXIT_FAILURE;
	int started_writer = 0, created_output = 0, c;
	uint16_t ts_family = 0;
	char *meta_text = NULL, *json = NULL;
	cJSON *meta = NULL;
	struct pmc_calib_run runs[PMC_CALIB_MAX_RUNS];
	size_t nruns = 0;
	int calibrate = 0;

	pmt_cli_set_prog("pmcollect");
	memset(&res, 0, sizeof(res));
	memset(&total, 0, sizeof(total));
	opterr = 0; /* messages in our grammar, not getopt's */
	while ((c = getopt_long(argc, argv, "+:o:fi:C:t:e:u:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'i':
			if (parse_double(optarg, &interval_ms) < 0 || interval_ms < 0.1 ||
			    interval_ms > 10000) {
				pmt_cli_error("invalid interval '%s': want milliseconds from 0.1 to 10000",
					      optarg);
				ret = PMT_EXIT_USAGE;
				goto out;
			}
			break;
		case 'C':
			cpus_arg = optarg;
			break;
		case 't': {
			long v;
			if (pmt_cli_parse_long(optarg, 1, 1000000, &v) < 0) {
				pmt_cli_error("invalid thread count '%s': want 1 to 1000000", optarg);
				ret = PMT_EXIT_USAGE;
				goto out;
			}
			threads = (int)v;
			break;
		}
		case OPT_MEMBIND:
		case OPT_INTERLEAVE:
			if (mem_nodes) {
				pmt_cli_error("--membind and --interleave cannot be combined");
				ret = PMT_EXIT_USAGE;
				goto out;
			}
			mem_mode = c == OPT_MEMBIND ? "bind" : "interleave";
			mem_nodes = optarg;
			break;
		case 'e':
			events = optarg;
			break;
		case OPT_SCHED:
		case OPT_NO_SCHED:
			sched_mode = c == OPT_SCHED;
			break;
		case OPT_SCHED_BUFFER: {
			long v;
			if (pmt_cli_parse_long(optarg, 4, 4194304, &v) < 0) {
				pmt_cli_error("invalid --sched-buffer-kb '%s': want KiB from 4 to 4194304",
					      optarg);
				ret = PMT_EXIT_USAGE;
				goto out;
			}
			sched_buffer_kb = (unsigned)v;
			break;
		}
		case OPT_CALIBRATE:
			calibrate = 1;
			break;
		case OPT_RUNS: {
			/* one argument "0 0-7 0-8", or the lists as separate words up to the command */
			char buf[4096], *save = NULL, *tok;
			snprintf(buf, sizeof(buf), "%s", optarg);
			calibrate = 1;
			for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
				if (pmc_calib_add(tok, runs, &nruns, why, sizeof(why)) < 0)
					goto bad_runs;
			while (optind < argc && is_cpulist_word(argv[optind]))
				if (pmc_calib_add(argv[optind++], runs, &nruns, why, sizeof(why)) < 0)
					goto bad_runs;
			break;
bad_runs:
			pmt_cli_error("invalid --runs: %s", why);
			ret = PMT_EXIT_USAGE;
			goto out;
		}
		case 'u':
			user_arg = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			ret = PMT_EXIT_OK;
			goto out;
		case 'V':
			printf("pmcollect %s (pmtrace format %d.%d)\n", PMT_TOOLS_VERSION, PMT_FORMAT_MAJOR,
			       PMT_FORMAT_MINOR);
			ret = PMT_EXIT_OK;
			goto out;
		case ':':
			ret = usage_error("option '%s' needs a value", argv[optind - 1]);
			goto out;
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, '\0' };
				ret = usage_error("unknown option '%s'", opt);
			} else {
				ret = usage_error("unknown option '%s'", argv[optind - 1]);
			}
			goto out;
		}
	}
	if (optind >= argc) {
		ret = usage_error("no command given");
		goto out;
	}

	/* --cpus: every CPU must be online (and fit a cpu_set_t) */
	if (online_cpus(&online) < 0) {
		pmt_cli_error("cannot read the online CPUs");
		goto out;
	}
	pmt_intlist_format(&online, online_text, sizeof(online_text));
	if (calibrate && cpus_arg) {
		ret = usage_error("--cpus cannot be combined with --calibrate or --runs (give the "
				  "runs' CPUs with --runs)");
		goto out;
	}
	if (cpus_arg) {
		if (cpu_list(cpus_arg, &online, online_text, &prog_cpus, &cpus) < 0) {
			ret = PMT_EXIT_USAGE;
			goto out;
		}
		pmt_intlist_format(&cpus, cpus_text, sizeof(cpus_text));
	}
	if (calibrate && nruns == 0) {
		char allowed[4096];
		if (allowed_cpus(&online, allowed, sizeof(allowed)) < 0 ||
		    pmc_calib_plan(allowed, runs, &nruns, why, sizeof(why)) < 0) {
			pmt_cli_error("cannot plan the calibration runs: %s", why);
			goto out;
		}
	} else if (calibrate) {
		pmc_calib_roles(runs, nruns, threads, (uint32_t)online.n);
	}
	for (size_t i = 0; i < nruns; i++) {
		struct pmt_intlist l = { 0 };
		cpu_set_t set;
		int bad = cpu_list(runs[i].cpus, &online, online_text, &set, &l);
		pmt_intlist_free(&l);
		if (bad) {
			ret = PMT_EXIT_USAGE;
			goto out;
		}
	}
	if (mem_nodes) {
		if (numa_available() < 0) {
			pmt_cli_error("cannot use --%s: NUMA is not available on this machine",
				      strcmp(mem_mode, "bind") == 0 ? "membind" : "interleave");
			ret = PMT_EXIT_USAGE;
			goto out;
		}
		mem_mask = numa_parse_nodestring(mem_nodes);
		if (!mem_mask) {
			pmt_cli_error("invalid NUMA node list '%s'", mem_nodes);
			ret = PMT_EXIT_USAGE;
			goto out;
		}
	}
	/* --user, or the user who ran `sudo pmcollect` */
	if (!user_arg && geteuid() == 0) {
		const char *su = getenv("SUDO_USER");
		if (su && *su && strcmp(su, "root") != 0)
			user_arg = su;
	}
	if (user_arg) {
		if (resolve_user(user_arg, &user, why, sizeof(why)) < 0) {
			pmt_cli_error("invalid user '%s': %s", user_arg, why);
			ret = PMT_EXIT_USAGE;
			goto out;
		}
		have_user = 1;
	}
	/* the output last, so no other error leaves an empty file behind; before the program
	 * starts, so an unwritable path is a usage error */
	out_fd = create_output(output, force, &created_output);
	if (out_fd < 0) {
		ret = PMT_EXIT_USAGE;
		goto out;
	}

	/* Signals: SIGCHLD and the forwarded ones arrive through a signalfd. A signal that was
	 * ignored when pmcollect started (nohup, a background job of a non-interactive shell)
	 * stays ignored for pmcollect and the program alike. */
	sigprocmask(SIG_SETMASK, NULL, &orig_mask);
	sigemptyset(&block);
	sigemptyset(&forward);
	sigaddset(&block, SIGCHLD);
	{
		static const int fwd[] = { SIGINT, SIGTERM, SIGHUP };
		for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++) {
			struct sigaction sa;
			if (sigaction(fwd[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
				continue;
			sigaddset(&block, fwd[i]);
			sigaddset(&forward, fwd[i]);
		}
		struct sigaction sa;
		if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigpipe_ignored = 1;
		if (sigaction(SIGXFSZ, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigxfsz_ignored = 1;
	}
	/* a full pipe or a file-size limit must come back as a write error (EPIPE, EFBIG) that
	 * the writer reports, not kill pmcollect in the middle of a chunk */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	/* an inherited SIGCHLD ignore would make the kernel reap the program before wait4() */
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sig_fd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sig_fd < 0) {
		pmt_cli_error("cannot create a signalfd: %s", strerror(errno));
		goto out;
	}
	/* before becoming subreaper: the watchdog must not end up as pmcollect's child */
	if (sched_mode != 0 && geteuid() == 0)
		(void)pmc_sched_watchdog();
	/* double-forked daemons are reparented to pmcollect instead of init, so they stay in the
	 * followed tree and are reaped here */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		warn_user("cannot become child subreaper: orphaned processes will not be followed");
	/* one descriptor per thread file is kept open: use all the descriptors we may have */
	if (getrlimit(RLIMIT_NOFILE, &nofile_orig) == 0) {
		nofile = nofile_orig;
		nofile.rlim_cur = nofile.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &nofile);
	}

	if (pmc_counters_open(&counters, events, papi_why, sizeof(papi_why)) < 0) {
		char msg[600];
		snprintf(msg, sizeof(msg), "hardware counters unavailable: %s", papi_why);
		warn_user(msg);
		counters = NULL;
	}
	pc_fd = pmc_procconn_open(NETLINK_RCVBUF_BYTES, why, sizeof(why));
	{
		char pc_why[600], ts_why[600];
		snprintf(pc_why, sizeof(pc_why), "%s", pc_fd < 0 ? why : "");
		ts_fd = pmc_taskstats_open(online_text, NETLINK_RCVBUF_BYTES, &ts_family, ts_why,
					   sizeof(ts_why));

		/* pin pmcollect to a CPU the program does not use, so a 1-CPU baseline keeps its
		 * CPU to itself */
		if (sched_getaffinity(0, sizeof(start_cpus), &start_cpus) == 0)
			have_start_cpus = 1;
		if (cpus_arg && have_start_cpus)
			collector_cpu = pin_collector(&start_cpus, &prog_cpus, &online);

		{
			struct pmc_meta_input mi = {
				.argc = argc - optind,
				.argv = argv + optind,
				.interval_ms = interval_ms,
				.cpus = cpus_arg ? cpus_text : NULL,
				.collector_cpu = collector_cpu,
				.mem_mode = mem_mode,
				.mem_nodes = mem_nodes,
				.start_mono_ns = pmc_now_ns(),
			};
			meta = pmc_meta_build(&mi, why, sizeof(why));
		}
		if (!meta) {
			pmt_cli_error("cannot describe the machine: %s", why);
			goto out;
		}
		pmc_meta_source(meta, "schedstat", 1, NULL);
		pmc_meta_source(meta, "stat", 1, NULL);
		source_every(meta, "stat", STAT_EVERY);
		pmc_meta_source(meta, "status", 1, NULL);
		source_every(meta, "status", STATUS_EVERY);
		pmc_meta_source(meta, "papi", counters != NULL, counters ? NULL : papi_why);
		if (pc_fd < 0) {
			char r[800];
			snprintf(r, sizeof(r), "%s; new processes are found by scanning /proc every "
				 "10 samples", pc_why);
			pmc_meta_source(meta, "proc_connector", 0, r);
		} else {
			pmc_meta_source(meta, "proc_connector", 1, NULL);
		}
		if (ts_fd < 0) {
			char r[800];
			snprintf(r, sizeof(r), "%s; exits carry the last sampled values", ts_why);
			pmc_meta_source(meta, "taskstats", 0, r);
		} else {
			pmc_meta_source(meta, "taskstats", 1, NULL);
		}
		if (sched_mode == 0) {
			pmc_meta_source(meta, "sched_events", 0, "turned off with --no-sched");
		} else {
			char sched_why[512];
			if (pmc_sched_open(&sched, sched_buffer_kb, &online, sched_why,
					   sizeof(sched_why)) < 0) {
				char msg[600];
				snprintf(msg, sizeof(msg), "scheduler events not recorded: %s", sched_why);
				warn_user(msg);
				pmc_meta_source(meta, "sched_events", 0, sched_why);
			} else {
				cJSON *src, *e, *names;
				pmc_meta_source(meta, "sched_events", 1, NULL);
				src = cJSON_GetObjectItemCaseSensitive(meta, "sources");
				e = src ? cJSON_GetObjectItemCaseSensitive(src, "sched_events") : NULL;
				if (e) {
					cJSON_AddStringToObject(e, "clock", "mono");
					cJSON_AddNumberToObject(e, "buffer_kb_per_cpu", sched_buffer_kb);
					names = cJSON_AddArrayToObject(e, "events");
					for (const char *const *n = pmc_sched_event_names(); names && *n; n++)
						cJSON_AddItemToArray(names, cJSON_CreateString(*n));
				}
			}
		}
	}
	meta_text = cJSON_PrintUnformatted(meta);
	if (!meta_text) {
		pmt_cli_error("cannot describe the machine: %s", strerror(ENOMEM));
		goto out;
	}
	{
		int err = pmt_writer_open(&w, out_fd, meta_text, NULL);
		if (err < 0) {
			/* pmt_writer_open leaves errno of a PMT_E_IO failure in errno */
			pmt_cli_error("cannot write '%s': %s", output,
				      err == PMT_E_IO ? strerror(errno) : pmt_strerror(err));
			w = NULL;
			goto out;
		}
		started_writer = 1;
	}

	if (!calibrate) {
		/* one run: the CPUs of --cpus, or every CPU */
		nruns = 1;
		if (cpus_arg)
			pmt_intlist_format(&cpus, runs[0].cpus, sizeof(runs[0].cpus));
		else
			runs[0].cpus[0] = '\0';
		runs[0].ncpus = cpus_arg ? (uint32_t)cpus.n : (uint32_t)online.n;
		/* the model's baseline: fewer CPUs than threads (Tudor & Teo, III-A-1); without -t
		 * the thread count is unknown, so a restricted CPU set is taken as one */
		runs[0].role = cpus_arg && cpus.n < online.n && (threads == 0 || threads > (int)cpus.n)
				? "baseline" : "run";
	}
	calib_start_ns = pmc_now_ns();
	for (size_t i = 0; i < nruns && !res.writer_err; i++) {
		if (calibrate) {
			struct pmt_intlist l = { 0 };
			(void)cpu_list(runs[i].cpus, &online, online_text, &prog_cpus, &l);
			pmt_intlist_free(&l);
			collector_cpu = have_start_cpus ? pin_collector(&start_cpus, &prog_cpus, &online) : -1;
			if (!quiet)
				fprintf(stderr, "pmcollect: run %zu of %zu (%s, CPUs %s), elapsed %.1f s\n",
					i + 1, nruns, runs[i].role, runs[i].cpus,
					(double)(pmc_now_ns() - calib_start_ns) / 1e9);
		}
		struct pmc_run_config cfg = {
			.argv = argv + optind,
			.cpus = runs[i].cpus[0] ? &prog_cpus : NULL,
			.child_default_cpus = have_start_cpus ? &start_cpus : NULL,
			.cpus_text = runs[i].cpus[0] ? runs[i].cpus : NULL,
			.collector_cpu = collector_cpu,
			.threads = threads,
			.mem_mode = mem_mode,
			.mem_nodes = mem_nodes,
			.mem_mask = mem_mask,
			.interval_ms = interval_ms,
			.stat_every = STAT_EVERY,
			.status_every = STATUS_EVERY,
			.counters = counters,
			.procconn_fd = pc_fd,
			.taskstats_fd = ts_fd,
			.taskstats_family = ts_family,
			.signal_fd = sig_fd,
			.forward = &forward,
			.child_sigmask = &orig_mask,
			.child_sigpipe_ignored = sigpipe_ignored,
			.child_sigxfsz_ignored = sigxfsz_ignored,
			.child_nofile = &nofile_orig,
			.user = have_user ? &user : NULL,
			.role = runs[i].role,
			.warn = warn_user,
			.sched = sched,
		};
		int rc = pmc_run_once(w, (uint32_t)i, &cfg, &res);
		if (rc < 0) {
			pmt_cli_error("%s", res.error);
			ret = PMT_EXIT_FAILURE;
		} else if (!res.started) {
			pmt_cli_error("%s", res.error);
			ret = 127;
		} else {
			ret = res.exit_status;
		}
		if (ret != 0 && i + 1 < nruns) {
			/* a calibration of a failing program measures the failure: stop here */
			pmt_cli_error("run %zu of %zu ended with status %d: calibration stopped", i + 1,
				      nruns, ret);
			nruns = i + 1;
		}
		if (calibrate && !quiet && i + 1 == nruns)
			fprintf(stderr, "pmcollect: %zu run%s done in %.1f s\n", nruns,
				nruns == 1 ? "" : "s", (double)(pmc_now_ns() - calib_start_ns) / 1e9);
		total.samples += res.samples;
		total.thread_samples += res.thread_samples;
		total.late_samples += res.late_samples;
		total.lost_samples += res.lost_samples;
		total.sampling_cpu_ns += res.sampling_cpu_ns;
		total.warnings += res.warnings;
	}
	if (!res.writer_err) {
		int err;
		json = summary_json(&total, (int)nruns, ret);
		err = json ? pmt_writer_json(w, PMT_REC_SUMMARY, 0, pmc_now_ns(), json) : PMT_E_NOMEM;
		if (err == 0)
			err = pmt_writer_flush(w);
		if (err < 0) {
			res.writer_err = err;
			res.writer_errno = pmt_writer_errno(w);
		}
	}
	if (res.writer_err) {
		/* the program ran to its end regardless; the trace holds every complete chunk */
		pmt_cli_error("cannot write '%s': %s", output,
			      res.writer_err == PMT_E_IO ? strerror(res.writer_errno)
							 : pmt_strerror(res.writer_err));
		ret = PMT_EXIT_FAILURE;
	}
out:
	if (w && pmt_writer_close(w) < 0 && ret != PMT_EXIT_FAILURE && !res.writer_err) {
		pmt_cli_error("cannot write '%s': %s", output, strerror(errno));
		ret = PMT_EXIT_FAILURE;
	}
	if (out_fd >= 0) {
		if (close(out_fd) < 0 && started_writer && ret != PMT_EXIT_FAILURE) {
			pmt_cli_error("cannot write '%s': %s", output, strerror(errno));
			ret = PMT_EXIT_FAILURE;
		}
		/* nothing was recorded (set-up failed before the trace began): remove the file we
		 * made, and only that */
		if (!started_writer && created_output)
			unlink(output);
	}
	free(json);
	free(meta_text);
	cJSON_Delete(meta);
	pmc_counters_close(counters);
	pmc_sched_close(sched);
	pmc_procconn_close(pc_fd);
	pmc_taskstats_close(ts_fd);
	if (sig_fd >= 0)
		close(sig_fd);
	if (mem_mask)
		numa_bitmask_free(mem_mask);
	pmt_intlist_free(&cpus);
	pmt_intlist_free(&online);
	user_free(&user);
	return ret;
}
