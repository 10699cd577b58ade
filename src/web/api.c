/*
 * api.c -- the JSON API's answers (api.h), read from the node's views
 * and written with jansson.  A task is taskjson.c's, plus what only the
 * live node knows: its estimates and why it waits.
 */
#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <jansson.h>

#include "api.h"
#include "clock.h"
#include "history.h"
#include "node.h"
#include "stats.h"
#include "task.h"
#include "taskjson.h"

static struct {
	struct node	*core;
	struct api_self	 self;
} api;

void
api_init(struct node *core, const struct api_self *self)
{
	api.core = core;
	api.self = *self;
}

static json_t *
tags_json(const char *tags)
{
	json_t	*v = json_array();
	char	*copy, *p, *one;

	if (tags == NULL || (copy = strdup(tags)) == NULL)
		return v;
	for (p = copy; (one = strsep(&p, ",")) != NULL;)
		if (*one != '\0')
			json_array_append_new(v, json_text(one));
	free(copy);
	return v;
}

static json_t *
node_json(const char *name, const char *address, const char *role,
    const char *state, int free, int slots, int reputation, int cores,
    int64_t memory_mb, const char *tags, const char *contain, int self)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:o, s:o, "
	    "s:o, s:o, s:b}", "name", name, "address", address, "role", role,
	    "state", state, "free", free, "slots", slots, "reputation",
	    reputation, "cores", cores > 0 ? json_integer(cores) : json_null(),
	    "memory_mb", cores > 0 ? json_integer(memory_mb) : json_null(),
	    "tags", tags_json(tags), "containment", contain != NULL &&
	    contain[0] != '\0' ? json_string(contain) : json_null(), "self", self);
}

/* Its batch window ahead, as told (avail.h), or null: none, or over. */
static json_t *
window_json(int64_t from, int64_t to)
{
	return to > clock_node_ms() ? json_pack("{s:I, s:I}", "opens_ms",
	    (json_int_t)from, "closes_ms", (json_int_t)to) : json_null();
}

/* It says it is master, and we agree. */
static int
peer_is_master(const struct peer *p)
{
	return p->master && strcmp(p->name, node_master(api.core)) == 0;
}

void
api_peer_view(const struct peer *p, struct api_peer *v)
{
	const char		*execs;
	/* Its free slots as the map has them, not as it last said. */
	int			 busy = node_running_on(api.core, p->name);

	v->role = peer_is_master(p) ? "master" : "peer";
	v->state = p->alive ? p->volunteer : "dead";
	v->free = p->slots > busy ? p->slots - busy : 0;
	node_peer_caps(api.core, p, &v->cores, &v->memory_mb, &v->tags, &execs);
	v->containment = node_peer_containment(api.core, p);
}

static void
peer_cb(const struct peer *p, void *arg)
{
	struct api_peer	v;

	api_peer_view(p, &v);
	json_t		*o = node_json(p->name, p->client_addr, v.role,
	    v.state, v.free, p->slots, p->reputation, v.cores, v.memory_mb,
	    v.tags, v.containment, 0);

	json_object_set_new(o, "window", window_json(p->window_from_ms,
	    p->window_to_ms));
	json_array_append_new(arg, o);
}

/* FNV-1a over the bytes of what a node card shows. */
static void
mix(uint64_t *h, const void *p, size_t len)
{
	const unsigned char	*b = p;

	while (len-- > 0)
		*h = (*h ^ *b++) * 1099511628211ULL;
}

static void
digest_cb(const struct peer *p, void *arg)
{
	int	v[4] = { p->alive, peer_is_master(p), p->slots, p->free };
	int64_t	w[2] = { p->window_from_ms / 60000, p->window_to_ms / 60000 };

	mix(arg, p->name, strlen(p->name) + 1);
	mix(arg, p->volunteer, strlen(p->volunteer) + 1);
	mix(arg, v, sizeof v);
	mix(arg, w, sizeof w);	/* to the minute: heard anew each beat */
}

uint64_t
api_nodes_digest(void)
{
	struct node_status	st;
	uint64_t		h = 14695981039346656037ULL;
	int			v[3];
	int64_t			w[2];

	node_status(api.core, &st);
	w[0] = st.window_from_ms / 60000;
	w[1] = st.window_to_ms / 60000;
	mix(&h, w, sizeof w);
	v[0] = st.is_master;
	v[1] = st.slots;
	v[2] = st.running;
	mix(&h, st.volunteer_state, strlen(st.volunteer_state) + 1);
	mix(&h, v, sizeof v);
	node_each_peer(api.core, digest_cb, &h);
	return h;
}

