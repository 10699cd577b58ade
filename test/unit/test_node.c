/*
 * test_node.c -- the scheduling state machine, driven directly.
 */
#include "testutil.h"

#include "estimate.h"
#include "heartbeat.h"
#include "placement.h"

static void
test_workflow_binds_outputs_in_order(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task	*g, *s;

	plmi2_workflow(n, 1, PRIO_LOW, 1000);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_SUBMITTED);
	assert_int_equal(count_actions(n, ACT_JOURNAL, uuid_n(4)), 1);
	outbox_clear(node_outbox(n));

	terminate(n, uuid_n(1), 3, 2000);
	g = node_find(n, uuid_n(2));
	assert_int_equal(g->state, TASK_READY);
	assert_string_equal(g->inputs[0].dataset, "00000001-1");
	assert_string_equal(g->inputs[1].dataset, "00000001-2");
	assert_string_equal(g->inputs[2].dataset, "00000001-3");
	/* The slot frees when the process exits, not at TERMINATED. */
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	exit_with(n, uuid_n(1), 0, 2001);
	assert_int_equal(g->state, TASK_RUNNING);

	terminate(n, uuid_n(2), 2, 3000);
	exit_with(n, uuid_n(2), 0, 3000);
	s = node_find(n, uuid_n(3));
	assert_int_equal(s->state, TASK_RUNNING);
	assert_string_equal(s->inputs[0].dataset, "00000001-1");
	assert_string_equal(s->inputs[1].dataset, "00000002-1");
	assert_string_equal(s->inputs[2].dataset, "00000002-2");
	terminate(n, uuid_n(3), 1, 4000);
	exit_with(n, uuid_n(3), 0, 4000);
	terminate(n, uuid_n(4), 1, 5000);
	exit_with(n, uuid_n(4), 0, 5000);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_TERMINATED);
	assert_int_equal(node_find(n, uuid_n(4))->end_ms, 5000);
	assert_int_equal(status_of(n).running, 0);
}

static void
test_schedule_rejects_bad_requests(void **state)
{
	struct node_fixture *f = *state;
	struct node		*n = f->n;
	struct task_binding	 b[3];
	char			 err[256];

	assert_int_equal(sched(n, 1, "import", 0, 10, 0, NULL, NULL), 0);
	outbox_clear(node_outbox(n));

	assert_int_equal(sched(n, 2, "nosuch", 0, 10, 0, NULL, err), -1);
	assert_non_null(strstr(err, "unknown executable"));
	assert_int_equal(sched(n, 2, "../import", 0, 10, 0, NULL, err), -1);
	/* Wrong number of -a. */
	memcpy(b[0].uuid, uuid_n(1), sizeof b[0].uuid); b[0].nth = 1;
	assert_int_equal(sched(n, 2, "georeferencing", 0, 10, 1, b, err), -1);
	assert_non_null(strstr(err, "takes 3 inputs"));
	/* Unknown upstream uuid. */
	memcpy(b[1].uuid, uuid_n(99), sizeof b[1].uuid); b[1].nth = 2;
	memcpy(b[2].uuid, uuid_n(1), sizeof b[2].uuid); b[2].nth = 3;
	assert_int_equal(sched(n, 2, "georeferencing", 0, 10, 3, b, err), -1);
	assert_non_null(strstr(err, "unknown task"));
	/* Output index import does not have. */
	memcpy(b[1].uuid, uuid_n(1), sizeof b[1].uuid); b[1].nth = 2;
	b[2].nth = 4;
	assert_int_equal(sched(n, 2, "georeferencing", 0, 10, 3, b, err), -1);
	assert_non_null(strstr(err, "no output 4"));
	/* Input wired to the wrong output of the right type. */
	b[2].nth = 1;
	assert_int_equal(sched(n, 2, "georeferencing", 0, 10, 3, b, err), -1);
	assert_non_null(strstr(err, "must be output 3"));
	/* Wrong upstream type. */
	memcpy(b[0].uuid, uuid_n(1), sizeof b[0].uuid); b[0].nth = 1;
	assert_int_equal(sched(n, 2, "anomaly_detection", 0, 10, 1, b, err),
	    -1);
	assert_non_null(strstr(err, "segmentation"));

	/* Nothing changed: one task, no actions. */
	assert_int_equal(status_of(n).ntasks, 1);
	assert_int_equal(node_outbox(n)->n, 0);
}

/* A task whose record could outgrow a datagram once its inputs are
 * bound is refused at SCHEDULE, not dropped later. */
static void
test_schedule_refuses_a_record_that_could_outgrow_a_datagram(void **state)
{
	struct taskdesc_set	 set;
	struct taskdesc		 d;
	struct task_binding	 b[TASK_INPUTS_MAX];
	struct node		*n;
	char			 err[256];
	int			 i;

	plmi2_descs(&set);
	memset(&d, 0, sizeof d);
	snprintf(d.name, sizeof d.name, "wide");
	snprintf(d.type, sizeof d.type, "wide");
	d.noutputs = 1;
	d.ninputs = 40;
	assert_int_equal(taskdesc_add(&set, &d), 0);
	n = test_node_named(&set, "alpha", 1);
	assert_int_equal(sched(n, 1, "free", 0, 10, 0, NULL, NULL), 0);
	for (i = 0; i < 40; i++) {
		memcpy(b[i].uuid, uuid_n(1), sizeof b[i].uuid);
		b[i].nth = 1;
	}
	assert_int_equal(sched(n, 2, "wide", 0, 11, 40, b, err), -1);
	assert_non_null(strstr(err, "could grow to"));
	assert_null(node_find(n, uuid_n(2)));
	/* One input is far from the limit. */
	assert_int_equal(sched(n, 3, "any", 0, 12, 1, b, err), 0);
	node_free(n);
	taskdesc_clear(&set);
}

static void
test_interactive_overtakes_low(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 101, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 3, "free", PRIO_LOW, 102, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 4, "free", PRIO_INTERACTIVE, 103, 0, NULL,
	    NULL), 0);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	outbox_clear(node_outbox(n));
	terminate(n, uuid_n(1), 1, 200);
	exit_with(n, uuid_n(1), 0, 200);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_READY);
	terminate(n, uuid_n(4), 1, 300);
	exit_with(n, uuid_n(4), 0, 300);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
}

/* Task `k`, bound to output 1 of task `up` (0: none): a chain link. */
static void
link(struct node *n, int k, int up, int prio, int64_t now)
{
	struct task_binding	b[3];
	int			i;

	for (i = 0; i < 3; i++) {
		memcpy(b[i].uuid, uuid_n(up), sizeof b[i].uuid);
		b[i].nth = i + 1;
	}
	assert_int_equal(up == 0 ? sched(n, k, "import", prio, now, 0, NULL,
	    NULL) : sched(n, k, "georeferencing", prio, now, 3, b, NULL), 0);
}

