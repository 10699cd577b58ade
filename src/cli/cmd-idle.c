/*
 * cmd-idle.c -- `volery idle on|off|auto`: the screensaver hook.  A
 * screensaver or locker runs it when the screen blanks (on), when the
 * user is back (off), or to hand the decision back to the probes (auto).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"

static int
cmd_idle_exec(int argc, char **argv)
{
	struct conn	 c;
	const char	*host = NULL;
	char		 request[16], reply[CLIENT_LINE_MAX], err[512];
	int		 ch;

	while ((ch = getopt(argc, argv, "H:")) != -1) {
		if (ch != 'H')
			return cmd_usage(&cmd_idle_entry);
		host = optarg;
	}
	if (optind != argc - 1 || (strcmp(argv[optind], "on") != 0 &&
	    strcmp(argv[optind], "off") != 0 &&
	    strcmp(argv[optind], "auto") != 0))
		return cmd_usage(&cmd_idle_entry);
	snprintf(request, sizeof request, "IDLE %s", argv[optind]);
	if (conn_open(&c, host, err, sizeof err) == -1)
		return cmd_fail("%s", err);
	if (conn_ask(&c, request, reply, sizeof reply, err, sizeof err) == -1) {
		conn_close(&c);
		return cmd_fail("%s", err);
	}
	conn_close(&c);
	return 0;
}

const struct cmd_entry cmd_idle_entry = {
	"idle", "idle [-H host[:port]] on|off|auto",
	"tell the node on this host that its user is away (on), here (off), "
	"or let its probes decide (auto)",
	cmd_idle_exec,
};