json_t *
api_nodes(void)
{
	struct node_status	 st;
	json_t			*v = json_array(), *self;

	node_status(api.core, &st);
	self = node_json(st.name, api.self.address,
	    st.is_master ? "master" : "peer", st.volunteer_state,
	    st.slots - st.running, st.slots, api.self.reputation,
	    api.self.cores, api.self.memory_mb, api.self.tags,
	    api.self.containment, 1);
	/* What identities cost it: signatures over tasks' origins and
	 * runs it made and checked (origin.c, authorship.c). */
	json_object_set_new(self, "signatures", json_pack("{s:I, s:I}",
	    "made", (json_int_t)st.signed_made, "checked",
	    (json_int_t)st.signed_checked));
	/* Its share of tail replication (tail.h). */
	json_object_set_new(self, "tail", json_pack("{s:I, s:I, s:I, s:I}",
	    "replicas_made", (json_int_t)st.tail_made, "won_by_replica",
	    (json_int_t)st.tail_won, "runs_stopped", (json_int_t)
	    st.tail_stopped, "wasted_ms", (json_int_t)st.tail_wasted_ms));
	/* Why it takes no tasks, if its runs kept failing (retry.h). */
	json_object_set_new(self, "quarantine", st.quarantine_until > 0 ?
	    json_pack("{s:I, s:o}", "until_ms", (json_int_t)
	    st.quarantine_until, "why", json_text(st.quarantine_why)) :
	    json_null());
	json_object_set_new(self, "window", window_json(st.window_from_ms,
	    st.window_to_ms));
	json_array_append_new(v, self);
	node_each_peer(api.core, peer_cb, v);
	return v;
}

/* t with what the live node adds: estimates (s from now) and why it
 * waits. */
static json_t *
live_task_json(const struct task *t)
{
	json_t	*o = task_json(t);
	int64_t	 now = clock_node_ms(), run = -1, end = -1;
	char	 why[REASON_MAXLEN + 1] = "";

	if (o == NULL)
		return NULL;
	if (!task_is_final(t->state)) {
		run = node_task_run_estimate(api.core, t);
		end = node_task_eta(api.core, t, now);
	}
	if (!task_is_final(t->state))
		node_task_waiting(api.core, t, why, sizeof why);
	json_object_set_new(o, "estimate_ms", run >= 0 ? json_integer(run) :
	    json_null());
	json_object_set_new(o, "ends_in_ms", end >= 0 ? json_integer(end >
	    now ? end - now : 0) : json_null());
	json_object_set_new(o, "waiting", why[0] != '\0' ? json_text(why +
	    (strncmp(why, "waiting: ", 9) == 0 ? 9 : 0)) : json_null());
	json_object_set_new(o, "aged", json_boolean(t->aged));
	json_object_set_new(o, "urgent", json_boolean(t->urgent));
	return o;
}

json_t *
api_queue(void)
{
	const struct task	*t;
	json_t			*out = json_array(), *o;
	size_t			 k;

	for (k = 0; out != NULL && (t = node_ready_at(api.core, k)) != NULL;
	    k++)
		if ((o = live_task_json(t)) != NULL) {
			json_object_set_new(o, "position", json_integer(k + 1));
			json_array_append_new(out, o);
		}
	return out;
}

json_t *
api_tasks(const char *state, const char *workflow, int *bad)
{
	struct task	**v;
	enum task_state	  st = TASK_SUBMITTED;
	json_t		 *out;
	size_t		  n, i;
	int		  suspended = 0;

	*bad = 0;
	if (state != NULL && (suspended = strcasecmp(state, "Suspended") ==
	    0))
		st = TASK_RUNNING;
	else if (state != NULL && task_state_parse(state, &st) == -1) {
		*bad = 1;
		return NULL;
	}
	if ((v = node_tasks_sorted(api.core, &n)) == NULL ||
	    (out = json_array()) == NULL) {
		free(v);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (state != NULL && (v[i]->state != st || (suspended &&
		    !v[i]->suspended)))
			continue;
		if (workflow != NULL && strcmp(task_workflow(v[i]),
		    workflow) != 0)
			continue;
		json_array_append_new(out, live_task_json(v[i]));
	}
	free(v);
	return out;
}

json_t *
api_task(const char *uuid)
{
	const struct task	*t;
	struct task		**hist;
	json_t			 *o = NULL;
	size_t			  n, i;

	/* One task asked for: an end shown final is a majority's (a
	 * listing shows ends as the map holds them).  What a false
	 * certificate changes goes out with the node's next event. */
	(void)node_certify(api.core, uuid, clock_node_ms());
	if ((t = node_find(api.core, uuid)) != NULL)
		return live_task_json(t);
	if ((hist = history_read(&n)) == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (o == NULL && strcmp(hist[i]->uuid, uuid) == 0)
			o = task_json(hist[i]);
		task_free(hist[i]);
	}
	free(hist);
	return o;
}

