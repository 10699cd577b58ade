/*
 * client.c -- parse one client request line (DESIGN.md section 3).
 *
 * The line is copied into req->buf and split there, so the request's
 * strings stay valid as long as req does.  Nothing is allocated.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lex.h"
#include "wire.h"

#define MAX_TOKENS (CLIENT_LINE_MAX / 2 + 1)

struct tokens {
	char	*v[MAX_TOKENS];
	int	 n;
};

/*
 * The client protocol, one line per request (DESIGN.md 3): the parser
 * checks the word and arity here, and HELP is this table printed.
 */
static const struct client_command {
	const char	*word;
	enum client_cmd	 cmd;
	int		 min, max;	/* arguments after the word */
	int		 own_arity;	/* its parser checks (options) */
	const char	*usage;
} commands[] = {
	{ "SCHEDULE", CMD_SCHEDULE, 2, MAX_TOKENS, 1,
	  "SCHEDULE <exec_name> <low|interactive> [-p <path>] "
	  "[-a <uuid> <nth_output>]... [-x <params_file>]" },
	{ "SUBSCRIBE", CMD_SUBSCRIBE, 1, SUBSCRIBE_MAX, 0,
	  "SUBSCRIBE <uuid> [<uuid>...]" },
	{ "CANCEL", CMD_CANCEL, 1, 1, 0, "CANCEL <uuid>" },
	{ "TASKS", CMD_TASKS, 0, 1, 0, "TASKS [<state>]" },
	{ "HISTORY", CMD_HISTORY, 0, 1, 0, "HISTORY [<state>]" },
	{ "NODES", CMD_NODES, 0, 0, 0, "NODES" },
	{ "LOG", CMD_LOG, 0, 12, 1, "LOG [-g <regex>] [-l <level>] "
	  "[-t <uuid>] [-s <since>] [-u <until>] [-n <lines>]" },
	{ "IDLE", CMD_IDLE, 1, 1, 0, "IDLE <on|off|auto>" },
	{ "HELP", CMD_HELP, 0, 0, 0, "HELP" },
	{ "QUIT", CMD_QUIT, 0, 0, 0, "QUIT" },
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const char *
usage_of(enum client_cmd cmd)
{
	size_t	i;

	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].cmd == cmd)
			return commands[i].usage;
	return "";
}

int
wire_client_help(char *buf, size_t size)
{
	size_t	i, off;
	int	n;

	n = snprintf(buf, size, "HELP volery client protocol; one request "
	    "per line:\n");
	for (i = 0, off = n; i < NCOMMANDS && n >= 0 && off < size; i++) {
		n = snprintf(buf + off, size - off, "HELP %s\n",
		    commands[i].usage);
		off += n;
	}
	if (n < 0 || off + 2 >= size)
		return -1;
	return (int)(off + snprintf(buf + off, size - off, ".\n"));
}

static void
split(char *s, struct tokens *tk)
{
	char	*w;

	tk->n = 0;
	while (tk->n < MAX_TOKENS &&
	    (w = lex_word_nonempty(&s, LEX_BLANKS)) != NULL)
		tk->v[tk->n++] = w;
}

/*
 * "<what> '<tok>'<tail>", or "<what><tail>" when tok is too long or not
 * printable: an error never echoes garbage back.
 */
static void
complain(char *err, size_t errlen, const char *what, const char *tok,
    const char *tail)
{
	if (lex_printable(tok) && strlen(tok) <= 64)
		snprintf(err, errlen, "%s '%s'%s", what, tok, tail);
	else
		snprintf(err, errlen, "%s%s", what, tail);
}

/* Copy a uuid argument, lower-cased, or explain why it is not one. */
static int
take_uuid(const char *s, char *dst, char *err, size_t errlen)
{
	int	i;

	if (strlen(s) != UUID_STRLEN || !task_uuid_valid(s)) {
		complain(err, errlen, "malformed uuid", s, "");
		return -1;
	}
	for (i = 0; i <= UUID_STRLEN; i++)
		dst[i] = tolower((unsigned char)s[i]);
	return 0;
}

/* A -p or -x argument: printable, bounded.  It is argv, not shell. */
static int
take_path(const char *opt, const char *s, const char **dst, char *err,
    size_t errlen)
{
	if (*dst != NULL) {
		snprintf(err, errlen, "%s given twice", opt);
		return -1;
	}
	if (strlen(s) > PATH_MAXLEN || !lex_printable(s)) {
		snprintf(err, errlen, "bad %s argument", opt);
		return -1;
	}
	*dst = s;
	return 0;
}

