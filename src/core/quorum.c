/*
 * quorum.c -- certificates of confirmed ends (quorum.h).
 *
 * A vote is its voter's Ed25519 signature over the task, the round, the
 * end (state, runner, outputs, reason: what votes count) and the number
 * of members the voter counts.  A certificate is "name/members/sig"
 * votes joined by '+'.  It holds when the votes that verify, of distinct certified nodes, are a
 * majority of the most members any of them counts (QC_SIGNERS_MAX of
 * them in a pool larger than a datagram's worth), and that count is not
 * under half the members we count now -- unless two or more nodes
 * signed: one node alone cannot shrink the pool it claims to have
 * counted.  A voter signs the number it counts, so a proposer cannot
 * shrink it either.
 *
 * Checking a certificate costs a signature check per vote (60 us each);
 * a node checks one only when it matters (quorum.h), so a pool's
 * thousand trivial tasks cost their proposers the checks, not every
 * node.  An end confirmed by its own runner, heard from it first-hand
 * by a node that knew it ran the task, is taken on the runner's word
 * until another end contends with it: the runner could make up that
 * run's result anyway, and the node that told a thousand clients their
 * ends would otherwise check five thousand signatures (a fifth of the
 * pool's throughput, measured).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "statement.h"

static int
members(const struct node *n)
{
	return 1 + peertab_members(n);
}

/* Votes a certificate needs when its voters count m members. */
static int
needed(int m)
{
	int	q = m / 2 + 1;

	return q < QC_SIGNERS_MAX ? q : QC_SIGNERS_MAX;
}

/* What a vote is for: the task, the round, and the end as votes count
 * it (rules_end_value): state, runner, outputs, reason -- not its
 * times, which differ from node to node for an end each derives. */
static void
end_digest(const struct task *t, statement *st)
{
	statement_str(st, t->uuid);
	statement_num(st, t->round);
	statement_num(st, t->state);
	statement_str(st, t->running_on);
	statement_list(st, t->outputs, t->noutputs);
	statement_str(st, t->reason);
}

static void
vote_digest(const struct task *t, int m, uint8_t h[STATEMENT_BYTES])
{
	statement	st;

	statement_init(&st, "volery-vote1");
	end_digest(t, &st);
	statement_num(&st, m);
	statement_final(&st, h);
}

/* "members/sig" of our vote on t, counting m members. */
static void
sign_vote(struct node *n, const struct task *t, int m, char *out,
    size_t size)
{
	uint8_t	h[STATEMENT_BYTES];
	char	sig[STATEMENT_SIG_TEXT];

	vote_digest(t, m, h);
	statement_sign(h, n->cfg.sign_sk, sig);
	n->quorum.made++;
	snprintf(out, size, "%d/%s", m, sig);
}

/* Is text ("members/sig") voter's vote on t?  Its members to *m. */
static int
vote_holds(struct node *n, const struct task *t, const char *voter,
    const char *text, int *m)
{
	uint8_t		 h[STATEMENT_BYTES];
	const uint8_t	*pk;
	char		*end;
	long		 v;

	v = strtol(text, &end, 10);
	if (end == text || *end != '/' || v < 1 || v > QC_MEMBERS_MAX ||
	    (pk = origin_key(n, voter)) == NULL)
		return 0;
	*m = (int)v;
	vote_digest(t, *m, h);
	n->quorum.checked++;
	return statement_signed(end + 1, h, pk);
}

void
quorum_vote_on(struct node *n, struct task *t)
{
	char	text[QC_VOTE_TEXT_MAX + 1];

	if (n->cfg.sign_sk == NULL || !task_is_final(t->state) ||
	    t->confirmed)
		return;
	sign_vote(n, t, members(n), text, sizeof text);
	task_set_string(&t->vote, text);
}

void
quorum_vote_done(struct task *t)
{
	task_set_string(&t->vote, NULL);
}

