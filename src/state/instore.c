/*
 * instore.c -- the input files this node keeps (instore.h).  Files are
 * opened by descriptor relative to directories held open, never through
 * a symbolic link: a run dir is its user's.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "instore.h"
#include "putfile.h"

static int	store_fd = -1;
static int64_t	cache_max;

/* The copies this process hashed (fetched, or given to a run): a run is
 * given one of them without hashing it again.  One found in the store
 * after a restart is hashed at its first use: nothing is fsynced, so a
 * crash may have left it torn. */
static char	(*verified)[INSTORE_NAME_MAX];
static int	 nverified;

static int
was_verified(const char *name)
{
	int	i;

	for (i = 0; i < nverified; i++)
		if (strcmp(verified[i], name) == 0)
			return 1;
	return 0;
}

static void
set_verified(const char *name, int yes)
{
	void	*nv;
	int	 i;

	for (i = 0; i < nverified; i++)
		if (strcmp(verified[i], name) == 0) {
			if (!yes)
				memcpy(verified[i], verified[--nverified],
				    sizeof verified[i]);
			return;
		}
	if (yes && (nv = realloc(verified, (nverified + 1) *
	    sizeof *verified)) != NULL) {
		verified = nv;
		snprintf(verified[nverified++], sizeof *verified, "%s", name);
	}
}

/* A stored file goes. */
static void
drop(const char *name)
{
	set_verified(name, 0);
	(void)unlinkat(store_fd, name, 0);
}

