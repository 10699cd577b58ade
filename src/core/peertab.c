/*
 * peertab.c -- what this node knows of the others: a table of struct
 * peer (at most max_peers, by name: nameidx.c), who is alive or a member
 * (counted in the majority that confirms an end), our rank among the
 * nodes that can take a task.  A peer dead and out of the membership for
 * peer_evict_ms leaves; its slot (its index) goes to the next new name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "confirm.h"
#include "heartbeat.h"
#include "memberlist.h"
#include "peer.h"
#include "ratelimit.h"

void
peertab_free(struct node *n)
{
	free(n->peertab.v);
	nameidx_free(&n->peertab.idx);
}

/* The sweep has work at `at` or later (it finds out what then). */
static void
due_by(struct peertab *pt, int64_t at)
{
	if (pt->due < 0 || at < pt->due)
		pt->due = at;
}

static void
set_member(struct node *n, struct peer *p, int member)
{
	if (p->member == member)
		return;
	p->member = member;
	n->peertab.nmembers += member ? 1 : -1;
	n->peertab.members_dirty = 1;
	due_by(&n->peertab, 0);
	if (!member)
		outbox_log(&n->out, VLOG_INFO, "node %s left the membership "
		    "(%d members now)", p->name, n->peertab.nmembers + 1);
}

/*
 * p's share of the idle count and rank, as it is now: the counts follow
 * each change of a peer instead of a walk of the table (at a thousand
 * peers, a walk on every PROGRESS that changed one).  When our own
 * placement key moves, the table is walked whole on the next look.
 */
static void
idle_follow(struct node *n, struct peer *p)
{
	struct peertab	*pt = &n->peertab;
	int		 idle, first;

	if (placement_key(n) != pt->idle_key) {
		pt->idle_key = -1;	/* our key moved: walk on the next look */
		return;
	}
	idle = peerrun_is_idle(p);
	first = idle && placement_peer_first(n, p);
	pt->idle_count += idle - p->counted_idle;
	pt->idle_rank += first - p->counted_first;
	p->counted_idle = idle;
	p->counted_first = first;
}

static const char *
peer_name(const void *ctx, size_t i)
{
	return ((const struct peertab *)ctx)->v[i].name;
}

static struct peer *
find(const struct peertab *pt, const char *name)
{
	int	i = nameidx_find(&pt->idx, name);

	return i < 0 ? NULL : &pt->v[i];
}

/* Forget p: its slot is free for the next new name. */
static void
evict(struct node *n, struct peer *p)
{
	struct peertab	*pt = &n->peertab;

	outbox_log(&n->out, VLOG_INFO, "node %s forgotten (silent since %lld "
	    "ms ago)", p->name, (long long)p->heard_ms);
	confirm_forget_voter(n, (int)(p - pt->v));
	p->alive = 0;
	idle_follow(n, p);	/* out of the counts */
	memset(p, 0, sizeof *p);
	pt->nfree++;
	nameidx_rebuild(&pt->idx, pt->n);
}

/* The longest-silent peer that may be forgotten now, or NULL. */
static struct peer *
evictable(struct node *n, int64_t now)
{
	struct peertab	*pt = &n->peertab;
	struct peer	*best = NULL;
	size_t		 i;

	for (i = 0; i < pt->n; i++) {
		struct peer *p = &pt->v[i];
		if (p->name[0] == '\0' || p->alive || p->member ||
		    now - p->heard_ms < n->cfg.peer_evict_ms)
			continue;
		if (best == NULL || p->heard_ms < best->heard_ms)
			best = p;
	}
	return best;
}

/* p's name, and where it sorts against ours (the idle rank's tie). */
static void
name_peer(const struct node *n, struct peer *p, const char *name)
{
	snprintf(p->name, sizeof p->name, "%s", name);
	p->name_before_us = strcmp(name, n->cfg.name) < 0;
	p->name_hash = task_hash(p->name);
}

/* A slot for a new name: a free one, a new one, or an evicted one. */
static struct peer *
new_peer(struct node *n, const char *name, int64_t now)
{
	struct peertab	*pt = &n->peertab;
	struct peer	*p = NULL, *v;
	size_t		 i;

	if (pt->n - pt->nfree >= (size_t)n->cfg.max_peers) {
		if ((p = evictable(n, now)) == NULL) {
			pt->refused++;
			if (ratelimit_due(&pt->refused_logged, now))
				outbox_log(&n->out, VLOG_WARNING, "node %s "
				    "ignored: %d peers known, none gone long "
				    "enough to forget (%llu refused so far)",
				    name, n->cfg.max_peers,
				    (unsigned long long)pt->refused);
			return NULL;
		}
		evict(n, p);
	}
	if (pt->nfree > 0) {
		for (i = 0; i < pt->n && pt->v[i].name[0] != '\0'; i++)
			;
		p = &pt->v[i];
		pt->nfree--;
		name_peer(n, p, name);
		nameidx_rebuild(&pt->idx, pt->n);
		return p;
	}
	if (pt->n == pt->cap) {	/* doubling: a pool's boot adds hundreds */
		size_t cap = pt->cap == 0 ? 16 : 2 * pt->cap;
		if ((v = realloc(pt->v, cap * sizeof *v)) == NULL)
			return NULL;
		pt->v = v;
		pt->cap = cap;
	}
	p = &pt->v[pt->n++];
	memset(p, 0, sizeof *p);
	name_peer(n, p, name);
	pt->idx.name = peer_name;
	pt->idx.ctx = pt;
	if (nameidx_add(&pt->idx, pt->n) == -1) {
		pt->n--;
		return NULL;
	}
	return p;
}

