/*
 * test_confirm.c -- one accepted end per task (confirm.c): an end is
 * final to clients and binds dependents only once a majority of the
 * members voted for it; a node votes once a round; a split vote goes to
 * the next round; a side without a majority confirms nothing until the
 * membership shrinks.
 */
#include "testutil.h"

/* Our record of task k as `runner` would have it, as "<TYPE> <record>":
 * its result (outputs "<tag>-1"...), of round `round`, confirmed or not. */
static const char *
end_record(struct node *n, const char *type, int k, const char *runner,
    const char *tag, int round, int confirmed)
{
	char		 out[3][32];
	char		*outs[3];
	struct task	*t = record_copy(node_find(n, uuid_n(k)));
	int		 i;

	t->state = TASK_TERMINATED;
	snprintf(t->running_on, sizeof t->running_on, "%s", runner);
	for (i = 0; i < 3; i++) {
		snprintf(out[i], sizeof out[i], "%s-%d", tag, i + 1);
		outs[i] = out[i];
	}
	assert_int_equal(task_set_outputs(t, outs, 3), 0);
	t->round = round;
	t->confirmed = confirmed;
	t->ver += 5;
	return record_datagram(type, t);
}

/* alpha runs the workflow's import with beta (and others) as members. */
static void
run_import(struct node *n, int64_t now)
{
	plmi2_workflow(n, 1, PRIO_LOW, now);
	node_set_volunteer(n, 1, "idle", now);
	node_tick(n, now + 50);		/* the dequeue window */
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	clear(n);
	terminate(n, uuid_n(1), 3, now + 1000);
}

static void
test_a_result_waits_for_a_majority(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task	*g;

	follow_beta(n);				/* members: alpha, beta */
	run_import(n, 100);
	/* Proposed, not final: told as Unconfirmed, nothing bound. */
	assert_non_null(sent(n, NULL, "STATE "));
	assert_non_null(strstr(told(n, uuid_n(1)), " Unconfirmed "));
	assert_non_null(strstr(told(n, uuid_n(1)), " outcome=Terminated"));
	g = node_find(n, uuid_n(2));
	assert_int_equal(g->state, TASK_SUBMITTED);
	assert_null(g->inputs[0].dataset);
	/* beta votes for it: 2 of 2, confirmed, told final, bound. */
	clear(n);
	hear(n, "beta", end_record(n, "VOTE", 1, "alpha", "00000001", 1, 0),
	    1200);
	assert_true(node_find(n, uuid_n(1))->confirmed);
	assert_non_null(logged(n, "confirmed by 2 of 2 nodes"));
	assert_non_null(strstr(told(n, uuid_n(1)), " Terminated "));
	assert_null(strstr(told(n, uuid_n(1)), "outcome="));
	assert_non_null(strstr(sent(n, NULL, "STATE "), " conf=1"));
	g = node_find(n, uuid_n(2));
	assert_string_equal(g->inputs[0].dataset, "00000001-1");
	assert_true(g->state == TASK_READY || g->state == TASK_RUNNING);
}

static void
test_a_node_votes_once_a_round(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	const char	*vote;

	follow_beta(n);
	hear_alive(n, "zeta", 50);
	run_import(n, 100);
	clear(n);
	/* zeta proposes its own result of round 1: we keep ours (our vote)
	 * and tell zeta so. */
	hear(n, "zeta", end_record(n, "STATE", 1, "zeta", "z", 1, 0), 1300);
	assert_string_equal(node_find(n, uuid_n(1))->running_on, "alpha");
	assert_non_null(vote = sent(n, "zeta", "VOTE "));
	assert_non_null(strstr(vote, " on=alpha "));
	/* A proposal of a later round is a new vote. */
	clear(n);
	hear(n, "zeta", end_record(n, "STATE", 1, "zeta", "z", 2, 0), 1400);
	assert_string_equal(node_find(n, uuid_n(1))->running_on, "zeta");
	assert_non_null(strstr(sent(n, "zeta", "VOTE "), " on=zeta "));
	/* A confirmed end beats every unconfirmed one, and binds. */
	hear(n, "zeta", end_record(n, "STATE", 1, "zeta", "z", 2, 1), 1500);
	assert_true(node_find(n, uuid_n(1))->confirmed);
	assert_string_equal(node_find(n, uuid_n(2))->inputs[0].dataset,
	    "z-1");
}

