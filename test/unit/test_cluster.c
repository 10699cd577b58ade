/*
 * test_cluster.c -- the cluster protocol of the real core, several nodes
 * on the simulated LAN of test/sim: election, dequeue ranks, split
 * brain, duplicates, failures, lost datagrams.
 */
#include "nodestate.h"	/* white box: force an election */
#include "simfixture.h"

static struct fixture *
boot(int n, const int *reputation)
{
	struct fixture	*f = fixture_new(n);
	int		 i;

	for (i = 0; i < n; i++)
		sim_boot(&f->s, i, reputation != NULL ? reputation[i] : 10);
	return f;
}

/* Every live node follows the same master, and only it says it is. */
static void
assert_one_master(struct simnet *s, const char *want)
{
	const char	*name = NULL;
	int		 i;

	assert_int_equal(sim_master_count(s, &name), 1);
	if (want != NULL)
		assert_string_equal(name, want);
	for (i = 0; i < s->n; i++)
		if (s->alive[i])
			assert_string_equal(node_master(s->nodes[i]), name);
}

static void
test_election_by_reputation(void **state)
{
	int		 rep[4] = { 10, 10, 12, 10 };
	struct fixture	*f = boot(4, rep);

	sim_run_until(&f->s, f->s.now + 500);
	assert_one_master(&f->s, "n02");
	done(f);
}

static void
test_election_ties_to_lower_name(void **state)
{
	struct fixture	*f = boot(5, NULL);

	sim_run_until(&f->s, f->s.now + 500);
	/* Same reputation, map and candidacy time: the lowest name. */
	assert_one_master(&f->s, "n00");
	done(f);
}

static void
test_election_prefers_larger_map(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[UUID_STRLEN + 1];

	/* Between two heartbeats (at 250 and 500): none comes from the old
	 * master while the election runs. */
	sim_run_until(&f->s, f->s.now + 520);
	/* n02 alone learns of a task (its ENQUEUE reaches nobody). */
	f->s.group[2] = 1;
	assert_int_equal(sim_schedule(&f->s, 2, "free", PRIO_LOW, 0, NULL, u),
	    0);
	/* Everybody forgets the master and elects at the same instant. */
	f->s.group[2] = 0;
	f->s.task_ms = -1;
	{
		int i;
		for (i = 0; i < 3; i++) {
			f->s.nodes[i]->election.master[0] = '\0';
			node_tick(f->s.nodes[i], f->s.now);
			f->s.nodes[i]->election.join_deadline = f->s.now;
			node_tick(f->s.nodes[i], f->s.now);
			sim_flush(&f->s, i);
		}
	}
	sim_run_until(&f->s, f->s.now + 300);
	assert_one_master(&f->s, "n02");
	done(f);
}

/*
 * Thesis Figure 3.11: three volunteers race for the head of the same
 * queue Tx, Ty, Tz.  One wins Tx; the one that lost once tries Ty, the
 * one that lost twice Tz: two rounds, no third.
 */
static void
test_dequeue_rank_figure_3_11(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[3][UUID_STRLEN + 1], who[3][NAME_MAXLEN + 1];
	int		 i, k;
	uint64_t	 sent;

	f->s.task_ms = -1;
	sim_run_until(&f->s, f->s.now + 500);
	for (i = 0; i < 3; i++) {
		node_set_volunteer(f->s.nodes[i], 0, "busy", f->s.now);
		sim_flush(&f->s, i);
	}
	for (k = 0; k < 3; k++)
		assert_int_equal(sim_schedule(&f->s, 0, "free", PRIO_LOW, 0,
		    NULL, u[k]), 0);
	sim_run_until(&f->s, f->s.now + 50);
	for (i = 0; i < 3; i++)
		assert_int_equal(status_of(f->s.nodes[i]).nready, 3);
	sent = f->s.sent;
	/* All become idle at the same instant. */
	for (i = 0; i < 3; i++)
		node_set_volunteer(f->s.nodes[i], 1, "idle", f->s.now);
	for (i = 0; i < 3; i++)
		sim_flush(&f->s, i);
	sim_run_until(&f->s, f->s.now + 40);
	for (k = 0; k < 3; k++) {
		assert_int_equal(sim_starts(&f->s, u[k], who[k]), 1);
		assert_int_equal(state_of(f->s.nodes[0], u[k]), TASK_RUNNING);
	}
	assert_string_equal(who[0], "n00");	/* lowest name wins Tx */
	assert_string_equal(who[1], "n01");	/* lost once: Ty */
	assert_string_equal(who[2], "n02");	/* lost twice: Tz */
	(void)sent;
	/* Every node agrees on who runs what. */
	for (i = 0; i < 3; i++)
		for (k = 0; k < 3; k++)
			assert_string_equal(node_find(f->s.nodes[i],
			    u[k])->running_on, who[k]);
	done(f);
}

