/*
 * claims.h -- what a node remembers of the others' TRY_DEQUEUE proposals
 * (claims.c): for the race, who proposed to take a task before us; for
 * dispatch, which tasks someone is taking now.
 */
#ifndef VOLERY_CLAIMS_H
#define VOLERY_CLAIMS_H

#include <stdint.h>

#include "bounds.h"

#define DEQUEUE_CLAIMS	1024	/* remembered TRY_DEQUEUE proposals */
#define CLAIM_WINDOWS	4	/* remembered for this many windows */
#define CLAIM_EXPIRES	8	/* windows a claimant has to start the task
				 * it claims, counted from its first claim of
				 * a streak; then its claims count no more */
#define DEQUEUE_HINTS	512	/* power of two */
#define DEQUEUE_STREAKS	256	/* power of two */

struct claims {
	/* Recent proposals: a proposal made just before ours competes
	 * with it too, though it arrived before our window. */
	struct claim {
		char	 uuid[UUID_STRLEN + 1];
		char	 node[NAME_MAXLEN + 1];
		int64_t	 ts;		/* the proposer's stamp */
		int64_t	 seen;		/* our clock */
	}		 ring[DEQUEUE_CLAIMS];
	uint32_t	 n;		/* ring position (wraps evenly) */
	/* Newest claim per task, direct-mapped by uuid hash: a quick
	 * "is someone taking it" for dispatch. */
	struct claim_hint {
		char	 uuid[UUID_STRLEN + 1];
		char	 node[NAME_MAXLEN + 1];	/* the newest claimant */
		int64_t	 seen;
	}		 hints[DEQUEUE_HINTS];
	/* Since when a claimant has kept claiming a task, direct-mapped by
	 * both: another claimant of the task does not end its streak. */
	struct claim_streak {
		char	 uuid[UUID_STRLEN + 1];
		char	 node[NAME_MAXLEN + 1];
		int64_t	 seen;
		int64_t	 first;
		int	 expired;	/* said: its claims count no more */
		int64_t	 newest_ts;	/* its newest stamp: a claimant
					 * claims again only after it lost,
					 * and its older claims are dead */
	}		 streaks[DEQUEUE_STREAKS];
	/* A streak ends a claimant's say after this: CLAIM_EXPIRES of
	 * the configured windows, or more (an honest winner slow to start
	 * its run shows it within a failure timeout).  Not the race's
	 * window, which a liar's stamps may stretch. */
	int64_t		 expire_ms;
};

struct node_config;

/* A claimant's streak ends after CLAIM_EXPIRES configured windows, or
 * a failure timeout if that is longer. */
void	claims_init(struct claims *, const struct node_config *);
/* window_ms below is the dequeue window the claims are kept by
 * (dequeue_claim_window_ms): claims are remembered CLAIM_WINDOWS of
 * it. */
static inline int64_t
claims_memory_ms(int64_t window_ms)
{
	return CLAIM_WINDOWS * window_ms;
}
/* 1 when this claim is the one that ends its claimant's streak on the
 * task: from now on its claims count no more (the caller says so). */
int	claims_remember(struct claims *, const char *uuid, const char *node,
	    int64_t ts, int64_t now, int64_t window_ms);
/* uuid is Ready again (a failed or lost run): the claims on it were for
 * the run before and are dead, and a helper must not pass them on. */
void	claims_forget(struct claims *, const char *uuid);
/* Someone proposed to take uuid lately (as far as the hints tell: a
 * collision may hide a claim; the race settles it). */
int	claims_taken(const struct claims *, const char *uuid, int64_t now,
	    int64_t window_ms);
/* How many remembered proposals for uuid precede ours, stamped ts by
 * node me. */
int	claims_beating(const struct claims *, const char *uuid, int64_t ts,
	    const char *me, int64_t now, int64_t window_ms);
/*
 * The earliest remembered proposal for uuid by another node than who
 * stamped before who's, stamped ts: 1 with its stamp in *first, else 0.
 * Strictly before: a helper passes the stamp on as its own claim, and an
 * equal stamp, which wins only by the names, would be passed back and
 * forth between two helpers for as long as the task stays Ready.
 */
int	claims_earlier(const struct claims *, const char *uuid, int64_t ts,
	    const char *who, int64_t now, int64_t window_ms, int64_t *first);

/*
 * Is me one of about CLAIMS_HELPERS nodes of a pool of pool picked for
 * this claim of this task (dequeue.c)?  Each node tells alone, from the
 * three names, so a lost claim or answer costs nothing more than a few
 * unicasts.
 */
#define CLAIMS_HELPERS	4	/* nodes, besides those who know it best,
				 * that tell a late claimant a task runs */
int	claims_helper(const char *uuid, const char *claimant, const char *me,
	    int pool);

/* How many tasks satisfying pred others proposed to take before a
 * proposal (ts, me), as the rule says: each task once, at most
 * CLAIMS_WHERE_MAX. */
#define CLAIMS_WHERE_MAX 64
int	claims_beating_where(const struct claims *, int64_t ts,
	    const char *me, int64_t now, int64_t window_ms,
	    int (*pred)(const char *uuid, void *), void *arg);

#endif
