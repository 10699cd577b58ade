/*
 * reply.c -- the node's multi-field reply lines (reply.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "reply.h"
#include "task.h"
#include "wire.h"

#define SLOTS_MAX	65535	/* more than a node may have (volery.conf) */

/* One word of a reply: no blank, no control byte, not empty. */
static int
word_ok(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return 0;
	return 1;
}

/* Copy word w into dst (size bytes); -1 if it is no word or too long. */
static int
take(char *dst, size_t size, const char *w)
{
	if (w == NULL || !word_ok(w) || strlen(w) >= size)
		return -1;
	memcpy(dst, w, strlen(w) + 1);
	return 0;
}

static int
take_int(const char *w, int64_t min, int64_t max, int64_t *v)
{
	return w == NULL ? -1 : lex_int(w, min, max, v);
}

/* Seconds with one decimal, or "-" for an unknown (negative) time. */
static void
seconds(char *buf, size_t size, int64_t ms)
{
	if (ms < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f", ms / 1000.0);
}

static int
take_seconds(const char *w, int64_t *ms)
{
	double	v;

	if (w != NULL && strcmp(w, "-") == 0) {
		*ms = -1;
		return 0;
	}
	if (w == NULL || lex_decimal(w, 0, 1e12, &v) == -1)
		return -1;
	*ms = (int64_t)(v * 1000 + 0.5);
	return 0;
}

/* line up to its newline into copy (CLIENT_LINE_MAX + 1 bytes), its
 * first word checked to be kind; the rest of it, or NULL. */
static char *
line_after(const char *line, const char *kind, char *copy)
{
	size_t	 len = strcspn(line, "\n");
	char	*p = copy, *w;

	if (len > CLIENT_LINE_MAX)
		return NULL;
	memcpy(copy, line, len);
	copy[len] = '\0';
	if ((w = lex_word(&p, LEX_STRICT)) == NULL || strcmp(w, kind) != 0)
		return NULL;
	return p;
}

/* Append to the line at buf + off: the new offset, or -1 if it does
 * not fit (and -1 stays -1, so a line is checked once, at its end). */
static int __attribute__((format(printf, 4, 5)))
put(char *buf, size_t size, int off, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (off < 0)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, size - off, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)off + n >= size ? -1 : off + n;
}

int
wire_reply_task_format(const struct reply_task *t, char *buf, size_t size)
{
	char	est[32], eta[32];
	int	off;

	if (!word_ok(t->uuid) || !word_ok(t->exec) || !word_ok(t->prio) ||
	    !word_ok(t->state) || !word_ok(t->scheduled_by) ||
	    (t->running_on[0] != '\0' && !word_ok(t->running_on)) ||
	    (t->array[0] != '\0' && !word_ok(t->array)) ||
	    (t->user[0] != '\0' && !word_ok(t->user)) ||
	    !lex_printable(t->why))
		return -1;
	seconds(est, sizeof est, t->est_ms);
	seconds(eta, sizeof eta, t->eta_ms);
	off = put(buf, size, 0, "TASK %s %s %s %s %d %s %s %s %s", t->uuid,
	    t->exec, t->prio, t->state, t->progress, t->scheduled_by,
	    t->running_on[0] != '\0' ? t->running_on : "-", est, eta);
	if (t->submit_ms >= 0)
		off = put(buf, size, off, " submitted=%" PRId64, t->submit_ms);
	if (t->user[0] != '\0')
		off = put(buf, size, off, " user=%s", t->user);
	if (t->array[0] != '\0')
		off = put(buf, size, off, " array=%s:%d", t->array,
		    t->array_index);
	if (t->ckpt_seq > 0) {
		if (!task_names_valid(t->ckpt_at, CKPT_HOLDERS_MAX) ||
		    t->ckpt_at[0] == '\0' || t->ckpt_age_ms < 0)
			return -1;
		off = put(buf, size, off, " ckpt=%" PRId64 ":%" PRId64 ":%s",
		    t->ckpt_seq, t->ckpt_age_ms, t->ckpt_at);
	}
	if (t->deadline_ms < 0)
		return -1;
	if (t->deadline_ms > 0)
		off = put(buf, size, off, " deadline=%" PRId64, t->deadline_ms);
	if (t->why[0] != '\0')
		off = put(buf, size, off, " %s", t->why);
	return put(buf, size, off, "\n");
}

