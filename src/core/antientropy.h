/*
 * antientropy.h -- keeping the maps equal despite lost datagrams: the
 * map digest in heartbeats, and synchronising with the master.
 */
#ifndef VOLERY_ANTIENTROPY_H
#define VOLERY_ANTIENTROPY_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "peer.h"

struct node;
struct peer;
struct peer_msg;
struct task;

/*
 * What a peer lacks of our map on its way to it, a chunk each
 * housekeeping tick: a burst of thousands of datagrams would overflow
 * its socket buffer.  First the records, then the lists of those it
 * holds otherwise perhaps (pull.h); in submit order, so a task's
 * upstream arrives before it.
 */
struct transfer {
	char		 peer[NAME_MAXLEN + 1];
	char		(*uuids)[UUID_STRLEN + 1];	/* the map when asked */
	size_t		 n, next;
	size_t		 nrec;		/* uuids[0..nrec) go as records */
};
#define ANTIENTROPY_TRANSFERS	8	/* peers at a time */
#define ANTIENTROPY_CHUNK	32	/* records a tick to each */
#define ANTIENTROPY_LISTS	1	/* or lists: the records they ask for
					 * come back at once, PEER_LIST_MAX */
#define ANTIENTROPY_PUSH_MAX	4	/* records of a bucket sent, not listed */

/*
 * An ask not answered yet, or answered with a few buckets that differed:
 * every ask is answered ("send", an empty mask if the maps agree), so a
 * lost one, a lost answer or a lost record of the exchange is asked again
 * at the next housekeeping ticks -- until the maps agree, or a few times
 * -- not after three more heartbeats.
 */
struct ask {
	char		 peer[NAME_MAXLEN + 1];
	int64_t		 sent_ms;
	int		 tries;
};
#define ANTIENTROPY_ASK_TRIES	3
#define ANTIENTROPY_FEW_BUCKETS	(PEER_BUCKETS / 8)	/* asked again */

struct antientropy {
	uint64_t	 digest;	/* of the map, kept as tasks change */
	/* The same, bucket by bucket (the uuid's hash picks its bucket):
	 * a sync moves the buckets that differ, not the whole map. */
	uint64_t	 bucket[PEER_BUCKETS];
	int		 mismatches;	/* digests unlike the master's */
	int64_t		 last_sync;
	struct transfer	 xfer[ANTIENTROPY_TRANSFERS];
	int		 nxfer;
	struct ask	 asks[ANTIENTROPY_TRANSFERS];
	int		 nasks;
};

void	antientropy_init(struct node *);
void	antientropy_free(struct node *);
/* Every progress interval: the next chunk of each transfer, and the
 * asks not answered again. */
void	antientropy_housekeeping(struct node *, int64_t now);
/* A sync is under way: housekeeping sends its next chunks. */
int	antientropy_transferring(const struct node *);
/* t changed (or came into the map): its share of the digest anew. */
void	antientropy_changed(struct node *, struct task *);
/* t leaves the map. */
void	antientropy_gone(struct node *, struct task *);
/* Every task's share anew (after a restart changed them in place). */
void	antientropy_recount(struct node *);
/* Ask the master for what differs of the state, and tell it ours. */
void	antientropy_sync(struct node *, int64_t now);
/* A heartbeat's digest against ours: a follower syncs with its master,
 * the master sends its map to a follower, when they differ for long. */
void	antientropy_recv_heartbeat(struct node *, struct peer *,
	    const struct peer_msg *, int64_t now);
void	antientropy_recv_tasks_transfer(struct node *,
	    const struct peer_msg *);

#endif
