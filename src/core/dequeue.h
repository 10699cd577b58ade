/*
 * dequeue.h -- the distributed dequeue (thesis Algorithm 3.2): which
 * ready task this node tries to take and the race for it; what it
 * remembers of the others' proposals is claims.h's.
 */
#ifndef VOLERY_DEQUEUE_H
#define VOLERY_DEQUEUE_H

#include <stdint.h>

#include "bounds.h"
#include "claims.h"
#include "lateness.h"

struct node;
struct peer_msg;
struct task;

#define DEQUEUE_BATCH	8	/* tasks one race may claim */
#define BATCH_START_MS	2	/* a start and an end's bookkeeping, beside
				 * a task's own run, when batching */

struct dequeue {
	/* Our proposal, while its window is open: one race for one task,
	 * or a batch of short ones (a TRY_DEQUEUE each, one stamp). */
	int		 active;
	char		 batch[DEQUEUE_BATCH][UUID_STRLEN + 1];
	int		 nbatch;
	int64_t		 ts;
	int64_t		 deadline;
	int		 lost;
	int		 rank;		/* losses in the last race */
	/* Tasks of the batch won while our slots were full: started in
	 * turn as slots free, while the peers still keep off them. */
	char		 held[DEQUEUE_BATCH][UUID_STRLEN + 1];
	int		 nheld, next_held;
	int64_t		 held_until;
	struct claims	 claims;	/* the others' proposals */
	int64_t		 retry_at;	/* all ready tasks claimed; -1 */
	int64_t		 begin_at;	/* the soonest --begin ahead; -1 */
	/* A rival's earlier claim reaches us this late: the window. */
	struct lateness	 late;
};

void	dequeue_init(struct node *);
/* uuid is Ready again after a run: the claims on it are dead. */
void	dequeue_requeued(struct node *, const char *uuid);
/* Someone else claimed uuid, as far as we heard. */
int	dequeue_taken(const struct node *, const char *uuid, int64_t now);
/* A task we may run (run_admissible), now (an array's limit). */
int	dequeue_ours(struct node *, const struct task *, int64_t now);
/* Take ready tasks while slots are free. */
void	dequeue_dispatch(struct node *, int64_t now);
void	dequeue_recv_try(struct node *, const struct peer_msg *, int64_t now);
/* A datagram stamped `sent` by its sender's clock arrived now: p's
 * heartbeat, or its claim (lateness.h). */
void	dequeue_heard_stamp(struct node *, struct peer *p, int64_t sent,
	    int64_t now, int claim);
/* How long a race waits for rival claims, now (lateness.h): at most
 * dequeue_window_ms on a LAN, longer while the nodes wait for a CPU, up
 * to half a node timeout (a node that waits longer is about to be taken
 * for dead anyway). */
int64_t	dequeue_window_ms(const struct node *, int64_t now);
/* The window the claims are kept by (claims.h): dequeue_window_ms's
 * setting, or the race's when that is longer. */
int64_t	dequeue_claim_window_ms(const struct node *, int64_t now);
/* A window closed, or a retry is due. */
void	dequeue_tick(struct node *, int64_t now);
/* When dequeue_tick must come next (-1: never). */
int64_t	dequeue_deadline(const struct node *, int64_t now);

/* claims_beating_where() on the claims we heard, for (ts, us). */
int	dequeue_claims_beating_where(struct node *, int64_t ts, int64_t now,
	    int (*pred)(const char *, void *), void *arg);

#endif
