/*
 * conn.c -- a blocking client connection for the subcommands: to the
 * node on this host through its UNIX socket, or over TCP (-H), with the
 * operator key's AUTH for a node on another host.  The node is on the
 * LAN: connecting and every reply have a few seconds, not minutes,
 * before the command gives up with a one-line reason.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"
#include "keys.h"
#include "seal.h"

#define CONN_REPLY_MS 10000

/*
 * The node on this host, through its UNIX socket: $VOLERY_SOCKET, the
 * system node's, or the one of a node started here with the built-in
 * config.  0, or -1 if none answers (then TCP).
 */
static int
open_local(struct conn *c)
{
	const char		*env = getenv("VOLERY_SOCKET");
	const char		*paths[] = { env, CONN_SYSTEM_SOCKET,
				    "state/volery.sock" };
	struct sockaddr_un	 sun;
	size_t			 i;

	for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		if (paths[i] == NULL || *paths[i] == '\0' ||
		    strlen(paths[i]) >= sizeof sun.sun_path)
			continue;
		memset(&sun, 0, sizeof sun);
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof sun.sun_path, "%s", paths[i]);
		c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->fd == -1)
			return -1;
		if (connect(c->fd, (struct sockaddr *)&sun, sizeof sun) == 0) {
			snprintf(c->where, sizeof c->where, "%s", paths[i]);
			return 0;
		}
		close(c->fd);
		c->fd = -1;
		if (paths[i] == env)
			return -1;	/* asked for: no fallback */
	}
	return -1;
}

/*
 * A node on another host asks for the operator key: answer its challenge
 * with $VOLERY_OPERATOR_KEY or CONN_OPERATOR_KEY, if we can read one.
 */
static int
authenticate(struct conn *c, char *err, size_t errlen)
{
	const char	*path = getenv("VOLERY_OPERATOR_KEY");
	uint8_t		 key[SEAL_KEY_BYTES];
	char		 line[CLIENT_LINE_MAX + 2], answer[AUTH_HEX_LEN + 1];
	char		 kerr[512];

	if (path == NULL || *path == '\0') {
		path = CONN_OPERATOR_KEY;
		if (access(path, R_OK) == -1)
			return 0;	/* the node will say what it wants */
	}
	if (keys_read(path, key, kerr, sizeof kerr) == -1) {
		snprintf(err, errlen, "operator key: %s", kerr);
		return -1;
	}
	if (conn_ask(c, "AUTH", line, sizeof line, err, errlen) == -1)
		return -1;
	if (strncmp(line, "CHALLENGE ", 10) != 0) {
		snprintf(err, errlen, "%s: not a challenge: %s", c->where,
		    line);
		return -1;
	}
	seal_auth_answer(key, line + 10, answer);
	snprintf(line, sizeof line, "AUTH %s", answer);
	if (conn_ask(c, line, line, sizeof line, err, errlen) == -1)
		return -1;
	return 0;
}

/* The node we reached is on this host. */
static int
is_loopback(int fd)
{
	struct sockaddr_storage	ss;
	socklen_t		len = sizeof ss;

	if (getpeername(fd, (struct sockaddr *)&ss, &len) == -1)
		return 0;
	if (ss.ss_family == AF_INET)
		return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >>
		    24) == 127;
	return ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr);
}

int
conn_open(struct conn *c, const char *host, char *err, size_t errlen)
{
	struct addrinfo	 hints, *res, *ai;
	char		 name[ADDR_MAXLEN + 8], *colon;
	const char	*port = "7600";
	int		 rc, one = 1, saved = 0;

	memset(c, 0, sizeof *c);
	c->fd = -1;
	if (host == NULL || *host == '\0')
		host = getenv("VOLERY_HOST");
	if ((host == NULL || *host == '\0') && open_local(c) == 0)
		return 0;
	if (host == NULL || *host == '\0')
		host = CONN_DEFAULT_HOST;
	if (strlen(host) >= sizeof name) {
		snprintf(err, errlen, "host too long: %.40s...", host);
		return -1;
	}
	snprintf(name, sizeof name, "%s", host);
	if ((colon = strrchr(name, ':')) != NULL) {
		*colon = '\0';
		port = colon + 1;
	}
	snprintf(c->where, sizeof c->where, "%s:%s", name, port);
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(name, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "%s: %s", c->where, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (c->fd == -1)
			continue;
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		saved = errno;
		close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd == -1) {
		snprintf(err, errlen, "cannot reach the node at %s: %s",
		    c->where, strerror(saved != 0 ? saved : ECONNREFUSED));
		return -1;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (!is_loopback(c->fd) && authenticate(c, err, errlen) == -1) {
		conn_close(c);
		return -1;
	}
	return 0;
}

void
conn_close(struct conn *c)
{
	if (c->fd != -1)
		close(c->fd);
	c->fd = -1;
}

int
conn_send(struct conn *c, const char *line, char *err, size_t errlen)
{
	size_t	len = strlen(line), off = 0;
	ssize_t	n;

	while (off < len) {
		n = send(c->fd, line + off, len - off, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "%s: %s", c->where,
			    strerror(errno));
			return -1;
		}
		off += n;
	}
	return 0;
}

