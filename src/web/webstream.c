/*
 * webstream.c -- the API's event stream, GET /api/events (webstream.h):
 * a "task" event for each change of a task (as SUBSCRIBE hears it), and
 * a "nodes" event when what the nodes' cards show changed, checked after
 * each event the node handled, at most every NODES_EVERY_MS (no timer
 * polls anything).  A stream whose client stops reading is dropped once
 * STREAM_UNSENT_MAX bytes wait for it.
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <jansson.h>

#include "api.h"
#include "clock.h"
#include "httpreply.h"
#include "log.h"
#include "notify.h"
#include "webstream.h"

#define STREAM_UNSENT_MAX	(256 * 1024)
#define STREAMS_MAX		64
#define STREAM_SNDBUF		(64 * 1024)
#define NODES_EVERY_MS		250

struct stream {
	struct evhttp_request		*req;
	struct evhttp_connection	*conn;
	TAILQ_ENTRY(stream)		 entry;
};

static struct {
	struct event			*nodes_ev;	/* a nodes event due */
	int				 nodes_pending;
	int				 nodes_dirty;	/* a task changed */
	char				*nodes_last;	/* the last nodes event */
	uint64_t			 nodes_digest;	/* as last sent */
	int64_t				 nodes_sent_ms;
	TAILQ_HEAD(, stream)		 streams;
	int				 nstreams;
} st = { .streams = TAILQ_HEAD_INITIALIZER(st.streams) };

static void
stream_free(struct stream *s)
{
	TAILQ_REMOVE(&st.streams, s, entry);
	st.nstreams--;
	free(s);
}

/* The client went (or we dropped it): forget its stream. */
static void
stream_closed_cb(struct evhttp_connection *conn, void *arg)
{
	stream_free(arg);
}

/* Send text on s; drop s if its client stopped reading. */
static void
stream_send(struct stream *s, const char *text, size_t len)
{
	struct bufferevent	*bev = evhttp_connection_get_bufferevent(
				    s->conn);
	struct evbuffer		*chunk;

	if (bev != NULL && evbuffer_get_length(bufferevent_get_output(bev)) >
	    STREAM_UNSENT_MAX) {
		log_info("http: an event stream's client stopped reading; "
		    "dropped");
		evhttp_connection_set_closecb(s->conn, NULL, NULL);
		evhttp_connection_free(s->conn);
		stream_free(s);
		return;
	}
	if ((chunk = evbuffer_new()) == NULL)
		return;
	evbuffer_add(chunk, text, len);
	evhttp_send_reply_chunk(s->req, chunk);
	evbuffer_free(chunk);
}

/* "event: name" with text as its data, to every stream or to one. */
static void
send_text(struct stream *only, const char *name, const char *text)
{
	struct stream	*s, *next;
	char		*event;
	size_t		 len = strlen(text) + strlen(name) + 32;

	if ((event = malloc(len)) == NULL)
		return;
	len = snprintf(event, len, "event: %s\ndata: %s\n\n", name, text);
	for (s = only != NULL ? only : TAILQ_FIRST(&st.streams); s != NULL;
	    s = next) {
		next = only != NULL ? NULL : TAILQ_NEXT(s, entry);
		stream_send(s, event, len);
	}
	free(event);
}

/* v as compact JSON text (v's reference is taken); NULL if none. */
static char *
dumps(json_t *v)
{
	char	*text = v != NULL ? json_dumps(v, JSON_COMPACT) : NULL;

	json_decref(v);
	return text;
}

/* The same with v as JSON (v's reference is taken). */
static void
send_json(struct stream *only, const char *name, json_t *v)
{
	char	*text = dumps(v);

	if (text != NULL)
		send_text(only, name, text);
	free(text);
}

/* The task uuid changed: its event to every stream that follows. */
static void
task_changed(const char *uuid, const char *snapshot)
{
	if (st.nstreams == 0)
		return;
	send_json(NULL, "task", api_task_event(uuid));
	st.nodes_dirty = 1;	/* a card's free slots may have changed */
}

/* text (taken) is what every stream shows of the nodes now: later
 * changes are measured against it. */
static void
nodes_shown(char *text)
{
	if (text != st.nodes_last) {
		free(st.nodes_last);
		st.nodes_last = text;
	}
	st.nodes_digest = api_nodes_digest();
	st.nodes_dirty = 0;
}

