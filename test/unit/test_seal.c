/*
 * test_seal.c -- the sealed framing of datagrams (seal.c) and the guard
 * that admits them (guard.c): what an attacker on the LAN can and cannot
 * make a node believe; the envelope a relay carries a frame in
 * (relayenv.c), and its memory of frames heard.
 */
#include "testutil.h"

#include <sodium/core.h>

#include "guard.h"
#include "relayenv.h"
#include "seal.h"

static const char text[] = "VOLERY/1 c a 0000000000000001 4000 HEARTBEAT "
    "1 2 1 1 idle 10 0 0 7600";

static void
key_of(uint8_t key[SEAL_KEY_BYTES], int k)
{
	memset(key, k, SEAL_KEY_BYTES);
}

static struct keyring
ring_of(int a, int b)
{
	struct keyring	r;
	uint8_t		key[SEAL_KEY_BYTES];

	memset(&r, 0, sizeof r);
	key_of(key, a);
	assert_int_equal(keyring_add(&r, key), 0);
	if (b != 0) {
		key_of(key, b);
		assert_int_equal(keyring_add(&r, key), 0);
	}
	return r;
}

/* Seal text as sender "a" with seq and to; the frame's length. */
static int
seal_as(const struct seal_key *k, uint64_t seq, const char *to,
    uint8_t *frame, size_t size)
{
	struct seal_addr a = { "a", 7, seq, 123456, to };

	return seal(k, &a, text, strlen(text), frame, size);
}

static int
open_as(const struct keyring *r, const uint8_t *frame, size_t n,
    const char *me, char *out, size_t size)
{
	struct seal_hdr	h;

	if (seal_peek(frame, n, &h) != 0)
		return SEAL_NOT_SEALED;
	return seal_open(r, frame, n, &h, me, out, size);
}

static void
test_seal_round_trip(void **state)
{
	struct keyring	r = ring_of(1, 0);
	struct seal_hdr	h;
	uint8_t		frame[SEAL_FRAME_MAX];
	char		out[DATAGRAM_MAX + 1];
	int		n = seal_as(&r.k[0], 3, NULL, frame, sizeof frame);

	/* The overhead: header, the sender's name, the tag. */
	assert_int_equal(n, (int)strlen(text) + SEAL_FIXED + 1 +
	    SEAL_TAG_BYTES);
	assert_int_equal(seal_peek(frame, n, &h), 0);
	assert_string_equal(h.sender, "a");
	assert_int_equal(h.incarnation, 7);
	assert_int_equal(h.seq, 3);
	assert_int_equal(h.sent_ms, 123456);
	assert_int_equal(open_as(&r, frame, n, "b", out, sizeof out),
	    (int)strlen(text));
	assert_string_equal(out, text);
	/* The text is not readable on the wire. */
	assert_null(memmem(frame, n, "HEARTBEAT", 9));
}

static void
test_seal_refuses_tampering(void **state)
{
	struct keyring	r = ring_of(1, 0), other = ring_of(2, 0);
	uint8_t		frame[SEAL_FRAME_MAX], bad[SEAL_FRAME_MAX];
	char		out[DATAGRAM_MAX + 1];
	int		n = seal_as(&r.k[0], 3, NULL, frame, sizeof frame), i;

	/* Every single flipped bit, header or body, is caught. */
	for (i = 0; i < n * 8; i++) {
		memcpy(bad, frame, n);
		bad[i / 8] ^= (uint8_t)(1 << (i % 8));
		assert_true(open_as(&r, bad, n, "b", out, sizeof out) < 0);
	}
	/* Cut short, or with a byte more. */
	assert_true(open_as(&r, frame, n - 1, "b", out, sizeof out) < 0);
	memcpy(bad, frame, n);
	bad[n] = 0;
	assert_true(open_as(&r, bad, n + 1, "b", out, sizeof out) < 0);
	/* Another cluster's key. */
	assert_int_equal(open_as(&other, frame, n, "b", out, sizeof out),
	    SEAL_UNKNOWN_KEY);
	/* Plain text is not a frame. */
	assert_int_equal(open_as(&r, (const uint8_t *)text, strlen(text), "b",
	    out, sizeof out), SEAL_NOT_SEALED);
	/* A broadcast's seq claimed by a unicast frame: the seq is bound. */
	memcpy(bad, frame, n);
	bad[23] ^= 1;
	assert_int_equal(open_as(&r, bad, n, "b", out, sizeof out),
	    SEAL_FORGED);
}