static void
test_workflow_spreads_and_completes(void **state)
{
	struct fixture		*f = boot(4, NULL);
	int			 w, i;
	char			 ids[8][4][UUID_STRLEN + 1];
	static const int	 low[4] = { PRIO_LOW, PRIO_LOW, PRIO_LOW,
				    PRIO_LOW };

	sim_run_until(&f->s, f->s.now + 500);
	for (w = 0; w < 8; w++)
		assert_int_equal(sim_workflow(&f->s, w % 4, low, ids[w]),
		    0);
	sim_run_until(&f->s, f->s.now + 2000);
	for (w = 0; w < 8; w++) {
		for (i = 0; i < 4; i++) {
			int n;
			assert_int_equal(sim_starts(&f->s, ids[w][i], NULL), 1);
			for (n = 0; n < 4; n++)
				assert_int_equal(state_of(f->s.nodes[n],
				    ids[w][i]), TASK_TERMINATED);
		}
	}
	/* 32 tasks of 100 ms on 4 nodes, chains of 4: about 800 ms. */
	for (i = 0; i < 4; i++)
		assert_int_equal(node_digest(f->s.nodes[i]),
		    node_digest(f->s.nodes[0]));
	done(f);
}

/* Master n00 is cut off; the rest elect n01 (a higher epoch).  Healed,
 * n00 hears the newer master and steps down. */
static void
test_split_brain_heals_by_epoch(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[UUID_STRLEN + 1];

	sim_run_until(&f->s, f->s.now + 500);
	assert_one_master(&f->s, "n00");
	f->s.group[0] = 1;
	sim_run_until(&f->s, f->s.now + 3000);
	assert_int_equal(sim_master_count(&f->s, NULL), 2);
	assert_true(node_is_master(f->s.nodes[1]));
	assert_int_equal(status_of(f->s.nodes[1]).epoch, 2);
	/* Work scheduled on both sides during the partition. */
	sim_schedule(&f->s, 0, "free", PRIO_LOW, 0, NULL, u);
	sim_schedule(&f->s, 2, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 500);
	f->s.group[0] = 0;
	sim_run_until(&f->s, f->s.now + 3000);
	assert_one_master(&f->s, "n01");
	assert_int_equal(status_of(f->s.nodes[0]).epoch, 2);
	/* And the state merged: both tasks everywhere. */
	assert_int_equal(status_of(f->s.nodes[0]).ntasks, 2);
	assert_int_equal(status_of(f->s.nodes[2]).ntasks, 2);
	assert_int_equal(node_digest(f->s.nodes[0]),
	    node_digest(f->s.nodes[2]));
	done(f);
}

static int
drop_try_dequeue(struct simnet *s, int from, int to, const char *body)
{
	return strncmp(body, "TRY_DEQUEUE", 11) == 0 ||
	    strncmp(body, "STATE", 5) == 0;
}

/* Lost TRY_DEQUEUE and STATE: two nodes run one task.  Their PROGRESS
 * heartbeats meet; the run with less progress stops, one result. */
