/*
 * peers.c -- datagrams to and from the other nodes.  What is sent is
 * sealed with the cluster key (seal.c); what arrives is opened, parsed
 * and admitted by the guard (guard.c) before the core sees it.  Anything
 * else is dropped and counted, and reported in the log at most once per
 * RATELIMIT_MS; never answered, but by a certificate to a peer that
 * does not know us yet (introduce.h).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "bundle.h"
#include "clock.h"
#include "guard.h"
#include "identity.h"
#include "introduce.h"
#include "log.h"
#include "nameidx.h"
#include "peer.h"
#include "peers.h"
#include "rejects.h"
#include "relay.h"
#include "relayenv.h"
#include "seal.h"

/*
 * A unicast counter per receiver name (seal.h): its window follows one
 * stream, whatever we send to others in between.
 */
struct dest {
	char		name[NAME_MAXLEN + 1];
	uint64_t	counter;
};

static struct {
	struct peers_opts	 o;
	int			 bcast_fd, ucast_fd;
	struct event		*bcast_ev, *ucast_ev;
	struct sockaddr_in	 bcast_to;
	struct sockaddr_in	 own;		/* 0.0.0.0 and reply_port */
	int			 reply_port;
	peers_recv_fn		*recv;
	char			 header[256];
	int			 header_len;
	uint64_t		 sent;		/* datagrams, and broadcasts */
	uint64_t		 bcast_counter;
	struct dest		*dest;		/* unicast counters */
	size_t			 ndest, dest_hand;
	struct nameidx		 dest_idx;
	struct guard		 guard;
	int			 claimed;	/* a TRY_DEQUEUE is bundled */
} p = { .bcast_fd = -1, .ucast_fd = -1 };

static bundle_send_fn send_bundle;

static int
udp_socket(int port, int reuse, char *err, size_t errlen)
{
	struct sockaddr_in	sin;
	int			fd, one = 1, size = 4 * 1024 * 1024;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_BROADCAST, &one, sizeof one);
	/* Bursts of ENQUEUE on a join: a generous receive buffer. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
	    sizeof size) == -1)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	if (reuse)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	sin.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1) {
		snprintf(err, errlen, "UDP port %d: %s", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static const enum reject guard_reject[GUARD_NVERDICTS] = {
	[GUARD_REPLAYED] = REJ_REPLAYED,
	[GUARD_STALE] = REJ_STALE,
	[GUARD_OLD_INCARNATION] = REJ_OLD_INCARNATION,
	[GUARD_IMPOSTOR] = REJ_IMPOSTOR,
	[GUARD_FULL] = REJ_FULL,
	[GUARD_SKEWED] = REJ_SKEWED,
};

/* A revocation (identity.c) to the node at addr, or to all (NULL). */
static void
send_revocation(const char *addr, const char *line)
{
	char	body[IDENT_TEXT_MAX + 16];

	snprintf(body, sizeof body, "REVOKE %s", line);
	if (addr != NULL)
		peers_unicast(NULL, addr, body);
	else
		peers_broadcast(body);
}

/* A new peer at addr hears the revocations we keep (it may have been
 * off when the admin revoked). */
static void
tell_revocation(const char *line, void *addr)
{
	send_revocation(addr, line);
}

/* The admin withdrew a node's certificate: kept, and passed on once. */
static void
recv_revocation(const struct peer_msg *m, const char *from)
{
	char	err[256] = "", line[IDENT_TEXT_MAX];

	snprintf(line, sizeof line, "%.*s", (int)m->record_len, m->record);
	if (identity_revoke(line, err, sizeof err) == 1)
		peers_revoke_spread(line);
	else if (err[0] != '\0')
		log_warnx("a revocation from %s (%s) dropped: %s", m->sender,
		    from, err);
}

/* A peer asks for the certificate of a node whose record we relayed to
 * it, or answers ours: what the admin signed needs no other trust. */