int
quorum_keep(struct node *n, struct qvotes **qv, const struct task *t,
    const char *voter, const struct task *r, int64_t now)
{
	char		 what[UUID_STRLEN + NAME_MAXLEN + 64];
	struct qvote	*k;
	int		 m;

	/* A certificate's worth kept: the others count as their voters'
	 * word (the shell authenticated each datagram), unchecked. */
	if (n->cfg.sign_sk == NULL ||
	    (*qv != NULL && (*qv)->n == QC_SIGNERS_MAX - 1))
		return 1;
	if (r->vote == NULL || !vote_holds(n, t, voter, r->vote, &m)) {
		snprintf(what, sizeof what, "a vote on task %s round %d that "
		    "its voter did not sign", t->uuid, t->round);
		return plausible_refuse(n, voter, what, now);
	}
	/* A voter that counts more members than we do: its vote may
	 * make a certificate that no one checking it finds enough. */
	if (m > members(n))
		return 0;
	if (*qv == NULL && (*qv = calloc(1, sizeof **qv)) == NULL)
		return 0;
	k = &(*qv)->v[(*qv)->n++];
	snprintf(k->voter, sizeof k->voter, "%s", voter);
	snprintf(k->text, sizeof k->text, "%s", r->vote);
	return 1;
}

void
quorum_votes_free(struct qvotes **qv)
{
	free(*qv);
	*qv = NULL;
}

void
quorum_certify(struct node *n, struct task *t, const struct qvotes *qv)
{
	char	qc[QC_TEXT_MAX + 1], vote[QC_VOTE_TEXT_MAX + 1];
	size_t	off;
	int	i;

	if (n->cfg.sign_sk == NULL)
		return;
	sign_vote(n, t, members(n), vote, sizeof vote);
	off = (size_t)snprintf(qc, sizeof qc, "%s/%s", n->cfg.name, vote);
	for (i = 0; qv != NULL && i < qv->n && off < sizeof qc; i++)
		off += (size_t)snprintf(qc + off, sizeof qc - off, "+%s/%s",
		    qv->v[i].voter, qv->v[i].text);
	if (off < sizeof qc && task_set_string(&t->qc, qc) == 0)
		t->qc_ok = 1;
}

void
quorum_unconfirm(struct task *t)
{
	t->confirmed = 0;
	task_set_string(&t->qc, NULL);
	t->qc_ok = 0;
}

/* Does t's certificate hold?  *got: the votes that do; *need: enough. */
static int
holds(struct node *n, const struct task *t, int *got, int *need)
{
	char	 names[QC_SIGNERS_MAX][NAME_MAXLEN + 1];
	char	 copy[QC_TEXT_MAX + 1], *entry, *next, *sig;
	int	 i, m, most = 0;

	*got = 0;
	*need = needed(members(n));
	if (t->qc == NULL || strlen(t->qc) >= sizeof copy)
		return 0;
	memcpy(copy, t->qc, strlen(t->qc) + 1);
	for (entry = copy; entry != NULL && *got < QC_SIGNERS_MAX;
	    entry = next) {
		if ((next = strchr(entry, '+')) != NULL)
			*next++ = '\0';
		if ((sig = strchr(entry, '/')) == NULL)
			continue;
		*sig++ = '\0';
		for (i = 0; i < *got && strcmp(names[i], entry) != 0; i++)
			;
		if (i < *got || strlen(entry) > NAME_MAXLEN ||
		    !vote_holds(n, t, entry, sig, &m))
			continue;	/* twice, or not a vote: not counted */
		memcpy(names[(*got)++], entry, strlen(entry) + 1);
		if (m > most)
			most = m;
	}
	*need = needed(most);
	/* One signer alone claims no fewer than half the members we see. */
	if (*got < 2 && 2 * most < members(n))
		*need = needed(members(n));
	return *got >= *need;
}

/* t's certificate does not hold: an unconfirmed end here. */
static void
refuse(struct node *n, struct task *t, int got, int need)
{
	outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} name{%s}: its end "
	    "%s on %s came confirmed by %d good signatures of the %d needed; "
	    "not final here", t->uuid, t->exec, task_state_name(t->state),
	    t->running_on[0] != '\0' ? t->running_on : "-", got, need);
	n->quorum.refused++;
	quorum_unconfirm(t);
	t->qc_ok = -1;
}

