/*
 * infiles.c -- a command's input files fetched before its start
 * (infiles.h).  Starts wait in a list; a fetch is keyed by the file's
 * owner and hash, so two starts of an owner that need one file share it; each fetch's end
 * drives every waiting start again (they are few: one per free slot).
 */
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blobfetch.h"
#include "clock.h"
#include "infiles.h"
#include "instore.h"
#include "log.h"
#include "node.h"
#include "task.h"

/* Files fetched at once by this node: enough to fill a LAN link with
 * small files, few enough not to drown the node that serves them. */
#define INFILES_PARALLEL	4

struct start {
	TAILQ_ENTRY(start)	 entry;
	char			 uuid[UUID_STRLEN + 1];
	int			 due;		/* to be driven again */
};

struct fetch {
	TAILQ_ENTRY(fetch)	 entry;
	struct blobfetch	*bf;
	char			 hash[DIGEST_HEX + 1];
	char			 owner[INSTORE_OWNER_MAX + 1];
	char			 uuid[UUID_STRLEN + 1];	/* asked for it */
	char			 path[256];	/* for the log */
	int64_t			 bytes;
	int64_t			 from;		/* a part had these */
	int			 fd;
	int64_t			 began_ms;
};

static struct {
	struct node		*core;
	int64_t			 max_bytes;
	char			 self[128];
	infiles_ready_cb	 ready;
	infiles_failed_cb	 failed;
	TAILQ_HEAD(, start)	 starts;
	TAILQ_HEAD(, fetch)	 fetches;
	int			 nfetches;
	/* The last start found ready: it goes without asking again. */
	char			 gone[UUID_STRLEN + 1];
} in;

static void	drive_all(void);

int
infiles_init(struct node *core, const char *state_dir, int64_t cache_bytes,
    int64_t max_bytes, const char *self_addr, infiles_ready_cb ready,
    infiles_failed_cb failed, char *err, size_t errlen)
{
	in.core = core;
	in.max_bytes = max_bytes;
	snprintf(in.self, sizeof in.self, "%s", self_addr);
	in.ready = ready;
	in.failed = failed;
	TAILQ_INIT(&in.starts);
	TAILQ_INIT(&in.fetches);
	if (instore_open(state_dir, cache_bytes, err, errlen) == -1)
		return -1;
	instore_sweep();
	return 0;
}

void
infiles_close(void)
{
	struct start	*s;
	struct fetch	*f;

	while ((f = TAILQ_FIRST(&in.fetches)) != NULL) {
		TAILQ_REMOVE(&in.fetches, f, entry);
		blobfetch_cancel(f->bf);
		instore_abort(f->fd, f->owner, f->hash);
		free(f);
	}
	while ((s = TAILQ_FIRST(&in.starts)) != NULL) {
		TAILQ_REMOVE(&in.starts, s, entry);
		free(s);
	}
	instore_close();
}

/* A start under way needs the stored file name ("<owner>.<hash>"): it
 * stays in the store. */
static int
pinned(const char *name)
{
	struct start		*s;
	const struct task	*t;
	char			 h[DIGEST_HEX + 1];
	const char		*path;
	int64_t			 bytes;
	size_t			 n;
	int			 i;

	TAILQ_FOREACH(s, &in.starts, entry) {
		if ((t = node_find(in.core, s->uuid)) == NULL || t->cmd == NULL)
			continue;
		for (i = 0; i < t->cmd->nins; i++)
			if (task_cmd_in_parse(t->cmd->ins[i], &bytes, h,
			    &path) == 0 && strncmp(name, t->user, n =
			    strlen(t->user)) == 0 && name[n] == '.' &&
			    strcmp(name + n + 1, h) == 0)
				return 1;
	}
	return 0;
}

static struct fetch *
fetching(const char *owner, const char *hash)
{
	struct fetch	*f;

	TAILQ_FOREACH(f, &in.fetches, entry)
		if (strcmp(f->hash, hash) == 0 && strcmp(f->owner, owner) == 0)
			return f;
	return NULL;
}

static void
end_start(struct start *s, const char *why, int final)
{
	char	uuid[UUID_STRLEN + 1];

	memcpy(uuid, s->uuid, sizeof uuid);
	TAILQ_REMOVE(&in.starts, s, entry);
	free(s);
	if (why == NULL) {
		memcpy(in.gone, uuid, sizeof in.gone);
		in.ready(uuid);
	} else
		in.failed(uuid, why, final);
}

/* A fetch is over: the file is in the store, or the task that asked
 * for it cannot start (a file changed since its submit: for good). */
static void
fetched(int ok, const char *got, const char *why, void *arg)
{
	struct fetch	*f = arg;
	struct start	*s;
	char		 err[160], msg[512];
	int		 final = 0;

	TAILQ_REMOVE(&in.fetches, f, entry);
	in.nfetches--;
	/* The taker's word about the file itself: no other attempt would
	 * fare better. */
	if (!ok && strncmp(why, "ERROR input ", 12) == 0) {
		instore_abort(f->fd, f->owner, f->hash);
		why += 6;
		final = 1;
	} else if (!ok)		/* the network's: the next fetch goes on */
		instore_keep_part(f->fd);
	else if (instore_commit(f->fd, f->owner, f->hash, f->bytes, got,
	    pinned, err, sizeof err) == -1) {
		why = err;
		/* A part kept from before may be what is wrong. */
		final = f->from == 0;
	}
	if (why == NULL)
		log_info("Task UUID{%s}: input %s fetched, %lld bytes in "
		    "%lld ms", f->uuid, f->path, (long long)f->bytes,
		    (long long)(clock_node_ms() - f->began_ms));
	else {
		log_warnx("Task UUID{%s}: input %s not fetched: %s", f->uuid,
		    f->path, why);
		TAILQ_FOREACH(s, &in.starts, entry)
			if (strcmp(s->uuid, f->uuid) == 0)
				break;
		if (s != NULL) {
			if (strncmp(why, "input ", 6) == 0)
				snprintf(msg, sizeof msg, "%s", why);
			else
				snprintf(msg, sizeof msg, "input %s: %s",
				    f->path, why);
			end_start(s, msg, final);
		}
	}
	free(f);
	drive_all();
}

