/*
 * capset.c -- what nodes have, what tasks need (capset.h).  A task no
 * live node can run stays Ready, and node_task_waiting() says why, as
 * Slurm's pending reasons do.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"
#include "taskdesc.h"

void
capset_free(struct node *n)
{
	size_t	i;

	for (i = 0; i < n->capset.n; i++) {
		free(n->capset.v[i].tags);
		free(n->capset.v[i].execs);
		free(n->capset.v[i].contain);
		free(n->capset.v[i].noacct);
	}
	free(n->capset.v);
	memset(&n->capset, 0, sizeof n->capset);
}

/* The descriptions this node can run, as a comma list. */
static const char *
own_execs(struct node *n)
{
	char	*buf = n->capset.own_execs;
	size_t	 i, off = 0, len;
	int	 count = 0;

	buf[0] = '\0';
	for (i = 0; n->descs != NULL && i < n->descs->n; i++) {
		const struct taskdesc *d = &n->descs->v[i];
		len = strlen(d->name);
		if (d->cannot_run[0] != '\0' || count == CAPS_NAMES_MAX ||
		    off + len + 2 > sizeof n->capset.own_execs)
			continue;
		off += snprintf(buf + off, sizeof n->capset.own_execs - off,
		    "%s%s", off > 0 ? "," : "", d->name);
		count++;
	}
	return buf;
}

void
capset_tell(struct node *n, struct peer_msg *m)
{
	m->cores = n->cfg.cores;
	m->memory_mb = n->cfg.memory_mb;
	m->tags = n->cfg.tags;
	m->execs = own_execs(n);
	m->contain = n->cfg.containment;
	m->noacct = n->capset.own_noacct;
}

/* s, "" if NULL. */
static const char *
str(const char *s)
{
	return s != NULL ? s : "";
}

void
node_owner_account(struct node *n, const char *user, int missing)
{
	char	*list = n->capset.own_noacct, *p;
	size_t	 len = strlen(user), have = strlen(list);

	if (!task_name_valid(user) || task_names_have(list, user) == missing)
		return;
	if (missing) {		/* a full list keeps the first ones */
		if (have + len + 2 <= sizeof n->capset.own_noacct)
			snprintf(list + have, sizeof n->capset.own_noacct -
			    have, "%s%s", have > 0 ? "," : "", user);
		return;
	}
	for (p = list; (p = strstr(p, user)) != NULL; p++)
		if ((p == list || p[-1] == ',') && (p[len] == ',' ||
		    p[len] == '\0')) {
			memmove(p, p + len + (p[len] == ','),
			    strlen(p + len + (p[len] == ',')) + 1);
			if (*list != '\0' && list[strlen(list) - 1] == ',')
				list[strlen(list) - 1] = '\0';
			return;
		}
}

static const char *
contain_of(const struct peer_msg *m)
{
	return m->contain != NULL ? m->contain : "";
}

static uint64_t
hash_of(const struct peer_msg *m)
{
	char	num[48];

	snprintf(num, sizeof num, "%d %" PRId64 " ", m->cores, m->memory_mb);
	return task_hash(num) * 31 ^ task_hash(m->tags) *
	    0x9e3779b97f4a7c15ULL ^ task_hash(m->execs) ^
	    task_hash(contain_of(m)) * 7 ^ task_hash(str(m->noacct)) * 13;
}

/* The entry of this set (1-based), added if new; 0 if the table is full
 * or out of memory (the peer's set is then unknown). */
static int
intern(struct capset *cs, uint64_t h, const struct peer_msg *m)
{
	struct capset_entry	*e;
	size_t			 i;

	for (i = 0; i < cs->n; i++) {
		e = &cs->v[i];
		if (e->hash == h && e->cores == m->cores &&
		    e->memory_mb == m->memory_mb &&
		    strcmp(e->tags, m->tags) == 0 &&
		    strcmp(e->execs, m->execs) == 0 &&
		    strcmp(e->contain, contain_of(m)) == 0 &&
		    strcmp(e->noacct, str(m->noacct)) == 0)
			return (int)i + 1;
	}
	if (cs->n == CAPSET_MAX)
		return 0;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap > 0 ? 2 * cs->cap : 4;
		if ((e = realloc(cs->v, cap * sizeof *e)) == NULL)
			return 0;
		cs->v = e;
		cs->cap = cap;
	}
	e = &cs->v[cs->n];
	e->hash = h;
	e->cores = m->cores;
	e->memory_mb = m->memory_mb;
	e->tags = strdup(m->tags);
	e->execs = strdup(m->execs);
	e->contain = strdup(contain_of(m));
	e->noacct = strdup(str(m->noacct));
	if (e->tags == NULL || e->execs == NULL || e->contain == NULL ||
	    e->noacct == NULL) {
		free(e->tags);
		free(e->execs);
		free(e->contain);
		free(e->noacct);
		return 0;
	}
	return (int)++cs->n;
}

