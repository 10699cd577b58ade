/*
 * auth.c -- challenges and answers of remote clients (auth.h); the
 * cryptography is libsodium's (seal.c keys the answers).
 */
#include <string.h>

#include <sodium.h>

#include "auth.h"

void
auth_challenge(char hex[AUTH_HEX_LEN + 1])
{
	uint8_t	raw[16];

	randombytes_buf(raw, sizeof raw);
	sodium_bin2hex(hex, AUTH_HEX_LEN + 1, raw, sizeof raw);
}

int
auth_answer(const char *answer, const char *challenge, int peer,
    const uint8_t *operator_key, const struct keyring *ring)
{
	char	want[AUTH_HEX_LEN + 1];
	int	i, who = 0;

	if (strlen(answer) != AUTH_HEX_LEN)
		return 0;
	if (!peer && operator_key != NULL) {
		seal_auth_answer(operator_key, challenge, want);
		if (sodium_memcmp(answer, want, AUTH_HEX_LEN) == 0)
			who = AUTH_OPERATOR;
	}
	for (i = 0; peer && ring != NULL && i < ring->n; i++) {
		seal_peer_auth_answer(ring->k[i].key, challenge, want);
		if (sodium_memcmp(answer, want, AUTH_HEX_LEN) == 0)
			who = AUTH_PEER;
	}
	return who;
}
