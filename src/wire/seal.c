/*
 * seal.c -- seal and open peer datagrams (seal.h).  libsodium does the
 * cryptography; this file only lays out the header and checks lengths.
 * The nonce is derived from the header and the receiver's name rather
 * than drawn at random, so the codec stays pure (the simulator runs it)
 * and saves 24 bytes a datagram.
 */
#include <string.h>

#include <sodium/crypto_aead_xchacha20poly1305.h>
#include <sodium/crypto_auth_hmacsha256.h>
#include <sodium/crypto_generichash.h>
#include <sodium/utils.h>

#include "be64.h"
#include "seal.h"
#include "task.h"

static const char key_id_context[] = "volery key id";
static const char relay_key_context[] = "volery relay key";

void
seal_key_init(struct seal_key *k, const uint8_t key[SEAL_KEY_BYTES])
{
	memcpy(k->key, key, SEAL_KEY_BYTES);
	crypto_generichash(k->id, SEAL_ID_BYTES,
	    (const unsigned char *)key_id_context, sizeof key_id_context - 1,
	    key, SEAL_KEY_BYTES);
	crypto_generichash(k->relay, SEAL_KEY_BYTES,
	    (const unsigned char *)relay_key_context,
	    sizeof relay_key_context - 1, key, SEAL_KEY_BYTES);
}

int
keyring_add(struct keyring *r, const uint8_t key[SEAL_KEY_BYTES])
{
	int	i;

	if (r->n >= KEYRING_MAX)
		return -1;
	seal_key_init(&r->k[r->n], key);
	/* Ids name keys on the wire: two keys of a ring never share one. */
	for (i = 0; i < r->n; i++)
		if (memcmp(r->k[i].id, r->k[r->n].id, SEAL_ID_BYTES) == 0)
			return -1;
	r->n++;
	return 0;
}

/* The associated data: the header, then the receiver's name. */
#define AD_MAX (SEAL_FIXED + 2 * NAME_MAXLEN + 1)

static size_t
ad_of(uint8_t ad[AD_MAX], const uint8_t *hdr, size_t len, const char *to)
{
	size_t	tlen = to != NULL ? strnlen(to, NAME_MAXLEN) : 0;

	memcpy(ad, hdr, len);
	ad[len] = (uint8_t)tlen;
	if (tlen > 0)
		memcpy(ad + len + 1, to, tlen);
	return len + 1 + tlen;
}

static void
nonce_of(uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES],
    const uint8_t *ad, size_t len)
{
	crypto_generichash(nonce, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
	    ad, len, NULL, 0);
}

int
seal(const struct seal_key *k, const struct seal_addr *a, const void *text,
    size_t len, uint8_t *out, size_t outsize)
{
	uint8_t			nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
	uint8_t			ad[AD_MAX];
	size_t			nlen = strlen(a->sender), hlen = SEAL_FIXED + nlen;
	size_t			adlen;
	unsigned long long	clen;

	if (nlen == 0 || nlen > NAME_MAXLEN || len > SEAL_PLAIN_MAX ||
	    hlen + len + SEAL_TAG_BYTES > outsize)
		return SEAL_TOO_BIG;
	memcpy(out, SEAL_MAGIC, 4);
	memcpy(out + 4, k->id, SEAL_ID_BYTES);
	be64_put(out + 8, a->incarnation);
	be64_put(out + 16, a->seq);
	be64_put(out + 24, (uint64_t)a->sent_ms);
	out[32] = (uint8_t)nlen;
	memcpy(out + SEAL_FIXED, a->sender, nlen);
	adlen = ad_of(ad, out, hlen, a->seq & 1 ? NULL : a->to);
	nonce_of(nonce, ad, adlen);
	crypto_aead_xchacha20poly1305_ietf_encrypt(out + hlen, &clen, text, len,
	    ad, adlen, NULL, nonce, k->key);
	return (int)(hlen + clen);
}

