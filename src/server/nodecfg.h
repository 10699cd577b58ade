/*
 * nodecfg.h -- the config's policies and timings (retries, quarantine,
 * checkpoints, order, placement, owners, windows and timeouts), in the
 * units the core takes them (node_config).
 */
#ifndef VOLERY_NODECFG_H
#define VOLERY_NODECFG_H

struct config;
struct node_config;

void	nodecfg_fill(struct node_config *, const struct config *,
	    int reputation);

#endif
