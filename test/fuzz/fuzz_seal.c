/*
 * fuzz_seal.c -- libFuzzer: the authenticated framing and the guard.
 *
 *  1. Any bytes as a frame: seal_peek and seal_open never read past
 *     them, and nothing opens that was not sealed with our key.
 *  2. The input as a datagram sealed with our key: it opens to the same
 *     text, and with any one byte changed (chosen by the input) it does
 *     not open.
 *  3. The input as a run of datagrams (sender, incarnation, sequence,
 *     clock, source) through one guard: no (sender, incarnation,
 *     sequence) is ever admitted twice, and an incarnation older than
 *     one admitted never is.
 *  4. Any bytes as a relay's envelope (relayenv.h): nothing in it is
 *     believed, and a sealed frame wrapped with our key unwraps to the
 *     same frame and address, and with any one byte changed does not;
 *     a unicast is never wrapped.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium/core.h>

#include "guard.h"
#include "relayenv.h"
#include "seal.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct keyring	ring;

static void
setup(void)
{
	uint8_t	key[SEAL_KEY_BYTES];

	if (ring.n > 0)
		return;
	if (sodium_init() == -1)
		abort();
	memset(key, 0x42, sizeof key);
	keyring_add(&ring, key);
}

static void
any_frame(const uint8_t *data, size_t size)
{
	static char	text[DATAGRAM_MAX + 1];
	struct seal_hdr	h;

	if (seal_peek(data, size, &h) != 0)
		return;
	if (h.len > size || strlen(h.sender) == 0)
		abort();
	if (seal_open(&ring, data, size, &h, "me", text, sizeof text) >= 0 ||
	    seal_open(&ring, data, size, &h, NULL, text, sizeof text) >= 0)
		abort();	/* a forgery */
}

/* A frame of ours in an envelope: as it went in, and no byte forged. */
static void
relayed(const uint8_t *frame, size_t n, const uint8_t *data, size_t size,
    size_t at, int broadcast)
{
	static uint8_t	 env[RELAY_FRAME_MAX];
	struct relay_env e;
	uint8_t		 ip[4] = { 0, 0, 0, 0 };
	uint16_t	 port = 0;
	int		 m;

	if (size >= 6) {
		memcpy(ip, data, 4);
		port = (uint16_t)(data[4] << 8 | data[5]);
	}
	m = relay_wrap(&ring, size > 0 && data[0] & 1 ? RELAY_ONWARD :
	    RELAY_RELAYED, ip, port, frame, n, env, sizeof env);
	if (!broadcast) {		/* unicasts go through the router */
		if (m != RELAY_MALFORMED)
			abort();
		return;
	}
	if (m != (int)(n + RELAY_HDR) || relay_unwrap(&ring, env, (size_t)m,
	    &e) != 0 || e.frame_len != n || memcmp(e.frame, frame, n) != 0 ||
	    memcmp(e.ip, ip, 4) != 0 || e.port != port)
		abort();
	env[at % (size_t)m] ^= 0x21;
	if (relay_unwrap(&ring, env, (size_t)m, &e) == 0)
		abort();
}

/* Any bytes as an envelope: never read past, never believed. */
static void
any_envelope(const uint8_t *data, size_t size)
{
	struct relay_env e;

	if (relay_unwrap(&ring, data, size, &e) == 0)
		abort();	/* a forgery */
}

static void
round_trip(const uint8_t *data, size_t size)
{
	static uint8_t	 frame[SEAL_FRAME_MAX];
	static char	 text[DATAGRAM_MAX + 1];
	struct seal_addr a = { "sender", 3, 0, 0, NULL };
	struct seal_hdr	 h;
	size_t		 at;
	int		 n, m;

	if (size < 3)
		return;
	a.seq = data[0];
	a.to = data[1] & 1 ? "me" : NULL;
	at = data[2];
	data += 3;
	size -= 3;
	if (size > DATAGRAM_MAX)
		size = DATAGRAM_MAX;
	if ((n = seal(&ring.k[0], &a, data, size, frame, sizeof frame)) < 0)
		abort();
	if (seal_peek(frame, n, &h) != 0)
		abort();
	m = seal_open(&ring, frame, n, &h, a.to, text, sizeof text);
	if (m != (int)size || memcmp(text, data, size) != 0)
		abort();
	relayed(frame, (size_t)n, data, size, at, a.seq & 1);
	/* One byte changed anywhere: it must not open. */
	frame[at % (size_t)n] ^= 0x5a;
	if (seal_peek(frame, n, &h) == 0 &&
	    seal_open(&ring, frame, n, &h, a.to, text, sizeof text) >= 0)
		abort();
}

struct seen {
	uint8_t		name;
	uint64_t	inc, seq;
};

static void
guard_run(const uint8_t *data, size_t size)
{
	static const char *names[] = { "a", "b", "c", "d" };
	static const char *addrs[] = { "10.0.0.1:1", "10.0.0.1:2",
	    "10.0.0.2:1" };
	static struct seen admitted[1024];
	uint64_t	   newest_inc[4] = { 0 };
	struct guard	   g;
	struct guard_dgram d;
	char		   was[ADDR_MAXLEN + 1];
	size_t		   nadm = 0, k;
	int64_t		   now = 0;

	guard_init(&g, 16, 1000, GUARD_STALE_MS);
	for (; size >= 6 && nadm < 1024; data += 6, size -= 6) {
		uint8_t who = data[0] % 4;

		d.sender = names[who];
		d.incarnation = data[1] % 4;
		d.sealed = 1;
		d.addr = addrs[data[2] % 3];
		d.seq = (uint64_t)data[3] << 4 | (data[4] & 15);
		d.sent_ms = (int64_t)data[5] * 100;
		now += data[4] >> 4;
		if (guard_dropped(guard_admit(&g, &d, now * 50, was)))
			continue;
		for (k = 0; k < nadm; k++)
			if (admitted[k].name == who &&
			    admitted[k].inc == d.incarnation &&
			    admitted[k].seq == d.seq)
				abort();	/* admitted twice */
		if (d.incarnation < newest_inc[who])
			abort();
		newest_inc[who] = d.incarnation;
		admitted[nadm].name = who;
		admitted[nadm].inc = d.incarnation;
		admitted[nadm++].seq = d.seq;
	}
	guard_free(&g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	any_frame(data, size);
	any_envelope(data, size);
	round_trip(data, size);
	guard_run(data, size);
	return 0;
}