/*
 * A low task upstream of an interactive one goes with it: its workflow
 * is interactive, and older workflows first.  Ranked by its own
 * priority, the interactive import of the later workflow would run
 * first and delay both.
 */
static void
test_a_workflow_is_as_urgent_as_its_most_urgent_task(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	link(n, 10, 0, PRIO_LOW, 20);
	link(n, 11, 10, PRIO_INTERACTIVE, 21);
	link(n, 20, 0, PRIO_INTERACTIVE, 30);
	link(n, 30, 0, PRIO_LOW, 40);
	assert_string_equal(node_find(n, uuid_n(11))->workflow, uuid_n(10));
	assert_string_equal(node_find(n, uuid_n(10))->workflow, "");
	terminate(n, uuid_n(1), 1, 100);
	exit_with(n, uuid_n(1), 0, 100);
	assert_int_equal(state_of(n, uuid_n(10)), TASK_RUNNING);
	terminate(n, uuid_n(10), 3, 200);
	exit_with(n, uuid_n(10), 0, 200);
	/* Its own workflow's next task, before the later workflows. */
	assert_int_equal(state_of(n, uuid_n(11)), TASK_RUNNING);
	terminate(n, uuid_n(11), 2, 300);
	exit_with(n, uuid_n(11), 0, 300);
	assert_int_equal(state_of(n, uuid_n(20)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(30)), TASK_READY);
}

/* A batch window's lret order runs the longest chain first (the
 * shortest total makespan); outside it, first come, first served. */
static void
test_a_batch_window_orders_longest_path_first(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct vol_decision batch = { VOL_BATCH, 1, 0, 0, "batch",
			    ORDER_LRET, 0, 0, 0 };
	struct vol_decision idle = { VOL_IDLE, 1, 0, 0, "idle", ORDER_NODE,
	    0, 0, 0 };

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 5, "free", PRIO_LOW, 20, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 6, "free", PRIO_LOW, 25, 0, NULL, NULL), 0);
	link(n, 10, 0, PRIO_LOW, 30);
	link(n, 11, 10, PRIO_LOW, 31);
	node_volunteer(n, &batch, 40);
	terminate(n, uuid_n(1), 1, 100);
	exit_with(n, uuid_n(1), 0, 100);
	assert_int_equal(state_of(n, uuid_n(10)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(5)), TASK_READY);
	/* The window closes: the oldest first again. */
	node_volunteer(n, &idle, 150);
	terminate(n, uuid_n(10), 3, 200);
	exit_with(n, uuid_n(10), 0, 200);
	assert_int_equal(state_of(n, uuid_n(5)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(11)), TASK_READY);
}

/* Task k ends with nout outputs at `at`, and its process exits. */
static void
finish(struct node *n, int k, int nout, int64_t at)
{
	terminate(n, uuid_n(k), nout, at);
	exit_with(n, uuid_n(k), 0, at);
}

/* One run of exec on n, from now to now + took (its type's time learned
 * once the end is confirmed: a pool of one confirms it at once). */
static void
run_for(struct node *n, int k, const char *exec, int up, int64_t now,
    int64_t took)
{
	struct task_binding	b = { .nth = 1 };

	memcpy(b.uuid, uuid_n(up), sizeof b.uuid);
	assert_int_equal(sched(n, k, exec, PRIO_LOW, now, up > 0, &b, NULL),
	    0);
	assert_int_equal(state_of(n, uuid_n(k)), TASK_RUNNING);
	finish(n, k, strcmp(exec, "import") == 0 ? 3 : 1, now + took);
	assert_int_equal(state_of(n, uuid_n(k)), TASK_TERMINATED);
}

/* Batch windows that order the queue lret and sret. */
static const struct vol_decision lret_window = { VOL_BATCH, 1, 0, 0,
	"batch", ORDER_LRET, 0, 0, 0 };
static const struct vol_decision sret_window = { VOL_BATCH, 1, 0, 0,
	"batch", ORDER_SRET, 0, 0, 0 };

/*
 * lret and sret rank by the run time left on a task's longest path, as
 * the pool learned each type's: imports take 5 s, free 0.1 s and any 3 s
 * here.  lret: the import (5 s), then the free task with an any after it
 * (3.1 s), then the free one alone; sret the other way round.  In tasks
 * alone, the free task with a dependent would go first.
 */
static void
test_lret_and_sret_rank_by_the_run_time_left(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task_binding b = { .nth = 1 };

	/* Nothing learned yet: a type counts as a second. */
	assert_int_equal(placement_rank_ms(n, "import"), RANK_UNKNOWN_MS);
	run_for(n, 1, "import", 0, 10, 5000);
	run_for(n, 2, "free", 0, 6000, 100);
	run_for(n, 3, "any", 2, 7000, 3000);
	/* A run a tenth longer does not move what the queue counts. */
	run_for(n, 4, "free", 0, 11000, 110);
	assert_int_equal(placement_rank_ms(n, "free"), 100);

	assert_int_equal(sched(n, 9, "free", PRIO_LOW, 20000, 0, NULL, NULL),
	    0);		/* runs: the others wait behind it */
	assert_int_equal(sched(n, 10, "free", PRIO_LOW, 20001, 0, NULL,
	    NULL), 0);
	assert_int_equal(sched(n, 11, "free", PRIO_LOW, 20002, 0, NULL,
	    NULL), 0);
	memcpy(b.uuid, uuid_n(11), sizeof b.uuid);
	assert_int_equal(sched(n, 12, "any", PRIO_LOW, 20003, 1, &b, NULL),
	    0);
	assert_int_equal(sched(n, 13, "import", PRIO_LOW, 20004, 0, NULL,
	    NULL), 0);
	assert_int_equal(node_find(n, uuid_n(11))->rest_ms, 100 + 3000);

	node_volunteer(n, &lret_window, 20010);
	finish(n, 9, 1, 20100);
	assert_int_equal(state_of(n, uuid_n(13)), TASK_RUNNING);
	finish(n, 13, 3, 25100);
	assert_int_equal(state_of(n, uuid_n(11)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(10)), TASK_READY);

	/* sret: the free task alone, before the any its run made Ready. */
	node_volunteer(n, &sret_window, 25200);
	finish(n, 11, 1, 25300);
	assert_int_equal(state_of(n, uuid_n(10)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(12)), TASK_READY);
}

