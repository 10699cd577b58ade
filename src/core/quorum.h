/*
 * quorum.h -- a confirmed end carries its proof: the signed votes of a
 * majority of the members (DESIGN.md section 10).  Each voter signs
 * its vote on an end (the task, the round, what the end says, and how
 * many members it counts); the node that counts a majority for its end
 * keeps those signatures and sends them with the end, as its
 * certificate (qc= in the record).  A node that holds the end takes the
 * certificate on trust until the end matters -- it binds a dependent,
 * a client is told it, or a different end contends with it -- and
 * checks it then, once -- unless the end's own runner sent it, its run
 * known here (quorum.c).  A confirmed end whose certificate does not
 * hold is an unconfirmed one here, whoever said otherwise.
 *
 * Off (the sim's, the unit tests' default) when the node has no key.
 */
#ifndef VOLERY_QUORUM_H
#define VOLERY_QUORUM_H

#include <stdint.h>

#include "bounds.h"

struct node;
struct task;

struct quorum {
	uint64_t	made, checked;	/* signatures, for node_status */
	uint64_t	refused;	/* certificates that did not hold */
};

/* The votes kept for a certificate of one end (a tally's, confirm.c). */
struct qvotes {
	int		 n;
	struct qvote {
		char	 voter[NAME_MAXLEN + 1];
		char	 text[QC_VOTE_TEXT_MAX + 1];	/* "members/sig" */
	}		 v[QC_SIGNERS_MAX - 1];	/* and ours */
};

/* Sign our vote on t's end into t->vote (for the VOTE being encoded);
 * quorum_vote_done takes it off again. */
void	quorum_vote_on(struct node *, struct task *);
void	quorum_vote_done(struct task *);
/*
 * voter's vote r for our end t: 1 to count it (keys off, its signature
 * holds: kept in *qv for the certificate, or a certificate's worth is
 * kept already), 0 not (refused and counted, or a vote we cannot use).
 */
int	quorum_keep(struct node *, struct qvotes **qv, const struct task *t,
	    const char *voter, const struct task *r, int64_t now);
void	quorum_votes_free(struct qvotes **);
/* t's end is confirmed by our count: its certificate, from the votes
 * in qv (NULL: none needed) and ours.  t's certificate goes with an
 * end that is no longer confirmed (quorum_unconfirm). */
void	quorum_certify(struct node *, struct task *, const struct qvotes *);
void	quorum_unconfirm(struct task *);
/*
 * r came from a peer; we hold t (or NULL).  A confirmed end without a
 * certificate, or one that contends with a different end we hold and
 * whose certificate does not hold, comes in unconfirmed.  Ours is
 * checked too if it contends unchecked.
 */
void	quorum_admit(struct node *, const char *sender, struct task *r,
	    struct task *t, int64_t now);
/* t is held confirmed: 1 if its certificate holds (checked once); if
 * not, t is unconfirmed here from now on, and 0. */
int	quorum_settled(struct node *, struct task *, int64_t now);
/* The same, only where t's end has effects downstream (a task takes an
 * input from it). */
int	quorum_binds(struct node *, struct task *, int64_t now);
/* Add our counts to *made, *checked. */
void	quorum_counts(const struct node *, uint64_t *made,
	    uint64_t *checked);

#endif
