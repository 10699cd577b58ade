/*
 * leftwait.c -- a run's end waits for what it left (leftwait.h).
 */
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "bounds.h"
#include "contain.h"
#include "job.h"
#include "leftwait.h"
#include "log.h"

struct leftwait {
	char			 uuid[UUID_STRLEN + 1];
	char			 name[NAME_MAXLEN + 1];
	void			(*gone)(void *);
	void			*arg;
	struct event		*timer;
	TAILQ_ENTRY(leftwait)	 entry;
};

static TAILQ_HEAD(, leftwait)	waits = TAILQ_HEAD_INITIALIZER(waits);
static struct event_base	*base;

void
leftwait_cancel(struct leftwait *w)
{
	if (w == NULL)
		return;
	TAILQ_REMOVE(&waits, w, entry);
	if (w->timer != NULL)
		event_free(w->timer);
	free(w);
}

static void
over(struct leftwait *w)
{
	void	(*gone)(void *) = w->gone;
	void	 *arg = w->arg;

	leftwait_cancel(w);
	gone(arg);
}

static void
expired(evutil_socket_t fd, short what, void *arg)
{
	struct leftwait	*w = arg;

	log_warnx("Task UUID{%s} name{%s}: processes of its run outlived "
	    "SIGKILL for %d s; its slot is free again", w->uuid, w->name,
	    LEFTWAIT_S);
	over(w);
}

/* Children were reaped: a run whose leftovers are all gone ends now. */
static void
reaped(void)
{
	struct leftwait	*w;

again:
	TAILQ_FOREACH(w, &waits, entry)
		if (contain_gone(w->uuid)) {
			over(w);	/* may start or end other runs */
			goto again;
		}
}

void
leftwait_init(struct event_base *b)
{
	base = b;
	job_on_reaped(reaped);
}

struct leftwait *
leftwait_start(const char *uuid, const char *name, void (*gone)(void *),
    void *arg)
{
	struct leftwait	*w;
	struct timeval	 tv = { LEFTWAIT_S, 0 };

	if ((w = calloc(1, sizeof *w)) == NULL)
		return NULL;
	snprintf(w->uuid, sizeof w->uuid, "%s", uuid);
	snprintf(w->name, sizeof w->name, "%s", name);
	w->gone = gone;
	w->arg = arg;
	if ((w->timer = evtimer_new(base, expired, w)) != NULL)
		evtimer_add(w->timer, &tv);
	TAILQ_INSERT_TAIL(&waits, w, entry);
	return w;
}
