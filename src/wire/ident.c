/*
 * ident.c -- certificates, revocations and datagram authenticators
 * (ident.h).  libsodium does the cryptography: Ed25519 signatures
 * (crypto_sign), X25519 between the pair's keys (crypto_scalarmult),
 * keyed BLAKE2b (crypto_generichash).  This file lays out bytes and
 * checks lengths.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium/crypto_generichash.h>
#include <sodium/crypto_scalarmult.h>
#include <sodium/crypto_sign.h>
#include <sodium/utils.h>

#include "be64.h"
#include "ident.h"
#include "task.h"

_Static_assert(IDENT_AUTH_MAX <= 2048, "the seal leaves 2 KiB for it");

static const char cert_context[] = "volery-cert1";
static const char revoke_context[] = "volery-revoke1";
static const char frame_context[] = "volery-frame1";
static const char pair_context[] = "volery-pair1";

/* What the admin signs: context, name, key, a number and another. */
static size_t
signed_part(uint8_t *out, const char *context, const char *name,
    const uint8_t pk[IDENT_PK_BYTES], int64_t a, int64_t b)
{
	size_t	clen = strlen(context), nlen = strlen(name), k = 0;

	memcpy(out, context, clen);
	k += clen;
	out[k++] = (uint8_t)nlen;
	memcpy(out + k, name, nlen);
	k += nlen;
	memcpy(out + k, pk, IDENT_PK_BYTES);
	k += IDENT_PK_BYTES;
	be64_put(out + k, (uint64_t)a);
	be64_put(out + k + 8, (uint64_t)b);
	return k + 16;
}

#define SIGNED_MAX (32 + 1 + NAME_MAXLEN + IDENT_PK_BYTES + 16)

static void
admin_sign(const char *context, const char *name,
    const uint8_t pk[IDENT_PK_BYTES], int64_t a, int64_t b,
    uint8_t sig[IDENT_SIG_BYTES], const uint8_t admin_sk[64])
{
	uint8_t	m[SIGNED_MAX];
	size_t	len = signed_part(m, context, name, pk, a, b);

	crypto_sign_detached(sig, NULL, m, len, admin_sk);
}

static int
admin_signed(const char *context, const char *name,
    const uint8_t pk[IDENT_PK_BYTES], int64_t a, int64_t b,
    const uint8_t sig[IDENT_SIG_BYTES], const uint8_t admin_pk[32])
{
	uint8_t	m[SIGNED_MAX];
	size_t	len = signed_part(m, context, name, pk, a, b);

	return crypto_sign_verify_detached(sig, m, len, admin_pk) == 0;
}

void
ident_cert_sign(struct ident_cert *c, const uint8_t admin_sk[64])
{
	admin_sign(cert_context, c->name, c->pk, c->expires_ms,
	    c->max_reputation, c->sig, admin_sk);
}

int
ident_cert_verify(const struct ident_cert *c,
    const uint8_t admin_pk[IDENT_PK_BYTES])
{
	return admin_signed(cert_context, c->name, c->pk, c->expires_ms,
	    c->max_reputation, c->sig, admin_pk);
}

void
ident_revoke_sign(struct ident_revoke *r, const uint8_t admin_sk[64])
{
	admin_sign(revoke_context, r->name, r->pk, r->stamp_ms, 0, r->sig,
	    admin_sk);
}

int
ident_revoke_verify(const struct ident_revoke *r,
    const uint8_t admin_pk[IDENT_PK_BYTES])
{
	return admin_signed(revoke_context, r->name, r->pk, r->stamp_ms, 0,
	    r->sig, admin_pk);
}

void
ident_pk_format(const uint8_t pk[IDENT_PK_BYTES], char out[IDENT_PK_TEXT])
{
	sodium_bin2base64(out, IDENT_PK_TEXT, pk, IDENT_PK_BYTES,
	    sodium_base64_VARIANT_URLSAFE);
}

/* Exactly n bytes of base64 (URL-safe, padded) in word. */
static int
b64_exact(const char *word, size_t wlen, uint8_t *out, size_t n)
{
	size_t	got;

	return sodium_base642bin(out, n, word, wlen, NULL, &got, NULL,
	    sodium_base64_VARIANT_URLSAFE) == 0 && got == n ? 0 : -1;
}

int
ident_pk_parse(const char *s, uint8_t pk[IDENT_PK_BYTES])
{
	return b64_exact(s, strlen(s), pk, IDENT_PK_BYTES);
}