int
wire_reply_task_parse(const char *line, struct reply_task *t)
{
	char	 copy[CLIENT_LINE_MAX + 1], *p, *w, *rest;
	int64_t	 v;

	memset(t, 0, sizeof *t);
	t->submit_ms = -1;
	if ((p = line_after(line, "TASK", copy)) == NULL ||
	    take(t->uuid, sizeof t->uuid, lex_word(&p, LEX_STRICT)) == -1 ||
	    take(t->exec, sizeof t->exec, lex_word(&p, LEX_STRICT)) == -1 ||
	    take(t->prio, sizeof t->prio, lex_word(&p, LEX_STRICT)) == -1 ||
	    take(t->state, sizeof t->state, lex_word(&p, LEX_STRICT)) == -1 ||
	    take_int(lex_word(&p, LEX_STRICT), 0, 100, &v) == -1)
		return -1;
	t->progress = (int)v;
	if (take(t->scheduled_by, sizeof t->scheduled_by,
	    lex_word(&p, LEX_STRICT)) == -1 ||
	    take(t->running_on, sizeof t->running_on,
	    lex_word(&p, LEX_STRICT)) == -1 ||
	    take_seconds(lex_word(&p, LEX_STRICT), &t->est_ms) == -1 ||
	    take_seconds(lex_word(&p, LEX_STRICT), &t->eta_ms) == -1)
		return -1;
	if (strcmp(t->running_on, "-") == 0)
		t->running_on[0] = '\0';
	/* Then submitted=, user=, array=, ckpt= and deadline= if there, in
	 * that order, and the rest is why. */
	for (;;) {
		rest = p;
		if ((w = lex_word(&p, LEX_STRICT)) == NULL)
			return 0;
		if (strncmp(w, "submitted=", 10) == 0 && t->submit_ms == -1 &&
		    t->user[0] == '\0' && t->array[0] == '\0') {
			if (lex_int(w + 10, 0, INT64_MAX, &t->submit_ms) == -1)
				return -1;
		} else if (strncmp(w, "user=", 5) == 0 && t->user[0] == '\0' &&
		    t->array[0] == '\0') {
			if (take(t->user, sizeof t->user, w + 5) == -1)
				return -1;
		} else if (strncmp(w, "array=", 6) == 0 && t->array[0] == '\0') {
			char *colon = strchr(w + 6, ':');
			if (colon == NULL || (*colon = '\0', take(t->array,
			    sizeof t->array, w + 6)) == -1 ||
			    lex_int(colon + 1, 0, INT32_MAX, &v) == -1)
				return -1;
			t->array_index = (int)v;
		} else if (strncmp(w, "ckpt=", 5) == 0 && t->ckpt_seq == 0) {
			char *age = strchr(w + 5, ':'), *at;
			if (age == NULL || (at = strchr(age + 1, ':')) == NULL)
				return -1;
			*age = *at = '\0';
			if (lex_int(w + 5, 1, CKPT_SEQ_MAX, &t->ckpt_seq) == -1 ||
			    lex_int(age + 1, 0, INT64_MAX, &t->ckpt_age_ms) ==
			    -1 || !task_names_valid(at + 1, CKPT_HOLDERS_MAX) ||
			    at[1] == '\0' || take(t->ckpt_at,
			    sizeof t->ckpt_at, at + 1) == -1)
				return -1;
		} else if (strncmp(w, "deadline=", 9) == 0 &&
		    t->deadline_ms == 0) {
			if (lex_int(w + 9, 1, INT64_MAX, &t->deadline_ms) == -1)
				return -1;
		} else
			break;
	}
	/* w was cut from what follows it: put the blank back. */
	if (p != w + strlen(w))
		w[strlen(w)] = ' ';
	if (!lex_printable(rest) || strlen(rest) >= sizeof t->why)
		return -1;
	memcpy(t->why, rest, strlen(rest) + 1);
	return 0;
}

/* FROM,TO of a window=: two times in ms, the window not empty. */
static int
window_parse(char *w, int64_t *from, int64_t *to)
{
	char	*comma = strchr(w, ',');

	if (comma == NULL)
		return -1;
	*comma = '\0';
	if (lex_int(w, 0, INT64_MAX / 2, from) == -1 ||
	    lex_int(comma + 1, 1, INT64_MAX / 2, to) == -1 || *to <= *from)
		return -1;
	return 0;
}

int
wire_reply_node_format(const struct reply_node *n, char *buf, size_t size)
{
	int	off;

	if (!word_ok(n->name) || !word_ok(n->address) || !word_ok(n->role) ||
	    !word_ok(n->state) || (n->tags[0] != '\0' && !word_ok(n->tags)) ||
	    (n->contain[0] != '\0' && !task_name_valid(n->contain)))
		return -1;
	off = put(buf, size, 0, "NODE %s %s %s %s %d/%d %d", n->name,
	    n->address, n->role, n->state, n->free, n->slots, n->reputation);
	if (n->cores > 0)
		off = put(buf, size, off, " cores=%d memory=%" PRId64 " tags=%s",
		    n->cores, n->memory_mb, n->tags[0] != '\0' ? n->tags : "-");
	if (n->cores > 0 && n->contain[0] != '\0')
		off = put(buf, size, off, " contain=%s", n->contain);
	if (n->window_to_ms > n->window_from_ms && n->window_from_ms >= 0)
		off = put(buf, size, off, " window=%" PRId64 ",%" PRId64,
		    n->window_from_ms, n->window_to_ms);
	return put(buf, size, off, "\n");
}

