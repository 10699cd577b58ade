/*
 * idle.c -- the idle probes (DESIGN.md section 6).  Every idle_check_s:
 *   - CPU from /proc/stat, minus our runs' process groups (/proc/PID/stat
 *     for the live ones, wait4() for the ended ones);
 *   - keyboard and mouse: access times of the session ttys (utmp, else
 *     /dev/pts and /dev/ttyN), /dev/console and /dev/input;
 *   - logind's IdleHint/LockedHint (through loginctl) when logind runs;
 *   - the owner's idle_command, which prints idle seconds.
 * The commands run in the background and their last answers are used,
 * so a probe never blocks the node.  Parsing and arithmetic are in
 * src/core/probe.c, the decision in src/core/volunteer.c.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <utmpx.h>

#include <event2/event.h>

#include "clock.h"
#include "config.h"
#include "idle.h"
#include "job.h"
#include "log.h"
#include "probe.h"
#include "runner.h"

#define PROBE_OUTPUT_MAX 4096
#define PROBE_GROUPS_MAX 256

/* The logind query: every session's hints, in one shell line. */
static const char logind_query[] =
    "s=$(loginctl list-sessions --no-legend 2>/dev/null | "
    "awk '{print $1}'); [ -n \"$s\" ] && exec loginctl show-session $s "
    "-p Class -p IdleHint -p IdleSinceHint -p LockedHint";

/* A command run in the background, its output read as it comes. */
struct probe_cmd {
	const char	*what;		/* for the log */
	const char	*line;		/* for /bin/sh -c */
	pid_t		 pid;		/* 0: not running */
	int		 fd;
	struct event	*ev;
	char		 out[PROBE_OUTPUT_MAX];
	size_t		 len;
	void		(*done)(struct probe_cmd *);
	int		 complained;	/* about a bad answer */
};

static struct {
	const struct config	*cfg;
	struct event_base	*base;
	struct idle_hooks	 hooks;
	struct event		*tick;
	struct vol		 vol;
	struct vol_policy	 policy;
	struct vol_reading	 last;
	const char		*state;		/* the last decision's name */
	int			 asleep;	/* SLEEP now, not yet over */

	struct cpu_sample	 cpu;		/* the previous sample */
	int			 have_cpu;
	uint64_t		 own;		/* our runs' ticks then */

	struct probe_cmd	 command;	/* idle_command */
	int64_t			 command_idle;	/* its last answer, or -1 */
	int64_t			 command_at;	/* when it answered */

	struct probe_cmd	 logind;
	int			 have_logind;
	struct logind_info	 sessions;
	int64_t			 locked_since;
} idle;

/* A small file of /proc, whole; -1 on error. */
static ssize_t
read_small(const char *path, char *buf, size_t size)
{
	ssize_t	n, off = 0;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while ((size_t)off < size &&
	    (n = read(fd, buf + off, size - off)) > 0)
		off += n;
	close(fd);
	return off;
}

/* CPU ticks of every process in our runs' groups, alive now. */
static uint64_t
own_live_ticks(void)
{
	pid_t			 groups[PROBE_GROUPS_MAX];
	struct pid_sample	 ps;
	struct dirent		*de;
	DIR			*d;
	char			 path[300], buf[1024];
	uint64_t		 sum = 0;
	ssize_t			 len;
	int			 n, i;

	if ((n = runner_groups(groups, PROBE_GROUPS_MAX)) == 0)
		return 0;
	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
		if ((len = read_small(path, buf, sizeof buf)) <= 0 ||
		    probe_parse_pid(buf, len, &ps) == -1)
			continue;
		for (i = 0; i < n; i++)
			if (ps.pgrp == groups[i]) {
				sum += ps.ticks;
				break;
			}
	}
	closedir(d);
	return sum;
}

/* Busy percent of the CPU not used by our runs since the last call. */
static int
sample_cpu(void)
{
	struct cpu_sample	 cur;
	char			 buf[512];
	uint64_t		 own, delta;
	ssize_t			 len;
	int			 percent = -1;

	len = read_small("/proc/stat", buf, sizeof buf);
	if (len <= 0 || probe_parse_cpu(buf, len, &cur) == -1)
		return -1;
	own = runner_reaped_ticks() + own_live_ticks();
	/* A run's grandchild reaped by init takes its ticks with it. */
	delta = own > idle.own ? own - idle.own : 0;
	if (idle.have_cpu)
		percent = probe_cpu_percent(&idle.cpu, &cur, delta);
	idle.cpu = cur;
	idle.own = own;
	idle.have_cpu = 1;
	return percent;
}

