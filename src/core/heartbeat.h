/*
 * heartbeat.h -- our heartbeat (thesis 3.6.2: who is alive, master, free
 * slots, the map's digest), how often it goes, and how long a silence
 * makes a node dead.
 */
#ifndef VOLERY_HEARTBEAT_H
#define VOLERY_HEARTBEAT_H

#include <stdint.h>

struct node;

/*
 * Idle traffic is bounded whatever the pool's size: a node hears at most
 * HEARD_PER_TIMEOUT heartbeats per node_timeout_ms (20 a second at the
 * default 2 s).  Up to HEARD_PER_TIMEOUT / 4 peers every node beats four
 * times a timeout; past that the period grows with the pool, and a node
 * is dead after four periods' silence: failure detection slows only
 * where the pool would otherwise flood every node.
 */
#define HEARD_PER_TIMEOUT	40
int64_t	heartbeat_period_ms(const struct node *);
int64_t	heartbeat_timeout_ms(const struct node *);
/* Send ours; volunteer: what it says of us, or NULL (as we are). */
void	heartbeat_send(struct node *, const char *volunteer, int64_t now);

#endif
