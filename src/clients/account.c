/*
 * account.c -- ACCOUNT: the finished tasks, live and retired, filtered
 * as sacct filters jobs, each as its record (taskcodec.c): the client
 * picks the fields it shows.
 */
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "account.h"
#include "clients.h"
#include "history.h"
#include "node.h"
#include "task.h"
#include "reply.h"
#include "service.h"
#include "wire.h"

int
account_match(const struct task *t, const struct client_req *req)
{
	if (!task_is_final(t->state))
		return 0;
	if (req->acct_states != 0 && !(req->acct_states & (1u << t->state)))
		return 0;
	/* In the window: ended in it or after its start, submitted before
	 * its end (sacct's "in any state during" the window). */
	if (req->acct_since >= 0 && t->end_ms >= 0 &&
	    t->end_ms < req->acct_since)
		return 0;
	if (req->acct_until >= 0 && t->submit_ms > req->acct_until)
		return 0;
	if (req->acct_node != NULL && strcmp(t->running_on,
	    req->acct_node) != 0)
		return 0;
	if (req->acct_user != NULL && strcmp(t->user, req->acct_user) != 0)
		return 0;
	return 1;
}

static int
by_submit(const void *a, const void *b)
{
	const struct task *x = *(const struct task *const *)a;
	const struct task *y = *(const struct task *const *)b;

	if (x->submit_ms != y->submit_ms)
		return x->submit_ms < y->submit_ms ? -1 : 1;
	return strcmp(x->uuid, y->uuid);
}

void
account_reply(struct client *c, struct node *core,
    const struct client_req *req)
{
	struct task		**live, **old, **all = NULL;
	struct evbuffer		 *out = evbuffer_new();
	char			  rec[RECORD_LINE_MAX + 16];
	size_t			  nlive = 0, nold = 0, n = 0, i;
	int			  admin = service_is_admin(client_user(c));

	live = node_tasks_sorted(core, &nlive);
	old = history_read(&nold);
	if (out == NULL || live == NULL || old == NULL ||
	    (all = calloc(nlive + nold + 1, sizeof *all)) == NULL) {
		client_replyf(c, "ERROR %s\n", old == NULL ? "cannot read "
		    "the history" : "out of memory");
		goto done;
	}
	/* A task in both (retired while we read) counts once: the map's. */
	for (i = 0; i < nlive; i++)
		if (account_match(live[i], req))
			all[n++] = live[i];
	for (i = 0; i < nold; i++)
		if (node_find(core, old[i]->uuid) == NULL &&
		    account_match(old[i], req))
			all[n++] = old[i];
	qsort(all, n, sizeof *all, by_submit);
	for (i = 0; i < n; i++)
		if (wire_reply_record_format(all[i], !admin &&
		    strcmp(all[i]->user, client_user(c)) != 0, rec,
		    sizeof rec) > 0)
			evbuffer_add(out, rec, strlen(rec));
	evbuffer_add(out, ".\n", 3);	/* with its NUL: a C string */
	client_reply(c, 0, (const char *)evbuffer_pullup(out, -1));
done:
	for (i = 0; i < nold; i++)
		task_free(old[i]);
	free(old);
	free(live);
	free(all);
	if (out != NULL)
		evbuffer_free(out);
}
