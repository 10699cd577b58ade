/*
 * authorship.c -- who may write a task's run, and their signature over
 * it (authorship.h).
 *
 * A record in a signed state (Running or final) says its author (eby=)
 * and carries that node's signature (esg=) over the run's statement:
 * state, runner, times, outputs, reason, accounting -- what an end
 * copied into a later round carries (task_copy_end).  The round and the
 * confirmed flag are the vote's (confirm.c), progress the runner's
 * heartbeat, the attempt count each node's own tally: none is signed.
 * We sign what we change, on its way out (authorship_sign), and only
 * what we may write; a record from its author needs no check (the shell
 * authenticated the datagram), one relayed is verified once, unless it
 * is the statement we hold already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "statement.h"

static int
signed_state(enum task_state s)
{
	return s == TASK_RUNNING || task_is_final(s);
}

static void
digest(const struct task *t, uint8_t h[STATEMENT_BYTES])
{
	statement	st;

	statement_init(&st, "volery-run1");
	statement_str(&st, t->uuid);
	statement_num(&st, t->state);
	statement_str(&st, t->running_on);
	statement_num(&st, t->start_ms);
	statement_num(&st, t->end_ms);
	statement_list(&st, t->outputs, t->noutputs);
	statement_str(&st, t->reason);
	statement_num(&st, t->exit_status);
	statement_num(&st, t->cpu_ms);
	statement_num(&st, t->maxrss_kib);
	if (t->digest != NULL)		/* a replica's (verify.c) */
		statement_str(&st, t->digest);
	if (t->ckpt != NULL) {		/* its newest checkpoint (ckpt.c) */
		statement_str(&st, "ckpt");
		statement_str(&st, t->ckpt);
	}
	statement_final(&st, h);
}

/* r's end in state follows from an upstream's end without a result
 * that we hold as confirmed: any node derives it
 * (cascade_end_dependents). */
static int
derived(const struct node *n, const struct task *r, enum task_state state)
{
	const char	*from;
	struct task	*up;
	int		 i;

	if (strncmp(r->reason, "upstream-", 9) != 0 ||
	    (from = strchr(r->reason, ':')) == NULL)
		return 0;
	from++;
	for (i = 0; i < r->ninputs; i++)
		if (strcmp(r->inputs[i].from, from) == 0)
			break;
	if (i == r->ninputs || (up = taskmap_find(&n->map, from)) == NULL)
		return 0;
	return up->confirmed && (up->state == TASK_CANCELLED ||
	    up->state == TASK_FAILED) && up->state == state;
}

/*
 * May author write r's run as in state?  A start and a result are the
 * runner's; a failure or a cancel its runner's (its own run gave up),
 * its taker's (the node its owner asked), or anyone's where it follows
 * from an upstream's end.
 */
static int
may_write_as(struct node *n, const struct task *r,
    enum task_state state, const char *author)
{
	/* A verified task's end is its replicas' (verify.c), not any
	 * node's word. */
	if (task_is_verified(r))
		return task_is_final(state) && (derived(n, r, state) ||
		    (state == r->state && verify_agrees(n, r,
		    n->cmdcheck.now)));
	if (r->running_on[0] != '\0' && strcmp(author, r->running_on) == 0)
		return 1;
	if (tail_derived(n, r, state))	/* a copy's end (tail.c) */
		return 1;
	if (state == TASK_RUNNING || state == TASK_TERMINATED)
		return 0;
	return strcmp(author, r->scheduled_by) == 0 || derived(n, r, state);
}

static int
may_write(struct node *n, const struct task *r, const char *author)
{
	return may_write_as(n, r, r->state, author);
}

void
node_sign_run(struct node *n, struct task *t)
{
	authorship_sign(n, t);
}

int
authorship_may_cancel(struct node *n, const struct task *t)
{
	/* The rule every other node applies to the cancel it will get. */
	return n->cfg.sign_sk == NULL ||
	    may_write_as(n, t, TASK_CANCELLED, n->cfg.name);
}

static void
unsign(struct task *t)
{
	if (t->esg != NULL || t->eby[0] != '\0') {
		task_set_string(&t->esg, NULL);
		t->eby[0] = '\0';
		t->esg_ok = 0;
	}
}

void
authorship_sign(struct node *n, struct task *t)
{
	uint8_t	h[STATEMENT_BYTES];
	char	text[STATEMENT_SIG_TEXT];

	if (n->cfg.sign_sk == NULL)
		return;
	/* Nothing to sign: what it says went with its last run. */
	if (!signed_state(t->state)) {
		unsign(t);
		return;
	}
	digest(t, h);
	if (t->esg != NULL && memcmp(h, t->esg_for, sizeof h) == 0)
		return;		/* what it says is signed already */
	/* Changed here but not ours to write (a run learned from its
	 * runner's heartbeat): sent unsigned, not under a signature
	 * that no longer covers it. */
	if (!may_write(n, t, n->cfg.name)) {
		unsign(t);
		return;
	}
	statement_sign(h, n->cfg.sign_sk, text);
	n->authorship.made++;
	if (task_set_string(&t->esg, text) == -1)
		return;
	snprintf(t->eby, sizeof t->eby, "%s", n->cfg.name);
	memcpy(t->esg_for, h, sizeof h);
	t->esg_ok = 1;
}

void
authorship_restored(struct node *n, struct task *t)
{
	/* Our own journal: what it says was checked before it was kept. */
	if (n->cfg.sign_sk != NULL && t->esg != NULL) {
		digest(t, t->esg_for);
		t->esg_ok = 1;
	}
}

/* m's record is by author, whose key we lack: kept, and its
 * certificate asked of the relay (once a second per author awaited). */
