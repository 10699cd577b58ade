/*
 * api.h -- what the JSON API says (volery-api(7)), from the node's views:
 * the nodes, the tasks (the map, and a retired task from the history),
 * the workflows.  http.c serves it; nothing here changes the node.
 */
#ifndef VOLERY_API_H
#define VOLERY_API_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "bounds.h"
#include "logsearch.h"

struct node;
struct peer;
struct task;

/* This node, as NODES tells it. */
struct api_self {
	const char	*address;	/* its client address */
	int		 reputation;
	int		 cores;
	int64_t		 memory_mb;
	const char	*tags;
	const char	*containment;
};

void	api_init(struct node *, const struct api_self *);
/* A peer as NODES and GET /api/nodes tell it. */
struct api_peer {
	const char	*role;		/* master or peer */
	const char	*state;		/* its volunteer state, or dead */
	int		 free;		/* slots free, by the map */
	int		 cores;		/* 0: it did not say */
	int64_t		 memory_mb;
	const char	*tags;
	const char	*containment;	/* "" unsaid */
};
void	api_peer_view(const struct peer *, struct api_peer *);
/* What the nodes' cards show, hashed: it changes when they do. */
uint64_t api_nodes_digest(void);
/* [{name, address, role, state, free, slots, reputation, cores,
 * memory_mb, tags, containment, self}], this node first. */
json_t	*api_nodes(void);
/* The map's tasks in submit order, those in state (NULL: any; as TASKS
 * takes it, "Suspended" too) and of workflow (NULL: any); NULL and
 * *bad set for a state that is none. */
json_t	*api_tasks(const char *state, const char *workflow, int *bad);
/* The ready queue in the order the pool takes it (readyq.h): each task
 * with its position (1: next), aged and urgent. */
json_t	*api_queue(void);
/* One task: from the map, else the history; with its estimates and
 * why it waits.  NULL if unknown. */
json_t	*api_task(const char *uuid);
/* [{uuid, name (its first task's), tasks, by state {..}, progress,
 * submit_ms, end_ms, done}], newest first. */
json_t	*api_workflows(void);
/* GET uri ("/api/tasks?state=Ready"): its answer, *code its HTTP
 * status (an error: {"error": why}, 400 or 404).  HTTP and the client
 * protocol's API request both answer with it. */
json_t	*api_get(const char *uri, int *code);
/* GET /api/log's parameters, checked: regex, level, task, since, until
 * (as people write times), lines (1 to API_LOG_LINES_MAX, default
 * API_LOG_LINES). */
#define API_LOG_LINES		200
#define API_LOG_LINES_MAX	5000
struct api_log_req {
	struct log_query q;		/* its strings point below */
	char		 regex[CLIENT_LINE_MAX + 1];
	char		 uuid[UUID_STRLEN + 1];
	char		 since[64], until[64];
	int		 has_since, has_until, nlines;
};
/* NULL when uri's parameters are good (r filled), else the error and
 * *code (400). */
json_t	*api_log_request(const char *uri, struct api_log_req *r, int *code);
/* An event for the task (its JSON), for the event stream. */
json_t	*api_task_event(const char *uuid);

#endif
