/*
 * node.c -- the scheduling state machine of one node: its entry points,
 * the receive function that dispatches a peer message to the
 * sub-protocol it belongs to, and the tick.
 *
 * Task life: Submitted (inputs missing) -> Ready (queued) -> Running ->
 * Terminated | Cancelled | Failed.  Every change is journaled (ACT_JOURNAL)
 * and told to subscribers (ACT_NOTIFY).
 *
 * Changes come in two kinds.  An authoritative change is made by one node
 * (scheduler, dequeue winner, runner, canceller): it bumps the task's
 * version and is broadcast as STATE.  A derived change follows from
 * replicated ones (Ready when the upstream Terminated; Cancelled with a
 * Cancelled upstream): every node derives it alike (cascade.c), neither
 * versioned nor sent.  nodestate.h lists the sub-protocols.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"
#include "wire.h"

/* The ready queue's keep() (readyq.h): what a node has is its
 * configuration's, fixed for its life, as what a task needs is fixed at
 * its submission. */
static int
fits_here(const void *n, const struct task *t)
{
	return capset_fits_here(n, t, NULL, 0);
}

struct node *
node_new(const struct node_config *cfg, const struct taskdesc_set *descs)
{
	struct node	*n;

	if (!node_config_valid(cfg) || (n = calloc(1, sizeof *n)) == NULL)
		return NULL;
	n->cfg = *cfg;
	n->descs = descs;
	taskmap_init(&n->map);
	readyq_init(&n->ready);
	readyq_set_order(&n->ready, cfg->order);
	readyq_set_keep(&n->ready, fits_here, n);
	outbox_init(&n->out);
	n->out.log_min = cfg->log_min;
	n->tick.timer = -1;
	n->tick.next_housekeeping = -1;
	run_init(n);
	election_init(n);
	dequeue_init(n);
	antientropy_init(n);
	placement_init(n);
	cmdcheck_init(n);
	origin_init(n);
	return n;
}

void
node_free(struct node *n)
{
	if (n == NULL)
		return;
	readyq_free(&n->ready);
	order_free(n);
	taskmap_free(&n->map);
	outbox_free(&n->out);
	peertab_free(n);
	confirm_free(n);
	runwatch_free(n);
	retire_free(n);
	antientropy_free(n);
	estimate_free(n);
	cmdcheck_free(n);
	capset_free(n);
	origin_free(n);
	authorship_free(n);
	wake_free(n);
	free(n);
}

/* ---- views ------------------------------------------------------------ */

struct task *
node_find(const struct node *n, const char *uuid)
{
	return taskmap_find(&n->map, uuid);
}

const char *
node_name(const struct node *n)
{
	return n->cfg.name;
}

const char *
node_master(const struct node *n)
{
	return election_master(n);
}

int
node_is_master(const struct node *n)
{
	return strcmp(election_master(n), n->cfg.name) == 0;
}

void
node_status(const struct node *n, struct node_status *st)
{
	memset(st, 0, sizeof *st);
	st->name = n->cfg.name;
	st->master = election_master(n);
	st->is_master = node_is_master(n);
	st->epoch = election_epoch(n);
	st->slots = n->cfg.slots;
	st->running = run_count(n);
	st->volunteer = run_volunteering(n);
	st->volunteer_state = run_volunteer_state(n);
	st->ntasks = taskmap_count(&n->map);
	st->nready = readyq_len(&n->ready);
	st->unacked = replicate_unacked(n);
	st->duplicates = runwatch_duplicates(n);
	st->implausible = plausible_refused(n, &st->implausible_from);
	origin_counts(n, &st->signed_made, &st->signed_checked);
	authorship_counts(n, &st->signed_made, &st->signed_checked);
	quorum_counts(n, &st->signed_made, &st->signed_checked);
	st->void_claims = plausible_void_claims_count(n,
	    &st->void_claims_from);
	st->disputes = verify_disputes(n, &st->disputed);
	tail_status(n, st);
	wake_status(n, st);
	st->timer = n->tick.timer;
	st->quarantine_until = retry_deadline(n) > 0 ? retry_deadline(n) : 0;
	st->quarantine_why = retry_quarantine_why(n);
	avail_ours(n, &st->window_from_ms, &st->window_to_ms);
}

const struct task *
node_next_task(const struct node *n, size_t *it)
{
	return taskmap_next(&n->map, it);
}

struct task **
node_tasks_sorted(const struct node *n, size_t *count)
{
	return taskmap_sorted(&n->map, count);
}

const struct task *
node_ready_at(const struct node *n, size_t k)
{
	return k < readyq_len(&n->ready) ? readyq_at(&n->ready, k) : NULL;
}

