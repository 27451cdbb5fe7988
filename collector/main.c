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
#include "cpuset.h"
#include "energy.h"
#include "cpuexpr.h"
#include "interfere.h"
#include "interfere_cal.h"
#include "interfere_session.h"
#include "meta.h"
#include "netlink.h"
#include "omp.h"
#include "plan.h"
#include "rank.h"
#include "pm_util.h"
#include "pmt.h"
#include "pm_cli.h"
#include "run.h"
#include "sweep.h"

#define DEFAULT_OUTPUT "pmtrace.zst"
#define STAT_EVERY 16   /* stat costs ~4x a schedstat read: refresh 1/16 of threads per sample */
#define STATUS_EVERY 64 /* status costs ~10x: 1/64 per sample */
#define NETLINK_RCVBUF_BYTES (8 << 20) /* room for a burst of system-wide exits between samples */
#define INTERFERE_REPEAT_DEFAULT 3 /* --interfere without --repeat: runs per level */
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
		"  -o, --output=FILE       trace file to create [default: " DEFAULT_OUTPUT "]; under\n"
		"                          mpirun/srun one per rank: %%r rank, %%l local rank, %%h host,\n"
		"                          %%j job id, %%p pid, %%%% a '%%' (missing directories are made)\n"
		"  -f, --force             overwrite FILE if it exists\n"
		"  -i, --interval=MS       sampling interval in milliseconds, 0.1 to 10000 [default: 10]\n"
		"  -C, --cpus=LIST         run the program on these online CPUs: a cpulist (0 or 0-3,8)\n"
		"                          or a CPU expression (S0:0-3, E:N:4:1:2, M0:0-1@M1:0-1;\n"
		"                          docs/cpu-expressions.md)\n"
		"                          [default: every CPU pmcollect may use]\n"
		"  -t, --threads=M         set OMP_NUM_THREADS=M in the program's environment\n"
		"                          (a list such as 1-4 or 1,2,4 with --omp-regions)\n"
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
		"      --runs=LISTS        the runs' CPU lists instead, e.g. --runs 0 0-7 0-8 (CPU\n"
		"                          expressions inside the value: --runs 'N:0 S0:0-1 E:N:3')\n"
		"      --omp-regions       record the OpenMP parallel regions through OMPT (LLVM's\n"
		"                          libomp); with -t LIST, one run per thread count\n"
		"      --omp-runtime=RT    with --omp-regions: 'llvm' preloads LLVM's libomp into a GCC\n"
		"                          (libgomp) binary, or give the path of a libomp\n"
		"      --omp-events=LIST   with --omp-regions: PAPI events each thread counts over each\n"
		"                          region (at most 6, resolved in the program, so its own\n"
		"                          sde::: events work); default cycles and LLC misses when\n"
		"                          pmcollect's counters work; 'none' for no counters\n"
		"  -l, --label=KEY=VALUE   store a label in the trace (e.g. size=1000: a feature of\n"
		"                          pmanalyze --learn); repeatable\n"
		"      --interfere=KIND    run the program beside 0..K interference threads of KIND,\n"
		"                          cache (CSThr) or bandwidth (BWThr), into one trace\n"
		"      --levels=LIST       interferer counts to run [default: 0 to one per CPU of\n"
		"                          --interfere-cpus]; must start at 0\n"
		"      --csthr-l2=N        CSThr buffers of N times the L2 above their CPU (hwloc),\n"
		"                          N >= 2 [default: the paper's 4 MB, or 2x the L2 where\n"
		"                          that is larger; --interfere cache: the machine file's]\n"
		"      --interfere-cpus=LIST  the interferers' CPUs, a cpulist or a CPU expression\n"
		"                          [default: CPUs sharing the program's last-level cache,\n"
		"                          not its SMT siblings (hwloc)]\n"
		"      --calibrate-interference  measure BW1, B and the cache capacity left with k\n"
		"                          CSThrs; write the machine file and (with a command and\n"
		"                          --interfere) use it at once\n"
		"      --interference-file=FILE  the machine file [default:\n"
		"                          $XDG_CACHE_HOME/pmtools/interference-HOST.json]\n"
		"      --sweep=SPEC        run the program once per configuration of SPEC:\n"
		"                          cores=1,2,4 (CPUs chosen compactly), threads=1-16\n"
		"                          (OMP_NUM_THREADS and {threads} in the command), or both\n"
		"                          as cores=1,2;threads=1-16; a baseline run (1 CPU) first\n"
		"      --repeat=K          run each configuration of --sweep, --calibrate or\n"
		"                          --interfere K times, interleaved [default: 1 for --sweep\n"
		"                          and --runs, 3 for --calibrate and --interfere]\n"
		"      --no-baseline       --sweep without the baseline run\n"
		"  -u, --user=NAME         run the program as user NAME (pmcollect keeps root)\n"
		"                          [default as root under sudo: SUDO_USER]\n"
		"      --progress          print a [k/N] line per run of --calibrate, --sweep,\n"
		"                          --interfere, -t LIST and per step of\n"
		"                          --calibrate-interference [default: when stderr is a\n"
		"                          terminal]\n"
		"  -q, --quiet             do not print warnings or progress\n"
		"  -h, --help              show this help and exit\n"
		"  -V, --version           show the version and exit\n"
		"\n"
		"Baseline run of the Tudor & Teo model (more threads than CPUs):\n"
		"  pmcollect --cpus 0 -t 8 -- ./app\n"
		"Baseline and memory-contention calibration in one trace:\n"
		"  pmcollect --calibrate -t 8 -- ./app\n"
		"Bandwidth the program needs (Casas & Bronevetsky):\n"
		"  pmcollect --calibrate-interference --interfere-cpus 1 -o cal.pmt\n"
		"  pmcollect --interfere bandwidth --interfere-cpus 1 -- ./app\n"
		"One trace per rank of an MPI job (merge them with pmanalyze pm-1234/):\n"
		"  srun -n 64 pmcollect -o 'pm-%%j/trace.%%r.zst' -- ./app\n"
		"Scaling sweep, 3 repetitions per core count:\n"
		"  pmcollect --sweep cores=1,2,4,8 --repeat 3 -t 8 -- ./app\n"
		"  pmcollect --sweep 'threads=1-8' -- pigz -k -f -p {threads} big.tar\n",
		usage_line);
}

/* An error in the command line itself: one error line, the usage line, status 2. */
#define usage_error(...) pm_cli_usage_error(usage_line, __VA_ARGS__)

static int quiet;
static int progress_forced; /* --progress */

static void warn_user(const char *msg)
{
	if (!quiet)
		pm_cli_warning("%s", msg);
}

/* Whether long work (a plan of runs, the interference calibration) reports its steps: with
 * --progress, or when stderr is a terminal; never with -q. */
static int show_progress(void)
{
	return !quiet && (progress_forced || isatty(STDERR_FILENO));
}

/* One progress line, "pmcollect: [k/N] what, elapsed S s", on stderr when show_progress(). */
static void progress(size_t k, size_t n, uint64_t start_ns, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void progress(size_t k, size_t n, uint64_t start_ns, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	if (!show_progress())
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fprintf(stderr, "pmcollect: [%zu/%zu] %s, elapsed %.1f s\n", k, n, what,
		(double)(pmc_now_ns() - start_ns) / 1e9);
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
static int online_cpus(struct pm_intlist *out)
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
		if (pm_intlist_parse(buf, 0, UINT32_MAX - 1, out, why, sizeof(why)) == 0)
			return 0;
	}
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(buf, sizeof(buf), "0-%ld", ncpu > 0 ? ncpu - 1 : 0);
		return pm_intlist_parse(buf, 0, UINT32_MAX - 1, out, why, sizeof(why));
	}
}

/* A word of --runs: digits, '-' and ',' only (a command never looks like that). */
static int is_cpulist_word(const char *s)
{
	return s && *s && *s != '-' && strspn(s, "0123456789-,") == strlen(s);
}

static int in_list(const struct pm_intlist *l, uint32_t v)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i] == v)
			return 1;
	return 0;
}

/* A CPU expression (common/cpuexpr.h, docs/cpu-expressions.md) as a cpulist in out: a plain OS
 * CPU list ("0-3,8", "1-7:2") is copied unchanged (so it behaves exactly as before expressions);
 * anything else is evaluated on this machine's hwloc topology. Returns 0, or -1 with why. */
