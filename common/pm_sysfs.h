/* SPDX-License-Identifier: MIT */
/* pm_sysfs.h: the one reader of a one-line kernel attribute (sysfs, procfs: a CPU list, a number,
 * a name), so that each module does not carry its own copy. Returns negative errno codes and
 * never prints, like the rest of the library code (STYLE.md 1, 7b). */
#ifndef PM_SYSFS_H
#define PM_SYSFS_H

#include <stddef.h>

/* Reads the first line of the small file path (one sysfs or procfs attribute, e.g.
 * /sys/devices/system/cpu/online or /proc/sys/kernel/perf_event_paranoid) into buf (bufsize >= 2
 * bytes), NUL-terminated, without its newline and trailing spaces; a longer line is cut at
 * bufsize - 1 bytes. Returns 0, or a negative errno: the error of open(2) or read(2) (-ENOENT:
 * no such file), -ENODATA when the file is empty (a sysfs attribute whose device went away reads
 * 0 bytes), -EINVAL when bufsize < 2. */
int pm_sysfs_read_line(const char *path, char *buf, size_t bufsize);

#endif
