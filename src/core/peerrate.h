/*
 * peerrate.h -- how often a peer may send the messages that start work
 * on every node (a race, a candidacy): a live node sends one or two a
 * window, or one batch of claims; more is a fault or an attack.
 */
#ifndef VOLERY_PEERRATE_H
#define VOLERY_PEERRATE_H

#include <stdint.h>

#include "dequeue.h"

struct node;
struct peer;

/* Messages a peer may send only so often (peerrate_allow). */
enum peer_rate {
	RATE_DEQUEUE,		/* TRY_DEQUEUE: per dequeue window */
	RATE_ELECTION,		/* START, TRY_TO_BE_MASTER: per election
				 * window */
};
#define RATE_BUDGET	4	/* messages of a kind per window */
/* A race claims up to DEQUEUE_BATCH short tasks at once (dequeue.h). */
#define RATE_DEQUEUE_BUDGET	(DEQUEUE_BATCH + RATE_BUDGET)

struct peerrate {
	uint64_t	 limited;	/* messages over a rate limit */
	int64_t		 limited_logged;	/* when last said */
};

/* May p send one more message of this kind now?  If not it is dropped,
 * and said in the log once in a while. */
int	peerrate_allow(struct node *, struct peer *, enum peer_rate,
	    const char *what, int64_t now);

#endif
