/*
 * blobfetch.c -- bytes asked of a node (blobfetch.h): one connection,
 * a small state machine: challenge, auth, header, bytes.  Whatever the
 * other node sends, no more bytes than asked are written, and a stream
 * that is cut short or says another size is a failure.
 *
 * The hash is a thread's (offloop.h): it reads back what the loop
 * wrote, as it is written, so that receiving and hashing take two cores
 * and a fetch goes at the hash's rate, not at the sum of both.  The
 * thread and the loop share the counts under a mutex; the fetch is
 * freed by whichever of them lets go of it last, and its caller is told
 * once both are over, in the loop.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>
#include <sodium.h>
#include <zlib.h>

#include "blobfetch.h"
#include "offloop.h"
#include "reply.h"
#include "seal.h"

/* Longer than a node takes to answer, or to send the next bytes. */
#define BLOBFETCH_TIMEOUT_S	10
#define BLOBFETCH_LINE_MAX	512
#define BLOBFETCH_READ_MAX	(1 << 20)
#define BLOBFETCH_HASH_CHUNK	(1 << 20)

enum {
	BF_CHALLENGE,		/* sent AUTH PEER */
	BF_AUTH,		/* answered the challenge */
	BF_HEADER,		/* sent the request */
	BF_BYTES
};

struct blobfetch {
	struct bufferevent		*bev;
	/* The bytes are read past the bufferevent, which reads 4 KiB a
	 * time in libevent 2.1: a megabyte a read into rbuf. */
	struct event			*rev;
	unsigned char			*rbuf;
	char				 req[BLOBFETCH_LINE_MAX];
	int				 state;
	int				 fd;
	int64_t				 bytes;	/* asked for */
	int64_t				 left;	/* still to read */
	int64_t				 out;	/* written so far */
	int				 zipped;
	z_stream			 z;
	blobfetch_cb			 done;
	void				*arg;
	char				 why[256];
	int				 ended;	/* the loop's part is over */
	int				 cancelled;
	int				 refs;	/* the loop's, the thread's */
	/* Shared with the hashing thread, under mu. */
	pthread_mutex_t			 mu;
	pthread_cond_t			 cv;
	int64_t				 written;
	int				 all_written;
	int				 stop;
	int				 hash_over;
	int				 hash_ok;
	char				 hex[DIGEST_HEX + 1];
};

static struct event_base	*base;
static const struct keyring	*ring;

void
blobfetch_init(struct event_base *b, const struct keyring *r)
{
	base = b;
	ring = r;
}

static void
unref(struct blobfetch *f)
{
	if (--f->refs > 0)
		return;
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f);
}

/* The hashing thread: what the loop wrote, read back as it comes. */
static void
hash_work(void *arg)
{
	struct blobfetch		*f = arg;
	crypto_generichash_state	 h;
	unsigned char			*buf, d[DIGEST_HEX / 2];
	int64_t				 hashed = 0, upto;
	ssize_t				 n;
	int				 ok = 0;

	crypto_generichash_init(&h, NULL, 0, sizeof d);
	buf = malloc(BLOBFETCH_HASH_CHUNK);
	pthread_mutex_lock(&f->mu);
	while (buf != NULL && !f->stop) {
		if (hashed == f->written) {
			if (f->all_written) {
				ok = 1;
				break;
			}
			pthread_cond_wait(&f->cv, &f->mu);
			continue;
		}
		upto = f->written;
		pthread_mutex_unlock(&f->mu);
		if (upto - hashed > BLOBFETCH_HASH_CHUNK)
			upto = hashed + BLOBFETCH_HASH_CHUNK;
		n = pread(f->fd, buf, (size_t)(upto - hashed), hashed);
		if (n > 0)
			crypto_generichash_update(&h, buf, (size_t)n);
		pthread_mutex_lock(&f->mu);
		if (n <= 0)
			break;
		hashed += n;
	}
	if (ok) {
		crypto_generichash_final(&h, d, sizeof d);
		sodium_bin2hex(f->hex, sizeof f->hex, d, sizeof d);
	}
	f->hash_ok = ok;
	f->hash_over = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	free(buf);
}

/* Both parts are over: the caller is told, once. */
static void
maybe_told(struct blobfetch *f)
{
	int	ok;

	if (!f->ended || !f->hash_over || f->cancelled)
		return;
	f->cancelled = 1;	/* told */
	ok = f->why[0] == '\0' && f->hash_ok;
	f->done(ok, ok ? f->hex : "", ok ? NULL : f->why[0] != '\0' ?
	    f->why : "cannot read our copy back", f->arg);
}

static void
hashed(void *arg)
{
	struct blobfetch	*f = arg;

	maybe_told(f);
	unref(f);
}

static void
hash_dropped(void *arg)
{
	unref(arg);
}

