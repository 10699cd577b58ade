/*
 * peer.c -- parse and start peer datagrams (see peer.h).  Everything is
 * checked: a datagram that does not parse is dropped by the caller and
 * changes nothing.
 */
#include <errno.h>
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "peer.h"
#include "task.h"

static const char *type_names[PEER_NTYPES] = {
	"HEARTBEAT", "WHO_IS_MASTER", "START_NEW_MASTER_ELECTION",
	"TRY_TO_BE_MASTER", "NEW_MASTER", "ENQUEUE", "ENQUEUE_ACK",
	"TRY_DEQUEUE", "STATE", "PROGRESS", "GET_TASK", "TASKS_TRANSFER",
	"VOTE", "RETIRED", "REVOKE", "CERT_WANTED", "CERT",
	"SECRET_WANTED", "SECRET", "CKPT_TAKE", "CKPT_HELD",
};

const char *
peer_type_name(enum peer_type t)
{
	return (unsigned)t < PEER_NTYPES ? type_names[t] : "?";
}

int
peer_header(char *buf, size_t size, const char *cluster, const char *sender,
    uint64_t incarnation, int reply_port)
{
	int	n = snprintf(buf, size, "%s %s %s %016" PRIx64 " %d ", PEER_PROTO,
	    cluster, sender, incarnation, reply_port);

	return n < 0 || (size_t)n >= size ? -1 : n;
}

void
peer_msg_init(struct peer_msg *m, enum peer_type type)
{
	memset(m, 0, offsetof(struct peer_msg, buf));
	m->type = type;
}

/*
 * The body of a datagram ("TYPE args", no header): the inverse of
 * peer_parse() for the fields of m->type.  Returns the length, or -1 if
 * it does not fit.
 */
int
peer_encode(const struct peer_msg *m, char *buf, size_t size)
{
	const char	*type = peer_type_name(m->type);
	int		 n = -1;

	switch (m->type) {
	case PEER_HEARTBEAT:
		n = snprintf(buf, size, "%s %d %" PRIx64 " %d %d %s %d %" PRIx64
		    " %" PRIx64 " %d %d %" PRId64 " %" PRId64 " %" PRId64, type,
		    m->master, m->epoch, m->free, m->slots, m->volunteer,
		    m->reputation, m->map_size, m->digest, m->client_port,
		    m->speed, m->life_s, m->timestamp, m->beat_ms);
		if (n >= 0 && (size_t)n < size && m->cores > 0)
			n += snprintf(buf + n, size - n, " %d %" PRId64 " %s %s",
			    m->cores, m->memory_mb, m->tags != NULL &&
			    *m->tags != '\0' ? m->tags : "-", m->execs != NULL &&
			    *m->execs != '\0' ? m->execs : "-");
		if (n >= 0 && (size_t)n < size && m->cores > 0 &&
		    ((m->contain != NULL && *m->contain != '\0') ||
		    (m->noacct != NULL && *m->noacct != '\0')))
			n += snprintf(buf + n, size - n, " %s",
			    m->contain != NULL && *m->contain != '\0' ?
			    m->contain : "unsaid");
		if (n >= 0 && (size_t)n < size && m->cores > 0 &&
		    m->noacct != NULL && *m->noacct != '\0')
			n += snprintf(buf + n, size - n, " %s", m->noacct);
		if (n >= 0 && (size_t)n < size && m->window_s > 0)
			n += snprintf(buf + n, size - n, " window=%" PRId64
			    ",%" PRId64, m->window_in_s, m->window_s);
		if (n >= 0 && (size_t)n < size && m->wake != NULL)
			n += snprintf(buf + n, size - n, " wake=%s", m->wake);
		break;
	case PEER_WHO_IS_MASTER:
	case PEER_START_ELECTION:
		n = snprintf(buf, size, "%s", type);
		break;
	case PEER_TASKS_TRANSFER:
		if (m->transfer == PEER_TRANSFER_ALL)
			n = snprintf(buf, size, "%s", type);
		else
			n = snprintf(buf, size, "%s %s %.*s", type,
			    m->transfer == PEER_TRANSFER_ASK ? "ask" :
			    m->transfer == PEER_TRANSFER_LIST ? "list" :
			    "send", (int)m->record_len, m->record);
		break;
	case PEER_TRY_TO_BE_MASTER:
		n = snprintf(buf, size, "%s %d %" PRIx64 " %" PRId64, type,
		    m->reputation, m->map_size, m->timestamp);
		break;
	case PEER_NEW_MASTER:
		n = snprintf(buf, size, "%s %" PRIx64, type, m->epoch);
		break;
	case PEER_ENQUEUE:
	case PEER_STATE:
	case PEER_VOTE:
	case PEER_REVOKE:
	case PEER_CERT_WANTED:
	case PEER_CERT:
	case PEER_SECRET_WANTED:
	case PEER_SECRET:
		n = snprintf(buf, size, "%s %s%.*s", type, m->type ==
		    PEER_STATE && m->again ? "again " : "",
		    (int)m->record_len, m->record);
		break;
	case PEER_ENQUEUE_ACK:
	case PEER_GET_TASK:
	case PEER_RETIRED:
		n = snprintf(buf, size, "%s %s", type, m->uuid);
		break;
	case PEER_TRY_DEQUEUE:
		n = snprintf(buf, size, "%s %s %" PRId64, type, m->uuid,
		    m->timestamp);
		break;
	case PEER_PROGRESS:
		n = snprintf(buf, size, "%s %s %d %" PRIx64 " %" PRId64, type,
		    m->uuid, m->percent, m->ver, m->timestamp);
		break;
	case PEER_CKPT_TAKE:
		n = snprintf(buf, size, "%s %s %.*s", type, m->uuid,
		    (int)m->record_len, m->record);
		break;
	case PEER_CKPT_HELD:
		n = snprintf(buf, size, "%s %s %" PRIu64, type, m->uuid,
		    m->ver);
		break;
	}
	return n < 0 || (size_t)n >= size ? -1 : n;
}

