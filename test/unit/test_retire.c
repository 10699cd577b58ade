/*
 * test_retire.c -- the map does not grow forever (retire.c): a finished
 * task leaves retention_ms after its end, its record handed to the shell
 * for the history; not while a task bound to it still waits for its
 * own end; and a late record of it from a peer is not taken in again.
 */
#include "testutil.h"

#define RETENTION 600000	/* ms: ten minutes, the shortest allowed */

static struct node *
retiring_node(struct taskdesc_set *set)
{
	struct node_config	cfg;
	struct node		*n;

	plmi2_descs(set);
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "alpha");
	cfg.retention_ms = RETENTION;
	n = node_new(&cfg, set);
	assert_non_null(n);
	node_start(n, 0);
	node_set_volunteer(n, 1, "idle", 0);
	return n;
}

/* The text of the ACT_RETIRE for uuid in the outbox, or NULL. */
static const char *
retired(struct node *n, const char *uuid)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;

	for (i = 0; i < o->n; i++)
		if (o->v[i].type == ACT_RETIRE &&
		    strcmp(o->v[i].uuid, uuid) == 0)
			return o->v[i].text;
	return NULL;
}

/* Run task k (already Running here) to its result at `now`. */
static void
finish(struct node *n, int k, int nout, int64_t now)
{
	assert_int_equal(state_of(n, uuid_n(k)), TASK_RUNNING);
	terminate(n, uuid_n(k), nout, now);
	exit_with(n, uuid_n(k), 0, now);
	assert_true(task_is_settled(node_find(n, uuid_n(k))));
}

static void
test_a_finished_task_leaves_after_the_retention(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = retiring_node(&set);
	const char		*rec;
	struct task		*t;
	char			 err[128];

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 1000, 0, NULL, NULL),
	    0);
	node_tick(n, 1100);
	finish(n, 1, 1, 2000);
	clear(n);
	node_tick(n, 2000 + RETENTION - 1);
	assert_null(retired(n, uuid_n(1)));
	assert_non_null(node_find(n, uuid_n(1)));
	node_tick(n, 2000 + RETENTION + 300);
	/* Gone from the map; its last record goes to the history. */
	assert_null(node_find(n, uuid_n(1)));
	assert_non_null(rec = retired(n, uuid_n(1)));
	t = wire_task_decode(rec, strlen(rec), err, sizeof err);
	assert_non_null(t);
	assert_int_equal(t->state, TASK_TERMINATED);
	assert_string_equal(t->outputs[0], "00000001-1");
	task_free(t);
	assert_int_equal(status_of(n).ntasks, 0);
	/* Nothing to bind to any more: refused, not waiting forever. */
	{
		struct task_binding b = { { 0 }, 1 };
		memcpy(b.uuid, uuid_n(1), sizeof b.uuid);
		assert_int_equal(sched(n, 2, "any", PRIO_LOW, 700000, 1, &b,
		    err), -1);
	}
	node_free(n);
	taskdesc_clear(&set);
}

static void
test_an_upstream_stays_while_a_dependent_waits(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = retiring_node(&set);
	int64_t			 t0 = 1000;

	plmi2_workflow(n, 1, PRIO_LOW, t0);
	node_tick(n, t0 + 100);
	finish(n, 1, 3, t0 + 1000);		/* import */
	node_tick(n, t0 + 1100);
	/* georeferencing runs for longer than the retention period. */
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	clear(n);
	node_tick(n, t0 + 1000 + RETENTION + 300);
	assert_null(retired(n, uuid_n(1)));
	assert_non_null(node_find(n, uuid_n(1)));
	finish(n, 2, 2, t0 + RETENTION + 5000);
	node_tick(n, t0 + RETENTION + 5100);
	/* segmentation, bound to import too, runs still. */
	assert_int_equal(state_of(n, uuid_n(3)), TASK_RUNNING);
	assert_null(retired(n, uuid_n(1)));
	clear(n);
	finish(n, 3, 1, t0 + RETENTION + 6000);
	/* Its last dependent ended: import leaves at the next tick. */
	assert_null(retired(n, uuid_n(1)));
	node_tick(n, t0 + RETENTION + 6100);
	assert_non_null(retired(n, uuid_n(1)));
	assert_null(node_find(n, uuid_n(1)));
	assert_non_null(node_find(n, uuid_n(2)));
	finish(n, 4, 1, t0 + RETENTION + 7000);
	/* The others in their turn. */
	node_tick(n, t0 + 2 * RETENTION + 7300);
	assert_int_equal(status_of(n).ntasks, 0);
	node_free(n);
	taskdesc_clear(&set);
}

