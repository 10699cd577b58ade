/*
 * relayenv.h -- a peer datagram carried across a router (issue 40):
 * broadcasts stop at the subnet, so a relay node passes what it hears
 * to the relays of other subnets, which broadcast it on theirs.  The
 * sealed frame (seal.h) travels unchanged inside an envelope:
 *
 *   offset  size  field
 *   0       4     "VRL1"
 *   4       1     RELAY_ONWARD (to a relay: broadcast it on its subnet)
 *                 or RELAY_RELAYED (broadcast by a relay: go no further)
 *   5       4     the sender's IPv4 address (0.0.0.0: this envelope's
 *                 own source), where replies go
 *   9       2     the sender's reply port
 *   11      16    tag: BLAKE2b keyed with the relay key of the frame's
 *                 cluster key, over bytes 0..10 and the frame
 *   27      ...   the sealed frame, as its sender sent it: a broadcast
 *                 (odd sequence); unicasts go through the router
 *
 * The frame is still opened, and its sender checked, by every node that
 * hears it; the tag says that a holder of the cluster key vouches for
 * the address, so an outsider cannot point a node's replies elsewhere.
 * Relays need a keyed cluster: with <insecure/> there is no tag, and no
 * sequence number to tell a copy by.
 *
 * A frame may come by more than one way (two relays on a subnet):
 * relay_seen remembers (sender, incarnation, sequence) of the recent
 * ones, keyed with a secret of the node's so that no one can choose
 * which frames collide.  Pure: the caller gives the secret.
 */
#ifndef VOLERY_RELAYENV_H
#define VOLERY_RELAYENV_H

#include <stddef.h>
#include <stdint.h>

#include "seal.h"

#define RELAY_MAGIC	"VRL1"
#define RELAY_HDR	27
#define RELAY_TAG_BYTES	16
#define RELAY_FRAME_MAX	(RELAY_HDR + SEAL_FRAME_MAX)

enum relay_flag {
	RELAY_ONWARD = 1,
	RELAY_RELAYED = 2,
};

enum relay_error {
	RELAY_NOT_ENVELOPE = -1,	/* no magic: a frame of its own */
	RELAY_MALFORMED = -2,		/* a bad flag, or no sealed frame */
	RELAY_UNKNOWN_KEY = -3,		/* its frame's key is not ours */
	RELAY_FORGED = -4,		/* the tag does not verify */
	RELAY_TOO_BIG = -5,
};

struct relay_env {
	enum relay_flag	 flag;
	uint8_t		 ip[4];		/* network order; 0: the source's */
	uint16_t	 port;
	const uint8_t	*frame;		/* inside the envelope */
	size_t		 frame_len;
	struct seal_hdr	 h;		/* the frame's header */
};

/* Wrap a sealed frame: the envelope's length, or a relay_error. */
int	relay_wrap(const struct keyring *, enum relay_flag,
	    const uint8_t ip[4], uint16_t port, const uint8_t *frame,
	    size_t len, uint8_t *out, size_t outsize);
/* Check an envelope and find the frame in it: 0, or a relay_error. */
int	relay_unwrap(const struct keyring *, const uint8_t *, size_t,
	    struct relay_env *);

#define RELAY_SEEN_SLOTS 4096
#define RELAY_SEEN_WAYS	4	/* a frame's hash picks a set of 4 */
#define RELAY_SEEN_KEY	16

struct relay_seen {
	uint8_t		key[RELAY_SEEN_KEY];
	uint64_t	slot[RELAY_SEEN_SLOTS];	/* 0: empty */
};

void	relay_seen_init(struct relay_seen *,
	    const uint8_t key[RELAY_SEEN_KEY]);
/* 1 if (sender, incarnation, seq) is new (and now remembered), 0 if
 * heard lately.  A set holds the last four frames hashed to it: an old
 * frame may be forgotten (and is then dropped by the guard's window), a new
 * one is taken for an old one only if their keyed 64-bit hashes agree. */
int	relay_seen_add(struct relay_seen *, const char *sender,
	    uint64_t incarnation, uint64_t seq);

#endif