json_t *
api_task_event(const char *uuid)
{
	const struct task	*t = node_find(api.core, uuid);

	return t != NULL ? live_task_json(t) : NULL;
}

/* One workflow's summary, grown task by task. */
static void
add_to_workflow(json_t *wf, const struct task *t)
{
	json_t	*by = json_object_get(wf, "states");
	json_t	*k = json_object_get(by, task_shown_state(t));
	int64_t	 end = json_integer_value(json_object_get(wf, "end_ms"));
	int	 n = json_integer_value(json_object_get(wf, "tasks"));
	int	 sum = json_integer_value(json_object_get(wf, "progress_sum"));

	json_object_set_new(by, task_shown_state(t), json_integer(k != NULL ?
	    json_integer_value(k) + 1 : 1));
	json_object_set_new(wf, "tasks", json_integer(n + 1));
	json_object_set_new(wf, "progress_sum", json_integer(sum + (t->state
	    == TASK_TERMINATED ? 100 : t->progress)));
	if (!task_is_final(t->state))
		json_object_set_new(wf, "done", json_false());
	if (t->end_ms > end)
		json_object_set_new(wf, "end_ms", json_integer(t->end_ms));
}

json_t *
api_workflows(void)
{
	struct task	**v;
	json_t		 *by = json_object(), *out = json_array(), *wf;
	size_t		  n, i;
	int		  k;

	if ((v = node_tasks_sorted(api.core, &n)) == NULL || by == NULL ||
	    out == NULL) {
		free(v);
		json_decref(by);
		json_decref(out);
		return NULL;
	}
	/* In submit order: a workflow's first task comes first. */
	for (i = 0; i < n; i++) {
		if ((wf = json_object_get(by, task_workflow(v[i]))) == NULL) {
			wf = json_pack("{s:s, s:s, s:I, s:I, s:i, s:i, s:{}, "
			    "s:b}", "uuid", task_workflow(v[i]), "name",
			    v[i]->exec, "submit_ms", (json_int_t)v[i]->submit_ms,
			    "end_ms", (json_int_t)-1, "tasks", 0,
			    "progress_sum", 0, "states", "done", 1);
			json_object_set_new(by, task_workflow(v[i]), wf);
			json_array_append(out, wf);
		}
		add_to_workflow(wf, v[i]);
	}
	free(v);
	/* Newest first; progress as a percentage. */
	for (k = (int)json_array_size(out) - 1, i = 0; k > (int)i; k--, i++) {
		json_t *a = json_incref(json_array_get(out, i));
		json_array_set(out, i, json_array_get(out, k));
		json_array_set_new(out, k, a);
	}
	json_array_foreach(out, i, wf) {
		int tasks = json_integer_value(json_object_get(wf, "tasks"));
		json_object_set_new(wf, "progress", json_integer(tasks > 0 ?
		    json_integer_value(json_object_get(wf, "progress_sum")) /
		    tasks : 0));
		json_object_del(wf, "progress_sum");
		if (json_integer_value(json_object_get(wf, "end_ms")) < 0 ||
		    !json_is_true(json_object_get(wf, "done")))
			json_object_set_new(wf, "end_ms", json_null());
	}
	json_decref(by);
	return out;
}

static json_t *
error(int *code, int c, const char *why)
{
	*code = c;
	return json_pack("{s:s}", "error", why);
}

static json_t *
get_tasks(struct evkeyvalq *args, int *code)
{
	const char	*state = evhttp_find_header(args, "state");
	const char	*wf = evhttp_find_header(args, "workflow");
	json_t		*v;
	int		 bad;

	if (state != NULL && *state == '\0')
		state = NULL;
	if (wf != NULL && *wf == '\0')
		wf = NULL;
	if (wf != NULL && !task_uuid_valid(wf))
		return error(code, 400, "workflow: not a uuid");
	if ((v = api_tasks(state, wf, &bad)) == NULL && bad)
		return error(code, 400, "state: Submitted, Ready, Running, "
		    "Suspended, Terminated, Cancelled or Failed");
	return v != NULL ? v : error(code, 500, "out of memory");
}

static json_t *
get_task(const char *uuid, int *code)
{
	json_t	*v;

	if (!task_uuid_valid(uuid))
		return error(code, 400, "not a task uuid");
	if ((v = api_task(uuid)) == NULL)
		return error(code, 404, "unknown task");
	return v;
}

