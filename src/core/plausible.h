/*
 * plausible.h -- what a peer says is checked against what that peer
 * could know before any sub-protocol believes it (DESIGN.md section 10,
 * "Plausibility"): its stamps and its records' times lie within the
 * clock skew of ours, and a master's epoch grows by bounded steps.  A
 * refused message changes nothing; it is counted, and said in the log
 * once in a while.
 */
#ifndef VOLERY_PLAUSIBLE_H
#define VOLERY_PLAUSIBLE_H

#include <stdint.h>

#include "bounds.h"

struct node;
struct peer_msg;
struct task;

/* An honest epoch grows by one an election: a partition's sides may
 * each hold a few before they heal, never this many. */
#define EPOCH_STEP_MAX	16
/* A claim or candidacy is told again for a few windows after it was
 * stamped: older than the skew and this, it is not one of ours. */
#define STAMP_AGE_MAX_MS 60000

struct plausible {
	uint64_t	 refused;	/* messages and records refused */
	char		 last_from[NAME_MAXLEN + 1];	/* the latest's sender */
	int64_t		 logged;	/* when last said */
	/* Streaks of claims on a task that never became a run (claims.c) */
	uint64_t	 void_claims;
	char		 void_from[NAME_MAXLEN + 1];
	int64_t		 void_logged;
};

/* May m, from a peer, be believed?  If not it is counted and dropped. */
int	plausible_msg(struct node *, const struct peer_msg *, int64_t now);
/* May r, a record from sender, be believed? */
int	plausible_record(struct node *, const char *sender,
	    const struct task *r, int64_t now);
/* r, a record from sender, of the task we hold as t: does it leave what
 * its submitting node set (program, owner, submit time, inputs) as we
 * hold it?  A record that changes it is no one's to send. */
int	plausible_same_origin(struct node *, const char *sender,
	    const struct task *t, const struct task *r, int64_t now);
/* node kept claiming task uuid and never started it: its claims on it
 * count no more; counted, and said once in a while. */
void	plausible_void_claims(struct node *, const char *node,
	    const char *uuid, int64_t now);
/* Such streaks so far, and whose was the latest. */
uint64_t plausible_void_claims_count(const struct node *,
	    const char **last_from);
/* r, a task new to us from sender, bears a signature its taker did not
 * make (origin.c): refused, counted, said. */
void	plausible_forged_origin(struct node *, const char *sender,
	    const struct task *r, int64_t now);
/* sender sent what, which no node could: counted, said; 0. */
int	plausible_refuse(struct node *, const char *sender, const char *what,
	    int64_t now);
/* Messages and records refused so far, and who sent the latest. */
uint64_t plausible_refused(const struct node *, const char **last_from);

#endif
