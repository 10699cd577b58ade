/*
 * taskckpt.c -- a task's newest checkpoint as its record carries it
 * (task.h's ckpt): "seq:bytes:made_ms:hash:file:holder,...".  Numbers
 * in decimal without sign or leading zero, the hash BLAKE2b-256 in
 * lower-case hex, the file a plain name in the run dir, and the nodes
 * that keep a copy, its runner first.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"

int
task_ckpt_file_valid(const char *s)
{
	size_t	n = strlen(s), i;

	if (n == 0 || n > CKPT_FILE_MAX || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("._-", s[i]) ==
		    NULL)
			return 0;
	return 1;
}

int
task_ckpt_auto(const struct task *t)
{
	return t->cmd != NULL && t->cmd->ckpt_file != NULL &&
	    strcmp(t->cmd->ckpt_file, CKPT_AUTO) == 0;
}

/* A number of the text, up to the next ':', in [lo, hi]. */
static int
number(const char **p, int64_t lo, int64_t hi, int64_t *out)
{
	const char	*s = *p;
	int64_t		 v = 0;

	if (!isdigit((unsigned char)*s) || (*s == '0' && isdigit(
	    (unsigned char)s[1])))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (hi - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (*s != ':' || v < lo)
		return -1;
	*out = v;
	*p = s + 1;
	return 0;
}

/* The word up to the next ':' into buf (at most max bytes). */
static int
word(const char **p, char *buf, size_t max)
{
	const char	*colon = strchr(*p, ':');

	if (colon == NULL || (size_t)(colon - *p) > max)
		return -1;
	memcpy(buf, *p, colon - *p);
	buf[colon - *p] = '\0';
	*p = colon + 1;
	return 0;
}

int
task_ckpt_parse(const char *s, struct task_ckpt *out)
{
	struct task_ckpt	 c;
	const char		*p = s, *end;
	int			 i;

	memset(&c, 0, sizeof c);
	if (strlen(s) > CKPT_TEXT_MAX ||
	    number(&p, 1, CKPT_SEQ_MAX, &c.seq) == -1 ||
	    number(&p, 0, CKPT_BYTES_MAX, &c.bytes) == -1 ||
	    number(&p, 0, INT64_MAX, &c.made_ms) == -1 ||
	    word(&p, c.hash, DIGEST_HEX) == -1 ||
	    strlen(c.hash) != DIGEST_HEX ||
	    word(&p, c.file, CKPT_FILE_MAX) == -1 ||
	    !task_ckpt_file_valid(c.file))
		return 0;
	for (i = 0; i < DIGEST_HEX; i++)
		if (!isdigit((unsigned char)c.hash[i]) &&
		    (c.hash[i] < 'a' || c.hash[i] > 'f'))
			return 0;
	/* Its holders: at least its runner, each once. */
	while (*p != '\0') {
		if ((end = strchr(p, ',')) == NULL)
			end = p + strlen(p);
		if (c.nholders == CKPT_HOLDERS_MAX || end - p > NAME_MAXLEN)
			return 0;
		memcpy(c.holders[c.nholders], p, end - p);
		c.holders[c.nholders][end - p] = '\0';
		if (!task_name_valid(c.holders[c.nholders]) ||
		    task_ckpt_held_by(&c, c.holders[c.nholders]))
			return 0;
		c.nholders++;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0')
			return 0;	/* a trailing comma */
	}
	if (c.nholders == 0)
		return 0;
	if (out != NULL)
		*out = c;
	return 1;
}

int
task_ckpt_held_by(const struct task_ckpt *c, const char *node)
{
	int	i;

	for (i = 0; i < c->nholders; i++)
		if (strcmp(c->holders[i], node) == 0)
			return 1;
	return 0;
}

int
task_ckpt_format(const struct task_ckpt *c, char *buf, size_t size)
{
	size_t	off;
	int	i;

	off = snprintf(buf, size, "%lld:%lld:%lld:%s:%s:", (long long)c->seq,
	    (long long)c->bytes, (long long)c->made_ms, c->hash, c->file);
	for (i = 0; i < c->nholders && off < size; i++)
		off += snprintf(buf + off, size - off, "%s%s", i > 0 ? "," :
		    "", c->holders[i]);
	if (off >= size || !task_ckpt_parse(buf, NULL))
		return -1;
	return 0;
}
