/*
 * contain.c -- nothing of a run outlives it, or its node (contain.h).
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "contain.h"
#include "job.h"
#include "leftover.h"
#include "log.h"
#include "task.h"

#define CONTAIN_PIDS	0x1	/* run cgroups hold pids.max */
#define CONTAIN_MEMORY	0x2	/* ... and memory.max */

static struct {
	char	dir[PATH_MAX];		/* this node's cgroup for runs, or "" */
	char	marker[PATH_MAX + 16];	/* "TMPDIR=<state_dir>/runs/" */
	int	watch_fd;		/* to the watchdog; -1 none */
	int	leftovers;		/* run cgroups not removed yet */
	int	no_peak;		/* no memory.peak in them */
	int	bounds;			/* CONTAIN_*: controllers enabled */
	char	how[32];		/* contain_how() */
} ct = { "", "", -1, 0, 0, 0, "process-group" };

int
contain_cgroups(void)
{
	return ct.dir[0] != '\0';
}

const char *
contain_how(void)
{
	return ct.how;
}

/* Write s into the file dir/name: 0, or -1 (errno set). */
static int
write_file(const char *dir, const char *name, const char *s)
{
	char	path[PATH_MAX + 32];
	int	fd, rc;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return rc;
}

/*
 * Give the runs' cgroups the pids and memory controllers, where this
 * hierarchy has them (a cgroup v2 host; a hybrid one keeps them in v1,
 * and the runner falls back to rlimits).  Our parent must pass them
 * down too: it may refuse (processes of its own), and then it is as if
 * the host had none.
 */
static void
enable_bounds(const char *parent)
{
	static const struct { const char *name; int bit; } c[] = {
		{ "pids", CONTAIN_PIDS }, { "memory", CONTAIN_MEMORY } };
	char	on[16], path[PATH_MAX + 32], have[256];
	size_t	i;
	int	fd;
	ssize_t	n;

	for (i = 0; i < sizeof c / sizeof c[0]; i++) {
		snprintf(on, sizeof on, "+%s", c[i].name);
		(void)write_file(parent, "cgroup.subtree_control", on);
		(void)write_file(ct.dir, "cgroup.subtree_control", on);
	}
	snprintf(path, sizeof path, "%s/cgroup.subtree_control", ct.dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, have, sizeof have - 1);
	close(fd);
	have[n > 0 ? n : 0] = '\0';
	for (i = 0; i < sizeof c / sizeof c[0]; i++)
		if (strstr(have, c[i].name) != NULL)
			ct.bounds |= c[i].bit;
}

/* The cgroup2 mount point, from /proc/self/mountinfo; -1 if none. */
static int
cgroup2_mount(char *mnt, size_t size)
{
	FILE	*f = fopen("/proc/self/mountinfo", "r");
	char	 line[4096], point[PATH_MAX], *dash;
	int	 found = -1;

	if (f == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof line, f) != NULL) {
		if ((dash = strstr(line, " - cgroup2 ")) == NULL ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		if (snprintf(mnt, size, "%s", point) < (int)size)
			found = 0;
	}
	fclose(f);
	return found;
}

/* Our own cgroup in the unified hierarchy ("0::/path"); -1 if none. */
static int
own_cgroup(char *path, size_t size)
{
	FILE	*f = fopen("/proc/self/cgroup", "r");
	char	 line[4096];
	int	 found = -1;

	if (f == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof line, f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			if (snprintf(path, size, "%s", line + 3) < (int)size)
				found = 0;
		}
	fclose(f);
	return found;
}

static int	has_processes(const char *);

/*
 * Kill every process of the cgroup at dir and remove it.  The kill is
 * asynchronous: the dir stays busy until the last process is gone, which
 * we wait for up to wait_ms (in the watchdog and at start; the node's
 * loop does not wait, and removes it at its next run or stop).  Whether
 * processes are left, killed but not gone yet.
 */
static int
cgroup_kill(const char *dir, int wait_ms)
{
	struct timespec	ms = { 0, 1000000 };

	if (rmdir(dir) == 0 || errno != EBUSY)
		return 0;	/* its tree is gone already: the usual end */
	/* An old kernel has none: kill(-pgid) does. */
	(void)write_file(dir, "cgroup.kill", "1");
	while (rmdir(dir) == -1 && errno == EBUSY) {
		if (wait_ms-- <= 0) {
			ct.leftovers++;		/* for sweep_empty() */
			/* Busy with no process left: nothing to wait for. */
			return has_processes(dir);
		}
		nanosleep(&ms, NULL);
	}
	return 0;
}

/* Empty run-* cgroups the loop could not remove yet (if there are):
 * removed now. */
