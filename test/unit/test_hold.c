/*
 * test_hold.c -- what an owner changes of a waiting task (hold.c): a held
 * task stays Ready and is never taken until released; its priority
 * moves it in the queue; both are new versions of its record, sent to
 * every node; a task no longer waiting is refused, unchanged.
 */
#include "testutil.h"

static void
test_a_held_task_waits_until_released(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t;
	char			 err[256], why[REASON_MAXLEN + 1];
	uint64_t		 ver;

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 11, 0, NULL, NULL), 0);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	ver = node_find(n, uuid_n(2))->ver;
	clear(n);
	assert_int_equal(node_hold(n, uuid_n(2), 1, 12, err, sizeof err), 0);
	t = node_find(n, uuid_n(2));
	assert_true(t->held);
	assert_true(t->ver > ver);
	assert_string_equal(task_shown_state(t), "Held");
	assert_non_null(sent(n, NULL, "STATE"));
	/* Its slot frees: it is not taken, and says why. */
	terminate(n, uuid_n(1), 1, 20);
	exit_with(n, uuid_n(1), 0, 21);
	node_tick(n, 30);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(2)), 0);
	node_task_waiting(n, node_find(n, uuid_n(2)), why, sizeof why);
	assert_non_null(strstr(why, "held: volery release"));
	/* Released, it runs. */
	assert_int_equal(node_hold(n, uuid_n(2), 0, 40, err, sizeof err), 0);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	/* Not waiting any more: refused, unchanged. */
	ver = node_find(n, uuid_n(2))->ver;
	assert_int_equal(node_hold(n, uuid_n(2), 1, 50, err, sizeof err), -1);
	assert_non_null(strstr(err, "only a waiting task"));
	assert_false(node_find(n, uuid_n(2))->held);
	assert_int_equal(node_find(n, uuid_n(2))->ver, ver);
	assert_int_equal(node_hold(n, uuid_n(9), 1, 50, err, sizeof err), -1);
}

static void
test_interactive_goes_first(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	char			 err[256];

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 11, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 3, "free", PRIO_LOW, 12, 0, NULL, NULL), 0);
	assert_int_equal(node_prio(n, uuid_n(3), PRIO_INTERACTIVE, 13, err,
	    sizeof err), 0);
	assert_int_equal(node_find(n, uuid_n(3))->prio, PRIO_INTERACTIVE);
	clear(n);
	terminate(n, uuid_n(1), 1, 20);
	exit_with(n, uuid_n(1), 0, 21);
	node_tick(n, 30);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_READY);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_a_held_task_waits_until_released),
		NODE_TEST(test_interactive_goes_first),
	};

	return cmocka_run_group_tests_name("hold", tests, NULL, NULL);
}
