/*
 * cmd-submit.c -- `volery submit FILE.xml [--watch]`: check a whole
 * workflow against the task descriptions, then schedule its tasks in
 * dependency order (each input bound to its upstream's new uuid) and
 * print "ID UUID" for each.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uuid.h>

#include "cmd.h"
#include "conn.h"
#include "descs.h"
#include "inwalk.h"
#include "log.h"
#include "runreq.h"
#include "task.h"
#include "watch.h"
#include "wfload.h"
#include "wfreq.h"

#ifndef VOLERY_TASKS_DIR
#define VOLERY_TASKS_DIR "/usr/local/lib/volery/tasks"
#endif

/* Where the task descriptions are: -T, $VOLERY_TASKS, ./tasks, or the
 * installed ones. */
static const char *
tasks_dir(const char *given)
{
	struct stat	st;
	const char	*env = getenv("VOLERY_TASKS");

	if (given != NULL)
		return given;
	if (env != NULL && *env != '\0')
		return env;
	if (stat("tasks", &st) == 0 && S_ISDIR(st.st_mode))
		return "tasks";
	return VOLERY_TASKS_DIR;
}

/* A workflow is submitted whole or not at all: cancel those of the
 * first `sent` that were scheduled. */
static void
unschedule(struct conn *c, const int *order, char (*uuids)[UUID_STRLEN + 1],
    int sent)
{
	char	req[64], reply[CLIENT_LINE_MAX], err[256];
	int	i, n = 0;

	for (i = 0; i < sent; i++) {
		if (uuids[order[i]][0] == '\0')
			continue;
		snprintf(req, sizeof req, "CANCEL %s", uuids[order[i]]);
		conn_ask(c, req, reply, sizeof reply, err, sizeof err);
		n++;
	}
	if (n > 0)
		fprintf(stderr, "volery: the %d task%s of the file that %s "
		    "scheduled %s cancelled\n", n, n == 1 ? "" : "s",
		    n == 1 ? "was" : "were", n == 1 ? "was" : "were");
}

/* Requests in flight at once: the node commits those it reads together
 * (one fsync), and its replies stay small. */
#define SUBMIT_WINDOW	64

/* Every task of the file t reads from has its uuid: t can be sent. */
static int
inputs_known(const struct workflow *wf, const struct wf_task *t,
    char (*uuids)[UUID_STRLEN + 1])
{
	int	k, up;

	for (k = 0; k < t->ninputs; k++)
		if ((up = workflow_find(wf, t->inputs[k].task)) >= 0 &&
		    uuids[up][0] == '\0')
			return 0;
	return 1;
}

/* Send task i of the order; -1 (said) if it cannot be. */
static int
send_task(struct conn *c, const struct workflow *wf, const int *order,
    int i, char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1])
{
	const struct wf_task	*t = &wf->tasks[order[i]];
	char			 req[CLIENT_LINE_MAX + 2], err[256];
	int			 n;

	if (wf_request(wf, t, uuids, arrays, req, CLIENT_LINE_MAX + 1) == -1)
		return cmd_fail("%s:%ld: task '%s': the request is longer "
		    "than %d bytes", wf->file, t->line, t->id,
		    CLIENT_LINE_MAX) * -1;
	n = (int)strlen(req);
	req[n] = '\n';
	req[n + 1] = '\0';
	if (conn_send(c, req, err, sizeof err) == -1)
		return cmd_fail("%s", err) * -1;
	return 0;
}

/*
 * SCHEDULE (or RUN) each task, upstream first, SUBMIT_WINDOW at once: a
 * task is sent once the tasks it reads from have their uuids (replies
 * come in order).  uuids[i] gets task i's, arrays[k] the uuid of array
 * k + 1 (one per task of a <foreach>).  If one is refused, those sent
 * after it are waited for, and all that were scheduled cancelled.
 */
