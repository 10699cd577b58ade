/*
 * identity.h -- this node's identity and what it knows of the others'
 * (DESIGN.md section 10, "Node identities"; the wire format is ident.h).
 *
 * Files: <state_dir>/node.key (this node's Ed25519 seed, 0600, made at
 * first start), <state_dir>/node.cert (its certificate, from `volery
 * enroll`), <state_dir>/revoked (revocations heard, one a line).  The
 * admin key is <admin_key>'s file: a public key, or a secret one with
 * which the node enrols itself.  A loopback pool that names none derives
 * its admin key from the cluster key, so it enrols itself: every holder
 * of that key is then an admin, which is what one user's pool on one
 * host is.  A LAN node must name one.
 *
 * Every datagram we send carries an authenticator: MACs for the peers
 * we know, and our certificate and signature when someone may not know
 * us yet.  Every datagram we read must carry one that checks.
 */
#ifndef VOLERY_IDENTITY_H
#define VOLERY_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

#include "ident.h"
#include "seal.h"

struct config;

/* Why a datagram's authenticator did not check. */
enum identity_verdict {
	IDV_OK,
	IDV_NONE,		/* no authenticator, or a malformed one */
	IDV_UNKNOWN,		/* MACs only, from a sender never certified
				 * to us (it will sign when it learns) */
	IDV_UNCERTIFIED,	/* a certificate the admin did not sign, or
				 * for another name */
	IDV_EXPIRED,
	IDV_REVOKED,
	IDV_FORGED,		/* a signature or MAC that does not verify */
	IDV_NOT_FOR_US,		/* MACs, none for us: it does not know us */
};
#define IDV_N 8

/* Load or make our key, read or make our certificate (self-enrol when
 * the admin's secret is here), read the revocations; ring is the
 * cluster's (the derived admin key of a loopback pool).  Identities are
 * off with <insecure/> (ring->n == 0). */
int	identity_open(const struct config *, const struct keyring *,
	    int64_t now_wall, char *err, size_t errlen);
void	identity_close(void);
/* What identity_open would refuse of c's admin key (volery serve -n). */
int	identity_config_check(const struct config *, const struct keyring *,
	    char *err, size_t errlen);
int	identity_on(void);
const char *identity_verdict_name(enum identity_verdict);

/* Append our authenticator to the plaintext plain (its text is f);
 * the plaintext's new length, or -1. */
int	identity_authenticate(const struct ident_frame *f, uint8_t *plain,
	    size_t size);
/* Check the authenticator of plaintext plain (len bytes) of the frame
 * whose header is h, to us (me) if a unicast; the text's length goes
 * to *textlen. */
enum identity_verdict identity_check(const struct seal_hdr *h,
	    const char *me, const uint8_t *plain, size_t len,
	    size_t *textlen, int64_t now_wall);
/* A certified peer's public key as text; -1 if none heard. */
int	identity_peer_key(const char *name, char out[IDENT_PK_TEXT]);
/* The same, its 32 bytes, or NULL. */
const uint8_t *identity_peer_pk(const char *name);
/* The most reputation name's certificate lets it claim. */
int	identity_max_reputation(const char *name);
/* A revocation (its text): checked, kept, and 1 if it is news. */
/* name's certificate, as text into line (a relay asks for it); -1 if
 * we know none. */
int	identity_cert_of(const char *name, char *line, size_t size);
/* A certificate a peer passed on: learned if the admin signed it and it
 * is neither revoked nor expired (1), known already (0), -1 and why. */
int	identity_learn_cert(const char *line, char *err, size_t errlen);
int	identity_revoke(const char *line, char *err, size_t errlen);
/* Each revocation we keep, as text. */
void	identity_each_revocation(void (*)(const char *line, void *),
	    void *);

/* Our signing key (64 bytes), or NULL with no identities. */
const uint8_t *identity_signing_key(void);
/* fn hears every certified key: ours and the known ones now, each new
 * or changed one later (the core checks signatures with them). */
void	identity_on_learn(void (*fn)(const char *name, const uint8_t *pk));
#endif
