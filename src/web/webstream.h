/*
 * webstream.h -- GET /api/events: the API's event stream (webstream.c).
 */
#ifndef VOLERY_WEBSTREAM_H
#define VOLERY_WEBSTREAM_H

struct event_base;
struct evhttp_request;

/* Hear of the node's changes (notify.h); -1 out of memory. */
int	webstream_init(struct event_base *);
/* Answer req with a stream (or 503 over STREAMS_MAX). */
void	webstream_open(struct evhttp_request *);
void	webstream_close(void);

#endif
