/*
 * runner.c -- child processes of the node.  A run is complete only when
 * both its exit status (SIGCHLD) and the end of its stdout and stderr
 * have arrived, so no line it wrote is lost.
 */
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
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
#include "clock.h"
#include "cmdrun.h"
#include "command.h"
#include "contain.h"
#include "criu.h"
#include "job.h"
#include "launch.h"
#include "leftwait.h"
#include "log.h"
#include "node.h"
#include "output.h"
#include "owner.h"
#include "runas.h"
#include "rundir.h"
#include "runner.h"
#include "runproc.h"
#include "scratch.h"
#include "stop.h"
#include "throttle.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

static TAILQ_HEAD(, run)	runs = TAILQ_HEAD_INITIALIZER(runs);
static struct event_base	*base;
static struct runner_hooks	 hooks;
static struct runner_opts	 opts;
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
	stop_free(&r->stop);
	leftwait_cancel(r->left);
	criu_dump_cancel(r->dump);
	scratch_free(r->scratch);
	if (r->cap != NULL)
		output_close(r->cap);
	command_run_free(r->cmd);
	runas_free(&r->ra);
	owner_put_slot(r->slot);
	throttle_gone(r->uuid);
	free(r->result);
	free(r);
}

static void
maybe_done(struct run *r)
{
	char			 uuid[UUID_STRLEN + 1], how[64];
	struct node_exit	 e = { r->code, r->signo, r->cpu_ms,
				    r->maxrss_kib, NULL };
	struct runner_msg	*m = r->result;
	struct command_run	*cr;

	if (!r->exited || !r->out_eof || !r->err_eof || r->left != NULL ||
	    r->dump != NULL)
		return;
	if (e.signo != 0)
		snprintf(how, sizeof how, "killed by signal %d (%s)", e.signo,
		    strsignal(e.signo));
	else
		snprintf(how, sizeof how, "exit status %d", e.code);
	memcpy(uuid, r->uuid, sizeof uuid);
	hooks.leaving(uuid);
	if (r->fail_why[0] == '\0' && scratch_over(uuid, r->scratch,
	    r->fail_why, sizeof r->fail_why))
		log_warnx("Task UUID{%s} name{%s}: %s", uuid, r->exec,
		    r->fail_why);
	rundir_remove(uuid);
	if (r->restart) {	/* CRIU could not restore it: anew */
		run_free(r);
		hooks.restart(uuid);
		return;
	}
	log_info("Task UUID{%s} name{%s} pid %d ended: %s, CPU %lld.%03lld s, "
	    "peak memory %ld KiB", uuid, r->exec, (int)r->pid, how,
	    (long long)(r->cpu_ms / 1000), (long long)(r->cpu_ms % 1000),
	    r->maxrss_kib);
	/* The result, and the command state its outputs point into,
	 * outlive r for the hook. */
	r->result = NULL;
	if ((cr = r->cmd) != NULL && (m = malloc(sizeof *m)) != NULL)
		command_run_result(cr, r->code, r->signo, &r->ra, m);
	r->cmd = NULL;
	/* The node stopped it (its scratch space): that is its end. */
	if (r->fail_why[0] != '\0' && (m != NULL ||
	    (m = malloc(sizeof *m)) != NULL)) {
		memset(m, 0, sizeof *m);
		m->type = RMSG_ERROR;
		m->final = 1;
		m->message = m->buf;
		snprintf(m->buf, sizeof m->buf, "%s", r->fail_why);
	}
	e.result = m;
	run_free(r);
	hooks.exit(uuid, &e);
	free(m);
	command_run_free(cr);
}

/*
 * A line of the runner protocol.  TERMINATED is held until the process
 * exits; one that lingers after it is stopped as a cancelled run is,
 * after the grace period (its result still counts).
 */
