/*
 * cmd-cancel.c -- `volery cancel UUID...`: cancel tasks and everything
 * downstream of them.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"

static int
cmd_cancel_exec(int argc, char **argv)
{
	struct conn	 c;
	const char	*host = NULL;
	char		 req[CLIENT_LINE_MAX], reply[CLIENT_LINE_MAX];
	int		 ch, i, failed = 0;

	while ((ch = getopt(argc, argv, "H:")) != -1) {
		if (ch != 'H')
			return cmd_usage(&cmd_cancel_entry);
		host = optarg;
	}
	if (optind == argc)
		return cmd_usage(&cmd_cancel_entry);
	if (cmd_connect(&c, host) == -1)
		return 1;
	for (i = optind; i < argc; i++) {
		if (strlen(argv[i]) > UUID_STRLEN) {
			failed = cmd_fail("not a uuid: %.40s", argv[i]);
			continue;
		}
		snprintf(req, sizeof req, "CANCEL %s", argv[i]);
		if (cmd_ask(&c, req, reply, sizeof reply) == -1)
			failed = 1;
		else
			printf("%s\n", reply);
	}
	conn_close(&c);
	return failed;
}

const struct cmd_entry cmd_cancel_entry = {
	"cancel", "cancel [-H host[:port]] UUID...",
	"cancel tasks and every task depending on them",
	cmd_cancel_exec,
};
