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

/* Ours, interactive, not an array with a limit, not claimed by
 * another while we were busy (the winner's then), runnable here. */
static int
mine(struct node *n, const struct task *t, int64_t now)
{
	return t->prio == PRIO_INTERACTIVE && t->array_max == 0 &&
	    strcmp(t->scheduled_by, n->cfg.name) == 0 &&
	    !dequeue_taken(n, t->uuid, now) && dequeue_ours(n, t, now);
}

struct task *
interactive_own(struct node *n, int64_t now)
{
	struct task	*t;
	size_t		 k;

	/* Volunteering, we take the queue in its order: ours at its head
	 * starts at once; behind another task (promoted, older) it is
	 * raced for (a look at the head: this comes after every event). */
	if (run_volunteering(n))
		return (t = readyq_at(&n->ready, 0)) != NULL &&
		    mine(n, t, now) ? t : NULL;
	for (k = 0; k < readyq_len(&n->ready); k++) {
		t = readyq_at(&n->ready, k);
		if (mine(n, t, now))
			return t;
		/* Past the interactive (or promoted) head of the queue,
		 * but in the longest-path order, which mixes them. */
		if (n->ready.order != ORDER_LRET &&
		    n->ready.order != ORDER_SRET &&
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
	    now - t->ready_ms > claims_memory_ms(
	    dequeue_claim_window_ms(n, now)) ||
	    strcmp(t->scheduled_by, n->cfg.name) == 0)
		return 0;
	p = peertab_at(n, peertab_index(n, t->scheduled_by));
	return p != NULL && p->alive && p->slots > 0 && p->free == p->slots;
}