static void
test_seal_unicast_bound_to_receiver(void **state)
{
	struct keyring	r = ring_of(1, 0);
	uint8_t		frame[SEAL_FRAME_MAX];
	char		out[DATAGRAM_MAX + 1];
	int		n = seal_as(&r.k[0], 4, "b", frame, sizeof frame);

	assert_true(open_as(&r, frame, n, "b", out, sizeof out) > 0);
	/* Replayed to another node, it does not open. */
	assert_int_equal(open_as(&r, frame, n, "c", out, sizeof out),
	    SEAL_FORGED);
}

static void
test_keyring_rotation(void **state)
{
	struct keyring	old = ring_of(1, 0), both = ring_of(2, 1),
			new = ring_of(2, 0);
	uint8_t		frame[SEAL_FRAME_MAX], key[SEAL_KEY_BYTES];
	char		out[DATAGRAM_MAX + 1];
	int		n;

	/* Step 1: every node accepts both; the old one still seals. */
	n = seal_as(&old.k[0], 3, NULL, frame, sizeof frame);
	assert_true(open_as(&both, frame, n, "b", out, sizeof out) > 0);
	/* Step 2: the new key seals; old-only nodes do not take it... */
	n = seal_as(&both.k[0], 5, NULL, frame, sizeof frame);
	assert_true(open_as(&both, frame, n, "b", out, sizeof out) > 0);
	assert_int_equal(open_as(&old, frame, n, "b", out, sizeof out),
	    SEAL_UNKNOWN_KEY);
	/* ...step 3: the old key removed, the new one is enough. */
	assert_true(open_as(&new, frame, n, "b", out, sizeof out) > 0);
	/* A key twice on a ring, or a ninth, is refused. */
	key_of(key, 2);
	assert_int_equal(keyring_add(&both, key), -1);
	while (both.n < KEYRING_MAX) {
		key_of(key, 10 + both.n);
		assert_int_equal(keyring_add(&both, key), 0);
	}
	key_of(key, 99);
	assert_int_equal(keyring_add(&both, key), -1);
}

static void
test_seal_limits(void **state)
{
	struct keyring	 r = ring_of(1, 0);
	struct seal_addr a = { "a", 1, 3, 0, NULL };
	static char	 big[SEAL_PLAIN_MAX + 2];
	uint8_t		 frame[SEAL_FRAME_MAX];
	char		 name[NAME_MAXLEN + 2];

	memset(big, 'x', sizeof big - 1);
	assert_true(seal(&r.k[0], &a, big, SEAL_PLAIN_MAX, frame,
	    sizeof frame) > 0);
	assert_int_equal(seal(&r.k[0], &a, big, SEAL_PLAIN_MAX + 1, frame,
	    sizeof frame), SEAL_TOO_BIG);
	assert_int_equal(seal(&r.k[0], &a, big, DATAGRAM_MAX, frame, 100),
	    SEAL_TOO_BIG);
	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	a.sender = name;
	assert_int_equal(seal(&r.k[0], &a, "x", 1, frame, sizeof frame),
	    SEAL_TOO_BIG);
}

/* ---- the guard -------------------------------------------------------- */

static enum guard_verdict
admit(struct guard *g, const char *name, uint64_t inc, uint64_t seq,
    int64_t sent, const char *addr, int64_t now)
{
	struct guard_dgram d = { name, inc, 1, addr, seq, sent };
	char		   was[ADDR_MAXLEN + 1];

	return guard_admit(g, &d, now, was);
}