static int expand_cpus(const char *text, char *out, size_t size, char *why, size_t whysize)
{
	hwloc_topology_t topo;
	struct pm_cpuexpr e;
	int rc;

	if (strspn(text, "0123456789-,:") == strlen(text)) {
		snprintf(out, size, "%s", text);
		return 0;
	}
	if (hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0) {
		snprintf(why, whysize, "cannot read the machine's topology (hwloc): %s", strerror(errno));
		return -1;
	}
	rc = pm_cpuexpr_parse(topo, text, &e, why, whysize);
	hwloc_topology_destroy(topo);
	if (rc < 0)
		return -1;
	pm_intlist_format(&e.set, out, size);
	pm_cpuexpr_free(&e);
	return 0;
}

/* Parses the cpulist text into set and l, every CPU online; prints the error and returns -1. */
static int cpu_list(const char *text, const struct pm_intlist *online, const char *online_text,
		    cpu_set_t *set, struct pm_intlist *l)
{
	char why[256];

	char list[4096];

	if (expand_cpus(text, list, sizeof(list), why, sizeof(why)) < 0 ||
	    pm_intlist_parse(list, 0, UINT32_MAX - 1, l, why, sizeof(why)) < 0) {
		pm_cli_error("invalid CPU list '%s': %s", text, why);
		return -1;
	}
	CPU_ZERO(set);
	for (size_t i = 0; i < l->n; i++) {
		if (!in_list(online, l->v[i]) || l->v[i] >= CPU_SETSIZE) {
			pm_cli_error("invalid CPU list '%s': CPU %u is not online (online: %s)", text,
				      l->v[i], online_text);
			return -1;
		}
		CPU_SET(l->v[i], set);
	}
	return 0;
}

/* Pins pmcollect to the highest CPU it may use that the program does not, so a 1-CPU baseline keeps
 * its CPU to itself; without one, back to the start affinity. Returns the CPU or -1. */
static int pin_collector(const cpu_set_t *start, const cpu_set_t *prog, const struct pm_intlist *online)
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
			pm_cli_error("cannot remove '%s': %s", path, strerror(errno));
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
			pm_cli_error("'%s' already exists (use --force to overwrite it)", path);
		else
			pm_cli_error("cannot create '%s': %s", path, strerror(errno));
	}
	return fd;
}

#define PMC_MAX_LABELS 32
/* Creates the trace of an expanded -o template (collector/rank.h): missing directories made
 * (another rank making one at the same moment is fine), the file with O_EXCL; with force an
 * existing regular file or link is replaced first. Returns the descriptor or -1 after reporting. */
static int create_rank_output(const char *path, int force)
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
	const char *threads_list;   /* -t with more than one count (--omp-regions), NULL = none */
	int omp_regions;            /* --omp-regions */
	const char *omp_runtime;    /* --omp-runtime: "llvm" or a libomp path, NULL = the program's */
	const char *omp_events;     /* --omp-events: PAPI event names or "none", NULL = default */
	const char *labels[PMC_MAX_LABELS]; /* -l KEY=VALUE, nlabels of them (META "labels") */
	size_t nlabels;
	int interfere;              /* --interfere given: interference_kind is set */
	enum pmc_interferer_kind interfere_kind;
	const char *levels;         /* --levels, NULL = 0 .. one per interferer CPU */
	const char *interfere_cpus; /* --interfere-cpus, NULL = placed by hwloc */
	unsigned csthr_l2;          /* --csthr-l2: CSThr buffer in L2 sizes, 0 = default */
	int calibrate_interference; /* --calibrate-interference */
	const char *interference_file; /* --interference-file, NULL = the default path */
	char **argv;                /* the command, NULL-terminated */
	int argc;
};

/* What pmcollect sets up and holds while it records; session_close releases it all. */
struct session {
	struct pm_intlist online;  /* /sys/devices/system/cpu/online, read once */
	char online_text[4096];
	/* the CPUs pmcollect may use: online ∩ its affinity ∩ its cgroup's cpuset (issue 19) */
	struct pmc_usable_cpus usable;
	int collector_shared;       /* a baseline had every CPU pmcollect may use (warned once) */
	char shared_msg[4096];      /* that warning, for a WARNING record once the trace is open */
	struct pm_intlist cpus;    /* --cpus */
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
	struct pmc_energy *energy;  /* NULL: none, energy_why says why */
	char energy_why[1024];
	int pc_fd, ts_fd;
	uint16_t ts_family;
	/* one rank of an MPI or Slurm job (collector/rank.h) */
	struct pmc_rank rank;
	int in_job;                 /* a launcher variable was set */
	int node_readings;          /* this process takes the whole-node readings (local rank 0) */
	int output_template;        /* -o had a placeholder: ss->output holds the expanded name */
	char output[4096];
	/* the runs' totals for SUMMARY */
	struct pmc_run_result total;
	size_t nruns_done;
	struct pmc_omp_opts omp;    /* --omp-regions: the tool and the preloaded runtime */
	char omp_why[1024];         /* why --omp-regions cannot work at all ("" when it can) */
	/* --interfere / --calibrate-interference (plan_interference) */
	int interfering;            /* the plan's runs have interferers */
	int have_cal;               /* isess.cal holds the machine's calibration */
	struct pmc_isess isess;
	hwloc_topology_t topo;
	char interference_file[4096];
	/* --sweep: its plan, and the allowed CPUs in compact order (the first k for k cores) */
	struct pmc_sweep_plan sweep;
	uint32_t *compact;
	size_t ncompact;
};

/* --omp-events LIST: "none", or 1..PMOMPT_MAX_EVENTS comma-separated names without spaces, each
 * shorter than 128 bytes (PAPI_MAX_STR_LEN). Returns 0, or -1 with why. */
static int check_omp_events(const char *list, char *why, size_t whysize)
{
	unsigned n = 0;

	if (!strcmp(list, "none"))
		return 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		if (!len) {
			snprintf(why, whysize, "an empty event name");
			return -1;
		}
		if (len >= 128 || strcspn(p, " \t\n") < len) {
			snprintf(why, whysize, "event name '%.*s' %s", (int)(len < 40 ? len : 40), p,
				 len >= 128 ? "is 128 bytes or longer" : "has a space in it");
			return -1;
		}
		if (++n > PMOMPT_MAX_EVENTS) {
			snprintf(why, whysize, "more than %d events", PMOMPT_MAX_EVENTS);
			return -1;
		}
		p += len;
		if (!*p)
			return 0;
	}
}

/* Parses the command line into o (getopt_long with a leading '+': the command's own options are
 * left alone). Returns -1 to go on, or the exit status: 0 after --help / --version, 2 after a
 * usage error (reported). */