int
seal_peek(const uint8_t *in, size_t len, struct seal_hdr *h)
{
	size_t	nlen;

	if (len < SEAL_FIXED || memcmp(in, SEAL_MAGIC, 4) != 0)
		return SEAL_NOT_SEALED;
	nlen = in[32];
	if (nlen == 0 || nlen > NAME_MAXLEN ||
	    len < SEAL_FIXED + nlen + SEAL_TAG_BYTES)
		return SEAL_NOT_SEALED;
	memcpy(h->key_id, in + 4, SEAL_ID_BYTES);
	h->incarnation = be64_get(in + 8);
	h->seq = be64_get(in + 16);
	h->sent_ms = (int64_t)be64_get(in + 24);
	memcpy(h->sender, in + SEAL_FIXED, nlen);
	h->sender[nlen] = '\0';
	h->len = SEAL_FIXED + nlen;
	if (strlen(h->sender) != nlen || !task_name_valid(h->sender))
		return SEAL_NOT_SEALED;
	return 0;
}

int
seal_open(const struct keyring *r, const uint8_t *in, size_t len,
    const struct seal_hdr *h, const char *me, char *text, size_t textsize)
{
	uint8_t			 nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
	uint8_t			 ad[AD_MAX];
	size_t			 adlen;
	const struct seal_key	*k = NULL;
	unsigned long long	 tlen;
	size_t			 clen;
	int			 i;

	if (len < h->len + SEAL_TAG_BYTES)
		return SEAL_NOT_SEALED;
	clen = len - h->len;
	for (i = 0; i < r->n && k == NULL; i++)
		if (memcmp(r->k[i].id, h->key_id, SEAL_ID_BYTES) == 0)
			k = &r->k[i];
	if (k == NULL)
		return SEAL_UNKNOWN_KEY;
	if (clen - SEAL_TAG_BYTES > SEAL_PLAIN_MAX ||
	    clen - SEAL_TAG_BYTES + 1 > textsize)
		return SEAL_TOO_BIG;
	adlen = ad_of(ad, in, h->len, h->seq & 1 ? NULL : me);
	nonce_of(nonce, ad, adlen);
	if (crypto_aead_xchacha20poly1305_ietf_decrypt((uint8_t *)text, &tlen,
	    NULL, in + h->len, clen, ad, adlen, nonce, k->key) != 0)
		return SEAL_FORGED;
	text[tlen] = '\0';
	return (int)tlen;
}

const char *
seal_strerror(int e)
{
	switch (e) {
	case SEAL_NOT_SEALED:
		return "not sealed";
	case SEAL_UNKNOWN_KEY:
		return "sealed with an unknown key";
	case SEAL_FORGED:
		return "forged or damaged";
	case SEAL_TOO_BIG:
		return "oversized";
	}
	return "?";
}

static void
auth_answer(const uint8_t key[SEAL_KEY_BYTES], const char *prefix,
    const char *challenge, char answer[AUTH_HEX_LEN + 1])
{
	crypto_auth_hmacsha256_state	st;
	uint8_t				mac[crypto_auth_hmacsha256_BYTES];

	crypto_auth_hmacsha256_init(&st, key, SEAL_KEY_BYTES);
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)prefix,
	    strlen(prefix));
	crypto_auth_hmacsha256_update(&st, (const uint8_t *)challenge,
	    strlen(challenge));
	crypto_auth_hmacsha256_final(&st, mac);
	sodium_bin2hex(answer, AUTH_HEX_LEN + 1, mac, sizeof mac);
}

void
seal_auth_answer(const uint8_t key[SEAL_KEY_BYTES], const char *challenge,
    char answer[AUTH_HEX_LEN + 1])
{
	auth_answer(key, "volery-auth ", challenge, answer);
}

void
seal_peer_auth_answer(const uint8_t key[SEAL_KEY_BYTES],
    const char *challenge, char answer[AUTH_HEX_LEN + 1])
{
	auth_answer(key, "volery-peer-auth ", challenge, answer);
}