static int
protocol_line(struct run *r, const char *line, size_t len)
{
	struct runner_msg	*m;
	char			 err[160];

	if ((m = malloc(sizeof *m)) == NULL)
		return -1;
	if (wire_runner_parse(line, len, m, err, sizeof err) == -1) {
		free(m);
		log_warnx("Task UUID{%s} name{%s}: bad line from task: %s: "
		    "%.*s", r->uuid, r->exec, err, (int)(len > 200 ? 200 :
		    len), line);
		return -1;
	}
	if (r->result != NULL)
		log_debug("Task UUID{%s} name{%s}: line after its "
		    "TERMINATED ignored", r->uuid, r->exec);
	else if (m->type != RMSG_TERMINATED)
		hooks.msg(r->uuid, m);
	else if ((r->result = wire_runner_dup(m)) != NULL)
		stop_linger(&r->stop);
	free(m);
	return 0;
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
		/* Kept: stderr, and what on stdout is not the runner
		 * protocol (which the task's state already tells). */
		if (is_err || *discard || len > RUNNER_LINE_MAX ||
		    protocol_line(r, line, len) == -1) {
			output_write(r->cap, is_err, line, len);
			output_write(r->cap, is_err, "\n", 1);
		}
		if (*discard)
			*discard = 0;
		else if (len > RUNNER_LINE_MAX)
			log_warnx("Task UUID{%s} name{%s} wrote a "
			    "line of %zu bytes; dropped", r->uuid, r->exec,
			    len);
		else if (is_err)
			log_info("Task UUID{%s} name{%s} stderr: %.*s",
			    r->uuid, r->exec, (int)len, line);
		free(line);
	}
	if (evbuffer_get_length(in) > RUNNER_LINE_MAX)
		output_write(r->cap, is_err, evbuffer_pullup(in, -1),
		    evbuffer_get_length(in));
	if (evbuffer_get_length(in) > RUNNER_LINE_MAX) {
		if (!*discard)
			log_warnx("Task UUID{%s} name{%s} wrote "
			    "more than %d bytes without a newline; dropped",
			    r->uuid, r->exec, RUNNER_LINE_MAX);
		evbuffer_drain(in, evbuffer_get_length(in));
		*discard = 1;
	}
}

/* A command's stream: kept as it is, every byte. */
static void
command_read(struct run *r, struct bufferevent *bev, int stream)
{
	struct evbuffer	*in = bufferevent_get_input(bev);
	size_t		 n = evbuffer_get_length(in);
	const char	*p;

	if (n == 0)
		return;
	p = (const char *)evbuffer_pullup(in, n);
	output_write(r->cap, stream, p, n);
	if (stream == OUTPUT_STDOUT)
		command_run_stdout(r->cmd, p, n);
	evbuffer_drain(in, n);
}

static void
out_read_cb(struct bufferevent *bev, void *arg)
{
	struct run	*r = arg;

	if (r->cmd != NULL)
		command_read(r, bev, OUTPUT_STDOUT);
	else
		read_lines(r, bev, 0);
}

static void
err_read_cb(struct bufferevent *bev, void *arg)
{
	struct run	*r = arg;

	if (r->cmd != NULL)
		command_read(r, bev, OUTPUT_STDERR);
	else
		read_lines(r, bev, 1);
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
	if (r->cmd != NULL) {
		command_read(r, bev, is_err);
		if (!is_err)
			command_run_flush(r->cmd);
	} else
		read_lines(r, bev, is_err);
	/* A last line without newline still counts. */
	if ((len = evbuffer_get_length(in)) > 0) {
		char	*tail = (char *)evbuffer_pullup(in, len);
		int	 discarded = is_err ? r->discard_err : r->discard_out;

		if (!discarded && is_err)
			log_info("Task UUID{%s} name{%s} stderr: %.*s",
			    r->uuid, r->exec, (int)len, tail);
		if (is_err || discarded || protocol_line(r, tail, len) == -1)
			output_write(r->cap, is_err, tail, len);
		evbuffer_drain(in, len);
	}
	bufferevent_disable(bev, EV_READ);
	if (is_err)
		r->err_eof = 1;
	else
		r->out_eof = 1;
	maybe_done(r);
}

/* What r left is gone: its end can be told. */
static void
left_gone(void *arg)
{
	struct run	*r = arg;

	r->left = NULL;
	maybe_done(r);
}

/* The process of r ended (job.c reaped it). */
static void
run_exited(pid_t pid, int status, const struct rusage *ru, void *arg)
{
	struct run		*r = arg;
	struct contain_usage	 use;
	uint64_t		 cpu_us = (uint64_t)(ru->ru_utime.tv_sec +
				    ru->ru_stime.tv_sec) * 1000000 +
				    ru->ru_utime.tv_usec + ru->ru_stime.tv_usec;

	/* CRIU restored the run's tree: that goes on in its place. */
	if (r->restoring != 0 && runcriu_restored(r, status, run_exited) == 0)
		return;
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
	/* The run is over: leave nothing of it behind.  Its cgroup tells
	 * what its whole tree cost; ru_maxrss counts the node's own pages
	 * the child had before it executed, so the cgroup's peak wins. */
	if (contain_ended(r->uuid, pid, &use) > 0)
		r->left = leftwait_start(r->uuid, r->exec, left_gone, r);
	if (use.cpu_ms > r->cpu_ms)
		r->cpu_ms = use.cpu_ms;
	if (use.peak_kib >= 0)
		r->maxrss_kib = use.peak_kib;
	maybe_done(r);
}

