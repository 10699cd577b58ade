/*
 * cmd-idle.c -- `volery idle on|off|auto`: the screensaver hook.  A
 * screensaver or locker runs it when the screen blanks (on), when the
 * user is back (off), or to hand the decision back to the probes (auto).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static int
cmd_idle_exec(const struct cmd_args *a)
{
	const char	*how = a->operands[0];
	char		 request[16];

	if (strcmp(how, "on") != 0 && strcmp(how, "off") != 0 &&
	    strcmp(how, "auto") != 0)
		return cmd_usage(&cmd_idle_entry);
	snprintf(request, sizeof request, "IDLE %s", how);
	return cmd_ask_once(a, request);
}

const struct cmd_entry cmd_idle_entry = {
	"idle", "tell the node on this host that its user is away (on), here (off), "
	"or let its probes decide (auto)",
	{ CMD_OPT_HOST }, 1, 1, "on|off|auto", 0,
	cmd_idle_exec, 0,
};
