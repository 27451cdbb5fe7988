/* SPDX-License-Identifier: MIT */
/* mpitool.c: `pmcollect --mpi`: the PMPI preload library's directory, environment and files, turned
 * into RUN_END "mpi" (mpitool.h). */
#include "mpitool.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi/pmmpi.h"
#include "omp/omp.h"
#include "pm_cli.h"

/* A process's file is at most this long: 31 calls per thread, ~60 bytes a line, 4096 threads. */
#define PMC_MPI_FILE_MAX_BYTES (8u << 20)

struct pmc_mpi {
	char dir[4096];
	char tool[4096];
};

int pmc_mpi_find_tool(char *out, size_t size, char *why, size_t whysize)
{
	return pmc_find_helper_lib("libpmmpi.so", "PMT_MPI_TOOL", out, size, why, whysize);
}

/* 1 when the file at path holds one of the MPI libraries' names. */
static int file_names_mpi(const char *path)
{
	static const char *const names[] = { "libmpi.so", "libmpich.so", "libmpi_" };
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	void *map;

	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !found; i++)
		found = memmem(map, (size_t)sb.st_size, names[i], strlen(names[i])) != NULL;
	munmap(map, (size_t)sb.st_size);
	return found;
}

int pmc_mpi_program_links_mpi(const char *cmd)
{
	const char *path = getenv("PATH");
	char cand[4096];

	if (!cmd || !*cmd)
		return 0;
	if (strchr(cmd, '/'))
		return file_names_mpi(cmd);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; ) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		int n = snprintf(cand, sizeof(cand), "%.*s%s%s", (int)len, p, len ? "/" : "", cmd);

		if (n > 0 && (size_t)n < sizeof(cand) && access(cand, X_OK) == 0)
			return file_names_mpi(cand);
		if (!colon)
			return 0;
		p = colon + 1;
	}
}

