/*
 * test_command.c -- command tasks (volery run, <command>) in the core:
 * scheduled without a description, never started on a node that has
 * not said it can run them (ACT_CHECK), bound to other tasks by their
 * declared outputs, failed at once by a final error (a time limit).
 */
#include "testutil.h"

/* A command of argc words (the first its program), nouts outputs. */
static struct task_cmd *
command(int nouts)
{
	static char	*argv[] = { "wc", "-l", "in put.txt", "" };
	static char	*outs[] = { "line:^(\\d+)", "file:out.txt" };
	static char	*env[] = { "LC_ALL=C" };
	static struct task_cmd c;

	memset(&c, 0, sizeof c);
	c.argc = 4;
	c.argv = argv;
	c.nenv = 1;
	c.env = env;
	c.cwd = "/data/run";
	c.nouts = nouts;
	c.outs = outs;
	return &c;
}

static int
run(struct node *n, int k, int nouts, int nbind,
    const struct task_binding *bind, int64_t now, char *err)
{
	struct node_schedule_req	req;
	char				buf[256];

	memset(&req, 0, sizeof req);
	req.exec = "wc";
	req.nbind = nbind;
	req.bind = bind;
	req.client = "127.0.0.1:1";
	req.cmd = command(nouts);
	return node_schedule(n, &req, uuid_n(k), now, err != NULL ? err : buf,
	    256);
}

/* Which task the k-th ACT_CHECK asks about, or NULL. */
static const char *
checked(struct node *n)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;

	for (i = 0; i < o->n; i++)
		if (o->v[i].type == ACT_CHECK)
			return o->v[i].uuid;
	return NULL;
}

static void
test_a_command_waits_for_the_hosts_answer(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t;

	assert_int_equal(run(n, 1, 1, 0, NULL, 10, NULL), 0);
	t = node_find(n, uuid_n(1));
	assert_non_null(t->cmd);
	assert_string_equal(t->cmd->argv[2], "in put.txt");
	/* Asked once, and not started until the answer. */
	assert_string_equal(checked(n), uuid_n(1));
	assert_int_equal(count_actions(n, ACT_CHECK, NULL), 1);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	assert_int_equal(t->state, TASK_READY);
	clear(n);
	node_tick(n, 20);
	assert_int_equal(count_actions(n, ACT_CHECK, NULL), 0);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	node_command_checked(n, uuid_n(1), 1, "", 30);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
	assert_int_equal(t->state, TASK_RUNNING);
	/* The same program and directory are not asked about again. */
	clear(n);
	assert_int_equal(run(n, 2, 1, 0, NULL, 40, NULL), 0);
	assert_int_equal(count_actions(n, ACT_CHECK, NULL), 0);
}

static void
test_a_host_without_the_program_never_runs_it(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t;
	int64_t			 now;

	assert_int_equal(run(n, 1, 1, 0, NULL, 10, NULL), 0);
	t = node_find(n, uuid_n(1));
	clear(n);
	node_command_checked(n, uuid_n(1), 0, "no program wc\nin PATH", 20);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	assert_int_equal(t->state, TASK_READY);
	assert_int_equal(t->attempts, 0);	/* no attempt burnt */
	/* An answer for a task not asked about changes nothing. */
	node_command_checked(n, uuid_n(9), 1, "", 21);
	assert_int_equal(count_actions(n, ACT_START, NULL), 0);
	/* A "no" is asked again a minute on: the program may be there. */
	for (now = 30; now < 60000 && checked(n) == NULL; now += 250) {
		clear(n);
		node_tick(n, now);
	}
	assert_true(now >= 60000);
	clear(n);
	node_tick(n, 60250);
	assert_string_equal(checked(n), uuid_n(1));
	node_command_checked(n, uuid_n(1), 1, "", 60260);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(1)), 1);
}

static void
test_commands_bind_by_their_declared_outputs(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task_binding	 b[2];
	char			 err[256];
	struct runner_msg	 m;
	char			*outs[2] = { "100", "out.txt" };

	assert_int_equal(run(n, 1, 2, 0, NULL, 10, NULL), 0);
	memcpy(b[0].uuid, uuid_n(1), sizeof b[0].uuid);
	b[0].nth = 2;
	memcpy(b[1].uuid, uuid_n(1), sizeof b[1].uuid);
	b[1].nth = 3;
	/* It declares two outputs: there is no third. */
	assert_int_equal(run(n, 2, 0, 2, b, 11, err), -1);
	assert_non_null(strstr(err, "no output 3"));
	assert_int_equal(run(n, 2, 0, 1, b, 12, NULL), 0);
	/* A described task may read a command's output (any type). */
	assert_int_equal(sched(n, 3, "any", 0, 13, 1, b, NULL), 0);
	node_command_checked(n, uuid_n(1), 1, "", 20);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	/* Its result has as many outputs as it declared. */
	memset(&m, 0, sizeof m);
	m.type = RMSG_TERMINATED;
	m.noutputs = 2;
	m.outputs[0] = outs[0];
	m.outputs[1] = outs[1];
	node_runner_msg(n, uuid_n(1), &m, 30);
	exit_with(n, uuid_n(1), 0, 31);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_TERMINATED);
	/* Its dependent runs on it at once: the program is known here. */
	assert_int_equal(state_of(n, uuid_n(2)), TASK_RUNNING);
	assert_string_equal(node_find(n, uuid_n(2))->inputs[0].dataset,
	    "out.txt");
}