/* The loop's part ends: why NULL if every byte came. */
static void
finish(struct blobfetch *f, const char *why)
{
	if (f->rev != NULL)
		event_free(f->rev);
	f->rev = NULL;
	free(f->rbuf);
	f->rbuf = NULL;
	if (f->bev != NULL)
		bufferevent_free(f->bev);
	f->bev = NULL;
	if (f->zipped)
		inflateEnd(&f->z);
	f->zipped = 0;
	if (why != NULL)
		snprintf(f->why, sizeof f->why, "%s", why);
	f->ended = 1;
	pthread_mutex_lock(&f->mu);
	if (why != NULL)
		f->stop = 1;
	else
		f->all_written = 1;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	maybe_told(f);
	unref(f);
}

void
blobfetch_cancel(struct blobfetch *f)
{
	f->refs++;		/* ours while we wait */
	f->cancelled = 1;
	if (!f->ended)
		finish(f, "cancelled");
	/* The thread reads the caller's descriptor: done with it first. */
	pthread_mutex_lock(&f->mu);
	f->stop = 1;
	pthread_cond_broadcast(&f->cv);
	while (!f->hash_over)
		pthread_cond_wait(&f->cv, &f->mu);
	pthread_mutex_unlock(&f->mu);
	unref(f);
}

static void
send_line(struct blobfetch *f, const char *line)
{
	bufferevent_write(f->bev, line, strlen(line));
	bufferevent_write(f->bev, "\n", 1);
}

/* Write n bytes of what was asked: -1 if they are more, or cannot be
 * written. */
static int
put(struct blobfetch *f, const unsigned char *p, size_t n)
{
	if ((f->out += (int64_t)n) > f->bytes ||
	    write(f->fd, p, n) != (ssize_t)n)
		return -1;
	pthread_mutex_lock(&f->mu);
	f->written = f->out;
	pthread_cond_signal(&f->cv);
	pthread_mutex_unlock(&f->mu);
	return 0;
}

/* A line before the bytes; -1 if f is over. */
static int
header_line(struct blobfetch *f, char *line)
{
	char	answer[AUTH_HEX_LEN + 1], msg[BLOBFETCH_LINE_MAX + 16];
	int64_t	n, zn;

	if (f->state == BF_CHALLENGE && strncmp(line, "CHALLENGE ", 10) ==
	    0) {
		seal_peer_auth_answer(ring->k[0].key, line + 10, answer);
		snprintf(msg, sizeof msg, "AUTH %s", answer);
		send_line(f, msg);
		f->state = BF_AUTH;
		return 0;
	}
	if (f->state == BF_AUTH && strcmp(line, "OK") == 0) {
		send_line(f, f->req);
		f->state = BF_HEADER;
		return 0;
	}
	if (f->state == BF_HEADER &&
	    wire_reply_blob_parse(line, f->req, &n, &zn) == 0) {
		if (n != f->bytes || (zn >= 0 && f->out > 0)) {
			finish(f, "its size is not the one asked for");
			return -1;
		}
		f->left = zn >= 0 ? zn : n - f->out;
		if ((f->zipped = zn >= 0) && inflateInit(&f->z) != Z_OK) {
			f->zipped = 0;
			finish(f, "cannot inflate");
			return -1;
		}
		f->state = BF_BYTES;
		return 0;
	}
	snprintf(msg, sizeof msg, "%.200s", line);
	finish(f, msg);
	return -1;
}

/* Inflate n bytes of the stream: n, or -1 if they are not a deflate
 * stream or give more than asked for. */
static ssize_t
inflate_some(struct blobfetch *f, unsigned char *p, size_t n)
{
	unsigned char	out[65536];
	int		rc;

	f->z.next_in = p;
	f->z.avail_in = (uInt)n;
	do {
		f->z.next_out = out;
		f->z.avail_out = sizeof out;
		rc = inflate(&f->z, Z_NO_FLUSH);
		if ((rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) ||
		    put(f, out, sizeof out - f->z.avail_out) == -1)
			return -1;
	} while (f->z.avail_out == 0 || (rc == Z_OK && f->z.avail_in > 0));
	/* Bytes after the stream's end: not a stream we asked for. */
	return rc == Z_STREAM_END && f->z.avail_in > 0 ? -1 : (ssize_t)n;
}

/* k bytes of the answer's body: 0, or -1 if f is over. */
static int
take(struct blobfetch *f, unsigned char *p, size_t k)
{
	if (f->zipped ? inflate_some(f, p, k) == -1 : put(f, p, k) == -1) {
		finish(f, f->zipped ? "a bad compressed copy" :
		    "cannot write our copy");
		return -1;
	}
	if ((f->left -= (int64_t)k) > 0)
		return 0;
	finish(f, f->out != f->bytes || (f->zipped && f->z.avail_in != 0) ?
	    "a copy cut short" : NULL);
	return -1;
}