int
instore_open(const char *state_dir, int64_t cache_bytes, char *err,
    size_t errlen)
{
	char	path[4096];

	cache_max = cache_bytes;
	snprintf(path, sizeof path, "%s/inputs", state_dir);
	if ((mkdir(path, 0700) == -1 && errno != EEXIST) ||
	    (store_fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A stored file's name, "<owner>.<hash>" (a user name, 64 hex
 * digits), into buf: 0, or -1 if either is not what it should be. */
static int
name_of(const char *owner, const char *hash, char *buf, size_t size)
{
	size_t	n = strlen(owner);

	if (n == 0 || n > INSTORE_OWNER_MAX || owner[0] == '.' ||
	    strspn(owner, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n ||
	    strlen(hash) != DIGEST_HEX ||
	    strspn(hash, "0123456789abcdef") != DIGEST_HEX)
		return -1;
	snprintf(buf, size, "%s.%s", owner, hash);
	return 0;
}

/* Is name one of ours, a copy or a fetch's part ("<name>.part")?  Its
 * copy's name into base. */
static int
is_entry(const char *name, char base[INSTORE_NAME_MAX])
{
	const char	*dot = strrchr(name, '.');
	char		 owner[INSTORE_OWNER_MAX + 1], hash[DIGEST_HEX + 1];
	size_t		 n = strlen(name);

	if (n > 5 && strcmp(name + n - 5, ".part") == 0) {
		n -= 5;
		for (dot = name + n - 1; dot > name && *dot != '.'; dot--)
			;
	}
	if (dot == NULL || dot <= name || dot - name > INSTORE_OWNER_MAX ||
	    name + n - dot - 1 != DIGEST_HEX)
		return 0;
	memcpy(owner, name, dot - name);
	owner[dot - name] = '\0';
	memcpy(hash, dot + 1, DIGEST_HEX);
	hash[DIGEST_HEX] = '\0';
	return name_of(owner, hash, base, INSTORE_NAME_MAX) == 0;
}

int
instore_has(const char *owner, const char *hash, int64_t bytes)
{
	struct stat	sb;
	char		name[INSTORE_NAME_MAX];

	return store_fd != -1 && name_of(owner, hash, name, sizeof name) ==
	    0 && fstatat(store_fd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(sb.st_mode) && sb.st_size == bytes;
}

int
instore_begin(const char *owner, const char *hash, int64_t *have)
{
	char	name[INSTORE_NAME_MAX], part[INSTORE_NAME_MAX + 8];
	off_t	end;
	int	fd;

	if (store_fd == -1 || name_of(owner, hash, name, sizeof name) == -1)
		return -1;
	snprintf(part, sizeof part, "%s.part", name);
	/* What a fetch that broke left: the next one asks for the rest. */
	if ((fd = openat(store_fd, part, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 || (end = lseek(fd, 0, SEEK_END)) == -1) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	*have = end;
	return fd;
}

void
instore_keep_part(int fd)
{
	if (fd != -1)
		close(fd);
}

void
instore_abort(int fd, const char *owner, const char *hash)
{
	char	name[INSTORE_NAME_MAX], part[INSTORE_NAME_MAX + 8];

	if (fd != -1)
		close(fd);
	if (name_of(owner, hash, name, sizeof name) == -1)
		return;
	snprintf(part, sizeof part, "%s.part", name);
	(void)unlinkat(store_fd, part, 0);
}

/* Over cache_max: the least recently used files go (mtime: staging
 * touches it), but those pinned for a start under way. */
static void
trim(int (*pinned)(const char *name))
{
	struct dirent	*de;
	struct stat	 sb;
	DIR		*d;
	int64_t		 total;
	char		 oldest[INSTORE_NAME_MAX + 8], base[INSTORE_NAME_MAX];
	struct timespec	 when = { 0, 0 };
	int		 fd;

	for (;;) {
		if ((fd = dup(store_fd)) == -1 || (d = fdopendir(fd)) == NULL) {
			if (fd != -1)
				close(fd);
			return;
		}
		rewinddir(d);
		total = 0;
		oldest[0] = '\0';
		while ((de = readdir(d)) != NULL) {
			if (!is_entry(de->d_name, base) || fstatat(store_fd,
			    de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == -1)
				continue;
			total += sb.st_size;
			if (pinned(base) || (oldest[0] != '\0' &&
			    (sb.st_mtim.tv_sec > when.tv_sec ||
			    (sb.st_mtim.tv_sec == when.tv_sec &&
			    sb.st_mtim.tv_nsec >= when.tv_nsec))))
				continue;
			memcpy(oldest, de->d_name, strlen(de->d_name) + 1);
			when = sb.st_mtim;
		}
		closedir(d);
		if (total <= cache_max || oldest[0] == '\0')
			return;
		drop(oldest);
	}
}

int
instore_commit(int fd, const char *owner, const char *hash, int64_t bytes,
    const char *got, int (*pinned)(const char *name), char *why,
    size_t whylen)
{
	char	name[INSTORE_NAME_MAX], part[INSTORE_NAME_MAX + 8];
	off_t	size = lseek(fd, 0, SEEK_END);

	if (name_of(owner, hash, name, sizeof name) == -1) {
		snprintf(why, whylen, "not a name to keep it by");
		instore_abort(fd, owner, hash);
		return -1;
	}
	snprintf(part, sizeof part, "%s.part", name);
	if (size != bytes || strcmp(got, hash) != 0) {
		snprintf(why, whylen, "it changed after its submit: its "
		    "hash is not the one recorded then");
		instore_abort(fd, owner, hash);
		return -1;
	}
	/* No fsync: a copy a crash left short or torn is found at its next
	 * use, which hashes it again, and fetched anew. */
	if (renameat(store_fd, part, store_fd, name) == -1) {
		snprintf(why, whylen, "%s", strerror(errno));
		instore_abort(fd, owner, hash);
		return -1;
	}
	close(fd);
	set_verified(name, 1);
	trim(pinned);
	return 0;
}

int
instore_stage(const char *owner, const char *hash, int64_t bytes,
    const char *dir, const char *path, const struct runas *ra, char *why,
    size_t whylen)
{
	char	name[INSTORE_NAME_MAX], err[256];
	int	in, rc;

	if (!instore_has(owner, hash, bytes) ||
	    name_of(owner, hash, name, sizeof name) == -1 ||
	    (in = openat(store_fd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		snprintf(why, whylen, "input %s: no copy here", path);
		return -1;
	}
	if ((rc = putfile(in, bytes, was_verified(name) ? NULL : hash, dir,
	    path, ra, err, sizeof err)) == -2) {
		snprintf(why, whylen, "input %s: the copy here does not match "
		    "its hash", path);
		drop(name);
	} else if (rc == -1)
		snprintf(why, whylen, "input %s", err);
	else {
		set_verified(name, 1);
		(void)futimens(in, NULL);	/* used now: the last to go */
	}
	close(in);
	return rc == 0 ? 0 : -1;
}

void
instore_close(void)
{
	free(verified);
	verified = NULL;
	nverified = 0;
	if (store_fd != -1)
		close(store_fd);
	store_fd = -1;
}

void
instore_sweep(void)
{
	char		 base[INSTORE_NAME_MAX];
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	if (store_fd == -1 || (fd = dup(store_fd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && !is_entry(de->d_name, base))
			(void)unlinkat(store_fd, de->d_name, 0);
	closedir(d);
}
