/*
 * clients.c -- the telnet-style client port, and the node's UNIX socket.
 * Each connection is a bufferevent; requests are whole lines of at most
 * CLIENT_LINE_MAX bytes.  A longer line is answered "ERROR line too
 * long" and skipped up to its newline; a client that stops reading its
 * replies is dropped.
 *
 * Who may ask: a client of the UNIX socket (its user known by
 * SO_PEERCRED) or of a loopback address is local; a remote client gets
 * "ERROR authentication required" for everything until it answers the
 * node's challenge with the operator key (AUTH).  At most max_clients at
 * once; out of descriptors, the node stops accepting for a while.
 */
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <sodium.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "lex.h"
#include "bounds.h"
#include "clients.h"
#include "clock.h"
#include "journal.h"
#include "log.h"
#include "ratelimit.h"
#include "seal.h"
#include "sockowner.h"
#include "task.h"
#include "wire.h"

struct client {
	struct bufferevent	*bev;		/* NULL once gone */
	char			 addr[ADDR_MAXLEN + 1];
	int			 loopback;
	int			 local;		/* socket or loopback */
	int			 authed;	/* AUTHED_*: a remote operator,
						 * or a peer node */
	int			 peer_challenge;	/* AUTH PEER asked */
	char			 user[USER_MAXLEN + 1];	/* "" unknown */
	int			 user_known;	/* looked up */
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

#define AUTHED_OPERATOR	1
#define AUTHED_PEER	2	/* another node: OUTPUT only */

/* A job writing to a client (client_hold_writer) is told it may write
 * again once this little is left unsent. */
#define CLIENT_DRAINED_BYTES	(64 * 1024)

static TAILQ_HEAD(, client)	 clients = TAILQ_HEAD_INITIALIZER(clients);
static struct evconnlistener	*listener, *unix_listener;
static clients_line_fn		*line_fn;
static struct clients_opts	 opts;
static int			 nclients;
static char			 unix_path[sizeof(((struct sockaddr_un *)0)->
				    sun_path)];
/* Accepting paused (out of descriptors): the back-off, and its timer. */
static struct event		*resume_ev;
static int64_t			 backoff_ms;
static uint64_t			 accept_failures;
static int64_t			 accept_logged;

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
	if (c->authed == AUTHED_OPERATOR)
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
	uint8_t	raw[16];
	char	want[AUTH_HEX_LEN + 1];
	int	i;

