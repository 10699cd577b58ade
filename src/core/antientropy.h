/*
 * antientropy.h -- keeping the maps equal despite lost datagrams: the
 * map digest in heartbeats, and synchronising with the master.
 */
#ifndef VOLERY_ANTIENTROPY_H
#define VOLERY_ANTIENTROPY_H

#include <stdint.h>

struct node;
struct peer_msg;

struct antientropy {
	uint64_t	 digest;	/* of the map, when !digest_dirty */
	int		 digest_dirty;
	int		 mismatches;	/* digests unlike the master's */
	int64_t		 last_sync;
};

void	antientropy_init(struct node *);
/* The map changed: the digest is recomputed when next asked for. */
void	antientropy_dirty(struct node *);
/* Ask the master for the whole state, and tell it ours. */
void	antientropy_sync(struct node *, int64_t now);
void	antientropy_recv_heartbeat(struct node *, const struct peer_msg *,
	    int64_t now);
void	antientropy_recv_tasks_transfer(struct node *,
	    const struct peer_msg *);

#endif