static void
test_duplicate_run_resolved(void **state)
{
	struct fixture	*f = boot(2, NULL);
	char		 u[UUID_STRLEN + 1];
	struct task	*t0, *t1;

	f->s.task_ms = -1;
	sim_run_until(&f->s, f->s.now + 500);
	node_set_volunteer(f->s.nodes[1], 0, "busy", f->s.now);
	sim_flush(&f->s, 1);
	sim_schedule(&f->s, 0, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 5);
	f->s.drop = drop_try_dequeue;
	/* n00 is running it; n01 comes to volunteer and takes it too. */
	{
		struct runner_msg m;
		memset(&m, 0, sizeof m);
		m.type = RMSG_PROGRESS;
		m.percent = 30;
		node_runner_msg(f->s.nodes[0], u, &m, f->s.now);
		sim_flush(&f->s, 0);
	}
	f->s.group[0] = 1;	/* no heartbeat either, for a moment */
	node_set_volunteer(f->s.nodes[1], 1, "idle", f->s.now);
	sim_flush(&f->s, 1);
	sim_run_until(&f->s, f->s.now + 1500);
	assert_int_equal(sim_starts(&f->s, u, NULL), 2);
	f->s.group[0] = 0;
	f->s.drop = NULL;
	sim_run_until(&f->s, f->s.now + 500);
	/* n00 had 30%, n01 0%: n01's run stops; both agree on n00. */
	t0 = node_find(f->s.nodes[0], u);
	t1 = node_find(f->s.nodes[1], u);
	assert_int_equal(t1->run, RUN_NONE);
	assert_int_equal(t0->run, RUN_ACTIVE);
	assert_string_equal(t1->running_on, "n00");
	assert_int_equal(status_of(f->s.nodes[1]).duplicates, 1);
	sim_finish(&f->s, 0, u);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(node_find(f->s.nodes[1], u)->state, TASK_TERMINATED);
	assert_string_equal(node_find(f->s.nodes[1], u)->running_on, "n00");
	done(f);
}

/* Two results for one task (a long partition): every node keeps the
 * same one. */
static void
test_one_result_accepted(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[UUID_STRLEN + 1];
	int		 i;

	f->s.task_ms = -1;
	sim_run_until(&f->s, f->s.now + 500);
	for (i = 1; i < 3; i++) {
		node_set_volunteer(f->s.nodes[i], 0, "busy", f->s.now);
		sim_flush(&f->s, i);
	}
	node_set_volunteer(f->s.nodes[0], 0, "busy", f->s.now);
	sim_flush(&f->s, 0);
	sim_schedule(&f->s, 0, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 50);
	f->s.group[2] = 1;
	node_set_volunteer(f->s.nodes[1], 1, "idle", f->s.now);
	node_set_volunteer(f->s.nodes[2], 1, "idle", f->s.now);
	sim_flush(&f->s, 1);
	sim_flush(&f->s, 2);
	sim_run_until(&f->s, f->s.now + 50);
	sim_finish(&f->s, 1, u);
	sim_finish(&f->s, 2, u);
	sim_run_until(&f->s, f->s.now + 100);
	f->s.group[2] = 0;
	sim_run_until(&f->s, f->s.now + 3000);
	for (i = 0; i < 3; i++) {
		struct task *t = node_find(f->s.nodes[i], u);
		assert_int_equal(t->state, TASK_TERMINATED);
		assert_string_equal(t->running_on, "n01");
		assert_non_null(strstr(t->outputs[0], "-n01-"));
	}
	done(f);
}

