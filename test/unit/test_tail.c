/*
 * test_tail.c -- tail replication (tail.c) on the simulated LAN: in the
 * tail an idle node runs a copy, the first confirmed result is the
 * task's on every node, the other copy stops and its time is counted
 * wasted; nothing is copied while work waits or when it is off.
 */
#include "nodestate.h"	/* white box: tail_derived, tail_uuid */
#include "simfixture.h"

/* n one-slot nodes, copies allowed by each (<replicate_tail>), runs
 * that last until the test ends them. */
static struct fixture *
boot(int n, int copies)
{
	struct fixture	*f = fixture_new(n);
	int		 i;

	f->s.cfg.replicate_tail = copies;
	for (i = 0; i < n; i++)
		sim_boot(&f->s, i, 10);
	f->s.task_ms = -1;
	sim_run_until(&f->s, f->s.now + 500);
	return f;
}

/* A task scheduled on n00, running on *runner; its first replica's
 * uuid in r, and the node running it in *copy (-1: none). */
static void
tail_of_one(struct fixture *f, char *u, char *r, int *runner, int *copy)
{
	char	who[NAME_MAXLEN + 1];

	assert_int_equal(sim_schedule(&f->s, 0, "free", PRIO_LOW, 0, NULL,
	    u), 0);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	*runner = sim_index(&f->s, who);
	/* Housekeeping comes (progress_interval_ms), the replica races. */
	sim_run_until(&f->s, f->s.now + 2 * f->s.cfg.progress_interval_ms +
	    200);
	tail_uuid(u, TAIL_INDEX_BASE, r);
	*copy = sim_starts(&f->s, r, who) == 1 ? sim_index(&f->s, who) : -1;
}

static void
test_replica_runs_on_another_node_and_its_result_wins(void **state)
{
	struct fixture		*f = boot(3, 2);
	char			 u[UUID_STRLEN + 1], r[UUID_STRLEN + 1];
	char			 r2[UUID_STRLEN + 1];
	struct node_status	 st;
	int			 i, runner, copy;

	(void)state;
	tail_of_one(f, u, r, &runner, &copy);
	assert_int_not_equal(copy, -1);
	assert_int_not_equal(copy, runner);
	assert_string_equal(node_find(f->s.nodes[1], r)->replica_of, u);
	/* One copy more is all two copies allow. */
	sim_run_until(&f->s, f->s.now + 2000);
	tail_uuid(u, TAIL_INDEX_BASE + 1, r2);
	assert_null(node_find(f->s.nodes[0], r2));
	sim_finish(&f->s, copy, r);
	sim_run_until(&f->s, f->s.now + 1000);
	for (i = 0; i < 3; i++) {
		const struct task *t = node_find(f->s.nodes[i], u);
		const struct task *c = node_find(f->s.nodes[i], r);
		assert_int_equal(t->state, TASK_TERMINATED);
		assert_int_equal(t->confirmed, 1);
		assert_int_equal(t->noutputs, c->noutputs);
		assert_string_equal(t->outputs[0], c->outputs[0]);
		assert_non_null(strstr(t->reason, r));
	}
	/* The original's run stopped, its time counted as wasted. */
	node_status(f->s.nodes[runner], &st);
	assert_int_equal(st.tail_stopped, 1);
	assert_true(st.tail_wasted_ms >= 2000);
	node_status(f->s.nodes[0], &st);
	assert_int_equal(st.tail_made, 1);
	assert_int_equal(sim_check(&f->s, NULL, 0), 0);
	done(f);
}

static void
test_original_result_wins_and_cancels_the_replica(void **state)
{
	struct fixture		*f = boot(3, 2);
	char			 u[UUID_STRLEN + 1], r[UUID_STRLEN + 1];
	struct node_status	 st;
	int			 i, runner, copy;

	(void)state;
	tail_of_one(f, u, r, &runner, &copy);
	assert_int_not_equal(copy, -1);
	sim_finish(&f->s, runner, u);
	sim_run_until(&f->s, f->s.now + 1000);
	for (i = 0; i < 3; i++) {
		const struct task *t = node_find(f->s.nodes[i], u);
		const struct task *c = node_find(f->s.nodes[i], r);
		assert_int_equal(t->state, TASK_TERMINATED);
		assert_string_equal(t->running_on, f->s.nodes[runner]->cfg.name);
		assert_int_equal(c->state, TASK_CANCELLED);
		assert_int_equal(c->confirmed, 1);
	}
	node_status(f->s.nodes[copy], &st);
	assert_int_equal(st.tail_stopped, 1);
	done(f);
}

