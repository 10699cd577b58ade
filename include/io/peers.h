/*
 * peers.h -- the UDP side of a node: a socket on the cluster's shared
 * peer port that receives broadcasts, and one on a port of its own that
 * sends everything and receives the unicast replies.
 */
#ifndef VOLERY_PEERS_H
#define VOLERY_PEERS_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct peer_msg;

/* A parsed datagram of our cluster from another node, its source. */
typedef void peers_recv_fn(const struct peer_msg *, const char *addr);

struct peers_opts {
	const char	*cluster;
	const char	*name;
	uint64_t	 incarnation;
	int		 port;		/* shared, for broadcasts */
	const char	*broadcast;	/* address to broadcast to */
};

int	peers_open(struct event_base *, const struct peers_opts *,
	    peers_recv_fn *, char *err, size_t errlen);
void	peers_close(void);
void	peers_broadcast(const char *body);
/* addr is "a.b.c.d:port" as passed to the receive function. */
void	peers_unicast(const char *addr, const char *body);
int	peers_reply_port(void);

#endif