/* Keep the latest access time of path in *newest. */
static void
atime_of(const char *path, time_t *newest)
{
	struct stat	st;

	if (stat(path, &st) == 0 && S_ISCHR(st.st_mode) &&
	    st.st_atime > *newest)
		*newest = st.st_atime;
}

/* Entries of dir whose names start with prefix and then a digit. */
static void
atimes_in(const char *dir, const char *prefix, time_t *newest)
{
	struct dirent	*de;
	DIR		*d;
	char		 path[300];
	size_t		 plen = strlen(prefix);

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, prefix, plen) != 0 ||
		    de->d_name[plen] < '0' || de->d_name[plen] > '9')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		atime_of(path, newest);
	}
	closedir(d);
}

int
idle_user_present(const char *user)
{
	struct utmpx	*u;
	char		 name[sizeof u->ut_user + 1];
	int		 here = 0;

	setutxent();
	while (!here && (u = getutxent()) != NULL) {
		if (u->ut_type != USER_PROCESS)
			continue;
		memcpy(name, u->ut_user, sizeof u->ut_user);
		name[sizeof u->ut_user] = '\0';
		/* At this host: no remote host, or an X display (":0"). */
		here = strcmp(name, user) == 0 && (u->ut_host[0] == '\0' ||
		    u->ut_host[0] == ':');
	}
	endutxent();
	return here;
}

/* Seconds since a session tty was read from: utmp's, else all. */
static int64_t
tty_vote(time_t now)
{
	struct utmpx	*u;
	time_t		 newest = 0;
	char		 path[64], line[sizeof u->ut_line + 1];
	int		 sessions = 0;

	setutxent();
	while ((u = getutxent()) != NULL) {
		if (u->ut_type != USER_PROCESS)
			continue;
		/* ut_line need not end in a NUL. */
		memcpy(line, u->ut_line, sizeof u->ut_line);
		line[sizeof u->ut_line] = '\0';
		if (line[0] == '\0' || line[0] == ':' ||
		    strstr(line, "..") != NULL)
			continue;	/* an X display, or not a tty */
		snprintf(path, sizeof path, "/dev/%s", line);
		atime_of(path, &newest);
		sessions++;
	}
	endutxent();
	if (sessions == 0) {
		atimes_in("/dev/pts", "", &newest);
		atimes_in("/dev", "tty", &newest);
	}
	return newest > 0 ? (now > newest ? now - newest : 0) : -1;
}

/* Seconds since the console or an input device was read from. */
static int64_t
device_vote(time_t now)
{
	time_t	newest = 0;

	atime_of("/dev/console", &newest);
	atimes_in("/dev/input", "event", &newest);
	atimes_in("/dev/input", "mouse", &newest);
	atime_of("/dev/input/mice", &newest);
	return newest > 0 ? (now > newest ? now - newest : 0) : -1;
}

static void
cmd_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct probe_cmd	*c = arg;
	ssize_t			 n;

	(void)what;
	n = read(fd, c->out + c->len, sizeof c->out - 1 - c->len);
	if (n > 0) {
		c->len += n;
		c->out[c->len] = '\0';
		if (c->len < sizeof c->out - 1)
			return;
		log_warnx("idle probe %s: more than %zu bytes of "
		    "output; ignored", c->what, sizeof c->out);
		c->len = 0;
	} else if (n == -1 && errno == EINTR)
		return;
	/* The end of its output: it is done (job.c reaps it). */
	event_free(c->ev);
	c->ev = NULL;
	close(c->fd);
	c->pid = 0;
	c->done(c);
}

static void
cmd_stop(struct probe_cmd *c)
{
	if (c->pid != 0)
		kill(-c->pid, SIGKILL);
	if (c->ev != NULL) {
		event_free(c->ev);
		close(c->fd);
	}
	c->ev = NULL;
	c->pid = 0;
}

