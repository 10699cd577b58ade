/*
 * runner.c -- child processes of the node.  A run is complete only when
 * both its exit status (SIGCHLD) and the end of its stdout and stderr
 * have arrived, so no line it wrote is lost.
 */
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "bounds.h"
#include "job.h"
#include "log.h"
#include "runas.h"
#include "rundir.h"
#include "runner.h"
#include "task.h"
#include "taskdesc.h"

struct run {
	char			 uuid[UUID_STRLEN + 1];
	char			 exec[NAME_MAXLEN + 1];
	pid_t			 pid;
	int			 in_fd;
	struct bufferevent	*out;
	struct bufferevent	*err;
	int			 out_eof, err_eof;
	int			 discard_out, discard_err;
	int			 exited, code, signo;
	int64_t			 cpu_ms;	/* user + system, from wait4 */
	long			 maxrss_kib;
	int			 cpu_seconds;	/* its limit, 0 none */
	int			 stop_stage;	/* 0 none, 1 CANCEL, 2 TERM, 3 KILL */
	struct event		*stop_timer;
	TAILQ_ENTRY(run)	 entry;
};

static TAILQ_HEAD(, run)	runs = TAILQ_HEAD_INITIALIZER(runs);
static struct event_base	*base;
static struct runner_hooks	 hooks;
static struct runner_opts	 opts;
static int			 nruns;
static uint64_t			 reaped_ticks;	/* CPU of ended runs */

static void
run_free(struct run *r)
{
	TAILQ_REMOVE(&runs, r, entry);
	if (r->out != NULL)
		bufferevent_free(r->out);
	if (r->err != NULL)
		bufferevent_free(r->err);
	if (r->in_fd != -1)
		close(r->in_fd);
	if (r->stop_timer != NULL)
		event_free(r->stop_timer);
	free(r);
	nruns--;
}

static void
maybe_done(struct run *r)
{
	char	uuid[UUID_STRLEN + 1], how[64];
	int	code = r->code, signo = r->signo;

	if (!r->exited || !r->out_eof || !r->err_eof)
		return;
	if (signo != 0)
		snprintf(how, sizeof how, "killed by signal %d (%s)", signo,
		    strsignal(signo));
	else
		snprintf(how, sizeof how, "exit status %d", code);
	memcpy(uuid, r->uuid, sizeof uuid);
	rundir_remove(uuid);
	log_info("Task UUID{%s} name{%s} pid %d ended: %s, CPU %lld.%03lld s, "
	    "peak memory %ld KiB", uuid, r->exec, (int)r->pid, how,
	    (long long)(r->cpu_ms / 1000), (long long)(r->cpu_ms % 1000),
	    r->maxrss_kib);
	run_free(r);
	hooks.exit(uuid, code, signo);
}

/* Read whole lines; a line longer than the limit is dropped with a log. */
static void
read_lines(struct run *r, struct bufferevent *bev, int is_err)
{
	struct evbuffer	*in = bufferevent_get_input(bev);
	int		*discard = is_err ? &r->discard_err : &r->discard_out;
	char		*line;
	size_t		 len;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF)) != NULL) {
		if (*discard)
			*discard = 0;
		else if (len > RUNNER_LINE_MAX)
			log_warnx("Task UUID{%s} name{%s} wrote a "
			    "line of %zu bytes; dropped", r->uuid, r->exec,
			    len);
		else if (is_err)
			log_info("Task UUID{%s} name{%s} stderr: %.*s",
			    r->uuid, r->exec, (int)len, line);
		else
			hooks.line(r->uuid, line, len);
		free(line);
	}
	if (evbuffer_get_length(in) > RUNNER_LINE_MAX) {
		if (!*discard)
			log_warnx("Task UUID{%s} name{%s} wrote "
			    "more than %d bytes without a newline; dropped",
			    r->uuid, r->exec, RUNNER_LINE_MAX);
		evbuffer_drain(in, evbuffer_get_length(in));
		*discard = 1;
	}
}

static void
out_read_cb(struct bufferevent *bev, void *arg)
{
	read_lines(arg, bev, 0);
}

static void
err_read_cb(struct bufferevent *bev, void *arg)
{
	read_lines(arg, bev, 1);
}

static void
pipe_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct run	*r = arg;
	struct evbuffer	*in = bufferevent_get_input(bev);
	int		 is_err = bev == r->err;
	size_t		 len;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	read_lines(r, bev, is_err);
	/* A last line without newline still counts. */
	if ((len = evbuffer_get_length(in)) > 0) {
		char *tail = (char *)evbuffer_pullup(in, len);
		if (!(is_err ? r->discard_err : r->discard_out)) {
			if (is_err)
				log_info("Task UUID{%s} name{%s} "
				    "stderr: %.*s", r->uuid, r->exec,
				    (int)len, tail);
			else
				hooks.line(r->uuid, tail, len);
		}
		evbuffer_drain(in, len);
	}
	bufferevent_disable(bev, EV_READ);
	if (is_err)
		r->err_eof = 1;
	else
		r->out_eof = 1;
	maybe_done(r);
}

