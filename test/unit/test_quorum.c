/*
 * test_quorum.c -- a confirmed end carries the signed votes of a
 * majority (quorum.c).  Three signing nodes run a task among themselves
 * through the real codec: its end is confirmed with a certificate that a
 * fourth node checks when a client is to be told it (a node that heard
 * it from the runner itself, whose run it knew, takes it on the
 * runner's word).  A certified liar's
 * end sent as confirmed with votes it made up, or with none, is an
 * unconfirmed end wherever it lands; a vote its voter did not sign counts
 * for nothing.
 *
 * A task run with --verify (verify.c) is run by replicas on distinct
 * nodes; every node derives its end from theirs once each is
 * certified: kept if all agree, failed naming two that differ, and a
 * liar's end for it is no one's to write.
 */
#include "testutil.h"
#include "verify.h"

#include <sodium.h>

#define NNODES	4

static const char	*names[NNODES] = { "alpha", "beta", "gamma", "delta" };
static uint8_t		 pk[NNODES][32], sk[NNODES][64];

/* Rewrites what a node sends on its way (NULL: nothing). */
static void	(*tamper)(char *text);

struct pool {
	struct taskdesc_set	 set;
	struct node		*n[NNODES];
	int			 up;	/* nodes 0..up-1 take part */
	int64_t			 now;
};

