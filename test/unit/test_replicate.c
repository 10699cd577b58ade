/*
 * test_replicate.c -- records among nodes (replicate.c, antientropy.c):
 * ENQUEUE and its acknowledgement, merging by the shared rule, answers to
 * stale senders, duplicate runs, failure detection of remote runs, and
 * the digest exchange.  One node under test; the others are played by
 * datagrams, or are real nodes whose outbox we forward.
 */
#include <inttypes.h>

#include "antientropy.h"
#include "digest.h"
#include "testutil.h"

struct fixture {
	struct node		*n;	/* alpha, under test */
	struct node		*b;	/* beta, a real peer */
	struct taskdesc_set	 set;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	f->n = test_node(&f->set, 1);
	f->b = test_node_named(&f->set, "beta", 1);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	node_free(f->n);
	node_free(f->b);
	taskdesc_clear(&f->set);
	free(f);
	return 0;
}

/* alpha alone becomes master of epoch 1 at t=100. */
static void
master(struct node *n)
{
	node_start(n, 0);
	node_tick(n, 50);
	node_tick(n, 100);
	assert_true(node_is_master(n));
	clear(n);
}

/* Forward what beta broadcast (ENQUEUE or STATE) to alpha. */
static void
forward(struct fixture *f, const char *prefix, int64_t now)
{
	char	body[DATAGRAM_MAX];

	assert_non_null(sent(f->b, NULL, prefix));
	snprintf(body, sizeof body, "%s", sent(f->b, NULL, prefix));
	clear(f->b);
	hear(f->n, "beta", body, now);
}

static void
test_master_acks_an_enqueue(void **state)
{
	struct fixture	*f = *state;
	char		 ack[64];

	master(f->n);
	node_set_volunteer(f->b, 0, "busy", 150);	/* beta keeps it Ready */
	assert_int_equal(sched(f->b, 1, "free", PRIO_LOW, 200, 0, NULL, NULL),
	    0);
	forward(f, "ENQUEUE ", 201);
	assert_int_equal(state_of(f->n, uuid_n(1)), TASK_READY);
	snprintf(ack, sizeof ack, "ENQUEUE_ACK %s", uuid_n(1));
	assert_string_equal(sent(f->n, "beta", "ENQUEUE_ACK"), ack);
	assert_int_equal(count_actions(f->n, ACT_JOURNAL, uuid_n(1)), 1);
}

static void
test_enqueue_resent_until_the_master_acks(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	char		 ack[64];

	follow_beta(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_non_null(sent(n, NULL, "ENQUEUE "));
	assert_int_equal(status_of(n).unacked, 1);
	clear(n);
	node_tick(n, 250);			/* housekeeping */
	assert_non_null(sent(n, NULL, "ENQUEUE "));
	/* Only the master's acknowledgement counts. */
	snprintf(ack, sizeof ack, "ENQUEUE_ACK %s", uuid_n(1));
	hear(n, "gamma", ack, 260);
	assert_int_equal(status_of(n).unacked, 1);
	hear(n, "beta", ack, 270);
	assert_int_equal(status_of(n).unacked, 0);
	clear(n);
	node_tick(n, 500);
	assert_null(sent(n, NULL, "ENQUEUE "));
}

static void
test_a_newer_record_is_adopted(void **state)
{
	struct fixture	*f = *state;
	char		 err[128];

	master(f->n);
	node_set_volunteer(f->b, 0, "busy", 150);
	assert_int_equal(sched(f->b, 1, "free", PRIO_LOW, 200, 0, NULL, NULL),
	    0);
	forward(f, "ENQUEUE ", 201);
	assert_int_equal(node_cancel(f->b, uuid_n(1), 300, err, sizeof err),
	    0);
	clear(f->n);
	forward(f, "STATE ", 301);
	assert_int_equal(state_of(f->n, uuid_n(1)), TASK_CANCELLED);
	assert_string_equal(node_find(f->n, uuid_n(1))->reason,
	    "cancelled-by-client");
	assert_int_equal(count_actions(f->n, ACT_JOURNAL, uuid_n(1)), 1);
}

static void
test_a_stale_sender_is_told_once_per_interval(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	char		 stale[DATAGRAM_MAX], err[128];

	node_start(n, 0);
	node_set_volunteer(n, 0, "busy", 0);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	/* What beta would send if it missed our cancel: version 1. */
	snprintf(stale, sizeof stale, "STATE %s",
	    sent(n, NULL, "ENQUEUE ") + strlen("ENQUEUE "));
	assert_int_equal(node_cancel(n, uuid_n(1), 200, err, sizeof err), 0);
	hear_alive(n, "beta", 300);
	clear(n);
	hear(n, "beta", stale, 300);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_CANCELLED);
	assert_non_null(strstr(sent(n, "beta", "STATE "), " st=Cancelled "));
	clear(n);
	hear(n, "beta", stale, 400);		/* within 250 ms: no echo */
	assert_null(sent(n, "beta", "STATE "));
	hear(n, "beta", stale, 560);
	assert_non_null(sent(n, "beta", "STATE "));
}

