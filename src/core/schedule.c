/*
 * schedule.c -- SCHEDULE and CANCEL from a client.  Each request is
 * checked against the task descriptions and the map first; one that
 * fails the check gets its reason and changes nothing.  Then it is
 * carried out: the task enters the map, is journaled and sent to every
 * node (ENQUEUE until the master acknowledges it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "lex.h"
#include "nodestate.h"
#include "taskdesc.h"
#include "wire.h"

void
schedule_saw(struct node *n, int64_t submit_ms)
{
	if (submit_ms > n->schedule.last_submit)
		n->schedule.last_submit = submit_ms;
}

/* How many outputs up has, or will have: -1 if nothing here says. */
static int
outputs_of(const struct node *n, const struct task *up)
{
	const struct taskdesc	*ud = taskdesc_find(n->descs, up->exec);

	if (up->state == TASK_TERMINATED)
		return up->noutputs;
	if (up->cmd != NULL)
		return up->cmd->nouts;
	return ud != NULL ? ud->noutputs : -1;
}

/* Input i of a request, against the task it names; d is the request's
 * description (NULL: a command, which takes any input). */
static int
check_input(struct node *n, const struct taskdesc *d, int i,
    const struct task_binding *b, char *err, size_t errlen)
{
	const struct taskdesc	*ud;
	struct task		*up = taskmap_find(&n->map, b->uuid);
	int			 nout;

	if (up == NULL) {
		snprintf(err, errlen, "input %d: unknown task %s", i + 1,
		    b->uuid);
		return -1;
	}
	if (task_is_settled(up) && up->state != TASK_TERMINATED) {
		snprintf(err, errlen, "input %d: task %s is %s", i + 1,
		    b->uuid, task_state_name(up->state));
		return -1;
	}
	ud = up->cmd == NULL ? taskdesc_find(n->descs, up->exec) : NULL;
	if ((nout = outputs_of(n, up)) < 0) {
		snprintf(err, errlen, "input %d: task %s runs '%s', which has "
		    "no description", i + 1, b->uuid, up->exec);
		return -1;
	}
	if (b->nth < 1 || b->nth > nout) {
		snprintf(err, errlen, "input %d: %s has no output %d (it has "
		    "%d)", i + 1, up->exec, b->nth, nout);
		return -1;
	}
	if (d == NULL)
		return 0;
	if (d->inputs[i].type[0] != '\0' &&
	    (ud == NULL || strcmp(d->inputs[i].type, ud->type) != 0)) {
		snprintf(err, errlen, "input %d of %s must come from a %s "
		    "task, not %s", i + 1, d->name, d->inputs[i].type,
		    up->exec);
		return -1;
	}
	if (d->inputs[i].nth != 0 && d->inputs[i].nth != b->nth) {
		snprintf(err, errlen, "input %d of %s must be output %d of "
		    "%s, not %d", i + 1, d->name, d->inputs[i].nth,
		    d->inputs[i].type, b->nth);
		return -1;
	}
	return 0;
}

/* Check a SCHEDULE request against descriptions and the map; *dp is
 * its description (NULL for a command, which has none). */