static int
schedule_all(struct conn *c, const struct workflow *wf, const int *order,
    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1])
{
	const struct wf_task	*t;
	char			 reply[CLIENT_LINE_MAX];
	char			 err[CLIENT_LINE_MAX + 64];
	int			 sent = 0, got = 0, failed = 0;
	long long		 at, by, last = 0;	/* -1: one unknown */

	while (got < sent || (!failed && sent < wf->ntasks)) {
		while (!failed && sent < wf->ntasks && sent - got <
		    SUBMIT_WINDOW && inputs_known(wf, &wf->tasks[order[sent]],
		    uuids)) {
			if (send_task(c, wf, order, sent, uuids, arrays) == -1)
				failed = 1;
			else
				sent++;
		}
		if (got == sent)
			break;		/* the first could not be sent */
		t = &wf->tasks[order[got++]];
		if (conn_reply(c, reply, sizeof reply, err, sizeof err) == -1) {
			cmd_fail("%s", err);
			failed = 1;
			break;		/* no more replies will come */
		}
		/* "SCHEDULED uuid", with a deadline " forecast=... ". */
		if (strncmp(reply, "SCHEDULED ", 10) == 0 &&
		    strcspn(reply + 10, " ") == UUID_STRLEN) {
			memcpy(uuids[t - wf->tasks], reply + 10, UUID_STRLEN);
			uuids[t - wf->tasks][UUID_STRLEN] = '\0';
			if (!failed)
				printf("%s %s\n", t->id, uuids[t - wf->tasks]);
			/* The workflow ends with its last task. */
			if (cmd_scheduled_forecast(reply + 10, &at, &by))
				last = wf_forecast_last(last, at);
			continue;
		}
		if (!failed) {
			cmd_fail("%s", strncmp(reply, "ERROR ", 6) == 0 ?
			    reply + 6 : reply);
			fprintf(stderr, "volery: %s:%ld: task '%s' was not "
			    "scheduled\n", wf->file, t->line, t->id);
		}
		failed = 1;
	}
	fflush(stdout);
	if (failed)
		unschedule(c, order, uuids, sent);
	else if (wf->deadline_ms > 0)
		cmd_tell_forecast(last, wf->deadline_ms);
	return failed ? -1 : 0;
}


/* Each <command>'s <in> files, hashed where they are (we are the user:
 * we read what the user may): 0, or -1 and "file:line: why". */
