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
#include <fcntl.h>
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
#include "lex.h"
#include "reply.h"
#include "seal.h"

#define CONN_REPLY_MS 10000
#define CONN_CONNECT_MS 5000

/* Whether any connection was lost, or a host was not one: the exit
 * status says so (conn_failure). */
static int	any_lost, any_bad;

static void
mark_lost(struct conn *c)
{
	c->lost = any_lost = 1;
}

int
conn_failure(void)
{
	return any_bad ? 2 : any_lost ? 3 : 0;
}

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

/* Connect fd to addr within CONN_CONNECT_MS; errno set if not. */
static int
connect_within(int fd, const struct sockaddr *addr, socklen_t len)
{
	struct pollfd	pfd = { fd, POLLOUT, 0 };
	socklen_t	elen = sizeof(int);
	int		flags = fcntl(fd, F_GETFL), e = 0, rc;

	if (flags == -1 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		return -1;
	if (connect(fd, addr, len) == -1) {
		if (errno != EINPROGRESS)
			return -1;
		while ((rc = poll(&pfd, 1, CONN_CONNECT_MS)) == -1 &&
		    errno == EINTR)
			;
		if (rc == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (rc == -1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e,
		    &elen) == -1)
			return -1;
		if (e != 0) {
			errno = e;
			return -1;
		}
	}
	return fcntl(fd, F_SETFL, flags);
}

/* TCP to name:port (a host name or address); -1 with err if none of
 * its addresses answers. */
static int
open_tcp(struct conn *c, const char *name, const char *port, char *err,
    size_t errlen)
{
	struct addrinfo	 hints, *res, *ai;
	int		 rc, one = 1, saved = 0;

	if (strchr(name, ':') != NULL)
		snprintf(c->where, sizeof c->where, "[%s]:%s", name, port);
	else
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
		if (connect_within(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
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

/*
 * A node's name, as the node on this host knows it (NODES): its client
 * address into addr.  -1 if there is no local node, or no such node.
 */
static int
node_address(const char *name, char *addr, size_t size)
{
	struct conn	 local;
	struct reply_node node;
	char		 line[CLIENT_LINE_MAX + 2], err[256];
	int		 found = -1;

	memset(&local, 0, sizeof local);
	local.fd = -1;
	if (open_local(&local) == -1)
		return -1;
	if (conn_send(&local, "NODES\n", err, sizeof err) == 0)
		while (conn_line(&local, line, sizeof line, CONN_REPLY_MS,
		    err, sizeof err) == 1 && strcmp(line, ".") != 0)
			if (wire_reply_node_parse(line, &node) == 0 &&
			    strcmp(node.name, name) == 0) {
				snprintf(addr, size, "%s", node.address);
				found = 0;
			}
	conn_close(&local);
	return found;
}

int
conn_open(struct conn *c, const char *host, char *err, size_t errlen)
{
	char	 name[ADDR_MAXLEN + 8], port[16] = "7600", addr[ADDR_MAXLEN + 1];
	int	 p;

	memset(c, 0, sizeof *c);
	c->fd = -1;
	if (host == NULL || *host == '\0')
		host = getenv("VOLERY_HOST");
	if ((host == NULL || *host == '\0') && open_local(c) == 0)
		return 0;
	if (host == NULL || *host == '\0')
		host = CONN_DEFAULT_HOST;
	if (lex_hostport(host, name, sizeof name, &p) == -1 || p == 0) {
		snprintf(err, errlen, "bad host '%.80s': host[:port], "
		    "[IPv6 address][:port] or a node's name, the port from 1 "
		    "to 65535", host);
		c->bad = any_bad = 1;
		return -1;
	}
	if (p > 0)
		snprintf(port, sizeof port, "%d", p);
	/* A node's name without a port: where the local node says it
	 * listens, if it knows it (its port may not be the default). */
	if (p < 0 && node_address(name, addr, sizeof addr) == 0 &&
	    lex_hostport(addr, name, sizeof name, &p) == 0 && p > 0)
		snprintf(port, sizeof port, "%d", p);
	if (open_tcp(c, name, port, err, errlen) == -1) {
		mark_lost(c);
		return -1;
	}
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
			mark_lost(c);
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
		if ((rc = poll(&pfd, 1, left)) == -1 && errno == EINTR) {
			if (c->interrupt != NULL && *c->interrupt)
				return 0;
			continue;
		}
		if (rc == 0) {
			mark_lost(c);	/* no reply in time: as good as gone */
			return 0;
		}
		got = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(err, errlen, "%s: %s", c->where, got == 0 ?
			    "the node closed the connection" :
			    strerror(errno));
			mark_lost(c);
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

	snprintf(line, sizeof line, "%s\n", request);
	if (conn_send(c, line, err, errlen) == -1 ||
	    conn_reply(c, reply, size, err, errlen) == -1)
		return -1;
	if (strncmp(reply, "ERROR", 5) == 0) {
		snprintf(err, errlen, "%s", reply[5] == ' ' ? reply + 6 : reply);
		return -1;
	}
	return 0;
}

int
conn_reply(struct conn *c, char *reply, size_t size, char *err,
    size_t errlen)
{
	int	rc;

	for (;;) {
		rc = conn_line(c, reply, size, CONN_REPLY_MS, err, errlen);
		if (rc == 0)
			snprintf(err, errlen, "%s: no reply in %d s", c->where,
			    CONN_REPLY_MS / 1000);
		if (rc <= 0)
			return -1;
		if (strncmp(reply, "PROGRESS ", 9) != 0)
			return 0;
	}
}
