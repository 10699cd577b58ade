/*
 * api.h -- what the JSON API says (volery-api(7)), from the node's views:
 * the nodes, the tasks (the map, and a retired task from the history),
 * the workflows.  http.c serves it; nothing here changes the node.
 */
#ifndef VOLERY_API_H
#define VOLERY_API_H

#include <stdint.h>

#include <jansson.h>

struct node;
struct task;

/* This node, as NODES tells it. */
struct api_self {
	const char	*address;	/* its client address */
	int		 reputation;
	int		 cores;
	int64_t		 memory_mb;
	const char	*tags;
};

void	api_init(struct node *, const struct api_self *);
/* [{name, address, role, state, free, slots, reputation, cores,
 * memory_mb, tags, self}], this node first. */
json_t	*api_nodes(void);
/* The map's tasks in submit order, those in state (NULL: any; as TASKS
 * takes it, "Suspended" too) and of workflow (NULL: any); NULL and
 * *bad set for a state that is none. */
json_t	*api_tasks(const char *state, const char *workflow, int *bad);
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
/* An event for the task (its JSON), for the event stream. */
json_t	*api_task_event(const char *uuid);

#endif