/* The process of r ended (job.c reaped it). */
static void
run_exited(pid_t pid, int status, const struct rusage *ru, void *arg)
{
	struct run	*r = arg;
	uint64_t	 cpu_us = (uint64_t)(ru->ru_utime.tv_sec +
			    ru->ru_stime.tv_sec) * 1000000 +
			    ru->ru_utime.tv_usec + ru->ru_stime.tv_usec;

	/* Its CPU, and its reaped descendants', for the idle probe: our
	 * own load never makes the host look busy. */
	reaped_ticks += cpu_us * (uint64_t)sysconf(_SC_CLK_TCK) / 1000000;
	r->exited = 1;
	r->cpu_ms = cpu_us / 1000;
	r->maxrss_kib = ru->ru_maxrss;
	if (WIFEXITED(status)) {
		r->code = WEXITSTATUS(status);
		r->signo = 0;
	} else {
		r->code = -1;
		r->signo = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		if (r->signo == SIGXCPU)
			log_warnx("Task UUID{%s} name{%s} used the %d s of CPU "
			    "its description allows (SIGXCPU)", r->uuid,
			    r->exec, r->cpu_seconds);
	}
	/* The run is over: leave nothing of it behind. */
	kill(-pid, SIGKILL);
	maybe_done(r);
}

int
runner_init(struct event_base *b, const struct runner_hooks *h,
    const struct runner_opts *o)
{
	base = b;
	hooks = *h;
	opts = *o;
	return 0;
}

static struct bufferevent *
pipe_bev(int fd, struct run *r, bufferevent_data_cb read_cb)
{
	struct bufferevent	*bev;

	evutil_make_socket_nonblocking(fd);
	bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (bev == NULL) {
		close(fd);
		return NULL;
	}
	bufferevent_setcb(bev, read_cb, NULL, pipe_event_cb, r);
	bufferevent_enable(bev, EV_READ);
	return bev;
}

/* The description's limits, as setrlimit() takes them. */
static void
set_limits(struct job_spec *spec, const struct taskdesc_limits *l)
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

int
runner_start(const struct task *t, const struct taskdesc *d, char *err,
    size_t errlen)
{
	const char	*argv[8 + 2 * TASK_INPUTS_MAX];
	char		 path[PATH_MAXLEN + 512], dir[PATH_MAX];
	char		 e_task[64], e_tmp[PATH_MAX + 8];
	char		 e_home[PATH_MAX + 8], e_user[64], e_logname[64];
	char		*env[6] = { e_task, e_tmp, NULL };
	struct job_spec	 spec;
	struct job_exit	 ended;
	struct job_fds	 fds;
	struct run	*r;
	pid_t		 pid;
	char		 args[1024] = "";
	int		 argc = 0, i, off = 0;

	/* No shell: the executable, -p, an -i per input, -x. */
	snprintf(path, sizeof path, "%s/%s", opts.tasks_dir, t->exec);
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
	if (rundir_make(t->uuid, dir, sizeof dir, err, errlen) == -1)
		return -1;
	/* Its environment: the node's, and who and where it is. */
	snprintf(e_task, sizeof e_task, "VOLERY_TASK=%s", t->uuid);
	snprintf(e_tmp, sizeof e_tmp, "TMPDIR=%s", dir);
	if (opts.user->change) {
		snprintf(e_home, sizeof e_home, "HOME=%s", opts.user->home);
		snprintf(e_user, sizeof e_user, "USER=%s", opts.user->name);
		snprintf(e_logname, sizeof e_logname, "LOGNAME=%s",
		    opts.user->name);
		env[2] = e_home;
		env[3] = e_user;
		env[4] = e_logname;
	}
	memset(&spec, 0, sizeof spec);
	spec.path = path;
	spec.argv = (char *const *)argv;
	spec.env = env;
	spec.user = opts.user;
	spec.cwd = dir;
	set_limits(&spec, &d->limits);
	spec.nice = opts.nice;
	spec.idle_io = opts.idle_io;
	spec.die_with_parent = 1;
	spec.stdin_pipe = 1;
	spec.stderr_pipe = 1;
	spec.exec_error_line = 1;
	if ((r = calloc(1, sizeof *r)) == NULL) {
		snprintf(err, errlen, "out of memory");
		rundir_remove(t->uuid);
		return -1;
	}
	ended.cb = run_exited;
	ended.arg = r;
	if ((pid = job_start(&spec, &ended, &fds, err, errlen)) == -1) {
		free(r);
		rundir_remove(t->uuid);
		return -1;
	}
	snprintf(r->uuid, sizeof r->uuid, "%s", t->uuid);
	snprintf(r->exec, sizeof r->exec, "%s", t->exec);
	r->cpu_seconds = d->limits.cpu_seconds;
	r->pid = pid;
	r->in_fd = fds.in;
	evutil_make_socket_nonblocking(r->in_fd);
	TAILQ_INSERT_TAIL(&runs, r, entry);
	nruns++;
	r->out = pipe_bev(fds.out, r, out_read_cb);
	r->err = pipe_bev(fds.err, r, err_read_cb);
	if (r->out == NULL)
		r->out_eof = 1;
	if (r->err == NULL)
		r->err_eof = 1;

	if (t->path != NULL)
		off += snprintf(args + off, sizeof args - off, " -p %s",
		    t->path);
	for (i = 0; i < t->ninputs && off < (int)sizeof args; i++)
		off += snprintf(args + off, sizeof args - off, " -i %s",
		    t->inputs[i].dataset);
	if (t->params != NULL && off < (int)sizeof args)
		snprintf(args + off, sizeof args - off, " -x %s", t->params);
	log_info("Task UUID{%s} executable %s started, pid %d, user %s, "
	    "attempt %d:%s", t->uuid, t->exec, (int)pid, opts.user->name,
	    t->attempts, args);
	return 0;
}

