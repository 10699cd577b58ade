/*
 * cmd-hold.c -- `volery hold`, `volery release`, `volery prio`: what a
 * task's owner changes of a waiting task (scontrol hold, release and
 * the priority of Slurm).  A held task stays Ready and is never taken
 * until released.
 */

#include "cmd.h"
#include "task.h"

static int
cmd_hold_exec(const struct cmd_args *a)
{
	return cmd_ask_each(a, "HOLD", NULL, 0, 0);
}

static int
cmd_release_exec(const struct cmd_args *a)
{
	return cmd_ask_each(a, "RELEASE", NULL, 0, 0);
}

static int
cmd_prio_exec(const struct cmd_args *a)
{
	enum task_prio	p;

	if (task_prio_parse(a->operands[0], &p) == -1)
		return 2 * cmd_fail("a priority is interactive or low, not "
		    "%.40s", a->operands[0]);
	return cmd_ask_each(a, "PRIO", task_prio_name(p), 1, 0);
}

const struct cmd_entry cmd_hold_entry = {
	"hold", "keep waiting tasks from starting until released (they "
	"stay Ready, shown Held)",
	{ CMD_OPT_HOST }, 1, -1, "UUID...", 0,
	cmd_hold_exec, 0,
};

const struct cmd_entry cmd_release_entry = {
	"release", "let held tasks start again",
	{ CMD_OPT_HOST }, 1, -1, "UUID...", 0,
	cmd_release_exec, 0,
};

const struct cmd_entry cmd_prio_entry = {
	"prio", "change the priority of waiting tasks: interactive (before "
	"every low one) or low",
	{ CMD_OPT_HOST }, 2, -1, "interactive|low UUID...", 0,
	cmd_prio_exec, 0,
};
