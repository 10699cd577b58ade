/*
 * test_workflow.c -- the workflow checker of `volery submit`: every
 * problem of a file at once, with its line, and a dependency order.
 */
#include "testutil.h"

#include "workflow.h"

struct fixture {
	struct taskdesc_set	set;
	struct workflow		wf;
	struct wf_task		tasks[8];
	int			order[8];
	char			err[4096];
};

static struct wf_task *
add(struct fixture *f, const char *id, const char *name, long line)
{
	struct wf_task	*t = &f->tasks[f->wf.ntasks++];

	memset(t, 0, sizeof *t);
	snprintf(t->id, sizeof t->id, "%s", id);
	snprintf(t->name, sizeof t->name, "%s", name);
	t->line = line;
	return t;
}

static void
in(struct wf_task *t, const char *from, int output, long line)
{
	struct wf_input	*i;

	assert_int_equal(workflow_inputs(t), 0);
	i = &t->inputs[t->ninputs++];

	snprintf(i->task, sizeof i->task, "%s", from);
	i->output = output;
	i->line = line;
	t->ninputs_seen = t->ninputs;
}

static struct fixture *
setup(void)
{
	struct fixture	*f = calloc(1, sizeof *f);

	plmi2_descs(&f->set);
	f->wf.file = "wf.xml";
	f->wf.tasks = f->tasks;
	snprintf(f->wf.prio, sizeof f->wf.prio, "low");
	return f;
}

static void
teardown(struct fixture *f)
{
	int	i;

	for (i = 0; i < (int)(sizeof f->tasks / sizeof f->tasks[0]); i++)
		free(f->tasks[i].inputs);
	taskdesc_clear(&f->set);
	free(f);
}

static int
position(const struct fixture *f, const char *id)
{
	int	i;

	for (i = 0; i < f->wf.ntasks; i++)
		if (strcmp(f->tasks[f->order[i]].id, id) == 0)
			return i;
	return -1;
}

/* Table 4.1, written bottom-up: scheduled top-down. */
static void
test_valid_workflow_ordered(void **state)
{
	struct fixture	*f = setup();
	struct wf_task	*t;

	t = add(f, "A", "anomaly_detection", 20);
	in(t, "S", 1, 21);
	t = add(f, "S", "segmentation", 15);
	in(t, "I", 1, 16);
	in(t, "G", 1, 17);
	in(t, "G", 2, 18);
	t = add(f, "G", "georeferencing", 10);
	in(t, "I", 1, 11);
	in(t, "I", 2, 12);
	in(t, "I", 3, 13);
	t = add(f, "I", "import", 5);
	t->path = "/data/x";
	assert_int_equal(workflow_check(&f->wf, &f->set, f->order, f->err,
	    sizeof f->err), 0);
	assert_string_equal(f->err, "");
	assert_true(position(f, "I") < position(f, "G"));
	assert_true(position(f, "G") < position(f, "S"));
	assert_true(position(f, "S") < position(f, "A"));
	teardown(f);
}

/* Every problem is reported, each on its own line. */
static void
test_every_problem_with_its_line(void **state)
{
	struct fixture	*f = setup();
	struct wf_task	*t;

	add(f, "I", "import", 2);				/* no path */
	t = add(f, "I", "import", 3);				/* duplicate */
	t->path = "/x";
	t = add(f, "X", "imprt", 4);				/* unknown */
	t = add(f, "G", "georeferencing", 5);			/* 1 of 3 */
	in(t, "I", 1, 6);
	t = add(f, "A", "anomaly_detection", 7);
	in(t, "I", 9, 8);					/* no output 9 */
	t = add(f, "B", "anomaly_detection", 9);
	in(t, "G", 1, 10);					/* wrong type */
	t = add(f, "C", "anomaly_detection", 11);
	in(t, "nosuch", 1, 12);					/* unknown id */
	assert_int_equal(workflow_check(&f->wf, &f->set, f->order, f->err,
	    sizeof f->err), 7);
	assert_non_null(strstr(f->err, "wf.xml:2: task 'I': import needs "
	    "a <path>"));
	assert_non_null(strstr(f->err, "wf.xml:3: duplicate task id 'I' "
	    "(first on line 2)"));
	assert_non_null(strstr(f->err, "wf.xml:4: task 'X': no task named "
	    "'imprt'"));
	assert_non_null(strstr(f->err, "wf.xml:5: task 'G': georeferencing "
	    "takes 3 inputs, not 1"));
	assert_non_null(strstr(f->err, "wf.xml:8: task 'A' input 1: import "
	    "'I' has 3 outputs; there is no output 9"));
	assert_non_null(strstr(f->err, "wf.xml:10: task 'B' input 1: "
	    "anomaly_detection wants an output of segmentation here, not of "
	    "georeferencing 'G'"));
	assert_non_null(strstr(f->err, "wf.xml:12: task 'C' input 1: no task "
	    "'nosuch' in this file"));
	teardown(f);
}