static void
sweep_empty(void)
{
	DIR		*d;
	struct dirent	*e;
	char		 path[PATH_MAX];

	if (ct.dir[0] == '\0' || ct.leftovers == 0 ||
	    (d = opendir(ct.dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "run-", 4) == 0 &&
		    snprintf(path, sizeof path, "%s/%s", ct.dir, e->d_name) <
		    (int)sizeof path && rmdir(path) == 0 && ct.leftovers > 0)
			ct.leftovers--;		/* busy: a live run's */
	closedir(d);
}

/*
 * Whether the cgroup at dir holds a process that has not finished dying.
 * cgroup.procs is not that: it stops listing a process as soon as its
 * exit begins, while the kernel is still tearing it down (its memory
 * freed, its state still R or D); "populated" stays 1 until the last
 * one leaves the cgroup on its way to being a zombie.
 */
static int
has_processes(const char *dir)
{
	char	path[PATH_MAX + 16], buf[256], *p;
	ssize_t	len;
	int	fd, n = 0;

	snprintf(path, sizeof path, "%s/cgroup.events", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		n = (p = strstr(buf, "populated ")) != NULL &&
		    p[strlen("populated ")] == '1';
	}
	return n;
}

/* Each run-* cgroup in dir: killed and removed (an earlier incarnation's
 * leftovers at start); how many held processes. */
static int
kill_children(const char *dir)
{
	DIR		*d = opendir(dir);
	struct dirent	*e;
	char		 path[PATH_MAX];
	int		 n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "run-", 4) != 0 ||
		    snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
		    (int)sizeof path)
			continue;
		n += has_processes(path);
		cgroup_kill(path, 1000);
	}
	closedir(d);
	return n;
}

/* The watchdog's runs: a process group each, and its task (its cgroup
 * is run-<uuid> under ours, if any). */
struct watched_run {
	pid_t	pgid;
	char	uuid[UUID_STRLEN + 1];
};

/*
 * The watchdog, a child of the node: it reads "+pid uuid" and "-pid"
 * lines on fd 3, and when the pipe closes -- the node stopped, or died -- kills
 * every run it knows of, and what carries the marker, and ends.  It
 * ignores the signals a terminal sends the node's group, so that it is
 * there when the node goes.
 */
static void __attribute__((noreturn))
watchdog(int fd)
{
	static struct watched_run	 runs[4096];
	char				 buf[8192], *line, *nl;
	char				 dir[PATH_MAX];
	size_t				 len = 0, n = 0, i;
	ssize_t				 got;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "volery-watch");
	syscall(SYS_close_range, 4, ~0U, 0);	/* the pipe is fd 3 */
	for (;;) {
		got = read(3, buf + len, sizeof buf - 1 - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += got;
		buf[len] = '\0';
		for (line = buf; (nl = strchr(line, '\n')) != NULL;
		    line = nl + 1) {
			*nl = '\0';
			pid_t pid = (pid_t)atoi(line + 1);
			if (line[0] == '+' && n < sizeof runs / sizeof runs[0]) {
				char *sp = strchr(line, ' ');
				runs[n].pgid = pid;
				snprintf(runs[n].uuid, sizeof runs[n].uuid,
				    "%s", sp != NULL ? sp + 1 : "");
				n++;
			} else if (line[0] == '-') {
				for (i = 0; i < n; i++)
					if (runs[i].pgid == pid)
						runs[i] = runs[--n];
			}
		}
		len = strlen(line);
		memmove(buf, line, len + 1);
	}
	for (i = 0; i < n; i++) {
		if (ct.dir[0] != '\0' && snprintf(dir, sizeof dir,
		    "%s/run-%s", ct.dir, runs[i].uuid) < (int)sizeof dir)
			cgroup_kill(dir, 1000);
		kill(-runs[i].pgid, SIGKILL);
	}
	if (ct.dir[0] == '\0' && ct.marker[0] != '\0')
		leftover_kill_marked(ct.marker);
	/* Leave no empty cgroup of a node that died: a next incarnation
	 * that made it again already makes it anew (contain_prepare). */
	if (ct.dir[0] != '\0') {
		sweep_empty();
		(void)rmdir(ct.dir);
	}
	_exit(0);
}

static void
watch_send(const char *line)
{
	size_t	len = strlen(line);

	if (ct.watch_fd != -1 && write(ct.watch_fd, line, len) != (ssize_t)len)
		log_warnx("watchdog: %s", strerror(errno));
}

