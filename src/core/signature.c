/*
 * signature.c -- a statement's Ed25519 signature as text, and its check
 * (statement.h).  Alone in its file so that the simulator can link its
 * model of them instead (test/sim/modelsig.c): a thousand simulated
 * nodes sign a million votes.
 */
#include <sodium/crypto_sign.h>

#include "statement.h"

void
statement_sign(const uint8_t h[STATEMENT_BYTES], const uint8_t *sk,
    char text[STATEMENT_SIG_TEXT])
{
	uint8_t	sig[64];

	crypto_sign_detached(sig, NULL, h, STATEMENT_BYTES, sk);
	statement_sig_text(sig, text);
}

int
statement_signed(const char *text, const uint8_t h[STATEMENT_BYTES],
    const uint8_t pk[32])
{
	uint8_t	sig[64];

	if (statement_sig_bytes(text, sig) == -1)
		return 0;
	return crypto_sign_verify_detached(sig, h, STATEMENT_BYTES, pk) == 0;
}
