/*
 * cmd-tasks.c -- `volery tasks [--state S]`: the task map as a table.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "conn.h"

static void
row(const char *line, void *arg)
{
	char	f[7][64];
	int	*count = arg;

	/* TASK uuid exec prio state percent scheduled_by running_on */
	if (sscanf(line, "TASK %63s %63s %63s %63s %63s %63s %63s", f[0],
	    f[1], f[2], f[3], f[4], f[5], f[6]) != 7)
		return;
	if ((*count)++ == 0)
		printf("%-36s %-18s %-11s %-10s %4s %-12s %s\n", "UUID", "NAME",
		    "PRIORITY", "STATE", "%", "SCHEDULED_BY", "NODE");
	printf("%-36s %-18s %-11s %-10s %4s %-12s %s\n", f[0], f[1], f[2],
	    f[3], f[4], f[5], f[6]);
}

static int
cmd_tasks_exec(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "state", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct conn	 c;
	const char	*host = NULL, *state = NULL;
	char		 req[128];
	int		 ch, rc, count = 0;

	while ((ch = getopt_long(argc, argv, "H:s:", longs, NULL)) != -1) {
		if (ch == 'H')
			host = optarg;
		else if (ch == 's' && strlen(optarg) < 32)
			state = optarg;
		else
			return cmd_usage(&cmd_tasks_entry);
	}
	if (optind != argc)
		return cmd_usage(&cmd_tasks_entry);
	snprintf(req, sizeof req, "TASKS%s%s", state != NULL ? " " : "",
	    state != NULL ? state : "");
	if (cmd_connect(&c, host) == -1)
		return 1;
	rc = cmd_ask_lines(&c, req, row, &count);
	conn_close(&c);
	return rc == -1 ? 1 : 0;
}

const struct cmd_entry cmd_tasks_entry = {
	"tasks", "tasks [-H host[:port]] [--state STATE]",
	"list tasks (STATE: Submitted, Ready, Running, Suspended, Terminated, "
	"Cancelled, Failed)",
	cmd_tasks_exec,
};
