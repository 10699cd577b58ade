/*
 * test_wake.c -- sleeping nodes, kept and woken (wake.c): who is woken
 * for the work that waits, in what order, and who never is; and on the
 * simulated LAN, sleepers resumed by their magic packet take the work.
 */
#include "simfixture.h"

#define ASLEEP "HEARTBEAT 0 0 0 1 asleep 10 0 0 7600 "

/* Every tick armed up to `until`, in order. */
static void
run_until(struct node *n, int64_t until)
{
	int64_t	t;

	while ((t = status_of(n).timer) >= 0 && t <= until)
		node_tick(n, t);
}

/* A dedicated one-slot node called name, started at 0: woken by wake
 * ("": it cannot be), waking others after wake_after_ms, sleeping
 * after sleep_ms with nothing to do (0: never). */
static struct node *
dedicated(const struct taskdesc_set *set, const char *name, const char *wake,
    int64_t wake_after_ms, int64_t sleep_ms)
{
	struct node_config	 cfg;
	struct node		*n;

	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "%s", name);
	snprintf(cfg.wake, sizeof cfg.wake, "%s", wake);
	cfg.wake_after_ms = wake_after_ms;
	cfg.sleep_when_idle_ms = sleep_ms;
	assert_non_null(n = node_new(&cfg, set));
	node_start(n, 0);
	node_set_volunteer(n, 1, "dedicated", 0);
	return n;
}

/* alpha alone, master, one slot taken by a long task; n more wait. */
static struct node *
starved(struct taskdesc_set *set, int waiting, int64_t *now)
{
	struct node		*n;
	int			 k;

	plmi2_descs(set);
	n = dedicated(set, "alpha", "", 1000, 0);
	run_until(n, 5000);
	assert_true(status_of(n).is_master);
	for (k = 1; k <= waiting + 1; k++) {
		char err[256] = "";
		if (sched(n, k, "free", PRIO_LOW, 5000, 0, NULL, err) != 0)
			fail_msg("%s", err);
	}
	run_until(n, 5100);
	assert_int_equal(status_of(n).running, 1);
	*now = 5100;
	return n;
}

/* The ACT_WAKE texts of the outbox, in order, joined by '|'. */
static const char *
wakes(struct node *n)
{
	static char		 out[512];
	const struct outbox	*o = node_outbox(n);
	size_t			 i;

	out[0] = '\0';
	for (i = 0; i < o->n; i++)
		if (o->v[i].type == ACT_WAKE)
			snprintf(out + strlen(out), sizeof out - strlen(out),
			    "%s%s", out[0] != '\0' ? "|" : "", o->v[i].text);
	return out;
}

/* Beta volunteers always; delta's batch window is open and it is
 * faster; gamma only volunteers when its user is away: never woken.
 * Two tasks wait: the two that would take them, fastest first. */
static void
test_waiting_work_wakes_the_fastest_that_would_take_it(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n;
	int64_t			 now;

	(void)state;
	memset(&set, 0, sizeof set);
	n = starved(&set, 2, &now);
	hear(n, "beta", ASLEEP "900 0 0 500 wake=02:00:00:00:00:0b@"
	    "10.0.0.255,always", now);
	hear(n, "gamma", ASLEEP "2000 0 0 500 wake=02:00:00:00:00:0c@"
	    "10.0.0.255", now);
	hear(n, "delta", ASLEEP "1500 0 0 500 window=0,3600 wake="
	    "02:00:00:00:00:0d@10.0.0.255", now);
	assert_non_null(logged(n, "node delta is asleep; it wakes by "
	    "02:00:00:00:00:0d@10.0.0.255"));
	assert_int_equal(status_of(n).sleepers, 3);
	clear(n);
	/* Not before the work has waited wake_after_ms. */
	run_until(n, now + 900);
	assert_string_equal(wakes(n), "");
	run_until(n, now + 2600);
	assert_string_equal(wakes(n), "delta 02:00:00:00:00:0d@10.0.0.255|"
	    "beta 02:00:00:00:00:0b@10.0.0.255,always");
	assert_non_null(logged(n, "waking node delta"));
	assert_int_equal(status_of(n).woken, 2);
	/* Their slots are on their way: nobody else, not again. */
	clear(n);
	run_until(n, now + 5000);
	assert_string_equal(wakes(n), "");
	/* Back: forgotten as sleepers. */
	hear(n, "beta", "HEARTBEAT 0 0 1 1 dedicated 10 0 0 7600 900 0 0 500",
	    now + 5100);
	assert_non_null(logged(n, "node beta is awake again, woken"));
	assert_int_equal(status_of(n).sleepers, 2);
	node_free(n);
	taskdesc_clear(&set);
}

