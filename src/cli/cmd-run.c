/*
 * cmd-run.c -- `volery run [options] -- PROG [ARG]...`: one task that
 * runs an existing program, its argv exactly as given (no shell unless
 * --shell), in this directory (or --cwd) on the node that takes it;
 * prints the new task's uuid.  Its stdout and stderr are kept by that
 * node (volery output), or go to the files -o and -e name there.  With
 * --array, one task per value, {i} the value in each, at most LIMIT of
 * them running at once; their uuids, one a line.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uuid.h>

#include <sodium.h>

#include "bounds.h"
#include "cmd.h"
#include "conn.h"
#include "arrayspec.h"
#include "inwalk.h"
#include "lex.h"
#include "runlimit.h"
#include "runreq.h"
#include "task.h"

/* c with {i} as value: strings of its own (free with task_cmd_free). */
static struct task_cmd *
filled(const struct task_cmd *c, int value)
{
	struct task_cmd	*d;
	char		**lists[3];
	int		  i, k, n[3];

	if ((d = task_cmd_dup(c)) == NULL)
		return NULL;
	lists[0] = d->argv, n[0] = d->argc;
	lists[1] = d->env, n[1] = d->nenv;
	lists[2] = d->outs, n[2] = d->nouts;
	for (k = 0; k < 3; k++)
		for (i = 0; i < n[k]; i++) {
			char *x = arrayspec_fill(lists[k][i], value);
			if (x == NULL)
				goto nomem;
			free(lists[k][i]);
			lists[k][i] = x;
		}
	{
		char **one[3] = { &d->cwd, &d->out, &d->err };
		for (k = 0; k < 3; k++)
			if (*one[k] != NULL) {
				char *x = arrayspec_fill(*one[k], value);
				if (x == NULL)
					goto nomem;
				free(*one[k]);
				*one[k] = x;
			}
	}
	return d;
nomem:
	task_cmd_free(d);
	return NULL;
}

/* One RUN per value of the array, its {i} filled in. */
static int
run_array(const struct cmd_args *a, const char *spec, const char *name,
    const char *prio, const struct task_cmd *tc,
    const struct task_binding *bind, int nbind, struct runreq_extra *ra)
{
	struct arrayspec	 as;
	struct task_cmd		*c;
	char			**reqs, err[256];
	uuid_t			 raw;
	int			 i, rc = 1;

	if (arrayspec_parse(spec, &as, err, sizeof err) == -1)
		return cmd_fail("--array %s: %s", spec, err) * 2;
	if ((reqs = calloc(as.n, sizeof *reqs)) == NULL) {
		arrayspec_free(&as);
		return cmd_fail("out of memory");
	}
	uuid_generate_random(raw);
	uuid_unparse_lower(raw, ra->array);
	ra->max_running = as.max_running;
	for (i = 0; i < as.n; i++) {
		ra->index = as.v[i];
		if ((c = filled(tc, as.v[i])) == NULL ||
		    task_cmd_check(c, err, sizeof err) == -1 ||
		    (reqs[i] = malloc(CLIENT_LINE_MAX + 1)) == NULL ||
		    runreq_format(reqs[i], CLIENT_LINE_MAX + 1, name, prio, c,
		    bind, nbind, ra) == -1) {
			rc = cmd_fail("task %d of the array: %s", as.v[i],
			    c == NULL || reqs[i] == NULL ? "out of memory" :
			    "too long a request, or a bad value") * 2;
			task_cmd_free(c);
			goto out;
		}
		task_cmd_free(c);
	}
	rc = cmd_schedule_all(cmd_arg(a, 'H'), reqs, as.n);
out:
	for (i = 0; i < as.n; i++)
		free(reqs[i]);
	free(reqs);
	arrayspec_free(&as);
	return rc;
}

/* --secret-env NAME=VALUE, or NAME: its value from our environment
 * (so it is in no shell history nor process list). */
static char *
secret_word(char *arg)
{
	const char	*v;
	char		*kv;

	if (strchr(arg, '=') != NULL)
		return arg;
	if ((v = getenv(arg)) == NULL) {
		cmd_fail("--secret-env %s: no such variable here (give "
		    "NAME=VALUE, or export it)", arg);
		return NULL;
	}
	if (asprintf(&kv, "%s=%s", arg, v) == -1) {
		cmd_fail("out of memory");
		return NULL;
	}
	return kv;
}

