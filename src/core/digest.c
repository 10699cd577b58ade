/*
 * digest.c -- a task's share of the map digest and its bucket
 * (digest.h).  The map digest is the XOR of a hash of (uuid, version,
 * state, confirmation, runner) over the map: equal maps, equal digests.
 * Each task keeps its share, so that a change costs one hash, not a walk.
 */
#include "digest.h"
#include "peer.h"
#include "task.h"

const char	digest_hexdigits[] = "0123456789abcdef";

static uint64_t
uuid_hash(const char *uuid)
{
	uint64_t	 h = 1469598103934665603ULL;
	const char	*p;

	for (p = uuid; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

/* FNV-1a's last bytes reach its high bits barely: mixed first (the
 * finaliser of MurmurHash3), uuids that differ at their end spread. */
unsigned
digest_bucket(const char *uuid)
{
	uint64_t	h = uuid_hash(uuid);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (unsigned)(h >> 56) % PEER_BUCKETS;
}

uint64_t
digest_part(const struct task *t)
{
	uint64_t	 h = uuid_hash(t->uuid);
	const char	*p;

	h = (h ^ t->ver) * 1099511628211ULL;
	h = (h ^ (uint64_t)t->state) * 1099511628211ULL;
	h = (h ^ (uint64_t)(t->confirmed | t->round << 1)) * 1099511628211ULL;
	/* Two results differ by who produced them. */
	for (p = t->running_on; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

int
digest_hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

void
digest_hex(uint64_t v, char *out)
{
	int	i;

	for (i = 0; i < 16; i++)
		out[i] = digest_hexdigits[v >> (60 - 4 * i) & 0xf];
}

uint64_t
digest_unhex(const char *in)
{
	uint64_t	v = 0;
	int		i;

	for (i = 0; i < 16; i++)
		v = v << 4 | (uint64_t)digest_hexval(in[i]);
	return v;
}
