/*
 * test_dequeue.c -- the distributed dequeue (dequeue.c, thesis Algorithm
 * 3.2 and the rank rule of Figure 3.11) of one node, its peers played
 * by datagrams through the real codec.
 */
#include <inttypes.h>

#include "testutil.h"

#include "dequeue.h"
#include "fit.h"
#include "peerrate.h"
#include "peerrun.h"
#include "placement.h"
#include "peertab.h"

static const char *
try_for(int k, int64_t ts)
{
	static char	buf[128];

	snprintf(buf, sizeof buf, "TRY_DEQUEUE %s %lld", uuid_n(k),
	    (long long)ts);
	return buf;
}

static void
test_alone_a_task_starts_at_once(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	node_start(n, 0);
	clear(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
}

static void
test_with_peers_propose_then_start_after_the_window(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(1, 100));
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	node_tick(n, 109);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	node_tick(n, 110);	/* the 10 ms window closed */
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
}

/* count heartbeats of peer, 100 ms apart from `from`, each arriving
 * `late` ms after its stamp; returns when the last came. */
static int64_t
beats_from(struct node *n, const char *peer, int64_t late, int64_t from,
    int count)
{
	char	hb[128];
	int64_t	at = from;
	int	k;

	for (k = 0; k < count; k++, at += 100) {
		snprintf(hb, sizeof hb, "HEARTBEAT %d 1 0 1 busy 10 0 0 7600 "
		    "1000 0 %lld 500", strcmp(peer, "beta") == 0,
		    (long long)(at - late));
		hear(n, peer, hb, at);
	}
	return at - 100;
}

static int64_t
beats_late(struct node *n, int64_t late, int64_t from, int count)
{
	return beats_from(n, "beta", late, from, count);
}

/*
 * The window follows how late the peers' stamped datagrams arrive
 * (a smoothed mean and deviation, as TCP's round trip): a round trip
 * and four deviations plus 2 ms for the clocks' steps, never more than
 * dequeue_window_ms, and that again once nothing was heard for 20 s.  A
 * quiet LAN starts a task in a few milliseconds, a slow one waits.
 */
static void
test_the_window_follows_how_late_stamps_arrive(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t;

	follow_beta(n);			/* its stamp 0 came at 10 */
	assert_int_equal(dequeue_window_ms(n, 20), 10);
	t = beats_late(n, 1, 100, 40);
	assert_int_equal(dequeue_window_ms(n, t), 4);
	clear(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, t, 0, NULL, NULL), 0);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(1, t));
	node_tick(n, t + 3);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	node_tick(n, t + 4);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);

	/* A claim that came 9 ms late widens it at once; punctual beats
	 * bring it back. */
	hear(n, "gamma", try_for(2, t + 10), t + 19);
	assert_int_equal(dequeue_window_ms(n, t + 19), 10);
	t = beats_late(n, 1, t + 100, 40);
	assert_int_equal(dequeue_window_ms(n, t), 4);
	/* Nothing heard for 20 s: the most again. */
	assert_int_equal(dequeue_window_ms(n, t + LATENESS_FORGET_MS), 10);
}

/*
 * Past dequeue_window_ms the window grows only by how much later than
 * its sender's least the stamps come (nodes waiting for a CPU, a
 * hundred on two cores): not for a clock 5 s behind ours, every stamp
 * as late as the last; by about twice the wait when they come 200 ms
 * later than that; never past half a node timeout.
 */
static void
test_the_window_grows_with_waiting_not_with_clocks(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t, w;

	follow_beta(n);
	t = beats_from(n, "gamma", 5000, 10000, 40);
	assert_in_range(dequeue_window_ms(n, t), 10, 12);
	t = beats_from(n, "gamma", 5200, t + 100, 40);
	w = dequeue_window_ms(n, t);
	assert_in_range(w, 400, 500);
	assert_int_equal(dequeue_claim_window_ms(n, t), w);
	t = beats_from(n, "gamma", 9000, t + 100, 40);
	assert_int_equal(dequeue_window_ms(n, t), 2000 / 2);
	/* Stamps back to the usual: the window shrinks back. */
	t = beats_from(n, "gamma", 5000, t + 100, 80);
	assert_in_range(dequeue_window_ms(n, t), 10, 12);
	assert_int_equal(dequeue_claim_window_ms(n, t), 10);
}

/*
 * A burst shows in the claims first, before any heartbeat: a peer's
 * newest claims, 200 ms later than its base, widen the window as its
 * heartbeats would, whatever its clock; an old stamp told again does
 * not (a claim repeated or passed on is as old as its race).
 */
static void
test_fresh_claims_widen_the_window_told_ones_do_not(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t, told;
	int		 k;

	follow_beta(n);
	t = beats_from(n, "gamma", 5000, 10000, 40);	/* 5 s behind us */
	told = t + 20 - 5000;	/* punctual at first, then told again */
	for (k = 0; k < 30; k++) {
		t += 20;
		hear(n, "gamma", try_for(100, told), t);
	}
	assert_in_range(dequeue_window_ms(n, t), 10, 14);
	for (k = 0; k < 30; k++) {
		t += 20;
		hear(n, "gamma", try_for(200 + k, t - 5200), t);
	}
	assert_in_range(dequeue_window_ms(n, t), 300, 1000);
	assert_int_equal(dequeue_claim_window_ms(n, t), dequeue_window_ms(n,
	    t));
}

