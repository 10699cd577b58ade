/*
 * fuzz_ident.c -- libFuzzer: node identities (ident.c).
 *
 *  1. Any text as a certificate or a revocation: parsed or refused,
 *     never read past; one that parses formats back to what parses to
 *     the same, and never checks under the admin key unless signed by it.
 *  2. Any bytes as a plaintext: ident_auth_split never reads outside
 *     them, its text and MAC list lie inside, and nothing verifies that
 *     no one signed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "ident.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static uint8_t	admin_pk[32], admin_sk[64];

static void
setup(void)
{
	static int	done;
	uint8_t		seed[32];

	if (done++)
		return;
	if (sodium_init() == -1)
		abort();
	memset(seed, 0x42, sizeof seed);
	crypto_sign_seed_keypair(admin_pk, admin_sk, seed);
}

static void
texts(const char *s)
{
	struct ident_cert	c, d;
	struct ident_revoke	r, q;
	char			out[IDENT_TEXT_MAX], err[256];

	if (ident_cert_parse(s, &c, err, sizeof err) == 0) {
		if (ident_cert_format(&c, out, sizeof out) < 0 ||
		    ident_cert_parse(out, &d, err, sizeof err) != 0 ||
		    memcmp(&c, &d, sizeof c) != 0)
			abort();
		if (ident_cert_verify(&c, admin_pk))
			abort();	/* a forgery of the admin's */
	}
	if (ident_revoke_parse(s, &r, err, sizeof err) == 0) {
		if (ident_revoke_format(&r, out, sizeof out) < 0 ||
		    ident_revoke_parse(out, &q, err, sizeof err) != 0 ||
		    memcmp(&r, &q, sizeof r) != 0)
			abort();
		if (ident_revoke_verify(&r, admin_pk))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ident_auth	 a;
	uint8_t			*copy, h[IDENT_DIGEST_BYTES] = { 0 };
	char			*s;
	size_t			 tlen;

	setup();
	if ((s = malloc(size + 1)) == NULL || (copy = malloc(size + 1)) ==
	    NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	texts(s);
	memcpy(copy, data, size);
	if (ident_auth_split(copy, size, &tlen, &a) == 0) {
		if (tlen > size || a.macs < copy || a.macs + 2 +
		    (size_t)a.nmacs * 12 > copy + size)
			abort();
		if (a.is_signed && ident_auth_signed_ok(&a, h) &&
		    ident_cert_verify(&a.cert, admin_pk))
			abort();
		(void)ident_auth_mac_ok(&a, admin_pk, h, h);
	}
	free(s);
	free(copy);
	return 0;
}
