/*
 * antientropy.c -- what keeps the maps equal when datagrams are lost:
 * the map digest every heartbeat carries, a node that disagrees with its
 * master three times running synchronises (TASKS_TRANSFER both ways),
 * and so does a node that joins or steps down (thesis 3.6.3); the master
 * sends its map to a node that disagrees with it three times running.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heartbeat.h"
#include "nodestate.h"
#include "peer.h"

void
antientropy_init(struct node *n)
{
	n->antientropy.digest = 0;	/* of the empty map */
}

/*
 * The map digest is the XOR of a hash of (uuid, version, state,
 * confirmation, runner) over the map: equal maps, equal digests.  Each
 * task keeps its share, so that a change costs one hash, not a walk.
 */
static uint64_t
digest_part(const struct task *t)
{
	uint64_t	 h = 1469598103934665603ULL;
	const char	*p;

	for (p = t->uuid; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ t->ver) * 1099511628211ULL;
	h = (h ^ (uint64_t)t->state) * 1099511628211ULL;
	h = (h ^ (uint64_t)(t->confirmed | t->round << 1)) * 1099511628211ULL;
	/* Two results differ by who produced them. */
	for (p = t->running_on; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

void
antientropy_changed(struct node *n, struct task *t)
{
	if (t->in_digest)
		n->antientropy.digest ^= t->digest_part;
	t->digest_part = digest_part(t);
	t->in_digest = 1;
	n->antientropy.digest ^= t->digest_part;
}

void
antientropy_gone(struct node *n, struct task *t)
{
	if (t->in_digest)
		n->antientropy.digest ^= t->digest_part;
	t->in_digest = 0;
}

void
antientropy_recount(struct node *n)
{
	struct task	*t;
	size_t		 it = 0;

	n->antientropy.digest = 0;
	while ((t = taskmap_next(&n->map, &it)) != NULL) {
		t->in_digest = 0;
		antientropy_changed(n, t);
	}
}

void
antientropy_free(struct node *n)
{
	int	i;

	for (i = 0; i < n->antientropy.nxfer; i++)
		free(n->antientropy.xfer[i].uuids);
}

/* The next chunk of transfer x; 1 when it is over. */
static int
send_chunk(struct node *n, struct transfer *x)
{
	int	sent = 0;

	while (x->next < x->n && sent < ANTIENTROPY_CHUNK) {
		const struct task *t = taskmap_find(&n->map,
		    x->uuids[x->next++]);
		if (t != NULL) {
			replicate_send(n, x->peer, PEER_ENQUEUE, t);
			sent++;
		}
	}
	return x->next == x->n;
}

static void
end_transfer(struct node *n, int i)
{
	struct antientropy	*a = &n->antientropy;

	free(a->xfer[i].uuids);
	a->xfer[i] = a->xfer[--a->nxfer];
}

/* Our whole map to peer: the first chunk now, the rest tick by tick. */
static void
send_all(struct node *n, const char *peer)
{
	struct antientropy	*a = &n->antientropy;
	struct transfer		*x = NULL;
	struct task		**v;
	size_t			 count, k;
	int			 i;

	/* Asked again while a pass is on its way: it goes on (starting
	 * over would never get past the first chunks of a big map). */
	for (i = 0; i < a->nxfer; i++)
		if (strcmp(a->xfer[i].peer, peer) == 0)
			return;
	if (a->nxfer == ANTIENTROPY_TRANSFERS)
		return;		/* it will ask again */
	x = &a->xfer[a->nxfer++];
	memset(x, 0, sizeof *x);
	snprintf(x->peer, sizeof x->peer, "%s", peer);
	if ((v = taskmap_sorted(&n->map, &count)) != NULL &&
	    (x->uuids = malloc(count * sizeof *x->uuids)) != NULL) {
		for (k = 0; k < count; k++)
			memcpy(x->uuids[k], v[k]->uuid, sizeof x->uuids[k]);
		x->n = count;
	}
	free(v);
	if (send_chunk(n, x))
		end_transfer(n, (int)(x - a->xfer));
}

int
antientropy_transferring(const struct node *n)
{
	return n->antientropy.nxfer > 0;
}

void
antientropy_housekeeping(struct node *n)
{
	int	i = 0;

	while (i < n->antientropy.nxfer) {
		if (send_chunk(n, &n->antientropy.xfer[i]))
			end_transfer(n, i);
		else
			i++;
	}
}

void
antientropy_sync(struct node *n, int64_t now)
{
	const char	*master = election_master(n);
	struct peer_msg	 m;

	if (master[0] == '\0' || node_is_master(n))
		return;
	n->antientropy.last_sync = now;
	n->antientropy.mismatches = 0;
	peer_msg_init(&m, PEER_TASKS_TRANSFER);
	outbox_peer(&n->out, master, &m);
	send_all(n, master);
}

uint64_t
node_digest(struct node *n)
{
	return n->antientropy.digest;
}

/* The digest from scratch, for the simulator to check the kept one. */
uint64_t
node_digest_recomputed(const struct node *n)
{
	const struct task	*t;
	uint64_t		 d = 0;
	size_t			 it = 0;

	while ((t = taskmap_next(&n->map, &it)) != NULL)
		d ^= digest_part(t);
	return d;
}

/*
 * The master's half: a node whose digest stays unlike ours for three of
 * its heartbeats is sent our map without asking.  Its own request is one
 * datagram, answered by one datagram a record: on a lossy LAN a node
 * could lack a task for minutes, asking again and again.
 */
static void
master_recv_heartbeat(struct node *n, struct peer *p,
    const struct peer_msg *m, int64_t now)
{
	if (m->digest == node_digest(n)) {
		p->ae_mismatches = 0;
		return;
	}
	if (++p->ae_mismatches < 3 ||
	    now - p->ae_sent_ms < heartbeat_timeout_ms(n))
		return;
	p->ae_mismatches = 0;
	p->ae_sent_ms = now;
	outbox_log(&n->out, VLOG_INFO, "state of %s differs from ours; sending "
	    "it our map", p->name);
	send_all(n, p->name);
}

/* Anti-entropy: a lasting difference from the master's map is a miss. */
void
antientropy_recv_heartbeat(struct node *n, struct peer *p,
    const struct peer_msg *m, int64_t now)
{
	struct antientropy	*r = &n->antientropy;

	if (node_is_master(n)) {
		master_recv_heartbeat(n, p, m, now);
		return;
	}
	if (strcmp(m->sender, election_master(n)) != 0)
		return;
	if (m->digest != node_digest(n))
		r->mismatches++;
	else
		r->mismatches = 0;
	if (r->mismatches >= 3 &&
	    now - r->last_sync >= heartbeat_timeout_ms(n)) {
		outbox_log(&n->out, VLOG_INFO, "state differs from master "
		    "%s's; synchronising", election_master(n));
		antientropy_sync(n, now);
	}
}

void
antientropy_recv_tasks_transfer(struct node *n, const struct peer_msg *m)
{
	send_all(n, m->sender);
}

