/*
 * stop.c -- stopping a run step by step (stop.h).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "log.h"
#include "stop.h"

static struct event_base	*base;
static int			 grace_ms;

static void	step_cb(evutil_socket_t, short, void *);

void
stop_init(struct event_base *b, int grace)
{
	base = b;
	grace_ms = grace;
}

/* The next step after the grace period. */
static void
wait_grace(struct stopper *s)
{
	struct timeval	tv = { grace_ms / 1000, (grace_ms % 1000) * 1000 };

	evtimer_add(s->timer, &tv);
}

static void
step_cb(evutil_socket_t fd, short what, void *arg)
{
	struct stopper	*s = arg;

	if (*s->exited)
		return;
	s->stage++;
	/* A suspended run must be able to hear CANCEL or SIGTERM. */
	if (s->stage == 1)
		kill(-s->pid, SIGCONT);
	/* A command has no runner protocol: SIGTERM is its CANCEL, after
	 * its checkpoint signal if it has one. */
	if (s->stage == 1 && s->in_fd == -1 && s->first_signal == 0)
		s->stage = 2;
	switch (s->stage) {
	case 1:
		if (s->in_fd == -1)
			kill(-s->pid, s->first_signal);
		else if (write(s->in_fd, "CANCEL\n", 7) == -1)
			log_debug("Task UUID{%s}: CANCEL not written: "
			    "%s", s->uuid, strerror(errno));
		break;
	case 2:
		if (s->in_fd != -1)
			log_warnx("Task UUID{%s} name{%s} pid %d still "
			    "running %d ms after %s; SIGTERM", s->uuid,
			    s->exec, (int)s->pid, grace_ms, s->lingering ?
			    "its TERMINATED" : "CANCEL");
		kill(-s->pid, SIGTERM);
		break;
	default:
		log_warnx("Task UUID{%s} name{%s} pid %d ignored "
		    "SIGTERM; SIGKILL", s->uuid, s->exec, (int)s->pid);
		kill(-s->pid, SIGKILL);
		return;
	}
	wait_grace(s);
}

int
stop_begin(struct stopper *s, int first_signal)
{
	if (s->stage > 0 || *s->exited)
		return 0;
	s->first_signal = first_signal;
	if ((s->timer = evtimer_new(base, step_cb, s)) == NULL) {
		kill(-s->pid, SIGKILL);
		return 1;
	}
	step_cb(-1, 0, s);
	return 1;
}

void
stop_linger(struct stopper *s)
{
	if (s->stage > 0 || *s->exited ||
	    (s->timer = evtimer_new(base, step_cb, s)) == NULL)
		return;
	s->stage = 1;		/* the next step is SIGTERM */
	s->lingering = 1;
	wait_grace(s);
}

void
stop_free(struct stopper *s)
{
	if (s->timer != NULL)
		event_free(s->timer);
	s->timer = NULL;
}
