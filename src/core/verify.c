/*
 * verify.c -- a task's end derived from its replicas' (verify.h).
 *
 * BOINC's quorum validation without a server: the replicas' ends are
 * confirmed by the pool one by one, so what each says is what its
 * runner signed and a majority certified; the verdict is a function of
 * those ends alone, so every node reaches the same one and votes for
 * it.  Agreement means all N: a liar among them can make the task fail,
 * never make it succeed with a result of its own.
 */
#include <stdio.h>
#include <string.h>

#include "nodestate.h"

struct task *
verify_replica(const struct node *n, const char *of, int i)
{
	char	uuid[UUID_STRLEN + 1];

	task_replica_uuid(of, i, uuid);
	return taskmap_find(&n->map, uuid);
}

int
verify_keep_digest(struct task *t, const char *digest)
{
	if (!task_is_replica(t) || t->verify == 0)
		return 0;		/* not --verify's */
	return task_set_string(&t->digest, digest[0] != '\0' ? digest :
	    NULL);
}

int
verify_waiting(struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	const struct task *r;
	int		 i, running = 0, ended = 0;

	/* A Ready replica says why it waits, as any task. */
	if (task_is_replica(t) && t->verify > 0 && t->state != TASK_READY) {
		snprintf(why, whylen, "replica %d of %d of %s",
		    t->replica_index + 1, t->verify, t->replica_of);
		return 1;
	}
	if (!task_is_verified(t) || task_is_final(t->state))
		return 0;
	for (i = 0; i < t->verify; i++) {
		if ((r = verify_replica(n, t->uuid, i)) == NULL)
			continue;
		running += r->state == TASK_RUNNING;
		ended += task_is_settled(r);
	}
	snprintf(why, whylen, "checked by %d replicas on distinct nodes: %d "
	    "running, %d ended", t->verify, running, ended);
	return 1;
}

uint64_t
verify_disputes(const struct node *n, const char **runner)
{
	*runner = n->verify.disputed;
	return n->verify.disputes;
}

int
verify_admissible(const struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	const struct task *s;
	int		 i;

	if (task_is_verified(t)) {
		snprintf(why, whylen, "its %d replicas run, not it",
		    t->verify);
		return 0;
	}
	for (i = 0; task_is_replica(t) && i < t->verify; i++) {
		if (i == t->replica_index)
			continue;
		if ((s = verify_replica(n, t->replica_of, i)) != NULL &&
		    strcmp(s->running_on, n->cfg.name) == 0) {
			snprintf(why, whylen, "replica %d of %s runs or ran "
			    "here", i + 1, t->replica_of);
			return 0;
		}
	}
	return 1;
}

/*
 * Did replicas a and b give one result?  A command's digest covers its
 * stdout and its output files' bytes: the same digest, the same result,
 * wherever each wrote its files (replicas sharing a directory name
 * theirs after their {uuid}, or one would overwrite the other's).  A
 * described task's outputs are its result.
 */
static int
same_result(const struct task *a, const struct task *b)
{
	if (a->digest != NULL || b->digest != NULL)
		return task_same_str(a->digest, b->digest) &&
		    a->noutputs == b->noutputs;
	return task_same_outputs(a, b);
}

/* What replica r gave, for a reason: its digest's first 12 digits and
 * its first output. */
static void
gave(const struct task *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.12s%s%.24s", r->digest != NULL ? r->digest :
	    "-", r->noutputs > 0 ? "/" : "", r->noutputs > 0 ?
	    r->outputs[0] : "");
}

struct verdict {
	enum task_state	 state;
	const struct task *agreed;	/* Terminated: the outputs */
	const struct task *odd;		/* a disagreeing replica, or NULL */
	char		 reason[REASON_MAXLEN + 1];
};

/* Did replica r run on the inputs v is bound to here? */
static int
same_inputs(const struct task *v, const struct task *r)
{
	int	k;

	if (r->ninputs != v->ninputs)
		return 0;
	for (k = 0; k < v->ninputs; k++)
		if (v->inputs[k].dataset == NULL ||
		    !task_same_str(v->inputs[k].dataset, r->inputs[k].dataset))
			return 0;
	return 1;
}

/*
 * v's end from its replicas': 1 and *out if every replica has ended,
 * confirmed by a certificate that holds here, on the inputs v is bound
 * to here (the results kept upstream); else 0.  The first
 * replica, by index, that ended other than Terminated decides; then
 * two replicas run by one node fail it; then any difference.
 */
