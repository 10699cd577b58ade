/*
 * clients.c -- the telnet-style client port.  Each connection is a
 * bufferevent; requests are whole lines of at most CLIENT_LINE_MAX bytes.
 * A longer line is answered "ERROR line too long" and skipped up to its
 * newline; a client that stops reading its replies is dropped.
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "lex.h"
#include "bounds.h"
#include "clients.h"
#include "journal.h"
#include "log.h"
#include "task.h"
#include "wire.h"

struct client {
	struct bufferevent	*bev;		/* NULL once gone */
	char			 addr[ADDR_MAXLEN + 1];
	int			 loopback;
	int			 discarding;	/* inside an over-long line */
	int			 quitting;
	int			 refs;		/* deferred replies held */
	int			 pending;	/* replies waiting to go out */
	char			 awaiting[UUID_STRLEN + 1];	/* CANCEL */
	void			*job;		/* answering (LOG), or NULL */
	void			(*job_cancel)(void *);
	char			(*subs)[UUID_STRLEN + 1];
	size_t			 nsubs, capsubs;
	TAILQ_ENTRY(client)	 entry;
};

static TAILQ_HEAD(, client)	 clients = TAILQ_HEAD_INITIALIZER(clients);
static struct evconnlistener	*listener;
static clients_line_fn		*line_fn;

static void
client_release(struct client *c)
{
	if (c->bev != NULL || c->refs > 0)
		return;
	free(c->subs);
	free(c);
}

/* The connection is over; the struct lives on while replies hold it. */
static void
client_gone(struct client *c)
{
	if (c->bev == NULL)
		return;
	bufferevent_free(c->bev);
	c->bev = NULL;
	TAILQ_REMOVE(&clients, c, entry);
	if (c->job != NULL) {
		c->job_cancel(c->job);
		c->job = NULL;
	}
	log_debug("client %s disconnected", c->addr);
	client_release(c);
}

static void
send_text(struct client *c, const char *text)
{
	struct evbuffer	*out;

	if (c->bev == NULL)
		return;
	out = bufferevent_get_output(c->bev);
	if (evbuffer_get_length(out) > CLIENT_OUTPUT_MAX) {
		log_warnx("client %s does not read its replies; "
		    "dropped", c->addr);
		client_gone(c);
		return;
	}
	evbuffer_add(out, text, strlen(text));
}

struct deferred {
	struct client	*c;
	int		 durable;	/* the reply promises durability */
	char		 text[];
};

static void
deferred_cb(void *arg, int ok)
{
	struct deferred	*d = arg;
	struct client	*c = d->c;

	c->pending--;
	c->refs--;
	if (!ok && d->durable) {
		/* Never claim what the disk did not take. */
		char msg[CLIENT_LINE_MAX + 128];
		snprintf(msg, sizeof msg, "ERROR the journal could not be "
		    "written (see the node's log); not durable: %s", d->text);
		send_text(c, msg);
	} else
		send_text(c, d->text);
	free(d);
	client_release(c);
}

void
client_reply(struct client *c, int deferred, const char *text)
{
	struct deferred	*d;
	size_t		 len = strlen(text);

	if (!deferred && c->pending == 0) {
		send_text(c, text);
		return;
	}
	if ((d = malloc(sizeof *d + len + 1)) == NULL) {
		send_text(c, "ERROR out of memory\n");
		return;
	}
	d->c = c;
	d->durable = deferred;
	memcpy(d->text, text, len + 1);
	c->pending++;
	c->refs++;
	journal_after_commit(deferred_cb, d);
}

/* client_reply(), formatted. */
static void __attribute__((format(printf, 3, 0)))
reply_vf(struct client *c, int deferred, const char *fmt, va_list ap)
{
	char	buf[CLIENT_LINE_MAX + 512];

	vsnprintf(buf, sizeof buf, fmt, ap);
	client_reply(c, deferred, buf);
}

