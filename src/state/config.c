/*
 * config.c -- read the XML configuration with libxml2.  Every element is
 * optional; an unknown element, a bad value or an XML syntax error is
 * reported as "file:line: <element>: what is wrong", all of them, and the
 * node refuses to start.
 */
#include <ctype.h>
#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "lex.h"
#include "config.h"
#include "confrepeat.h"
#include "errlist.h"
#include "node.h"
#include "task.h"
#include "userlimit.h"
#include "xmltext.h"
#include "zeropages.h"

enum kind {
	K_NAME,		/* a node or cluster name */
	K_INT,
	K_ADDR,		/* host:port */
	K_HOST,		/* an IPv4 address */
	K_PATH,		/* relative to the config file's directory */
	K_MODE,
	K_LEVEL,
	K_COMMAND,	/* a shell command line */
	K_USER,		/* a user name */
	K_ORDER,	/* the ready queue's order */
	K_PLACEMENT,	/* informed or blind */
	K_TAGS,		/* names, separated by blanks or commas */
	K_LIMITS,	/* user:N, separated by blanks or commas */
	K_RETURN,	/* stop | throttle PERCENT | nice */
};

static const struct element {
	const char	*name;
	enum kind	 kind;
	size_t		 off;
	size_t		 size;		/* strings */
	int		 min, max;	/* numbers */
} elements[] = {
#define S(f, k) #f, k, offsetof(struct config, f), sizeof(((struct config *)0)->f)
#define N(f, lo, hi) #f, K_INT, offsetof(struct config, f), 0, lo, hi
	{ S(name, K_NAME), 0, 0 },
	{ S(cluster, K_NAME), 0, 0 },
	{ N(reputation, 0, 1000000) },
	{ S(listen, K_ADDR), 0, 0 },
	{ S(http, K_ADDR), 0, 0 },
	{ N(peer_port, 1, 65535) },
	{ S(broadcast, K_HOST), 0, 0 },
	{ S(tasks_dir, K_PATH), 0, 0 },
	{ S(state_dir, K_PATH), 0, 0 },
	{ S(log_file, K_PATH), 0, 0 },
	{ "log_level", K_LEVEL, offsetof(struct config, log_level), 0, 0, 0 },
	{ N(slots, 1, 256) },
	{ N(cores, 1, CORES_MAX) },
	{ N(memory_mb, 1, INT32_MAX) },
	{ S(tags, K_TAGS), 0, 0 },
	{ "mode", K_MODE, offsetof(struct config, mode), 0, 0, 0 },
	{ "order", K_ORDER, offsetof(struct config, order), 0, 0, 0 },
	{ "placement", K_PLACEMENT, offsetof(struct config, placement),
	  0, 0, 0 },
	{ N(replicate_tail, 0, TAIL_COPIES_MAX) },
	{ N(max_peers, 16, 65536) },
	{ S(socket, K_PATH), 0, 0 },
	{ S(operator_key, K_PATH), 0, 0 },
	{ S(admin_key, K_PATH), 0, 0 },
	{ S(commands, K_USER), 0, 0 },
	{ N(max_clients, 1, 65536) },
	{ N(max_clients_per_user, 1, 65536) },
	{ N(client_idle_s, 0, 86400 * 7) },
	{ N(max_output_mb, 0, 1048576) },
	{ N(max_run_procs, 0, 4194304) },
	{ N(run_memory_mb, 0, INT32_MAX) },
	{ N(max_scratch_mb, 0, INT32_MAX) },
	{ N(peer_evict_s, 60, 31536000) },
	{ N(max_clock_skew_s, 0, 86400) },
	{ N(dequeue_window_ms, 1, 600000) },
	{ N(election_window_ms, 1, 600000) },
	{ N(progress_interval_ms, 10, 600000) },
	{ N(failure_timeout_ms, 50, 3600000) },
	{ N(node_timeout_ms, 50, 3600000) },
	{ N(quiet_heartbeat_ms, 0, 3600000) },
	{ N(membership_timeout_s, 1, 604800) },
	{ N(retention_s, 0, 315360000) },
	{ N(idle_check_s, 1, 3600) },
	{ N(input_idle_s, 0, 86400) },
	{ N(cpu_idle_percent, 0, 100) },
	{ N(suspend_input_s, 0, 86400) },
	{ N(resume_idle_s, 0, 86400) },
	{ N(vacate_after_s, 0, 86400) },
	{ "on_user_return", K_RETURN, offsetof(struct config, on_return), 0,
	  0, 0 },
	{ S(idle_command, K_COMMAND), 0, 0 },
	{ S(run_as, K_USER), 0, 0 },
	{ N(min_uid, 0, INT32_MAX) },
	{ N(max_running_per_user, 0, 1000000) },
	{ S(max_running_of, K_LIMITS), 0, 0 },
	{ N(fairshare_halflife_s, 1, 31536000) },
	{ S(admins, K_USER), 0, 0 },
	{ N(cancel_grace_ms, 0, 600000) },
	{ N(max_attempts, 1, 1000) },
	{ N(retry_delay_s, 0, 3600) },
	{ N(quarantine_after, 0, 1000) },
	{ N(quarantine_window_s, 1, 604800) },
	{ N(quarantine_s, 1, 604800) },
	{ N(checkpoint_copies, 0, CKPT_HOLDERS_MAX - 1) },
	{ N(max_checkpoint_mb, 0, 1048576) },
	{ N(cache_mb, 0, 16777216) },
	{ N(max_transfer_mb, 0, 1048576) },
	{ S(criu, K_COMMAND), 0, 0 },
	{ N(ageing_s, 0, 31536000) },
	{ N(wake_after_s, 0, 86400) },
	{ N(sleep_when_idle_min, 0, 10080) },
	{ S(sleep_command, K_COMMAND), 0, 0 },
#undef S
#undef N
};

