/*
 * taskcmd.c -- a command task's command (struct task_cmd in task.h):
 * copies, and the limits a record and a request must keep.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"

static void
strv_free(char **v, int n)
{
	int	i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i]);
	free(v);
}

/* A copy of the n strings of v in *dst; -1 out of memory. */
static int
strv_dup(char *const *v, int n, char ***dst)
{
	int	i;

	*dst = NULL;
	if (n == 0)
		return 0;
	if ((*dst = calloc(n, sizeof **dst)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (((*dst)[i] = strdup(v[i])) == NULL) {
			strv_free(*dst, i);
			*dst = NULL;
			return -1;
		}
	return 0;
}

void
task_cmd_free(struct task_cmd *c)
{
	if (c == NULL)
		return;
	strv_free(c->argv, c->argc);
	strv_free(c->env, c->nenv);
	strv_free(c->outs, c->nouts);
	strv_free(c->secrets, c->nsecrets);
	strv_free(c->ins, c->nins);
	free(c->cwd);
	free(c->out);
	free(c->err);
	free(c->ckpt_file);
	free(c->in_dir);
	free(c);
}

struct task_cmd *
task_cmd_dup(const struct task_cmd *c)
{
	struct task_cmd	*d;

	if ((d = calloc(1, sizeof *d)) == NULL)
		return NULL;
	d->argc = c->argc;
	d->nenv = c->nenv;
	d->nouts = c->nouts;
	d->nsecrets = c->nsecrets;
	d->nins = c->nins;
	d->time_limit_ms = c->time_limit_ms;
	d->ckpt_signal = c->ckpt_signal;
	if (strv_dup(c->argv, c->argc, &d->argv) == -1 ||
	    strv_dup(c->env, c->nenv, &d->env) == -1 ||
	    strv_dup(c->outs, c->nouts, &d->outs) == -1 ||
	    strv_dup(c->secrets, c->nsecrets, &d->secrets) == -1 ||
	    strv_dup(c->ins, c->nins, &d->ins) == -1 ||
	    task_set_string(&d->cwd, c->cwd) == -1 ||
	    task_set_string(&d->out, c->out) == -1 ||
	    task_set_string(&d->err, c->err) == -1 ||
	    task_set_string(&d->ckpt_file, c->ckpt_file) == -1 ||
	    task_set_string(&d->in_dir, c->in_dir) == -1) {
		task_cmd_free(d);
		return NULL;
	}
	return d;
}

/* NAME=value with NAME a shell variable's name. */
static int
env_valid(const char *kv)
{
	const char	*p = kv;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	return *p == '=';
}

/* A directory or file name: printable (it shows in replies and the
 * log), at most PATH_MAXLEN bytes. */
static int
path_valid(const char *s)
{
	const char	*p;

	if (s == NULL)
		return 1;
	for (p = s; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			return 0;
	return *s != '\0' && p - s <= PATH_MAXLEN;
}

int
task_cmd_in_parse(const char *item, int64_t *bytes, char hash[DIGEST_HEX + 1],
    const char **path)
{
	const char	*p = item, *part;
	int		 i;

	for (*bytes = 0; *p >= '0' && *p <= '9'; p++)
		if ((*bytes = *bytes * 10 + (*p - '0')) > CMD_IN_BYTES_MAX)
			return -1;
	if (p == item || *p++ != ':' || (item[0] == '0' && item + 1 != p - 1))
		return -1;
	for (i = 0; i < DIGEST_HEX; i++, p++) {
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return -1;
		hash[i] = *p;
	}
	hash[DIGEST_HEX] = '\0';
	if (*p++ != ':' || !path_valid(p) || *p == '/')
		return -1;
	*path = p;
	/* Each part a name: the run dir holds it, and nothing above. */
	for (part = p; ; part = p + 1) {
		p = part + strcspn(part, "/");
		if (p == part || (p - part == 1 && part[0] == '.') ||
		    (p - part == 2 && part[0] == '.' && part[1] == '.'))
			return -1;
		if (*p == '\0')
			return 0;
	}
}

int
task_cmd_check(const struct task_cmd *c, char *why, size_t whylen)
{
	size_t	bytes = 0;
	int64_t	size;
	char	hash[DIGEST_HEX + 1];
	const char *path;
	int	i;

	snprintf(why, whylen, "%s", "");
	if (c->argc < 1 || c->argc > CMD_ARGS_MAX || c->argv[0][0] == '\0')
		snprintf(why, whylen, "a command has 1 to %d words, the "
		    "first a program", CMD_ARGS_MAX);
	else if (c->nenv < 0 || c->nenv > CMD_ENV_MAX)
		snprintf(why, whylen, "at most %d environment variables",
		    CMD_ENV_MAX);
	else if (c->nouts < 0 || c->nouts > TASK_OUTPUTS_MAX)
		snprintf(why, whylen, "at most %d outputs", TASK_OUTPUTS_MAX);
	else if (c->nsecrets < 0 || c->nsecrets > CMD_SECRETS_MAX)
		snprintf(why, whylen, "at most %d secret variables",
		    CMD_SECRETS_MAX);
	else if (c->nins < 0 || c->nins > CMD_INS_TEXT_MAX / 68)
		snprintf(why, whylen, "at most %d input files",
		    CMD_INS_TEXT_MAX / 68);
	else if ((c->nins > 0) != (c->in_dir != NULL) ||
	    !path_valid(c->in_dir) || (c->in_dir != NULL &&
	    c->in_dir[0] != '/'))
		snprintf(why, whylen, "input files come with the absolute "
		    "directory they are in, and only with them");
	else if (!path_valid(c->cwd) || !path_valid(c->out) ||
	    !path_valid(c->err))
		snprintf(why, whylen, "a directory or file name is empty, not "
		    "printable or longer than %d bytes", PATH_MAXLEN);
	else if (c->time_limit_ms < 0 ||
	    c->time_limit_ms > CMD_TIME_LIMIT_MAX)
		snprintf(why, whylen, "the time limit is over a year");
	else if (c->ckpt_file != NULL && !task_ckpt_file_valid(c->ckpt_file))
		snprintf(why, whylen, "a checkpoint file is a name in the run "
		    "dir: 1 to %d of A-Z a-z 0-9 . _ -", CKPT_FILE_MAX);
	else if (c->ckpt_signal < 0 || c->ckpt_signal > 64 ||
	    (c->ckpt_signal > 0 && (c->ckpt_file == NULL ||
	    strcmp(c->ckpt_file, CKPT_AUTO) == 0)))
		snprintf(why, whylen, "a checkpoint signal is 1 to 64, for a "
		    "command with a checkpoint file (not auto)");
	if (*why != '\0')
		return -1;
	for (i = 0; i < c->argc; i++)
		bytes += strlen(c->argv[i]) + 1;
	for (i = 0; i < c->nenv; i++) {
		bytes += strlen(c->env[i]) + 1;
		if (!env_valid(c->env[i])) {
			snprintf(why, whylen, "environment variable %d is not "
			    "NAME=value", i + 1);
			return -1;
		}
	}
	for (i = 0; i < c->nsecrets; i++) {
		char kv[NAME_MAXLEN + 2];
		snprintf(kv, sizeof kv, "%s=", c->secrets[i]);
		bytes += strlen(c->secrets[i]) + 1;
		if (strlen(c->secrets[i]) > NAME_MAXLEN || !env_valid(kv)) {
			snprintf(why, whylen, "secret variable %d is not a "
			    "NAME", i + 1);
			return -1;
		}
	}
	if (bytes > CMD_TEXT_MAX) {
		snprintf(why, whylen, "the command and its environment are "
		    "%zu bytes, over %d", bytes, CMD_TEXT_MAX);
		return -1;
	}
	for (i = 0, bytes = 0; i < c->nins; i++) {
		bytes += strlen(c->ins[i]) + 1;
		if (task_cmd_in_parse(c->ins[i], &size, hash, &path) == -1) {
			snprintf(why, whylen, "input file %d is not a size, a "
			    "hash and a path inside the run dir", i + 1);
			return -1;
		}
	}
	if (bytes > CMD_INS_TEXT_MAX) {
		snprintf(why, whylen, "the input files' names are %zu bytes, "
		    "over %d", bytes, CMD_INS_TEXT_MAX);
		return -1;
	}
	for (i = 0; i < c->nouts; i++) {
		const char *o = c->outs[i];
		if ((strncmp(o, "file:", 5) != 0 &&
		    strncmp(o, "line:", 5) != 0) || o[5] == '\0' ||
		    strlen(o) > CMD_OUTSPEC_MAXLEN) {
			snprintf(why, whylen, "output %d is neither file:PATH "
			    "nor line:REGEX (at most %d bytes)", i + 1,
			    CMD_OUTSPEC_MAXLEN);
			return -1;
		}
	}
	return 0;
}

int
task_cmd_noutputs(const struct task *t)
{
	return t->cmd != NULL ? t->cmd->nouts : -1;
}


static int
same_list(char *const *a, int na, char *const *b, int nb)
{
	int	i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (!task_same_str(a[i], b[i]))
			return 0;
	return 1;
}

int
task_same_origin(const struct task *a, const struct task *b)
{
	const struct task_cmd	*x = a->cmd, *y = b->cmd;
	int			 i;

	if (strcmp(a->exec, b->exec) != 0 ||
	    strcmp(a->scheduled_by, b->scheduled_by) != 0 ||
	    strcmp(a->user, b->user) != 0 || a->uid != b->uid ||
	    a->submit_ms != b->submit_ms || a->begin_ms != b->begin_ms ||
	    a->est_ms != b->est_ms ||
	    strcmp(a->array, b->array) != 0 ||
	    a->array_index != b->array_index ||
	    a->array_max != b->array_max || a->verify != b->verify ||
	    strcmp(a->replica_of, b->replica_of) != 0 ||
	    a->replica_index != b->replica_index ||
	    a->req_cores != b->req_cores ||
	    a->req_memory_mb != b->req_memory_mb ||
	    !task_same_str(a->req_tags, b->req_tags) ||
	    !task_same_str(a->path, b->path) ||
	    !task_same_str(a->params, b->params) ||
	    a->ninputs != b->ninputs || (x == NULL) != (y == NULL))
		return 0;
	for (i = 0; i < a->ninputs; i++)
		if (strcmp(a->inputs[i].from, b->inputs[i].from) != 0 ||
		    a->inputs[i].nth != b->inputs[i].nth)
			return 0;
	return x == NULL || (same_list(x->argv, x->argc, y->argv, y->argc) &&
	    same_list(x->env, x->nenv, y->env, y->nenv) &&
	    same_list(x->secrets, x->nsecrets, y->secrets, y->nsecrets) &&
	    same_list(x->ins, x->nins, y->ins, y->nins) &&
	    task_same_str(x->in_dir, y->in_dir) &&
	    task_same_str(x->cwd, y->cwd) && task_same_str(x->out, y->out) &&
	    task_same_str(x->err, y->err) &&
	    x->time_limit_ms == y->time_limit_ms &&
	    task_same_str(x->ckpt_file, y->ckpt_file) &&
	    x->ckpt_signal == y->ckpt_signal &&
	    same_list(x->outs, x->nouts, y->outs, y->nouts));
}
