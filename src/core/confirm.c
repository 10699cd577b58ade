/*
 * confirm.c -- one accepted end per task (confirm.h).
 *
 * Each node's vote on a task's end is its own record of the task: the
 * first end it holds in a round, never replaced by another unconfirmed
 * end of that round (rules_record_wins).  The record is journaled
 * before the vote goes out, so a restart does not forget it.  The
 * proposer counts the votes it is sent (the first voters' at once, the
 * others' when it asks again: voters.h); a majority of the members
 * (peertab_members) confirms the end, and the confirmed record beats
 * every unconfirmed one everywhere.  Two ends cannot both gather a
 * majority of one membership, so at most one is ever confirmed.
 *
 * A split vote -- two runs in a partition, a cancel racing a result --
 * may leave no end able to reach a majority: once the votes counted
 * show that, whatever the members not heard from vote, the end the rule
 * prefers (rules_end_beats) is proposed again in the next round, where
 * every node may vote anew.  No end was confirmed in the earlier round.
 *
 * A partition side without a majority confirms nothing until it heals.
 * A member silent for the membership timeout leaves the count
 * (peertab.c), so a shrunk pool still confirms; a partition longer than
 * that can confirm two ends, one per side (volery-protocol(7) says so).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"
#include "rules.h"
#include "wire.h"

#define OTHER_SLOT	7	/* ends beyond the first 7 share one count */

static struct tally *
find(struct node *n, const char *uuid)
{
	int64_t	i;

	return uuidmap_get(&n->confirm.index, uuid, &i) ? &n->confirm.v[i] :
	    NULL;
}

/* The votes counted were of another round (or end): start over. */
static void
reset(struct tally *ty, int round)
{
	free(ty->voted);
	task_free(ty->best_other);
	quorum_votes_free(&ty->qv);
	ty->voted = NULL;
	ty->nvoted = 0;
	ty->nvalues = 0;
	ty->best_other = NULL;
	ty->round = round;
}

void
confirm_free(struct node *n)
{
	size_t	i;

	for (i = 0; i < n->confirm.n; i++)
		reset(&n->confirm.v[i], 0);
	free(n->confirm.v);
	uuidmap_free(&n->confirm.index);
}

/* ty's task t: note its end if it awaits confirmation as Terminated. */
static void
note_end(struct confirm *c, struct tally *ty, const struct task *t)
{
	ty->end_ms = t->state == TASK_TERMINATED && !t->confirmed ? t->end_ms : -1;
	if (ty->end_ms > c->latest_end)
		c->latest_end = ty->end_ms;
}

struct tally *
confirm_hold(struct node *n, const struct task *t, int64_t now)
{
	struct confirm	*c = &n->confirm;
	struct tally	*ty = find(n, t->uuid);

	if (ty == NULL) {
		if (c->n == c->cap) {
			size_t cap = c->cap == 0 ? 16 : c->cap * 2;
			struct tally *v = realloc(c->v, cap * sizeof *v);
			if (v == NULL)
				return NULL;
			c->v = v;
			c->cap = cap;
		}
		if (uuidmap_put(&c->index, t->uuid, (int64_t)c->n) == -1)
			return NULL;
		ty = &c->v[c->n++];
		c->gen++;
		memset(ty, 0, sizeof *ty);
		memcpy(ty->uuid, t->uuid, sizeof ty->uuid);
		ty->round = t->round;
		ty->sent_ms = now;
	}
	if (ty->round != t->round)
		reset(ty, t->round);
	note_end(c, ty, t);
	return ty;
}

void
confirm_changed(struct node *n, const struct task *t)
{
	struct tally *ty = n->confirm.n > 0 ? find(n, t->uuid) : NULL;

	if (ty != NULL)
		note_end(&n->confirm, ty, t);
}

void
confirm_forget(struct node *n, const char *uuid)
{
	struct tally	*ty = find(n, uuid);

	if (ty == NULL)
		return;
	reset(ty, 0);
	n->confirm.gen++;
	uuidmap_del(&n->confirm.index, uuid);
	*ty = n->confirm.v[--n->confirm.n];
	/* The last one moved into its place. */
	if (ty != &n->confirm.v[n->confirm.n])
		uuidmap_put(&n->confirm.index, ty->uuid,
		    (int64_t)(ty - n->confirm.v));
}

/* A majority of the members: us and the peers that count. */
static int
quorum(const struct node *n)
{
	return (1 + peertab_members(n)) / 2 + 1;
}

/* t's end is confirmed by our count: tell everyone, act downstream. */
static void
settle(struct node *n, struct task *t, int64_t now)
{
	struct tally	*ty = find(n, t->uuid);

	quorum_certify(n, t, ty != NULL ? ty->qv : NULL);
	t->confirmed = 1;
	confirm_forget(n, t->uuid);
	replicate_publish(n, t);
	cascade_settled(n, t, now, 1);
}

/*
 * Count again: confirm our end if a majority voted for it; go to the
 * next round if no end can reach a majority whatever the others vote.
 */
