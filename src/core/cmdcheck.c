/*
 * cmdcheck.c -- whether this node can run a command task (cmdcheck.h).
 * The answers are few (one per directory and program the pool's
 * commands use) and kept in a small table searched by hash.  A node
 * that cannot run a command never takes it, so no attempt is burnt on
 * a host that lacks the program or the data's directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"

#define CMDCHECK_ASKED	0
#define CMDCHECK_YES	1
#define CMDCHECK_NO	2

/* A "no" and an unanswered question are asked again after this. */
#define CMDCHECK_FORGET_MS	60000
/* More keys than this: the oldest answer goes. */
#define CMDCHECK_MAX		1024

void
cmdcheck_init(struct node *n)
{
	memset(&n->cmdcheck, 0, sizeof n->cmdcheck);
}

void
cmdcheck_free(struct node *n)
{
	size_t	i;

	for (i = 0; i < n->cmdcheck.n; i++)
		free(n->cmdcheck.v[i].key);
	free(n->cmdcheck.v);
	memset(&n->cmdcheck, 0, sizeof n->cmdcheck);
}

/* What t needs here: a command's program, else a described task's. */
static const char *
program_of(const struct task *t)
{
	return t->cmd != NULL ? t->cmd->argv[0] : t->exec;
}

/* The key of t's question: whose it is (it runs as its owner), its
 * directory and its program. */
static char *
key_of(const struct task *t)
{
	const char	*cwd = t->cmd != NULL && t->cmd->cwd != NULL ?
			    t->cmd->cwd : "", *prog = program_of(t);
	size_t		 len = strlen(t->user) + 24 + strlen(cwd) +
			    strlen(prog) + 4;
	char		*k;

	if ((k = malloc(len)) == NULL)
		return NULL;
	snprintf(k, len, "%s\n%lld\n%s\n%s%s", t->user, (long long)t->uid,
	    cwd, t->cmd != NULL ? "" : "/", prog);
	return k;
}

static void
drop(struct cmdcheck *cc, size_t i)
{
	free(cc->v[i].key);
	cc->v[i] = cc->v[--cc->n];
}

static struct cmdcheck_entry *
find(struct cmdcheck *cc, const char *key, uint64_t h)
{
	size_t	i;

	for (i = 0; i < cc->n; i++)
		if (cc->v[i].hash == h && strcmp(cc->v[i].key, key) == 0)
			return &cc->v[i];
	return NULL;
}

/* A new question about key (owned by the table now), for task t. */
static struct cmdcheck_entry *
ask(struct node *n, char *key, uint64_t h, const struct task *t)
{
	struct cmdcheck		*cc = &n->cmdcheck;
	struct cmdcheck_entry	*e, *v;
	size_t			 i, oldest = 0;

	if (cc->n == CMDCHECK_MAX) {
		for (i = 1; i < cc->n; i++)
			if (cc->v[i].when < cc->v[oldest].when)
				oldest = i;
		drop(cc, oldest);
	}
	if (cc->n == cc->cap) {
		size_t cap = cc->cap > 0 ? 2 * cc->cap : 8;
		if ((v = realloc(cc->v, cap * sizeof *v)) == NULL)
			return NULL;
		cc->v = v;
		cc->cap = cap;
	}
	e = &cc->v[cc->n++];
	memset(e, 0, sizeof *e);
	e->key = key;
	e->hash = h;
	e->state = CMDCHECK_ASKED;
	e->when = cc->now;
	memcpy(e->asked_for, t->uuid, sizeof e->asked_for);
	outbox_task(&n->out, ACT_CHECK, t->uuid);
	return e;
}

int
cmdcheck_admissible(struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	struct cmdcheck_entry	*e;
	char			*key;
	uint64_t		 h;

	if ((key = key_of(t)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return 0;
	}
	h = task_hash(key);
	if ((e = find(&n->cmdcheck, key, h)) != NULL)
		free(key);
	else if ((e = ask(n, key, h, t)) == NULL) {
		free(key);
		snprintf(why, whylen, "out of memory");
		return 0;
	}
	if (e->state == CMDCHECK_YES)
		return 1;
	if (e->state == CMDCHECK_ASKED)
		snprintf(why, whylen, "looking for %.100s here",
		    program_of(t));
	else
		snprintf(why, whylen, "%s", e->why);
	return 0;
}

void
node_command_checked(struct node *n, const char *uuid, int ok,
    const char *why, int64_t now)
{
	struct cmdcheck		*cc = &n->cmdcheck;
	struct cmdcheck_entry	*e;
	size_t			 i;

	for (i = 0; i < cc->n; i++)
		if (cc->v[i].state == CMDCHECK_ASKED &&
		    strcmp(cc->v[i].asked_for, uuid) == 0)
			break;
	if (i == cc->n)
		return;		/* forgotten meanwhile */
	e = &cc->v[i];
	e->state = ok ? CMDCHECK_YES : CMDCHECK_NO;
	e->when = now;
	snprintf(e->why, sizeof e->why, "%s", ok ? "" : why);
	for (i = 0; e->why[i] != '\0'; i++)	/* it may be shown: one line */
		if ((unsigned char)e->why[i] < ' ' || e->why[i] == 0x7f)
			e->why[i] = ' ';
	if (!ok)
		outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} is never "
		    "run here for now: %s", uuid, e->why);
	node_settle(n, now);
}

void
cmdcheck_tick(struct node *n, int64_t now)
{
	struct cmdcheck	*cc = &n->cmdcheck;
	size_t		 i;

	cc->now = now;
	for (i = cc->n; i-- > 0;)
		if (cc->v[i].state != CMDCHECK_YES &&
		    now - cc->v[i].when >= CMDCHECK_FORGET_MS)
			drop(cc, i);
}
