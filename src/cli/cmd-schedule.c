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
#include "runreq.h"

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
cmd_schedule_exec(const struct cmd_args *a)
{
	const char	*name = a->operands[0], *prio = cmd_arg(a, 'P');
	const char	*path = cmd_arg(a, 'p'), *params = cmd_arg(a, 'x');
	char		 req[CLIENT_LINE_MAX + 1];
	char		 binds[CLIENT_LINE_MAX + 1] = "", abs[PATH_MAX + 1];
	struct runreq_extra x;
	size_t		 off, boff = 0;
	int		 k;

	if (cmd_needs(a, &x) == -1)
		return 2;
	if (prio == NULL)
		prio = "low";
	if (strcmp(prio, "low") != 0 && strcmp(prio, "interactive") != 0)
		return cmd_usage(&cmd_schedule_entry);
	for (k = 0; k < a->nuse; k++)
		if (a->use[k].flag == 'a' && boff < sizeof binds)
			boff += snprintf(binds + boff, sizeof binds - boff,
			    " -a %s %s", a->use[k].v[0], a->use[k].v[1]);
	off = snprintf(req, sizeof req, "SCHEDULE %s %s%s%s%s%s%s", name, prio,
	    path != NULL ? " -p " : "", path != NULL ? path : "", binds,
	    params != NULL ? " -x " : "", params != NULL ?
	    absolute(params, abs, sizeof abs) : "");
	if (boff >= sizeof binds || off >= sizeof req - 1 ||
	    runreq_extra(req, sizeof req, &off, &x) == -1)
		return 2 * cmd_fail("the request is longer than %d bytes",
		    CLIENT_LINE_MAX);
	return cmd_schedule_print(cmd_arg(a, 'H'), req);
}

const struct cmd_entry cmd_schedule_entry = {
	"schedule", "schedule one task; prints its uuid",
	{ { 'P', "priority", 0, 1, 0, "low|interactive" },
	  { 'p', "path", 0, 1, 0, "PATH" },
	  { 'a', "input", 0, 2, 1, "UUID N" },
	  { 'x', "params", 0, 1, 0, "FILE" },
	  CMD_OPTS_NEEDS,
	  CMD_OPT_HOST }, 1, 1, "NAME", 1,
	cmd_schedule_exec, 0,
};
