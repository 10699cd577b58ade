/*
 * rundir.c -- a run's private working directory (see rundir.h).
 *
 * The tree is removed by descriptors (openat with O_NOFOLLOW, then
 * unlinkat), never by path: a process the run left behind may swap a
 * directory for a symlink to /etc while the node, as root, removes it.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "runas.h"
#include "rundir.h"

static char			 runs[PATH_MAX];
static int			 runs_fd = -1;	/* held: no path lookup per run */
static const struct runas	*user;
/*
 * Emptied run directories kept for the next runs (.spare-0 ...): a
 * directory made and removed per run makes ext4 look for a free inode
 * past every one it freed lately, which at hundreds of runs a second
 * costs more than the run.  Renaming one costs nothing.
 */
#define SPARES_MAX	16
static int			 nspares;
static int			 spares_seen;	/* at start, removed */

static int	remove_at(int, const char *, int);

/*
 * Remove every entry of the directory fd (which this closes); the
 * number that could not be removed.  *n counts the entries.
 */
static int
remove_children(int fd, int depth, int *n)
{
	struct dirent	*de;
	DIR		*d;
	int		 left = 0;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (depth == 0 && strncmp(de->d_name, ".spare-", 7) == 0)
			spares_seen++;
		left += remove_at(fd, de->d_name, depth);
		(*n)++;
	}
	closedir(d);
	return left;
}

/*
 * Remove name in dirfd and, if it is a directory, all below it.  The
 * number of entries that could not be removed (each logged).
 */
static int
remove_at(int dirfd, const char *name, int depth)
{
	int	fd, left, n = 0;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	/* A run that made a directory 000, under a node of its own user:
	 * (chmod follows a symlink: never as another user.) */
	if (fd == -1 && errno == EACCES && !user->change &&
	    fchmodat(dirfd, name, 0700, 0) == 0)
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			goto failed;
		if (unlinkat(dirfd, name, 0) == -1 && errno != ENOENT)
			goto failed;
		return 0;
	}
	if (depth >= RUNDIR_DEPTH_MAX) {
		close(fd);
		log_warnx("run directory entry %s: more than %d levels deep; "
		    "left", name, RUNDIR_DEPTH_MAX);
		return 1;
	}
	if ((left = remove_children(fd, depth + 1, &n)) == -1)
		goto failed;
	if (left == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) == -1 &&
	    errno != ENOENT)
		goto failed;
	return left;
failed:
	log_warnx("run directory entry %s: cannot remove it: %s", name,
	    strerror(errno));
	return 1;
}

int
rundir_init(const char *state_dir, const struct runas *ra, char *err,
    size_t errlen)
{
	char	dir[PATH_MAX];
	int	fd, n = 0;

	user = ra;
	/* Absolute: it is the run's TMPDIR too. */
	if (realpath(state_dir, dir) == NULL ||
	    snprintf(runs, sizeof runs, "%s/runs", dir) >= (int)sizeof runs) {
		snprintf(err, errlen, "%s: %s", state_dir, strerror(errno));
		return -1;
	}
	if (mkdir(runs, 0711) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", runs, strerror(errno));
		return -1;
	}
	/* Only the node lists it; each run enters its own. */
	if ((runs_fd = open(runs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fchmod(runs_fd, 0711) == -1 ||
	    (fd = dup(runs_fd)) == -1 || remove_children(fd, 0, &n) == -1) {
		snprintf(err, errlen, "%s: %s", runs, strerror(errno));
		if (runs_fd != -1)
			close(runs_fd);
		runs_fd = -1;
		return -1;
	}
	/* What the runs of a killed node left (the spares, not runs). */
	n -= spares_seen;
	if (n > 0)
		log_msg(VLOG_NORMAL, "removed %d run directories a previous "
		    "start left in %s", n, runs);
	return 0;
}

/* A spare's name. */
static void
spare_name(int k, char *buf, size_t size)
{
	snprintf(buf, size, ".spare-%d", k);
}

int
rundir_make(const char *uuid, const struct runas *ra, char *path,
    size_t pathlen, char *err, size_t errlen)
{
	char	spare[32];
	int	made = 0;

	snprintf(path, pathlen, "%s/%s", runs, uuid);
	while (nspares > 0 && !made) {
		spare_name(--nspares, spare, sizeof spare);
		/* As made: a run may have changed its mode. */
		if (renameat(runs_fd, spare, runs_fd, uuid) == 0 &&
		    fchmodat(runs_fd, uuid, 0700, 0) == 0)
			made = 1;
		else
			(void)unlinkat(runs_fd, uuid, AT_REMOVEDIR);
	}
	if (!made && mkdirat(runs_fd, uuid, 0700) == -1) {
		snprintf(err, errlen, "run directory %s: %s", path,
		    strerror(errno));
		return -1;
	}
	/* This run's user, whoever had the spare before. */
	if (ra->change && fchownat(runs_fd, uuid, ra->uid, ra->gid,
	    AT_SYMLINK_NOFOLLOW) == -1) {
		snprintf(err, errlen, "run directory %s: chown to %s: %s",
		    path, ra->name, strerror(errno));
		unlinkat(runs_fd, uuid, AT_REMOVEDIR);
		return -1;
	}
	return 0;
}

void
rundir_path(const char *uuid, char *path, size_t pathlen)
{
	snprintf(path, pathlen, "%s/%s", runs, uuid);
}

void
rundir_remove(const char *uuid)
{
	char	spare[32];
	int	fd, n = 0;

	/* Emptied, it is kept for a next run (given to its user then). */
	if (nspares < SPARES_MAX && (fd = openat(runs_fd, uuid, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
		spare_name(nspares, spare, sizeof spare);
		if (remove_children(fd, 1, &n) == 0 &&
		    renameat(runs_fd, uuid, runs_fd, spare) == 0) {
			nspares++;
			return;
		}
	}
	if (remove_at(runs_fd, uuid, 0) > 0)
		log_warnx("Task UUID{%s}: its run directory %s/%s is not "
		    "wholly removed", uuid, runs, uuid);
}

/* The blocks of the directory fd (which this closes) and below it. */
static int64_t
usage_of(int fd, int depth)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int64_t		 sum = 0;
	int		 sub;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		sum += (int64_t)st.st_blocks * 512;
		if (S_ISDIR(st.st_mode) && depth < RUNDIR_DEPTH_MAX &&
		    (sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) != -1)
			sum += usage_of(sub, depth + 1);
	}
	closedir(d);
	return sum;
}

int64_t
rundir_usage(const char *uuid)
{
	int	fd = openat(runs_fd, uuid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);

	return fd == -1 ? -1 : usage_of(fd, 0);
}
