/*
 * test_array.c -- arrays (volery run --array 1-100%N, <foreach>): at most
 * N of an array run at once, counted the same way on every node -- the
 * array's tasks Running, and the claims for its tasks that precede ours
 * by the dequeue rule -- so two nodes racing for its last place race as
 * for one task.
 */
#include "testutil.h"

#define ARRAY "aaaaaaaa-0000-4000-8000-000000000001"

/* Task k of an array of at most max at once: a task of "free". */
static void
array_task(struct node *n, int k, int max, int64_t now)
{
	struct node_schedule_req	req;
	char				err[256];

	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.client = "127.0.0.1:1";
	req.array = ARRAY;
	req.array_index = k;
	req.array_max = max;
	if (node_schedule(n, &req, uuid_n(k), now, err, sizeof err) == -1)
		fail_msg("%s", err);
}

static int
running(struct node *n, int from, int to)
{
	int	k, r = 0;

	for (k = from; k <= to; k++)
		r += state_of(n, uuid_n(k)) == TASK_RUNNING;
	return r;
}

/* Alone, with slots to spare: the limit, not the slots, holds it. */
static void
test_an_array_runs_at_most_its_limit(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n;
	struct task		*t;
	int			 k;

	plmi2_descs(&set);
	n = test_node_named(&set, "alpha", 4);
	node_start(n, 0);
	for (k = 1; k <= 6; k++)
		array_task(n, k, 2, 10 + k);
	assert_int_equal(running(n, 1, 6), 2);
	t = node_find(n, uuid_n(1));
	assert_string_equal(t->array, ARRAY);
	assert_int_equal(t->array_max, 2);
	/* Another task, of no array, takes a free slot. */
	assert_int_equal(sched(n, 9, "free", 0, 20, 0, NULL, NULL), 0);
	assert_int_equal(state_of(n, uuid_n(9)), TASK_RUNNING);
	/* One ends: the next of the array starts, never a third at once. */
	terminate(n, uuid_n(1), 1, 30);
	exit_with(n, uuid_n(1), 0, 31);
	assert_int_equal(running(n, 1, 6), 2);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_RUNNING);
	node_free(n);
	taskdesc_clear(&set);
}

/*
 * Two nodes, one place left: beta's claim for another task of the array
 * came first, so alpha's own claim loses though it is for another task.
 */
static void
test_the_last_place_is_raced_for_as_one_task(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	char			 body[512];
	const char		*try;

	follow_beta(n);
	array_task(n, 1, 2, 100);
	array_task(n, 2, 2, 101);
	array_task(n, 3, 2, 102);
	clear(n);
	/* Task 1 runs on gamma: one place of two left. */
	snprintf(body, sizeof body, "STATE v=1 id=%s exec=free arr=%s aix=1 "
	    "amax=2 prio=low aged=0 st=Running sb=alpha cl=- on=gamma sub=100 "
	    "rdy=100 stt=150 end=-1 pg=0 att=1 fail=0 ver=2", uuid_n(1),
	    ARRAY);
	hear(n, "gamma", body, 150);
	/* beta claims task 3, a ms before alpha claims task 2. */
	hear(n, "beta", "HEARTBEAT 1 1 1 1 idle 10 0 0 7600 1000 0 0 500", 150);
	clear(n);
	node_tick(n, 160);
	try = sent(n, NULL, "TRY_DEQUEUE");
	if (try == NULL) {
		/* alpha waits its rank: take the claim's time from there. */
		int64_t t;
		while (try == NULL && (t = status_of(n).timer) >= 0 &&
		    t < 1000) {
			clear(n);
			node_tick(n, t);
			try = sent(n, NULL, "TRY_DEQUEUE");
		}
	}
	assert_non_null(try);
	assert_non_null(strstr(try, uuid_n(2)));
	{
		char	claim[128];
		int64_t	ts = strtoll(strrchr(try, ' ') + 1, NULL, 10);
		snprintf(claim, sizeof claim, "TRY_DEQUEUE %s %lld",
		    uuid_n(3), (long long)(ts - 1));
		hear(n, "beta", claim, ts + 1);
		node_tick(n, ts + 20);
		assert_int_equal(state_of(n, uuid_n(2)), TASK_READY);
		assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	}
}

/* A run hears of earlier ones of its array past the limit (a claim came
 * too late): it yields, back to Ready, not a failure; the earlier stay.
 * (Their records keep what alpha set when it took them: plausible.c.) */
static void
test_the_runs_started_last_yield(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	char			 body[512];
	struct task		*t;
	int			 k;

	follow_beta(n);
	for (k = 1; k <= 4; k++)
		array_task(n, k, 2, 100);
	/* alpha runs task 1, started at some time s. */
	while (state_of(n, uuid_n(1)) != TASK_RUNNING &&
	    status_of(n).timer >= 0 && status_of(n).timer < 1000)
		node_tick(n, status_of(n).timer);
	t = node_find(n, uuid_n(1));
	assert_int_equal(t->state, TASK_RUNNING);
	clear(n);
	/* One run of the array started before ours: two, the limit. */
	snprintf(body, sizeof body, "STATE v=1 id=%s exec=free arr=%s aix=2 "
	    "amax=2 prio=low aged=0 st=Running sb=alpha cl=- on=gamma sub=%lld "
	    "rdy=100 stt=%lld end=-1 pg=0 att=1 fail=0 ver=3", uuid_n(2), ARRAY,
	    (long long)node_find(n, uuid_n(2))->submit_ms,
	    (long long)t->start_ms - 5);
	hear(n, "gamma", body, t->start_ms + 20);
	assert_int_equal(count_actions(n, ACT_STOP, uuid_n(1)), 0);
	/* One started after ours: it is the one to yield, not ours. */
	snprintf(body, sizeof body, "STATE v=1 id=%s exec=free arr=%s aix=3 "
	    "amax=2 prio=low aged=0 st=Running sb=alpha cl=- on=delta sub=%lld "
	    "rdy=100 stt=%lld end=-1 pg=0 att=1 fail=0 ver=3", uuid_n(3), ARRAY,
	    (long long)node_find(n, uuid_n(3))->submit_ms,
	    (long long)t->start_ms + 5);
	hear(n, "delta", body, t->start_ms + 21);
	assert_int_equal(count_actions(n, ACT_STOP, uuid_n(1)), 0);
	/* Another that started before ours: now ours is one too many. */
	snprintf(body, sizeof body, "STATE v=1 id=%s exec=free arr=%s aix=4 "
	    "amax=2 prio=low aged=0 st=Running sb=alpha cl=- on=eps sub=%lld "
	    "rdy=100 stt=%lld end=-1 pg=0 att=1 fail=0 ver=3", uuid_n(4), ARRAY,
	    (long long)node_find(n, uuid_n(4))->submit_ms,
	    (long long)t->start_ms - 1);
	hear(n, "eps", body, t->start_ms + 22);
	assert_int_equal(count_actions(n, ACT_STOP, uuid_n(1)), 1);
	assert_int_equal(t->state, TASK_READY);
	assert_int_equal(t->failures, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_an_array_runs_at_most_its_limit),
		NODE_TEST(test_the_last_place_is_raced_for_as_one_task),
		NODE_TEST(test_the_runs_started_last_yield),
	};

	return cmocka_run_group_tests_name("array", tests, NULL, NULL);
}
