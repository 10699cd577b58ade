/*
 * ckwatch.c -- a command's checkpoint file watched (ckwatch.h).
 */
#include <sys/inotify.h>
#include <sys/queue.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "bounds.h"
#include "ckwatch.h"
#include "log.h"

struct watched {
	TAILQ_ENTRY(watched)	 entry;
	int			 wd;
	char			 uuid[UUID_STRLEN + 1];
	char			 file[CKPT_FILE_MAX + 1];
};

static struct {
	struct event_base		*base;
	struct event			*ev;
	int				 fd;
	ckwatch_cb			 cb;
	TAILQ_HEAD(, watched)		 all;
} cw = { .fd = -1 };

void
ckwatch_init(struct event_base *base, ckwatch_cb cb)
{
	cw.base = base;
	cw.cb = cb;
	TAILQ_INIT(&cw.all);
}

/* Read what inotify has: each write of a watched file told. */
static void
drain(void)
{
	char			 buf[16 * (sizeof(struct inotify_event) +
				    NAME_MAX + 1)];
	const struct inotify_event *e;
	struct watched		*w;
	ssize_t			 n, off;

	while ((n = read(cw.fd, buf, sizeof buf)) > 0)
		for (off = 0; off < n; off += sizeof *e + e->len) {
			e = (const struct inotify_event *)(buf + off);
			if (e->len == 0)
				continue;
			TAILQ_FOREACH(w, &cw.all, entry)
				if (w->wd == e->wd &&
				    strcmp(w->file, e->name) == 0) {
					cw.cb(w->uuid, w->file);
					break;
				}
		}
}

static void
readable_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	drain();
}

int
ckwatch_add(const char *uuid, const char *dir, const char *file)
{
	struct watched	*w;

	if (cw.fd == -1) {
		if ((cw.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1 ||
		    (cw.ev = event_new(cw.base, cw.fd, EV_READ | EV_PERSIST,
		    readable_cb, NULL)) == NULL ||
		    event_add(cw.ev, NULL) == -1) {
			log_warn("checkpoints: inotify");
			if (cw.fd != -1)
				close(cw.fd);
			cw.fd = -1;
			return -1;
		}
	}
	if ((w = calloc(1, sizeof *w)) == NULL)
		return -1;
	if ((w->wd = inotify_add_watch(cw.fd, dir, IN_CLOSE_WRITE |
	    IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW)) == -1) {
		log_warn("Task UUID{%s}: cannot watch its checkpoint", uuid);
		free(w);
		return -1;
	}
	snprintf(w->uuid, sizeof w->uuid, "%s", uuid);
	snprintf(w->file, sizeof w->file, "%s", file);
	TAILQ_INSERT_TAIL(&cw.all, w, entry);
	return 0;
}

void
ckwatch_close(void)
{
	struct watched	*w;

	while ((w = TAILQ_FIRST(&cw.all)) != NULL) {
		TAILQ_REMOVE(&cw.all, w, entry);
		free(w);
	}
	if (cw.ev != NULL)
		event_free(cw.ev);
	if (cw.fd != -1)
		close(cw.fd);
	cw.ev = NULL;
	cw.fd = -1;
}

void
ckwatch_remove(const char *uuid)
{
	struct watched	*w;

	TAILQ_FOREACH(w, &cw.all, entry)
		if (strcmp(w->uuid, uuid) == 0)
			break;
	if (w == NULL)
		return;
	drain();		/* its last write, before the dir goes */
	TAILQ_REMOVE(&cw.all, w, entry);
	(void)inotify_rm_watch(cw.fd, w->wd);
	free(w);
}
