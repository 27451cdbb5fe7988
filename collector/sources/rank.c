/* SPDX-License-Identifier: MIT */
/* rank.c: MPI/Slurm job context from the environment, output name templates and race-free output
 * creation for pmcollect running as one rank of a job (rank.h). */
#include "rank.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pm_cli.h"

/* The lists of rank.h, in the order of precedence of docs/cluster.md. */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					 "SLURM_PROCID", "MV2_COMM_WORLD_RANK" };
static const char *const local_rank_vars[] = { "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
					       "MPI_LOCALRANKID" };
static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE" };
/* The batch systems' job ids first (a job of several mpiruns stays one job), then the MPI
 * launchers' own: the PMIx namespace (Open MPI 4 and 5 / PRRTE, Slurm with --mpi=pmix) and Open MPI
 * 4's ORTE job id. MPICH Hydra exports no job id to its processes (PMI_RANK, PMI_SIZE, PMI_FD,
 * PMI_PORT, PMI_ID, MPI_LOCALRANKID, MPI_LOCALNRANKS only), so under Hydra alone %j stays unknown. */
static const char *const job_vars[] = { "SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "PMIX_NAMESPACE",
					"OMPI_MCA_ess_base_jobid" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Value of name in envp, or NULL. A name set twice gives its first value, as glibc's getenv(). */
static const char *env_get(char *const envp[], const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}

/* The first of vars[0..n-1] set in envp, parsed as a number in [0, 2^31) into *value, its name
 * into *var. Returns 0 (also when none is set: *value = -1, *var = NULL) or -1 with a reason. */
static int env_number(char *const envp[], const char *const *vars, size_t n, const char *what,
		      long *value, const char **var, char *why, size_t whysize)
{
	*value = -1;
	*var = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *s = env_get(envp, vars[i]);
		if (!s)
			continue;
		if (pm_cli_parse_long(s, 0, 2147483647L, value) != 0) {
			char clean[64];
			pm_cli_sanitize(clean, sizeof(clean), s, strlen(s));
			snprintf(why, whysize, "%s='%s' is not a %s number", vars[i], clean, what);
			*value = -1;
			return -1;
		}
		*var = vars[i];
		return 0;
	}
	return 0;
}

int pmc_rank_detect(char *const envp[], struct pmc_rank *out, char *why, size_t whysize)
{
	struct pmc_rank r = { .rank = -1, .local_rank = -1, .size = -1 };

	if (env_number(envp, rank_vars, NELEM(rank_vars), "rank", &r.rank, &r.rank_var, why,
		       whysize) != 0 ||
	    env_number(envp, local_rank_vars, NELEM(local_rank_vars), "local rank", &r.local_rank,
		       &r.local_rank_var, why, whysize) != 0 ||
	    env_number(envp, size_vars, NELEM(size_vars), "job size", &r.size, &r.size_var, why,
		       whysize) != 0)
		return -1;
	for (size_t i = 0; i < NELEM(job_vars); i++) {
		const char *s = env_get(envp, job_vars[i]), *step = NULL;
		int len;
		if (!s)
			continue;
		/* A Slurm job runs many steps (one per srun); each step's ranks are a job of their own. */
		if (i == 0 && (step = env_get(envp, "SLURM_STEP_ID")) && step[0])
			len = snprintf(r.job, sizeof(r.job), "%s.%s", s, step);
		else
			len = snprintf(r.job, sizeof(r.job), "%s", s);
		if (s[0] == '\0' || len < 0 || (size_t)len >= sizeof(r.job)) {
			snprintf(why, whysize, "%s is %s", job_vars[i],
				 s[0] ? "too long for a job id" : "empty");
			return -1;
		}
		r.job_var = step && step[0] ? "SLURM_JOB_ID+SLURM_STEP_ID" : job_vars[i];
		break;
	}
	*out = r;
	return 0;
}

/* Appends s (len bytes) to out at *pos, with unsafe bytes replaced by '_' when clean is set.
 * Returns 0, or -1 when out (size outsize) would overflow. */
static int put(char *out, size_t outsize, size_t *pos, const char *s, size_t len, int clean)
{
	if (len >= outsize - *pos)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (clean && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-'))
			c = '_';
		out[(*pos)++] = c;
	}
	out[*pos] = '\0';
	return 0;
}

/* Writes "NAME1, NAME2 or NAME3" into buf. */
static void name_list(const char *const *vars, size_t n, char *buf, size_t bufsize)
{
	size_t pos = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && pos < bufsize; i++) {
		int k = snprintf(buf + pos, bufsize - pos, "%s%s",
				 i == 0 ? "" : i + 1 == n ? " or " : ", ", vars[i]);
		if (k < 0)
			return;
		pos += (size_t)k;
	}
}

