/*
 * actions.c -- carry out the core's actions (actions.h).  The core is
 * pure: everything it wants done in the world passes through here.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "actions.h"
#include "ckpts.h"
#include "clock.h"
#include "cmdrun.h"
#include "history.h"
#include "idle.h"
#include "infiles.h"
#include "journal.h"
#include "log.h"
#include "members.h"
#include "node.h"
#include "notify.h"
#include "output.h"
#include "owner.h"
#include "peers.h"
#include "quarantine.h"
#include "runas.h"
#include "runner.h"
#include "secrets.h"
#include "stay.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"
#include "wol.h"

static struct {
	const struct actions_env *env;
	struct event		*tick_ev;	/* the core's timer */
	struct event		*commit_ev;	/* the journal's commit */
	struct event		*sync_ev;	/* records nobody waited on */
	int			 forgot;	/* a task left: compact */
	int			 carrying;	/* in actions_carry_out */
} act;

static void
arm_timer(int64_t when)
{
	struct timeval	tv;
	int64_t		delay_us;

	if (when < 0) {
		evtimer_del(act.tick_ev);
		return;
	}
	/* To the microsecond, from libevent's own idea of now: a delay in
	 * whole ms from a stale cached time fired just before `when`, and
	 * the node woke a second time 1 ms later. */
	event_base_update_cache_time(act.env->base);
	delay_us = (when * 1000000 - clock_node_ns() + 999) / 1000;
	if (delay_us < 0)
		delay_us = 0;
	tv.tv_sec = delay_us / 1000000;
	tv.tv_usec = delay_us % 1000000;
	evtimer_add(act.tick_ev, &tv);
}

static void
send_to_peer(const char *name, const char *body)
{
	const char	*addr = node_peer_addr(act.env->core, name, 0);

	if (addr != NULL)
		peers_unicast(name, addr, body);
}

/* A datagram held until the journal is on disk (outbox_peer_durable). */
struct held_send {
	char	peer[NAME_MAXLEN + 1];	/* "" broadcast */
	char	body[];
};

static void
held_send_cb(void *arg, int ok)
{
	struct held_send	*h = arg;

	if (!ok)
		log_msg(VLOG_WARNING, "journal not written: a vote or "
		    "confirmation not sent");
	else if (h->peer[0] == '\0')
		peers_broadcast(h->body);
	else
		send_to_peer(h->peer, h->body);
	free(h);
}

static void
send_when_durable(const struct action *a)
{
	size_t			 len = strlen(a->text) + 1;
	struct held_send	*h = malloc(sizeof *h + len);

	if (h == NULL) {
		log_msg(VLOG_ERROR, "out of memory holding a datagram");
		return;
	}
	snprintf(h->peer, sizeof h->peer, "%s",
	    a->type == ACT_UNICAST ? a->peer : "");
	memcpy(h->body, a->text, len);
	journal_after_commit(held_send_cb, h);
}

/* ACT_CHECK: can this host run the task uuid, as whom it would run
 * (owner.h): a command's directory and program, a described task's
 * program?  The answer goes back at once (the core takes it while we
 * carry out its actions). */
static void
check_command(const char *uuid)
{
	const struct task	*t = node_find(act.env->core, uuid);
	char			 prog[PATH_MAX], why[REASON_MAXLEN + 1] = "";
	struct runas		 ra;
	int			 ok = 0;

	if (t == NULL)
		return;
	if (owner_of(t, 0, &ra, why, sizeof why) == -1) {
		if (strncmp(why, "no account ", 11) == 0)
			node_owner_account(act.env->core, t->user, 1);
	} else {
		if (t->uid >= 0)
			node_owner_account(act.env->core, t->user, 0);
		if (t->cmd != NULL)
			ok = owner_may_command(t, act.env->commands, why,
			    sizeof why) &&
			    cmdrun_find(t, &ra, prog, sizeof prog, why,
			    sizeof why) == 0;
		else if (snprintf(prog, sizeof prog, "%s/%s",
		    act.env->tasks_dir, t->exec) < (int)sizeof prog)
			ok = runas_can_access(&ra, prog, X_OK, why,
			    sizeof why) == 0;
		runas_free(&ra);
	}
	if (ok)
		log_debug("Task UUID{%s}: its program is %s here", uuid, prog);
	node_command_checked(act.env->core, uuid, ok, why, clock_node_ms());
}