static void
test_a_final_error_fails_at_once(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct runner_msg	 m;
	struct task		*t;

	assert_int_equal(run(n, 1, 0, 0, NULL, 10, NULL), 0);
	node_command_checked(n, uuid_n(1), 1, "", 20);
	t = node_find(n, uuid_n(1));
	/* An exit status is retried, as any failed run. */
	memset(&m, 0, sizeof m);
	m.type = RMSG_ERROR;
	m.message = "exit status 2";
	node_runner_msg(n, uuid_n(1), &m, 30);
	exit_with(n, uuid_n(1), 2, 31);
	assert_int_equal(t->state, TASK_READY);		/* retry_delay_ms */
	node_tick(n, 1031);
	assert_int_equal(t->state, TASK_RUNNING);
	assert_int_equal(t->attempts, 2);
	/* A time limit reached is not: the next run would reach it too. */
	m.message = "time limit of 60 s reached";
	m.final = 1;
	node_runner_msg(n, uuid_n(1), &m, 1040);
	exit_with(n, uuid_n(1), -1, 1041);
	assert_int_equal(t->state, TASK_FAILED);
	assert_int_equal(t->attempts, 2);
	assert_non_null(strstr(t->reason, "time limit"));
}

static void
test_a_bad_command_is_refused(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct node_schedule_req req;
	struct task_cmd		 c = *command(0);
	char			*bad_env[] = { "1X=y" };
	char			*bad_out[] = { "stdout:x" };
	char			 err[256];

	memset(&req, 0, sizeof req);
	req.exec = "wc";
	req.cmd = &c;
	c.argc = 0;
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), -1);
	c = *command(0);
	c.env = bad_env;
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "NAME=value"));
	c = *command(0);
	c.nouts = 1;
	c.outs = bad_out;
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), -1);
	c = *command(0);
	c.cwd = "/data\nPROGRESS";
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), -1);
	c = *command(0);
	c.time_limit_ms = CMD_TIME_LIMIT_MAX + 1;
	assert_int_equal(node_schedule(n, &req, uuid_n(1), 10, err,
	    sizeof err), -1);
	assert_null(node_find(n, uuid_n(1)));
}

/* Schedule task k of user (uid): a command, or (exec) a described
 * task. */
static void
owned(struct node *n, int k, const char *exec, const char *user, int uid,
    int64_t now)
{
	struct node_schedule_req	req;
	char				err[256];

	memset(&req, 0, sizeof req);
	req.exec = exec != NULL ? exec : "wc";
	req.path = exec != NULL && strcmp(exec, "import") == 0 ? "/d" : NULL;
	req.cmd = exec != NULL ? NULL : command(0);
	req.user = user;
	req.has_uid = uid >= 0;
	req.uid = uid;
	assert_int_equal(node_schedule(n, &req, uuid_n(k), now, err,
	    sizeof err), 0);
}

/*
 * A task runs as its owner (run/owner.h): whether this host can run
 * one is asked once per owner, so one person's "no account here" does
 * not hold another's task; a described task of a known owner is asked
 * about too, one of no known account (the operator) is not.
 */
static void
test_each_owner_is_asked_about(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	char			 err[256];

	/* The same command of two owners: asked about for each. */
	owned(n, 1, NULL, "rtbob", 1002, 10);
	owned(n, 2, NULL, "rtalice", 1001, 11);
	assert_int_equal(count_actions(n, ACT_CHECK, uuid_n(1)), 1);
	assert_int_equal(count_actions(n, ACT_CHECK, uuid_n(2)), 1);
	node_command_checked(n, uuid_n(2), 0, "no account rtalice here", 12);
	assert_true(logged(n, "no account rtalice here"));
	node_command_checked(n, uuid_n(1), 1, "", 13);
	assert_int_equal(state_of(n, uuid_n(1)), TASK_RUNNING);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_READY);
	assert_int_equal(node_cancel(n, uuid_n(1), 20, err, sizeof err), 0);
	exit_with(n, uuid_n(1), 143, 21);
	node_tick(n, 30);
	assert_int_equal(count_actions(n, ACT_START, uuid_n(2)), 0);
	assert_int_equal(state_of(n, uuid_n(2)), TASK_READY);
	clear(n);
	/* A described task of an owner waits for the answer too... */
	owned(n, 3, "import", "rtcarol", 1003, 40);
	assert_string_equal(checked(n), uuid_n(3));
	assert_int_equal(state_of(n, uuid_n(3)), TASK_READY);
	node_command_checked(n, uuid_n(3), 1, "", 41);
	assert_int_equal(state_of(n, uuid_n(3)), TASK_RUNNING);
	terminate(n, uuid_n(3), 3, 50);
	exit_with(n, uuid_n(3), 0, 51);
	clear(n);
	/* ...and one of no known account (uid unknown) is not asked. */
	owned(n, 4, "import", "operator", -1, 60);
	assert_null(checked(n));
	assert_int_equal(state_of(n, uuid_n(4)), TASK_RUNNING);
	/* The owner's uid goes with the record. */
	assert_int_equal(node_find(n, uuid_n(3))->uid, 1003);
	assert_int_equal(node_find(n, uuid_n(4))->uid, -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_a_command_waits_for_the_hosts_answer),
		NODE_TEST(test_a_host_without_the_program_never_runs_it),
		NODE_TEST(test_commands_bind_by_their_declared_outputs),
		NODE_TEST(test_a_final_error_fails_at_once),
		NODE_TEST(test_a_bad_command_is_refused),
		NODE_TEST(test_each_owner_is_asked_about),
	};

	return cmocka_run_group_tests_name("command", tests, NULL, NULL);
}
