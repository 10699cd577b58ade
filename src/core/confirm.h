/*
 * confirm.h -- one accepted end per task.  The node that ends a task
 * (its result, a failure, a cancel) proposes that end to every node;
 * each node votes for the first end it holds and never for another in
 * the same round; an end a majority of the members voted for is
 * confirmed, and only a confirmed end is final to clients and binds
 * dependents.  A split vote no end can win any more goes to a next
 * round, on the end the shared rule prefers (rules.h).
 */
#ifndef VOLERY_CONFIRM_H
#define VOLERY_CONFIRM_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "uuidmap.h"

struct node;
struct task;
struct peer_msg;
struct qvotes;

/* What we know of the votes on one task we hold an unconfirmed end of. */
struct tally {
	char		 uuid[UUID_STRLEN + 1];
	int		 round;		/* the votes counted are of this round */
	unsigned char	*voted;		/* by peer index: 0, or value slot + 1 */
	size_t		 nvoted;
	uint64_t	 values[8];	/* the ends voted for this round */
	int		 counts[8];
	int		 nvalues;
	struct task	*best_other;	/* the rule's pick of the others' ends */
	struct qvotes	*qv;		/* signed votes for ours (quorum.h) */
	int		 proposer;	/* we proposed it: we resend it */
	int		 asked;		/* those who know it best were asked */
	int64_t		 sent_ms;	/* last proposal sent, or when held */
	/* Its task's end_ms while Terminated and unconfirmed, else -1:
	 * kept by confirm_changed, so confirm_awaited skips ends long
	 * past without looking the task up. */
	int64_t		 end_ms;
};

struct confirm {
	struct tally	*v;
	size_t		 n, cap;
	struct uuidmap	 index;		/* uuid -> its tally in v */
	uint64_t	 gen;		/* bumped as a tally comes or goes */
	/* confirm_awaited's last answer, good while no task and no tally
	 * came, went or changed (it asks a dozen tasks, on every
	 * datagram an idle node with ready tasks hears). */
	int		 awaited_known;
	uint64_t	 awaited_gen, awaited_map_gen;
	int64_t		 awaited_at, awaited;
	int64_t		 latest_end;	/* no tally's end_ms is later */
};

void	confirm_free(struct node *);
/* t has just ended here (its state is final): propose the end to all. */
void	confirm_propose(struct node *, struct task *, int64_t now);
/* We proposed the end of round `round` of task uuid and count its
 * votes: it is not confirmed yet. */
int	confirm_proposing(struct node *, const char *uuid, int round);
/* We hold t's unconfirmed end (adopted, derived, restored): count the
 * votes on it, and resend it if its proposer falls silent.  Its tally
 * (NULL: out of memory). */
struct tally *confirm_hold(struct node *, const struct task *, int64_t now);
/* t's end is confirmed here, or t is no longer ended: stop counting. */
void	confirm_forget(struct node *, const char *uuid);
/* t changed (replicate_changed): its tally, if any, notes its end. */
void	confirm_changed(struct node *, const struct task *);
/*
 * A result that dependents wait on, its votes on their way: until when
 * our free slot waits for those dependents (-1: it need not).
 */
int64_t	confirm_awaited(struct node *, int64_t now);
/* A peer proposed an end (a STATE); t is our record after the merge:
 * answer with our vote. */
void	confirm_answer(struct node *, const char *peer, const struct task *t);
/* A peer's vote: its record of the task. */
void	confirm_recv_vote(struct node *, const struct peer_msg *,
	    int64_t now);
/* The peer at index idx left the table (peertab.c): the index will be
 * someone else's, so its votes go. */
void	confirm_forget_voter(struct node *, int idx);
/* Every progress interval: resend proposals, recount after membership
 * changes. */
void	confirm_housekeeping(struct node *, int64_t now);
/* Ends wait for votes: housekeeping asks again and counts. */
int	confirm_counting(const struct node *);

#endif
