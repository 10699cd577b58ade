/*
 * lateness.c -- how late stamped datagrams arrive (lateness.h).
 *
 * The window must outlast the lateness of any rival claim stamped before
 * ours.  A claim stamped s by its sender arrives at our clock's s + d +
 * o (d the delay, o how far our clock is ahead of the sender's), so the
 * lateness we measure on the peers' stamped datagrams is that bound,
 * clock offsets included.  We estimate it as TCP does a round trip
 * (RFC 6298): a smoothed mean and mean deviation, in microseconds so
 * that small steps do not vanish in the divisions.
 */
#include "lateness.h"

void
lateness_init(struct lateness *l)
{
	l->heard = -1;
	l->mean_us = l->dev_us = 0;
}

/* A stamp was heard lately: the estimate stands. */
static int
known(const struct lateness *l, int64_t now)
{
	return l->heard >= 0 && now - l->heard < LATENESS_FORGET_MS;
}

void
lateness_heard(struct lateness *l, int64_t sent, int64_t now)
{
	int64_t	late = now > sent ? now - sent : 0;
	int64_t	err;

	if (late > LATENESS_MAX_MS)
		late = LATENESS_MAX_MS;		/* a clock far behind ours */
	late *= 1000;
	if (!known(l, now)) {
		l->mean_us = late;
		l->dev_us = late / 2;
	} else {
		err = late - l->mean_us;
		l->dev_us += ((err < 0 ? -err : err) - l->dev_us) / 4;
		l->mean_us += err / 8;
	}
	l->heard = now;
}

/*
 * Twice the mean, as a node that knows the task is taken answers our
 * claim (dequeue_recv_try): a round trip; four deviations for the
 * stragglers; 2 ms for the clocks' millisecond steps, the stamp's and
 * the deadline's.  On a quiet LAN a few milliseconds.
 */
int64_t
lateness_window_ms(const struct lateness *l, int64_t most, int64_t now)
{
	int64_t	w;

	if (!known(l, now))
		return most;
	w = (2 * l->mean_us + 4 * l->dev_us + 500) / 1000 + LATENESS_MARGIN_MS;
	return w < most ? w : most;
}
