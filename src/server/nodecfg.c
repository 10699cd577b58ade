/*
 * nodecfg.c -- the config's policies and timings, as the core takes
 * them (nodecfg.h).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "node.h"
#include "nodecfg.h"
#include "owner.h"
#include "wol.h"

static void	wake_self(struct node_config *, const struct config *);

void
nodecfg_fill(struct node_config *nc, const struct config *cfg,
    int reputation)
{
	nc->max_attempts = cfg->max_attempts;
	nc->retry_delay_ms = (int64_t)cfg->retry_delay_s * 1000;
	nc->quarantine_after = cfg->quarantine_after;
	nc->quarantine_window_ms = (int64_t)cfg->quarantine_window_s * 1000;
	nc->quarantine_ms = (int64_t)cfg->quarantine_s * 1000;
	nc->checkpoint_copies = cfg->checkpoint_copies;
	nc->max_checkpoint_bytes = (int64_t)cfg->max_checkpoint_mb << 20;
	nc->ageing_ms = (int64_t)cfg->ageing_s * 1000;
	nc->order = cfg->order;
	nc->placement = cfg->placement;
	nc->replicate_tail = cfg->replicate_tail;
	nc->owner_min_uid = owner_mode() == OWNER_FIXED ? -1 : cfg->min_uid;
	nc->max_running_per_user = cfg->max_running_per_user;
	snprintf(nc->max_running_of, sizeof nc->max_running_of, "%s",
	    cfg->max_running_of);
	nc->fairshare_halflife_ms = (int64_t)cfg->fairshare_halflife_s * 1000;
	nc->reputation = reputation;
	nc->dequeue_window_ms = cfg->dequeue_window_ms;
	nc->election_window_ms = cfg->election_window_ms;
	nc->progress_interval_ms = cfg->progress_interval_ms;
	nc->failure_timeout_ms = cfg->failure_timeout_ms;
	nc->node_timeout_ms = cfg->node_timeout_ms;
	nc->quiet_heartbeat_ms = cfg->quiet_heartbeat_ms;
	nc->membership_timeout_ms = (int64_t)cfg->membership_timeout_s * 1000;
	nc->retention_ms = (int64_t)cfg->retention_s * 1000;
	nc->max_peers = cfg->max_peers;
	nc->peer_evict_ms = (int64_t)cfg->peer_evict_s * 1000;
	nc->max_clock_skew_ms = (int64_t)cfg->max_clock_skew_s * 1000;
	nc->log_min = cfg->log_level;
	nc->wake_after_ms = (int64_t)cfg->wake_after_s * 1000;
	nc->sleep_when_idle_ms = (int64_t)cfg->sleep_when_idle_min * 60000;
	wake_self(nc, cfg);
}

/* How the pool wakes us, told when we sleep (wake.h); on loopback there
 * is no network card to wake, and nothing to say. */
static void
wake_self(struct node_config *nc, const struct config *cfg)
{
	char	err[256];

	if (wol_self(cfg->broadcast, cfg->mode == VOL_DEDICATED, nc->wake,
	    sizeof nc->wake, err, sizeof err) == -1)
		log_msg(strncmp(cfg->broadcast, "127.", 4) == 0 ? VLOG_DEBUG :
		    VLOG_NORMAL, "this node cannot be woken (Wake-on-LAN): "
		    "%s", err);
}
