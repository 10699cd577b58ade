/*
 * node.c -- the scheduling state machine of one node.
 *
 * Task life: Submitted (inputs missing) -> Ready (queued) -> Running ->
 * Terminated | Cancelled | Failed.  Every change is journaled (ACT_JOURNAL)
 * and told to subscribers (ACT_NOTIFY).
 *
 * Changes come in two kinds.  An authoritative change is made by one node
 * (the scheduler, the dequeue winner, the node running the task, the one
 * cancelling it): it bumps the task's version and is broadcast as STATE.
 * A derived change follows from replicated ones (a task becomes Ready when
 * its upstream Terminated; a dependent of a Cancelled task is Cancelled):
 * every node derives it alike, so it is neither versioned nor sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "peer.h"
#include "rules.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

static void	dispatch(struct node *, int64_t);
static void	rearm(struct node *, int64_t);
static void	derive(struct node *, struct task *, int64_t);

void
node_init(struct node *n, const struct node_config *cfg,
    const struct taskdesc_set *descs)
{
	memset(n, 0, sizeof *n);
	n->cfg = *cfg;
	if (n->cfg.slots < 1)
		n->cfg.slots = 1;
	if (n->cfg.max_attempts < 1)
		n->cfg.max_attempts = 1;
	if (n->cfg.dequeue_window_ms < 1)
		n->cfg.dequeue_window_ms = 10;
	if (n->cfg.election_window_ms < 1)
		n->cfg.election_window_ms = 50;
	if (n->cfg.progress_interval_ms < 1)
		n->cfg.progress_interval_ms = 250;
	if (n->cfg.failure_timeout_ms < 1)
		n->cfg.failure_timeout_ms = 2000;
	if (n->cfg.node_timeout_ms < 1)
		n->cfg.node_timeout_ms = 2000;
	n->descs = descs;
	taskmap_init(&n->map);
	readyq_init(&n->ready);
	outbox_init(&n->out);
	n->volunteer = 1;
	n->volunteer_state = "idle";
	n->timer = -1;
	n->join_deadline = -1;
	n->next_housekeeping = -1;
	n->retry_at = -1;
	n->digest_dirty = 1;
}

void
node_free(struct node *n)
{
	readyq_free(&n->ready);
	taskmap_free(&n->map);
	outbox_free(&n->out);
	free(n->peers);
	free(n->peer_slots);
}

struct task *
node_find(const struct node *n, const char *uuid)
{
	return taskmap_find(&n->map, uuid);
}

int
node_is_master(const struct node *n)
{
	return strcmp(n->master, n->cfg.name) == 0;
}

/* One line per task event, in the style of thesis Listing 4.3. */
static void
log_task(struct node *n, enum log_level level, const struct task *t,
    const char *extra)
{
	char	where[NAME_MAXLEN + 32] = "";

	if (t->running_on[0] != '\0')
		snprintf(where, sizeof where, " %s{%s}",
		    t->state == TASK_RUNNING ? "RunningOn" : "ExecutedBy",
		    t->running_on);
	outbox_log(&n->out, level,
	    "Task(UUID{%s} name{%s} priority{%s} state{%s} ScheduledBy{%s}%s)%s%s",
	    t->uuid, t->exec, task_prio_name(t->prio),
	    task_shown_state(t), t->scheduled_by, where,
	    extra != NULL ? " " : "", extra != NULL ? extra : "");
}

/* Tell subscribers where t stands now (a snapshot, not a reference). */
static void
notify(struct node *n, const struct task *t)
{
	char	line[CLIENT_LINE_MAX];

	wire_progress_line(t, line, sizeof line);
	outbox_text(&n->out, ACT_NOTIFY, t->uuid, line);
}

/* The task changed: make it durable and tell its subscribers. */
static void
changed(struct node *n, const struct task *t)
{
	n->digest_dirty = 1;
	outbox_task(&n->out, ACT_JOURNAL, t->uuid);
	notify(n, t);
}

/* Send the whole task as `type` (STATE or ENQUEUE) to peer, or to all. */
static void
send_record(struct node *n, const char *peer, const char *type,
    const struct task *t)
{
	char	rec[DATAGRAM_MAX];

	if (wire_task_encode(t, rec, sizeof rec - 256) == -1) {
		outbox_log(&n->out, LOG_ERROR, "Task UUID{%s} does not fit a "
		    "datagram; not sent", t->uuid);
		return;
	}
	outbox_send(&n->out, peer, "%s %s", type, rec);
}

/* An authoritative change of ours: version it and tell every node. */
static void
publish(struct node *n, struct task *t)
{
	t->ver++;
	changed(n, t);
	send_record(n, NULL, "STATE", t);
}

/*
 * Back to the queue -- if its inputs are bound.  A task learned of out
 * of order (a heartbeat before its upstream's result) may lack some: it
 * waits Submitted for them.  Only here does a task enter the queue.
 */
static void
make_ready(struct node *n, struct task *t, int64_t now)
{
	readyq_remove(&n->ready, t);
	t->aged = 0;
	t->progress = 0;
	t->suspended = 0;
	t->running_on[0] = '\0';
	if (!task_inputs_bound(t)) {
		t->state = TASK_SUBMITTED;
		return;
	}
	t->state = TASK_READY;
	t->ready_ms = now;
	if (readyq_push(&n->ready, t) == -1)
		outbox_log(&n->out, LOG_ERROR,
		    "out of memory queueing task %s", t->uuid);
}

static void	redo(struct node *, struct task *, int64_t);

/*
 * Bind what the terminated task `from` produced to the tasks awaiting it.
 * A dependent bound to other outputs of `from` ran on a result that was
 * not kept (two runs in a partition): it is redone.
 */
static void
bind_outputs(struct node *n, const struct task *from, int64_t now)
{
	struct task	*t;
	size_t		 it = 0;
	int		 i;

	while ((t = taskmap_next(&n->map, &it)) != NULL) {
		int bound = 0, stale = 0;
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
			outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} "
			    "name{%s} ran on a result of %s that was not "
			    "kept; redone", t->uuid, t->exec, from->uuid);
			redo(n, t, now);
			continue;
		}
		if (t->state == TASK_SUBMITTED && task_inputs_bound(t)) {
			make_ready(n, t, now);
			log_task(n, LOG_INFO, t, NULL);
		}
		changed(n, t);
	}
}

/* Stop our process running t, if any. */
static void
stop_run(struct node *n, struct task *t)
{
	if (t->run == RUN_ACTIVE) {
		t->run = RUN_STOPPING;
		outbox_task(&n->out, ACT_STOP, t->uuid);
	}
}

/* The tasks downstream of t end as t did (derived on every node). */
static void
end_dependents(struct node *n, const struct task *t, int64_t now)
{
	struct task	*d;
	size_t		 it = 0;
	char		 why[REASON_MAXLEN + 1];
	int		 i;

	snprintf(why, sizeof why, "upstream-%s:%s",
	    t->state == TASK_FAILED ? "failed" : "cancelled", t->uuid);
	while ((d = taskmap_next(&n->map, &it)) != NULL) {
		if (task_is_final(d->state))
			continue;
		for (i = 0; i < d->ninputs; i++) {
			if (strcmp(d->inputs[i].from, t->uuid) != 0)
				continue;
			readyq_remove(&n->ready, d);
			d->state = t->state;
			d->end_ms = now;
			snprintf(d->reason, sizeof d->reason, "%s", why);
			stop_run(n, d);
			log_task(n, LOG_WARNING, d, why);
			changed(n, d);
			end_dependents(n, d, now);
			break;
		}
	}
}