/*
 * A bag of one program: what its runs took says nothing of which task is
 * long.  Given each task's estimate (--estimate), lret runs the longest
 * first and sret the shortest, and each counts its own estimate, scaled
 * by how the program's runs bore such estimates out; one beyond a year
 * is refused.
 */
static void
test_estimates_rank_a_bag_of_one_program(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	const struct task *t;

	run_for(n, 1, "free", 0, 10, 100);
	assert_int_equal(sched(n, 9, "free", PRIO_LOW, 20000, 0, NULL, NULL),
	    0);		/* runs: the others wait behind it */
	assert_int_equal(sched_est(n, 10, "free", 20001, 2000), 0);
	assert_int_equal(sched_est(n, 11, "free", 20002, 60000), 0);
	assert_int_equal(sched_est(n, 12, "free", 20003, 10000), 0);
	assert_non_null(t = node_find(n, uuid_n(12)));
	assert_int_equal(t->est_ms, 10000);
	assert_int_equal(t->rest_ms, 10000);
	assert_int_equal(estimate_task_ms(n, t, 2 * SPEED_UNIT), 5000);
	/* Without one: what the program's runs took. */
	assert_int_equal(estimate_task_ms(n, node_find(n, uuid_n(9)),
	    SPEED_UNIT), placement_estimate(n, "free", SPEED_UNIT));

	node_volunteer(n, &lret_window, 20010);
	finish(n, 9, 1, 20100);
	assert_int_equal(state_of(n, uuid_n(11)), TASK_RUNNING);
	node_volunteer(n, &sret_window, 20200);
	finish(n, 11, 1, 20300);
	assert_int_equal(state_of(n, uuid_n(10)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(12)), TASK_READY);
	/* Task 11, said to take a minute, took 0.2 s: the others' runs are
	 * expected to bear their estimates out as it did; their rank, the
	 * same on every node, is the estimate as given. */
	assert_int_equal(estimate_task_ms(n, t, SPEED_UNIT),
	    10000 * 200 / 60000);
	assert_int_equal(t->rest_ms, 10000);
	assert_int_equal(sched_est(n, 13, "free", 20400, TASK_EST_MAX + 1),
	    -1);
	assert_null(node_find(n, uuid_n(13)));
}

/* Task k of exec to end by deadline (epoch ms); 0 or -1 and err. */
static int
sched_by(struct node *n, int k, const char *exec, int64_t now,
    int64_t deadline, char *err)
{
	struct node_schedule_req	req;

	memset(&req, 0, sizeof req);
	req.exec = exec;
	req.prio = PRIO_LOW;
	req.client = "127.0.0.1:1";
	req.deadline_ms = deadline;
	return node_schedule(n, &req, uuid_n(k), now, err, 256);
}

/* The same, --deadline-strict. */
static int
sched_strict(struct node *n, int k, int64_t now, int64_t deadline,
    char *err)
{
	struct node_schedule_req	req;

	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.prio = PRIO_LOW;
	req.client = "127.0.0.1:1";
	req.deadline_ms = deadline;
	req.deadline_strict = 1;
	return node_schedule(n, &req, uuid_n(k), now, err, 256);
}

/*
 * A deadline: a task with one goes before the queue's older tasks
 * without (the least slack first), and its forecast counts what waits
 * and runs ahead of it: here free tasks of a second each on one slot.
 * A deadline already past is refused.
 */
static void
test_deadline_work_goes_first_and_is_forecast(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	char		 err[256];

	run_for(n, 1, "free", 0, 10, 1000);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 2000, 0, NULL, NULL),
	    0);		/* runs from 2000 */
	assert_int_equal(sched(n, 3, "free", PRIO_LOW, 2001, 0, NULL, NULL),
	    0);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 2002, 0, NULL, NULL),
	    0);
	assert_int_equal(sched_by(n, 5, "free", 2500, 2500, err), -1);
	assert_non_null(strstr(err, "deadline is past"));
	assert_int_equal(sched_by(n, 6, "free", 2500, 60000, err), 0);
	assert_int_equal(sched_by(n, 7, "free", 2500, 30000, err), 0);
	/* 7 first (the least slack), then 6: ahead of 6, 7's second and
	 * the rest of 2's, then its own second. */
	assert_int_equal(node_task_forecast(n, node_find(n, uuid_n(6)), 2500),
	    2500 + 1000 + 500 + 1000);
	finish(n, 2, 1, 3000);
	assert_int_equal(state_of(n, uuid_n(7)), TASK_RUNNING);
	finish(n, 7, 1, 4000);
	assert_int_equal(state_of(n, uuid_n(6)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_READY);
	/* --deadline-strict: one due by 5500 would go first, after 6's run,
	 * and end at 6000: it never enters the map; due by 6000 it does. */
	assert_int_equal(sched_strict(n, 8, 4000, 5500, err), -1);
	assert_non_null(strstr(err, "cannot meet its deadline: expected to "
	    "end 1 s after it"));
	assert_null(node_find(n, uuid_n(8)));
	assert_int_equal(sched_strict(n, 8, 4000, 6000, err), 0);
	assert_non_null(node_find(n, uuid_n(8)));
}

/*
 * A task forecast at submit to miss its deadline goes as one without
 * (after older work, FCFS): a later task that can still meet its own
 * takes the slot first.  The mark travels in its record.
 */
static void
test_a_task_that_cannot_meet_its_deadline_goes_after(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task	*copy;
	char		 err[256];

	run_for(n, 1, "free", 0, 10, 1000);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 2000, 0, NULL, NULL),
	    0);		/* runs till 3000 */
	assert_int_equal(sched_by(n, 3, "free", 2000, 2500, err), 0);
	assert_true(node_find(n, uuid_n(3))->deadline_late);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 2001, 0, NULL, NULL),
	    0);
	assert_int_equal(sched_by(n, 5, "free", 2002, 60000, err), 0);
	assert_false(node_find(n, uuid_n(5))->deadline_late);
	finish(n, 2, 1, 3000);
	assert_int_equal(state_of(n, uuid_n(5)), TASK_RUNNING);
	finish(n, 5, 1, 4000);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_READY);
	copy = record_copy(node_find(n, uuid_n(3)));
	assert_true(copy->deadline_late);
	task_free(copy);
}

/*
 * The forecast plays the queue on the pool's slots: on two slots, both
 * busy until 3000, the task ahead takes the first to come free and ours
 * the other, so it ends at 4000 (work shared out as a fluid would say
 * 4500: 3 s of work over 2 slots, then its own second).
 */