int
wire_reply_node_parse(const char *line, struct reply_node *n)
{
	char	 copy[CLIENT_LINE_MAX + 1], *p, *w, *slash;
	int64_t	 v, s, r;

	memset(n, 0, sizeof *n);
	if ((p = line_after(line, "NODE", copy)) == NULL ||
	    take(n->name, sizeof n->name, lex_word(&p, LEX_STRICT)) == -1 ||
	    take(n->address, sizeof n->address, lex_word(&p, LEX_STRICT)) ==
	    -1 ||
	    take(n->role, sizeof n->role, lex_word(&p, LEX_STRICT)) == -1 ||
	    take(n->state, sizeof n->state, lex_word(&p, LEX_STRICT)) == -1 ||
	    (w = lex_word(&p, LEX_STRICT)) == NULL ||
	    (slash = strchr(w, '/')) == NULL)
		return -1;
	*slash = '\0';
	if (lex_int(w, -SLOTS_MAX, SLOTS_MAX, &v) == -1 ||
	    lex_int(slash + 1, 0, SLOTS_MAX, &s) == -1 ||
	    take_int(lex_word(&p, LEX_STRICT), -1000000, 1000000, &r) == -1)
		return -1;
	n->free = (int)v;
	n->slots = (int)s;
	n->reputation = (int)r;
	/* What it has (cores= memory= tags= [contain=]), if it said. */
	if ((w = lex_word(&p, LEX_STRICT)) != NULL &&
	    strncmp(w, "cores=", 6) == 0) {
		if (lex_int(w + 6, 1, CORES_MAX, &v) == -1)
			return -1;
		n->cores = (int)v;
		if ((w = lex_word(&p, LEX_STRICT)) == NULL ||
		    strncmp(w, "memory=", 7) != 0 ||
		    lex_int(w + 7, 0, INT64_MAX / 2, &n->memory_mb) == -1 ||
		    (w = lex_word(&p, LEX_STRICT)) == NULL ||
		    strncmp(w, "tags=", 5) != 0 ||
		    take(n->tags, sizeof n->tags, w + 5) == -1)
			return -1;
		if (strcmp(n->tags, "-") == 0)
			n->tags[0] = '\0';
		if ((w = lex_word(&p, LEX_STRICT)) != NULL &&
		    strncmp(w, "contain=", 8) == 0) {
			if (!task_name_valid(w + 8) ||
			    take(n->contain, sizeof n->contain, w + 8) == -1)
				return -1;
			w = lex_word(&p, LEX_STRICT);
		}
	}
	/* Its batch window ahead: when it opens and closes. */
	if (w != NULL && strncmp(w, "window=", 7) == 0) {
		if (window_parse(w + 7, &n->window_from_ms,
		    &n->window_to_ms) == -1)
			return -1;
		w = lex_word(&p, LEX_STRICT);
	}
	return w == NULL && *p == '\0' ? 0 : -1;
}

int
wire_reply_rejected_format(const struct reply_rejected *r, char *buf,
    size_t size)
{
	if (!word_ok(r->last_from) || r->why[0] == '\0' || r->why[0] == ' ' ||
	    !lex_printable(r->why))
		return -1;
	return put(buf, size, 0, "REJECTED %" PRIu64 " %s %s\n", r->count,
	    r->last_from, r->why);
}

int
wire_reply_rejected_parse(const char *line, struct reply_rejected *r)
{
	char	 copy[CLIENT_LINE_MAX + 1], *p;
	int64_t	 v;

	memset(r, 0, sizeof *r);
	if ((p = line_after(line, "REJECTED", copy)) == NULL ||
	    take_int(lex_word(&p, LEX_STRICT), 0, INT64_MAX, &v) == -1 ||
	    take(r->last_from, sizeof r->last_from, lex_word(&p,
	    LEX_STRICT)) == -1 || *p == '\0' || *p == ' ' ||
	    !lex_printable(p) || strlen(p) >= sizeof r->why)
		return -1;
	r->count = (uint64_t)v;
	memcpy(r->why, p, strlen(p) + 1);
	return 0;
}