/*
 * t must run again on its new inputs: its result, if any, is void, and
 * so is everything downstream that used it.  Authoritative (versioned
 * and sent): every node adopting the kept upstream result does the same,
 * and the merge rule lets a redo beat the records it replaces.
 */
static void
redo(struct node *n, struct task *t, int64_t now)
{
	struct task	*d;
	size_t		 it = 0;
	int		 i, had_result = t->state == TASK_TERMINATED;

	stop_run(n, t);
	task_set_outputs(t, NULL, 0);
	t->reason[0] = '\0';
	t->end_ms = -1;
	make_ready(n, t, now);
	publish(n, t);
	if (!had_result)
		return;
	while ((d = taskmap_next(&n->map, &it)) != NULL) {
		int used = 0;
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
			redo(n, d, now);
	}
}

/* End t in `state` (Cancelled or Failed) for `reason`, downstream too. */
static void
end_tree(struct node *n, struct task *t, enum task_state state,
    const char *reason, int64_t now)
{
	readyq_remove(&n->ready, t);
	t->state = state;
	t->end_ms = now;
	snprintf(t->reason, sizeof t->reason, "%s", reason);
	stop_run(n, t);
	log_task(n, state == TASK_FAILED ? LOG_ERROR : LOG_WARNING, t,
	    reason);
	publish(n, t);
	end_dependents(n, t, now);
}

/* Check a SCHEDULE request against descriptions and the map. */
static int
check_schedule(struct node *n, const struct node_schedule_req *req,
    const struct taskdesc **dp, char *err, size_t errlen)
{
	const struct taskdesc	*d;
	int			 i;

	if (!task_name_valid(req->exec)) {
		snprintf(err, errlen, "bad executable name '%.64s'",
		    req->exec);
		return -1;
	}
	if ((d = taskdesc_find(n->descs, req->exec)) == NULL) {
		snprintf(err, errlen, "unknown executable '%s'", req->exec);
		return -1;
	}
	if (req->nbind != d->ninputs) {
		snprintf(err, errlen,
		    "%s takes %d input%s (-a UUID N), got %d", d->name,
		    d->ninputs, d->ninputs == 1 ? "" : "s", req->nbind);
		return -1;
	}
	if (d->needs_path && req->path == NULL) {
		snprintf(err, errlen, "%s needs -p <path>", d->name);
		return -1;
	}
	for (i = 0; i < req->nbind; i++) {
		const struct node_binding *b = &req->bind[i];
		const struct taskdesc *ud;
		struct task *up = taskmap_find(&n->map, b->uuid);

		if (up == NULL) {
			snprintf(err, errlen, "input %d: unknown task %s",
			    i + 1, b->uuid);
			return -1;
		}
		if (up->state == TASK_CANCELLED || up->state == TASK_FAILED) {
			snprintf(err, errlen, "input %d: task %s is %s",
			    i + 1, b->uuid, task_state_name(up->state));
			return -1;
		}
		ud = taskdesc_find(n->descs, up->exec);
		if (ud == NULL && up->state != TASK_TERMINATED) {
			snprintf(err, errlen,
			    "input %d: task %s runs '%s', which has no "
			    "description", i + 1, b->uuid, up->exec);
			return -1;
		}
		if (b->nth < 1 || (ud != NULL && b->nth > ud->noutputs) ||
		    (up->state == TASK_TERMINATED && b->nth > up->noutputs)) {
			snprintf(err, errlen,
			    "input %d: %s has no output %d (it has %d)",
			    i + 1, up->exec, b->nth,
			    ud != NULL ? ud->noutputs : up->noutputs);
			return -1;
		}
		if (d->inputs[i].type[0] != '\0' &&
		    (ud == NULL || strcmp(d->inputs[i].type, ud->type) != 0)) {
			snprintf(err, errlen,
			    "input %d of %s must come from a %s task, "
			    "not %s", i + 1, d->name, d->inputs[i].type,
			    up->exec);
			return -1;
		}
		if (d->inputs[i].nth != 0 && d->inputs[i].nth != b->nth) {
			snprintf(err, errlen,
			    "input %d of %s must be output %d of %s, not %d",
			    i + 1, d->name, d->inputs[i].nth,
			    d->inputs[i].type, b->nth);
			return -1;
		}
	}
	*dp = d;
	return 0;
}

/* Start t on this node. */
static void
start(struct node *n, struct task *t, int64_t now)
{
	readyq_remove(&n->ready, t);
	t->state = TASK_RUNNING;
	t->start_ms = now;
	t->progress = 0;
	t->suspended = 0;
	t->attempts++;
	t->run = RUN_ACTIVE;
	t->run_error[0] = '\0';
	snprintf(t->running_on, sizeof t->running_on, "%s", n->cfg.name);
	n->running++;
	log_task(n, LOG_INFO, t, NULL);
	publish(n, t);
	outbox_task(&n->out, ACT_START, t->uuid);
}

int
node_schedule(struct node *n, const struct node_schedule_req *req,
    const char *uuid, int64_t now, char *err, size_t errlen)
{
	const struct taskdesc	*d;
	struct task		*t;
	char			 rec[DATAGRAM_MAX];
	int			 i;

	if (check_schedule(n, req, &d, err, errlen) == -1)
		return -1;
	if (!task_uuid_valid(uuid) || taskmap_find(&n->map, uuid) != NULL) {
		snprintf(err, errlen, "internal: bad new uuid");
		return -1;
	}
	if ((t = task_new(uuid, req->exec, req->nbind)) == NULL)
		goto nomem;
	t->prio = req->prio == PRIO_INTERACTIVE ? PRIO_INTERACTIVE : PRIO_LOW;
	t->state = TASK_SUBMITTED;
	/* Strictly increasing, so a burst keeps its FCFS order. */
	t->submit_ms = now > n->last_submit ? now : n->last_submit + 1;
	n->last_submit = t->submit_ms;
	snprintf(t->scheduled_by, sizeof t->scheduled_by, "%s", n->cfg.name);
	snprintf(t->client, sizeof t->client, "%s",
	    req->client != NULL ? req->client : "-");
	if (task_set_string(&t->path, req->path) == -1 ||
	    task_set_string(&t->params, req->params) == -1)
		goto nomem;
	for (i = 0; i < req->nbind; i++) {
		struct task *up = taskmap_find(&n->map, req->bind[i].uuid);
		memcpy(t->inputs[i].from, req->bind[i].uuid,
		    sizeof t->inputs[i].from);
		t->inputs[i].nth = req->bind[i].nth;
		if (up->state == TASK_TERMINATED &&
		    task_set_string(&t->inputs[i].dataset,
		    up->outputs[req->bind[i].nth - 1]) == -1)
			goto nomem;
	}
	if (wire_task_encode(t, rec, sizeof rec - 256) == -1) {
		task_free(t);
		snprintf(err, errlen, "task too large for a datagram");
		return -1;
	}
	if (taskmap_insert(&n->map, t) == -1)
		goto nomem;
	t->ver = 1;
	if (task_inputs_bound(t))
		make_ready(n, t, now);
	log_task(n, LOG_INFO, t, NULL);
	changed(n, t);
	send_record(n, NULL, "ENQUEUE", t);
	if (!node_is_master(n)) {
		t->unacked = 1;
		n->nunacked++;
	}
	dispatch(n, now);
	rearm(n, now);
	return 0;
nomem:
	task_free(t);
	snprintf(err, errlen, "out of memory");
	return -1;
}