static void
test_duplicate_run_the_one_started_first_stays(void **state)
{
	struct fixture		*f = *state;
	struct node		*n = f->n;
	struct runner_msg	 m;
	struct task		*t;

	node_start(n, 0);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	t = node_find(n, uuid_n(1));
	assert_int_equal(t->ver, 2);		/* scheduled, started */
	memset(&m, 0, sizeof m);
	m.type = RMSG_PROGRESS;
	m.percent = 10;
	node_runner_msg(n, uuid_n(1), &m, 150);
	clear(n);
	/* Ours started at 100.  beta's run, started later, stops (whatever
	 * its progress: each node compares the same two start stamps). */
	hear(n, "beta", "PROGRESS 00000000-0000-4000-8000-000000000001 50 2 "
	    "150", 200);
	assert_int_equal(count_actions(n, ACT_STOP, NULL), 0);
	assert_non_null(sent(n, NULL, "STATE "));	/* ours stays */
	assert_int_equal(status_of(n).duplicates, 0);
	clear(n);
	/* gamma's started before ours: ours stops. */
	hear(n, "gamma", "PROGRESS 00000000-0000-4000-8000-000000000001 5 3 "
	    "90", 210);
	assert_int_equal(count_actions(n, ACT_STOP, uuid_n(1)), 1);
	assert_string_equal(node_find(n, uuid_n(1))->running_on, "gamma");
	assert_int_equal(status_of(n).duplicates, 1);
	assert_non_null(logged(n, "ours (10%) stops"));
	assert_int_equal(node_find(n, uuid_n(1))->start_ms, 90);
}

static void
test_a_silent_remote_run_goes_back_to_ready(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	char		 get[64];
	int64_t		 t;

	follow_beta(n);
	/* PROGRESS of a task we never heard of: ask the master. */
	hear(n, "beta", "PROGRESS 00000000-0000-4000-8000-000000000001 10 2 "
	    "15", 20);
	snprintf(get, sizeof get, "GET_TASK %s", uuid_n(1));
	assert_string_equal(sent(n, "beta", "GET_TASK"), get);
	/* beta runs it (beta alone starts it at once). */
	node_start(f->b, 30);
	assert_int_equal(sched(f->b, 1, "free", PRIO_LOW, 30, 0, NULL, NULL),
	    0);
	forward(f, "STATE ", 40);
	assert_string_equal(node_find(n, uuid_n(1))->running_on, "beta");
	/* Then nothing from it: first a question, then back to Ready. */
	for (t = 250; t <= 2000; t += 250) {
		hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 60 0 500", t);
		node_tick(n, t);
	}
	clear(n);
	hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 60 0 500", 2250);
	node_tick(n, 2250);
	assert_string_equal(sent(n, "beta", "GET_TASK"), get);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	/* It is given two more progress intervals to answer. */
	hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 60 0 500", 2750);
	node_tick(n, 2750);
	assert_null(logged(n, "no progress from beta"));
	clear(n);
	hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 60 0 500", 3000);
	node_tick(n, 3000);
	assert_non_null(logged(n, "no progress from beta"));
	assert_non_null(sent(n, NULL, "STATE "));
	assert_int_equal(node_find(n, uuid_n(1))->failures, 0);
	assert_int_not_equal(strcmp(node_find(n, uuid_n(1))->running_on,
	    "beta"), 0);
}