/* Copy a parameter into a buffer of its size; -1 if too long. */
static int
param(struct evkeyvalq *args, const char *name, char *buf, size_t size,
    int *has)
{
	const char	*v = evhttp_find_header(args, name);

	*has = v != NULL && *v != '\0';
	if (!*has)
		return 0;
	return snprintf(buf, size, "%s", v) < (int)size ? 0 : -1;
}

json_t *
api_log_request(const char *uri, struct api_log_req *r, int *code)
{
	static const char *known[] = { "regex", "level", "task", "since",
			    "until", "lines", NULL };
	struct evhttp_uri	*u = evhttp_uri_parse(uri);
	struct evkeyvalq	 args;
	struct evkeyval		*kv;
	const char		*q, *v, *why = NULL;
	char			 level[16], *end;
	int			 i, has = 0;
	long			 n;

	*code = 200;
	memset(r, 0, sizeof *r);
	r->nlines = API_LOG_LINES;
	TAILQ_INIT(&args);
	if (u == NULL || ((q = evhttp_uri_get_query(u)) != NULL &&
	    evhttp_parse_query_str(q, &args) == -1))
		why = "bad URI";
	TAILQ_FOREACH(kv, &args, next) {
		for (i = 0; known[i] != NULL; i++)
			if (strcmp(kv->key, known[i]) == 0)
				break;
		if (why == NULL && known[i] == NULL)
			why = "unknown parameter: regex, level, task, since, "
			    "until and lines";
	}
	if (why == NULL && param(&args, "regex", r->regex, sizeof r->regex,
	    &has) == -1)
		why = "regex: too long";
	if (why == NULL && (param(&args, "level", level, sizeof level,
	    &r->q.has_level) == -1 || (r->q.has_level &&
	    log_level_parse(level, &r->q.level) == -1)))
		why = "level: debug, info, normal, warning or error";
	if (why == NULL && (param(&args, "task", r->uuid, sizeof r->uuid,
	    &has) == -1 || (has && !task_uuid_valid(r->uuid))))
		why = "task: not a uuid";
	if (why == NULL && (param(&args, "since", r->since, sizeof r->since,
	    &r->has_since) == -1 || param(&args, "until", r->until,
	    sizeof r->until, &r->has_until) == -1))
		why = "since, until: too long";
	if (why == NULL && (v = evhttp_find_header(&args, "lines")) != NULL) {
		n = strtol(v, &end, 10);
		if (*v == '\0' || *end != '\0' || n < 1 ||
		    n > API_LOG_LINES_MAX)
			why = "lines: a whole number from 1 to 5000";
		else
			r->nlines = (int)n;
	}
	evhttp_clear_headers(&args);
	if (u != NULL)
		evhttp_uri_free(u);
	r->q.regex = r->regex[0] != '\0' ? r->regex : NULL;
	r->q.uuid = r->uuid[0] != '\0' ? r->uuid : NULL;
	return why != NULL ? error(code, 400, why) : NULL;
}

static json_t *
get_stats(struct evkeyvalq *args, int *code)
{
	const char	*h = evhttp_find_header(args, "hours");
	char		*end;
	long		 hours = STATS_HOURS;

	if (h != NULL && ((hours = strtol(h, &end, 10)) < 1 || hours >
	    STATS_HOURS_MAX || *h == '\0' || *end != '\0'))
		return error(code, 400, "hours: a whole number from 1 to 168");
	return stats_json(api.core, (int)hours, clock_wall_ms());
}

json_t *
api_get(const char *uri, int *code)
{
	struct evhttp_uri	*u = evhttp_uri_parse(uri);
	struct evkeyvalq	 args;
	const char		*path, *q;
	json_t			*v;

	*code = 200;
	TAILQ_INIT(&args);
	if (u == NULL || (path = evhttp_uri_get_path(u)) == NULL ||
	    ((q = evhttp_uri_get_query(u)) != NULL &&
	    evhttp_parse_query_str(q, &args) == -1)) {
		v = error(code, 400, "bad URI");
	} else if (strcmp(path, "/api/nodes") == 0)
		v = api_nodes();
	else if (strcmp(path, "/api/tasks") == 0)
		v = get_tasks(&args, code);
	else if (strncmp(path, "/api/tasks/", 11) == 0)
		v = get_task(path + 11, code);
	else if (strcmp(path, "/api/workflows") == 0)
		v = api_workflows();
	else if (strcmp(path, "/api/queue") == 0)
		v = api_queue();
	else if (strcmp(path, "/api/stats") == 0)
		v = get_stats(&args, code);
	else
		v = error(code, 404, "no such path");
	if (v == NULL)
		v = error(code, 500, "out of memory");
	evhttp_clear_headers(&args);
	if (u != NULL)
		evhttp_uri_free(u);
	return v;
}