int
node_cancel(struct node *n, const char *uuid, int64_t now, char *err,
    size_t errlen)
{
	struct task	*t;

	if ((t = taskmap_find(&n->map, uuid)) == NULL) {
		snprintf(err, errlen, "unknown task %s", uuid);
		return -1;
	}
	if (task_is_final(t->state)) {
		snprintf(err, errlen, "task %s is already %s", uuid,
		    task_state_name(t->state));
		return -1;
	}
	end_tree(n, t, TASK_CANCELLED, "cancelled-by-client", now);
	dispatch(n, now);
	rearm(n, now);
	return 0;
}

/*
 * Interactive rule (thesis 4.5): an interactive task scheduled here runs
 * here at once when nothing runs here, volunteer or not.
 */
static struct task *
interactive_own(struct node *n)
{
	size_t	k;

	for (k = 0; k < readyq_len(&n->ready); k++) {
		struct task *t = readyq_at(&n->ready, k);
		if (t->prio != PRIO_INTERACTIVE)
			break;
		if (strcmp(t->scheduled_by, n->cfg.name) == 0)
			return t;
	}
	return NULL;
}

static int
live_peers(const struct node *n)
{
	return n->nlive;
}

static int
takes_tasks(const char *volunteer)
{
	return strcmp(volunteer, "idle") == 0 ||
	    strcmp(volunteer, "dedicated") == 0 ||
	    strcmp(volunteer, "batch") == 0;
}

/*
 * Our place among the nodes that can take a task now (live, volunteering,
 * a free slot, as their heartbeats say), by name.  With k idle nodes and
 * q ready tasks, node i tries task i: no herd of proposals for the head
 * of the queue -- Figure 3.11's rank rule, applied before any race.
 */
static int
idle_rank(struct node *n)
{
	size_t	i;
	int	k = 0;

	if (!n->idle_dirty)
		return n->idle_rank;
	for (i = 0; i < n->npeers; i++) {
		const struct peer *p = &n->peers[i];
		/* A one-slot node that sends PROGRESS is busy, whatever its
		 * last heartbeat (seconds old, maybe) said. */
		if (p->alive && p->free > 0 && takes_tasks(p->volunteer) &&
		    !(p->slots == 1 && p->running_ms > 0) &&
		    strcmp(p->name, n->cfg.name) < 0)
			k++;
	}
	n->idle_rank = k;
	n->idle_dirty = 0;
	return k;
}

static size_t
hint_slot(const char *uuid)
{
	return task_hash(uuid) & (NODE_HINTS - 1);
}

/* Someone else proposed to dequeue uuid since `since` (as far as the
 * hints tell: a collision may hide a claim; the race settles it). */
static int
claimed(const struct node *n, const char *uuid, int64_t since)
{
	const struct claim_hint *h = &n->hints[hint_slot(uuid)];

	return h->seen >= since && strcmp(h->uuid, uuid) == 0;
}

static void
remember_claim(struct node *n, const char *uuid, const char *node,
    int64_t ts, int64_t now)
{
	struct claim		*c = &n->claims[n->nclaims++ % NODE_CLAIMS];
	struct claim_hint	*h = &n->hints[hint_slot(uuid)];

	snprintf(c->uuid, sizeof c->uuid, "%s", uuid);
	snprintf(c->node, sizeof c->node, "%s", node);
	c->ts = ts;
	c->seen = now;
	snprintf(h->uuid, sizeof h->uuid, "%s", uuid);
	h->seen = now;
}

/*
 * Take ready tasks while slots are free: alone, at once; with peers, by
 * the distributed dequeue (Algorithm 3.2), one race at a time.  After a
 * race lost to k others, the next try is for position k of the queue
 * (thesis Figure 3.11), so the losers do not collide again.
 */
static void
dispatch(struct node *n, int64_t now)
{
	struct task	*t;
	size_t		 k, len, place;
	int64_t		 memory = CLAIM_WINDOWS * n->cfg.dequeue_window_ms;
	int64_t		 wake;

	while (n->running < n->cfg.slots && !n->deq.active) {
		if (!n->volunteer) {
			/* Our own interactive task runs here, uncontested. */
			if (n->running == 0 && (t = interactive_own(n)) != NULL)
				start(n, t, now);
			return;
		}
		if ((len = readyq_len(&n->ready)) == 0)
			return;
		if (live_peers(n) == 0) {
			start(n, readyq_at(&n->ready, 0), now);
			continue;
		}
		/*
		 * From our place on, the first task nobody is claiming: our
		 * rank after a lost race, else our rank among idle nodes.  A
		 * task at position p before our place r that stays unclaimed
		 * is ours to try after r - p more windows: the next in line
		 * step in one at a time, never all at once.
		 */
		place = n->rank > 0 ? (size_t)n->rank : (size_t)idle_rank(n);
		n->rank = 0;
		for (t = NULL, k = place; k < len; k++) {
			t = readyq_at(&n->ready, k);
			if (!claimed(n, t->uuid, now - memory))
				break;
			t = NULL;
		}
		wake = -1;
		for (k = 0; t == NULL && k < len && k < place; k++) {
			struct task *w = readyq_at(&n->ready, k);
			int64_t due = w->ready_ms + memory +
			    (int64_t)(place - k) * n->cfg.dequeue_window_ms;
			if (claimed(n, w->uuid, now - memory))
				continue;
			if (now >= due)
				t = w;
			else if (wake < 0 || due < wake)
				wake = due;
		}
		if (t == NULL) {
			/* Nothing for us now: look again when one is due. */
			n->retry_at = wake >= 0 ? wake : now + memory;
			return;
		}
		n->deq.active = 1;
		memcpy(n->deq.uuid, t->uuid, sizeof n->deq.uuid);
		n->deq.ts = now;
		n->deq.deadline = now + n->cfg.dequeue_window_ms;
		n->deq.lost = 0;
		outbox_send(&n->out, NULL, "TRY_DEQUEUE %s %lld", t->uuid,
		    (long long)now);
		outbox_log(&n->out, LOG_DEBUG, "TRY_DEQUEUE UUID[%s] was "
		    "broadcast to all servers (position %zu of %zu, idle "
		    "rank %d of %d)", t->uuid, k, len, n->idle_rank,
		    n->nlive);
	}
}

/*
 * The dequeue window closed: we lose to every proposal for the same task
 * that precedes ours, whether it came in our window or shortly before it
 * (Algorithm 3.2 misses the latter); we run the task if none did and it
 * is still Ready.
 */
static void
dequeue_decide(struct node *n, int64_t now)
{
	struct task	*t = taskmap_find(&n->map, n->deq.uuid);
	int64_t		 since = n->deq.ts - CLAIM_WINDOWS *
			    n->cfg.dequeue_window_ms;
	int		 i;

	n->deq.active = 0;
	n->deq.lost = 0;
	for (i = 0; i < NODE_CLAIMS; i++) {
		const struct claim *c = &n->claims[i];
		if (c->seen >= since && strcmp(c->uuid, n->deq.uuid) == 0 &&
		    rules_dequeue_beats(c->ts, c->node, n->deq.ts,
		    n->cfg.name))
			n->deq.lost++;
	}
	if (n->deq.lost == 0 && t != NULL && t->state == TASK_READY &&
	    n->running < n->cfg.slots) {
		outbox_log(&n->out, LOG_DEBUG, "I won the race to dequeue "
		    "task UUID[%s]", t->uuid);
		start(n, t, now);
	} else if (n->deq.lost > 0) {
		n->rank = n->deq.lost;
		outbox_log(&n->out, LOG_DEBUG, "lost the race for task "
		    "UUID[%s] to %d node%s; next try at rank %d", n->deq.uuid,
		    n->deq.lost, n->deq.lost == 1 ? "" : "s", n->rank);
	}
}