/* Start c unless it still runs; one still running is late: kill it. */
static void
cmd_start(struct probe_cmd *c)
{
	const char	*argv[] = { "sh", "-c", c->line, NULL };
	struct job_spec	 spec;
	struct job_fds	 fds;
	char		 err[128];
	pid_t		 pid;

	if (c->pid != 0) {
		log_warnx("idle probe %s took longer than %d s; "
		    "killed", c->what, idle.cfg->idle_check_s);
		cmd_stop(c);
	}
	memset(&spec, 0, sizeof spec);
	spec.path = "/bin/sh";
	spec.argv = (char *const *)argv;
	spec.die_with_parent = 1;
	/* Nobody waits for its status: the end of its output is enough. */
	if ((pid = job_start(&spec, NULL, &fds, err, sizeof err)) == -1) {
		log_debug("idle probe %s: %s", c->what, err);
		return;
	}
	c->pid = pid;
	c->fd = fds.out;
	c->len = 0;
	c->out[0] = '\0';
	c->ev = event_new(idle.base, c->fd, EV_READ | EV_PERSIST, cmd_read_cb,
	    c);
	if (c->ev == NULL || event_add(c->ev, NULL) == -1) {
		kill(-pid, SIGKILL);
		close(c->fd);
		c->pid = 0;
	}
}

static void
command_done(struct probe_cmd *c)
{
	int64_t	secs = probe_parse_idle_seconds(c->out, c->len);
	size_t	shown = strcspn(c->out, "\n");	/* c->out ends in a NUL */

	if (secs < 0 && !c->complained)
		log_warnx("idle_command printed '%.*s', not a "
		    "number of idle seconds; its vote is ignored",
		    (int)(shown < 40 ? shown : 40), c->out);
	c->complained = secs < 0;
	idle.command_idle = secs;
	idle.command_at = clock_wall_ms();
}

static void
logind_done(struct probe_cmd *c)
{
	if (probe_parse_logind(c->out, c->len, &idle.sessions) == -1)
		memset(&idle.sessions, 0, sizeof idle.sessions);
}

/* What the probes say now. */
static void
read_probes(struct vol_reading *r)
{
	struct tm	tm;
	time_t		now = time(NULL);
	int64_t		votes[4];
	int		n = 0;

	r->now_ms = clock_wall_ms();
	localtime_r(&now, &tm);
	r->weekday = tm.tm_wday;
	r->minute = tm.tm_hour * 60 + tm.tm_min;
	/* A dedicated node volunteers whatever the desk does: its probes
	 * (a /dev scan, /proc/stat) would be read for nothing. */
	if (idle.policy.mode == VOL_DEDICATED) {
		r->cpu_busy_percent = -1;
		r->input_idle_s = -1;
		return;
	}
	r->cpu_busy_percent = sample_cpu();
	votes[n++] = tty_vote(now);
	votes[n++] = device_vote(now);
	if (idle.have_logind)
		votes[n++] = probe_logind_idle(&idle.sessions, r->now_ms,
		    &idle.locked_since);
	if (idle.command_idle >= 0)
		votes[n++] = idle.command_idle +
		    (r->now_ms - idle.command_at) / 1000;
	r->input_idle_s = probe_input_idle(votes, n);
}

static void
decide(int first, struct vol_decision *out)
{
	struct vol_decision	d;
	char			input[32] = "?", cpu[32] = "?";

	d = vol_decide(&idle.vol, &idle.policy, &idle.last,
	    idle.hooks.suspendable());
	if (idle.asleep) {	/* its batch window ahead still told */
		d.volunteer = d.suspend = d.throttle = d.vacate = 0;
		d.name = "asleep";
	}
	if (idle.state == NULL || strcmp(idle.state, d.name) != 0) {
		if (idle.last.input_idle_s >= 0)
			snprintf(input, sizeof input, "%llds",
			    (long long)idle.last.input_idle_s);
		if (idle.last.cpu_busy_percent >= 0)
			snprintf(cpu, sizeof cpu, "%d%%",
			    idle.last.cpu_busy_percent);
		log_msg(VLOG_NORMAL, "node %s volunteer state %s -> %s (no "
		    "input for %s, CPU not ours %s%s)", idle.cfg->name,
		    idle.state != NULL ? idle.state : "none", d.name, input,
		    cpu, idle.last.force == VOL_FORCE_ON ? ", IDLE on" :
		    idle.last.force == VOL_FORCE_OFF ? ", IDLE off" : "");
	}
	idle.state = d.name;
	if (first)
		*out = d;
	else
		idle.hooks.decided(&d);
}

/* The idle command and logind, asked in the background (not by a
 * dedicated node: see read_probes). */
