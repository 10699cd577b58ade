/*
 * ckfetch.c -- a checkpoint's copy fetched from a node (ckfetch.h).  The
 * other node answers "CKPT <uuid> <seq> <bytes>" and that many bytes,
 * or with " z=<n>" n bytes of a deflate stream of them, or an ERROR
 * line; whatever it sends, nothing is kept that does not hash as the
 * record says.
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>
#include <zlib.h>

#include "bounds.h"
#include "ckfetch.h"
#include "ckstore.h"
#include "lex.h"
#include "log.h"
#include "seal.h"
#include "task.h"

/* Longer than a node takes to answer, or to send the next bytes. */
#define CKFETCH_TIMEOUT_S	10
#define CKFETCH_LINE_MAX	512

struct ckfetch {
	TAILQ_ENTRY(ckfetch)	 entry;
	struct bufferevent	*bev;
	struct task_ckpt	 c;
	char			 uuid[UUID_STRLEN + 1];
	char			 node[NAME_MAXLEN + 1];
	int			 state;		/* 0 challenge, 1 auth, 2 header,
						 * 3 bytes */
	int			 fd;		/* the store's part file */
	int64_t			 left;		/* bytes still to come */
	int			 zipped;	/* they are a deflate stream */
	z_stream		 z;
	int64_t			 out;		/* bytes it gave so far */
	ckfetch_cb		 done;
	void			*arg;
};

/* A second fetch of a copy already on its way (a holder's, and a
 * start's): it waits for the first, which writes the one store file. */
struct waiter {
	TAILQ_ENTRY(waiter)	 entry;
	char			 uuid[UUID_STRLEN + 1];
	int64_t			 seq;
	char			 node[NAME_MAXLEN + 1];	/* it asked */
	ckfetch_cb		 done;
	void			*arg;
};

static struct event_base	*base;
static const struct keyring	*ring;
static TAILQ_HEAD(, ckfetch)	 fetches = TAILQ_HEAD_INITIALIZER(fetches);
static TAILQ_HEAD(, waiter)	 waiters = TAILQ_HEAD_INITIALIZER(waiters);

void
ckfetch_init(struct event_base *b, const struct keyring *r)
{
	base = b;
	ring = r;
}

void
ckfetch_shutdown(void)
{
	struct ckfetch	*f;
	struct waiter	*w;

	while ((w = TAILQ_FIRST(&waiters)) != NULL) {
		TAILQ_REMOVE(&waiters, w, entry);
		free(w);
	}
	while ((f = TAILQ_FIRST(&fetches)) != NULL) {
		TAILQ_REMOVE(&fetches, f, entry);
		if (f->bev != NULL)
			bufferevent_free(f->bev);
		if (f->zipped)
			inflateEnd(&f->z);
		ckstore_abort(f->fd, f->uuid, f->c.seq);
		free(f);
	}
}

/* Those waiting for the fetch of seq of uuid: it is over (each is told
 * of the node it would have asked: a holder answers that one). */
static void
told(const char *uuid, int64_t seq, const char *why)
{
	struct waiter	*w, *next;

	for (w = TAILQ_FIRST(&waiters); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->seq != seq || strcmp(w->uuid, uuid) != 0)
			continue;
		TAILQ_REMOVE(&waiters, w, entry);
		w->done(uuid, seq, w->node, why == NULL, why, w->arg);
		free(w);
		next = TAILQ_FIRST(&waiters);	/* done() may add or go */
	}
}

