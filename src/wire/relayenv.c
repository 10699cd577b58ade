/*
 * relayenv.c -- the envelope a relayed frame travels in, and the memory
 * of frames already heard (relayenv.h).  libsodium does the hashing.
 */
#include <string.h>

#include <sodium/crypto_generichash.h>
#include <sodium/crypto_shorthash.h>
#include <sodium/utils.h>

#include "be64.h"
#include "relayenv.h"

/* The key that sealed the frame, by the id in its header. */
static const struct seal_key *
key_of(const struct keyring *r, const struct seal_hdr *h)
{
	int	i;

	for (i = 0; i < r->n; i++)
		if (memcmp(r->k[i].id, h->key_id, SEAL_ID_BYTES) == 0)
			return &r->k[i];
	return NULL;
}

static void
tag_of(const struct seal_key *k, const uint8_t *env, const uint8_t *frame,
    size_t len, uint8_t tag[RELAY_TAG_BYTES])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, k->relay, SEAL_KEY_BYTES,
	    RELAY_TAG_BYTES);
	crypto_generichash_update(&st, env, 11);
	crypto_generichash_update(&st, frame, len);
	crypto_generichash_final(&st, tag, RELAY_TAG_BYTES);
}

int
relay_wrap(const struct keyring *r, enum relay_flag flag, const uint8_t ip[4],
    uint16_t port, const uint8_t *frame, size_t len, uint8_t *out,
    size_t outsize)
{
	const struct seal_key	*k;
	struct seal_hdr		 h;

	if (flag != RELAY_ONWARD && flag != RELAY_RELAYED)
		return RELAY_MALFORMED;
	if (seal_peek(frame, len, &h) != 0 || !(h.seq & 1))
		return RELAY_MALFORMED;		/* only broadcasts go across */
	if ((k = key_of(r, &h)) == NULL)
		return RELAY_UNKNOWN_KEY;
	if (len > SEAL_FRAME_MAX || RELAY_HDR + len > outsize)
		return RELAY_TOO_BIG;
	memcpy(out, RELAY_MAGIC, 4);
	out[4] = (uint8_t)flag;
	memcpy(out + 5, ip, 4);
	out[9] = (uint8_t)(port >> 8);
	out[10] = (uint8_t)port;
	memmove(out + RELAY_HDR, frame, len);
	tag_of(k, out, out + RELAY_HDR, len, out + 11);
	return (int)(RELAY_HDR + len);
}

int
relay_unwrap(const struct keyring *r, const uint8_t *in, size_t len,
    struct relay_env *e)
{
	const struct seal_key	*k;
	uint8_t			 tag[RELAY_TAG_BYTES];

	if (len < 4 || memcmp(in, RELAY_MAGIC, 4) != 0)
		return RELAY_NOT_ENVELOPE;
	if (len < RELAY_HDR || (in[4] != RELAY_ONWARD &&
	    in[4] != RELAY_RELAYED))
		return RELAY_MALFORMED;
	if (len - RELAY_HDR > SEAL_FRAME_MAX)
		return RELAY_TOO_BIG;
	e->frame = in + RELAY_HDR;
	e->frame_len = len - RELAY_HDR;
	if (seal_peek(e->frame, e->frame_len, &e->h) != 0 || !(e->h.seq & 1))
		return RELAY_MALFORMED;
	if ((k = key_of(r, &e->h)) == NULL)
		return RELAY_UNKNOWN_KEY;
	tag_of(k, in, e->frame, e->frame_len, tag);
	if (sodium_memcmp(tag, in + 11, RELAY_TAG_BYTES) != 0)
		return RELAY_FORGED;
	e->flag = (enum relay_flag)in[4];
	memcpy(e->ip, in + 5, 4);
	e->port = (uint16_t)(in[9] << 8 | in[10]);
	return 0;
}

void
relay_seen_init(struct relay_seen *s, const uint8_t key[RELAY_SEEN_KEY])
{
	memset(s, 0, sizeof *s);
	memcpy(s->key, key, RELAY_SEEN_KEY);
}

int
relay_seen_add(struct relay_seen *s, const char *sender, uint64_t incarnation,
    uint64_t seq)
{
	uint8_t		 in[16 + NAME_MAXLEN], out[crypto_shorthash_BYTES];
	size_t		 n = strnlen(sender, NAME_MAXLEN);
	uint64_t	 h, *set;
	int		 i;

	be64_put(in, incarnation);
	be64_put(in + 8, seq);
	memcpy(in + 16, sender, n);
	crypto_shorthash(out, in, 16 + n, s->key);
	h = be64_get(out) | 1;		/* never 0, the empty slot */
	set = &s->slot[(h >> 1) % (RELAY_SEEN_SLOTS / RELAY_SEEN_WAYS) *
	    RELAY_SEEN_WAYS];
	for (i = 0; i < RELAY_SEEN_WAYS; i++)
		if (set[i] == h)
			return 0;
	/* The set's oldest makes room: its ways are kept newest first. */
	memmove(set + 1, set, (RELAY_SEEN_WAYS - 1) * sizeof *set);
	set[0] = h;
	return 1;
}
