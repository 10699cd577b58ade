/*
 * cmd.c -- the one parser of every subcommand's arguments, from its
 * table entry (cmd.h), and the helpers the subcommands share.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "conn.h"
#include "lex.h"
#include "memsize.h"
#include "runlimit.h"
#include "runreq.h"
#include "task.h"
#include "when.h"

static const struct cmd_opt *
find_short(const struct cmd_entry *e, int c)
{
	const struct cmd_opt	*o;

	for (o = e->opts; o < e->opts + CMD_OPTS_MAX && o->flag != 0; o++)
		if (o->flag == c && !o->long_only)
			return o;
	return NULL;
}

static const struct cmd_opt *
find_long(const struct cmd_entry *e, const char *name, size_t len)
{
	const struct cmd_opt	*o;

	for (o = e->opts; o < e->opts + CMD_OPTS_MAX && o->flag != 0; o++)
		if (o->name != NULL && strlen(o->name) == len &&
		    strncmp(o->name, name, len) == 0)
			return o;
	return NULL;
}

/* Record a use of o; its arguments are `attached` (-Hhost, --a=b) and
 * then the next words of argv. */
static int
take(const struct cmd_opt *o, char *attached, char **argv, int argc,
    int *k, struct cmd_args *a, char *err, size_t errlen)
{
	struct cmd_use	*u;
	int		 i;

	if (a->nuse == CMD_USES_MAX) {
		snprintf(err, errlen, "more than %d options", CMD_USES_MAX);
		return -1;
	}
	u = &a->use[a->nuse++];
	u->flag = o->flag;
	u->v[0] = u->v[1] = NULL;
	for (i = 0; i < o->nargs; i++) {
		if (i == 0 && attached != NULL)
			u->v[0] = attached;
		else if (*k + 1 < argc)
			u->v[i] = argv[++*k];
		else {
			snprintf(err, errlen, "%s%s needs %s",
			    o->long_only ? "--" : "-", o->long_only ? o->name :
			    (char[]){ (char)o->flag, '\0' }, o->args);
			return -1;
		}
	}
	if (o->nargs == 0 && attached != NULL) {
		snprintf(err, errlen, "--%s takes no argument", o->name);
		return -1;
	}
	return 0;
}

int
cmd_parse(const struct cmd_entry *e, int argc, char **argv,
    struct cmd_args *a, char *err, size_t errlen)
{
	const struct cmd_opt	*o;
	int			 k, j, only_operands = 0;