static int64_t
mono_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* More bytes into c->buf: 1, or 0 past the deadline, -1 at an error or
 * the end (err says). */
static int
fill(struct conn *c, int64_t deadline, int timeout_ms, char *err,
    size_t errlen)
{
	struct pollfd	pfd;
	ssize_t		got;
	int		left, rc;

	for (;;) {
		left = timeout_ms < 0 ? -1 : (int)(deadline - mono_ms());
		if (timeout_ms >= 0 && left <= 0)
			return 0;
		pfd.fd = c->fd;
		pfd.events = POLLIN;
		if ((rc = poll(&pfd, 1, left)) == -1 && errno == EINTR)
			continue;
		if (rc == 0)
			return 0;
		got = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(err, errlen, "%s: %s", c->where, got == 0 ?
			    "the node closed the connection" :
			    strerror(errno));
			return -1;
		}
		c->len += got;
		return 1;
	}
}

int
conn_line(struct conn *c, char *line, size_t size, int timeout_ms, char *err,
    size_t errlen)
{
	int64_t		 deadline = mono_ms() + timeout_ms;
	char		*nl;
	size_t		 n;
	int		 rc;

	for (;;) {
		if ((nl = memchr(c->buf, '\n', c->len)) != NULL) {
			n = nl - c->buf;
			if (n > 0 && c->buf[n - 1] == '\r')
				n--;
			if (n >= size)
				n = size - 1;
			memcpy(line, c->buf, n);
			line[n] = '\0';
			n = nl - c->buf + 1;
			memmove(c->buf, c->buf + n, c->len - n);
			c->len -= n;
			return 1;
		}
		if (c->len == sizeof c->buf) {
			snprintf(err, errlen, "%s: a reply line is too long",
			    c->where);
			return -1;
		}
		if ((rc = fill(c, deadline, timeout_ms, err, errlen)) <= 0)
			return rc;
	}
}

int
conn_read(struct conn *c, void *buf, size_t n, int timeout_ms, char *err,
    size_t errlen)
{
	int64_t	deadline = mono_ms() + timeout_ms;
	char	*p = buf;
	size_t	 k;
	int	 rc;

	while (n > 0) {
		if (c->len == 0 &&
		    (rc = fill(c, deadline, timeout_ms, err, errlen)) <= 0)
			return rc;
		k = c->len < n ? c->len : n;
		memcpy(p, c->buf, k);
		memmove(c->buf, c->buf + k, c->len - k);
		c->len -= k;
		p += k;
		n -= k;
	}
	return 1;
}

int
conn_ask(struct conn *c, const char *request, char *reply, size_t size,
    char *err, size_t errlen)
{
	char	line[CLIENT_LINE_MAX + 2];
	int	rc;

	snprintf(line, sizeof line, "%s\n", request);
	if (conn_send(c, line, err, errlen) == -1)
		return -1;
	for (;;) {
		rc = conn_line(c, reply, size, CONN_REPLY_MS, err, errlen);
		if (rc == 0)
			snprintf(err, errlen, "%s: no reply in %d s", c->where,
			    CONN_REPLY_MS / 1000);
		if (rc <= 0)
			return -1;
		if (strncmp(reply, "PROGRESS ", 9) == 0)
			continue;
		if (strncmp(reply, "ERROR", 5) == 0) {
			snprintf(err, errlen, "%s", reply[5] == ' ' ?
			    reply + 6 : reply);
			return -1;
		}
		return 0;
	}
}