/* A nodes event, if the cards changed since the last one. */
static void
send_nodes(void)
{
	char	*text = dumps(api_nodes());

	st.nodes_sent_ms = clock_node_ms();
	if (text == NULL)
		return;
	if (st.nodes_last != NULL && strcmp(text, st.nodes_last) == 0) {
		free(text);
		nodes_shown(st.nodes_last);
		return;
	}
	send_text(NULL, "nodes", text);
	nodes_shown(text);
}

/*
 * Where a new stream's cards start.  With no stream before it, nothing
 * followed the nodes: this is the view every later event is measured
 * against.
 */
static void
nodes_first(struct stream *s)
{
	char	*text = dumps(api_nodes());

	if (text == NULL)
		return;
	send_text(s, "nodes", text);
	if (st.nstreams > 1)
		free(text);
	else
		nodes_shown(text);
}

/* Heartbeats (the digest) or tasks (dirty) may have changed a card. */
static int
nodes_may_have_changed(void)
{
	return st.nodes_dirty || api_nodes_digest() != st.nodes_digest;
}

static void
nodes_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	st.nodes_pending = 0;
	if (st.nstreams > 0 && nodes_may_have_changed())
		send_nodes();
}

/* After each event the node handled: if what the nodes' cards show
 * changed, a "nodes" event to every stream, at most every 250 ms. */
static void
nodes_maybe_changed(void)
{
	int64_t		wait;
	struct timeval	tv;

	if (st.nstreams == 0 || st.nodes_pending || !nodes_may_have_changed())
		return;
	/* Under load the cards change all the time: one event per
	 * NODES_EVERY_MS tells it all. */
	wait = st.nodes_sent_ms + NODES_EVERY_MS - clock_node_ms();
	if (wait <= 0) {
		send_nodes();
		return;
	}
	tv.tv_sec = wait / 1000;
	tv.tv_usec = wait % 1000 * 1000;
	st.nodes_pending = 1;
	evtimer_add(st.nodes_ev, &tv);
}

void
webstream_open(struct evhttp_request *req)
{
	struct stream		*s;
	struct evkeyvalq	*out = evhttp_request_get_output_headers(req);
	struct bufferevent	*bev;

	if (st.nstreams >= STREAMS_MAX) {
		http_reply_error(req, 503, "Service Unavailable", "too many event "
		    "streams");
		return;
	}
	if ((s = calloc(1, sizeof *s)) == NULL) {
		http_reply_error(req, 500, "Internal Server Error", "out of memory");
		return;
	}
	s->req = req;
	s->conn = evhttp_request_get_connection(req);
	/* A small kernel buffer: what a client does not read piles up
	 * where we see it (stream_send), not in the kernel. */
	if ((bev = evhttp_connection_get_bufferevent(s->conn)) != NULL)
		setsockopt(bufferevent_getfd(bev), SOL_SOCKET, SO_SNDBUF,
		    &(int){ STREAM_SNDBUF }, sizeof(int));
	TAILQ_INSERT_TAIL(&st.streams, s, entry);
	st.nstreams++;
	evhttp_connection_set_closecb(s->conn, stream_closed_cb, s);
	evhttp_add_header(out, "Content-Type", "text/event-stream");
	evhttp_add_header(out, "Cache-Control", "no-store");
	evhttp_send_reply_start(req, 200, "OK");
	stream_send(s, ": volery events\n\n", 17);
	nodes_first(s);
}

static const struct notify_hook	listener = { task_changed,
	    nodes_maybe_changed };

int
webstream_init(struct event_base *base)
{
	if ((st.nodes_ev = evtimer_new(base, nodes_timer_cb, NULL)) == NULL)
		return -1;
	return notify_add(&listener);
}

void
webstream_close(void)
{
	struct stream	*s;

	while ((s = TAILQ_FIRST(&st.streams)) != NULL) {
		evhttp_connection_set_closecb(s->conn, NULL, NULL);
		stream_free(s);
	}
	if (st.nodes_ev != NULL)
		event_free(st.nodes_ev);
	st.nodes_ev = NULL;
	free(st.nodes_last);
	st.nodes_last = NULL;
}
