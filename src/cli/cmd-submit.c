/*
 * cmd-submit.c -- `volery submit FILE.xml [--watch]`: check a whole
 * workflow against the task descriptions, then schedule its tasks in
 * dependency order (each input bound to its upstream's new uuid) and
 * print "ID UUID" for each.
 */
#include <errno.h>
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

/* A workflow is submitted whole or not at all: cancel the first n. */
static void
unschedule(struct conn *c, const int *order, char (*uuids)[UUID_STRLEN + 1],
    int n)
{
	char	req[64], reply[CLIENT_LINE_MAX], err[256];
	int	i;

	for (i = 0; i < n; i++) {
		snprintf(req, sizeof req, "CANCEL %s", uuids[order[i]]);
		conn_ask(c, req, reply, sizeof reply, err, sizeof err);
	}
	if (n > 0)
		fprintf(stderr, "volery: the %d task%s scheduled before it "
		    "%s cancelled\n", n, n == 1 ? "" : "s",
		    n == 1 ? "was" : "were");
}

/* SCHEDULE (or RUN) each task, upstream first; uuids[i] gets task i's,
 * arrays[k] the uuid of array k + 1 (one per task of a <foreach>). */
static int
schedule_all(struct conn *c, const struct workflow *wf, const int *order,
    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1])
{
	char	req[CLIENT_LINE_MAX + 1], reply[CLIENT_LINE_MAX];
	int	i;

	for (i = 0; i < wf->ntasks; i++) {
		const struct wf_task *t = &wf->tasks[order[i]];
		if (wf_request(wf, t, uuids, arrays, req, sizeof req) == -1)
			return cmd_fail("%s:%ld: task '%s': the request is "
			    "longer than %d bytes", wf->file, t->line, t->id,
			    CLIENT_LINE_MAX) * -1;
		if (cmd_ask(c, req, reply, sizeof reply) == -1) {
			fprintf(stderr, "volery: %s:%ld: task '%s' was not "
			    "scheduled\n", wf->file, t->line, t->id);
			unschedule(c, order, uuids, i);
			return -1;
		}
		if (strncmp(reply, "SCHEDULED ", 10) != 0 ||
		    strlen(reply + 10) != UUID_STRLEN)
			return cmd_fail("unexpected reply: %s", reply) * -1;
		memcpy(uuids[order[i]], reply + 10, UUID_STRLEN + 1);
		printf("%s %s\n", t->id, uuids[order[i]]);
		fflush(stdout);
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
	char			 err[16384], (*uuids)[UUID_STRLEN + 1] = NULL;
	char			(*arrays)[UUID_STRLEN + 1] = NULL;
	char			 title[128];
	int			*order = NULL, watch = cmd_given(a, 'w');
	int			 rc = 1, i, n;

	log_open(NULL, VLOG_WARNING, 1);
	if (access(file, R_OK) == -1)
		return cmd_fail("%s: %s", file, strerror(errno));
	if (wf_load(file, &wf, err, sizeof err) > 0) {
		fprintf(stderr, "%s\n", err);
		workflow_free(&wf);
		return cmd_fail("%s: not submitted", file);
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
	"schedule its tasks in dependency order; prints ID UUID lines",
	{ CMD_OPT_HOST, { 'T', "tasks", 0, 1, 0, "tasks_dir" },
	  { 'w', "watch", 1, 0, 0, NULL } }, 1, 1, "FILE.xml", 0,
	cmd_submit_exec, 0,
};