void
config_default(struct config *c)
{
	struct node_config	nd;

	zero_pages(c, sizeof *c);
	if (gethostname(c->name, sizeof c->name - 1) == -1 ||
	    !task_name_valid(c->name))
		snprintf(c->name, sizeof c->name, "node");
	c->name[strcspn(c->name, ".")] = '\0';
	snprintf(c->cluster, sizeof c->cluster, "volery");
	snprintf(c->listen, sizeof c->listen, "127.0.0.1:7600");
	c->peer_port = 7601;
	snprintf(c->broadcast, sizeof c->broadcast, "127.255.255.255");
	snprintf(c->tasks_dir, sizeof c->tasks_dir, "tasks");
	snprintf(c->state_dir, sizeof c->state_dir, "state");
	snprintf(c->log_file, sizeof c->log_file, "volery.log");
	c->log_level = VLOG_INFO;
	c->mode = VOL_SCREENSAVER;
	/* The scheduling knobs default as the core does. */
	node_config_default(&nd);
	c->reputation = nd.reputation;
	c->slots = nd.slots;
	c->dequeue_window_ms = nd.dequeue_window_ms;
	c->election_window_ms = nd.election_window_ms;
	c->progress_interval_ms = nd.progress_interval_ms;
	c->failure_timeout_ms = nd.failure_timeout_ms;
	c->node_timeout_ms = nd.node_timeout_ms;
	c->quiet_heartbeat_ms = (int)nd.quiet_heartbeat_ms;
	c->membership_timeout_s = (int)(nd.membership_timeout_ms / 1000);
	c->retention_s = (int)(nd.retention_ms / 1000);
	c->max_attempts = nd.max_attempts;
	c->retry_delay_s = (int)(nd.retry_delay_ms / 1000);
	c->quarantine_after = nd.quarantine_after;
	c->quarantine_window_s = (int)(nd.quarantine_window_ms / 1000);
	c->quarantine_s = (int)(nd.quarantine_ms / 1000);
	c->checkpoint_copies = nd.checkpoint_copies;
	c->max_checkpoint_mb = (int)(nd.max_checkpoint_bytes >> 20);
	c->ageing_s = (int)(nd.ageing_ms / 1000);
	c->cache_mb = 4096;
	c->max_transfer_mb = 4096;
	c->idle_check_s = 5;
	c->input_idle_s = 900;
	c->cpu_idle_percent = 10;
	c->suspend_input_s = 60;
	c->resume_idle_s = 180;
	c->vacate_after_s = 600;
	c->cancel_grace_ms = 2000;
	snprintf(c->sleep_command, sizeof c->sleep_command,
	    "systemctl suspend");
	c->max_peers = nd.max_peers;
	c->max_clients = 256;
	c->max_clients_per_user = 64;
	c->client_idle_s = 600;
	c->max_output_mb = 64;
	c->max_run_procs = 2048;
	c->max_scratch_mb = 10240;
	c->min_uid = 1000;
	c->fairshare_halflife_s = (int)(nd.fairshare_halflife_ms / 1000);
	c->peer_evict_s = (int)(nd.peer_evict_ms / 1000);
	c->max_clock_skew_s = 30;	/* the core's 0 is for tests */
	snprintf(c->commands, sizeof c->commands, "all");
}

