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
 *
 * That bound sizes the window up to dequeue_window_ms, the most a LAN
 * needs.  Beyond it the lateness is either clocks that disagree (which
 * no window can fix, and a long one would make every race slow) or
 * nodes that wait for a CPU: a hundred on two cores, or a desktop whose
 * user compiles.  Each sender's base -- the least lateness of its stamps
 * lately, its offset and the wire's delay -- tells the two apart: what a
 * sample exceeds its base by is waiting, and the window may grow by
 * that, as far as the caller's ceiling.
 */
#include "lateness.h"
#include "node.h"

void
lateness_init(struct lateness *l)
{
	l->heard = -1;
	l->mean_us = l->dev_us = 0;
	l->over_mean_us = l->over_dev_us = 0;
}

/* A stamp was heard lately: the estimate stands. */
static int
known(const struct lateness *l, int64_t now)
{
	return l->heard >= 0 && now - l->heard < LATENESS_FORGET_MS;
}

/* One sample into a smoothed mean and deviation (RFC 6298's gains). */
static void
smooth(int64_t *mean, int64_t *dev, int64_t sample, int first)
{
	int64_t	err;

	if (first) {
		*mean = sample;
		*dev = sample / 2;
		return;
	}
	err = sample - *mean;
	*dev += ((err < 0 ? -err : err) - *dev) / 4;
	*mean += err / 8;
}

/* How much raw (us, signed: a sender's clock may be ahead) exceeds the
 * sender's base, which it lowers, or which rises slowly towards it. */
static int64_t
over_base(struct lateness_base *b, int64_t raw, int64_t now)
{
	if (b->at_ms > 0 && now > b->at_ms)
		b->us += (now - b->at_ms) * LATENESS_BASE_RISE;
	if (b->at_ms <= 0 || raw < b->us)
		b->us = raw;
	b->at_ms = now > 0 ? now : 1;
	return raw - b->us;
}

void
lateness_heard(struct lateness *l, struct lateness_base *b, int64_t sent,
    int64_t now)
{
	int64_t	raw = now - sent, over;
	int	first = !known(l, now);

	if (raw > LATENESS_MAX_MS)
		raw = LATENESS_MAX_MS;		/* a clock far behind ours */
	else if (raw < -LATENESS_MAX_MS)
		raw = -LATENESS_MAX_MS;
	smooth(&l->mean_us, &l->dev_us, (raw > 0 ? raw : 0) * 1000, first);
	if (b != NULL) {
		over = over_base(b, raw * 1000, now);
		if (over > LATENESS_OVER_MAX_MS * 1000)
			over = LATENESS_OVER_MAX_MS * 1000;
		smooth(&l->over_mean_us, &l->over_dev_us, over, first);
	}
	l->heard = now;
}

void
lateness_heard_claim(struct lateness *l, struct lateness_base *b,
    int64_t sent, int64_t now)
{
	int	fresh = sent > b->claim_ms;

	if (fresh)
		b->claim_ms = sent;
	lateness_heard(l, fresh ? b : NULL, sent, now);
}

/*
 * Twice the mean, as a node that knows the task is taken answers our
 * claim (dequeue_recv_try): a round trip; four deviations for the
 * stragglers; 2 ms for the clocks' millisecond steps, the stamp's and
 * the deadline's.  On a quiet LAN a few milliseconds.  Past `most`, only
 * by the waiting beyond the senders' bases, the same way.
 */
int64_t
lateness_window_ms(const struct lateness *l, int64_t most, int64_t ceiling,
    int64_t now)
{
	int64_t	w, over;

	if (!known(l, now))
		return most;
	w = (2 * l->mean_us + 4 * l->dev_us + 500) / 1000 + LATENESS_MARGIN_MS;
	if (w <= most)
		return w;
	over = most + (2 * l->over_mean_us + 4 * l->over_dev_us + 500) / 1000;
	if (over < w)
		w = over;
	return w < ceiling ? w : ceiling;
}

int64_t
lateness_hold_ms(const struct lateness *l, int64_t most, int64_t ceiling,
    int64_t now)
{
	int64_t	w = lateness_window_ms(l, most, ceiling, now);

	return w > most ? w : most;
}