static void
test_guard_replays(void **state)
{
	struct guard	g;
	uint64_t	c;

	guard_init(&g, 16, 1000, GUARD_STALE_MS);
	assert_int_equal(admit(&g, "a", 5, 2 << 1 | 1, 0, "1.1.1.1:9", 0),
	    GUARD_NEW);
	/* The same datagram again: a replay. */
	assert_int_equal(admit(&g, "a", 5, 2 << 1 | 1, 0, "1.1.1.1:9", 1),
	    GUARD_REPLAYED);
	/* An earlier one not seen yet (reordered): taken once. */
	assert_int_equal(admit(&g, "a", 5, 1 << 1 | 1, 0, "1.1.1.1:9", 1),
	    GUARD_OK);
	assert_int_equal(admit(&g, "a", 5, 1 << 1 | 1, 0, "1.1.1.1:9", 1),
	    GUARD_REPLAYED);
	/* Counter 0 is never sent. */
	assert_int_equal(admit(&g, "a", 5, 0 << 1 | 1, 0, "1.1.1.1:9", 1),
	    GUARD_REPLAYED);
	/* Unicasts count apart: counter 2 there is new. */
	assert_int_equal(admit(&g, "a", 5, 2 << 1, 0, "1.1.1.1:9", 1),
	    GUARD_OK);
	/* Far ahead, then everything behind the window is refused, and
	 * every one inside it once. */
	assert_int_equal(admit(&g, "a", 5, 5000 << 1 | 1, 0, "1.1.1.1:9", 2),
	    GUARD_OK);
	assert_int_equal(admit(&g, "a", 5, (5000 - GUARD_BCAST_WINDOW) << 1 |
	    1, 0, "1.1.1.1:9", 2), GUARD_REPLAYED);
	for (c = 5000 - GUARD_BCAST_WINDOW + 1; c < 5000; c++)
		assert_int_equal(admit(&g, "a", 5, c << 1 | 1, 0,
		    "1.1.1.1:9", 2), GUARD_OK);
	for (c = 5000 - GUARD_BCAST_WINDOW + 1; c <= 5000; c++)
		assert_int_equal(admit(&g, "a", 5, c << 1 | 1, 0,
		    "1.1.1.1:9", 2), GUARD_REPLAYED);
	assert_int_equal(g.count[GUARD_REPLAYED], 4 + GUARD_BCAST_WINDOW);
	guard_free(&g);
}

static void
test_guard_incarnations_and_staleness(void **state)
{
	struct guard	g;

	guard_init(&g, 16, 1000, GUARD_STALE_MS);
	assert_int_equal(admit(&g, "a", 5, 9 << 1 | 1, 50000, "1.1.1.1:9", 0),
	    GUARD_NEW);
	/* Sent long before the newest: stale, even if never seen. */
	assert_int_equal(admit(&g, "a", 5, 3 << 1 | 1, 50000 -
	    GUARD_STALE_MS - 1, "1.1.1.1:9", 0), GUARD_STALE);
	assert_int_equal(admit(&g, "a", 5, 4 << 1 | 1, 49990, "1.1.1.1:9",
	    0), GUARD_OK);
	/* The sender restarted (another port): its counters start anew. */
	assert_int_equal(admit(&g, "a", 6, 1 << 1 | 1, 100, "1.1.1.1:10", 1),
	    GUARD_RESTARTED);
	/* Its old incarnation is over, whatever it says. */
	assert_int_equal(admit(&g, "a", 5, 99 << 1 | 1, 60000, "1.1.1.1:10",
	    2), GUARD_OLD_INCARNATION);
	assert_int_equal(admit(&g, "a", 5, 99 << 1 | 1, 60000, "1.1.1.1:9",
	    2), GUARD_OLD_INCARNATION);
	guard_free(&g);
}

static void
test_guard_binds_names_to_addresses(void **state)
{
	struct guard	   g;
	struct guard_dgram d = { "a", 5, 0, "2.2.2.2:9", 0, 0 };
	char		   was[ADDR_MAXLEN + 1];

	guard_init(&g, 16, 1000, GUARD_STALE_MS);
	assert_int_equal(admit(&g, "a", 5, 1 << 1 | 1, 0, "1.1.1.1:9", 0),
	    GUARD_NEW);
	/* Another host using the name while it is heard: an impostor,
	 * sealed or not, even claiming a newer incarnation. */
	assert_int_equal(admit(&g, "a", 5, 2 << 1 | 1, 0, "2.2.2.2:9", 500),
	    GUARD_IMPOSTOR);
	assert_int_equal(admit(&g, "a", 6, 1 << 1 | 1, 0, "2.2.2.2:9", 500),
	    GUARD_IMPOSTOR);
	assert_int_equal(guard_admit(&g, &d, 500, was), GUARD_IMPOSTOR);
	assert_string_equal(was, "1.1.1.1:9");
	/* Silent for the bind time: the name may move (a new address). */
	assert_int_equal(admit(&g, "a", 5, 3 << 1 | 1, 0, "2.2.2.2:9", 1500),
	    GUARD_MOVED);
	assert_int_equal(admit(&g, "a", 5, 4 << 1 | 1, 0, "1.1.1.1:9", 1600),
	    GUARD_IMPOSTOR);
	guard_free(&g);
}