static void
recv_cert(const struct peer_msg *m, const char *addr)
{
	char	err[256] = "", line[IDENT_TEXT_MAX], body[IDENT_TEXT_MAX + 8];

	snprintf(line, sizeof line, "%.*s", (int)m->record_len, m->record);
	if (m->type == PEER_CERT_WANTED) {
		if (identity_cert_of(line, body + 5, sizeof body - 5) == 0) {
			memcpy(body, "CERT ", 5);
			peers_unicast(m->sender, addr, body);
		}
	} else if (identity_learn_cert(line, err, sizeof err) == -1)
		log_warnx("a certificate from %s dropped: %s", m->sender, err);
}

/* A peer that does not know us (or we it) yet: our certificate, signed
 * as every frame to such a peer is (introduce.h). */
static void
introduce(const char *sender, const char *addr)
{
	char	body[IDENT_TEXT_MAX + 8];

	memcpy(body, "CERT ", 5);
	if (introduce_due(sender, clock_node_ms()) &&
	    identity_cert_of(p.o.name, body + 5, sizeof body - 5) == 0)
		peers_unicast(sender, addr, body);
}

/* One message, its header checked: to the core, or the identities'. */
static int
deliver(const struct peer_msg *m, const char *from, const char *addr)
{
	/* What the admin let it claim, at most. */
	if (identity_on() && (m->type == PEER_HEARTBEAT ||
	    m->type == PEER_TRY_TO_BE_MASTER) &&
	    m->reputation > identity_max_reputation(m->sender)) {
		reject(REJ_OVER_CAP, from, m->sender);
		return 0;
	}
	if (m->type == PEER_REVOKE)
		recv_revocation(m, from);
	else if (m->type == PEER_CERT_WANTED || m->type == PEER_CERT)
		recv_cert(m, addr);
	else
		p.recv(m, addr);
	return 1;
}

/* The next line of a datagram's text: its length (no '\n'). */
static size_t
line_len(const char *text, size_t len)
{
	const char	*eol = memchr(text, '\n', len);

	return eol == NULL ? len : (size_t)(eol - text);
}

/*
 * One datagram from src (or by way of a relay, from the sender at src):
 * opened (when the cluster is keyed) before anything in it is believed.
 * Its first line is parsed, checked and admitted by the guard; the
 * others (a bundle, bundle.h) must come from the same sender, and are
 * parsed one by one.  A broadcast heard first-hand goes on to the relays
 * we name.
 */
