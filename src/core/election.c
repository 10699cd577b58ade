/*
 * election.c -- the master election (thesis Algorithm 3.1) with epochs:
 * candidacies are ordered by reputation, map size, older candidacy and
 * lower name (rules.c); the winner announces NEW_MASTER with an epoch
 * above any it has seen, and a master that hears of a higher epoch, or
 * of a better master of its own epoch, steps down.
 */
#include <stdio.h>
#include <string.h>

#include "heartbeat.h"
#include "nodestate.h"
#include "peer.h"
#include "rules.h"

void
election_init(struct node *n)
{
	n->election.join_deadline = -1;
}

const char *
election_master(const struct node *n)
{
	return n->election.master;
}

uint64_t
election_epoch(const struct node *n)
{
	return n->election.epoch;
}

void
election_heard(struct node *n, const char *sender, int64_t now)
{
	if (strcmp(sender, n->election.master) == 0)
		n->election.master_heard = now;
}

static void
send_simple(struct node *n, const char *peer, enum peer_type type)
{
	struct peer_msg	m;

	peer_msg_init(&m, type);
	outbox_peer(&n->out, peer, &m);
}

/* NEW_MASTER of our epoch, to peer or to all. */
static void
announce(struct node *n, const char *peer)
{
	struct peer_msg	m;

	peer_msg_init(&m, PEER_NEW_MASTER);
	m.epoch = n->election.epoch;
	outbox_peer(&n->out, peer, &m);
}

void
election_join(struct node *n, int64_t now)
{
	send_simple(n, NULL, PEER_WHO_IS_MASTER);
	n->election.join_deadline = now + n->cfg.election_window_ms;
}

static struct candidacy
my_candidacy(const struct node *n)
{
	struct candidacy	c;

	c.name = n->cfg.name;
	c.reputation = n->cfg.reputation;
	c.map_size = taskmap_count(&n->map);
	c.timestamp = n->election.ts;
	return c;
}

static void
start_election(struct node *n, int64_t now)
{
	struct election		*e = &n->election;
	struct candidacy	 c;
	struct peer_msg		 m;

	if (e->active)
		return;
	e->active = 1;
	e->ts = now;
	e->deadline = now + n->cfg.election_window_ms;
	e->lost = 0;
	c = my_candidacy(n);
	peer_msg_init(&m, PEER_TRY_TO_BE_MASTER);
	m.reputation = c.reputation;
	m.map_size = c.map_size;
	m.timestamp = c.timestamp;
	outbox_peer(&n->out, NULL, &m);
	outbox_log(&n->out, VLOG_DEBUG, "master election: my candidacy "
	    "reputation %d, %llu tasks", c.reputation,
	    (unsigned long long)c.map_size);
}

static void
follow_master(struct node *n, const char *name, uint64_t epoch, int64_t now)
{
	struct election	*e = &n->election;
	int		 was_master = node_is_master(n);
	int		 first = !e->joined;

	if (strcmp(e->master, name) == 0 && e->epoch == epoch)
		return;
	snprintf(e->master, sizeof e->master, "%s", name);
	e->epoch = epoch;
	e->master_heard = now;
	e->joined = 1;
	e->join_deadline = -1;
	e->active = 0;
	if (was_master && !node_is_master(n))
		outbox_log(&n->out, VLOG_WARNING, "stepping down: %s is master "
		    "of epoch %llu", name, (unsigned long long)epoch);
	else
		outbox_log(&n->out, VLOG_INFO, "%s is the master (epoch %llu)",
		    name, (unsigned long long)epoch);
	if (node_is_master(n))
		replicate_became_master(n);
	else if (first || was_master)
		antientropy_sync(n, now);		/* join: thesis 3.6.3 */
}

uint64_t
election_highest_epoch(const struct node *n)
{
	const struct peer	*p;
	uint64_t		 e = n->election.epoch;
	size_t			 i;

	for (i = 0; i < peertab_count(n); i++)
		if ((p = peertab_at(n, (int)i)) != NULL && p->epoch > e)
			e = p->epoch;
	return e;
}

/* The election window closed (Algorithm 3.1). */
static void
decide(struct node *n, int64_t now)
{
	struct election	*e = &n->election;
	uint64_t	 epoch;

	e->active = 0;
	if (e->lost) {
		/* Wait for the winner's NEW_MASTER; if none, elect again. */
		if (e->master[0] == '\0')
			e->join_deadline = now + 2 * n->cfg.election_window_ms;
		return;
	}
	/* Epochs never wrap: peers' are at most COUNTER_MAX (peer.c). */
	epoch = election_highest_epoch(n);
	if (epoch < COUNTER_MAX)
		epoch++;
	outbox_log(&n->out, VLOG_NORMAL, "I won the master election (epoch "
	    "%llu)", (unsigned long long)epoch);
	follow_master(n, n->cfg.name, epoch, now);
	announce(n, NULL);
}

