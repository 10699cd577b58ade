/*
 * request.c -- parse one client request line (DESIGN.md section 3).
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
	int		 own_arity;	/* its parser checks the most (its
					 * options) */
	const char	*usage;
} commands[] = {
	{ "SCHEDULE", CMD_SCHEDULE, 2, MAX_TOKENS, 1,
	  "SCHEDULE <exec_name> <low|interactive> [-p <path>] "
	  "[-a <uuid> <nth_output>]... [-x <params_file>] "
	  "[-A <array_uuid> <index> <max_running>] [-c <cores>] "
	  "[-m <memory_mb>] [-g <tag>[,<tag>]...] [-b <begin_ms>] "
	  "[-D|-H <deadline_ms>] [-V <nodes>] [-T <estimate_ms>]" },
	{ "SUBSCRIBE", CMD_SUBSCRIBE, 1, SUBSCRIBE_MAX, 0,
	  "SUBSCRIBE <uuid> [<uuid>...]" },
	{ "CANCEL", CMD_CANCEL, 1, 1, 0, "CANCEL <uuid>" },
	{ "HOLD", CMD_HOLD, 1, 1, 0, "HOLD <uuid>" },
	{ "RELEASE", CMD_RELEASE, 1, 1, 0, "RELEASE <uuid>" },
	{ "PRIO", CMD_PRIO, 2, 2, 0, "PRIO <uuid> <low|interactive>" },
	{ "TASKS", CMD_TASKS, 0, 1, 0, "TASKS [<state>]" },
	{ "HISTORY", CMD_HISTORY, 0, 1, 0, "HISTORY [<state>]" },
	{ "NODES", CMD_NODES, 0, 0, 0, "NODES" },
	{ "LOG", CMD_LOG, 0, 12, 1, "LOG [-g <regex>] [-l <level>] "
	  "[-t <uuid>] [-s <since>] [-u <until>] [-n <lines>]" },
	{ "IDLE", CMD_IDLE, 1, 1, 0, "IDLE <on|off|auto>" },
	{ "SLEEP", CMD_SLEEP, 1, 1, 0, "SLEEP <now|over>" },
	{ "RUN", CMD_RUN, 2, MAX_TOKENS, 1,
	  "RUN <name> <low|interactive> [-d <dir>] [-o <file>] [-e <file>] "
	  "[-E <NAME=value>]... [-S <NAME=value>]... [-t <seconds>] "
	  "[-a <uuid> <nth_output>]... "
	  "[-O <file:PATH|line:REGEX>]... [-I <dir> -i <bytes:hash:path>...] "
	  "[-k <checkpoint_file> "
	  "[-K <signal>]] [-A <array_uuid> <index> "
	  "<max_running>] [-c <cores>] [-m <memory_mb>] [-g <tag>[,<tag>]...] "
	  "[-b <begin_ms>] [-D|-H <deadline_ms>] [-V <nodes>] "
	  "[-T <estimate_ms>] "
	  "-- <word>... (every value %XX-escaped)" },
	{ "OUTPUT", CMD_OUTPUT, 1, 6, 1,
	  "OUTPUT <uuid> [-e] [-f] [-c <offset>]" },
	{ "ACCOUNT", CMD_ACCOUNT, 0, 10, 1,
	  "ACCOUNT [-s <since_ms>] [-u <until_ms>] "
	  "[-S <state>[,<state>]...] [-n <node>] [-U <user>]" },
	{ "API", CMD_API, 1, 1, 0, "API </api/...?query>" },
	{ "PEERKEY", CMD_PEERKEY, 1, 1, 0, "PEERKEY <node>" },
	{ "REVOKE", CMD_REVOKE, 4, 4, 0,
	  "REVOKE <node> <public_key> <stamp_ms> <signature>" },
	{ "CLEAR", CMD_CLEAR, 1, 1, 0, "CLEAR <node>" },
	{ "CKPT", CMD_CKPT, 2, 2, 0, "CKPT <uuid> <seq>" },
	{ "FILE", CMD_FILE, 2, 3, 0, "FILE <uuid> <n> [<from>]" },
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

/* -a <uuid> <nth_output> at tk->v[*i]: the next input binding. */
static int
take_binding(struct tokens *tk, int *i, struct client_req *req, char *err,
    size_t errlen)
{
	struct task_binding	*b;
	int64_t			 nth;

	if (*i + 2 >= tk->n) {
		snprintf(err, errlen, "-a needs <uuid> <nth_output>");
		return -1;
	}
	if (req->nbind == TASK_INPUTS_MAX) {
		snprintf(err, errlen, "more than %d inputs", TASK_INPUTS_MAX);
		return -1;
	}
	b = &req->bind[req->nbind];
	if (take_uuid(tk->v[*i + 1], b->uuid, err, errlen) == -1)
		return -1;
	if (lex_int(tk->v[*i + 2], 1, TASK_OUTPUTS_MAX, &nth) == -1) {
		snprintf(err, errlen, "-a %s: output number must be 1 to %d",
		    b->uuid, TASK_OUTPUTS_MAX);
		return -1;
	}
	b->nth = nth;
	req->nbind++;
	*i += 2;
	return 0;
}

/* -A <array_uuid> <index> <max_running> at tk->v[*i]: the task's
 * array, its value in it, how many of it may run at once (0: any). */
static int
take_array(struct tokens *tk, int *i, struct client_req *req, char *err,
    size_t errlen)
{
	int64_t	index, max;

	if (*i + 3 >= tk->n) {
		snprintf(err, errlen, "-A needs <array_uuid> <index> "
		    "<max_running>");
		return -1;
	}
	if (req->array[0] != '\0') {
		snprintf(err, errlen, "-A given twice");
		return -1;
	}
	if (take_uuid(tk->v[*i + 1], req->array, err, errlen) == -1)
		return -1;
	if (lex_int(tk->v[*i + 2], 0, ARRAY_INDEX_MAX, &index) == -1 ||
	    lex_int(tk->v[*i + 3], 0, ARRAY_MAX_MAX, &max) == -1) {
		snprintf(err, errlen, "-A: an index from 0 to %d and a limit "
		    "from 0 (none) to %d", ARRAY_INDEX_MAX, ARRAY_MAX_MAX);
		return -1;
	}
	req->array_index = (int)index;
	req->array_max = (int)max;
	*i += 3;
	return 0;
}

/* -c <cores>, -m <memory_mb>, -g <tags>, -b <begin_ms>, -D <deadline_ms>
 * (-H: the same, refused if the forecast misses it) or -V <nodes> at
 * tk->v[*i]: what the task needs of a node, when and how often it runs;
 * 0 if opt is none of them. */
static int
take_need(struct tokens *tk, int *i, struct client_req *req, char *err,
    size_t errlen)
{
	const char	*opt = tk->v[*i], *arg = *i + 1 < tk->n ?
			    tk->v[*i + 1] : NULL;
	int64_t		 v;

	if (strcmp(opt, "-c") != 0 && strcmp(opt, "-m") != 0 &&
	    strcmp(opt, "-g") != 0 && strcmp(opt, "-b") != 0 &&
	    strcmp(opt, "-D") != 0 && strcmp(opt, "-H") != 0 &&
	    strcmp(opt, "-V") != 0 && strcmp(opt, "-T") != 0)
		return 0;
	if (arg == NULL) {
		snprintf(err, errlen, "%s needs a value", opt);
		return -1;
	}
	if (opt[1] == 'g' && !task_names_valid(arg, CAPS_NAMES_MAX)) {
		complain(err, errlen, "bad tags", arg, ": names (letters, "
		    "digits, '_', '-', '.') separated by ','");
		return -1;
	} else if (opt[1] == 'g')
		req->tags = arg;
	else if (opt[1] == 'V') {
		if (lex_int(arg, VERIFY_MIN, VERIFY_MAX, &v) == -1) {
			snprintf(err, errlen, "-V: nodes to agree, %d to %d",
			    VERIFY_MIN, VERIFY_MAX);
			return -1;
		}
		req->verify = (int)v;
	} else if (opt[1] == 'T') {
		if (lex_int(arg, 1, TASK_EST_MAX, &req->est_ms) == -1) {
			snprintf(err, errlen, "-T: a run time in ms, 1 to %lld",
			    (long long)TASK_EST_MAX);
			return -1;
		}
	} else if (opt[1] == 'b' || opt[1] == 'D' || opt[1] == 'H') {
		if (lex_int(arg, 1, INT64_MAX / 2, opt[1] == 'b' ?
		    &req->begin_ms : &req->deadline_ms) == -1) {
			snprintf(err, errlen, "%s: a time in ms since the epoch",
			    opt);
			return -1;
		}
		if (opt[1] != 'b')
			req->deadline_strict = opt[1] == 'H';
	} else if (lex_int(arg, 1, opt[1] == 'c' ? CORES_MAX : MEMORY_MB_MAX,
	    &v) == -1) {
		snprintf(err, errlen, "%s: %s", opt, opt[1] == 'c' ?
		    "cores, 1 to 65535" : "memory in MB, at least 1");
		return -1;
	} else if (opt[1] == 'c')
		req->cores = (int)v;
	else
		req->memory_mb = v;
	*i += 1;
	return 1;
}

/* The executable or command name and the priority: words 1 and 2. */
static int
take_name_prio(struct tokens *tk, struct client_req *req, char *err,
    size_t errlen)
{
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
	return 0;
}

static int
parse_schedule(struct tokens *tk, struct client_req *req, char *err,
    size_t errlen)
{
	int	i, rc;

	if (take_name_prio(tk, req, err, errlen) == -1)
		return -1;
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
			if (take_binding(tk, &i, req, err, errlen) == -1)
				return -1;
		} else if (strcmp(opt, "-A") == 0) {
			if (take_array(tk, &i, req, err, errlen) == -1)
				return -1;
		} else if ((rc = take_need(tk, &i, req, err, errlen)) != 0) {
			if (rc == -1)
				return -1;
		} else {
			complain(err, errlen, "unknown option", opt, "");
			return -1;
		}
	}
	return 0;
}

