/*
 * cmd-schedule.c -- `volery schedule NAME ...`: one SCHEDULE, prints
 * the new task's uuid.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"

/* A params file given relative to here means the same file to the node
 * (which runs elsewhere, from another directory): make it absolute. */
static const char *
absolute(const char *path, char *buf, size_t size)
{
	char	cwd[PATH_MAX];

	if (path[0] == '/' || getcwd(cwd, sizeof cwd) == NULL)
		return path;
	snprintf(buf, size, "%s/%s", cwd, path);
	return buf;
}

static int
cmd_schedule_exec(int argc, char **argv)
{
	struct conn	 c;
	const char	*host = NULL, *name = NULL, *prio = "low";
	const char	*path = NULL, *params = NULL;
	char		 req[CLIENT_LINE_MAX + 1], reply[CLIENT_LINE_MAX];
	char		 binds[CLIENT_LINE_MAX + 1] = "", abs[PATH_MAX + 1];
	size_t		 off, boff = 0;
	int		 i, rc;

	/* By hand, not getopt: -a takes two arguments. */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-a") == 0 && i + 2 < argc) {
			if (boff < sizeof binds)
				boff += snprintf(binds + boff, sizeof binds -
				    boff, " -a %s %s", argv[i + 1],
				    argv[i + 2]);
			i += 2;
			continue;
		}
		if (a[0] == '-' && i + 1 >= argc)
			return cmd_usage(&cmd_schedule_entry);
		if (strcmp(a, "-H") == 0)
			host = argv[++i];
		else if (strcmp(a, "-P") == 0)
			prio = argv[++i];
		else if (strcmp(a, "-p") == 0)
			path = argv[++i];
		else if (strcmp(a, "-x") == 0)
			params = argv[++i];
		else if (a[0] != '-' && name == NULL)
			name = a;
		else
			return cmd_usage(&cmd_schedule_entry);
	}
	if (name == NULL || (strcmp(prio, "low") != 0 &&
	    strcmp(prio, "interactive") != 0))
		return cmd_usage(&cmd_schedule_entry);
	off = snprintf(req, sizeof req, "SCHEDULE %s %s%s%s%s%s%s", name, prio,
	    path != NULL ? " -p " : "", path != NULL ? path : "", binds,
	    params != NULL ? " -x " : "", params != NULL ?
	    absolute(params, abs, sizeof abs) : "");
	if (boff >= sizeof binds || off >= sizeof req - 1)
		return cmd_fail("the request is longer than %d bytes",
		    CLIENT_LINE_MAX);
	if (cmd_connect(&c, host) == -1)
		return 1;
	rc = cmd_ask(&c, req, reply, sizeof reply);
	conn_close(&c);
	if (rc == -1)
		return 1;
	if (strncmp(reply, "SCHEDULED ", 10) != 0)
		return cmd_fail("unexpected reply: %s", reply);
	printf("%s\n", reply + 10);
	return 0;
}

const struct cmd_entry cmd_schedule_entry = {
	"schedule",
	"schedule NAME [-P low|interactive] [-p PATH] [-a UUID N]... "
	"[-x FILE] [-H host[:port]]",
	"schedule one task; prints its uuid",
	cmd_schedule_exec,
};