/*
 * Two hosts given one name (a copied config): the first keeps it while it
 * lives, even quiet -- a heartbeat every quiet_heartbeat_ms -- and the
 * other is dropped every time instead of taking the name in turn.  The
 * server binds names for node_config_silence_ms.
 */
static void
test_a_quiet_node_keeps_its_name(void **state)
{
	struct node_config c;
	struct guard	   g;
	int64_t		   t, beat;
	uint64_t	   k = 1;

	node_config_default(&c);
	beat = c.quiet_heartbeat_ms;
	assert_true(beat > c.node_timeout_ms);
	guard_init(&g, 16, node_config_silence_ms(&c), GUARD_STALE_MS);
	assert_int_equal(admit(&g, "acor", 5, k++ << 1 | 1, 0, "1.1.1.1:9", 0),
	    GUARD_NEW);
	for (t = beat; t <= 10 * beat; t += beat) {
		assert_int_equal(admit(&g, "acor", 7, k++ << 1 | 1, t - 1,
		    "2.2.2.2:9", t - 1), GUARD_IMPOSTOR);
		assert_int_equal(admit(&g, "acor", 5, k++ << 1 | 1, t,
		    "1.1.1.1:9", t), GUARD_OK);
	}
	/* Silent for four quiet beats, it is dead: the name may move. */
	assert_int_equal(admit(&g, "acor", 7, k++ << 1 | 1, 15 * beat,
	    "2.2.2.2:9", 15 * beat), GUARD_MOVED);
	guard_free(&g);
}

static void
test_guard_is_bounded(void **state)
{
	struct guard	g;
	char		name[16];
	int		i;

	guard_init(&g, 16, 1000, GUARD_STALE_MS);
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "n%d", i);
		assert_int_equal(admit(&g, name, 1, 3, 0, "1.1.1.1:9", i),
		    GUARD_NEW);
	}
	/* Full of live senders: a seventeenth name is refused... */
	assert_int_equal(admit(&g, "x", 1, 3, 0, "1.1.1.1:9", 100),
	    GUARD_FULL);
	/* ...until one has been silent the bind time. */
	for (i = 1; i < 16; i++) {
		snprintf(name, sizeof name, "n%d", i);
		assert_int_equal(admit(&g, name, 1, 5, 0, "1.1.1.1:9", 1000),
		    GUARD_OK);
	}
	assert_int_equal(admit(&g, "x", 1, 3, 0, "1.1.1.1:9", 1001),
	    GUARD_NEW);
	assert_int_equal(g.n, 16);
	/* n0 was the one forgotten; the others are still known. */
	assert_int_equal(admit(&g, "n1", 1, 5, 0, "1.1.1.1:9", 1002),
	    GUARD_REPLAYED);
	guard_free(&g);
}

/* A relayed frame arrives as it was sealed, with the sender's address;
 * no byte of the envelope can change unnoticed, and only a key of the
 * ring vouches for one. */
