/*
 * test_cmdend.c -- how a command task's run ended (cmdend.c): what the
 * user sees in volery tasks and the history for each way a program can
 * end, and which ends may be tried again.
 */
#include "testutil.h"

#include "cmdend.h"
#include "wire.h"

/* The files a test says are there. */
static int
file_there(const char *path, void *arg)
{
	const char	**there = arg;

	for (; *there != NULL; there++)
		if (strcmp(*there, path) == 0)
			return 1;
	return 0;
}

static const char *none[] = { NULL };

static struct cmdend_facts
facts(int code, int signo, const struct cmdend_output *outs, int nouts,
    const char **there)
{
	struct cmdend_facts	f;

	memset(&f, 0, sizeof f);
	f.code = code;
	f.signo = signo;
	f.signame = signo != 0 ? "Killed" : NULL;
	f.outs = outs;
	f.nouts = nouts;
	f.file_there = file_there;
	f.arg = (void *)there;
	return f;
}

static void
test_exit_zero_without_outputs_is_terminated(void **state)
{
	struct cmdend_facts	f = facts(0, 0, NULL, 0, none);
	struct runner_msg	m;

	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_TERMINATED);
	assert_int_equal(m.noutputs, 0);
	assert_int_equal(m.final, 0);
}

static void
test_exit_status_and_signal_are_errors_worth_a_retry(void **state)
{
	struct cmdend_facts	f = facts(3, 0, NULL, 0, none);
	struct runner_msg	m;

	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_ERROR);
	assert_string_equal(m.message, "exit status 3");
	assert_int_equal(m.final, 0);
	f = facts(-1, 9, NULL, 0, none);
	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_ERROR);
	assert_string_equal(m.message, "killed by signal 9 (Killed)");
	assert_int_equal(m.final, 0);
}

/* Its time limit wins over how it died (it was killed for it), and no
 * other attempt would fare better. */
static void
test_time_limit_is_a_final_error(void **state)
{
	struct cmdend_facts	f = facts(-1, 15, NULL, 0, none);
	struct runner_msg	m;

	f.timed_out = 1;
	f.limit_ms = 90000;
	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_ERROR);
	assert_string_equal(m.message, "time limit of 90 s reached");
	assert_int_equal(m.final, 1);
}

static void
test_outputs_found_are_the_result(void **state)
{
	struct cmdend_output	o[2] = {
		{ "out/a.xz", 0, NULL, "/home/u/out/a.xz" },
		{ "^sum=(\\w+)", 1, "abc123", NULL },
	};
	const char		*there[] = { "/home/u/out/a.xz", NULL };
	struct cmdend_facts	 f = facts(0, 0, o, 2, there);
	struct runner_msg	 m;

	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_TERMINATED);
	assert_int_equal(m.noutputs, 2);
	assert_string_equal(m.outputs[0], "out/a.xz");
	assert_string_equal(m.outputs[1], "abc123");
}

static void
test_a_missing_output_is_an_error_naming_it(void **state)
{
	struct cmdend_output	o[2] = {
		{ "out/a.xz", 0, NULL, "/home/u/out/a.xz" },
		{ "^sum=(\\w+)", 1, NULL, NULL },
	};
	const char		*there[] = { "/home/u/out/a.xz", NULL };
	struct cmdend_facts	 f = facts(0, 0, o, 2, there);
	struct runner_msg	 m;

	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_ERROR);
	assert_string_equal(m.message, "output 2: no line of its stdout "
	    "matched ^sum=(\\w+)");
	f = facts(0, 0, o, 1, none);
	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_ERROR);
	assert_string_equal(m.message, "output 1: no file out/a.xz");
}

/* A match must be a dataset id the next task can be given. */
static void
test_an_output_that_is_no_dataset_id_is_an_error(void **state)
{
	struct cmdend_output	o[1] = { { "(.*)", 1, "two words", NULL } };
	struct cmdend_facts	f = facts(0, 0, o, 1, none);
	struct runner_msg	m;

	cmdend_decide(&f, &m);
	assert_int_equal(m.type, RMSG_ERROR);
	assert_non_null(strstr(m.message, "output 1: 'two words' is not a "
	    "dataset id"));
}

/* A failed exit is told before outputs are looked for: no file is
 * opened for a run that failed anyway. */
static void
test_outputs_are_not_looked_for_after_a_failure(void **state)
{
	struct cmdend_output	o[1] = { { "a", 0, NULL, "/a" } };
	struct cmdend_facts	f = facts(1, 0, o, 1, NULL);
	struct runner_msg	m;

	f.file_there = NULL;	/* a call would crash */
	cmdend_decide(&f, &m);
	assert_string_equal(m.message, "exit status 1");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_zero_without_outputs_is_terminated),
		cmocka_unit_test(
		    test_exit_status_and_signal_are_errors_worth_a_retry),
		cmocka_unit_test(test_time_limit_is_a_final_error),
		cmocka_unit_test(test_outputs_found_are_the_result),
		cmocka_unit_test(test_a_missing_output_is_an_error_naming_it),
		cmocka_unit_test(
		    test_an_output_that_is_no_dataset_id_is_an_error),
		cmocka_unit_test(
		    test_outputs_are_not_looked_for_after_a_failure),
	};

	return cmocka_run_group_tests_name("cmdend", tests, NULL, NULL);
}