void
node_set_volunteer(struct node *n, int on, const char *state, int64_t now)
{
	n->volunteer = on != 0;
	n->volunteer_state = state;
	dispatch(n, now);
	rearm(n, now);
}

/* The user's own interactive work is never suspended (thesis 4.5). */
static int
suspendable(const struct node *n, const struct task *t)
{
	return t->run == RUN_ACTIVE && t->state == TASK_RUNNING &&
	    !(t->prio == PRIO_INTERACTIVE &&
	    strcmp(t->scheduled_by, n->cfg.name) == 0);
}

int
node_suspendable(const struct node *n)
{
	const struct task	*t;
	size_t			 it = 0;
	int			 k = 0;

	if (n->running == 0)
		return 0;
	while ((t = taskmap_next(&n->map, &it)) != NULL)
		k += suspendable(n, t);
	return k;
}

/*
 * The user came back (suspend), stayed (vacate) or left again.  A
 * suspended run keeps its slot and its PROGRESS heartbeats -- the node
 * is alive -- and every node shows it Suspended.  A vacated run is
 * stopped and its task goes back to Ready for a node that is idle; like
 * a clean stop, it does not count as a failure of the task.
 */
void
node_volunteer(struct node *n, const struct vol_decision *d, int64_t now)
{
	struct task	*t;
	size_t		 it = 0;

	while (n->running > 0 && (t = taskmap_next(&n->map, &it)) != NULL) {
		if (!suspendable(n, t))
			continue;
		if (d->vacate && t->suspended) {
			outbox_log(&n->out, LOG_NORMAL, "Task UUID{%s} "
			    "name{%s} vacated from %s: suspended too long; "
			    "back to Ready", t->uuid, t->exec, n->cfg.name);
			stop_run(n, t);
			make_ready(n, t, now);
			publish(n, t);
		} else if (d->suspend != t->suspended) {
			t->suspended = d->suspend != 0;
			outbox_task(&n->out, t->suspended ? ACT_SUSPEND :
			    ACT_RESUME, t->uuid);
			log_task(n, LOG_INFO, t, t->suspended ?
			    "the host's user is back" : "the host is idle again");
			publish(n, t);
		}
	}
	node_set_volunteer(n, d->volunteer, d->name, now);
}

/* Our run of t failed: stop the process; its exit decides what follows. */
static void
run_failed(struct node *n, struct task *t, const char *why)
{
	if (t->run_error[0] != '\0')
		return;
	snprintf(t->run_error, sizeof t->run_error, "%s", why);
	outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} name{%s} run failed "
	    "on %s: %s", t->uuid, t->exec, n->cfg.name, why);
	stop_run(n, t);
}

static void
terminated(struct node *n, struct task *t, const struct runner_msg *m,
    int64_t now)
{
	const struct taskdesc	*d = taskdesc_find(n->descs, t->exec);
	char			 why[REASON_MAXLEN + 1];
	char			 ms[64];

	if (d != NULL && m->noutputs != d->noutputs) {
		snprintf(why, sizeof why, "reported %d output%s, its "
		    "description declares %d", m->noutputs,
		    m->noutputs == 1 ? "" : "s", d->noutputs);
		run_failed(n, t, why);
		return;
	}
	if (task_set_outputs(t, m->outputs, m->noutputs) == -1) {
		run_failed(n, t, "out of memory storing outputs");
		return;
	}
	t->state = TASK_TERMINATED;
	t->progress = 100;
	t->end_ms = now;
	snprintf(ms, sizeof ms, "WaitingTimeOnQueue{%.3fs} makespan{%.3fs}",
	    (t->start_ms - t->ready_ms) / 1000.0,
	    (t->end_ms - t->submit_ms) / 1000.0);
	log_task(n, LOG_INFO, t, ms);
	publish(n, t);
	bind_outputs(n, t, now);
}

void
node_runner_msg(struct node *n, const char *uuid, const struct runner_msg *m,
    int64_t now)
{
	struct task	*t = taskmap_find(&n->map, uuid);

	if (t == NULL || t->run == RUN_NONE)
		return;
	if (t->state != TASK_RUNNING || t->run != RUN_ACTIVE) {
		outbox_log(&n->out, LOG_DEBUG, "Task UUID{%s} is %s; ignored "
		    "a line from its process", uuid,
		    task_state_name(t->state));
		return;
	}
	switch (m->type) {
	case RMSG_PROGRESS:
		if (m->percent != t->progress) {
			t->progress = m->percent;
			notify(n, t);
		}
		break;
	case RMSG_TERMINATED:
		terminated(n, t, m, now);
		break;
	case RMSG_CANCELLED:
		/* Not asked to: the task gave up by itself. */
		end_tree(n, t, TASK_CANCELLED, "cancelled-by-task", now);
		break;
	case RMSG_ERROR:
		run_failed(n, t, m->message);
		break;
	}
	dispatch(n, now);
	rearm(n, now);
}

void
node_runner_exit(struct node *n, const char *uuid, const struct node_exit *e,
    int64_t now)
{
	struct task	*t = taskmap_find(&n->map, uuid);
	char		 why[REASON_MAXLEN + 1];

	if (t == NULL || t->run == RUN_NONE)
		return;
	t->run = RUN_NONE;
	n->running--;
	if (t->state == TASK_RUNNING &&
	    strcmp(t->running_on, n->cfg.name) == 0) {
		/* It ended without a result. */
		if (t->run_error[0] != '\0')
			snprintf(why, sizeof why, "%s", t->run_error);
		else if (e->signo != 0)
			snprintf(why, sizeof why, "killed by signal %d "
			    "without TERMINATED", e->signo);
		else
			snprintf(why, sizeof why, "exited with status %d "
			    "without TERMINATED", e->code);
		t->failures++;
		if (t->failures >= n->cfg.max_attempts) {
			char reason[REASON_MAXLEN + 1];
			snprintf(reason, sizeof reason, "attempts-exhausted "
			    "(%d): %.120s", t->failures, why);
			end_tree(n, t, TASK_FAILED, reason, now);
		} else {
			outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} "
			    "name{%s} attempt %d of %d failed: %s; back to "
			    "Ready", t->uuid, t->exec, t->failures,
			    n->cfg.max_attempts, why);
			make_ready(n, t, now);
			publish(n, t);
		}
	}
	t->run_error[0] = '\0';
	dispatch(n, now);
	rearm(n, now);
}

int
node_restore(struct node *n, struct task *t)
{
	struct task	*old = taskmap_remove(&n->map, t->uuid);

	task_free(old);
	t->run = RUN_NONE;
	n->digest_dirty = 1;
	if (t->submit_ms > n->last_submit)
		n->last_submit = t->submit_ms;
	return taskmap_insert(&n->map, t);
}

/*
 * After a restart nothing of ours runs: a task we were running is Ready
 * again (the stop was not its fault, so no failure counts), and bindings
 * are re-derived from the terminated tasks.  A task another node runs
 * stays Running there; if that node is gone, failure detection requeues
 * it.
 */
