/*
 * run.c -- this node's own runs.  A run starts when we win a task (or
 * take it alone), reports through its runner lines, and ends with its
 * process: with a result, or without one (retried up to max_attempts).
 * The volunteer policy suspends, resumes and vacates runs (recover.c:
 * after a restart, what we were running goes back to Ready).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "taskdesc.h"
#include "wire.h"

void
run_init(struct node *n)
{
	n->runs.volunteer = 1;
	n->runs.volunteer_state = "idle";
}

int
run_count(const struct node *n)
{
	return n->runs.running;
}

int
run_volunteering(const struct node *n)
{
	return n->runs.volunteer && !retry_quarantined(n);
}

const char *
run_volunteer_state(const struct node *n)
{
	return retry_quarantined(n) ? "quarantined" : n->runs.volunteer_state;
}

int
run_admissible(struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	if (t->held) {
		snprintf(why, whylen, "held: volery release %s", t->uuid);
		return 0;
	}
	if (!origin_runnable(n, t, why, whylen))
		return 0;
	if (!verify_admissible(n, t, why, whylen) ||
	    !tail_admissible(n, t, why, whylen))
		return 0;
	if (!capset_fits_here(n, t, why, whylen))
		return 0;
	/* A command, or a task of a known owner, runs as that owner: the
	 * shell answers whether it can (cmdcheck.h). */
	if (t->cmd != NULL)
		return cmdcheck_admissible(n, t, why, whylen);
	return taskdesc_admissible(n->descs, t, why, whylen) &&
	    (n->cfg.owner_min_uid < 0 || t->uid < n->cfg.owner_min_uid ||
	    cmdcheck_admissible(n, t, why, whylen));
}

int
run_fits_now(const struct node *n, const struct task *t)
{
	return (n->cfg.cores == 0 || n->runs.cores + task_cores(t) <=
	    n->cfg.cores) && (n->cfg.memory_mb == 0 || n->runs.memory_mb +
	    t->req_memory_mb <= n->cfg.memory_mb);
}

void
run_warn_not_here(struct node *n, const struct task *t, const char *from)
{
	char	why[REASON_MAXLEN + 1];

	/* The shell's answer comes later (cmdcheck.c says a "no"). */
	if (task_is_final(t->state) || t->cmd != NULL ||
	    (capset_fits_here(n, t, why, sizeof why) &&
	    taskdesc_admissible(n->descs, t, why, sizeof why)))
		return;
	outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} name{%s}%s%s is "
	    "never run here: %s", t->uuid, t->exec, from != NULL ? " from " :
	    "", from != NULL ? from : "", why);
}

void
run_start(struct node *n, struct task *t, int64_t now)
{
	readyq_remove(&n->ready, t);
	t->state = TASK_RUNNING;
	t->start_ms = now;
	t->progress = 0;
	t->suspended = t->throttled = 0;
	t->attempts++;
	t->run = RUN_ACTIVE;
	t->run_error[0] = '\0';
	t->run_final = 0;
	snprintf(t->running_on, sizeof t->running_on, "%s", n->cfg.name);
	n->runs.running++;
	n->runs.cores += task_cores(t);
	n->runs.memory_mb += t->req_memory_mb;
	node_log_task(n, VLOG_INFO, t, NULL);
	replicate_publish(n, t);
	outbox_task(&n->out, ACT_START, t->uuid);
}

void
run_stop(struct node *n, struct task *t)
{
	if (t->run == RUN_ACTIVE) {
		t->run = RUN_STOPPING;
		outbox_task(&n->out, ACT_STOP, t->uuid);
	}
}

void
run_stop_all(struct node *n, int64_t now)
{
	struct task	**v, *t;
	size_t		  k, count;

	v = runwatch_running(n, &count);
	for (k = 0; k < count; k++) {
		t = v[k];
		if (t->run != RUN_ACTIVE || t->state != TASK_RUNNING)
			continue;
		outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s} name{%s} "
		    "stopped with the node; back to Ready", t->uuid, t->exec);
		run_stop(n, t);
		cascade_make_ready(n, t, now);
		replicate_publish(n, t);
	}
	free(v);
}

void
node_set_volunteer(struct node *n, int on, const char *state, int64_t now)
{
	n->runs.volunteer = on != 0;
	n->runs.volunteer_state = state;
	placement_volunteer(n, on, now);
	node_settle(n, now);
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
	struct task	**v;
	size_t		  i, count;
	int		  k = 0;

	if (n->runs.running == 0)
		return 0;
	v = runwatch_running(n, &count);
	for (i = 0; i < count; i++)
		k += suspendable(n, v[i]);
	free(v);
	return k;
}

