/*
 * cmd-watch.c -- `volery watch UUID...`: follow tasks to their end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"
#include "watch.h"

static int
cmd_watch_exec(int argc, char **argv)
{
	struct conn	 c;
	struct watched	*v;
	const char	*host = NULL;
	char		 err[512];
	int		 ch, i, n, rc;

	while ((ch = getopt(argc, argv, "H:")) != -1) {
		if (ch != 'H')
			return cmd_usage(&cmd_watch_entry);
		host = optarg;
	}
	if ((n = argc - optind) == 0)
		return cmd_usage(&cmd_watch_entry);
	if ((v = calloc(n, sizeof *v)) == NULL)
		return cmd_fail("out of memory");
	for (i = 0; i < n; i++) {
		if (strlen(argv[optind + i]) != UUID_STRLEN) {
			free(v);
			return cmd_fail("not a uuid: %.40s", argv[optind + i]);
		}
		memcpy(v[i].p.uuid, argv[optind + i], UUID_STRLEN + 1);
	}
	if (cmd_connect(&c, host) == -1) {
		free(v);
		return 1;
	}
	if (watch_names(&c, v, n, err, sizeof err) == -1)
		rc = cmd_fail("%s", err);
	else
		rc = watch_run(&c, v, n, stdout, isatty(STDOUT_FILENO));
	conn_close(&c);
	free(v);
	return rc;
}

const struct cmd_entry cmd_watch_entry = {
	"watch", "watch [-H host[:port]] UUID...",
	"follow tasks to their end: live bars on a terminal, then a summary; "
	"exits 1 if any was Cancelled or Failed",
	cmd_watch_exec,
};
