/*
 * ckpt.h -- checkpoints kept by the pool (ckpt.c, issue 37).  A run
 * that writes a checkpoint makes it its task's newest (the record's
 * ckpt=, signed with the run), keeps it, and asks the live nodes
 * expected to stay longest to keep a copy (CKPT_TAKE); each fetches it
 * from the runner over the shell's authenticated connection, checks
 * its hash, and says so (CKPT_HELD), and the record lists it as a
 * holder.  A later run of the task, on any node, starts from the newest
 * checkpoint a holder still has (the shell's: restore.c).
 *
 * A newer checkpoint enters the record only once a node keeps a copy
 * (until then it is the run's own, task.h's ckpt_next), so that a
 * runner switched off between a checkpoint and its copies leaves the
 * older one, which its holders keep (the shell keeps the two newest).
 */
#ifndef VOLERY_CKPT_H
#define VOLERY_CKPT_H

#include <stdint.h>

struct node;
struct peer_msg;
struct task;

struct ckpt {
	uint64_t	made, kept, refused;	/* for node_status */
};

void	ckpt_recv_take(struct node *, const struct peer_msg *, int64_t now);
void	ckpt_recv_held(struct node *, const struct peer_msg *, int64_t now);
/* Housekeeping: our runs whose checkpoint has fewer copies than asked,
 * asked again (a CKPT_TAKE is a datagram, and may be lost). */
void	ckpt_housekeeping(struct node *, struct task *, int64_t now);
/* r replaces t: what t has of checkpoints that is local moves to r. */
void	ckpt_adopt(struct task *r, struct task *t);
/* Our run of t is over: a checkpoint without a copy yet enters its
 * record (we are alive, and serve it). */
void	ckpt_run_over(struct node *, struct task *t);
/*
 * r, a record of a task we hold as t, not final: may it change t's
 * checkpoint?  Only the node that made the checkpoint, the task's
 * runner, says what it is (a relay cannot swap it for one of its own);
 * otherwise r gets t's back.
 */
void	ckpt_admit(struct node *, const struct peer_msg *, struct task *r,
	    const struct task *t);

#endif