static void
test_a_lasting_digest_difference_syncs(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	int		 i;

	follow_beta(n);
	/* The master's digest differs from ours three times running. */
	for (i = 0; i < 2; i++) {
		hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 1 abc 7600 1000 60 0 500",
		    2100 + i);
		assert_null(sent(n, "beta", "TASKS_TRANSFER"));
	}
	hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 1 abc 7600 1000 60 0 500", 2103);
	assert_non_null(logged(n, "state differs from master beta's"));
	assert_non_null(sent(n, "beta", "TASKS_TRANSFER"));
}

/*
 * An ask is asked again at the next housekeeping ticks while it goes
 * unanswered (lost, or its answer lost) or answered with buckets that
 * differed (a record of the exchange may be lost too) -- three asks at
 * most -- and no more once the answer says the maps agree.
 */
static void
test_an_ask_is_asked_again_until_the_maps_agree(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	char		 agree[128];
	int64_t		 t = 2100;
	int		 i, asks = 0;

	follow_beta(n);
	for (i = 0; i < 3; i++)
		hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 1 abc 7600 1000 60 "
		    "0 500", t + i);
	assert_non_null(sent(n, "beta", "TASKS_TRANSFER ask "));
	clear(n);
	for (t = 2200; t < 5000; t += 50) {	/* beta is silent */
		node_tick(n, t);
		asks += sent(n, "beta", "TASKS_TRANSFER ask ") != NULL;
		clear(n);
	}
	assert_int_equal(asks, 2);		/* three in all */
	/* Answered "they differ": asked again; "they agree": no more. */
	for (i = 0; i < 3; i++)
		hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 1 abd 7600 1000 60 "
		    "0 500", 10000 + i);
	hear(n, "beta", "TASKS_TRANSFER send "
	    "8000000000000000000000000000000000000000000000000000000000000000",
	    10010);
	clear(n);
	node_tick(n, 10400);
	assert_non_null(sent(n, "beta", "TASKS_TRANSFER ask "));
	snprintf(agree, sizeof agree, "TASKS_TRANSFER send %064d", 0);
	hear(n, "beta", agree, 10410);
	clear(n);
	for (t = 10450; t < 12000; t += 50) {
		node_tick(n, t);
		assert_null(sent(n, "beta", "TASKS_TRANSFER"));
	}
}

/*
 * A node keeps ANTIENTROPY_TRANSFERS transfers on their way at once; an
 * ask past them is left unanswered, so that its asker asks again, rather
 * than told "send" for records that are not coming.
 */
static void
test_a_busy_node_leaves_an_ask_unanswered(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	char		 ask[32 + PEER_BUCKETS * 16], peer[16];
	int		 i, k;

	master(n);
	node_set_volunteer(n, 0, "busy", 150);
	for (k = 1; k <= ANTIENTROPY_CHUNK + 8; k++)	/* two chunks each */
		assert_int_equal(sched(n, k, "free", PRIO_LOW, 200, 0, NULL,
		    NULL), 0);
	clear(n);
	k = snprintf(ask, sizeof ask, "TASKS_TRANSFER ask ");
	memset(ask + k, '0', PEER_BUCKETS * 16);	/* an empty map's */
	ask[k + PEER_BUCKETS * 16] = '\0';
	for (i = 0; i <= ANTIENTROPY_TRANSFERS; i++) {
		snprintf(peer, sizeof peer, "p%d", i);
		hear(n, peer, ask, 300 + i);
		if (i < ANTIENTROPY_TRANSFERS) {
			assert_non_null(sent(n, peer, "TASKS_TRANSFER send "));
			assert_non_null(sent(n, peer, "ENQUEUE "));
		} else {
			assert_null(sent(n, peer, "TASKS_TRANSFER"));
			assert_null(sent(n, peer, "ENQUEUE "));
		}
	}
}

/* A heartbeat of peer's (not master) at now, telling digest d. */
static void
peer_beats(struct node *n, const char *peer, uint64_t d, int64_t now)
{
	char	body[256];

	snprintf(body, sizeof body, "HEARTBEAT 0 1 1 1 idle 10 1 %" PRIx64
	    " 7600 1000 60 0 500", d);
	hear(n, peer, body, now);
}

