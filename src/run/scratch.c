/*
 * scratch.c -- a run's scratch space bounded (scratch.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "bounds.h"
#include "rundir.h"
#include "scratch.h"

struct scratch {
	char		 uuid[UUID_STRLEN + 1];
	struct event	*timer;
	void		(*over)(const char *, void *);
	void		*arg;
	char		 why[REASON_MAXLEN + 1];	/* found over: why */
};

static struct event_base	*base;
static int64_t			 max_bytes;

void
scratch_init(struct event_base *b, int64_t max)
{
	base = b;
	max_bytes = max;
}

/* Is the run over the bound?  Its why then, kept. */
static int
measure(const char *uuid, char *why, size_t whylen)
{
	int64_t	used;

	if (max_bytes <= 0 || (used = rundir_usage(uuid)) <= max_bytes)
		return 0;
	snprintf(why, whylen, "its run directory grew to %lld MB, over "
	    "max_scratch_mb (%lld)", (long long)(used >> 20),
	    (long long)(max_bytes >> 20));
	return 1;
}

static void
check_cb(evutil_socket_t fd, short what, void *arg)
{
	struct scratch	*s = arg;
	struct timeval	 tv = { SCRATCH_CHECK_MS / 1000,
			    SCRATCH_CHECK_MS % 1000 * 1000 };

	if (measure(s->uuid, s->why, sizeof s->why))
		s->over(s->why, s->arg);
	else
		evtimer_add(s->timer, &tv);
}

struct scratch *
scratch_watch(const char *uuid, void (*over)(const char *, void *),
    void *arg)
{
	struct scratch	*s;
	struct timeval	 tv = { SCRATCH_CHECK_MS / 1000,
			    SCRATCH_CHECK_MS % 1000 * 1000 };

	if (max_bytes <= 0 || (s = calloc(1, sizeof *s)) == NULL)
		return NULL;
	snprintf(s->uuid, sizeof s->uuid, "%s", uuid);
	s->over = over;
	s->arg = arg;
	if ((s->timer = evtimer_new(base, check_cb, s)) == NULL) {
		free(s);
		return NULL;
	}
	evtimer_add(s->timer, &tv);
	return s;
}

int
scratch_over(const char *uuid, struct scratch *s, char *why,
    size_t whylen)
{
	if (s != NULL && s->why[0] != '\0') {
		snprintf(why, whylen, "%s", s->why);
		return 1;
	}
	return measure(uuid, why, whylen);
}

void
scratch_free(struct scratch *s)
{
	if (s == NULL)
		return;
	event_free(s->timer);
	free(s);
}