	if (strcmp(line, "QUIT") == 0) {
		client_reply(c, 0, "BYE\n");
		client_quit(c);
		return;
	}
	if ((strcmp(line, "AUTH") == 0 && opts.operator_key != NULL) ||
	    (strcmp(line, "AUTH PEER") == 0 && opts.ring != NULL &&
	    opts.ring->n > 0)) {
		randombytes_buf(raw, sizeof raw);
		sodium_bin2hex(c->challenge, sizeof c->challenge, raw,
		    sizeof raw);
		c->peer_challenge = line[4] != '\0';
		client_replyf(c, "CHALLENGE %s\n", c->challenge);
		return;
	}
	if (strncmp(line, "AUTH ", 5) == 0 && c->challenge[0] != '\0' &&
	    strlen(line + 5) == AUTH_HEX_LEN) {
		if (!c->peer_challenge) {
			seal_auth_answer(opts.operator_key, c->challenge, want);
			if (sodium_memcmp(line + 5, want, AUTH_HEX_LEN) == 0)
				c->authed = AUTHED_OPERATOR;
		}
		for (i = 0; c->peer_challenge && i < opts.ring->n; i++) {
			seal_peer_auth_answer(opts.ring->k[i].key,
			    c->challenge, want);
			if (sodium_memcmp(line + 5, want, AUTH_HEX_LEN) == 0)
				c->authed = AUTHED_PEER;
		}
		c->challenge[0] = '\0';	/* one try per challenge */
		if (c->authed) {
			log_info("client %s authenticated as %s", c->addr,
			    c->authed == AUTHED_PEER ? "a node of the "
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
		else if (c->authed == AUTHED_PEER &&
		    strncasecmp(line, "OUTPUT ", 7) != 0 &&
		    strcasecmp(line, "QUIT") != 0)
			client_reply(c, 0, "ERROR a node may only ask "
			    "OUTPUT\n");
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

/* A new client on fd: refused over the cap, else served. */
static struct client *
new_client(struct evconnlistener *l, evutil_socket_t fd)
{
	struct event_base	*base = evconnlistener_get_base(l);
	struct client		*c;
	static const char	 full[] = "ERROR too many connections\n";

	backoff_ms = 0;		/* accepting works again */
	if (nclients >= opts.max_clients) {
		/* A line it can read, not a silent close (best effort). */
		ssize_t n = write(fd, full, sizeof full - 1);
		(void)n;
		evutil_closesocket(fd);
		return NULL;
	}
	if ((c = calloc(1, sizeof *c)) == NULL) {
		evutil_closesocket(fd);
		return NULL;
	}
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		evutil_closesocket(fd);
		free(c);
		return NULL;
	}
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	TAILQ_INSERT_TAIL(&clients, c, entry);
	nclients++;
	return c;
}

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct client		*c;
	char			 host[INET6_ADDRSTRLEN] = "?";

	if ((c = new_client(l, fd)) == NULL)
		return;
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
	c->local = c->loopback;
	log_debug("client %s connected", c->addr);
}

/* The UNIX socket: who connects is known (SO_PEERCRED), and local. */
static void
accept_unix_cb(struct evconnlistener *l, evutil_socket_t fd,
    struct sockaddr *sa, int salen, void *arg)
{
	struct client	*c;
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	struct passwd	*pw;

	if ((c = new_client(l, fd)) == NULL)
		return;
	c->local = 1;
	c->loopback = 1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		sock_user_name(cred.uid, c->user, sizeof c->user);
		c->user_known = 1;
		pw = getpwuid(cred.uid);
		/* One token: it is a task record's cl= field. */
		snprintf(c->addr, sizeof c->addr, "%.32s@unix/uid=%u/pid=%d",
		    pw != NULL ? pw->pw_name : "?", (unsigned)cred.uid,
		    (int)cred.pid);
	} else
		snprintf(c->addr, sizeof c->addr, "?@unix");
	log_debug("client %s connected", c->addr);
}

static void
resume_cb(evutil_socket_t fd, short what, void *arg)
{
	if (listener != NULL)
		evconnlistener_enable(listener);
	if (unix_listener != NULL)
		evconnlistener_enable(unix_listener);
}

/*
 * accept() failed.  Out of descriptors (EMFILE, ENFILE) or memory, every
 * retry fails at once: stop accepting for a while, doubling up to 2 s,
 * and say so at most every 10 s -- not a line per retry.
 */
static void
accept_error_cb(struct evconnlistener *l, void *arg)
{
	int	e = EVUTIL_SOCKET_ERROR();

	accept_failures++;
	if (e != EMFILE && e != ENFILE && e != ENOBUFS && e != ENOMEM) {
		log_msg(VLOG_ERROR, "accept: %s",
		    evutil_socket_error_to_string(e));
		return;
	}
	backoff_ms = backoff_ms == 0 ? 50 : backoff_ms * 2 > 2000 ? 2000 :
	    backoff_ms * 2;
	if (listener != NULL)
		evconnlistener_disable(listener);
	if (unix_listener != NULL)
		evconnlistener_disable(unix_listener);
	if (resume_ev == NULL)
		resume_ev = evtimer_new(evconnlistener_get_base(l), resume_cb,
		    NULL);
	if (resume_ev != NULL) {
		struct timeval tv = { backoff_ms / 1000,
		    (backoff_ms % 1000) * 1000 };
		evtimer_add(resume_ev, &tv);
	}
	if (ratelimit_due(&accept_logged, clock_node_ms()))
		log_msg(VLOG_ERROR, "accept: %s; not accepting clients for "
		    "%lld ms (%llu failures so far)",
		    evutil_socket_error_to_string(e), (long long)backoff_ms,
		    (unsigned long long)accept_failures);
}

int
clients_listen_unix(struct event_base *base, const char *path, char *err,
    size_t errlen)
{
	struct sockaddr_un	sun;
	mode_t			old;
	char			*slash;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		snprintf(err, errlen, "socket path %s: longer than %zu bytes",
		    path, sizeof sun.sun_path - 1);
		return -1;
	}
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	/* Its directory (/run/volery), as systemd's RuntimeDirectory would
	 * make it for a node started by hand. */
	if ((slash = strrchr(sun.sun_path, '/')) != NULL &&
	    slash != sun.sun_path) {
		*slash = '\0';
		if (mkdir(sun.sun_path, 0755) == -1 && errno != EEXIST)
			log_warn("cannot make %s", sun.sun_path);
		*slash = '/';
	}
	/* A socket file left by a node that died: ours now (one node per
	 * state dir, which the journal's lock already ensures). */
	unlink(path);
	old = umask(0111);	/* any local user may connect: srw-rw-rw- */
	unix_listener = evconnlistener_new_bind(base, accept_unix_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 128,
	    (struct sockaddr *)&sun, sizeof sun);
	umask(old);
	if (unix_listener == NULL) {
		snprintf(err, errlen, "cannot listen on %s: %s", path,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		return -1;
	}
	evconnlistener_set_error_cb(unix_listener, accept_error_cb);
	snprintf(unix_path, sizeof unix_path, "%s", path);
	return 0;
}

int
clients_listen(struct event_base *base, const char *addr, clients_line_fn *fn,
    const struct clients_opts *o, char *bound, size_t boundlen, char *err,
    size_t errlen)
{
	struct addrinfo		 hints, *ai = NULL;
	char			 host[ADDR_MAXLEN + 1], portstr[16];
	int			 port;

	/* "host:port", "[v6 host]:port"; "*" is every (v4) address, port 0
	 * a free one. */
	if (lex_hostport(addr, host, sizeof host, &port) == -1 || port < 0)
		goto bad;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = addr[0] == '[' ? AF_INET6 : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(portstr, sizeof portstr, "%d", port);
	if (getaddrinfo(strcmp(host, "*") == 0 ? NULL : host, portstr, &hints,
	    &ai) != 0)
		goto bad;
	line_fn = fn;
	opts = *o;
	listener = evconnlistener_new_bind(base, accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
	    128, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (listener == NULL) {
		snprintf(err, errlen, "cannot listen on %s: %s", addr,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
		return -1;
	}
	evconnlistener_set_error_cb(listener, accept_error_cb);
	/* Port 0 picks a free port: report the real one. */
	sock_bound_name(evconnlistener_get_fd(listener), bound, boundlen);
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
	if (unix_listener != NULL) {
		evconnlistener_free(unix_listener);
		unlink(unix_path);
	}
	unix_listener = NULL;
	if (resume_ev != NULL)
		event_free(resume_ev);
	resume_ev = NULL;
}
