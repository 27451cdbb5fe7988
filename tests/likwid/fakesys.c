/* SPDX-License-Identifier: MIT */
/* fakesys.c: LD_PRELOAD shim that shows likwid-pin an hwloc test topology (an HWLOC_FSROOT tree)
 * instead of the host. hwloc honours HWLOC_FSROOT, but liblikwid also opens
 * /sys/devices/system/cpu/{online,cpuN/online} and /proc/cpuinfo itself, and asks
 * sched_getaffinity and sysconf(_SC_NPROCESSORS_*), all of which describe the host. This shim
 * sends every absolute open of /sys/devices/system/ and /proc/cpuinfo to $HWLOC_FSROOT (a CPU
 * whose tree has no "online" file is online, as on Linux for cpu0), reports every CPU of the
 * tree as allowed and counts the tree's cpuN directories for sysconf. Used only by
 * tests/likwid/record.sh to record likwid-pin's answers; not part of pmtools. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int redirected(const char *path, char *buf, size_t n)
{
	const char *root = getenv("HWLOC_FSROOT");
	if (!root || !path || path[0] != '/')
		return 0;
	if (strncmp(path, "/sys/devices/system/", 20) && strcmp(path, "/proc/cpuinfo"))
		return 0;
	snprintf(buf, n, "%s%s", root, path);
	return 1;
}

/* "1\n" for a cpuN/online file the tree lacks, from a memfd; -1 otherwise. */
static int online_default(const char *fake)
{
	size_t len = strlen(fake);
	if (len < 7 || strcmp(fake + len - 7, "/online") || access(fake, F_OK) == 0)
		return -1;
	char dir[4096];
	snprintf(dir, sizeof dir, "%.*s", (int)(len - 7), fake);
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return -1;
	int fd = memfd_create("online", 0);
	if (fd < 0)
		return -1;
	if (write(fd, "1\n", 2) != 2 || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int do_open(const char *path, int flags, mode_t mode)
{
	static int (*real)(const char *, int, ...);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	char fake[4096];
	if (redirected(path, fake, sizeof fake)) {
		int fd = online_default(fake);
		if (fd >= 0)
			return fd;
		return real(fake, flags, mode);
	}
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
	va_end(ap);
	return do_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
	va_end(ap);
	return do_open(path, flags, mode);
}

FILE *fopen(const char *path, const char *how)
{
	static FILE *(*real)(const char *, const char *);
	if (!real)
		real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	char fake[4096];
	if (redirected(path, fake, sizeof fake)) {
		int fd = online_default(fake);
		if (fd >= 0)
			return fdopen(fd, "r");
		return real(fake, how);
	}
	return real(path, how);
}

FILE *fopen64(const char *path, const char *how)
{
	return fopen(path, how);
}

int access(const char *path, int how)
{
	static int (*real)(const char *, int);
	if (!real)
		real = (int (*)(const char *, int))dlsym(RTLD_NEXT, "access");
	char fake[4096];
	if (redirected(path, fake, sizeof fake))
		return real(fake, how);
	return real(path, how);
}

DIR *opendir(const char *path)
{
	static DIR *(*real)(const char *);
	if (!real)
		real = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
	char fake[4096];
	if (redirected(path, fake, sizeof fake))
		return real(fake);
	return real(path);
}

/* The number of cpuN directories in the tree. */
static long tree_cpus(void)
{
	const char *root = getenv("HWLOC_FSROOT");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/sys/devices/system/cpu", root ? root : "");
	static DIR *(*real)(const char *);
	if (!real)
		real = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
	DIR *d = real(dir);
	long n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		if (!strncmp(e->d_name, "cpu", 3) && e->d_name[3] >= '0' && e->d_name[3] <= '9')
			n++;
	closedir(d);
	return n;
}

long sysconf(int name)
{
	static long (*real)(int);
	if (!real)
		real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
	if ((name == _SC_NPROCESSORS_CONF || name == _SC_NPROCESSORS_ONLN) && getenv("HWLOC_FSROOT")) {
		long n = tree_cpus();
		if (n > 0)
			return n;
	}
	return real(name);
}

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *mask)
{
	(void)pid;
	long n = tree_cpus();
	memset(mask, 0, size);
	for (long i = 0; i < n && (size_t)i < size * 8; i++)
		CPU_SET_S((size_t)i, size, mask);
	return 0;
}