/*
 * The user came back (suspend), stayed (vacate) or left again.  A
 * suspended run keeps its slot and its PROGRESS heartbeats -- the node
 * is alive -- and every node shows it Suspended.  A vacated run is
 * stopped and its task goes back to Ready for a node that is idle; like
 * a clean stop, it does not count as a failure of the task.  Where the
 * admin wants it (<on_user_return>), a run is throttled instead: it
 * goes on, slowly, Running, and is never vacated for it.
 */
void
node_volunteer(struct node *n, const struct vol_decision *d, int64_t now)
{
	struct task	**v, *t;
	size_t		  k, count = 0;

	v = n->runs.running > 0 ? runwatch_running(n, &count) : NULL;
	for (k = 0; k < count && n->runs.running > 0; k++) {
		t = v[k];
		if (!suspendable(n, t))
			continue;
		if (d->vacate && t->suspended && t->cmd != NULL &&
		    (t->cmd->ckpt_signal > 0 || task_ckpt_auto(t))) {
			/* Its last checkpoint first: Ready once it is gone
			 * (node_runner_exit), its PROGRESS going on. */
			if (task_ckpt_auto(t))
				outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s}"
				    " name{%s} vacated from %s: suspended too "
				    "long; CRIU dumps its processes", t->uuid,
				    t->exec, n->cfg.name);
			else
				outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s}"
				    " name{%s} vacated from %s: suspended too "
				    "long; signal %d asks a last checkpoint",
				    t->uuid, t->exec, n->cfg.name,
				    t->cmd->ckpt_signal);
			t->vacating = 1;
			run_stop(n, t);
		} else if (d->vacate && t->suspended) {
			outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s} "
			    "name{%s} vacated from %s: suspended too long; "
			    "back to Ready", t->uuid, t->exec, n->cfg.name);
			run_stop(n, t);
			cascade_make_ready(n, t, now);
			replicate_publish(n, t);
		} else if (d->suspend != t->suspended) {
			t->suspended = d->suspend != 0;
			outbox_task(&n->out, t->suspended ? ACT_SUSPEND :
			    ACT_RESUME, t->uuid);
			node_log_task(n, VLOG_INFO, t, t->suspended ?
			    "the host's user is back" : "the host is idle again");
			replicate_publish(n, t);
		}
		if (t->run == RUN_ACTIVE && d->throttle != t->throttled) {
			t->throttled = d->throttle != 0;
			outbox_task(&n->out, t->throttled ? ACT_THROTTLE :
			    ACT_UNTHROTTLE, t->uuid);
			node_log_task(n, VLOG_INFO, t, t->throttled ? "the "
			    "host's user is back: throttled" : "the host is "
			    "idle again: full speed");
		}
	}
	free(v);
	order_set_window(n, d->order);
	avail_decided(n, d, now);
	node_set_volunteer(n, d->volunteer, d->name, now);
}

/* Our run of t failed: stop the process; its exit decides what follows
 * (final: the task fails, with no other attempt). */
static void
run_failed(struct node *n, struct task *t, const char *why, int final)
{
	char	*p;

	if (t->run_error[0] != '\0')
		return;
	snprintf(t->run_error, sizeof t->run_error, "%s", why);
	t->run_final = final;
	/* It becomes the reason clients read: one printable line. */
	for (p = t->run_error; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} name{%s} run failed "
	    "on %s: %s", t->uuid, t->exec, n->cfg.name, why);
	run_stop(n, t);
}

static void
terminated(struct node *n, struct task *t, const struct runner_msg *m,
    int64_t now)
{
	const struct taskdesc	*d = taskdesc_find(n->descs, t->exec);
	char			 why[REASON_MAXLEN + 1];
	char			 ms[64];
	int			 want = t->cmd != NULL ? t->cmd->nouts :
				    d != NULL ? d->noutputs : m->noutputs;

	if (m->noutputs != want) {
		snprintf(why, sizeof why, "reported %d output%s, its "
		    "%s declares %d", m->noutputs, m->noutputs == 1 ? "" :
		    "s", t->cmd != NULL ? "command" : "description", want);
		run_failed(n, t, why, 0);
		return;
	}
	if (task_set_outputs(t, m->outputs, m->noutputs) == -1 ||
	    verify_keep_digest(t, m->digest) == -1) {
		run_failed(n, t, "out of memory storing outputs", 0);
		return;
	}
	t->state = TASK_TERMINATED;
	t->progress = 100;
	t->end_ms = now;
	snprintf(ms, sizeof ms, "WaitingTimeOnQueue{%.3fs} makespan{%.3fs}",
	    (t->start_ms - t->ready_ms) / 1000.0,
	    (t->end_ms - t->submit_ms) / 1000.0);
	node_log_task(n, VLOG_INFO, t, ms);
	t->round = 1;
	confirm_propose(n, t, now);
}