static void
test_cycle_and_self_reference(void **state)
{
	struct fixture	*f = setup();
	struct wf_task	*t;

	t = add(f, "P", "any", 2);
	in(t, "Q", 1, 3);
	t = add(f, "Q", "any", 4);
	in(t, "P", 1, 5);
	t = add(f, "R", "any", 6);
	in(t, "R", 1, 7);
	assert_int_equal(workflow_check(&f->wf, &f->set, f->order, f->err,
	    sizeof f->err), 4);
	assert_non_null(strstr(f->err, "wf.xml:2: task 'P' is on a "
	    "dependency cycle"));
	assert_non_null(strstr(f->err, "wf.xml:4: task 'Q' is on a "
	    "dependency cycle"));
	assert_non_null(strstr(f->err, "wf.xml:7: task 'R' input 1: a task "
	    "cannot read its own output"));
	teardown(f);
}

/* An input may name a task scheduled before, by uuid: the node checks
 * it when the task is scheduled. */
static void
test_uuid_inputs_left_to_the_node(void **state)
{
	struct fixture	*f = setup();
	struct wf_task	*t;

	t = add(f, "A", "anomaly_detection", 2);
	in(t, "8a1b6c3e-8d5b-4f61-9b7a-2f4ad1a0c0de", 1, 3);
	assert_int_equal(workflow_check(&f->wf, &f->set, f->order, f->err,
	    sizeof f->err), 0);
	f->wf.ntasks = 0;
	assert_int_equal(workflow_check(&f->wf, &f->set, f->order, f->err,
	    sizeof f->err), 1);
	assert_non_null(strstr(f->err, "no task"));
	teardown(f);
}

/* Commands: no description, any inputs, the outputs they declare; a
 * described task reading one is told its type is not what it wants. */
static void
test_commands_in_a_workflow(void **state)
{
	struct fixture	*f = setup();
	struct wf_task	*t;
	static char	*argv[] = { "wc", "-l" }, *outs[] = { "line:(\\d+)" };
	static char	*bad_env[] = { "no-name" };
	struct task_cmd	 c1 = { 2, argv, 0, NULL, "/d", NULL, NULL, 0, 1,
			    outs, 0, NULL, NULL, 0, 0, NULL, NULL };
	struct task_cmd	 c2 = c1, c3 = c1;

	c2.nouts = 0;
	c3.nenv = 1;
	c3.env = bad_env;
	t = add(f, "I", "import", 2);
	t->path = "/x";
	t = add(f, "C", "wc", 3);
	t->cmd = &c1;
	in(t, "I", 3, 4);
	in(t, "I", 1, 5);
	t = add(f, "D", "wc", 6);
	t->cmd = &c2;
	in(t, "C", 1, 7);
	assert_int_equal(workflow_check(&f->wf, &f->set, f->order, f->err,
	    sizeof f->err), 0);
	assert_true(position(f, "C") < position(f, "D"));
	in(t, "C", 2, 8);				/* C has one output */
	t = add(f, "A", "anomaly_detection", 9);	/* wants segmentation */
	in(t, "C", 1, 10);
	t = add(f, "E", "wc", 11);
	t->cmd = &c3;					/* bad environment */
	in(t, "D", 1, 12);				/* D declares none */
	assert_int_equal(workflow_check(&f->wf, &f->set, f->order, f->err,
	    sizeof f->err), 4);
	assert_non_null(strstr(f->err, "wf.xml:8: task 'D' input 2: wc 'C' "
	    "has 1 output; there is no output 2"));
	assert_non_null(strstr(f->err, "wf.xml:10: task 'A' input 1: "
	    "anomaly_detection wants an output of segmentation here, not of "
	    "a command 'C'"));
	assert_non_null(strstr(f->err, "wf.xml:11: command 'E': environment "
	    "variable 1 is not NAME=value"));
	assert_non_null(strstr(f->err, "wf.xml:12: task 'E' input 1: wc 'D' "
	    "has 0 outputs; there is no output 1"));
	teardown(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commands_in_a_workflow),
		cmocka_unit_test(test_valid_workflow_ordered),
		cmocka_unit_test(test_every_problem_with_its_line),
		cmocka_unit_test(test_cycle_and_self_reference),
		cmocka_unit_test(test_uuid_inputs_left_to_the_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