static int
num(char **p, int64_t min, int64_t max, int64_t *out)
{
	char	*w = lex_word(p, LEX_STRICT);

	return w == NULL ? -1 : lex_int(w, min, max, out);
}

static int
hex64(char **p, uint64_t *out)
{
	char	*w = lex_word(p, LEX_STRICT);

	return w == NULL ? -1 : lex_hex64(w, out);
}

/* An epoch or a version: never near 2^64 (bounds.h), so never wraps. */
static int
counter(char **p, uint64_t *out)
{
	return hex64(p, out) == -1 || *out > COUNTER_MAX ? -1 : 0;
}

/* A comma list of names ("-": none), left in the datagram's buffer. */
static int
names(char **p, const char **dst)
{
	char	*w = lex_word(p, LEX_STRICT);

	if (w == NULL)
		return -1;
	if (strcmp(w, "-") == 0)
		*w = '\0';
	else if (*w == '\0' || !task_names_valid(w, CAPS_NAMES_MAX))
		return -1;
	*dst = w;
	return 0;
}

/* A name, left in the datagram's buffer. */
static int
word(char **p, const char **dst)
{
	char	*w = lex_word(p, LEX_STRICT);

	if (w == NULL || !task_name_valid(w))
		return -1;
	*dst = w;
	return 0;
}

static int
name(char **p, char *dst, size_t size)
{
	char	*w = lex_word(p, LEX_STRICT);

	if (w == NULL || !task_name_valid(w) || strlen(w) >= size)
		return -1;
	strcpy(dst, w);
	return 0;
}

static int
uuid(char **p, char *dst)
{
	char	*w = lex_word(p, LEX_STRICT);

	if (w == NULL || !task_uuid_valid(w))
		return -1;
	strcpy(dst, w);
	return 0;
}

/* A list's entries: uuid and 16 hex digits each, one to PEER_LIST_MAX. */
static int
list_entries(const char *s)
{
	char	uuid[UUID_STRLEN + 1];
	size_t	len = strlen(s), off;

	if (len == 0 || len % PEER_LIST_ENTRY != 0 ||
	    len / PEER_LIST_ENTRY > PEER_LIST_MAX)
		return -1;
	for (off = 0; off < len; off += PEER_LIST_ENTRY) {
		memcpy(uuid, s + off, UUID_STRLEN);
		uuid[UUID_STRLEN] = '\0';
		if (!task_uuid_valid(uuid) || strspn(s + off + UUID_STRLEN,
		    "0123456789abcdef") < 16)
			return -1;
	}
	return 0;
}

/* TASKS_TRANSFER's "ask <digests>" or "send <mask>": hex of the one
 * length each has; "list <entries>".  Left in the datagram's buffer. */
