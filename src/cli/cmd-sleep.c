/*
 * cmd-sleep.c -- `volery sleep [now|over]`: the system's sleep hook.
 * Before the host suspends (now), the node hands its runs back and tells
 * the pool how to wake it; once it is back (over), it volunteers again.
 * tools/debian's system-sleep hook runs it.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static int
cmd_sleep_exec(const struct cmd_args *a)
{
	const char	*how = a->noperands > 0 ? a->operands[0] : "now";
	char		 request[16];

	if (strcmp(how, "now") != 0 && strcmp(how, "over") != 0)
		return cmd_usage(&cmd_sleep_entry);
	snprintf(request, sizeof request, "SLEEP %s", how);
	return cmd_ask_once(a, request);
}

const struct cmd_entry cmd_sleep_entry = {
	"sleep", "tell the node on this host that the host is about to "
	"suspend (now: its runs go back to the pool, which learns how to wake "
	"it), or is back (over)",
	{ CMD_OPT_HOST }, 0, 1, "[now|over]", 0,
	cmd_sleep_exec, 0,
};
