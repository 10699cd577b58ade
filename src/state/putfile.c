/*
 * putfile.c -- a kept file put into a run's directory (putfile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hashcopy.h"
#include "putfile.h"
#include "runas.h"

/* The directory of path's parent in the run dir at dfd (ours to
 * close), each part made the run user's if new: its descriptor, and
 * path's last part in *base; -1 (errno). */
static int
parent_of(int dfd, const char *path, const struct runas *ra,
    const char **base)
{
	char		 part[PATH_MAX];
	const char	*p = path, *slash;
	int		 next;

	while ((slash = strchr(p, '/')) != NULL) {
		if ((size_t)(slash - p) >= sizeof part) {
			close(dfd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(part, p, slash - p);
		part[slash - p] = '\0';
		if (mkdirat(dfd, part, 0700) == 0) {
			if (ra->change && fchownat(dfd, part, ra->uid,
			    ra->gid, AT_SYMLINK_NOFOLLOW) == -1) {
				close(dfd);
				return -1;
			}
		} else if (errno != EEXIST) {
			close(dfd);
			return -1;
		}
		next = openat(dfd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(dfd);
		if ((dfd = next) == -1)
			return -1;
		p = slash + 1;
	}
	*base = p;
	return dfd;
}

/* bytes from in to out in the kernel (copy_file_range: no pass through
 * our memory; a reflink where the file system has them): how many, or
 * -1. */
static int64_t
copy_all(int in, int out, int64_t bytes)
{
	int64_t	done = 0;
	ssize_t	n = 0;

	while (done < bytes && (n = copy_file_range(in, NULL, out, NULL,
	    (size_t)(bytes - done), 0)) > 0)
		done += n;
	return n == -1 ? -1 : done;
}

int
putfile(int in, int64_t bytes, const char *hash, const char *dir,
    const char *path, const struct runas *ra, char *why, size_t whylen)
{
	char		 got[DIGEST_HEX + 1];
	const char	*base = NULL;
	int		 out = -1, dfd, rc = -1;
	int64_t		 n;

	/* The run has not started: its directory is as we made it. */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (dfd = parent_of(dfd, path, ra,
	    &base)) == -1 ||
	    (out = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1 ||
	    (ra->change && fchown(out, ra->uid, ra->gid) == -1) ||
	    (n = hash != NULL ? hashcopy(in, out, bytes, got) :
	    copy_all(in, out, bytes)) == -1)
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
	else if (n != bytes || (hash != NULL && strcmp(got, hash) != 0))
		rc = -2;
	else
		rc = 0;
	if (rc != 0 && out != -1)
		(void)unlinkat(dfd, base, 0);
	if (out != -1)
		close(out);
	if (dfd != -1)
		close(dfd);
	return rc;
}