static void
test_relay_envelope(void **state)
{
	static uint8_t		 frame[SEAL_FRAME_MAX], env[RELAY_FRAME_MAX];
	static uint8_t		 bad[RELAY_FRAME_MAX];
	struct keyring		 r = ring_of(1, 2), other = ring_of(3, 0);
	struct keyring		 old = ring_of(2, 0);
	struct relay_env	 e;
	const uint8_t		 ip[4] = { 10, 213, 7, 4 };
	int			 n, m;
	size_t			 i;

	(void)state;
	n = seal_as(&r.k[0], 7, NULL, frame, sizeof frame);
	m = relay_wrap(&r, RELAY_ONWARD, ip, 40000, frame, (size_t)n, env,
	    sizeof env);
	assert_int_equal(m, RELAY_HDR + n);
	assert_int_equal(relay_unwrap(&r, env, (size_t)m, &e), 0);
	assert_int_equal(e.flag, RELAY_ONWARD);
	assert_memory_equal(e.ip, ip, 4);
	assert_int_equal(e.port, 40000);
	assert_int_equal(e.frame_len, (size_t)n);
	assert_memory_equal(e.frame, frame, (size_t)n);
	assert_string_equal(e.h.sender, "a");
	assert_int_equal(e.h.seq, 7);
	/* Every byte matters: flag, address, port, tag and frame. */
	for (i = 0; i < (size_t)m; i++) {
		memcpy(bad, env, (size_t)m);
		bad[i] ^= 0x01;
		assert_true(relay_unwrap(&r, bad, (size_t)m, &e) < 0);
	}
	assert_true(relay_unwrap(&r, env, (size_t)m - 1, &e) < 0);
	/* A node without the frame's key cannot vouch, nor check. */
	assert_int_equal(relay_wrap(&other, RELAY_RELAYED, ip, 1, frame,
	    (size_t)n, bad, sizeof bad), RELAY_UNKNOWN_KEY);
	assert_int_equal(relay_unwrap(&other, env, (size_t)m, &e),
	    RELAY_UNKNOWN_KEY);
	/* The relay key is not the sealing key: a holder of another key of
	 * the ring (here the second) vouches with that key's own. */
	n = seal_as(&r.k[1], 9, NULL, frame, sizeof frame);
	m = relay_wrap(&old, RELAY_RELAYED, ip, 1, frame, (size_t)n, env,
	    sizeof env);
	assert_int_equal(relay_unwrap(&r, env, (size_t)m, &e), 0);
	assert_int_equal(e.flag, RELAY_RELAYED);
	/* A unicast never goes by relay: it goes through the router. */
	n = seal_as(&r.k[0], 10, "b", frame, sizeof frame);
	assert_int_equal(relay_wrap(&r, RELAY_ONWARD, ip, 1, frame, (size_t)n,
	    bad, sizeof bad), RELAY_MALFORMED);
	n = seal_as(&r.k[1], 9, NULL, frame, sizeof frame);
	/* Not an envelope, not a frame inside, no such flag. */
	assert_int_equal(relay_unwrap(&r, frame, (size_t)n, &e),
	    RELAY_NOT_ENVELOPE);
	memcpy(bad, env, RELAY_HDR);
	assert_int_equal(relay_unwrap(&r, bad, RELAY_HDR, &e),
	    RELAY_MALFORMED);
	env[4] = 3;
	assert_int_equal(relay_unwrap(&r, env, (size_t)m, &e),
	    RELAY_MALFORMED);
	assert_int_equal(relay_wrap(&r, 3, ip, 1, frame, (size_t)n, env,
	    sizeof env), RELAY_MALFORMED);
	assert_int_equal(relay_wrap(&r, RELAY_ONWARD, ip, 1, frame, (size_t)n,
	    env, (size_t)n + RELAY_HDR - 1), RELAY_TOO_BIG);
}

/* Copies of a frame are told apart by sender, incarnation and
 * sequence: a copy is known, anything else is new. */
static void
test_relay_seen(void **state)
{
	static struct relay_seen s;
	uint8_t			 key[RELAY_SEEN_KEY] = { 9 };
	uint64_t		 q;

	(void)state;
	relay_seen_init(&s, key);
	assert_int_equal(relay_seen_add(&s, "a", 1, 3), 1);
	assert_int_equal(relay_seen_add(&s, "a", 1, 3), 0);
	assert_int_equal(relay_seen_add(&s, "a", 2, 3), 1);
	assert_int_equal(relay_seen_add(&s, "a", 1, 5), 1);
	assert_int_equal(relay_seen_add(&s, "b", 1, 3), 1);
	assert_int_equal(relay_seen_add(&s, "ab", 1, 3), 1);
	/* A burst well under the slots: every copy known, nothing new
	 * taken for a copy. */
	for (q = 1; q < 1001; q += 2)
		assert_int_equal(relay_seen_add(&s, "c", 4, q), 1);
	for (q = 1; q < 1001; q += 2)
		assert_int_equal(relay_seen_add(&s, "c", 4, q), 0);
	for (q = 1001; q < 1201; q += 2)
		assert_int_equal(relay_seen_add(&s, "c", 4, q), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seal_round_trip),
		cmocka_unit_test(test_seal_refuses_tampering),
		cmocka_unit_test(test_seal_unicast_bound_to_receiver),
		cmocka_unit_test(test_keyring_rotation),
		cmocka_unit_test(test_seal_limits),
		cmocka_unit_test(test_guard_replays),
		cmocka_unit_test(test_guard_incarnations_and_staleness),
		cmocka_unit_test(test_guard_binds_names_to_addresses),
		cmocka_unit_test(test_a_quiet_node_keeps_its_name),
		cmocka_unit_test(test_guard_is_bounded),
		cmocka_unit_test(test_relay_envelope),
		cmocka_unit_test(test_relay_seen),
	};

	if (sodium_init() == -1)
		return 1;
	return cmocka_run_group_tests_name("seal", tests, NULL, NULL);
}
