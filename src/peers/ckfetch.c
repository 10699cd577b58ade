/*
 * ckfetch.c -- a checkpoint's copy fetched from a node (ckfetch.h): a
 * blobfetch of "CKPT <uuid> <seq>" into the store, which keeps nothing
 * that does not hash as the record says.
 */
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blobfetch.h"
#include "bounds.h"
#include "ckfetch.h"
#include "ckstore.h"
#include "log.h"
#include "task.h"

struct ckfetch {
	TAILQ_ENTRY(ckfetch)	 entry;
	struct blobfetch	*bf;
	struct task_ckpt	 c;
	char			 uuid[UUID_STRLEN + 1];
	char			 node[NAME_MAXLEN + 1];
	int			 fd;		/* the store's part file */
	ckfetch_cb		 done;
	void			*arg;
};

/* A second fetch of a copy already on its way (a holder's, and a
 * start's): it waits for the first, which writes the one store file. */
struct waiter {
	TAILQ_ENTRY(waiter)	 entry;
	char			 uuid[UUID_STRLEN + 1];
	int64_t			 seq;
	char			 node[NAME_MAXLEN + 1];	/* it asked */
	ckfetch_cb		 done;
	void			*arg;
};

static TAILQ_HEAD(, ckfetch)	 fetches = TAILQ_HEAD_INITIALIZER(fetches);
static TAILQ_HEAD(, waiter)	 waiters = TAILQ_HEAD_INITIALIZER(waiters);

void
ckfetch_shutdown(void)
{
	struct ckfetch	*f;
	struct waiter	*w;

	while ((w = TAILQ_FIRST(&waiters)) != NULL) {
		TAILQ_REMOVE(&waiters, w, entry);
		free(w);
	}
	while ((f = TAILQ_FIRST(&fetches)) != NULL) {
		TAILQ_REMOVE(&fetches, f, entry);
		if (f->bf != NULL)
			blobfetch_cancel(f->bf);
		ckstore_abort(f->fd, f->uuid, f->c.seq);
		free(f);
	}
}

/* Those waiting for the fetch of seq of uuid: it is over (each is told
 * of the node it would have asked: a holder answers that one). */
static void
told(const char *uuid, int64_t seq, const char *why)
{
	struct waiter	*w, *next;

	for (w = TAILQ_FIRST(&waiters); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->seq != seq || strcmp(w->uuid, uuid) != 0)
			continue;
		TAILQ_REMOVE(&waiters, w, entry);
		w->done(uuid, seq, w->node, why == NULL, why, w->arg);
		free(w);
		next = TAILQ_FIRST(&waiters);	/* done() may add or go */
	}
}

static void
fetched(int ok, const char *hash, const char *why, void *arg)
{
	struct ckfetch	*f = arg;
	char		 uuid[UUID_STRLEN + 1], node[NAME_MAXLEN + 1];
	char		 err[160];
	int64_t		 seq = f->c.seq;

	(void)hash;		/* the store hashes what it keeps */
	f->bf = NULL;
	if (ok && ckstore_commit(f->fd, f->uuid, &f->c, err,
	    sizeof err) == -1)
		why = err;
	else if (!ok)
		ckstore_abort(f->fd, f->uuid, seq);
	if (why != NULL)
		log_warnx("Task UUID{%s}: checkpoint %lld from %s not kept: "
		    "%s", f->uuid, (long long)seq, f->node, why);
	memcpy(uuid, f->uuid, sizeof uuid);
	memcpy(node, f->node, sizeof node);
	TAILQ_REMOVE(&fetches, f, entry);
	f->done(uuid, seq, node, why == NULL, why, f->arg);
	free(f);
	told(uuid, seq, why);
}

void
ckfetch_start(const char *uuid, const struct task_ckpt *c, const char *node,
    const char *addr, ckfetch_cb done, void *arg)
{
	struct ckfetch	*f;
	struct waiter	*w;
	char		 req[UUID_STRLEN + 32], why[64];

	TAILQ_FOREACH(f, &fetches, entry)
		if (f->c.seq == c->seq && strcmp(f->uuid, uuid) == 0)
			break;
	if (f != NULL) {
		if ((w = calloc(1, sizeof *w)) == NULL) {
			done(uuid, c->seq, node, 0, "out of memory", arg);
			return;
		}
		snprintf(w->uuid, sizeof w->uuid, "%s", uuid);
		w->seq = c->seq;
		snprintf(w->node, sizeof w->node, "%s", node);
		w->done = done;
		w->arg = arg;
		TAILQ_INSERT_TAIL(&waiters, w, entry);
		return;
	}
	if ((f = calloc(1, sizeof *f)) == NULL) {
		done(uuid, c->seq, node, 0, "out of memory", arg);
		return;
	}
	TAILQ_INSERT_TAIL(&fetches, f, entry);
	f->c = *c;
	snprintf(f->uuid, sizeof f->uuid, "%s", uuid);
	snprintf(f->node, sizeof f->node, "%s", node);
	f->done = done;
	f->arg = arg;
	snprintf(req, sizeof req, "CKPT %s %lld", uuid, (long long)c->seq);
	if ((f->fd = ckstore_begin(uuid, c->seq)) == -1)
		snprintf(why, sizeof why, "cannot start");
	else if ((f->bf = blobfetch_start(addr, req, c->bytes, 0, f->fd,
	    fetched, f, why, sizeof why)) != NULL)
		return;
	fetched(0, "", why, f);
}
