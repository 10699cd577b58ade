/*
 * interactive.c -- the interactive rule (interactive.h).
 *
 * The node a person schedules an interactive task on starts it at once
 * when nothing runs there, without the dequeue race: its window was
 * most of the time from `volery run` to the task's first instruction on
 * an idle pool.  The other nodes keep off such a task for as long as
 * they would keep off a claim, if its node had every slot free when it
 * last told them: they hear it Running by then, or race for it as for
 * any other (its node could not start it: a missing program, a limit).
 * An array with a limit of runs at once is raced for, task by task, as
 * ever: only the race tells the nodes how many of it run.
 */
#include <string.h>

#include "nodestate.h"

struct task *
interactive_own(struct node *n, int64_t now)
{
	int	volunteering = run_volunteering(n);
	size_t	k;

	for (k = 0; k < readyq_len(&n->ready); k++) {
		struct task *t = readyq_at(&n->ready, k);
		int mine = t->prio == PRIO_INTERACTIVE && t->array_max == 0 &&
		    strcmp(t->scheduled_by, n->cfg.name) == 0;
		/* Raced for while we were busy: the winner's. */
		if (dequeue_taken(n, t->uuid, now) ||
		    interactive_theirs(n, t, now))
			continue;
		if (mine && dequeue_ours(n, t, now))
			return t;
		/* Volunteering, we take the queue in its order: a task
		 * before ours (promoted, older) is raced for first. */
		if (volunteering)
			return NULL;
		/* Past the interactive (or promoted) head of the queue,
		 * but in the longest-path order, which mixes them. */
		if (n->ready.order != ORDER_LRET &&
		    t->prio != PRIO_INTERACTIVE && !t->aged && !t->urgent)
			break;
	}
	return NULL;
}

int
interactive_theirs(struct node *n, const struct task *t, int64_t now)
{
	const struct peer	*p;

	if (t->prio != PRIO_INTERACTIVE || t->array_max > 0 ||
	    now - t->ready_ms > claims_memory_ms(n->cfg.dequeue_window_ms) ||
	    strcmp(t->scheduled_by, n->cfg.name) == 0)
		return 0;
	p = peertab_at(n, peertab_index(n, t->scheduled_by));
	return p != NULL && p->alive && p->slots > 0 && p->free == p->slots;
}