static int
start_run(const struct task *t, char *const *secrets, char *err,
    size_t errlen)
{
	const struct taskdesc	*d = taskdesc_find(act.env->descs, t->exec);

	if (t->cmd != NULL)
		return runner_start(t, NULL, secrets, err, errlen);
	if (d == NULL) {	/* run_admissible saw one; never removed */
		snprintf(err, errlen, "no description");
		return -1;
	}
	return runner_start(t, d, NULL, err, errlen);
}

/* A run that cannot start: the core hears of it as a failed run, with
 * why as its ERROR (final: no other attempt would start either). */
static void
start_failed_as(const struct task *t, const char *err, int final)
{
	struct runner_msg	m;
	struct node_exit	e = { -1, 0, -1, -1, NULL };
	char			uuid[UUID_STRLEN + 1];

	log_msg(VLOG_ERROR, "Task UUID{%s} name{%s} owner{%s} cannot start: "
	    "%s", t->uuid, t->exec, t->user, err);
	/* Its reason, not "exited with status -1". */
	memset(&m, 0, sizeof m);
	m.type = RMSG_ERROR;
	m.final = final;
	snprintf(m.buf, sizeof m.buf, "cannot start: %s", err);
	m.message = m.buf;
	e.result = &m;
	memcpy(uuid, t->uuid, sizeof uuid);
	node_runner_exit(act.env->core, uuid, &e, clock_node_ms());
}

static void
start_failed(const struct task *t, const char *err)
{
	start_failed_as(t, err, 0);
}

static void
start_or_fail(struct task *t)
{
	char	err[512];
	int	final, rc;

	/* Its newest checkpoint first, if another node keeps it. */
	if (ckpts_before_start(t))
		return;
	/* Its input files, from its taker unless we keep them. */
	if ((rc = infiles_before_start(t, err, sizeof err, &final)) != 0) {
		if (rc == -1)
			start_failed_as(t, err, final);
		return;
	}
	/* Its secret variables first: ours, or its taker's (secrets.h). */
	if (t->cmd != NULL && t->cmd->nsecrets > 0) {
		secrets_fetch(t);
		return;
	}
	if (start_run(t, NULL, err, sizeof err) == -1)
		start_failed(t, err);
	else
		ckpts_started(t);
}

/* Are kv the variables t declares secret, each once? */
static int
declared(const struct task *t, char *const *kv)
{
	int	i, j, n = 0;

	for (i = 0; kv[i] != NULL; i++, n++) {
		for (j = 0; j < t->cmd->nsecrets; j++)
			if (strncmp(kv[i], t->cmd->secrets[j],
			    strlen(t->cmd->secrets[j])) == 0 &&
			    kv[i][strlen(t->cmd->secrets[j])] == '=')
				break;
		if (j == t->cmd->nsecrets)
			return 0;
	}
	return n == t->cmd->nsecrets;
}

void
actions_secrets_ready(const char *uuid, char *const *kv, const char *why)
{
	struct task	*t = node_find(act.env->core, uuid);
	char		 err[256];

	/* Stopped, or handed on, while its secrets came. */
	if (t == NULL || t->run != RUN_ACTIVE || t->state != TASK_RUNNING ||
	    t->cmd == NULL)
		return;
	if (kv == NULL)
		snprintf(err, sizeof err, "%s", why);
	else if (!declared(t, kv))
		snprintf(err, sizeof err, "the secret variables its taker "
		    "gave are not the ones it declares");
	else if (start_run(t, kv, err, sizeof err) == 0) {
		ckpts_started(t);
		return;
	}
	start_failed(t, err);
	actions_carry_out();	/* returns at once if we are in it */
}

