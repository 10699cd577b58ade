/*
 * output.c -- runs' stdout and stderr kept, and served to OUTPUT
 * (output.h).  One struct output per run writing here; one struct
 * reader per OUTPUT being answered: it reads the file from its offset
 * as fast as the client takes it (client_hold_writer), and, following a
 * run that goes on, is fed what the run writes from then on.  All of it
 * happens in the event loop's one thread, so a reader that reached the
 * end of the file and joined the run misses nothing and gets nothing
 * twice.
 */
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "clients.h"
#include "cmdrun.h"
#include "log.h"
#include "output.h"
#include "owner.h"
#include "runas.h"
#include "task.h"

/* One DATA chunk read from a file, and how much a reader leaves unsent
 * before it waits for the client. */
#define CHUNK		(64 * 1024)
#define UNSENT_MAX	(256 * 1024)

struct reader;

struct output {
	char			 uuid[UUID_STRLEN + 1];
	int			 fd[2];
	/* A file of the state dir is made at the stream's first byte:
	 * most runs write nothing on one of them, and a file made and
	 * removed per run costs the file system more than the run. */
	int			 lazy[2];
	int			 ours[2];	/* in the state dir: capped */
	int64_t			 kept[2];	/* bytes kept so far */
	char			 path[2][PATH_MAX];
	TAILQ_HEAD(, reader)	 followers;
	TAILQ_ENTRY(output)	 entry;
};

struct reader {
	struct client		*c;
	char			 uuid[UUID_STRLEN + 1];
	int			 stream;
	int			 fd;		/* the file, until its end */
	int64_t			 offset;
	int			 follow;
	struct output		*live;		/* fed by the run */
	TAILQ_ENTRY(reader)	 entry;
};

static TAILQ_HEAD(, output)	outputs = TAILQ_HEAD_INITIALIZER(outputs);
static char			dir[PATH_MAX];
static int64_t			 cap;		/* bytes a stream keeps; 0 all */
static char			node[NAME_MAXLEN + 1];

static const char *stream_names[2] = { "stdout", "stderr" };

int
output_init(const char *state_dir, const char *name, int64_t max_bytes,
    char *err, size_t errlen)
{
	cap = max_bytes;
	if (snprintf(dir, sizeof dir, "%s/output", state_dir) >=
	    (int)sizeof dir) {
		snprintf(err, errlen, "state dir path too long");
		return -1;
	}
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(node, sizeof node, "%s", name);
	return 0;
}

/* Where t's stream is kept on this node; *as_user: a file the command
 * named, opened as the run user. */
static int
stream_path(const struct task *t, int stream, char *buf, size_t size,
    int *as_user)
{
	const char	*named = t->cmd == NULL ? NULL :
			    stream == OUTPUT_STDOUT ? t->cmd->out : t->cmd->err;

	*as_user = named != NULL;
	if (named != NULL)
		return cmdrun_path(t, named, buf, size);
	return snprintf(buf, size, "%s/%s.%s", dir, t->uuid,
	    stream == OUTPUT_STDOUT ? "out" : "err") < (int)size ? 0 : -1;
}

/* Open t's stream with flags: a named file as ra (NULL: as whom t
 * runs here), never through a symbolic link. */
