/*
 * cmd-nodes.c -- `volery nodes`: the nodes a node knows, as a table;
 * --clear: an admin ends that node's quarantine (retry.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"
#include "reply.h"
#include "task.h"

/* Its batch window ahead as local times: "19:00-07:30", "now-07:30"
 * once open, "-" if it told none. */
static void
window(const struct reply_node *n, char *buf, size_t size)
{
	char	from[8] = "now", to[8];
	time_t	secs;

	if (n->window_to_ms == 0) {
		snprintf(buf, size, "-");
		return;
	}
	if (n->window_from_ms > (int64_t)time(NULL) * 1000) {
		secs = (time_t)(n->window_from_ms / 1000);
		strftime(from, sizeof from, "%H:%M", localtime(&secs));
	}
	secs = (time_t)(n->window_to_ms / 1000);
	strftime(to, sizeof to, "%H:%M", localtime(&secs));
	snprintf(buf, size, "%s-%s", from, to);
}

static void
row(const char *line, void *arg)
{
	struct reply_node	n;
	struct reply_rejected	r;
	char			from[ADDR_MAXLEN + 1], cores[16] = "?";
	char			mem[32] = "?", free[32], why[REASON_MAXLEN + 1];
	char			until[32], win[24];
	int64_t			until_ms;
	time_t			secs;
	int			*count = arg;

	/* CLASH address: another node has this one's name. */
	if (wire_reply_clash_parse(line, from, sizeof from) == 0) {
		printf("name clash: the node at %s has this node's name too; "
		    "this node takes no tasks until one of them is renamed "
		    "(<name> in its configuration)\n", from);
		return;
	}
	/* QUARANTINED until why...: this node takes no tasks. */
	if (wire_reply_quarantined_parse(line, &until_ms, why,
	    sizeof why) == 0) {
		secs = (time_t)(until_ms / 1000);
		strftime(until, sizeof until, "%Y-%m-%d %H:%M:%S",
		    localtime(&secs));
		printf("quarantined: %s; this node takes no tasks until %s, "
		    "or until an admin runs volery nodes --clear NAME\n",
		    why, until);
		return;
	}
	/* REJECTED count last-source why... (after the NODE lines) */
	if (wire_reply_rejected_parse(line, &r) == 0) {
		printf("rejected datagrams: %llu %s (the last from %s)\n",
		    (unsigned long long)r.count, r.why, r.last_from);
		/* What to do about it, where that is clear. */
		if (strstr(r.why, "unknown key") != NULL)
			printf("  another node uses this cluster's name with "
			    "another key: give every node one key (volery "
			    "keygen FILE, then <keyring><key>FILE</key>"
			    "</keyring> in each config), or another "
			    "<cluster> name; on one host, the nodes one user "
			    "starts share that user's key by themselves\n");
		return;
	}
	if (wire_reply_node_parse(line, &n) == -1)
		return;
	if ((*count)++ == 0)
		printf("%-16s %-21s %-6s %-10s %-6s %-10s %5s %7s %-18s %-11s "
		    "%s\n", "NODE", "ADDRESS", "ROLE", "STATE", "FREE",
		    "REPUTATION", "CORES", "MEMORY", "CONTAINMENT", "WINDOW",
		    "TAGS");
	if (n.cores > 0) {
		snprintf(cores, sizeof cores, "%d", n.cores);
		snprintf(mem, sizeof mem, "%.1fG", n.memory_mb / 1024.0);
	}
	snprintf(free, sizeof free, "%d/%d", n.free, n.slots);
	window(&n, win, sizeof win);
	printf("%-16s %-21s %-6s %-10s %-6s %-10d %5s %7s %-18s %-11s %s\n",
	    n.name, n.address, n.role, n.state, free, n.reputation, cores,
	    mem, n.contain[0] != '\0' ? n.contain : "?", win,
	    n.cores == 0 ? "?" : n.tags[0] != '\0' ? n.tags : "-");
}

static int
cmd_nodes_exec(const struct cmd_args *a)
{
	struct conn	 c;
	char		 req[CLIENT_LINE_MAX], reply[CLIENT_LINE_MAX];
	const char	*clear = cmd_arg(a, 'c');
	int		 rc, count = 0;

	if (clear != NULL) {
		if (!task_name_valid(clear))
			return 2 * cmd_fail("not a node name: %.64s", clear);
		if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
			return 1;
		snprintf(req, sizeof req, "CLEAR %s", clear);
		rc = cmd_ask(&c, req, reply, sizeof reply);
		conn_close(&c);
		if (rc == 0)
			printf("%s takes tasks again\n", clear);
		return rc == 0 ? 0 : 1;
	}
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
	"slots; --json: every field, as the API's /api/nodes; --clear NODE: "
	"an admin lets a quarantined node take tasks again (asked of that "
	"node)",
	{ CMD_OPT_HOST, { 'j', "json", 1, 0, 0, NULL },
	  { 'c', "clear", 0, 1, 0, "NODE" } }, 0, 0, NULL, 0,
	cmd_nodes_exec, 0,
};
