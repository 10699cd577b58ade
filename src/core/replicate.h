/*
 * replicate.h -- every node keeps every task: records sent and merged
 * (the merge rule of rules.h), ENQUEUE until the master acknowledges,
 * PROGRESS, GET_TASK, duplicate runs, and failure detection of remote
 * runs.  Anti-entropy is antientropy.h.
 */
#ifndef VOLERY_REPLICATE_H
#define VOLERY_REPLICATE_H

#include <stdint.h>

#include "peer.h"

struct node;
struct task;

struct replicate {
	int		 nunacked;	/* ENQUEUEs the master has not acked */
};

int	replicate_unacked(const struct node *);
/* The task changed: make it durable and tell its subscribers. */
void	replicate_changed(struct node *, struct task *);
/* An authoritative change of ours: version it and tell every node. */
void	replicate_publish(struct node *, struct task *);
/* The whole task as ENQUEUE or STATE, to peer or (NULL) to all. */
void	replicate_send(struct node *, const char *peer, enum peer_type,
	    const struct task *);
/* Our unconfirmed end again, every voter asked to answer (voters.h). */
void	replicate_ask_votes(struct node *, const struct task *);
/* r, a copy of t (same uuid) that a client changed here (held, its
 * priority): taken as a record from a peer is, and published.  t and
 * r are the map's or freed; the task now, or NULL (out of memory). */
struct task *replicate_local_change(struct node *, struct task *t,
	    struct task *r, int64_t now);
/* A task we scheduled: every node must have it (ENQUEUE until acked). */
void	replicate_enqueue(struct node *, struct task *);
/* We became master: nothing is waiting for an ack. */
void	replicate_became_master(struct node *);
void	replicate_recv_enqueue(struct node *, const struct peer_msg *,
	    int64_t now);
void	replicate_recv_enqueue_ack(struct node *, const struct peer_msg *);
/* A STATE (or a VOTE: merged the same, but never answered). */
/* The record m carries, decoded and plausible; NULL (said) if not. */
struct task *replicate_decode(struct node *, const struct peer_msg *,
	    int64_t now);
void	replicate_recv_state(struct node *, const struct peer_msg *,
	    int64_t now);
void	replicate_recv_get_task(struct node *, const struct peer_msg *);

#endif
