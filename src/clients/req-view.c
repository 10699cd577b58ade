/*
 * req-view.c -- the requests that read the node: TASKS (the map),
 * HISTORY (what retired from it), NODES (the pool as this node hears
 * it), API (the JSON API's GET, one encoder for HTTP and the command
 * line) and ACCOUNT (account.c).  Multi-line answers end with ".".
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "api.h"
#include "clash.h"
#include "clients.h"
#include "clock.h"
#include "history.h"
#include "node.h"
#include "peers.h"
#include "reqs.h"
#include "requests.h"
#include "task.h"
#include "wire.h"

/* Collect a multi-line reply, then send it as one piece. */
struct text {
	char	*buf;
	size_t	 len, cap;
};

static void __attribute__((format(printf, 2, 3)))
text_add(struct text *x, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(x->buf + x->len, x->cap - x->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (x->len + n < x->cap) {
			x->len += n;
			return;
		}
		x->cap = (x->cap + n + 1) * 2;
		if ((x->buf = realloc(x->buf, x->cap)) == NULL)
			abort();
	}
}

static void
seconds_or_dash(char *buf, size_t size, int64_t ms)
{
	if (ms < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f", ms / 1000.0);
}

/* TASK lines of v (in order) that the request's state filter lets by:
 * ... est eta, the run's expected length and end from now (s, or -). */
static void
task_lines(struct text *x, struct task *const *v, size_t n,
    const struct client_req *req)
{
	struct node	*core = req_env()->core;
	int64_t		 now = clock_node_ms(), run, end;
	char		 est[32], eta[32];
	size_t		 i;

	for (i = 0; i < n; i++) {
		const struct task *t = v[i];
		if (req->has_state && (t->state != req->state ||
		    (req->suspended_only && !t->suspended)))
			continue;
		/* Estimates for the live map only; the history has ended. */
		run = end = -1;
		if (req->cmd != CMD_HISTORY && !task_is_final(t->state)) {
			run = node_task_run_estimate(core, t);
			end = node_task_end_estimate(core, t, now);
		}
		seconds_or_dash(est, sizeof est, run);
		seconds_or_dash(eta, sizeof eta, end >= 0 ? end - now : -1);
		text_add(x, "TASK %s %s %s %s %d %s %s %s %s", t->uuid,
		    t->exec, task_prio_name(t->prio), task_shown_state(t),
		    t->state == TASK_TERMINATED ? 100 : t->progress,
		    t->scheduled_by, t->running_on[0] != '\0' ?
		    t->running_on : "-", est, eta);
		text_add(x, " submitted=%lld", (long long)t->submit_ms);
		if (t->array[0] != '\0')
			text_add(x, " array=%s:%d", t->array, t->array_index);
		/* Why it waits, to the end of the line (it has blanks). */
		if (req->cmd != CMD_HISTORY && t->state == TASK_READY) {
			char why[REASON_MAXLEN + 1];
			node_task_waiting(core, t, why, sizeof why);
			if (why[0] != '\0')
				text_add(x, " %s", why);
		}
		text_add(x, "\n");
	}
}

/* TASKS: the map; HISTORY: the tasks retired from it. */
void
req_tasks(struct client *c, const struct client_req *req)
{
	struct task	**v;
	struct text	  x = { NULL, 0, 0 };
	size_t		  n, i;

	v = req->cmd == CMD_HISTORY ? history_read(&n) :
	    node_tasks_sorted(req_env()->core, &n);
	if (v == NULL) {
		client_replyf(c, "ERROR %s\n", req->cmd == CMD_HISTORY ?
		    "cannot read the history" : "out of memory");
		return;
	}
	text_add(&x, "%s", "");
	task_lines(&x, v, n, req);
	text_add(&x, ".\n");
	client_reply(c, 0, x.buf);
	free(x.buf);
	if (req->cmd == CMD_HISTORY)
		for (i = 0; i < n; i++)
			task_free(v[i]);
	free(v);
}

/* The end of a NODE line: what the node offers, if it said. */
static void
caps_fields(struct text *x, int cores, int64_t memory_mb, const char *tags)
{
	if (cores > 0)
		text_add(x, " cores=%d memory=%lld tags=%s", cores,
		    (long long)memory_mb, tags[0] != '\0' ? tags : "-");
	text_add(x, "\n");
}

/* One NODES line for a peer.  Busy slots come from the replicated map:
 * fresher than the peer's last heartbeat. */
static void
nodes_peer_cb(const struct peer *p, void *arg)
{
	struct api_peer	v;

	api_peer_view(p, &v);
	text_add(arg, "NODE %s %s %s %s %d/%d %d", p->name, p->client_addr,
	    v.role, v.state, v.free, p->slots, p->reputation);
	caps_fields(arg, v.cores, v.memory_mb, v.tags);
}

/* REJECTED <count> <last source> <why>: dropped datagrams, by reason. */
static void
nodes_rejected_cb(const char *why, uint64_t count, const char *last_from,
    void *arg)
{
	text_add(arg, "REJECTED %" PRIu64 " %s %s\n", count, last_from, why);
}

void
req_nodes(struct client *c, const struct client_req *req)
{
	const struct requests_env *e = req_env();
	struct text		x = { NULL, 0, 0 };
	struct node_status	st;
	char			clash_from[64];

	node_status(e->core, &st);
	text_add(&x, "NODE %s %s %s %s %d/%d %d", e->name, e->address,
	    st.is_master ? "master" : "peer", st.volunteer_state,
	    st.slots - st.running, st.slots, e->reputation);
	caps_fields(&x, e->caps->cores, e->caps->memory_mb, e->caps->tags);
	node_each_peer(e->core, nodes_peer_cb, &x);
	if (clash_active(clash_from, sizeof clash_from))
		text_add(&x, "CLASH %s\n", clash_from);
	peers_each_rejected(nodes_rejected_cb, &x);
	text_add(&x, ".\n");
	client_reply(c, 0, x.buf);
	free(x.buf);
}

/* API: the JSON API's answer, as "JSON <status> <bytes>" and the
 * bytes (volery tasks --json). */
void
req_api(struct client *c, const struct client_req *req)
{
	int	 code;
	json_t	*v = api_get(req->api_uri, &code);
	char	*text = v != NULL ? json_dumps(v, JSON_COMPACT) : NULL;

	json_decref(v);
	if (text == NULL) {
		client_replyf(c, "ERROR out of memory\n");
		return;
	}
	client_replyf(c, "JSON %d %zu\n", code, strlen(text) + 1);
	client_reply(c, 0, text);
	client_reply(c, 0, "\n");
	free(text);
}

void
req_account(struct client *c, const struct client_req *req)
{
	account_reply(c, req_env()->core, req);
}
