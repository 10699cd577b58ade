/*
 * cascade.c -- what follows from a task's change.  Most of it is derived
 * alike on every node from replicated records, so it is neither
 * versioned nor sent: a task becomes Ready once its inputs are bound,
 * a confirmed result binds the tasks awaiting it, a confirmed Cancelled
 * or Failed end ends its dependents (an end proposed, like any other:
 * confirm.c).  Only a confirmed end has effects downstream, so no
 * dependent ever runs on a result that is not kept.  A redo (a bound
 * result that was not kept: only after a partition longer than the
 * membership timeout) is authoritative, and the merge rule lets it win.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"

/*
 * Back to the queue -- if its inputs are bound.  A task learned of out
 * of order (a heartbeat before its upstream's result) may lack some: it
 * waits Submitted for them.  Only here does a task enter the queue.
 */
void
cascade_make_ready(struct node *n, struct task *t, int64_t now)
{
	readyq_remove(&n->ready, t);
	t->aged = 0;
	t->progress = 0;
	t->suspended = 0;
	t->running_on[0] = '\0';
	/* A verified task never runs: its replicas do (verify.c). */
	if (!task_inputs_bound(t) || task_is_verified(t)) {
		t->state = TASK_SUBMITTED;
		return;
	}
	if (t->state >= TASK_RUNNING)
		dequeue_requeued(n, t->uuid);	/* it ran, and will again */
	t->state = TASK_READY;
	t->ready_ms = now;
	if (order_queue(n, t) == -1)
		outbox_log(&n->out, VLOG_ERROR,
		    "out of memory queueing task %s", t->uuid);
}

/*
 * Bind what the terminated task `from` produced to the tasks awaiting it.
 * A dependent bound to other outputs of `from` ran on a result that was
 * not kept (two runs in a partition): it is redone.
 */
void
cascade_bind_outputs(struct node *n, const struct task *from, int64_t now)
{
	struct task	**deps, *t;
	size_t		  nd, k;
	int		  i;

	if (!task_result_kept(from))
		return;
	deps = taskmap_dependents(&n->map, from->uuid, &nd);
	for (k = 0; k < nd; k++) {
		int bound = 0, stale = 0;
		t = deps[k];
		/* Bind whatever its state: a Running copy learned from a
		 * heartbeat needs its inputs if it ever runs here. */
		if (t->state == TASK_CANCELLED || t->state == TASK_FAILED)
			continue;
		for (i = 0; i < t->ninputs; i++) {
			struct task_input *in = &t->inputs[i];
			const char *out;
			if (strcmp(in->from, from->uuid) != 0 ||
			    in->nth > from->noutputs)
				continue;
			out = from->outputs[in->nth - 1];
			if (in->dataset != NULL &&
			    strcmp(in->dataset, out) == 0)
				continue;
			stale |= in->dataset != NULL;
			if (task_set_string(&in->dataset, out) == 0)
				bound = 1;
		}
		if (!bound)
			continue;
		if (stale && t->state != TASK_SUBMITTED) {
			outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} "
			    "name{%s} ran on a result of %s that was not "
			    "kept; redone", t->uuid, t->exec, from->uuid);
			cascade_redo(n, t, now);
			continue;
		}
		if (t->state == TASK_SUBMITTED && task_inputs_bound(t)) {
			cascade_make_ready(n, t, now);
			node_log_task(n, VLOG_INFO, t, NULL);
		}
		verify_try(n, t, now, 0);	/* its replicas may have ended */
		replicate_changed(n, t);
	}
	free(deps);
}

/* Fill t's missing inputs from upstream results we already have. */
static void
bind_inputs(struct node *n, struct task *t, int64_t now)
{
	int	i;

	for (i = 0; i < t->ninputs; i++) {
		struct task_input *in = &t->inputs[i];
		struct task *up;
		if (in->dataset != NULL ||
		    (up = taskmap_find(&n->map, in->from)) == NULL ||
		    !task_result_kept(up) || in->nth > up->noutputs ||
		    !quorum_settled(n, up, now))
			continue;
		task_set_string(&in->dataset, up->outputs[in->nth - 1]);
	}
}

/*
 * t ends in state for why, an end every node derives alike from ends it
 * holds confirmed: proposed by the node that confirmed the last of those
 * (propose), held by every other as its vote.
 */
void
cascade_end_derived(struct node *n, struct task *t, enum task_state state,
    const char *why, int64_t now, int propose)
{
	readyq_remove(&n->ready, t);
	run_stop(n, t);
	t->state = state;
	t->end_ms = now;
	t->running_on[0] = '\0';
	t->round = 1;
	t->confirmed = 0;
	snprintf(t->reason, sizeof t->reason, "%s", why);
	node_log_task(n, state == TASK_TERMINATED ? VLOG_INFO : VLOG_WARNING,
	    t, why);
	if (propose)
		confirm_propose(n, t, now);
	else {
		replicate_changed(n, t);
		confirm_hold(n, t, now);
	}
}

/*
 * The tasks downstream of t end as t did (t's end is confirmed).  Every
 * node derives the same end, which is its vote; the node that confirmed
 * t's end proposes them (propose), so they are confirmed in turn, and
 * theirs end the next level.
 */
