/*
 * avail.h -- when nodes take tasks, as their batch windows tell: a
 * workstation whose user is at it now but whose night window opens at
 * 19:00 will give its slots then, and one in its window gives them
 * until the window ends.  Told in heartbeats (window=IN,LASTS), kept
 * per peer, read by the deadline forecast (estimate.c).  Screensaver
 * spells and dedicated hosts tell nothing: their slots count while they
 * take tasks, with no end known.
 */
#ifndef VOLERY_AVAIL_H
#define VOLERY_AVAIL_H

#include <stdint.h>

struct node;
struct peer;
struct peer_msg;
struct vol_decision;

/* Ours: the window ahead, as the volunteer policy last decided. */
struct avail {
	int64_t	from_ms, to_ms;		/* 0 to_ms: none told */
};

/* The policy decided (node_volunteer): its window ahead is ours. */
void	avail_decided(struct node *, const struct vol_decision *,
	    int64_t now);
/* Our window ahead into a heartbeat (none once it is over). */
void	avail_tell(const struct node *, struct peer_msg *, int64_t now);
/* Ours, for node_status: opens, closes; 0 closes: none. */
void	avail_ours(const struct node *, int64_t *from, int64_t *to);
/* A peer's heartbeat: its window ahead, or none. */
void	avail_heard(struct peer *, const struct peer_msg *, int64_t now);
/*
 * When a node's slots take tasks, for a forecast: from *from until
 * *until (INT64_MAX: no end known).  p NULL: ours.  0 if they take none
 * now and none is known to come.
 */
int	avail_slots_when(const struct node *, const struct peer *p,
	    int64_t now, int64_t *from, int64_t *until);

#endif
