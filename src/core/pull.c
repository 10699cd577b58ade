/*
 * pull.c -- a sync's lists (pull.h): our records of the buckets that
 * differ by (uuid, share), and the records asked for after another's.
 */
#include <string.h>

#include "digest.h"
#include "nodestate.h"
#include "peer.h"
#include "pull.h"

void
pull_list(struct node *n, const char *peer, char (*uuids)[UUID_STRLEN + 1],
    size_t count)
{
	static char		 buf[PEER_LIST_MAX * PEER_LIST_ENTRY];
	const struct task	*t;
	struct peer_msg		 m;
	size_t			 i, len = 0;

	for (i = 0; i < count && i < PEER_LIST_MAX; i++) {
		if ((t = taskmap_find(&n->map, uuids[i])) == NULL)
			continue;	/* retired since */
		memcpy(buf + len, t->uuid, UUID_STRLEN);
		digest_hex(t->digest_part, buf + len + UUID_STRLEN);
		len += PEER_LIST_ENTRY;
	}
	if (len == 0)
		return;
	peer_msg_init(&m, PEER_TASKS_TRANSFER);
	m.transfer = PEER_TRANSFER_LIST;
	m.record = buf;
	m.record_len = len;
	outbox_peer(&n->out, peer, &m);
}

/* Ours agree with an entry the wire checked. */
static int
agrees(const struct node *n, const char *entry, char *uuid)
{
	const struct task	*t;

	memcpy(uuid, entry, UUID_STRLEN);
	uuid[UUID_STRLEN] = '\0';
	return (t = taskmap_find(&n->map, uuid)) != NULL &&
	    t->digest_part == digest_unhex(entry + UUID_STRLEN);
}

void
pull_recv_list(struct node *n, const struct peer_msg *m)
{
	struct peer_msg	 get;
	size_t		 off;

	/* Which is newer is the merge's to say: the other side pulls ours
	 * from our list of the same buckets.  A list a tick comes
	 * (antientropy.h): its answers fit a socket's buffer. */
	for (off = 0; off + PEER_LIST_ENTRY <= m->record_len;
	    off += PEER_LIST_ENTRY) {
		peer_msg_init(&get, PEER_GET_TASK);
		if (!agrees(n, m->record + off, get.uuid))
			outbox_peer(&n->out, m->sender, &get);
	}
}