	memset(a, 0, sizeof *a);
	/* Operands are moved to the front of argv + 1, in order. */
	a->operands = argv + 1;
	for (k = 1; k < argc; k++) {
		char *w = argv[k];
		if (only_operands || w[0] != '-' || w[1] == '\0') {
			a->operands[a->noperands++] = w;
			only_operands = e->options_before_operands;
			continue;
		}
		if (strcmp(w, "--") == 0) {
			only_operands = 1;
			continue;
		}
		if (w[1] == '-') {
			char *eq = strchr(w + 2, '=');
			size_t len = eq != NULL ? (size_t)(eq - w - 2) :
			    strlen(w + 2);
			if ((o = find_long(e, w + 2, len)) == NULL) {
				snprintf(err, errlen, "unknown option '%.40s'",
				    w);
				return -1;
			}
			if (take(o, eq != NULL ? eq + 1 : NULL, argv, argc, &k,
			    a, err, errlen) == -1)
				return -1;
			continue;
		}
		/* -abc: flags bundled; -Hhost: an attached argument. */
		for (j = 1; w[j] != '\0'; j++) {
			if ((o = find_short(e, w[j])) == NULL) {
				snprintf(err, errlen, "unknown option '-%c'",
				    w[j]);
				return -1;
			}
			if (o->nargs > 0) {
				if (take(o, w[j + 1] != '\0' ? w + j + 1 : NULL,
				    argv, argc, &k, a, err, errlen) == -1)
					return -1;
				break;
			}
			if (take(o, NULL, argv, argc, &k, a, err,
			    errlen) == -1)
				return -1;
		}
	}
	if (a->noperands < e->lower ||
	    (e->upper >= 0 && a->noperands > e->upper)) {
		snprintf(err, errlen, "%s operand%s", a->noperands < e->lower ?
		    "missing" : "too many", a->noperands < e->lower &&
		    e->lower - a->noperands == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

const char *
cmd_arg(const struct cmd_args *a, int flag)
{
	int	k;

	for (k = a->nuse - 1; k >= 0; k--)
		if (a->use[k].flag == flag)
			return a->use[k].v[0];
	return NULL;
}

int
cmd_given(const struct cmd_args *a, int flag)
{
	int	k, n = 0;

	for (k = 0; k < a->nuse; k++)
		n += a->use[k].flag == flag;
	return n;
}

void
cmd_usage_line(const struct cmd_entry *e, char *buf, size_t size)
{
	const struct cmd_opt	*o;
	size_t			 off;

	off = snprintf(buf, size, "%s", e->name);
	if (e->operands_first && e->operands != NULL && off < size)
		off += snprintf(buf + off, size - off, " %s", e->operands);
	for (o = e->opts; o < e->opts + CMD_OPTS_MAX && o->flag != 0 &&
	    off < size; o++) {
		if (o->long_only)
			off += snprintf(buf + off, size - off, " [--%s", o->name);
		else
			off += snprintf(buf + off, size - off, " [-%c", o->flag);
		if (off < size && o->nargs > 0)
			off += snprintf(buf + off, size - off, " %s", o->args);
		if (off < size)
			off += snprintf(buf + off, size - off, "]%s",
			    o->repeat ? "..." : "");
	}
	if (!e->operands_first && e->operands != NULL && off < size)
		snprintf(buf + off, size - off, " %s", e->operands);
}

int
cmd_fail(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "volery: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

int
cmd_usage(const struct cmd_entry *e)
{
	char	line[512];

	cmd_usage_line(e, line, sizeof line);
	fprintf(stderr, "usage: volery %s\n", line);
	return 2;
}

/* What a failure (1) is to exit with instead: see cmd_exit_as(). */
static int	failure_status = CMD_EXIT_FAILED;

void
cmd_exit_as(int status)
{
	if (failure_status == CMD_EXIT_FAILED)
		failure_status = status;
}

int
cmd_exit_status(int rc)
{
	if (rc == CMD_EXIT_FAILED && failure_status == CMD_EXIT_FAILED &&
	    conn_failure() != 0)
		return conn_failure();
	return rc == CMD_EXIT_FAILED ? failure_status : rc;
}

int
cmd_connect(struct conn *c, const char *host)
{
	char	err[512];

	if (conn_open(c, host, err, sizeof err) == -1)
		return cmd_fail("%s", err) * -1;
	return 0;
}

int
cmd_ask(struct conn *c, const char *request, char *reply, size_t size)
{
	char	err[CLIENT_LINE_MAX + 64];

	if (conn_ask(c, request, reply, size, err, sizeof err) == -1)
		return cmd_fail("%s", err) * -1;
	return 0;
}

int
cmd_ask_once(const struct cmd_args *a, const char *request)
{
	struct conn	c;
	char		reply[CLIENT_LINE_MAX];
	int		failed;

	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	failed = cmd_ask(&c, request, reply, sizeof reply) == -1;
	conn_close(&c);
	return failed;
}

int
cmd_ask_each(const struct cmd_args *a, const char *word, const char *more,
    int first, int print)
{
	struct conn	 c;
	char		 req[CLIENT_LINE_MAX], reply[CLIENT_LINE_MAX];
	int		 i, failed = 0;

	/* Every operand a uuid, or nothing is asked. */
	for (i = first; i < a->noperands; i++)
		if (!task_uuid_valid(a->operands[i]))
			return 2 * cmd_fail("not a uuid: %.40s",
			    a->operands[i]);
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	for (i = first; i < a->noperands; i++) {
		snprintf(req, sizeof req, "%s %s%s%s", word, a->operands[i],
		    more != NULL ? " " : "", more != NULL ? more : "");
		if (cmd_ask(&c, req, reply, sizeof reply) == -1)
			failed = 1;
		else if (print)
			printf("%s\n", reply);
	}
	conn_close(&c);
	return failed;
}

int
cmd_ask_lines(struct conn *c, const char *request,
    void (*fn)(const char *, void *), void *arg)
{
	/* Lines as long as a record (ACCOUNT), which fits a datagram. */
	char	line[DATAGRAM_MAX + 64], err[CLIENT_LINE_MAX + 64];
	int	rc, first = 1;

	snprintf(line, sizeof line, "%s\n", request);
	if (conn_send(c, line, err, sizeof err) == -1)
		return cmd_fail("%s", err) * -1;
	for (;;) {
		rc = conn_line(c, line, sizeof line, 10000, err, sizeof err);
		if (rc == 0)
			return cmd_fail("%s: no reply", c->where) * -1;
		if (rc < 0)
			return cmd_fail("%s", err) * -1;
		if (strncmp(line, "PROGRESS ", 9) == 0)
			continue;
		if (first && strncmp(line, "ERROR", 5) == 0)
			return cmd_fail("%s", line[5] == ' ' ? line + 6 :
			    line) * -1;
		first = 0;
		if (strcmp(line, ".") == 0)
			return 0;
		fn(line, arg);
	}
}

/* ms since the epoch as local HH:MM, or its date too if not today. */
static void
cmd_clock(long long ms, char *buf, size_t size)
{
	time_t		s = (time_t)(ms / 1000), now = time(NULL);
	struct tm	tm, today;

	localtime_r(&now, &today);
	if (localtime_r(&s, &tm) == NULL)
		snprintf(buf, size, "?");
	else
		strftime(buf, size, tm.tm_yday == today.tm_yday && tm.tm_year ==
		    today.tm_year ? "%H:%M" : "%Y-%m-%d %H:%M", &tm);
}

int
cmd_scheduled_forecast(const char *rest, long long *at, long long *by)
{
	const char	*sp = strchr(rest, ' ');

	return sp != NULL && sscanf(sp, " forecast=%lld deadline=%lld", at,
	    by) == 2;
}

/* A span for people: 45s, 12m, 3.5h. */
static void
span(int64_t ms, char *buf, size_t size)
{
	if (ms < 120000)
		snprintf(buf, size, "%llds", (long long)(ms / 1000));
	else if (ms < 2 * 3600000)
		snprintf(buf, size, "%lldm", (long long)(ms / 60000));
	else
		snprintf(buf, size, "%.1fh", ms / 3600000.0);
}

void
cmd_slack(int64_t deadline_ms, int64_t ends_ms, char *buf, size_t size)
{
	int64_t	left = deadline_ms - ends_ms;
	char	s[32];

	buf[0] = '\0';
	if (deadline_ms <= 0 || ends_ms < 0)
		return;
	span(left >= 0 ? left : -left, s, sizeof s);
	snprintf(buf, size, ", %s %s", s, left >= 0 ? "to spare" : "late");
}

void
cmd_tell_forecast(long long at, long long by)
{
	char	when[32], dl[32];

	fflush(stdout);
	cmd_clock(by, dl, sizeof dl);
	cmd_clock(at, when, sizeof when);
	if (at < 0)
		fprintf(stderr, "volery: no forecast for the deadline %s: no run "
		    "of this program ended yet, or no node takes tasks now\n",
		    dl);
	else if (at <= by)
		fprintf(stderr, "volery: expected to end %s (deadline %s)\n",
		    when, dl);
	else
		fprintf(stderr, "volery: cannot meet %s: expected to end %s; "
		    "scheduled all the same, after the work that can still "
		    "meet its deadline\n", dl, when);
}

/* A SCHEDULED reply's uuid on stdout; with a deadline, what the node
 * forecast on stderr. */
static void
print_scheduled(const char *rest, int tell)
{
	long long	at, by;

	printf("%.*s\n", (int)strcspn(rest, " "), rest);
	if (tell && cmd_scheduled_forecast(rest, &at, &by))
		cmd_tell_forecast(at, by);
}

int
cmd_schedule_print(const char *host, const char *request)
{
	struct conn	c;
	char		reply[CLIENT_LINE_MAX];
	int		rc;

	if (cmd_connect(&c, host) == -1)
		return 1;
	rc = cmd_ask(&c, request, reply, sizeof reply);
	conn_close(&c);
	if (rc == -1)
		return 1;
	if (strncmp(reply, "SCHEDULED ", 10) != 0)
		return cmd_fail("unexpected reply: %s", reply);
	print_scheduled(reply + 10, 1);
	return 0;
}

/* Requests in flight at once in cmd_schedule_all(): the node commits
 * them together (one fsync), and its replies stay small. */
#define SCHEDULE_WINDOW 64

int
cmd_schedule_all(const char *host, char *const *requests, int n)
{
	struct conn	c;
	char		line[CLIENT_LINE_MAX + 2], err[CLIENT_LINE_MAX + 64];
	int		sent = 0, got = 0, rc;

	if (cmd_connect(&c, host) == -1)
		return 1;
	while (got < n) {
		for (; sent < n && sent - got < SCHEDULE_WINDOW; sent++) {
			snprintf(line, sizeof line, "%s\n", requests[sent]);
			if (conn_send(&c, line, err, sizeof err) == -1)
				goto fail;
		}
		rc = conn_line(&c, line, sizeof line, 10000, err, sizeof err);
		if (rc == 0)
			snprintf(err, sizeof err, "%s: no reply", c.where);
		if (rc <= 0)
			goto fail;
		if (strncmp(line, "SCHEDULED ", 10) != 0) {
			snprintf(err, sizeof err, "%s", strncmp(line, "ERROR ",
			    6) == 0 ? line + 6 : line);
			goto fail;
		}
		got++;
		print_scheduled(line + 10, got == n);	/* an array's last */
	}
	conn_close(&c);
	return 0;
fail:
	conn_close(&c);
	fflush(stdout);
	return cmd_fail("%s (%d of %d scheduled)", err, got, n);
}

int
cmd_when(const char *opt, const char *text, int64_t *ms)
{
	time_t	at;

	if (when_parse_begin(text, time(NULL), &at) == -1)
		return cmd_fail("%s %s: %s", opt, text, WHEN_BEGIN_FORMS) * -1;
	*ms = (int64_t)at * 1000;
	return 0;
}

int
cmd_needs(const struct cmd_args *a, struct runreq_extra *x)
{
	const char	*cores = cmd_arg(a, 'c'), *mem = cmd_arg(a, 'm');
	const char	*begin = cmd_arg(a, 'b'), *vfy = cmd_arg(a, 'V');
	const char	*deadline = cmd_arg(a, 'D'), *est = cmd_arg(a, 'T');
	static char	 tags[CAPS_TEXT_MAX + 1];
	char		 why[128];
	const char	*req = cmd_arg(a, 'r');
	int64_t		 v;
	size_t		 i, k;

	memset(x, 0, sizeof *x);
	if (cores != NULL) {
		if (lex_int(cores, 1, CORES_MAX, &v) == -1)
			return cmd_fail("--cores %s: 1 to %d", cores,
			    CORES_MAX) * -1;
		x->cores = (int)v;
	}
	if (mem != NULL && memsize_parse(mem, &x->memory_mb) == -1)
		return cmd_fail("--mem %s: an amount as 512M, 4G or 4096 (MB)",
		    mem) * -1;
	if ((begin != NULL && cmd_when("--begin", begin, &x->begin_ms) ==
	    -1) || (deadline != NULL && cmd_when("--deadline", deadline,
	    &x->deadline_ms) == -1))
		return -1;
	if ((x->deadline_strict = cmd_given(a, 'X')) && deadline == NULL)
		return cmd_fail("--deadline-strict: with --deadline TIME") * -1;
	if (est != NULL) {
		if (runlimit_parse(est, &v, why, sizeof why) == -1)
			return cmd_fail("--estimate %s: %s", est, why) * -1;
		x->est_ms = v * 1000;
	}
	if (vfy != NULL) {
		if (lex_int(vfy, VERIFY_MIN, VERIFY_MAX, &v) == -1)
			return cmd_fail("--verify %s: how many nodes must "
			    "agree, %d to %d", vfy, VERIFY_MIN,
			    VERIFY_MAX) * -1;
		x->verify = (int)v;
	}
	if (req == NULL)
		return 0;
	/* "gpu,matlab", "gpu && matlab", "gpu matlab": all of them. */
	for (i = k = 0; req[i] != '\0' && k + 1 < sizeof tags; i++) {
		char ch = strchr(" \t&,", req[i]) != NULL ? ',' : req[i];
		if (ch != ',' || (k > 0 && tags[k - 1] != ','))
			tags[k++] = ch;
	}
	while (k > 0 && tags[k - 1] == ',')
		k--;
	tags[k] = '\0';
	if (req[i] != '\0' || !task_names_valid(tags, CAPS_NAMES_MAX))
		return cmd_fail("--requires %s: tags (letters, digits, '_', "
		    "'-', '.'), all of them needed: gpu,matlab", req) * -1;
	x->tags = tags;
	return 0;
}

int
cmd_print_api(const char *host, const char *uri)
{
	struct conn	 c;
	char		 line[CLIENT_LINE_MAX + 2], err[CLIENT_LINE_MAX + 64];
	char		*body = NULL;
	json_t		*v = NULL, *why;
	json_error_t	 jerr;
	size_t		 len;
	int		 code, rc = 1;

	if (cmd_connect(&c, host) == -1)
		return 1;
	snprintf(line, sizeof line, "API %s\n", uri);
	if (conn_send(&c, line, err, sizeof err) == -1 ||
	    conn_line(&c, line, sizeof line, 10000, err, sizeof err) != 1) {
		cmd_fail("%s", err);
		goto done;
	}
	if (strncmp(line, "ERROR", 5) == 0) {
		cmd_fail("%s", line[5] == ' ' ? line + 6 : line);
		goto done;
	}
	if (sscanf(line, "JSON %d %zu", &code, &len) != 2 || len == 0 ||
	    len > (size_t)64 << 20 || (body = malloc(len)) == NULL ||
	    conn_read(&c, body, len, 10000, err, sizeof err) != 1) {
		cmd_fail("%s: not an answer: %.80s", c.where, line);
		goto done;
	}
	if ((v = json_loadb(body, len, 0, &jerr)) == NULL) {
		cmd_fail("%s: bad JSON: %s", c.where, jerr.text);
		goto done;
	}
	if (code != 200) {
		why = json_object_get(v, "error");
		cmd_fail("%s", json_is_string(why) ? json_string_value(why) :
		    "error");
		rc = code == 400 ? 2 : 1;
		goto done;
	}
	json_dumpf(v, stdout, JSON_INDENT(2));
	putchar('\n');
	rc = 0;
done:
	json_decref(v);
	free(body);
	conn_close(&c);
	return rc;
}