/* A rival's claim stamped before ours that arrives as late as the
 * stamps measured still beats ours: the short window waited for it. */
static void
test_a_short_window_still_hears_an_earlier_claim(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t;

	follow_beta(n);
	t = beats_late(n, 2, 100, 40);
	assert_int_equal(dequeue_window_ms(n, t), 6);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, t, 0, NULL, NULL), 0);
	hear(n, "gamma", try_for(1, t - 1), t + 5);
	node_tick(n, t + 6);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	assert_non_null(logged(n, "lost the race"));
}

/* Three runs of "free" of `ms` each, alone: the pool's time for it. */
static void
learn_free_takes(struct node *n, int64_t ms)
{
	int	k;

	node_start(n, 0);
	for (k = 1; k <= 3; k++) {
		int64_t at = k * 2000;
		assert_int_equal(sched(n, k, "free", PRIO_LOW, at, 0, NULL,
		    NULL), 0);
		assert_int_equal(state_of(n, uuid_n(k)), TASK_RUNNING);
		terminate(n, uuid_n(k), 1, at + ms);
		exit_with(n, uuid_n(k), 0, at + ms);
		assert_true(node_find(n, uuid_n(k))->confirmed);
	}
}

/* Tick n at its own timer, up to `until`, until it proposes a task;
 * returns the last tick's time (-1: none). */
static int64_t
tick_until_try(struct node *n, int64_t until)
{
	int64_t	t, last = -1;

	while (sent(n, NULL, "TRY_DEQUEUE") == NULL &&
	    (t = status_of(n).timer) >= 0 && t <= until)
		node_tick(n, last = t);
	return last;
}

static void
learn_free_takes_1s(struct node *n)
{
	learn_free_takes(n, 1000);
}

/*
 * Trivial tasks and a peer twenty times as fast: its run rounds to 0 ms,
 * and reckoning how many it would end must not divide by that (it did:
 * SIGFPE in every slower node of a 9-node pool running trivial tasks,
 * and any key holder could send that speed).
 */
static void
test_a_task_shorter_than_a_ms_on_a_faster_peer(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	learn_free_takes(n, 10);
	hear(n, "beta", "HEARTBEAT 1 1 1 1 idle 10 0 0 7600 20000 3600 0 500",
	    9000);
	clear(n);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 9001, 0, NULL, NULL),
	    0);
	/* beta goes first; it never claims, so we try it ourselves. */
	tick_until_try(n, 9099);
	assert_non_null(sent(n, NULL, "TRY_DEQUEUE"));
}

/* A faster idle peer ranks first: the head of the queue is its to try. */
static void
test_a_faster_idle_peer_goes_first(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	learn_free_takes_1s(n);
	hear(n, "beta", "HEARTBEAT 1 1 1 1 idle 10 0 0 7600 3000 3600 0 500",
	    9000);
	clear(n);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 9001, 0, NULL, NULL),
	    0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	assert_int_equal(peertab_last_idle_rank(n), 1);
}

/*
 * We learned free takes 1 s; beta, three times as fast (~333 ms a run),
 * runs task 5 since `since`, as told at 9000; then we get task 4 at 9001.
 */
static void
beta_runs_since(struct node *n, int64_t since)
{
	char	rec[512];

	learn_free_takes_1s(n);
	hear(n, "beta", "HEARTBEAT 1 1 0 1 idle 10 0 0 7600 3000 3600 0 500",
	    9000);
	snprintf(rec, sizeof rec, "STATE v=1 id=%s exec=free prio=low "
	    "aged=0 st=Running sb=beta cl=x on=beta sub=%" PRId64 " rdy=%"
	    PRId64 " stt=%" PRId64 " end=-1 pg=0 att=1 fail=0 ver=2",
	    uuid_n(5), since, since, since);
	hear(n, "beta", rec, 9000);
	clear(n);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 9001, 0, NULL, NULL),
	    0);
}

/*
 * A node leaves a task to a clearly faster peer that will be free soon
 * and end the whole queue before it would end that one task.  A peer
 * late on its estimate by x is expected to take x more: a little late,
 * it is about to end (run times vary: half of them are late), so the
 * node waits on; once the peer would end the task after the node would
 * (here, as the node has left it as long as it would take to run it),
 * the node takes it.
 */
static void
test_a_slower_node_leaves_a_task_to_a_faster_one(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	beta_runs_since(n, 9000);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	assert_non_null(logged(n, "left to nodes that would end the queue "
	    "sooner"));
	node_tick(n, 9200);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	node_tick(n, 9334);	/* beta should have ended: it is late */
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	/* 1 s, our time for it, from 9001. */
	assert_int_equal(tick_until_try(n, 10001), 10001);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(4, 10001));
}

/*
 * A peer late by much has long work: the node does not wait for it.
 * beta, three times as fast, should have ended its run 668 ms ago; we
 * would end the task in 1 s, beta (late by x, x more) in 1.67 s.
 * Before, a late peer counted as about to end, and the node left the
 * task to it for as long as it would take to run it: on machines that
 * differ a little and runs of uneven length (Anglano et al.'s
 * enterprise grid), that wait was lost.
 */
static void
test_a_peer_late_by_much_is_not_waited_for(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	beta_runs_since(n, 8000);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(4, 9001));
}

/*
 * Estimates: a task of a type that ran before is expected to take what
 * it took; one running ends that long after its start, or, overdue, as
 * long again from now; a type never run has none, nor what waits on it.
 */
