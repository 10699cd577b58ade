/*
 * election.h -- the master election (thesis Algorithm 3.1): candidacy,
 * epochs, whom we follow, stepping down, and the join of thesis 3.6.3.
 */
#ifndef VOLERY_ELECTION_H
#define VOLERY_ELECTION_H

#include <stdint.h>

#include "bounds.h"

struct node;
struct peer_msg;

struct election {
	char		 master[NAME_MAXLEN + 1];	/* "" unknown */
	uint64_t	 epoch;		/* of the master we follow */
	int64_t		 master_heard;
	int		 joined;	/* has had a master */
	int64_t		 join_deadline;	/* -1: none */
	/* Our candidacy, while its window is open. */
	int		 active;
	int64_t		 ts;
	int64_t		 deadline;
	int		 lost;
};

void	election_init(struct node *);
const char *election_master(const struct node *);	/* "" unknown */
uint64_t election_epoch(const struct node *);
/* The highest master epoch we know of: ours, or any peer's. */
uint64_t election_highest_epoch(const struct node *);
/* Anything from sender: if it is our master, it is alive. */
void	election_heard(struct node *, const char *sender, int64_t now);
/* Joining: who is the master?  (thesis 3.6.3) */
void	election_join(struct node *, int64_t now);
void	election_recv_heartbeat(struct node *, const struct peer_msg *,
	    int64_t now);
void	election_recv_who_is_master(struct node *, const struct peer_msg *);
void	election_recv_start(struct node *, const struct peer_msg *,
	    int64_t now);
void	election_recv_try(struct node *, const struct peer_msg *, int64_t now);
void	election_recv_new_master(struct node *, const struct peer_msg *,
	    int64_t now);
/* Our window closed, or nobody answered our join. */
void	election_tick(struct node *, int64_t now);
/* Housekeeping: a silent master is replaced. */
void	election_check_master(struct node *, int64_t now);
/* When the master we follow will have been silent too long; -1: none. */
int64_t	election_silence_due(const struct node *);
int64_t	election_deadline(const struct node *);

#endif
