/*
 * plausible.c -- values no honest peer could send (plausible.h).  Each
 * bound is a root check: one datagram with a time of 2^63 ms or an
 * epoch of 2^48 never reaches a sum, an order or a race.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"
#include "plausible.h"
#include "ratelimit.h"
#include "taskdesc.h"
#include "wire.h"

/* Count and (once in a while) say a refusal: what is "a submit time
 * 9223372036854775807" or the like. */
int
plausible_refuse(struct node *n, const char *sender, const char *what,
    int64_t now)
{
	struct plausible	*pl = &n->plausible;

	pl->refused++;
	snprintf(pl->last_from, sizeof pl->last_from, "%s", sender);
	if (ratelimit_due(&pl->logged, now))
		outbox_log(&n->out, VLOG_WARNING, "node %s sent %s, which no "
		    "node could: dropped (%llu implausible so far)", sender,
		    what, (unsigned long long)pl->refused);
	return 0;
}

static int
refuse(struct node *n, const char *sender, const char *what, int64_t v,
    int64_t now)
{
	char	text[96];

	snprintf(text, sizeof text, "%s %" PRId64, what, v);
	return plausible_refuse(n, sender, text, now);
}

/* A stamp of the sender's clock, of something at most age_ms old. */
static int
stamp_ok(const struct node *n, int64_t ts, int64_t age_ms, int64_t now)
{
	int64_t	skew = n->cfg.max_clock_skew_ms;

	return skew <= 0 || (ts <= now + skew && ts >= now - skew - age_ms);
}

int
plausible_msg(struct node *n, const struct peer_msg *m, int64_t now)
{
	int	claims_master = m->type == PEER_NEW_MASTER ||
		    (m->type == PEER_HEARTBEAT && m->master);

	switch (m->type) {
	case PEER_HEARTBEAT:
		if (!stamp_ok(n, m->timestamp, 0, now))
			return refuse(n, m->sender, "a heartbeat stamped",
			    m->timestamp, now);
		break;
	case PEER_TRY_DEQUEUE:
	case PEER_TRY_TO_BE_MASTER:
		if (!stamp_ok(n, m->timestamp, STAMP_AGE_MAX_MS, now))
			return refuse(n, m->sender, m->type == PEER_TRY_DEQUEUE ?
			    "a claim stamped" : "a candidacy stamped",
			    m->timestamp, now);
		break;
	case PEER_PROGRESS:
		if (!stamp_ok(n, m->timestamp, INT64_MAX / 4, now))
			return refuse(n, m->sender, "a run started at",
			    m->timestamp, now);
		break;
	default:
		break;
	}
	if (claims_master && m->epoch > election_highest_epoch(n) + EPOCH_STEP_MAX)
		return refuse(n, m->sender, "master epoch", (int64_t)m->epoch,
		    now);
	return 1;
}

/* A verified task is never taken (it waits, then ends as its replicas
 * say); a replica's uuid is the one its index gives; a digest is a
 * replica's, 64 hex digits. */
static int
plausible_replica(const struct task *r)
{
	char	uuid[UUID_STRLEN + 1];
	size_t	i;

	if (r->digest != NULL) {
		if (!task_is_replica(r) || r->verify == 0 ||
		    strlen(r->digest) != DIGEST_HEX)
			return 0;
		for (i = 0; i < DIGEST_HEX; i++)
			if (strchr("0123456789abcdef", r->digest[i]) == NULL)
				return 0;
	}
	if (task_is_verified(r))
		return r->state != TASK_READY && r->state != TASK_RUNNING;
	if (!task_is_replica(r))
		return r->verify == 0 && r->replica_index == 0;
	if (r->array[0] != '\0' || (r->verify == 0 ?
	    r->replica_index < TAIL_INDEX_BASE ||
	    r->replica_index >= TAIL_INDEX_BASE + TAIL_MAX :
	    r->replica_index >= r->verify))
		return 0;		/* a tail's replica, or --verify's */
	if (r->verify == 0)
		tail_uuid(r->replica_of, r->replica_index, uuid);
	else
		task_replica_uuid(r->replica_of, r->replica_index, uuid);
	return strcmp(uuid, r->uuid) == 0;
}