static void
test_estimates_come_from_the_runs_of_the_type(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task_binding b = { "", 1 };
	const struct task *t;

	learn_free_takes_1s(n);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 9000, 0, NULL, NULL),
	    0);
	assert_non_null(t = node_find(n, uuid_n(4)));
	assert_int_equal(t->state, TASK_RUNNING);
	assert_int_equal(node_task_run_estimate(n, t), 1000);
	assert_int_equal(node_task_end_estimate(n, t, 9100), 10000);
	assert_int_equal(node_task_end_estimate(n, t, 10500), 11500);
	memcpy(b.uuid, uuid_n(4), sizeof b.uuid);
	assert_int_equal(sched(n, 5, "any", PRIO_LOW, 9100, 1, &b, NULL), 0);
	assert_int_equal(node_task_run_estimate(n, node_find(n, uuid_n(5))),
	    -1);
	assert_int_equal(node_task_end_estimate(n, node_find(n, uuid_n(5)),
	    9100), -1);
}

/* alpha, placing tasks the given way. */
static struct node *
placed(struct taskdesc_set *set, enum placement_mode mode)
{
	struct node_config	cfg;
	struct node		*n;

	plmi2_descs(set);
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "alpha");
	cfg.placement = mode;
	assert_non_null(n = node_new(&cfg, set));
	return n;
}

/* Blind placement: no waiting, whatever the peers' speeds. */
static void
test_blind_placement_takes_the_task(void **state)
{
	struct taskdesc_set	set;
	struct node		*n;
	int			 k;

	n = placed(&set, PLACEMENT_BLIND);
	node_start(n, 0);
	for (k = 1; k <= 3; k++) {
		int64_t at = k * 2000;
		assert_int_equal(sched(n, k, "free", PRIO_LOW, at, 0, NULL,
		    NULL), 0);
		terminate(n, uuid_n(k), 1, at + 1000);
		exit_with(n, uuid_n(k), 0, at + 1000);
	}
	hear(n, "beta", "HEARTBEAT 1 1 1 1 idle 10 0 0 7600 3000 3600 0 500",
	    9000);
	clear(n);
	assert_int_equal(sched(n, 4, "free", PRIO_LOW, 9001, 0, NULL, NULL),
	    0);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(4, 9001));
	node_free(n);
	taskdesc_clear(&set);
	(void)state;
}

/*
 * The reliability fit: beta, likely to stay an hour, and we, up a few
 * seconds, both idle.  A one-second task heads the queue, a minute's
 * import comes second.  Ranked second, informed placement would take
 * the import here; the fit leaves it to beta, whose stay it fits, and
 * we take the short one.
 */
static void
test_the_fit_leaves_the_long_task_to_the_node_likely_to_stay(void **state)
{
	struct taskdesc_set	set;
	struct node		*n;

	n = placed(&set, PLACEMENT_FIT);
	learn_free_takes(n, 1000);
	assert_int_equal(sched(n, 6, "import", PRIO_LOW, 7000, 0, NULL, NULL),
	    0);
	terminate(n, uuid_n(6), 3, 67000);
	exit_with(n, uuid_n(6), 0, 67000);
	assert_true(fit_score(60000, 1000, 3600) > fit_score(1000, 1000, 3600));
	assert_true(fit_score(1000, 1000, 2) > fit_score(60000, 1000, 2));
	hear(n, "beta", "HEARTBEAT 1 1 1 1 idle 10 0 0 7600 1000 3600 0 500",
	    68000);
	assert_int_equal(sched(n, 7, "free", PRIO_LOW, 68001, 0, NULL, NULL),
	    0);
	clear(n);
	assert_int_equal(sched(n, 8, "import", PRIO_LOW, 68002, 0, NULL,
	    NULL), 0);
	assert_int_equal(peertab_last_idle_rank(n), 1);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(7, 68002));
	node_free(n);
	taskdesc_clear(&set);
	(void)state;
}

/* A confirmed run of "free" on node on, said to take est and taking
 * took, learned by n (est 0: none given). */
static void
learn_run(struct node *n, const char *on, int64_t est, int64_t took)
{
	struct task	*t = task_new(uuid_n(99), "free", 0);

	assert_non_null(t);
	t->state = TASK_TERMINATED;
	t->start_ms = 1000;
	t->end_ms = 1000 + took;
	t->est_ms = est;
	snprintf(t->running_on, sizeof t->running_on, "%s", on);
	placement_learn(n, t);
	task_free(t);
}

/*
 * Speed against each run's estimate: beta ran four 1-s and four 9-s
 * tasks as estimated; we ran eight 1-s ones in 0.5 s.  Against the
 * type's mean (2.75 s) we would seem 5.5 times as fast; against their
 * estimates, as the pool bears them out, twice (shrunk toward the
 * average by the prior runs: 1.45).
 */
static void
test_speed_is_learned_against_each_runs_estimate(void **state)
{
	struct taskdesc_set	set;
	struct node		*n;
	int			 k, told;

	for (told = 0; told <= 1; told++) {
		n = placed(&set, PLACEMENT_INFORMED);
		for (k = 0; k < 8; k++) {
			learn_run(n, "beta", told ? (k < 4 ? 1000 : 9000) : 0,
			    k < 4 ? 1000 : 9000);
			learn_run(n, "alpha", told ? 1000 : 0, 500);
		}
		if (told)
			assert_int_equal(placement_speed(n), 1450);
		else
			assert_int_equal(placement_speed(n), 2200);
		node_free(n);
		taskdesc_clear(&set);
	}
	(void)state;
}

