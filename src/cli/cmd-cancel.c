/*
 * cmd-cancel.c -- `volery cancel UUID...`: cancel tasks and everything
 * downstream of them.
 */
#include "cmd.h"

static int
cmd_cancel_exec(const struct cmd_args *a)
{
	return cmd_ask_each(a, "CANCEL", NULL, 0, 1);
}

const struct cmd_entry cmd_cancel_entry = {
	"cancel", "cancel tasks and every task depending on them",
	{ CMD_OPT_HOST }, 1, -1, "UUID...", 0,
	cmd_cancel_exec, 0,
};