int pmc_mpi_open(struct pmc_mpi **out, const char *tool, uid_t uid, gid_t gid, char *why,
		 size_t whysize)
{
	const char *tmp = getenv("TMPDIR");
	struct pmc_mpi *m = calloc(1, sizeof(*m));

	*out = NULL;
	if (!m) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	snprintf(m->tool, sizeof(m->tool), "%s", tool);
	snprintf(m->dir, sizeof(m->dir), "%s/pmcollect-mpi-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(m->dir)) {
		snprintf(why, whysize, "cannot create a directory in '%s' for --mpi: %s",
			 tmp && *tmp ? tmp : "/tmp", strerror(errno));
		free(m);
		return -1;
	}
	if (uid != (uid_t)-1 && chown(m->dir, uid, gid) < 0) {
		snprintf(why, whysize, "cannot give '%s' to the program's user: %s", m->dir,
			 strerror(errno));
		rmdir(m->dir);
		free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int pmc_mpi_child(const struct pmc_mpi *m)
{
	const char *old = getenv("LD_PRELOAD");
	char pre[8192];

	if (setenv(PMMPI_ENV_DIR, m->dir, 1) < 0)
		return -1;
	if ((size_t)snprintf(pre, sizeof(pre), "%s%s%s", m->tool, old && *old ? " " : "",
			     old ? old : "") >= sizeof(pre)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return setenv("LD_PRELOAD", pre, 1);
}

/* Splits line (NUL-terminated, no newline) into at most max fields at single spaces. */
static size_t fields(char *line, char **f, size_t max)
{
	size_t n = 0;

	for (char *p = line; n < max;) {
		f[n++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/* A whole decimal number in [lo, 2^63) as a double (the JSON's type). */
static int number(const char *s, long long lo, double *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < lo)
		return -1;
	*out = (double)v;
	return 0;
}

/* Whether name is an MPI function name as the library writes it: "MPI_" then [A-Za-z_]. */
static int call_name_ok(const char *name)
{
	if (strncmp(name, "MPI_", 4) != 0 || !name[4] || strlen(name) > 64)
		return 0;
	for (const char *p = name + 4; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
			return 0;
	return 1;
}

int pmc_mpi_parse(const char *text, size_t len, cJSON *procs, double *ns, double *cpu_ns,
		  char *why, size_t whysize)
{
	char *buf = malloc(len + 1), *line, *save = NULL;
	cJSON *proc = NULL, *calls = NULL;
	double sum_ns = 0, sum_cpu_ns = 0;
	int lineno = 0, complete = 0, rc = -1;

	if (!buf) {
		snprintf(why, whysize, "out of memory");
		return -1;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		snprintf(why, whysize, "not a pmmpi file (a NUL byte)");
		goto out;
	}
	proc = cJSON_CreateObject();
	calls = cJSON_CreateArray();
	if (!proc || !calls) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8];
		size_t n = fields(line, f, 8);
		double v[5] = { 0 };

		lineno++;
		if (complete) {
			snprintf(why, whysize, "line %d: text after \"end\"", lineno);
			goto out;
		}
		if (lineno == 1) {
			if (n != 2 || strcmp(f[0], "pmmpi") != 0 || number(f[1], 1, v) < 0) {
				snprintf(why, whysize, "not a pmmpi file (line 1)");
				goto out;
			}
			if (v[0] != PMMPI_VERSION) {
				snprintf(why, whysize, "pmmpi version %.0f, not %d", v[0], PMMPI_VERSION);
				goto out;
			}
			continue;
		}
		if (n == 4 && strcmp(f[0], "process") == 0 && number(f[1], 1, v) == 0 &&
		    number(f[2], -1, v + 1) == 0 && number(f[3], -1, v + 2) == 0) {
			cJSON_AddNumberToObject(proc, "pid", v[0]);
			cJSON_AddNumberToObject(proc, "rank", v[1]);
			cJSON_AddNumberToObject(proc, "size", v[2]);
		} else if (n == 3 && strcmp(f[0], "span") == 0 && number(f[1], 0, v) == 0 &&
			   number(f[2], 0, v + 1) == 0) {
			cJSON_AddNumberToObject(proc, "init_end_ns", v[0]);
			cJSON_AddNumberToObject(proc, "finalize_begin_ns", v[1]);
		} else if (n == 7 && strcmp(f[0], "call") == 0 && number(f[1], 1, v) == 0 &&
			   call_name_ok(f[2]) && number(f[3], 1, v + 1) == 0 &&
			   number(f[4], 0, v + 2) == 0 && number(f[5], 0, v + 3) == 0 &&
			   number(f[6], 0, v + 4) == 0) {
			cJSON *c = cJSON_CreateObject();
			if (!c || !cJSON_AddItemToArray(calls, c)) {
				cJSON_Delete(c);
				snprintf(why, whysize, "out of memory");
				goto out;
			}
			cJSON_AddNumberToObject(c, "tid", v[0]);
			cJSON_AddStringToObject(c, "name", f[2]);
			cJSON_AddNumberToObject(c, "count", v[1]);
			cJSON_AddNumberToObject(c, "ns", v[2]);
			cJSON_AddNumberToObject(c, "cpu_ns", v[3]);
			cJSON_AddNumberToObject(c, "missed", v[4]);
			sum_ns += v[2];
			sum_cpu_ns += v[3];
		} else if (n == 1 && strcmp(f[0], "end") == 0) {
			complete = 1;
		} else {
			char clean[64];
			pm_cli_sanitize(clean, sizeof(clean), f[0], strlen(f[0]));
			snprintf(why, whysize, "line %d: unexpected '%s' record", lineno, clean);
			goto out;
		}
	}
	if (lineno == 0) {
		snprintf(why, whysize, "not a pmmpi file (empty)");
		goto out;
	}
	cJSON_AddItemToObject(proc, "calls", calls);
	calls = NULL;
	cJSON_AddBoolToObject(proc, "complete", complete);
	if (!cJSON_AddItemToArray(procs, proc)) {
		snprintf(why, whysize, "out of memory");
		goto out;
	}
	proc = NULL;
	*ns += sum_ns;
	*cpu_ns += sum_cpu_ns;
	rc = 0;
out:
	cJSON_Delete(calls);
	cJSON_Delete(proc);
	free(buf);
	return rc;
}

/* Reads the file name in dir (at most PMC_MPI_FILE_MAX_BYTES) into a new buffer. */
static char *slurp(int dirfd, const char *name, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size > PMC_MPI_FILE_MAX_BYTES)
		goto out;
	buf = malloc((size_t)sb.st_size + 1);
	while (buf && got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	*len = got;
out:
	close(fd);
	return buf;
}

void pmc_mpi_run_end(struct pmc_mpi *m, cJSON *run_end)
{
	cJSON *j = cJSON_AddObjectToObject(run_end, "mpi"), *procs;
	double ns = 0, cpu_ns = 0, bad = 0;
	char first_bad[256] = "";
	struct dirent *de;
	DIR *d;

	if (!j)
		return;
	cJSON_AddStringToObject(j, "tool", m->tool);
	procs = cJSON_AddArrayToObject(j, "processes");
	d = opendir(m->dir);
	while (procs && d && (de = readdir(d))) {
		char why[200];
		size_t len = 0;
		char *text;

		if (strncmp(de->d_name, PMMPI_FILE_PREFIX, strlen(PMMPI_FILE_PREFIX)) != 0)
			continue;
		text = slurp(dirfd(d), de->d_name, &len);
		if (!text || pmc_mpi_parse(text, len, procs, &ns, &cpu_ns, why, sizeof(why)) < 0) {
			if (!first_bad[0] &&
			    snprintf(first_bad, sizeof(first_bad), "%.40s: %s", de->d_name,
				     text ? why : "cannot read it") < 0)
				first_bad[0] = '\0';
			bad++;
		}
		free(text);
	}
	if (d)
		closedir(d);
	cJSON_AddBoolToObject(j, "recorded", cJSON_GetArraySize(procs) > 0);
	if (cJSON_GetArraySize(procs) == 0)
		cJSON_AddStringToObject(j, "reason", first_bad[0] ? first_bad :
				       "no process of the program called MPI_Init (or the library "
				       "was not loaded: a static program, or one that clears "
				       "LD_PRELOAD)");
	cJSON_AddNumberToObject(j, "ns", ns);
	cJSON_AddNumberToObject(j, "cpu_ns", cpu_ns);
	cJSON_AddNumberToObject(j, "bad_files", bad);
	if (first_bad[0])
		cJSON_AddStringToObject(j, "first_bad_file", first_bad);
}

void pmc_mpi_run_end_off(const char *why, cJSON *run_end)
{
	cJSON *j = cJSON_AddObjectToObject(run_end, "mpi");

	if (!j)
		return;
	cJSON_AddBoolToObject(j, "recorded", 0);
	cJSON_AddStringToObject(j, "reason", why);
}

void pmc_mpi_close(struct pmc_mpi *m)
{
	DIR *d;
	struct dirent *de;

	if (!m)
		return;
	d = opendir(m->dir);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			(void)unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	(void)rmdir(m->dir);
	free(m);
}

int pmc_mpi_decide(int asked, const char *cmd, char *tool, size_t toolsize, char *why,
		   size_t whysize)
{
	why[0] = '\0';
	if (asked == 0)
		return 0;
	if (asked < 0 && !pmc_mpi_program_links_mpi(cmd))
		return 0;
	if (pmc_mpi_find_tool(tool, toolsize, why, whysize) < 0)
		return 0;
	return 1;
}
