/*
 * relay.h -- one pool across routers (issue 40): a node that names
 * relays (<relay>ADDR:PORT</relay>, nodes on other subnets) passes every
 * broadcast it hears on its subnet, and its own, to them; a node that
 * receives one broadcasts it on its own subnet, once.  The frame stays
 * sealed by its sender (relayenv.h); nothing here opens it.
 */
#ifndef VOLERY_RELAY_H
#define VOLERY_RELAY_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct keyring;

struct relay_opts {
	const struct keyring	*ring;
	const char		(*to)[ADDR_MAXLEN + 1];	/* ADDR[:PORT] */
	int			 n;
	int			 port;		/* when an address has none */
	int			 fd;		/* sends */
	const struct sockaddr_in *bcast;	/* our subnet's broadcast */
};

/* A frame heard by way of a relay, and where its sender is. */
typedef void relay_deliver_fn(const uint8_t *frame, size_t len,
	    const struct sockaddr_in *sender);

int	relay_open(const struct relay_opts *, relay_deliver_fn *,
	    char *err, size_t errlen);
void	relay_close(void);
/* Is this datagram an envelope (relay_receive's)? */
int	relay_is_envelope(const uint8_t *, size_t);
/* An envelope from src: checked, broadcast on if it asks to be and is
 * new here, then delivered. */
void	relay_receive(const uint8_t *, size_t, const struct sockaddr_in *src);
/* A broadcast frame heard without a relay, or sent by us: remembered
 * (so that a relayed copy is dropped in silence; by a relay, and by any
 * node from the first envelope it gets on) and passed to the relays we
 * name.  src: where its sender is (0.0.0.0 and our reply
 * port for ours: the relay fills in our address). */
void	relay_heard(const char *sender, uint64_t incarnation, uint64_t seq,
	    const uint8_t *frame, size_t len, const struct sockaddr_in *src);
/* Frames passed on, broadcast on, and copies dropped as heard already. */
void	relay_counts(uint64_t *passed, uint64_t *broadcast, uint64_t *copies);

#endif