/* USR1, SIGUSR1 or 10: the signal's number, or -1. */
static int
signal_number(const char *s)
{
	char	*end;
	long	 v;
	int	 i;

	if (strncmp(s, "SIG", 3) == 0)
		s += 3;
	v = strtol(s, &end, 10);
	if (end != s && *end == '\0')
		return v >= 1 && v <= 64 ? (int)v : -1;
	for (i = 1; i < NSIG && i <= 64; i++)
		if (sigabbrev_np(i) != NULL && strcmp(sigabbrev_np(i), s) == 0)
			return i;
	return -1;
}

static int
cmd_run_exec(const struct cmd_args *a)
{
	struct task_cmd		 tc;
	struct task_binding	 bind[TASK_INPUTS_MAX];
	struct runreq_extra	 x;
	const char		*prio = cmd_arg(a, 'P'), *limit = cmd_arg(a, 't');
	const char		*name = cmd_arg(a, 'n');
	char			*env[CMD_ENV_MAX], *outs[TASK_OUTPUTS_MAX];
	char			*paths[CMD_INS_TEXT_MAX / 68];
	static char		*ins[CMD_INS_TEXT_MAX / 68];
	static char		*secrets[CMD_SECRETS_MAX];
	char			*argv[CMD_ARGS_MAX + 2];
	char			 here[PATH_MAX], there[PATH_MAX];
	char			 nm[NAME_MAXLEN + 1];
	char			 req[CLIENT_LINE_MAX + 1];
	char			 err[256];
	int64_t			 secs;
	int			 k, nbind = 0, npaths = 0, rc;
	int			 shell = cmd_given(a, 's');

	memset(&tc, 0, sizeof tc);
	if (cmd_needs(a, &x) == -1)
		return 2;
	tc.env = env;
	tc.outs = outs;
	x.secrets = secrets;
	tc.argv = argv;
	if (prio == NULL)
		prio = "low";
	if (strcmp(prio, "low") != 0 && strcmp(prio, "interactive") != 0)
		return cmd_usage(&cmd_run_entry);
	if (shell && a->noperands != 1)
		return cmd_fail("--shell takes one operand, the shell "
		    "command") * 2;
	if (limit != NULL) {
		if (runlimit_parse(limit, &secs, err, sizeof err) == -1)
			return cmd_fail("--time %s: %s", limit, err) * 2;
		tc.time_limit_ms = secs * 1000;
	}
	/* A relative name means this directory, here; with files that
	 * travel, the run dir they travel into. */
	if ((tc.cwd = (char *)cmd_arg(a, 'd')) == NULL &&
	    !cmd_given(a, 'i') && (tc.cwd = getcwd(here, sizeof here)) ==
	    NULL)
		return cmd_fail("cannot tell the current directory; give "
		    "--cwd");
	if (tc.cwd != NULL && tc.cwd[0] != '/')
		return cmd_fail("--cwd %s: an absolute directory, as the "
		    "node that runs the task sees it", tc.cwd) * 2;
	tc.out = (char *)cmd_arg(a, 'o');
	tc.err = (char *)cmd_arg(a, 'e');
	/* A checkpoint: a name in its run dir ($TMPDIR), and the signal
	 * that asks it for one last before a vacate. */
	tc.ckpt_file = (char *)cmd_arg(a, 'k');
	if (cmd_arg(a, 'K') != NULL && (tc.ckpt_signal = signal_number(
	    cmd_arg(a, 'K'))) == -1)
		return cmd_fail("--checkpoint-signal %s: a signal, as USR1, "
		    "SIGUSR1 or 10", cmd_arg(a, 'K')) * 2;
	for (k = 0; k < a->nuse; k++) {
		const struct cmd_use *u = &a->use[k];
		if (u->flag == 'E') {
			if (strchr(u->v[0], '=') == NULL)
				return cmd_fail("--env %s: NAME=value",
				    u->v[0]) * 2;
			if (tc.nenv == CMD_ENV_MAX)
				return cmd_fail("more than %d --env",
				    CMD_ENV_MAX) * 2;
			env[tc.nenv++] = u->v[0];
		} else if (u->flag == 'S') {
			if (x.nsecrets == CMD_SECRETS_MAX)
				return cmd_fail("more than %d --secret-env",
				    CMD_SECRETS_MAX) * 2;
			if ((secrets[x.nsecrets++] = secret_word(u->v[0])) ==
			    NULL)
				return 2;
		} else if (u->flag == 'i') {
			if (npaths == CMD_INS_TEXT_MAX / 68)
				return cmd_fail("more than %d --in",
				    CMD_INS_TEXT_MAX / 68) * 2;
			paths[npaths++] = u->v[0];
		} else if (u->flag == 'O') {
			if (tc.nouts == TASK_OUTPUTS_MAX)
				return cmd_fail("more than %d --output",
				    TASK_OUTPUTS_MAX) * 2;
			outs[tc.nouts++] = u->v[0];
		} else if (u->flag == 'a') {
			int64_t nth;
			if (nbind == TASK_INPUTS_MAX ||
			    strlen(u->v[0]) != UUID_STRLEN ||
			    !task_uuid_valid(u->v[0]) ||
			    lex_int(u->v[1], 1, TASK_OUTPUTS_MAX, &nth) == -1)
				return cmd_fail("--input %s %s: a task's uuid "
				    "and an output number", u->v[0],
				    u->v[1]) * 2;
			snprintf(bind[nbind].uuid, sizeof bind[nbind].uuid,
			    "%s", u->v[0]);
			bind[nbind++].nth = (int)nth;
		}
	}
	if (shell) {
		argv[tc.argc++] = "/bin/sh";
		argv[tc.argc++] = "-c";
	}
	for (k = 0; k < a->noperands && tc.argc < CMD_ARGS_MAX; k++)
		argv[tc.argc++] = a->operands[k];
	if (k < a->noperands)
		return cmd_fail("more than %d words", CMD_ARGS_MAX) * 2;
	if (name != NULL)
		snprintf(nm, sizeof nm, "%s", name);
	else
		runreq_name(shell ? "sh" : a->operands[0], nm, sizeof nm);
	if (npaths > 0 && sodium_init() == -1)
		return cmd_fail("libsodium does not start");
	if (npaths > 0 && (tc.in_dir = getcwd(there, sizeof there)) == NULL)
		return cmd_fail("cannot tell the current directory");
	if (npaths > 0 && (tc.nins = inwalk_collect(AT_FDCWD, paths, npaths,
	    ins, CMD_INS_TEXT_MAX / 68, err, sizeof err)) == -1)
		return cmd_fail("--in %s", err) * 2;
	tc.ins = ins;
	/* An array's elements share the files: hashed once. */
	if (cmd_arg(a, 'A') != NULL)
		rc = run_array(a, cmd_arg(a, 'A'), nm, prio, &tc, bind,
		    nbind, &x);
	else if (task_cmd_check(&tc, err, sizeof err) == -1)
		rc = cmd_fail("%s", err) * 2;
	else if (runreq_format(req, sizeof req, nm, prio, &tc, bind, nbind,
	    &x) == -1)
		rc = cmd_fail("the command is longer than a request may be "
		    "(%d bytes, escaped)", CLIENT_LINE_MAX) * 2;
	else
		rc = cmd_schedule_print(cmd_arg(a, 'H'), req);
	inwalk_free(ins, tc.nins);
	return rc;
}