void
capset_heard(struct node *n, struct peer *p, const struct peer_msg *m)
{
	const struct capset_entry	*e;
	uint64_t			 h;

	if (m->cores == 0) {	/* an older node, which does not say */
		p->capset = 0;
		return;
	}
	h = hash_of(m);
	e = p->capset > 0 ? &n->capset.v[p->capset - 1] : NULL;
	if (e == NULL || e->hash != h)
		p->capset = intern(&n->capset, h, m);
}

/* What a node has; execs NULL: not known (a command's program, ours). */
struct caps {
	int		 cores;
	int64_t		 memory_mb;
	const char	*tags;
	const char	*execs;
	const char	*noacct;	/* NULL: not known */
};

/* Room for a tag as read: what a reason's "tag %s" held. */
#define TAG_ROOM	(NAME_MAXLEN + 32 - 4)

/* The k-th tag t needs (from 0) into tag, cut to fit as the reasons
 * always were; 0 if it needs fewer. */
static int
kth_tag(const struct task *t, int k, char *tag, size_t size)
{
	const char	*p = t->req_tags;
	size_t		 len;

	for (; p != NULL && *p != '\0' && k > 0; k--)
		p = strchr(p, ',') != NULL ? strchr(p, ',') + 1 : "";
	if (p == NULL || *p == '\0')
		return 0;
	len = strcspn(p, ",");
	if (len >= size)
		len = size - 1;
	memcpy(tag, p, len);
	tag[len] = '\0';
	return 1;
}

/*
 * The k-th thing t needs -- 0 cores, 1 memory, 2 its program, 3 its
 * owner's account (a node may have said it has none), 4 on its tags --
 * and whether c has it: 1 yes, 0 no, -1 when t needs no k-th thing.
 * Cores or memory 0: not counted.  Asked of every waiting task at each
 * look at the queue, so it says nothing: lacking() does.
 */
static int
has(const struct caps *c, const struct task *t, int k)
{
	char	tag[TAG_ROOM];

	switch (k) {
	case 0:
		return c->cores == 0 || task_cores(t) <= c->cores;
	case 1:
		return c->memory_mb == 0 || t->req_memory_mb <= c->memory_mb;
	case 2:
		return c->execs == NULL || t->cmd != NULL ||
		    task_names_have(c->execs, t->exec);
	case 3:
		return c->noacct == NULL || t->user[0] == '\0' ||
		    !task_names_have(c->noacct, t->user);
	}
	if (!kth_tag(t, k - 4, tag, sizeof tag))
		return -1;
	return task_names_have(c->tags, tag);
}

/* The k-th thing t needs, in words. */
static void
lacking(const struct task *t, int k, char *what, size_t size)
{
	char	tag[TAG_ROOM];

	switch (k) {
	case 0:
		snprintf(what, size, "%d cores", task_cores(t));
		break;
	case 1:
		snprintf(what, size, "%" PRId64 " MB of memory",
		    t->req_memory_mb);
		break;
	case 2:
		snprintf(what, size, "program %s", t->exec);
		break;
	case 3:
		snprintf(what, size, "account %s", t->user);
		break;
	default:
		(void)kth_tag(t, k - 4, tag, sizeof tag);
		snprintf(what, size, "tag %s", tag);
	}
}

/* Whether c has all t needs; the first it lacks into what (if asked). */
static int
fits(const struct caps *c, const struct task *t, char *what, size_t size)
{
	int	k, rc;

	for (k = 0; (rc = has(c, t, k)) != -1; k++)
		if (rc == 0) {
			if (what != NULL)
				lacking(t, k, what, size);
			return 0;
		}
	return 1;
}

int
capset_fits_here(const struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	struct caps	c = { n->cfg.cores, n->cfg.memory_mb, n->cfg.tags,
			    NULL, NULL };
	char		lack[NAME_MAXLEN + 32];

	if (fits(&c, t, why != NULL ? lack : NULL, sizeof lack))
		return 1;
	if (why != NULL)
		snprintf(why, whylen, "it needs %s, which this node has not",
		    lack);
	return 0;
}

