/*
 * modelsig.c -- the simulator's model of a statement's signature
 * (statement.h), linked instead of src/core/signature.c: a keyed BLAKE2b
 * of the statement under the signer's public key, so signing and
 * checking cost a hash, not Ed25519's 22 and 58 us -- a thousand
 * simulated nodes sign a million votes in one process.  Who signs what
 * and who checks it is the core's, unchanged.  Anyone who knows a
 * node's public key could compute its "signature": the simulator's liar
 * forges as a real one must, without the others' secrets (liar.c).
 */
#include <string.h>

#include <sodium/crypto_generichash.h>
#include <sodium/crypto_sign.h>

#include "statement.h"

static void
model(const uint8_t h[STATEMENT_BYTES], const uint8_t pk[32], uint8_t sig[64])
{
	crypto_generichash(sig, 64, h, STATEMENT_BYTES, pk, 32);
}

void
statement_sign(const uint8_t h[STATEMENT_BYTES], const uint8_t *sk,
    char text[STATEMENT_SIG_TEXT])
{
	uint8_t	sig[64];

	/* An Ed25519 secret key ends with its public key. */
	model(h, sk + crypto_sign_SEEDBYTES, sig);
	statement_sig_text(sig, text);
}

int
statement_signed(const char *text, const uint8_t h[STATEMENT_BYTES],
    const uint8_t pk[32])
{
	uint8_t	sig[64], want[64];

	if (statement_sig_bytes(text, sig) == -1)
		return 0;
	model(h, pk, want);
	return memcmp(sig, want, sizeof sig) == 0;
}