static void
receive(const uint8_t *frame, size_t n, const struct sockaddr_in *src,
    int relayed)
{
	static struct peer_msg	 m;
	static char		 text[SEAL_PLAIN_MAX + 1];
	struct seal_hdr		 h;
	struct guard_dgram	 d;
	enum guard_verdict	 v;
	enum identity_verdict	 iv;
	size_t			 textlen, line;
	char			 err[160], was[ADDR_MAXLEN + 1];
	char			 addr[ADDR_MAXLEN + 1];
	char			 sender[NAME_MAXLEN + 1];
	char			 ip[INET_ADDRSTRLEN], from[ADDR_MAXLEN + 1];
	uint64_t		 incarnation;
	const char		*body = (const char *)frame;
	size_t			 len = n;
	int			 sealed = seal_peek(frame, n, &h) == 0, r;
	int			 port = ntohs(src->sin_port);

	inet_ntop(AF_INET, &src->sin_addr, ip, sizeof ip);
	snprintf(from, sizeof from, "%s:%d", ip, port);
	if (n > (p.o.ring->n > 0 ? SEAL_FRAME_MAX : DATAGRAM_MAX)) {
		reject(REJ_OVERSIZED, from, "");
		return;
	}

	if (p.o.ring->n > 0) {
		if (!sealed) {
			reject(REJ_UNSEALED, from, "");
			return;
		}
		if (strcmp(h.sender, p.o.name) == 0 &&
		    h.incarnation == p.o.incarnation)
			return;		/* our own broadcast */
		if ((r = seal_open(p.o.ring, frame, n, &h, p.o.name, text,
		    sizeof text)) < 0) {
			reject(r == SEAL_UNKNOWN_KEY ? REJ_UNKNOWN_KEY :
			    r == SEAL_FORGED ? REJ_FORGED : REJ_OVERSIZED,
			    from, h.sender);
			return;
		}
		body = text;
		len = (size_t)r;
		iv = identity_on() ? identity_check(&h, p.o.name,
		    (const uint8_t *)text, len, &textlen, clock_node_ms()) :
		    IDV_OK;
		if (iv != IDV_OK) {
			reject(REJ_NO_IDENTITY + (iv - IDV_NONE), from,
			    h.sender);
			if (iv == IDV_NOT_FOR_US || iv == IDV_UNKNOWN)
				introduce(h.sender, from);
			return;
		}
		if (identity_on()) {
			len = textlen;
			text[len] = '\0';
		}
		if (len > DATAGRAM_MAX) {
			reject(REJ_OVERSIZED, from, h.sender);
			return;
		}
	} else if (sealed) {
		reject(REJ_SEALED_INSECURE, from, h.sender);
		return;
	}
	line = line_len(body, len);
	if (peer_parse(body, line, &m, err, sizeof err) == -1) {
		reject(REJ_MALFORMED, from, err);
		return;
	}
	if (strcmp(m.cluster, p.o.cluster) != 0) {
		reject(REJ_FOREIGN, from, m.cluster);
		return;
	}
	if (strcmp(m.sender, p.o.name) == 0) {
		if (m.incarnation != p.o.incarnation) {
			reject(REJ_NAME_CLASH, from, "names must be unique");
			if (p.o.clash != NULL)
				p.o.clash(from);
		}
		return;		/* our own broadcast */
	}
	/* Replies go where the datagram came from, nowhere it names. */
	if ((sealed && (strcmp(m.sender, h.sender) != 0 ||
	    m.incarnation != h.incarnation)) || m.reply_port != port) {
		reject(REJ_MISMATCH, from, m.sender);
		return;
	}
	d.sender = m.sender;
	d.incarnation = m.incarnation;
	d.sealed = sealed;
	d.addr = from;
	d.seq = sealed ? h.seq : 0;
	d.sent_ms = sealed ? h.sent_ms : 0;
	v = guard_admit(&p.guard, &d, clock_node_ms(), was);
	if (guard_dropped(v)) {
		reject(guard_reject[v], from, m.sender);
		return;
	}
	if (sealed && (h.seq & 1) && !relayed)
		relay_heard(h.sender, h.incarnation, h.seq, frame, n, src);
	if (v == GUARD_MOVED && was[0] != '\0')
		log_warnx("node %s moved from %s to %s", m.sender, was, from);
	snprintf(addr, sizeof addr, "%s:%d", ip, m.reply_port);
	if (v == GUARD_NEW && identity_on())
		identity_each_revocation(tell_revocation, addr);
	memcpy(sender, m.sender, sizeof sender);
	incarnation = m.incarnation;
	while (deliver(&m, from, addr) && line + 1 < len) {
		body += line + 1;
		len -= line + 1;
		line = line_len(body, len);
		if (peer_parse(body, line, &m, err, sizeof err) == -1) {
			reject(REJ_MALFORMED, from, err);
			return;
		}
		if (strcmp(m.cluster, p.o.cluster) != 0 ||
		    strcmp(m.sender, sender) != 0 ||
		    m.incarnation != incarnation || m.reply_port != port) {
			reject(REJ_MISMATCH, from, m.sender);
			return;
		}
	}
}

/* A frame a relay brought us: its sender is at src. */
static void
receive_relayed(const uint8_t *frame, size_t n, const struct sockaddr_in *src)
{
	receive(frame, n, src, 1);
}

static void
read_cb(evutil_socket_t fd, short what, void *arg)
{
	static uint8_t		 buf[RELAY_FRAME_MAX + 1];
	struct sockaddr_in	 sin;
	socklen_t		 sinlen;
	ssize_t			 n;
	int			 budget = 256;	/* let others run too */

	p.claimed = 0;	/* an earlier pass's claims left at its end */
	while (budget-- > 0) {
		sinlen = sizeof sin;
		n = recvfrom(fd, buf, sizeof buf, MSG_TRUNC,
		    (struct sockaddr *)&sin, &sinlen);
		if (n == -1)
			return;
		if (relay_is_envelope(buf, (size_t)n) &&
		    (size_t)n <= RELAY_FRAME_MAX)
			relay_receive(buf, (size_t)n, &sin);
		else
			receive(buf, (size_t)n, &sin, 0);
		/* A claim is stamped when it is made, and the rivals' windows
		 * count from their own: it leaves now, not when the pass of up
		 * to 256 datagrams ends (in a burst, longer than a window). */
		if (p.claimed) {
			p.claimed = 0;
			bundle_flush();
		}
	}
}