int
runner_init(struct event_base *b, const struct runner_hooks *h,
    const struct runner_opts *o)
{
	base = b;
	hooks = *h;
	opts = *o;
	stop_init(b, o->grace_ms);
	leftwait_init(b);
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

static int	limit_reached(void *);
static void	scratch_full(const char *, void *);

/* A PROGRESS line on a command's stdout. */
static void
command_progress(const struct runner_msg *m, void *uuid)
{
	hooks.msg(uuid, m);
}

int
runner_start(const struct task *t, const struct taskdesc *d,
    char *const *secrets, char *err, size_t errlen)
{
	const char	*argv[CMD_ARGS_MAX + 8 + 2 * TASK_INPUTS_MAX + 1];
	char		*env[16 + TASK_INPUTS_MAX + CMD_ENV_MAX + CMD_SECRETS_MAX];
	char		 path[PATH_MAX + NAME_MAXLEN + 2], dir[PATH_MAX];
	char		 args[1024] = "", cgroup[PATH_MAX];
	struct strings	 k = { NULL, 0 };
	struct command_run *cs = NULL;
	struct job_spec	 spec;
	struct job_exit	 ended;
	struct job_fds	 fds;
	struct run	*r = NULL;
	struct output	*cap = NULL;
	struct runas	 ra;
	struct contain_bounds bounds;
	int		 slot = owner_take_slot(t);
	const char	*ckpt;
	pid_t		 pid, restoring;

	if (owner_of(t, slot, &ra, err, errlen) == -1) {
		owner_put_slot(slot);
		return -1;
	}
	if (t->cmd != NULL) {
		if (cmdrun_find(t, &ra, path, sizeof path, err,
		    errlen) == -1 ||
		    (cs = command_run_new(t, err, errlen)) == NULL)
			return -1;
		if (launch_command_argv(t, &k, argv, CMD_ARGS_MAX + TASK_INPUTS_MAX,
		    args, sizeof args) == -1)
			goto nomem;
	} else
		launch_desc_argv(opts.tasks_dir, t, path, sizeof path, argv, args,
		    sizeof args);
	if (launch_rundir(t, &ra, dir, sizeof dir, err, errlen) == -1)
		goto fail;
	ckpt = launch_checkpoint(t, dir, &ra, &k, argv);
	if (launch_env(t, dir, &ra, secrets, ckpt, &k, env,
	    sizeof env / sizeof env[0]) == -1 ||
	    (r = calloc(1, sizeof *r)) == NULL)
		goto nomem_dir;
	if ((cap = output_open(t, &ra, err, errlen)) == NULL)
		goto fail_dir;
	memset(&spec, 0, sizeof spec);
	spec.path = path;
	spec.argv = (char *const *)argv;
	spec.env = env;
	spec.user = &ra;
	spec.cwd = t->cmd != NULL && t->cmd->cwd != NULL ? t->cmd->cwd : dir;
	if (d != NULL)
		launch_limits(&spec, &d->limits);
	spec.nice = opts.nice;
	spec.idle_io = opts.idle_io;
	spec.die_with_parent = 1;
	/* Its --mem, else the node's default; the node's process cap. */
	bounds.procs = opts.max_procs;
	bounds.memory_bytes = (t->req_memory_mb > 0 ? t->req_memory_mb :
	    opts.memory_mb) << 20;
	contain_prepare(t->uuid, &bounds, &spec, cgroup, sizeof cgroup);
	spec.cgroup = cgroup;
	spec.stdin_pipe = t->cmd == NULL;	/* a command reads nothing */
	spec.stderr_pipe = 1;
	spec.exec_error_line = t->cmd == NULL;
	restoring = runcriu_prepare(t, ckpt, dir, &ra, &k, &spec, argv, env);
	ended.cb = run_exited;
	ended.arg = r;
	if ((pid = job_start(&spec, &ended, &fds, err, errlen)) == -1) {
		contain_ended(t->uuid, -1, NULL);
		goto fail_dir;
	}
	contain_started(t->uuid, pid);
	strings_free(&k);
	snprintf(r->uuid, sizeof r->uuid, "%s", t->uuid);
	snprintf(r->exec, sizeof r->exec, "%s", t->exec);
	r->cpu_seconds = d != NULL ? d->limits.cpu_seconds : 0;
	r->pid = pid;
	r->restoring = restoring;
	if (restoring != 0)	/* the restore is timed, no other start */
		r->criu_ms = clock_node_ms();
	r->in_fd = fds.in;
	r->stop = (struct stopper){ r->uuid, r->exec, pid, fds.in,
	    &r->exited, 0, 0, NULL, 0 };
	r->scratch = scratch_watch(t->uuid, scratch_full, r);
	r->cap = cap;
	r->cmd = cs;
	r->ra = ra;		/* r holds it now */
	r->slot = slot;
	if (r->in_fd != -1)
		evutil_make_socket_nonblocking(r->in_fd);
	TAILQ_INSERT_TAIL(&runs, r, entry);
	r->out = pipe_bev(fds.out, r, out_read_cb);
	r->err = pipe_bev(fds.err, r, err_read_cb);
	if (r->out == NULL)
		r->out_eof = 1;
	if (r->err == NULL)
		r->err_eof = 1;
	if (cs != NULL) {
		command_run_on_progress(cs, command_progress, r->uuid);
		(void)command_run_arm_limit(cs, base, limit_reached, r);
	}
	log_info("Task UUID{%s} %s %s started, pid %d, user %s, attempt "
	    "%d:%s", t->uuid, t->cmd != NULL ? "command" : "executable",
	    t->cmd != NULL ? t->cmd->argv[0] : t->exec, (int)pid,
	    r->ra.name, t->attempts, args);
	return 0;
nomem_dir:
	snprintf(err, errlen, "out of memory");
fail_dir:
	rundir_remove(t->uuid);
	goto fail;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	if (cap != NULL)
		output_close(cap);
	free(r);
	command_run_free(cs);
	strings_free(&k);
	runas_free(&ra);
	owner_put_slot(slot);
	return -1;
}

/* Its run directory is over max_scratch_mb: it fails, stopped. */
static void
scratch_full(const char *why, void *arg)
{
	struct run	*r = arg;

	snprintf(r->fail_why, sizeof r->fail_why, "%s", why);
	if (stop_begin(&r->stop, 0))
		log_warnx("Task UUID{%s} name{%s} pid %d: %s; stopped",
		    r->uuid, r->exec, (int)r->pid, why);
}

/* A command ran out of its time: stop its whole tree. */
static int
limit_reached(void *arg)
{
	struct run	*r = arg;

	if (!stop_begin(&r->stop, 0))
		return 0;
	log_warnx("Task UUID{%s} name{%s} pid %d reached its time limit of "
	    "%lld s; stopped", r->uuid, r->exec, (int)r->pid,
	    command_run_limit_s(r->cmd));
	return 1;
}

void
runner_stop(const char *uuid, int first_signal)
{
	struct run	*r;

	TAILQ_FOREACH(r, &runs, entry)
		if (strcmp(r->uuid, uuid) == 0 && stop_begin(&r->stop,
		    first_signal))
			return;
}

void
runner_dump(const char *uuid)
{
	struct run	*r;
	char		 dir[PATH_MAX];

	TAILQ_FOREACH(r, &runs, entry)
		if (strcmp(r->uuid, uuid) == 0) {
			rundir_path(uuid, dir, sizeof dir);
			runcriu_dump(r, dir, maybe_done);
			return;
		}
}

void
runner_suspend(const char *uuid, int stop, int throttle)
{
	struct run	*r;

	TAILQ_FOREACH(r, &runs, entry) {
		if (strcmp(r->uuid, uuid) != 0 || r->exited)
			continue;
		if (throttle) {		/* slowed, not stopped */
			(void)throttle_run(r->uuid, r->pid, stop);
			continue;
		}
		if (r->cmd != NULL)
			command_run_pause(r->cmd, stop);
		if (kill(-r->pid, stop ? SIGSTOP : SIGCONT) == -1)
			log_warnx("Task UUID{%s}: cannot %s process "
			    "group %d: %s", r->uuid, stop ? "stop" : "continue",
			    (int)r->pid, strerror(errno));
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
			contain_ended(r->uuid, r->pid, NULL);
			job_forget(r->pid);
		}
		memcpy(uuid, r->uuid, sizeof uuid);
		run_free(r);
		rundir_remove(uuid);
	}
}