/*
 * A desktop switched off every evening is no faster in the morning: its
 * learned speed goes to the shell with its volunteer periods (ACT_STAY)
 * and comes back at the restart, where it counts at once (before, every
 * restarted node was average until a run of its own ended) and its
 * prior runs are at that speed, not the average.  We ran four 1-s tasks
 * in 0.5 s, beta four in 1 s: 6 / 5 of the average with the prior, 1.20.
 * After the restart one run each at the average: (1 + 4) / (1 + 4 /
 * 1.2), 1.15 (1.00 had the speed been forgotten).
 */
static void
test_a_learned_speed_outlives_a_restart(void **state)
{
	struct taskdesc_set	set;
	struct node		*n;
	int			 k;
	static const char	*bad[] = { "-1 speed=", "-1 speed=10",
	    "-1 speed=1200 5", "-1 speed=99999999999999999999",
	    "-1 speed=1200x", "speed=1200" };

	n = placed(&set, PLACEMENT_INFORMED);
	for (k = 0; k < 4; k++) {
		learn_run(n, "beta", 0, 1000);
		learn_run(n, "alpha", 0, 500);
	}
	assert_int_equal(placement_speed(n), 1200);
	assert_non_null(last_text(n, ACT_STAY));
	assert_string_equal(last_text(n, ACT_STAY), "-1 speed=1200");
	node_free(n);
	taskdesc_clear(&set);
	n = placed(&set, PLACEMENT_INFORMED);
	for (k = 0; k < (int)(sizeof bad / sizeof bad[0]); k++)
		assert_int_equal(node_stay_restore(n, bad[k], 8000, 9000), -1);
	assert_int_equal(placement_speed(n), SPEED_UNIT);
	assert_int_equal(node_stay_restore(n, "-1 speed=1200", 8000, 9000), 0);
	assert_int_equal(placement_speed(n), 1200);
	learn_run(n, "beta", 0, 1000);
	learn_run(n, "alpha", 0, 1000);
	assert_int_equal(placement_speed(n), 1150);
	assert_string_equal(last_text(n, ACT_STAY), "-1 speed=1150");
	node_free(n);
	taskdesc_clear(&set);
	(void)state;
}

/*
 * The thesis' BFGCE: a task whose runs keep being lost was longer than
 * its submitter said, so the fit counts its estimate a tenth longer for
 * each lost run (up to FIT_LOST_MAX), and it goes to a steadier node
 * next.  A task without an estimate counts its type's learned time.
 */
static void
test_the_fit_grows_an_estimate_with_each_lost_run(void **state)
{
	struct taskdesc_set	set;
	struct node		*n;
	struct task		*t;
	int64_t			 l;
	int			 k;

	n = placed(&set, PLACEMENT_FIT);
	assert_int_equal(sched_est(n, 1, "free", 1000, 10000), 0);
	assert_non_null(t = (struct task *)node_find(n, uuid_n(1)));
	t->attempts = 0;	/* it may have started: as if not yet */
	assert_int_equal(fit_length(n, t), 10000);
	t->attempts = 1;
	assert_int_equal(fit_length(n, t), 11000);
	t->attempts = 2;
	assert_int_equal(fit_length(n, t), 12100);
	t->attempts = 1000;
	for (k = 0, l = 10000; k < FIT_LOST_MAX; k++)
		l += l / 10;
	assert_int_equal(fit_length(n, t), l);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 1001, 0, NULL, NULL),
	    0);
	assert_non_null(t = (struct task *)node_find(n, uuid_n(2)));
	t->attempts = 5;
	assert_int_equal(fit_length(n, t), placement_rank_ms(n, "free"));
	node_free(n);
	taskdesc_clear(&set);
	(void)state;
}

static void
test_an_earlier_proposal_wins_then_next_in_rank(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 101, 0, NULL, NULL), 0);
	/* One race at a time: no proposal for task 2 yet. */
	assert_null(sent_nth(n, NULL, "TRY_DEQUEUE", 1));
	hear(n, "gamma", try_for(1, 99), 105);
	clear(n);
	node_tick(n, 110);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	assert_non_null(logged(n, "to 1 node; next try at rank 1"));
	assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
	/* Lost to one: try position 1 of the queue, not the head again. */
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(2, 110));
	node_tick(n, 120);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(2)), 1);
}

static void
test_ties_go_to_the_lower_name(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	hear(n, "zeta", try_for(1, 100), 101);		/* we beat zeta */
	node_tick(n, 110);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
}

static void
test_a_claimed_task_is_left_for_the_claim_memory(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	/* gamma proposed before the task reached us. */
	hear(n, "gamma", try_for(1, 95), 96);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	/* Nobody took it within 4 windows: now it is ours to try. */
	clear(n);
	node_tick(n, 136);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	node_tick(n, 140);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(1, 140));
	node_tick(n, 150);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
}

static void
test_idle_rank_spreads_the_first_proposals(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	/* aaron is idle and sorts before us: it takes the head. */
	hear_alive(n, "aaron", 20);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 101, 0, NULL, NULL), 0);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(2, 101));
}

/*
 * Ranks come from what heartbeats told, ours too: in a big pool a
 * peer's last heartbeat is seconds old, and our expected stay, grown
 * since, must not put us before it (every idle node would think itself
 * first).
 */