struct peer *
peertab_heard(struct node *n, const struct peer_msg *m, const char *addr,
    int64_t now, int *woke)
{
	struct peertab	*pt = &n->peertab;
	struct peer	*p = find(pt, m->sender);

	if (p == NULL) {
		if ((p = new_peer(n, m->sender, now)) == NULL)
			return NULL;
		snprintf(p->volunteer, sizeof p->volunteer, "?");
		snprintf(p->client_addr, sizeof p->client_addr, "-");
		p->incarnation = m->incarnation;
		if (strcmp(addr, "-") != 0)	/* not node_restore_member */
			outbox_log(&n->out, VLOG_INFO, "node %s joined (at "
			    "%s)", m->sender, addr);
	} else if (p->incarnation != m->incarnation) {
		outbox_log(&n->out, VLOG_INFO, "node %s restarted", p->name);
		p->incarnation = m->incarnation;
		p->master = 0;
	} else if (!p->alive)
		outbox_log(&n->out, VLOG_INFO, "node %s is back", p->name);
	if (strcmp(p->addr, addr) != 0)	/* seldom: formatting each cost */
		snprintf(p->addr, sizeof p->addr, "%s", addr);
	p->heard_ms = now;
	*woke = !p->alive;
	if (!p->alive) {
		pt->nlive++;
		due_by(pt, 0);	/* its silence, from now */
		p->alive = 1;
		idle_follow(n, p);
	}
	set_member(n, p, 1);
	return p;
}

/*
 * A peer we knew of before a restart (node_restore_member): a member
 * for a membership timeout from now, unless it stopped cleanly.
 */
void
node_restore_member(struct node *n, const char *name, int64_t now)
{
	struct peer_msg	m;
	struct peer	*p;
	int		 woke;

	if (!task_name_valid(name) || strcmp(name, n->cfg.name) == 0 ||
	    find(&n->peertab, name) != NULL)
		return;
	memset(&m, 0, sizeof m);
	snprintf(m.sender, sizeof m.sender, "%s", name);
	if ((p = peertab_heard(n, &m, "-", now, &woke)) == NULL)
		return;
	p->alive = 0;
	idle_follow(n, p);
	n->peertab.nlive--;
	n->peertab.members_dirty = 0;
	due_by(&n->peertab, 0);
}

void
peertab_recv_heartbeat(struct node *n, struct peer *p,
    const struct peer_msg *m, const char *addr)
{
	p->master = m->master;
	p->epoch = m->master ? m->epoch : p->epoch;
	p->speed = m->speed;
	p->life_s = m->life_s;
	p->free = m->free;
	p->slots = m->slots;
	snprintf(p->volunteer, sizeof p->volunteer, "%s", m->volunteer);
	p->takes_tasks = peerrun_volunteer_takes(m->volunteer);
	if (peerrun_volunteer_left(m->volunteer))
		set_member(n, p, 0);	/* a clean stop: it left */
	p->reputation = m->reputation;
	p->beat_ms = m->beat_ms;
	p->ntasks = m->map_size;
	p->digest = m->digest;
	snprintf(p->client_addr, sizeof p->client_addr, "%.*s:%d",
	    (int)strcspn(addr, ":"), addr, m->client_port);
	idle_follow(n, p);
}

/* A peer's STATE about its own run: busy or idle at once. */
void
peertab_recv_state(struct node *n, struct peer *p, const struct peer_msg *m,
    int64_t now)
{
	enum peerrun_news news = peerrun_state(p, m);

	if (news == PEERRUN_BEGAN)
		peertab_recv_progress(n, p, now);
	if (news != PEERRUN_SAME)	/* its free slots changed */
		idle_follow(n, p);
}

void
peertab_recv_progress(struct node *n, struct peer *p, int64_t now)
{
	if (p->running_ms == 0) {	/* busy from now */
		p->running_ms = now;
		due_by(&n->peertab, now + 2 * n->cfg.progress_interval_ms + 1);
		idle_follow(n, p);
	}
	p->running_ms = now;
}

