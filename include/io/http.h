/*
 * http.h -- the node's HTTP side (issue 15): the JSON API (api.h) and
 * its event stream, with libevent's evhttp, on <http> (volery-api(7)).
 *
 * Who may ask: a client on this host.  One on another host gets 401:
 * an HTTP node on an address other hosts reach needs the cluster key
 * (http_open refuses it otherwise).  No GET changes anything.
 */
#ifndef VOLERY_HTTP_H
#define VOLERY_HTTP_H

#include <stddef.h>

struct event_base;

/* Serve on addr ("host:port", "[v6]:port"); the address served into
 * bound.  keyed: the cluster has a key (else only loopback is served).
 * -1 with err. */
int	http_open(struct event_base *, const char *addr, int keyed,
	    char *bound, size_t boundlen, char *err, size_t errlen);
void	http_close(void);
/* The task uuid changed: its event to every stream that follows. */
void	http_task_changed(const char *uuid);
/* Streams open now (for the tests' and the log's sake). */
int	http_streams(void);

#endif