static void
stop_step_cb(evutil_socket_t fd, short what, void *arg)
{
	struct run	*r = arg;
	struct timeval	 tv;

	if (r->exited)
		return;
	r->stop_stage++;
	switch (r->stop_stage) {
	case 1:
		/* A suspended run must be able to hear CANCEL. */
		kill(-r->pid, SIGCONT);
		if (write(r->in_fd, "CANCEL\n", 7) == -1)
			log_debug("Task UUID{%s}: CANCEL not written: "
			    "%s", r->uuid, strerror(errno));
		break;
	case 2:
		log_warnx("Task UUID{%s} name{%s} pid %d still "
		    "running %d ms after CANCEL; SIGTERM", r->uuid, r->exec,
		    (int)r->pid, opts.grace_ms);
		kill(-r->pid, SIGTERM);
		break;
	default:
		log_warnx("Task UUID{%s} name{%s} pid %d ignored "
		    "SIGTERM; SIGKILL", r->uuid, r->exec, (int)r->pid);
		kill(-r->pid, SIGKILL);
		return;
	}
	tv.tv_sec = opts.grace_ms / 1000;
	tv.tv_usec = (opts.grace_ms % 1000) * 1000;
	evtimer_add(r->stop_timer, &tv);
}

void
runner_stop(const char *uuid)
{
	struct run	*r;

	TAILQ_FOREACH(r, &runs, entry) {
		if (strcmp(r->uuid, uuid) != 0 || r->stop_stage > 0 ||
		    r->exited)
			continue;
		r->stop_timer = evtimer_new(base, stop_step_cb, r);
		if (r->stop_timer == NULL) {
			kill(-r->pid, SIGKILL);
			return;
		}
		stop_step_cb(-1, 0, r);
		return;
	}
}

void
runner_suspend(const char *uuid, int stop)
{
	struct run	*r;

	TAILQ_FOREACH(r, &runs, entry) {
		if (strcmp(r->uuid, uuid) != 0 || r->exited)
			continue;
		if (kill(-r->pid, stop ? SIGSTOP : SIGCONT) == -1)
			log_warnx("Task UUID{%s}: cannot %s process "
			    "group %d: %s", r->uuid, stop ? "stop" : "continue",
			    (int)r->pid, strerror(errno));
		else
			log_debug("Task UUID{%s}: process group %d %s",
			    r->uuid, (int)r->pid, stop ? "stopped" :
			    "continued");
	}
}

int
runner_groups(pid_t *v, int max)
{
	struct run	*r;
	int		 n = 0;

	TAILQ_FOREACH(r, &runs, entry)
		if (!r->exited && n < max)
			v[n++] = r->pid;
	return n;
}

uint64_t
runner_reaped_ticks(void)
{
	return reaped_ticks;
}

/* Shutdown: no task outlives its node. */
void
runner_shutdown(void)
{
	struct run	*r;

	while ((r = TAILQ_FIRST(&runs)) != NULL) {
		char uuid[UUID_STRLEN + 1];
		if (!r->exited) {
			kill(-r->pid, SIGKILL);
			job_forget(r->pid);
		}
		memcpy(uuid, r->uuid, sizeof uuid);
		run_free(r);
		rundir_remove(uuid);
	}
}

int
runner_count(void)
{
	return nruns;
}