/* What its start waited for came (why NULL), or cannot come. */
static void
waited(const char *uuid, const char *why, int final)
{
	struct task		*t = node_find(act.env->core, uuid);
	struct node_exit	 e = { -1, SIGTERM, -1, -1, NULL };

	if (t == NULL || t->run == RUN_NONE)
		return;
	/* Stopped meanwhile: it never started. */
	if (t->run != RUN_ACTIVE || t->state != TASK_RUNNING)
		node_runner_exit(act.env->core, uuid, &e, clock_node_ms());
	else if (why == NULL)
		start_or_fail(t);
	else
		start_failed_as(t, why, final);
	actions_carry_out();
}

void
actions_start_again(const char *uuid)
{
	waited(uuid, NULL, 0);
}

void
actions_inputs_failed(const char *uuid, const char *why, int final)
{
	waited(uuid, why, final);
}

/* Its values leave us with its end (secrets.h). */
static void
forget_secrets(const struct task *t)
{
	if (t->cmd != NULL && t->cmd->nsecrets > 0 && task_is_final(t->state)
	    && t->confirmed && strcmp(t->scheduled_by,
	    node_name(act.env->core)) == 0)
		secrets_forget(t->uuid);
}

/* "<node> <how>": the magic packet for a sleeping node (wake.h). */
static void
wake_node(const char *text)
{
	char	err[256];
	const char *how = strchr(text, ' ');

	if (how != NULL && wol_send(how + 1, err, sizeof err) == 0)
		log_msg(VLOG_NORMAL, "woke node %.*s: magic packet for %s",
		    (int)(how - text), text, how + 1);
	else
		log_warnx("cannot wake node %s: %s", text, how != NULL ? err :
		    "no address");
}

void
actions_carry_out(void)
{
	struct outbox	*o = node_outbox(act.env->core);
	struct task	*t;
	size_t		 i, retired = 0;
	char		 uuid[UUID_STRLEN + 1];

	/* Called again from what it carries out (a listener that asked the
	 * core): the loop below goes on with what was added. */
	if (act.carrying)
		return;
	act.carrying = 1;
	for (i = 0; i < o->n; i++) {
		struct action *a = &o->v[i];
		/* The core may append while we go: re-read o->v each time. */
		switch (a->type) {
		case ACT_LOG:
			log_msg(a->level, "%s", a->text);
			break;
		case ACT_TIMER:
			arm_timer(a->when);
			break;
		case ACT_STOP:		/* a vacate asks a last checkpoint */
			t = node_find(act.env->core, a->uuid);
			if (t != NULL && t->vacating && task_ckpt_auto(t))
				runner_dump(a->uuid);
			else
				runner_stop(a->uuid, t != NULL && t->vacating &&
				    t->cmd != NULL ? t->cmd->ckpt_signal : 0);
			break;
		case ACT_SUSPEND:
		case ACT_RESUME:
			runner_suspend(a->uuid, a->type == ACT_SUSPEND, 0);
			break;
		case ACT_THROTTLE:
		case ACT_UNTHROTTLE:
			runner_suspend(a->uuid, a->type == ACT_THROTTLE, 1);
			break;
		case ACT_BROADCAST:
		case ACT_UNICAST:
			if (a->durable && !journal_durable())
				send_when_durable(a);
			else if (a->type == ACT_BROADCAST)
				peers_broadcast(a->text);
			else
				send_to_peer(a->peer, a->text);
			break;
		case ACT_MEMBERS:
			members_save(act.env->state_dir, a->text);
			break;
		case ACT_QUARANTINE:
			quarantine_save(act.env->state_dir, a->text);
			break;
		case ACT_STAY:
			stay_save(act.env->state_dir, a->text);
			break;
		case ACT_WAKE:
			wake_node(a->text);
			break;
		case ACT_SLEEP:
			idle_suspend_host();
			break;
		case ACT_RETIRE:
			history_append(a->uuid, a->text);
			output_forget(a->uuid);
			retired++;
			break;
		case ACT_CHECK:
			check_command(a->uuid);
			break;
		case ACT_CKPT_FETCH:
			ckpts_fetch(a->uuid, a->peer, a->text);
			break;
		case ACT_FORGET:
			act.forgot = 1;		/* compact the journal */
			break;
		case ACT_NOTIFY:	/* the line is a snapshot */
			/* A listener may add actions: o->v may move. */
			memcpy(uuid, a->uuid, sizeof uuid);
			notify_task(uuid, a->text);
			break;
		case ACT_JOURNAL:
		case ACT_START:
			if ((t = node_find(act.env->core, a->uuid)) == NULL)
				break;
			if (a->type == ACT_JOURNAL) {
				journal_append(t);
				forget_secrets(t);
				ckpts_journaled(t);
			}
			else
				start_or_fail(t);
			break;
		}
	}
	act.carrying = 0;
	outbox_clear(o);
	notify_settled();
	/* Retirement is rare (a batch a tick at most): sync it at once. */
	if (retired > 0)
		history_commit();
	if (journal_pending() || act.forgot)
		event_active(act.commit_ev, EV_TIMEOUT, 1);
}

