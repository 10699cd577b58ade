/*
 * arraycap.c -- limits of tasks running at once (arraycap.h): of one
 * array, and of one user.  Two nodes racing for the last places of a
 * group race as for one task: each counts the other's claims that
 * precede its own by the dequeue rule (rules_dequeue_beats), so the
 * later one stands back.  A claim lost or later than the window can
 * still let one run too many; as for duplicate runs, the runs started
 * last then yield, as soon as their nodes hear of the others: every
 * node orders the group's runs the same way (start stamp, then runner),
 * and the first ones within the limit stay.
 */
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "arraycap.h"
#include "rules.h"

/* A kind of group: its key in a task ("" none), and its limit. */
struct group {
	const char	*what;		/* for the log */
	const char	*(*key)(const struct task *);
	int		 (*limit)(const struct node *, const struct task *);
};

static const char *
array_key(const struct task *t)
{
	return t->array;
}

static int
array_limit(const struct node *n, const struct task *t)
{
	return t->array_max;
}

static const char *
user_key(const struct task *t)
{
	return t->user;
}

/* The user's own limit (max_running_of), else everyone's. */
static int
user_limit(const struct node *n, const struct task *t)
{
	const char	*p = n->cfg.max_running_of;
	size_t		 len = strlen(t->user);

	for (; *p != '\0'; p = strchr(p, ',') != NULL ? strchr(p, ',') + 1 :
	    p + strlen(p))
		if (strncmp(p, t->user, len) == 0 && p[len] == ':')
			return atoi(p + len + 1);
	return n->cfg.max_running_per_user;
}

static const struct group groups[] = {
	{ "array", array_key, array_limit },
	{ "user", user_key, user_limit },
};
#define NGROUPS (sizeof groups / sizeof groups[0])

/* t's limit in group g; 0 if none (no key, or no limit). */
static int
limit_of(const struct node *n, const struct group *g, const struct task *t)
{
	return g->key(t)[0] != '\0' ? g->limit(n, t) : 0;
}

struct same_group {
	struct node		*n;
	const struct group	*g;
	const struct task	*t;
};

/* A Ready task of t's group, other than t: one a claim may be taking. */
static int
ready_sibling(const char *uuid, void *arg)
{
	struct same_group	*a = arg;
	const struct task	*u;

	if (strcmp(uuid, a->t->uuid) == 0)
		return 0;
	u = taskmap_find(&a->n->map, uuid);
	return u != NULL && u->state == TASK_READY &&
	    strcmp(a->g->key(u), a->g->key(a->t)) == 0;
}

static int
group_full(struct node *n, const struct group *g, const struct task *t,
    int64_t ts, int64_t now)
{
	struct same_group	 a = { n, g, t };
	struct task		**v;
	size_t			 i, count;
	int			 busy = 0, max = limit_of(n, g, t);

	if (max <= 0)
		return 0;
	if ((v = runwatch_running(n, &count)) == NULL && count > 0)
		return 1;	/* out of memory: take nothing of it */
	for (i = 0; i < count; i++)
		busy += v[i]->state == TASK_RUNNING &&
		    strcmp(g->key(v[i]), g->key(t)) == 0 && v[i] != t;
	free(v);
	if (busy >= max)
		return 1;
	busy += dequeue_claims_beating_where(n, ts, now, ready_sibling, &a);
	return busy >= max;
}

int
arraycap_full(struct node *n, const struct task *t, int64_t ts, int64_t now)
{
	size_t	k;

	for (k = 0; k < NGROUPS; k++)
		if (group_full(n, &groups[k], t, ts, now))
			return 1;
	return 0;
}

/* How many runs of t's group come before t's, in the order every node
 * sees: start stamp, then runner (rules_run_beats). */
static int
runs_before(const struct group *g, struct task *const *v, size_t count,
    const struct task *t)
{
	size_t	i;
	int	before = 0;

	for (i = 0; i < count; i++)
		before += v[i] != t && v[i]->state == TASK_RUNNING &&
		    strcmp(g->key(v[i]), g->key(t)) == 0 &&
		    rules_run_beats(v[i]->start_ms, v[i]->running_on,
		    t->start_ms, t->running_on);
	return before;
}

static void
group_heard(struct node *n, const struct group *g, const struct task *run,
    int64_t now)
{
	struct task	**v, *t;
	size_t		  i, count;
	int		  before, max;

	if (run->state != TASK_RUNNING || limit_of(n, g, run) <= 0 ||
	    run_count(n) == 0 || (v = runwatch_running(n, &count)) == NULL)
		return;
	for (i = 0; i < count; i++) {
		t = v[i];
		if (t->run != RUN_ACTIVE || t->state != TASK_RUNNING ||
		    strcmp(g->key(t), g->key(run)) != 0 ||
		    (before = runs_before(g, v, count, t)) <
		    (max = limit_of(n, g, t)))
			continue;
		outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s} name{%s} of "
		    "%s %s yields on %s: %d of its runs started before, "
		    "its limit is %d; back to Ready", t->uuid, t->exec,
		    g->what, g->key(t), n->cfg.name, before, max);
		run_stop(n, t);
		cascade_make_ready(n, t, now);
		replicate_publish(n, t);
	}
	free(v);
}

void
arraycap_heard(struct node *n, const struct task *run, int64_t now)
{
	size_t	k;

	for (k = 0; k < NGROUPS; k++)
		group_heard(n, &groups[k], run, now);
}
