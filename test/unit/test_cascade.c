/*
 * test_cascade.c -- what follows from a task's change (cascade.c): ends
 * of dependents, binding, and the redo of tasks that ran on a result
 * that was not kept.
 */
#include "testutil.h"

static void
test_cancel_cascades_and_stops_process(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	char		 err[256];

	plmi2_workflow(n, 1, PRIO_LOW, 1000);
	outbox_clear(node_outbox(n));
	assert_int_equal(node_cancel(n, uuid_n(1), 1500, err, sizeof err), 0);
	assert_int_equal(count_actions(n, ACT_STOP, uuid_n(1)), 1);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_CANCELLED);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_CANCELLED);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_CANCELLED);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_CANCELLED);
	assert_non_null(strstr(node_find(n, uuid_n(4))->reason, "upstream"));
	/* The slot stays taken until the process is gone. */
	assert_int_equal(status_of(n).running, 1);
	exit_with(n, uuid_n(1), 0, 1600);
	assert_int_equal(status_of(n).running, 0);
	/* A second cancel, and a cancel of nothing, are errors. */
	assert_int_equal(node_cancel(n, uuid_n(1), 1700, err, sizeof err), -1);
	assert_non_null(strstr(err, "already Cancelled"));
	assert_int_equal(node_cancel(n, uuid_n(77), 1700, err, sizeof err),
	    -1);
	/* Nothing may be bound to a cancelled task. */
	{
		struct task_binding b = { "", 1 };
		memcpy(b.uuid, uuid_n(1), sizeof b.uuid);
		assert_int_equal(sched(n, 9, "any", 0, 1800, 1, &b, err), -1);
		assert_non_null(strstr(err, "Cancelled"));
	}
}

static void
test_failed_upstream_fails_the_tree(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	char		 why[128];
	int		 i;

	int64_t		 at = 1100, wait = 1000;	/* retry_delay_ms */

	plmi2_workflow(n, 1, PRIO_LOW, 1000);
	for (i = 0; i < 3; i++) {		/* max_attempts 3 */
		if (i > 0) {
			/* Each retry waits, twice as long as the last. */
			node_tick(n, at + wait - 1);
			assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
			node_tick(n, at += wait);
			wait *= 2;
		}
		assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
		exit_with(n, uuid_n(1), 1, at);
	}
	snprintf(why, sizeof why, "upstream-failed:%s", uuid_n(1));
	for (i = 2; i <= 4; i++) {
		assert_int_equal(state_of(n, uuid_n(i)), TASK_FAILED);
		assert_int_equal(node_find(n, uuid_n(i))->end_ms, at);
	}
	/* Every attempt is kept: its node and its exit status. */
	assert_string_equal(node_find(n, uuid_n(1))->tries,
	    "alpha:1,alpha:1,alpha:1");
	assert_string_equal(node_find(n, uuid_n(2))->reason, why);
	/* Alone, our vote is the majority: every end is confirmed, and the
	 * node that confirmed import's end proposed its dependents'. */
	for (i = 1; i <= 4; i++) {
		assert_true(node_find(n, uuid_n(i))->confirmed);
		assert_true(node_find(n, uuid_n(i))->ver > 1);
	}
}

/* Task k's record as it ran on `runner` with outputs "<tag>-1".. */
static const char *
result_record(struct node *n, int k, const char *runner, const char *tag)
{
	char		 out[3][32];
	char		*outs[3];
	struct task	*t = record_copy(node_find(n, uuid_n(k)));
	int		 i;

	snprintf(t->running_on, sizeof t->running_on, "%s", runner);
	for (i = 0; i < t->noutputs; i++) {
		snprintf(out[i], sizeof out[i], "%s-%d", tag, i + 1);
		outs[i] = out[i];
	}
	assert_int_equal(task_set_outputs(t, outs, t->noutputs), 0);
	return record_datagram("STATE", t);
}

static void
test_dependents_of_a_result_not_kept_are_redone(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task	*g;
	uint64_t	 ver;

	plmi2_workflow(n, 1, PRIO_LOW, 1000);
	terminate(n, uuid_n(1), 3, 2000);
	exit_with(n, uuid_n(1), 0, 2000);
	terminate(n, uuid_n(2), 2, 3000);
	exit_with(n, uuid_n(2), 0, 3000);
	g = node_find(n, uuid_n(2));
	assert_int_equal(g->state, TASK_TERMINATED);
	assert_string_equal(g->inputs[0].dataset, "00000001-1");
	ver = g->ver;
	/* aaron ran import too, and both results were confirmed (a
	 * partition longer than the membership timeout): of two results
	 * the lower runner name is kept.  Everything that used ours runs
	 * again. */
	hear_alive(n, "beta", 3100);
	clear(n);
	hear(n, "aaron", result_record(n, 1, "aaron", "kept"), 3100);
	assert_string_equal(node_find(n, uuid_n(1))->running_on, "aaron");
	assert_non_null(logged(n, "ran on a result of"));
	g = node_find(n, uuid_n(2));
	assert_true(g->state == TASK_READY || g->state == TASK_RUNNING);
	assert_string_equal(g->inputs[0].dataset, "kept-1");
	assert_int_equal(g->noutputs, 0);
	/* A redo is authoritative: versioned and sent. */
	assert_true(g->ver > ver);
	assert_non_null(sent(n, NULL, "STATE "));
	/* segmentation used georeferencing's void result: redone too, and
	 * waits for its inputs again. */
	assert_int_equal(state_of(n, uuid_n(3)), TASK_SUBMITTED);
	assert_null(node_find(n, uuid_n(3))->inputs[1].dataset);
	assert_string_equal(node_find(n, uuid_n(3))->inputs[0].dataset,
	    "kept-1");
}

static void
test_a_losing_result_changes_nothing(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	plmi2_workflow(n, 1, PRIO_LOW, 1000);
	terminate(n, uuid_n(1), 3, 2000);
	exit_with(n, uuid_n(1), 0, 2000);
	hear_alive(n, "beta", 2100);
	clear(n);
	/* zeta's result loses to ours (a higher name): we keep ours and
	 * tell zeta. */
	hear(n, "zeta", result_record(n, 1, "zeta", "lost"), 2100);
	assert_string_equal(node_find(n, uuid_n(1))->running_on, "alpha");
	assert_string_equal(node_find(n, uuid_n(2))->inputs[0].dataset,
	    "00000001-1");
	assert_null(logged(n, "ran on a result of"));
	assert_non_null(sent(n, "zeta", "STATE "));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_cancel_cascades_and_stops_process),
		NODE_TEST(test_failed_upstream_fails_the_tree),
		NODE_TEST(test_dependents_of_a_result_not_kept_are_redone),
		NODE_TEST(test_a_losing_result_changes_nothing),
	};

	return cmocka_run_group_tests_name("cascade", tests, NULL, NULL);
}
