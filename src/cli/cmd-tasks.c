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
#include "reply.h"
#include "task.h"

#define TASKS_HEADER \
	"%-36s %-18s %-10s %-11s %-10s %4s %-12s %-10s %-14s %7s %s\n"

static void
header(void)
{
	printf(TASKS_HEADER, "UUID", "NAME", "USER", "PRIORITY", "STATE", "%",
	    "SCHEDULED_BY", "NODE", "SUBMITTED", "EST", "ENDS");
}

/* When it was submitted, local time: HH:MM:SS today, else MM-DD HH:MM. */
static void
submitted(int64_t ms, char *buf, size_t size)
{
	struct tm	 tm, today;
	time_t		 now = time(NULL), at;

	snprintf(buf, size, "-");
	if (ms < 0)
		return;
	at = (time_t)(ms / 1000);
	if (localtime_r(&at, &tm) == NULL || localtime_r(&now, &today) ==
	    NULL)
		return;
	strftime(buf, size, tm.tm_yday == today.tm_yday && tm.tm_year ==
	    today.tm_year ? "%H:%M:%S" : "%m-%d %H:%M", &tm);
}

/* With a deadline, what the expected end leaves ("": none). */
static void
slack(const struct reply_task *t, char *buf, size_t size)
{
	cmd_slack(t->deadline_ms, t->eta_ms < 0 ? -1 :
	    (int64_t)time(NULL) * 1000 + t->eta_ms, buf, size);
}

static void
row(const char *line, void *arg)
{
	struct reply_task	t;
	char			est[32] = "-", eta[32] = "-", name[96];
	char			when[32], ckpt[sizeof t.ckpt_at + 64] = "";
	char			spare[48];
	int			*count = arg;

	if (wire_reply_task_parse(line, &t) == -1)
		return;
	if (t.est_ms >= 0)
		snprintf(est, sizeof est, "%.1fs", t.est_ms / 1000.0);
	if (t.eta_ms >= 0)
		snprintf(eta, sizeof eta, "in %.1fs", t.eta_ms / 1000.0);
	slack(&t, spare, sizeof spare);
	/* A task of an array shows as name[value]. */
	if (t.array[0] != '\0')
		snprintf(name, sizeof name, "%s[%d]", t.exec, t.array_index);
	else
		snprintf(name, sizeof name, "%s", t.exec);
	submitted(t.submit_ms, when, sizeof when);
	/* Its newest checkpoint: how old, and which nodes keep it. */
	if (t.ckpt_seq > 0)
		snprintf(ckpt, sizeof ckpt, " checkpoint %lld, %.0fs old, on %s",
		    (long long)t.ckpt_seq, t.ckpt_age_ms / 1000.0, t.ckpt_at);
	(*count)++;
	/* A task no live node can run says why, as Slurm's reasons. */
	printf("%-36s %-18s %-10s %-11s %-10s %4d %-12s %-10s %-14s %7s "
	    "%s%s%s%s%s\n", t.uuid, name, t.user[0] != '\0' ? t.user : "-",
	    t.prio, t.state, t.progress, t.scheduled_by,
	    t.running_on[0] != '\0' ? t.running_on : "-", when, est, eta,
	    spare, ckpt, t.why[0] != '\0' ? " " : "", t.why);
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