static int
transfer(char **p, struct peer_msg *m)
{
	char	*w = lex_word(p, LEX_STRICT), *hex;
	size_t	 want;

	if (w == NULL || (hex = lex_word(p, LEX_STRICT)) == NULL)
		return -1;
	if (strcmp(w, "list") == 0) {
		if (list_entries(hex) == -1)
			return -1;
		m->transfer = PEER_TRANSFER_LIST;
		m->record = hex;
		m->record_len = strlen(hex);
		return 0;
	}
	if (strcmp(w, "ask") == 0) {
		m->transfer = PEER_TRANSFER_ASK;
		want = PEER_BUCKETS * 16;
	} else if (strcmp(w, "send") == 0) {
		m->transfer = PEER_TRANSFER_SEND;
		want = PEER_BUCKETS / 4;
	} else
		return -1;
	if (strlen(hex) != want || strspn(hex, "0123456789abcdefABCDEF") != want)
		return -1;
	m->record = hex;
	m->record_len = want;
	return 0;
}

/* HEARTBEAT's last word, "window=<in_s>,<lasts_s>" (avail.h), cut off
 * the line before the rest is read: it follows whatever of the optional
 * fields the sender has. */
static int
window(char *p, struct peer_msg *m)
{
	char	*w = strstr(p, " window="), *comma;

	if (w == NULL)
		return 0;
	*w = '\0';
	if ((comma = strchr(w += 8, ',')) == NULL)
		return -1;
	*comma = '\0';
	return lex_int(w, 0, WINDOW_MAX_S, &m->window_in_s) == -1 ||
	    lex_int(comma + 1, 1, WINDOW_MAX_S, &m->window_s) == -1 ? -1 : 0;
}

/* "aa:bb:cc:dd:ee:ff@a.b.c.d[,always]": a MAC address, and the IPv4
 * broadcast address of its subnet. */