void
client_replyf(struct client *c, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	reply_vf(c, 0, fmt, ap);
	va_end(ap);
}

/* A durable reply (after the journal commit), formatted. */
static void __attribute__((format(printf, 2, 3)))
client_replyf_deferred(struct client *c, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	reply_vf(c, 1, fmt, ap);
	va_end(ap);
}

void
client_quit(struct client *c)
{
	c->quitting = 1;
	if (c->bev != NULL)
		bufferevent_disable(c->bev, EV_READ);
}

const char *
client_addr(const struct client *c)
{
	return c->addr;
}

int
client_is_loopback(const struct client *c)
{
	return c->loopback;
}

int
client_subscribe(struct client *c, const char *uuid)
{
	size_t	i;

	for (i = 0; i < c->nsubs; i++)
		if (strcmp(c->subs[i], uuid) == 0)
			return 0;
	if (c->nsubs == c->capsubs) {
		size_t cap = c->capsubs == 0 ? 8 : c->capsubs * 2;
		void *v = realloc(c->subs, cap * sizeof *c->subs);
		if (v == NULL)
			return -1;
		c->subs = v;
		c->capsubs = cap;
	}
	snprintf(c->subs[c->nsubs++], UUID_STRLEN + 1, "%s", uuid);
	return 0;
}

void
client_await_end(struct client *c, const char *uuid)
{
	snprintf(c->awaiting, sizeof c->awaiting, "%s", uuid);
	if (c->bev != NULL)
		bufferevent_disable(c->bev, EV_READ);
}

/* Read requests again after an answer that made them wait. */
static void
resume(struct client *c)
{
	if (c->bev == NULL || c->quitting || c->awaiting[0] != '\0' ||
	    c->job != NULL)
		return;
	bufferevent_enable(c->bev, EV_READ);
	/* Requests that came while we waited: read them now. */
	if (evbuffer_get_length(bufferevent_get_input(c->bev)) > 0)
		bufferevent_trigger(c->bev, EV_READ,
		    BEV_TRIG_IGNORE_WATERMARKS | BEV_TRIG_DEFER_CALLBACKS);
}

void
client_hold(struct client *c, void *job, void (*cancel)(void *))
{
	c->job = job;
	c->job_cancel = cancel;
	if (c->bev != NULL)
		bufferevent_disable(c->bev, EV_READ);
}

void
client_unhold(struct client *c)
{
	c->job = NULL;
	resume(c);
}

/* A CANCEL waiting for uuid's end: answer it if line tells it final. */
static void
answer_cancel(struct client *c, const char *uuid, const char *line)
{
	struct wire_progress	p;
	enum task_state		st;
	char			copy[CLIENT_LINE_MAX + 1];

	snprintf(copy, sizeof copy, "%s", line);
	copy[strcspn(copy, "\n")] = '\0';
	if (wire_progress_parse(copy, &p) == -1 ||
	    task_state_parse(p.state, &st) == -1 || !task_is_final(st))
		return;
	c->awaiting[0] = '\0';
	if (st == TASK_CANCELLED)
		client_replyf_deferred(c, "CANCELLED %s\n", uuid);
	else
		client_replyf_deferred(c, "ERROR task %s ended %s before the "
		    "cancel\n", uuid, p.state);
	resume(c);
}