/* One escaped value of RUN, unescaped in place; -1 if it is bad. */
static char *
run_value(struct tokens *tk, int i, const char *opt, char *err,
    size_t errlen)
{
	if (i >= tk->n) {
		snprintf(err, errlen, "%s needs a value", opt);
		return NULL;
	}
	if (strcmp(tk->v[i], "%") == 0) {	/* the empty string */
		tk->v[i][0] = '\0';
		return tk->v[i];
	}
	if (lex_unescape(tk->v[i]) == -1) {
		snprintf(err, errlen, "%s: bad %%-escape", opt);
		return NULL;
	}
	return tk->v[i];
}

/* Add value to a string vector of at most max; -1 if full. */
static int
push(char **v, int *n, int max, char *value, const char *what, char *err,
    size_t errlen)
{
	if (*n == max) {
		snprintf(err, errlen, "more than %d %s", max, what);
		return -1;
	}
	v[(*n)++] = value;
	return 0;
}

/* -S NAME=value: the name for the record, the word for the taker. */
static int
take_secret(struct client_req *req, char *kv, char *err, size_t errlen)
{
	struct task_cmd	*c = &req->run;
	size_t		 len = strcspn(kv, "="), bytes = 0;
	int		 i;

	if (kv[len] != '=' || len == 0 || len > NAME_MAXLEN) {
		snprintf(err, errlen, "-S: NAME=value");
		return -1;
	}
	for (i = 0; i < c->nsecrets; i++)
		bytes += strlen(req->secret_kv[i]) + 1;
	if (bytes + strlen(kv) + 1 > CMD_SECRET_TEXT_MAX) {
		snprintf(err, errlen, "the secret variables are over %d bytes",
		    CMD_SECRET_TEXT_MAX);
		return -1;
	}
	if (push(req->secret_kv, &c->nsecrets, CMD_SECRETS_MAX, kv,
	    "secret variables", err, errlen) == -1)
		return -1;
	i = c->nsecrets - 1;
	memcpy(req->secret_names[i], kv, len);
	req->secret_names[i][len] = '\0';
	req->cmd_secrets[i] = req->secret_names[i];
	return 0;
}

