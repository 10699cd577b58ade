/*
 * outbox.c -- the list of actions produced by one core event.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "outbox.h"
#include "peer.h"

static const char *level_names[VLOG_NLEVELS] = {
	"debug", "info", "normal", "warning", "error",
};

void
outbox_init(struct outbox *o)
{
	memset(o, 0, sizeof *o);
}

void
outbox_clear(struct outbox *o)
{
	size_t	i;

	for (i = 0; i < o->n; i++)
		free(o->v[i].text);
	o->n = 0;
}

void
outbox_free(struct outbox *o)
{
	outbox_clear(o);
	free(o->v);
	memset(o, 0, sizeof *o);
}

/* Append a zeroed action; on ENOMEM the action is dropped. */
static struct action *
append(struct outbox *o, enum action_type type)
{
	struct action	*a;

	if (o->n == o->cap) {
		size_t cap = o->cap == 0 ? 16 : o->cap * 2;
		struct action *v = realloc(o->v, cap * sizeof *v);
		if (v == NULL)
			return NULL;
		o->v = v;
		o->cap = cap;
	}
	a = &o->v[o->n++];
	memset(a, 0, sizeof *a);
	a->type = type;
	return a;
}

void
outbox_task(struct outbox *o, enum action_type type, const char *uuid)
{
	struct action	*a;

	if ((a = append(o, type)) != NULL)
		snprintf(a->uuid, sizeof a->uuid, "%s", uuid);
}

/* Append an action carrying text (ours to free); on ENOMEM drop both. */
static struct action *
append_text(struct outbox *o, enum action_type type, char *text)
{
	struct action	*a;

	if (text == NULL)
		return NULL;
	if ((a = append(o, type)) == NULL) {
		free(text);
		return NULL;
	}
	a->text = text;
	return a;
}

static char *
vformat(const char *fmt, va_list ap)
{
	char	*text;

	return vasprintf(&text, fmt, ap) == -1 ? NULL : text;
}

void
outbox_text(struct outbox *o, enum action_type type, const char *uuid,
    const char *text)
{
	struct action	*a = append_text(o, type, strdup(text));

	if (a != NULL)
		snprintf(a->uuid, sizeof a->uuid, "%s", uuid);
}

void
outbox_timer(struct outbox *o, int64_t when)
{
	struct action	*a;

	if ((a = append(o, ACT_TIMER)) != NULL)
		a->when = when;
}

/* A peer message to peer, or to every peer when peer is NULL: the
 * core fills the struct, the wire codec writes it. */
void
outbox_peer(struct outbox *o, const char *peer, const struct peer_msg *m)
{
	struct action	*a;
	char		 body[DATAGRAM_MAX];

	if (peer_encode(m, body, sizeof body) == -1) {
		outbox_log(o, VLOG_ERROR, "%s does not fit a datagram; not "
		    "sent", peer_type_name(m->type));
		return;
	}
	a = append_text(o, peer != NULL ? ACT_UNICAST : ACT_BROADCAST,
	    strdup(body));
	if (a != NULL && peer != NULL)
		snprintf(a->peer, sizeof a->peer, "%s", peer);
}

void
outbox_peer_durable(struct outbox *o, const char *peer,
    const struct peer_msg *m)
{
	size_t	before = o->n;

	outbox_peer(o, peer, m);
	if (o->n > before && o->v[o->n - 1].type != ACT_LOG)
		o->v[o->n - 1].durable = 1;
}

void
outbox_log(struct outbox *o, enum log_level level, const char *fmt, ...)
{
	struct action	*a;
	va_list		 ap;

	if (level < o->log_min)
		return;
	va_start(ap, fmt);
	a = append_text(o, ACT_LOG, vformat(fmt, ap));
	va_end(ap);
	if (a != NULL)
		a->level = level;
}

const char *
log_level_name(enum log_level l)
{
	return (unsigned)l < VLOG_NLEVELS ? level_names[l] : "?";
}

int
log_level_parse(const char *s, enum log_level *out)
{
	int	i;

	for (i = 0; i < VLOG_NLEVELS; i++) {
		if (strcasecmp(s, level_names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -1;
}
