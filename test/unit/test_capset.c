/*
 * test_capset.c -- what nodes have and tasks need (capset.c): a node
 * takes only tasks it can run, counts cores and memory instead of fixed
 * slots, learns what its peers have from their heartbeats, and says why
 * a task no live node can run waits.
 */
#include "testutil.h"

/* alpha: 4 cores, 8 GB, tags linux,x86_64; four slots. */
static struct node *
capable_node(struct taskdesc_set *set)
{
	struct node_config	cfg;
	struct node		*n;

	plmi2_descs(set);
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "alpha");
	cfg.slots = 4;
	cfg.reputation = 0;
	cfg.cores = 4;
	cfg.memory_mb = 8192;
	snprintf(cfg.tags, sizeof cfg.tags, "linux,x86_64");
	n = node_new(&cfg, set);
	assert_non_null(n);
	return n;
}

/* Schedule "free" task k needing cores, memory and tags. */
static int
needing(struct node *n, int k, int cores, int64_t mb, const char *tags,
    int64_t now, char *err)
{
	struct node_schedule_req	req;
	char				buf[256];

	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.client = "127.0.0.1:1";
	req.cores = cores;
	req.memory_mb = mb;
	req.tags = tags;
	return node_schedule(n, &req, uuid_n(k), now, err != NULL ? err : buf,
	    256);
}

static void
test_cores_and_memory_are_counted_not_slots(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = capable_node(&set);
	char			 why[REASON_MAXLEN + 1];
	int			 k, running = 0;

	node_start(n, 0);
	for (k = 1; k <= 4; k++)
		assert_int_equal(needing(n, k, 2, 0, NULL, 10 + k, NULL), 0);
	for (k = 1; k <= 4; k++)
		running += state_of(n, uuid_n(k)) == TASK_RUNNING;
	assert_int_equal(running, 2);	/* 4 cores, 2 each; 4 slots */
	/* 3 GB each of 8: two run beside... none: the cores are taken. */
	assert_int_equal(needing(n, 5, 1, 3072, NULL, 20, NULL), 0);
	assert_int_equal(state_of(n, uuid_n(5)), TASK_READY);
	/* One 2-core run ends: the 3 GB task fits (1 core), then not the
	 * next 2-core one beside it. */
	terminate(n, uuid_n(1), 1, 30);
	exit_with(n, uuid_n(1), 0, 31);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_RUNNING);
	/* Too much for this node at all: never, and it says why. */
	assert_int_equal(needing(n, 6, 8, 0, NULL, 40, NULL), 0);
	assert_int_equal(needing(n, 7, 1, 16384, NULL, 41, NULL), 0);
	assert_int_equal(state_of(n, uuid_n(6)), TASK_READY);
	node_task_waiting(n, node_find(n, uuid_n(6)), why, sizeof why);
	assert_string_equal(why, "waiting: no live node has 8 cores");
	node_task_waiting(n, node_find(n, uuid_n(7)), why, sizeof why);
	assert_string_equal(why, "waiting: no live node has 16384 MB of "
	    "memory");
	node_free(n);
	taskdesc_clear(&set);
}

#define HB "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 1000 0 0 500"

struct caps_of {
	struct node	*n;
	const char	*name;
	int		 cores;
	const char	*tags;
};

static void
caps_cb(const struct peer *p, void *arg)
{
	struct caps_of	*c = arg;
	int64_t		 mb;
	const char	*execs;

	if (strcmp(p->name, c->name) == 0)
		node_peer_caps(c->n, p, &c->cores, &mb, &c->tags, &execs);
}

static struct caps_of
peer_caps(struct node *n, const char *name)
{
	struct caps_of	c = { n, name, -1, NULL };

	node_each_peer(n, caps_cb, &c);
	return c;
}

/*
 * A task that needs a tag no live node has is never tried, and says why
 * it waits; once a live peer has it, that is no reason any more, and when
 * that peer falls silent it is again.
 */
