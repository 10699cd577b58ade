/*
 * clients.c -- client connections, once listen.c accepted them.
 * Each connection is a bufferevent; requests are whole lines of at most
 * CLIENT_LINE_MAX bytes.  A longer line is answered "ERROR line too
 * long" and skipped up to its newline; a client that stops reading its
 * replies is dropped.
 *
 * Who may ask: a client of the UNIX socket (its user known by
 * SO_PEERCRED) or of a loopback address is local; a remote client gets
 * "ERROR authentication required" for everything until it answers the
 * node's challenge with the operator key (AUTH).  At most max_clients at
 * once (listen.c backs off while out of descriptors).
 */
#include <sys/queue.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "auth.h"
#include "bounds.h"
#include "clients.h"
#include "journal.h"
#include "log.h"
#include "sockowner.h"
#include "task.h"
#include "wire.h"

struct client {
	struct bufferevent	*bev;		/* NULL once gone */
	char			 addr[ADDR_MAXLEN + 1];
	int			 loopback;
	int			 local;		/* socket or loopback */
	int			 authed;	/* AUTH_*: a remote operator,
						 * or a peer node */
	int			 peer_challenge;	/* AUTH PEER asked */
	char			 user[USER_MAXLEN + 1];	/* "" unknown */
	int			 user_known;	/* looked up */
	int			 pid;		/* 0: not yet looked up; -1
						 * not found */
	char			 challenge[AUTH_HEX_LEN + 1];
	int			 discarding;	/* inside an over-long line */
	int			 quitting;
	int			 refs;		/* deferred replies held */
	int			 pending;	/* replies waiting to go out */
	char			 awaiting[UUID_STRLEN + 1];	/* CANCEL */
	void			*job;		/* answering (LOG), or NULL */
	void			(*job_cancel)(void *);
	void			(*job_drained)(void *);	/* room again */
	char			(*subs)[UUID_STRLEN + 1];
	size_t			 nsubs, capsubs;
	TAILQ_ENTRY(client)	 entry;
};


/* A job writing to a client (client_hold_writer) is told it may write
 * again once this little is left unsent. */
#define CLIENT_DRAINED_BYTES	(64 * 1024)

static TAILQ_HEAD(, client)	 clients = TAILQ_HEAD_INITIALIZER(clients);
static clients_line_fn		*line_fn;
static struct clients_opts	 opts;
static int			 nclients;

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
	nclients--;
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

const char *
client_user(struct client *c)
{
	uid_t	uid;

	if (c->user_known)
		return c->user;
	c->user_known = 1;
	if (c->authed == AUTH_OPERATOR)
		snprintf(c->user, sizeof c->user, "operator");
	else if (c->loopback && c->bev != NULL &&
	    sock_peer_uid(bufferevent_getfd(c->bev), &uid) == 0)
		sock_user_name(uid, c->user, sizeof c->user);
	return c->user;
}

int
client_is_loopback(const struct client *c)
{
	return c->loopback;
}

int
client_pid(struct client *c, int *pid)
{
	pid_t	p;

	if (c->pid == 0 && c->loopback && c->bev != NULL)
		c->pid = sock_peer_pid(bufferevent_getfd(c->bev), &p) == 0 ?
		    (int)p : -1;
	if (c->pid <= 0)
		return -1;
	*pid = c->pid;
	return 0;
}

int
client_who(const struct client *c)
{
	return c->local ? CLIENT_LOCAL : c->authed == AUTH_PEER ?
	    CLIENT_PEER : CLIENT_OPERATOR;
}

/* Does c follow uuid (SUBSCRIBE)? */
static int
subscribed(const struct client *c, const char *uuid)
{
	size_t	i;

	for (i = 0; i < c->nsubs; i++)
		if (strcmp(c->subs[i], uuid) == 0)
			return 1;
	return 0;
}

int
client_subscribe(struct client *c, const char *uuid)
{
	if (subscribed(c, uuid))
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
	c->job_drained = NULL;
	if (c->bev != NULL)
		bufferevent_disable(c->bev, EV_READ);
}

void
client_hold_writer(struct client *c, void *job, void (*cancel)(void *),
    void (*drained)(void *))
{
	client_hold(c, job, cancel);
	c->job_drained = drained;
	if (c->bev != NULL)
		bufferevent_setwatermark(c->bev, EV_WRITE,
		    CLIENT_DRAINED_BYTES, 0);
}

void
client_unhold(struct client *c)
{
	c->job = NULL;
	if (c->job_drained != NULL && c->bev != NULL)
		bufferevent_setwatermark(c->bev, EV_WRITE, 0, 0);
	c->job_drained = NULL;
	resume(c);
}

int
client_write(struct client *c, const void *data, size_t len)
{
	if (c->bev == NULL)
		return -1;
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) + len >
	    CLIENT_OUTPUT_MAX) {
		log_warnx("client %s does not read what it asked for; "
		    "dropped", c->addr);
		client_gone(c);
		return -1;
	}
	evbuffer_add(bufferevent_get_output(c->bev), data, len);
	return 0;
}