/* What peer p told it has; 0 if it did not say (it may have anything). */
static int
peer_caps(const struct node *n, const struct peer *p, struct caps *c)
{
	const struct capset_entry	*e;

	if (p->capset <= 0 || (size_t)p->capset > n->capset.n)
		return 0;
	e = &n->capset.v[p->capset - 1];
	c->cores = e->cores;
	c->memory_mb = e->memory_mb;
	c->tags = e->tags;
	c->execs = e->execs;
	c->noacct = e->noacct;
	return 1;
}

int
capset_peer_can(const struct node *n, const struct peer *p,
    const struct task *t)
{
	struct caps	c;

	return !peer_caps(n, p, &c) || fits(&c, t, NULL, 0);
}

/*
 * Why t waits, if no live node can run it: the first thing it needs that
 * no live node has ("no live node has tag gpu"), or that none has all of
 * it; or that those which could take no tasks now.  Nodes that did not
 * say what they have count as able.
 */
void
node_task_waiting(struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	const struct peer	*p;
	struct caps		 c[2], *own = &c[0], *peer = &c[1];
	char			 what[NAME_MAXLEN + 32], mine[REASON_MAXLEN + 1];
	size_t			 i, count = peertab_count(n);
	int			 k, rc, any, able = 0, taking = 0, here;

	why[0] = '\0';
	if (verify_waiting(n, t, why, whylen) || t->state != TASK_READY)
		return;
	if (t->held) {
		snprintf(why, whylen, "held: volery release %s", t->uuid);
		return;
	}
	if (t->begin_ms > n->cmdcheck.now) {	/* the last event's time */
		snprintf(why, whylen, "waiting: its --begin time has not "
		    "come");
		return;
	}
	if (t->retry_ms > n->cmdcheck.now) {
		snprintf(why, whylen, "waiting: retried in %.1f s after %d "
		    "failed attempt%s", (t->retry_ms - n->cmdcheck.now) / 1e3,
		    t->failures, t->failures == 1 ? "" : "s");
		return;
	}
	*own = (struct caps){ n->cfg.cores, n->cfg.memory_mb, n->cfg.tags,
	    own_execs(n), n->capset.own_noacct };
	if ((here = run_admissible(n, t, mine, sizeof mine))) {
		able++;
		taking += run_volunteering(n);
	}
	for (i = 0; i < count; i++) {
		if ((p = peertab_at(n, (int)i)) == NULL || !p->alive)
			continue;
		if (!peer_caps(n, p, peer) || fits(peer, t, what,
		    sizeof what)) {
			able++;
			taking += p->takes_tasks;
		}
	}
	if (able > 0) {
		if (taking == 0)
			snprintf(why, whylen, "waiting: the node%s that can "
			    "run it take%s no tasks now", able == 1 ? "" :
			    "s", able == 1 ? "s" : "");
		return;
	}
	for (k = 0; (rc = has(own, t, k)) != -1; k++) {
		any = rc == 1;
		for (i = 0; !any && i < count; i++)
			any = (p = peertab_at(n, (int)i)) != NULL &&
			    p->alive && peer_caps(n, p, peer) &&
			    has(peer, t, k) == 1;
		if (!any) {
			lacking(t, k, what, sizeof what);
			snprintf(why, whylen, "waiting: no live node has %s",
			    what);
			return;
		}
	}
	snprintf(why, whylen, "waiting: %s", count == 0 ? mine :
	    "no live node has all it needs");
}

void
node_peer_caps(const struct node *n, const struct peer *p, int *cores,
    int64_t *memory_mb, const char **tags, const char **execs)
{
	const struct capset_entry	*e = NULL;

	if (p->capset > 0 && (size_t)p->capset <= n->capset.n)
		e = &n->capset.v[p->capset - 1];
	*cores = e != NULL ? e->cores : 0;
	*memory_mb = e != NULL ? e->memory_mb : 0;
	*tags = e != NULL ? e->tags : "";
	*execs = e != NULL ? e->execs : "";
}

const char *
node_peer_containment(const struct node *n, const struct peer *p)
{
	if (p->capset > 0 && (size_t)p->capset <= n->capset.n)
		return n->capset.v[p->capset - 1].contain;
	return "";
}
