/*
 * antientropy.c -- what keeps the maps equal when datagrams are lost:
 * the map digest every heartbeat carries, a node that disagrees with its
 * master three times running synchronises (TASKS_TRANSFER both ways),
 * and so does a node that joins or steps down (thesis 3.6.3); the master
 * syncs with a node that disagrees with it three times running.  A sync
 * moves only the buckets of the map whose digests differ: under load
 * the maps differ at every heartbeat by the records on their way, and a
 * whole map each time would be most of the pool's traffic.  Of those
 * buckets, a side gets the records of the ones it has none in, and
 * lists of the others to ask from (pull.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "heartbeat.h"
#include "nodestate.h"
#include "peer.h"
#include "pull.h"

void
antientropy_init(struct node *n)
{
	n->antientropy.digest = 0;	/* of the empty map */
	memset(n->antientropy.bucket, 0, sizeof n->antientropy.bucket);
}

/* t's share in or out of the digest and of its bucket's. */
static void
flip(struct antientropy *a, const struct task *t)
{
	a->digest ^= t->digest_part;
	a->bucket[digest_bucket(t->uuid)] ^= t->digest_part;
}

void
antientropy_changed(struct node *n, struct task *t)
{
	if (t->in_digest)
		flip(&n->antientropy, t);
	t->digest_part = digest_part(t);
	t->in_digest = 1;
	flip(&n->antientropy, t);
}

void
antientropy_gone(struct node *n, struct task *t)
{
	if (t->in_digest)
		flip(&n->antientropy, t);
	t->in_digest = 0;
}