static int
parse_schedule(struct tokens *tk, struct client_req *req, char *err,
    size_t errlen)
{
	int	i;
	int64_t	nth;

	if (tk->n < 3) {
		snprintf(err, errlen, "usage: %s", usage_of(CMD_SCHEDULE));
		return -1;
	}
	req->exec = tk->v[1];
	if (strchr(req->exec, '/') != NULL || strstr(req->exec, "..") ||
	    !task_name_valid(req->exec)) {
		complain(err, errlen, "bad executable name", req->exec,
		    ": letters, digits, '_', '-', '.' only, no '/' or '..'");
		return -1;
	}
	if (task_prio_parse(tk->v[2], &req->prio) == -1) {
		snprintf(err, errlen, "bad priority: low, interactive, 1 or 2");
		return -1;
	}
	for (i = 3; i < tk->n; i++) {
		const char *opt = tk->v[i];
		if (strcmp(opt, "-p") == 0 || strcmp(opt, "-x") == 0) {
			if (i + 1 >= tk->n) {
				snprintf(err, errlen, "%s needs an argument",
				    opt);
				return -1;
			}
			if (take_path(opt, tk->v[++i], opt[1] == 'p' ?
			    &req->path : &req->params, err, errlen) == -1)
				return -1;
		} else if (strcmp(opt, "-a") == 0) {
			struct task_binding *b;
			if (i + 2 >= tk->n) {
				snprintf(err, errlen, "-a needs <uuid> "
				    "<nth_output>");
				return -1;
			}
			if (req->nbind == TASK_INPUTS_MAX) {
				snprintf(err, errlen, "more than %d inputs",
				    TASK_INPUTS_MAX);
				return -1;
			}
			b = &req->bind[req->nbind];
			if (take_uuid(tk->v[i + 1], b->uuid, err, errlen) == -1)
				return -1;
			if (lex_int(tk->v[i + 2], 1, TASK_OUTPUTS_MAX,
			    &nth) == -1) {
				snprintf(err, errlen, "-a %s: output number "
				    "must be 1 to %d", b->uuid,
				    TASK_OUTPUTS_MAX);
				return -1;
			}
			b->nth = nth;
			req->nbind++;
			i += 2;
		} else {
			complain(err, errlen, "unknown option", opt, "");
			return -1;
		}
	}
	return 0;
}

static int
parse_log(struct tokens *tk, struct client_req *req, char *err,
    size_t errlen)
{
	int	i;
	int64_t	v;

	req->nlines = 100;
	for (i = 1; i < tk->n; i++) {
		const char *opt = tk->v[i];
		const char *arg = i + 1 < tk->n ? tk->v[i + 1] : NULL;
		if (arg == NULL || strlen(opt) != 2 || opt[0] != '-') {
			snprintf(err, errlen, "usage: %s", usage_of(CMD_LOG));
			return -1;
		}
		switch (opt[1]) {
		case 'g':
			req->regex = arg;
			break;
		case 'l':
			if (log_level_parse(arg, &req->level) == -1) {
				snprintf(err, errlen, "bad level: debug, info, "
				    "normal, warning or error");
				return -1;
			}
			req->has_level = 1;
			break;
		case 't':
			if (take_uuid(arg, req->uuid[0], err, errlen) == -1)
				return -1;
			req->nuuid = 1;
			break;
		case 'n':
			/* A reply must fit what a client may leave unread. */
			if (lex_int(arg, 1, 10000, &v) == -1) {
				snprintf(err, errlen, "-n: 1 to 10000 lines");
				return -1;
			}
			req->nlines = v;
			break;
		case 's':
			req->since = arg;
			break;
		case 'u':
			req->until = arg;
			break;
		default:
			snprintf(err, errlen, "usage: %s", usage_of(CMD_LOG));
			return -1;
		}
		i++;
	}
	return 0;
}

int
wire_client_parse(const char *line, size_t len, struct client_req *req,
    char *err, size_t errlen)
{
	struct tokens	tk;
	size_t		i;
	int		k;

	memset(req, 0, offsetof(struct client_req, buf));
	if (len > CLIENT_LINE_MAX) {
		snprintf(err, errlen, "line too long");
		return -1;
	}
	if (memchr(line, '\0', len) != NULL) {
		snprintf(err, errlen, "request contains a NUL byte");
		return -1;
	}
	memcpy(req->buf, line, len);
	req->buf[len] = '\0';
	split(req->buf, &tk);
	if (tk.n == 0) {
		snprintf(err, errlen, "empty request (try HELP)");
		return -1;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (strcasecmp(tk.v[0], commands[i].word) == 0)
			break;
	if (i == NCOMMANDS) {
		complain(err, errlen, "unknown command", tk.v[0],
		    " (try HELP)");
		return -1;
	}
	req->cmd = commands[i].cmd;
	if (!commands[i].own_arity && (tk.n - 1 < commands[i].min ||
	    tk.n - 1 > commands[i].max)) {
		snprintf(err, errlen, "usage: %s", commands[i].usage);
		return -1;
	}
	switch (req->cmd) {
	case CMD_SCHEDULE:
		return parse_schedule(&tk, req, err, errlen);
	case CMD_SUBSCRIBE:
	case CMD_CANCEL:
		for (k = 1; k < tk.n; k++)
			if (take_uuid(tk.v[k], req->uuid[k - 1], err,
			    errlen) == -1)
				return -1;
		req->nuuid = tk.n - 1;
		return 0;
	case CMD_TASKS:
	case CMD_HISTORY:
		if (tk.n == 2) {
			/* Suspended is a kind of Running (DESIGN.md 2). */
			if (strcasecmp(tk.v[1], "Suspended") == 0) {
				req->state = TASK_RUNNING;
				req->suspended_only = 1;
			} else if (task_state_parse(tk.v[1], &req->state) ==
			    -1) {
				snprintf(err, errlen, "unknown state: "
				    "Submitted, Ready, Running, Suspended, "
				    "Terminated, Cancelled or Failed");
				return -1;
			}
			req->has_state = 1;
		}
		return 0;
	case CMD_IDLE:
		if (strcasecmp(tk.v[1], "on") == 0)
			req->idle = VOL_FORCE_ON;
		else if (strcasecmp(tk.v[1], "off") == 0)
			req->idle = VOL_FORCE_OFF;
		else if (strcasecmp(tk.v[1], "auto") == 0)
			req->idle = VOL_AUTO;
		else {
			snprintf(err, errlen, "usage: IDLE <on|off|auto>");
			return -1;
		}
		return 0;
	case CMD_LOG:
		return parse_log(&tk, req, err, errlen);
	default:
		return 0;
	}
}