static int parse_options(int argc, char **argv, struct pmc_opts *o)
{
	enum { OPT_MEMBIND = 256, OPT_INTERLEAVE, OPT_SCHED, OPT_NO_SCHED, OPT_SCHED_BUFFER,
	       OPT_CALIBRATE, OPT_RUNS, OPT_OMP_REGIONS, OPT_OMP_RUNTIME, OPT_OMP_EVENTS, OPT_INTERFERE, OPT_LEVELS, OPT_CSTHR_L2,
	       OPT_REPEAT, OPT_INTERFERE_CPUS, OPT_CAL_INTERFERE, OPT_INTERFERENCE_FILE, OPT_SWEEP,
	       OPT_NO_BASELINE, OPT_PROGRESS };
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
		{ "omp-regions", no_argument, NULL, OPT_OMP_REGIONS },
		{ "omp-runtime", required_argument, NULL, OPT_OMP_RUNTIME },
		{ "omp-events", required_argument, NULL, OPT_OMP_EVENTS },
		{ "label", required_argument, NULL, 'l' },
		{ "interfere", required_argument, NULL, OPT_INTERFERE },
		{ "levels", required_argument, NULL, OPT_LEVELS },
		{ "csthr-l2", required_argument, NULL, OPT_CSTHR_L2 },
		{ "interfere-cpus", required_argument, NULL, OPT_INTERFERE_CPUS },
		{ "calibrate-interference", no_argument, NULL, OPT_CAL_INTERFERE },
		{ "interference-file", required_argument, NULL, OPT_INTERFERENCE_FILE },
		{ "sweep", required_argument, NULL, OPT_SWEEP },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "no-baseline", no_argument, NULL, OPT_NO_BASELINE },
		{ "user", required_argument, NULL, 'u' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char why[512];
	long v;
	int c;

	opterr = 0; /* messages in our grammar, not getopt's */
	while ((c = getopt_long(argc, argv, "+:o:fi:C:t:e:l:u:qhV", longopts, NULL)) != -1) {
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
				pm_cli_error("invalid interval '%s': want milliseconds from 0.1 to 10000",
					      optarg);
				return PMT_EXIT_USAGE;
			}
			break;
		case 'C':
			o->cpus = optarg;
			break;
		case 't':
			if (optarg[0] && strspn(optarg, "0123456789") != strlen(optarg) &&
			    is_cpulist_word(optarg)) {
				/* a list: checked in plan_runs (it needs --omp-regions) */
				o->threads_list = optarg;
				break;
			}
			o->threads_list = NULL;
			if (pm_cli_parse_long(optarg, 1, 1000000, &v) < 0) {
				pm_cli_error("invalid thread count '%s': want 1 to 1000000", optarg);
				return PMT_EXIT_USAGE;
			}
			o->threads = (int)v;
			break;
		case OPT_MEMBIND:
		case OPT_INTERLEAVE:
			if (o->mem_nodes) {
				pm_cli_error("--membind and --interleave cannot be combined");
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
			if (pm_cli_parse_long(optarg, 4, 4194304, &v) < 0) {
				pm_cli_error("invalid --sched-buffer-kb '%s': want KiB from 4 to 4194304",
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
			/* CPU expressions ("S0:0-3", "E:N:4") only inside the option's own value:
			 * the words after it are taken as lists only when they are plain ones */
			for (tok = strtok_r(buf, " \t", &save); tok && !bad; tok = strtok_r(NULL, " \t", &save)) {
				char list[4096], e[300];
				if (expand_cpus(tok, list, sizeof(list), e, sizeof(e)) < 0) {
					snprintf(why, sizeof(why), "invalid CPU list '%.100s': %s", tok, e);
					bad = 1;
				} else {
					bad = pmc_plan_add(&o->runs, list, why, sizeof(why)) < 0;
				}
			}
			while (!bad && optind < argc && is_cpulist_word(argv[optind]))
				bad = pmc_plan_add(&o->runs, argv[optind++], why, sizeof(why)) < 0;
			if (bad) {
				pm_cli_error("invalid --runs: %s", why);
				return PMT_EXIT_USAGE;
			}
			break;
		}
		case OPT_OMP_REGIONS:
			o->omp_regions = 1;
			break;
		case OPT_OMP_RUNTIME:
			if (strcmp(optarg, "llvm") != 0 && optarg[0] != '/' && optarg[0] != '.') {
				pm_cli_error("invalid --omp-runtime '%s': want 'llvm' or the path of a "
					      "libomp", optarg);
				return PMT_EXIT_USAGE;
			}
			o->omp_runtime = optarg;
			break;
		case OPT_OMP_EVENTS: {
			char ewhy[160];
			if (check_omp_events(optarg, ewhy, sizeof(ewhy)) < 0) {
				pm_cli_error("invalid --omp-events '%.200s': %s", optarg, ewhy);
				return PMT_EXIT_USAGE;
			}
			o->omp_events = optarg;
			break;
		}
		case 'l': {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || eq - optarg > 64 || strlen(eq + 1) > 256) {
				pm_cli_error("invalid label '%s': want KEY=VALUE (key up to 64 bytes, "
					      "value up to 256)", optarg);
				return PMT_EXIT_USAGE;
			}
			if (o->nlabels == PMC_MAX_LABELS) {
				pm_cli_error("too many labels: at most %d", PMC_MAX_LABELS);
				return PMT_EXIT_USAGE;
			}
			o->labels[o->nlabels++] = optarg;
			break;
		}
		case OPT_INTERFERE:
			if (pmc_interfere_kind_parse(optarg, &o->interfere_kind) < 0) {
				pm_cli_error("invalid --interfere '%s': use cache or bandwidth", optarg);
				return PMT_EXIT_USAGE;
			}
			o->interfere = 1;
			break;
		case OPT_LEVELS:
			o->levels = optarg;
			break;
		case OPT_CSTHR_L2: {
			char *end;
			unsigned long n;

			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || n < 2 || n > 64) {
				pm_cli_error("invalid --csthr-l2 '%s': want a whole number of L2 sizes, 2 to 64",
					      optarg);
				return PMT_EXIT_USAGE;
			}
			o->csthr_l2 = (unsigned)n;
			break;
		}
		case OPT_INTERFERE_CPUS:
			o->interfere_cpus = optarg;
			break;
		case OPT_CAL_INTERFERE:
			o->calibrate_interference = 1;
			break;
		case OPT_INTERFERENCE_FILE:
			o->interference_file = optarg;
			break;
		case OPT_SWEEP:
			o->sweep = optarg;
			break;
		case OPT_REPEAT:
			if (pm_cli_parse_long(optarg, 1, REPEAT_MAX, &v) < 0) {
				pm_cli_error("invalid --repeat '%s': want 1 to %d", optarg, REPEAT_MAX);
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
		case OPT_PROGRESS:
			progress_forced = 1;
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
	if (o->omp_runtime && !o->omp_regions)
		return usage_error("--omp-runtime needs --omp-regions");
	if (o->omp_events && !o->omp_regions)
		return usage_error("--omp-events needs --omp-regions");
	if (o->threads_list && !o->omp_regions)
		return usage_error("a list of thread counts (-t %s) needs --omp-regions", o->threads_list);
	if (o->threads_list && o->calibrate)
		return usage_error("a list of thread counts cannot be combined with --calibrate or --runs");
	if (o->levels && !o->interfere)
		return usage_error("--levels needs --interfere");
	if (o->csthr_l2 && !o->calibrate_interference && !(o->interfere && o->interfere_kind == PMC_CSTHR))
		return usage_error("--csthr-l2 needs --calibrate-interference or --interfere cache");
	if (o->sweep && (o->interfere || o->calibrate_interference))
		return usage_error("--sweep cannot be combined with --interfere or --calibrate-interference");
	if (o->sweep && o->calibrate) {
		pm_cli_error("--sweep cannot be combined with --calibrate or --runs");
		return PMT_EXIT_USAGE;
	}
	if (o->repeat && !o->sweep && !o->calibrate && !o->interfere) {
		pm_cli_error("--repeat needs --sweep, --calibrate or --interfere");
		return PMT_EXIT_USAGE;
	}
	if (o->no_baseline && !o->sweep) {
		pm_cli_error("--no-baseline needs --sweep");
		return PMT_EXIT_USAGE;
	}
	if (optind >= argc && o->calibrate_interference && !o->interfere)
		return -1; /* the calibration alone */
	if (optind >= argc)
		return usage_error("no command given");
	if (o->calibrate_interference && !o->interfere)
		return usage_error("--calibrate-interference with a command needs --interfere (or give "
				   "no command to calibrate only)");
	o->argv = argv + optind;
	o->argc = argc - optind;
	return -1;
}

/* -t LIST with --omp-regions: one run of the plain plan per thread count, in the list's order,
 * each with its OMP_NUM_THREADS (the per-thread-count runs of Allande et al. §3.1); without --cpus
 * on several packages each run on the first package's cores (pmc_plan_thread_list). Returns 0,
 * or after reporting PMT_EXIT_USAGE (a bad list) or PMT_EXIT_FAILURE (hwloc failed). */
static int plan_thread_list(const struct pmc_opts *o, struct session *ss)
{
	struct pm_intlist l = { 0 };
	uint32_t threads[PMC_PLAN_MAX_RUNS];
	char why[256];

	if (pm_intlist_parse(o->threads_list, 1, 1000000, &l, why, sizeof(why)) < 0) {
		pm_cli_error("invalid thread counts '%s': %s", o->threads_list, why);
		return PMT_EXIT_USAGE;
	}
	if (l.n > PMC_PLAN_MAX_RUNS) {
		pm_cli_error("invalid thread counts '%s': %zu runs, at most %d", o->threads_list, l.n,
			      PMC_PLAN_MAX_RUNS);
		pm_intlist_free(&l);
		return PMT_EXIT_USAGE;
	}
	for (size_t i = 0; i < l.n; i++)
		threads[i] = l.v[i];
	if (pmc_plan_thread_list(&ss->plan, &ss->plan.runs[0], threads, l.n, ss->usable.text,
				 !o->cpus, why, sizeof(why)) < 0) {
		pm_cli_error("cannot plan the runs of '-t %s': %s", o->threads_list, why);
		pm_intlist_free(&l);
		return PMT_EXIT_FAILURE;
	}
	pm_intlist_free(&l);
	return 0;
}

/* The per-thread region counters of --omp-regions (ss->omp.events): --omp-events, else the cycles
 * and LLC-miss events of pmcollect's own counters when they opened (what Allande's eq. 2 needs,
 * and few enough to sit beside the process counters without multiplexing); else none, and why. */
static void omp_events(const struct pmc_opts *o, struct session *ss, const char *papi_why)
{
	size_t len = 0;

	ss->omp.events[0] = 0;
	if (o->omp_events && !strcmp(o->omp_events, "none")) {
		snprintf(ss->omp.events_why, sizeof(ss->omp.events_why), "--omp-events none");
	} else if (o->omp_events) {
		snprintf(ss->omp.events, sizeof(ss->omp.events), "%s", o->omp_events); /* checked: fits */
	} else if (!ss->counters) {
		snprintf(ss->omp.events_why, sizeof(ss->omp.events_why), "hardware counters unavailable: %s",
			 papi_why);
	} else {
		for (uint32_t i = 0; i < pmc_counters_count(ss->counters); i++) {
			const char *name = pmc_counters_name(ss->counters, i);
			int kind = pmc_counter_kind(name);
			if (kind != PMC_KIND_CYCLES && kind != PMC_KIND_LLC_MISSES)
				continue;
			len += (size_t)snprintf(ss->omp.events + len, sizeof(ss->omp.events) - len, "%s%s",
						len ? "," : "", name);
		}
		if (!len)
			snprintf(ss->omp.events_why, sizeof(ss->omp.events_why), "pmcollect's counters (-e) "
				 "have no cycles or LLC-miss event; name them with --omp-events");
	}
}

/* --omp-regions: finds the tool and, with --omp-runtime, the runtime to preload. A missing tool
 * is not fatal: the program is recorded without regions and the trace says why (META
 * sources.omp_regions). */
static void omp_setup(const struct pmc_opts *o, struct session *ss)
{
	char why[1024];

	if (pmc_omp_find_tool(ss->omp.tool, sizeof(ss->omp.tool), why, sizeof(why)) < 0) {
		snprintf(ss->omp_why, sizeof(ss->omp_why), "%s", why);
		return;
	}
	if (!o->omp_runtime)
		return;
	if (strcmp(o->omp_runtime, "llvm") == 0) {
		if (pmc_omp_find_libomp(ss->omp.preload, sizeof(ss->omp.preload), why, sizeof(why)) < 0) {
			snprintf(ss->omp_why, sizeof(ss->omp_why), "%s", why);
			return;
		}
	} else if (!realpath(o->omp_runtime, ss->omp.preload)) {
		snprintf(ss->omp_why, sizeof(ss->omp_why), "--omp-runtime '%s': %s", o->omp_runtime,
			 strerror(errno));
		return;
	}
	{
		char msg[4200];
		snprintf(msg, sizeof(msg), "--omp-runtime: the program runs on %s instead of its own "
			 "OpenMP runtime (behaviour and timings may change)", ss->omp.preload);
		warn_user(msg);
	}
}

/* What pmcollect may use, for messages: "CPUs 0 (affinity 0, cgroup cpuset 0-1, online 0-1)". */
static void usable_desc(const struct session *ss, char *buf, size_t size)
{
	int o = snprintf(buf, size, "CPUs %.400s (affinity %.400s", ss->usable.text,
			 ss->usable.affinity[0] ? ss->usable.affinity : "unknown");
	if (o > 0 && (size_t)o < size && ss->usable.cgroup_cpus[0])
		o += snprintf(buf + o, size - (size_t)o, ", cgroup cpuset %.400s", ss->usable.cgroup_cpus);
	if (o > 0 && (size_t)o < size)
		snprintf(buf + o, size - (size_t)o, ", online %.400s)", ss->online_text);
}

/* Errors out (usage, 2) when a CPU of l (given as text) is outside the CPUs pmcollect may use:
 * the program could not be pinned there. Returns 0 or -1 after reporting. */
static int check_usable(const char *text, const struct pm_intlist *l, const struct session *ss)
{
	char desc[2048];

	for (size_t i = 0; i < l->n; i++) {
		if (in_list(&ss->usable.cpus, l->v[i]))
			continue;
		usable_desc(ss, desc, sizeof(desc));
		pm_cli_error("invalid CPU list '%s': CPU %u is not one pmcollect may use: %s", text,
			      l->v[i], desc);
		return -1;
	}
	return 0;
}

/* pin_collector for a run on the CPUs of ss->prog_cpus (the cpulist prog), with a warning (once)
 * when a baseline run leaves no CPU for the collector outside them: the estimators read the
 * program's run-queue waits, and the collector's sampling would add to them (issue 19, case 3;
 * FIELD-NOTES). Counted in SUMMARY "warnings". Returns the CPU or -1. */
static int pin_or_warn(struct session *ss, const char *prog, enum pmc_run_role role)
{
	int cpu = ss->have_start_cpus ? pin_collector(&ss->start_cpus, &ss->prog_cpus, &ss->online) : -1;
	char *msg = ss->shared_msg, desc[2048];

	if (cpu >= 0 || role != PMC_ROLE_BASELINE || ss->collector_shared)
		return cpu;
	ss->collector_shared = 1;
	ss->total.warnings++;
	usable_desc(ss, desc, sizeof(desc));
	snprintf(msg, sizeof(ss->shared_msg), "the collector shares the program's CPUs %.200s: pmcollect may use "
		 "%.1800s, none outside the program's, so its sampling takes CPU time from the program "
		 "(give pmcollect one CPU more than the program: taskset -c %.200s,N pmcollect --cpus "
		 "%.200s ...)", prog, desc, prog, prog);
	warn_user(msg);
	return cpu;
}

/* The program's CPUs beside the interferers when --cpus is not given: the CPUs pmcollect may use
 * (allowed) minus the interferers' cores (so no SMT sibling of an interferer runs the program),
 * as a cpulist into buf. Returns the count (0: none left). */
static int program_cpus_beside(hwloc_topology_t topo, const char *allowed, const int *icpus, size_t n,
			       char *buf, size_t size)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int w;

	if (!set || hwloc_bitmap_list_sscanf(set, allowed) != 0) {
		hwloc_bitmap_free(set);
		return 0;
	}
	for (size_t j = 0; j < n; j++) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, (unsigned)icpus[j]);
		hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu) : NULL;
		if (core)
			hwloc_bitmap_andnot(set, set, core->cpuset);
		hwloc_bitmap_clr(set, (unsigned)icpus[j]);
	}
	hwloc_bitmap_list_snprintf(buf, size, set);
	w = hwloc_bitmap_weight(set);
	hwloc_bitmap_free(set);
	return w > 0 ? w : 0;
}

