/*
 * test_reply.c -- the reply lines' codec (reply.c): the bytes the node
 * writes are the bytes older command lines read, and every line parses
 * back to what was formatted.
 */
#include "testutil.h"

#include "reply.h"
#include "task.h"
#include "wire.h"

static struct reply_task
a_task(void)
{
	struct reply_task	t;

	memset(&t, 0, sizeof t);
	snprintf(t.uuid, sizeof t.uuid, "0f8fad5b-d9cb-469f-a165-70867728950e");
	snprintf(t.exec, sizeof t.exec, "xz");
	snprintf(t.prio, sizeof t.prio, "low");
	snprintf(t.state, sizeof t.state, "Ready");
	t.progress = 0;
	snprintf(t.scheduled_by, sizeof t.scheduled_by, "acor");
	t.est_ms = 12300;
	t.eta_ms = -1;
	t.submit_ms = 1764165600123;
	snprintf(t.array, sizeof t.array, "7c9e6679-7425-40de-944b-e07fc1f90ae7");
	t.array_index = 12;
	t.ckpt_seq = 3;
	t.ckpt_age_ms = 4500;
	snprintf(t.ckpt_at, sizeof t.ckpt_at, "acor,bede");
	t.deadline_ms = 1764169200000;
	snprintf(t.why, sizeof t.why, "waiting: no live node has 64 cores");
	return t;
}

static void
test_task_line_bytes_and_round_trip(void **state)
{
	struct reply_task	t = a_task(), back;
	char			line[1024], again[1024];

	assert_true(wire_reply_task_format(&t, line, sizeof line) > 0);
	assert_string_equal(line, "TASK 0f8fad5b-d9cb-469f-a165-70867728950e "
	    "xz low Ready 0 acor - 12.3 - submitted=1764165600123 "
	    "array=7c9e6679-7425-40de-944b-e07fc1f90ae7:12 ckpt=3:4500:acor,bede "
	    "deadline=1764169200000 waiting: no live node has 64 cores\n");
	assert_int_equal(wire_reply_task_parse(line, &back), 0);
	assert_string_equal(back.uuid, t.uuid);
	assert_string_equal(back.running_on, "");
	assert_int_equal(back.est_ms, 12300);
	assert_int_equal(back.eta_ms, -1);
	assert_int_equal(back.submit_ms, t.submit_ms);
	assert_string_equal(back.array, t.array);
	assert_int_equal(back.array_index, 12);
	assert_int_equal(back.ckpt_seq, 3);
	assert_int_equal(back.ckpt_age_ms, 4500);
	assert_string_equal(back.ckpt_at, "acor,bede");
	assert_int_equal(back.deadline_ms, t.deadline_ms);
	assert_string_equal(back.why, t.why);
	assert_true(wire_reply_task_format(&back, again, sizeof again) > 0);
	assert_string_equal(again, line);
}

/* A running task, no array, nothing to wait for; an older node's line
 * without submitted= still reads. */
static void
test_task_line_optional_fields(void **state)
{
	struct reply_task	t = a_task(), back;
	char			line[1024];

	snprintf(t.state, sizeof t.state, "Running");
	snprintf(t.running_on, sizeof t.running_on, "gaviao");
	t.progress = 40;
	t.eta_ms = 4000;
	t.array[0] = t.why[0] = '\0';
	t.ckpt_seq = 0;		/* no checkpoint: no ckpt= */
	t.deadline_ms = 0;	/* no deadline: no deadline= */
	assert_true(wire_reply_task_format(&t, line, sizeof line) > 0);
	assert_string_equal(line, "TASK 0f8fad5b-d9cb-469f-a165-70867728950e "
	    "xz low Running 40 acor gaviao 12.3 4.0 submitted=1764165600123\n");
	/* Its owner, when the node says it, between submitted= and array=. */
	snprintf(t.user, sizeof t.user, "alice");
	assert_true(wire_reply_task_format(&t, line, sizeof line) > 0);
	assert_string_equal(line, "TASK 0f8fad5b-d9cb-469f-a165-70867728950e "
	    "xz low Running 40 acor gaviao 12.3 4.0 submitted=1764165600123 "
	    "user=alice\n");
	assert_int_equal(wire_reply_task_parse(line, &back), 0);
	assert_string_equal(back.user, "alice");
	assert_int_equal(wire_reply_task_parse("TASK u xz low Failed 3 a - - -",
	    &back), 0);
	assert_string_equal(back.user, "");
	assert_int_equal(back.submit_ms, -1);
	assert_int_equal(back.deadline_ms, 0);
	assert_int_equal(back.progress, 3);
}

