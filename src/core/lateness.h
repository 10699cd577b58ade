/*
 * lateness.h -- how late the peers' stamped datagrams arrive (our clock
 * at arrival minus the sender's stamp): the bound a rival's earlier
 * claim keeps, from which the dequeue race sizes its window.
 */
#ifndef VOLERY_LATENESS_H
#define VOLERY_LATENESS_H

#include <stdint.h>

#define LATENESS_MARGIN_MS	2	/* the clocks' millisecond steps */
#define LATENESS_MAX_MS		60000	/* a sample counts at most this */
#define LATENESS_FORGET_MS	20000	/* unheard this long: start anew */
/* How fast a sender's base may rise (lateness_base): a clock that
 * drifts or is stepped back is followed within seconds. */
#define LATENESS_BASE_RISE	1	/* ms a second */
#define LATENESS_OVER_MAX_MS	2000	/* an excess counts at most this */

struct lateness_base;		/* a sender's own (node.h) */

struct lateness {
	int64_t		heard;		/* the last sample; -1 none */
	int64_t		mean_us;	/* smoothed mean */
	int64_t		dev_us;		/* smoothed mean deviation */
	/* The same of what each sample exceeds its sender's base by: the
	 * time spent queued and waiting for a CPU, whatever the clocks
	 * say. */
	int64_t		over_mean_us;
	int64_t		over_dev_us;
};

void	lateness_init(struct lateness *);
/* A datagram stamped `sent` by its sender's clock arrived now.  b: the
 * sender's base, whose excess over it counts too (at most
 * LATENESS_OVER_MAX_MS: one node's lies move the window little, and
 * only for a moment among many); NULL: the raw lateness only. */
void	lateness_heard(struct lateness *, struct lateness_base *b,
	    int64_t sent, int64_t now);
/* The same for a claim from the node whose base is b: its excess counts
 * only if it is the newest claim heard from that node.  A node stamps a
 * claim as it makes it and sends it at once (a burst's waiting shows in
 * it first, before any heartbeat); a claim told again, or passed on,
 * carries an older stamp and would look like waiting. */
void	lateness_heard_claim(struct lateness *, struct lateness_base *b,
	    int64_t sent, int64_t now);
/* How long a race waits for rival claims now: at most `most` (and that
 * until the first stamp comes), or more while the stamps come later
 * than their senders' bases by more, up to `ceiling`. */
int64_t	lateness_window_ms(const struct lateness *, int64_t most,
	    int64_t ceiling, int64_t now);
/* The same, but never less than `most`: how long claims are held. */
int64_t	lateness_hold_ms(const struct lateness *, int64_t most,
	    int64_t ceiling, int64_t now);

#endif