/* A node dies mid-task: after failure_timeout the task runs elsewhere. */
static void
test_crashed_runner_task_runs_elsewhere(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[UUID_STRLEN + 1], who[NAME_MAXLEN + 1];
	int		 i;

	f->s.task_ms = 5000;
	sim_run_until(&f->s, f->s.now + 500);
	sim_schedule(&f->s, 1, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	i = sim_index(&f->s, who);
	sim_crash(&f->s, i);
	f->s.task_ms = 100;
	sim_run_until(&f->s, f->s.now + 2000);
	assert_int_equal(sim_starts(&f->s, u, who), 2);
	assert_int_not_equal(sim_index(&f->s, who), i);
	sim_run_until(&f->s, f->s.now + 500);
	assert_int_equal(state_of(f->s.nodes[(i + 1) % 3], u),
	    TASK_TERMINATED);
	/* The crash was not the task's fault. */
	assert_int_equal(node_find(f->s.nodes[(i + 1) % 3], u)->failures, 0);
	done(f);
}

/* The master dies: the others elect a new one and a node that joins
 * later receives every task. */
static void
test_master_dies_new_master_and_join(void **state)
{
	struct fixture	*f = calloc(1, sizeof *f);
	char		 u[UUID_STRLEN + 1];
	int		 i;

	plmi2_descs(&f->set);
	sim_init(&f->s, 4, &f->set, 1000000);
	for (i = 0; i < 3; i++)
		sim_boot(&f->s, i, 10);
	sim_run_until(&f->s, f->s.now + 500);
	assert_one_master(&f->s, "n00");
	for (i = 0; i < 5; i++)
		sim_schedule(&f->s, 1, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 1000);
	sim_crash(&f->s, 0);
	sim_run_until(&f->s, f->s.now + 3000);
	assert_one_master(&f->s, "n01");
	sim_boot(&f->s, 3, 10);
	sim_run_until(&f->s, f->s.now + 1000);
	assert_one_master(&f->s, "n01");
	assert_int_equal(status_of(f->s.nodes[3]).ntasks, 5);
	assert_int_equal(node_digest(f->s.nodes[3]),
	    node_digest(f->s.nodes[1]));
	done(f);
}

static int
drop_enqueue_to_master(struct simnet *s, int from, int to, const char *body)
{
	static int dropped;

	if (to == 0 && strncmp(body, "ENQUEUE ", 8) == 0 && dropped < 3) {
		dropped++;
		return 1;
	}
	return 0;
}

/* ENQUEUEs to the master are lost: repeated until it acknowledges. */
static void
test_lost_enqueue_repeated_until_acked(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[UUID_STRLEN + 1];

	sim_run_until(&f->s, f->s.now + 500);
	f->s.drop = drop_enqueue_to_master;
	sim_schedule(&f->s, 2, "free", PRIO_LOW, 0, NULL, u);
	assert_int_equal(status_of(f->s.nodes[2]).unacked, 1);
	sim_run_until(&f->s, f->s.now + 1000);
	assert_non_null(node_find(f->s.nodes[0], u));
	assert_int_equal(status_of(f->s.nodes[2]).unacked, 0);
	done(f);
}

/* 10% loss on every datagram: every task still ends, once each. */
static void
test_loss_every_task_completes(void **state)
{
	struct fixture	*f = boot(5, NULL);
	char		 u[40][UUID_STRLEN + 1];
	int		 k, i;

	sim_run_until(&f->s, f->s.now + 500);
	f->s.loss_percent = 10;
	for (k = 0; k < 40; k++)
		sim_schedule(&f->s, k % 5, "free", PRIO_LOW, 0, NULL, u[k]);
	sim_run_until(&f->s, f->s.now + 20000);
	for (k = 0; k < 40; k++) {
		const char *runner = NULL;
		for (i = 0; i < 5; i++) {
			struct task *t = node_find(f->s.nodes[i], u[k]);
			assert_non_null(t);
			assert_int_equal(t->state, TASK_TERMINATED);
			if (runner == NULL)
				runner = t->running_on;
			assert_string_equal(t->running_on, runner);
		}
	}
	assert_true(f->s.lost > 0);
	done(f);
}

/* A volunteer decision as the policy would make it. */
static void
decide(struct fixture *f, int i, int volunteer, int suspend, int vacate,
    const char *name)
{
	struct vol_decision	d = { VOL_BUSY, volunteer, suspend, vacate,
				    name, ORDER_NODE, 0, 0, 0 };

	node_volunteer(f->s.nodes[i], &d, f->s.now);
	sim_flush(&f->s, i);
}

/*
 * The user comes back to the host running a task: the run is stopped
 * and every node shows it Suspended; the host idle again, it goes on
 * and finishes where it was -- late by the time it was stopped.
 */
static void
test_suspend_shows_everywhere_and_resumes(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[UUID_STRLEN + 1], who[NAME_MAXLEN + 1];
	struct task	*t;
	int		 i, k;
	int64_t		 start;

	f->s.task_ms = 1000;
	sim_run_until(&f->s, f->s.now + 500);
	sim_schedule(&f->s, 1, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	i = sim_index(&f->s, who);
	start = node_find(f->s.nodes[i], u)->start_ms;
	assert_int_equal(node_suspendable(f->s.nodes[i]), 1);
	decide(f, i, 0, 1, 0, "suspended");
	sim_run_until(&f->s, f->s.now + 50);
	for (k = 0; k < 3; k++) {
		t = node_find(f->s.nodes[k], u);
		assert_string_equal(task_shown_state(t), "Suspended");
	}
	/* Suspended for 5 s: heartbeats go on, nobody takes it over, and
	 * it does not end although its 1 s are long past. */
	sim_run_until(&f->s, f->s.now + 5000);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	assert_int_equal(state_of(f->s.nodes[0], u), TASK_RUNNING);
	decide(f, i, 1, 0, 0, "idle");
	sim_run_until(&f->s, f->s.now + 50);
	assert_string_equal(task_shown_state(node_find(f->s.nodes[(i + 1) %
	    3], u)), "Running");
	sim_run_until(&f->s, f->s.now + 1500);
	t = node_find(f->s.nodes[(i + 2) % 3], u);
	assert_int_equal(t->state, TASK_TERMINATED);
	assert_true(t->end_ms - start >= 1000 + 5000);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	done(f);
}

/* Suspended too long: the run is vacated and the task completes on a
 * node that is idle, without counting as a failure. */
static void
test_vacate_runs_elsewhere(void **state)
{
	struct fixture	*f = boot(3, NULL);
	char		 u[UUID_STRLEN + 1], who[NAME_MAXLEN + 1];
	struct task	*t;
	int		 i;

	f->s.task_ms = 1000;
	sim_run_until(&f->s, f->s.now + 500);
	sim_schedule(&f->s, 0, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	i = sim_index(&f->s, who);
	decide(f, i, 0, 1, 0, "suspended");
	sim_run_until(&f->s, f->s.now + 1000);
	decide(f, i, 0, 1, 1, "suspended");
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 2);
	assert_int_not_equal(sim_index(&f->s, who), i);
	assert_int_equal(status_of(f->s.nodes[i]).running, 0);	/* slot given back */
	sim_run_until(&f->s, f->s.now + 1500);
	t = node_find(f->s.nodes[i], u);
	assert_int_equal(t->state, TASK_TERMINATED);
	assert_string_equal(t->running_on, who);
	assert_int_equal(t->failures, 0);
	assert_int_equal(sim_check(&f->s, &u, 1), 0);
	done(f);
}

/* The host's own interactive task (thesis 4.5) is never suspended. */
static void
test_own_interactive_run_not_suspended(void **state)
{
	struct fixture	*f = boot(2, NULL);
	char		 u[UUID_STRLEN + 1], who[NAME_MAXLEN + 1];

	f->s.task_ms = -1;
	sim_run_until(&f->s, f->s.now + 500);
	decide(f, 1, 0, 0, 0, "busy");
	decide(f, 0, 0, 0, 0, "busy");
	sim_schedule(&f->s, 1, "free", PRIO_INTERACTIVE, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	assert_string_equal(who, "n01");
	assert_int_equal(node_suspendable(f->s.nodes[1]), 0);
	decide(f, 1, 0, 1, 1, "busy");
	sim_run_until(&f->s, f->s.now + 100);
	assert_string_equal(task_shown_state(node_find(f->s.nodes[0], u)),
	    "Running");
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	done(f);
}

/* VOTEs sent, and the first `lose` of them lost. */
static int	votes_sent, votes_lose;

static int
count_votes(struct simnet *s, int from, int to, const char *body)
{
	if (strncmp(body, "VOTE ", 5) != 0)
		return 0;
	return votes_sent++ < votes_lose;
}

/*
 * One 10-ms task in a pool of nine, `lose` of the votes on its end
 * lost: how long after its end its runner held it confirmed (-1: not
 * within 2 s); every node holds it confirmed in the end.
 */
static int64_t
confirmed_after_of(int nodes, int lose)
{
	struct fixture	*f = boot(nodes, NULL);
	char		 u[UUID_STRLEN + 1], who[NAME_MAXLEN + 1];
	struct task	*t = NULL;
	int64_t		 until, took = -1;
	int		 i;

	f->s.task_ms = 10;
	sim_run_until(&f->s, f->s.now + 500);
	votes_sent = 0;
	votes_lose = lose;
	f->s.drop = count_votes;
	sim_schedule(&f->s, 0, "free", PRIO_LOW, 0, NULL, u);
	for (until = f->s.now + 2000; f->s.now < until; ) {
		sim_run_until(&f->s, f->s.now + 1);
		if (t == NULL && sim_starts(&f->s, u, who) == 1)
			t = node_find(f->s.nodes[sim_index(&f->s, who)], u);
		if (t != NULL && t->confirmed) {
			took = f->s.now - t->end_ms;
			break;
		}
	}
	sim_run_until(&f->s, f->s.now + 1000);
	for (i = 0; i < nodes; i++)
		assert_true(node_find(f->s.nodes[i], u)->confirmed);
	done(f);
	return took;
}

static int64_t
confirmed_after(int lose)
{
	return confirmed_after_of(9, lose);
}

/*
 * An end needs five votes of nine, its runner's among them: the five
 * peers nearest the task vote at once -- one more than it needs, so
 * that one vote lost costs nothing -- and the three others only when
 * it asks everyone, a few windows on, which two votes lost make it do.
 */
static void
test_a_majority_votes_at_once_the_rest_when_asked(void **state)
{
	int64_t	calm, took;

	calm = confirmed_after(0);
	assert_int_equal(votes_sent, 5);
	assert_true(calm >= 0 && calm < 20);
	took = confirmed_after(1);
	assert_int_equal(votes_sent, 5);
	assert_int_equal(took, calm);
	took = confirmed_after(2);
	assert_true(votes_sent > 5);
	/* Four windows on, not at the next resend (2 progress intervals). */
	assert_true(took > calm && took < 100);
}

/*
 * Eighty nodes: each of the 79 others draws alone whether it votes at
 * once, three in four of them on average (the 40 a majority needs and
 * half again): far fewer than all, always enough, at once.
 */
static void
test_a_big_pool_draws_its_first_voters(void **state)
{
	int64_t	took = confirmed_after_of(80, 0);

	assert_true(votes_sent >= 40 && votes_sent < 75);
	assert_true(took >= 0 && took < 20);
}

/* TRY_DEQUEUEs sent. */
static int	tries_sent;

static int
count_tries(struct simnet *s, int from, int to, const char *body)
{
	tries_sent += strncmp(body, "TRY_DEQUEUE ", 12) == 0;
	return 0;
}

/*
 * The interactive rule on an idle pool: the node a person schedules an
 * interactive task on starts it at once, without a race (whose window
 * was most of what `volery run` took), and no other node tries for it;
 * a low task is raced for as ever.
 */
static void
test_an_interactive_task_starts_at_once_where_it_was_scheduled(void **state)
{
	struct fixture	*f = boot(9, NULL);
	char		 u[UUID_STRLEN + 1], who[NAME_MAXLEN + 1];
	int64_t		 at;

	f->s.task_ms = 10;
	sim_run_until(&f->s, f->s.now + 500);
	tries_sent = 0;
	f->s.drop = count_tries;
	at = f->s.now;
	sim_schedule(&f->s, 3, "free", PRIO_INTERACTIVE, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	assert_string_equal(who, "n03");
	assert_int_equal(node_find(f->s.nodes[3], u)->start_ms, at);
	assert_int_equal(tries_sent, 0);
	/* A low one is raced for. */
	sim_schedule(&f->s, 3, "free", PRIO_LOW, 0, NULL, u);
	sim_run_until(&f->s, f->s.now + 100);
	assert_int_equal(sim_starts(&f->s, u, who), 1);
	assert_true(tries_sent > 0);
	done(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_election_by_reputation),
		cmocka_unit_test(test_election_ties_to_lower_name),
		cmocka_unit_test(test_election_prefers_larger_map),
		cmocka_unit_test(test_dequeue_rank_figure_3_11),
		cmocka_unit_test(test_workflow_spreads_and_completes),
		cmocka_unit_test(test_split_brain_heals_by_epoch),
		cmocka_unit_test(test_duplicate_run_resolved),
		cmocka_unit_test(test_one_result_accepted),
		cmocka_unit_test(test_crashed_runner_task_runs_elsewhere),
		cmocka_unit_test(test_master_dies_new_master_and_join),
		cmocka_unit_test(test_lost_enqueue_repeated_until_acked),
		cmocka_unit_test(test_loss_every_task_completes),
		cmocka_unit_test(test_suspend_shows_everywhere_and_resumes),
		cmocka_unit_test(test_vacate_runs_elsewhere),
		cmocka_unit_test(test_own_interactive_run_not_suspended),
		cmocka_unit_test(
		    test_a_majority_votes_at_once_the_rest_when_asked),
		cmocka_unit_test(test_a_big_pool_draws_its_first_voters),
		cmocka_unit_test(
		    test_an_interactive_task_starts_at_once_where_it_was_scheduled),
	};

	return cmocka_run_group_tests_name("cluster", tests, NULL, NULL);
}
