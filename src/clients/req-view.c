/*
 * req-view.c -- the requests that read the node: TASKS (the map),
 * HISTORY (what retired from it), NODES (the pool as this node hears
 * it), API (the JSON API's GET, one encoder for HTTP and the command
 * line) and ACCOUNT (account.c).  Multi-line answers end with ".".
 */
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
#include "rejects.h"
#include "reqs.h"
#include "reply.h"
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

/* TASK lines of v (in order) that the request's state filter lets by,
 * with the run's expected length and end from now for the live map. */
/* t's newest checkpoint, its age now and where it is kept. */
static void
reply_ckpt(struct reply_task *r, const struct task *t, int64_t now)
{
	struct task_ckpt	c;
	size_t			off = 0;
	int			i;

	if (t->ckpt == NULL || !task_ckpt_parse(t->ckpt, &c))
		return;
	r->ckpt_seq = c.seq;
	r->ckpt_age_ms = now > c.made_ms ? now - c.made_ms : 0;
	for (i = 0; i < c.nholders && off < sizeof r->ckpt_at; i++)
		off += snprintf(r->ckpt_at + off, sizeof r->ckpt_at - off,
		    "%s%s", i > 0 ? "," : "", c.holders[i]);
}

static void
task_lines(struct text *x, struct task *const *v, size_t n,
    const struct client_req *req)
{
	struct node		*core = req_env()->core;
	int64_t			 now = clock_node_ms(), end;
	struct reply_task	 r;
	char			 line[1024];
	size_t			 i;

	for (i = 0; i < n; i++) {
		const struct task *t = v[i];
		if (req->has_state && (t->state != req->state ||
		    (req->suspended_only && !t->suspended)))
			continue;
		memset(&r, 0, sizeof r);
		snprintf(r.uuid, sizeof r.uuid, "%s", t->uuid);
		snprintf(r.exec, sizeof r.exec, "%s", t->exec);
		snprintf(r.prio, sizeof r.prio, "%s", task_prio_name(t->prio));
		snprintf(r.state, sizeof r.state, "%s", task_shown_state(t));
		r.progress = t->state == TASK_TERMINATED ? 100 : t->progress;
		snprintf(r.scheduled_by, sizeof r.scheduled_by, "%s",
		    t->scheduled_by);
		snprintf(r.running_on, sizeof r.running_on, "%s",
		    t->running_on);
		/* Estimates for the live map only; the history has ended. */
		r.est_ms = r.eta_ms = -1;
		if (req->cmd != CMD_HISTORY && !task_is_final(t->state)) {
			r.est_ms = node_task_run_estimate(core, t);
			end = node_task_eta(core, t, now);
			r.eta_ms = end >= 0 ? end - now : -1;
		}
		r.submit_ms = t->submit_ms;
		snprintf(r.user, sizeof r.user, "%s", t->user);
		snprintf(r.array, sizeof r.array, "%s", t->array);
		r.array_index = t->array_index;
		reply_ckpt(&r, t, now);
		r.deadline_ms = t->deadline_ms;
		/* Why it waits, to the end of the line (it has blanks). */
		if (req->cmd != CMD_HISTORY)
			node_task_waiting(core, t, r.why, sizeof r.why);
		if (wire_reply_task_format(&r, line, sizeof line) > 0)
			text_add(x, "%s", line);
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

/* A batch window ahead into r, if one is told and not over. */
static void
window_of(struct reply_node *r, int64_t from, int64_t to)
{
	if (to > clock_node_ms()) {
		r->window_from_ms = from;
		r->window_to_ms = to;
	}
}

/* One NODES line for a peer.  Busy slots come from the replicated map:
 * fresher than the peer's last heartbeat. */
static void
nodes_peer_cb(const struct peer *p, void *arg)
{
	struct api_peer		v;
	struct reply_node	r;
	char			line[CAPS_TEXT_MAX + 512];

	api_peer_view(p, &v);
	memset(&r, 0, sizeof r);
	snprintf(r.name, sizeof r.name, "%s", p->name);
	snprintf(r.address, sizeof r.address, "%s", p->client_addr);
	snprintf(r.role, sizeof r.role, "%s", v.role);
	snprintf(r.state, sizeof r.state, "%s", v.state);
	r.free = v.free;
	r.slots = p->slots;
	r.reputation = p->reputation;
	r.cores = v.cores;
	r.memory_mb = v.memory_mb;
	snprintf(r.tags, sizeof r.tags, "%s", v.tags);
	snprintf(r.contain, sizeof r.contain, "%s", v.containment);
	window_of(&r, p->window_from_ms, p->window_to_ms);
	if (wire_reply_node_format(&r, line, sizeof line) > 0)
		text_add(arg, "%s", line);
}

/* REJECTED <count> <last source> <why>: dropped datagrams, by reason. */
static void
nodes_rejected_cb(const char *why, uint64_t count, const char *last_from,
    void *arg)
{
	struct reply_rejected	r;
	char			line[512];

	r.count = count;
	snprintf(r.last_from, sizeof r.last_from, "%s", last_from);
	snprintf(r.why, sizeof r.why, "%s", why);
	if (wire_reply_rejected_format(&r, line, sizeof line) > 0)
		text_add(arg, "%s", line);
}

void
req_nodes(struct client *c, const struct client_req *req)
{
	const struct requests_env *e = req_env();
	struct text		x = { NULL, 0, 0 };
	struct node_status	st;
	struct reply_node	r;
	char			clash_from[64], line[CAPS_TEXT_MAX + 512];

	node_status(e->core, &st);
	memset(&r, 0, sizeof r);
	snprintf(r.name, sizeof r.name, "%s", e->name);
	snprintf(r.address, sizeof r.address, "%s", e->address);
	snprintf(r.role, sizeof r.role, "%s", st.is_master ? "master" :
	    "peer");
	snprintf(r.state, sizeof r.state, "%s", st.volunteer_state);
	r.free = st.slots - st.running;
	r.slots = st.slots;
	r.reputation = e->reputation;
	r.cores = e->caps->cores;
	r.memory_mb = e->caps->memory_mb;
	snprintf(r.tags, sizeof r.tags, "%s", e->caps->tags);
	snprintf(r.contain, sizeof r.contain, "%s", e->caps->containment);
	window_of(&r, st.window_from_ms, st.window_to_ms);
	text_add(&x, "%s", "");
	if (wire_reply_node_format(&r, line, sizeof line) > 0)
		text_add(&x, "%s", line);
	node_each_peer(e->core, nodes_peer_cb, &x);
	if (clash_active(clash_from, sizeof clash_from) &&
	    wire_reply_clash_format(clash_from, line, sizeof line) > 0)
		text_add(&x, "%s", line);
	rejects_each(nodes_rejected_cb, &x);
	if (st.implausible > 0)
		nodes_rejected_cb("implausible values", st.implausible,
		    st.implausible_from, &x);
	if (st.void_claims > 0)
		nodes_rejected_cb("claims that never became runs",
		    st.void_claims, st.void_claims_from, &x);
	if (st.disputes > 0)
		nodes_rejected_cb("results that disagreed under --verify",
		    st.disputes, st.disputed, &x);
	if (st.quarantine_until > 0 && wire_reply_quarantined_format(
	    st.quarantine_until, st.quarantine_why, line, sizeof line) > 0)
		text_add(&x, "%s", line);
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
