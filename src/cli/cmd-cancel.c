/*
 * cmd-cancel.c -- `volery cancel UUID...`: cancel tasks and everything
 * downstream of them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"
#include "task.h"

static int
cmd_cancel_exec(const struct cmd_args *a)
{
	struct conn	 c;
	char		 req[CLIENT_LINE_MAX], reply[CLIENT_LINE_MAX];
	int		 i, failed = 0;

	/* Every operand a uuid, or nothing is cancelled. */
	for (i = 0; i < a->noperands; i++)
		if (!task_uuid_valid(a->operands[i]))
			return 2 * cmd_fail("not a uuid: %.40s",
			    a->operands[i]);
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	for (i = 0; i < a->noperands; i++) {
		const char *u = a->operands[i];
		snprintf(req, sizeof req, "CANCEL %s", u);
		if (cmd_ask(&c, req, reply, sizeof reply) == -1)
			failed = 1;
		else
			printf("%s\n", reply);
	}
	conn_close(&c);
	return failed;
}

const struct cmd_entry cmd_cancel_entry = {
	"cancel", "cancel tasks and every task depending on them",
	{ CMD_OPT_HOST }, 1, -1, "UUID...", 0,
	cmd_cancel_exec, 0,
};
