/*
 * peers.c -- datagrams to and from the other nodes.  What arrives is
 * parsed here; a malformed, oversized, foreign-cluster or own datagram is
 * logged at debug and dropped (drop-and-count, never a reply).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "log.h"
#include "peer.h"
#include "peers.h"

static struct {
	struct peers_opts	 o;
	int			 bcast_fd, ucast_fd;
	struct event		*bcast_ev, *ucast_ev;
	struct sockaddr_in	 bcast_to;
	int			 reply_port;
	peers_recv_fn		*recv;
	char			 header[256];
	int			 header_len;
	uint64_t		 dropped;
} p = { .bcast_fd = -1, .ucast_fd = -1 };

static int
udp_socket(int port, int reuse, char *err, size_t errlen)
{
	struct sockaddr_in	sin;
	int			fd, one = 1, size = 4 * 1024 * 1024;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
	/* Bursts of ENQUEUE on a join: a generous receive buffer. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
	    sizeof size) == -1)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	if (reuse)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	sin.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
		snprintf(err, errlen, "UDP port %d: %s", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void
read_cb(evutil_socket_t fd, short what, void *arg)
{
	static struct peer_msg	 m;
	char			 buf[DATAGRAM_MAX + 1], addr[64], err[160];
	char			 ip[INET_ADDRSTRLEN];
	struct sockaddr_in	 from;
	socklen_t		 fromlen;
	ssize_t			 n;
	int			 budget = 256;	/* let others run too */

	while (budget-- > 0) {
		fromlen = sizeof from;
		n = recvfrom(fd, buf, sizeof buf, MSG_TRUNC,
		    (struct sockaddr *)&from, &fromlen);
		if (n == -1)
			return;
		if (n > DATAGRAM_MAX) {
			p.dropped++;
			log_debug("peer datagram of %zd bytes "
			    "dropped: over %d", n, DATAGRAM_MAX);
			continue;
		}
		inet_ntop(AF_INET, &from.sin_addr, ip, sizeof ip);
		if (peer_parse(buf, n, &m, err, sizeof err) == -1) {
			p.dropped++;
			log_debug("datagram from %s dropped: %s", ip,
			    err);
			continue;
		}
		if (strcmp(m.cluster, p.o.cluster) != 0) {
			log_debug("datagram from %s dropped: cluster "
			    "%s is not ours", ip, m.cluster);
			continue;
		}
		if (strcmp(m.sender, p.o.name) == 0) {
			if (m.incarnation != p.o.incarnation)
				log_warnx("another node (%s) is "
				    "also called %s; names must be unique",
				    ip, m.sender);
			continue;	/* our own broadcast */
		}
		snprintf(addr, sizeof addr, "%s:%d", ip, m.reply_port);
		p.recv(&m, addr);
	}
}

int
peers_open(struct event_base *base, const struct peers_opts *o,
    peers_recv_fn *recv, char *err, size_t errlen)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;

	p.o = *o;
	p.recv = recv;
	memset(&p.bcast_to, 0, sizeof p.bcast_to);
	p.bcast_to.sin_family = AF_INET;
	p.bcast_to.sin_port = htons(o->port);
	if (inet_pton(AF_INET, o->broadcast, &p.bcast_to.sin_addr) != 1) {
		snprintf(err, errlen, "bad broadcast address %s",
		    o->broadcast);
		return -1;
	}
	if ((p.bcast_fd = udp_socket(o->port, 1, err, errlen)) == -1)
		return -1;
	if ((p.ucast_fd = udp_socket(0, 0, err, errlen)) == -1)
		return -1;
	getsockname(p.ucast_fd, (struct sockaddr *)&sin, &len);
	p.reply_port = ntohs(sin.sin_port);
	p.header_len = peer_header(p.header, sizeof p.header, o->cluster,
	    o->name, o->incarnation, p.reply_port);
	p.bcast_ev = event_new(base, p.bcast_fd, EV_READ | EV_PERSIST,
	    read_cb, NULL);
	p.ucast_ev = event_new(base, p.ucast_fd, EV_READ | EV_PERSIST,
	    read_cb, NULL);
	if (p.header_len == -1 || p.bcast_ev == NULL || p.ucast_ev == NULL ||
	    event_add(p.bcast_ev, NULL) == -1 ||
	    event_add(p.ucast_ev, NULL) == -1) {
		snprintf(err, errlen, "cannot watch the peer sockets");
		return -1;
	}
	return 0;
}

void
peers_close(void)
{
	if (p.bcast_ev != NULL)
		event_free(p.bcast_ev);
	if (p.ucast_ev != NULL)
		event_free(p.ucast_ev);
	if (p.bcast_fd != -1)
		close(p.bcast_fd);
	if (p.ucast_fd != -1)
		close(p.ucast_fd);
	p.bcast_ev = p.ucast_ev = NULL;
	p.bcast_fd = p.ucast_fd = -1;
}

static void
send_to(const struct sockaddr_in *to, const char *body)
{
	char	buf[DATAGRAM_MAX + 1];
	size_t	len = strlen(body);

	if (p.ucast_fd == -1)
		return;
	if (p.header_len + len > DATAGRAM_MAX) {
		log_msg(VLOG_ERROR, "datagram of %zu bytes not sent: over %d",
		    p.header_len + len, DATAGRAM_MAX);
		return;
	}
	memcpy(buf, p.header, p.header_len);
	memcpy(buf + p.header_len, body, len);
	if (sendto(p.ucast_fd, buf, p.header_len + len, 0,
	    (const struct sockaddr *)to, sizeof *to) == -1)
		log_debug("sendto: %s", strerror(errno));
}

void
peers_broadcast(const char *body)
{
	send_to(&p.bcast_to, body);
}

void
peers_unicast(const char *addr, const char *body)
{
	struct sockaddr_in	 to;
	char			 ip[INET_ADDRSTRLEN + 1];
	const char		*colon = strrchr(addr, ':');

	if (colon == NULL || (size_t)(colon - addr) >= sizeof ip)
		return;
	memcpy(ip, addr, colon - addr);
	ip[colon - addr] = '\0';
	memset(&to, 0, sizeof to);
	to.sin_family = AF_INET;
	to.sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, ip, &to.sin_addr) != 1)
		return;
	send_to(&to, body);
}

int
peers_reply_port(void)
{
	return p.reply_port;
}
