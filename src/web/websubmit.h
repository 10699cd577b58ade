/*
 * websubmit.h -- the API's scheduling POSTs and the event loop: answered
 * once durable; a workflow file parsed off the loop and scheduled in
 * slices (issue 40: a big submission never stalls the node).
 */
#ifndef VOLERY_WEBSUBMIT_H
#define VOLERY_WEBSUBMIT_H

#include <jansson.h>

struct event_base;
struct evhttp_request;

void	websubmit_init(struct event_base *);
/* POST /api/workflows (webpost.h). */
void	websubmit_workflow(struct evhttp_request *, const char *rest);
/* A scheduling POST's answer: a 201 once the journal has its tasks, as
 * a SCHEDULE line's; anything else at once (v's reference taken). */
void	websubmit_reply(struct evhttp_request *, int code, json_t *v);
void	websubmit_close(void);

#endif