size_t
client_unsent(const struct client *c)
{
	return c->bev != NULL ?
	    evbuffer_get_length(bufferevent_get_output(c->bev)) : 0;
}

struct after_replies {
	struct client	*c;
	void		(*fn)(struct client *, void *);
	void		*arg;
};

static void
after_replies_cb(void *arg, int ok)
{
	struct after_replies	*a = arg;
	struct client		*c = a->c;

	c->refs--;
	if (c->bev != NULL)
		a->fn(c, a->arg);
	else
		a->fn(NULL, a->arg);
	free(a);
	client_release(c);
}

void
client_after_replies(struct client *c, void (*fn)(struct client *, void *),
    void *arg)
{
	struct after_replies	*a;

	if (c->pending == 0 || (a = malloc(sizeof *a)) == NULL) {
		fn(c, arg);
		return;
	}
	a->c = c;
	a->fn = fn;
	a->arg = arg;
	c->refs++;
	journal_after_commit(after_replies_cb, a);
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

int
clients_subscribed(const char *uuid)
{
	struct client	*c;

	TAILQ_FOREACH(c, &clients, entry)
		if (strcmp(c->awaiting, uuid) == 0 || subscribed(c, uuid))
			return 1;
	return 0;
}

void
clients_notify(const char *uuid, const char *line)
{
	struct client	*c, *next;

	for (c = TAILQ_FIRST(&clients); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (strcmp(c->awaiting, uuid) == 0)
			answer_cancel(c, uuid, line);
		if (subscribed(c, uuid))
			client_reply(c, 0, line);
	}
}

/*
 * A remote client before it proved it holds the operator key: AUTH asks
 * for a challenge, AUTH <answer> answers it (seal_auth_answer), QUIT
 * leaves; anything else is "ERROR authentication required".
 */
static void
authenticate(struct client *c, const char *line)
{
	if (strcmp(line, "QUIT") == 0) {
		client_reply(c, 0, "BYE\n");
		client_quit(c);
		return;
	}
	if ((strcmp(line, "AUTH") == 0 && opts.operator_key != NULL) ||
	    (strcmp(line, "AUTH PEER") == 0 && opts.ring != NULL &&
	    opts.ring->n > 0)) {
		auth_challenge(c->challenge);
		c->peer_challenge = line[4] != '\0';
		client_replyf(c, "CHALLENGE %s\n", c->challenge);
		return;
	}
	if (strncmp(line, "AUTH ", 5) == 0 && c->challenge[0] != '\0' &&
	    strlen(line + 5) == AUTH_HEX_LEN) {
		c->authed = auth_answer(line + 5, c->challenge,
		    c->peer_challenge, opts.operator_key, opts.ring);
		c->challenge[0] = '\0';	/* one try per challenge */
		if (c->authed) {
			log_info("client %s authenticated as %s", c->addr,
			    c->authed == AUTH_PEER ? "a node of the "
			    "cluster" : "an operator");
			client_reply(c, 0, "OK\n");
			return;
		}
		log_warnx("client %s failed to authenticate", c->addr);
	}
	client_reply(c, 0, opts.operator_key == NULL ?
	    "ERROR authentication required (this node takes no remote "
	    "operators: no <operator_key>)\n" :
	    "ERROR authentication required\n");
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
		} else if (!c->local && !c->authed)
			authenticate(c, line);
		else
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

	if (c->job != NULL && c->job_drained != NULL) {
		c->job_drained(c->job);
		return;
	}
	if (c->quitting && c->pending == 0)
		client_gone(c);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		client_gone(arg);
}

int
clients_accept(struct event_base *base, int fd,
    const struct client_origin *from)
{
	struct client		*c;
	static const char	 full[] = "ERROR too many connections\n";

	if (nclients >= opts.max_clients) {
		/* A line it can read, not a silent close (best effort). */
		ssize_t n = write(fd, full, sizeof full - 1);
		(void)n;
		evutil_closesocket(fd);
		return -1;
	}
	if ((c = calloc(1, sizeof *c)) == NULL) {
		evutil_closesocket(fd);
		return -1;
	}
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		evutil_closesocket(fd);
		free(c);
		return -1;
	}
	c->local = from->local;
	c->loopback = from->loopback;
	c->user_known = from->user_known;
	c->pid = from->pid;
	snprintf(c->addr, sizeof c->addr, "%s", from->addr);
	snprintf(c->user, sizeof c->user, "%s", from->user);
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&clients, c, entry);
	nclients++;
	log_debug("client %s connected", c->addr);
	return 0;
}

void
clients_serve(clients_line_fn *fn, const struct clients_opts *o)
{
	line_fn = fn;
	opts = *o;
}

void
clients_drop_all(void)
{
	struct client	*c;

	while ((c = TAILQ_FIRST(&clients)) != NULL)
		client_gone(c);
}