static void
test_a_split_vote_goes_to_the_next_round(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);				/* 4 members: a majority is 3 */
	hear_alive(n, "gamma", 50);
	hear_alive(n, "delta", 50);
	run_import(n, 100);
	hear(n, "beta", end_record(n, "VOTE", 1, "alpha", "00000001", 1, 0),
	    1200);
	hear(n, "gamma", end_record(n, "VOTE", 1, "gamma", "g", 1, 0), 1200);
	assert_false(node_find(n, uuid_n(1))->confirmed);
	assert_int_equal(node_find(n, uuid_n(1))->round, 1);
	clear(n);
	/* 2 against 2: no end can reach 3.  Round 2, on the end the rule
	 * prefers (the lower runner name: ours). */
	hear(n, "delta", end_record(n, "VOTE", 1, "gamma", "g", 1, 0), 1210);
	assert_non_null(logged(n, "votes split in round 1"));
	assert_int_equal(node_find(n, uuid_n(1))->round, 2);
	assert_string_equal(node_find(n, uuid_n(1))->running_on, "alpha");
	assert_non_null(strstr(sent(n, NULL, "STATE "), " rnd=2"));
	/* Votes of round 1 no longer count. */
	hear(n, "beta", end_record(n, "VOTE", 1, "alpha", "00000001", 1, 0),
	    1220);
	hear(n, "gamma", end_record(n, "VOTE", 1, "alpha", "00000001", 1, 0),
	    1220);
	assert_false(node_find(n, uuid_n(1))->confirmed);
	hear(n, "beta", end_record(n, "VOTE", 1, "alpha", "00000001", 2, 0),
	    1230);
	hear(n, "gamma", end_record(n, "VOTE", 1, "alpha", "00000001", 2, 0),
	    1230);
	assert_true(node_find(n, uuid_n(1))->confirmed);
}

static void
test_a_minority_confirms_nothing_until_the_others_leave(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct node_config cfg;
	int64_t		 t;

	node_config_default(&cfg);
	follow_beta(n);				/* 3 members: a majority is 2 */
	hear_alive(n, "gamma", 50);
	run_import(n, 100);
	/* beta and gamma fall silent: dead after the node timeout, still
	 * members.  Our proposal is sent again, nothing is confirmed. */
	for (t = 1100; t < 1100 + cfg.membership_timeout_ms - 1000;
	    t += 60000) {
		clear(n);
		node_tick(n, t);
		assert_false(node_find(n, uuid_n(1))->confirmed);
		assert_null(node_find(n, uuid_n(2))->inputs[0].dataset);
	}
	/* Silent past the membership timeout, they leave the count: we are
	 * the whole membership, and confirm. */
	clear(n);
	node_tick(n, 1100 + cfg.membership_timeout_ms + 1000);
	assert_non_null(logged(n, "left the membership"));
	assert_true(node_find(n, uuid_n(1))->confirmed);
	assert_non_null(logged(n, "confirmed by 1 of 1 nodes"));
	assert_int_equal(count_actions(n, ACT_MEMBERS, NULL), 1);
}

static void
test_a_clean_stop_leaves_the_membership(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	hear_alive(n, "gamma", 50);
	/* gamma stops cleanly: 2 members, beta's vote is enough. */
	hear(n, "gamma", "HEARTBEAT 0 0 1 1 stopped 10 0 0 7600 1000 60 0 500", 60);
	run_import(n, 100);
	hear(n, "beta", end_record(n, "VOTE", 1, "alpha", "00000001", 1, 0),
	    1200);
	assert_true(node_find(n, uuid_n(1))->confirmed);
	assert_non_null(logged(n, "confirmed by 2 of 2 nodes"));
}