void
clients_notify(const char *uuid, const char *line)
{
	struct client	*c, *next;
	size_t		 i;

	for (c = TAILQ_FIRST(&clients); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (strcmp(c->awaiting, uuid) == 0)
			answer_cancel(c, uuid, line);
		for (i = 0; i < c->nsubs; i++) {
			if (strcmp(c->subs[i], uuid) == 0) {
				client_reply(c, 0, line);
				break;
			}
		}
	}
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct client	*c = arg;
	struct evbuffer	*in = bufferevent_get_input(bev);
	char		*line;
	size_t		 len;

	c->refs++;	/* a reply may drop the client under our feet */
	while (c->bev != NULL && !c->quitting && c->awaiting[0] == '\0' &&
	    c->job == NULL) {
		line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF);
		if (line == NULL) {
			if (evbuffer_get_length(in) > CLIENT_LINE_MAX) {
				if (!c->discarding)
					client_reply(c, 0,
					    "ERROR line too long\n");
				c->discarding = 1;
				evbuffer_drain(in, evbuffer_get_length(in));
			}
			break;
		}
		if (c->discarding) {
			c->discarding = 0;	/* the long line's tail */
		} else if (len > CLIENT_LINE_MAX) {
			client_reply(c, 0, "ERROR line too long\n");
		} else
			line_fn(c, line, len);
		free(line);
	}
	c->refs--;
	client_release(c);
}

static void
write_cb(struct bufferevent *bev, void *arg)
{
	struct client	*c = arg;

	if (c->quitting && c->pending == 0)
		client_gone(c);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		client_gone(arg);
}

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct event_base	*base = evconnlistener_get_base(l);
	struct client		*c;
	char			 host[INET6_ADDRSTRLEN] = "?";

	if ((c = calloc(1, sizeof *c)) == NULL) {
		evutil_closesocket(fd);
		return;
	}
	/* Replies are small and come one by one: no Nagle delay on them. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	if (sa->sa_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)sa;
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof host);
		c->loopback = (ntohl(sin->sin_addr.s_addr) >> 24) == 127;
		snprintf(c->addr, sizeof c->addr, "%s:%d", host,
		    ntohs(sin->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)sa;
		inet_ntop(AF_INET6, &sin6->sin6_addr, host, sizeof host);
		c->loopback = IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr);
		snprintf(c->addr, sizeof c->addr, "[%s]:%d", host,
		    ntohs(sin6->sin6_port));
	}
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		evutil_closesocket(fd);
		free(c);
		return;
	}
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&clients, c, entry);
	log_debug("client %s connected", c->addr);
}

static void
accept_error_cb(struct evconnlistener *l, void *arg)
{
	log_msg(VLOG_ERROR, "accept: %s",
	    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

int
clients_listen(struct event_base *base, const char *addr, clients_line_fn *fn,
    char *bound, size_t boundlen, char *err, size_t errlen)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	const char		*colon = strrchr(addr, ':');
	char			 host[ADDR_MAXLEN + 1];
	int64_t			 port;

	/* IPv4 "host:port"; "*" is every address, port 0 a free one. */
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	if (colon == NULL || (size_t)(colon - addr) >= sizeof host)
		goto bad;
	memcpy(host, addr, colon - addr);
	host[colon - addr] = '\0';
	if (lex_int(colon + 1, 0, 65535, &port) == -1)
		goto bad;
	sin.sin_port = htons(port);
	if (strcmp(host, "*") == 0)
		sin.sin_addr.s_addr = htonl(INADDR_ANY);
	else if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		goto bad;
	line_fn = fn;
	listener = evconnlistener_new_bind(base, accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
	    128, (struct sockaddr *)&sin, sizeof sin);
	if (listener == NULL) {
		snprintf(err, errlen, "cannot listen on %s: %s", addr,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		return -1;
	}
	evconnlistener_set_error_cb(listener, accept_error_cb);
	/* Port 0 picks a free port: report the real one. */
	getsockname(evconnlistener_get_fd(listener), (struct sockaddr *)&sin,
	    &len);
	inet_ntop(AF_INET, &sin.sin_addr, host, sizeof host);
	snprintf(bound, boundlen, "%s:%d", host, ntohs(sin.sin_port));
	return 0;
bad:
	snprintf(err, errlen, "bad listen address %s", addr);
	return -1;
}

void
clients_close_all(void)
{
	struct client	*c;

	while ((c = TAILQ_FIRST(&clients)) != NULL)
		client_gone(c);
	if (listener != NULL)
		evconnlistener_free(listener);
	listener = NULL;
}