static void
test_a_tag_no_live_node_has_is_the_reason_it_waits(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = capable_node(&set);
	const struct task	*t;
	char			 why[REASON_MAXLEN + 1];
	struct caps_of		 b, c;
	int64_t			 now;

	node_start(n, 0);
	hear(n, "beta", HB " 2 4096 linux,x86_64 free,import", 5);
	hear(n, "gamma", HB " 2 4096 linux,x86_64 free,import", 6);
	/* The same set, kept once. */
	b = peer_caps(n, "beta");
	c = peer_caps(n, "gamma");
	assert_int_equal(b.cores, 2);
	assert_string_equal(b.tags, "linux,x86_64");
	assert_ptr_equal(b.tags, c.tags);
	clear(n);
	assert_int_equal(needing(n, 1, 1, 0, "gpu", 10, NULL), 0);
	t = node_find(n, uuid_n(1));
	assert_string_equal(t->req_tags, "gpu");
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	assert_null(sent(n, NULL, "TRY_DEQUEUE"));
	node_task_waiting(n, t, why, sizeof why);
	assert_string_equal(why, "waiting: no live node has tag gpu");
	hear(n, "delta", HB " 8 65536 gpu,linux free", 20);
	node_task_waiting(n, t, why, sizeof why);
	assert_string_equal(why, "");
	/* delta falls silent: dead, and the reason is back. */
	for (now = 30; now < 6000; now += 250) {
		hear(n, "beta", HB " 2 4096 linux,x86_64 free,import", now);
		node_tick(n, now);
	}
	node_task_waiting(n, t, why, sizeof why);
	assert_string_equal(why, "waiting: no live node has tag gpu");
	node_free(n);
	taskdesc_clear(&set);
}

/*
 * A task needing what this node has not is never ours, so its time to
 * begin (a --begin, a retry after a failure) does not wake the node: in
 * the simulator, nodes without the tag gpu woke for every gpu task's
 * retry.  A task it can run, beginning at the same time, does.
 */
static void
test_a_task_it_cannot_run_does_not_wake_it(void **state)
{
	struct taskdesc_set		 set;
	struct node			*n = capable_node(&set);
	struct node_schedule_req	 req;
	struct node_status		 st;
	char				 err[256];

	node_start(n, 0);
	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.client = "127.0.0.1:1";
	req.tags = "gpu";
	req.begin_ms = 60000;
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), 0);
	node_tick(n, 59990);
	node_status(n, &st);
	assert_int_not_equal(st.timer, 60000);
	req.tags = NULL;
	assert_int_equal(node_schedule(n, &req, uuid_n(2), 59991, err,
	    sizeof err), 0);
	node_tick(n, 59992);
	node_status(n, &st);
	assert_int_equal(st.timer, 60000);
	node_tick(n, 60000);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_READY);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	node_free(n);
	taskdesc_clear(&set);
}

/*
 * A task runs as its owner: a node without the account says so (its
 * heartbeat's last list), and when no live node has it, the task says
 * why it waits, pool-wide.
 */
static void
test_no_node_has_the_owners_account(void **state)
{
	struct taskdesc_set	 set;
	struct node		*n = capable_node(&set);
	struct node_schedule_req req;
	const struct task	*t;
	char			 why[REASON_MAXLEN + 1], err[256];

	node_start(n, 0);
	hear(n, "beta", HB " 2 4096 linux free,import cgroup rtalice", 5);
	memset(&req, 0, sizeof req);
	req.exec = "free";
	req.user = "rtalice";
	req.has_uid = 1;
	req.uid = 1001;
	node_set_volunteer(n, 0, "busy", 6);
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), 0);
	t = node_find(n, uuid_n(1));
	/* Only beta lacks it: this node may have it. */
	node_task_waiting(n, t, why, sizeof why);
	assert_null(strstr(why, "account"));
	node_owner_account(n, "rtalice", 1);
	node_owner_account(n, "rtcarol", 1);
	node_task_waiting(n, t, why, sizeof why);
	assert_string_equal(why, "waiting: no live node has account rtalice");
	/* Told in our heartbeats; found after all, no longer. */
	node_owner_account(n, "rtalice", 0);
	node_task_waiting(n, t, why, sizeof why);
	assert_null(strstr(why, "account"));
	node_owner_account(n, "rtcarol", 0);
	node_free(n);
	taskdesc_clear(&set);
}

/* Each thing it needs some node has, but no node all of them. */
static void
test_no_node_has_all_it_needs(void **state)
{
	struct taskdesc_set		 set;
	struct node			*n = capable_node(&set);
	struct node_schedule_req	 req;
	char				 why[REASON_MAXLEN + 1], err[256];

	node_start(n, 0);
	hear(n, "delta", HB " 8 65536 gpu,linux free", 5);
	memset(&req, 0, sizeof req);
	req.exec = "import";
	req.path = "/data";
	req.tags = "gpu";
	req.client = "127.0.0.1:1";
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), 0);
	node_task_waiting(n, node_find(n, uuid_n(1)), why, sizeof why);
	assert_string_equal(why, "waiting: no live node has all it needs");
	/* A peer that does not say what it has may have it all. */
	hear(n, "old", HB, 20);
	node_task_waiting(n, node_find(n, uuid_n(1)), why, sizeof why);
	assert_string_equal(why, "");
	node_free(n);
	taskdesc_clear(&set);
}

