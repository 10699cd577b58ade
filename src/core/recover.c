/*
 * recover.c -- a node's map after a restart (node.h's node_restore and
 * node_recover): the journal's records taken back, then what they say
 * is derived again -- runs of ours requeued, bindings, votes, what
 * placement learned.
 */
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"

int
node_restore(struct node *n, struct task *t)
{
	struct task	*old = taskmap_remove(&n->map, t->uuid);
	int		 in;

	if (old != NULL)
		antientropy_gone(n, old);
	t->run = RUN_NONE;
	t->in_digest = 0;
	/* What we took is ours, signed or (before identities) not. */
	t->origin_ok = strcmp(t->scheduled_by, n->cfg.name) == 0;
	authorship_restored(n, t);
	schedule_saw(n, t->submit_ms);
	in = taskmap_insert(&n->map, t) == 0;
	order_replaced(n, old, in ? t : NULL);
	task_free(old);
	if (!in)
		return -1;
	antientropy_changed(n, t);
	retire_track(n, t);
	retire_note(n, t);
	runwatch_watch(n, t);
	return 0;
}

/*
 * After a restart nothing of ours runs: a task we were running is Ready
 * again (the stop was not its fault, so no failure counts), bindings
 * are re-derived from the confirmed results, ends not confirmed yet are
 * counted again, and placement learns again from the confirmed runs.  A
 * task another node runs stays Running there; if that node is gone,
 * failure detection requeues it.
 */
void
node_recover(struct node *n, int64_t now)
{
	struct task	**v;
	size_t		  i, count;
	int		  learned = 0;

	if ((v = taskmap_sorted(&n->map, &count)) == NULL)
		return;
	for (i = 0; i < count; i++) {
		struct task *t = v[i];
		if (t->state == TASK_RUNNING &&
		    strcmp(t->running_on, n->cfg.name) == 0) {
			outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} "
			    "name{%s} was Running on %s when the node "
			    "stopped; back to Ready", t->uuid, t->exec,
			    t->running_on);
			cascade_make_ready(n, t, now);
			replicate_publish(n, t);
		} else if (t->state == TASK_RUNNING) {
			t->heard_ms = now;
		} else if (t->state == TASK_READY) {
			t->state = TASK_SUBMITTED;	/* re-queued below */
			if (task_inputs_bound(t))
				cascade_make_ready(n, t, t->ready_ms >= 0 ?
				    t->ready_ms : now);
		}
	}
	for (i = 0; i < count; i++) {
		/* What the runs in the map say of our speed and the pool's:
		 * a desktop that reboots every day keeps what it learned. */
		if (v[i]->state == TASK_TERMINATED && v[i]->confirmed)
			learned |= placement_learn(n, v[i]);
		verify_try(n, v[i], now, 0);	/* its replicas ended */
		if (task_result_kept(v[i]))
			cascade_bind_outputs(n, v[i], now);
		else if (task_is_final(v[i]->state) && !v[i]->confirmed)
			confirm_hold(n, v[i], now);	/* votes again */
	}
	free(v);
	if (learned)
		order_rerank(n);
	antientropy_recount(n);		/* Ready ones were changed in place */
	retire_recover(n, now);
}