void
node_recover(struct node *n, int64_t now)
{
	struct task	**v;
	size_t		  i, count;

	if ((v = taskmap_sorted(&n->map, &count)) == NULL)
		return;
	n->digest_dirty = 1;
	for (i = 0; i < count; i++) {
		struct task *t = v[i];
		if (t->state == TASK_RUNNING &&
		    strcmp(t->running_on, n->cfg.name) == 0) {
			outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} "
			    "name{%s} was Running on %s when the node "
			    "stopped; back to Ready", t->uuid, t->exec,
			    t->running_on);
			make_ready(n, t, now);
			publish(n, t);
		} else if (t->state == TASK_RUNNING) {
			t->heard_ms = now;
		} else if (t->state == TASK_READY) {
			t->state = TASK_SUBMITTED;	/* re-queued below */
			if (task_inputs_bound(t))
				make_ready(n, t, t->ready_ms >= 0 ?
				    t->ready_ms : now);
		}
	}
	for (i = 0; i < count; i++)
		if (v[i]->state == TASK_TERMINATED)
			bind_outputs(n, v[i], now);
	free(v);
}

/* ---- the cluster ------------------------------------------------------ */

/*
 * XOR of a hash of (uuid, version, state, runner) over the map: equal
 * maps, equal digests.  Recomputed only after a change.
 */
uint64_t
node_digest(struct node *n)
{
	const struct task	*t;
	uint64_t		 d = 0;
	size_t			 it = 0;

	if (!n->digest_dirty)
		return n->digest;
	while ((t = taskmap_next(&n->map, &it)) != NULL) {
		uint64_t h = 1469598103934665603ULL;
		const char *p;
		for (p = t->uuid; *p != '\0'; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ t->ver) * 1099511628211ULL;
		h = (h ^ (uint64_t)t->state) * 1099511628211ULL;
		/* Two results differ by who produced them. */
		for (p = t->running_on; *p != '\0'; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		d ^= h;
	}
	n->digest = d;
	n->digest_dirty = 0;
	return d;
}

static struct peer *
peer_find(struct node *n, const char *name)
{
	size_t	i;

	if (n->peer_cap == 0)
		return NULL;
	for (i = task_hash(name) & (n->peer_cap - 1); n->peer_slots[i] >= 0;
	    i = (i + 1) & (n->peer_cap - 1))
		if (strcmp(n->peers[n->peer_slots[i]].name, name) == 0)
			return &n->peers[n->peer_slots[i]];
	return NULL;
}

/* Index peers[npeers - 1] by name (peers are never removed). */
static int
peer_index_add(struct node *n)
{
	size_t	i, k;

	if ((n->npeers + 1) * 2 > n->peer_cap) {
		size_t cap = n->peer_cap == 0 ? 64 : n->peer_cap * 2;
		int *slots = malloc(cap * sizeof *slots);
		if (slots == NULL)
			return -1;
		for (i = 0; i < cap; i++)
			slots[i] = -1;
		free(n->peer_slots);
		n->peer_slots = slots;
		n->peer_cap = cap;
		for (k = 0; k + 1 < n->npeers; k++) {
			for (i = task_hash(n->peers[k].name) & (cap - 1);
			    slots[i] >= 0; i = (i + 1) & (cap - 1))
				;
			slots[i] = (int)k;
		}
	}
	for (i = task_hash(n->peers[n->npeers - 1].name) & (n->peer_cap - 1);
	    n->peer_slots[i] >= 0; i = (i + 1) & (n->peer_cap - 1))
		;
	n->peer_slots[i] = (int)n->npeers - 1;
	return 0;
}

/* Anything from a peer: it is alive, and where it can be reached. */
static struct peer *
peer_heard(struct node *n, const struct peer_msg *m, const char *addr,
    int64_t now)
{
	struct peer	*p = peer_find(n, m->sender);

	if (p == NULL) {
		struct peer *v = realloc(n->peers, (n->npeers + 1) * sizeof *v);
		if (v == NULL)
			return NULL;
		n->peers = v;
		p = &n->peers[n->npeers++];
		memset(p, 0, sizeof *p);
		snprintf(p->name, sizeof p->name, "%s", m->sender);
		if (peer_index_add(n) == -1) {
			n->npeers--;
			return NULL;
		}
		snprintf(p->volunteer, sizeof p->volunteer, "?");
		snprintf(p->client_addr, sizeof p->client_addr, "-");
		p->incarnation = m->incarnation;
		outbox_log(&n->out, LOG_INFO, "node %s joined (at %s)",
		    m->sender, addr);
	} else if (p->incarnation != m->incarnation) {
		outbox_log(&n->out, LOG_INFO, "node %s restarted", p->name);
		p->incarnation = m->incarnation;
		p->master = 0;
	} else if (!p->alive)
		outbox_log(&n->out, LOG_INFO, "node %s is back", p->name);
	snprintf(p->addr, sizeof p->addr, "%s", addr);
	p->heard_ms = now;
	if (!p->alive) {
		n->nlive++;
		n->idle_dirty = 1;
		/* A newcomer knows nothing of us: tell it soon, not at our
		 * next heartbeat. */
		if (n->next_heartbeat > now + n->cfg.election_window_ms)
			n->next_heartbeat = now + n->cfg.election_window_ms;
	}
	p->alive = 1;
	if (strcmp(m->sender, n->master) == 0)
		n->master_heard = now;
	return p;
}

static struct candidacy
my_candidacy(const struct node *n)
{
	struct candidacy	c;

	c.name = n->cfg.name;
	c.reputation = n->cfg.reputation;
	c.map_size = taskmap_count(&n->map);
	c.timestamp = n->elect.ts;
	return c;
}

static void
start_election(struct node *n, int64_t now)
{
	struct candidacy	c;

	if (n->elect.active)
		return;
	n->elect.active = 1;
	n->elect.ts = now;
	n->elect.deadline = now + n->cfg.election_window_ms;
	n->elect.lost = 0;
	c = my_candidacy(n);
	outbox_send(&n->out, NULL, "TRY_TO_BE_MASTER %d %llx %lld",
	    c.reputation, (unsigned long long)c.map_size,
	    (long long)c.timestamp);
	outbox_log(&n->out, LOG_DEBUG, "master election: my candidacy "
	    "reputation %d, %llu tasks", c.reputation,
	    (unsigned long long)c.map_size);
}

static uint64_t
highest_epoch(const struct node *n)
{
	uint64_t	e = n->epoch;
	size_t		i;

	for (i = 0; i < n->npeers; i++)
		if (n->peers[i].epoch > e)
			e = n->peers[i].epoch;
	return e;
}

/* Ask the master for the whole state, and tell it ours. */
static void
sync_with_master(struct node *n, int64_t now)
{
	struct task	*t;
	size_t		 it = 0;

	if (n->master[0] == '\0' || node_is_master(n))
		return;
	n->last_sync = now;
	n->mismatches = 0;
	outbox_send(&n->out, n->master, "TASKS_TRANSFER");
	while ((t = taskmap_next(&n->map, &it)) != NULL)
		send_record(n, n->master, "ENQUEUE", t);
}

static void
follow_master(struct node *n, const char *name, uint64_t epoch, int64_t now)
{
	int	was_master = node_is_master(n);
	int	first = !n->joined;

	if (strcmp(n->master, name) == 0 && n->epoch == epoch)
		return;
	snprintf(n->master, sizeof n->master, "%s", name);
	n->epoch = epoch;
	n->master_heard = now;
	n->joined = 1;
	n->join_deadline = -1;
	n->elect.active = 0;
	if (was_master && !node_is_master(n))
		outbox_log(&n->out, LOG_WARNING, "stepping down: %s is master "
		    "of epoch %llu", name, (unsigned long long)epoch);
	else
		outbox_log(&n->out, LOG_INFO, "%s is the master (epoch %llu)",
		    name, (unsigned long long)epoch);
	if (node_is_master(n)) {
		struct task *t;
		size_t it = 0;
		while ((t = taskmap_next(&n->map, &it)) != NULL)
			t->unacked = 0;
		n->nunacked = 0;
	} else if (first || was_master)
		sync_with_master(n, now);	/* join: thesis 3.6.3 */
}

/* The election window closed (Algorithm 3.1). */
static void
election_decide(struct node *n, int64_t now)
{
	uint64_t	epoch;

	n->elect.active = 0;
	if (n->elect.lost) {
		/* Wait for the winner's NEW_MASTER; if none, elect again. */
		if (n->master[0] == '\0')
			n->join_deadline = now + 2 * n->cfg.election_window_ms;
		return;
	}
	epoch = highest_epoch(n) + 1;
	outbox_log(&n->out, LOG_NORMAL, "I won the master election (epoch "
	    "%llu)", (unsigned long long)epoch);
	follow_master(n, n->cfg.name, epoch, now);
	outbox_send(&n->out, NULL, "NEW_MASTER %llx",
	    (unsigned long long)epoch);
}

/* Should (name, epoch) replace the master we follow? */
static int
master_beats_current(struct node *n, const char *name, uint64_t epoch,
    int reputation)
{
	struct candidacy	a, b;
	struct peer		*cur;

	if (n->master[0] == '\0' || epoch > n->epoch)
		return 1;
	if (epoch < n->epoch || strcmp(name, n->master) == 0)
		return 0;
	/* Two masters of one epoch (lost datagrams): election order. */
	a.name = name;
	a.reputation = reputation;
	b.name = n->master;
	cur = peer_find(n, n->master);
	b.reputation = node_is_master(n) ? n->cfg.reputation :
	    cur != NULL ? cur->reputation : 0;
	a.map_size = b.map_size = 0;
	a.timestamp = b.timestamp = 0;
	return rules_candidacy_beats(&a, &b);
}

/*
 * A peer runs (or ran) a task we run too: the run with more progress
 * stays, ties to the lower name; the other stops.  Returns 1 if ours
 * stays.
 */
static int
resolve_duplicate(struct node *n, struct task *t, const char *other,
    int other_progress, int64_t now)
{
	if (rules_run_beats(t->progress, n->cfg.name, other_progress, other)) {
		/* Ours stays: make every node believe it. */
		outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} also runs on "
		    "%s (%d%%); ours (%d%%) stays", t->uuid, other,
		    other_progress, t->progress);
		publish(n, t);
		return 1;
	}
	outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} also runs on %s "
	    "(%d%%); ours (%d%%) stops", t->uuid, other, other_progress,
	    t->progress);
	n->stat_duplicates++;
	stop_run(n, t);
	snprintf(t->running_on, sizeof t->running_on, "%s", other);
	t->progress = other_progress;
	t->heard_ms = now;
	changed(n, t);
	return 0;
}