static int
verdict(struct node *n, const struct task *v, int64_t now,
    struct verdict *out)
{
	struct task	*r[VERIFY_MAX];
	char		 a[40], b[40];
	size_t		 off;
	int		 i, j, k, best;

	if (v->verify < VERIFY_MIN || v->verify > VERIFY_MAX)
		return 0;
	for (i = 0; i < v->verify; i++) {
		if ((r[i] = verify_replica(n, v->uuid, i)) == NULL ||
		    !task_is_settled(r[i]) || !quorum_settled(n, r[i], now) ||
		    (r[i]->state == TASK_TERMINATED && !same_inputs(v, r[i])))
			return 0;
	}
	memset(out, 0, sizeof *out);
	for (i = 0; i < v->verify; i++) {
		if (strcmp(r[i]->replica_of, v->uuid) != 0 ||
		    r[i]->replica_index != i || r[i]->verify != v->verify ||
		    strcmp(r[i]->scheduled_by, v->scheduled_by) != 0) {
			out->state = TASK_FAILED;
			snprintf(out->reason, sizeof out->reason, "replica-"
			    "not-its:%s", r[i]->uuid);
			return 1;
		}
		if (r[i]->state != TASK_TERMINATED) {
			out->state = r[i]->state;
			snprintf(out->reason, sizeof out->reason, "replica-"
			    "%s:%s", r[i]->state == TASK_FAILED ? "failed" :
			    "cancelled", r[i]->uuid);
			return 1;
		}
	}
	out->state = TASK_FAILED;
	for (i = 0; i < v->verify; i++)
		for (j = i + 1; j < v->verify; j++)
			if (strcmp(r[i]->running_on, r[j]->running_on) == 0) {
				snprintf(out->reason, sizeof out->reason,
				    "replicas-on-one-node:%s",
				    r[i]->running_on);
				out->odd = r[j];
				return 1;
			}
	/* The result most replicas gave, and one that differs from it:
	 * the odd one out, where the others agree. */
	for (i = 0, k = 0, best = 0; i < v->verify; i++) {
		int agree = 0;
		for (j = 0; j < v->verify; j++)
			agree += same_result(r[i], r[j]);
		if (agree > best) {
			best = agree;
			k = i;
		}
	}
	for (j = 0; j < v->verify; j++)
		if (!same_result(r[k], r[j])) {
			gave(r[k], a, sizeof a);
			gave(r[j], b, sizeof b);
			snprintf(out->reason, sizeof out->reason, "replicas-"
			    "disagree: %.24s gave %s, %.24s gave %s",
			    r[k]->running_on, a, r[j]->running_on, b);
			out->odd = r[j];
			return 1;
		}
	out->state = TASK_TERMINATED;
	out->agreed = r[0];
	off = (size_t)snprintf(out->reason, sizeof out->reason,
	    "verified-by:");
	for (i = 0; i < v->verify && off < sizeof out->reason; i++)
		off += (size_t)snprintf(out->reason + off, sizeof out->reason -
		    off, "%s%s", i > 0 ? "," : "", r[i]->running_on);
	return 1;
}

void
verify_try(struct node *n, struct task *v, int64_t now, int propose)
{
	struct verdict	d;

	if (!task_is_verified(v) || task_is_final(v->state) ||
	    !verdict(n, v, now, &d))
		return;
	if (task_set_outputs(v, d.agreed != NULL ? d.agreed->outputs : NULL,
	    d.agreed != NULL ? d.agreed->noutputs : 0) == -1) {
		outbox_log(&n->out, VLOG_ERROR, "out of memory");
		return;
	}
	if (d.state == TASK_TERMINATED)
		v->progress = 100;
	if (d.odd != NULL) {
		n->verify.disputes++;
		snprintf(n->verify.disputed, sizeof n->verify.disputed, "%s",
		    d.odd->running_on);
	}
	cascade_end_derived(n, v, d.state, d.reason, now, propose);
}

void
verify_replica_settled(struct node *n, const struct task *r, int64_t now,
    int propose)
{
	struct task	*v = taskmap_find(&n->map, r->replica_of);

	if (v != NULL)
		verify_try(n, v, now, propose);
}

int
verify_agrees(struct node *n, const struct task *r, int64_t now)
{
	struct verdict	d;

	if (!verdict(n, r, now, &d) || d.state != r->state ||
	    strcmp(d.reason, r->reason) != 0 || r->running_on[0] != '\0')
		return 0;
	return d.agreed != NULL ? task_same_outputs(d.agreed, r) :
	    r->noutputs == 0;
}
