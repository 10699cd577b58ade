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
#include "client.h"
#include "clock.h"
#include "clients.h"
#include "journal.h"
#include "log.h"
#include "ratelimit.h"
#include "sockowner.h"
#include "task.h"
#include "wire.h"



/* Root's own connections beyond max_clients: it can always look. */
#define ROOT_RESERVE		8
/* How long a wrong AUTH answer holds its client. */
#define AUTH_STALL_MS		500

/* A job writing to a client (client_hold_writer) is told it may write
 * again once this little is left unsent. */
#define CLIENT_DRAINED_BYTES	(64 * 1024)
/* What one pass of the loop sends of a file (client_write_file). */
#define CLIENT_FILE_WRITE_MAX	(1 << 20)

struct client_list		 clients = TAILQ_HEAD_INITIALIZER(clients);
static clients_line_fn		*line_fn;
static struct clients_opts	 opts;
static int			 nclients;

static void
client_release(struct client *c)
{
	if (c->bev != NULL || c->refs > 0)
		return;
	uuidmap_free(&c->subs);
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
	if (c->stall_ev != NULL)
		event_free(c->stall_ev);
	c->stall_ev = NULL;
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
void
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
	/* A local one's user was looked up as it connected (listen.c). */
	return c->authed == AUTH_OPERATOR ? "operator" : c->user;
}

int64_t
client_uid(struct client *c)
{
	return c->authed == AUTH_OPERATOR ? -1 : c->uid;
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
/* Read requests again after an answer that made them wait. */
void
client_resume(struct client *c)
{
	if (c->bev == NULL || c->quitting || c->awaiting[0] != '\0' ||
	    c->job != NULL || c->stalled)
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
	client_resume(c);
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

int
client_write_file(struct client *c, int fd, int64_t off, int64_t len)
{
	/* Sent from the page cache as the socket drains (sendfile):
	 * bounded by max_checkpoint_mb, not CLIENT_OUTPUT_MAX. */
	if (c->bev == NULL || evbuffer_add_file(bufferevent_get_output(c->bev),
	    fd, off, len) == -1) {
		close(fd);
		return -1;
	}
	/* Large sends: libevent's default is 16 KiB a pass of the loop. */
	(void)bufferevent_set_max_single_write(c->bev, CLIENT_FILE_WRITE_MAX);
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

/* Do c and a new connection from come from one user (one host)? */
static int
same_origin(const struct client *c, const struct client_origin *from)
{
	size_t	n;

	if (c->bev == NULL || c->local != from->local)
		return 0;
	if (c->local)
		return c->user[0] != '\0' && strcmp(c->user, from->user) == 0;
	n = strrchr(from->addr, ':') != NULL ? (size_t)(strrchr(from->addr,
	    ':') - from->addr) : strlen(from->addr);
	return strncmp(c->addr, from->addr, n) == 0 && c->addr[n] == ':';
}

static void
unstall_cb(evutil_socket_t fd, short what, void *arg)
{
	struct client	*c = arg;

	c->stalled = 0;
	client_resume(c);
}

/* A wrong AUTH answer: said in the log at most every RATELIMIT_MS (with
 * how many were not), and the client not read for AUTH_STALL_MS, so
 * guessing costs time. */
static void
auth_failed(struct client *c)
{
	static uint64_t	 failed, unsaid;
	static int64_t	 logged;
	struct timeval	 tv = { 0, AUTH_STALL_MS * 1000 };

	failed++;
	if (ratelimit_due(&logged, clock_node_ms())) {
		log_warnx("client %s failed to authenticate (%llu failures "
		    "in all, %llu more since the last line)", c->addr,
		    (unsigned long long)failed, (unsigned long long)unsaid);
		unsaid = 0;
	} else
		unsaid++;
	if (c->stall_ev == NULL && c->bev != NULL)
		c->stall_ev = evtimer_new(bufferevent_get_base(c->bev),
		    unstall_cb, c);
	if (c->stall_ev != NULL && evtimer_add(c->stall_ev, &tv) == 0) {
		c->stalled = 1;
		bufferevent_disable(c->bev, EV_READ);
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
		auth_failed(c);
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
	    c->job == NULL && !c->stalled) {
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
	struct client	*c = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		client_gone(c);
	else if (what & BEV_EVENT_TIMEOUT) {
		/* Idle: nothing asked for idle_s.  One that follows tasks or
		 * waits for an answer is not idle. */
		if (c->subs.n > 0 || c->awaiting[0] != '\0' || c->job != NULL ||
		    c->pending > 0) {
			bufferevent_enable(bev, EV_READ);
			return;
		}
		log_info("client %s idle for %d s: closed", c->addr,
		    opts.idle_s);
		client_replyf(c, "ERROR idle for %d s; closing\n", opts.idle_s);
		client_quit(c);
	}
}

int
clients_accept(struct event_base *base, int fd,
    const struct client_origin *from)
{
	struct client		*c;
	const char		*why;
	char			 line[128];
	int			 same = 0, root;
	ssize_t			 n;

	/* Each user (each remote host) a share; root on this host is
	 * always answered, from a reserve beyond max_clients. */
	root = from->local && strcmp(from->user, "root") == 0;
	TAILQ_FOREACH(c, &clients, entry)
		same += same_origin(c, from);
	why = !root && same >= opts.max_per_user ? "from one user" :
	    nclients >= opts.max_clients + (root ? ROOT_RESERVE : 0) ? "" :
	    NULL;
	if (why != NULL) {
		/* A line it can read, not a silent close (best effort). */
		snprintf(line, sizeof line, "ERROR too many connections%s%s\n",
		    why[0] != '\0' ? " " : "", why);
		n = write(fd, line, strlen(line));
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
	c->pid = from->pid;
	snprintf(c->addr, sizeof c->addr, "%s", from->addr);
	snprintf(c->user, sizeof c->user, "%s", from->user);
	c->uid = from->user[0] != '\0' ? from->uid : -1;
	bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	if (opts.idle_s > 0) {
		struct timeval tv = { opts.idle_s, 0 };
		bufferevent_set_timeouts(c->bev, &tv, NULL);
	}
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