/* Replace t by record r (same uuid), keeping what is local to us. */
static struct task *
adopt(struct node *n, struct task *t, struct task *r)
{
	readyq_remove(&n->ready, t);
	taskmap_remove(&n->map, t->uuid);
	r->run = t->run;
	memcpy(r->run_error, t->run_error, sizeof r->run_error);
	r->heard_ms = t->heard_ms;
	r->unacked = t->unacked;
	r->replied_ms = t->replied_ms;
	r->aged = r->aged || t->aged;
	task_free(t);
	if (taskmap_insert(&n->map, r) == -1) {
		task_free(r);
		return NULL;
	}
	return r;
}

/* Fill t's missing inputs from upstream results we already have. */
static void
bind_inputs(struct node *n, struct task *t)
{
	int	i;

	for (i = 0; i < t->ninputs; i++) {
		struct task_input *in = &t->inputs[i];
		const struct task *up;
		if (in->dataset != NULL ||
		    (up = taskmap_find(&n->map, in->from)) == NULL ||
		    up->state != TASK_TERMINATED || in->nth > up->noutputs)
			continue;
		task_set_string(&in->dataset, up->outputs[in->nth - 1]);
	}
}

/* A task record took effect here: queue, bind, cascade, stop. */
static void
derive(struct node *n, struct task *t, int64_t now)
{
	readyq_remove(&n->ready, t);
	if (!task_is_final(t->state))
		bind_inputs(n, t);
	switch (t->state) {
	case TASK_SUBMITTED:
		if (task_inputs_bound(t))
			make_ready(n, t, now);
		break;
	case TASK_READY:
		if (!task_inputs_bound(t))
			t->state = TASK_SUBMITTED;
		else if (readyq_push(&n->ready, t) == -1)
			outbox_log(&n->out, LOG_ERROR, "out of memory");
		break;
	case TASK_RUNNING:
		t->heard_ms = now;
		if (strcmp(t->running_on, n->cfg.name) != 0)
			stop_run(n, t);
		break;
	case TASK_TERMINATED:
		if (strcmp(t->running_on, n->cfg.name) != 0)
			stop_run(n, t);
		bind_outputs(n, t, now);
		break;
	case TASK_CANCELLED:
	case TASK_FAILED:
		stop_run(n, t);
		end_dependents(n, t, now);
		break;
	}
	changed(n, t);
}

/*
 * Every bound input of t is an output of the result we keep upstream.  A
 * bound input whose upstream has no result here (redone, or its result
 * not seen yet) cannot be judged kept; an unknown upstream is not held
 * against it.
 */
static int
inputs_kept(const struct node *n, const struct task *t)
{
	int	i;

	for (i = 0; i < t->ninputs; i++) {
		const struct task_input *in = &t->inputs[i];
		const struct task *up;
		if (in->dataset == NULL ||
		    (up = taskmap_find(&n->map, in->from)) == NULL)
			continue;
		if (up->state != TASK_TERMINATED || in->nth > up->noutputs ||
		    strcmp(in->dataset, up->outputs[in->nth - 1]) != 0)
			return 0;
	}
	return 1;
}

/*
 * Does record r replace our t?  First, the one whose inputs agree with
 * the upstream results we keep (the other ran on a result that was not
 * kept: a partition); upstream results converge everywhere, so this
 * choice does too.  Then the rules every node shares.
 */
static int
record_wins(const struct node *n, const struct task *r, const struct task *t)
{
	int	rk = inputs_kept(n, r), tk = inputs_kept(n, t);

	if (rk != tk)
		return rk;
	return rules_record_wins(r, t);
}

/*
 * A record from a peer (ENQUEUE or STATE): merge it into our map.  The
 * record's uuid goes to uuid if it decoded ("" if not).
 */
