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
cmd_watch_exec(const struct cmd_args *a)
{
	struct conn	 c;
	struct watched	*v;
	char		 err[512];
	int		 i, n = a->noperands, rc;

	if ((v = calloc(n, sizeof *v)) == NULL)
		return cmd_fail("out of memory");
	for (i = 0; i < n; i++) {
		if (strlen(a->operands[i]) != UUID_STRLEN) {
			free(v);
			return 2 * cmd_fail("not a uuid: %.40s", a->operands[i]);
		}
		memcpy(v[i].p.uuid, a->operands[i], UUID_STRLEN + 1);
	}
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1) {
		free(v);
		return 1;
	}
	if (watch_names(&c, v, n, err, sizeof err) == -1)
		rc = cmd_fail("%s", err);
	else
		rc = watch_run(&c, v, n, stdout, cmd_given(a, 'j') ? WATCH_JSON :
		    isatty(STDOUT_FILENO) ? WATCH_BARS : WATCH_PLAIN, NULL);
	conn_close(&c);
	free(v);
	return rc;
}

const struct cmd_entry cmd_watch_entry = {
	"watch", "follow tasks to their end: live bars on a terminal, then a "
	"summary; exits 1 if any was Cancelled or Failed; --json: a JSON "
	"object per change",
	{ CMD_OPT_HOST, { 'j', "json", 1, 0, 0, NULL } }, 1, -1, "UUID...", 0,
	cmd_watch_exec, 0,
};
