/*
 * cmd-sleep.c -- `volery sleep [now|over]`: the system's sleep hook.
 * Before the host suspends (now), the node hands its runs back and tells
 * the pool how to wake it; once it is back (over), it volunteers again.
 * tools/debian's system-sleep hook runs it.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "conn.h"

static int
cmd_sleep_exec(const struct cmd_args *a)
{
	struct conn	 c;
	const char	*how = a->noperands > 0 ? a->operands[0] : "now";
	char		 request[16], reply[CLIENT_LINE_MAX], err[512];

	if (strcmp(how, "now") != 0 && strcmp(how, "over") != 0)
		return cmd_usage(&cmd_sleep_entry);
	snprintf(request, sizeof request, "SLEEP %s", how);
	if (conn_open(&c, cmd_arg(a, 'H'), err, sizeof err) == -1)
		return cmd_fail("%s", err);
	if (conn_ask(&c, request, reply, sizeof reply, err, sizeof err) == -1) {
		conn_close(&c);
		return cmd_fail("%s", err);
	}
	conn_close(&c);
	return 0;
}

const struct cmd_entry cmd_sleep_entry = {
	"sleep", "tell the node on this host that the host is about to "
	"suspend (now: its runs go back to the pool, which learns how to wake "
	"it), or is back (over)",
	{ CMD_OPT_HOST }, 0, 1, "[now|over]", 0,
	cmd_sleep_exec, 0,
};