void
node_runner_msg(struct node *n, const char *uuid, const struct runner_msg *m,
    int64_t now)
{
	struct task	*t = taskmap_find(&n->map, uuid);

	if (t == NULL || t->run == RUN_NONE)
		return;
	if (t->state != TASK_RUNNING || t->run != RUN_ACTIVE) {
		outbox_log(&n->out, VLOG_DEBUG, "Task UUID{%s} is %s; ignored "
		    "a line from its process", uuid,
		    task_state_name(t->state));
		return;
	}
	switch (m->type) {
	case RMSG_PROGRESS:
		if (m->percent != t->progress) {
			t->progress = m->percent;
			node_notify(n, t);
		}
		break;
	case RMSG_TERMINATED:
		terminated(n, t, m, now);
		break;
	case RMSG_CANCELLED:
		/* Not asked to: the task gave up by itself. */
		cascade_end_tree(n, t, TASK_CANCELLED, "cancelled-by-task",
		    now);
		break;
	case RMSG_ERROR:
		run_failed(n, t, m->message, m->final);
		break;
	case RMSG_CHECKPOINT:	/* the store's first: node_checkpoint_made */
		break;
	}
	node_settle(n, now);
}

/* Our run of t ended without a result: retry, or fail the task. */
static void
ended_without_result(struct node *n, struct task *t,
    const struct node_exit *e, int64_t now)
{
	char	why[REASON_MAXLEN + 1], reason[REASON_MAXLEN + 1];

	if (t->run_error[0] != '\0')
		snprintf(why, sizeof why, "%s", t->run_error);
	else if (e->signo != 0)
		snprintf(why, sizeof why, "killed by signal %d without "
		    "TERMINATED", e->signo);
	else
		snprintf(why, sizeof why, "exited with status %d without "
		    "TERMINATED", e->code);
	t->failures++;
	retry_failed(n, t, e->signo > 0 ? 256 + e->signo : e->code, now);
	if (t->run_final) {
		snprintf(reason, sizeof reason, "failed: %.150s", why);
		cascade_end_tree(n, t, TASK_FAILED, reason, now);
	} else if (t->failures >= n->cfg.max_attempts) {
		snprintf(reason, sizeof reason, "attempts-exhausted (%d): "
		    "%.120s", t->failures, why);
		cascade_end_tree(n, t, TASK_FAILED, reason, now);
	} else {
		outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} name{%s} "
		    "attempt %d of %d failed: %s; back to Ready, retried in "
		    "%.1f s", t->uuid, t->exec, t->failures,
		    n->cfg.max_attempts, why, (retry_not_before(t) - now) / 1e3);
		cascade_make_ready(n, t, now);
		replicate_publish(n, t);
	}
}

/* What our run of t cost, kept with the end it makes (sacct's). */
static void
account(struct task *t, const struct node_exit *e)
{
	if (e->cpu_ms < 0)
		return;
	t->exit_status = e->signo > 0 && e->signo <= 64 ? 256 + e->signo :
	    e->code >= 0 && e->code <= 255 ? e->code : -1;
	t->cpu_ms = e->cpu_ms;
	t->maxrss_kib = e->maxrss_kib;
}

void
node_runner_exit(struct node *n, const char *uuid, const struct node_exit *e,
    int64_t now)
{
	struct task	*t = taskmap_find(&n->map, uuid);

	if (t == NULL || t->run == RUN_NONE)
		return;
	if (t->run == RUN_ACTIVE && t->state == TASK_RUNNING)
		account(t, e);
	/* Its result counts now that the process is gone: what it
	 * reported, as if just said -- but a vacated run's end is not its
	 * task's (it ended as asked, with a last checkpoint). */
	if (e->result != NULL && !t->vacating) {
		node_runner_msg(n, uuid, e->result, now);
		if ((t = taskmap_find(&n->map, uuid)) == NULL ||
		    t->run == RUN_NONE)
			return;
	}
	ckpt_run_over(n, t);
	t->run = RUN_NONE;
	n->runs.running--;
	n->runs.cores -= task_cores(t);
	n->runs.memory_mb -= t->req_memory_mb;
	if (t->state == TASK_RUNNING && t->vacating) {
		t->vacating = 0;	/* vacated: not its failure */
		node_log_task(n, VLOG_INFO, t, "vacated; back to Ready");
		cascade_make_ready(n, t, now);
		replicate_publish(n, t);
	} else if (t->state == TASK_RUNNING &&
	    strcmp(t->running_on, n->cfg.name) == 0)
		ended_without_result(n, t, e, now);
	t->run_error[0] = '\0';
	t->run_final = 0;
	node_settle(n, now);
}
