/*
 * avail.c -- when nodes take tasks, as their batch windows tell
 * (avail.h).
 */
#include <stdint.h>

#include "nodestate.h"
#include "volunteer.h"

void
avail_decided(struct node *n, const struct vol_decision *d, int64_t now)
{
	n->avail.from_ms = d->window_ms > 0 ? now + d->window_in_ms : 0;
	n->avail.to_ms = d->window_ms > 0 ? n->avail.from_ms + d->window_ms :
	    0;
}

void
avail_tell(const struct node *n, struct peer_msg *m, int64_t now)
{
	const struct avail	*a = &n->avail;
	int64_t			 from = a->from_ms > now ? a->from_ms : now;

	if (a->to_ms - from < 1000)
		return;			/* none, or over */
	m->window_in_s = (from - now) / 1000;
	m->window_s = (a->to_ms - from) / 1000;
}

void
avail_ours(const struct node *n, int64_t *from, int64_t *to)
{
	*from = n->avail.from_ms;
	*to = n->avail.to_ms;
}

void
avail_heard(struct peer *p, const struct peer_msg *m, int64_t now)
{
	p->window_from_ms = m->window_s > 0 ? now + m->window_in_s * 1000 : 0;
	p->window_to_ms = m->window_s > 0 ? p->window_from_ms + m->window_s *
	    1000 : 0;
}

/* Takes tasks now or not; a window [from, to) known or not (to 0). */
static int
slots_when(int takes, int64_t wfrom, int64_t wto, int64_t now,
    int64_t *from, int64_t *until)
{
	int	window = wto > now;

	*from = now;
	*until = INT64_MAX;
	if (takes) {
		if (window && wfrom <= now)
			*until = wto;	/* in its window: until it ends */
		return 1;
	}
	if (!window)
		return 0;
	*from = wfrom > now ? wfrom : now;
	*until = wto;
	return 1;
}

int
avail_slots_when(const struct node *n, const struct peer *p, int64_t now,
    int64_t *from, int64_t *until)
{
	if (p == NULL)
		return slots_when(run_volunteering(n), n->avail.from_ms,
		    n->avail.to_ms, now, from, until);
	if (!p->alive)
		return 0;
	return slots_when(peerrun_takes_tasks(p), p->window_from_ms,
	    p->window_to_ms, now, from, until);
}
