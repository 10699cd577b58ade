/*
 * heartbeat.c -- our heartbeat, its period and the silence that makes a
 * node dead (heartbeat.h).
 */
#include <stdio.h>
#include <string.h>

#include "heartbeat.h"
#include "nodestate.h"
#include "peer.h"

int64_t
heartbeat_period_ms(const struct node *n)
{
	int64_t	base = n->cfg.node_timeout_ms / 4;
	int64_t	scaled = (int64_t)peertab_live(n) * n->cfg.node_timeout_ms /
	    HEARD_PER_TIMEOUT;

	return scaled > base ? scaled : base;
}

/* Silence that makes dead a node beating every `period`: BEATS_MISSED
 * of them, never less than `least`. */
static int64_t
dead_after(int64_t period, int64_t least)
{
	int64_t	missed = BEATS_MISSED * period;

	return missed > least ? missed : least;
}

int64_t
heartbeat_timeout_ms(const struct node *n)
{
	return dead_after(heartbeat_period_ms(n), n->cfg.node_timeout_ms);
}

int64_t
heartbeat_next_ms(const struct node *n, int64_t now)
{
	int64_t	period = heartbeat_period_ms(n);
	int64_t	quiet = n->cfg.quiet_heartbeat_ms;
	int64_t	spread = (int64_t)peertab_live(n) * n->cfg.node_timeout_ms /
	    QUIET_HEARD_PER_TIMEOUT;

	if (quiet > 0 && spread > quiet && !node_is_master(n))
		quiet = spread;
	if (quiet > period && run_count(n) == 0 &&
	    now - n->heartbeat.last_busy >= n->cfg.node_timeout_ms)
		period = quiet;
	return period < BEAT_MAX_MS ? period : BEAT_MAX_MS;
}

int64_t
heartbeat_peer_timeout_ms(const struct node *n, const struct peer *p)
{
	return dead_after(p->beat_ms, heartbeat_timeout_ms(n));
}

int64_t
node_config_silence_ms(const struct node_config *c)
{
	return dead_after(c->quiet_heartbeat_ms, c->node_timeout_ms);
}

void
heartbeat_start(struct node *n, int64_t now)
{
	n->heartbeat.last_busy = now;
}

void
heartbeat_busy(struct node *n, int64_t now)
{
	if (run_count(n) == 0)
		return;
	n->heartbeat.last_busy = now;
	/* Our peers wait four quiet periods for us: tell them sooner that
	 * we run, so that our failure is found as fast as a busy node's. */
	if (n->heartbeat.told > heartbeat_period_ms(n))
		node_heartbeat_soon(n, now);
}

/* Our heartbeat as of now, all but the period it tells. */
static void
heartbeat_msg(struct node *n, const char *volunteer, int64_t now,
    struct peer_msg *m)
{
	peer_msg_init(m, PEER_HEARTBEAT);
	m->master = node_is_master(n);
	m->epoch = election_epoch(n);
	m->free = n->cfg.slots - run_count(n);
	m->slots = n->cfg.slots;
	snprintf(m->volunteer, sizeof m->volunteer, "%s",
	    volunteer != NULL ? volunteer : run_volunteer_state(n));
	m->reputation = n->cfg.reputation;
	m->map_size = taskmap_count(&n->map);
	m->digest = node_digest(n);
	m->client_port = n->cfg.client_port;
	m->speed = placement_speed(n);
	m->life_s = placement_life_tell(n, now);
	m->timestamp = now;	/* the peers size their race windows by it */
	capset_tell(n, m);
	avail_tell(n, m, now);
	if (strcmp(m->volunteer, "asleep") == 0 && n->cfg.wake[0] != '\0')
		m->wake = n->cfg.wake;	/* how to wake us (wake.h) */
}

int64_t
heartbeat_send(struct node *n, const char *volunteer, int64_t now)
{
	struct peer_msg	m;

	heartbeat_msg(n, volunteer, now, &m);
	m.beat_ms = n->heartbeat.told = heartbeat_next_ms(n, now);
	n->heartbeat.greeted = 0;
	outbox_peer(&n->out, NULL, &m);
	return m.beat_ms;
}

void
heartbeat_greet(struct node *n, const char *peer, int64_t now)
{
	struct peer_msg	m;

	if (n->heartbeat.greeted >= GREET_ALONE_MAX) {
		node_heartbeat_soon(n, now);
		return;
	}
	n->heartbeat.greeted++;
	heartbeat_msg(n, NULL, now, &m);
	/* Our next broadcast comes within the period the last one told. */
	m.beat_ms = n->heartbeat.told > 0 ? n->heartbeat.told :
	    heartbeat_next_ms(n, now);
	outbox_peer(&n->out, peer, &m);
}