static void
test_restored_members_count_after_a_restart(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	/* Restarted cut off from beta and gamma: not a pool of one. */
	node_restore_member(n, "beta", 0);
	node_restore_member(n, "gamma", 0);
	node_restore_member(n, "bad name!", 0);	/* ignored */
	node_restore_member(n, "alpha", 0);	/* us: ignored */
	node_start(n, 0);
	run_import(n, 100);
	node_tick(n, 5000);
	assert_false(node_find(n, uuid_n(1))->confirmed);
	hear(n, "gamma", end_record(n, "VOTE", 1, "alpha", "00000001", 1, 0),
	    5100);
	assert_true(node_find(n, uuid_n(1))->confirmed);
	assert_non_null(logged(n, "confirmed by 2 of 3 nodes"));
}

/* STATEs n sent: to everyone, to zeta, to beta. */
struct asked {
	int	all, zeta, beta;
};

/* Did n send a STATE of task 1 to peer (NULL: to everyone)? */
static int
state_of_1_sent(struct node *n, const char *peer)
{
	const char	*s;
	char		 id[64];
	int		 k;

	snprintf(id, sizeof id, " id=%s ", uuid_n(1));
	for (k = 0; (s = sent_nth(n, peer, "STATE ", k)) != NULL; k++)
		if (strstr(s, id) != NULL)
			return 1;
	return 0;
}

/* beta (master) and zeta heartbeat every 100 ms from `from` to `until`
 * while n ticks: the STATEs of task 1 n sent meanwhile. */
static struct asked
beat_until(struct node *n, int64_t from, int64_t until)
{
	struct asked	a = { 0, 0, 0 };
	int64_t		t;

	for (t = from; t <= until; t += 100) {
		clear(n);
		hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 0 0 "
		    "500", t);
		hear_alive(n, "zeta", t);
		node_tick(n, t);
		a.all += state_of_1_sent(n, NULL);
		a.zeta += state_of_1_sent(n, "zeta");
		a.beta += state_of_1_sent(n, "beta");
	}
	return a;
}

/*
 * A voter that missed the confirmation of zeta's result (one datagram)
 * asks the runner and the master for it after a failure timeout, not
 * the whole pool: a thousand-node pool answered each such node with a
 * thousand votes.  Only if they are silent too does it propose the
 * end to everyone.
 */
static void
test_a_missed_confirmation_is_asked_of_those_who_know(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct asked	 a;

	follow_beta(n);
	hear_alive(n, "zeta", 50);
	plmi2_workflow(n, 1, PRIO_LOW, 100);
	hear(n, "zeta", end_record(n, "STATE", 1, "zeta", "z", 1, 0), 200);
	assert_non_null(sent(n, "zeta", "VOTE "));
	a = beat_until(n, 300, 2500);
	assert_int_equal(a.all, 0);
	assert_int_equal(a.zeta, 1);
	assert_int_equal(a.beta, 1);
	assert_false(node_find(n, uuid_n(1))->confirmed);
	/* Nobody answered: now the whole pool is asked to vote. */
	a = beat_until(n, 2600, 4600);
	assert_int_equal(a.all, 1);
	/* zeta answers with the confirmed end: that is all it takes. */
	hear(n, "zeta", end_record(n, "VOTE", 1, "zeta", "z", 1, 1), 4700);
	assert_true(node_find(n, uuid_n(1))->confirmed);
	a = beat_until(n, 4800, 9000);
	assert_int_equal(a.all + a.zeta + a.beta, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_a_result_waits_for_a_majority),
		NODE_TEST(test_a_node_votes_once_a_round),
		NODE_TEST(test_a_split_vote_goes_to_the_next_round),
		NODE_TEST(test_a_minority_confirms_nothing_until_the_others_leave),
		NODE_TEST(test_a_clean_stop_leaves_the_membership),
		NODE_TEST(test_restored_members_count_after_a_restart),
		NODE_TEST(test_a_missed_confirmation_is_asked_of_those_who_know),
	};

	return cmocka_run_group_tests_name("confirm", tests, NULL, NULL);
}
