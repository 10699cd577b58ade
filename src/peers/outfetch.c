/*
 * outfetch.c -- OUTPUT asked of the node that ran the task (outfetch.h).
 * A small state machine on one connection: connect, authenticate as a
 * node of the cluster, ask, relay.  Whole chunks only are relayed, so
 * whatever befalls the other node, our client reads a reply it can
 * parse: the chunks that came, then "." or an ERROR line.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "bounds.h"
#include "clients.h"
#include "lex.h"
#include "log.h"
#include "outfetch.h"
#include "seal.h"

/* Longer than the other node takes to answer anything: then it is
 * gone.  Its chunks are at most what it read from a pipe at once. */
#define FETCH_TIMEOUT_S		10
#define FETCH_CHUNK_MAX		(1024 * 1024)
#define FETCH_UNSENT_MAX	(256 * 1024)

enum fetch_state {
	FETCH_CONNECTING,
	FETCH_CHALLENGE,	/* sent AUTH PEER */
	FETCH_AUTH,		/* sent our answer */
	FETCH_HEADER,		/* sent the request */
	FETCH_CHUNKS,		/* DATA, or the end */
};

struct fetch {
	struct client		*c;
	struct bufferevent	*bev;
	enum fetch_state	 state;
	int			 loopback;
	char			 node[NAME_MAXLEN + 1];
	char			 request[CLIENT_LINE_MAX + 2];
};

static struct event_base	*base;
static const struct keyring	*ring;

void
outfetch_init(struct event_base *b, const struct keyring *r)
{
	base = b;
	ring = r;
}

static void
fetch_free(struct fetch *f)
{
	if (f->bev != NULL)
		bufferevent_free(f->bev);
	free(f);
}

/* The reply is over (msg: an ERROR to end it with, or NULL). */
static void
fetch_end(struct fetch *f, const char *msg)
{
	struct client	*c = f->c;
	char		 line[CLIENT_LINE_MAX];

	fetch_free(f);
	client_unhold(c);
	if (msg != NULL) {
		snprintf(line, sizeof line, "ERROR %s\n", msg);
		(void)client_write(c, line, strlen(line));
	}
}

static void
fetch_cancel_cb(void *arg)
{
	fetch_free(arg);
}

/* Our client read enough: read the other node again. */
static int	relay(struct fetch *, struct evbuffer *);

static void
fetch_drained_cb(void *arg)
{
	struct fetch	*f = arg;

	bufferevent_enable(f->bev, EV_READ);
	(void)relay(f, bufferevent_get_input(f->bev));
}

static void
keep_alive(struct fetch *f)
{
	struct timeval	tv = { FETCH_TIMEOUT_S, 0 };
	int		fd = bufferevent_getfd(f->bev), on = 1, idle = 10;
	int		intvl = 5, cnt = 3;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
	bufferevent_set_timeouts(f->bev, NULL, &tv);
}

static void
send_line(struct fetch *f, const char *line)
{
	bufferevent_write(f->bev, line, strlen(line));
	bufferevent_write(f->bev, "\n", 1);
}

/*
 * One line of the handshake or of the reply's framing, at the front of
 * in: the ones before the reply are answered here; 1 if the caller
 * goes on, 0 to wait, -1 if f is over.
 */
static int
handshake_line(struct fetch *f, const char *line)
{
	char	answer[AUTH_HEX_LEN + 1], msg[CLIENT_LINE_MAX];

	if (f->state == FETCH_CHALLENGE &&
	    strncmp(line, "CHALLENGE ", 10) == 0) {
		seal_peer_auth_answer(ring->k[0].key, line + 10, answer);
		snprintf(msg, sizeof msg, "AUTH %s", answer);
		send_line(f, msg);
		f->state = FETCH_AUTH;
		return 1;
	}
	if (f->state == FETCH_AUTH && strcmp(line, "OK") == 0) {
		send_line(f, f->request);
		f->state = FETCH_HEADER;
		return 1;
	}
	snprintf(msg, sizeof msg, "node %s: %.200s", f->node, line);
	fetch_end(f, msg);
	return -1;
}

