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

struct lateness {
	int64_t		heard;		/* the last sample; -1 none */
	int64_t		mean_us;	/* smoothed mean */
	int64_t		dev_us;		/* smoothed mean deviation */
};

void	lateness_init(struct lateness *);
/* A datagram stamped `sent` by its sender's clock arrived now. */
void	lateness_heard(struct lateness *, int64_t sent, int64_t now);
/* How long a race waits for rival claims now: at most `most`, and that
 * until the first stamp comes. */
int64_t	lateness_window_ms(const struct lateness *, int64_t most,
	    int64_t now);

#endif
