/*
 * journal.c -- append-only task records with CRC framing, group commit,
 * and compaction by atomic rewrite (write temp, fsync, rename, fsync dir).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "log.h"
#include "task.h"
#include "wire.h"

struct waiter {
	journal_done_cb	*cb;
	void		*arg;
};

static struct {
	char		 dir[4096];
	char		 path[4200];
	int		 fd;
	char		*buf;		/* framed records not yet written */
	size_t		 len, cap;
	struct waiter	*waiters;
	size_t		 nwait, capwait;
	size_t		 records;
	off_t		 size;		/* bytes known good on disk */
	int		 unsynced;	/* written, fdatasync still to come */
	int		 lost;		/* records dropped: rewrite all */
} j = { .fd = -1 };

static int
mkdir_p(const char *path)
{
	char	tmp[4096], *p;

	snprintf(tmp, sizeof tmp, "%s", path);
	for (p = tmp + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	/* Runs enter runs/<uuid>, as another user: search, not list. */
	if (mkdir(tmp, 0711) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
journal_open(const char *state_dir, char *err, size_t errlen)
{
	snprintf(j.dir, sizeof j.dir, "%s", state_dir);
	snprintf(j.path, sizeof j.path, "%s/journal", state_dir);
	if (mkdir_p(state_dir) == -1) {
		snprintf(err, errlen, "state dir %s: %s", state_dir,
		    strerror(errno));
		return -1;
	}
	j.fd = open(j.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (j.fd == -1) {
		snprintf(err, errlen, "%s: %s", j.path, strerror(errno));
		return -1;
	}
	j.size = lseek(j.fd, 0, SEEK_END);
	return 0;
}

void
journal_close(void)
{
	journal_commit();
	if (j.fd != -1)
		close(j.fd);
	j.fd = -1;
	free(j.buf);
	free(j.waiters);
	j.buf = NULL;
	j.waiters = NULL;
	j.len = j.cap = j.nwait = j.capwait = 0;
}

char *
journal_read_file(const char *path, size_t *lenp)
{
	struct stat	 st;
	char		*data;
	size_t		 off = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || (data = malloc(st.st_size + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, data + off, st.st_size - off);
		if (n <= 0)
			break;
		off += n;
	}
	close(fd);
	*lenp = off;
	return data;
}

static void
load_damaged(size_t lineno, enum wire_damage kind, const char *why,
    size_t len, void *arg)
{
	if (kind == DAMAGE_TORN)
		log_msg(VLOG_ERROR, "journal %s: line %zu is truncated (%zu "
		    "bytes without newline); ignored", j.path, lineno, len);
	else if (kind == DAMAGE_CHECKSUM)
		log_msg(VLOG_ERROR, "journal %s: line %zu fails its checksum; "
		    "skipped", j.path, lineno);
	else
		log_msg(VLOG_ERROR, "journal %s: line %zu: %s; skipped",
		    j.path, lineno, why);
}

/*
 * Load every record that checks and decodes.  A damaged line -- a bad
 * checksum (a flipped byte) or a record that does not decode -- is
 * reported and skipped, and the loading goes on: the records after it
 * are intact, and dropping them would lose acknowledged tasks.  A
 * damaged journal is kept whole as journal.bad for a person to look at.
 */
int
journal_load(journal_load_cb *cb, void *arg)
{
	struct wire_journal_scan scan = { cb, load_damaged, arg, 0, 0 };
	char	*data, bad[4300];
	size_t	 len;

	if ((data = journal_read_file(j.path, &len)) == NULL)
		return errno == ENOENT ? 0 : -1;
	wire_journal_scan(data, len, &scan);
	if (scan.damages > 0) {
		snprintf(bad, sizeof bad, "%s.bad", j.path);
		if (rename(j.path, bad) == 0)
			log_warnx("journal: %zu damaged line%s; the whole "
			    "file is kept as %s", scan.damages,
			    scan.damages == 1 ? "" : "s", bad);
	}
	free(data);
	j.records = scan.loaded;
	return (int)scan.loaded;
}

int
journal_buf_add(char **buf, size_t *len, size_t *cap, const char *bytes,
    size_t n)
{
	if (*len + n > *cap) {
		size_t ncap = *cap == 0 ? 65536 : *cap;
		char *nbuf;
		while (*len + n > ncap)
			ncap *= 2;
		if ((nbuf = realloc(*buf, ncap)) == NULL)
			return -1;
		*buf = nbuf;
		*cap = ncap;
	}
	memcpy(*buf + *len, bytes, n);
	*len += n;
	return 0;
}

static int
append_framed(char **buf, size_t *len, size_t *cap, const struct task *t)
{
	static char	framed[RECORD_LINE_MAX + 16];
	int		flen;

	if ((flen = wire_task_frame(t, framed, sizeof framed)) == -1) {
		log_msg(VLOG_ERROR, "journal: task %s does not fit a record",
		    t->uuid);
		return -1;
	}
	return journal_buf_add(buf, len, cap, framed, flen);
}

void
journal_append(const struct task *t)
{
	if (append_framed(&j.buf, &j.len, &j.cap, t) == 0)
		j.records++;
}

void
journal_after_commit(journal_done_cb *cb, void *arg)
{
	if (j.nwait == j.capwait) {
		size_t cap = j.capwait == 0 ? 16 : j.capwait * 2;
		struct waiter *w = realloc(j.waiters, cap * sizeof *w);
		if (w == NULL) {
			cb(arg, 0);
			return;
		}
		j.waiters = w;
		j.capwait = cap;
	}
	j.waiters[j.nwait].cb = cb;
	j.waiters[j.nwait].arg = arg;
	j.nwait++;
}

int
journal_pending(void)
{
	return j.len > 0 || j.nwait > 0;
}

int
journal_durable(void)
{
	return j.len == 0 && !j.unsynced;
}

int
journal_waited_on(void)
{
	return j.nwait > 0;
}

int
journal_write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* The records appended go to the file (-1: they could not, and the
 * file is back to what was good; a later rewrite puts them in). */
int
journal_write_unsynced(void)
{
	if (j.len == 0)
		return 0;
	if (j.fd == -1 || journal_write_all(j.fd, j.buf, j.len) == -1) {
		log_msg(VLOG_ERROR, "journal %s: %s; %zu bytes not written",
		    j.path, strerror(errno), j.len);
		/* No torn record may stay in the middle of the file: cut
		 * back to what was good, rewrite all later. */
		if (j.fd != -1 && ftruncate(j.fd, j.size) == -1)
			log_msg(VLOG_ERROR, "journal %s: truncate: %s",
			    j.path, strerror(errno));
		j.lost = 1;
		j.len = 0;
		return -1;
	}
	j.size += j.len;
	j.len = 0;
	j.unsynced = 1;
	return 0;
}

int
journal_commit(void)
{
	struct waiter	*w;
	size_t		 nwait, i;
	int		 ok = journal_write_unsynced() == 0;

	if (ok && j.unsynced) {
		if (fdatasync(j.fd) == -1) {
			/* What it held may be lost: rewrite all later. */
			log_msg(VLOG_ERROR, "journal %s: fdatasync: %s",
			    j.path, strerror(errno));
			ok = 0;
			j.lost = 1;
		}
		j.unsynced = 0;
	}
	/* Callbacks may append and wait again: take the list first. */
	w = j.waiters;
	nwait = j.nwait;
	j.waiters = NULL;
	j.nwait = j.capwait = 0;
	for (i = 0; i < nwait; i++)
		w[i].cb(w[i].arg, ok);
	free(w);
	return ok ? 0 : -1;
}

int
journal_rewrite(struct task *const *tasks, size_t n)
{
	char	 tmp[4300], *buf = NULL;
	size_t	 len = 0, cap = 0, i;
	int	 fd, dfd;

	journal_commit();
	for (i = 0; i < n; i++)
		if (append_framed(&buf, &len, &cap, tasks[i]) == -1)
			goto fail_buf;
	snprintf(tmp, sizeof tmp, "%s.tmp", j.path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1)
		goto fail_buf;
	if (journal_write_all(fd, buf, len) == -1 || fsync(fd) == -1 ||
	    rename(tmp, j.path) == -1) {
		close(fd);
		unlink(tmp);
		goto fail_buf;
	}
	close(fd);
	if ((dfd = open(j.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		fsync(dfd);
		close(dfd);
	}
	free(buf);
	if (j.fd != -1)
		close(j.fd);
	j.fd = open(j.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	j.records = n;
	j.size = len;
	if (j.lost && j.fd != -1)
		log_msg(VLOG_NORMAL, "journal %s: rewritten whole; every task "
		    "is durable again", j.path);
	j.lost = 0;
	return j.fd == -1 ? -1 : 0;
fail_buf:
	log_msg(VLOG_ERROR, "journal: rewrite of %s failed: %s", j.path,
	    strerror(errno));
	free(buf);
	return -1;
}

int
journal_lost(void)
{
	return j.lost;
}

size_t
journal_records(void)
{
	return j.records;
}
