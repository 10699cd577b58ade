/*
 * peertab.h -- what this node knows of the others (struct peer, node.h):
 * the table and its index by name, liveness, the fields of their
 * heartbeats, and which of them can take a task now.
 */
#ifndef VOLERY_PEERTAB_H
#define VOLERY_PEERTAB_H

#include <stddef.h>
#include <stdint.h>

#include "nameidx.h"

struct node;
struct peer;
struct peer_msg;

struct peertab {
	struct peer	*v;
	size_t		 n, cap;
	struct nameidx	 idx;		/* v by name */
	int		 nlive;		/* peers alive */
	int		 idle_rank;	/* among idle nodes (placement.c) */
	int		 idle_count;	/* idle peers, ranked before us or not */
	int		 idle_key;	/* our placement key it is for:
					 * another key, another walk */
	int		 nmembers;	/* peers with member set */
	int		 members_dirty;	/* the list to save (ACT_MEMBERS) */
	int64_t		 due;		/* the sweep has work then, or
					 * earlier; -1: none */
	size_t		 nfree;		/* slots of evicted peers (name "") */
	uint64_t	 refused;	/* names refused: the table was full */
	int64_t		 refused_logged;
};

void	peertab_free(struct node *);
/* Anything from a peer: it is alive, and where it can be reached.
 * *woke is set when it was not alive before.  NULL: a new name, and the
 * table holds max_peers that may not leave it yet (said in the log). */
struct peer *peertab_heard(struct node *, const struct peer_msg *,
	    const char *addr, int64_t now, int *woke);
void	peertab_recv_heartbeat(struct node *, struct peer *,
	    const struct peer_msg *, const char *addr);
void	peertab_recv_state(struct node *, struct peer *,
	    const struct peer_msg *, int64_t now);
void	peertab_recv_progress(struct node *, struct peer *, int64_t now);
/* Housekeeping: runs that went quiet are over, silent peers dead, and
 * peers dead and out of the membership for peer_evict_ms forgotten. */
void	peertab_sweep(struct node *, int64_t now);
/* No later than the sweep's next work (a run heard of going quiet, a
 * peer's silence, a membership to save); -1: none. */
int64_t	peertab_due(const struct node *);
int	peertab_live(const struct node *);
/* Our place among the nodes that can take a task now, by the placement
 * rule (placement_peer_first). */
int	peertab_idle_rank(struct node *, int64_t now);
int	peertab_last_idle_rank(const struct node *);
/* The peers that can take a task now, before us in rank or after. */
int	peertab_idle_count(struct node *, int64_t now);
int	peertab_reputation(const struct node *, const char *name);
/*
 * The membership a majority is counted in: us and every peer heard
 * within the membership timeout that did not stop cleanly.  Peers keep
 * their index in the table for good (peertab_index, -1 if unknown).
 */
int	peertab_members(const struct node *);
int	peertab_index(const struct node *, const char *name);
size_t	peertab_count(const struct node *);
/* The peer at index idx, or NULL. */
const struct peer *peertab_at(const struct node *, int idx);

#endif