static void
test_ranks_compare_what_the_heartbeats_told(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	hear_alive(n, "aaron", 20);	/* told: a stay of 0 s */
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 9000, 0, NULL, NULL),
	    0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	assert_int_equal(peertab_last_idle_rank(n), 1);
}

/* The idle count and rank, by a walk of the whole table. */
static void
walk_idle(struct node *n, int *count, int *rank)
{
	const struct peer	*p;
	size_t			 i;

	*count = *rank = 0;
	for (i = 0; i < peertab_count(n); i++)
		if ((p = peertab_at(n, (int)i)) != NULL &&
		    peerrun_is_idle(p)) {
			(*count)++;
			*rank += placement_peer_first(n, p);
		}
}

/*
 * The idle count and rank follow each peer's news (heartbeats, runs
 * begun and ended, silences) instead of walking the table: after any
 * mix of them, they are what a walk finds.
 */
static void
test_the_idle_rank_follows_every_change(void **state)
{
	static const char *names[] = { "aaron", "abel", "carol", "dora",
	    "zed", "zoe" }, *vol[] = { "idle", "busy", "batch", "stopped" };
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	char		 body[512];
	uint64_t	 r = 7;
	int64_t		 now = 100;
	int		 step, count, rank, changed = 0, last = -1;

	follow_beta(n);
	for (step = 0; step < 2000; step++) {
		const char *who;
		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		who = names[(r >> 33) % 6];
		now += (int64_t)((r >> 40) % 400);
		switch ((r >> 20) % 4) {
		case 0:
			snprintf(body, sizeof body, "HEARTBEAT 0 0 %d 1 %s 10 "
			    "0 0 7600 %d %d 0 500", (int)((r >> 8) % 2),
			    vol[(r >> 10) % 4], 500 + (int)((r >> 12) % 3) *
			    500, (int)((r >> 14) % 5000));
			hear(n, who, body, now);
			break;
		case 1:
			snprintf(body, sizeof body, "STATE v=1 id=%s exec=free "
			    "prio=low aged=0 st=%s sb=beta cl=x on=%s sub=90 "
			    "rdy=90 stt=90 end=-1 pg=0 att=1 fail=0 ver=2",
			    uuid_n(1 + (int)((r >> 9) % 3)), (r >> 11) % 2 ?
			    "Running" : "Terminated", who);
			hear(n, who, body, now);
			break;
		case 2:
			snprintf(body, sizeof body, "PROGRESS %s 50 2 90",
			    uuid_n(1 + (int)((r >> 9) % 3)));
			hear(n, who, body, now);
			break;
		case 3:
			node_tick(n, now);	/* runs go quiet, peers die */
			break;
		}
		clear(n);
		walk_idle(n, &count, &rank);
		assert_int_equal(peertab_idle_count(n, now), count);
		assert_int_equal(peertab_last_idle_rank(n), rank);
		changed += count != last;
		last = count;
	}
	assert_true(changed > 100);	/* the mix moved the counts */
}

/*
 * A node restarted from its journal keeps what placement learned (the
 * pool's run time per task type, its own speed): the runs in its map
 * are learned from again.  It came back knowing nothing, as "average":
 * in an office where desktops reboot, slow nodes then took the tasks
 * they should leave to faster ones.
 */
static void
test_a_restarted_node_keeps_its_speed(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n, *n2;
	struct taskdesc_set set2;

	learn_free_takes_1s(n);
	assert_int_equal(placement_estimate(n, "free", SPEED_UNIT), 1000);
	n2 = test_node(&set2, 1);
	restart_from(n, n2, 20000);
	assert_int_equal(placement_estimate(n2, "free", SPEED_UNIT), 1000);
	assert_int_equal(placement_speed(n2), placement_speed(n));
	node_free(n2);
	taskdesc_clear(&set2);
}

/* peer was told by unicast that task 1 runs on runner. */
static void
assert_told_running(struct node *n, const char *peer, const char *runner)
{
	const char	*st = sent(n, peer, "STATE ");
	char		 on[NAME_MAXLEN + 8];

	snprintf(on, sizeof on, " on=%s ", runner);
	assert_non_null(st);
	assert_non_null(strstr(st, uuid_n(1)));
	assert_non_null(strstr(st, " st=Running "));
	assert_non_null(strstr(st, on));
}

static void
test_the_runner_answers_a_late_proposal(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	node_start(n, 0);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	hear_alive(n, "beta", 200);
	clear(n);
	/* beta missed our STATE Running: it is told within its window. */
	hear(n, "beta", try_for(1, 201), 201);
	assert_told_running(n, "beta", "alpha");
	clear(n);
	/* Each proposal is told (that one may have been lost too); the
	 * rate limit bounds what a proposer draws. */
	hear(n, "beta", try_for(1, 205), 205);
	assert_non_null(sent(n, "beta", "STATE "));
}

/*
 * A rival that claims the task we claim, after us, is told our claim by
 * unicast: it loses to ours even if it missed our broadcast.  An earlier
 * rival is not told (ours loses to it).
 */
static void
test_a_later_rival_is_told_our_claim(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(1, 100));
	clear(n);
	hear(n, "zeta", try_for(1, 103), 104);
	assert_string_equal(sent(n, "zeta", "TRY_DEQUEUE"), try_for(1, 100));
	hear(n, "gamma", try_for(1, 99), 105);
	assert_null(sent(n, "gamma", "TRY_DEQUEUE"));
	node_tick(n, 110);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
}

