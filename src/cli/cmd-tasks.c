/*
 * cmd-tasks.c -- `volery tasks [--state S] [--history]`: the task map as a
 * table; with --history, the finished tasks retired from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "conn.h"

static void
row(const char *line, void *arg)
{
	char	f[9][64], est[72] = "-", eta[72] = "-", name[80];
	const char *array, *waiting;
	int	*count = arg, k;

	/* TASK uuid exec prio state percent scheduled_by running_on
	 * [est eta]: an older node sends no estimates. */
	k = sscanf(line, "TASK %63s %63s %63s %63s %63s %63s %63s %63s %63s",
	    f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
	if (k < 7)
		return;
	if (k == 9 && strcmp(f[7], "-") != 0)
		snprintf(est, sizeof est, "%ss", f[7]);
	if (k == 9 && strcmp(f[8], "-") != 0)
		snprintf(eta, sizeof eta, "in %ss", f[8]);
	/* A task of an array shows as name[value]. */
	if ((array = strstr(line, " array=")) != NULL &&
	    (array = strchr(array, ':')) != NULL)
		snprintf(name, sizeof name, "%s[%d]", f[1], atoi(array + 1));
	else
		snprintf(name, sizeof name, "%s", f[1]);
	if ((*count)++ == 0)
		printf("%-36s %-18s %-11s %-10s %4s %-12s %-10s %7s %s\n",
		    "UUID", "NAME", "PRIORITY", "STATE", "%", "SCHEDULED_BY",
		    "NODE", "EST", "ENDS");
	/* A task no live node can run says why, as Slurm's reasons. */
	waiting = strstr(line, " waiting: ");
	printf("%-36s %-18s %-11s %-10s %4s %-12s %-10s %7s %s%s%s\n", f[0],
	    name, f[2], f[3], f[4], f[5], f[6], est, eta,
	    waiting != NULL ? " " : "", waiting != NULL ? waiting + 1 : "");
}

static int
cmd_tasks_exec(const struct cmd_args *a)
{
	struct conn	 c;
	const char	*state = cmd_arg(a, 's');
	char		 req[128];
	int		 rc, count = 0;

	if (state != NULL && strlen(state) >= 32)
		return cmd_usage(&cmd_tasks_entry);
	snprintf(req, sizeof req, "%s%s%s", cmd_given(a, 'y') ? "HISTORY" :
	    "TASKS", state != NULL ? " " : "", state != NULL ? state : "");
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	rc = cmd_ask_lines(&c, req, row, &count);
	conn_close(&c);
	return rc == -1 ? 1 : 0;
}

const struct cmd_entry cmd_tasks_entry = {
	"tasks", "list tasks (STATE: Submitted, Ready, Running, Suspended, "
	"Terminated, Cancelled, Failed); --history: those that finished "
	"longer ago than the retention period",
	{ CMD_OPT_HOST, { 's', "state", 1, 1, 0, "STATE" },
	  { 'y', "history", 1, 0, 0, NULL } }, 0, 0, NULL, 0,
	cmd_tasks_exec, 0,
};