const struct cmd_entry cmd_run_entry = {
	"run", "schedule one task that runs an existing program; prints its "
	"uuid",
	{ { 'P', "priority", 0, 1, 0, "low|interactive" },
	  { 'd', "cwd", 0, 1, 0, "DIR" },
	  { 'o', "stdout", 0, 1, 0, "FILE" },
	  { 'e', "stderr", 0, 1, 0, "FILE" },
	  { 'E', "env", 0, 1, 1, "NAME=VALUE" },
	  { 'S', "secret-env", 0, 1, 1, "NAME[=VALUE]" },
	  { 't', "time", 0, 1, 0, "LIMIT" },
	  { 'n', "name", 0, 1, 0, "NAME" },
	  { 'O', "output", 0, 1, 1, "file:PATH|line:REGEX" },
	  { 'a', "input", 0, 2, 1, "UUID N" },
	  { 'i', "in", 0, 1, 1, "PATH" },
	  { 's', "shell", 0, 0, 0, NULL },
	  { 'A', "array", 0, 1, 0, "N-M[:S],...[%LIMIT]" },
	  { 'k', "checkpoint", 0, 1, 0, "FILE|auto" },
	  { 'K', "checkpoint-signal", 0, 1, 0, "SIG" },
	  CMD_OPTS_NEEDS,
	  CMD_OPT_HOST }, 1, -1, "[--] PROG [ARG]...", 0,
	cmd_run_exec, 1,
};
