/*
 * test_retire.c -- the map does not grow forever (retire.c): a finished
 * task leaves retention_ms after its end, its record handed to the shell
 * for the history; not while a task bound to it still waits for its
 * own end; and a late record of it from a peer is not taken in again.
 */
#include "testutil.h"

#include "retire.h"

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
	finish(n, 3, 1, t0 + RETENTION + 6000);
	node_tick(n, t0 + RETENTION + 6100);
	finish(n, 4, 1, t0 + RETENTION + 7000);
	/* Its dependents all ended: import leaves at its next look. */
	clear(n);
	node_tick(n, t0 + 1000 + RETENTION + 300 + RETIRE_RECHECK_MS);
	assert_non_null(retired(n, uuid_n(1)));
	assert_null(node_find(n, uuid_n(1)));
	assert_non_null(node_find(n, uuid_n(2)));
	/* The others in their turn. */
	node_tick(n, t0 + 2 * RETENTION + 7300);
	assert_int_equal(status_of(n).ntasks, 0);
	node_free(n);
	taskdesc_clear(&set);
}

static void
test_a_late_record_of_a_retired_task_is_dropped(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = retiring_node(&set);
	char			 state_msg[RECORD_LINE_MAX + 16];
	const char		*rec;

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 1000, 0, NULL, NULL),
	    0);
	node_tick(n, 1100);
	finish(n, 1, 1, 2000);
	clear(n);
	node_tick(n, 2000 + RETENTION + 300);
	assert_non_null(rec = retired(n, uuid_n(1)));
	snprintf(state_msg, sizeof state_msg, "STATE %s", rec);
	clear(n);
	/* A peer that has not retired it yet sends it (anti-entropy). */
	hear(n, "beta", state_msg, 2000 + RETENTION + 400);
	assert_null(node_find(n, uuid_n(1)));
	/* Nor an unfinished record of a task older than the retention: it
	 * comes from a node that was away that long. */
	{
		struct task *t = task_new(uuid_n(9), "free", 0);
		t->state = TASK_READY;
		t->submit_ms = 1000;
		t->ver = 3;
		snprintf(t->scheduled_by, sizeof t->scheduled_by, "beta");
		snprintf(state_msg, sizeof state_msg, "STATE ");
		assert_true(wire_task_encode(t, state_msg + 6,
		    sizeof state_msg - 6) > 0);
		task_free(t);
	}
	hear(n, "beta", state_msg, 2000 + RETENTION + 500);
	assert_null(node_find(n, uuid_n(9)));
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
