/*
 * cmd-history.c -- `volery history`: the finished tasks, live and
 * retired, with what each run cost, as sacct lists jobs: filtered by
 * time window, state, node and user; the columns --format names, or
 * every field as JSON (jansson).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "conn.h"
#include "task.h"
#include "taskjson.h"
#include "when.h"
#include "reply.h"
#include "wire.h"

#define HISTORY_COLS_MAX 24

/* The tasks the node sent, in its order. */
struct rows {
	struct task	**v;
	size_t		  n, cap;
	int		  bad;		/* records that did not decode */
};

static void
take_record(const char *line, void *arg)
{
	struct rows	*r = arg;
	struct task	*t, **v;
	char		 err[128];

	if (strncmp(line, "RECORD ", 7) != 0)
		return;
	if ((t = wire_reply_record_parse(line, err, sizeof err)) == NULL) {
		r->bad++;
		return;
	}
	if (r->n == r->cap) {
		size_t cap = r->cap == 0 ? 64 : r->cap * 2;
		if ((v = realloc(r->v, cap * sizeof *v)) == NULL) {
			task_free(t);
			r->bad++;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = t;
}

/* A local time as sacct writes it, or "-". */
static void
stamp(char *buf, size_t size, int64_t ms)
{
	time_t		s = (time_t)(ms / 1000);
	struct tm	tm;

	if (ms < 0 || localtime_r(&s, &tm) == NULL ||
	    strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(buf, size, "-");
}

/* A duration as [D-][HH:]MM:SS.mmm (sacct's TotalCPU), or "-": tasks
 * on a LAN often take less than a second. */
static void
duration(char *buf, size_t size, int64_t ms)
{
	long long	s = ms / 1000;

	if (ms < 0)
		snprintf(buf, size, "-");
	else if (s >= 86400)
		snprintf(buf, size, "%lld-%02lld:%02lld:%02lld", s / 86400,
		    s % 86400 / 3600, s % 3600 / 60, s % 60);
	else if (s >= 3600)
		snprintf(buf, size, "%lld:%02lld:%02lld.%03lld", s / 3600,
		    s % 3600 / 60, s % 60, (long long)ms % 1000);
	else
		snprintf(buf, size, "%02lld:%02lld.%03lld", s / 60, s % 60,
		    (long long)ms % 1000);
}

static int64_t
span(int64_t from, int64_t to)
{
	return from >= 0 && to >= from ? to - from : -1;
}

static int64_t
wait_ms(const struct task *t)
{
	return span(t->ready_ms, t->start_ms);
}

static int64_t
elapsed_ms(const struct task *t)
{
	return span(t->start_ms, t->end_ms);
}

static void
col_uuid(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%s", t->uuid);
}

static void
col_name(const struct task *t, char *b, size_t n)
{
	if (t->array[0] != '\0')
		snprintf(b, n, "%s[%d]", t->exec, t->array_index);
	else
		snprintf(b, n, "%s", t->exec);
}

static void
col_state(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%s", task_state_name(t->state));
}

static void
col_user(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%s", t->user[0] != '\0' ? t->user : "-");
}

static void
col_node(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%s", t->running_on[0] != '\0' ? t->running_on : "-");
}

static void
col_scheduler(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%s", t->scheduled_by);
}

static void
col_wait(const struct task *t, char *b, size_t n)
{
	duration(b, n, wait_ms(t));
}

static void
col_elapsed(const struct task *t, char *b, size_t n)
{
	duration(b, n, elapsed_ms(t));
}

static void
col_attempts(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%d", t->attempts);
}

/* sacct's ExitCode: "code:signal". */
static void
exit_text(int status, char *b, size_t n)
{
	if (status < 0)
		snprintf(b, n, "-");
	else if (status >= 256)
		snprintf(b, n, "0:%d", status - 256);
	else
		snprintf(b, n, "%d:0", status);
}

static void
col_exit(const struct task *t, char *b, size_t n)
{
	exit_text(t->exit_status, b, n);
}

/* Each attempt's node and exit, oldest first: the failed ones the
 * record keeps (the latest few), then the run that ended it. */
static void
col_tries(const struct task *t, char *b, size_t n)
{
	const char	*p = t->tries;
	char		 node[NAME_MAXLEN + 1], code[32];
	size_t		 off = 0;
	int		 status;

	b[0] = '\0';
	while (off < n && task_tries_next(&p, node, &status) == 0) {
		exit_text(status, code, sizeof code);
		off += snprintf(b + off, n - off, "%s%s=%s", off > 0 ? "," :
		    "", node, code);
	}
	/* A failed end is the last of the list already. */
	if (t->running_on[0] != '\0' && t->state != TASK_FAILED && off < n) {
		exit_text(t->exit_status, code, sizeof code);
		off += snprintf(b + off, n - off, "%s%s=%s", off > 0 ? "," :
		    "", t->running_on, code);
	}
	if (off == 0)
		snprintf(b, n, "-");
}

static void
col_cpu(const struct task *t, char *b, size_t n)
{
	duration(b, n, t->cpu_ms);
}

static void
col_maxrss(const struct task *t, char *b, size_t n)
{
	if (t->maxrss_kib < 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%lldK", (long long)t->maxrss_kib);
}

static void
col_workflow(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%s", task_workflow(t));
}

static void
col_deadline(const struct task *t, char *b, size_t n)
{
	stamp(b, n, t->deadline_ms > 0 ? t->deadline_ms : -1);
}

/* A result's deadline: met or missed, by how much ("-": none). */
static void
col_slack(const struct task *t, char *b, size_t n)
{
	char	d[64];

	if (t->deadline_ms <= 0 || t->state != TASK_TERMINATED ||
	    t->end_ms < 0) {
		snprintf(b, n, "-");
		return;
	}
	duration(d, sizeof d, t->end_ms > t->deadline_ms ? t->end_ms -
	    t->deadline_ms : t->deadline_ms - t->end_ms);
	snprintf(b, n, "%s by %s", t->end_ms > t->deadline_ms ? "missed" :
	    "met", d);
}

static void
col_reason(const struct task *t, char *b, size_t n)
{
	snprintf(b, n, "%s", t->reason[0] != '\0' ? t->reason : "-");
}

/* What a command ran, its words joined by blanks. */
static void
col_command(const struct task *t, char *b, size_t n)
{
	size_t	off = 0;
	int	i;

	snprintf(b, n, "-");
	for (i = 0; t->cmd != NULL && i < t->cmd->argc && off < n; i++)
		off += snprintf(b + off, n - off, "%s%s", i > 0 ? " " : "",
		    t->cmd->argv[i]);
}

static const struct column {
	const char	*name;		/* --format's word (any case) */
	const char	*alias;		/* sacct's, or NULL */
	const char	*header;
	int		 right;		/* a number: aligned right */
	void		(*text)(const struct task *, char *, size_t);
	size_t		 when;		/* no text(): the time at this
					 * offset of struct task */
} columns[] = {
	{ "uuid", "jobid", "UUID", 0, col_uuid, 0 },
	{ "name", "jobname", "NAME", 0, col_name, 0 },
	{ "state", NULL, "STATE", 0, col_state, 0 },
	{ "user", NULL, "USER", 0, col_user, 0 },
	{ "node", "nodelist", "NODE", 0, col_node, 0 },
	{ "scheduler", NULL, "SCHEDULER", 0, col_scheduler, 0 },
	{ "submit", NULL, "SUBMIT", 0, NULL, offsetof(struct task, submit_ms) },
	{ "ready", "eligible", "READY", 0, NULL,
	  offsetof(struct task, ready_ms) },
	{ "start", NULL, "START", 0, NULL, offsetof(struct task, start_ms) },
	{ "end", NULL, "END", 0, NULL, offsetof(struct task, end_ms) },
	{ "wait", NULL, "WAIT", 1, col_wait, 0 },
	{ "elapsed", NULL, "ELAPSED", 1, col_elapsed, 0 },
	{ "attempts", NULL, "ATTEMPTS", 1, col_attempts, 0 },
	{ "tries", NULL, "TRIES", 0, col_tries, 0 },
	{ "exit", "exitcode", "EXIT", 1, col_exit, 0 },
	{ "cpu", "totalcpu", "CPU", 1, col_cpu, 0 },
	{ "maxrss", NULL, "MAXRSS", 1, col_maxrss, 0 },
	{ "workflow", NULL, "WORKFLOW", 0, col_workflow, 0 },
	{ "reason", NULL, "REASON", 0, col_reason, 0 },
	{ "deadline", NULL, "DEADLINE", 0, col_deadline, 0 },
	{ "slack", NULL, "SLACK", 0, col_slack, 0 },
	{ "command", NULL, "COMMAND", 0, col_command, 0 },
};
#define NCOLUMNS (sizeof columns / sizeof columns[0])
#define DEFAULT_FORMAT "uuid,name,user,state,exit,node,end,elapsed,cpu,maxrss"

/* --format's list into its columns; -1 (said why) for an unknown one. */
static int
pick_columns(const char *format, const struct column **pick, int *npick)
{
	char	*list, *p, *word;
	size_t	 k;

	if ((list = strdup(format)) == NULL)
		return cmd_fail("out of memory") * -1;
	*npick = 0;
	for (p = list; (word = strsep(&p, ",")) != NULL;) {
		if (*word == '\0')
			continue;
		for (k = 0; k < NCOLUMNS; k++)
			if (strcasecmp(word, columns[k].name) == 0 ||
			    (columns[k].alias != NULL &&
			    strcasecmp(word, columns[k].alias) == 0))
				break;
		if (k == NCOLUMNS || *npick == HISTORY_COLS_MAX) {
			cmd_fail("--format: %s '%s' (fields: uuid, name, "
			    "state, user, node, scheduler, submit, ready, "
			    "start, end, wait, elapsed, attempts, tries, exit, "
			    "cpu, maxrss, workflow, reason, command, deadline, "
			    "slack)", k ==
			    NCOLUMNS ? "no field" : "too many fields", word);
			free(list);
			return -1;
		}
		pick[(*npick)++] = &columns[k];
	}
	free(list);
	if (*npick == 0)
		return cmd_fail("--format: no field") * -1;
	return 0;
}

/* Column c of task t, into b. */
static void
cell(const struct column *c, const struct task *t, char *b, size_t n)
{
	if (c->text != NULL)
		c->text(t, b, n);
	else
		stamp(b, n, *(const int64_t *)(const void *)((const char *)t +
		    c->when));
}

/* With the slack column: how many results met their deadline. */
static void
print_deadlines(const struct rows *r)
{
	size_t	i, met = 0, missed = 0;

	for (i = 0; i < r->n; i++) {
		const struct task *t = r->v[i];
		if (t->deadline_ms <= 0 || t->state != TASK_TERMINATED ||
		    t->end_ms < 0)
			continue;
		if (t->end_ms > t->deadline_ms)
			missed++;
		else
			met++;
	}
	printf("deadlines: %zu met, %zu missed\n", met, missed);
}

static void
print_table(const struct rows *r, const struct column **pick, int npick)
{
	char	text[1024];
	size_t	width[HISTORY_COLS_MAX], i, len;
	int	k;

	for (k = 0; k < npick; k++)
		width[k] = strlen(pick[k]->header);
	for (i = 0; i < r->n; i++)
		for (k = 0; k < npick; k++) {
			cell(pick[k], r->v[i], text, sizeof text);
			if ((len = strlen(text)) > width[k])
				width[k] = len;
		}
	for (k = 0; k < npick; k++)
		printf(pick[k]->right ? "%s%*s" : "%s%-*s", k > 0 ? " " : "",
		    k == npick - 1 && !pick[k]->right ? 0 : (int)width[k],
		    pick[k]->header);
	putchar('\n');
	for (i = 0; i < r->n; i++) {
		for (k = 0; k < npick; k++) {
			cell(pick[k], r->v[i], text, sizeof text);
			printf(pick[k]->right ? "%s%*s" : "%s%-*s", k > 0 ?
			    " " : "", k == npick - 1 && !pick[k]->right ? 0 :
			    (int)width[k], text);
		}
		putchar('\n');
	}
	for (k = 0; k < npick && pick[k]->text != col_slack; k++)
		;
	if (k < npick)
		print_deadlines(r);
}

static int
print_json(const struct rows *r)
{
	json_t	*all = json_array();
	size_t	 i;
	int	 rc;

	if (all == NULL)
		return -1;
	for (i = 0; i < r->n; i++)
		json_array_append_new(all, task_json(r->v[i]));
	rc = json_dumpf(all, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(all);
	return rc;
}

/* " -s <ms>" for a --since/--until, or -1 (said why). */
static int
time_option(char *req, size_t size, const char *opt, const char *text,
    int end, const char *name)
{
	time_t	t;
	size_t	off = strlen(req);

	if (text == NULL)
		return 0;
	if (when_parse(text, time(NULL), end, &t) == -1) {
		cmd_fail("%s: '%s' is not a time: " WHEN_FORMS, name, text);
		return -1;
	}
	if (t < 0)
		t = 0;
	snprintf(req + off, size - off, " %s %lld", opt,
	    (long long)t * 1000 + (end ? 999 : 0));
	return 0;
}

static int
cmd_history_exec(const struct cmd_args *a)
{
	const struct column	*pick[HISTORY_COLS_MAX];
	const char		*format = cmd_arg(a, 'o');
	const char		*state = cmd_arg(a, 's');
	const char		*node = cmd_arg(a, 'N');
	const char		*user = cmd_arg(a, 'u');
	struct rows		 r = { NULL, 0, 0, 0 };
	struct conn		 c;
	char			 req[512] = "ACCOUNT";
	size_t			 i;
	int			 npick, rc;

	if (pick_columns(format != NULL ? format : DEFAULT_FORMAT, pick,
	    &npick) == -1)
		return 2;
	if (time_option(req, sizeof req, "-s", cmd_arg(a, 'S'), 0,
	    "--since") == -1 || time_option(req, sizeof req, "-u",
	    cmd_arg(a, 'E'), 1, "--until") == -1)
		return 2;
	if ((state != NULL && strlen(state) > 64) || (node != NULL &&
	    !task_token_valid(node, NAME_MAXLEN)) || (user != NULL &&
	    !task_token_valid(user, NAME_MAXLEN)))
		return cmd_usage(&cmd_history_entry);
	if (state != NULL)
		snprintf(req + strlen(req), sizeof req - strlen(req),
		    " -S %s", state);
	if (node != NULL)
		snprintf(req + strlen(req), sizeof req - strlen(req),
		    " -n %s", node);
	if (user != NULL)
		snprintf(req + strlen(req), sizeof req - strlen(req),
		    " -U %s", user);
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	rc = cmd_ask_lines(&c, req, take_record, &r);
	conn_close(&c);
	if (rc == 0) {
		if (r.bad > 0)
			fprintf(stderr, "volery: %d record%s the node sent "
			    "did not read; left out\n", r.bad, r.bad == 1 ?
			    "" : "s");
		if (cmd_given(a, 'j'))
			rc = print_json(&r);
		else
			print_table(&r, pick, npick);
	}
	for (i = 0; i < r.n; i++)
		task_free(r.v[i]);
	free(r.v);
	return rc == 0 ? 0 : 1;
}

const struct cmd_entry cmd_history_entry = {
	"history", "the finished tasks, with their times, runner, exit "
	"status, CPU time and peak memory (sacct): those ended since "
	"--since, submitted by --until, in --state (Terminated, Cancelled, "
	"Failed, a comma list), run on --node, asked by --user; the "
	"--format fields (" DEFAULT_FORMAT "; also scheduler, submit, "
	"ready, start, wait, attempts, tries (each attempt's node=exit), "
	"workflow, reason, command, deadline, slack: met or missed by how "
	"much, and a count of both), or "
	"--json",
	{ CMD_OPT_HOST, { 'S', "since", 0, 1, 0, "TIME" },
	  { 'E', "until", 0, 1, 0, "TIME" },
	  { 's', "state", 0, 1, 0, "STATE[,STATE]..." },
	  { 'N', "node", 0, 1, 0, "NODE" }, { 'u', "user", 0, 1, 0, "USER" },
	  { 'o', "format", 0, 1, 0, "FIELD[,FIELD]..." },
	  { 'j', "json", 1, 0, 0, NULL } }, 0, 0, NULL, 0,
	cmd_history_exec, 0,
};
