/*
 * peerrun.h -- what a peer is doing, as its messages tell: volunteering
 * or not, running or idle.  Pure functions of one struct peer; peertab.c
 * keeps the table and re-ranks the idle when they change.
 */
#ifndef VOLERY_PEERRUN_H
#define VOLERY_PEERRUN_H

struct peer;
struct peer_msg;

enum peerrun_news {
	PEERRUN_SAME,		/* nothing new of its runs */
	PEERRUN_BEGAN,		/* a run of its began */
	PEERRUN_ENDED,		/* its run ended: it may be idle */
};

/*
 * A STATE m from peer p: if about a run of p's own, note it.  A one-slot
 * peer's Running takes its slot and the end of that run frees it, at
 * once -- its heartbeat says so only at its next beat, seconds apart in
 * a big pool -- so that runs ending together rank their nodes alike.
 */
enum peerrun_news peerrun_state(struct peer *, const struct peer_msg *);
/* A heartbeat's volunteer state that takes tasks (idle, dedicated,
 * batch). */
int	peerrun_volunteer_takes(const char *volunteer);
/* ... that left the membership: stopped (not asleep: peerrun.c). */
int	peerrun_volunteer_left(const char *volunteer);
/* It is alive and volunteering; and it has a free slot now. */
int	peerrun_takes_tasks(const struct peer *);
int	peerrun_is_idle(const struct peer *);

#endif