/*
 * The master syncs with a node whose digest stays unlike its own for
 * three heartbeats, without waiting for the node to ask (one datagram,
 * lost again and again on a lossy LAN); at most once a node timeout, and
 * never with a node that agrees.
 */
static void
test_the_master_sends_its_map_to_a_node_that_differs(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	int64_t		 t = 100000;
	int		 i;

	master(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 200, 0, NULL, NULL), 0);
	clear(n);
	for (i = 0; i < 5; i++)		/* agreeing: nothing */
		peer_beats(n, "gamma", node_digest(n), t + i);
	for (i = 0; i < 2; i++)
		peer_beats(n, "gamma", node_digest(n) ^ 1, t + 10 + i);
	assert_null(sent(n, "gamma", "TASKS_TRANSFER"));
	peer_beats(n, "gamma", node_digest(n) ^ 1, t + 12);
	assert_non_null(logged(n, "state of gamma differs from ours"));
	assert_non_null(sent(n, "gamma", "TASKS_TRANSFER ask "));
	clear(n);
	for (i = 0; i < 3; i++)		/* again, too soon */
		peer_beats(n, "gamma", node_digest(n) ^ 1, t + 20 + i);
	assert_null(sent(n, "gamma", "TASKS_TRANSFER"));
	for (i = 0; i < 3; i++)		/* a node timeout later */
		peer_beats(n, "gamma", node_digest(n) ^ 1, t + 100000 + i);
	assert_non_null(sent(n, "gamma", "TASKS_TRANSFER ask "));
}

/* Forward every ENQUEUE one sent to peer (NULL: broadcast) to another
 * node: how many, and whether one was uuid's. */
static int
forward_enqueues(struct node *from, const char *from_name, const char *peer,
    struct node *to, const char *uuid, int *had, int64_t now)
{
	char		 body[DATAGRAM_MAX];
	const char	*s;
	int		 k;

	for (k = 0; (s = sent_nth(from, peer, "ENQUEUE ", k)) != NULL; k++) {
		*had |= uuid != NULL && strstr(s, uuid) != NULL;
		snprintf(body, sizeof body, "%s", s);
		hear(to, from_name, body, now);
	}
	return k;
}

/* Forward what one sent to peer that starts with prefix to another
 * node: how many. */
static int
forward_sent(struct node *from, const char *from_name, const char *peer,
    const char *prefix, struct node *to, int64_t now)
{
	char		 body[DATAGRAM_MAX];
	const char	*s;
	int		 k;

	for (k = 0; (s = sent_nth(from, peer, prefix, k)) != NULL; k++) {
		snprintf(body, sizeof body, "%s", s);
		hear(to, from_name, body, now);
	}
	return k;
}

/* The TASKS_TRANSFER from to peer, copied into buf. */
static void
transfer_sent(struct node *from, const char *peer, char *buf, size_t size)
{
	assert_non_null(sent(from, peer, "TASKS_TRANSFER"));
	snprintf(buf, size, "%s", sent(from, peer, "TASKS_TRANSFER"));
}

/* alpha, master, asks beta after three heartbeats of beta's unlike its
 * own map (they tell beta's digest xor flip). */
static void
alpha_asks(struct fixture *f, uint64_t flip, char *ask, size_t size,
    int64_t now)
{
	int	i;

	clear(f->n);
	for (i = 0; i < 3; i++)
		peer_beats(f->n, "beta", node_digest(f->b) ^ flip, now + i);
	transfer_sent(f->n, "beta", ask, size);
	assert_non_null(strstr(ask, "TASKS_TRANSFER ask "));
	assert_null(sent(f->n, "beta", "ENQUEUE "));
	clear(f->n);
}

/* Task k of gamma's (g, freed), which only beta hears. */
static void
only_beta_hears(struct fixture *f, struct node *g, int k)
{
	int	had = 0;

	assert_int_equal(sched(g, k, "free", PRIO_LOW, 300, 0, NULL, NULL),
	    0);
	forward_enqueues(g, "gamma", NULL, f->b, NULL, &had, 301);
	node_free(g);
	clear(f->b);
}