int
wire_reply_clash_format(const char *address, char *buf, size_t size)
{
	if (!word_ok(address))
		return -1;
	return put(buf, size, 0, "CLASH %s\n", address);
}

int
wire_reply_clash_parse(const char *line, char *address, size_t size)
{
	size_t	len = strcspn(line, "\n");
	char	word[ADDR_MAXLEN + 1];

	if (strncmp(line, "CLASH ", 6) != 0 || len - 6 >= sizeof word)
		return -1;
	memcpy(word, line + 6, len - 6);
	word[len - 6] = '\0';
	return take(address, size, word);
}

int
wire_reply_quarantined_format(int64_t until_ms, const char *why, char *buf,
    size_t size)
{
	if (until_ms <= 0 || !lex_printable(why) || *why == '\0')
		return -1;
	return put(buf, size, 0, "QUARANTINED %lld %s\n", (long long)until_ms,
	    why);
}

int
wire_reply_quarantined_parse(const char *line, int64_t *until_ms, char *why,
    size_t size)
{
	size_t		 len = strcspn(line, "\n");
	const char	*p;
	char		 word[24];

	if (strncmp(line, "QUARANTINED ", 12) != 0 ||
	    (p = memchr(line + 12, ' ', len - 12)) == NULL ||
	    (size_t)(p - line - 12) >= sizeof word)
		return -1;
	memcpy(word, line + 12, p - line - 12);
	word[p - line - 12] = '\0';
	/* The number as formatted: no sign, no leading zero. */
	if (word[0] == '0' || lex_int(word, 1, INT64_MAX, until_ms) == -1 ||
	    (size_t)(line + len - p - 1) >= size)
		return -1;
	memcpy(why, p + 1, line + len - p - 1);
	why[line + len - p - 1] = '\0';
	return lex_printable(why) && *why != '\0' ? 0 : -1;
}

int
wire_reply_blob_format(const char *req, int64_t bytes, int64_t zbytes,
    char *buf, size_t size)
{
	int	n;

	if (bytes < 0)
		return -1;
	n = zbytes >= 0 ? snprintf(buf, size, "%s %" PRId64 " z=%" PRId64 "\n",
	    req, bytes, zbytes) : snprintf(buf, size, "%s %" PRId64 "\n", req,
	    bytes);
	return n < 0 || (size_t)n >= size ? -1 : n;
}

/* A size as formatted: digits, no sign, no leading zero; -1 if not. */
static int
size_word(const char *p, size_t len, int64_t *v)
{
	char	word[24];

	if (len == 0 || len >= sizeof word || (p[0] == '0' && len > 1))
		return -1;
	memcpy(word, p, len);
	word[len] = '\0';
	return strspn(word, "0123456789") == len ? lex_int(word, 0, INT64_MAX,
	    v) : -1;
}

int
wire_reply_blob_parse(const char *line, const char *req, int64_t *bytes,
    int64_t *zbytes)
{
	size_t		 len = strcspn(line, "\n"), rlen = strlen(req);
	const char	*p, *z, *end = line + len;

	if (len <= rlen + 1 || strncmp(line, req, rlen) != 0 ||
	    line[rlen] != ' ')
		return -1;
	p = line + rlen + 1;
	*zbytes = -1;
	if ((z = memchr(p, ' ', end - p)) != NULL) {
		if (end - z < 4 || strncmp(z, " z=", 3) != 0 ||
		    size_word(z + 3, end - z - 3, zbytes) == -1)
			return -1;
	} else
		z = end;
	return size_word(p, z - p, bytes);
}

int
wire_reply_record_format(const struct task *t, int private, char *buf,
    size_t size)
{
	char	*env, *end;
	int	 n;

	if (size < 9)
		return -1;
	memcpy(buf, "RECORD ", 7);
	if ((n = wire_task_encode(t, buf + 7, size - 8)) == -1)
		return -1;
	/* Its environment is its owner's (tokens, passwords): the field
	 * goes whole; no value in a record holds a blank. */
	if (private && (env = strstr(buf + 7, " env=")) != NULL) {
		end = strchr(env + 1, ' ');
		n -= (end != NULL ? end : env + strlen(env)) - env;
		memmove(env, end != NULL ? end : env + strlen(env),
		    end != NULL ? strlen(end) + 1 : 1);
	}
	memcpy(buf + 7 + n, "\n", 2);
	return 7 + n + 1;
}

struct task *
wire_reply_record_parse(const char *line, char *err, size_t errlen)
{
	if (strncmp(line, "RECORD ", 7) != 0) {
		snprintf(err, errlen, "not a RECORD line");
		return NULL;
	}
	return wire_task_decode(line + 7, strcspn(line + 7, "\n"), err,
	    errlen);
}