static void
merge_record(struct node *n, const struct peer_msg *m, int64_t now,
    char *uuid)
{
	struct task	*r, *t;
	char		 err[128];

	if ((r = wire_task_decode(m->record, m->record_len, err,
	    sizeof err)) == NULL) {
		outbox_log(&n->out, LOG_DEBUG, "bad %s from %s: %s; dropped",
		    peer_type_name(m->type), m->sender, err);
		uuid[0] = '\0';
		return;
	}
	memcpy(uuid, r->uuid, UUID_STRLEN + 1);
	if (r->submit_ms > n->last_submit)
		n->last_submit = r->submit_ms;
	if ((t = taskmap_find(&n->map, r->uuid)) == NULL) {
		r->run = RUN_NONE;
		if (taskmap_insert(&n->map, r) == -1) {
			task_free(r);
			return;
		}
		log_task(n, LOG_INFO, r, NULL);
		derive(n, r, now);
		return;
	}
	/* Our own run of it decides for itself; an older claim is stale. */
	if (t->run == RUN_ACTIVE && t->state == TASK_RUNNING &&
	    !task_is_final(r->state)) {
		if (r->ver < t->ver) {
			task_free(r);
			return;
		}
		if (r->state == TASK_RUNNING &&
		    strcmp(r->running_on, n->cfg.name) != 0) {
			if (resolve_duplicate(n, t, r->running_on,
			    r->progress, now)) {
				t->ver = r->ver > t->ver ? r->ver : t->ver;
				n->digest_dirty = 1;
			}
			task_free(r);
			return;
		}
		if (r->ver >= t->ver) {
			/* Someone thinks our run died: it did not. */
			t->ver = r->ver;
			publish(n, t);
		}
		task_free(r);
		return;
	}
	if (!record_wins(n, r, t)) {
		/* The sender is behind: tell it what we have -- once per
		 * progress interval, so two nodes that disagree for a while
		 * (a healing partition) do not echo each other forever. */
		if (record_wins(n, t, r) && m->type == PEER_STATE &&
		    now - t->replied_ms >= n->cfg.progress_interval_ms) {
			t->replied_ms = now;
			send_record(n, m->sender, "STATE", t);
		}
		task_free(r);
		return;
	}
	if ((t = adopt(n, t, r)) == NULL)
		return;
	outbox_log(&n->out, LOG_DEBUG, "Task UUID{%s} State{%s} received "
	    "from {%s}", t->uuid, task_state_name(t->state), m->sender);
	if (t->state == TASK_TERMINATED || t->state == TASK_READY ||
	    task_is_final(t->state))
		log_task(n, LOG_INFO, t, NULL);
	derive(n, t, now);
}

static void
on_progress(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct task	*t = taskmap_find(&n->map, m->uuid);

	if (t == NULL) {
		if (n->master[0] != '\0' && !node_is_master(n))
			outbox_send(&n->out, n->master, "GET_TASK %s",
			    m->uuid);
		return;
	}
	if (task_is_final(t->state)) {
		/* The sender missed the end: tell it (it stops its run). */
		if (now - t->replied_ms >= n->cfg.progress_interval_ms) {
			t->replied_ms = now;
			send_record(n, m->sender, "STATE", t);
		}
		return;
	}
	if (t->run == RUN_ACTIVE && t->state == TASK_RUNNING) {
		if (m->ver >= t->ver)
			resolve_duplicate(n, t, m->sender, m->percent, now);
		return;
	}
	if (t->state != TASK_RUNNING ||
	    strcmp(t->running_on, m->sender) != 0) {
		/* We missed its STATE Running: believe the heartbeat. */
		readyq_remove(&n->ready, t);
		t->state = TASK_RUNNING;
		snprintf(t->running_on, sizeof t->running_on, "%s",
		    m->sender);
		if (m->ver > t->ver)
			t->ver = m->ver;
		t->heard_ms = now;
		t->progress = m->percent;
		changed(n, t);
		return;
	}
	t->heard_ms = now;
	t->suspect = 0;
	if (t->progress != m->percent) {
		t->progress = m->percent;
		notify(n, t);
	}
}

void
node_peer_msg(struct node *n, const struct peer_msg *m, const char *addr,
    int64_t now)
{
	struct peer		*p;
	struct task		*t;
	struct candidacy	 theirs, mine;
	char			 uuid[UUID_STRLEN + 1];
	size_t			 it = 0;

	if ((p = peer_heard(n, m, addr, now)) == NULL)
		return;
	switch (m->type) {
	case PEER_HEARTBEAT:
		p->master = m->master;
		p->epoch = m->master ? m->epoch : p->epoch;
		if (p->free != m->free || strcmp(p->volunteer,
		    m->volunteer) != 0)
			n->idle_dirty = 1;
		p->free = m->free;
		p->slots = m->slots;
		snprintf(p->volunteer, sizeof p->volunteer, "%s",
		    m->volunteer);
		p->reputation = m->reputation;
		p->ntasks = m->map_size;
		p->digest = m->digest;
		snprintf(p->client_addr, sizeof p->client_addr, "%.*s:%d",
		    (int)strcspn(addr, ":"), addr, m->client_port);
		if (!m->master && strcmp(m->sender, n->master) == 0) {
			/* Ours is not master any more (it restarted, or
			 * stepped down): who is? */
			outbox_log(&n->out, LOG_INFO, "%s is no longer the "
			    "master; asking who is", m->sender);
			n->master[0] = '\0';
			outbox_send(&n->out, NULL, "WHO_IS_MASTER");
			n->join_deadline = now + n->cfg.election_window_ms;
		}
		if (m->master) {
			if (master_beats_current(n, m->sender, m->epoch,
			    m->reputation))
				follow_master(n, m->sender, m->epoch, now);
			else if (node_is_master(n))	/* an old master */
				outbox_send(&n->out, m->sender,
				    "NEW_MASTER %llx",
				    (unsigned long long)n->epoch);
		}
		if (strcmp(m->sender, n->master) == 0 && !node_is_master(n)) {
			/* Anti-entropy: a lasting difference is a miss. */
			if (m->digest != node_digest(n))
				n->mismatches++;
			else
				n->mismatches = 0;
			if (n->mismatches >= 3 &&
			    now - n->last_sync >= n->cfg.node_timeout_ms) {
				outbox_log(&n->out, LOG_INFO, "state differs "
				    "from master %s's; synchronising",
				    n->master);
				sync_with_master(n, now);
			}
		}
		break;
	case PEER_WHO_IS_MASTER:
		if (node_is_master(n))
			outbox_send(&n->out, m->sender, "NEW_MASTER %llx",
			    (unsigned long long)n->epoch);
		break;
	case PEER_START_ELECTION:
		start_election(n, now);
		break;
	case PEER_TRY_TO_BE_MASTER:
		if (!n->elect.active && n->master[0] != '\0' &&
		    now - n->master_heard < n->cfg.node_timeout_ms) {
			/* We have a live master: say so. */
			if (node_is_master(n))
				outbox_send(&n->out, m->sender,
				    "NEW_MASTER %llx",
				    (unsigned long long)n->epoch);
			break;
		}
		start_election(n, now);
		theirs.name = m->sender;
		theirs.reputation = m->reputation;
		theirs.map_size = m->map_size;
		theirs.timestamp = m->timestamp;
		mine = my_candidacy(n);
		if (rules_candidacy_beats(&theirs, &mine))
			n->elect.lost = 1;
		break;
	case PEER_NEW_MASTER:
		if (master_beats_current(n, m->sender, m->epoch,
		    p->reputation))
			follow_master(n, m->sender, m->epoch, now);
		else if (node_is_master(n))
			outbox_send(&n->out, m->sender, "NEW_MASTER %llx",
			    (unsigned long long)n->epoch);
		break;
	case PEER_ENQUEUE:
		merge_record(n, m, now, uuid);
		if (node_is_master(n) && uuid[0] != '\0')
			outbox_send(&n->out, m->sender, "ENQUEUE_ACK %s", uuid);
		break;
	case PEER_ENQUEUE_ACK:
		if (strcmp(m->sender, n->master) == 0 &&
		    (t = taskmap_find(&n->map, m->uuid)) != NULL &&
		    t->unacked) {
			t->unacked = 0;
			n->nunacked--;
		}
		break;
	case PEER_TRY_DEQUEUE:
		remember_claim(n, m->uuid, m->sender, m->timestamp, now);
		/* It is not Ready: the one who knows says so at once, within
		 * the proposer's window (it missed a STATE). */
		if ((t = taskmap_find(&n->map, m->uuid)) != NULL &&
		    t->state != TASK_READY && t->state != TASK_SUBMITTED &&
		    (t->run == RUN_ACTIVE || (task_is_final(t->state) &&
		    node_is_master(n))) &&
		    now - t->replied_ms >= n->cfg.dequeue_window_ms) {
			t->replied_ms = now;
			send_record(n, m->sender, "STATE", t);
		}
		outbox_log(&n->out, LOG_DEBUG, "TRY_DEQUEUE UUID[%s] from %s "
		    "processed", m->uuid, m->sender);
		break;
	case PEER_STATE:
		/* The runner reporting the end of its run is free again. */
		if (p->running_ms > 0 && strstr(m->record, " st=Running ") ==
		    NULL) {
			char on[NAME_MAXLEN + 8];
			snprintf(on, sizeof on, " on=%s ", m->sender);
			if (strstr(m->record, on) != NULL) {
				p->running_ms = 0;
				n->idle_dirty = 1;
			}
		}
		merge_record(n, m, now, uuid);
		break;
	case PEER_PROGRESS:
		if (p->running_ms == 0)
			n->idle_dirty = 1;
		p->running_ms = now;
		on_progress(n, m, now);
		break;
	case PEER_GET_TASK:
		if ((t = taskmap_find(&n->map, m->uuid)) != NULL)
			send_record(n, m->sender, "ENQUEUE", t);
		break;
	case PEER_TASKS_TRANSFER:
		while ((t = taskmap_next(&n->map, &it)) != NULL)
			send_record(n, m->sender, "ENQUEUE", t);
		break;
	}
	dispatch(n, now);
	rearm(n, now);
}