/* The CSThr buffer (is->csthr_bytes) for the first interferer CPU: l2x times its L2 when l2x > 0
 * (--csthr-l2; an error line when hwloc shows no L2 there), else the paper's 4 MB (§5.1), or 2x
 * the L2 where 4 MB is not larger than the L2 (a CSThr within its own core's cache takes none of
 * the shared one, §2.2), or 4 MB where hwloc shows no L2. Returns 0, or -1 after the error line. */
static int csthr_size(hwloc_topology_t topo, struct pmc_isess *is, unsigned l2x)
{
	char why[256];

	if (l2x) {
		if (pmc_csthr_bytes(topo, is->cpus[0], l2x, &is->csthr_bytes, why, sizeof(why)) < 0) {
			pm_cli_error("cannot use --csthr-l2 %u: %s", l2x, why);
			return -1;
		}
		return 0;
	}
	if (pmc_csthr_bytes(topo, is->cpus[0], 0, &is->csthr_bytes, why, sizeof(why)) == 0)
		return 0;
	if (pmc_csthr_bytes(topo, is->cpus[0], 2, &is->csthr_bytes, why, sizeof(why)) < 0)
		is->csthr_bytes = PMC_CSTHR_DEFAULT_BYTES; /* no L2 in the topology */
	return 0;
}