static const char *
dest_name(const void *ctx, size_t i)
{
	return p.dest[i].name;
}

/*
 * The next unicast counter for a receiver.  One forgotten to make room
 * starts again at the number of datagrams sent so far: above any counter
 * it was ever given, so its window sees no replay and no nonce repeats.
 */
static uint64_t
dest_next(const char *name)
{
	struct dest	*d, *v;
	int		 i = nameidx_find(&p.dest_idx, name);

	if (i >= 0)
		return ++p.dest[i].counter;
	if (p.ndest >= (size_t)p.o.max_senders) {
		d = &p.dest[p.dest_hand++ % p.ndest];
		snprintf(d->name, sizeof d->name, "%s", name);
		nameidx_rebuild(&p.dest_idx, p.ndest);
	} else {
		if ((v = realloc(p.dest, (p.ndest + 1) * sizeof *v)) == NULL)
			return ++p.sent;	/* still above: no replay */
		p.dest = v;
		d = &p.dest[p.ndest++];
		snprintf(d->name, sizeof d->name, "%s", name);
		if (nameidx_add(&p.dest_idx, p.ndest) == -1) {
			p.ndest--;
			return ++p.sent;
		}
	}
	d->counter = p.sent + 1;
	return d->counter;
}

int
peers_open(struct event_base *base, const struct peers_opts *o,
    peers_recv_fn *recv, char *err, size_t errlen)
{
	struct sockaddr_in	sin;
	struct relay_opts	ro;
	socklen_t		len = sizeof sin;

	p.o = *o;
	p.recv = recv;
	guard_init(&p.guard, (size_t)o->max_senders, o->bind_ms,
	    GUARD_STALE_MS);
	p.guard.skew_ms = o->skew_ms;
	p.dest_idx.name = dest_name;
	memset(&p.bcast_to, 0, sizeof p.bcast_to);
	p.bcast_to.sin_family = AF_INET;
	p.bcast_to.sin_port = htons(o->port);
	if (inet_pton(AF_INET, o->broadcast, &p.bcast_to.sin_addr) != 1) {
		snprintf(err, errlen, "bad broadcast address %s",
		    o->broadcast);
		return -1;
	}
	if ((p.bcast_fd = udp_socket(o->port, 1, err, errlen)) == -1)
		return -1;
	if ((p.ucast_fd = udp_socket(0, 0, err, errlen)) == -1)
		return -1;
	getsockname(p.ucast_fd, (struct sockaddr *)&sin, &len);
	p.reply_port = ntohs(sin.sin_port);
	p.own.sin_family = AF_INET;
	p.own.sin_port = sin.sin_port;
	p.header_len = peer_header(p.header, sizeof p.header, o->cluster,
	    o->name, o->incarnation, p.reply_port);
	ro.ring = o->ring;
	ro.to = o->relays;
	ro.n = o->nrelays;
	ro.port = o->port;
	ro.fd = p.ucast_fd;
	ro.bcast = &p.bcast_to;
	if (relay_open(&ro, receive_relayed, err, errlen) == -1)
		return -1;
	if (bundle_init(base, send_bundle) == -1) {
		snprintf(err, errlen, "cannot make the bundles' event");
		return -1;
	}
	p.bcast_ev = event_new(base, p.bcast_fd, EV_READ | EV_PERSIST,
	    read_cb, NULL);
	p.ucast_ev = event_new(base, p.ucast_fd, EV_READ | EV_PERSIST,
	    read_cb, NULL);
	if (p.header_len == -1 || p.bcast_ev == NULL || p.ucast_ev == NULL ||
	    event_add(p.bcast_ev, NULL) == -1 ||
	    event_add(p.ucast_ev, NULL) == -1) {
		snprintf(err, errlen, "cannot watch the peer sockets");
		return -1;
	}
	return 0;
}

