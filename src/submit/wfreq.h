/*
 * wfreq.h -- a workflow file's task as the request that schedules it:
 * the core's request (what a node's HTTP submit schedules), and the
 * line volery submit sends, made from it.
 */
#ifndef VOLERY_WFREQ_H
#define VOLERY_WFREQ_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "workflow.h"

struct node_schedule_req;
struct task_binding;

/* t as the core takes it: sr's strings point into wf, t, uuids (task k
 * of the file, scheduled before it), arrays (a <foreach>'s uuid) and b
 * (TASK_INPUTS_MAX bindings, filled). */
void	wf_schedule_req(const struct workflow *, const struct wf_task *t,
	    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1],
	    struct task_binding *b, struct node_schedule_req *sr);
/*
 * t's request line: RUN for a command, else SCHEDULE, its inputs bound
 * to uuids[k] (task k of the file, scheduled before it) or to the uuid
 * the file gave; a task of a <foreach> is one of the array arrays[t->array
 * - 1].  -1 if it is longer than size.
 */
int	wf_request(const struct workflow *, const struct wf_task *t,
	    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1],
	    char *req, size_t size);

/* A workflow ends with its last task: the forecast so far (0 at first,
 * -1 once one was unknown) with one more task's (-1: unknown). */
int64_t	wf_forecast_last(int64_t last, int64_t at);

/* A fresh uuid for each <foreach> of wf: arrays[k] is array k + 1's
 * (arrays zeroed, one per task at most). */
void	wf_array_uuids(const struct workflow *,
	    char (*arrays)[UUID_STRLEN + 1]);

#endif