/* "CONTEXT NAME PK A B SIG" (B absent for a revocation). */
static int
parse_line(const char *line, const char *context, int nnums,
    char name[NAME_MAXLEN + 1], uint8_t pk[IDENT_PK_BYTES], int64_t *a,
    int64_t *b, uint8_t sig[IDENT_SIG_BYTES])
{
	char		 w[6][128];
	const char	*p = line;
	int		 nw = 0, want = 4 + nnums;
	size_t		 len;
	char		*end;

	while (*p != '\0' && *p != '\n' && nw < 6) {
		while (*p == ' ')
			p++;
		if ((len = strcspn(p, " \n")) == 0)
			break;
		if (len >= sizeof w[0])
			return -1;
		memcpy(w[nw], p, len);
		w[nw++][len] = '\0';
		p += len;
	}
	while (*p == ' ' || *p == '\n')
		p++;
	if (nw != want || *p != '\0' || strcmp(w[0], context) != 0 ||
	    strlen(w[1]) > NAME_MAXLEN || !task_name_valid(w[1]) ||
	    ident_pk_parse(w[2], pk) == -1 ||
	    b64_exact(w[want - 1], strlen(w[want - 1]), sig,
	    IDENT_SIG_BYTES) == -1)
		return -1;
	memcpy(name, w[1], strlen(w[1]) + 1);	/* checked: fits */
	*a = strtoll(w[3], &end, 10);
	if (*end != '\0' || *a < 0)
		return -1;
	if (nnums == 2) {
		*b = strtoll(w[4], &end, 10);
		if (*end != '\0' || *b < 0 || *b > IDENT_REPUTATION_MAX)
			return -1;
	}
	return 0;
}

static int
format_line(char *buf, size_t size, const char *context, const char *name,
    const uint8_t pk[IDENT_PK_BYTES], int64_t a, int nnums, int64_t b,
    const uint8_t sig[IDENT_SIG_BYTES])
{
	char	pkt[IDENT_PK_TEXT], sigt[sodium_base64_ENCODED_LEN(
		    IDENT_SIG_BYTES, sodium_base64_VARIANT_URLSAFE)];
	char	nums[48];
	int	n;

	ident_pk_format(pk, pkt);
	sodium_bin2base64(sigt, sizeof sigt, sig, IDENT_SIG_BYTES,
	    sodium_base64_VARIANT_URLSAFE);
	if (nnums == 2)
		snprintf(nums, sizeof nums, "%" PRId64 " %" PRId64, a, b);
	else
		snprintf(nums, sizeof nums, "%" PRId64, a);
	n = snprintf(buf, size, "%s %s %s %s %s", context, name, pkt, nums,
	    sigt);
	return n < 0 || (size_t)n >= size ? -1 : n;
}

int
ident_cert_format(const struct ident_cert *c, char *buf, size_t size)
{
	return format_line(buf, size, cert_context, c->name, c->pk,
	    c->expires_ms, 2, c->max_reputation, c->sig);
}

int
ident_cert_parse(const char *line, struct ident_cert *c, char *err,
    size_t errlen)
{
	int64_t	rep = 0;

	memset(c, 0, sizeof *c);
	if (parse_line(line, cert_context, 2, c->name, c->pk, &c->expires_ms,
	    &rep, c->sig) == -1) {
		snprintf(err, errlen, "not a volery certificate (%s NAME KEY "
		    "EXPIRES MAX_REPUTATION SIGNATURE: made by `volery "
		    "enroll`)", cert_context);
		return -1;
	}
	c->max_reputation = (int)rep;
	return 0;
}

int
ident_revoke_format(const struct ident_revoke *r, char *buf, size_t size)
{
	return format_line(buf, size, revoke_context, r->name, r->pk,
	    r->stamp_ms, 1, 0, r->sig);
}

int
ident_revoke_parse(const char *line, struct ident_revoke *r, char *err,
    size_t errlen)
{
	memset(r, 0, sizeof *r);
	if (parse_line(line, revoke_context, 1, r->name, r->pk, &r->stamp_ms,
	    NULL, r->sig) == -1) {
		snprintf(err, errlen, "not a volery revocation (%s NAME KEY "
		    "STAMP SIGNATURE: made by `volery revoke`)",
		    revoke_context);
		return -1;
	}
	return 0;
}