/* A STATE record of task k, state st, on runner. */
static const char *
record_on(int k, const char *st, const char *runner)
{
	static char	rec[512];

	snprintf(rec, sizeof rec, "STATE v=1 id=%s exec=free prio=low "
	    "aged=0 st=%s sb=beta cl=x on=%s sub=50 rdy=50 stt=50 end=-1 "
	    "pg=0 att=1 fail=0 ver=3", uuid_n(k), st, runner);
	return rec;
}

/* alpha, busy, follows beta and knows gamma and zeta: in a pool of
 * four every node is one of the CLAIMS_HELPERS (about four). */
static void
busy_among_four(struct node *n)
{
	follow_beta(n);
	node_set_volunteer(n, 0, "busy", 20);
	hear_alive(n, "gamma", 20);
	hear_alive(n, "zeta", 20);
	clear(n);
}

/*
 * gamma claims a task after zeta did; zeta's broadcast (and zeta's own
 * answer) may never reach gamma: a helper that heard both tells gamma
 * zeta's earlier stamp, and gamma loses the race it would have lost.
 * zeta, whose claim is the earlier, is told nothing.
 */
static void
test_a_helper_passes_an_earlier_claim_on(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	busy_among_four(n);
	hear(n, "beta", "STATE v=1 id=00000000-0000-4000-8000-000000000001 "
	    "exec=free prio=low aged=0 st=Ready sb=beta cl=x sub=50 rdy=50 "
	    "stt=-1 end=-1 pg=0 att=0 fail=0 ver=1", 50);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
	clear(n);
	hear(n, "zeta", try_for(1, 100), 101);
	assert_null(sent(n, "zeta", "TRY_DEQUEUE"));
	hear(n, "gamma", try_for(1, 103), 104);
	assert_non_null(sent(n, "gamma", "TRY_DEQUEUE"));
	assert_string_equal(sent(n, "gamma", "TRY_DEQUEUE"), try_for(1, 100));
	assert_null(sent(n, "zeta", "TRY_DEQUEUE"));
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
}

/* zeta missed gamma's STATE Running, and may miss the answers of the
 * runner, the master and the node it was scheduled on: a helper that
 * is none of them tells it too. */
static void
test_a_helper_answers_a_late_claim(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	busy_among_four(n);
	hear(n, "gamma", record_on(1, "Running", "gamma"), 50);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	clear(n);
	hear(n, "zeta", try_for(1, 200), 201);
	assert_told_running(n, "zeta", "gamma");
}

/*
 * beta's run of task 1 ended, its votes on their way, and task 2 waits
 * on it: our free slot waits for task 2 (one window at most) rather than
 * take task 3, of a newer workflow -- runs of equal length end together,
 * and task 2 would wait a whole run.
 */
static void
test_a_free_slot_waits_for_dependents_of_a_result_being_confirmed(
    void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task_binding b = { "", 1 };
	char		 rec[512];

	follow_beta(n);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 50, 0, NULL, NULL), 0);
	snprintf(rec, sizeof rec, "STATE v=1 id=%s exec=free prio=low aged=0 "
	    "st=Running sb=alpha cl=x on=beta sub=50 rdy=50 stt=50 end=-1 "
	    "pg=0 att=1 fail=0 ver=3", uuid_n(1));
	hear(n, "beta", rec, 55);
	node_tick(n, 60);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	memcpy(b.uuid, uuid_n(1), sizeof b.uuid);
	assert_int_equal(sched(n, 2, "any", PRIO_LOW, 95, 1, &b, NULL), 0);
	snprintf(rec, sizeof rec, "STATE v=1 id=%s exec=free prio=low aged=0 "
	    "st=Terminated sb=alpha cl=x on=beta sub=50 rdy=50 stt=50 end=100 "
	    "pg=100 att=1 fail=0 ver=4 rnd=1 out=r1", uuid_n(1));
	hear(n, "beta", rec, 100);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_TERMINATED);
	clear(n);
	assert_int_equal(sched(n, 3, "free", PRIO_LOW, 101, 0, NULL, NULL), 0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	node_tick(n, 110);	/* no confirmation within the window */
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(3, 110));
}

/*
 * A one-slot peer is busy from its STATE Running and idle again from the
 * end of that run, not from its next heartbeat (seconds away in a big
 * pool): nodes ending runs together rank alike.  News of an older run
 * of it does not make it idle.
 */
static void
test_a_peers_run_states_say_whether_it_is_idle(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	follow_beta(n);
	hear_alive(n, "aaron", 20);		/* sorts before us */
	hear(n, "aaron", record_on(7, "Running", "aaron"), 30);
	hear(n, "aaron", record_on(6, "Terminated", "aaron"), 31);
	clear(n);
	/* aaron is busy: the head is ours. */
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(1, 100));
	node_tick(n, 110);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
	terminate(n, uuid_n(1), 1, 120);
	exit_with(n, uuid_n(1), 0, 120);
	/* Its run ended as ours did: the head is aaron's now. */
	hear(n, "aaron", record_on(7, "Terminated", "aaron"), 121);
	clear(n);
	assert_int_equal(sched(n, 2, "free", PRIO_LOW, 130, 0, NULL, NULL), 0);
	node_tick(n, 140);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
}