int pmc_output_name(const char *tmpl, const struct pmc_rank *r, const char *host, long pid,
		    char *out, size_t outsize, char *why, size_t whysize)
{
	size_t pos = 0;

	if (!tmpl || !out || outsize == 0) {
		snprintf(why, whysize, "no output name template");
		return -1;
	}
	out[0] = '\0';
	for (const char *p = tmpl; *p; p++) {
		char num[24], vars[160];
		const char *val = NULL;
		long n = -1;
		int clean = 0, rc;

		if (*p != '%') {
			rc = put(out, outsize, &pos, p, 1, 0);
			goto next;
		}
		switch (*++p) {
		case '%':
			val = "%";
			break;
		case 'r':
			n = r ? r->rank : -1;
			if (n < 0) {
				name_list(rank_vars, NELEM(rank_vars), vars, sizeof(vars));
				snprintf(why, whysize, "'%%r' in '%s' needs a rank, but none of %s is set",
					 tmpl, vars);
				return -1;
			}
			break;
		case 'l':
			n = r ? r->local_rank : -1;
			if (n < 0) {
				name_list(local_rank_vars, NELEM(local_rank_vars), vars, sizeof(vars));
				snprintf(why, whysize,
					 "'%%l' in '%s' needs a local rank, but none of %s is set", tmpl,
					 vars);
				return -1;
			}
			break;
		case 'j':
			if (!r || !r->job[0]) {
				name_list(job_vars, NELEM(job_vars), vars, sizeof(vars));
				snprintf(why, whysize, "'%%j' in '%s' needs a job id, but none of %s is set",
					 tmpl, vars);
				return -1;
			}
			val = r->job;
			clean = 1;
			break;
		case 'h':
			if (!host || !host[0]) {
				snprintf(why, whysize, "'%%h' in '%s' needs the host name, which is unknown",
					 tmpl);
				return -1;
			}
			val = host;
			clean = 1;
			break;
		case 'p':
			n = pid;
			if (n < 0) {
				snprintf(why, whysize, "'%%p' in '%s' needs a pid", tmpl);
				return -1;
			}
			break;
		case '\0':
			snprintf(why, whysize, "'%s' ends with a lone '%%' (write '%%%%' for a '%%')", tmpl);
			return -1;
		default: {
			char c[8];
			pm_cli_sanitize(c, sizeof(c), p, 1);
			snprintf(why, whysize,
				 "unknown placeholder '%%%s' in '%s' (known: %%r %%l %%h %%j %%p %%%%)", c,
				 tmpl);
			return -1;
		}
		}
		if (!val) {
			snprintf(num, sizeof(num), "%ld", n);
			val = num;
		}
		rc = put(out, outsize, &pos, val, strlen(val), clean);
next:
		if (rc != 0) {
			snprintf(why, whysize, "the name made from '%s' is longer than %zu bytes", tmpl,
				 outsize - 1);
			return -1;
		}
	}
	if (pos == 0) {
		snprintf(why, whysize, "empty output name");
		return -1;
	}
	return 0;
}

int pmc_output_create(const char *path, char *why, size_t whysize)
{
	char *dir = strdup(path ? path : "");
	int fd = -1, saved;

	if (!dir) {
		snprintf(why, whysize, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	if (!dir[0]) {
		snprintf(why, whysize, "empty output name");
		errno = EINVAL;
		goto out;
	}
	/* mkdir -p of the parent, one level at a time from the top: each level either is made by us
	 * or already exists (maybe made by another rank a moment ago); anything else stops here. */
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		for (char *p = dir + 1; p <= slash; p++) {
			if (*p != '/' && *p != '\0')
				continue;
			char c = *p;
			*p = '\0';
			if (dir[0] && mkdir(dir, 0777) != 0 && errno != EEXIST) {
				saved = errno;
				snprintf(why, whysize, "cannot create directory '%s': %s", dir,
					 strerror(saved));
				errno = saved;
				goto out;
			}
			*p = c;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		saved = errno;
		if (saved == EEXIST)
			snprintf(why, whysize, "'%s' already exists (pmcollect never overwrites a trace)",
				 path);
		else
			snprintf(why, whysize, "cannot create '%s': %s", path, strerror(saved));
		errno = saved;
	}
out:
	free(dir);
	return fd;
}

const char *pmc_launcher_name(const char *argv0)
{
	static const char *const launchers[] = { "mpirun", "mpiexec", "srun", "orterun", "prterun" };
	const char *base;

	if (!argv0)
		return NULL;
	base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	for (size_t i = 0; i < NELEM(launchers); i++) {
		size_t len = strlen(launchers[i]);
		if (strncmp(base, launchers[i], len) == 0 && (base[len] == '\0' || base[len] == '.'))
			return launchers[i];
	}
	return NULL;
}