int
plausible_record(struct node *n, const char *sender, const struct task *r,
    int64_t now)
{
	static const char	*names[] = { "a submit time", "a ready time",
				    "a start time", "an end time" };
	const struct taskdesc	*d;
	char			 what[UUID_STRLEN + 96];
	int64_t			 v[4];
	size_t			 i;
	int			 want;

	/* A task is not its own upstream (no node takes one that is). */
	for (i = 0; i < (size_t)r->ninputs; i++)
		if (strcmp(r->inputs[i].from, r->uuid) == 0) {
			snprintf(what, sizeof what, "task %s taking an input "
			    "from itself", r->uuid);
			return plausible_refuse(n, sender, what, now);
		}
	if (!plausible_replica(r)) {
		snprintf(what, sizeof what, "task %s as a --verify task or "
		    "replica that none could be", r->uuid);
		return plausible_refuse(n, sender, what, now);
	}
	/* A result has the outputs its task declares (run.c ends a run
	 * that reports others as failed): a dependent waits on each. */
	if (r->state == TASK_TERMINATED) {
		want = r->cmd != NULL ? r->cmd->nouts :
		    (d = taskdesc_find(n->descs, r->exec)) != NULL ?
		    d->noutputs : r->noutputs;
		if (r->noutputs != want) {
			snprintf(what, sizeof what, "a result of task %s with "
			    "%d outputs of the %d it declares", r->uuid,
			    r->noutputs, want);
			return plausible_refuse(n, sender, what, now);
		}
	}
	v[0] = r->submit_ms;
	v[1] = r->ready_ms;
	v[2] = r->start_ms;
	v[3] = r->end_ms;
	for (i = 0; i < 4; i++)
		if (!stamp_ok(n, v[i], INT64_MAX / 4, now))
			return refuse(n, sender, names[i], v[i], now);
	/* A retry waits RETRY_DELAY_MAX_MS at most from a failure now (a
	 * day's skew where clocks are not checked): never for ever. */
	if (r->retry_ms > now + RETRY_DELAY_MAX_MS +
	    (n->cfg.max_clock_skew_ms > 0 ? n->cfg.max_clock_skew_ms :
	    86400000))
		return refuse(n, sender, "a retry time", r->retry_ms, now);
	return 1;
}

int
plausible_same_origin(struct node *n, const char *sender,
    const struct task *t, const struct task *r, int64_t now)
{
	char	what[UUID_STRLEN + NAME_MAXLEN + 96];

	if (task_same_origin(t, r))
		return 1;
	snprintf(what, sizeof what, "a record of task %s that changes what "
	    "node %s set when it took it", t->uuid, t->scheduled_by);
	return plausible_refuse(n, sender, what, now);
}

void
plausible_forged_origin(struct node *n, const char *sender,
    const struct task *r, int64_t now)
{
	char	what[UUID_STRLEN + NAME_MAXLEN + 96];

	snprintf(what, sizeof what, "task %s as taken by %s, who did not "
	    "sign it", r->uuid, r->scheduled_by);
	plausible_refuse(n, sender, what, now);
}

uint64_t
plausible_refused(const struct node *n, const char **last_from)
{
	*last_from = n->plausible.last_from;
	return n->plausible.refused;
}

void
plausible_void_claims(struct node *n, const char *node, const char *uuid,
    int64_t now)
{
	struct plausible	*pl = &n->plausible;

	pl->void_claims++;
	snprintf(pl->void_from, sizeof pl->void_from, "%s", node);
	if (ratelimit_due(&pl->void_logged, now))
		outbox_log(&n->out, VLOG_WARNING, "node %s kept claiming task "
		    "%s and never started it: its claims count no more (%llu "
		    "such so far)", node, uuid,
		    (unsigned long long)pl->void_claims);
}

uint64_t
plausible_void_claims_count(const struct node *n, const char **last_from)
{
	*last_from = n->plausible.void_from;
	return n->plausible.void_claims;
}
