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

/* Serve on addr, hearing of the node's changes (notify.h) for the
 * event streams ("host:port", "[v6]:port"); the address served into
 * bound.  operator_key (kept), or NULL: nobody may log in from another
 * host.  -1 with err. */
int	http_open(struct event_base *, const char *addr,
	    const uint8_t *operator_key, char *bound, size_t boundlen,
	    char *err, size_t errlen);
void	http_close(void);

#endif