/* Should (name, epoch) replace the master we follow? */
static int
beats_current(const struct node *n, const char *name, uint64_t epoch,
    int reputation)
{
	const struct election	*e = &n->election;
	struct candidacy	 a, b;

	if (e->master[0] == '\0' || epoch > e->epoch)
		return 1;
	if (epoch < e->epoch || strcmp(name, e->master) == 0)
		return 0;
	/* Two masters of one epoch (lost datagrams): election order. */
	a.name = name;
	a.reputation = reputation;
	b.name = e->master;
	b.reputation = node_is_master(n) ? n->cfg.reputation :
	    peertab_reputation(n, e->master);
	a.map_size = b.map_size = 0;
	a.timestamp = b.timestamp = 0;
	return rules_candidacy_beats(&a, &b);
}

/* A master announced itself: follow it, or tell it of a better one. */
static void
heard_master(struct node *n, const char *name, uint64_t epoch,
    int reputation, int64_t now)
{
	if (beats_current(n, name, epoch, reputation))
		follow_master(n, name, epoch, now);
	else if (node_is_master(n))	/* an old master */
		announce(n, name);
}

void
election_recv_heartbeat(struct node *n, const struct peer_msg *m,
    int64_t now)
{
	struct election	*e = &n->election;

	if (!m->master && strcmp(m->sender, e->master) == 0) {
		/* Ours is not master any more (it restarted, or stepped
		 * down): who is? */
		outbox_log(&n->out, VLOG_INFO, "%s is no longer the master; "
		    "asking who is", m->sender);
		e->master[0] = '\0';
		send_simple(n, NULL, PEER_WHO_IS_MASTER);
		e->join_deadline = now + n->cfg.election_window_ms;
	}
	if (m->master)
		heard_master(n, m->sender, m->epoch, m->reputation, now);
}

void
election_recv_who_is_master(struct node *n, const struct peer_msg *m)
{
	if (node_is_master(n))
		announce(n, m->sender);
}

/* How long the master's silence may last: as its heartbeats told. */
static int64_t
master_timeout(const struct node *n)
{
	const struct peer	*p = peertab_at(n,
	    peertab_index(n, n->election.master));

	return p != NULL ? heartbeat_peer_timeout_ms(n, p) :
	    heartbeat_timeout_ms(n);
}

/*
 * We follow a live master (or are it) and no election runs: an
 * election message is then a mistake, stale, or an attack, and changes
 * nothing; the master answers with NEW_MASTER.
 */
static int
live_master(const struct node *n, int64_t now)
{
	const struct election	*e = &n->election;

	return !e->active && e->master[0] != '\0' && (node_is_master(n) ||
	    now - e->master_heard < master_timeout(n));
}

void
election_recv_start(struct node *n, const struct peer_msg *m, int64_t now)
{
	if (live_master(n, now)) {
		if (node_is_master(n))
			announce(n, m->sender);
		return;
	}
	start_election(n, now);
}

void
election_recv_try(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct election		*e = &n->election;
	struct candidacy	 theirs, mine;

	/* We have a live master -- we are alive to ourselves, whenever we
	 * last heard from anyone: say so. */
	if (live_master(n, now)) {
		if (node_is_master(n))
			announce(n, m->sender);
		return;
	}
	start_election(n, now);
	theirs.name = m->sender;
	theirs.reputation = m->reputation;
	theirs.map_size = m->map_size;
	theirs.timestamp = m->timestamp;
	mine = my_candidacy(n);
	if (rules_candidacy_beats(&theirs, &mine))
		e->lost = 1;
}

void
election_recv_new_master(struct node *n, const struct peer_msg *m,
    int64_t now)
{
	heard_master(n, m->sender, m->epoch,
	    peertab_reputation(n, m->sender), now);
}

void
election_tick(struct node *n, int64_t now)
{
	struct election	*e = &n->election;

	if (e->active && now >= e->deadline)
		decide(n, now);
	if (e->join_deadline >= 0 && now >= e->join_deadline &&
	    e->master[0] == '\0') {
		e->join_deadline = -1;
		send_simple(n, NULL, PEER_START_ELECTION);
		start_election(n, now);
	}
}

int64_t
election_silence_due(const struct node *n)
{
	const struct election	*e = &n->election;

	if (e->master[0] == '\0' || node_is_master(n))
		return -1;
	return e->master_heard + master_timeout(n) + 1;
}

void
election_check_master(struct node *n, int64_t now)
{
	struct election	*e = &n->election;

	if (e->master[0] != '\0' && !node_is_master(n) &&
	    now - e->master_heard > master_timeout(n)) {
		outbox_log(&n->out, VLOG_WARNING, "master %s is silent; "
		    "electing a new one", e->master);
		e->master[0] = '\0';
		send_simple(n, NULL, PEER_START_ELECTION);
		start_election(n, now);
	}
}

int64_t
election_deadline(const struct node *n)
{
	const struct election	*e = &n->election;
	int64_t			 d = e->join_deadline;

	if (e->active && (d < 0 || e->deadline < d))
		d = e->deadline;
	return d;
}
