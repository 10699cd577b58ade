/*
 * test_ident.c -- node identities on the wire (ident.c): certificates
 * and revocations the admin signed check, any change of theirs does
 * not; an authenticator's MACs verify for their receiver only, and its
 * signature covers the text, the header's fields and who it says it
 * knows; a malformed one is refused whole.
 */
#include "testutil.h"

#include <sodium.h>

#include "ident.h"
#include "seal.h"

static void
keys_of(int k, uint8_t pk[32], uint8_t sk[64])
{
	uint8_t	seed[32];

	memset(seed, k, sizeof seed);
	crypto_sign_seed_keypair(pk, sk, seed);
}

static struct ident_cert
cert_for(const char *name, const uint8_t pk[32], const uint8_t admin_sk[64])
{
	struct ident_cert	c;

	memset(&c, 0, sizeof c);
	snprintf(c.name, sizeof c.name, "%s", name);
	memcpy(c.pk, pk, 32);
	c.expires_ms = 1800000000000LL;
	c.max_reputation = 50;
	ident_cert_sign(&c, admin_sk);
	return c;
}

static void
test_certificates_check_and_round_trip(void **state)
{
	uint8_t			 apk[32], ask[64], pk[32], sk[64];
	struct ident_cert	 c, d;
	struct ident_revoke	 r, s;
	char			 text[IDENT_TEXT_MAX], err[256];

	(void)state;
	keys_of(1, apk, ask);
	keys_of(2, pk, sk);
	c = cert_for("alpha", pk, ask);
	assert_true(ident_cert_verify(&c, apk));
	assert_true(ident_cert_format(&c, text, sizeof text) > 0);
	assert_int_equal(ident_cert_parse(text, &d, err, sizeof err), 0);
	assert_memory_equal(&c, &d, sizeof c);
	assert_true(ident_cert_verify(&d, apk));
	/* Another name, a higher cap, a later expiry, another admin. */
	d = c;
	d.name[0] = 'b';
	assert_false(ident_cert_verify(&d, apk));
	d = c;
	d.max_reputation = 1000000;
	assert_false(ident_cert_verify(&d, apk));
	d = c;
	d.expires_ms++;
	assert_false(ident_cert_verify(&d, apk));
	assert_false(ident_cert_verify(&c, pk));
	/* Text that is not one. */
	assert_int_equal(ident_cert_parse("volery-cert1 alpha x 1 2 y", &d,
	    err, sizeof err), -1);
	text[strlen(text) - 3] = '\0';
	assert_int_equal(ident_cert_parse(text, &d, err, sizeof err), -1);
	/* Revocations likewise. */
	memset(&r, 0, sizeof r);
	snprintf(r.name, sizeof r.name, "alpha");
	memcpy(r.pk, pk, 32);
	r.stamp_ms = 1700000000000LL;
	ident_revoke_sign(&r, ask);
	assert_true(ident_revoke_format(&r, text, sizeof text) > 0);
	assert_int_equal(ident_revoke_parse(text, &s, err, sizeof err), 0);
	assert_true(ident_revoke_verify(&s, apk));
	s.stamp_ms++;
	assert_false(ident_revoke_verify(&s, apk));
	/* A certificate is not a revocation. */
	ident_cert_format(&c, text, sizeof text);
	assert_int_equal(ident_revoke_parse(text, &s, err, sizeof err), -1);
}

static void
test_pair_keys_agree(void **state)
{
	uint8_t	apk[32], ask[64], bpk[32], bsk[64], cpk[32], csk[64];
	uint8_t	ab[32], ba[32], ac[32];

	(void)state;
	keys_of(3, apk, ask);
	keys_of(4, bpk, bsk);
	keys_of(5, cpk, csk);
	assert_int_equal(ident_pair_key(ab, ask, apk, bpk), 0);
	assert_int_equal(ident_pair_key(ba, bsk, bpk, apk), 0);
	assert_int_equal(ident_pair_key(ac, ask, apk, cpk), 0);
	assert_memory_equal(ab, ba, 32);
	assert_memory_not_equal(ab, ac, 32);
}

/* alpha's frame: MACs for beta and gamma; signed if cert. */
static int
frame(uint8_t *plain, size_t size, const struct ident_frame *f,
    const uint8_t (*ids)[4], const uint8_t (*keys)[32],
    const struct ident_cert *cert, const uint8_t sk[64])
{
	memcpy(plain, f->text, f->len);
	return ident_auth_append(f, plain, size, 2, ids, keys, cert, sk);
}