static void
finish(struct ckfetch *f, const char *why)
{
	char	uuid[UUID_STRLEN + 1], node[NAME_MAXLEN + 1], err[160];
	int64_t	seq = f->c.seq;

	if (f->bev != NULL)
		bufferevent_free(f->bev);
	if (f->zipped)
		inflateEnd(&f->z);
	if (why == NULL && ckstore_commit(f->fd, f->uuid, &f->c, err,
	    sizeof err) == -1)
		why = err;
	else if (why != NULL)
		ckstore_abort(f->fd, f->uuid, seq);
	if (why != NULL)
		log_warnx("Task UUID{%s}: checkpoint %lld from %s not kept: "
		    "%s", f->uuid, (long long)seq, f->node, why);
	memcpy(uuid, f->uuid, sizeof uuid);
	memcpy(node, f->node, sizeof node);
	TAILQ_REMOVE(&fetches, f, entry);
	f->done(uuid, seq, node, why == NULL, why, f->arg);
	free(f);
	told(uuid, seq, why);
}

static void
send_line(struct ckfetch *f, const char *line)
{
	bufferevent_write(f->bev, line, strlen(line));
	bufferevent_write(f->bev, "\n", 1);
}

/* A line before the bytes; -1 if f is over. */
static int
header_line(struct ckfetch *f, char *line)
{
	char	answer[AUTH_HEX_LEN + 1], msg[CKFETCH_LINE_MAX];
	char	want[UUID_STRLEN + 48], *z;
	int64_t	n, zn = -1;

	if (f->state == 0 && strncmp(line, "CHALLENGE ", 10) == 0) {
		seal_peer_auth_answer(ring->k[0].key, line + 10, answer);
		snprintf(msg, sizeof msg, "AUTH %s", answer);
		send_line(f, msg);
		f->state = 1;
		return 0;
	}
	if (f->state == 1 && strcmp(line, "OK") == 0) {
		snprintf(msg, sizeof msg, "CKPT %s %lld", f->uuid,
		    (long long)f->c.seq);
		send_line(f, msg);
		f->state = 2;
		return 0;
	}
	snprintf(want, sizeof want, "CKPT %s %lld ", f->uuid,
	    (long long)f->c.seq);
	if (f->state == 2 && strncmp(line, want, strlen(want)) == 0 &&
	    ((z = strstr(line, " z=")) == NULL || (*z = '\0', lex_int(z + 3,
	    0, CKPT_BYTES_MAX, &zn) == 0)) &&
	    lex_int(line + strlen(want), 0, CKPT_BYTES_MAX, &n) == 0) {
		if (n != f->c.bytes) {
			finish(f, "its size is not the one its maker signed");
			return -1;
		}
		f->left = zn >= 0 ? zn : n;
		if ((f->zipped = zn >= 0) && inflateInit(&f->z) != Z_OK) {
			f->zipped = 0;
			finish(f, "cannot inflate");
			return -1;
		}
		f->state = 3;
		return 0;
	}
	snprintf(msg, sizeof msg, "%.200s", line);
	finish(f, msg);
	return -1;
}

/* Inflate n bytes of the stream into our copy: n, or -1 if they are
 * not a deflate stream or give more than the checkpoint's size. */
