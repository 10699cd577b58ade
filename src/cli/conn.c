/*
 * conn.c -- a blocking client connection for the subcommands.  The node
 * is on the LAN: connecting and every reply have a few seconds, not
 * minutes, before the command gives up with a one-line reason.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conn.h"

#define CONN_REPLY_MS 10000

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

int
conn_line(struct conn *c, char *line, size_t size, int timeout_ms, char *err,
    size_t errlen)
{
	int64_t		 deadline = mono_ms() + timeout_ms;
	struct pollfd	 pfd;
	char		*nl;
	size_t		 n;
	ssize_t		 got;
	int		 left, rc;

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
	}
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