static int
hash_inputs(struct workflow *wf, char *err, size_t errlen)
{
	struct wf_task	*t;
	char		 why[512], **items;
	int		 i, dir, n;

	for (i = 0; i < wf->ntasks; i++) {
		t = &wf->tasks[i];
		if (t->nin_paths == 0)
			continue;
		if ((items = calloc(CMD_INS_TEXT_MAX / 68, sizeof *items)) ==
		    NULL)
			snprintf(why, sizeof why, "out of memory");
		else if ((dir = open(t->cmd->in_dir, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			snprintf(why, sizeof why, "%s: %s", t->cmd->in_dir,
			    strerror(errno));
		else {
			n = inwalk_collect(dir, t->in_paths, t->nin_paths,
			    items, CMD_INS_TEXT_MAX / 68, why, sizeof why);
			close(dir);
			if (n >= 0) {
				t->cmd->ins = items;
				t->cmd->nins = n;
				continue;
			}
		}
		free(items);
		snprintf(err, errlen, "%s:%ld: <in>: %s", wf->file, t->line,
		    why);
		return -1;
	}
	return 0;
}

static int
cmd_submit_exec(const struct cmd_args *a)
{
	struct taskdesc_set	 descs = { NULL, 0 };
	struct workflow		 wf;
	struct watched		*v = NULL;
	struct conn		 c;
	const char		*host = cmd_arg(a, 'H'), *dir = cmd_arg(a, 'T');
	const char		*file = a->operands[0];
	const char		*deadline = cmd_arg(a, 'D');
	char			 err[16384], (*uuids)[UUID_STRLEN + 1] = NULL;
	char			(*arrays)[UUID_STRLEN + 1] = NULL;
	char			 title[128];
	int			*order = NULL, watch = cmd_given(a, 'w');
	int			 rc = 1, i, n;

	log_open(NULL, VLOG_WARNING, 1);
	if (access(file, R_OK) == -1)
		return cmd_fail("%s: %s", file, strerror(errno));
	if (wf_load(file, &wf, err, sizeof err) > 0 ||
	    hash_inputs(&wf, err, sizeof err) == -1) {
		fprintf(stderr, "%s\n", err);
		workflow_free(&wf);
		return cmd_fail("%s: not submitted", file);
	}
	/* Over the file's own. */
	if (deadline != NULL && cmd_when("--deadline", deadline,
	    &wf.deadline_ms) == -1) {
		workflow_free(&wf);
		return 1;
	}
	if ((wf.deadline_strict = cmd_given(a, 'X')) && wf.deadline_ms == 0) {
		workflow_free(&wf);
		return cmd_fail("--deadline-strict: with --deadline TIME or "
		    "the file's deadline=");
	}
	dir = tasks_dir(dir);
	for (i = 0; i < wf.ntasks && wf.tasks[i].cmd != NULL; i++)
		;
	/* A workflow of commands alone needs no description. */
	if (i < wf.ntasks && descs_load(dir, &descs) == -1) {
		workflow_free(&wf);
		return cmd_fail("no task descriptions in %s (set -T DIR or "
		    "VOLERY_TASKS)", dir);
	}
	order = calloc(wf.ntasks, sizeof *order);
	uuids = calloc(wf.ntasks, sizeof *uuids);
	arrays = calloc(wf.ntasks, sizeof *arrays);
	if (order == NULL || uuids == NULL || arrays == NULL) {
		rc = cmd_fail("out of memory");
		goto out;
	}
	if ((n = workflow_check(&wf, &descs, order, err, sizeof err)) > 0) {
		fprintf(stderr, "%s\n", err);
		rc = cmd_fail("%s: %d problem%s; nothing was submitted",
		    file, n, n == 1 ? "" : "s");
		goto out;
	}
	if (cmd_connect(&c, host) == -1)
		goto out;
	wf_array_uuids(&wf, arrays);
	if (schedule_all(&c, &wf, order, uuids, arrays) == 0) {
		rc = 0;
		if (watch && (v = calloc(wf.ntasks, sizeof *v)) != NULL) {
			for (i = 0; i < wf.ntasks; i++) {
				const struct wf_task *t = &wf.tasks[i];
				memcpy(v[i].p.uuid, uuids[i], sizeof v[i].p.uuid);
				/* A <foreach>'s copies show as one bar. */
				snprintf(v[i].label, sizeof v[i].label, "%.*s",
				    (int)strcspn(t->id, "["), t->id);
				snprintf(v[i].exec, sizeof v[i].exec, "%s",
				    t->name);
				if (t->array > 0) {
					memcpy(v[i].p.array, arrays[t->array -
					    1], sizeof v[i].p.array);
					v[i].p.array_index = t->array_index;
				}
			}
			snprintf(title, sizeof title, "workflow %.100s",
			    strrchr(file, '/') != NULL ? strrchr(file, '/') + 1 :
			    file);
			rc = watch_run(&c, v, wf.ntasks, stdout,
			    isatty(STDOUT_FILENO) ? WATCH_BARS : WATCH_PLAIN,
			    title);
		} else if (watch)
			rc = cmd_fail("out of memory");
	}
	conn_close(&c);
out:
	free(v);
	free(order);
	free(uuids);
	free(arrays);
	workflow_free(&wf);
	taskdesc_clear(&descs);
	return rc;
}

const struct cmd_entry cmd_submit_entry = {
	"submit", "check a workflow file against the task descriptions, then "
	"schedule its tasks in dependency order; prints ID UUID lines; "
	"--deadline: every task's (over the file's deadline=), and when the "
	"workflow should end; --deadline-strict: nothing scheduled if a task "
	"is expected to miss it",
	{ CMD_OPT_HOST, { 'T', "tasks", 0, 1, 0, "tasks_dir" },
	  { 'D', "deadline", 0, 1, 0, "TIME" },
	  { 'X', "deadline-strict", 1, 0, 0, NULL },
	  { 'w', "watch", 1, 0, 0, NULL } }, 1, 1, "FILE.xml", 0,
	cmd_submit_exec, 0,
};
