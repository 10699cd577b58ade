/*
 * arraycap.h -- at most array_max tasks of an array run at once (volery
 * run --array 1-100%10), and at most max_running_per_user of one user's
 * (node.h).  No state of its own: every node counts the same things
 * from its map and the claims it heard.
 */
#ifndef VOLERY_ARRAYCAP_H
#define VOLERY_ARRAYCAP_H

#include <stdint.h>

struct node;
struct task;

/*
 * Would t, proposed with stamp ts by this node, be one of its array (or
 * its user's) too many?  The group's tasks Running, and those the
 * others proposed to take before (ts, us), are counted against its
 * limit.  0 for a task of no group with a limit.
 */
int	arraycap_full(struct node *, const struct task *t, int64_t ts,
	    int64_t now);

/* We heard that run is Running: if more of its array run than its limit
 * (a claim came too late), our runs of it that started after its first
 * array_max stop and go back to Ready, as a duplicate run does -- not a
 * failure of the task. */
void	arraycap_heard(struct node *, const struct task *run, int64_t now);

#endif