/* alpha asks beta, which answers: its "send" into buf. */
static void
beta_answers(struct fixture *f, char *buf, size_t size)
{
	char	ask[DATAGRAM_MAX];

	alpha_asks(f, 0, ask, sizeof ask, 100000);
	hear(f->b, "alpha", ask, 100010);
	transfer_sent(f->b, "alpha", buf, size);
}

/*
 * A sync moves only what differs (under load the maps differ at every
 * heartbeat by the records on their way; the whole map each time was
 * most of a busy pool's datagrams): the master asks with its digest of
 * each bucket of the map, the node sends its records of the buckets that
 * differ and says which they are, the master sends its own of those --
 * and the maps agree.  Maps that agree by the time a node is asked move
 * nothing; an older node's bare TASKS_TRANSFER gets the whole map.
 */
static void
test_a_sync_moves_only_the_buckets_that_differ(void **state)
{
	struct fixture		*f = *state;
	struct node		*g = test_node_named(&f->set, "gamma", 1);
	char			 ask[DATAGRAM_MAX], send[DATAGRAM_MAX];
	int			 k, had = 0;

	master(f->n);
	node_set_volunteer(f->n, 0, "busy", 150);	/* all stay Ready */
	node_set_volunteer(f->b, 0, "busy", 150);
	for (k = 1; k <= 40; k++)
		assert_int_equal(sched(f->n, k, "free", PRIO_LOW, 200, 0, NULL,
		    NULL), 0);
	assert_int_equal(forward_enqueues(f->n, "alpha", NULL, f->b, NULL,
	    &had, 201), 40);
	assert_true(node_digest(f->n) == node_digest(f->b));
	/* Then one each that the other missed. */
	clear(f->n);
	assert_int_equal(sched(f->n, 41, "free", PRIO_LOW, 300, 0, NULL,
	    NULL), 0);
	only_beta_hears(f, g, 42);

	beta_answers(f, send, sizeof send);
	assert_non_null(strstr(send, "TASKS_TRANSFER send "));
	had = 0;
	k = forward_enqueues(f->b, "beta", "alpha", f->n, uuid_n(42), &had,
	    100011);
	assert_true(had);
	assert_in_range(k, 1, 8);	/* not the 41 of a whole map */
	/* Others' records: nobody waits for the master to acknowledge. */
	assert_null(sent(f->n, "beta", "ENQUEUE_ACK"));
	clear(f->b);
	clear(f->n);
	hear(f->n, "beta", send, 100012);
	had = 0;
	k = forward_enqueues(f->n, "alpha", "beta", f->b, uuid_n(41), &had,
	    100013);
	assert_true(had);
	assert_in_range(k, 1, 8);
	assert_true(node_digest(f->n) == node_digest(f->b));

	/* Equal by the time it is asked: nothing moves, and the answer
	 * says so (the asker asks no more). */
	clear(f->b);
	alpha_asks(f, 1, ask, sizeof ask, 300000);
	hear(f->b, "alpha", ask, 300010);
	assert_null(sent(f->b, "alpha", "ENQUEUE "));
	transfer_sent(f->b, "alpha", send, sizeof send);
	assert_string_equal(send, "TASKS_TRANSFER send "
	    "0000000000000000000000000000000000000000000000000000000000000000");
	hear(f->b, "alpha", "TASKS_TRANSFER", 300030);
	assert_int_equal(forward_enqueues(f->b, "beta", "alpha", f->n, NULL,
	    &had, 300031), 32);		/* the first chunk of all 42 */
}

/*
 * Of a bucket both hold records in, more than a few, the other side
 * sends a list of (uuid, share), not its records: the asker asks for
 * the one it lacks, and the rest of the bucket does not move.
 */
