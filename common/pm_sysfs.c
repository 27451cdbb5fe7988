/* SPDX-License-Identifier: MIT */
/* pm_sysfs.c: the one reader of a one-line kernel attribute (pm_sysfs.h). */
#include "pm_sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int pm_sysfs_read_line(const char *path, char *buf, size_t bufsize)
{
	size_t len = 0;
	int fd, err = 0;

	if (bufsize < 2)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs hands an attribute over in one read; a regular file (a test fixture) may need more */
	while (len < bufsize - 1 && !memchr(buf, '\n', len)) {
		ssize_t r = read(fd, buf + len, bufsize - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = -errno;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (err < 0) {
		buf[0] = '\0';
		return err;
	}
	if (len == 0)
		return -ENODATA;
	buf[len] = '\0';
	len = strcspn(buf, "\n");
	while (len > 0 && buf[len - 1] == ' ')
		len--;
	buf[len] = '\0';
	return 0;
}