/*
 * RUN: a command task.  Its values are %XX-escaped words (a blank is
 * %20, and a lone '%' the empty string), so argv comes through exactly:
 * quotes, blanks, any byte but NUL.  task_cmd_check() bounds what a
 * record can carry.
 */
static int
parse_run(struct tokens *tk, struct client_req *req, char *err,
    size_t errlen)
{
	struct task_cmd	*c = &req->run;
	char		*v, **dst;
	int64_t		 secs;
	int		 i, rc;

	if (take_name_prio(tk, req, err, errlen) == -1)
		return -1;
	c->argv = req->cmd_argv;
	c->env = req->cmd_env;
	c->outs = req->cmd_outs;
	c->ins = req->cmd_ins;
	c->secrets = req->cmd_secrets;
	for (i = 3; i < tk->n && strcmp(tk->v[i], "--") != 0; i++) {
		const char *opt = tk->v[i];
		if (strcmp(opt, "-a") == 0 || strcmp(opt, "-A") == 0) {
			if ((opt[1] == 'a' ? take_binding(tk, &i, req, err,
			    errlen) : take_array(tk, &i, req, err, errlen)) == -1)
				return -1;
			continue;
		}
		if ((rc = take_need(tk, &i, req, err, errlen)) != 0) {
			if (rc == -1)
				return -1;
			continue;
		}
		if (strlen(opt) != 2 || opt[0] != '-' ||
		    strchr("doeEtOSkKiI", opt[1]) == NULL) {
			complain(err, errlen, "unknown option", opt, "");
			return -1;
		}
		if ((v = run_value(tk, ++i, opt, err, errlen)) == NULL)
			return -1;
		dst = opt[1] == 'd' ? &c->cwd : opt[1] == 'o' ? &c->out :
		    opt[1] == 'e' ? &c->err : opt[1] == 'k' ? &c->ckpt_file :
		    opt[1] == 'I' ? &c->in_dir : NULL;
		if (dst != NULL) {
			if (*dst != NULL) {
				snprintf(err, errlen, "%s given twice", opt);
				return -1;
			}
			*dst = v;
		} else if (opt[1] == 'E') {
			if (push(c->env, &c->nenv, CMD_ENV_MAX, v,
			    "environment variables", err, errlen) == -1)
				return -1;
		} else if (opt[1] == 'S') {
			if (take_secret(req, v, err, errlen) == -1)
				return -1;
		} else if (opt[1] == 'O') {
			if (push(c->outs, &c->nouts, TASK_OUTPUTS_MAX, v,
			    "outputs", err, errlen) == -1)
				return -1;
		} else if (opt[1] == 'i') {
			if (push(c->ins, &c->nins, CMD_INS_TEXT_MAX / 68, v,
			    "input files", err, errlen) == -1)
				return -1;
		} else if (opt[1] == 'K') {
			if (lex_int(v, 1, 64, &secs) == -1) {
				snprintf(err, errlen, "-K: a signal number");
				return -1;
			}
			c->ckpt_signal = (int)secs;
		} else {
			if (lex_int(v, 1, CMD_TIME_LIMIT_MAX / 1000,
			    &secs) == -1) {
				snprintf(err, errlen, "-t: a time limit in "
				    "seconds, at most a year");
				return -1;
			}
			c->time_limit_ms = secs * 1000;
		}
	}
	for (i++; i < tk->n; i++) {
		if ((v = run_value(tk, i, "a word", err, errlen)) == NULL ||
		    push(c->argv, &c->argc, CMD_ARGS_MAX, v, "words", err,
		    errlen) == -1)
			return -1;
	}
	if (c->argc == 0) {
		snprintf(err, errlen, "no command: RUN ... -- <program> "
		    "[<word>...]");
		return -1;
	}
	return task_cmd_check(c, err, errlen);
}