static void
test_forecast_plays_the_queue_on_the_slots(void **state)
{
	struct node		*n;
	struct taskdesc_set	set;
	char			err[256];

	(void)state;
	n = test_node(&set, 2);
	run_for(n, 1, "free", 0, 10, 1000);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 2000, 0, NULL, NULL),
	    0);
	assert_int_equal(sched(n, 3, "free", PRIO_LOW, 2000, 0, NULL, NULL),
	    0);
	assert_int_equal(status_of(n).running, 2);
	assert_int_equal(sched_by(n, 4, "free", 2000, 30000, err), 0);
	assert_int_equal(sched_by(n, 5, "free", 2000, 60000, err), 0);
	assert_int_equal(node_task_forecast(n, node_find(n, uuid_n(4)), 2000),
	    4000);
	assert_int_equal(node_task_forecast(n, node_find(n, uuid_n(5)), 2000),
	    4000);
	node_free(n);
	taskdesc_clear(&set);
}

/* Task k's end as views show it at now. */
static int64_t
eta_of(struct node *n, int k, int64_t now)
{
	return node_task_eta(n, node_find(n, uuid_n(k)), now);
}

/*
 * What people look at counts the queue for every task, as the forecast
 * does: two slots busy until 4000, 4 and 5 wait for them; 6, after 5,
 * ends a second after 5's forecast end (its chain alone says 5000).  A
 * run that overruns pushes what waits behind it.  A task newer than the
 * board has its chain's end until the board may be played again.
 */
static void
test_views_count_the_queue_for_every_task(void **state)
{
	struct node		*n;
	struct taskdesc_set	set;
	struct task_binding	b = { .nth = 1 };
	int			k;

	(void)state;
	n = test_node(&set, 2);
	run_for(n, 1, "free", 0, 10, 1000);
	run_for(n, 8, "any", 1, 1010, 1000);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 3000, 0, NULL, NULL),
	    0);
	assert_int_equal(sched(n, 3, "free", PRIO_LOW, 3000, 0, NULL, NULL),
	    0);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 3000, 0, NULL, NULL),
	    0);
	assert_int_equal(sched(n, 5, "free", PRIO_LOW, 3000, 0, NULL, NULL),
	    0);
	memcpy(b.uuid, uuid_n(5), sizeof b.uuid);
	assert_int_equal(sched(n, 6, "any", PRIO_LOW, 3000, 1, &b, NULL), 0);
	assert_int_equal(eta_of(n, 4, 3000), node_task_forecast(n,
	    node_find(n, uuid_n(4)), 3000));
	assert_int_equal(eta_of(n, 4, 3000), 5000);
	assert_int_equal(eta_of(n, 5, 3000), 5000);
	assert_int_equal(eta_of(n, 6, 3000), 6000);
	assert_int_equal(node_task_end_estimate(n, node_find(n, uuid_n(6)),
	    3000), 5000);
	assert_int_equal(sched(n, 7, "free", PRIO_LOW, 3050, 0, NULL, NULL),
	    0);
	assert_int_equal(eta_of(n, 7, 3050), 6000);
	/* 2 ends on time and 4 takes its slot; 3 overruns: at 4500 it
	 * should end a second from now.  5 waits for 4, 7 for 3. */
	finish(n, 2, 1, 4000);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	assert_int_equal(eta_of(n, 5, 4500), 6000);
	assert_int_equal(eta_of(n, 7, 4500), 6500);
	assert_int_equal(eta_of(n, 6, 4500), 7000);
	/* A hundred more, shared by the two slots (from 6000 and, 3 still
	 * overrunning, 5600 + 1000): 199, the hundredth, on the second.
	 * The board is played again 2 ms after its last play at the
	 * soonest; until then a new task has its chain's end. */
	for (k = 100; k < 200; k++)
		assert_int_equal(sched(n, k, "free", PRIO_LOW, 4600, 0, NULL,
		    NULL), 0);
	assert_int_equal(eta_of(n, 199, 4600), 6600 + 50 * 1000);
	assert_int_equal(sched(n, 200, "free", PRIO_LOW, 4601, 0, NULL, NULL),
	    0);
	assert_int_equal(eta_of(n, 200, 4601), 5601);
	assert_int_equal(eta_of(n, 200, 4600 +
	    102 / ESTIMATE_TASKS_PER_MS), 6000 + 50 * 1000 + 1000);
	node_free(n);
	taskdesc_clear(&set);
}

/*
 * The forecast counts a batch window ahead: the user at the desk now,
 * its night window opening in an hour, a task of a second ends an hour
 * and a second from now.  A window too short for the run, or one open
 * now that closes before it would end, takes nothing.
 */
static void
test_forecast_counts_the_batch_window_ahead(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct vol_decision busy = { VOL_BUSY, 0, 0, 0, "busy", ORDER_NODE,
			    0, 3600000, 7200000 };
	struct vol_decision batch = { VOL_BATCH, 1, 0, 0, "batch",
			    ORDER_NODE, 0, 0, 5000 };
	char		 err[256];
	const struct task *t;

	run_for(n, 1, "free", 0, 10, 1000);
	node_volunteer(n, &busy, 2000);
	assert_int_equal(sched_by(n, 2, "free", 2000, 9000000, err), 0);
	t = node_find(n, uuid_n(2));
	assert_int_equal(node_task_forecast(n, t, 2000), 2000 + 3600000 +
	    1000);
	busy.window_ms = 500;
	node_volunteer(n, &busy, 2000);
	assert_int_equal(node_task_forecast(n, t, 2000), -1);
	/* In a window that ends in 5 s: 2 runs, 3 follows it; in one that
	 * ends in 1.5 s, 3 would not end in it. */
	node_volunteer(n, &batch, 2000);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	assert_int_equal(sched_by(n, 3, "free", 2000, 9000000, err), 0);
	t = node_find(n, uuid_n(3));
	assert_int_equal(node_task_forecast(n, t, 2000), 4000);
	batch.window_ms = 1500;
	node_volunteer(n, &batch, 2000);
	assert_int_equal(node_task_forecast(n, t, 2000), -1);
}

/*
 * A peer's window, as its heartbeat tells it, counts the same; ours goes
 * in our heartbeats, in seconds from then; a malformed one is refused
 * with its heartbeat.
 */
