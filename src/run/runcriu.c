/*
 * runcriu.c -- a run dumped and restored with CRIU (runproc.h, criu.h):
 * the runner's side of --checkpoint=auto.
 */
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <event2/bufferevent.h>

#include "clock.h"
#include "criu.h"
#include "job.h"
#include "log.h"
#include "runproc.h"
#include "task.h"

/* The run CRIU could not restore: its next start is from the beginning. */
static struct {
	char	uuid[UUID_STRLEN + 1];
	char	why[256];
} fresh;

pid_t
runcriu_prepare(const struct task *t, const char *checkpoint,
    const char *dir, const struct runas *ra, struct strings *k,
    struct job_spec *spec, const char **argv, char **env)
{
	char		 why[512];
	pid_t		 pid;

	if (!task_ckpt_auto(t))
		return 0;
	spec->no_new_privs = 1;		/* CRIU restores it as it was */
	if (checkpoint == NULL)
		return 0;
	if (strcmp(fresh.uuid, t->uuid) == 0) {
		snprintf(why, sizeof why, "%s", fresh.why);
		fresh.uuid[0] = '\0';
	} else if (!criu_ready())
		snprintf(why, sizeof why, "CRIU cannot run here: %s",
		    criu_why());
	else if (criu_restore_spec(t->uuid, dir, ra, k, spec, argv, env,
	    &pid, why, sizeof why) == 0)
		return pid;
	log_warnx("Task UUID{%s} name{%s} owner{%s} starts from the "
	    "beginning after all: its transparent checkpoint cannot be "
	    "restored: %s",
	    t->uuid, t->exec, t->user, why);
	return 0;
}

int
runcriu_restored(struct run *r, int status,
    void (*exited)(pid_t, int, const struct rusage *, void *))
{
	struct job_exit	e = { exited, r };
	char		why[512] = "";
	pid_t		pid = r->restoring;
	int		failed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;

	r->restoring = 0;
	criu_restore_over(r->uuid, failed, why, sizeof why);
	if (!failed && job_adopt(pid, &e) == 0) {
		/* Dumped stopped, restored stopped: it goes on now. */
		r->pid = pid;
		r->stop.pid = pid;
		kill(-pid, SIGCONT);
		log_info("Task UUID{%s} name{%s} restored by CRIU as pid %d in "
		    "%lld ms; it goes on where it was dumped", r->uuid,
		    r->exec, (int)pid, (long long)(clock_node_ms() -
		    r->criu_ms));
		return 0;
	}
	if (!failed) {			/* out of memory: it cannot be waited */
		kill(-pid, SIGKILL);
		snprintf(why, sizeof why, "out of memory");
	}
	log_warnx("Task UUID{%s} name{%s}: its transparent checkpoint did "
	    "not restore: %s; it starts again", r->uuid, r->exec, why);
	r->restart = 1;
	snprintf(fresh.uuid, sizeof fresh.uuid, "%s", r->uuid);
	snprintf(fresh.why, sizeof fresh.why, "%.200s", why);
	return -1;
}

static void (*dump_over)(struct run *);

static void
dumped(void *arg, int ok, const char *why)
{
	struct run	*r = arg;

	r->dump = NULL;
	if (ok)
		log_info("Task UUID{%s} name{%s} pid %d dumped by CRIU in %lld "
		    "ms: its next run goes on from here", r->uuid, r->exec,
		    (int)r->pid, (long long)(clock_node_ms() - r->criu_ms));
	else if (!r->exited) {
		log_warnx("Task UUID{%s} name{%s} pid %d not dumped: %s; "
		    "stopped", r->uuid, r->exec, (int)r->pid, why);
		stop_begin(&r->stop, 0);
	}
	dump_over(r);
}

void
runcriu_dump(struct run *r, const char *dir, void (*over)(struct run *))
{
	char	why[512];

	dump_over = over;
	if (r->exited || r->dump != NULL || r->restoring != 0)
		return;
	if (!criu_ready())
		snprintf(why, sizeof why, "CRIU cannot run here: %s",
		    criu_why());
	else {
		/* As it is, stopped by the user's return: a SIGSTOP
		 * more would be pending, and break into CRIU's work. */
		r->criu_ms = clock_node_ms();
		if ((r->dump = criu_dump(r->uuid, r->pid, r->out != NULL ?
		    bufferevent_getfd(r->out) : -1, r->err != NULL ?
		    bufferevent_getfd(r->err) : -1, &r->ra, dir, dumped, r,
		    why, sizeof why)) != NULL)
			return;
	}
	log_warnx("Task UUID{%s} name{%s} pid %d not dumped: %s; stopped",
	    r->uuid, r->exec, (int)r->pid, why);
	stop_begin(&r->stop, 0);
}