/* A description's needs are every run's, with the request's. */
static void
test_a_description_needs_what_it_says(void **state)
{
	struct taskdesc_set		 set;
	struct node			*n;
	struct taskdesc			*d;
	const struct task		*t;
	char				 err[256];
	size_t				 i;

	n = capable_node(&set);
	for (i = 0; i < set.n; i++)
		if (strcmp(set.v[i].name, "free") == 0)
			break;
	d = &set.v[i];
	d->needs.cores = 3;
	d->needs.memory_mb = 100;
	snprintf(d->needs.tags, sizeof d->needs.tags, "linux");
	assert_int_equal(needing(n, 1, 2, 200, "x86_64", 10, err), 0);
	t = node_find(n, uuid_n(1));
	assert_int_equal(t->req_cores, 3);
	assert_int_equal(t->req_memory_mb, 200);
	assert_string_equal(t->req_tags, "x86_64,linux");
	/* Bad tags are refused. */
	assert_int_equal(needing(n, 2, 0, 0, "a,,b", 11, err), -1);
	assert_int_equal(needing(n, 3, 0, 0, "../x", 12, err), -1);
	assert_null(node_find(n, uuid_n(2)));
	node_free(n);
	taskdesc_clear(&set);
}

/* What a heartbeat says it has is range-checked like the rest. */
static void
test_bad_capabilities_are_refused(void **state)
{
	static const char *bad[] = {
		HB " 0 100 - -",		/* no cores */
		HB " 2",			/* half of them */
		HB " 2 100 -",
		HB " 2 -1 - -",
		HB " 70000 100 - -",
		HB " 2 100 gpu,,x -",
		HB " 2 100 gpu/x -",
		HB " 2 100 , -",
		HB " 2 100 - ../x",
		HB " 2 100 - - cgroup a b",	/* one word, then names */
		HB " 2 100 - - ../x",
		HB " 2 100 - - a+b",
	};
	struct peer_msg	*m = malloc(sizeof *m);
	char		 text[DATAGRAM_MAX], err[128];
	size_t		 i;
	int		 hl;

	assert_non_null(m);
	hl = peer_header(text, sizeof text, "test", "beta", 1, 7000);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(text + hl, sizeof text - hl, "%s", bad[i]);
		if (peer_parse(text, strlen(text), m, err, sizeof err) == 0)
			fail_msg("accepted: %s", bad[i]);
	}
	snprintf(text + hl, sizeof text - hl, HB " 2 100 gpu,linux -");
	assert_int_equal(peer_parse(text, strlen(text), m, err, sizeof err),
	    0);
	assert_int_equal(m->cores, 2);
	assert_string_equal(m->tags, "gpu,linux");
	assert_null(m->contain);		/* an older node's */
	snprintf(text + hl, sizeof text - hl, HB " 2 100 - - cgroup-pids");
	assert_int_equal(peer_parse(text, strlen(text), m, err, sizeof err),
	    0);
	assert_string_equal(m->contain, "cgroup-pids");
	assert_null(m->noacct);
	snprintf(text + hl, sizeof text - hl, HB " 2 100 - - subreaper "
	    "rtalice,rtbob");
	assert_int_equal(peer_parse(text, strlen(text), m, err, sizeof err),
	    0);
	assert_string_equal(m->noacct, "rtalice,rtbob");
	assert_string_equal(m->execs, "");
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cores_and_memory_are_counted_not_slots),
		cmocka_unit_test(
		    test_a_tag_no_live_node_has_is_the_reason_it_waits),
		cmocka_unit_test(test_a_task_it_cannot_run_does_not_wake_it),
		cmocka_unit_test(test_no_node_has_all_it_needs),
		cmocka_unit_test(test_a_description_needs_what_it_says),
		cmocka_unit_test(test_bad_capabilities_are_refused),
		cmocka_unit_test(test_no_node_has_the_owners_account),
	};

	return cmocka_run_group_tests_name("capset", tests, NULL, NULL);
}