void
cascade_end_dependents(struct node *n, const struct task *t, int64_t now,
    int propose)
{
	struct task	**deps, *d;
	size_t		  nd, k;
	char		  why[REASON_MAXLEN + 1];
	int		  i;

	snprintf(why, sizeof why, "upstream-%s:%s",
	    t->state == TASK_FAILED ? "failed" : "cancelled", t->uuid);
	deps = taskmap_dependents(&n->map, t->uuid, &nd);
	for (k = 0; k < nd; k++) {
		d = deps[k];
		if (task_is_final(d->state))
			continue;
		for (i = 0; i < d->ninputs; i++) {
			if (strcmp(d->inputs[i].from, t->uuid) != 0)
				continue;
			cascade_end_derived(n, d, t->state, why, now, propose);
			break;
		}
	}
	free(deps);
}

/*
 * t must run again on its new inputs: its result, if any, is void, and
 * so is everything downstream that used it.  Authoritative (versioned
 * and sent): every node adopting the kept upstream result does the same,
 * and the merge rule lets a redo beat the records it replaces.
 */
void
cascade_redo(struct node *n, struct task *t, int64_t now)
{
	struct task	**deps, *d;
	size_t		  nd, k;
	int		  i, had_result = t->state == TASK_TERMINATED;

	run_stop(n, t);
	task_set_outputs(t, NULL, 0);
	t->reason[0] = '\0';
	t->end_ms = -1;
	cascade_make_ready(n, t, now);
	replicate_publish(n, t);
	if (!had_result)
		return;
	deps = taskmap_dependents(&n->map, t->uuid, &nd);
	for (k = 0; k < nd; k++) {
		int used = 0;
		d = deps[k];
		if (d->state == TASK_CANCELLED || d->state == TASK_FAILED)
			continue;
		for (i = 0; i < d->ninputs; i++) {
			if (strcmp(d->inputs[i].from, t->uuid) != 0 ||
			    d->inputs[i].dataset == NULL)
				continue;
			free(d->inputs[i].dataset);
			d->inputs[i].dataset = NULL;
			used = 1;
		}
		if (used)
			cascade_redo(n, d, now);
	}
	free(deps);
}

/*
 * End t in `state` (Cancelled or Failed) for `reason`: propose it; its
 * dependents end once it is confirmed.
 */
void
cascade_end_tree(struct node *n, struct task *t, enum task_state state,
    const char *reason, int64_t now)
{
	readyq_remove(&n->ready, t);
	t->state = state;
	t->end_ms = now;
	snprintf(t->reason, sizeof t->reason, "%s", reason);
	run_stop(n, t);
	node_log_task(n, state == TASK_FAILED ? VLOG_ERROR : VLOG_WARNING, t,
	    reason);
	confirm_propose(n, t, now);
}

/* t's end was confirmed (by our count if propose, or a peer's): its
 * effects downstream. */
void
cascade_settled(struct node *n, const struct task *t, int64_t now,
    int propose)
{
	if (t->deadline_ms > 0 && t->state == TASK_TERMINATED)
		outbox_log(&n->out, t->end_ms > t->deadline_ms ? VLOG_WARNING :
		    VLOG_INFO, "Task UUID{%s} name{%s} of %s %s its deadline "
		    "by %" PRId64 " s", t->uuid, t->exec, t->user[0] != '\0' ?
		    t->user : "-", t->end_ms > t->deadline_ms ? "missed" : "met",
		    (t->end_ms > t->deadline_ms ? t->end_ms - t->deadline_ms :
		    t->deadline_ms - t->end_ms) / 1000);
	if (t->state == TASK_TERMINATED) {
		if (placement_learn(n, t))
			order_rerank(n);
		retry_settled(n, t, now);
		cascade_bind_outputs(n, t, now);
	} else
		cascade_end_dependents(n, t, now, propose);
	if (task_is_replica(t))
		verify_replica_settled(n, t, now, propose);
	tail_settled(n, t, now, propose);
}

/* A task record took effect here: queue, bind, cascade, stop. */
void
cascade_derive(struct node *n, struct task *t, int64_t now)
{
	readyq_remove(&n->ready, t);
	if (!task_is_final(t->state))
		bind_inputs(n, t, now);
	switch (t->state) {
	case TASK_SUBMITTED:
		if (task_is_verified(t))
			verify_try(n, t, now, 0);
		else if (task_inputs_bound(t))
			cascade_make_ready(n, t, now);
		break;
	case TASK_READY:
		if (!task_inputs_bound(t) || task_is_verified(t))
			t->state = TASK_SUBMITTED;
		else if (order_queue(n, t) == -1)
			outbox_log(&n->out, VLOG_ERROR, "out of memory");
		break;
	case TASK_RUNNING:
		t->heard_ms = now;
		if (strcmp(t->running_on, n->cfg.name) != 0)
			run_stop(n, t);
		break;
	case TASK_TERMINATED:
	case TASK_CANCELLED:
	case TASK_FAILED:
		if (t->state != TASK_TERMINATED ||
		    strcmp(t->running_on, n->cfg.name) != 0)
			run_stop(n, t);
		if (t->confirmed && quorum_binds(n, t, now)) {
			confirm_forget(n, t->uuid);
			cascade_settled(n, t, now, 0);
		} else
			confirm_hold(n, t, now);
		break;
	}
	replicate_changed(n, t);
}