static ssize_t
inflate_some(struct ckfetch *f, unsigned char *p, size_t n)
{
	unsigned char	out[65536];
	size_t		k;
	int		rc;

	f->z.next_in = p;
	f->z.avail_in = (uInt)n;
	do {
		f->z.next_out = out;
		f->z.avail_out = sizeof out;
		rc = inflate(&f->z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
			return -1;
		k = sizeof out - f->z.avail_out;
		if ((f->out += k) > f->c.bytes ||
		    write(f->fd, out, k) != (ssize_t)k)
			return -1;
	} while (f->z.avail_out == 0 || (rc == Z_OK && f->z.avail_in > 0));
	/* Bytes after the stream's end: not a stream we asked for. */
	return rc == Z_STREAM_END && f->z.avail_in > 0 ? -1 : (ssize_t)n;
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct ckfetch	*f = arg;
	struct evbuffer	*in = bufferevent_get_input(bev);
	char		*line;
	size_t		 len;
	int		 rc;

	while (f->state < 3) {
		if ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF)) ==
		    NULL) {
			if (evbuffer_get_length(in) > CKFETCH_LINE_MAX)
				finish(f, "a line too long");
			return;
		}
		rc = header_line(f, line);
		free(line);
		if (rc == -1)
			return;
	}
	while (f->left > 0 && evbuffer_get_length(in) > 0) {
		size_t	 k = evbuffer_get_length(in);
		ssize_t	 w;

		if ((int64_t)k > f->left)
			k = (size_t)f->left;
		w = f->zipped ? inflate_some(f, evbuffer_pullup(in, k), k) :
		    write(f->fd, evbuffer_pullup(in, k), k);
		if (w <= 0) {
			finish(f, f->zipped ? "a bad compressed copy" :
			    "cannot write our copy");
			return;
		}
		evbuffer_drain(in, w);
		f->left -= w;
	}
	if (f->left == 0)
		finish(f, f->zipped && f->z.avail_in == 0 && f->out ==
		    f->c.bytes ? NULL : f->zipped ? "a compressed copy cut "
		    "short" : NULL);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct ckfetch	*f = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		char	msg[UUID_STRLEN + 32];
		int	loopback = f->state == 2;

		snprintf(msg, sizeof msg, "CKPT %s %lld", f->uuid,
		    (long long)f->c.seq);
		send_line(f, loopback ? msg : "AUTH PEER");
		return;
	}
	finish(f, what & BEV_EVENT_TIMEOUT ? "the node does not answer" :
	    what & BEV_EVENT_EOF ? "the node closed the connection" :
	    "cannot reach the node");
}

void
ckfetch_start(const char *uuid, const struct task_ckpt *c, const char *node,
    const char *addr, ckfetch_cb done, void *arg)
{
	struct sockaddr_storage	 ss;
	struct timeval		 tv = { CKFETCH_TIMEOUT_S, 0 };
	struct ckfetch		*f;
	struct waiter		*w;
	int			 sslen = sizeof ss, loopback;

	TAILQ_FOREACH(f, &fetches, entry)
		if (f->c.seq == c->seq && strcmp(f->uuid, uuid) == 0)
			break;
	if (f != NULL) {
		if ((w = calloc(1, sizeof *w)) == NULL) {
			done(uuid, c->seq, node, 0, "out of memory", arg);
			return;
		}
		snprintf(w->uuid, sizeof w->uuid, "%s", uuid);
		w->seq = c->seq;
		snprintf(w->node, sizeof w->node, "%s", node);
		w->done = done;
		w->arg = arg;
		TAILQ_INSERT_TAIL(&waiters, w, entry);
		return;
	}
	memset(&ss, 0, sizeof ss);
	if (evutil_parse_sockaddr_port(addr, (struct sockaddr *)&ss,
	    &sslen) == -1) {
		done(uuid, c->seq, node, 0, "no address", arg);
		return;
	}
	loopback = ss.ss_family == AF_INET && (ntohl(((struct sockaddr_in *)
	    &ss)->sin_addr.s_addr) >> 24) == 127;
	if ((!loopback && (ring == NULL || ring->n == 0)) ||
	    (f = calloc(1, sizeof *f)) == NULL) {
		done(uuid, c->seq, node, 0, "no cluster key to ask with", arg);
		return;
	}
	TAILQ_INSERT_TAIL(&fetches, f, entry);
	f->c = *c;
	snprintf(f->uuid, sizeof f->uuid, "%s", uuid);
	snprintf(f->node, sizeof f->node, "%s", node);
	f->state = loopback ? 2 : 0;
	f->done = done;
	f->arg = arg;
	if ((f->fd = ckstore_begin(uuid, c->seq)) == -1 ||
	    (f->bev = bufferevent_socket_new(base, -1,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		finish(f, "cannot start");
		return;
	}
	bufferevent_setcb(f->bev, read_cb, NULL, event_cb, f);
	bufferevent_set_timeouts(f->bev, &tv, &tv);
	bufferevent_enable(f->bev, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(f->bev, (struct sockaddr *)&ss,
	    sslen) == -1)
		finish(f, "cannot connect");
}