static int
check_schedule(struct node *n, const struct node_schedule_req *req,
    const struct taskdesc **dp, char *err, size_t errlen)
{
	const struct taskdesc	*d;
	int			 i;

	if (!task_name_valid(req->exec)) {
		snprintf(err, errlen, "bad executable name '%.64s'",
		    req->exec);
		return -1;
	}
	if (req->array != NULL && req->array[0] != '\0' &&
	    (!task_uuid_valid(req->array) || req->array_index < 0 ||
	    req->array_index > ARRAY_INDEX_MAX || req->array_max < 0 ||
	    req->array_max > ARRAY_MAX_MAX)) {
		snprintf(err, errlen, "bad array");
		return -1;
	}
	/* -p and -x are argv, not shell: printable, bounded (a request
	 * line's parser says so too; the web's requests come as data). */
	if ((req->path != NULL && (strlen(req->path) > PATH_MAXLEN ||
	    !lex_printable(req->path))) || (req->params != NULL &&
	    (strlen(req->params) > PATH_MAXLEN ||
	    !lex_printable(req->params)))) {
		snprintf(err, errlen, "bad path or parameters file");
		return -1;
	}
	if (req->cores < 0 || req->cores > CORES_MAX || req->memory_mb < 0 ||
	    req->memory_mb > MEMORY_MB_MAX || req->est_ms < 0 ||
	    req->est_ms > TASK_EST_MAX || (req->tags != NULL &&
	    !task_names_valid(req->tags, CAPS_NAMES_MAX))) {
		snprintf(err, errlen, "bad cores, memory, tags or estimate");
		return -1;
	}
	if (req->cmd != NULL) {
		if (task_cmd_check(req->cmd, err, errlen) == -1)
			return -1;
		for (i = 0; i < req->nbind; i++)
			if (check_input(n, NULL, i, &req->bind[i], err,
			    errlen) == -1)
				return -1;
		*dp = NULL;
		return 0;
	}
	if ((d = taskdesc_find(n->descs, req->exec)) == NULL) {
		snprintf(err, errlen, "unknown executable '%s'", req->exec);
		return -1;
	}
	if (req->nbind != d->ninputs) {
		snprintf(err, errlen,
		    "%s takes %d input%s (-a UUID N), got %d", d->name,
		    d->ninputs, d->ninputs == 1 ? "" : "s", req->nbind);
		return -1;
	}
	if (d->needs_path && req->path == NULL) {
		snprintf(err, errlen, "%s needs -p <path>", d->name);
		return -1;
	}
	for (i = 0; i < req->nbind; i++)
		if (check_input(n, d, i, &req->bind[i], err, errlen) == -1)
			return -1;
	*dp = d;
	return 0;
}

/* What t needs: the request's and its description's (d, or NULL), the
 * larger numbers and all the tags; -1 if the tags are too many. */
static int
set_needs(struct task *t, const struct node_schedule_req *req,
    const struct taskdesc *d)
{
	char		 tags[2 * CAPS_TEXT_MAX + 2];
	const char	*more = d != NULL ? d->needs.tags : "";

	/* A transparent checkpoint needs a node that can make one. */
	if (req->cmd != NULL && req->cmd->ckpt_file != NULL &&
	    strcmp(req->cmd->ckpt_file, CKPT_AUTO) == 0 &&
	    (req->tags == NULL || !task_names_have(req->tags, CKPT_AUTO_TAG)))
		more = CKPT_AUTO_TAG;

	t->req_cores = req->cores;
	t->req_memory_mb = req->memory_mb;
	if (d != NULL && d->needs.cores > t->req_cores)
		t->req_cores = d->needs.cores;
	if (d != NULL && d->needs.memory_mb > t->req_memory_mb)
		t->req_memory_mb = d->needs.memory_mb;
	snprintf(tags, sizeof tags, "%s%s%s", req->tags != NULL ? req->tags :
	    "", req->tags != NULL && *req->tags != '\0' && *more != '\0' ?
	    "," : "", more);
	if (tags[0] == '\0')
		return 0;
	if (!task_names_valid(tags, CAPS_NAMES_MAX))
		return -1;
	return task_set_string(&t->req_tags, tags);
}

/* The task a checked request describes, or NULL (out of memory). */
static struct task *
new_task(struct node *n, const struct node_schedule_req *req,
    const char *uuid, int64_t now)
{
	struct task	*t;
	int		 i;

	if ((t = task_new(uuid, req->exec, req->nbind)) == NULL)
		return NULL;
	t->prio = req->prio == PRIO_INTERACTIVE ? PRIO_INTERACTIVE : PRIO_LOW;
	t->state = TASK_SUBMITTED;
	/* Strictly increasing, so a burst keeps its FCFS order. */
	t->submit_ms = now > n->schedule.last_submit ? now :
	    n->schedule.last_submit + 1;
	n->schedule.last_submit = t->submit_ms;
	snprintf(t->scheduled_by, sizeof t->scheduled_by, "%s", n->cfg.name);
	snprintf(t->client, sizeof t->client, "%s",
	    req->client != NULL ? req->client : "-");
	if (req->user != NULL && task_token_valid(req->user, USER_MAXLEN))
		snprintf(t->user, sizeof t->user, "%s", req->user);
	if (req->begin_ms > 0)
		t->begin_ms = req->begin_ms;
	t->deadline_ms = req->deadline_ms;	/* checked: 0 or more */
	t->est_ms = req->est_ms;
	if (t->user[0] != '\0' && req->has_uid && req->uid >= 0 &&
	    req->uid <= UID_MAXVAL)
		t->uid = req->uid;
	if (task_set_string(&t->path, req->path) == -1 ||
	    task_set_string(&t->params, req->params) == -1)
		goto nomem;
	if (req->cmd != NULL && (t->cmd = task_cmd_dup(req->cmd)) == NULL)
		goto nomem;
	if (req->array != NULL && req->array[0] != '\0') {
		snprintf(t->array, sizeof t->array, "%s", req->array);
		t->array_index = req->array_index;
		t->array_max = req->array_max;
	}
	for (i = 0; i < req->nbind; i++) {
		struct task *up = taskmap_find(&n->map, req->bind[i].uuid);
		memcpy(t->inputs[i].from, req->bind[i].uuid,
		    sizeof t->inputs[i].from);
		t->inputs[i].nth = req->bind[i].nth;
		/* A workflow is what its first input leads back to. */
		if (i == 0)
			snprintf(t->workflow, sizeof t->workflow, "%s",
			    task_workflow(up));
		if (task_result_kept(up) &&
		    task_set_string(&t->inputs[i].dataset,
		    up->outputs[req->bind[i].nth - 1]) == -1)
			goto nomem;
	}
	return t;
nomem:
	task_free(t);
	return NULL;
}

