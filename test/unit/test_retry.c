/*
 * test_retry.c -- retries that learn (retry.c): a failed attempt waits
 * and goes to a node that has not failed it; a node whose runs fail
 * while the same tasks succeed elsewhere stops volunteering.
 */
#include "testutil.h"

/* Task k's record as our map has it, changed to another node's
 * confirmed end (state, on runner), as a STATE datagram's body. */
static const char *
end_on(struct node *n, int k, enum task_state state, const char *runner,
    int64_t now)
{
	char		*outs[1] = { "elsewhere-1" };
	struct task	*t = record_copy(node_find(n, uuid_n(k)));

	t->state = state;
	snprintf(t->running_on, sizeof t->running_on, "%s", runner);
	t->start_ms = now - 10;
	t->end_ms = now;
	t->confirmed = 1;
	t->round = 1;
	t->ver += 5;
	if (state == TASK_TERMINATED)
		assert_int_equal(task_set_outputs(t, outs, 1), 0);
	else
		snprintf(t->reason, sizeof t->reason, "attempts-exhausted");
	return record_datagram("STATE", t);
}

/* Did we broadcast a datagram starting with prefix that holds text? */
static int
sent_containing(struct node *n, const char *prefix, const char *text)
{
	const char	*m;
	int		 i;

	for (i = 0; (m = sent_nth(n, NULL, prefix, i)) != NULL; i++)
		if (strstr(m, text) != NULL)
			return 1;
	return 0;
}

/* Did we broadcast a claim (TRY_DEQUEUE) of task k? */
static int
claimed(struct node *n, int k)
{
	return sent_containing(n, "TRY_DEQUEUE ", uuid_n(k));
}

static void
test_a_failed_attempt_goes_to_a_node_that_did_not_fail_it(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t;
	char			 why[REASON_MAXLEN + 1];

	node_start(n, 0);
	assert_int_equal(sched(n, 1, "free", 0, 10, 0, NULL, NULL), 0);
	t = node_find(n, uuid_n(1));
	assert_int_equal(t->state, TASK_RUNNING);	/* alone: at once */
	exit_with(n, uuid_n(1), 3, 20);
	/* Its record says where it failed and when it may go again. */
	assert_int_equal(t->state, TASK_READY);
	assert_string_equal(t->tries, "alpha:3");
	assert_int_equal(t->retry_ms, 1020);
	assert_true(sent_containing(n, "STATE ", " rty=1020 try=alpha%3A3"));
	node_task_waiting(n, t, why, sizeof why);
	assert_non_null(strstr(why, "retried in"));
	/* beta, idle, can run it: we leave it to beta, at its time too. */
	hear_alive(n, "beta", 30);
	clear(n);
	node_tick(n, 1020);
	node_tick(n, 1100);
	assert_false(claimed(n, 1));
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 0);
	assert_int_equal(t->state, TASK_READY);
	/* beta's user is back: no one else can, so we try again. */
	hear(n, "beta", "HEARTBEAT 0 0 1 1 busy 10 0 0 7600 1000 0 0 500",
	    1200);
	assert_true(claimed(n, 1));
}

static void
test_a_retry_waits_longer_each_time(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t;
	int64_t			 at = 10;
	int			 i;

	node_start(n, 0);
	assert_int_equal(sched(n, 1, "free", 0, at, 0, NULL, NULL), 0);
	t = node_find(n, uuid_n(1));
	for (i = 0; i < 2; i++) {
		exit_with(n, uuid_n(1), 1, at);
		assert_int_equal(t->retry_ms, at + (1000 << i));
		node_tick(n, t->retry_ms - 1);
		assert_int_equal(t->state, TASK_READY);
		node_tick(n, at = t->retry_ms);
		assert_int_equal(t->state, TASK_RUNNING);
	}
	/* The record keeps the latest attempts only. */
	for (i = 0; i < TRIES_MAX + 2; i++)
		assert_int_equal(task_tries_add(t, "gamma", 256 + 9), 0);
	assert_true(task_tries_valid(t->tries));
	assert_false(task_tries_have(t->tries, "alpha"));
	assert_true(task_tries_have(t->tries, "gamma"));
}

/* alpha fails tasks 1-4 (one slot: each in turn). */
static void
fail_four(struct node *n)
{
	int	k;

	node_start(n, 0);
	for (k = 1; k <= 4; k++)
		assert_int_equal(sched(n, k, "free", 0, 10, 0, NULL, NULL), 0);
	for (k = 1; k <= 4; k++) {
		assert_int_equal(state_of(n, uuid_n(k)), TASK_RUNNING);
		exit_with(n, uuid_n(k), 1, 20 + k);
	}
	hear_alive(n, "beta", 30);
}