static int
open_stream(const struct task *t, int stream, int flags,
    const struct runas *ra, char *path, size_t size)
{
	struct runas	 owner;
	char		 why[REASON_MAXLEN + 1];
	int		 as_user, fd, e;

	if (stream_path(t, stream, path, size, &as_user) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	flags |= O_CLOEXEC | O_NOFOLLOW;
	if (!as_user)
		return open(path, flags, 0600);
	if (ra != NULL)
		return runas_open(ra, path, flags, 0644);
	if (owner_of(t, 1, &owner, why, sizeof why) == -1) {
		errno = EACCES;
		return -1;
	}
	fd = runas_open(&owner, path, flags, 0644);
	e = errno;
	runas_free(&owner);
	errno = e;
	return fd;
}

struct output *
output_open(const struct task *t, const struct runas *ra, char *err,
    size_t errlen)
{
	struct output	*o;
	int		 i, as_user;

	if ((o = calloc(1, sizeof *o)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(o->uuid, sizeof o->uuid, "%s", t->uuid);
	TAILQ_INIT(&o->followers);
	for (i = 0; i < 2; i++) {
		if (stream_path(t, i, o->path[i], sizeof o->path[i],
		    &as_user) == -1) {
			snprintf(err, errlen, "path of its %s too long",
			    stream_names[i]);
			goto fail;
		}
		o->fd[i] = -1;
		/* A file it named exists once it starts, as a shell's
		 * redirection would make it; ours, a leftover removed. */
		if (as_user) {
			o->fd[i] = open_stream(t, i, O_WRONLY | O_CREAT |
			    O_TRUNC, ra, o->path[i], sizeof o->path[i]);
			if (o->fd[i] == -1) {
				snprintf(err, errlen, "cannot open %s for its "
				    "%s: %s", o->path[i], stream_names[i],
				    strerror(errno));
				goto fail;
			}
		} else {
			o->lazy[i] = o->ours[i] = 1;
			(void)unlink(o->path[i]);	/* an earlier run's */
		}
	}
	TAILQ_INSERT_TAIL(&outputs, o, entry);
	return o;
fail:
	for (i = 0; i < 2; i++)
		if (o->fd[i] != -1)
			close(o->fd[i]);
	free(o);
	return NULL;
}

static struct output *
find_output(const char *uuid)
{
	struct output	*o;

	TAILQ_FOREACH(o, &outputs, entry)
		if (strcmp(o->uuid, uuid) == 0)
			return o;
	return NULL;
}

/* "DATA n" and the n bytes; -1 if the client is gone (r freed). */
static int
send_data(struct reader *r, const void *data, size_t len)
{
	char	head[32];
	int	n = snprintf(head, sizeof head, "DATA %zu\n", len);

	if (client_write(r->c, head, n) == -1 ||
	    client_write(r->c, data, len) == -1)
		return -1;
	return 0;
}

static void
reader_free(struct reader *r)
{
	if (r->live != NULL)
		TAILQ_REMOVE(&r->live->followers, r, entry);
	if (r->fd != -1)
		close(r->fd);
	free(r);
}

/* The reply is complete: "." and the client reads requests again. */
static void
reader_end(struct reader *r)
{
	struct client	*c = r->c;

	reader_free(r);
	client_unhold(c);	/* before the write, which may drop c */
	(void)client_write(c, ".\n", 2);
}

/* The client left: nothing more is written to it. */
static void
reader_cancel_cb(void *arg)
{
	reader_free(arg);
}

/* Send the file from r's offset while the client keeps up; at its
 * end, follow the run or end the reply. */
static void
reader_pump_cb(void *arg)
{
	struct reader	*r = arg;
	char		 buf[CHUNK];
	ssize_t		 n;

	while (r->fd != -1 && client_unsent(r->c) < UNSENT_MAX) {
		n = pread(r->fd, buf, sizeof buf, r->offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				log_warnx("Task UUID{%s}: reading its %s: %s",
				    r->uuid, stream_names[r->stream],
				    strerror(errno));
			close(r->fd);
			r->fd = -1;
			break;
		}
		r->offset += n;
		if (send_data(r, buf, n) == -1)
			return;		/* gone: r is freed */
	}
	if (r->fd != -1 || r->live != NULL)
		return;
	if (r->follow && (r->live = find_output(r->uuid)) != NULL)
		TAILQ_INSERT_TAIL(&r->live->followers, r, entry);
	else
		reader_end(r);
}

/* What of len more bytes stream may keep: the node's disk is not the
 * run's to fill (max_output_mb).  Past the cap, a note once, then
 * nothing. */
static size_t
keep_of(struct output *o, int stream, size_t len, const char **note)
{
	static char	text[160];
	int64_t		room = cap - o->kept[stream];

	*note = NULL;
	if (!o->ours[stream] || cap <= 0 || (int64_t)len <= room) {
		o->kept[stream] += len;
		return len;
	}
	if (room >= 0) {
		snprintf(text, sizeof text, "\n[volery: %s cut at %lld MB "
		    "(max_output_mb); the rest was dropped]\n",
		    stream_names[stream], (long long)(cap >> 20));
		*note = text;
		log_warnx("Task UUID{%s}: its %s passed %lld MB (max_output_mb)"
		    "; the rest is dropped", o->uuid, stream_names[stream],
		    (long long)(cap >> 20));
	}
	o->kept[stream] = cap + 1;	/* said; nothing more */
	return room > 0 ? (size_t)room : 0;
}

static void	append(struct output *, int, const void *, size_t);

void
output_write(struct output *o, int stream, const void *data, size_t len)
{
	const char	*note;

	len = keep_of(o, stream, len, &note);
	append(o, stream, data, len);
	if (note != NULL)
		append(o, stream, note, strlen(note));
}

/* Bytes to stream's file and its followers. */
static void
append(struct output *o, int stream, const void *data, size_t len)
{
	struct reader	*r, *next;
	const char	*p = data;
	size_t		 left = len;
	ssize_t		 n;

	if (o->lazy[stream] && len > 0) {
		o->lazy[stream] = 0;
		o->fd[stream] = open(o->path[stream], O_WRONLY | O_CREAT |
		    O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (o->fd[stream] == -1)
			log_warnx("Task UUID{%s}: its %s is not kept: %s: %s",
			    o->uuid, stream_names[stream], o->path[stream],
			    strerror(errno));
	}
	while (o->fd[stream] != -1 && left > 0) {
		if ((n = write(o->fd[stream], p, left)) < 0) {
			if (errno == EINTR)
				continue;
			log_warnx("Task UUID{%s}: its %s is not kept: %s",
			    o->uuid, stream_names[stream], strerror(errno));
			close(o->fd[stream]);
			o->fd[stream] = -1;
			break;
		}
		p += n;
		left -= n;
	}
	for (r = TAILQ_FIRST(&o->followers); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (r->stream == stream)
			(void)send_data(r, data, len);
	}
}

void
output_close(struct output *o)
{
	struct reader	*r;
	int		 i;

	while ((r = TAILQ_FIRST(&o->followers)) != NULL)
		reader_end(r);
	for (i = 0; i < 2; i++)
		if (o->fd[i] != -1)
			close(o->fd[i]);
	TAILQ_REMOVE(&outputs, o, entry);
	free(o);
}

void
output_serve(struct client *c, const struct task *t, int stream,
    int follow, int64_t offset)
{
	struct reader	*r;
	struct stat	 st;
	char		 path[PATH_MAX], head[256];
	int		 fd;

	memset(&st, 0, sizeof st);
	if ((fd = open_stream(t, stream, O_RDONLY, NULL, path,
	    sizeof path)) ==
	    -1 && errno == ENOENT && !(t->cmd != NULL && (stream ==
	    OUTPUT_STDOUT ? t->cmd->out : t->cmd->err) != NULL)) {
		/* Ours, never made: the run wrote nothing there (yet). */
	} else if (fd == -1 || fstat(fd, &st) == -1) {
		client_replyf(c, "ERROR no %s of task %s on %s: %s\n",
		    stream_names[stream], t->uuid, node, strerror(errno));
		if (fd != -1)
			close(fd);
		return;
	}
	if ((r = calloc(1, sizeof *r)) == NULL) {
		close(fd);
		client_replyf(c, "ERROR out of memory\n");
		return;
	}
	r->c = c;
	snprintf(r->uuid, sizeof r->uuid, "%s", t->uuid);
	r->stream = stream;
	r->fd = fd;
	r->offset = offset < st.st_size ? offset : st.st_size;
	r->follow = follow;
	snprintf(head, sizeof head, "OUTPUT %s %s %s %lld\n", t->uuid, node,
	    stream_names[stream], (long long)st.st_size);
	if (client_write(c, head, strlen(head)) == -1) {
		reader_free(r);
		return;
	}
	client_hold_writer(c, r, reader_cancel_cb, reader_pump_cb);
	reader_pump_cb(r);
}

void
output_forget(const char *uuid)
{
	char	path[PATH_MAX + UUID_STRLEN + 8];
	int	i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s.%s", dir, uuid,
		    i == OUTPUT_STDOUT ? "out" : "err");
		if (unlink(path) == -1 && errno != ENOENT)
			log_warnx("%s: %s", path, strerror(errno));
	}
}

void
output_shutdown(void)
{
	struct output	*o;

	while ((o = TAILQ_FIRST(&outputs)) != NULL)
		output_close(o);
}