void
antientropy_recount(struct node *n)
{
	struct task	*t;
	size_t		 it = 0;

	n->antientropy.digest = 0;
	memset(n->antientropy.bucket, 0, sizeof n->antientropy.bucket);
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
	size_t	k;
	int	sent = 0;

	while (x->next < x->nrec && sent < ANTIENTROPY_CHUNK) {
		const struct task *t = taskmap_find(&n->map,
		    x->uuids[x->next++]);
		if (t != NULL) {
			replicate_send(n, x->peer, PEER_ENQUEUE, t);
			sent++;
		}
	}
	for (k = 0; x->next >= x->nrec && x->next < x->n &&
	    k < ANTIENTROPY_LISTS && sent < ANTIENTROPY_CHUNK; k++) {
		size_t m = x->n - x->next < PEER_LIST_MAX ? x->n - x->next :
		    PEER_LIST_MAX;
		pull_list(n, x->peer, x->uuids + x->next, m);
		x->next += m;
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

/* Whether bucket b is one mask (PEER_BUCKETS bits) holds. */
static int
in_mask(const uint8_t *mask, unsigned b)
{
	return mask == NULL || (mask[b / 8] & 1u << (b % 8)) != 0;
}

_Static_assert(PEER_BUCKETS <= 256, "a bucket number is kept in a byte");

/* Our records in the buckets of mask (NULL: all) to peer, listed for
 * those also in listed (NULL: none) where we hold more than a few (a
 * few records cost no more than a list, and a lost datagram of three --
 * list, ask, record -- less): the first chunk now, the rest tick by
 * tick.  -1 if as many transfers as we keep are on their way
 * already. */
static int
send_buckets(struct node *n, const char *peer, const uint8_t *mask,
    const uint8_t *listed)
{
	struct antientropy	*a = &n->antientropy;
	struct transfer		*x = NULL;
	struct task		**v, *t;
	uint8_t			*bucket = NULL;	/* of v[k], hashed once */
	size_t			 count = 0, k, it = 0, held[PEER_BUCKETS];
	int			 i, pass;
	unsigned		 b;

	/* Asked again while a pass is on its way: it goes on (starting
	 * over would never get past the first chunks of a big map). */
	for (i = 0; i < a->nxfer; i++)
		if (strcmp(a->xfer[i].peer, peer) == 0)
			return 0;
	if (a->nxfer == ANTIENTROPY_TRANSFERS)
		return -1;	/* it will ask again */
	x = &a->xfer[a->nxfer++];
	memset(x, 0, sizeof *x);
	snprintf(x->peer, sizeof x->peer, "%s", peer);
	/* Only the tasks of the buckets asked for are sorted (by submit
	 * time, as they go): a busy pool's maps differ in a few buckets
	 * at a time, and a sort of the whole map per ask was a tenth of
	 * what a node did under W1. */
	memset(held, 0, sizeof held);
	if ((v = malloc((taskmap_count(&n->map) + 1) * sizeof *v)) != NULL) {
		while ((t = taskmap_next(&n->map, &it)) != NULL) {
			held[b = digest_bucket(t->uuid)]++;
			if (in_mask(mask, b))
				v[count++] = t;
		}
		taskmap_sort(v, count);
	}
	if (v != NULL && (bucket = malloc(count + 1)) != NULL &&
	    (x->uuids = malloc((count + 1) * sizeof *x->uuids)) != NULL) {
		for (k = 0; k < count; k++)
			bucket[k] = (uint8_t)digest_bucket(v[k]->uuid);
		for (pass = 0; pass < 2; pass++) {	/* records, lists */
			for (k = 0; k < count; k++) {
				b = bucket[k];
				if ((listed != NULL && in_mask(listed, b) &&
				    held[b] > ANTIENTROPY_PUSH_MAX) == pass)
					memcpy(x->uuids[x->n++], v[k]->uuid,
					    sizeof x->uuids[0]);
			}
			if (pass == 0)
				x->nrec = x->n;
		}
	}
	free(bucket);
	free(v);
	if (send_chunk(n, x))
		end_transfer(n, (int)(x - a->xfer));
	return 0;
}

int
antientropy_transferring(const struct node *n)
{
	return n->antientropy.nxfer > 0 || n->antientropy.nasks > 0;
}

static void	ask_send(struct node *, const char *);

void
antientropy_housekeeping(struct node *n, int64_t now)
{
	struct antientropy	*a = &n->antientropy;
	int			 i = 0;

	while (i < a->nasks) {
		struct ask *k = &a->asks[i];
		if (now - k->sent_ms < n->cfg.progress_interval_ms) {
			i++;
			continue;
		}
		if (k->tries >= ANTIENTROPY_ASK_TRIES) {
			a->asks[i] = a->asks[--a->nasks];
			continue;
		}
		k->tries++;
		k->sent_ms = now;
		ask_send(n, k->peer);
		i++;
	}
	i = 0;
	while (i < n->antientropy.nxfer) {
		if (send_chunk(n, &n->antientropy.xfer[i]))
			end_transfer(n, i);
		else
			i++;
	}
}

/* Our bucket digests to peer: it sends what differs, and asks us for
 * the same. */
static void
ask_send(struct node *n, const char *peer)
{
	char			 buf[PEER_BUCKETS * 16 + 1];
	struct peer_msg		 m;
	int			 b;

	for (b = 0; b < PEER_BUCKETS; b++)
		digest_hex(n->antientropy.bucket[b], buf + b * 16);
	peer_msg_init(&m, PEER_TASKS_TRANSFER);
	m.transfer = PEER_TRANSFER_ASK;
	m.record = buf;
	m.record_len = PEER_BUCKETS * 16;
	outbox_peer(&n->out, peer, &m);
}

/* Ask peer, and again until it answers. */
static void
ask(struct node *n, const char *peer, int64_t now)
{
	struct antientropy	*a = &n->antientropy;
	struct ask		*k = NULL;
	int			 i;

	for (i = 0; i < a->nasks && k == NULL; i++)
		if (strcmp(a->asks[i].peer, peer) == 0)
			k = &a->asks[i];
	if (k == NULL && a->nasks < ANTIENTROPY_TRANSFERS)
		k = &a->asks[a->nasks++];
	if (k != NULL) {
		snprintf(k->peer, sizeof k->peer, "%s", peer);
		k->sent_ms = now;
		k->tries = 1;
	}
	ask_send(n, peer);
}

/* peer answered our ask. */
static void
answered(struct node *n, const char *peer)
{
	struct antientropy	*a = &n->antientropy;
	int			 i;

	for (i = 0; i < a->nasks; i++)
		if (strcmp(a->asks[i].peer, peer) == 0) {
			a->asks[i] = a->asks[--a->nasks];
			return;
		}
}

void
antientropy_sync(struct node *n, int64_t now)
{
	const char	*master = election_master(n);

	if (master[0] == '\0' || node_is_master(n))
		return;
	n->antientropy.last_sync = now;
	n->antientropy.mismatches = 0;
	ask(n, master, now);
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
	outbox_log(&n->out, VLOG_INFO, "state of %s differs from ours; "
	    "synchronising", p->name);
	ask(n, p->name, now);
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

/*
 * Asked for our whole map (a node of an older version); for the buckets
 * that differ from the asker's (sent: the records of those it has none
 * in, lists of the others; and which of ours it should list back: the
 * same -- none if they agree by now); told which to list; or a list.
 */
void
antientropy_recv_tasks_transfer(struct node *n, const struct peer_msg *m)
{
	uint8_t			 mask[PEER_BUCKETS / 8], listed[PEER_BUCKETS / 8];
	char			 buf[PEER_BUCKETS / 4 + 1];
	struct peer_msg		 reply;
	uint64_t		 d;
	int			 b, i, differ = 0;

	memset(mask, 0, sizeof mask);
	memset(listed, 0, sizeof listed);
	switch (m->transfer) {
	case PEER_TRANSFER_ALL:
		(void)send_buckets(n, m->sender, NULL, NULL);
		return;
	case PEER_TRANSFER_LIST:
		pull_recv_list(n, m);
		return;
	case PEER_TRANSFER_SEND:	/* bit b % 4 of digit b / 4 */
		for (b = 0; b < PEER_BUCKETS; b++)
			if (digest_hexval(m->record[b / 4]) & 1 << (b % 4)) {
				mask[b / 8] |= 1u << (b % 8);
				differ++;
			}
		/* Until the maps agree: a record of the exchange may be
		 * lost too -- asked again at the next tick, a few times.
		 * Not while most buckets differ: that is records on their
		 * way (a busy pool), and each ask would move them all. */
		if (differ == 0 || differ > ANTIENTROPY_FEW_BUCKETS)
			answered(n, m->sender);
		(void)send_buckets(n, m->sender, mask, mask);
		return;
	}
	for (b = 0; b < PEER_BUCKETS; b++) {
		d = digest_unhex(m->record + b * 16);
		if (d != n->antientropy.bucket[b]) {
			mask[b / 8] |= 1u << (b % 8);
			differ++;
			if (d != 0)	/* it holds some: which, it lists */
				listed[b / 8] |= 1u << (b % 8);
		}
	}
	/* Too busy to send: no answer, so that it asks again. */
	if (differ > 0 && send_buckets(n, m->sender, mask, listed) == -1)
		return;
	for (i = 0; i < PEER_BUCKETS / 4; i++)
		buf[i] = digest_hexdigits[mask[i / 2] >> (4 * (i % 2)) & 0xf];
	peer_msg_init(&reply, PEER_TASKS_TRANSFER);
	reply.transfer = PEER_TRANSFER_SEND;
	reply.record = buf;
	reply.record_len = PEER_BUCKETS / 4;
	outbox_peer(&n->out, m->sender, &reply);
}

/* The buckets from scratch agree with those kept. */
int
node_digest_buckets_ok(const struct node *n)
{
	const struct task	*t;
	uint64_t		 bucket[PEER_BUCKETS];
	size_t			 it = 0;

	memset(bucket, 0, sizeof bucket);
	while ((t = taskmap_next(&n->map, &it)) != NULL)
		bucket[digest_bucket(t->uuid)] ^= digest_part(t);
	return memcmp(bucket, n->antientropy.bucket, sizeof bucket) == 0;
}