/*
 * A claimant that never starts what it claims -- TRY_DEQUEUE <uuid> 0
 * every 15 ms, the audit's attack -- holds a task back for at most
 * CLAIM_EXPIRES windows; and a sender of more TRY_DEQUEUEs than any
 * node sends is cut off at the rate limit.
 */
static void
test_a_claim_never_acted_on_expires(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t;
	int		 i;

	follow_beta(n);
	hear_alive(n, "mallory", 50);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 100, 0, NULL, NULL), 0);
	for (t = 100; t < 5000 && state_of(n, uuid_n(1)) == TASK_READY;
	    t += 5) {
		if (t % 15 == 10)
			hear(n, "mallory", try_for(1, 0), t);
		node_tick(n, t);
	}
	/* After a failure timeout (more than CLAIM_EXPIRES windows): an
	 * honest winner slow to start shows its run by then. */
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	assert_true(t >= 100 + 2000 && t <= 100 + 2000 + 3 * 10);
	/* Thirty TRY_DEQUEUEs in one window: a batch's worth count. */
	clear(n);
	for (i = 0; i < 30; i++)
		hear(n, "mallory", try_for(2, 0), t + 1000);
	assert_non_null(logged(n, "node mallory sends TRY_DEQUEUE faster "
	    "than any node should"));
	assert_int_equal(count_logged(n, "from mallory processed"),
	    RATE_DEQUEUE_BUDGET);
}

/*
 * In a pool with beta (busy), "free" known to take 1 ms: task 4 ("free")
 * races alone -- it was the only one ready -- and runs; tasks 5 and 6
 * (of exec) wait.  Returns at 4's end, which raced for what follows.
 */
static void
end_the_first_of_three(struct node *n, const char *exec)
{
	int64_t	t;
	int	k;

	learn_free_takes(n, 1);
	hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 0 0 500",
	    9000);
	/* The first of unknown length: no race starts while it runs
	 * (ahead.c). */
	for (k = 4; k <= 6; k++)
		assert_int_equal(sched(n, k, k == 4 ? "import" : exec,
		    PRIO_LOW, 9001, 0, NULL, NULL), 0);
	while (state_of(n, uuid_n(4)) != TASK_RUNNING &&
	    (t = status_of(n).timer) >= 0 && t < 9100)
		node_tick(n, t);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	clear(n);
	terminate(n, uuid_n(4), 3, 9030);	/* an import's three */
	exit_with(n, uuid_n(4), 0, 9030);
}

/* Tasks 5 and 6 (1 ms each) are claimed in one race at 9030; its window
 * closes at 9040. */
static void
race_a_batch(struct node *n)
{
	end_the_first_of_three(n, "free");
	assert_string_equal(sent_nth(n, NULL, "TRY_DEQUEUE", 0),
	    try_for(5, 9030));
	assert_string_equal(sent_nth(n, NULL, "TRY_DEQUEUE", 1),
	    try_for(6, 9030));
	node_tick(n, 9040);
}

/* Task `running` ends at `at`: the held task starts at once, with no
 * race of its own. */
static void
held_starts_as_the_slot_frees(struct node *n, int running, int held,
    int64_t at)
{
	clear(n);
	terminate(n, uuid_n(running), 1, at);
	exit_with(n, uuid_n(running), 0, at);
	assert_int_equal(state_of(n, uuid_n(held)), TASK_RUNNING);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
}

/* Short tasks are claimed several to a race, and the ones won while the
 * slot is busy start one after another with no race of their own. */
static void
test_short_tasks_are_won_in_a_batch_and_start_in_turn(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	race_a_batch(n);
	assert_int_equal(state_of(n, uuid_n(5)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(6)), TASK_READY);
	assert_non_null(logged(n, "won 1 more task"));
	held_starts_as_the_slot_frees(n, 5, 6, 9042);
}

/* A task won in a batch but not started before the peers forget our
 * claim (four windows) is raced for again. */
static void
test_a_held_task_not_started_in_time_is_raced_again(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	race_a_batch(n);
	clear(n);
	terminate(n, uuid_n(5), 1, 9070);
	exit_with(n, uuid_n(5), 0, 9070);
	assert_int_equal(state_of(n, uuid_n(6)), TASK_READY);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(6, 9070));
	assert_non_null(logged(n, "not started in time"));
}

/* A rival that claims a task we hold, after us, is told our claim. */
static void
test_a_rival_is_told_our_claim_on_a_held_task(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	race_a_batch(n);
	clear(n);
	hear(n, "gamma", try_for(6, 9041), 9042);
	assert_string_equal(sent(n, "gamma", "TRY_DEQUEUE"), try_for(6, 9030));
}

/* Tasks of a type never run here race one at a time: a node must not
 * hold work it cannot tell is short. */
static void
test_tasks_of_unknown_length_race_one_at_a_time(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;

	end_the_first_of_three(n, "import");
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(5, 9030));
	assert_null(sent_nth(n, NULL, "TRY_DEQUEUE", 1));
}

/* Run task 4 (of type exec) from `at`, beta busy; 4 has ended when 5
 * and 6 are scheduled, `later` ms after it started. */
static int64_t
run_the_fourth(struct node *n, const char *exec, int64_t at)
{
	int64_t	t;

	hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 0 0 500",
	    at);
	assert_int_equal(sched(n, 4, exec, PRIO_LOW, at, 0, NULL, NULL), 0);
	while (state_of(n, uuid_n(4)) != TASK_RUNNING &&
	    (t = status_of(n).timer) >= 0 && t < at + 100)
		node_tick(n, t);
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	clear(n);
	return node_find(n, uuid_n(4))->start_ms;
}

