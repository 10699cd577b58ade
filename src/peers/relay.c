/*
 * relay.c -- broadcasts passed between subnets (relay.h).  A relay sends
 * what it hears to the relays it names; they broadcast it, flagged so
 * that no one passes it on again.  With two relays on a subnet a frame
 * comes twice: the second copy is dropped here, in silence, before the
 * guard would count it as a replay.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sodium/randombytes.h>

#include "lex.h"
#include "log.h"
#include "rejects.h"
#include "relay.h"
#include "relayenv.h"
#include "zeropages.h"

static struct {
	struct relay_opts	 o;
	struct sockaddr_in	 to[RELAYS_MAX];
	int			 n;
	relay_deliver_fn	*deliver;
	/* Frames heard, told from their copies: kept from the first
	 * envelope on, or from the start by a relay; a node of a single
	 * subnet never needs it (32 KiB it does not touch). */
	struct relay_seen	 seen;
	int			 seeing;
	uint64_t		 passed, broadcast, copies;
	int			 open;
} r;

static void
start_seeing(void)
{
	uint8_t	key[RELAY_SEEN_KEY];

	randombytes_buf(key, sizeof key);
	relay_seen_init(&r.seen, key);
	r.seeing = 1;
}

int
relay_open(const struct relay_opts *o, relay_deliver_fn *deliver, char *err,
    size_t errlen)
{
	char	host[ADDR_MAXLEN + 1];
	int	i, port;

	zero_pages(&r, sizeof r);
	r.o = *o;
	r.deliver = deliver;
	if (o->n > 0 && o->ring->n == 0) {
		snprintf(err, errlen, "<relay> needs a cluster key: a relayed "
		    "frame is told from its copies by its sealed header");
		return -1;
	}
	for (i = 0; i < o->n && i < RELAYS_MAX; i++) {
		r.to[i].sin_family = AF_INET;
		if (lex_hostport(o->to[i], host, sizeof host, &port) == -1 ||
		    inet_pton(AF_INET, host, &r.to[i].sin_addr) != 1 ||
		    port == 0) {
			snprintf(err, errlen, "<relay>%s</relay>: expected "
			    "an IPv4 address, and a port if not %d", o->to[i],
			    o->port);
			return -1;
		}
		r.to[i].sin_port = htons(port == -1 ? o->port : port);
		r.n++;
		log_msg(VLOG_NORMAL, "relay: broadcasts heard here go to %s "
		    "(port %d), a node on another subnet", host,
		    ntohs(r.to[i].sin_port));
	}
	if (r.n > 0)
		start_seeing();
	r.open = 1;
	return 0;
}

void
relay_close(void)
{
	r.open = 0;
	r.n = 0;
}

int
relay_is_envelope(const uint8_t *d, size_t n)
{
	return n >= 4 && memcmp(d, RELAY_MAGIC, 4) == 0;
}

static void
send_env(const struct sockaddr_in *to, const uint8_t *env, size_t len)
{
	if (sendto(r.o.fd, env, len, 0, (const struct sockaddr *)to,
	    sizeof *to) == -1)
		log_debug("relay sendto: %s", strerror(errno));
}

static void
addr_text(const struct sockaddr_in *sin, char *out, size_t size)
{
	char	ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof ip);
	snprintf(out, size, "%s:%d", ip, ntohs(sin->sin_port));
}

void
relay_receive(const uint8_t *d, size_t n, const struct sockaddr_in *src)
{
	static uint8_t		 out[RELAY_FRAME_MAX];
	struct relay_env	 e;
	struct sockaddr_in	 sender;
	char			 from[ADDR_MAXLEN + 1];
	int			 v, len;

	if (!r.open)
		return;
	if ((v = relay_unwrap(r.o.ring, d, n, &e)) != 0) {
		addr_text(src, from, sizeof from);
		reject(v == RELAY_UNKNOWN_KEY ? REJ_UNKNOWN_KEY :
		    v == RELAY_FORGED ? REJ_FORGED : v == RELAY_TOO_BIG ?
		    REJ_OVERSIZED : REJ_MALFORMED, from, "a relayed frame");
		return;
	}
	if (!r.seeing)
		start_seeing();		/* a pool of several subnets */
	if (!relay_seen_add(&r.seen, e.h.sender, e.h.incarnation, e.h.seq)) {
		r.copies++;
		return;
	}
	memset(&sender, 0, sizeof sender);
	sender.sin_family = AF_INET;
	sender.sin_port = htons(e.port);
	if (memcmp(e.ip, "\0\0\0\0", 4) == 0)
		sender.sin_addr = src->sin_addr;	/* the relay's own */
	else
		memcpy(&sender.sin_addr, e.ip, 4);
	if (e.flag == RELAY_ONWARD && (len = relay_wrap(r.o.ring,
	    RELAY_RELAYED, (const uint8_t *)&sender.sin_addr, e.port,
	    e.frame, e.frame_len, out, sizeof out)) > 0) {
		send_env(r.o.bcast, out, (size_t)len);
		r.broadcast++;
	}
	r.deliver(e.frame, e.frame_len, &sender);
}

void
relay_heard(const char *sender, uint64_t incarnation, uint64_t seq,
    const uint8_t *frame, size_t len, const struct sockaddr_in *src)
{
	static uint8_t	out[RELAY_FRAME_MAX];
	int		i, n;

	if (!r.open || !r.seeing)
		return;
	relay_seen_add(&r.seen, sender, incarnation, seq);
	if (r.n == 0)
		return;
	if ((n = relay_wrap(r.o.ring, RELAY_ONWARD,
	    (const uint8_t *)&src->sin_addr, ntohs(src->sin_port), frame, len,
	    out, sizeof out)) < 0)
		return;
	for (i = 0; i < r.n; i++)
		send_env(&r.to[i], out, (size_t)n);
	r.passed++;
}

void
relay_counts(uint64_t *passed, uint64_t *broadcast, uint64_t *copies)
{
	*passed = r.passed;
	*broadcast = r.broadcast;
	*copies = r.copies;
}
