/*
 * peerrate.c -- per-peer rate limits on races and candidacies
 * (peerrate.h); each peer's window and count live in its struct peer.
 */
#include "nodestate.h"
#include "peerrate.h"
#include "ratelimit.h"

int
peerrate_allow(struct node *n, struct peer *p, enum peer_rate kind,
    const char *what, int64_t now)
{
	struct peerrate	*pr = &n->peerrate;
	int64_t		 window = kind == RATE_DEQUEUE ?
			    n->cfg.dequeue_window_ms : n->cfg.election_window_ms;

	if (now - p->rate_start[kind] >= window) {
		p->rate_start[kind] = now;
		p->rate_count[kind] = 0;
	}
	if (++p->rate_count[kind] <= (kind == RATE_DEQUEUE ?
	    RATE_DEQUEUE_BUDGET : RATE_BUDGET))
		return 1;
	pr->limited++;
	if (ratelimit_due(&pr->limited_logged, now))
		outbox_log(&n->out, VLOG_WARNING, "node %s sends %s faster than "
		    "any node should: dropped (%llu over the limits so far)",
		    p->name, what, (unsigned long long)pr->limited);
	return 0;
}
