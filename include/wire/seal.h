/*
 * seal.h -- the authenticated framing of peer datagrams (DESIGN.md
 * section 5, "Security"): XChaCha20-Poly1305 from libsodium over the
 * whole datagram, its header bound as associated data.
 *
 *   offset  size  field (integers big-endian)
 *   0       4     "VLS1"
 *   4       4     key id: which key of the keyring sealed it
 *   8       8     the sender's incarnation (grows at every start)
 *   16      8     the sender's sequence number (low bit: 1 broadcast)
 *   24      8     the sender's clock, ms (its guard drops stale ones)
 *   32      1     n, the length of the sender's name (1..NAME_MAXLEN)
 *   33      n     the sender's name
 *   33+n    ...   the sealed text datagram (peer.h), then a 16-byte tag
 *
 * A unicast is also bound to its receiver's name, which is not sent:
 * the associated data is the header and that name ("" for a broadcast),
 * and the nonce a hash of both.  So a unicast replayed to another node
 * does not open, and the nonce never repeats under one key: a sender
 * counts broadcasts, and unicasts per receiver name, from 1 in each
 * incarnation, and (name, incarnation, sequence, receiver) is unique.
 * Pure: no randomness here.
 */
#ifndef VOLERY_SEAL_H
#define VOLERY_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

#define SEAL_MAGIC	"VLS1"
#define SEAL_KEY_BYTES	32
#define SEAL_ID_BYTES	4
#define SEAL_TAG_BYTES	16
#define SEAL_FIXED	33	/* header bytes before the name */
#define SEAL_OVERHEAD_MAX (SEAL_FIXED + NAME_MAXLEN + SEAL_TAG_BYTES)
/* What a seal holds: a datagram's text, and the sender's authenticator
 * after it (ident.h). */
#define SEAL_PLAIN_MAX	(DATAGRAM_MAX + 2048)
#define SEAL_FRAME_MAX	(SEAL_PLAIN_MAX + SEAL_OVERHEAD_MAX)
#define KEYRING_MAX	8

struct seal_key {
	uint8_t		key[SEAL_KEY_BYTES];
	uint8_t		id[SEAL_ID_BYTES];
	uint8_t		relay[SEAL_KEY_BYTES];	/* relayenv.h's tags */
};

/* Keys accepted; k[0] seals what we send. */
struct keyring {
	int		n;
	struct seal_key	k[KEYRING_MAX];
};

struct seal_hdr {
	uint8_t		key_id[SEAL_ID_BYTES];
	uint64_t	incarnation;
	uint64_t	seq;
	int64_t		sent_ms;	/* the sender's clock */
	char		sender[NAME_MAXLEN + 1];
	size_t		len;		/* header bytes */
};

enum seal_error {
	SEAL_NOT_SEALED = -1,	/* not a frame of ours at all */
	SEAL_UNKNOWN_KEY = -2,	/* sealed with a key not on our ring */
	SEAL_FORGED = -3,	/* the tag does not verify */
	SEAL_TOO_BIG = -4,
};

/* Derive a key's id (a keyed hash: says nothing of the key), and the
 * key that relays' tags use (relayenv.h). */
void	seal_key_init(struct seal_key *, const uint8_t key[SEAL_KEY_BYTES]);
/* Add a key to the ring; -1 if full or already there. */
int	keyring_add(struct keyring *, const uint8_t key[SEAL_KEY_BYTES]);
/* A frame's addressing: who, which start, which datagram, to whom. */
struct seal_addr {
	const char	*sender;
	uint64_t	 incarnation;
	uint64_t	 seq;		/* odd: a broadcast */
	int64_t		 sent_ms;
	const char	*to;		/* a unicast's receiver, else NULL */
};

/* The frame's length, or SEAL_TOO_BIG. */
int	seal(const struct seal_key *, const struct seal_addr *, const void *text,
	    size_t len, uint8_t *out, size_t outsize);
/* Read a frame's header: 0, or SEAL_NOT_SEALED. */
int	seal_peek(const uint8_t *, size_t, struct seal_hdr *);
/*
 * Verify and decrypt a frame whose header h was read by seal_peek; me
 * is our name (what a unicast to us is bound to).  The text's length
 * (NUL-terminated in text), or a seal_error.
 */
int	seal_open(const struct keyring *, const uint8_t *, size_t,
	    const struct seal_hdr *, const char *me, char *text,
	    size_t textsize);
const char *seal_strerror(int);

/*
 * A remote operator's answer to a node's challenge (64 hex digits):
 * HMAC-SHA-256 of "volery-auth " and the challenge, keyed with the
 * operator key; 65 bytes with the NUL.
 */
#define AUTH_HEX_LEN 64
void	seal_auth_answer(const uint8_t key[SEAL_KEY_BYTES],
	    const char *challenge, char answer[AUTH_HEX_LEN + 1]);
/* Another node's answer (AUTH PEER, to fetch a run's output), with the
 * cluster key: "volery-peer-auth " instead, so that neither answer
 * stands for the other. */
void	seal_peer_auth_answer(const uint8_t key[SEAL_KEY_BYTES],
	    const char *challenge, char answer[AUTH_HEX_LEN + 1]);

#endif