void
peers_close(void)
{
	bundle_free();
	relay_close();
	if (p.bcast_ev != NULL)
		event_free(p.bcast_ev);
	if (p.ucast_ev != NULL)
		event_free(p.ucast_ev);
	if (p.bcast_fd != -1)
		close(p.bcast_fd);
	if (p.ucast_fd != -1)
		close(p.ucast_fd);
	p.bcast_ev = p.ucast_ev = NULL;
	p.bcast_fd = p.ucast_fd = -1;
	guard_free(&p.guard);
	nameidx_free(&p.dest_idx);
	free(p.dest);
	p.dest = NULL;
	p.ndest = 0;
}

/*
 * A bundle's lines (bundle.c) and (keyed) the seal.  The sequence
 * number's low bit says broadcast: the receiver keeps a replay window
 * per channel.
 */
static void
send_bundle(const struct sockaddr_in *to, const char *name, const char *lines,
    size_t len)
{
	struct seal_addr a;
	struct ident_frame f;
	static char	 text[SEAL_PLAIN_MAX];
	static uint8_t	 frame[SEAL_FRAME_MAX];
	const void	*out = lines;
	int		 n;

	if (p.ucast_fd == -1)
		return;
	p.sent++;
	if (p.o.ring->n > 0) {
		memcpy(text, lines, len);
		a.sender = p.o.name;
		a.incarnation = p.o.incarnation;
		a.seq = name == NULL ? ++p.bcast_counter << 1 | 1 :
		    dest_next(name) << 1;
		a.sent_ms = clock_node_ms();
		a.to = name;
		if (identity_on()) {
			f.sender = a.sender;
			f.incarnation = a.incarnation;
			f.seq = a.seq;
			f.sent_ms = a.sent_ms;
			f.to = name;
			f.text = text;
			f.len = len;
			if ((n = identity_authenticate(&f, (uint8_t *)text,
			    sizeof text)) < 0)
				return;
			len = (size_t)n;
		}
		n = seal(&p.o.ring->k[0], &a, text, len, frame, sizeof frame);
		if (n < 0)
			return;		/* cannot be: len <= DATAGRAM_MAX */
		out = frame;
		len = (size_t)n;
		if (name == NULL)
			relay_heard(a.sender, a.incarnation, a.seq, frame, len,
			    &p.own);
	}
	if (sendto(p.ucast_fd, out, len, 0, (const struct sockaddr *)to,
	    sizeof *to) == -1)
		log_debug("sendto: %s", strerror(errno));
}

/* Header and body: a line of the bundle for that place. */
static void
send_to(const struct sockaddr_in *to, const char *name, const char *body)
{
	static char	 line[DATAGRAM_MAX];
	size_t		 len = strlen(body);

	if (p.ucast_fd == -1)
		return;
	if (p.header_len + len > DATAGRAM_MAX) {
		log_msg(VLOG_ERROR, "datagram of %zu bytes not sent: over %d",
		    p.header_len + len, DATAGRAM_MAX);
		return;
	}
	memcpy(line, p.header, p.header_len);
	memcpy(line + p.header_len, body, len);
	bundle_add(to, name, line, p.header_len + len);
	if (strncmp(body, "TRY_DEQUEUE ", 12) == 0)
		p.claimed = 1;
}

void
peers_broadcast(const char *body)
{
	send_to(&p.bcast_to, NULL, body);
}

void
peers_unicast(const char *name, const char *addr, const char *body)
{
	struct sockaddr_in	 to;
	char			 ip[INET_ADDRSTRLEN + 1];
	const char		*colon = strrchr(addr, ':');

	if (colon == NULL || (size_t)(colon - addr) >= sizeof ip)
		return;
	memcpy(ip, addr, colon - addr);
	ip[colon - addr] = '\0';
	memset(&to, 0, sizeof to);
	to.sin_family = AF_INET;
	to.sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, ip, &to.sin_addr) != 1)
		return;
	send_to(&to, name, body);
}

int
peers_reply_port(void)
{
	return p.reply_port;
}

void
peers_revoke_spread(const char *line)
{
	send_revocation(NULL, line);
}