static void
test_damaged_task_lines_are_refused(void **state)
{
	static const char *bad[] = {
		"TASK",
		"TASKS u xz low Ready 0 a - - -",
		"TASK u xz low Ready 101 a - - -",
		"TASK u xz low Ready 0 a - 1e3 -",
		"TASK u xz low Ready 0 a - -1 -",
		"TASK u  low Ready 0 a - - -",
		"TASK u xz low Ready 0 a - - - submitted=x",
		"TASK u xz low Ready 0 a - - - array=nocolon",
		"TASK u xz low Ready 0 a - - - array=u:-1",
		"TASK u xz low Ready 0 a - - - deadline=0",
		"TASK u xz low Ready 0 a - - - deadline=soon",
		"TASK u xz low Ready 0 a - - - why\x01",
		NULL,
	};
	struct reply_task	t;
	int			i;

	for (i = 0; bad[i] != NULL; i++)
		assert_int_equal(wire_reply_task_parse(bad[i], &t), -1);
}

static void
test_node_lines(void **state)
{
	struct reply_node	n, back;
	char			line[2048], again[2048];

	memset(&n, 0, sizeof n);
	snprintf(n.name, sizeof n.name, "acor");
	snprintf(n.address, sizeof n.address, "127.0.0.1:7600");
	snprintf(n.role, sizeof n.role, "master");
	snprintf(n.state, sizeof n.state, "dedicated");
	n.free = 1;
	n.slots = 2;
	n.reputation = 100;
	assert_true(wire_reply_node_format(&n, line, sizeof line) > 0);
	assert_string_equal(line, "NODE acor 127.0.0.1:7600 master dedicated "
	    "1/2 100\n");
	n.cores = 2;
	n.memory_mb = 24064;
	assert_true(wire_reply_node_format(&n, line, sizeof line) > 0);
	assert_string_equal(line, "NODE acor 127.0.0.1:7600 master dedicated "
	    "1/2 100 cores=2 memory=24064 tags=-\n");
	assert_int_equal(wire_reply_node_parse(line, &back), 0);
	assert_string_equal(back.tags, "");
	snprintf(n.tags, sizeof n.tags, "linux,x86_64");
	assert_true(wire_reply_node_format(&n, line, sizeof line) > 0);
	assert_int_equal(wire_reply_node_parse(line, &back), 0);
	assert_true(wire_reply_node_format(&back, again, sizeof again) > 0);
	assert_string_equal(again, line);
	/* How it contains its runs, when it says. */
	snprintf(n.contain, sizeof n.contain, "subreaper");
	assert_true(wire_reply_node_format(&n, line, sizeof line) > 0);
	assert_non_null(strstr(line, " tags=linux,x86_64 contain=subreaper\n"));
	assert_int_equal(wire_reply_node_parse(line, &back), 0);
	assert_string_equal(back.contain, "subreaper");
	/* Its batch window ahead, with or without what it has. */
	n.window_from_ms = 1700000000000;
	n.window_to_ms = 1700003600000;
	assert_true(wire_reply_node_format(&n, line, sizeof line) > 0);
	assert_non_null(strstr(line, " contain=subreaper "
	    "window=1700000000000,1700003600000\n"));
	assert_int_equal(wire_reply_node_parse(line, &back), 0);
	assert_int_equal(back.window_from_ms, 1700000000000);
	assert_int_equal(back.window_to_ms, 1700003600000);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 "
	    "window=5,10", &back), 0);
	assert_int_equal(back.cores, 0);
	assert_int_equal(back.window_to_ms, 10);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 "
	    "window=10,10", &back), -1);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 "
	    "window=-1,10", &back), -1);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 "
	    "window=10", &back), -1);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 "
	    "window=5,10 cores=2 memory=1 tags=x", &back), -1);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 cores=2 "
	    "memory=1 tags=x contain=a/b", &back), -1);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1 1", &back), -1);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 cores=2",
	    &back), -1);
	assert_int_equal(wire_reply_node_parse("NODE a b c d 1/1 1 cores=2 "
	    "memory=1 tags=x extra", &back), -1);
}

static void
test_rejected_clash_and_record_lines(void **state)
{
	struct reply_rejected	r = { 18, "127.0.0.1:7601", "" }, back;
	struct task		*t;
	char			line[RECORD_LINE_MAX + 16], addr[ADDR_MAXLEN + 1];
	char			err[128];

	snprintf(r.why, sizeof r.why, "sealed with an unknown key");
	assert_true(wire_reply_rejected_format(&r, line, sizeof line) > 0);
	assert_string_equal(line, "REJECTED 18 127.0.0.1:7601 sealed with an "
	    "unknown key\n");
	assert_int_equal(wire_reply_rejected_parse(line, &back), 0);
	assert_int_equal(back.count, 18);
	assert_string_equal(back.why, r.why);
	assert_int_equal(wire_reply_rejected_parse("REJECTED 1 x", &back), -1);
	assert_true(wire_reply_clash_format("10.1.0.7:7600", line,
	    sizeof line) > 0);
	assert_string_equal(line, "CLASH 10.1.0.7:7600\n");
	assert_int_equal(wire_reply_clash_parse(line, addr, sizeof addr), 0);
	assert_string_equal(addr, "10.1.0.7:7600");
	assert_int_equal(wire_reply_clash_parse("CLASH a b", addr,
	    sizeof addr), -1);
	t = task_new("0f8fad5b-d9cb-469f-a165-70867728950e", "xz", 0);
	assert_non_null(t);
	assert_true(wire_reply_record_format(t, 0, line, sizeof line) > 0);
	assert_memory_equal(line, "RECORD ", 7);
	task_free(t);
	assert_non_null(t = wire_reply_record_parse(line, err, sizeof err));
	assert_string_equal(t->uuid, "0f8fad5b-d9cb-469f-a165-70867728950e");
	task_free(t);
	assert_null(wire_reply_record_parse("TASK x", err, sizeof err));
}

