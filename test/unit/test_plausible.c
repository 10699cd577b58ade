/*
 * test_plausible.c -- values no peer could know (plausible.c): a record
 * time of 2^63, a heartbeat stamped a minute off, a claim stamped 0 and
 * an epoch of 2^48 are refused and counted, change nothing, and leave
 * the node serving its own clients; honest values pass.  So are
 * --verify records no node could write.
 */
#include "testutil.h"
#include "plausible.h"

#define NOW	1700000000000LL		/* a wall clock's ms */

static struct node *
skewed_node(struct taskdesc_set *set, int64_t skew_ms)
{
	struct node_config	 cfg;
	struct node		*n;

	plmi2_descs(set);
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "alpha");
	cfg.reputation = 0;
	cfg.max_clock_skew_ms = skew_ms;
	assert_non_null(n = node_new(&cfg, set));
	node_start(n, NOW);
	return n;
}

static uint64_t
refused(const struct node *n)
{
	struct node_status	st;

	node_status(n, &st);
	return st.implausible;
}

static void
count_peer(const struct peer *p, void *arg)
{
	(void)p;
	(*(int *)arg)++;
}

static int
peers_known(const struct node *n)
{
	int	count = 0;

	node_each_peer(n, count_peer, &count);
	return count;
}

static void
test_a_record_from_the_far_future_is_refused(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = skewed_node(&set, 30000);
	char			 rec[512];

	(void)state;
	snprintf(rec, sizeof rec, "ENQUEUE v=1 id=%s exec=free prio=low "
	    "aged=0 st=Submitted sb=mallory cl=x sub=9223372036854775807 "
	    "rdy=-1 stt=-1 end=-1 pg=0 att=0 fail=0 ver=1", uuid_n(9));
	clear(n);
	hear(n, "mallory", rec, NOW + 10);
	assert_null(node_find(n, uuid_n(9)));
	assert_null(sent(n, "mallory", "ENQUEUE_ACK"));
	assert_int_equal(refused(n), 1);
	assert_non_null(logged(n, "node mallory sent a submit time "
	    "9223372036854775807, which no node could"));
	/* Its own clients are served as before. */
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, NOW + 20, 0, NULL,
	    NULL), 0);
	assert_true(node_find(n, uuid_n(1))->submit_ms <= NOW + 20);
	/* Within the skew: believed. */
	snprintf(rec, sizeof rec, "ENQUEUE v=1 id=%s exec=free prio=low "
	    "aged=0 st=Submitted sb=mallory cl=x sub=%lld rdy=-1 stt=-1 "
	    "end=-1 pg=0 att=0 fail=0 ver=1", uuid_n(8), NOW + 29000);
	hear(n, "mallory", rec, NOW + 30);
	assert_non_null(node_find(n, uuid_n(8)));
	assert_int_equal(refused(n), 1);
	node_free(n);
	taskdesc_clear(&set);
}

/* Task k from mallory, submitted, taking input 1 of task from. */
static void
hear_bound(struct node *n, int k, int from, int64_t now)
{
	char	rec[512];

	snprintf(rec, sizeof rec, "ENQUEUE v=1 id=%s exec=any prio=low "
	    "aged=0 st=Submitted sb=mallory cl=x sub=%lld rdy=-1 stt=-1 "
	    "end=-1 pg=0 att=0 fail=0 ver=1 in=%s:1:-", uuid_n(k), NOW,
	    uuid_n(from));
	hear(n, "mallory", rec, now);
}

/* Found by fuzz_quorum: a task taking an input from itself, or two
 * that take inputs from each other, hung the node (each lengthened the
 * other's longest path for ever). */
static void
test_a_task_that_is_its_own_upstream_hangs_nothing(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = skewed_node(&set, 30000);

	(void)state;
	hear_bound(n, 9, 9, NOW + 10);
	assert_null(node_find(n, uuid_n(9)));
	assert_int_equal(refused(n), 1);
	assert_non_null(logged(n, "taking an input from itself"));
	/* A cycle of two: each is kept (neither is runnable), and the
	 * node goes on. */
	hear_bound(n, 7, 8, NOW + 20);
	hear_bound(n, 8, 7, NOW + 30);
	assert_int_equal(state_of(n, uuid_n(7)), TASK_SUBMITTED);
	assert_int_equal(state_of(n, uuid_n(8)), TASK_SUBMITTED);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, NOW + 40, 0, NULL,
	    NULL), 0);
	node_free(n);
	taskdesc_clear(&set);
}

/* Task k from mallory as "what": a --verify task or replica. */
static void
hear_verify(struct node *n, const char *uuid, const char *what,
    int64_t now)
{
	char	rec[512];

	snprintf(rec, sizeof rec, "ENQUEUE v=1 id=%s exec=free %s prio=low "
	    "aged=0 sb=mallory cl=x sub=%lld rdy=-1 stt=-1 end=-1 pg=0 att=0 "
	    "fail=0 ver=1", uuid, what, NOW);
	hear(n, "mallory", rec, now);
}

/* --verify: a task its replicas check is never taken (Ready or
 * Running), a replica's uuid is the one its index gives, and only a
 * replica's result has a digest. */