static void
test_a_peers_window_counts_and_ours_is_told(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct vol_decision busy = { VOL_BUSY, 0, 0, 0, "busy", ORDER_NODE,
			    0, 0, 0 };
	static const char *bad[] = { "window=", "window=60", "window=-1,60",
	    "window=60,0", "window=60,999999999", "window=60,60 x",
	    "window=a,60", "window=60,,60" };
	char		 err[256], body[256];
	const char	*hb;
	struct peer_msg	*m = malloc(sizeof *m);
	size_t		 i;

	assert_non_null(m);
	run_for(n, 1, "free", 0, 10, 1000);
	node_volunteer(n, &busy, 2000);
	assert_int_equal(sched_by(n, 2, "free", 2000, 9000000, err), 0);
	assert_int_equal(node_task_forecast(n, node_find(n, uuid_n(2)), 2000),
	    -1);			/* nobody takes tasks, or will */
	hear(n, "beta", "HEARTBEAT 0 0 1 1 busy 10 0 0 7600 1000 0 2000 500 "
	    "window=60,3600", 2000);
	assert_int_equal(node_task_forecast(n, node_find(n, uuid_n(2)), 2000),
	    2000 + 60000 + 1000);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int hl = peer_header(body, sizeof body, "test", "beta", 1, 7000);
		snprintf(body + hl, sizeof body - hl, "HEARTBEAT 0 0 1 1 busy "
		    "10 0 0 7600 1000 0 2000 500 %s", bad[i]);
		if (peer_parse(body, strlen(body), m, err, sizeof err) == 0)
			fail_msg("accepted: %s", bad[i]);
	}
	free(m);
	busy.window_in_ms = 3600500;
	busy.window_ms = 7200000;
	node_volunteer(n, &busy, 2000);
	clear(n);
	node_start(n, 62000);		/* it says hello */
	assert_non_null(hb = sent(n, NULL, "HEARTBEAT"));
	assert_non_null(strstr(hb, " window=3540,7200"));
}

/*
 * A desktop switched off every evening keeps what it learned of its
 * volunteer periods: the core tells them (ACT_STAY), the shell keeps
 * them, and at the next start they come back with the period the stop
 * ended (its start to the last time the node was known up).  Its
 * expected stay is then their mean rest, not its age.  What the core did
 * not write changes nothing.
 */
static void
test_volunteer_periods_outlive_a_switch_off(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct vol_decision busy = { VOL_BUSY, 0, 0, 0, "busy", ORDER_NODE,
			    0, 0, 0 };
	struct vol_decision idle = { VOL_IDLE, 1, 0, 0, "idle", ORDER_NODE,
			    0, 0, 0 };
	static const char *bad[] = { "", "x", "-1 x", "-1 -5", "1 2 ",
	    "-1 99999999999", "9000 1", "-2 1", "-1  1", "1e3 1",
	    "-1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 "
	    "23 24 25 26 27 28 29 30 31 32 33" };
	struct node	*again = test_node_named(&f->set, "alpha", 1);
	size_t		 i;

	clear(n);
	node_volunteer(n, &idle, 1000);
	node_volunteer(n, &busy, 101000);
	assert_string_equal(last_text(n, ACT_STAY), "-1 100");
	node_volunteer(n, &idle, 200000);
	assert_string_equal(last_text(n, ACT_STAY), "200000 100");
	/* Switched off, last stamped at 260 s; started again at 300 s. */
	node_start(again, 300000);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(node_stay_restore(again, bad[i], 8000,
		    300000), -1);
	assert_int_equal(node_stay_restore(again, "200000 100 400", 260000,
	    300000), 0);
	/* Written again whole: its start told only its new period's start. */
	assert_string_equal(last_text(again, ACT_STAY), "300000 100 400 60");
	/* 100, 400 and the 60 s the stop ended: 186 s to go on average,
	 * at age 0 (nothing the refused texts said counts). */
	assert_int_equal(placement_life_s(again, 300000), 186);
	node_free(again);
}

/* The user is back and the admin wants runs throttled: our run is slowed
 * (ACT_THROTTLE), stays Running, and goes full speed when the user
 * leaves; the node says "throttled". */
static void
test_a_run_is_throttled_while_the_user_is_back(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct vol_decision back = { VOL_BUSY, 0, 0, 0, "throttled",
			    ORDER_NODE, 1, 0, 0 };
	struct vol_decision idle = { VOL_IDLE, 1, 0, 0, "idle", ORDER_NODE,
			    0, 0, 0 };

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	clear(n);
	node_volunteer(n, &back, 20);
	assert_int_equal(count_actions(n, ACT_THROTTLE, uuid_n(1)), 1);
	assert_int_equal(count_actions(n, ACT_SUSPEND, NULL), 0);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	assert_false(node_find(n, uuid_n(1))->suspended);
	assert_string_equal(status_of(n).volunteer_state, "throttled");
	/* Told again: nothing new. */
	clear(n);
	node_volunteer(n, &back, 30);
	assert_int_equal(count_actions(n, ACT_THROTTLE, NULL), 0);
	node_volunteer(n, &idle, 40);
	assert_int_equal(count_actions(n, ACT_UNTHROTTLE, uuid_n(1)), 1);
	assert_string_equal(status_of(n).volunteer_state, "idle");
}

static void
test_crash_retried_then_failed(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task_binding b;
	struct task	*t;
	int		 i;

	assert_int_equal(sched(n, 1, "free", 0, 10, 0, NULL, NULL), 0);
	memcpy(b.uuid, uuid_n(1), sizeof b.uuid);
	b.nth = 1;
	assert_int_equal(sched(n, 2, "any", 0, 11, 1, &b, NULL), 0);
	int64_t		 at = 20;

	t = node_find(n, uuid_n(1));
	for (i = 1; i <= 3; i++) {
		assert_int_equal(t->state, TASK_RUNNING);
		assert_int_equal(t->attempts, i);
		outbox_clear(node_outbox(n));
		exit_with(n, uuid_n(1), 3, at);
		if (i == 3)
			break;
		/* Retried after 1 s, then 2 s: not before. */
		assert_int_equal(t->retry_ms, at + (1000 << (i - 1)));
		node_tick(n, t->retry_ms - 1);
		assert_int_equal(t->state, TASK_READY);
		node_tick(n, at = t->retry_ms);
	}
	assert_int_equal(t->state, TASK_FAILED);
	assert_int_equal(t->failures, 3);
	assert_non_null(strstr(t->reason, "status 3"));
	assert_int_equal(state_of(n, uuid_n(2)), TASK_FAILED);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
}