/* Are a and b one end, as a vote is for one (end_digest's fields)? */
static int
same_end(const struct task *a, const struct task *b)
{
	return task_is_final(a->state) && a->state == b->state &&
	    a->round == b->round && strcmp(a->running_on, b->running_on) == 0 &&
	    strcmp(a->reason, b->reason) == 0 && task_same_outputs(a, b);
}

/* t's certificate holds (checked now), or t is unconfirmed here now. */
static int
check(struct node *n, struct task *t, int64_t now)
{
	int	got, need;

	if (holds(n, t, &got, &need)) {
		t->qc_ok = 1;
		return 1;
	}
	refuse(n, t, got, need);
	confirm_hold(n, t, now);
	replicate_changed(n, t);
	return 0;
}

/*
 * r, confirmed, comes from sender, its runner, who wrote its end and
 * counted the votes (its certificate's first), and we knew sender ran
 * it: its word for its own run's end, which it could make up anyway.
 */
static int
runners_word(const char *sender, const struct task *r, const struct task *t)
{
	size_t	len = strlen(sender);

	return t != NULL && t->qc_ok != -1 &&
	    strcmp(t->running_on, sender) == 0 &&
	    strcmp(r->running_on, sender) == 0 &&
	    strcmp(r->eby, sender) == 0 &&
	    strncmp(r->qc, sender, len) == 0 && r->qc[len] == '/';
}

void
quorum_admit(struct node *n, const char *sender, struct task *r,
    struct task *t, int64_t now)
{
	int	got, need;

	if (n->cfg.sign_sk == NULL)
		return;
	r->qc_ok = 0;
	if (!r->confirmed) {
		task_set_string(&r->qc, NULL);
		/* A different end contends with our unchecked one. */
		if (t != NULL && t->confirmed && t->qc_ok != 1 &&
		    task_is_final(r->state) && !same_end(r, t))
			check(n, t, now);
		return;
	}
	if (r->qc == NULL) {
		refuse(n, r, 0, needed(members(n)));
		return;
	}
	if (t != NULL && same_end(r, t)) {
		/* The end we hold: its certificate is checked when it
		 * matters -- unless one of it was false here before. */
		if (t->qc_ok == 1 && t->qc != NULL && strcmp(t->qc, r->qc) == 0)
			r->qc_ok = 1;
		else if (runners_word(sender, r, t))
			r->qc_ok = 2;
		if (t->qc_ok != -1)
			return;
	} else if (t == NULL || !task_is_final(t->state)) {
		if (runners_word(sender, r, t))
			r->qc_ok = 2;
		return;		/* it replaces no end: checked when it matters */
	} else if (t->confirmed && t->qc_ok != 1)
		check(n, t, now);
	if (holds(n, r, &got, &need))
		r->qc_ok = 1;
	else
		refuse(n, r, got, need);
}

int
quorum_settled(struct node *n, struct task *t, int64_t now)
{
	if (n->cfg.sign_sk == NULL || !t->confirmed || t->qc_ok >= 1)
		return t->confirmed;
	return check(n, t, now);
}

int
node_certify(struct node *n, const char *uuid, int64_t now)
{
	struct task	*t = taskmap_find(&n->map, uuid);

	if (t == NULL || !t->confirmed || quorum_settled(n, t, now))
		return 1;
	node_settle(n, now);	/* it is counted again: housekeeping */
	return 0;
}

int
quorum_binds(struct node *n, struct task *t, int64_t now)
{
	if (n->cfg.sign_sk == NULL || t->qc_ok >= 1 ||
	    !taskmap_has_dependents(&n->map, t->uuid))
		return t->confirmed;
	return quorum_settled(n, t, now);
}

void
quorum_counts(const struct node *n, uint64_t *made, uint64_t *checked)
{
	*made += n->quorum.made;
	*checked += n->quorum.checked;
}
