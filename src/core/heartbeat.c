/*
 * heartbeat.c -- our heartbeat, its period and the silence that makes a
 * node dead (heartbeat.h).
 */
#include <stdio.h>

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

int64_t
heartbeat_timeout_ms(const struct node *n)
{
	int64_t	four = 4 * heartbeat_period_ms(n);

	return four > n->cfg.node_timeout_ms ? four : n->cfg.node_timeout_ms;
}

void
heartbeat_send(struct node *n, const char *volunteer, int64_t now)
{
	struct peer_msg	m;

	peer_msg_init(&m, PEER_HEARTBEAT);
	m.master = node_is_master(n);
	m.epoch = election_epoch(n);
	m.free = n->cfg.slots - run_count(n);
	m.slots = n->cfg.slots;
	snprintf(m.volunteer, sizeof m.volunteer, "%s",
	    volunteer != NULL ? volunteer : run_volunteer_state(n));
	m.reputation = n->cfg.reputation;
	m.map_size = taskmap_count(&n->map);
	m.digest = node_digest(n);
	m.client_port = n->cfg.client_port;
	m.speed = placement_speed(n);
	m.life_s = placement_life_tell(n, now);
	m.timestamp = now;	/* the peers size their race windows by it */
	outbox_peer(&n->out, NULL, &m);
}