static void
test_error_line_and_wrong_outputs_fail_the_run(void **state)
{
	struct node_fixture *f = *state;
	struct node		*n = f->n;
	struct runner_msg	 m;
	struct task		*t;

	assert_int_equal(sched(n, 1, "import", 0, 10, 0, NULL, NULL), 0);
	t = node_find(n, uuid_n(1));
	outbox_clear(node_outbox(n));
	memset(&m, 0, sizeof m);
	m.type = RMSG_ERROR;
	m.message = "database unreachable";
	node_runner_msg(n, uuid_n(1), &m, 20);
	assert_int_equal(count_actions(n, ACT_STOP, uuid_n(1)), 1);
	exit_with(n, uuid_n(1), 1, 21);
	assert_int_equal(t->failures, 1);
	node_tick(n, t->retry_ms);
	assert_int_equal(t->state, TASK_RUNNING);	/* attempt 2 */

	/* import declares 3 outputs: TERMINATED with 2 is a failed run. */
	outbox_clear(node_outbox(n));
	terminate(n, uuid_n(1), 2, 1030);
	assert_int_equal(t->state, TASK_RUNNING);
	assert_int_equal(count_actions(n, ACT_STOP, uuid_n(1)), 1);
	exit_with(n, uuid_n(1), 0, 1031);
	assert_int_equal(t->failures, 2);
	node_tick(n, t->retry_ms);

	/* The last attempt's message becomes the reason clients read: a
	 * control byte in it cannot forge a line. */
	m.message = "disk\nPROGRESS x 100 Terminated";
	node_runner_msg(n, uuid_n(1), &m, 3040);
	exit_with(n, uuid_n(1), 1, 3041);
	assert_int_equal(t->state, TASK_FAILED);
	assert_null(strchr(t->reason, '\n'));
	assert_non_null(strstr(t->reason, "disk PROGRESS x 100"));
	assert_non_null(sent(n, NULL, "STATE "));	/* and it was sent */
}

/*
 * The shell holds a run's TERMINATED until its process exits, and hands
 * both over at once: the end record carries what the run cost.  A run
 * that failed carries its own; nothing measured, nothing is told.
 */
static void
test_the_end_record_carries_what_the_run_cost(void **state)
{
	struct node_fixture *f = *state;
	struct node		*n = f->n;
	struct runner_msg	 m;
	struct node_exit	 e = { 0, 0, 1234, 5678, &m };
	struct task		*t;
	static char		*ids[] = { "a", "b", "c" };
	const char		*rec;

	assert_int_equal(sched(n, 1, "import", 0, 10, 0, NULL, NULL), 0);
	t = node_find(n, uuid_n(1));
	memset(&m, 0, sizeof m);
	m.type = RMSG_TERMINATED;
	m.noutputs = 3;
	memcpy(m.outputs, ids, sizeof ids);
	clear(n);
	node_runner_exit(n, uuid_n(1), &e, 20);
	assert_int_equal(t->state, TASK_TERMINATED);
	assert_int_equal(t->run, RUN_NONE);
	assert_true(t->cpu_ms == 1234 && t->maxrss_kib == 5678);
	assert_int_equal(t->exit_status, 0);
	assert_non_null(rec = sent(n, NULL, "STATE "));
	assert_non_null(strstr(rec, " ws=0 cpu=1234 rss=5678"));

	/* Killed by a signal, no result: 256 + the signal, and retried. */
	assert_int_equal(sched(n, 2, "import", 0, 30, 0, NULL, NULL), 0);
	t = node_find(n, uuid_n(2));
	e.code = -1;
	e.signo = 9;
	e.result = NULL;
	node_runner_exit(n, uuid_n(2), &e, 40);
	assert_int_equal(t->failures, 1);
	assert_int_equal(t->exit_status, 256 + 9);

	/* A run that could not start measured nothing. */
	assert_int_equal(sched(n, 3, "import", 0, 50, 0, NULL, NULL), 0);
	t = node_find(n, uuid_n(3));
	exit_with(n, uuid_n(3), -1, 60);
	assert_true(t->exit_status == -1 && t->cpu_ms == -1);
}

static void
test_progress_notifies_on_change_only(void **state)
{
	struct node_fixture *f = *state;
	struct node		*n = f->n;
	struct runner_msg	 m;

	assert_int_equal(sched(n, 1, "free", 0, 10, 0, NULL, NULL), 0);
	outbox_clear(node_outbox(n));
	memset(&m, 0, sizeof m);
	m.type = RMSG_PROGRESS;
	m.percent = 40;
	node_runner_msg(n, uuid_n(1), &m, 20);
	node_runner_msg(n, uuid_n(1), &m, 21);
	assert_int_equal(count_actions(n, ACT_NOTIFY, uuid_n(1)), 1);
	assert_non_null(strstr(node_outbox(n)->v[0].text, " 40 Running node=alpha"));
	assert_int_equal(node_find(n, uuid_n(1))->progress, 40);
}

static void
test_interactive_rule_when_not_volunteer(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	node_set_volunteer(n, 0, "busy", 1);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
	assert_int_equal(sched(n, 2, "free", PRIO_INTERACTIVE, 11, 0, NULL,
	    NULL), 0);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	/* Busy host with a task running: nothing more starts. */
	assert_int_equal(sched(n, 3, "free", PRIO_INTERACTIVE, 12, 0, NULL,
	    NULL), 0);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_READY);
	node_set_volunteer(n, 1, "idle", 13);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_READY);	/* 1 slot */
}

static void
test_ageing_promotes_low_tasks(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 0, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	/* The tick for task 2's promotion is asked for. */
	assert_int_equal(status_of(n).timer, 10 + 60000);
	assert_int_equal(sched(n, 3, "free", PRIO_INTERACTIVE, 50000, 0,
	    NULL, NULL), 0);
	node_tick(n, 70010);
	assert_true(node_find(n, uuid_n(2))->aged);
	/* Aged task 2 (submitted at 10) now goes before interactive 3. */
	terminate(n, uuid_n(1), 1, 70020);
	exit_with(n, uuid_n(1), 0, 70020);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
}

static void
test_recover_after_restart(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n, *n2;
	struct taskdesc_set set2;

	plmi2_workflow(n, 1, PRIO_LOW, 1000);
	terminate(n, uuid_n(1), 3, 2000);
	exit_with(n, uuid_n(1), 0, 2000);
	/* Now: 1 Terminated, 2 Running, 3-4 Submitted.  "Crash" and restore
	 * every task through the codec, as the journal does. */
	n2 = test_node(&set2, 1);
	restart_from(n, n2, 5000);
	node_start(n2, 5000);
	assert_int_equal(state_of(n2, uuid_n(1)), TASK_TERMINATED);
	/* Was running: runs again (recovered as Ready, then started). */
	assert_int_equal(state_of(n2, uuid_n(2)), TASK_RUNNING);
	assert_int_equal(node_find(n2, uuid_n(2))->failures, 0);
	assert_int_equal(count_actions(n2, ACT_START, uuid_n(2)), 1);
	assert_int_equal(state_of(n2, uuid_n(3)), TASK_SUBMITTED);
	terminate(n2, uuid_n(2), 2, 6000);
	assert_int_equal(state_of(n2, uuid_n(3)), TASK_READY);
	node_free(n2);
	taskdesc_clear(&set2);
}

