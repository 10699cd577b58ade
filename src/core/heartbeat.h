/*
 * heartbeat.h -- our heartbeat (thesis 3.6.2: who is alive, master, free
 * slots, the map's digest), how often it goes, and how long a silence
 * makes a node dead.
 */
#ifndef VOLERY_HEARTBEAT_H
#define VOLERY_HEARTBEAT_H

#include <stdint.h>

struct node;
struct peer;

struct heartbeat {
	int64_t		told;		/* the period our last one told */
	int64_t		last_busy;	/* when we last had a run */
	int		greeted;	/* newcomers told alone since it */
};

/* Newcomers told ours alone between two broadcasts; more are told by a
 * broadcast soon (all at once, as when a whole office boots). */
#define GREET_ALONE_MAX	4

/*
 * Idle traffic is bounded whatever the pool's size: a node hears at most
 * HEARD_PER_TIMEOUT heartbeats per node_timeout_ms (20 a second at the
 * default 2 s).  Up to HEARD_PER_TIMEOUT / 4 peers every node beats four
 * times a timeout; past that the period grows with the pool, and a node
 * is dead after four periods' silence: failure detection slows only
 * where the pool would otherwise flood every node.
 */
#define HEARD_PER_TIMEOUT	40
/*
 * A quiet node's heartbeat only says it is there, and an office's
 * desks are quiet most of the day: in a pool big enough (past 25 nodes
 * at the default timings) a quiet node other than the master beats so
 * that each node hears at most QUIET_HEARD_PER_TIMEOUT of those a node
 * timeout (5 a second by default), every 20 s in a pool of 100.  A quiet
 * desk switched off is found dead four of those later (80 s at 100); one
 * running a task beats as a busy node does, and its run's failure is
 * found by its progress.
 */
#define QUIET_HEARD_PER_TIMEOUT	10
/* A node is dead after this many of its periods' silence. */
#define BEATS_MISSED		4
int64_t	heartbeat_period_ms(const struct node *);
int64_t	heartbeat_timeout_ms(const struct node *);
/*
 * A node quiet -- no run for node_timeout_ms -- beats only every
 * quiet_heartbeat_ms, and each heartbeat tells the period to its next, so
 * that its peers wait four of those before they call it dead.  A run's
 * own failure is found by its PROGRESS (failure_timeout_ms), not by
 * heartbeats; a quiet node that starts a run beats at once.
 */
int64_t	heartbeat_next_ms(const struct node *, int64_t now);
/* How long a silence makes peer p dead. */
int64_t	heartbeat_peer_timeout_ms(const struct node *, const struct peer *);
/* We join: quiet once settled in, not at once. */
void	heartbeat_start(struct node *, int64_t now);
/* After every event: a run ended or began (a quiet node beats soon). */
void	heartbeat_busy(struct node *, int64_t now);
/* Send ours; volunteer: what it says of us, or NULL (as we are).
 * Returns the period it told: the next is due that much later. */
int64_t	heartbeat_send(struct node *, const char *volunteer, int64_t now);
/*
 * A newcomer (or a peer back from silence) knows nothing of us: ours to
 * it alone, or to all soon past GREET_ALONE_MAX of them.  A broadcast for
 * each would make every join cost each node of the pool a datagram from
 * every other: a thousand a second each, while a thousand desktops are
 * switched on over a quarter of an hour.
 */
void	heartbeat_greet(struct node *, const char *peer, int64_t now);

#endif
