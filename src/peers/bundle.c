/*
 * bundle.c -- what a node sends to one place in one pass of its event
 * loop goes as one datagram (bundle.h).
 *
 * The first line added in a pass makes a callback active; libevent runs
 * it after the callbacks already active in that pass, so the bundles
 * hold whatever the pass had to say, and leave before the loop waits
 * again.  Lines to one place keep their order; the bundles leave in the
 * order they were opened.
 */
#include <netinet/in.h>

#include <stdint.h>
#include <string.h>

#include <event2/event.h>

#include "bounds.h"
#include "bundle.h"
#include "zeropages.h"

struct open_bundle {
	int			 used;
	uint64_t		 opened;	/* order of opening */
	int			 broadcast;
	struct sockaddr_in	 to;
	char			 name[NAME_MAXLEN + 1];
	size_t			 len;
	char			 text[BUNDLE_MAX];
};

static struct {
	bundle_send_fn		*send;
	struct event		*flush_ev;
	int			 armed;
	uint64_t		 opened;
	struct open_bundle	 v[BUNDLE_DESTS];
} b;

static void
send_one(struct open_bundle *o)
{
	if (!o->used)
		return;
	o->used = 0;
	b.send(&o->to, o->broadcast ? NULL : o->name, o->text, o->len);
}

void
bundle_flush(void)
{
	struct open_bundle	*oldest;
	size_t			 i;

	b.armed = 0;
	for (;;) {
		oldest = NULL;
		for (i = 0; i < BUNDLE_DESTS; i++)
			if (b.v[i].used && (oldest == NULL ||
			    b.v[i].opened < oldest->opened))
				oldest = &b.v[i];
		if (oldest == NULL)
			return;
		send_one(oldest);
	}
}

static void
flush_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	bundle_flush();
}

int
bundle_init(struct event_base *base, bundle_send_fn *send)
{
	zero_pages(&b, sizeof b);
	b.send = send;
	if (base != NULL &&
	    (b.flush_ev = event_new(base, -1, 0, flush_cb, NULL)) == NULL)
		return -1;
	return 0;
}

void
bundle_free(void)
{
	bundle_flush();
	if (b.flush_ev != NULL)
		event_free(b.flush_ev);
	b.flush_ev = NULL;
}

static int
same_place(const struct open_bundle *o, const struct sockaddr_in *to,
    const char *name)
{
	if (!o->used || o->broadcast != (name == NULL))
		return 0;
	return o->to.sin_addr.s_addr == to->sin_addr.s_addr &&
	    o->to.sin_port == to->sin_port &&
	    (name == NULL || strcmp(o->name, name) == 0);
}

/* The bundle open for that place, or a free one (the oldest sent). */
static struct open_bundle *
bundle_for(const struct sockaddr_in *to, const char *name)
{
	struct open_bundle	*o, *oldest = NULL;
	size_t			 i;

	for (i = 0; i < BUNDLE_DESTS; i++)
		if (same_place(&b.v[i], to, name))
			return &b.v[i];
	for (i = 0; i < BUNDLE_DESTS; i++) {
		o = &b.v[i];
		if (!o->used)
			break;
		if (oldest == NULL || o->opened < oldest->opened)
			oldest = o;
	}
	if (i == BUNDLE_DESTS) {
		send_one(oldest);
		o = oldest;
	}
	o->used = 1;
	o->opened = ++b.opened;
	o->broadcast = name == NULL;
	o->to = *to;
	o->name[0] = '\0';
	if (name != NULL)
		memcpy(o->name, name, strlen(name) + 1);
	o->len = 0;
	return o;
}

void
bundle_add(const struct sockaddr_in *to, const char *name, const char *line,
    size_t len)
{
	struct open_bundle	*o;
	size_t			 i;

	if (len > BUNDLE_MAX || (name != NULL && strlen(name) > NAME_MAXLEN)) {
		/* Alone, after what was said there before it. */
		for (i = 0; i < BUNDLE_DESTS; i++)
			if (same_place(&b.v[i], to, name))
				send_one(&b.v[i]);
		b.send(to, name, line, len);
		return;
	}
	o = bundle_for(to, name);
	if (o->len > 0 && o->len + 1 + len > BUNDLE_MAX) {
		send_one(o);
		o = bundle_for(to, name);
	}
	if (o->len > 0)
		o->text[o->len++] = '\n';
	memcpy(o->text + o->len, line, len);
	o->len += len;
	if (!b.armed && b.flush_ev != NULL) {
		b.armed = 1;
		event_active(b.flush_ev, EV_TIMEOUT, 0);
	}
}