static void
raw_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blobfetch	*f = arg;
	size_t			 k = BLOBFETCH_READ_MAX;
	ssize_t			 n;

	if (what & EV_TIMEOUT) {
		finish(f, "the node does not answer");
		return;
	}
	if ((int64_t)k > f->left)
		k = (size_t)f->left;
	if ((n = read(fd, f->rbuf, k)) > 0)
		(void)take(f, f->rbuf, (size_t)n);
	else if (n == 0)
		finish(f, "the node closed the connection");
	else if (errno != EAGAIN && errno != EINTR)
		finish(f, "cannot read from the node");
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	struct blobfetch	*f = arg;
	struct evbuffer		*in = bufferevent_get_input(bev);
	struct timeval		 tv = { BLOBFETCH_TIMEOUT_S, 0 };
	char			*line;
	size_t			 len;
	int			 rc;

	while (f->state < BF_BYTES) {
		if ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF)) ==
		    NULL) {
			if (evbuffer_get_length(in) > BLOBFETCH_LINE_MAX)
				finish(f, "a line too long");
			return;
		}
		rc = header_line(f, line);
		free(line);
		if (rc == -1)
			return;
	}
	while (f->left > 0 && evbuffer_get_length(in) > 0) {
		size_t		 k = evbuffer_get_length(in);

		if ((int64_t)k > f->left)
			k = (size_t)f->left;
		/* The first chunk of the buffer: no copy to pull it up. */
		if (k > evbuffer_get_contiguous_space(in))
			k = evbuffer_get_contiguous_space(in);
		if (take(f, evbuffer_pullup(in, k), k) == -1)
			return;
		evbuffer_drain(in, k);
	}
	if (f->left == 0) {
		finish(f, f->out != f->bytes ? "a copy cut short" : NULL);
		return;
	}
	/* The rest is read from the socket directly. */
	bufferevent_disable(bev, EV_READ | EV_WRITE);
	if ((f->rbuf = malloc(BLOBFETCH_READ_MAX)) == NULL ||
	    (f->rev = event_new(base, bufferevent_getfd(bev), EV_READ |
	    EV_PERSIST, raw_read_cb, f)) == NULL ||
	    event_add(f->rev, &tv) == -1)
		finish(f, "out of memory");
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct blobfetch	*f = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED) {
		send_line(f, f->state == BF_HEADER ? f->req : "AUTH PEER");
		return;
	}
	finish(f, what & BEV_EVENT_TIMEOUT ? "the node does not answer" :
	    what & BEV_EVENT_EOF ? "the node closed the connection" :
	    "cannot reach the node");
}

struct blobfetch *
blobfetch_start(const char *addr, const char *req, int64_t bytes,
    int64_t from, int fd, blobfetch_cb done, void *arg, char *why,
    size_t whylen)
{
	struct sockaddr_storage	 ss;
	struct timeval		 tv = { BLOBFETCH_TIMEOUT_S, 0 };
	struct blobfetch	*f;
	int			 sslen = sizeof ss, loopback;

	memset(&ss, 0, sizeof ss);
	if (evutil_parse_sockaddr_port(addr, (struct sockaddr *)&ss,
	    &sslen) == -1) {
		snprintf(why, whylen, "no address");
		return NULL;
	}
	loopback = ss.ss_family == AF_INET && (ntohl(((struct sockaddr_in *)
	    &ss)->sin_addr.s_addr) >> 24) == 127;
	if (!loopback && (ring == NULL || ring->n == 0)) {
		snprintf(why, whylen, "no cluster key to ask with");
		return NULL;
	}
	if ((f = calloc(1, sizeof *f)) == NULL ||
	    strlen(req) >= sizeof f->req ||
	    (f->bev = bufferevent_socket_new(base, -1,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		free(f);
		snprintf(why, whylen, "cannot start");
		return NULL;
	}
	snprintf(f->req, sizeof f->req, "%s", req);
	f->state = loopback ? BF_HEADER : BF_CHALLENGE;
	f->fd = fd;
	f->bytes = bytes;
	f->out = f->written = from;
	f->done = done;
	f->arg = arg;
	f->refs = 2;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	if (offloop_start(base, hash_work, hashed, hash_dropped, f) == -1) {
		bufferevent_free(f->bev);
		pthread_mutex_destroy(&f->mu);
		pthread_cond_destroy(&f->cv);
		free(f);
		snprintf(why, whylen, "no thread to hash with");
		return NULL;
	}
	bufferevent_setcb(f->bev, read_cb, NULL, event_cb, f);
	bufferevent_set_timeouts(f->bev, &tv, &tv);
	bufferevent_enable(f->bev, EV_READ | EV_WRITE);
	if (bufferevent_socket_connect(f->bev, (struct sockaddr *)&ss,
	    sslen) == -1) {
		blobfetch_cancel(f);
		snprintf(why, whylen, "cannot connect");
		return NULL;
	}
	return f;
}