struct outbox *
node_outbox(struct node *n)
{
	return &n->out;
}

/* ---- helpers of the sub-protocols ------------------------------------- */

/* One line per task event, in the style of thesis Listing 4.3. */
void
node_log_task(struct node *n, enum log_level level, const struct task *t,
    const char *extra)
{
	char	where[NAME_MAXLEN + 32] = "";
	/* The log tells what happened here: an end, then its confirmation
	 * (confirm.c logs it). */
	const char *state = task_is_final(t->state) ? task_state_name(t->state) :
	    task_shown_state(t);

	if (t->running_on[0] != '\0')
		snprintf(where, sizeof where, " %s{%s}",
		    t->state == TASK_RUNNING ? "RunningOn" : "ExecutedBy",
		    t->running_on);
	outbox_log(&n->out, level,
	    "Task(UUID{%s} name{%s} priority{%s} state{%s} ScheduledBy{%s}%s)%s%s",
	    t->uuid, t->exec, task_prio_name(t->prio), state,
	    t->scheduled_by, where,
	    extra != NULL ? " " : "", extra != NULL ? extra : "");
}

/* Tell subscribers where t stands now (a snapshot, not a reference). */
void
node_notify(struct node *n, const struct task *t)
{
	char	line[CLIENT_LINE_MAX];

	/* No eta=: the shell adds it as it sends (wire_progress_add_eta). */
	wire_progress_line(t, line, sizeof line);
	outbox_text(&n->out, ACT_NOTIFY, t->uuid, line);
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

/*
 * Housekeeping keeps its beat of progress intervals, but skips the beats
 * with nothing to do: a quiet node wakes for its next deadline (a peer's
 * or the master's silence, a retirement) and its heartbeat, not four
 * times a second.  Work appears by a message or a tick, and each ends in
 * rearm, which brings the next beat back.
 */
static int64_t
housekeeping_due(const struct node *n, int64_t now)
{
	int64_t	due;

	if (runwatch_watching(n) || confirm_counting(n) ||
	    antientropy_transferring(n))
		return now;	/* runs to watch, votes to count, a sync */
	due = earliest(peertab_due(n), election_silence_due(n));
	return earliest(due, retire_next_due(n));
}

/* The first beat after the last one that is not before `due`. */
static int64_t
housekeeping_beat_after(const struct node *n, int64_t due)
{
	int64_t	every = n->cfg.progress_interval_ms;
	int64_t	first = n->tick.housekeeping_beat + every;

	if (due <= first)
		return first;
	return first + (due - first + every - 1) / every * every;
}

/* Arm the tick for the earliest deadline, if it moved. */
static void
rearm(struct node *n, int64_t now)
{
	int64_t	next = readyq_age(&n->ready, now, n->cfg.ageing_ms);
	int64_t	due;

	if (n->tick.next_housekeeping >= 0 &&
	    (due = housekeeping_due(n, now)) >= 0) {
		due = housekeeping_beat_after(n, due > now ? due : now);
		if (due < n->tick.next_housekeeping)
			n->tick.next_housekeeping = due;
	}

	next = earliest(next, dequeue_deadline(n, now));
	next = earliest(next, election_deadline(n));
	next = earliest(next, voters_deadline(n));
	next = earliest(next, retry_deadline(n));
	if (n->tick.next_housekeeping >= 0) {
		next = earliest(next, n->tick.next_housekeeping);
		next = earliest(next, n->tick.next_heartbeat);
	}
	if (next != n->tick.timer) {
		n->tick.timer = next;
		outbox_timer(&n->out, next);
	}
}

void
node_settle(struct node *n, int64_t now)
{
	cmdcheck_tick(n, now);
	dequeue_dispatch(n, now);
	heartbeat_busy(n, now);
	rearm(n, now);
}

void
node_peer_key(struct node *n, const char *name, const uint8_t pk[32],
    int64_t now)
{
	origin_learn(n, name, pk);
	authorship_learned(n, name, now);
}

void
node_heartbeat_soon(struct node *n, int64_t now)
{
	if (n->tick.next_heartbeat > now + n->cfg.election_window_ms)
		n->tick.next_heartbeat = now + n->cfg.election_window_ms;
}

/* ---- from the other nodes --------------------------------------------- */

/* Only dispatch: each message belongs to the sub-protocol that owns it. */
void
node_peer_msg(struct node *n, const struct peer_msg *m, const char *addr,
    int64_t now)
{
	struct peer	*p;
	int		 woke = 0;

	if (!plausible_msg(n, m, now) ||
	    (p = peertab_heard(n, m, addr, now, &woke)) == NULL)
		return;
	if (woke)
		heartbeat_greet(n, p->name, now);
	election_heard(n, m->sender, now);
	switch (m->type) {
	case PEER_HEARTBEAT:
		peertab_recv_heartbeat(n, p, m, addr);
		capset_heard(n, p, m);
		avail_heard(p, m, now);
		dequeue_heard_stamp(n, p, m->timestamp, now, 0);
		election_recv_heartbeat(n, m, now);
		antientropy_recv_heartbeat(n, p, m, now);
		wake_heard(n, p, m, now);
		break;
	case PEER_WHO_IS_MASTER:
		election_recv_who_is_master(n, m);
		break;
	case PEER_START_ELECTION:
		if (peerrate_allow(n, p, RATE_ELECTION, "election messages",
		    now))
			election_recv_start(n, m, now);
		break;
	case PEER_TRY_TO_BE_MASTER:
		if (peerrate_allow(n, p, RATE_ELECTION, "election messages",
		    now))
			election_recv_try(n, m, now);
		break;
	case PEER_NEW_MASTER:
		election_recv_new_master(n, m, now);
		break;
	case PEER_ENQUEUE:
		replicate_recv_enqueue(n, m, now);
		break;
	case PEER_ENQUEUE_ACK:
		replicate_recv_enqueue_ack(n, m);
		break;
	case PEER_TRY_DEQUEUE:
		if (peerrate_allow(n, p, RATE_DEQUEUE, "TRY_DEQUEUE", now)) {
			dequeue_heard_stamp(n, p, m->timestamp, now, 1);
			dequeue_recv_try(n, m, now);
		}
		break;
	case PEER_STATE:
		peertab_recv_state(n, p, m, now);
		replicate_recv_state(n, m, now);
		break;
	case PEER_PROGRESS:
		peertab_recv_progress(n, p, now);
		runwatch_recv_progress(n, m, now);
		break;
	case PEER_GET_TASK:
		replicate_recv_get_task(n, m);
		break;
	case PEER_TASKS_TRANSFER:
		antientropy_recv_tasks_transfer(n, m);
		break;
	case PEER_VOTE:
		confirm_recv_vote(n, m, now);
		break;
	case PEER_RETIRED:
		retire_recv_retired(n, m, now);
		break;
	case PEER_CKPT_TAKE:
		ckpt_recv_take(n, m, now);
		break;
	case PEER_CKPT_HELD:
		ckpt_recv_held(n, m, now);
		break;
	case PEER_REVOKE: case PEER_CERT_WANTED: case PEER_CERT:
	case PEER_SECRET_WANTED: case PEER_SECRET:
		break;		/* the shell's: identity.c, secrets.c */
	}
	node_settle(n, now);
}

/* ---- the tick ---------------------------------------------------------- */

/* Join the cluster: who is the master?  (thesis 3.6.3) */
void
node_start(struct node *n, int64_t now)
{
	election_join(n, now);
	heartbeat_start(n, now);
	n->tick.next_heartbeat = now;
	n->tick.next_housekeeping = now;
	node_tick(n, now);
}

/* A clean stop: our runs go back to Ready, and we leave the membership
 * (a last heartbeat says "stopped"), so the others' majority shrinks. */
void
node_stop(struct node *n, int64_t now)
{
	run_stop_all(n, now);
	heartbeat_send(n, "stopped", now);
	n->tick.next_housekeeping = -1;
}

/*
 * Every progress interval: our runs' PROGRESS (the heartbeat of a task),
 * silent remote runs back to Ready, unacknowledged ENQUEUEs again, silent
 * peers dead, a silent master replaced.
 */
static void
housekeeping(struct node *n, int64_t now)
{
	int64_t	due;

	runwatch_housekeeping(n, now);
	peertab_sweep(n, now);
	confirm_housekeeping(n, now);
	retire_housekeeping(n, now);
	tail_housekeeping(n, now);
	wake_housekeeping(n, now);
	antientropy_housekeeping(n, now);
	election_check_master(n, now);
	n->tick.housekeeping_beat = now;
	if ((due = housekeeping_due(n, now)) < 0)
		due = now + heartbeat_timeout_ms(n);	/* alone: now and then */
	n->tick.next_housekeeping = housekeeping_beat_after(n, due);
}

void
node_tick(struct node *n, int64_t now)
{
	n->tick.timer = -1;
	dequeue_tick(n, now);
	voters_tick(n, now);
	election_tick(n, now);
	retry_tick(n, now);
	if (n->tick.next_housekeeping >= 0 &&
	    now >= n->tick.next_housekeeping)
		housekeeping(n, now);
	if (n->tick.next_housekeeping >= 0 && now >= n->tick.next_heartbeat) {
		n->tick.next_heartbeat = now + heartbeat_send(n, NULL, now);
	}
	node_settle(n, now);
}