/* Off, or while any task waits: no copy. */
static void
test_no_copy_when_off_or_while_work_waits(void **state)
{
	struct fixture		*f = boot(3, 0);
	char			 u[UUID_STRLEN + 1], r[UUID_STRLEN + 1];
	char			 w[4][UUID_STRLEN + 1];
	struct node_status	 st;
	int			 i, runner, copy;

	(void)state;
	tail_of_one(f, u, r, &runner, &copy);
	assert_int_equal(copy, -1);
	assert_null(node_find(f->s.nodes[0], r));
	done(f);

	/* Four tasks on three slots: one waits, nothing is copied. */
	f = boot(3, 2);
	for (i = 0; i < 4; i++)
		assert_int_equal(sim_schedule(&f->s, 0, "free", PRIO_LOW, 0,
		    NULL, w[i]), 0);
	sim_run_until(&f->s, f->s.now + 4 * f->s.cfg.progress_interval_ms);
	node_status(f->s.nodes[0], &st);
	assert_int_equal(st.nready, 1);
	for (i = 0; i < 4; i++) {
		tail_uuid(w[i], TAIL_INDEX_BASE, r);
		assert_null(node_find(f->s.nodes[0], r));
	}
	done(f);
}

/* What a peer may not say: a task won by a replica that has no
 * confirmed result, or with other outputs than the replica's. */
static void
test_a_won_end_must_follow_from_the_replica(void **state)
{
	struct fixture		*f = boot(3, 2);
	char			 u[UUID_STRLEN + 1], r[UUID_STRLEN + 1];
	char			 out[] = "forged";
	char			*outs[1] = { out };
	struct task		*claim;
	struct node		*n;
	int			 runner, copy;

	(void)state;
	tail_of_one(f, u, r, &runner, &copy);
	n = f->s.nodes[0];
	claim = task_new(u, "free", 0);
	snprintf(claim->reason, sizeof claim->reason, "tail-won:%s", r);
	claim->state = TASK_TERMINATED;
	snprintf(claim->scheduled_by, sizeof claim->scheduled_by, "n00");
	assert_false(tail_derived(n, claim, TASK_TERMINATED));
	sim_finish(&f->s, copy, r);
	sim_run_until(&f->s, f->s.now + 1000);
	assert_int_equal(task_set_outputs(claim,
	    node_find(n, r)->outputs, node_find(n, r)->noutputs), 0);
	assert_true(tail_derived(n, claim, TASK_TERMINATED));
	/* A replica the task's taker did not make wins nothing. */
	snprintf(claim->scheduled_by, sizeof claim->scheduled_by, "n02");
	assert_false(tail_derived(n, claim, TASK_TERMINATED));
	snprintf(claim->scheduled_by, sizeof claim->scheduled_by, "n00");
	assert_true(tail_derived(n, claim, TASK_TERMINATED));
	assert_int_equal(task_set_outputs(claim, outs, 1), 0);
	assert_false(tail_derived(n, claim, TASK_TERMINATED));
	task_free(claim);
	done(f);
}

/* A replica's uuid is the hash of its task's and its index: a record
 * of one under another uuid is refused. */
static void
test_a_replica_under_another_uuid_is_refused(void **state)
{
	struct fixture	*f = boot(3, 2);
	char		 u[UUID_STRLEN + 1], r[UUID_STRLEN + 1];
	char		 line[RECORD_LINE_MAX], err[REASON_MAXLEN + 1];
	struct task	*copy;
	int		 len, runner, on;

	(void)state;
	tail_of_one(f, u, r, &runner, &on);
	len = wire_task_encode(node_find(f->s.nodes[0], r), line,
	    sizeof line);
	assert_true(len > 0);
	copy = wire_task_decode(line, (size_t)len, err, sizeof err);
	assert_non_null(copy);
	assert_true(plausible_record(f->s.nodes[1], "n00", copy, f->s.now));
	copy->uuid[0] = copy->uuid[0] == 'a' ? 'b' : 'a';
	assert_false(plausible_record(f->s.nodes[1], "n00", copy, f->s.now));
	task_free(copy);
	done(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_replica_runs_on_another_node_and_its_result_wins),
		cmocka_unit_test(
		    test_original_result_wins_and_cancels_the_replica),
		cmocka_unit_test(test_no_copy_when_off_or_while_work_waits),
		cmocka_unit_test(test_a_won_end_must_follow_from_the_replica),
		cmocka_unit_test(test_a_replica_under_another_uuid_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