/* A node whose slot runs a short task races for the next one a window
 * before it should end: the window passes while it runs, and the task
 * it won starts the moment the slot frees, with no race of its own. */
static void
test_a_busy_node_races_a_window_before_its_short_run_ends(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t0;

	learn_free_takes(n, 30);	/* 30 ms: a window is 10 */
	t0 = run_the_fourth(n, "free", 9000);
	assert_int_equal(sched(n, 5, "free", PRIO_LOW, t0 + 1, 0, NULL,
	    NULL), 0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	assert_int_equal(status_of(n).timer, t0 + 20);
	node_tick(n, t0 + 20);
	assert_string_equal(sent(n, NULL, "TRY_DEQUEUE"), try_for(5, t0 + 20));
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	node_tick(n, t0 + 30);		/* its window closed: held */
	assert_int_equal(state_of(n, uuid_n(5)), TASK_READY);
	held_starts_as_the_slot_frees(n, 4, 5, t0 + 31);
}

/* Not while a run whose end readies dependents goes on: they go first
 * (confirm.c), the slot frees, then the race. */
static void
test_no_race_ahead_of_a_run_with_dependents(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	struct task_binding b = { "", 1 };
	int64_t		 t0;

	learn_free_takes(n, 30);
	t0 = run_the_fourth(n, "free", 9000);
	memcpy(b.uuid, uuid_n(4), sizeof b.uuid);
	assert_int_equal(sched(n, 7, "any", PRIO_LOW, t0 + 1, 1, &b, NULL),
	    0);
	assert_int_equal(sched(n, 5, "free", PRIO_LOW, t0 + 1, 0, NULL,
	    NULL), 0);
	node_tick(n, t0 + 25);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
}

/* Nor after a run too long for a batch. */
static void
test_no_race_ahead_of_a_long_run(void **state)
{
	struct node_fixture *f = *state;
	struct node	*n = f->n;
	int64_t		 t0;

	learn_free_takes_1s(n);
	t0 = run_the_fourth(n, "free", 9000);
	assert_int_equal(sched(n, 5, "free", PRIO_LOW, t0 + 1, 0, NULL,
	    NULL), 0);
	node_tick(n, t0 + 995);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	assert_int_equal(state_of(n, uuid_n(5)), TASK_READY);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_a_faster_idle_peer_goes_first),
		NODE_TEST(test_a_slower_node_leaves_a_task_to_a_faster_one),
		NODE_TEST(test_a_peer_late_by_much_is_not_waited_for),
		NODE_TEST(test_a_task_shorter_than_a_ms_on_a_faster_peer),
		NODE_TEST(test_a_helper_passes_an_earlier_claim_on),
		NODE_TEST(test_a_helper_answers_a_late_claim),
		cmocka_unit_test(test_blind_placement_takes_the_task),
		cmocka_unit_test(
		    test_the_fit_leaves_the_long_task_to_the_node_likely_to_stay),
		cmocka_unit_test(
		    test_the_fit_grows_an_estimate_with_each_lost_run),
		cmocka_unit_test(
		    test_speed_is_learned_against_each_runs_estimate),
		cmocka_unit_test(test_a_learned_speed_outlives_a_restart),
		NODE_TEST(test_estimates_come_from_the_runs_of_the_type),
		NODE_TEST(test_a_claim_never_acted_on_expires),
		NODE_TEST(test_alone_a_task_starts_at_once),
		NODE_TEST(test_with_peers_propose_then_start_after_the_window),
		NODE_TEST(test_the_window_follows_how_late_stamps_arrive),
		NODE_TEST(test_the_window_grows_with_waiting_not_with_clocks),
		NODE_TEST(test_fresh_claims_widen_the_window_told_ones_do_not),
		NODE_TEST(test_a_short_window_still_hears_an_earlier_claim),
		NODE_TEST(test_an_earlier_proposal_wins_then_next_in_rank),
		NODE_TEST(test_ties_go_to_the_lower_name),
		NODE_TEST(test_a_claimed_task_is_left_for_the_claim_memory),
		NODE_TEST(test_idle_rank_spreads_the_first_proposals),
		NODE_TEST(test_the_idle_rank_follows_every_change),
		NODE_TEST(test_a_restarted_node_keeps_its_speed),
		NODE_TEST(test_the_runner_answers_a_late_proposal),
		NODE_TEST(test_a_later_rival_is_told_our_claim),
		NODE_TEST(
		    test_a_free_slot_waits_for_dependents_of_a_result_being_confirmed),
		NODE_TEST(test_ranks_compare_what_the_heartbeats_told),
		NODE_TEST(test_a_peers_run_states_say_whether_it_is_idle),
		NODE_TEST(test_short_tasks_are_won_in_a_batch_and_start_in_turn),
		NODE_TEST(test_a_busy_node_races_a_window_before_its_short_run_ends),
		NODE_TEST(test_no_race_ahead_of_a_long_run),
		NODE_TEST(test_no_race_ahead_of_a_run_with_dependents),
		NODE_TEST(test_a_held_task_not_started_in_time_is_raced_again),
		NODE_TEST(test_a_rival_is_told_our_claim_on_a_held_task),
		NODE_TEST(test_tasks_of_unknown_length_race_one_at_a_time),
	};

	return cmocka_run_group_tests_name("dequeue", tests, NULL, NULL);
}