static void
test_a_node_whose_runs_fail_where_they_succeed_elsewhere_stops(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;

	fail_four(n);
	/* Two succeed on beta; one fails there too: the task's fault, not
	 * ours. */
	hear(n, "beta", end_on(n, 1, TASK_TERMINATED, "beta", 100), 100);
	hear(n, "beta", end_on(n, 2, TASK_TERMINATED, "beta", 110), 110);
	hear(n, "beta", end_on(n, 3, TASK_FAILED, "beta", 120), 120);
	assert_string_equal(status_of(n).volunteer_state, "idle");
	clear(n);
	/* A third success elsewhere: a black hole here. */
	hear(n, "beta", end_on(n, 4, TASK_TERMINATED, "beta", 130), 130);
	assert_true(task_result_kept(node_find(n, uuid_n(4))));
	assert_false(status_of(n).volunteer);
	assert_string_equal(status_of(n).volunteer_state, "quarantined");
	assert_int_equal(status_of(n).quarantine_until, 130 + 3600000);
	assert_non_null(strstr(status_of(n).quarantine_why, "3 tasks failed "
	    "here and succeeded elsewhere"));
	assert_non_null(logged(n, "quarantined"));
	/* Every node hears it, within an election window. */
	node_tick(n, 130 + 50);
	assert_true(sent_containing(n, "HEARTBEAT ", " quarantined "));
	/* It takes nothing new. */
	clear(n);
	assert_int_equal(sched(n, 5, "free", 0, 150, 0, NULL, NULL), 0);
	node_tick(n, 1000);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	assert_false(claimed(n, 5));
	/* Its time up, it volunteers again (alone by now: beta fell
	 * silent long ago). */
	node_tick(n, 130 + 3600000);
	assert_true(status_of(n).volunteer);
	assert_non_null(logged(n, "quarantine lifted"));
	assert_int_equal(state_of(n, uuid_n(5)), TASK_RUNNING);
}

static void
test_an_admin_clears_a_quarantine(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	int			 k;

	assert_int_equal(node_quarantine_clear(n, 5), -1);	/* none */
	fail_four(n);
	for (k = 1; k <= 3; k++)
		hear(n, "beta", end_on(n, k, TASK_TERMINATED, "beta",
		    100 + k), 100 + k);
	assert_string_equal(status_of(n).volunteer_state, "quarantined");
	assert_int_equal(node_quarantine_clear(n, 200), 0);
	assert_true(status_of(n).volunteer);
	assert_string_equal(status_of(n).volunteer_state, "idle");
	assert_int_equal(status_of(n).quarantine_until, 0);
	/* Forgiven: one more success elsewhere does not bring it back. */
	hear(n, "beta", end_on(n, 4, TASK_TERMINATED, "beta", 300), 300);
	assert_true(status_of(n).volunteer);
}

static void
test_a_quarantine_outlives_a_restart(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n, *again;
	char			 kept[REASON_MAXLEN + 32];
	int			 k;

	fail_four(n);
	clear(n);
	for (k = 1; k <= 3; k++)
		hear(n, "beta", end_on(n, k, TASK_TERMINATED, "beta",
		    100 + k), 100 + k);
	/* The shell is told what to keep. */
	assert_non_null(last_text(n, ACT_QUARANTINE));
	snprintf(kept, sizeof kept, "%s", last_text(n, ACT_QUARANTINE));
	assert_int_equal(strncmp(kept, "3600103 3 tasks failed here", 27), 0);
	/* A restart keeps it, until its end. */
	again = test_node_named(&f->set, "alpha", 1);
	assert_int_equal(node_quarantine_restore(again, kept, 5000), 0);
	assert_string_equal(status_of(again).volunteer_state, "quarantined");
	assert_int_equal(status_of(again).quarantine_until, 3600103);
	node_start(again, 5000);
	node_tick(again, 3600103);
	assert_true(status_of(again).volunteer);
	assert_string_equal(last_text(again, ACT_QUARANTINE), "");	/* forget it */
	node_free(again);
	/* Ended already, further than a quarantine lasts, or not what the
	 * core wrote: none. */
	again = test_node_named(&f->set, "alpha", 1);
	assert_int_equal(node_quarantine_restore(again, kept, 3600103), -1);
	assert_int_equal(node_quarantine_restore(again, "99999999999 x", 5),
	    -1);
	assert_int_equal(node_quarantine_restore(again, "3600103", 5), -1);
	assert_int_equal(node_quarantine_restore(again, "3600103 ", 5), -1);
	assert_int_equal(node_quarantine_restore(again, "-1 x", 5), -1);
	assert_int_equal(node_quarantine_restore(again, "3600103 a\nb", 5),
	    -1);
	assert_true(status_of(again).volunteer);
	node_free(again);
	/* Cleared by an admin: the shell forgets it. */
	clear(n);
	assert_int_equal(node_quarantine_clear(n, 200), 0);
	assert_string_equal(last_text(n, ACT_QUARANTINE), "");
}

static void
test_a_retry_time_no_failure_could_give_is_refused(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t;

	node_start(n, 0);
	hear_alive(n, "beta", 10);
	assert_int_equal(sched(n, 1, "free", 0, 20, 0, NULL, NULL), 0);
	t = record_copy(node_find(n, uuid_n(1)));
	/* A year away: the task would never run. */
	t->retry_ms = 30 + 365LL * 86400000;
	t->ver += 5;
	hear(n, "beta", record_datagram("STATE", t), 30);
	assert_int_equal(node_find(n, uuid_n(1))->retry_ms, 0);
	assert_true(status_of(n).implausible > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_a_failed_attempt_goes_to_a_node_that_did_not_fail_it),
		NODE_TEST(test_a_retry_waits_longer_each_time),
		NODE_TEST(test_a_node_whose_runs_fail_where_they_succeed_elsewhere_stops),
		NODE_TEST(test_an_admin_clears_a_quarantine),
		NODE_TEST(test_a_quarantine_outlives_a_restart),
		NODE_TEST(test_a_retry_time_no_failure_could_give_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
