/*
 * statefile.c -- replace a small state file whole (statefile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "statefile.h"

int
statefile_write(const char *path, const char *text)
{
	char	tmp[4300];
	size_t	len = strlen(text);
	int	fd, rc = -1, saved;

	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	if (write(fd, text, len) == (ssize_t)len && fsync(fd) == 0 &&
	    rename(tmp, path) == 0)
		rc = 0;
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}