/* OUTPUT <uuid> [-e] [-f] [-c <offset>] */
static int
parse_output(struct tokens *tk, struct client_req *req, char *err,
    size_t errlen)
{
	int	i;

	if (take_uuid(tk->v[1], req->uuid[0], err, errlen) == -1)
		return -1;
	req->nuuid = 1;
	for (i = 2; i < tk->n; i++) {
		if (strcmp(tk->v[i], "-e") == 0)
			req->out_stderr = 1;
		else if (strcmp(tk->v[i], "-f") == 0)
			req->out_follow = 1;
		else if (strcmp(tk->v[i], "-c") == 0 && i + 1 < tk->n &&
		    lex_int(tk->v[i + 1], 0, INT64_MAX, &req->out_offset) == 0)
			i++;
		else {
			snprintf(err, errlen, "usage: %s",
			    usage_of(CMD_OUTPUT));
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

/* "Terminated,Failed": bits 1 << state of final states. */
static int
final_states(char *list, unsigned *bits)
{
	enum task_state	 st;
	char		*p = list, *one;

	*bits = 0;
	while ((one = strsep(&p, ",")) != NULL) {
		if (task_state_parse(one, &st) == -1 || !task_is_final(st))
			return -1;
		*bits |= 1u << st;
	}
	return 0;
}

static int
parse_account(struct tokens *tk, struct client_req *req, char *err,
    size_t errlen)
{
	int	i;

	req->acct_since = req->acct_until = -1;
	for (i = 1; i < tk->n; i += 2) {
		const char *opt = tk->v[i];
		char *arg = i + 1 < tk->n ? tk->v[i + 1] : NULL;
		if (arg == NULL || strlen(opt) != 2 || opt[0] != '-') {
			snprintf(err, errlen, "usage: %s",
			    usage_of(CMD_ACCOUNT));
			return -1;
		}
		switch (opt[1]) {
		case 's':
		case 'u':
			if (lex_int(arg, 0, INT64_MAX, opt[1] == 's' ?
			    &req->acct_since : &req->acct_until) == -1) {
				snprintf(err, errlen, "-%c: a time in ms since "
				    "the epoch", opt[1]);
				return -1;
			}
			break;
		case 'S':
			if (final_states(arg, &req->acct_states) == -1) {
				snprintf(err, errlen, "-S: states of a "
				    "finished task: Terminated, Cancelled, "
				    "Failed");
				return -1;
			}
			break;
		case 'n':
		case 'U':
			if (!task_token_valid(arg, NAME_MAXLEN)) {
				snprintf(err, errlen, "-%c: bad name", opt[1]);
				return -1;
			}
			if (opt[1] == 'n')
				req->acct_node = arg;
			else
				req->acct_user = arg;
			break;
		default:
			snprintf(err, errlen, "usage: %s",
			    usage_of(CMD_ACCOUNT));
			return -1;
		}
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
	if (tk.n - 1 < commands[i].min ||
	    (!commands[i].own_arity && tk.n - 1 > commands[i].max)) {
		snprintf(err, errlen, "usage: %s", commands[i].usage);
		return -1;
	}
	switch (req->cmd) {
	case CMD_SCHEDULE:
		return parse_schedule(&tk, req, err, errlen);
	case CMD_RUN:
		return parse_run(&tk, req, err, errlen);
	case CMD_OUTPUT:
		return parse_output(&tk, req, err, errlen);
	case CMD_FILE:		/* <uuid> <n> [<from>], 1 the first */
		if (tk.n == 4 && lex_int(tk.v[3], 1, CMD_IN_BYTES_MAX,
		    &req->file_from) == -1) {
			snprintf(err, errlen, "usage: %s", commands[i].usage);
			return -1;
		}
		/* FALLTHROUGH */
	case CMD_CKPT:		/* <uuid> <seq> */
	case CMD_PRIO:		/* <uuid> <priority> */
		if (req->cmd == CMD_CKPT ? lex_int(tk.v[2], 1, CKPT_SEQ_MAX,
		    &req->out_offset) == -1 : req->cmd == CMD_FILE ?
		    lex_int(tk.v[2], 1, CMD_INS_TEXT_MAX / 68,
		    &req->out_offset) == -1 : task_prio_parse(tk.v[2],
		    &req->prio) == -1) {
			snprintf(err, errlen, "usage: %s", commands[i].usage);
			return -1;
		}
		if (take_uuid(tk.v[1], req->uuid[0], err, errlen) == -1)
			return -1;
		req->nuuid = 1;
		return 0;
	case CMD_SUBSCRIBE:
	case CMD_CANCEL:
	case CMD_HOLD:
	case CMD_RELEASE:
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
	case CMD_SLEEP:
		if (strcasecmp(tk.v[1], "now") != 0 &&
		    strcasecmp(tk.v[1], "over") != 0) {
			snprintf(err, errlen, "usage: SLEEP <now|over>");
			return -1;
		}
		req->sleep = strcasecmp(tk.v[1], "now") == 0;
		return 0;
	case CMD_LOG:
		return parse_log(&tk, req, err, errlen);
	case CMD_ACCOUNT:
		return parse_account(&tk, req, err, errlen);
	case CMD_API:
		/* A GET of the JSON API: its path, as HTTP would take it. */
		if (strncmp(tk.v[1], "/api/", 5) != 0 ||
		    !lex_printable(tk.v[1])) {
			snprintf(err, errlen, "usage: %s", usage_of(CMD_API));
			return -1;
		}
		req->api_uri = tk.v[1];
		return 0;
	case CMD_PEERKEY:
	case CMD_CLEAR:
		if (!task_name_valid(tk.v[1])) {
			snprintf(err, errlen, "usage: %s",
			    usage_of(req->cmd));
			return -1;
		}
		req->peer_name = tk.v[1];
		return 0;
	case CMD_REVOKE:
		/* Checked whole by the node (ident.c): the admin signed it. */
		for (k = 0; k < 4; k++)
			req->revoke[k] = tk.v[k + 1];
		return 0;
	default:
		return 0;
	}
}
