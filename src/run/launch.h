/*
 * launch.h -- what a run starts with: a described task's argv (the
 * executable, -p, an -i per input, -x) or a command's (its words with
 * placeholders filled in, cmdrun.h), the environment it gets beyond the
 * node's, a description's limits as setrlimit() takes them.
 */
#ifndef VOLERY_LAUNCH_H
#define VOLERY_LAUNCH_H

#include <stddef.h>

struct job_spec;
struct runas;
struct task;
struct taskdesc_limits;

/* The strings a run's argv and environment point to, freed together. */
struct strings {
	char	**v;
	int	  n;
};
void	strings_free(struct strings *);
/* Keep s (malloc'd) in k; s, or NULL (s freed) if out of memory. */
char	*launch_keep(struct strings *k, char *s);

void	launch_limits(struct job_spec *, const struct taskdesc_limits *);
/* argv (path is its program, under tasks_dir) and its arguments as the
 * log shows them into args; argc. */
int	launch_desc_argv(const char *tasks_dir, const struct task *,
	    char *path, size_t pathlen, const char **argv, char *args,
	    size_t argslen);
/* A command's argv, at most max words ("{in*}" is every input); its
 * strings kept in k; argc, or -1 out of memory. */
int	launch_command_argv(const struct task *, struct strings *k,
	    const char **argv, int max, char *args, size_t argslen);
/* t's newest checkpoint, if our store keeps a copy that hashes right,
 * put into its run dir dir as the run user's: its path (kept in k), and
 * for a described task "-c <path>" added to argv; NULL if none. */
const char *launch_checkpoint(const struct task *, const char *dir,
	    const struct runas *, struct strings *k, const char **argv);
/* t's run dir, the run user's, its path into dir; a command's input
 * files (--in) in it, from our store, at their paths: 0, or -1 and why
 * (no dir left). */
int	launch_rundir(const struct task *, const struct runas *, char *dir,
	    size_t dirlen, char *err, size_t errlen);
/* VOLERY_TASK, TMPDIR (dir), VOLERY_CHECKPOINT (checkpoint, or NULL),
 * HOME/USER/LOGNAME of user, a command's inputs and variables, its
 * secret ones ("NAME=value", NULL-terminated, or NULL), NULL-terminated
 * in env (at most max); -1 out of memory. */
int	launch_env(const struct task *, const char *dir,
	    const struct runas *user, char *const *secrets,
	    const char *checkpoint, struct strings *k, char **env, int max);

#endif
