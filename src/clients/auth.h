/*
 * auth.h -- a remote client proves what it holds (AUTH): the node sends
 * a fresh challenge; the answer is the challenge keyed with the operator
 * key (an operator) or with a cluster key (another node, AUTH PEER).
 */
#ifndef VOLERY_AUTH_H
#define VOLERY_AUTH_H

#include <stdint.h>

#include "seal.h"

#define AUTH_OPERATOR	1	/* a remote operator */
#define AUTH_PEER	2	/* another node: OUTPUT only */

/* A fresh random challenge, as hex. */
void	auth_challenge(char hex[AUTH_HEX_LEN + 1]);
/* Who answer proves to be, for challenge: AUTH_OPERATOR (the operator
 * key; not for a peer challenge), AUTH_PEER (a key of ring, for a peer
 * challenge), or 0.  Compared in constant time. */
int	auth_answer(const char *answer, const char *challenge, int peer,
	    const uint8_t *operator_key, const struct keyring *ring);

#endif