/* --interfere / --calibrate-interference: the interferers' CPUs (--interfere-cpus, else hwloc's
 * placement: Casas & Bronevetsky §2, CPUs sharing the program's last-level cache that are not SMT
 * siblings of its CPUs), the program's CPUs (--cpus, else the rest), the machine file (read
 * unless it is to be measured now), the levels and the run plan. Returns -1 to go on, or the
 * exit status after reporting. */
static int plan_interference(const struct pmc_opts *o, struct session *ss)
{
	struct pmc_isess *is = &ss->isess;
	struct pm_intlist lv = { 0 };
	const char *allowed = ss->usable.text;
	char why[512], prog[4096], sig[512];
	uint32_t nprog, levels[PMC_PLAN_MAX_RUNS];
	size_t nlevels = 0;
	int n;

	if (o->calibrate)
		return usage_error("--interfere and --calibrate-interference cannot be combined with "
				   "--calibrate or --runs");
	if (hwloc_topology_init(&ss->topo) != 0 || hwloc_topology_load(ss->topo) != 0) {
		pm_cli_error("cannot read the machine's topology (hwloc): %s", strerror(errno));
		return PMT_EXIT_FAILURE;
	}
	if (o->interfere_cpus) {
		struct pm_intlist l = { 0 };
		cpu_set_t set;
		if (cpu_list(o->interfere_cpus, &ss->online, ss->online_text, &set, &l) < 0)
			return PMT_EXIT_USAGE;
		/* a thread's affinity may name any online CPU, even one outside pmcollect's own
		 * (taskset, a cgroup cpuset): refuse those, as --cpus does */
		if (check_usable(o->interfere_cpus, &l, ss) < 0) {
			pm_intlist_free(&l);
			return PMT_EXIT_USAGE;
		}
		n = (int)l.n;
		for (size_t j = 0; j < l.n && n <= PMC_CAL_MAX_K; j++) {
			if (o->cpus && in_list(&ss->cpus, l.v[j])) {
				pm_intlist_free(&l);
				pm_cli_error("--interfere-cpus %s overlaps --cpus %s: the interferers need "
					      "CPUs of their own", o->interfere_cpus, ss->cpus_text);
				return PMT_EXIT_USAGE;
			}
			is->cpus[j] = (int)l.v[j];
		}
		pm_intlist_free(&l);
		if (n > PMC_CAL_MAX_K) {
			pm_cli_error("invalid --interfere-cpus '%s': at most %d CPUs", o->interfere_cpus,
				      PMC_CAL_MAX_K);
			return PMT_EXIT_USAGE;
		}
	} else {
		/* without --cpus the program's anchor is the first CPU pmcollect may use (the usable
		 * set is sorted; its text is a cpulist such as "0-1", not one CPU) */
		char anchor[16];
		if (ss->usable.cpus.n < 2) {
			pm_cli_error("cannot place the interferers: pmcollect may use %s CPU (%s), and the "
				      "program and the interferers need CPUs of their own; give pmcollect more "
				      "CPUs, or choose the interferers' CPUs with --interfere-cpus",
				      ss->usable.cpus.n ? "only one" : "no", ss->usable.text);
			return PMT_EXIT_USAGE;
		}
		if (!o->cpus)
			snprintf(anchor, sizeof(anchor), "%u", ss->usable.cpus.v[0]);
		n = pmc_interfere_place(ss->topo, o->cpus ? ss->cpus_text : anchor, allowed, is->cpus,
					PMC_CAL_MAX_K, why, sizeof(why));
		if (n < 0) {
			pm_cli_error("cannot place the interferers: %s", why);
			return PMT_EXIT_USAGE;
		}
	}
	is->ncpus = (size_t)n;
	{
		struct pm_intlist l = { .v = (uint32_t[PMC_CAL_MAX_K]){ 0 }, .n = is->ncpus };
		for (size_t j = 0; j < is->ncpus; j++)
			l.v[j] = (uint32_t)is->cpus[j];
		pm_intlist_format(&l, is->cpus_text, sizeof(is->cpus_text));
	}
	/* the program's CPUs */
	if (o->cpus) {
		snprintf(prog, sizeof(prog), "%s", ss->cpus_text);
		nprog = (uint32_t)ss->cpus.n;
	} else {
		nprog = (uint32_t)program_cpus_beside(ss->topo, allowed, is->cpus, is->ncpus, prog, sizeof(prog));
		if (nprog == 0) {
			pm_cli_error("no CPU is left for the program beside the interferers' (%s): give "
				      "fewer with --interfere-cpus", is->cpus_text);
			return PMT_EXIT_USAGE;
		}
	}
	if (csthr_size(ss->topo, is, o->csthr_l2) < 0)
		return PMT_EXIT_USAGE;
	/* the machine file */
	if (o->interference_file)
		snprintf(ss->interference_file, sizeof(ss->interference_file), "%s", o->interference_file);
	else if (pmc_interference_file_default(ss->interference_file, sizeof(ss->interference_file), why,
					       sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	if (!o->calibrate_interference) {
		if (pmc_cal_topology_signature(ss->topo, sig, sizeof(sig)) < 0 ||
		    pmc_cal_read(ss->interference_file, sig, 1, &is->cal, why, sizeof(why)) < 0) {
			pm_cli_error("no usable interference calibration: %s (measure this machine with "
				      "pmcollect --calibrate-interference)", why);
			return PMT_EXIT_USAGE;
		}
		if (!(is->cal.B_bytes_per_s > 0) || !(is->cal.BW1_bytes_per_s > 0) || is->cal.ncap == 0) {
			pm_cli_error("no usable interference calibration: '%s' has no B, BW1 or capacity "
				      "(measure this machine with pmcollect --calibrate-interference)",
				      ss->interference_file);
			return PMT_EXIT_USAGE;
		}
		ss->have_cal = 1;
		/* one machine file per host is shared by its users: say when another made it */
		if (pmc_cal_foreign(&is->cal, why, sizeof(why)))
			pm_cli_warning("machine file '%s': %s", ss->interference_file, why);
		if (o->interfere_kind == PMC_CSTHR && is->cal.csthr_bytes && is->cal.csthr_bytes != is->csthr_bytes) {
			if (o->csthr_l2) {
				pm_cli_error("--csthr-l2 %u gives CSThr buffers of %zu bytes, but the machine "
					      "file '%s' measured the capacity left with %llu (recalibrate with "
					      "--calibrate-interference --csthr-l2 %u)", o->csthr_l2,
					      is->csthr_bytes, ss->interference_file,
					      (unsigned long long)is->cal.csthr_bytes, o->csthr_l2);
				return PMT_EXIT_USAGE;
			}
			is->csthr_bytes = (size_t)is->cal.csthr_bytes; /* the curve's "left" is per that size */
		}
	}
	if (!o->interfere)
		return -1; /* the calibration alone: no runs */
	/* the levels: 0 first, increasing, at most one interferer per CPU */
	{
		char dflt[32];
		snprintf(dflt, sizeof(dflt), "0-%zu", is->ncpus);
		if (pm_intlist_parse(o->levels ? o->levels : dflt, 0, PMC_CAL_MAX_K, &lv, why, sizeof(why)) < 0) {
			pm_cli_error("invalid --levels '%s': %s", o->levels, why);
			return PMT_EXIT_USAGE;
		}
	}
	if (lv.n < 2 || lv.v[0] != 0 || lv.v[lv.n - 1] > is->ncpus || lv.n > PMC_PLAN_MAX_RUNS) {
		/* lv is sorted and deduplicated: "0" and "0,0" are one level, no curve (pmanalyze
		 * needs k = 0 and at least one k > 0) */
		pm_cli_error("invalid --levels '%s': want 0 and at least one more level up to %zu (one "
			      "interferer per CPU of --interfere-cpus %s)", o->levels ? o->levels : "",
			      is->ncpus, is->cpus_text);
		pm_intlist_free(&lv);
		return PMT_EXIT_USAGE;
	}
	for (size_t i = 0; i < lv.n; i++)
		levels[nlevels++] = lv.v[i];
	pm_intlist_free(&lv);
	if (o->interfere_kind == PMC_CSTHR && ss->have_cal && levels[nlevels - 1] >= is->cal.ncap) {
		pm_cli_error("invalid --levels: the machine file '%s' has the capacity left for up to %zu "
			      "CSThrs (recalibrate with more --interfere-cpus)", ss->interference_file,
			      is->cal.ncap - 1);
		return PMT_EXIT_USAGE;
	}
	is->kind = o->interfere_kind;
	if (pmc_plan_interfere(&ss->plan, prog, nprog, levels, nlevels,
			       o->repeat ? (uint32_t)o->repeat : INTERFERE_REPEAT_DEFAULT, why, sizeof(why)) < 0) {
		pm_cli_error("cannot plan the interference runs: %s", why);
		return PMT_EXIT_USAGE;
	}
	/* the program's CPU set for pin_collector and META */
	{
		struct pm_intlist l = { 0 };
		(void)cpu_list(prog, &ss->online, ss->online_text, &ss->prog_cpus, &l);
		pm_intlist_free(&l);
	}
	ss->interfering = 1;
	return -1;
}

static uint64_t cal_start_ns; /* when calibrate_interference started measuring */

/* pmc_cal_params.progress: the calibration's steps as [k/N] lines. */
static void cal_progress(void *arg, unsigned step, unsigned nsteps, const char *what)
{
	(void)arg;
	progress(step, nsteps, cal_start_ns, "%s", what);
}

/* --calibrate-interference: measures the machine (Casas & Bronevetsky §3, interfere_cal.h) with
 * the probe on the program's first CPU and the interferers on theirs, prints the result on stderr
 * and writes the machine file. Returns -1 to go on, or the exit status after reporting. */
static int calibrate_interference(struct session *ss)
{
	struct pmc_isess *is = &ss->isess;
	struct pmc_interference_cal *cal = &is->cal;
	struct pmc_cal_params p;
	char why[512];
	int probe = -1;

	for (int c = 0; c < CPU_SETSIZE && probe < 0; c++)
		if (CPU_ISSET(c, &ss->prog_cpus))
			probe = c;
	if (probe < 0) { /* calibration alone: the first CPU that is not an interferer's */
		for (size_t i = 0; i < ss->online.n && probe < 0; i++) {
			int c = (int)ss->online.v[i], mine = 0;
			for (size_t j = 0; j < is->ncpus; j++)
				mine |= is->cpus[j] == c;
			if (!mine && (!ss->have_start_cpus || CPU_ISSET(c, &ss->start_cpus)))
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
	pmc_cal_params_topology(&p, ss->topo);
	cal_start_ns = pmc_now_ns();
	p.progress = cal_progress;
	if (!quiet)
		fprintf(stderr, "pmcollect: calibrating interference: probe on CPU %d, interferers on "
			"CPUs %s (BW1, B, capacity left with 0..%zu CSThrs, orthogonality)\n", probe,
			is->cpus_text, is->ncpus);
	if (pmc_cal_run(ss->topo, &p, cal, why, sizeof(why)) < 0) {
		pm_cli_error("calibration failed: %s", why);
		return PMT_EXIT_FAILURE;
	}
	ss->have_cal = 1;
	fprintf(stderr, "pmcollect: BW1 = %.2f GB/s (eq. 1 with %s), B = %.2f GB/s; capacity: %s method\n",
		cal->BW1_bytes_per_s / 1e9, cal->bw1_method == PMC_CAL_COUNTERS ? "counted LLC misses" :
		"misses = accesses", cal->B_bytes_per_s / 1e9,
		cal->method == PMC_CAL_TIMING ? "timing" : "counters");
	if (cal->counters_why[0] && !quiet)
		fprintf(stderr, "pmcollect: no LLC miss counters for the calibration: %s\n", cal->counters_why);
	for (size_t k = 0; k < cal->ncap; k++)
		fprintf(stderr, "pmcollect: capacity left with %zu CSThrs: %s%.1f MB (probe %.1f..%.1f ns "
			"per access)\n", k, cal->cap[k].valid ? "" : "not measurable, ",
			cal->cap[k].C_bytes / 1048576.0, cal->cap[k].t_l2_ns, cal->cap[k].t_dram_ns);
	fprintf(stderr, "pmcollect: BWThrs leaving the capacity unchanged (Fig. 11): %d\n", cal->orth_bwthrs);
	if (pmc_mkdir_parents(ss->interference_file, why, sizeof(why)) < 0 ||
	    pmc_cal_write(ss->interference_file, cal, why, sizeof(why)) < 0) {
		pm_cli_error("cannot write the machine file: %s", why);
		return PMT_EXIT_FAILURE;
	}
	if (!quiet)
		fprintf(stderr, "pmcollect: machine file '%s' written\n", ss->interference_file);
	return -1;
}

/* The job context (issue 18, docs/cluster.md): the rank from the launcher's variables, the
 * output name expanded from its template (into ss->output, o->output then points there), the
 * tracefs instance named after the rank, who takes the whole-node readings, and a warning when the
 * wrapped command is itself a launcher. Returns -1 to go on, or the exit status after reporting
 * (2: a variable that is not a number, a template that cannot be expanded). */
static int job_context(struct pmc_opts *o, struct session *ss)
{
	extern char **environ;
	char why[512], host[256];
	const char *launcher;

	if (pmc_rank_detect(environ, &ss->rank, why, sizeof(why)) < 0) {
		pm_cli_error("%s", why);
		return PMT_EXIT_USAGE;
	}
	ss->in_job = ss->rank.rank_var || ss->rank.local_rank_var || ss->rank.size_var ||
		     ss->rank.job_var;
	/* a rank whose local rank is unknown takes the readings too: better twice than never */
	ss->node_readings = !ss->in_job || ss->rank.local_rank <= 0;
	pmc_sched_set_rank(ss->rank.rank);
	if (strchr(o->output, '%')) {
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
		if (pmc_output_name(o->output, &ss->rank, host, (long)getpid(), ss->output,
				    sizeof(ss->output), why, sizeof(why)) < 0) {
			pm_cli_error("%s", why);
			return PMT_EXIT_USAGE;
		}
		ss->output_template = 1;
		o->output = ss->output;
	}
	launcher = o->argc > 0 && o->argv ? pmc_launcher_name(o->argv[0]) : NULL; /* none with --calibrate-interference alone */
	if (launcher) {
		char msg[512];
		snprintf(msg, sizeof(msg), "the command is the launcher '%s': this records the launcher, "
			 "not the ranks (put pmcollect inside it: %s ... pmcollect -o 'trace.%%r.zst' -- "
			 "./app)", launcher, launcher);
		warn_user(msg);
	}
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
		pm_cli_error("invalid user '%s': %s", name, why);
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
	const char *allowed = ss->usable.text; /* plan_runs read the usable CPUs */
	char why[512];
	int err;

	err = pmc_sweep_plan_make(o->sweep, o->repeat ? (uint32_t)o->repeat : 1,
				  (uint32_t)ss->usable.cpus.n, o->argv, !o->no_baseline, &ss->sweep,
				  why, sizeof(why));
	if (err < 0) {
		pm_cli_error("invalid --sweep '%s': %s", o->sweep,
			      strncmp(why, "--sweep: ", 9) == 0 ? why + 9 : why);
		return PMT_EXIT_USAGE;
	}
	if (ss->sweep.has_threads && o->threads > 0) {
		pm_cli_error("-t cannot be combined with a threads= sweep");
		return PMT_EXIT_USAGE;
	}
	ss->compact = calloc(ss->online.n ? ss->online.n : 1, sizeof(*ss->compact));
	if (!ss->compact) {
		pm_cli_error("%s", strerror(ENOMEM));
		return PMT_EXIT_FAILURE;
	}
	if (pmc_plan_compact_order(allowed, ss->compact, ss->online.n, &ss->ncompact, why,
				   sizeof(why)) < 0) {
		pm_cli_error("cannot plan the sweep's CPUs: %s", why);
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
		pm_cli_error("cannot read the online CPUs");
		return PMT_EXIT_FAILURE;
	}
	pm_intlist_format(&ss->online, ss->online_text, sizeof(ss->online_text));
	{
		/* taskset, a launcher's binding, a Slurm or container cpuset: the machine's usable CPUs */
		cpu_set_t aff;
		int have_aff = sched_getaffinity(0, sizeof(aff), &aff) == 0;
		if (pmc_usable_cpus_get("", &ss->online, have_aff ? &aff : NULL, &ss->usable, why,
					sizeof(why)) < 0) {
			pm_cli_error("cannot read the CPUs pmcollect may use: %s", why);
			return PMT_EXIT_FAILURE;
		}
	}
	if (o->calibrate && o->cpus)
		return usage_error("--cpus cannot be combined with --calibrate or --runs (give the "
				   "runs' CPUs with --runs)");
	if (o->sweep && o->cpus) {
		pm_cli_error("--cpus cannot be combined with --sweep (give the core counts in SPEC: "
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
		if (cpu_list(o->cpus, &ss->online, ss->online_text, &ss->prog_cpus, &ss->cpus) < 0 ||
		    check_usable(o->cpus, &ss->cpus, ss) < 0)
			return PMT_EXIT_USAGE;
		pm_intlist_format(&ss->cpus, ss->cpus_text, sizeof(ss->cpus_text));
	}
	if (o->interfere || o->calibrate_interference) {
		int r = plan_interference(o, ss);
		if (r >= 0)
			return r;
	} else if (o->sweep) {
		/* the runs are made one at a time from ss->sweep (sweep_run) */
	} else if (!o->calibrate && (o->cpus || !ss->usable.restricted)) {
		pmc_plan_single(&ss->plan, o->cpus ? ss->cpus_text : NULL, (uint32_t)ss->cpus.n,
				o->threads, (uint32_t)ss->online.n);
	} else if (!o->calibrate) {
		/* a restricted CPU set is the run's: a baseline when it has fewer CPUs than threads */
		pmc_plan_single(&ss->plan, ss->usable.text, (uint32_t)ss->usable.cpus.n, o->threads,
				(uint32_t)ss->online.n);
		CPU_ZERO(&ss->prog_cpus);
		for (size_t i = 0; i < ss->usable.cpus.n; i++)
			if (ss->usable.cpus.v[i] < CPU_SETSIZE)
				CPU_SET(ss->usable.cpus.v[i], &ss->prog_cpus);
	} else if (o->runs.n == 0) {
		if (pmc_plan_calibrate(&ss->plan, ss->usable.text, why, sizeof(why)) < 0) {
			pm_cli_error("cannot plan the calibration runs: %s", why);
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
		struct pm_intlist l = { 0 };
		cpu_set_t set;
		int bad = cpu_list(ss->plan.runs[i].cpus, &ss->online, ss->online_text, &set, &l) ||
			  check_usable(ss->plan.runs[i].cpus, &l, ss);
		pm_intlist_free(&l);
		if (bad)
			return PMT_EXIT_USAGE;
	}
	if (o->threads > 0) {
		char text[16];
		snprintf(text, sizeof(text), "%d", o->threads);
		(void)pmc_plan_setenv(&ss->plan, "OMP_NUM_THREADS", text); /* fits: 7 digits */
	}
	if (o->threads_list) {
		int ret = plan_thread_list(o, ss);
		if (ret)
			return ret;
	}
	if (o->omp_regions)
		omp_setup(o, ss);
	if (o->mem_nodes) {
		if (numa_available() < 0) {
			pm_cli_error("cannot use --%s: NUMA is not available on this machine",
				      strcmp(o->mem_mode, "bind") == 0 ? "membind" : "interleave");
			return PMT_EXIT_USAGE;
		}
		ss->mem_mask = numa_parse_nodestring(o->mem_nodes);
		if (!ss->mem_mask) {
			pm_cli_error("invalid NUMA node list '%s'", o->mem_nodes);
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
		pm_cli_error("cannot create a signalfd: %s", strerror(errno));
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

/* META sources.omp_regions (FORMAT.md §6, 1.2). */
static void omp_source(cJSON *meta, const struct session *ss)
{
	cJSON *src = cJSON_GetObjectItemCaseSensitive(meta, "sources");
	cJSON *e = src ? cJSON_AddObjectToObject(src, "omp_regions") : NULL;

	if (!e)
		return;
	cJSON_AddBoolToObject(e, "recorded", !ss->omp_why[0]);
	if (ss->omp_why[0]) {
		cJSON_AddStringToObject(e, "reason", ss->omp_why);
		return;
	}
	cJSON_AddStringToObject(e, "tool", ss->omp.tool);
	cJSON_AddStringToObject(e, "runtime", ss->omp.preload[0] ? "llvm-preload" : "program");
	if (ss->omp.preload[0])
		cJSON_AddStringToObject(e, "preload", ss->omp.preload);
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
	if (o->omp_regions)
		omp_events(o, ss, papi_why);
	ss->pc_fd = pmc_procconn_open(NETLINK_RCVBUF_BYTES, pc_why, sizeof(pc_why));
	src.procconn_why = ss->pc_fd < 0 ? pc_why : NULL;
	ss->ts_fd = pmc_taskstats_open(ss->online_text, NETLINK_RCVBUF_BYTES, &ss->ts_family, ts_why,
				       sizeof(ts_why));
	src.taskstats_why = ss->ts_fd < 0 ? ts_why : NULL;
	/* pin pmcollect to a CPU the program does not use, so a 1-CPU baseline keeps its CPU to
	 * itself (the runs of a plan pin again, each for its own CPUs) */
	if (o->cpus || ss->interfering || (!o->calibrate && ss->usable.restricted))
		ss->collector_cpu = pin_or_warn(ss, ss->plan.runs[0].cpus, ss->plan.runs[0].role);
	{
		struct pmc_clock_pair start;
		struct pmc_meta_input mi = {
			.argc = o->argc,
			.argv = o->argv,
			.interval_ms = o->interval_ms,
			.cpus = o->cpus ? ss->cpus_text : ss->interfering ? ss->plan.runs[0].cpus
						  : ss->usable.restricted ? ss->usable.text : NULL,
			.usable_cpus = ss->usable.text,
			.cgroup_cpus = ss->usable.cgroup_cpus[0] ? ss->usable.cgroup_cpus : NULL,
			.cgroup_file = ss->usable.cgroup_file,
			.online_cpus = ss->online_text,
			.collector_cpu = ss->collector_cpu,
			.mem_mode = o->mem_mode,
			.mem_nodes = o->mem_nodes,
			.start_mono_ns = pmc_now_ns(),
			.clocks = &start,
			.rank = ss->in_job ? &ss->rank : NULL,
			.node_readings = ss->node_readings,
			.affinity = ss->have_start_cpus ? &ss->start_cpus : NULL,
		};
		pmc_clock_pair_now(&start);
		err = pmc_meta_build(&mi, &meta, why, sizeof(why));
	}
	if (err < 0) {
		pm_cli_error("cannot describe the machine: %s", why);
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
	if (ss->have_cal) {
		cJSON *ic = pmc_cal_to_json(&ss->isess.cal);
		if (ic)
			cJSON_AddStringToObject(ic, "machine_file", ss->interference_file);
		if (!ic || !cJSON_AddItemToObject(meta, "interference", ic)) {
			cJSON_Delete(ic);
			cJSON_Delete(meta);
			pm_cli_error("cannot describe the machine: %s", strerror(ENOMEM));
			return -1;
		}
	}
	if (!ss->node_readings) {
		/* package energy is the whole node's: one reading per node (issue 18) */
		snprintf(ss->energy_why, sizeof(ss->energy_why), "taken by local rank 0 of this node "
			 "(package energy covers every rank on it)");
		ss->energy = NULL;
		src.energy_why = ss->energy_why;
	} else if (pmc_energy_open(&ss->energy, ss->energy_why, sizeof(ss->energy_why)) < 0) {
		ss->energy = NULL;
		src.energy_why = ss->energy_why;
	} else {
		src.energy = ss->energy;
	}
	err = add_labels(meta, o);
	if (err == 0)
		err = pmc_meta_add_sources(meta, &src, why, sizeof(why));
	if (err == 0 && o->omp_regions)
		omp_source(meta, ss);
	meta_text = err < 0 ? NULL : cJSON_PrintUnformatted(meta);
	cJSON_Delete(meta);
	if (!meta_text) {
		pm_cli_error("cannot describe the machine: %s", strerror(ENOMEM));
		return -1;
	}
	err = pmt_writer_open(&ss->w, ss->out_fd, meta_text, NULL);
	free(meta_text);
	if (err < 0) {
		/* pmt_writer_open leaves errno of a PMT_E_IO failure in errno */
		pm_cli_error("cannot write '%s': %s", o->output,
			      err == PMT_E_IO ? strerror(errno) : pmt_strerror(err));
		ss->w = NULL;
		return -1;
	}
	ss->started_writer = 1;
	/* META on disk at once: a rank killed before its first one-second flush (a launcher
	 * aborting the job while 64 collectors start) still leaves a trace that says which rank it
	 * was, instead of an empty file */
	err = pmt_writer_flush(ss->w);
	if (err < 0) {
		ss->writer_err = err;
		ss->writer_errno = pmt_writer_errno(ss->w);
	}
	return 0;
}

/* RUN_BEGIN "threads" of a run: its OMP_NUM_THREADS override (-t, one count of a -t list). */
static int run_threads(const struct pmc_opts *o, const struct pmc_plan_run *run)
{
	for (size_t i = 0; i < run->nenv; i++)
		if (strcmp(run->env[i].name, "OMP_NUM_THREADS") == 0)
			return atoi(run->env[i].value);
	return o->threads;
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
		.threads = run_threads(o, run),
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
		.omp = o->omp_regions && !ss->omp_why[0] ? &ss->omp : NULL,
		.energy = ss->energy,
		.energy_why = ss->energy_why,
		.user_hz = sysconf(_SC_CLK_TCK),
		.annotate = ss->interfering ? pmc_isess_annotate : NULL,
		.annotate_arg = &ss->isess,
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
	/* no runs: the interference calibration alone */
	int ret = nruns ? PMT_EXIT_FAILURE : PMT_EXIT_OK,
	    many = o->calibrate || o->sweep || o->threads_list; /* runs on CPUs of their own */
	char why[512];

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
			if (sweep_run(o, ss, i, &sweep_tmp) < 0) {
				pm_cli_error("run %zu of %zu: too many CPUs for one CPU list", i + 1, nruns);
				break;
			}
			argv = pmc_sweep_argv(o->argv, ss->sweep.runs[i].threads);
			if (!argv) {
				pm_cli_error("%s", strerror(ENOMEM));
				break;
			}
		}
		if (o->threads_list)
			progress(i + 1, nruns, plan_start_ns, "%d threads", run_threads(o, run));
		if (ss->interfering) {
			if (pmc_isess_start(&ss->isess, run->level_k, why, sizeof(why)) < 0) {
				pm_cli_error("cannot start the interferers: %s", why);
				ret = PMT_EXIT_FAILURE;
				break;
			}
			progress(i + 1, nruns, plan_start_ns, "interference: %u %s on CPUs %s, program on "
				 "CPUs %s, round %u", run->level_k,
				 ss->isess.kind == PMC_CSTHR ? "CSThr" : "BWThr",
				 run->level_k ? ss->isess.cpus_text : "-", run->cpus, run->rep + 1);
		}
		if (many && run->cpus[0]) {
			struct pm_intlist l = { 0 };
			(void)cpu_list(run->cpus, &ss->online, ss->online_text, &ss->prog_cpus, &l);
			pm_intlist_free(&l);
			ss->collector_cpu = pin_or_warn(ss, run->cpus, run->role);
		} else if (many) {
			/* the program on every CPU: pmcollect back on its start affinity */
			if (ss->have_start_cpus)
				(void)sched_setaffinity(0, sizeof(ss->start_cpus), &ss->start_cpus);
			ss->collector_cpu = -1;
		}
		if (o->calibrate)
			progress(i + 1, nruns, plan_start_ns, "%s, CPUs %s", pmc_role_name(run->role),
				 run->cpus);
		if (ss->shared_msg[0]) {
			/* the trace's WARNING record of pin_or_warn's warning (FORMAT.md §5) */
			cJSON *wo = cJSON_CreateObject();
			char *text = wo && cJSON_AddStringToObject(wo, "what", ss->shared_msg)
					     ? cJSON_PrintUnformatted(wo) : NULL;
			if (text)
				(void)pmt_writer_json(ss->w, PMT_REC_WARNING, (uint32_t)i, pmc_now_ns(), text);
			free(text);
			cJSON_Delete(wo);
			ss->shared_msg[0] = '\0';
		}
		struct pmc_run_config cfg = run_config(o, ss, run);
		if (argv) {
			cfg.argv = argv;
			if (run->nenv)
				cfg.threads = atoi(run->env[0].value);
		}
		t0 = pmc_now_ns();
		once = pmc_run_once(ss->w, (uint32_t)i, &cfg, &res, why, sizeof(why));
		if (ss->interfering)
			pmc_isess_stop(&ss->isess); /* also after SIGINT: the runs so far stay recorded */
		if (once < 0) {
			pm_cli_error("%s", why);
			ret = PMT_EXIT_FAILURE;
		} else if (!res.started) {
			pm_cli_error("%s", res.error);
			ret = 127;
		} else {
			ret = res.exit_status;
		}
		pmc_sweep_argv_free(argv);
		if (o->sweep && show_progress())
			fprintf(stderr, "pmcollect: %s\n", pmc_sweep_progress(&ss->sweep, i,
					(double)(pmc_now_ns() - t0) / 1e9, line, sizeof(line)));
		ss->nruns_done = i + 1;
		if (o->omp_regions && res.started) {
			char msg[1200];
			if (ss->omp_why[0])
				snprintf(msg, sizeof(msg), "no OpenMP regions recorded: %s", ss->omp_why);
			else if (!res.omp_answered)
				snprintf(msg, sizeof(msg), "no OpenMP regions recorded: %s", res.omp_reason);
			if (ss->omp_why[0] || !res.omp_answered)
				warn_user(msg);
		}
		if (ret != 0 && i + 1 < nruns)
			pm_cli_error("run %zu of %zu ended with status %d: %s stopped", i + 1, nruns, ret,
				      o->sweep ? "sweep" : ss->interfering ? "interference measurement" :
				      "calibration");
		ss->total.samples += res.samples;
		ss->total.thread_samples += res.thread_samples;
		ss->total.late_samples += res.late_samples;
		ss->total.lost_samples += res.lost_samples;
		ss->total.sampling_cpu_ns += res.sampling_cpu_ns;
		ss->total.warnings += res.warnings;
		if (res.writer_err) {
			ss->writer_err = res.writer_err;
			ss->writer_errno = res.writer_errno;
		} else if (i + 1 < nruns) {
			/* each finished run on disk before the next starts: runs shorter than the
			 * once-a-second flush would otherwise all wait for the end of the plan */
			int err = pmt_writer_flush(ss->w);
			if (err < 0) {
				ss->writer_err = err;
				ss->writer_errno = errno;
			}
		}
		if (ret != 0 || ss->writer_err)
			break;
	}
	if ((many || ss->interfering) && show_progress())
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
		pm_cli_error("cannot write '%s': %s", o->output,
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
	pmc_energy_close(ss->energy);
	pmc_procconn_close(ss->pc_fd);
	pmc_taskstats_close(ss->ts_fd);
	if (ss->sig_fd >= 0)
		close(ss->sig_fd);
	if (ss->mem_mask)
		numa_bitmask_free(ss->mem_mask);
	pm_intlist_free(&ss->cpus);
	pm_intlist_free(&ss->online);
	pmc_sweep_plan_free(&ss->sweep);
	free(ss->compact);
	pmc_usable_cpus_free(&ss->usable);
	user_free(&ss->user);
	if (ss->topo)
		hwloc_topology_destroy(ss->topo);
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

	pm_cli_set_prog("pmcollect");
	ret = parse_options(argc, argv, &o);
	if (ret < 0)
		ret = job_context(&o, &ss);
	if (ret < 0)
		ret = plan_runs(&o, &ss);
	if (ret < 0) {
		/* the output last, so no other error leaves an empty file behind; before the
		 * program starts, so an unwritable path is a usage error */
		ss.out_fd = ss.output_template ? create_rank_output(o.output, o.force)
					       : create_output(o.output, o.force, &ss.created_output);
		if (ss.output_template)
			ss.created_output = ss.out_fd >= 0;
		if (ss.out_fd < 0)
			ret = PMT_EXIT_USAGE;
	}
	/* before the signals are routed to the signalfd, so ^C stops a calibration */
	if (ret < 0 && o.calibrate_interference)
		ret = calibrate_interference(&ss);
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
