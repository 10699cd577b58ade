/*
 * retry.c -- retries that learn (retry.h).
 *
 * A task's record keeps its failed attempts (the node and its exit) and
 * when it may be tried again: each failure doubles the wait, from
 * retry_delay_ms, as Nomad's reschedule does.  A node that failed a
 * task leaves it to a live node that did not and can run it; where none
 * can, it tries again itself.  Only the failing node writes its
 * failure, so a node can lie about its own runs only.
 *
 * A node notes its own failed runs, and forgets them when a run of its
 * own succeeds.  When such a task's result is confirmed from another
 * node, the failure was this node's, not the task's; quarantine_after
 * of those in a row, of different tasks, within quarantine_window_ms,
 * and the node stops volunteering for quarantine_ms (or until an admin
 * clears it), saying why.  In a row: a pool whose tasks fail now and
 * then everywhere quarantines no one.  Never the last node that takes
 * tasks: a pool of black holes still runs its work, if slowly.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "nodestate.h"

void
retry_failed(struct node *n, struct task *t, int status, int64_t now)
{
	struct retry_failure	*f = &n->retry.own[n->retry.next];
	int64_t			 wait = n->cfg.retry_delay_ms;
	int			 k;

	if (task_tries_add(t, n->cfg.name, status) == -1)
		outbox_log(&n->out, VLOG_ERROR, "Task UUID{%s}: out of memory "
		    "noting its failed attempt", t->uuid);
	for (k = 1; k < t->failures && wait < RETRY_DELAY_MAX_MS; k++)
		wait *= 2;
	if (wait > RETRY_DELAY_MAX_MS)
		wait = RETRY_DELAY_MAX_MS;
	t->retry_ms = wait > 0 ? now + wait : 0;
	memcpy(f->uuid, t->uuid, sizeof f->uuid);
	f->at = now;
	f->proven = 0;
	n->retry.next = (n->retry.next + 1) % RETRY_OWN_MAX;
}

int64_t
retry_not_before(const struct task *t)
{
	return t->retry_ms > t->begin_ms ? t->retry_ms : t->begin_ms;
}

int
retry_leaves(struct node *n, const struct task *t)
{
	const struct peer	*p;
	size_t			 i, count;

	if (t->tries == NULL || !task_tries_have(t->tries, n->cfg.name))
		return 0;
	count = peertab_count(n);
	for (i = 0; i < count; i++)
		if ((p = peertab_at(n, (int)i)) != NULL &&
		    peerrun_takes_tasks(p) &&
		    !task_tries_have(t->tries, p->name) &&
		    capset_peer_can(n, p, t))
			return 1;
	return 0;
}

/* What the shell keeps of our quarantine across a restart. */
static void
tell(struct node *n)
{
	char	text[REASON_MAXLEN + 32] = "";

	if (n->retry.until > 0)
		snprintf(text, sizeof text, "%" PRId64 " %s", n->retry.until,
		    n->retry.why);
	outbox_text(&n->out, ACT_QUARANTINE, "", text);
}

/* Does another live node take tasks now? */
static int
others_take_tasks(struct node *n)
{
	const struct peer	*p;
	size_t			 i, count = peertab_count(n);

	for (i = 0; i < count; i++)
		if ((p = peertab_at(n, (int)i)) != NULL &&
		    peerrun_takes_tasks(p))
			return 1;
	return 0;
}

/* How many distinct tasks we failed since `since` that succeeded
 * elsewhere. */
static int
proven_since(const struct retry *r, int64_t since)
{
	int	i, j, count = 0;

	for (i = 0; i < RETRY_OWN_MAX; i++) {
		if (!r->own[i].proven || r->own[i].at < since)
			continue;
		for (j = 0; j < i; j++)		/* failed twice: once */
			if (r->own[j].proven && r->own[j].at >= since &&
			    strcmp(r->own[j].uuid, r->own[i].uuid) == 0)
				break;
		count += j == i;
	}
	return count;
}

void
retry_settled(struct node *n, const struct task *t, int64_t now)
{
	struct retry	*r = &n->retry;
	int		 i, count, found = 0;

	if (t->state != TASK_TERMINATED)
		return;
	if (strcmp(t->running_on, n->cfg.name) == 0) {
		/* Our run succeeded: what failed here before is forgiven. */
		memset(r->own, 0, sizeof r->own);
		return;
	}
	for (i = 0; i < RETRY_OWN_MAX; i++)
		if (r->own[i].uuid[0] != '\0' &&
		    strcmp(r->own[i].uuid, t->uuid) == 0 && !r->own[i].proven)
			r->own[i].proven = found = 1;
	if (!found || n->cfg.quarantine_after <= 0 || r->until > now)
		return;
	count = proven_since(r, now - n->cfg.quarantine_window_ms);
	if (count < n->cfg.quarantine_after || !others_take_tasks(n))
		return;
	r->until = now + n->cfg.quarantine_ms;
	snprintf(r->why, sizeof r->why, "%d tasks failed here and succeeded "
	    "elsewhere within %" PRId64 " s, the last %s", count,
	    n->cfg.quarantine_window_ms / 1000, t->uuid);
	outbox_log(&n->out, VLOG_ERROR, "Node %s quarantined: %s; it takes "
	    "no tasks for %" PRId64 " s or until an admin clears it (volery "
	    "nodes --clear %s)", n->cfg.name, r->why,
	    n->cfg.quarantine_ms / 1000, n->cfg.name);
	/* The peers should know at once not to count on us. */
	node_heartbeat_soon(n, now);
	tell(n);
}

int
retry_quarantined(const struct node *n)
{
	return n->retry.until > 0;
}

const char *
retry_quarantine_why(const struct node *n)
{
	return n->retry.until > 0 ? n->retry.why : "";
}

int64_t
retry_deadline(const struct node *n)
{
	return n->retry.until > 0 ? n->retry.until : -1;
}

/* The quarantine ends: the failures that led to it are forgiven. */
static void
lift(struct node *n, const char *how, int64_t now)
{
	int	i;

	n->retry.until = 0;
	n->retry.why[0] = '\0';
	for (i = 0; i < RETRY_OWN_MAX; i++)
		n->retry.own[i].proven = 0;
	outbox_log(&n->out, VLOG_WARNING, "Node %s quarantine lifted (%s); "
	    "it takes tasks again", n->cfg.name, how);
	node_heartbeat_soon(n, now);
	tell(n);
}

void
retry_tick(struct node *n, int64_t now)
{
	if (n->retry.until > 0 && now >= n->retry.until)
		lift(n, "its time is up", now);
}

int
node_quarantine_clear(struct node *n, int64_t now)
{
	if (n->retry.until == 0)
		return -1;
	lift(n, "cleared by an admin", now);
	node_settle(n, now);
	return 0;
}

int
node_quarantine_restore(struct node *n, const char *text, int64_t now)
{
	char		*end;
	long long	 until;

	/* What the shell kept: a time to come, no further than a whole
	 * quarantine from now, and a line of text. */
	if (text[0] < '1' || text[0] > '9' ||
	    (until = strtoll(text, &end, 10)) <= now ||
	    until > now + n->cfg.quarantine_ms || *end != ' ' ||
	    strlen(end + 1) > REASON_MAXLEN || !lex_printable(end + 1) ||
	    end[1] == '\0')
		return -1;
	n->retry.until = until;
	snprintf(n->retry.why, sizeof n->retry.why, "%s", end + 1);
	outbox_log(&n->out, VLOG_WARNING, "Node %s still quarantined after "
	    "its restart, until %lld: %s", n->cfg.name, until, n->retry.why);
	return 0;
}
