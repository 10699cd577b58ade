/*
 * nodeconfig.c -- a node's configuration: its defaults, and what no
 * node can run with (node.h's struct node_config).
 */
#include <stdio.h>
#include <string.h>

#include "node.h"

/*
 * The defaults, once: volery.conf(5) documents them and config.c starts
 * from them.  Windows are sized for a LAN: milliseconds.
 */
void
node_config_default(struct node_config *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "node");
	c->slots = 1;
	c->max_attempts = 3;
	c->retry_delay_ms = 1000;
	c->quarantine_after = 3;
	c->quarantine_window_ms = 600000;
	c->quarantine_ms = 3600000;
	c->checkpoint_copies = 2;
	c->max_checkpoint_bytes = 64LL << 20;
	c->ageing_ms = 600000;
	c->reputation = 10;
	c->dequeue_window_ms = 10;
	c->election_window_ms = 50;
	c->progress_interval_ms = 250;
	c->failure_timeout_ms = 2000;
	c->node_timeout_ms = 2000;
	c->quiet_heartbeat_ms = 5000;
	c->membership_timeout_ms = 600000;
	c->retention_ms = 7 * 86400000LL;
	c->max_peers = 1024;
	c->peer_evict_ms = 86400000;
	c->fairshare_halflife_ms = 3600000;
}

/* What no node can run with: the caller checked ranges before (config.c). */
int
node_config_valid(const struct node_config *c)
{
	return task_name_valid(c->name) && c->slots >= 1 &&
	    c->max_attempts >= 1 && c->ageing_ms >= 0 &&
	    c->retry_delay_ms >= 0 && c->quarantine_after >= 0 &&
	    c->quarantine_window_ms >= 0 && c->quarantine_ms >= 0 &&
	    c->checkpoint_copies >= 0 &&
	    c->checkpoint_copies < CKPT_HOLDERS_MAX &&
	    c->max_checkpoint_bytes >= 0 &&
	    c->dequeue_window_ms >= 1 && c->election_window_ms >= 1 &&
	    c->progress_interval_ms >= 1 && c->failure_timeout_ms >= 1 &&
	    c->membership_timeout_ms >= c->node_timeout_ms &&
	    c->node_timeout_ms >= 1 && c->max_peers >= 1 &&
	    c->peer_evict_ms >= c->membership_timeout_ms;
}
