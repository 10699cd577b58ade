/*
 * guard.c -- replay windows and name bindings of datagram senders
 * (guard.h).  The windows are WireGuard's: a bitmap sliding under the
 * newest sequence number, one per channel so that a burst of unicasts
 * read after a broadcast does not look old.
 */
#include <stdlib.h>
#include <string.h>

#include "guard.h"

static const char *
sender_name(const void *ctx, size_t i)
{
	return ((const struct guard *)ctx)->v[i].name;
}

void
guard_init(struct guard *g, size_t max, int64_t bind_ms, int64_t stale_ms)
{
	memset(g, 0, sizeof *g);
	g->max = max;
	g->bind_ms = bind_ms;
	g->stale_ms = stale_ms;
	g->idx.name = sender_name;
	g->idx.ctx = g;
}

void
guard_free(struct guard *g)
{
	free(g->v);
	nameidx_free(&g->idx);
	g->v = NULL;
	g->n = g->cap = 0;
}

/* A new sender's entry: appended, or the longest-silent dead one. */
static struct guard_sender *
make_room(struct guard *g, const char *name, int64_t now)
{
	struct guard_sender	*s, *v;
	size_t			 i, oldest = 0;

	if (g->n >= g->max) {
		for (i = 1; i < g->n; i++)
			if (g->v[i].heard_ms < g->v[oldest].heard_ms)
				oldest = i;
		if (g->n == 0 || now - g->v[oldest].heard_ms < g->bind_ms)
			return NULL;
		s = &g->v[oldest];
		memset(s, 0, sizeof *s);
		strcpy(s->name, name);
		nameidx_rebuild(&g->idx, g->n);
		return s;
	}
	if (g->n == g->cap) {	/* doubling: a pool's boot adds hundreds */
		size_t cap = g->cap == 0 ? 16 : 2 * g->cap;
		if ((v = realloc(g->v, cap * sizeof *v)) == NULL)
			return NULL;
		g->v = v;
		g->cap = cap;
	}
	s = &g->v[g->n++];
	memset(s, 0, sizeof *s);
	strcpy(s->name, name);
	if (nameidx_add(&g->idx, g->n) == -1) {
		g->n--;
		return NULL;
	}
	return s;
}

static int
same_host(const char *a, const char *b)
{
	size_t	la = strcspn(a, ":"), lb = strcspn(b, ":");

	return la == lb && memcmp(a, b, la) == 0;
}

/* Bit d of a window: counter top - d. */
static int
bit_test(const uint64_t *w, uint64_t d)
{
	return (int)(w[d / 64] >> (d % 64) & 1);
}

/* Slide a window of nw words by d counters (the newest moved up). */
static void
window_slide(uint64_t *w, size_t nw, uint64_t d)
{
	size_t	i, words = (size_t)(d / 64), bits = (size_t)(d % 64);

	if (d >= nw * 64) {
		memset(w, 0, nw * sizeof *w);
		return;
	}
	for (i = nw; i-- > 0;) {
		uint64_t hi = i >= words ? w[i - words] : 0;
		uint64_t lo = i >= words + 1 ? w[i - words - 1] : 0;
		w[i] = bits == 0 ? hi : hi << bits | lo >> (64 - bits);
	}
}

/* Take counter c on channel ch, or say it is a replay. */
static int
window_take(struct guard_sender *s, int ch, uint64_t c)
{
	uint64_t	*w = ch ? s->bseen : s->useen, d;
	size_t		 nw = ch ? GUARD_BCAST_WINDOW / 64 :
			    GUARD_UCAST_WINDOW / 64;

	if (c > s->top[ch]) {
		window_slide(w, nw, c - s->top[ch]);
		w[0] |= 1;
		s->top[ch] = c;
		return 0;
	}
	d = s->top[ch] - c;
	if (d >= nw * 64 || bit_test(w, d))
		return -1;
	w[d / 64] |= (uint64_t)1 << (d % 64);
	return 0;
}

static enum guard_verdict
drop(struct guard *g, enum guard_verdict v)
{
	g->count[v]++;
	return v;
}

enum guard_verdict
guard_admit(struct guard *g, const struct guard_dgram *d, int64_t now,
    char was[ADDR_MAXLEN + 1])
{
	struct guard_sender	*s;
	enum guard_verdict	 v = GUARD_OK;
	int			 i = nameidx_find(&g->idx, d->sender);
	int			 ch = (int)(d->seq & 1);

	was[0] = '\0';
	/* Counters start at 1: 0 is "nothing yet" in a window. */
	if (d->sealed && d->seq >> 1 == 0)
		return drop(g, GUARD_REPLAYED);
	if (d->sealed && g->skew_ms > 0 && (d->sent_ms > now + g->skew_ms ||
	    d->sent_ms < now - g->skew_ms))
		return drop(g, GUARD_SKEWED);
	if (i < 0) {
		if ((s = make_room(g, d->sender, now)) == NULL)
			return drop(g, GUARD_FULL);
		v = GUARD_NEW;
	} else {
		s = &g->v[i];
		if (d->incarnation < s->incarnation)
			return drop(g, GUARD_OLD_INCARNATION);
		if (strcmp(s->addr, d->addr) != 0) {
			memcpy(was, s->addr, sizeof s->addr);
			/* A sealed datagram is a key holder's: trust its
			 * restart on the same host at once.  Unsealed, the
			 * name waits for the old address's silence. */
			if (d->sealed && d->incarnation > s->incarnation &&
			    same_host(s->addr, d->addr))
				v = GUARD_RESTARTED;
			else if (now - s->heard_ms >= g->bind_ms)
				v = GUARD_MOVED;
			else
				return drop(g, GUARD_IMPOSTOR);
		} else if (d->incarnation > s->incarnation)
			v = GUARD_RESTARTED;
	}
	if (v != GUARD_OK && d->incarnation != s->incarnation) {
		s->incarnation = d->incarnation;
		memset(s->top, 0, sizeof s->top);
		memset(s->useen, 0, sizeof s->useen);
		memset(s->bseen, 0, sizeof s->bseen);
	}
	if (d->sealed) {
		/* After a reset (a new sender or incarnation) these pass. */
		if (s->top[ch] != 0 &&
		    d->sent_ms < s->newest_ms[ch] - g->stale_ms)
			return drop(g, GUARD_STALE);
		if (window_take(s, ch, d->seq >> 1) == -1)
			return drop(g, GUARD_REPLAYED);
		if (s->top[ch] == d->seq >> 1)
			s->newest_ms[ch] = d->sent_ms;
	}
	strncpy(s->addr, d->addr, ADDR_MAXLEN);
	s->addr[ADDR_MAXLEN] = '\0';
	s->heard_ms = now;
	g->count[v]++;
	return v;
}

const char *
guard_verdict_name(enum guard_verdict v)
{
	static const char *names[GUARD_NVERDICTS] = { "ok", "new",
	    "restarted", "moved", "replayed", "stale", "old incarnation",
	    "impostor", "too many senders", "clock skewed" };

	return (unsigned)v < GUARD_NVERDICTS ? names[v] : "?";
}