/* Join the cluster: who is the master?  (thesis 3.6.3) */
void
node_start(struct node *n, int64_t now)
{
	outbox_send(&n->out, NULL, "WHO_IS_MASTER");
	n->join_deadline = now + n->cfg.election_window_ms;
	n->next_heartbeat = now;
	n->next_housekeeping = now;
	node_tick(n, now);
}

void
node_stop(struct node *n, int64_t now)
{
	struct task	*t;
	size_t		 it = 0;

	while ((t = taskmap_next(&n->map, &it)) != NULL) {
		if (t->run != RUN_ACTIVE || t->state != TASK_RUNNING)
			continue;
		outbox_log(&n->out, LOG_NORMAL, "Task UUID{%s} name{%s} "
		    "stopped with the node; back to Ready", t->uuid, t->exec);
		stop_run(n, t);
		make_ready(n, t, now);
		publish(n, t);
	}
	n->next_housekeeping = -1;
}

static void
heartbeat(struct node *n, int64_t now)
{
	outbox_send(&n->out, NULL, "HEARTBEAT %d %llx %d %d %s %d %llx %llx %d",
	    node_is_master(n), (unsigned long long)n->epoch,
	    n->cfg.slots - n->running, n->cfg.slots, n->volunteer_state,
	    n->cfg.reputation, (unsigned long long)taskmap_count(&n->map),
	    (unsigned long long)node_digest(n), n->cfg.client_port);
	n->next_heartbeat = now + n->cfg.node_timeout_ms / 4;
}

/*
 * Every progress interval: our runs' PROGRESS (the heartbeat of a task),
 * silent remote runs back to Ready, silent peers dead, unacknowledged
 * ENQUEUEs again.
 */
static void
housekeeping(struct node *n, int64_t now)
{
	struct task	*t;
	size_t		 it = 0, i;
	int		 resent = 0;

	while ((t = taskmap_next(&n->map, &it)) != NULL) {
		if (t->state != TASK_RUNNING)
			goto unacked;
		if (t->run == RUN_ACTIVE) {
			outbox_send(&n->out, NULL, "PROGRESS %s %d %llx",
			    t->uuid, t->progress, (unsigned long long)t->ver);
		} else if (strcmp(t->running_on, n->cfg.name) != 0 &&
		    now - t->heard_ms > n->cfg.failure_timeout_ms) {
			if (!t->suspect) {
				/* Silence may be a result we missed: ask the
				 * runner and the master, look again soon. */
				t->suspect = 1;
				t->heard_ms = now - n->cfg.failure_timeout_ms +
				    2 * n->cfg.progress_interval_ms;
				outbox_send(&n->out, t->running_on,
				    "GET_TASK %s", t->uuid);
				if (n->master[0] != '\0' &&
				    !node_is_master(n) &&
				    strcmp(n->master, t->running_on) != 0)
					outbox_send(&n->out, n->master,
					    "GET_TASK %s", t->uuid);
				goto unacked;
			}
			outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} "
			    "name{%s}: no progress from %s for %lld ms; back "
			    "to Ready", t->uuid, t->exec, t->running_on,
			    (long long)(now - t->heard_ms));
			t->suspect = 0;
			make_ready(n, t, now);
			publish(n, t);
		}
unacked:
		if (t->unacked && n->master[0] != '\0' && resent < 64) {
			send_record(n, NULL, "ENQUEUE", t);
			resent++;
		}
	}
	for (i = 0; i < n->npeers; i++) {
		struct peer *p = &n->peers[i];
		if (p->running_ms > 0 &&
		    now - p->running_ms > 2 * n->cfg.progress_interval_ms) {
			p->running_ms = 0;	/* its run is over */
			n->idle_dirty = 1;
		}
		if (p->alive && now - p->heard_ms > n->cfg.node_timeout_ms) {
			p->alive = 0;
			n->nlive--;
			n->idle_dirty = 1;
			outbox_log(&n->out, LOG_WARNING, "node %s silent for "
			    "%lld ms: dead", p->name,
			    (long long)(now - p->heard_ms));
		}
	}
	if (n->master[0] != '\0' && !node_is_master(n) &&
	    now - n->master_heard > n->cfg.node_timeout_ms) {
		outbox_log(&n->out, LOG_WARNING, "master %s is silent; "
		    "electing a new one", n->master);
		n->master[0] = '\0';
		outbox_send(&n->out, NULL, "START_NEW_MASTER_ELECTION");
		start_election(n, now);
	}
	n->next_housekeeping = now + n->cfg.progress_interval_ms;
}

static int64_t
earliest(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* Arm the tick for the earliest deadline, if it moved. */
static void
rearm(struct node *n, int64_t now)
{
	int64_t	next = readyq_age(&n->ready, now, n->cfg.ageing_ms);

	if (n->deq.active)
		next = earliest(next, n->deq.deadline);
	if (n->elect.active)
		next = earliest(next, n->elect.deadline);
	next = earliest(next, n->join_deadline);
	if (n->retry_at >= 0 && n->retry_at > now)
		next = earliest(next, n->retry_at);
	if (n->next_housekeeping >= 0) {
		next = earliest(next, n->next_housekeeping);
		next = earliest(next, n->next_heartbeat);
	}
	if (next != n->timer) {
		n->timer = next;
		outbox_timer(&n->out, next);
	}
}

void
node_tick(struct node *n, int64_t now)
{
	n->timer = -1;
	if (n->retry_at >= 0 && now >= n->retry_at)
		n->retry_at = -1;
	if (n->deq.active && now >= n->deq.deadline)
		dequeue_decide(n, now);
	if (n->elect.active && now >= n->elect.deadline)
		election_decide(n, now);
	if (n->join_deadline >= 0 && now >= n->join_deadline &&
	    n->master[0] == '\0') {
		n->join_deadline = -1;
		outbox_send(&n->out, NULL, "START_NEW_MASTER_ELECTION");
		start_election(n, now);
	}
	if (n->next_housekeeping >= 0 && now >= n->next_housekeeping)
		housekeeping(n, now);
	if (n->next_housekeeping >= 0 && now >= n->next_heartbeat)
		heartbeat(n, now);
	dispatch(n, now);
	rearm(n, now);
}