/* Ask t's taker for its n-th file (from 1); 0, or -1 and why. */
static int
ask(const struct task *t, int n, const char *hash, const char *path,
    int64_t bytes, char *why, size_t whylen)
{
	struct fetch	*f;
	const char	*addr;
	char		 req[UUID_STRLEN + 64];

	addr = strcmp(t->scheduled_by, node_name(in.core)) == 0 ? in.self :
	    node_peer_addr(in.core, t->scheduled_by, 1);
	if (addr == NULL) {
		snprintf(why, whylen, "input %s: its submitting node %s is not "
		    "up to give it", path, t->scheduled_by);
		return -1;
	}
	if ((f = calloc(1, sizeof *f)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	memcpy(f->hash, hash, sizeof f->hash);
	snprintf(f->owner, sizeof f->owner, "%s", t->user);
	memcpy(f->uuid, t->uuid, sizeof f->uuid);
	snprintf(f->path, sizeof f->path, "%s", path);
	f->bytes = bytes;
	f->began_ms = clock_node_ms();
	if ((f->fd = instore_begin(t->user, hash, &f->from)) == -1) {
		snprintf(why, whylen, "input %s: cannot keep a copy here",
		    path);
		free(f);
		return -1;
	}
	if (f->from > bytes)
		f->from = 0;	/* not a part of this: lseek's end below */
	if (f->from > 0) {
		snprintf(req, sizeof req, "FILE %s %d %lld", t->uuid, n,
		    (long long)f->from);
		log_info("Task UUID{%s}: input %s resumed at %lld bytes of "
		    "%lld", t->uuid, path, (long long)f->from,
		    (long long)bytes);
	} else
		snprintf(req, sizeof req, "FILE %s %d", t->uuid, n);
	if (f->from == 0 && (ftruncate(f->fd, 0) == -1 ||
	    lseek(f->fd, 0, SEEK_SET) == -1))
		snprintf(why, whylen, "input %s: cannot keep a copy here",
		    path);
	else if ((f->bf = blobfetch_start(addr, req, bytes, f->from, f->fd,
	    fetched, f, why, whylen)) != NULL) {
		TAILQ_INSERT_TAIL(&in.fetches, f, entry);
		in.nfetches++;
		return 0;
	}
	instore_keep_part(f->fd);
	free(f);
	return -1;
}

/* Fetch what t still lacks, as many at once as allowed: how many are
 * missing, or -1 and why if one cannot be had (*final: not by another
 * attempt either). */
static int
lacks(const struct task *t, char *why, size_t whylen, int *final)
{
	const char	*path;
	char		 hash[DIGEST_HEX + 1];
	int64_t		 bytes, total = 0;
	int		 i, missing = 0;

	*final = 0;
	for (i = 0; i < t->cmd->nins; i++) {
		if (task_cmd_in_parse(t->cmd->ins[i], &bytes, hash,
		    &path) == -1) {
			snprintf(why, whylen, "a bad input file in its record");
			*final = 1;
			return -1;
		}
		if ((total += bytes) > in.max_bytes) {
			snprintf(why, whylen, "its input files weigh more "
			    "than this node's max_transfer_mb");
			return -1;
		}
		if (instore_has(t->user, hash, bytes))
			continue;
		missing++;
		if (fetching(t->user, hash) == NULL &&
		    in.nfetches < INFILES_PARALLEL &&
		    ask(t, i + 1, hash, path, bytes, why, whylen) == -1)
			return -1;
	}
	return missing;
}

/* Every waiting start again, each once: one may end (its callback may
 * add or end others) while we go. */
static void
drive_all(void)
{
	const struct task	*t;
	struct start		*s;
	char			 why[256];
	int			 n, final;

	TAILQ_FOREACH(s, &in.starts, entry)
		s->due = 1;
	for (;;) {
		TAILQ_FOREACH(s, &in.starts, entry)
			if (s->due)
				break;
		if (s == NULL)
			return;
		s->due = 0;
		if ((t = node_find(in.core, s->uuid)) == NULL ||
		    t->cmd == NULL)
			end_start(s, "it is gone", 0);
		else if ((n = lacks(t, why, sizeof why, &final)) == -1)
			end_start(s, why, final);
		else if (n == 0)
			end_start(s, NULL, 0);
	}
}

int
infiles_before_start(const struct task *t, char *why, size_t whylen,
    int *final)
{
	struct start	*s;
	int		 n;

	*final = 0;
	if (t->cmd == NULL || t->cmd->nins == 0)
		return 0;
	if (strcmp(in.gone, t->uuid) == 0) {
		in.gone[0] = '\0';	/* told ready: go */
		return 0;
	}
	TAILQ_FOREACH(s, &in.starts, entry)
		if (strcmp(s->uuid, t->uuid) == 0)
			return 1;	/* on its way */
	if ((s = calloc(1, sizeof *s)) == NULL)
		return 0;	/* the launch says what is missing */
	/* In the list first, so that its files are pinned. */
	memcpy(s->uuid, t->uuid, sizeof s->uuid);
	TAILQ_INSERT_TAIL(&in.starts, s, entry);
	if ((n = lacks(t, why, whylen, final)) > 0)
		return 1;
	TAILQ_REMOVE(&in.starts, s, entry);
	free(s);
	return n == 0 ? 0 : -1;
}