static void
test_verify_records_no_node_could_write_are_refused(void **state)
{
	static const char v[] = "00000000-0000-4000-8000-0000000000a0";
	struct taskdesc_set	 set;
	struct node		*n = skewed_node(&set, 30000);
	char			 what[256], r1[UUID_STRLEN + 1];

	(void)state;
	task_replica_uuid(v, 1, r1);
	assert_string_equal(r1, "00000000-0000-4000-8000-0000000000a2");
	hear_verify(n, v, "vfy=2 st=Ready", NOW + 10);
	hear_verify(n, v, "vfy=2 st=Running on=mallory", NOW + 10);
	assert_null(node_find(n, v));
	snprintf(what, sizeof what, "vfy=2 vof=%s vix=0 st=Submitted", v);
	hear_verify(n, r1, what, NOW + 10);	/* replica 1's uuid, index 0 */
	assert_null(node_find(n, r1));
	snprintf(what, sizeof what, "vfy=2 vof=%s vix=2 st=Submitted", v);
	hear_verify(n, r1, what, NOW + 10);	/* past the count */
	assert_null(node_find(n, r1));
	hear_verify(n, uuid_n(3), "st=Submitted dg=00", NOW + 10);
	assert_null(node_find(n, uuid_n(3)));
	assert_int_equal(refused(n), 5);
	assert_non_null(logged(n, "as a --verify task or replica that none "
	    "could be"));
	/* As its node would send them: taken, the task never Ready. */
	hear_verify(n, v, "vfy=2 st=Submitted", NOW + 20);
	snprintf(what, sizeof what, "vfy=2 vof=%s vix=1 st=Submitted", v);
	hear_verify(n, r1, what, NOW + 20);
	assert_int_equal(state_of(n, v), TASK_SUBMITTED);
	assert_int_equal(state_of(n, r1), TASK_READY);
	assert_int_equal(refused(n), 5);
	node_free(n);
	taskdesc_clear(&set);
}

static void
test_stamps_far_from_our_clock_are_refused(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = skewed_node(&set, 30000);
	char			 body[256];

	(void)state;
	snprintf(body, sizeof body, "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 1000 "
	    "0 %lld 500", NOW - 60000);
	hear(n, "beta", body, NOW + 10);
	assert_int_equal(peers_known(n), 0);
	/* A claim stamped 0 would beat every honest one. */
	snprintf(body, sizeof body, "TRY_DEQUEUE %s 0", uuid_n(1));
	hear(n, "beta", body, NOW + 20);
	assert_int_equal(refused(n), 2);
	snprintf(body, sizeof body, "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 1000 "
	    "0 %lld 500", NOW + 25);
	hear(n, "beta", body, NOW + 30);
	assert_int_equal(peers_known(n), 1);
	assert_int_equal(refused(n), 2);
	node_free(n);
	taskdesc_clear(&set);
}

static void
test_an_epoch_far_above_any_known_is_refused(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = skewed_node(&set, 30000);
	char			 body[64];

	(void)state;
	hear(n, "beta", "NEW_MASTER ffffffffffff", NOW + 10);
	assert_string_equal(node_master(n), "");
	assert_int_equal(refused(n), 1);
	snprintf(body, sizeof body, "NEW_MASTER %x", EPOCH_STEP_MAX);
	hear(n, "beta", body, NOW + 20);
	assert_string_equal(node_master(n), "beta");
	node_free(n);
	taskdesc_clear(&set);
}

/* A record of a task we hold may not change what its submitting node
 * set: its submit time (then RETIRED would make us forget it), owner,
 * program. */
static void
test_a_record_may_not_change_a_tasks_origin(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = skewed_node(&set, 30000);
	struct task		*t;
	char			 rec[512];

	(void)state;
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, NOW + 10, 0, NULL,
	    NULL), 0);
	t = node_find(n, uuid_n(1));
	snprintf(rec, sizeof rec, "STATE v=1 id=%s exec=free prio=low aged=0 "
	    "st=Cancelled sb=alpha cl=x sub=1 rdy=-1 stt=-1 end=%lld pg=0 "
	    "att=0 fail=0 ver=99", uuid_n(1), NOW + 20);
	hear(n, "mallory", rec, NOW + 30);
	assert_int_equal(refused(n), 1);
	assert_true(t->state != TASK_CANCELLED);
	assert_int_equal(t->submit_ms, NOW + 10);
	snprintf(rec, sizeof rec, "STATE v=1 id=%s exec=free prio=low aged=0 "
	    "st=Ready sb=mallory cl=x sub=%lld rdy=-1 stt=-1 end=-1 pg=0 "
	    "att=0 fail=0 ver=99 usr=root", uuid_n(1), NOW + 10);
	hear(n, "mallory", rec, NOW + 40);
	assert_int_equal(refused(n), 2);
	assert_string_equal(t->scheduled_by, "alpha");
	assert_string_equal(t->user, "");
	node_free(n);
	taskdesc_clear(&set);
}

/* 0: unchecked (the unit tests' clocks start at 0). */
static void
test_no_skew_bound_checks_no_stamp(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = skewed_node(&set, 0);
	char			 body[64];

	(void)state;
	snprintf(body, sizeof body, "TRY_DEQUEUE %s 0", uuid_n(1));
	hear(n, "beta", body, NOW + 20);
	assert_int_equal(refused(n), 0);
	node_free(n);
	taskdesc_clear(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_record_from_the_far_future_is_refused),
		cmocka_unit_test(
		    test_a_task_that_is_its_own_upstream_hangs_nothing),
		cmocka_unit_test(
		    test_verify_records_no_node_could_write_are_refused),
		cmocka_unit_test(test_stamps_far_from_our_clock_are_refused),
		cmocka_unit_test(test_an_epoch_far_above_any_known_is_refused),
		cmocka_unit_test(test_a_record_may_not_change_a_tasks_origin),
		cmocka_unit_test(test_no_skew_bound_checks_no_stamp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