int
ident_pair_key(uint8_t key[IDENT_PAIR_BYTES], const uint8_t my_sk[64],
    const uint8_t my_pk[IDENT_PK_BYTES],
    const uint8_t their_pk[IDENT_PK_BYTES])
{
	uint8_t				 xsk[crypto_scalarmult_SCALARBYTES];
	uint8_t				 xpk[crypto_scalarmult_BYTES];
	uint8_t				 shared[crypto_scalarmult_BYTES];
	crypto_generichash_state	 st;
	int				 lo = memcmp(my_pk, their_pk,
					    IDENT_PK_BYTES) < 0, rc = -1;

	if (crypto_sign_ed25519_sk_to_curve25519(xsk, my_sk) != 0 ||
	    crypto_sign_ed25519_pk_to_curve25519(xpk, their_pk) != 0 ||
	    crypto_scalarmult(shared, xsk, xpk) != 0)
		goto out;
	/* Both sides hash the same: the keys in one order. */
	crypto_generichash_init(&st, NULL, 0, IDENT_PAIR_BYTES);
	crypto_generichash_update(&st, (const uint8_t *)pair_context,
	    sizeof pair_context - 1);
	crypto_generichash_update(&st, shared, sizeof shared);
	crypto_generichash_update(&st, lo ? my_pk : their_pk, IDENT_PK_BYTES);
	crypto_generichash_update(&st, lo ? their_pk : my_pk, IDENT_PK_BYTES);
	crypto_generichash_final(&st, key, IDENT_PAIR_BYTES);
	rc = 0;
out:
	sodium_memzero(xsk, sizeof xsk);
	sodium_memzero(shared, sizeof shared);
	return rc;
}

void
ident_digest(const struct ident_frame *f, uint8_t h[IDENT_DIGEST_BYTES])
{
	crypto_generichash_state	st;
	uint8_t				nums[24];
	uint8_t				len[2];

	crypto_generichash_init(&st, NULL, 0, IDENT_DIGEST_BYTES);
	crypto_generichash_update(&st, (const uint8_t *)frame_context,
	    sizeof frame_context - 1);
	len[0] = (uint8_t)strlen(f->sender);
	crypto_generichash_update(&st, len, 1);
	crypto_generichash_update(&st, (const uint8_t *)f->sender, len[0]);
	be64_put(nums, f->incarnation);
	be64_put(nums + 8, f->seq);
	be64_put(nums + 16, (uint64_t)f->sent_ms);
	crypto_generichash_update(&st, nums, sizeof nums);
	len[0] = f->to != NULL ? (uint8_t)strlen(f->to) : 0;
	crypto_generichash_update(&st, len, 1);
	if (f->to != NULL)
		crypto_generichash_update(&st, (const uint8_t *)f->to, len[0]);
	crypto_generichash_update(&st, (const uint8_t *)f->text, f->len);
	crypto_generichash_final(&st, h, IDENT_DIGEST_BYTES);
}

static void
mac_of(uint8_t mac[IDENT_MAC_BYTES], const uint8_t key[IDENT_PAIR_BYTES],
    const uint8_t h[IDENT_DIGEST_BYTES])
{
	crypto_generichash(mac, IDENT_MAC_BYTES, h, IDENT_DIGEST_BYTES, key,
	    IDENT_PAIR_BYTES);
}

static size_t
cert_put(uint8_t *out, const struct ident_cert *c)
{
	size_t	nlen = strlen(c->name), k = 0;

	out[k++] = (uint8_t)nlen;
	memcpy(out + k, c->name, nlen);
	k += nlen;
	memcpy(out + k, c->pk, IDENT_PK_BYTES);
	k += IDENT_PK_BYTES;
	be64_put(out + k, (uint64_t)c->expires_ms);
	k += 8;
	out[k++] = (uint8_t)(c->max_reputation >> 24);
	out[k++] = (uint8_t)(c->max_reputation >> 16);
	out[k++] = (uint8_t)(c->max_reputation >> 8);
	out[k++] = (uint8_t)c->max_reputation;
	memcpy(out + k, c->sig, IDENT_SIG_BYTES);
	return k + IDENT_SIG_BYTES;
}

/* The certificate at in (at most len bytes); its length, or 0. */
static size_t
cert_get(const uint8_t *in, size_t len, struct ident_cert *c)
{
	size_t		nlen, k = 0;
	uint32_t	rep;

	memset(c, 0, sizeof *c);
	if (len < 1 || (nlen = in[0]) == 0 || nlen > NAME_MAXLEN ||
	    len < 1 + nlen + IDENT_PK_BYTES + 12 + IDENT_SIG_BYTES)
		return 0;
	memcpy(c->name, in + 1, nlen);
	k = 1 + nlen;
	if (strlen(c->name) != nlen || !task_name_valid(c->name))
		return 0;
	memcpy(c->pk, in + k, IDENT_PK_BYTES);
	k += IDENT_PK_BYTES;
	c->expires_ms = (int64_t)be64_get(in + k);
	k += 8;
	rep = (uint32_t)in[k] << 24 | (uint32_t)in[k + 1] << 16 |
	    (uint32_t)in[k + 2] << 8 | in[k + 3];
	k += 4;
	if (c->expires_ms < 0 || rep > IDENT_REPUTATION_MAX)
		return 0;
	c->max_reputation = (int)rep;
	memcpy(c->sig, in + k, IDENT_SIG_BYTES);
	return k + IDENT_SIG_BYTES;
}

