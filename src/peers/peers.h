/*
 * peers.h -- the UDP side of a node: a socket on the cluster's shared
 * peer port that receives broadcasts, and one on a port of its own that
 * sends everything and receives the unicast replies.
 */
#ifndef VOLERY_PEERS_H
#define VOLERY_PEERS_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct event_base;
struct peer_msg;
struct keyring;

/* A parsed datagram of our cluster from another node, its source. */
typedef void peers_recv_fn(const struct peer_msg *, const char *addr);

struct peers_opts {
	const char	*cluster;
	const char	*name;
	uint64_t	 incarnation;
	int		 port;		/* shared, for broadcasts */
	const char	*broadcast;	/* address to broadcast to */
	const struct keyring *ring;	/* n == 0: <insecure/> */
	int		 max_senders;	/* names remembered (guard.h) */
	int64_t		 bind_ms;	/* a name moves after this silence */
	int64_t		 skew_ms;	/* stamps this far off: dropped */
	const char	(*relays)[ADDR_MAXLEN + 1];	/* <relay>s, relay.h */
	int		 nrelays;
	/* A datagram of our name from another incarnation: another node
	 * has our name (or an earlier start of ours is still heard). */
	void		(*clash)(const char *from);
};

int	peers_open(struct event_base *, const struct peers_opts *,
	    peers_recv_fn *, char *err, size_t errlen);
void	peers_close(void);
void	peers_broadcast(const char *body);
/* To the node called name at addr ("a.b.c.d:port", as passed to the
 * receive function); the seal binds it to that name. */
void	peers_unicast(const char *name, const char *addr, const char *body);
int	peers_reply_port(void);
/* A revocation (identity.c) to every node. */
void	peers_revoke_spread(const char *line);

#endif
