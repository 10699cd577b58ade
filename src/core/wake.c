/*
 * wake.c -- sleepers kept, and woken when work waits for them (wake.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"

static struct wake_sleeper *
find(struct wake *w, const char *name)
{
	size_t	i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->v[i].name, name) == 0)
			return &w->v[i];
	return NULL;
}

/* Room for one more: the array grows, or the longest asleep goes. */
static struct wake_sleeper *
add(struct wake *w)
{
	struct wake_sleeper	*v;
	size_t			 i, old = 0;

	if (w->n == w->cap && w->cap < WAKE_SLEEPERS_MAX) {
		if ((v = realloc(w->v, (w->cap ? w->cap * 2 : 8) *
		    sizeof *v)) != NULL) {
			w->v = v;
			w->cap = w->cap ? w->cap * 2 : 8;
		}
	}
	if (w->n < w->cap)
		return &w->v[w->n++];
	if (w->n == 0)
		return NULL;
	for (i = 1; i < w->n; i++)
		if (w->v[i].asleep_ms < w->v[old].asleep_ms)
			old = i;
	return &w->v[old];
}

void
wake_heard(struct node *n, const struct peer *p, const struct peer_msg *m,
    int64_t now)
{
	struct wake		*w = &n->wake;
	struct wake_sleeper	*s = find(w, p->name);

	if (m->wake == NULL || strcmp(m->volunteer, "asleep") != 0) {
		if (s == NULL)
			return;
		outbox_log(&n->out, VLOG_NORMAL, "node %s is awake again%s",
		    s->name, s->woken_ms >= 0 ? ", woken" : "");
		*s = w->v[--w->n];
		return;
	}
	if (s == NULL) {
		if ((s = add(w)) == NULL)
			return;
		memset(s, 0, sizeof *s);
		snprintf(s->name, sizeof s->name, "%s", p->name);
		s->asleep_ms = now;
		s->woken_ms = -1;
		outbox_log(&n->out, VLOG_NORMAL, "node %s is asleep; it wakes "
		    "by %s", s->name, m->wake);
	}
	snprintf(s->how, sizeof s->how, "%s", m->wake);
	s->speed = p->speed;
	s->slots = p->slots > 0 ? p->slots : 1;
	s->window_from_ms = p->window_from_ms;
	s->window_to_ms = p->window_to_ms;
}

/* Would it take work now, woken?  Its batch window is open, or it
 * volunteers whenever it is up. */
static int
would_work(const struct wake_sleeper *s, int64_t now)
{
	return strstr(s->how, ",always") != NULL ||
	    (s->window_to_ms > 0 && s->window_from_ms <= now &&
	    now < s->window_to_ms);
}

/* The fastest sleeper that would work and was not woken lately. */
static struct wake_sleeper *
best(struct wake *w, int64_t now)
{
	struct wake_sleeper	*b = NULL, *s;
	size_t			 i;

	for (i = 0; i < w->n; i++) {
		s = &w->v[i];
		if ((s->woken_ms >= 0 && now - s->woken_ms < WAKE_RETRY_MS) ||
		    !would_work(s, now))
			continue;
		if (b == NULL || s->speed > b->speed || (s->speed == b->speed &&
		    strcmp(s->name, b->name) < 0))
			b = s;
	}
	return b;
}

/* Nothing here for a dedicated or batch node that could be woken, and
 * not the master: after sleep_when_idle_ms of it, to sleep. */
static void
sleep_self(struct node *n, int64_t now)
{
	struct wake	*w = &n->wake;
	const char	*state = run_volunteer_state(n);
	int		 nothing;

	nothing = n->cfg.sleep_when_idle_ms > 0 && n->cfg.wake[0] != '\0' &&
	    (strcmp(state, "dedicated") == 0 || strcmp(state, "batch") == 0) &&
	    run_count(n) == 0 && readyq_fit_len(&n->ready) == 0 &&
	    !node_is_master(n);
	if (!nothing) {
		w->idle = w->slept = 0;
		return;
	}
	if (!w->idle) {
		w->idle = 1;
		w->idle_ms = now;
	}
	if (w->slept || now - w->idle_ms < n->cfg.sleep_when_idle_ms)
		return;
	w->slept = 1;
	outbox_log(&n->out, VLOG_NORMAL, "nothing for node %s to run for %"
	    PRId64 " min: it goes to sleep", n->cfg.name,
	    (now - w->idle_ms) / 60000);
	outbox_text(&n->out, ACT_SLEEP, "", "");
}

void
wake_housekeeping(struct node *n, int64_t now)
{
	struct wake		*w = &n->wake;
	struct wake_sleeper	*s;
	size_t			 waiting = readyq_len(&n->ready), i;
	size_t			 coming = 0;
	char			 text[NAME_MAXLEN + WAKE_TEXT_MAX + 2];
	int			 free;

	sleep_self(n, now);
	if (n->cfg.wake_after_ms <= 0 || w->n == 0 || waiting == 0 ||
	    !node_is_master(n)) {
		w->starved = 0;
		return;
	}
	/* Counting idle peers may walk the table (placement's key): only
	 * when there is someone to wake. */
	free = peertab_idle_count(n, now) + (run_volunteering(n) &&
	    run_count(n) < n->cfg.slots);
	if (free > 0) {
		w->starved = 0;
		return;
	}
	if (!w->starved) {
		w->starved = 1;
		w->starved_ms = now;
	}
	if (now - w->starved_ms < n->cfg.wake_after_ms)
		return;
	for (i = 0; i < w->n; i++)
		if (w->v[i].woken_ms >= 0 &&
		    now - w->v[i].woken_ms < WAKE_RETRY_MS)
			coming += (size_t)w->v[i].slots;
	while (coming < waiting && (s = best(w, now)) != NULL) {
		s->woken_ms = now;
		coming += (size_t)s->slots;
		w->woken++;
		outbox_log(&n->out, VLOG_NORMAL, "waking node %s (%s): %zu "
		    "Ready tasks waited %" PRId64 " s with no free slot",
		    s->name, s->how, waiting, (now - w->starved_ms) / 1000);
		snprintf(text, sizeof text, "%s %s", s->name, s->how);
		outbox_text(&n->out, ACT_WAKE, "", text);
	}
}

void
wake_status(const struct node *n, struct node_status *st)
{
	st->sleepers = n->wake.n;
	st->woken = n->wake.woken;
}

void
wake_free(struct node *n)
{
	free(n->wake.v);
	n->wake.v = NULL;
	n->wake.n = n->wake.cap = 0;
}

/* About to suspend: our runs back to Ready, and the pool told. */
void
node_sleep(struct node *n, int64_t now)
{
	run_stop_all(n, now);
	heartbeat_send(n, "asleep", now);
}
