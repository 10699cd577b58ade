/*
 * http.h -- the node's HTTP side (issue 15): the JSON API (api.h) and
 * its event stream, with libevent's evhttp, on <http> (volery-api(7)).
 *
 * Who may ask: a client on this host.  One on another host gets the
 * page and the login (websession.h), and 401 for the rest until it has
 * logged in with the operator key; the server serves other hosts only
 * when the cluster has a key.  No GET changes anything.
 */
#ifndef VOLERY_HTTP_H
#define VOLERY_HTTP_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

/* Serve on addr ("host:port", "[v6]:port"); the address served into
 * bound.  operator_key (kept), or NULL: nobody may log in from another
 * host.  -1 with err. */
int	http_open(struct event_base *, const char *addr,
	    const uint8_t *operator_key, char *bound, size_t boundlen,
	    char *err, size_t errlen);
void	http_close(void);
/* The task uuid changed: its event to every stream that follows. */
void	http_task_changed(const char *uuid);
/* After each event the node handled: if what the nodes' cards show
 * changed, a "nodes" event to every stream, at most every 250 ms. */
void	http_nodes_maybe_changed(void);
/* Streams open now (for the tests' and the log's sake). */
int	http_streams(void);

#endif
