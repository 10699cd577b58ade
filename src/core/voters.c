/*
 * voters.c -- which nodes answer a proposed end at once, and when its
 * proposer asks the others (voters.h).
 *
 * An end needs a majority's votes, the proposer's own among them; when
 * every member answered every proposal, a pool of nine sent eight
 * signed votes for four that count, and a pool of a thousand a thousand
 * votes a task.  So the live members, the proposer aside, rank by a
 * hash of the task and their name (the same order on every node that
 * knows the same members), and the first of them vote at once: the
 * q - 1 votes a majority of q needs and one more -- half again as many
 * from 17 members up, where losses add up -- so that lost votes cost
 * nothing (asking everyone again costs a broadcast and every vote).
 * The rest hold the end as their vote all the same and give it when the
 * proposer asks every voter ("STATE again"): four windows on without a
 * majority (a round trip is one), and at each resend for votes lost
 * (confirm.c). Whom a node votes for does not change, only when it says
 * so: what lets one end at most win is untouched.
 */
#include <string.h>

#include "nodestate.h"

/* Rendezvous key of a member for a task: the hashes (FNV-1a) of the
 * task and of its name, mixed (the finaliser of MurmurHash3), so that
 * every task draws its own order. */
static uint64_t
key(uint64_t task, uint64_t name)
{
	uint64_t	h = task ^ name * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

int
voters_first(const struct node *n, const char *proposer,
    const struct task *t)
{
	int		 need = (1 + peertab_members(n)) / 2;	/* q - 1 */
	int		 spare = need >= 8 ? need / 2 : 1;
	int		 first = need + spare, ahead = 0;
	int		 skip, others = peertab_live(n) - 1;
	uint64_t	 th = task_hash(t->uuid);
	uint64_t	 ours = key(th, task_hash(n->cfg.name));
	size_t		 i;

	/* A big pool: each node by its own draw, first of `others` on
	 * average (a rank would cost every node a pass over the table
	 * for every proposal); half again what the majority needs
	 * leaves it short once in millions from 64 members up. */
	if (others >= VOTERS_RANKED)
		return ours / (UINT64_MAX / (uint64_t)others + 1) <
		    (uint64_t)first;
	skip = peertab_index(n, proposer);
	for (i = 0; i < peertab_count(n) && ahead < first; i++) {
		const struct peer *p = peertab_at(n, (int)i);
		if (p == NULL || (int)i == skip || !p->alive || !p->member)
			continue;
		if (key(th, p->name_hash) < ours)
			ahead++;
	}
	return ahead < first;
}

/* The oldest ask leaves the ring. */
static void
pop(struct voters *v)
{
	v->first = (v->first + 1) % VOTERS_ASKS;
	v->n--;
}

void
voters_asked(struct node *n, const struct task *t, int64_t now)
{
	struct voters		*v = &n->voters;
	struct voters_ask	*a;

	if (v->n == VOTERS_ASKS)	/* the oldest asks at its resend */
		pop(v);
	a = &v->ring[(v->first + v->n++) % VOTERS_ASKS];
	memcpy(a->uuid, t->uuid, sizeof a->uuid);
	a->round = t->round;
	a->due = now + 4 * dequeue_window_ms(n, now);
}

/* The oldest ask, if its end still awaits a majority; else NULL. */
static struct task *
pending(struct node *n, const struct voters_ask *a)
{
	struct task	*t = taskmap_find(&n->map, a->uuid);

	if (t == NULL || t->confirmed || !task_is_final(t->state) ||
	    t->round != a->round || !confirm_proposing(n, a->uuid, a->round))
		return NULL;
	return t;
}

int64_t
voters_deadline(struct node *n)
{
	struct voters	*v = &n->voters;

	/* Those confirmed meanwhile (most) leave as the deadline is asked
	 * for: each once. */
	while (v->n > 0 && pending(n, &v->ring[v->first]) == NULL)
		pop(v);
	return v->n > 0 ? v->ring[v->first].due : -1;
}

void
voters_tick(struct node *n, int64_t now)
{
	struct voters	*v = &n->voters;
	struct task	*t;

	while (v->n > 0 && v->ring[v->first].due <= now) {
		t = pending(n, &v->ring[v->first]);
		pop(v);
		if (t == NULL)
			continue;
		outbox_log(&n->out, VLOG_DEBUG, "Task UUID{%s}: its end asks "
		    "every voter", t->uuid);
		replicate_ask_votes(n, t);
	}
}