static void
test_two_slots_run_two(void **state)
{
	struct node		*n;
	struct taskdesc_set	set;

	n = test_node(&set, 2);
	assert_int_equal(sched(n, 1, "free", 0, 1, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 2, "free", 0, 2, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 3, "free", 0, 3, 0, NULL, NULL), 0);
	assert_int_equal(status_of(n).running, 2);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_READY);
	node_free(n);
	taskdesc_clear(&set);
}

static void
count_peer(const struct peer *p, void *arg)
{
	(*(int *)arg)++;
}

static int
peers_of(const struct node *n)
{
	int	k = 0;

	node_each_peer(n, count_peer, &k);
	return k;
}

/*
 * The peer table is bounded: fake heartbeats under many names fill it
 * to max_peers and no further; a peer dead and out of the membership
 * for peer_evict_ms is forgotten and makes room.
 */
static void
test_the_peer_table_is_bounded(void **state)
{
	struct node_fixture	*f = *state;
	struct node_config	 cfg;
	struct node		*n;
	char			 name[32];
	int			 i;

	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "alpha");
	cfg.max_peers = 3;
	cfg.node_timeout_ms = 1000;
	cfg.membership_timeout_ms = 2000;
	cfg.peer_evict_ms = 5000;
	n = node_new(&cfg, &f->set);
	assert_non_null(n);
	node_start(n, 0);
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof name, "fake%d", i);
		hear_alive(n, name, 10);
	}
	assert_int_equal(peers_of(n), 3);
	assert_non_null(logged(n, "node fake3 ignored: 3 peers known"));
	/* fake0 .. fake2 fall silent: dead at once, members for 2 s, then
	 * forgotten at 5 s -- by the tick, without anyone new. */
	node_tick(n, 1500);
	assert_int_equal(peers_of(n), 3);
	hear_alive(n, "late", 4000);
	assert_int_equal(peers_of(n), 3);	/* none may go yet */
	node_tick(n, 5100);
	assert_int_equal(peers_of(n), 0);
	assert_non_null(logged(n, "node fake0 forgotten"));
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "new%d", i);
		hear_alive(n, name, 5200);
	}
	assert_int_equal(peers_of(n), 3);
	node_free(n);
}

/*
 * A node with nothing to watch sleeps from heartbeat to heartbeat, not
 * every progress interval, and still finds a silent peer dead on time:
 * at the first housekeeping beat past the node timeout.
 */
static void
test_a_quiet_node_sleeps_between_heartbeats(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t = -1;
	int		 wakeups = 0;

	follow_beta(n);		/* heard at 10, then silent */
	while (logged(n, "node beta silent") == NULL) {
		t = status_of(n).timer;
		assert_true(t >= 0 && t <= 3000);
		node_tick(n, t);
		wakeups++;
	}
	assert_non_null(logged(n, "node beta silent for"));
	/* Housekeeping beats every 250 ms from 0: the first after 2010. */
	assert_int_equal(t, 2250);
	/* Our heartbeats at 500, 1000, 1500 and 2000 (beta, new, was told
	 * ours alone at once), the beat at 250 that learns beta's deadline,
	 * the one at 750 that asks beta again for the sync a join asks for
	 * (unanswered: beta is silent), then the one that finds it dead: not
	 * the six beats between. */
	assert_int_equal(wakeups, 7);
}

/*
 * A newcomer is told our heartbeat alone, at once: a join costs each node
 * of the pool one datagram, not one from every other node.  Past
 * GREET_ALONE_MAX newcomers between two heartbeats (a whole office
 * switched on) one broadcast, soon, tells them all.
 */
static void
test_a_newcomer_is_greeted_alone(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	char		 name[16];
	int		 i;

	node_start(n, 0);
	clear(n);
	for (i = 0; i < GREET_ALONE_MAX; i++) {
		snprintf(name, sizeof name, "new%d", i);
		hear_alive(n, name, 10 + i);
		assert_non_null(sent(n, name, "HEARTBEAT "));
	}
	hear_alive(n, "new0", 20);		/* known now: no greeting */
	assert_null(sent_nth(n, "new0", "HEARTBEAT ", 1));
	node_tick(n, 30);
	assert_null(sent(n, NULL, "HEARTBEAT "));
	hear_alive(n, "crowd", 40);
	assert_null(sent(n, "crowd", "HEARTBEAT "));
	node_tick(n, 89);
	assert_null(sent(n, NULL, "HEARTBEAT "));
	node_tick(n, 90);			/* an election window on */
	assert_non_null(sent(n, NULL, "HEARTBEAT "));
	/* The broadcast told them all: the next newcomer is greeted alone
	 * again. */
	hear_alive(n, "late", 100);
	assert_non_null(sent(n, "late", "HEARTBEAT "));
}

/*
 * On a big pool the heartbeat period grows with it, so that a node hears
 * at most HEARD_PER_TIMEOUT heartbeats a node timeout, and a peer is dead
 * after four periods' silence.
 */
static void
test_heartbeats_slow_down_on_a_big_pool(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	char		 name[16];
	int64_t		 t;
	int		 k;

	node_start(n, 0);
	assert_int_equal(heartbeat_period_ms(n), 500);		/* alone */
	for (k = 0; k < 30; k++) {
		snprintf(name, sizeof name, "p%02d", k);
		hear(n, name, "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 1000 0 0 500", 1);
	}
	/* 30 peers: 30 * 2000 / 40 ms. */
	assert_int_equal(heartbeat_period_ms(n), 1500);
	assert_int_equal(heartbeat_timeout_ms(n), 6000);
	/* p00 goes silent; the others talk on. */
	for (t = 1000; t <= 7000; t += 1000) {
		for (k = 1; k < 30; k++) {
			snprintf(name, sizeof name, "p%02d", k);
			hear(n, name, "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 "
			    "1000 0 0 500", t);
		}
		node_tick(n, t);
		if (t <= 6000)
			assert_null(logged(n, "node p00 silent"));
	}
	assert_non_null(logged(n, "node p00 silent for"));
}

/* The period the heartbeat in the outbox told, or -1: none sent. */
static int64_t
beat_told(struct node *n)
{
	const char	*hb = sent(n, NULL, "HEARTBEAT");

	return hb != NULL ? strtoll(strrchr(hb, ' ') + 1, NULL, 10) : -1;
}