static void
test_authenticators_verify_for_their_receivers_only(void **state)
{
	uint8_t			 apk[32], ask[64], bpk[32], bsk[64];
	uint8_t			 gpk[32], gsk[64], dpk[32], dsk[64];
	uint8_t			 adm_pk[32], adm_sk[64], keys[2][32], ids[2][4];
	uint8_t			 plain[SEAL_PLAIN_MAX], h[32], bad[32];
	uint8_t			 ba[32], da[32];
	const char		*text = "VOLERY/1 c alpha 1 7 HEARTBEAT ...";
	struct ident_frame	 f = { "alpha", 7, 9, 1700000000000LL, NULL,
				    text, strlen(text) };
	struct ident_cert	 c;
	struct ident_auth	 a;
	size_t			 tlen;
	int			 n;

	(void)state;
	keys_of(6, apk, ask);
	keys_of(7, bpk, bsk);
	keys_of(8, gpk, gsk);
	keys_of(9, dpk, dsk);
	keys_of(10, adm_pk, adm_sk);
	ident_pair_key(keys[0], ask, apk, bpk);
	ident_pair_key(keys[1], ask, apk, gpk);
	memcpy(ids[0], bpk, 4);
	memcpy(ids[1], gpk, 4);
	/* MACs only. */
	n = frame(plain, sizeof plain, &f, (const uint8_t (*)[4])ids,
	    (const uint8_t (*)[32])keys, NULL, NULL);
	assert_true(n > (int)f.len);
	assert_int_equal(ident_auth_split(plain, n, &tlen, &a), 0);
	assert_int_equal(tlen, f.len);
	assert_false(a.is_signed);
	ident_digest(&f, h);
	ident_pair_key(ba, bsk, bpk, apk);
	assert_int_equal(ident_auth_mac_ok(&a, bpk, ba, h), 1);
	/* Delta is not among them; a MAC under another key fails. */
	ident_pair_key(da, dsk, dpk, apk);
	assert_int_equal(ident_auth_mac_ok(&a, dpk, da, h), 0);
	assert_int_equal(ident_auth_mac_ok(&a, bpk, da, h), -1);
	/* Another stamp, sequence or text: another digest. */
	f.sent_ms++;
	ident_digest(&f, bad);
	assert_int_equal(ident_auth_mac_ok(&a, bpk, ba, bad), -1);
	f.sent_ms--;
	/* Signed: the certificate travels, and the signature covers the
	 * MAC list too. */
	c = cert_for("alpha", apk, adm_sk);
	n = frame(plain, sizeof plain, &f, (const uint8_t (*)[4])ids,
	    (const uint8_t (*)[32])keys, &c, ask);
	assert_int_equal(ident_auth_split(plain, n, &tlen, &a), 0);
	assert_true(a.is_signed);
	assert_memory_equal(&a.cert, &c, sizeof c);
	assert_true(ident_cert_verify(&a.cert, adm_pk));
	assert_true(ident_auth_signed_ok(&a, h));
	assert_false(ident_auth_signed_ok(&a, bad));
	plain[n - 3] ^= 1;		/* the last MAC */
	assert_int_equal(ident_auth_split(plain, n, &tlen, &a), 0);
	assert_false(ident_auth_signed_ok(&a, h));
	/* Malformed: no length, a length past the start, an unknown kind,
	 * a count the length does not hold. */
	assert_int_equal(ident_auth_split(plain, 3, &tlen, &a), -1);
	plain[n - 2] = 0xff;
	assert_int_equal(ident_auth_split(plain, n, &tlen, &a), -1);
	n = frame(plain, sizeof plain, &f, (const uint8_t (*)[4])ids,
	    (const uint8_t (*)[32])keys, NULL, NULL);
	plain[f.len] = 'X';
	assert_int_equal(ident_auth_split(plain, n, &tlen, &a), -1);
	plain[f.len] = 'M';
	plain[f.len + 2] = 3;
	assert_int_equal(ident_auth_split(plain, n, &tlen, &a), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_certificates_check_and_round_trip),
		cmocka_unit_test(test_pair_keys_agree),
		cmocka_unit_test(test_authenticators_verify_for_their_receivers_only),
	};

	if (sodium_init() == -1)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