static void
ask_commands(void)
{
	if (idle.policy.mode == VOL_DEDICATED)
		return;
	if (idle.cfg->idle_command[0] != '\0')
		cmd_start(&idle.command);
	if (idle.have_logind)
		cmd_start(&idle.logind);
}

static void
tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct timeval	tv = { idle.cfg->idle_check_s, 0 };
	enum vol_force	force = idle.last.force;

	(void)fd;
	(void)what;
	(void)arg;
	read_probes(&idle.last);
	idle.last.force = force;
	decide(0, NULL);
	ask_commands();		/* answers for the next round */
	evtimer_add(idle.tick, &tv);
}

int
idle_init(struct event_base *base, const struct config *cfg,
    const struct idle_hooks *hooks, struct vol_decision *first)
{
	struct timeval	tv = { cfg->idle_check_s, 0 };

	memset(&idle, 0, sizeof idle);
	idle.base = base;
	idle.cfg = cfg;
	idle.hooks = *hooks;
	idle.command_idle = -1;
	idle.locked_since = -1;
	vol_init(&idle.vol);

	idle.policy.mode = cfg->mode;
	idle.policy.input_idle_s = cfg->input_idle_s;
	idle.policy.cpu_idle_percent = cfg->cpu_idle_percent;
	idle.policy.suspend_input_s = cfg->suspend_input_s;
	idle.policy.resume_idle_s = cfg->resume_idle_s;
	idle.policy.vacate_after_s = cfg->vacate_after_s;
	idle.policy.on_return = cfg->on_return;
	idle.policy.throttle_percent = cfg->throttle_percent;
	idle.policy.nwindows = cfg->nbatch;
	memcpy(idle.policy.windows, cfg->batch, sizeof idle.policy.windows);

	idle.command.what = "idle_command";
	idle.command.line = cfg->idle_command;
	idle.command.done = command_done;
	idle.logind.what = "logind";
	idle.logind.line = logind_query;
	idle.logind.done = logind_done;
	/* systemd's own test that it is running (sd_booted): a sessions
	 * directory left on a machine booted without it would have us fork
	 * a shell every idle_check_s for no answer. */
	idle.have_logind = access("/run/systemd/system", F_OK) == 0 &&
	    access("/run/systemd/sessions", X_OK) == 0;

	if ((idle.tick = evtimer_new(base, tick_cb, NULL)) == NULL ||
	    evtimer_add(idle.tick, &tv) == -1)
		return -1;
	read_probes(&idle.last);
	idle.last.force = VOL_AUTO;
	decide(1, first);
	ask_commands();
	return 0;
}

void
idle_force(enum vol_force force)
{
	idle.last.force = force;
	idle.last.now_ms = clock_wall_ms();
	decide(0, NULL);
}

void
idle_sleep(int now)
{
	idle.asleep = now;
	decide(0, NULL);
	if (now)
		idle.hooks.sleeping();
}

/* The sleep command ended: if it failed, the host is not asleep. */
static void
suspend_done(pid_t pid, int status, const struct rusage *ru, void *arg)
{
	(void)pid;
	(void)ru;
	(void)arg;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	log_warnx("the sleep command failed (%s, status %d): volunteering "
	    "again", idle.cfg->sleep_command, status);
	idle_sleep(0);
}

void
idle_suspend_host(void)
{
	char			 line[IDLE_COMMAND_MAX + 32];
	const char		*argv[] = { "sh", "-c", line, NULL };
	struct job_spec		 spec;
	struct job_exit		 done = { suspend_done, NULL };
	struct job_fds		 fds;
	char			 err[128];

	idle_sleep(1);
	/* Its output goes nowhere: nobody reads it. */
	snprintf(line, sizeof line, "exec >/dev/null 2>&1; %s",
	    idle.cfg->sleep_command);
	memset(&spec, 0, sizeof spec);
	spec.path = "/bin/sh";
	spec.argv = (char *const *)argv;
	log_msg(VLOG_NORMAL, "putting this host to sleep: %s",
	    idle.cfg->sleep_command);
	if (job_start(&spec, &done, &fds, err, sizeof err) == -1) {
		log_warnx("cannot put this host to sleep (%s): %s",
		    idle.cfg->sleep_command, err);
		idle_sleep(0);
		return;
	}
	if (fds.out != -1)
		close(fds.out);
}

void
idle_shutdown(void)
{
	cmd_stop(&idle.command);
	cmd_stop(&idle.logind);
	if (idle.tick != NULL)
		event_free(idle.tick);
	idle.tick = NULL;
}