/* A free slot anywhere: no one is woken. */
static void
test_no_wake_while_a_slot_is_free(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n;
	int64_t			 now;

	(void)state;
	memset(&set, 0, sizeof set);
	n = starved(&set, 1, &now);
	hear(n, "beta", ASLEEP "900 0 0 500 wake=02:00:00:00:00:0b@"
	    "10.0.0.255,always", now);
	hear_alive(n, "omega", now);		/* one slot free */
	clear(n);
	run_until(n, now + 3000);
	assert_string_equal(wakes(n), "");
	node_free(n);
	taskdesc_clear(&set);
}

/* Going to sleep: our runs go back to Ready, and the heartbeat says
 * how to wake us; without an address, it says nothing of it. */
static void
test_sleeping_tells_how_to_wake_us(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n;
	const char		*hb;

	node_start(f->n, 0);
	node_sleep(f->n, 100);
	assert_non_null(hb = sent(f->n, NULL, "HEARTBEAT"));
	assert_null(strstr(hb, "wake="));
	n = dedicated(&f->set, "beta", "02:00:00:00:00:0b@10.0.0.255", 0, 0);
	run_until(n, 5000);
	assert_int_equal(sched(n, 1, "free", PRIO_LOW, 5000, 0, NULL, NULL), 0);
	run_until(n, 6000);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	clear(n);
	node_set_volunteer(n, 0, "asleep", 6100);
	node_sleep(n, 6100);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
	assert_non_null(hb = sent(n, NULL, "HEARTBEAT"));
	assert_non_null(strstr(hb, " asleep "));
	assert_non_null(strstr(hb, " wake=02:00:00:00:00:0b@10.0.0.255"));
	node_free(n);
}

/* Four one-slot nodes, two asleep; four tasks of 20 s.  The two awake
 * take two; the others wait a second with no free slot, the master
 * wakes both sleepers (resumed 3 s later), and each runs one: all four
 * end within 30 s, not in two rounds (40 s), with one result each. */
static void
test_sleepers_woken_take_the_work_on_the_simulated_lan(void **state)
{
	struct fixture		*f = fixture_new(4);
	char			 u[4][UUID_STRLEN + 1], who[NAME_MAXLEN + 1];
	int			 i, ran[4] = { 0 };
	int64_t			 t0;

	(void)state;
	f->s.cfg.wake_after_ms = 1000;
	for (i = 0; i < 4; i++)
		sim_boot(&f->s, i, 10);
	sim_run_until(&f->s, f->s.now + 2000);
	sim_sleep(&f->s, 2);
	sim_sleep(&f->s, 3);
	sim_run_until(&f->s, f->s.now + 2000);
	f->s.task_ms = 20000;
	t0 = f->s.now;
	for (i = 0; i < 4; i++)
		assert_int_equal(sim_schedule(&f->s, i % 2, "free", PRIO_LOW,
		    0, NULL, u[i]), 0);
	sim_run_until(&f->s, t0 + 30000);
	assert_int_equal(f->s.wakes, 2);
	for (i = 0; i < 4; i++) {
		assert_int_equal(sim_starts(&f->s, u[i], who), 1);
		ran[sim_index(&f->s, who)]++;
		assert_int_equal(sim_record(&f->s, 0, u[i])->state,
		    TASK_TERMINATED);
	}
	for (i = 0; i < 4; i++)
		assert_int_equal(ran[i], 1);
	sim_run_until(&f->s, f->s.now + 3000);
	assert_int_equal(sim_check(&f->s, u, 4), 0);
	done(f);
}

/* How many ACT_SLEEP the outbox holds. */
static int
sleeps(struct node *n)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;
	int			 k = 0;

	for (i = 0; i < o->n; i++)
		k += o->v[i].type == ACT_SLEEP;
	return k;
}

