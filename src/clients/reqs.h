/*
 * reqs.h -- what the request families share (requests.h): the handlers
 * the table names, and this node.
 */
#ifndef VOLERY_REQS_H
#define VOLERY_REQS_H

#include <stddef.h>

struct client;
struct client_req;
struct task;

typedef void req_fn(struct client *, const struct client_req *);

const struct requests_env *req_env(void);

/* req-task.c */
req_fn	req_schedule, req_cancel, req_hold, req_subscribe;
void	req_task_init(void);
/* A PROGRESS line gets its task's expected end, and a Ready task that
 * no live node can run says why (reason=). */
void	req_progress_extras(char *line, size_t size, const struct task *);
/* req-view.c */
req_fn	req_tasks, req_nodes, req_api, req_account;
/* req-ident.c */
req_fn	req_peerkey, req_revoke, req_clear;
/* req-log.c */
req_fn	req_log, req_output;
/* req-ckpt.c */
req_fn	req_ckpt;
req_fn	req_file;

#endif
