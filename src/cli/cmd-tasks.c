/*
 * cmd-tasks.c -- `volery tasks [--state S] [--history]`: the task map as a
 * table; with --history, the finished tasks retired from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd.h"
#include "conn.h"
#include "task.h"

#define TASKS_HEADER "%-36s %-18s %-11s %-10s %4s %-12s %-10s %-14s %7s %s\n"

static void
header(void)
{
	printf(TASKS_HEADER, "UUID", "NAME", "PRIORITY", "STATE", "%",
	    "SCHEDULED_BY", "NODE", "SUBMITTED", "EST", "ENDS");
}

/* When it was submitted, local time: HH:MM:SS today, else MM-DD HH:MM. */
static void
submitted(const char *line, char *buf, size_t size)
{
	const char	*p = strstr(line, " submitted=");
	struct tm	 tm, today;
	time_t		 now = time(NULL), at;

	snprintf(buf, size, "-");
	if (p == NULL)
		return;
	at = (time_t)(strtoll(p + 11, NULL, 10) / 1000);
	if (localtime_r(&at, &tm) == NULL || localtime_r(&now, &today) ==
	    NULL)
		return;
	strftime(buf, size, tm.tm_yday == today.tm_yday && tm.tm_year ==
	    today.tm_year ? "%H:%M:%S" : "%m-%d %H:%M", &tm);
}

static void
row(const char *line, void *arg)
{
	char	f[9][64], est[72] = "-", eta[72] = "-", name[80], when[32];
	const char *array, *waiting;
	int	*count = arg, k;

	/* TASK uuid exec prio state percent scheduled_by running_on
	 * [est eta] [submitted=ms]: an older node sends no estimates. */
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
	submitted(line, when, sizeof when);
	(*count)++;
	/* A task no live node can run says why, as Slurm's reasons. */
	waiting = strstr(line, " waiting: ");
	printf("%-36s %-18s %-11s %-10s %4s %-12s %-10s %-14s %7s %s%s%s\n",
	    f[0], name, f[2], f[3], f[4], f[5], f[6], when, est, eta,
	    waiting != NULL ? " " : "", waiting != NULL ? waiting + 1 : "");
}

static int
cmd_tasks_exec(const struct cmd_args *a)
{
	struct conn	 c;
	const char	*state = cmd_arg(a, 's');
	char		 req[128];
	int		 rc, count = 0;
	enum task_state	 st;

	if (state != NULL && strcasecmp(state, "Suspended") != 0 &&
	    task_state_parse(state, &st) == -1)
		return 2 * cmd_fail("--state %.40s: Submitted, Ready, Running, "
		    "Suspended, Terminated, Cancelled or Failed", state);
	snprintf(req, sizeof req, "%s%s%s", cmd_given(a, 'y') ? "HISTORY" :
	    "TASKS", state != NULL ? " " : "", state != NULL ? state : "");
	if (cmd_given(a, 'j') && cmd_given(a, 'y'))
		return 2 * cmd_fail("--json with --history: volery history "
		    "--json");
	if (cmd_given(a, 'j')) {
		snprintf(req, sizeof req, "/api/tasks%s%s", state != NULL ?
		    "?state=" : "", state != NULL ? state : "");
		return cmd_print_api(cmd_arg(a, 'H'), req);
	}
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	/* The header first, even for no task: the reply is all or none. */
	header();
	rc = cmd_ask_lines(&c, req, row, &count);
	conn_close(&c);
	return rc == -1 ? 1 : 0;
}

const struct cmd_entry cmd_tasks_entry = {
	"tasks", "list tasks (STATE: Submitted, Ready, Running, Suspended, "
	"Terminated, Cancelled, Failed); --history: those that finished "
	"longer ago than the retention period; --json: every field, as the "
	"API's /api/tasks",
	{ CMD_OPT_HOST, { 's', "state", 1, 1, 0, "STATE" },
	  { 'y', "history", 1, 0, 0, NULL }, { 'j', "json", 1, 0, 0, NULL } },
	0, 0, NULL, 0,
	cmd_tasks_exec, 0,
};