/*
 * Compact the journal once it holds mostly superseded records, or
 * rewrite it whole after a failed commit dropped records.
 */
static void
maybe_compact(void)
{
	struct node_status	  st;
	struct task		**v;
	size_t			  n;

	node_status(act.env->core, &st);
	if (!journal_lost() && !act.forgot &&
	    journal_records() < 2 * st.ntasks + 4096)
		return;
	act.forgot = 0;
	if ((v = node_tasks_sorted(act.env->core, &n)) == NULL)
		return;
	journal_rewrite(v, n);
	free(v);
}

/*
 * Records someone waits on (a reply, a vote, a confirmation) are synced
 * at once, with all before them.  The rest -- the others' runs, ends
 * we need not vote on -- are written at once and synced with the next
 * that is waited on, or within SYNC_LATER_S: an fdatasync per record
 * heard was a tenth of what a trivial task cost the pool, and a record
 * nobody was told we hold is one the others still have.
 */
#define SYNC_LATER_S	1

static void
sync_cb(evutil_socket_t fd, short what, void *arg)
{
	journal_commit();
	maybe_compact();
}

static void
commit_cb(evutil_socket_t fd, short what, void *arg)
{
	struct timeval	later = { SYNC_LATER_S, 0 };

	if (journal_waited_on() || act.forgot || journal_lost()) {
		evtimer_del(act.sync_ev);
		sync_cb(fd, what, arg);
		return;
	}
	journal_write_unsynced();
	if (!evtimer_pending(act.sync_ev, NULL))
		evtimer_add(act.sync_ev, &later);
}

static void
tick_cb(evutil_socket_t fd, short what, void *arg)
{
	node_tick(act.env->core, clock_node_ms());
	actions_carry_out();
}

int
actions_init(const struct actions_env *env)
{
	act.env = env;
	act.forgot = 0;
	act.tick_ev = evtimer_new(env->base, tick_cb, NULL);
	act.commit_ev = event_new(env->base, -1, 0, commit_cb, NULL);
	act.sync_ev = evtimer_new(env->base, sync_cb, NULL);
	return act.tick_ev != NULL && act.commit_ev != NULL &&
	    act.sync_ev != NULL ? 0 : -1;
}

void
actions_shutdown(void)
{
	event_free(act.tick_ev);
	event_free(act.commit_ev);
	event_free(act.sync_ev);
	act.tick_ev = act.commit_ev = act.sync_ev = NULL;
}