/* "STATE <record>" of an unfinished task k of beta's, submitted at
 * `submitted`. */
static const char *
stale_state(int k, int64_t submitted)
{
	static char	 msg[RECORD_LINE_MAX + 16];
	struct task	*t = task_new(uuid_n(k), "free", 0);

	t->state = TASK_READY;
	t->submit_ms = submitted;
	t->ver = 3;
	snprintf(t->scheduled_by, sizeof t->scheduled_by, "beta");
	snprintf(msg, sizeof msg, "STATE ");
	assert_true(wire_task_encode(t, msg + 6, sizeof msg - 6) > 0);
	task_free(t);
	return msg;
}

static void
test_a_late_record_of_a_retired_task_is_dropped(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = retiring_node(&set);
	char			 state_msg[RECORD_LINE_MAX + 16];
	const char		*rec;
	int64_t			 gone = 2000 + RETENTION + 300;

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 1000, 0, NULL, NULL),
	    0);
	node_tick(n, 1100);
	finish(n, 1, 1, 2000);
	clear(n);
	node_tick(n, gone);
	assert_non_null(rec = retired(n, uuid_n(1)));
	snprintf(state_msg, sizeof state_msg, "STATE %s", rec);
	clear(n);
	/* A peer that has not retired it yet sends it (anti-entropy). */
	hear(n, "beta", state_msg, gone + 100);
	assert_null(node_find(n, uuid_n(1)));
	/* A node that missed its end sends its stale copy: not taken in,
	 * and told the task left. */
	clear(n);
	hear(n, "beta", stale_state(1, 1000), gone + 200);
	assert_null(node_find(n, uuid_n(1)));
	assert_non_null(sent(n, "beta", "RETIRED " "00000000-0000-4000-8000-"
	    "000000000001"));
	/* Once the tombstone is gone too (a retention period later), an
	 * unfinished copy scheduled two retention periods ago is still
	 * refused, without a word; a younger one is a task we did not know
	 * yet. */
	node_tick(n, gone + RETENTION + 300);
	clear(n);
	hear(n, "beta", stale_state(1, 1000), gone + RETENTION + 400);
	assert_null(node_find(n, uuid_n(1)));
	assert_null(sent(n, "beta", "RETIRED "));	/* not sure enough */
	hear(n, "beta", stale_state(9, 100000), gone + RETENTION + 500);
	assert_non_null(node_find(n, uuid_n(9)));
	node_free(n);
	taskdesc_clear(&set);
}

/* Told RETIRED, a node forgets its stale unfinished copy -- not a task
 * too young to have ended that long ago, nor one it saw end. */
static void
test_a_stale_copy_is_forgotten_when_told(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = retiring_node(&set);
	int64_t			 now = 3 * RETENTION;

	hear(n, "beta", stale_state(1, 1000), 2000);
	hear(n, "beta", stale_state(2, now - 1000), now - 500);
	assert_non_null(node_find(n, uuid_n(1)));
	assert_non_null(node_find(n, uuid_n(2)));
	clear(n);
	hear(n, "gamma", "RETIRED 00000000-0000-4000-8000-000000000001", now);
	hear(n, "gamma", "RETIRED 00000000-0000-4000-8000-000000000002", now);
	assert_null(node_find(n, uuid_n(1)));
	assert_non_null(logged(n, "our Ready copy is stale: forgotten"));
	assert_non_null(node_find(n, uuid_n(2)));
	node_free(n);
	taskdesc_clear(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_finished_task_leaves_after_the_retention),
		cmocka_unit_test(test_an_upstream_stays_while_a_dependent_waits),
		cmocka_unit_test(test_a_late_record_of_a_retired_task_is_dropped),
		cmocka_unit_test(test_a_stale_copy_is_forgotten_when_told),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