static int
parse_int(const char *s, int *out)
{
	int64_t	v;

	if (lex_int(s, INT_MIN, INT_MAX, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

static int
valid_ipv4(const char *s)
{
	unsigned	a, b, c, d;
	char		tail;

	return sscanf(s, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4 &&
	    a < 256 && b < 256 && c < 256 && d < 256;
}

/* host:port where host is an IPv4 address or '*'. */
static int
valid_listen(const char *s)
{
	char		 host[ADDR_MAXLEN + 1];
	struct in6_addr	 a6;
	int		 port;

	/* "ADDRESS:PORT": an IPv4 address, [an IPv6 one], or * (all). */
	if (lex_hostport(s, host, sizeof host, &port) == -1 || port < 0)
		return 0;
	return strcmp(host, "*") == 0 || (s[0] == '[' ?
	    inet_pton(AF_INET6, host, &a6) == 1 : valid_ipv4(host));
}

/* Resolve a relative path against the config file's directory. */
static int
resolve_path(const char *file, const char *value, char *dst, size_t size)
{
	char	copy[PATH_MAX];
	int	n;

	if (value[0] == '/' || file[0] == '\0')
		n = snprintf(dst, size, "%s", value);
	else {
		snprintf(copy, sizeof copy, "%s", file);
		n = snprintf(dst, size, "%s/%s", dirname(copy), value);
	}
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* <keyring><key>PATH</key>...</keyring>: the first key seals. */
static void
load_keyring(struct config *c, xmlNode *node, struct errlist *e)
{
	xmlNode	*k;
	char	*value;

	for (k = node->children; k != NULL; k = k->next) {
		if (k->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)k->name, "key") != 0) {
			config_error(e, k->line, (const char *)k->name,
			    "unknown element in <keyring> (only <key>)");
			continue;
		}
		if ((value = xml_text(k)) == NULL)
			continue;
		if (c->nkeys == KEYRING_MAX)
			config_error(e, k->line, "key", "more than %d keys",
			    KEYRING_MAX);
		else if (value[0] == '\0' || resolve_path(c->file, value,
		    c->keys[c->nkeys], sizeof c->keys[0]) == -1)
			config_error(e, k->line, "key", "bad path '%s' (the "
			    "file `volery keygen` wrote)", value);
		else
			c->nkeys++;
		free(value);
	}
	if (c->nkeys == 0)
		config_error(e, node->line, "keyring", "no <key> in it");
}

static void
load_element(struct config *c, xmlNode *node, struct errlist *e)
{
	const struct element	*el = NULL;
	const char		*name = (const char *)node->name;
	char			*value, *field;
	size_t			 i;
	int			 v;

	if (strcmp(name, "batch") == 0) {
		config_load_batch(c->batch, &c->nbatch, node, e);
		return;
	}
	if (strcmp(name, "keyring") == 0) {
		load_keyring(c, node, e);
		return;
	}
	if (strcmp(name, "relay") == 0) {
		config_load_relay(c->relays, &c->nrelays, node, e);
		return;
	}
	if (strcmp(name, "insecure") == 0) {
		c->insecure = 1;
		return;
	}
	if (strcmp(name, "first_startup") == 0)
		return;	/* thesis Listing 4.2; kept in the state dir now */
	for (i = 0; i < sizeof elements / sizeof elements[0]; i++)
		if (strcmp(elements[i].name, name) == 0)
			el = &elements[i];
	if (el == NULL) {
		config_error(e, node->line, name, "unknown element");
		return;
	}
	if ((value = xml_text(node)) == NULL) {
		config_error(e, node->line, name, "out of memory");
		return;
	}
	field = (char *)c + el->off;
	switch (el->kind) {
	case K_NAME:
		if (!task_name_valid(value))
			config_error(e, node->line, name, "'%s' is not a name "
			    "(letters, digits, '_', '-', '.')", value);
		else
			snprintf(field, el->size, "%s", value);
		break;
	case K_INT:
		if (parse_int(value, &v) == -1 || v < el->min || v > el->max)
			config_error(e, node->line, name, "expected a whole "
			    "number from %d to %d, got '%s'", el->min, el->max,
			    value);
		else
			*(int *)field = v;
		break;
	case K_ADDR:
		if (!valid_listen(value))
			config_error(e, node->line, name, "expected "
			    "ADDRESS:PORT (IPv4, [IPv6] or '*'), got '%s'",
			    value);
		else
			snprintf(field, el->size, "%s", value);
		break;
	case K_HOST:
		if (!valid_ipv4(value))
			config_error(e, node->line, name, "expected an IPv4 "
			    "address, got '%s'", value);
		else
			snprintf(field, el->size, "%s", value);
		break;
	case K_PATH:
		if (value[0] == '\0' ||
		    resolve_path(c->file, value, field, el->size) == -1)
			config_error(e, node->line, name, "bad path '%s'", value);
		break;
	case K_MODE:
		if (strcmp(value, "screensaver") == 0)
			c->mode = VOL_SCREENSAVER;
		else if (strcmp(value, "dedicated") == 0)
			c->mode = VOL_DEDICATED;
		else
			config_error(e, node->line, name, "expected screensaver "
			    "or dedicated, got '%s'", value);
		break;
	case K_TAGS:
		for (i = 0; value[i] != '\0'; i++)
			if (strchr(" \t\r\n", value[i]) != NULL)
				value[i] = ',';
		for (i = 0; value[i] != '\0';)	/* no empty names */
			if (value[i] == ',' && (i == 0 || value[i + 1] == ',' ||
			    value[i + 1] == '\0'))
				memmove(value + i, value + i + 1,
				    strlen(value + i));
			else
				i++;
		if (!task_names_valid(value, CAPS_NAMES_MAX - 2))
			config_error(e, node->line, name, "expected names "
			    "(letters, digits, '_', '-', '.'), at most %d",
			    CAPS_NAMES_MAX - 2);
		else
			snprintf(field, el->size, "%s", value);
		break;
	case K_RETURN:
		if (vol_return_parse(value, &c->on_return,
		    &c->throttle_percent) == -1)
			config_error(e, node->line, name, "expected stop, "
			    "throttle PERCENT (1 to 100) or nice, got '%s'",
			    value);
		break;
	case K_LIMITS:
		if (userlimit_parse(value, field, el->size) == -1)
			config_error(e, node->line, name, "expected user:N pairs "
			    "(a user name, a count from 0 to 1000000), "
			    "separated by blanks or commas, at most %zu bytes",
			    el->size - 1);
		break;
	case K_COMMAND:
		if (strlen(value) >= el->size || strpbrk(value, "\r\n") !=
		    NULL)
			config_error(e, node->line, name, "expected one command "
			    "line of at most %zu bytes", el->size - 1);
		else
			snprintf(field, el->size, "%s", value);
		break;
	case K_USER:
		if (!runas_name_valid(value))
			config_error(e, node->line, name, "'%s' is not a user "
			    "name (a-z, 0-9, '_', '.', '-'; at most %d)", value,
			    RUNAS_NAME_MAX);
		else
			snprintf(field, el->size, "%s", value);
		break;
	case K_ORDER:
		if (readyq_order_parse(value, &c->order) == -1)
			config_error(e, node->line, name, "expected "
			    ORDER_NAMES ", got '%s'", value);
		break;
	case K_PLACEMENT:
		if (placement_mode_parse(value, &c->placement) == -1)
			config_error(e, node->line, name, "expected informed, "
			    "blind or fit, got '%s'", value);
		break;
	case K_LEVEL:
		if (log_level_parse(value, &c->log_level) == -1)
			config_error(e, node->line, name, "expected debug, info, "
			    "normal, warning or error, got '%s'", value);
		break;
	}
	free(value);
}

static void
silent(void *ctx, const char *msg, ...)
{
}

int
config_load(struct config *c, const char *path, char *err, size_t errlen)
{
	struct errlist	 e;
	xmlDoc		*doc;
	xmlNode		*root, *node;
	const xmlError	*xe;
	char		 dir[PATH_MAX];

	errlist_init(&e, path, err, errlen);
	snprintf(c->file, sizeof c->file, "%s", path);
	/* Paths in the defaults become relative to the file too. */
	snprintf(dir, sizeof dir, "%s", c->tasks_dir);
	resolve_path(path, dir, c->tasks_dir, sizeof c->tasks_dir);
	snprintf(dir, sizeof dir, "%s", c->state_dir);
	resolve_path(path, dir, c->state_dir, sizeof c->state_dir);
	snprintf(dir, sizeof dir, "%s", c->log_file);
	resolve_path(path, dir, c->log_file, sizeof c->log_file);

	xmlSetGenericErrorFunc(NULL, silent);
	doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
	if (doc == NULL) {
		xe = xmlGetLastError();
		if (access(path, R_OK) == -1)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		else
			snprintf(err, errlen, "%s:%d: %s", path,
			    xe != NULL ? xe->line : 0, xe != NULL &&
			    xe->message != NULL ? xe->message :
			    "not well-formed XML\n");
		err[strcspn(err, "\n")] = '\0';
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if (root == NULL || strcmp((const char *)root->name, "server") != 0)
		config_error(&e, root != NULL ? root->line : 1, root != NULL ?
		    (const char *)root->name : "?", "the root element must "
		    "be <server>");
	else {
		for (node = root->children; node != NULL; node = node->next)
			if (node->type == XML_ELEMENT_NODE)
				load_element(c, node, &e);
		if ((int64_t)c->membership_timeout_s * 1000 <
		    c->node_timeout_ms)
			config_error(&e, root->line, "membership_timeout_s",
			    "must be at least node_timeout_ms (%d ms)",
			    c->node_timeout_ms);
		/* A task confirmed by a majority may be overturned only by a
		 * partition longer than the membership timeout: keep it at
		 * least that long. */
		if (c->retention_s > 0 && c->retention_s < c->membership_timeout_s)
			config_error(&e, root->line, "retention_s", "must be 0 "
			    "(keep forever) or at least membership_timeout_s "
			    "(%d s)", c->membership_timeout_s);
		if (c->peer_evict_s < c->membership_timeout_s)
			config_error(&e, root->line, "peer_evict_s", "must be at "
			    "least membership_timeout_s (%d s)",
			    c->membership_timeout_s);
		if (c->insecure && c->nkeys > 0)
			config_error(&e, root->line, "insecure", "and <keyring> "
			    "together: choose one");
		if (c->insecure && c->nrelays > 0)
			config_error(&e, root->line, "relay", "needs a cluster "
			    "key (<keyring>): relayed frames are told apart "
			    "by their sealed headers");
	}
	xmlFreeDoc(doc);
	return e.count > 0 ? -1 : 0;
}