/* Relay what is whole at the front of in; -1 if f is over. */
static int
relay(struct fetch *f, struct evbuffer *in)
{
	char	*line;
	size_t	 len;
	int64_t	 n;

	while (client_unsent(f->c) < FETCH_UNSENT_MAX) {
		struct evbuffer_ptr eol = evbuffer_search_eol(in, NULL, &len,
		    EVBUFFER_EOL_LF);
		if (eol.pos < 0) {
			if (evbuffer_get_length(in) > CLIENT_LINE_MAX) {
				fetch_end(f, "a line too long from the node");
				return -1;
			}
			return 0;
		}
		if (f->state == FETCH_CHUNKS &&
		    evbuffer_get_length(in) >= 5 &&
		    memcmp(evbuffer_pullup(in, 5), "DATA ", 5) == 0) {
			char head[32];
			if (eol.pos >= (ev_ssize_t)sizeof head) {
				fetch_end(f, "a bad chunk from the node");
				return -1;
			}
			evbuffer_copyout(in, head, eol.pos);
			head[eol.pos] = '\0';
			if (lex_int(head + 5, 0, FETCH_CHUNK_MAX, &n) == -1) {
				fetch_end(f, "a bad chunk from the node");
				return -1;
			}
			if (evbuffer_get_length(in) < eol.pos + len + n)
				return 0;	/* the rest is on its way */
			line = malloc(eol.pos + len + n);
			if (line == NULL) {
				fetch_end(f, "out of memory");
				return -1;
			}
			evbuffer_remove(in, line, eol.pos + len + n);
			if (client_write(f->c, line, eol.pos + len + n) == -1) {
				free(line);
				return -1;	/* gone: f freed */
			}
			free(line);
			continue;
		}
		line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF);
		if (f->state < FETCH_HEADER) {
			int rc = handshake_line(f, line);
			free(line);
			if (rc == -1)
				return -1;
			continue;
		}
		if (strncmp(line, "ERROR", 5) == 0 || strcmp(line, ".") == 0) {
			/* The other node's end is ours. */
			if (client_write(f->c, line, len) == 0 &&
			    client_write(f->c, "\n", 1) == 0)
				fetch_end(f, NULL);
			free(line);
			return -1;
		}
		if (f->state == FETCH_HEADER &&
		    strncmp(line, "OUTPUT ", 7) == 0) {
			/* Followed, a run may be quiet for long: from now
			 * on TCP keepalives tell whether the node is there. */
			f->state = FETCH_CHUNKS;
			keep_alive(f);
			if (client_write(f->c, line, len) == -1 ||
			    client_write(f->c, "\n", 1) == -1) {
				free(line);
				return -1;
			}
			free(line);
			continue;
		}
		free(line);
		fetch_end(f, "a reply not understood from the node");
		return -1;
	}
	bufferevent_disable(f->bev, EV_READ);	/* till fetch_drained_cb */
	return 0;
}

static void
fetch_read_cb(struct bufferevent *bev, void *arg)
{
	(void)relay(arg, bufferevent_get_input(bev));
}

static void
fetch_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct fetch	*f = arg;
	char		 msg[160];

	if (what & BEV_EVENT_CONNECTED) {
		f->state = f->loopback ? FETCH_HEADER : FETCH_CHALLENGE;
		send_line(f, f->loopback ? f->request : "AUTH PEER");
		return;
	}
	if (what & BEV_EVENT_EOF)
		snprintf(msg, sizeof msg, "node %s closed the connection "
		    "before the output's end", f->node);
	else if (what & BEV_EVENT_TIMEOUT)
		snprintf(msg, sizeof msg, "node %s does not answer", f->node);
	else
		snprintf(msg, sizeof msg, "node %s: %s", f->node,
		    evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	log_warnx("output from %s: %s", f->node, msg);
	fetch_end(f, msg);
}

void
outfetch_start(struct client *c, const char *node, const char *addr,
    const char *request)
{
	struct sockaddr_storage	 ss;
	int			 sslen = sizeof ss;
	struct timeval		 tv = { FETCH_TIMEOUT_S, 0 };
	struct fetch		*f;

	memset(&ss, 0, sizeof ss);
	if (evutil_parse_sockaddr_port(addr, (struct sockaddr *)&ss,
	    &sslen) == -1) {
		client_replyf(c, "ERROR node %s has no client address we "
		    "can reach (%s)\n", node, addr);
		return;
	}
	if ((f = calloc(1, sizeof *f)) == NULL) {
		client_replyf(c, "ERROR out of memory\n");
		return;
	}
	f->loopback = (ss.ss_family == AF_INET &&
	    (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) ==
	    127) || (ss.ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(
	    &((struct sockaddr_in6 *)&ss)->sin6_addr));
	if (!f->loopback && (ring == NULL || ring->n == 0)) {
		free(f);
		client_replyf(c, "ERROR the output is on node %s, and this "
		    "node has no cluster key to ask it with\n", node);
		return;
	}
	f->c = c;
	snprintf(f->node, sizeof f->node, "%s", node);
	snprintf(f->request, sizeof f->request, "%s", request);
	f->bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (f->bev == NULL) {
		free(f);
		client_replyf(c, "ERROR out of memory\n");
		return;
	}
	bufferevent_setcb(f->bev, fetch_read_cb, NULL, fetch_event_cb, f);
	bufferevent_set_timeouts(f->bev, &tv, &tv);
	bufferevent_enable(f->bev, EV_READ | EV_WRITE);
	client_hold_writer(c, f, fetch_cancel_cb, fetch_drained_cb);
	if (bufferevent_socket_connect(f->bev, (struct sockaddr *)&ss,
	    sslen) == -1)
		fetch_end(f, "cannot connect");
}