void
contain_init(const char *state_dir, const char *node)
{
	char	mnt[PATH_MAX], own[PATH_MAX / 2], abs[PATH_MAX];
	int	n;

	if (realpath(state_dir, abs) == NULL)
		snprintf(abs, sizeof abs, "%s", state_dir);
	snprintf(ct.marker, sizeof ct.marker, "TMPDIR=%s/runs/", abs);
	ct.dir[0] = '\0';
	/* One cgroup per node (several may share a host), under ours. */
	if (cgroup2_mount(mnt, sizeof mnt) == 0 &&
	    own_cgroup(own, sizeof own) == 0 &&
	    snprintf(ct.dir, sizeof ct.dir, "%s%s/volery-%s-%08llx", mnt,
	    strcmp(own, "/") == 0 ? "" : own, node,
	    (unsigned long long)(task_hash(abs) & 0xffffffff)) <
	    (int)sizeof ct.dir && (mkdir(ct.dir, 0755) == 0 ||
	    errno == EEXIST) && access(ct.dir, W_OK) == 0) {
		if ((n = kill_children(ct.dir)) > 0)
			log_warnx("killed the %d run%s an earlier start of this "
			    "node left running", n, n == 1 ? "" : "s");
		if (snprintf(abs, sizeof abs, "%s%s", mnt, own) <
		    (int)sizeof abs)
			enable_bounds(abs);
		snprintf(ct.how, sizeof ct.how, "cgroup%s%s",
		    ct.bounds & CONTAIN_PIDS ? "-pids" : "",
		    ct.bounds & CONTAIN_MEMORY ? "-memory" : "");
		log_info("runs are contained in cgroups under %s (%s)", ct.dir,
		    ct.bounds == (CONTAIN_PIDS | CONTAIN_MEMORY) ? "with "
		    "pids.max and memory.max" : "no pids or memory controller "
		    "here: runs get rlimits instead");
	} else {
		ct.dir[0] = '\0';
		if ((n = leftover_kill_marked(ct.marker)) > 0)
			log_warnx("killed %d process%s an earlier start of "
			    "this node left running", n, n == 1 ? "" : "es");
		log_info("runs are contained in process groups (no cgroup v2 "
		    "this node may write)");
	}
	/* Orphans of runs become ours (reaped at once, found at a run's
	 * end without cgroups), not init's. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) == -1)
		log_warnx("not a subreaper: %s", strerror(errno));
	else if (ct.dir[0] == '\0')
		snprintf(ct.how, sizeof ct.how, "subreaper");
	log_info("containment: %s", ct.how);
	if ((ct.watch_fd = job_watchdog(watchdog)) == -1)
		log_warnx("no watchdog: the runs of a node that dies may "
		    "outlive it until it starts again");
}

/* What the run's cgroup does not bound, its rlimits do. */
static void
rlimit_bounds(const struct contain_bounds *b, int held,
    struct job_spec *spec)
{
	struct job_limit	*j = &spec->limits[spec->nlimits];

	if (!(held & CONTAIN_PIDS) && b->procs > 0) {
		j->resource = RLIMIT_NPROC;
		j->value.rlim_cur = j->value.rlim_max = b->procs;
		j++;
	}
	if (!(held & CONTAIN_MEMORY) && b->memory_bytes > 0) {
		j->resource = RLIMIT_DATA;
		j->value.rlim_cur = j->value.rlim_max = b->memory_bytes;
		j++;
	}
	spec->nlimits = j - spec->limits;
}

/* The run's cgroup, with what of b it can hold (CONTAIN_*). */
static int
run_cgroup(const char *uuid, const struct contain_bounds *b, char *path,
    size_t size)
{
	char	dir[PATH_MAX], v[32];
	int	held = 0;

	path[0] = '\0';
	sweep_empty();
	if (ct.dir[0] == '\0' ||
	    snprintf(dir, sizeof dir, "%s/run-%s", ct.dir, uuid) >=
	    (int)sizeof dir)
		return 0;
	/* The watchdog of a node that died before this one started may
	 * have removed our cgroup as we made it: make it again. */
	if (mkdir(dir, 0755) == -1 && errno == ENOENT &&
	    (mkdir(ct.dir, 0755) == 0 || errno == EEXIST))
		(void)mkdir(dir, 0755);
	if (access(dir, W_OK) == -1) {
		log_warnx("Task UUID{%s}: no cgroup: %s: %s", uuid, dir,
		    strerror(errno));
		return 0;
	}
	/* Before anything of the run is in it. */
	snprintf(v, sizeof v, "%lld", (long long)b->procs);
	if ((ct.bounds & CONTAIN_PIDS) && (b->procs == 0 ||
	    write_file(dir, "pids.max", v) == 0))
		held |= CONTAIN_PIDS;
	snprintf(v, sizeof v, "%lld", (long long)b->memory_bytes);
	if ((ct.bounds & CONTAIN_MEMORY) && (b->memory_bytes == 0 ||
	    write_file(dir, "memory.max", v) == 0))
		held |= CONTAIN_MEMORY;
	snprintf(path, size, "%s", dir);
	return held;
}

void
contain_cpu_controller(void)
{
	char	parent[PATH_MAX];

	if (ct.dir[0] == '\0' ||
	    snprintf(parent, sizeof parent, "%s", ct.dir) >= (int)sizeof parent)
		return;
	*strrchr(parent, '/') = '\0';
	(void)write_file(parent, "cgroup.subtree_control", "+cpu");
	(void)write_file(ct.dir, "cgroup.subtree_control", "+cpu");
}

int
contain_run_dir(const char *uuid, char *path, size_t size)
{
	return ct.dir[0] == '\0' || snprintf(path, size, "%s/run-%s", ct.dir,
	    uuid) >= (int)size ? -1 : 0;
}

void
contain_prepare(const char *uuid, const struct contain_bounds *b,
    struct job_spec *spec, char *path, size_t size)
{
	rlimit_bounds(b, run_cgroup(uuid, b, path, size), spec);
}

int
contain_pid_in_run(pid_t pid)
{
	char	 path[64], line[4096], mnt[PATH_MAX], abs[2 * PATH_MAX];
	FILE	*f;
	int	 in = 0;

	if (ct.dir[0] == '\0' || cgroup2_mount(mnt, sizeof mnt) == -1)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (!in && fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(abs, sizeof abs, "%s%s/", mnt, line + 3);
		in = strncmp(abs, ct.dir, strlen(ct.dir)) == 0 &&
		    strncmp(abs + strlen(ct.dir), "/run-", 5) == 0;
	}
	fclose(f);
	return in;
}

void
contain_started(const char *uuid, pid_t pid)
{
	char	line[UUID_STRLEN + 32];

	snprintf(line, sizeof line, "+%d %s\n", (int)pid, uuid);
	watch_send(line);
}

/* The number after key in the cgroup file dir/name ("usage_usec 12"),
 * or the file's first number if key is NULL; -1 if none. */
static int64_t
cgroup_number(const char *dir, const char *name, const char *key)
{
	char		 path[PATH_MAX + 32], buf[1024], *p;
	int		 fd;
	ssize_t		 n;
	long long	 v;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = buf;
	if (key != NULL && ((p = strstr(buf, key)) == NULL ||
	    (p != buf && p[-1] != '\n')))
		return -1;
	if (key != NULL)
		p += strlen(key);
	return sscanf(p, " %lld", &v) == 1 && v >= 0 ? v : -1;
}

int
contain_ended(const char *uuid, pid_t pid, struct contain_usage *u)
{
	char	line[64], dir[PATH_MAX];
	int64_t	v;
	int	left = 0;

	if (u != NULL)
		u->cpu_ms = u->peak_kib = -1;
	if (pid > 0)
		kill(-pid, SIGKILL);
	if (ct.dir[0] == '\0' && (left = v = leftover_kill_orphans(
	    ct.marker, uuid)) > 0)
		log_info("Task UUID{%s}: killed %d process%s its run left",
		    uuid, (int)v, v == 1 ? "" : "es");
	if (ct.dir[0] != '\0' &&
	    snprintf(dir, sizeof dir, "%s/run-%s", ct.dir, uuid) <
	    (int)sizeof dir) {
		if (u != NULL && (v = cgroup_number(dir, "cpu.stat",
		    "usage_usec")) >= 0)
			u->cpu_ms = v / 1000;
		/* No memory controller here: not asked again. */
		if (u != NULL && !ct.no_peak && (v = cgroup_number(dir,
		    "memory.peak", NULL)) >= 0)
			u->peak_kib = v / 1024;
		else if (u != NULL && errno == ENOENT)
			ct.no_peak = 1;
		left = cgroup_kill(dir, 0);
	}
	snprintf(line, sizeof line, "-%d\n", (int)pid);
	if (pid > 0)
		watch_send(line);
	return left;
}

int
contain_gone(const char *uuid)
{
	siginfo_t	si;
	char		dir[PATH_MAX];

	/* A dead child not reaped yet (ours: we are the subreaper) is the
	 * SIGCHLD that asks again. */
	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid != 0)
		return 0;
	if (ct.dir[0] == '\0')
		return leftover_orphans(ct.marker, uuid) == 0;
	if (snprintf(dir, sizeof dir, "%s/run-%s", ct.dir, uuid) >=
	    (int)sizeof dir)
		return 1;
	if (rmdir(dir) == 0) {
		if (ct.leftovers > 0)
			ct.leftovers--;
		return 1;
	}
	return errno == ENOENT;
}

void
contain_shutdown(void)
{
	if (ct.watch_fd != -1)
		close(ct.watch_fd);
	ct.watch_fd = -1;
	if (ct.dir[0] != '\0') {
		kill_children(ct.dir);	/* none live: the last empty ones */
		(void)rmdir(ct.dir);
	}
}
