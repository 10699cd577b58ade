/*
 * outfetch.h -- OUTPUT of a task that ran on another node: asked of
 * that node at its client address (its heartbeats tell it), as a node
 * of the cluster (AUTH PEER, with the cluster key) unless it is on
 * loopback, and its reply passed on to our client chunk by chunk.  A
 * node lost on the way ends the reply with an ERROR line.
 */
#ifndef VOLERY_OUTFETCH_H
#define VOLERY_OUTFETCH_H

struct client;
struct event_base;
struct keyring;

void	outfetch_init(struct event_base *, const struct keyring *);
/* Ask node (client address addr) request, an OUTPUT line; c is held
 * until the reply is whole. */
void	outfetch_start(struct client *c, const char *node, const char *addr,
	    const char *request);

#endif
