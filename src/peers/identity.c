/*
 * identity.c -- this node's key and certificate, the certificates of the
 * peers it heard, the revocations (identity.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "config.h"
#include "identity.h"
#include "idfiles.h"
#include "keys.h"
#include "log.h"
#include "nameidx.h"
#include "statefile.h"

#define KNOWN_MAX	4096	/* certified peers remembered */
/* A peer heard within this is MAC'd in our broadcasts, and one of them
 * that does not know us makes us sign. */
#define RECENT_MS	600000
#define ENROL_DAYS	365
#define DAY_MS		86400000LL


struct known {
	struct ident_cert cert;
	uint8_t		 pair[IDENT_PAIR_BYTES];
	int		 paired;	/* pair derived (lazily: X25519) */
	int		 knows_me;	/* its last frame had a MAC for us */
	int64_t		 heard;
};

static struct {
	int			 on;
	uint8_t			 pk[IDENT_PK_BYTES], sk[64];
	struct ident_cert	 cert;
	uint8_t			 admin_pk[IDENT_PK_BYTES];
	char			 revoked_path[PATH_MAX + 16];
	char			 certs_path[PATH_MAX + 16];
	int			 loading;	/* certs_path: no save */
	struct known		*v;
	size_t			 n;
	struct nameidx		 idx;
	struct ident_revoke	*rv;
	size_t			 nrv;
	int64_t			 now;	/* the wall clock of the last check */
	void			(*learnt)(const char *, const uint8_t *);
} id;

static const char *
known_name(const void *ctx, size_t i)
{
	(void)ctx;
	return id.v[i].cert.name;
}

int
identity_on(void)
{
	return id.on;
}

const char *
identity_verdict_name(enum identity_verdict v)
{
	static const char *names[IDV_N] = { "ok", "no node identity",
	    "from a node whose certificate we have not heard",
	    "a certificate the admin did not sign", "an expired certificate",
	    "a revoked certificate", "a forged identity",
	    "from a node that does not know us yet" };

	return (unsigned)v < IDV_N ? names[v] : "?";
}

static int
is_revoked(const char *name, const uint8_t pk[IDENT_PK_BYTES])
{
	size_t	i;

	for (i = 0; i < id.nrv; i++)
		if (strcmp(id.rv[i].name, name) == 0 &&
		    memcmp(id.rv[i].pk, pk, IDENT_PK_BYTES) == 0)
			return 1;
	return 0;
}

/* Our certificate: node.cert if it is ours and good for a week more,
 * else one we sign when the admin's secret is here. */
static int
own_cert(const struct config *c, const uint8_t *admin_sk, int64_t now,
    char *err, size_t errlen)
{
	char	path[PATH_MAX + 16], text[IDENT_TEXT_MAX], e2[256];
	int	ok = 0;

	snprintf(path, sizeof path, "%s/node.cert", c->state_dir);
	if (keys_read_line(path, 0, text, sizeof text, e2, sizeof e2) == 0 &&
	    ident_cert_parse(text, &id.cert, e2, sizeof e2) == 0)
		ok = strcmp(id.cert.name, c->name) == 0 &&
		    memcmp(id.cert.pk, id.pk, IDENT_PK_BYTES) == 0 &&
		    ident_cert_verify(&id.cert, id.admin_pk) &&
		    id.cert.expires_ms > now + (admin_sk != NULL ? 7 * DAY_MS :
		    0);
	if (ok)
		return 0;
	if (admin_sk == NULL) {
		snprintf(err, errlen, "this node (%s) has no certificate of "
		    "the admin key in %s: on the admin's host, run `volery id "
		    "| volery enroll -k ADMIN.key` with this node's `volery "
		    "id` and install the answer here with `volery enroll -i` "
		    "(volery(1), ENROLMENT)", c->name, path);
		return -1;
	}
	memset(&id.cert, 0, sizeof id.cert);
	snprintf(id.cert.name, sizeof id.cert.name, "%s", c->name);
	memcpy(id.cert.pk, id.pk, IDENT_PK_BYTES);
	id.cert.expires_ms = now + ENROL_DAYS * DAY_MS;
	id.cert.max_reputation = c->reputation;
	ident_cert_sign(&id.cert, admin_sk);
	if (ident_cert_format(&id.cert, text, sizeof text) < 0 ||
	    strlen(text) + 1 >= sizeof text)
		return -1;
	strcat(text, "\n");
	if (statefile_write(path, text) == -1)
		log_warn("cannot keep this node's certificate in %s", path);
	log_info("enrolled this node with the admin key: %s", path);
	return 0;
}

