/*
 * ckstore.c -- the checkpoints this node keeps (ckstore.h).  Files are
 * opened by descriptor, relative to directories held open, never
 * following a symlink: a run's directory is its user's, and a run may
 * put anything there under the name it announced.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "ckstore.h"
#include "hashcopy.h"
#include "log.h"
#include "putfile.h"
#include "runas.h"
#include "task.h"

static int	store_fd = -1;

int
ckstore_open(const char *state_dir, char *err, size_t errlen)
{
	char	path[4096];

	snprintf(path, sizeof path, "%s/checkpoints", state_dir);
	if ((mkdir(path, 0700) == -1 && errno != EEXIST) ||
	    (store_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
name_of(const char *uuid, int64_t seq, const char *suffix, char *buf,
    size_t size)
{
	snprintf(buf, size, "%s.%lld%s", uuid, (long long)seq, suffix);
}

/*
 * A compressed copy of the store's file from (name.z), to be sent instead
 * where it is at most 9/10 of it: deflate at its fastest level, cheaper
 * than the bytes it saves on a LAN.  Its size, or -1 (none kept).
 */
static int64_t
compress_copy(const char *from, int64_t bytes)
{
	unsigned char	 in[65536], out[65536];
	char		 name[UUID_STRLEN + 48];
	z_stream	 z;
	int64_t		 total = 0;
	ssize_t		 n;
	int		 src, dst, flush, rc = Z_OK, bad = 0;

	snprintf(name, sizeof name, "%s.z", from);
	if ((src = openat(store_fd, from, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if ((dst = openat(store_fd, name, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
		close(src);
		return -1;
	}
	memset(&z, 0, sizeof z);
	if (deflateInit(&z, 1) != Z_OK)
		bad = 1;
	do {
		if (bad || (n = read(src, in, sizeof in)) == -1) {
			bad = 1;
			break;
		}
		flush = n == 0 ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = in;
		z.avail_in = (uInt)n;
		do {
			z.next_out = out;
			z.avail_out = sizeof out;
			rc = deflate(&z, flush);
			total += sizeof out - z.avail_out;
			if (write(dst, out, sizeof out - z.avail_out) !=
			    (ssize_t)(sizeof out - z.avail_out) ||
			    total > bytes * 9 / 10)
				bad = 1;
		} while (!bad && z.avail_out == 0);
	} while (!bad && rc != Z_STREAM_END);
	deflateEnd(&z);
	close(src);
	if (close(dst) == -1 || bad) {
		(void)unlinkat(store_fd, name, 0);
		return -1;
	}
	return total;
}

/* The store's entries, from the first, or NULL. */
static DIR *
read_store(void)
{
	DIR	*d;
	int	 fd;

	if (store_fd == -1 || (fd = dup(store_fd)) == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return NULL;
	}
	rewinddir(d);		/* the dup shares the offset */
	return d;
}

/* The seq a store entry of uuid is of ("<uuid>.<seq>", with ".z" or
 * ".part" or not); 0 if it is not uuid's, -1 if it is but says none. */
static int64_t
entry_seq(const char *name, const char *uuid, int *part)
{
	char		*end;
	long long	 v;

	if (strncmp(name, uuid, UUID_STRLEN) != 0 || name[UUID_STRLEN] != '.')
		return 0;
	v = strtoll(name + UUID_STRLEN + 1, &end, 10);
	*part = strcmp(end, ".part") == 0;
	if (end == name + UUID_STRLEN + 1 || v < 1 || (*end != '\0' &&
	    strcmp(end, ".z") != 0 && !*part))
		return -1;
	return v;
}

/*
 * Drop the checkpoints of uuid but seq and the newest older one (0: all):
 * the record names a newer one only once a copy is kept elsewhere
 * (ckpt.h), and until then the older is what a next run starts from.
 * A fetch of a newer one under way goes on.
 */
static void
drop_but(const char *uuid, int64_t seq)
{
	struct dirent	*de;
	int64_t		 v, older = 0;
	int		 part;
	DIR		*d;

	if ((d = read_store()) == NULL)
		return;
	while (seq > 0 && (de = readdir(d)) != NULL)
		if ((v = entry_seq(de->d_name, uuid, &part)) > older &&
		    v < seq && !part)
			older = v;
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		if ((v = entry_seq(de->d_name, uuid, &part)) != 0 &&
		    (seq == 0 || (v != seq && v != older && !(part &&
		    v > seq))))
			(void)unlinkat(store_fd, de->d_name, 0);
	closedir(d);
}

int
ckstore_take(const char *uuid, const char *dir, const char *file,
    int64_t max, int64_t *bytes, int64_t *zbytes,
    char hash[DIGEST_HEX + 1], char *err, size_t errlen)
{
	char		tmp[UUID_STRLEN + 32], name[UUID_STRLEN + 32];
	struct stat	sb, db;
	int		dfd, in = -1, out = -1;

	if (!task_ckpt_file_valid(file)) {
		snprintf(err, errlen, "not a plain file name");
		return -1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(dfd, &db) == -1 ||
	    (in = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1 || fstat(in, &sb) == -1) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		goto fail;
	}
	/* Its run's own regular file: not a link to what the node may
	 * read and the run may not. */
	if (!S_ISREG(sb.st_mode) || sb.st_uid != db.st_uid) {
		snprintf(err, errlen, "%s is not a regular file of the run's "
		    "user", file);
		goto fail;
	}
	if (sb.st_size > max) {
		snprintf(err, errlen, "%s has %lld bytes, more than "
		    "max_checkpoint_mb allows", file, (long long)sb.st_size);
		goto fail;
	}
	name_of(uuid, 0, ".new", tmp, sizeof tmp);
	if ((out = openat(store_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1 ||
	    (*bytes = hashcopy(in, out, max, hash)) == -1 ||
	    fsync(out) == -1) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		goto fail;
	}
	close(out);
	out = -1;
	/* Named by its seq once the core gives it one (ckstore_name). */
	snprintf(name, sizeof name, "%s.taken", uuid);
	if (renameat(store_fd, tmp, store_fd, name) == -1) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		goto fail;
	}
	*zbytes = compress_copy(name, *bytes);
	close(in);
	close(dfd);
	return 0;
fail:
	if (out != -1) {
		close(out);
		(void)unlinkat(store_fd, tmp, 0);
	}
	if (in != -1)
		close(in);
	if (dfd != -1)
		close(dfd);
	return -1;
}

void
ckstore_name(const char *uuid, int64_t seq)
{
	char	taken[UUID_STRLEN + 32], name[UUID_STRLEN + 32];
	char	ztaken[UUID_STRLEN + 32], zname[UUID_STRLEN + 32];

	snprintf(taken, sizeof taken, "%s.taken", uuid);
	snprintf(ztaken, sizeof ztaken, "%s.taken.z", uuid);
	if (seq <= 0) {
		(void)unlinkat(store_fd, taken, 0);
		(void)unlinkat(store_fd, ztaken, 0);
		return;
	}
	name_of(uuid, seq, "", name, sizeof name);
	name_of(uuid, seq, ".z", zname, sizeof zname);
	/* The compressed copy first: a name without it is sent whole. */
	(void)renameat(store_fd, ztaken, store_fd, zname);
	if (renameat(store_fd, taken, store_fd, name) == -1)
		log_warn("checkpoint %s", name);
	else
		drop_but(uuid, seq);
}

int
ckstore_has(const char *uuid, int64_t seq)
{
	char	name[UUID_STRLEN + 32];

	name_of(uuid, seq, "", name, sizeof name);
	return store_fd != -1 && faccessat(store_fd, name, F_OK,
	    AT_SYMLINK_NOFOLLOW) == 0;
}

int
ckstore_check(const char *uuid, const struct task_ckpt *c)
{
	char	name[UUID_STRLEN + 32], hash[DIGEST_HEX + 1];
	int	fd, good;

	name_of(uuid, c->seq, "", name, sizeof name);
	if (store_fd == -1 || (fd = openat(store_fd, name, O_RDONLY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	good = hashcopy(fd, -1, c->bytes, hash) == c->bytes &&
	    strcmp(hash, c->hash) == 0;
	close(fd);
	if (!good) {
		log_warnx("Task UUID{%s}: our copy of its checkpoint %lld "
		    "does not hash as its maker signed; dropped", uuid,
		    (long long)c->seq);
		(void)unlinkat(store_fd, name, 0);
	}
	return good;
}

/* The store's file name (regular, not followed), its size; or -1. */
static int
open_stored(const char *name, int64_t *bytes)
{
	struct stat	sb;
	int		fd;

	if (store_fd == -1 || (fd = openat(store_fd, name, O_RDONLY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -1;
	}
	*bytes = sb.st_size;
	return fd;
}

int
ckstore_open_copy(const char *uuid, int64_t seq, int64_t *bytes,
    int64_t *zbytes)
{
	char	name[UUID_STRLEN + 32], zname[UUID_STRLEN + 32];
	int	fd, zfd;

	name_of(uuid, seq, "", name, sizeof name);
	name_of(uuid, seq, ".z", zname, sizeof zname);
	if ((fd = open_stored(name, bytes)) == -1)
		return -1;
	*zbytes = -1;
	if ((zfd = open_stored(zname, zbytes)) == -1)
		return fd;
	close(fd);
	return zfd;
}

int
ckstore_begin(const char *uuid, int64_t seq)
{
	char	name[UUID_STRLEN + 32];

	name_of(uuid, seq, ".part", name, sizeof name);
	if (store_fd == -1)
		return -1;
	return openat(store_fd, name, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
}

void
ckstore_abort(int fd, const char *uuid, int64_t seq)
{
	char	name[UUID_STRLEN + 32];

	if (fd != -1)
		close(fd);
	name_of(uuid, seq, ".part", name, sizeof name);
	(void)unlinkat(store_fd, name, 0);
}

int
ckstore_commit(int fd, const char *uuid, const struct task_ckpt *c,
    char *why, size_t whylen)
{
	char	part[UUID_STRLEN + 32], name[UUID_STRLEN + 32];
	char	hash[DIGEST_HEX + 1];
	int64_t	n;

	name_of(uuid, c->seq, ".part", part, sizeof part);
	name_of(uuid, c->seq, "", name, sizeof name);
	if (lseek(fd, 0, SEEK_SET) == -1 ||
	    (n = hashcopy(fd, -1, c->bytes, hash)) == -1) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto fail;
	}
	if (n != c->bytes || strcmp(hash, c->hash) != 0) {
		snprintf(why, whylen, "its hash or size does not match the "
		    "one its maker signed");
		goto fail;
	}
	if (fsync(fd) == -1 || renameat(store_fd, part, store_fd, name) ==
	    -1) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto fail;
	}
	close(fd);
	drop_but(uuid, c->seq);
	return 0;
fail:
	ckstore_abort(fd, uuid, c->seq);
	return -1;
}

int
ckstore_restore(const char *uuid, const struct task_ckpt *c,
    const char *dir, const struct runas *ra, char *why, size_t whylen)
{
	char	name[UUID_STRLEN + 32];
	int	in, rc;

	name_of(uuid, c->seq, "", name, sizeof name);
	if (store_fd == -1 || (in = openat(store_fd, name, O_RDONLY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(why, whylen, "no copy of checkpoint %lld here",
		    (long long)c->seq);
		return -1;
	}
	if ((rc = putfile(in, c->bytes, c->hash, dir, c->file, ra, why,
	    whylen)) == -2) {
		snprintf(why, whylen, "the copy of checkpoint %lld here does "
		    "not match the hash its maker signed", (long long)c->seq);
		(void)unlinkat(store_fd, name, 0);
	}
	close(in);
	return rc == 0 ? 0 : -1;
}

void
ckstore_drop(const char *uuid)
{
	drop_but(uuid, 0);
}

void
ckstore_sweep(int (*keep)(const char *uuid))
{
	char		 uuid[UUID_STRLEN + 1];
	struct dirent	*de;
	DIR		*d;

	if ((d = read_store()) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		/* <uuid>.<seq>, nothing else, of a task still going. */
		if (strnlen(de->d_name, UUID_STRLEN + 2) > UUID_STRLEN + 1 &&
		    de->d_name[UUID_STRLEN] == '.' &&
		    (strspn(de->d_name + UUID_STRLEN + 1, "0123456789") ==
		    strlen(de->d_name + UUID_STRLEN + 1) ||
		    strcmp(de->d_name + UUID_STRLEN + 1 + strspn(de->d_name +
		    UUID_STRLEN + 1, "0123456789"), ".z") == 0)) {
			memcpy(uuid, de->d_name, UUID_STRLEN);
			uuid[UUID_STRLEN] = '\0';
			if (keep(uuid))
				continue;
		}
		(void)unlinkat(store_fd, de->d_name, 0);
	}
	closedir(d);
}