static void
evaluate(struct node *n, struct task *t, struct tally *ty, int64_t now)
{
	int	members = 1 + peertab_members(n), q = quorum(n);
	int	voted = 1, mine = 1, unknown, k, best;
	uint64_t value = rules_end_value(t);

	for (k = 0; k < ty->nvalues; k++) {
		voted += ty->counts[k];
		if (ty->values[k] == value && k != OTHER_SLOT)
			mine += ty->counts[k];
	}
	if (mine >= q) {
		outbox_log(&n->out, VLOG_INFO, "Task UUID{%s} name{%s} %s "
		    "confirmed by %d of %d nodes", t->uuid, t->exec,
		    task_state_name(t->state), mine, members);
		settle(n, t, now);
		return;
	}
	unknown = members > voted ? members - voted : 0;
	best = mine;
	for (k = 0; k < ty->nvalues; k++)
		if ((ty->values[k] != value || k == OTHER_SLOT) &&
		    ty->counts[k] > best)
			best = ty->counts[k];
	if (best + unknown >= q)
		return;
	/* No end can win this round: the rule's pick, next round. */
	if (ty->best_other != NULL && rules_end_beats(ty->best_other, t) &&
	    task_copy_end(t, ty->best_other) == -1)
		return;
	outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} name{%s}: votes "
	    "split in round %d (%d for ours of %d voting, %d members); round "
	    "%d on %s from %s", t->uuid, t->exec, t->round, mine, voted,
	    members, t->round + 1, task_state_name(t->state),
	    t->running_on[0] != '\0' ? t->running_on : "-");
	t->round++;
	confirm_propose(n, t, now);
}

void
confirm_propose(struct node *n, struct task *t, int64_t now)
{
	struct tally	*ty;

	if (t->round == 0)
		t->round = 1;
	quorum_unconfirm(t);
	if (quorum(n) == 1) {		/* alone: our vote is the majority */
		settle(n, t, now);
		return;
	}
	if ((ty = confirm_hold(n, t, now)) == NULL) {
		outbox_log(&n->out, VLOG_ERROR, "out of memory counting votes "
		    "on task %s", t->uuid);
		return;
	}
	ty->proposer = 1;
	ty->sent_ms = now;
	replicate_publish(n, t);
	voters_asked(n, t, now);
}

int
confirm_proposing(struct node *n, const char *uuid, int round)
{
	struct tally	*ty = n->confirm.n > 0 ? find(n, uuid) : NULL;

	return ty != NULL && ty->proposer && ty->round == round;
}

/*
 * A free slot waits a dequeue window at most for a result's
 * confirmation (a round trip) before it takes other work: the
 * dependents, of an older workflow, rank first, and taking a newer
 * workflow's task in that moment would keep them waiting a whole run.
 * Every node waits, not only the result's runner: runs of equal length
 * end together, and the others would take the newer tasks.
 */
int64_t
confirm_awaited(struct node *n, int64_t now)
{
	struct confirm	*c = &n->confirm;
	int64_t		 until = -1;
	size_t		 i;

	/* Unchanged since the last answer, only time passed: the latest
	 * end still awaited is, or none is. */
	if (c->awaited_known && c->awaited_gen == c->gen &&
	    c->awaited_map_gen == n->map.gen && now >= c->awaited_at)
		return c->awaited > now ? c->awaited : -1;
	/* No end within the last window: none is awaited (most calls). */
	if (c->latest_end + n->cfg.dequeue_window_ms <= now)
		return -1;
	/* Newest first: past the latest awaited, ends are not looked up. */
	for (i = n->confirm.n; i-- > 0;) {
		const struct tally *ty = &n->confirm.v[i];
		const struct task *t;
		int64_t end = ty->end_ms + n->cfg.dequeue_window_ms;
		/* A look-up only for an end that would be the latest yet. */
		if (ty->end_ms < 0 || end <= now || end <= until ||
		    (t = taskmap_find(&n->map, ty->uuid)) == NULL ||
		    t->state != TASK_TERMINATED || t->confirmed)
			continue;
		end = t->end_ms + n->cfg.dequeue_window_ms;
		if (end > now && end > until &&
		    taskmap_awaits(&n->map, t->uuid))
			until = end;
	}
	c->awaited_known = 1;
	c->awaited_gen = c->gen;
	c->awaited_map_gen = n->map.gen;
	c->awaited_at = now;
	c->awaited = until;
	return until;
}

void
confirm_answer(struct node *n, const char *peer, const struct task *t)
{
	if (task_is_final(t->state))
		replicate_send(n, peer, PEER_VOTE, t);
}

