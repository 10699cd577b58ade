/*
 * bundle.h -- what a node sends to one place in one pass of its event
 * loop goes as one datagram.
 *
 * A datagram is one or more lines, each a whole message with its header
 * (peer.h).  Under load a node handles many datagrams in one pass and
 * answers each: bundled, the pool pays one sendto, one seal, one set of
 * MACs and, at every receiver, one recvfrom, one open and one guard
 * check for all of them.  Nothing waits for company: the pass's bundles
 * go the moment it ends, so an idle pool sends as before.
 */
#ifndef VOLERY_BUNDLE_H
#define VOLERY_BUNDLE_H

#include <stddef.h>

struct event_base;
struct sockaddr_in;

/*
 * At most this much text a bundle: three Ethernet frames on a LAN.  A
 * single longer message (up to DATAGRAM_MAX) still goes, alone.
 */
#define BUNDLE_MAX	4096
/* Destinations with a bundle open at once; one more flushes the oldest. */
#define BUNDLE_DESTS	8

/* Sends one bundle: its lines, '\n' between them; name NULL: broadcast. */
typedef void bundle_send_fn(const struct sockaddr_in *to, const char *name,
    const char *text, size_t len);

/* base NULL: no event loop; bundle_flush() sends (the unit tests). */
int	bundle_init(struct event_base *, bundle_send_fn *);
/* Adds line (one message, header included) for to (name NULL: the
 * broadcast); sent by the end of this pass. */
void	bundle_add(const struct sockaddr_in *to, const char *name,
	    const char *line, size_t len);
/* Sends every open bundle now, oldest first. */
void	bundle_flush(void);
void	bundle_free(void);

#endif
