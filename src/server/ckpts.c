/*
 * ckpts.c -- the shell's part of checkpoints (ckpts.h).
 */
#include <sys/queue.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckfetch.h"
#include "ckpts.h"
#include "ckstore.h"
#include "ckwatch.h"
#include "clock.h"
#include "log.h"
#include "node.h"
#include "task.h"

/* A fetch before a start: the holders in turn. */
struct before {
	TAILQ_ENTRY(before)	 entry;
	char			 uuid[UUID_STRLEN + 1];
	struct task_ckpt	 c;
	int			 next;		/* the holder to ask next */
};

static struct {
	struct node		*core;
	char			 runs[PATH_MAX];
	int64_t			 max_bytes;
	ckpts_ready_cb		 ready;
	void			(*after)(void);
	TAILQ_HEAD(, before)	 befores;
	/* The last start whose fetch was over: it starts as it can. */
	char			 tried[UUID_STRLEN + 1];
	int64_t			 tried_seq;
} ck;

/* A command wrote its checkpoint file. */
static void
written(const char *uuid, const char *file)
{
	ckpts_made(uuid, file);
	ck.after();
}

int
ckpts_init(struct event_base *base, struct node *core, const char *state_dir,
    int64_t max_bytes, ckpts_ready_cb ready, void (*after)(void), char *err,
    size_t errlen)
{
	ck.core = core;
	ck.after = after;
	ck.max_bytes = max_bytes;
	ck.ready = ready;
	TAILQ_INIT(&ck.befores);
	snprintf(ck.runs, sizeof ck.runs, "%s/runs", state_dir);
	ckwatch_init(base, written);
	return ckstore_open(state_dir, err, errlen);
}

void
ckpts_made(const char *uuid, const char *file)
{
	char	dir[PATH_MAX + UUID_STRLEN + 2], hash[DIGEST_HEX + 1];
	char	err[256];
	int64_t	bytes, zbytes, seq;

	snprintf(dir, sizeof dir, "%s/%s", ck.runs, uuid);
	if (ckstore_take(uuid, dir, file, ck.max_bytes, &bytes, &zbytes, hash,
	    err, sizeof err) == -1) {
		log_warnx("Task UUID{%s}: its checkpoint is not kept: %s",
		    uuid, err);
		return;
	}
	seq = node_checkpoint_made(ck.core, uuid, bytes, hash, file,
	    clock_node_ms());
	ckstore_name(uuid, seq);
	if (seq > 0 && zbytes >= 0)
		log_debug("Task UUID{%s}: checkpoint %lld sent compressed, "
		    "%lld bytes of %lld", uuid, (long long)seq,
		    (long long)zbytes, (long long)bytes);
}

static void
fetched(const char *uuid, int64_t seq, const char *from, int ok,
    const char *why, void *arg)
{
	(void)why;
	(void)arg;
	node_checkpoint_kept(ck.core, uuid, seq, from, ok, clock_node_ms());
	ck.after();
}

void
ckpts_fetch(const char *action_uuid, const char *from, const char *text)
{
	struct task_ckpt	 c;
	const char		*addr;
	char			 uuid[UUID_STRLEN + 1], node[NAME_MAXLEN + 1];

	/* The action's strings move if the core adds actions meanwhile. */
	snprintf(uuid, sizeof uuid, "%s", action_uuid);
	snprintf(node, sizeof node, "%s", from);
	if (!task_ckpt_parse(text, &c))
		return;
	if ((addr = node_peer_addr(ck.core, node, 1)) == NULL) {
		node_checkpoint_kept(ck.core, uuid, c.seq, node, 0,
		    clock_node_ms());
		return;
	}
	ckfetch_start(uuid, &c, node, addr, fetched, NULL);
}

static void	ask_next(struct before *);

static void
before_fetched(const char *uuid, int64_t seq, const char *from, int ok,
    const char *why, void *arg)
{
	struct before	*b = arg;

	(void)uuid;
	(void)why;
	if (ok)
		log_info("Task UUID{%s}: checkpoint %lld fetched from %s",
		    b->uuid, (long long)seq, from);
	ask_next(b);
}

/* Ask the next holder of b's checkpoint, or start as we can. */
static void
ask_next(struct before *b)
{
	const char	*addr;
	char		 uuid[UUID_STRLEN + 1];

	while (!ckstore_has(b->uuid, b->c.seq) && b->next < b->c.nholders) {
		const char *h = b->c.holders[b->next++];
		if (strcmp(h, node_name(ck.core)) == 0 ||
		    (addr = node_peer_addr(ck.core, h, 1)) == NULL)
			continue;
		ckfetch_start(b->uuid, &b->c, h, addr, before_fetched, b);
		return;
	}
	if (!ckstore_has(b->uuid, b->c.seq))
		log_warnx("Task UUID{%s}: no live node keeps a good copy of "
		    "its checkpoint %lld; it starts from the beginning",
		    b->uuid, (long long)b->c.seq);
	memcpy(uuid, b->uuid, sizeof uuid);
	memcpy(ck.tried, b->uuid, sizeof ck.tried);
	ck.tried_seq = b->c.seq;
	TAILQ_REMOVE(&ck.befores, b, entry);
	free(b);
	ck.ready(uuid);
}

int
ckpts_before_start(const struct task *t)
{
	struct task_ckpt	 c;
	struct before		*b;

	if (t->ckpt == NULL || !task_ckpt_parse(t->ckpt, &c) ||
	    ckstore_check(t->uuid, &c))
		return 0;
	if (strcmp(ck.tried, t->uuid) == 0 && ck.tried_seq == c.seq) {
		ck.tried[0] = '\0';	/* fetched, or given up: go */
		return 0;
	}
	TAILQ_FOREACH(b, &ck.befores, entry)
		if (strcmp(b->uuid, t->uuid) == 0)
			return 1;	/* on its way */
	if ((b = calloc(1, sizeof *b)) == NULL)
		return 0;
	memcpy(b->uuid, t->uuid, sizeof b->uuid);
	b->c = c;
	TAILQ_INSERT_TAIL(&ck.befores, b, entry);
	ask_next(b);
	return 1;
}

void
ckpts_close(void)
{
	struct before	*b;

	ckfetch_shutdown();
	ckwatch_close();
	while ((b = TAILQ_FIRST(&ck.befores)) != NULL) {
		TAILQ_REMOVE(&ck.befores, b, entry);
		free(b);
	}
}

void
ckpts_started(const struct task *t)
{
	char	dir[PATH_MAX + UUID_STRLEN + 2];

	if (t->cmd == NULL || t->cmd->ckpt_file == NULL)
		return;
	snprintf(dir, sizeof dir, "%s/%s", ck.runs, t->uuid);
	(void)ckwatch_add(t->uuid, dir, t->cmd->ckpt_file);
}

void
ckpts_leaving(const char *uuid)
{
	ckwatch_remove(uuid);
}

static int
still_going(const char *uuid)
{
	const struct task	*t = node_find(ck.core, uuid);

	return t != NULL && !task_is_final(t->state);
}

void
ckpts_sweep(void)
{
	ckstore_sweep(still_going);
}

void
ckpts_journaled(const struct task *t)
{
	if (t->ckpt != NULL && task_is_final(t->state))
		ckstore_drop(t->uuid);
}