/* Enter a checked new task into the map: journaled, queued if it may
 * be, sent to every node. */
void
schedule_enter(struct node *n, struct task *t, int64_t now)
{
	t->ver = 1;
	order_added(n, t);
	retire_track(n, t);
	if (task_inputs_bound(t))
		cascade_make_ready(n, t, now);
	node_log_task(n, VLOG_INFO, t, NULL);
	run_warn_not_here(n, t, NULL);
	replicate_changed(n, t);
	replicate_enqueue(n, t);
}

/* The task a checked request makes under uuid, replica `index` of the
 * task `of` if of is not NULL; NULL and *err if it cannot be. */
static struct task *
make(struct node *n, const struct node_schedule_req *req,
    const struct taskdesc *d, const char *uuid, const char *of, int index,
    int64_t now, char *err, size_t errlen)
{
	struct task	*t;
	size_t		 worst;

	if (!task_uuid_valid(uuid) || taskmap_find(&n->map, uuid) != NULL) {
		snprintf(err, errlen, "internal: bad new uuid");
		return NULL;
	}
	if ((t = new_task(n, req, uuid, now)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (set_needs(t, req, d) == -1) {
		task_free(t);
		snprintf(err, errlen, "more than %d tags, or %d bytes of them",
		    CAPS_NAMES_MAX, CAPS_TEXT_MAX);
		return NULL;
	}
	t->verify = req->verify;
	if (of != NULL) {
		snprintf(t->replica_of, sizeof t->replica_of, "%s", of);
		t->replica_index = index;
		t->array[0] = '\0';	/* the task itself is the array's */
		t->array_index = t->array_max = 0;
	}
	/* Its every STATE must fit a datagram (replicate_send), as large
	 * as it may grow. */
	if ((worst = wire_task_worst_len(t, d != NULL ? d->noutputs :
	    t->cmd->nouts)) >
	    DATAGRAM_MAX - 256) {
		task_free(t);
		snprintf(err, errlen, "task too large: its record could grow "
		    "to %zu bytes, over the %d a datagram holds", worst,
		    DATAGRAM_MAX - 256);
		return NULL;
	}
	return t;	/* signed as it enters (node_schedule) */
}

/*
 * t, not in the map yet, would miss its deadline: its forecast (as if
 * queued now; with inputs, the earliest it could end) is past it (err:
 * by how much).  No forecast (a program never run here) misses nothing.
 */
static int
misses_deadline(struct node *n, struct task *t, int64_t now, char *err,
    size_t errlen)
{
	int64_t	at, late;

	if (task_inputs_bound(t)) {
		t->state = TASK_READY;
		t->ready_ms = now;
	}
	/* Its keys in the queue, as order_added gives a new one. */
	t->rest_ms = estimate_task_rank_ms(n, t);
	t->wf_submit_ms = t->submit_ms;
	at = node_task_forecast(n, t, now);
	t->state = TASK_SUBMITTED;
	t->ready_ms = -1;
	if (at < 0 || at <= t->deadline_ms)
		return 0;
	late = (at - t->deadline_ms + 999) / 1000;
	snprintf(err, errlen, "cannot meet its deadline: expected to end "
	    "%" PRId64 "%s after it; not scheduled (--deadline-strict)",
	    late >= 120 ? late / 60 : late, late >= 120 ? " min" : " s");
	return 1;
}

int
node_schedule(struct node *n, const struct node_schedule_req *req,
    const char *uuid, int64_t now, char *err, size_t errlen)
{
	const struct taskdesc	*d;
	struct task		*t[1 + VERIFY_MAX];
	char			 ruuid[UUID_STRLEN + 1];
	int			 i, k, nt = 1 + req->verify, late;

	if (check_schedule(n, req, &d, err, errlen) == -1)
		return -1;
	if (req->deadline_ms < 0 || (req->deadline_ms > 0 &&
	    req->deadline_ms <= (req->begin_ms > now ? req->begin_ms : now))) {
		snprintf(err, errlen, "the deadline is past, or before the "
		    "task may begin");
		return -1;
	}
	if (req->verify != 0 && (req->verify < VERIFY_MIN ||
	    req->verify > VERIFY_MAX)) {
		snprintf(err, errlen, "--verify takes %d to %d nodes, not %d",
		    VERIFY_MIN, VERIFY_MAX, req->verify);
		return -1;
	}
	if (req->verify > 1 + peertab_members(n)) {
		snprintf(err, errlen, "--verify %d needs %d nodes; the pool "
		    "has %d", req->verify, req->verify, 1 + peertab_members(n));
		return -1;
	}
	/* The task, then its replicas: all made before any enters. */
	for (k = 0; k < nt; k++) {
		if (k > 0)
			task_replica_uuid(uuid, k - 1, ruuid);
		t[k] = make(n, req, d, k == 0 ? uuid : ruuid, k == 0 ? NULL :
		    uuid, k - 1, now, err, errlen);
		if (t[k] == NULL)
			goto fail;
	}
	/* Forecast to miss: refused if strict, else as a task without one
	 * (least slack first would give jobs already late the slots). */
	late = req->deadline_ms > 0 && misses_deadline(n, t[0], now, err,
	    errlen);
	if (late && req->deadline_strict) {
		k = nt;
		goto fail;
	}
	for (i = 0; i < nt; i++) {
		t[i]->deadline_late = late;
		origin_sign(n, t[i]);	/* the late mark too */
		if (taskmap_insert(&n->map, t[i]) == -1) {
			while (i < nt)
				task_free(t[i++]);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		schedule_enter(n, t[i], now);
	}
	node_settle(n, now);
	return 0;
fail:
	while (k-- > 0)
		task_free(t[k]);
	return -1;
}

/* v, a verified task, is cancelled through its replicas: it ends as
 * they do (verify.c). */
static int
cancel_replicas(struct node *n, const struct task *v, int64_t now, char *err,
    size_t errlen)
{
	struct task	*r;
	int		 i, any = 0;

	for (i = 0; i < v->verify; i++) {
		if ((r = verify_replica(n, v->uuid, i)) == NULL ||
		    task_is_final(r->state))
			continue;
		if (node_cancel(n, r->uuid, now, err, errlen) == -1)
			return -1;
		any = 1;
	}
	if (!any) {
		snprintf(err, errlen, "task %s: its replicas have ended; its "
		    "end follows", v->uuid);
		return -1;
	}
	return 0;
}

int
node_cancel(struct node *n, const char *uuid, int64_t now, char *err,
    size_t errlen)
{
	struct task	*t;

	if ((t = taskmap_find(&n->map, uuid)) == NULL) {
		snprintf(err, errlen, "unknown task %s", uuid);
		return -1;
	}
	if (task_is_final(t->state)) {
		snprintf(err, errlen, "task %s is already %s%s", uuid,
		    task_state_name(t->state), t->confirmed ? "" :
		    " (not confirmed yet)");
		return -1;
	}
	if (task_is_verified(t))
		return cancel_replicas(n, t, now, err, errlen);
	if (!authorship_may_cancel(n, t)) {
		snprintf(err, errlen, "task %s was scheduled on node %s: only "
		    "that node (or the one running it) cancels it; ask "
		    "there", uuid, t->scheduled_by);
		return -1;
	}
	cascade_end_tree(n, t, TASK_CANCELLED, "cancelled-by-client", now);
	node_settle(n, now);
	return 0;
}