static void	load_certs(int64_t);

/* c, a certificate heard or kept, may be believed now: the admin
 * signed it, and it is neither expired nor revoked. */
static int
trusted(const struct ident_cert *c, int64_t now)
{
	return c->expires_ms > now && !is_revoked(c->name, c->pk) &&
	    ident_cert_verify(c, id.admin_pk);
}

static void
load_revocations(void)
{
	struct ident_revoke	 r;
	char			 line[IDENT_TEXT_MAX], err[256];
	FILE			*f;

	if ((f = fopen(id.revoked_path, "r")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL)
		if (ident_revoke_parse(line, &r, err, sizeof err) == 0 &&
		    ident_revoke_verify(&r, id.admin_pk)) {
			struct ident_revoke *v = realloc(id.rv,
			    (id.nrv + 1) * sizeof *v);
			if (v == NULL)
				break;
			id.rv = v;
			id.rv[id.nrv++] = r;
		}
	fclose(f);
}

/* The admin key: <admin_key>'s file, or a loopback pool's, derived
 * from its cluster key; the secret too when there is one. */
static int
admin_keys(const struct config *c, const struct keyring *ring,
    uint8_t pk[IDENT_PK_BYTES], uint8_t sk[64], int *has_secret,
    char *err, size_t errlen)
{
	uint8_t	seed[32];

	*has_secret = 0;
	if (c->admin_key[0] != '\0')
		return idfiles_admin_read(c->admin_key, pk, sk, has_secret,
		    err, errlen);
	if (!keys_is_loopback(c->broadcast)) {
		snprintf(err, errlen, "peer address %s is not loopback and no "
		    "<admin_key> is named: run `volery keygen --admin FILE` "
		    "once on the admin's host and name FILE.pub in every "
		    "node's <admin_key> (volery(1), ENROLMENT)", c->broadcast);
		return -1;
	}
	/* One host's pool: its admin is whoever holds its key. */
	if (ring->n > 0) {
		crypto_generichash(seed, sizeof seed,
		    (const uint8_t *)"volery-admin-seed", 17, ring->k[0].key,
		    SEAL_KEY_BYTES);
		crypto_sign_seed_keypair(pk, sk, seed);
		sodium_memzero(seed, sizeof seed);
		*has_secret = 1;
	}
	return 0;
}

int
identity_config_check(const struct config *c, const struct keyring *ring,
    char *err, size_t errlen)
{
	uint8_t	pk[IDENT_PK_BYTES], sk[64];
	int	has_secret, rc;

	if (c->insecure)
		return 0;
	rc = admin_keys(c, ring, pk, sk, &has_secret, err, errlen);
	sodium_memzero(sk, sizeof sk);
	return rc;
}

int
identity_open(const struct config *c, const struct keyring *ring,
    int64_t now, char *err, size_t errlen)
{
	uint8_t	sk[64];
	int	has_secret = 0, rc;

	memset(&id, 0, sizeof id);
	id.idx.name = known_name;
	if (ring->n == 0)
		return 0;
	if (admin_keys(c, ring, id.admin_pk, sk, &has_secret, err,
	    errlen) == -1)
		return -1;
	snprintf(id.revoked_path, sizeof id.revoked_path, "%s/revoked",
	    c->state_dir);
	load_revocations();
	rc = idfiles_node_key(c->state_dir, id.pk, id.sk, err, errlen);
	if (rc == 0)
		rc = own_cert(c, has_secret ? sk : NULL, now, err, errlen);
	sodium_memzero(sk, sizeof sk);
	if (rc == 0 && is_revoked(id.cert.name, id.cert.pk)) {
		snprintf(err, errlen, "the admin revoked this node's "
		    "certificate (%s): enrol it anew with a new key", 
		    id.revoked_path);
		rc = -1;
	}
	snprintf(id.certs_path, sizeof id.certs_path, "%s/peers.certs",
	    c->state_dir);
	if (rc == 0)
		load_certs(now);
	id.on = rc == 0;
	return rc;
}

void
identity_close(void)
{
	sodium_memzero(id.sk, sizeof id.sk);
	free(id.v);
	free(id.rv);
	nameidx_free(&id.idx);
	memset(&id, 0, sizeof id);
}

/* The pair key we share with k (X25519, once). */
static const uint8_t *
pair_of(struct known *k)
{
	if (!k->paired && ident_pair_key(k->pair, id.sk, id.pk,
	    k->cert.pk) == 0)
		k->paired = 1;
	return k->paired ? k->pair : NULL;
}

int
identity_authenticate(const struct ident_frame *f, uint8_t *plain,
    size_t size)
{
	static uint8_t	ids[IDENT_MACS_MAX][IDENT_ID_BYTES];
	static uint8_t	keys[IDENT_MACS_MAX][IDENT_PAIR_BYTES];
	const uint8_t	*pair;
	struct known	*k;
	size_t		 i;
	int		 n = 0, sign = 0, recent = 0, at;

	id.now = f->sent_ms;
	if (f->to != NULL) {
		at = nameidx_find(&id.idx, f->to);
		k = at >= 0 ? &id.v[at] : NULL;
		if (k != NULL && (pair = pair_of(k)) != NULL) {
			memcpy(ids[0], k->cert.pk, IDENT_ID_BYTES);
			memcpy(keys[0], pair, IDENT_PAIR_BYTES);
			n = 1;
		}
		sign = k == NULL || !k->knows_me ||
		    id.now - k->heard > RECENT_MS;
	} else {
		for (i = 0; i < id.n; i++) {
			k = &id.v[i];
			if (id.now - k->heard > RECENT_MS)
				continue;
			recent++;
			if (!k->knows_me)
				sign = 1;
			if (n < IDENT_MACS_MAX && (pair = pair_of(k)) != NULL) {
				memcpy(ids[n], k->cert.pk, IDENT_ID_BYTES);
				memcpy(keys[n], pair, IDENT_PAIR_BYTES);
				n++;
			}
		}
		if (recent == 0 || recent > IDENT_MACS_MAX)
			sign = 1;
	}
	return ident_auth_append(f, plain, size, n,
	    (const uint8_t (*)[IDENT_ID_BYTES])ids,
	    (const uint8_t (*)[IDENT_PAIR_BYTES])keys,
	    sign ? &id.cert : NULL, id.sk);
}

/* The certificates heard, kept across restarts: a restarted node
 * checks the tasks of a taker that is gone, and MACs at once. */
static void
save_certs(void)
{
	char	*text, line[IDENT_TEXT_MAX];
	size_t	 i, len = 0, size = id.n * (IDENT_TEXT_MAX + 1) + 1;

	if (id.loading || (text = malloc(size)) == NULL)
		return;
	text[0] = '\0';
	for (i = 0; i < id.n; i++)
		if (ident_cert_format(&id.v[i].cert, line, sizeof line) > 0)
			len += (size_t)snprintf(text + len, size - len, "%s\n",
			    line);
	if (statefile_write(id.certs_path, text) == -1)
		log_warn("cannot keep the certificates heard in %s",
		    id.certs_path);
	free(text);
}

static struct known *learn(const struct ident_cert *);

static void
load_certs(int64_t now)
{
	struct ident_cert	 c;
	char			 line[IDENT_TEXT_MAX + 2], err[256];
	FILE			*f;

	if ((f = fopen(id.certs_path, "r")) == NULL)
		return;
	id.loading = 1;
	while (fgets(line, sizeof line, f) != NULL)
		if (ident_cert_parse(line, &c, err, sizeof err) == 0 &&
		    strcmp(c.name, id.cert.name) != 0 && trusted(&c, now))
			learn(&c);
	id.loading = 0;
	fclose(f);
}

/* Remember a certified sender (its certificate checked). */
static struct known *
learn(const struct ident_cert *c)
{
	struct known	*v;
	size_t		 i, old = 0;
	int		 at = nameidx_find(&id.idx, c->name);

	if (id.learnt != NULL && (at < 0 ||
	    memcmp(id.v[at].cert.pk, c->pk, IDENT_PK_BYTES) != 0))
		id.learnt(c->name, c->pk);
	if (at >= 0) {
		v = &id.v[at];
		if (memcmp(v->cert.pk, c->pk, IDENT_PK_BYTES) != 0)
			v->paired = 0;	/* enrolled anew */
		if (memcmp(&v->cert, c, sizeof *c) != 0) {
			v->cert = *c;
			save_certs();
		}
		return v;
	}
	if (id.n == KNOWN_MAX) {
		for (i = 1; i < id.n; i++)
			if (id.v[i].heard < id.v[old].heard)
				old = i;
		memset(&id.v[old], 0, sizeof id.v[old]);
		id.v[old].cert = *c;
		nameidx_rebuild(&id.idx, id.n);
		save_certs();
		return &id.v[old];
	}
	if ((v = realloc(id.v, (id.n + 1) * sizeof *v)) == NULL)
		return NULL;
	id.v = v;
	memset(&id.v[id.n], 0, sizeof id.v[id.n]);
	id.v[id.n].cert = *c;
	if (nameidx_add(&id.idx, ++id.n) == -1) {
		id.n--;
		return NULL;
	}
	save_certs();
	return &id.v[id.n - 1];
}

enum identity_verdict
identity_check(const struct seal_hdr *h, const char *me,
    const uint8_t *plain, size_t len, size_t *textlen, int64_t now)
{
	struct ident_auth	 a;
	struct ident_frame	 f;
	struct known		*k;
	uint8_t			 d[IDENT_DIGEST_BYTES];
	const uint8_t		*pair;
	int			 at, mac;

	id.now = now;
	if (ident_auth_split(plain, len, textlen, &a) == -1)
		return IDV_NONE;
	f.sender = h->sender;
	f.incarnation = h->incarnation;
	f.seq = h->seq;
	f.sent_ms = h->sent_ms;
	f.to = h->seq & 1 ? NULL : me;
	f.text = (const char *)plain;
	f.len = *textlen;
	ident_digest(&f, d);
	at = nameidx_find(&id.idx, h->sender);
	k = at >= 0 ? &id.v[at] : NULL;
	if (a.is_signed) {
		if (strcmp(a.cert.name, h->sender) != 0)
			return IDV_UNCERTIFIED;
		if (is_revoked(a.cert.name, a.cert.pk))
			return IDV_REVOKED;
		if (a.cert.expires_ms <= now)
			return IDV_EXPIRED;
		/* A certificate we checked already need not be again. */
		if ((k == NULL || memcmp(&k->cert, &a.cert,
		    sizeof a.cert) != 0) &&
		    !ident_cert_verify(&a.cert, id.admin_pk))
			return IDV_UNCERTIFIED;
		if (!ident_auth_signed_ok(&a, d))
			return IDV_FORGED;
		if ((k = learn(&a.cert)) == NULL)
			return IDV_UNKNOWN;	/* out of memory */
	} else if (k == NULL)
		return IDV_UNKNOWN;
	else if (is_revoked(k->cert.name, k->cert.pk))
		return IDV_REVOKED;
	else if (k->cert.expires_ms <= now)
		return IDV_EXPIRED;
	pair = pair_of(k);
	mac = pair != NULL ? ident_auth_mac_ok(&a, id.pk, pair, d) : 0;
	k->knows_me = mac == 1;
	if (!a.is_signed && mac != 1)
		return mac == 0 ? IDV_NOT_FOR_US : IDV_FORGED;
	k->heard = now;
	return IDV_OK;
}

const uint8_t *
identity_peer_pk(const char *name)
{
	int	at = nameidx_find(&id.idx, name);

	return at >= 0 ? id.v[at].cert.pk : NULL;
}

int
identity_peer_key(const char *name, char out[IDENT_PK_TEXT])
{
	const uint8_t	*pk = identity_peer_pk(name);

	if (pk == NULL)
		return -1;
	ident_pk_format(pk, out);
	return 0;
}

int
identity_cert_of(const char *name, char *line, size_t size)
{
	int			 at = nameidx_find(&id.idx, name);
	const struct ident_cert	*c = strcmp(name, id.cert.name) == 0 ?
				    &id.cert : at >= 0 ? &id.v[at].cert : NULL;

	return c != NULL && ident_cert_format(c, line, size) > 0 ? 0 : -1;
}

int
identity_learn_cert(const char *line, char *err, size_t errlen)
{
	struct ident_cert	c;
	int			at;

	if (ident_cert_parse(line, &c, err, errlen) == -1)
		return -1;
	if (strcmp(c.name, id.cert.name) == 0)
		return 0;	/* ours: we know it */
	at = nameidx_find(&id.idx, c.name);
	if (at >= 0 && memcmp(&id.v[at].cert, &c, sizeof c) == 0)
		return 0;
	if (!trusted(&c, id.now)) {
		snprintf(err, errlen, "node %s's certificate is revoked, "
		    "expired or not the admin's", c.name);
		return -1;
	}
	return learn(&c) != NULL ? 1 : -1;
}

int
identity_max_reputation(const char *name)
{
	int	at;

	if (strcmp(name, id.cert.name) == 0)
		return id.cert.max_reputation;
	at = nameidx_find(&id.idx, name);
	return at >= 0 ? id.v[at].cert.max_reputation : 0;
}

int
identity_revoke(const char *line, char *err, size_t errlen)
{
	struct ident_revoke	 r, *v;
	char			 text[IDENT_TEXT_MAX];
	FILE			*f;
	int			 at;

	if (!id.on) {
		snprintf(err, errlen, "this node has no identities "
		    "(<insecure/>)");
		return -1;
	}
	if (ident_revoke_parse(line, &r, err, errlen) == -1)
		return -1;
	if (!ident_revoke_verify(&r, id.admin_pk)) {
		snprintf(err, errlen, "a revocation the admin key did not "
		    "sign");
		return -1;
	}
	if (is_revoked(r.name, r.pk))
		return 0;	/* known */
	if ((v = realloc(id.rv, (id.nrv + 1) * sizeof *v)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	id.rv = v;
	id.rv[id.nrv++] = r;
	if (ident_revoke_format(&r, text, sizeof text) > 0 &&
	    (f = fopen(id.revoked_path, "a")) != NULL) {
		fprintf(f, "%s\n", text);
		if (fflush(f) != 0 || fsync(fileno(f)) != 0)
			log_warn("%s", id.revoked_path);
		fclose(f);
	}
	if ((at = nameidx_find(&id.idx, r.name)) >= 0 &&
	    memcmp(id.v[at].cert.pk, r.pk, IDENT_PK_BYTES) == 0)
		id.v[at].heard = 0;	/* out of our MACs; its frames fail */
	if (strcmp(r.name, id.cert.name) == 0 &&
	    memcmp(r.pk, id.pk, IDENT_PK_BYTES) == 0)
		log_warnx("the admin revoked this node's certificate: no "
		    "other node hears it any more");
	else
		log_msg(VLOG_NORMAL, "node %s's certificate is revoked: its "
		    "datagrams are dropped from now on", r.name);
	return 1;
}

void
identity_each_revocation(void (*cb)(const char *, void *), void *arg)
{
	char	text[IDENT_TEXT_MAX];
	size_t	i;

	for (i = 0; i < id.nrv; i++)
		if (ident_revoke_format(&id.rv[i], text, sizeof text) > 0)
			cb(text, arg);
}

const uint8_t *
identity_signing_key(void)
{
	return id.on ? id.sk : NULL;
}

void
identity_on_learn(void (*fn)(const char *, const uint8_t *))
{
	size_t	i;

	id.learnt = fn;
	if (!id.on)
		return;
	fn(id.cert.name, id.pk);
	for (i = 0; i < id.n; i++)
		fn(id.v[i].cert.name, id.v[i].cert.pk);
}
