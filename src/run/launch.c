/*
 * launch.c -- what a run starts with (launch.h): its argv (a
 * description's or a command's), its environment, its limits.
 */
#include <sys/resource.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckstore.h"
#include "cmdrun.h"
#include "instore.h"
#include "job.h"
#include "launch.h"
#include "log.h"
#include "runas.h"
#include "rundir.h"
#include "task.h"
#include "taskdesc.h"

/* The description's limits, as setrlimit() takes them. */
void
launch_limits(struct job_spec *spec, const struct taskdesc_limits *l)
{
	struct job_limit	*j = spec->limits;

	if (l->cpu_seconds > 0) {	/* SIGXCPU, then SIGKILL */
		j->resource = RLIMIT_CPU;
		j->value.rlim_cur = l->cpu_seconds;
		j->value.rlim_max = (rlim_t)l->cpu_seconds + 1;
		j++;
	}
	if (l->memory_mb > 0) {
		j->resource = RLIMIT_AS;
		j->value.rlim_cur = j->value.rlim_max =
		    (rlim_t)l->memory_mb << 20;
		j++;
	}
	if (l->open_files > 0) {
		j->resource = RLIMIT_NOFILE;
		j->value.rlim_cur = j->value.rlim_max = l->open_files;
		j++;
	}
	spec->nlimits = j - spec->limits;
}

/* A described task's argv: the executable, -p, an -i per input, -x;
 * its arguments as the log shows them into args. */
int
launch_desc_argv(const char *tasks_dir, const struct task *t, char *path, size_t pathlen,
    const char **argv, char *args, size_t argslen)
{
	int	argc = 0, i, off = 0;

	snprintf(path, pathlen, "%s/%s", tasks_dir, t->exec);
	argv[argc++] = path;
	if (t->path != NULL) {
		argv[argc++] = "-p";
		argv[argc++] = t->path;
	}
	for (i = 0; i < t->ninputs; i++) {
		argv[argc++] = "-i";
		argv[argc++] = t->inputs[i].dataset;
	}
	if (t->params != NULL) {
		argv[argc++] = "-x";
		argv[argc++] = t->params;
	}
	argv[argc] = NULL;
	for (i = 1; i < argc && off < (int)argslen; i++)
		off += snprintf(args + off, argslen - off, " %s", argv[i]);
	return argc;
}

char *
launch_keep(struct strings *k, char *s)
{
	char	**v;

	if (s == NULL || (v = realloc(k->v, (k->n + 1) * sizeof *v)) == NULL) {
		free(s);
		return NULL;
	}
	k->v = v;
	return k->v[k->n++] = s;
}

void
strings_free(struct strings *k)
{
	while (k->n > 0)
		free(k->v[--k->n]);
	free(k->v);
}

/* A command's argv, as given with its placeholders filled in (argv[0]
 * too: the program found is exec'd, argv[0] is what it is told); a word
 * "{in*}" is every input, a word each. */
int
launch_command_argv(const struct task *t, struct strings *k, const char **argv,
    int max, char *args, size_t argslen)
{
	int	i, j, n = 0, off = 0;

	for (i = 0; i < t->cmd->argc; i++) {
		if (strcmp(t->cmd->argv[i], "{in*}") == 0) {
			for (j = 0; j < t->ninputs && n < max; j++)
				argv[n++] = t->inputs[j].dataset;
			continue;
		}
		if (n == max || (argv[n++] = launch_keep(k,
		    cmdrun_expand(t, t->cmd->argv[i]))) == NULL)
			return -1;
	}
	argv[n] = NULL;
	for (i = 1; i < n && off < (int)argslen; i++)
		off += snprintf(args + off, argslen - off, " %s", argv[i]);
	return n;
}

const char *
launch_checkpoint(const struct task *t, const char *dir,
    const struct runas *ra, struct strings *k, const char **argv)
{
	struct task_ckpt	 c;
	char			 why[256], *path;
	int			 argc;

	if (t->ckpt == NULL || !task_ckpt_parse(t->ckpt, &c))
		return NULL;
	if (ckstore_restore(t->uuid, &c, dir, ra, why, sizeof why) == -1) {
		log_warnx("Task UUID{%s} name{%s} starts from the beginning: "
		    "%s", t->uuid, t->exec, why);
		return NULL;
	}
	if (asprintf(&path, "%s/%s", dir, c.file) == -1 ||
	    launch_keep(k, path) == NULL)
		return NULL;
	log_info("Task UUID{%s} name{%s} owner{%s} starts from its checkpoint "
	    "%lld, made by %s", t->uuid, t->exec, t->user, (long long)c.seq,
	    c.holders[0]);
	if (t->cmd == NULL) {		/* a described task: -c <file> */
		for (argc = 0; argv[argc] != NULL; argc++)
			;
		argv[argc++] = "-c";
		argv[argc++] = path;
		argv[argc] = NULL;
	}
	return path;
}

int
launch_rundir(const struct task *t, const struct runas *ra, char *dir,
    size_t dirlen, char *err, size_t errlen)
{
	const char	*path;
	char		 hash[DIGEST_HEX + 1];
	int64_t		 bytes;
	int		 i;

	if (rundir_make(t->uuid, ra, dir, dirlen, err, errlen) == -1)
		return -1;
	for (i = 0; t->cmd != NULL && i < t->cmd->nins; i++)
		if (task_cmd_in_parse(t->cmd->ins[i], &bytes, hash,
		    &path) == -1 || instore_stage(t->user, hash, bytes, dir,
		    path, ra, err, errlen) == -1) {
			rundir_remove(t->uuid);
			return -1;
		}
	return 0;
}

/* The run's environment beyond the node's: who and where it is, its
 * inputs, a command's own variables (NULL-terminated in env). */
int
launch_env(const struct task *t, const char *dir, const struct runas *user,
    char *const *secrets, const char *checkpoint, struct strings *k,
    char **env, int max)
{
	char	*s;
	int	 n = 0, i;

#define PUT(...) do {							\
		if (n == max - 1 || asprintf(&s, __VA_ARGS__) == -1 ||	\
		    (env[n++] = launch_keep(k, s)) == NULL)			\
			return -1;					\
	} while (0)
	/* A replica (--verify's, the tail's) runs as the task it copies: a
	 * program that names its results after its task gives the same
	 * names.  Numbered from 1 in either kind. */
	PUT("VOLERY_TASK=%s", t->replica_of[0] != '\0' ? t->replica_of :
	    t->uuid);
	if (t->replica_of[0] != '\0')
		PUT("VOLERY_REPLICA=%d", task_replica_number(t));
	PUT("TMPDIR=%s", dir);
	if (checkpoint != NULL)
		PUT("VOLERY_CHECKPOINT=%s", checkpoint);
	if (user->change) {
		PUT("HOME=%s", user->home);
		PUT("USER=%s", user->name);
		PUT("LOGNAME=%s", user->name);
	}
	for (i = 0; t->cmd != NULL && i < t->ninputs; i++)
		PUT("VOLERY_INPUT_%d=%s", i + 1, t->inputs[i].dataset);
	for (i = 0; t->cmd != NULL && i < t->cmd->nenv; i++)
		if ((s = cmdrun_expand(t, t->cmd->env[i])) == NULL ||
		    n == max - 1 || (env[n++] = launch_keep(k, s)) == NULL)
			return -1;
	for (i = 0; secrets != NULL && secrets[i] != NULL; i++)
		PUT("%s", secrets[i]);
#undef PUT
	env[n] = NULL;
	return n;
}

