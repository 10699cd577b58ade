/*
 * cmd-nodes.c -- `volery nodes`: the nodes a node knows, as a table.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"

static void
row(const char *line, void *arg)
{
	char		 f[8][80], tags[1024];
	const char	*caps;
	long long	 mem;
	int		*count = arg, why = 0, cores;

	/* CLASH address: another node has this one's name. */
	if (strncmp(line, "CLASH ", 6) == 0) {
		printf("name clash: the node at %s has this node's name too; "
		    "this node takes no tasks until one of them is renamed "
		    "(<name> in its configuration)\n", line + 6);
		return;
	}
	/* REJECTED count last-source why... (after the NODE lines) */
	if (strncmp(line, "REJECTED ", 9) == 0 &&
	    sscanf(line, "REJECTED %79s %79s %n", f[0], f[1], &why) == 2) {
		printf("rejected datagrams: %s %s (the last from %s)\n", f[0],
		    line + why, f[1]);
		return;
	}
	/* NODE name address master|peer state free/slots reputation
	 * [cores=N memory=MB tags=LIST] */
	if (sscanf(line, "NODE %79s %79s %79s %79s %79s %79s", f[0], f[1],
	    f[2], f[3], f[4], f[5]) != 6)
		return;
	if ((caps = strstr(line, " cores=")) == NULL ||
	    sscanf(caps, " cores=%d memory=%lld tags=%1023s", &cores, &mem,
	    tags) != 3) {
		cores = 0;
		mem = 0;
		snprintf(tags, sizeof tags, "?");
	}
	if ((*count)++ == 0)
		printf("%-16s %-21s %-6s %-10s %-6s %-10s %5s %7s %s\n", "NODE",
		    "ADDRESS", "ROLE", "STATE", "FREE", "REPUTATION", "CORES",
		    "MEMORY", "TAGS");
	snprintf(f[6], sizeof f[6], "?");
	snprintf(f[7], sizeof f[7], "?");
	if (cores > 0) {
		snprintf(f[6], sizeof f[6], "%d", cores);
		snprintf(f[7], sizeof f[7], "%.1fG", mem / 1024.0);
	}
	printf("%-16s %-21s %-6s %-10s %-6s %-10s %5s %7s %s\n", f[0], f[1],
	    f[2], f[3], f[4], f[5], f[6], f[7], tags);
}

static int
cmd_nodes_exec(const struct cmd_args *a)
{
	struct conn	 c;
	int		 rc, count = 0;

	if (cmd_given(a, 'j'))
		return cmd_print_api(cmd_arg(a, 'H'), "/api/nodes");
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	rc = cmd_ask_lines(&c, "NODES", row, &count);
	conn_close(&c);
	return rc == -1 ? 1 : 0;
}

const struct cmd_entry cmd_nodes_entry = {
	"nodes", "list the nodes of the cluster: role, volunteer state, free "
	"slots; --json: every field, as the API's /api/nodes",
	{ CMD_OPT_HOST, { 'j', "json", 1, 0, 0, NULL } }, 0, 0, NULL, 0,
	cmd_nodes_exec, 0,
};
