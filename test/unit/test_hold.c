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

/* Task k of user, a described task. */
static void
sched_as(struct node *n, int k, const char *user, int64_t now)
{
	struct node_schedule_req	req;
	char				err[256];

	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.user = user;
	assert_int_equal(node_schedule(n, &req, uuid_n(k), now, err,
	    sizeof err), 0);
}

/* A node of slots, with max_running_per_user and order as given. */
static struct node *
people_node(struct taskdesc_set *set, int slots, int per_user,
    const char *of, enum queue_order order)
{
	struct node_config	 cfg;
	struct node		*n;

	plmi2_descs(set);
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "alpha");
	cfg.slots = slots;
	cfg.reputation = 0;
	cfg.max_running_per_user = per_user;
	snprintf(cfg.max_running_of, sizeof cfg.max_running_of, "%s", of);
	cfg.order = order;
	assert_non_null(n = node_new(&cfg, set));
	return n;
}

/* max_running_per_user: one user's tasks wait for each other, another
 * user's run beside them, up to that user's own limit (max_running_of). */
static void
test_one_user_runs_at_most_the_limit(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = people_node(&set, 4, 1, "rtbob:2", ORDER_FCFS);

	sched_as(n, 1, "rtalice", 10);
	sched_as(n, 2, "rtalice", 11);
	sched_as(n, 3, "rtbob", 12);
	sched_as(n, 4, "rtbob", 13);	/* bob's own limit: 2 */
	node_tick(n, 20);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_READY);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	terminate(n, uuid_n(1), 1, 30);
	exit_with(n, uuid_n(1), 0, 31);
	node_tick(n, 40);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	node_free(n);
	taskdesc_clear(&set);
}

/* Fair share: who used the pool less lately goes first, whoever came
 * first; as usage grows, the users take turns. */
static void
test_fairshare_puts_the_lighter_user_first(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = people_node(&set, 1, 0, "", ORDER_FAIRSHARE);

	sched_as(n, 1, "rtalice", 0);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	sched_as(n, 2, "rtalice", 100);
	sched_as(n, 3, "rtalice", 101);
	sched_as(n, 4, "rtbob", 102);
	sched_as(n, 5, "rtbob", 103);
	terminate(n, uuid_n(1), 1, 10000);	/* alice used 10 s */
	exit_with(n, uuid_n(1), 0, 10000);
	node_tick(n, 10001);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	terminate(n, uuid_n(4), 1, 14000);	/* bob 4 s: still less */
	exit_with(n, uuid_n(4), 0, 14000);
	node_tick(n, 14001);
	assert_int_equal(state_of(n, uuid_n(5)), TASK_RUNNING);
	terminate(n, uuid_n(5), 1, 22000);	/* bob 12 s: now more */
	exit_with(n, uuid_n(5), 0, 22000);
	node_tick(n, 22001);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_READY);
	node_free(n);
	taskdesc_clear(&set);
}

/* --begin: not taken before its time, and the node wakes for it. */
static void
test_a_task_begins_at_its_time(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct node_schedule_req req;
	struct node_status	 st;
	char			 err[256], why[REASON_MAXLEN + 1];

	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.begin_ms = 60000;
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), 0);
	node_tick(n, 20);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
	node_task_waiting(n, node_find(n, uuid_n(1)), why, sizeof why);
	assert_non_null(strstr(why, "--begin"));
	/* The tick the node asks for comes by its begin, not later. */
	node_status(n, &st);
	assert_true(st.timer > 20 && st.timer <= 60000);
	node_tick(n, 59999);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
	node_tick(n, 60000);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_a_held_task_waits_until_released),
		NODE_TEST(test_interactive_goes_first),
		NODE_TEST(test_a_task_begins_at_its_time),
		cmocka_unit_test(test_one_user_runs_at_most_the_limit),
		cmocka_unit_test(test_fairshare_puts_the_lighter_user_first),
	};

	return cmocka_run_group_tests_name("hold", tests, NULL, NULL);
}
