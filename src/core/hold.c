/*
 * hold.c -- what a task's owner changes of a waiting task (node.h): held
 * (Ready, never taken until released, as Slurm's scontrol hold) and its
 * priority.  The change is a new version of the record, replicated as
 * any other: every node stops (or starts) taking it, and ranks it anew.
 */
#include <stdio.h>
#include <string.h>

#include "nodestate.h"
#include "wire.h"

/* A copy of t to change, or NULL with why. */
static struct task *
waiting_copy(struct node *n, const char *uuid, struct task **tp, char *err,
    size_t errlen)
{
	struct task	*t = taskmap_find(&n->map, uuid), *r;

	*tp = t;
	if (t == NULL) {
		snprintf(err, errlen, "no task %s", uuid);
		return NULL;
	}
	if (t->state != TASK_SUBMITTED && t->state != TASK_READY) {
		snprintf(err, errlen, "task %s is %s: only a waiting task "
		    "(Submitted or Ready) can be held, released or "
		    "reprioritised", uuid, task_state_name(t->state));
		return NULL;
	}
	if ((r = wire_task_copy(t, err, errlen)) == NULL) {
		snprintf(err, errlen, "task %s: its record cannot be copied",
		    uuid);
		return NULL;
	}
	return r;
}

/* A --verify task's replicas are held, released and ranked with it (a
 * replica running already is not: its error is not the request's). */
static void
replicas_too(struct node *n, const char *uuid, int hold, int prio,
    int64_t now)
{
	const struct task	*v = taskmap_find(&n->map, uuid);
	char			 ruuid[UUID_STRLEN + 1];
	char			 err[REASON_MAXLEN + 1];
	int			 i;

	for (i = 0; v != NULL && task_is_verified(v) && i < v->verify; i++) {
		task_replica_uuid(v->uuid, i, ruuid);
		if (hold >= 0)
			(void)node_hold(n, ruuid, hold, now, err, sizeof err);
		else
			(void)node_prio(n, ruuid, prio, now, err, sizeof err);
	}
}

int
node_hold(struct node *n, const char *uuid, int hold, int64_t now,
    char *err, size_t errlen)
{
	struct task	*t, *r;

	if ((r = waiting_copy(n, uuid, &t, err, errlen)) == NULL)
		return -1;
	if (t->held == hold) {
		task_free(r);
		return 0;	/* as asked already: nothing to tell */
	}
	r->held = hold;
	if ((t = replicate_local_change(n, t, r, now)) != NULL)
		outbox_log(&n->out, VLOG_INFO, "Task UUID{%s} name{%s} user{%s} "
		    "%s", t->uuid, t->exec, t->user, hold ? "held: it waits "
		    "until released" : "released");
	replicas_too(n, uuid, hold, 0, now);
	node_settle(n, now);
	return 0;
}

int
node_prio(struct node *n, const char *uuid, enum task_prio prio,
    int64_t now, char *err, size_t errlen)
{
	struct task	*t, *r;

	if ((r = waiting_copy(n, uuid, &t, err, errlen)) == NULL)
		return -1;
	if (t->prio == prio) {
		task_free(r);
		return 0;
	}
	r->prio = prio;
	if ((t = replicate_local_change(n, t, r, now)) != NULL)
		outbox_log(&n->out, VLOG_INFO, "Task UUID{%s} name{%s} user{%s} "
		    "priority now %s", t->uuid, t->exec, t->user,
		    task_prio_name(prio));
	replicas_too(n, uuid, -1, prio, now);
	node_settle(n, now);
	return 0;
}