/* Tick n from timer to timer while it is before `until`; returns the
 * last heartbeat's time, *told what it told. */
static int64_t
tick_until(struct node *n, int64_t until, int64_t *told)
{
	int64_t	t, last = -1, k;

	clear(n);
	while ((t = status_of(n).timer) >= 0 && t < until) {
		node_tick(n, t);
		if ((k = beat_told(n)) > 0) {
			last = t;
			*told = k;
		}
		clear(n);
	}
	return last;
}

/*
 * An idle pool costs its desktops next to nothing: a node that has run
 * nothing for a node timeout beats every quiet_heartbeat_ms, not four
 * times a timeout, and each heartbeat tells the period to the next.
 */
static void
test_a_node_that_runs_nothing_beats_every_quiet_period(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t, last = -1, told, prev = -1;
	int		 quiet = 0;

	node_start(n, 0);
	assert_int_equal(beat_told(n), 500);
	clear(n);
	while ((t = status_of(n).timer) >= 0 && t < 30000) {
		node_tick(n, t);
		if ((told = beat_told(n)) > 0) {
			/* Busy-fast for a node timeout from the start. */
			assert_int_equal(told, t < 2000 ? 500 : 5000);
			if (prev > 0)
				assert_int_equal(t - last, prev);
			quiet += told == 5000;
			last = t;
			prev = told;
		}
		clear(n);
	}
	assert_true(quiet >= 5);
}

/*
 * In a big pool a quiet node other than the master beats so that each
 * node hears at most QUIET_HEARD_PER_TIMEOUT quiet heartbeats a node
 * timeout: with 99 peers, every 99 * 2000 / 10 ms, not every 5 s.
 */
static void
test_a_quiet_node_of_a_big_pool_beats_less_often(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	char		 name[16];
	int64_t		 t, told = -1;
	int		 k;

	follow_beta(n);
	for (t = 100; t < 60000; t += 4000) {
		hear(n, "beta", "HEARTBEAT 1 1 1 1 idle 10 0 0 7600 1000 0 0 "
		    "5000", t);
		for (k = 0; k < 98; k++) {
			snprintf(name, sizeof name, "p%02d", k);
			hear(n, name, "HEARTBEAT 0 1 1 1 idle 10 0 0 7600 1000 "
			    "0 0 20000", t);
		}
		tick_until(n, t + 4000, &told);
	}
	assert_int_equal(status_of(n).is_master, 0);
	assert_int_equal(told, 99 * 2000 / QUIET_HEARD_PER_TIMEOUT);
}

/* Its peers wait four of the periods it told before they call it dead. */
static void
test_a_quiet_peer_is_dead_after_four_of_its_periods(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t, beta = -1, gamma = -1;

	node_start(n, 0);
	hear(n, "beta", "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 1000 0 0 5000", 10);
	hear(n, "gamma", "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 1000 0 0 500", 10);
	clear(n);
	while ((t = status_of(n).timer) >= 0 && t < 30000) {
		node_tick(n, t);
		if (logged(n, "node beta silent for") != NULL)
			beta = t;
		if (logged(n, "node gamma silent for") != NULL)
			gamma = t;
		clear(n);
	}
	/* The first housekeeping beat past 10 + 4 * period. */
	assert_true(gamma > 2010 && gamma <= 2010 + 250);
	assert_true(beta > 20010 && beta <= 20010 + 250);
}

/*
 * A quiet node that starts a run beats at once, telling the short
 * period: its failure is then found as fast as any busy node's.
 */
static void
test_a_quiet_node_that_starts_a_run_beats_at_once(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 told = -1, last;

	node_start(n, 0);
	last = tick_until(n, 10000, &told);
	assert_int_equal(told, 5000);
	assert_int_equal(sched(n, 1, "free", 0, 10000, 0, NULL, NULL), 0);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
	assert_true(status_of(n).timer <= 10000 + 50);
	assert_true(tick_until(n, 10100, &told) <= 10050);
	assert_int_equal(told, 500);
	assert_true(last + 5000 > 10050);	/* sooner than it was due */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_workflow_binds_outputs_in_order),
		NODE_TEST(test_the_peer_table_is_bounded),
		NODE_TEST(test_schedule_rejects_bad_requests),
		NODE_TEST(test_interactive_overtakes_low),
		NODE_TEST(test_a_workflow_is_as_urgent_as_its_most_urgent_task),
		NODE_TEST(test_a_batch_window_orders_longest_path_first),
		NODE_TEST(test_lret_and_sret_rank_by_the_run_time_left),
		NODE_TEST(test_estimates_rank_a_bag_of_one_program),
		NODE_TEST(test_volunteer_periods_outlive_a_switch_off),
		NODE_TEST(test_deadline_work_goes_first_and_is_forecast),
		NODE_TEST(test_a_task_that_cannot_meet_its_deadline_goes_after),
		cmocka_unit_test(
		    test_schedule_refuses_a_record_that_could_outgrow_a_datagram),
		NODE_TEST(test_a_run_is_throttled_while_the_user_is_back),
		NODE_TEST(test_crash_retried_then_failed),
		NODE_TEST(test_error_line_and_wrong_outputs_fail_the_run),
		NODE_TEST(test_the_end_record_carries_what_the_run_cost),
		NODE_TEST(test_progress_notifies_on_change_only),
		NODE_TEST(test_interactive_rule_when_not_volunteer),
		NODE_TEST(test_ageing_promotes_low_tasks),
		NODE_TEST(test_a_quiet_node_sleeps_between_heartbeats),
		NODE_TEST(test_a_newcomer_is_greeted_alone),
		NODE_TEST(test_heartbeats_slow_down_on_a_big_pool),
		NODE_TEST(test_a_node_that_runs_nothing_beats_every_quiet_period),
		NODE_TEST(test_a_quiet_node_of_a_big_pool_beats_less_often),
		NODE_TEST(test_a_quiet_peer_is_dead_after_four_of_its_periods),
		NODE_TEST(test_a_quiet_node_that_starts_a_run_beats_at_once),
		NODE_TEST(test_recover_after_restart),
		cmocka_unit_test(test_two_slots_run_two),
		cmocka_unit_test(test_forecast_plays_the_queue_on_the_slots),
		cmocka_unit_test(test_views_count_the_queue_for_every_task),
		NODE_TEST(test_forecast_counts_the_batch_window_ahead),
		NODE_TEST(test_a_peers_window_counts_and_ours_is_told),
	};

	return cmocka_run_group_tests_name("node", tests, NULL, NULL);
}
