/*
 * ident.h -- node identities on the wire (DESIGN.md section 10, "Node
 * identities").  The cluster key seals every datagram (seal.h): it keeps
 * outsiders out, but every workstation holds it.  Authority comes from
 * each node's own Ed25519 key, certified by the admin key:
 *
 *   certificate  the admin's signature over a node's name, public key,
 *                expiry and the most reputation it may claim;
 *                text "volery-cert1 NAME PK EXPIRES MAXREP SIG" (base64)
 *   revocation   the admin's signature over a name and key it withdraws;
 *                text "volery-revoke1 NAME PK STAMP SIG"
 *
 * Every sealed datagram carries an authenticator after its text, inside
 * the seal, over a digest of the text and the seal's header (sender,
 * incarnation, sequence, stamp, and a unicast's receiver), so that no
 * key holder can wrap one node's words in a header of its own:
 *
 *   'M'  a MAC per receiver the sender knows (PBFT's authenticators):
 *        keyed BLAKE2b under the pair's X25519 key, 8 bytes each, found
 *        by the receiver's id (its public key's first 4 bytes).  Cheap:
 *        a task's datagrams carry these.
 *   'S'  the same, and the sender's certificate and its Ed25519
 *        signature: what a node that does not know the sender yet can
 *        check (a join, a restart, a pool too large for MACs).
 *
 *   plaintext = text | kind | [cert (binary) | signature] | n (2) |
 *               n x (id 4 | mac 8) | length of all after text (2)
 *
 * Pure: no randomness, no clock (times are passed in); libsodium does
 * the cryptography.
 */
#ifndef VOLERY_IDENT_H
#define VOLERY_IDENT_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

#define IDENT_PK_BYTES	32
#define IDENT_SK_BYTES	64
#define IDENT_SIG_BYTES	64
#define IDENT_ID_BYTES	4
#define IDENT_MAC_BYTES	8
#define IDENT_DIGEST_BYTES 32
#define IDENT_PAIR_BYTES 32
/* Receivers MAC'd in one datagram; a larger pool's broadcasts are signed
 * only. */
#define IDENT_MACS_MAX	100
#define IDENT_CERT_BIN_MAX (1 + NAME_MAXLEN + IDENT_PK_BYTES + 8 + 4 + \
	IDENT_SIG_BYTES)
#define IDENT_AUTH_MAX	(1 + IDENT_CERT_BIN_MAX + IDENT_SIG_BYTES + 2 + \
	IDENT_MACS_MAX * (IDENT_ID_BYTES + IDENT_MAC_BYTES) + 2)
#define IDENT_TEXT_MAX	512	/* a certificate's or revocation's text */
#define IDENT_REPUTATION_MAX 1000000

struct ident_cert {
	char		name[NAME_MAXLEN + 1];
	uint8_t		pk[IDENT_PK_BYTES];
	int64_t		expires_ms;	/* wall clock */
	int		max_reputation;
	uint8_t		sig[IDENT_SIG_BYTES];	/* the admin's */
};

struct ident_revoke {
	char		name[NAME_MAXLEN + 1];
	uint8_t		pk[IDENT_PK_BYTES];
	int64_t		stamp_ms;	/* when the admin withdrew it */
	uint8_t		sig[IDENT_SIG_BYTES];
};

/* What a datagram's authenticator says (ident_auth_split). */
struct ident_auth {
	int		 is_signed;	/* 'S': cert and sig are set */
	struct ident_cert cert;
	uint8_t		 sig[IDENT_SIG_BYTES];
	int		 nmacs;
	const uint8_t	*macs;		/* nmacs x (id | mac), in the frame */
};

/* What the authenticator covers: the seal header's fields and the text. */
struct ident_frame {
	const char	*sender;
	uint64_t	 incarnation;
	uint64_t	 seq;
	int64_t		 sent_ms;
	const char	*to;		/* a unicast's receiver, else NULL */
	const char	*text;
	size_t		 len;
};

/* Certificates and revocations: sign (as the admin), check, as text. */
void	ident_cert_sign(struct ident_cert *, const uint8_t admin_sk[64]);
int	ident_cert_verify(const struct ident_cert *,
	    const uint8_t admin_pk[IDENT_PK_BYTES]);
int	ident_cert_format(const struct ident_cert *, char *, size_t);
int	ident_cert_parse(const char *, struct ident_cert *, char *err,
	    size_t errlen);
void	ident_revoke_sign(struct ident_revoke *, const uint8_t admin_sk[64]);
int	ident_revoke_verify(const struct ident_revoke *,
	    const uint8_t admin_pk[IDENT_PK_BYTES]);
int	ident_revoke_format(const struct ident_revoke *, char *, size_t);
int	ident_revoke_parse(const char *, struct ident_revoke *, char *err,
	    size_t errlen);
/* A public key as base64 text (45 bytes with the NUL), and back. */
#define IDENT_PK_TEXT	45
void	ident_pk_format(const uint8_t pk[IDENT_PK_BYTES],
	    char out[IDENT_PK_TEXT]);
int	ident_pk_parse(const char *, uint8_t pk[IDENT_PK_BYTES]);

/* The key a pair of nodes shares (X25519 of their signing keys): the
 * same on both sides.  -1 if their key is not a valid point. */
int	ident_pair_key(uint8_t key[IDENT_PAIR_BYTES], const uint8_t my_sk[64],
	    const uint8_t my_pk[IDENT_PK_BYTES],
	    const uint8_t their_pk[IDENT_PK_BYTES]);

void	ident_digest(const struct ident_frame *,
	    uint8_t h[IDENT_DIGEST_BYTES]);
/*
 * Append to out (whose first f->len bytes are the text) the
 * authenticator: a MAC for each of the n receivers (their ids and pair
 * keys), and, with cert, the certificate and a signature with sk.  The
 * whole plaintext's length, or -1 if it does not fit.
 */
int	ident_auth_append(const struct ident_frame *, uint8_t *out,
	    size_t outsize, int n, const uint8_t (*ids)[IDENT_ID_BYTES],
	    const uint8_t (*keys)[IDENT_PAIR_BYTES],
	    const struct ident_cert *cert, const uint8_t sk[64]);
/* Split a plaintext into its text (the length goes to *textlen) and its
 * authenticator; -1 if it has none, or a malformed one. */
int	ident_auth_split(const uint8_t *plain, size_t len, size_t *textlen,
	    struct ident_auth *);
/* Does a's signature verify with its certificate's key? */
int	ident_auth_signed_ok(const struct ident_auth *,
	    const uint8_t h[IDENT_DIGEST_BYTES]);
/* Is there a MAC for the receiver id, and does one verify with key?
 * 1 verified, 0 none for id, -1 one for id that does not verify. */
int	ident_auth_mac_ok(const struct ident_auth *,
	    const uint8_t id[IDENT_ID_BYTES],
	    const uint8_t key[IDENT_PAIR_BYTES],
	    const uint8_t h[IDENT_DIGEST_BYTES]);

#endif