static void
await_key(struct node *n, const struct peer_msg *m, const char *author,
    int64_t now)
{
	struct authorship	*a = &n->authorship;
	struct awaiting		*w;
	struct peer_msg		 q;
	size_t			 i;
	int			 asked = 0;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].author, author) == 0 &&
		    now - a->v[i].asked < AUTHORSHIP_ASK_MS)
			asked = 1;
	if (a->n == AUTHORSHIP_AWAIT_MAX) {
		a->dropped++;	/* the oldest goes: anti-entropy has it */
		free(a->v[0].record);
		memmove(a->v, a->v + 1, --a->n * sizeof *a->v);
	}
	if (a->v == NULL && (a->v = calloc(AUTHORSHIP_AWAIT_MAX,
	    sizeof *a->v)) == NULL)
		return;
	w = &a->v[a->n];
	if ((w->record = malloc(m->record_len + 1)) == NULL)
		return;
	memcpy(w->record, m->record, m->record_len);
	w->record[m->record_len] = '\0';
	w->len = m->record_len;
	w->type = m->type;
	w->incarnation = m->incarnation;
	snprintf(w->author, sizeof w->author, "%s", author);
	snprintf(w->sender, sizeof w->sender, "%s", m->sender);
	w->asked = asked ? INT64_MIN / 2 : now;
	a->n++;
	if (asked)
		return;
	peer_msg_init(&q, PEER_CERT_WANTED);
	q.record = author;
	q.record_len = strlen(author);
	outbox_peer(&n->out, m->sender, &q);
}

void
authorship_learned(struct node *n, const char *name, int64_t now)
{
	struct authorship	*a = &n->authorship;
	struct awaiting		 w;
	struct peer_msg		*m;
	size_t			 i = 0;

	if (a->n == 0 || (m = malloc(sizeof *m)) == NULL)
		return;
	while (i < a->n) {
		if (strcmp(a->v[i].author, name) != 0) {
			i++;
			continue;
		}
		w = a->v[i];
		memmove(a->v + i, a->v + i + 1, (--a->n - i) * sizeof *a->v);
		peer_msg_init(m, w.type);
		snprintf(m->sender, sizeof m->sender, "%s", w.sender);
		m->incarnation = w.incarnation;
		m->record = w.record;
		m->record_len = w.len;
		if (w.type == PEER_VOTE)
			confirm_recv_vote(n, m, now);
		else if (w.type == PEER_ENQUEUE)
			replicate_recv_enqueue(n, m, now);
		else
			replicate_recv_state(n, m, now);
		free(w.record);
		i = 0;		/* the replay may have kept more */
	}
	free(m);
	node_settle(n, now);
}

void
authorship_counts(const struct node *n, uint64_t *made, uint64_t *checked)
{
	*made += n->authorship.made;
	*checked += n->authorship.checked;
}

void
authorship_free(struct node *n)
{
	size_t	i;

	for (i = 0; i < n->authorship.n; i++)
		free(n->authorship.v[i].record);
	free(n->authorship.v);
	memset(&n->authorship, 0, sizeof n->authorship);
}

int
authorship_admit(struct node *n, const struct peer_msg *m, struct task *r,
    const struct task *held, int64_t now)
{
	uint8_t		 h[STATEMENT_BYTES];
	const uint8_t	*pk;
	const char	*author, *sender = m->sender;
	char		 what[UUID_STRLEN + 2 * NAME_MAXLEN + 96];

	if (n->cfg.sign_sk == NULL || !signed_state(r->state))
		return 1;
	/* A start relayed unsigned: a node that learned it from the
	 * runner's heartbeat.  Believed as a hint only -- no end rests on
	 * it, and the runner's silence sends it back to Ready. */
	if (r->esg == NULL && r->eby[0] == '\0' &&
	    r->state == TASK_RUNNING)
		return 1;
	author = r->eby[0] != '\0' ? r->eby : sender;
	if (!may_write(n, r, author)) {
		snprintf(what, sizeof what, "task %s %s as written by %s, "
		    "whose it is not to write", r->uuid,
		    task_state_name(r->state), author);
		return plausible_refuse(n, sender, what, now);
	}
	/* An end unsigned, even from its author, could not be passed on:
	 * the nodes that held it would vote for what no other believes. */
	if (r->esg == NULL && task_is_final(r->state)) {
		snprintf(what, sizeof what, "task %s %s unsigned", r->uuid,
		    task_state_name(r->state));
		return plausible_refuse(n, sender, what, now);
	}
	if (r->esg == NULL && strcmp(author, sender) == 0)
		return 1;	/* its author's own word, not to be relayed */
	digest(r, h);
	if (held != NULL && held->esg_ok && held->esg != NULL &&
	    strcmp(held->esg, r->esg != NULL ? r->esg : "") == 0 &&
	    memcmp(held->esg_for, h, sizeof h) == 0)
		goto good;	/* the statement we hold, checked already */
	/* From its author, the datagram's authenticator said who wrote it
	 * (its signature is checked wherever it is relayed). */
	if (strcmp(author, sender) != 0) {
		if ((pk = origin_key(n, author)) == NULL) {
			await_key(n, m, author, now);
			return 0;
		}
		n->authorship.checked++;
		if (!statement_signed(r->esg, h, pk)) {
			snprintf(what, sizeof what, "task %s %s as written by "
			    "%s, who did not sign it", r->uuid,
			    task_state_name(r->state), author);
			return plausible_refuse(n, sender, what, now);
		}
	}
good:
	memcpy(r->esg_for, h, sizeof h);
	r->esg_ok = 1;
	return 1;
}