/* beta, dedicated, following alpha; a minute of nothing to run. */
static int
idle_minute(struct taskdesc_set *set, const char *wake)
{
	struct node		*n;
	int64_t			 t;
	int			 k;

	plmi2_descs(set);
	n = dedicated(set, "beta", wake, 0, 60000);
	hear(n, "alpha", "NEW_MASTER 1", 10);
	for (t = 1000; t <= 75000; t += 1000) {
		hear(n, "alpha", "HEARTBEAT 1 1 1 1 idle 10 0 0 7600 1000 0 0 "
		    "500", t);
		run_until(n, t);
		if (t == 30000)
			assert_int_equal(sleeps(n), 0);	/* not yet */
	}
	assert_false(status_of(n).is_master);
	k = sleeps(n);
	if (k > 0)
		assert_non_null(logged(n, "nothing for node beta to run for "
		    "1 min: it goes to sleep"));
	node_free(n);
	taskdesc_clear(set);
	return k;
}

/* <sleep_when_idle_min>: once, after the minute; never without an
 * address to be woken by. */
static void
test_a_node_with_nothing_to_do_goes_to_sleep(void **state)
{
	struct taskdesc_set	set;

	(void)state;
	assert_int_equal(idle_minute(&set, "02:00:00:00:00:0b@10.0.0.255,"
	    "always"), 1);
	assert_int_equal(idle_minute(&set, ""), 0);
}

/* The master stays up (it wakes the others): alone with nothing to do
 * for two minutes, it never asks to sleep. */
static void
test_the_master_never_sleeps_by_itself(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n;

	(void)state;
	plmi2_descs(&set);
	n = dedicated(&set, "alpha", "02:00:00:00:00:0a@10.0.0.255", 0, 60000);
	run_until(n, 130000);
	assert_true(status_of(n).is_master);
	assert_int_equal(sleeps(n), 0);
	node_free(n);
	taskdesc_clear(&set);
}

/* On the simulated LAN: with nothing to do the two nodes that are not
 * master go to sleep after 5 s; work for three wakes them, and each of
 * the three runs one task. */
static void
test_idle_nodes_sleep_and_work_wakes_them(void **state)
{
	struct fixture		*f = fixture_new(3);
	char			 u[3][UUID_STRLEN + 1], who[NAME_MAXLEN + 1];
	const char		*master;
	int			 i, m, ran[3] = { 0 };

	(void)state;
	f->s.cfg.wake_after_ms = 1000;
	f->s.cfg.sleep_when_idle_ms = 5000;
	for (i = 0; i < 3; i++) {
		sim_boot(&f->s, i, 10);
		node_set_volunteer(f->s.nodes[i], 1, "dedicated",
		    sim_local(&f->s, i));
		sim_flush(&f->s, i);
	}
	sim_run_until(&f->s, f->s.now + 12000);
	assert_int_equal(sim_master_count(&f->s, &master), 1);
	m = sim_index(&f->s, master);
	for (i = 0; i < 3; i++)
		assert_int_equal(f->s.asleep[i], i != m);
	f->s.task_ms = 10000;
	for (i = 0; i < 3; i++)
		assert_int_equal(sim_schedule(&f->s, m, "free", PRIO_LOW, 0,
		    NULL, u[i]), 0);
	sim_run_until(&f->s, f->s.now + 18000);
	assert_int_equal(f->s.wakes, 2);
	for (i = 0; i < 3; i++) {
		assert_int_equal(sim_starts(&f->s, u[i], who), 1);
		ran[sim_index(&f->s, who)]++;
		assert_int_equal(sim_record(&f->s, m, u[i])->state,
		    TASK_TERMINATED);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(ran[i], 1);
	done(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_waiting_work_wakes_the_fastest_that_would_take_it),
		cmocka_unit_test(test_no_wake_while_a_slot_is_free),
		NODE_TEST(test_sleeping_tells_how_to_wake_us),
		cmocka_unit_test(
		    test_sleepers_woken_take_the_work_on_the_simulated_lan),
		cmocka_unit_test(test_a_node_with_nothing_to_do_goes_to_sleep),
		cmocka_unit_test(test_the_master_never_sleeps_by_itself),
		cmocka_unit_test(test_idle_nodes_sleep_and_work_wakes_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