/* Record voter's vote r (a final record) in the tally of our t. */
static void
count_vote(struct node *n, struct tally *ty, const struct task *t,
    const char *voter, struct task **r, int64_t now)
{
	int		 idx = peertab_index(n, voter), k;
	uint64_t	 value = rules_end_value(*r);

	if (idx < 0 || (*r)->round != t->round || (*r)->confirmed)
		return;
	if ((size_t)idx >= ty->nvoted) {
		size_t cap = peertab_count(n) > (size_t)idx ?
		    peertab_count(n) : (size_t)idx + 1;
		unsigned char *v = realloc(ty->voted, cap);
		if (v == NULL)
			return;
		memset(v + ty->nvoted, 0, cap - ty->nvoted);
		ty->voted = v;
		ty->nvoted = cap;
	}
	if (ty->voted[idx] != 0 || (value == rules_end_value(t) &&
	    !quorum_keep(n, &ty->qv, t, voter, *r, now)))
		return;		/* a vote is for good; ours must be signed */
	for (k = 0; k < ty->nvalues && k < OTHER_SLOT; k++)
		if (ty->values[k] == value)
			break;
	if (k == ty->nvalues) {
		ty->values[k] = value;
		ty->counts[k] = 0;
		ty->nvalues++;
	}
	ty->counts[k]++;
	ty->voted[idx] = (unsigned char)(k + 1);
	if (value != rules_end_value(t) && (ty->best_other == NULL ||
	    rules_end_beats(*r, ty->best_other))) {
		task_free(ty->best_other);
		ty->best_other = *r;
		*r = NULL;
	}
}

void
confirm_recv_vote(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct task	*r, *t;
	struct tally	*ty;

	if ((r = replicate_decode(n, m, now)) == NULL)
		return;
	/* A vote for an end its voter may not pass on counts for none. */
	if (!authorship_admit(n, m, r, taskmap_find(&n->map, r->uuid), now)) {
		task_free(r);
		return;
	}
	/* The vote is a record too: a confirmed end or a later round
	 * replaces ours. */
	replicate_recv_state(n, m, now);
	t = taskmap_find(&n->map, r->uuid);
	if (t != NULL && task_is_final(t->state) && !t->confirmed &&
	    task_is_final(r->state) && (ty = confirm_hold(n, t, now)) != NULL) {
		count_vote(n, ty, t, m->sender, &r, now);
		evaluate(n, t, ty, now);
	}
	task_free(r);
}

static void
recount(struct node *n, int64_t now)
{
	char	(*uuids)[UUID_STRLEN + 1];
	size_t	 i, count = n->confirm.n;

	if (count == 0 || (uuids = malloc(count * sizeof *uuids)) == NULL)
		return;
	for (i = 0; i < count; i++)
		memcpy(uuids[i], n->confirm.v[i].uuid, sizeof uuids[i]);
	for (i = 0; i < count; i++) {
		struct tally *ty = find(n, uuids[i]);
		struct task *t = taskmap_find(&n->map, uuids[i]);
		if (ty != NULL && t != NULL && task_is_final(t->state) &&
		    !t->confirmed)
			evaluate(n, t, ty, now);
	}
	free(uuids);
}

int
confirm_counting(const struct node *n)
{
	return n->confirm.n > 0;
}

/*
 * An end held unconfirmed long after its proposal: most likely we missed
 * the confirmation.  Those who know the task best (runner, node it was
 * scheduled on, master) answer with what they hold; the whole pool is
 * asked for votes only if they do not confirm it either.
 */
static void
ask_who_knows(struct node *n, const struct task *t)
{
	const char	*who[3];
	int		 i, k;

	who[0] = t->running_on;
	who[1] = t->scheduled_by;
	who[2] = election_master(n);
	for (i = 0; i < 3; i++) {
		if (who[i][0] == '\0' || strcmp(who[i], n->cfg.name) == 0)
			continue;
		for (k = 0; k < i && strcmp(who[k], who[i]) != 0; k++)
			;
		if (k == i)
			replicate_send(n, who[i], PEER_STATE, t);
	}
}

void
confirm_housekeeping(struct node *n, int64_t now)
{
	size_t	i = 0;
	int	resent = 0;

	while (i < n->confirm.n) {
		struct tally *ty = &n->confirm.v[i];
		struct task *t = taskmap_find(&n->map, ty->uuid);
		int64_t every;
		if (t == NULL || !task_is_final(t->state) || t->confirmed) {
			confirm_forget(n, ty->uuid);
			continue;	/* the last one moved to i */
		}
		/* Our proposal again, for votes lost; anyone's once its
		 * proposer has been silent a failure timeout. */
		every = ty->proposer ? 2 * n->cfg.progress_interval_ms :
		    n->cfg.failure_timeout_ms;
		if (now - ty->sent_ms >= every && resent < 64) {
			ty->sent_ms = now;
			if (!ty->proposer && !ty->asked) {
				ty->asked = 1;
				ask_who_knows(n, t);
			} else {
				ty->proposer = 1;
				replicate_ask_votes(n, t);
			}
			resent++;
		}
		i++;
	}
	/* The membership may have shrunk: count again (a confirmed end
	 * proposes its dependents' ends, so the tallies move: by uuid). */
	recount(n, now);
}

void
confirm_forget_voter(struct node *n, int idx)
{
	struct tally	*ty;
	size_t		 i;

	for (i = 0; i < n->confirm.n; i++) {
		ty = &n->confirm.v[i];
		if (idx < 0 || (size_t)idx >= ty->nvoted || ty->voted[idx] == 0)
			continue;
		ty->counts[ty->voted[idx] - 1]--;
		ty->voted[idx] = 0;
	}
}