/* ACCOUNT for someone not the task's owner: the record without the
 * command's environment, the rest the same. */
static void
test_a_private_record_has_no_environment(void **state)
{
	static char	*argv[] = { "env" }, *envv[] = { "TOKEN=s3cret",
			    "B=2" };
	struct task_cmd	 c;
	struct task	*t, *back;
	char		 all[RECORD_LINE_MAX + 16], mine[RECORD_LINE_MAX + 16];
	char		 expect[RECORD_LINE_MAX + 16], err[128];
	const char	*e, *end;
	int		 k;

	memset(&c, 0, sizeof c);
	c.argc = 1;
	c.argv = argv;
	c.nenv = 2;
	c.env = envv;
	for (k = 0; k < 2; k++) {
		assert_non_null(t = task_new("0f8fad5b-d9cb-469f-a165-"
		    "70867728950e", "env", 0));
		assert_non_null(t->cmd = task_cmd_dup(&c));
		if (k == 1) {	/* the environment last, or in the middle */
			t->cmd->cwd = strdup("/srv/x");
			assert_non_null(t->cmd->cwd);
		}
		assert_true(wire_reply_record_format(t, 0, all, sizeof all) > 0);
		assert_non_null(strstr(all, "s3cret"));
		assert_true(wire_reply_record_format(t, 1, mine, sizeof mine) >
		    0);
		/* all, but for its " env=..." word */
		e = strstr(all, " env=");
		end = strchr(e + 1, ' ');
		snprintf(expect, sizeof expect, "%.*s%s", (int)(e - all), all,
		    end != NULL ? end : "\n");
		assert_string_equal(mine, expect);
		assert_non_null(back = wire_reply_record_parse(mine, err,
		    sizeof err));
		assert_int_equal(back->cmd->nenv, 0);
		assert_string_equal(back->cmd->argv[0], "env");
		task_free(back);
		task_free(t);
	}
}

#define BLOB_U1 "00000000-0000-4000-8000-000000000001"

/* The answer to a request for bytes: what blobfetch.c takes, and only
 * the answer to what it asked. */
static void
test_blob_answers(void **state)
{
	const char	*req = "FILE " BLOB_U1 " 2";
	char		 line[256];
	int64_t		 bytes, zbytes;
	const char	*bad[] = {
		"FILE " BLOB_U1 " 2", "FILE " BLOB_U1 " 2 ", "FILE " BLOB_U1 " 3 10",
		"FILE " BLOB_U1 " 2 -1", "FILE " BLOB_U1 " 2 +10", "FILE " BLOB_U1 " 2 010",
		"FILE " BLOB_U1 " 2 10 z=", "FILE " BLOB_U1 " 2 10 z=5 x",
		"FILE " BLOB_U1 " 2 10 y=5", "FILE " BLOB_U1 " 2 99999999999999999999",
		"FILE " BLOB_U1 " 2  10", "FILE " BLOB_U1 " 22 10", "ERROR no file",
		"CKPT " BLOB_U1 " 2 10",
	};
	size_t		 i;

	(void)state;
	assert_int_equal(wire_reply_blob_format(req, 1048576, -1, line,
	    sizeof line), (int)strlen(req) + 9);
	assert_string_equal(line, "FILE " BLOB_U1 " 2 1048576\n");
	assert_int_equal(wire_reply_blob_parse(line, req, &bytes, &zbytes), 0);
	assert_int_equal(bytes, 1048576);
	assert_int_equal(zbytes, -1);
	assert_true(wire_reply_blob_format(req, 0, 12, line, sizeof line) > 0);
	assert_int_equal(wire_reply_blob_parse(line, req, &bytes, &zbytes), 0);
	assert_int_equal(bytes, 0);
	assert_int_equal(zbytes, 12);
	assert_int_equal(wire_reply_blob_format(req, 10, -1, line, 20), -1);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(wire_reply_blob_parse(bad[i], req, &bytes,
		    &zbytes), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_line_bytes_and_round_trip),
		cmocka_unit_test(test_task_line_optional_fields),
		cmocka_unit_test(test_damaged_task_lines_are_refused),
		cmocka_unit_test(test_node_lines),
		cmocka_unit_test(test_rejected_clash_and_record_lines),
		cmocka_unit_test(test_a_private_record_has_no_environment),
		cmocka_unit_test(test_blob_answers),
	};

	return cmocka_run_group_tests_name("reply", tests, NULL, NULL);
}