int
peer_wake_valid(const char *s)
{
	int	i, k, v;

	for (i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return 0;
	if (s[17] != '@')
		return 0;
	s += 18;
	for (k = 0; k < 4; k++) {
		for (v = 0, i = 0; i < 3 && isdigit((unsigned char)s[i]); i++)
			v = v * 10 + s[i] - '0';
		if (i == 0 || v > 255 || isdigit((unsigned char)s[i]))
			return 0;
		s += i;
		if (k < 3 && *s++ != '.')
			return 0;
	}
	return *s == '\0' || strcmp(s, ",always") == 0;
}

/* HEARTBEAT's "wake=..." after everything else, cut off first. */
static int
wake(char *p, struct peer_msg *m)
{
	char	*w = strstr(p, " wake=");

	if (w == NULL)
		return 0;
	*w = '\0';
	m->wake = w + 6;
	return peer_wake_valid(m->wake) ? 0 : -1;
}

#define NEED(x) do { if ((x) == -1) { what = #x; goto bad; } } while (0)

int
peer_parse(const char *data, size_t len, struct peer_msg *m, char *err,
    size_t errlen)
{
	char		*p, *w;
	const char	*what = "";
	int64_t		 v;
	int		 i;

	memset(m, 0, offsetof(struct peer_msg, buf));
	if (len > DATAGRAM_MAX || memchr(data, '\0', len) != NULL) {
		snprintf(err, errlen, "oversized or binary datagram");
		return -1;
	}
	memcpy(m->buf, data, len);
	m->buf[len] = '\0';
	if (len > 0 && m->buf[len - 1] == '\n')
		m->buf[--len] = '\0';
	if (memchr(m->buf, '\n', len) != NULL) {
		snprintf(err, errlen, "a datagram is one line");
		return -1;
	}
	p = m->buf;
	if ((w = lex_word(&p, LEX_STRICT)) == NULL || strcmp(w, PEER_PROTO) != 0) {
		snprintf(err, errlen, "not a %s datagram", PEER_PROTO);
		return -1;
	}
	NEED(name(&p, m->cluster, sizeof m->cluster));
	NEED(name(&p, m->sender, sizeof m->sender));
	NEED(hex64(&p, &m->incarnation));
	NEED(num(&p, 1, 65535, &v));
	m->reply_port = (int)v;
	if ((w = lex_word(&p, LEX_STRICT)) == NULL) {
		what = "type";
		goto bad;
	}
	for (i = 0; i < PEER_NTYPES; i++)
		if (strcmp(w, type_names[i]) == 0)
			break;
	if (i == PEER_NTYPES) {
		what = "type";
		goto bad;
	}
	m->type = i;
	switch (m->type) {
	case PEER_HEARTBEAT:
		NEED(wake(p, m));
		NEED(window(p, m));
		NEED(num(&p, 0, 1, &v));
		m->master = (int)v;
		NEED(counter(&p, &m->epoch));
		NEED(num(&p, 0, 65535, &v));
		m->free = (int)v;
		NEED(num(&p, 0, 65535, &v));
		m->slots = (int)v;
		NEED(name(&p, m->volunteer, sizeof m->volunteer));
		NEED(num(&p, 0, 1000000, &v));
		m->reputation = (int)v;
		NEED(hex64(&p, &m->map_size));
		NEED(hex64(&p, &m->digest));
		NEED(num(&p, 0, 65535, &v));
		m->client_port = (int)v;
		NEED(num(&p, SPEED_MIN, SPEED_MAX, &v));
		m->speed = (int)v;
		NEED(num(&p, 0, LIFE_MAX_S, &m->life_s));
		NEED(num(&p, 0, INT64_MAX, &m->timestamp));
		NEED(num(&p, 1, BEAT_MAX_MS, &m->beat_ms));
		if (*p == '\0')
			break;		/* an older node: no capabilities */
		NEED(num(&p, 1, CORES_MAX, &v));
		m->cores = (int)v;
		NEED(num(&p, 0, MEMORY_MB_MAX, &m->memory_mb));
		NEED(names(&p, &m->tags));
		NEED(names(&p, &m->execs));
		if (*p == '\0')
			break;		/* an older node: no containment */
		NEED(word(&p, &m->contain));
		if (*p == '\0')
			break;
		NEED(names(&p, &m->noacct));
		break;
	case PEER_WHO_IS_MASTER:
	case PEER_START_ELECTION:
		break;
	case PEER_TASKS_TRANSFER:
		if (*p != '\0')
			NEED(transfer(&p, m));
		break;
	case PEER_TRY_TO_BE_MASTER:
		NEED(num(&p, 0, 1000000, &v));
		m->reputation = (int)v;
		NEED(hex64(&p, &m->map_size));
		NEED(num(&p, 0, INT64_MAX, &m->timestamp));
		break;
	case PEER_NEW_MASTER:
		NEED(counter(&p, &m->epoch));
		break;
	case PEER_ENQUEUE:
	case PEER_STATE:
	case PEER_VOTE:
	case PEER_REVOKE:
	case PEER_CERT_WANTED:
	case PEER_CERT:
	case PEER_SECRET_WANTED:
	case PEER_SECRET:
		if (m->type == PEER_STATE && strncmp(p, "again ", 6) == 0) {
			m->again = 1;
			p += 6;
		}
		if (*p == '\0') {
			what = "record";
			goto bad;
		}
		m->record = p;
		m->record_len = strlen(p);
		return 0;
	case PEER_ENQUEUE_ACK:
	case PEER_GET_TASK:
	case PEER_RETIRED:
		NEED(uuid(&p, m->uuid));
		break;
	case PEER_TRY_DEQUEUE:
		NEED(uuid(&p, m->uuid));
		NEED(num(&p, 0, INT64_MAX, &m->timestamp));
		break;
	case PEER_PROGRESS:
		NEED(uuid(&p, m->uuid));
		NEED(num(&p, 0, 100, &v));
		m->percent = (int)v;
		NEED(counter(&p, &m->ver));
		NEED(num(&p, 0, INT64_MAX, &m->timestamp));
		break;
	case PEER_CKPT_TAKE:
		NEED(uuid(&p, m->uuid));
		if (!task_ckpt_parse(p, NULL)) {
			what = "checkpoint";
			goto bad;
		}
		m->record = p;
		m->record_len = strlen(p);
		return 0;
	case PEER_CKPT_HELD:
		NEED(uuid(&p, m->uuid));
		NEED(num(&p, 1, CKPT_SEQ_MAX, &v));
		m->ver = (uint64_t)v;
		break;
	}
	if (*p != '\0') {
		what = "trailing words";
		goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad %s datagram: %s",
	    m->type < PEER_NTYPES && what[0] != 't' ? type_names[m->type] :
	    "peer", what);
	return -1;
}
