/*
 * requests.h -- a client's request lines (volery-protocol(7)), parsed
 * by the wire codec and dispatched from one table (requests.c): each
 * request's name, who may send it (clients.h: local, a remote operator,
 * another node) and whether it changes the node (then the core's
 * actions are carried out after it).  One file per family: req-task.c
 * (SCHEDULE, RUN, CANCEL, SUBSCRIBE), req-view.c (TASKS, HISTORY, NODES,
 * API, ACCOUNT), req-log.c (LOG, OUTPUT).
 */
#ifndef VOLERY_REQUESTS_H
#define VOLERY_REQUESTS_H

#include <stddef.h>
#include <stdint.h>

struct client;
struct node;
struct node_config;

/* This node as NODES tells it. */
struct requests_env {
	struct node		 *core;		/* set once made */
	const char		 *name;
	const char		 *address;	/* its client address */
	int			  reputation;
	const struct node_config *caps;		/* cores, memory, tags */
};

/* env must outlive the node.  Registers SUBSCRIBE's listener. */
void	requests_init(const struct requests_env *);
/* A request line (clients_line_fn). */
void	requests_line(struct client *, const char *, size_t);

#endif