static int
index_of(const char *name)
{
	int	i;

	for (i = 0; i < NNODES; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/* What the nodes sent reaches the others, until nothing is sent. */
static void
pump(struct pool *p, int rounds)
{
	struct msg { int from, to; char *text; } *q;
	size_t	 nq, i, k;
	int	 j;

	while (rounds-- > 0) {
		q = NULL;
		nq = 0;
		for (j = 0; j < p->up; j++) {
			const struct outbox *o = node_outbox(p->n[j]);
			for (k = 0; k < o->n; k++) {
				const struct action *a = &o->v[k];
				if (a->type != ACT_BROADCAST &&
				    a->type != ACT_UNICAST)
					continue;
				q = realloc(q, (nq + 1) * sizeof *q);
				assert_non_null(q);
				q[nq].from = j;
				q[nq].to = a->type == ACT_UNICAST ?
				    index_of(a->peer) : -1;
				assert_non_null(q[nq].text = strdup(a->text));
				if (tamper != NULL)
					tamper(q[nq].text);
				nq++;
			}
			clear(p->n[j]);
		}
		p->now += 10;
		for (i = 0; i < nq; i++) {
			for (j = 0; j < p->up; j++)
				if (j != q[i].from && (q[i].to < 0 ||
				    q[i].to == j))
					hear(p->n[j], names[q[i].from],
					    q[i].text, p->now);
			free(q[i].text);
		}
		free(q);
		for (j = 0; j < p->up; j++)
			node_tick(p->n[j], p->now);
	}
}

/* The first up nodes up and knowing each other; the others made. */
static void
pool_of(struct pool *p, int up)
{
	struct node_config	cfg;
	int			i, j;

	memset(p, 0, sizeof *p);
	plmi2_descs(&p->set);
	for (i = 0; i < NNODES; i++) {
		node_config_default(&cfg);
		snprintf(cfg.name, sizeof cfg.name, "%s", names[i]);
		cfg.reputation = 0;
		cfg.sign_sk = sk[i];
		assert_non_null(p->n[i] = node_new(&cfg, &p->set));
		for (j = 0; j < NNODES; j++)
			node_peer_key(p->n[i], names[j], pk[j], 0);
	}
	p->up = up;
	p->now = 100;
	for (i = 0; i < p->up; i++)
		node_start(p->n[i], p->now);
	for (i = 0; i < p->up; i++)
		for (j = 0; j < p->up; j++)
			if (i != j)
				hear_alive(p->n[i], names[j], p->now);
	pump(p, 20);
}

/* alpha, beta, gamma up; delta made, not up. */
static void
pool_open(struct pool *p)
{
	pool_of(p, 3);
}

static void
pool_close(struct pool *p)
{
	int	i;

	for (i = 0; i < NNODES; i++)
		node_free(p->n[i]);
	taskdesc_clear(&p->set);
}

/* Task 1 (free) taken by alpha and run by whoever takes it, to its
 * end; the runner's index. */
static int
run_to_the_end(struct pool *p)
{
	int	i, runner = -1;

	assert_int_equal(sched(p->n[0], 1, "free", PRIO_LOW, p->now, 0,
	    NULL, NULL), 0);
	for (i = 0; i < p->up; i++)
		node_set_volunteer(p->n[i], 1, "idle", p->now);
	pump(p, 20);
	for (i = 0; i < p->up; i++)
		if (strcmp(node_find(p->n[i], uuid_n(1))->running_on,
		    names[i]) == 0)
			runner = i;
	assert_true(runner >= 0);
	terminate(p->n[runner], uuid_n(1), 1, p->now);
	exit_with(p->n[runner], uuid_n(1), 0, p->now);
	pump(p, 20);
	return runner;
}

/* Node i's record of task 1 as "STATE <record>", changed by fn. */
static const char *
restate(struct pool *p, int i, void (*fn)(struct pool *, struct task *))
{
	static char	 rec[RECORD_LINE_MAX + 8];
	char		 line[RECORD_LINE_MAX], err[128];
	struct task	*t;

	assert_true(wire_task_encode(node_find(p->n[i], uuid_n(1)), line,
	    sizeof line) > 0);
	assert_non_null(t = wire_task_decode(line, strlen(line), err,
	    sizeof err));
	if (fn != NULL)
		fn(p, t);
	snprintf(rec, sizeof rec, "STATE ");
	assert_true(wire_task_encode(t, rec + 6, sizeof rec - 6) > 0);
	task_free(t);
	return rec;
}

/* gamma, certified but lying: a run of its own, confirmed by votes it
 * made up (its own is real). */
static void
liars_run(struct pool *p, struct task *t)
{
	static char	 evil[] = "EVIL-1", *outs[1] = { evil };
	char		 qc[1024], fake[87];

	memset(fake, 'A', 86);
	fake[86] = '\0';
	t->state = TASK_TERMINATED;
	snprintf(t->running_on, sizeof t->running_on, "gamma");
	assert_int_equal(task_set_outputs(t, outs, 1), 0);
	task_set_string(&t->esg, NULL);
	node_sign_run(p->n[2], t);
	t->confirmed = 1;
	t->ver += 100;
	snprintf(qc, sizeof qc, "alpha/3/%s+beta/3/%s+gamma/1/%s", fake, fake,
	    fake);
	task_set_string(&t->qc, qc);
}

static void
no_certificate(struct pool *p, struct task *t)
{
	(void)p;
	task_set_string(&t->qc, NULL);
}

/* delta up, a member with the others, told nothing of task 1 yet. */
static void
delta_joins(struct pool *p)
{
	int	i;

	node_start(p->n[3], p->now);
	for (i = 0; i < 3; i++)
		hear_alive(p->n[3], names[i], p->now);
	clear(p->n[3]);
}

static void
test_an_end_is_confirmed_with_a_majoritys_signed_votes(void **state)
{
	struct pool		 p;
	const struct task	*t;
	const char		*qc;
	int			 runner, i, signers = 1;

	(void)state;
	pool_open(&p);
	runner = run_to_the_end(&p);
	for (i = 0; i < p.up; i++) {
		t = node_find(p.n[i], uuid_n(1));
		assert_int_equal(t->state, TASK_TERMINATED);
		assert_true(t->confirmed);
		assert_non_null(t->qc);
	}
	/* The proposer's certificate: its vote and one or two more, each
	 * "name/members/signature". */
	qc = node_find(p.n[0], uuid_n(1))->qc;
	for (i = 0; qc[i] != '\0'; i++)
		signers += qc[i] == '+';
	assert_true(signers >= 2);
	assert_non_null(strstr(qc, names[runner]));
	assert_non_null(strstr(qc, "/3/"));
	/* delta hears the confirmed end relayed: it holds it unchecked,
	 * and checks it before a client is told. */
	delta_joins(&p);
	hear(p.n[3], "beta", restate(&p, 1, NULL), p.now);
	t = node_find(p.n[3], uuid_n(1));
	assert_true(t->confirmed);
	assert_int_equal(t->qc_ok, 0);
	assert_int_equal(node_certify(p.n[3], uuid_n(1), p.now), 1);
	assert_int_equal(t->qc_ok, 1);
	assert_true(t->confirmed);
	pool_close(&p);
}

/* A node that knew the runner ran the task takes the runner's own
 * confirmation of its end on its word; a relay's is checked. */
static void
test_a_runners_own_confirmation_is_taken_on_its_word(void **state)
{
	struct pool		 p;
	const struct task	*t;
	int			 runner, i, words = 0;

	(void)state;
	pool_of(&p, 4);
	runner = run_to_the_end(&p);
	for (i = 0; i < p.up; i++) {
		t = node_find(p.n[i], uuid_n(1));
		assert_true(t->confirmed);
		if (i == runner)
			assert_int_equal(t->qc_ok, 1);	/* it counted */
		else
			words += t->qc_ok == 2;
		assert_int_equal(node_certify(p.n[i], uuid_n(1), p.now), 1);
	}
	assert_int_equal(words, 3);
	pool_close(&p);
}

static void
test_an_end_confirmed_by_made_up_votes_is_not_final(void **state)
{
	struct pool		 p;
	const struct task	*t;

	(void)state;
	pool_open(&p);
	run_to_the_end(&p);
	delta_joins(&p);
	/* gamma's run, confirmed by made-up votes: held, not final. */
	hear(p.n[3], "gamma", restate(&p, 2, liars_run), p.now);
	t = node_find(p.n[3], uuid_n(1));
	assert_string_equal(t->outputs[0], "EVIL-1");
	assert_int_equal(node_certify(p.n[3], uuid_n(1), p.now), 0);
	assert_false(t->confirmed);
	assert_null(t->qc);
	assert_non_null(logged(p.n[3], "came confirmed by 0 good signatures "
	    "of the 3 needed; not final here"));
	assert_non_null(strstr(told(p.n[3], uuid_n(1)), " Unconfirmed "));
	/* The real end, confirmed by a majority, replaces it. */
	hear(p.n[3], "beta", restate(&p, 1, NULL), p.now);
	t = node_find(p.n[3], uuid_n(1));
	assert_true(t->confirmed);
	assert_int_equal(t->qc_ok, 1);
	assert_string_not_equal(t->outputs[0], "EVIL-1");
	/* Nor does a node holding the real end take gamma's. */
	hear(p.n[0], "gamma", restate(&p, 2, liars_run), p.now);
	t = node_find(p.n[0], uuid_n(1));
	assert_true(t->confirmed);
	assert_string_not_equal(t->outputs[0], "EVIL-1");
	assert_non_null(logged(p.n[0], "not final here"));
	pool_close(&p);
}

static void
test_a_confirmed_end_without_a_certificate_is_unconfirmed(void **state)
{
	struct pool	p;

	(void)state;
	pool_open(&p);
	run_to_the_end(&p);
	delta_joins(&p);
	hear(p.n[3], "beta", restate(&p, 1, no_certificate), p.now);
	assert_false(node_find(p.n[3], uuid_n(1))->confirmed);
	assert_non_null(logged(p.n[3], "came confirmed by 0 good signatures"));
	pool_close(&p);
}

/* Every vote's signature, one letter changed. */
static void
false_votes(char *text)
{
	char	*v = strstr(text, " vt=");

	if (strncmp(text, "VOTE ", 5) == 0 && v != NULL &&
	    (v = strchr(v, '/')) != NULL)
		v[1] = v[1] == 'A' ? 'B' : 'A';
}

static void
test_a_vote_its_voter_did_not_sign_counts_for_nothing(void **state)
{
	struct pool	p;
	int		runner, i;

	(void)state;
	pool_open(&p);
	tamper = false_votes;
	runner = run_to_the_end(&p);
	tamper = NULL;
	for (i = 0; i < p.up; i++)
		assert_false(node_find(p.n[i], uuid_n(1))->confirmed);
	assert_true(status_of(p.n[runner]).implausible > 0);
	pool_close(&p);
}

/* --verify: the task of uuid V, its replicas run on three nodes. */
#define V	"00000000-0000-4000-8000-0000000000a0"

static void
schedule_verified(struct pool *p, int n)
{
	struct node_schedule_req	req;
	char				err[256];
	int				i;

	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.client = "127.0.0.1:1";
	req.verify = n;
	assert_int_equal(node_schedule(p->n[0], &req, V, p->now, err,
	    sizeof err), 0);
	for (i = 0; i < p->up; i++)
		node_set_volunteer(p->n[i], 1, "idle", p->now);
	pump(p, 20);
}

/* Replica i's runner: its index, each node having taken one. */
static int
runner_of(struct pool *p, int i)
{
	char	uuid[UUID_STRLEN + 1];
	int	j;

	task_replica_uuid(V, i, uuid);
	for (j = 0; j < p->up; j++)
		if (strcmp(node_find(p->n[0], uuid)->running_on,
		    names[j]) == 0)
			return j;
	fail_msg("replica %d not running", i);
	return -1;
}

/* Replica i ends on its runner with output `out` and digest `dg`. */
static void
replica_ends(struct pool *p, int i, const char *out, const char *dg)
{
	struct runner_msg	m;
	char			uuid[UUID_STRLEN + 1];
	int			r = runner_of(p, i);

	task_replica_uuid(V, i, uuid);
	memset(&m, 0, sizeof m);
	m.type = RMSG_TERMINATED;
	m.noutputs = 1;
	snprintf(m.buf, sizeof m.buf, "%s", out);
	m.outputs[0] = m.buf;
	snprintf(m.digest, sizeof m.digest, "%s", dg);
	node_runner_msg(p->n[r], uuid, &m, p->now);
	exit_with(p->n[r], uuid, 0, p->now);
	pump(p, 20);
}

static const char dg_a[] =
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char dg_b[] =
    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static void
test_replicas_on_distinct_nodes_that_agree_end_the_task(void **state)
{
	struct pool		 p;
	const struct task	*t;
	int			 i, seen = 0;

	(void)state;
	pool_open(&p);
	schedule_verified(&p, 3);
	for (i = 0; i < 3; i++)
		seen |= 1 << runner_of(&p, i);
	assert_int_equal(seen, 7);	/* alpha, beta, gamma: one each */
	assert_int_equal(state_of(p.n[1], V), TASK_SUBMITTED);
	for (i = 0; i < 3; i++) {
		replica_ends(&p, i, "42", dg_a);
		/* Not before the last replica's end. */
		assert_int_equal(state_of(p.n[2], V), i < 2 ?
		    TASK_SUBMITTED : TASK_TERMINATED);
	}
	for (i = 0; i < p.up; i++) {
		t = node_find(p.n[i], V);
		assert_int_equal(t->state, TASK_TERMINATED);
		assert_true(t->confirmed);
		assert_non_null(t->qc);
		assert_int_equal(t->noutputs, 1);
		assert_string_equal(t->outputs[0], "42");
		assert_non_null(strstr(t->reason, "verified-by:"));
	}
	pool_close(&p);
}

static void
test_replicas_that_disagree_fail_the_task_naming_both(void **state)
{
	struct pool		 p;
	const struct task	*t;
	const char		*odd;
	uint64_t		 n;
	int			 i;

	(void)state;
	pool_open(&p);
	schedule_verified(&p, 3);
	replica_ends(&p, 0, "42", dg_a);
	replica_ends(&p, 1, "42", dg_b);	/* the same output, not stdout */
	replica_ends(&p, 2, "42", dg_a);
	for (i = 0; i < p.up; i++) {
		t = node_find(p.n[i], V);
		assert_int_equal(t->state, TASK_FAILED);
		assert_true(t->confirmed);
		assert_int_equal(t->noutputs, 0);
		assert_non_null(strstr(t->reason, "replicas-disagree: "));
		assert_non_null(strstr(t->reason, "aaaaaaaaaaaa/42"));
		assert_non_null(strstr(t->reason, "bbbbbbbbbbbb/42"));
		/* The odd one out is the one counted. */
		n = verify_disputes(p.n[i], &odd);
		assert_true(n == 1 || i != 0);
		if (n == 1)
			assert_string_equal(odd, names[runner_of(&p, 1)]);
	}
	pool_close(&p);
}

/* gamma, certified but lying, ends the task itself as it likes. */
static void
liars_verdict(struct pool *p, struct task *t)
{
	static char	 evil[] = "EVIL-1", *outs[1] = { evil };

	t->state = TASK_TERMINATED;
	t->running_on[0] = '\0';
	assert_int_equal(task_set_outputs(t, outs, 1), 0);
	snprintf(t->reason, sizeof t->reason, "verified-by:gamma,beta");
	snprintf(t->eby, sizeof t->eby, "gamma");
	task_set_string(&t->esg, NULL);
	t->ver += 100;
}

static void
test_a_liars_end_of_a_verified_task_is_refused(void **state)
{
	char		 line[RECORD_LINE_MAX], rec[RECORD_LINE_MAX + 8], err[128];
	struct pool	 p;
	struct task	*t;

	(void)state;
	pool_open(&p);
	schedule_verified(&p, 2);
	assert_true(wire_task_encode(node_find(p.n[2], V), line,
	    sizeof line) > 0);
	assert_non_null(t = wire_task_decode(line, strlen(line), err,
	    sizeof err));
	liars_verdict(&p, t);
	snprintf(rec, sizeof rec, "STATE ");
	assert_true(wire_task_encode(t, rec + 6, sizeof rec - 6) > 0);
	task_free(t);
	hear(p.n[0], "gamma", rec, p.now);
	assert_int_equal(state_of(p.n[0], V), TASK_SUBMITTED);
	assert_non_null(logged(p.n[0], "whose it is not to write"));
	/* Nor may a verified task be taken: it is never Ready. */
	assert_int_equal(state_of(p.n[1], V), TASK_SUBMITTED);
	pool_close(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_an_end_is_confirmed_with_a_majoritys_signed_votes),
		cmocka_unit_test(
		    test_a_runners_own_confirmation_is_taken_on_its_word),
		cmocka_unit_test(
		    test_an_end_confirmed_by_made_up_votes_is_not_final),
		cmocka_unit_test(
		    test_a_confirmed_end_without_a_certificate_is_unconfirmed),
		cmocka_unit_test(
		    test_a_vote_its_voter_did_not_sign_counts_for_nothing),
		cmocka_unit_test(
		    test_replicas_on_distinct_nodes_that_agree_end_the_task),
		cmocka_unit_test(
		    test_replicas_that_disagree_fail_the_task_naming_both),
		cmocka_unit_test(
		    test_a_liars_end_of_a_verified_task_is_refused),
	};
	uint8_t	seed[32];
	int	i;

	if (sodium_init() == -1)
		return 1;
	for (i = 0; i < NNODES; i++) {
		memset(seed, i + 1, sizeof seed);
		crypto_sign_seed_keypair(pk[i], sk[i], seed);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