void
peertab_sweep(struct node *n, int64_t now)
{
	struct peertab	*pt = &n->peertab;
	size_t		 i;

	pt->due = -1;
	for (i = 0; i < pt->n; i++) {
		struct peer *p = &pt->v[i];
		if (p->running_ms > 0 &&
		    now - p->running_ms > 2 * n->cfg.progress_interval_ms) {
			p->running_ms = 0;	/* its run is over */
			idle_follow(n, p);
		}
		if (p->alive &&
		    now - p->heard_ms > heartbeat_peer_timeout_ms(n, p)) {
			p->alive = 0;
			pt->nlive--;
			idle_follow(n, p);
			outbox_log(&n->out, VLOG_WARNING, "node %s silent for "
			    "%lld ms: dead", p->name,
			    (long long)(now - p->heard_ms));
		}
		if (p->member &&
		    now - p->heard_ms > n->cfg.membership_timeout_ms)
			set_member(n, p, 0);
		if (p->name[0] != '\0' && !p->alive && !p->member &&
		    now - p->heard_ms >= n->cfg.peer_evict_ms)
			evict(n, p);
	}
	/* When the next of these comes, by the timeouts as they are now
	 * (a death above may have shortened them). */
	for (i = 0; i < pt->n; i++) {
		const struct peer *p = &pt->v[i];
		if (p->running_ms > 0)
			due_by(pt, p->running_ms +
			    2 * n->cfg.progress_interval_ms + 1);
		if (p->alive)
			due_by(pt, p->heard_ms +
			    heartbeat_peer_timeout_ms(n, p) + 1);
		if (p->member)
			due_by(pt, p->heard_ms +
			    n->cfg.membership_timeout_ms + 1);
		else if (p->name[0] != '\0' && !p->alive)
			due_by(pt, p->heard_ms + n->cfg.peer_evict_ms);
	}
	if (pt->members_dirty) {
		pt->members_dirty = 0;
		memberlist_save(n);
	}
}

int
peertab_members(const struct node *n)
{
	return n->peertab.nmembers;
}

int
peertab_index(const struct node *n, const char *name)
{
	const struct peer	*p = find(&n->peertab, name);

	return p != NULL ? (int)(p - n->peertab.v) : -1;
}

size_t
peertab_count(const struct node *n)
{
	return n->peertab.n;
}

int
peertab_live(const struct node *n)
{
	return n->peertab.nlive;
}

int64_t
peertab_due(const struct node *n)
{
	return n->peertab.due;
}

const struct peer *
peertab_at(const struct node *n, int idx)
{
	if (idx < 0 || (size_t)idx >= n->peertab.n ||
	    n->peertab.v[idx].name[0] == '\0')
		return NULL;
	return &n->peertab.v[idx];
}

/*
 * Our place among the nodes that can take a task now (live, volunteering,
 * a free slot, as their heartbeats say), best first (placement.c).  With
 * k idle nodes and q ready tasks, node i tries task i: no herd of
 * proposals for the head of the queue -- Figure 3.11's rank rule,
 * applied before any race.
 */
int
peertab_idle_rank(struct node *n, int64_t now)
{
	struct peertab	*pt = &n->peertab;
	size_t		 i;
	int		 k = 0, idle = 0, key = placement_key(n);

	if (pt->idle_key == key)
		return pt->idle_rank;	/* followed peer by peer */
	for (i = 0; i < pt->n; i++) {
		struct peer *p = &pt->v[i];
		p->counted_idle = peerrun_is_idle(p);
		p->counted_first = p->counted_idle &&
		    placement_peer_first(n, p);
		idle += p->counted_idle;
		k += p->counted_first;
	}
	pt->idle_rank = k;
	pt->idle_count = idle;
	pt->idle_key = key;
	return k;
}

int
peertab_idle_count(struct node *n, int64_t now)
{
	peertab_idle_rank(n, now);
	return n->peertab.idle_count;
}

/* The rank as last computed (for the log). */
int
peertab_last_idle_rank(const struct node *n)
{
	return n->peertab.idle_rank;
}

int
peertab_reputation(const struct node *n, const char *name)
{
	const struct peer	*p = find(&n->peertab, name);

	return p != NULL ? p->reputation : 0;
}

void
node_each_peer(const struct node *n, void (*cb)(const struct peer *, void *),
    void *arg)
{
	size_t	i;

	for (i = 0; i < n->peertab.n; i++)
		if (n->peertab.v[i].name[0] != '\0')
			cb(&n->peertab.v[i], arg);
}

const char *
node_peer_addr(const struct node *n, const char *name, int client)
{
	const struct peer	*p = find(&n->peertab, name);

	return p == NULL || (client && !p->alive) ? NULL : client ?
	    p->client_addr : p->addr;
}
