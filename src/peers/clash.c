/*
 * clash.c -- two nodes of one name (clash.h).  The first second after
 * start is ignored: an earlier incarnation's last datagrams may still
 * arrive.  The clash lasts until the other has been silent as long as a
 * live node may be.
 */
#include <stdio.h>

#include <event2/event.h>

#include "clash.h"
#include "clock.h"
#include "log.h"

#define CLASH_GRACE_MS	1000

static struct {
	struct event	*over_ev;
	const char	*name;
	int64_t		 silence_ms;
	int64_t		 started_ms;
	void		(*changed)(void);
	int		 on;
	char		 from[64];
} cl;

static void
over_cb(evutil_socket_t fd, short what, void *arg)
{
	cl.on = 0;
	log_msg(VLOG_NORMAL, "the node at %s also called %s has been silent "
	    "for %lld ms: taking tasks again", cl.from, cl.name,
	    (long long)cl.silence_ms);
	cl.changed();
}

int
clash_init(struct event_base *base, const char *name, int64_t silence_ms,
    void (*changed)(void))
{
	cl.name = name;
	cl.silence_ms = silence_ms;
	cl.changed = changed;
	cl.started_ms = clock_node_ms();
	cl.on = 0;
	cl.over_ev = evtimer_new(base, over_cb, NULL);
	return cl.over_ev == NULL ? -1 : 0;
}

void
clash_close(void)
{
	if (cl.over_ev != NULL)
		event_free(cl.over_ev);
	cl.over_ev = NULL;
}

void
clash_heard(const char *from)
{
	struct timeval	tv;

	if (cl.over_ev == NULL ||
	    clock_node_ms() - cl.started_ms < CLASH_GRACE_MS)
		return;
	tv.tv_sec = cl.silence_ms / 1000;
	tv.tv_usec = cl.silence_ms % 1000 * 1000;
	evtimer_add(cl.over_ev, &tv);	/* from the last one heard */
	if (cl.on)
		return;
	cl.on = 1;
	snprintf(cl.from, sizeof cl.from, "%s", from);
	log_msg(VLOG_ERROR, "another node, at %s, is also called %s: names "
	    "must be unique in a cluster; this node takes no tasks until "
	    "one of them is renamed (<name> in its configuration)", from,
	    cl.name);
	cl.changed();
}

int
clash_active(char *from, size_t size)
{
	if (cl.on && from != NULL)
		snprintf(from, size, "%s", cl.from);
	return cl.on;
}
