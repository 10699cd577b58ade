/*
 * node.c -- the scheduling state machine of one node.
 *
 * Task life: Submitted (inputs missing) -> Ready (queued) -> Running ->
 * Terminated | Cancelled | Failed.  Every change is journaled (ACT_JOURNAL)
 * and told to subscribers (ACT_NOTIFY); starting and stopping processes
 * are ACT_START and ACT_STOP; node_tick() is wanted at ACT_TIMER.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

static void	dispatch(struct node *, int64_t);
static void	rearm(struct node *, int64_t);

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
	n->descs = descs;
	taskmap_init(&n->map);
	readyq_init(&n->ready);
	outbox_init(&n->out);
	n->volunteer = 1;
	n->timer = -1;
}

void
node_free(struct node *n)
{
	readyq_free(&n->ready);
	taskmap_free(&n->map);
	outbox_free(&n->out);
}

struct task *
node_find(const struct node *n, const char *uuid)
{
	return taskmap_find(&n->map, uuid);
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
	    task_state_name(t->state), t->scheduled_by, where,
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
	outbox_task(&n->out, ACT_JOURNAL, t->uuid);
	notify(n, t);
}

static void
make_ready(struct node *n, struct task *t, int64_t now)
{
	t->state = TASK_READY;
	t->ready_ms = now;
	t->aged = 0;
	t->progress = 0;
	t->running_on[0] = '\0';
	if (readyq_push(&n->ready, t) == -1)
		outbox_log(&n->out, LOG_ERROR,
		    "out of memory queueing task %s", t->uuid);
}

/* Bind what the terminated task `from` produced to the tasks awaiting it. */
static void
bind_outputs(struct node *n, const struct task *from, int64_t now)
{
	struct task	*t;
	size_t		 it = 0;
	int		 i;

	while ((t = taskmap_next(&n->map, &it)) != NULL) {
		int bound = 0;
		if (t->state != TASK_SUBMITTED)
			continue;
		for (i = 0; i < t->ninputs; i++) {
			struct task_input *in = &t->inputs[i];
			if (in->dataset != NULL ||
			    strcmp(in->from, from->uuid) != 0 ||
			    in->nth > from->noutputs)
				continue;
			if (task_set_string(&in->dataset,
			    from->outputs[in->nth - 1]) == 0)
				bound = 1;
		}
		if (!bound)
			continue;
		if (task_inputs_bound(t)) {
			make_ready(n, t, now);
			log_task(n, LOG_INFO, t, NULL);
		}
		changed(n, t);
	}
}

/*
 * End task t in `state` (Cancelled or Failed) for `reason`, and every task
 * downstream of it with it.  A process of ours running one is stopped.
 */
static void
end_tree(struct node *n, struct task *t, enum task_state state,
    const char *reason, int64_t now)
{
	struct task	*d;
	size_t		 it = 0;
	char		 why[REASON_MAXLEN + 1];
	int		 i;

	if (t->state == TASK_READY)
		readyq_remove(&n->ready, t);
	t->state = state;
	t->end_ms = now;
	snprintf(t->reason, sizeof t->reason, "%s", reason);
	if (t->run == RUN_ACTIVE) {
		t->run = RUN_STOPPING;
		outbox_task(&n->out, ACT_STOP, t->uuid);
	}
	log_task(n, state == TASK_FAILED ? LOG_ERROR : LOG_WARNING, t,
	    reason);
	changed(n, t);

	snprintf(why, sizeof why, "upstream-%s:%s",
	    state == TASK_FAILED ? "failed" : "cancelled", t->uuid);
	while ((d = taskmap_next(&n->map, &it)) != NULL) {
		if (task_is_final(d->state))
			continue;
		for (i = 0; i < d->ninputs; i++) {
			if (strcmp(d->inputs[i].from, t->uuid) == 0) {
				end_tree(n, d, state, why, now);
				break;
			}
		}
	}
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

int
node_schedule(struct node *n, const struct node_schedule_req *req,
    const char *uuid, int64_t now, char *err, size_t errlen)
{
	const struct taskdesc	*d;
	struct task		*t;
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
	if (taskmap_insert(&n->map, t) == -1)
		goto nomem;
	if (task_inputs_bound(t))
		make_ready(n, t, now);
	log_task(n, LOG_INFO, t, NULL);
	changed(n, t);
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

/* Start t on this node. */
static void
start(struct node *n, struct task *t, int64_t now)
{
	readyq_remove(&n->ready, t);
	t->state = TASK_RUNNING;
	t->start_ms = now;
	t->progress = 0;
	t->attempts++;
	t->run = RUN_ACTIVE;
	t->run_error[0] = '\0';
	snprintf(t->running_on, sizeof t->running_on, "%s", n->cfg.name);
	n->running++;
	log_task(n, LOG_INFO, t, NULL);
	changed(n, t);
	outbox_task(&n->out, ACT_START, t->uuid);
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

static void
dispatch(struct node *n, int64_t now)
{
	struct task	*t;

	while (n->running < n->cfg.slots) {
		if (n->volunteer)
			t = readyq_at(&n->ready, 0);
		else if (n->running == 0)
			t = interactive_own(n);
		else
			t = NULL;
		if (t == NULL)
			break;
		start(n, t, now);
	}
}

/* Arm the tick for the next ageing promotion, if it moved. */
static void
rearm(struct node *n, int64_t now)
{
	int64_t	next = readyq_age(&n->ready, now, n->cfg.ageing_ms);

	if (next != n->timer) {
		n->timer = next;
		outbox_timer(&n->out, next);
	}
}

void
node_tick(struct node *n, int64_t now)
{
	n->timer = -1;
	rearm(n, now);
	dispatch(n, now);
}

void
node_set_volunteer(struct node *n, int on, int64_t now)
{
	n->volunteer = on != 0;
	dispatch(n, now);
	rearm(n, now);
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
	t->run = RUN_STOPPING;
	outbox_task(&n->out, ACT_STOP, t->uuid);
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
	changed(n, t);
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
			changed(n, t);
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
	if (t->submit_ms > n->last_submit)
		n->last_submit = t->submit_ms;
	return taskmap_insert(&n->map, t);
}

/*
 * After a restart nothing of ours runs: a task Running before the stop
 * is Ready again (the stop was not its fault, so no failure counts), and
 * bindings are re-derived from the terminated tasks.
 */
void
node_recover(struct node *n, int64_t now)
{
	struct task	**v;
	size_t		  i, count;

	if ((v = taskmap_sorted(&n->map, &count)) == NULL)
		return;
	for (i = 0; i < count; i++) {
		struct task *t = v[i];
		if (t->state == TASK_RUNNING) {
			outbox_log(&n->out, LOG_WARNING, "Task UUID{%s} "
			    "name{%s} was Running on %s when the node "
			    "stopped; back to Ready", t->uuid, t->exec,
			    t->running_on);
			make_ready(n, t, now);
			changed(n, t);
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
	dispatch(n, now);
	rearm(n, now);
}