int
ident_auth_append(const struct ident_frame *f, uint8_t *out, size_t outsize,
    int n, const uint8_t (*ids)[IDENT_ID_BYTES],
    const uint8_t (*keys)[IDENT_PAIR_BYTES], const struct ident_cert *cert,
    const uint8_t sk[64])
{
	uint8_t	h[IDENT_DIGEST_BYTES], m[IDENT_DIGEST_BYTES + 2 +
		    IDENT_MACS_MAX * (IDENT_ID_BYTES + IDENT_MAC_BYTES)];
	size_t	k = f->len, mlen, sig_at = 0, block;
	int	i;

	if (n < 0 || n > IDENT_MACS_MAX ||
	    f->len + IDENT_AUTH_MAX > outsize)
		return -1;
	ident_digest(f, h);
	out[k++] = cert != NULL ? 'S' : 'M';
	if (cert != NULL) {
		k += cert_put(out + k, cert);
		sig_at = k;
		k += IDENT_SIG_BYTES;
	}
	block = k;
	out[k++] = (uint8_t)(n >> 8);
	out[k++] = (uint8_t)n;
	for (i = 0; i < n; i++) {
		memcpy(out + k, ids[i], IDENT_ID_BYTES);
		mac_of(out + k + IDENT_ID_BYTES, keys[i], h);
		k += IDENT_ID_BYTES + IDENT_MAC_BYTES;
	}
	if (cert != NULL) {
		/* The signature covers the MACs too: who we say we know. */
		mlen = k - block;
		memcpy(m, h, sizeof h);
		memcpy(m + sizeof h, out + block, mlen);
		crypto_sign_detached(out + sig_at, NULL, m, sizeof h + mlen,
		    sk);
	}
	out[k] = (uint8_t)((k - f->len + 2) >> 8);
	out[k + 1] = (uint8_t)(k - f->len + 2);
	return (int)(k + 2);
}

int
ident_auth_split(const uint8_t *plain, size_t len, size_t *textlen,
    struct ident_auth *a)
{
	size_t		 alen, k, clen;
	const uint8_t	*p;

	memset(a, 0, sizeof *a);
	if (len < 5)
		return -1;
	alen = (size_t)plain[len - 2] << 8 | plain[len - 1];
	if (alen < 5 || alen > len || alen > IDENT_AUTH_MAX)
		return -1;
	p = plain + len - alen;
	k = 1;
	if (p[0] == 'S') {
		if ((clen = cert_get(p + 1, alen - 1, &a->cert)) == 0 ||
		    1 + clen + IDENT_SIG_BYTES + 4 > alen)
			return -1;
		a->is_signed = 1;
		k += clen;
		memcpy(a->sig, p + k, IDENT_SIG_BYTES);
		k += IDENT_SIG_BYTES;
	} else if (p[0] != 'M')
		return -1;
	a->nmacs = p[k] << 8 | p[k + 1];
	if (a->nmacs > IDENT_MACS_MAX || k + 2 + (size_t)a->nmacs *
	    (IDENT_ID_BYTES + IDENT_MAC_BYTES) + 2 != alen)
		return -1;
	a->macs = p + k;	/* from the count: what the signature covers */
	*textlen = len - alen;
	return 0;
}

int
ident_auth_signed_ok(const struct ident_auth *a,
    const uint8_t h[IDENT_DIGEST_BYTES])
{
	uint8_t	m[IDENT_DIGEST_BYTES + 2 +
		    IDENT_MACS_MAX * (IDENT_ID_BYTES + IDENT_MAC_BYTES)];
	size_t	mlen = 2 + (size_t)a->nmacs * (IDENT_ID_BYTES +
		    IDENT_MAC_BYTES);

	if (!a->is_signed)
		return 0;
	memcpy(m, h, IDENT_DIGEST_BYTES);
	memcpy(m + IDENT_DIGEST_BYTES, a->macs, mlen);
	return crypto_sign_verify_detached(a->sig, m, IDENT_DIGEST_BYTES +
	    mlen, a->cert.pk) == 0;
}

int
ident_auth_mac_ok(const struct ident_auth *a,
    const uint8_t id[IDENT_ID_BYTES], const uint8_t key[IDENT_PAIR_BYTES],
    const uint8_t h[IDENT_DIGEST_BYTES])
{
	uint8_t		 mac[IDENT_MAC_BYTES];
	const uint8_t	*e = a->macs + 2;
	int		 i, found = 0;

	mac_of(mac, key, h);
	for (i = 0; i < a->nmacs; i++, e += IDENT_ID_BYTES + IDENT_MAC_BYTES)
		if (memcmp(e, id, IDENT_ID_BYTES) == 0) {
			if (sodium_memcmp(e + IDENT_ID_BYTES, mac,
			    IDENT_MAC_BYTES) == 0)
				return 1;
			found = 1;
		}
	return found ? -1 : 0;
}
