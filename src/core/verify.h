/*
 * verify.h -- results checked by replicas (volery run --verify N).
 *
 * The task a user submits with --verify N never runs: N replicas of it
 * do, each on a different node (a node that runs or ran one takes no
 * other).  Each replica's end is confirmed like any task's; from their
 * confirmed ends every node derives the task's end alike -- Terminated
 * with the outputs all N agree on (the same outputs and the same
 * digest of stdout and output files), else Failed naming two that
 * differ -- and that derived end is proposed and certified like a
 * dependent's (cascade_end_dependents).  A record of the task's end
 * that does not follow from its replicas is no one's to write.
 */
#ifndef VOLERY_VERIFY_H
#define VOLERY_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct node;
struct task;

struct verify {
	uint64_t	disputes;	/* replicas found disagreeing */
	char		disputed[NAME_MAXLEN + 1];	/* the latest's runner */
};

/* t, a run of ours, ends with this digest ("" none): kept if t is a
 * replica, the digest --verify compares; -1 out of memory. */
int	verify_keep_digest(struct task *t, const char *digest);
/* Where a waiting verified task's replicas are, or which one t (a
 * replica not Ready) is, into why for node_task_waiting; 1 if said. */
int	verify_waiting(struct node *, const struct task *, char *why,
	    size_t whylen);
/* Replica i of the task of uuid `of`, if we hold it. */
struct task *verify_replica(const struct node *, const char *of, int i);
/* Replicas found disagreeing here, and the latest odd one's runner. */
uint64_t verify_disputes(const struct node *, const char **runner);
/* May t run here as far as --verify goes?  Not a verified task (its
 * replicas run), nor a replica one of whose siblings runs or ran here;
 * if not, why. */
int	verify_admissible(const struct node *, const struct task *,
	    char *why, size_t whylen);
/* Replica r's end took effect here: the end of the task it checks, if
 * every replica has ended (proposed if propose, else held as our
 * vote). */
void	verify_replica_settled(struct node *, const struct task *r,
	    int64_t now, int propose);
/* v, a verified task, is waiting: its end, if its replicas have all
 * ended already (a task learned after its replicas). */
void	verify_try(struct node *, struct task *v, int64_t now, int propose);
/* Does the end r states of a verified task follow from the replicas we
 * hold?  (state, outputs and reason; times are each node's own.) */
int	verify_agrees(struct node *, const struct task *r, int64_t now);

#endif
