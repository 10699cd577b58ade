/*
 * cmd-output.c -- `volery output UUID [--stderr] [-f]`: what a task's
 * run wrote on stdout (or stderr), from whichever node ran it: the node
 * asked fetches it from there.  -f follows the run as it writes, waiting
 * first for it to start, and ends when it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "cmd.h"
#include "conn.h"
#include "lex.h"
#include "wire.h"

/* A fetch from another node may take a while; a quiet run longer. */
#define OUTPUT_REPLY_MS	30000

/* Wait, subscribed, until uuid's task runs somewhere or ends: 0, or 1
 * (said why) if it ended without a run or the node is gone. */
static int
wait_for_run(const char *host, const char *uuid)
{
	struct conn		c;
	struct wire_progress	p;
	char			line[CLIENT_LINE_MAX + 2], err[256];
	int			rc;

	if (cmd_connect(&c, host) == -1)
		return 1;
	snprintf(line, sizeof line, "SUBSCRIBE %s\n", uuid);
	if (conn_send(&c, line, err, sizeof err) == -1) {
		conn_close(&c);
		return cmd_fail("%s", err);
	}
	for (;;) {
		rc = conn_line(&c, line, sizeof line, -1, err, sizeof err);
		if (rc <= 0) {
			conn_close(&c);
			return cmd_fail("%s", err);
		}
		if (strncmp(line, "ERROR", 5) == 0) {
			conn_close(&c);
			return cmd_fail("%s", line[5] == ' ' ? line + 6 : line);
		}
		if (wire_progress_parse(line, &p) == -1 ||
		    strcmp(p.uuid, uuid) != 0)
			continue;
		if (p.node[0] != '\0')
			break;
		if (strcmp(p.state, "Cancelled") == 0 ||
		    strcmp(p.state, "Failed") == 0) {
			conn_close(&c);
			return cmd_fail("task %s ended %s before it ran", uuid,
			    p.state);
		}
	}
	conn_close(&c);
	return 0;
}

/* The reply to OUTPUT after its first line: DATA chunks to stdout,
 * up to "." (0) or an ERROR (1). */
static int
copy_chunks(struct conn *c, int follow)
{
	char	line[CLIENT_LINE_MAX + 2], err[256], *buf = NULL;
	int64_t	n;
	int	rc;

	for (;;) {
		rc = conn_line(c, line, sizeof line, follow ? -1 :
		    OUTPUT_REPLY_MS, err, sizeof err);
		if (rc == 0)
			snprintf(err, sizeof err, "%s: no reply in %d s",
			    c->where, OUTPUT_REPLY_MS / 1000);
		if (rc <= 0)
			break;
		if (strcmp(line, ".") == 0) {
			free(buf);
			return 0;
		}
		if (strncmp(line, "ERROR", 5) == 0) {
			snprintf(err, sizeof err, "%.200s", line[5] == ' ' ?
			    line + 6 : line);
			break;
		}
		if (strncmp(line, "DATA ", 5) != 0 ||
		    lex_int(line + 5, 0, 16 * 1024 * 1024, &n) == -1) {
			snprintf(err, sizeof err, "%s: a reply not understood: "
			    "%.60s", c->where, line);
			break;
		}
		free(buf);
		if ((buf = malloc(n > 0 ? n : 1)) == NULL) {
			snprintf(err, sizeof err, "out of memory");
			break;
		}
		rc = conn_read(c, buf, n, OUTPUT_REPLY_MS, err, sizeof err);
		if (rc <= 0)
			break;
		if (fwrite(buf, 1, n, stdout) != (size_t)n) {
			snprintf(err, sizeof err, "cannot write the output");
			break;
		}
		if (follow)
			fflush(stdout);
	}
	free(buf);
	return cmd_fail("%s", err);
}

static int
cmd_output_exec(const struct cmd_args *a)
{
	const char	*uuid = a->operands[0], *host = cmd_arg(a, 'H');
	int		 follow = cmd_given(a, 'f') > 0, waited = 0, rc = -1;
	char		 req[128], line[CLIENT_LINE_MAX + 2], err[256];
	struct conn	 c;

	if (strlen(uuid) != UUID_STRLEN || !task_uuid_valid(uuid))
		return cmd_fail("%s is not a task uuid", uuid) * 2;
	snprintf(req, sizeof req, "OUTPUT %s%s%s\n", uuid,
	    cmd_given(a, 'e') ? " -e" : "", follow ? " -f" : "");
	for (;;) {
		if (cmd_connect(&c, host) == -1)
			return 1;
		if (conn_send(&c, req, err, sizeof err) == -1 ||
		    (rc = conn_line(&c, line, sizeof line, OUTPUT_REPLY_MS,
		    err, sizeof err)) <= 0) {
			conn_close(&c);
			return cmd_fail("%s", rc == 0 ? "no reply" : err);
		}
		if (strncmp(line, "OUTPUT ", 7) == 0)
			break;
		conn_close(&c);
		/* Not run yet: followed, it is waited for. */
		if (follow && !waited && strstr(line, "has not run yet")) {
			if (wait_for_run(host, uuid) != 0)
				return 1;
			waited = 1;
			continue;
		}
		return cmd_fail("%s", strncmp(line, "ERROR ", 6) == 0 ?
		    line + 6 : line);
	}
	rc = copy_chunks(&c, follow);
	conn_close(&c);
	if (fflush(stdout) == EOF)
		return cmd_fail("cannot write the output");
	return rc;
}

const struct cmd_entry cmd_output_entry = {
	"output", "what a task's run wrote on stdout (or stderr), from the "
	"node that ran it",
	{ { 'e', "stderr", 0, 0, 0, NULL },
	  { 'f', "follow", 0, 0, 0, NULL },
	  CMD_OPT_HOST }, 1, 1, "UUID", 1,
	cmd_output_exec, 0,
};
