/*
 * pull.h -- the lists of a sync (antientropy.c).  For each bucket whose
 * digests differ and that the other side holds records of, a side lists
 * its records by (uuid, share of the digest), PEER_LIST_MAX a datagram;
 * the other asks (GET_TASK) for those it lacks or holds otherwise.
 * Under load the buckets differ by the few records on their way: sending
 * every record of them, most of which the other held, made a sync cost
 * more as the map grew.
 */
#ifndef VOLERY_PULL_H
#define VOLERY_PULL_H

#include <stddef.h>

#include "bounds.h"

struct node;
struct peer_msg;

/* uuids[0..count) that are still in the map, in one list to peer
 * (count at most PEER_LIST_MAX). */
void	pull_list(struct node *, const char *peer,
	    char (*uuids)[UUID_STRLEN + 1], size_t count);
/* A list: the records we lack or hold otherwise, asked of its sender. */
void	pull_recv_list(struct node *, const struct peer_msg *);

#endif