static void
test_a_sync_lists_a_crowded_bucket_the_asker_holds_records_in(void **state)
{
	struct fixture		*f = *state;
	struct node		*g = test_node_named(&f->set, "gamma", 1);
	char			 send[DATAGRAM_MAX];
	int			 k, same[ANTIENTROPY_PUSH_MAX + 1], nsame = 0;
	int			 had = 0;

	master(f->n);
	node_set_volunteer(f->n, 0, "busy", 150);
	node_set_volunteer(f->b, 0, "busy", 150);
	/* Tasks of one bucket: all but the last alpha's (beta hears
	 * them), the last gamma's that only beta heard. */
	for (k = 1; k < 100000 && nsame <= ANTIENTROPY_PUSH_MAX; k++)
		if (digest_bucket(uuid_n(k)) == digest_bucket(uuid_n(1)))
			same[nsame++] = k;
	assert_int_equal(nsame, ANTIENTROPY_PUSH_MAX + 1);
	for (k = 0; k < ANTIENTROPY_PUSH_MAX; k++)
		assert_int_equal(sched(f->n, same[k], "free", PRIO_LOW, 200, 0,
		    NULL, NULL), 0);
	forward_enqueues(f->n, "alpha", NULL, f->b, NULL, &had, 201);
	only_beta_hears(f, g, same[ANTIENTROPY_PUSH_MAX]);
	beta_answers(f, send, sizeof send);
	assert_null(sent(f->b, "alpha", "ENQUEUE "));
	assert_int_equal(forward_sent(f->b, "beta", "alpha", "TASKS_TRANSFER "
	    "list ", f->n, 100011), 1);
	assert_int_equal(forward_sent(f->n, "alpha", "beta", "GET_TASK ",
	    f->b, 100012), 1);
	had = 0;
	assert_int_equal(forward_enqueues(f->b, "beta", "alpha", f->n,
	    uuid_n(same[ANTIENTROPY_PUSH_MAX]), &had, 100013), 1);
	assert_true(had);
	assert_true(node_digest(f->n) == node_digest(f->b));
}

/*
 * Nothing starts without a description (issue 12): a record naming an
 * executable we have no description of, or binding other arguments than
 * its description does, is never started here -- alone, or with peers
 * -- and says why; the tasks after it still run.
 */
static void
test_records_without_a_description_never_start(void **state)
{
	struct fixture	*f = *state;
	struct node	*n = f->n;
	char		 rec[1024];
	const char	*bad[] = {
		/* No description of crasher in our tasks_dir. */
		"exec=crasher prio=interactive aged=0 st=Ready sb=mallory "
		    "cl=x sub=1 rdy=1 stt=-1 end=-1 pg=0 att=0 fail=0 ver=1 "
		    "path=/etc",
		/* import needs -p. */
		"exec=import prio=interactive aged=0 st=Ready sb=mallory "
		    "cl=x sub=1 rdy=1 stt=-1 end=-1 pg=0 att=0 fail=0 ver=1",
	};
	size_t		 k;

	node_start(n, 0);
	clear(n);
	for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		snprintf(rec, sizeof rec, "ENQUEUE v=1 id=%s %s",
		    uuid_n(10 + (int)k), bad[k]);
		hear(n, "mallory", rec, 10);
		assert_non_null(logged(n, "is never run here"));
		assert_int_equal(state_of(n, uuid_n(10 + (int)k)), TASK_READY);
	}
	assert_non_null(logged(n, "no description of crasher in tasks_dir"));
	assert_non_null(logged(n, "no -p, which its description needs"));
	/* Alone (the peer is not alive for the dequeue: it never sent a
	 * heartbeat), and then with peers: never proposed, never started. */
	node_tick(n, 20);
	hear_alive(n, "beta", 30);
	node_tick(n, 100);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	/* A task after them, of a described executable, still runs. */
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 200, 0, NULL, NULL), 0);
	assert_non_null(sent(n, NULL, "TRY_DEQUEUE"));
	node_tick(n, 300);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(10)), 0);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(11)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_master_acks_an_enqueue,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_enqueue_resent_until_the_master_acks, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_a_newer_record_is_adopted,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_stale_sender_is_told_once_per_interval, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_duplicate_run_the_one_started_first_stays, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_silent_remote_run_goes_back_to_ready, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_lasting_digest_difference_syncs, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_the_master_sends_its_map_to_a_node_that_differs,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_sync_moves_only_the_buckets_that_differ,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_sync_lists_a_crowded_bucket_the_asker_holds_records_in,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_an_ask_is_asked_again_until_the_maps_agree,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_busy_node_leaves_an_ask_unanswered, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_records_without_a_description_never_start, setup,
		    teardown),
	};

	return cmocka_run_group_tests_name("replicate", tests, NULL, NULL);
}
