/*
 * throttle.c -- a run slowed, not stopped, while its host's user is back
 * (throttle.h).
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contain.h"
#include "log.h"
#include "task.h"
#include "throttle.h"

#define PERIOD_US	100000		/* the CFS period the quota is of */
#define NICE_SLOW	19

static struct {
	enum vol_return	 how;
	int		 percent;
	int		 nice;		/* of every run (a screensaver's 19) */
	char		 v1[PATH_MAX];	/* its runs' cpu v1 cgroups' prefix
					 * (<v1>-<uuid>), or "" */
	char		 mnt[PATH_MAX / 2];	/* the cpu v1 hierarchy */
	char		 home[PATH_MAX];	/* our group in it */
	char		 prefix[NAME_MAXLEN + 16];	/* "volery-<node>-" */
} th = { VOL_RETURN_STOP, 0, 0, "", "", "", "" };

/* Write s into path: 0, or -1 (errno set). */
static int
put(const char *path, const char *s)
{
	int	fd, rc;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	rc = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return rc;
}

/* The mount point of the cgroup v1 hierarchy holding the cpu controller
 * (a hybrid host), from /proc/self/mountinfo; -1 if none. */
static int
cpu_v1_mount(char *mnt, size_t size)
{
	FILE	*f = fopen("/proc/self/mountinfo", "re");
	char	 line[4096], point[PATH_MAX], *dash, *opt, *save;
	int	 found = -1;

	if (f == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((dash = strstr(line, " - cgroup ")) == NULL ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    (opt = strrchr(dash, ' ')) == NULL)
			continue;
		for (opt = strtok_r(opt + 1, ",", &save); opt != NULL;
		    opt = strtok_r(NULL, ",", &save))
			if (strcmp(opt, "cpu") == 0 &&
			    snprintf(mnt, size, "%s", point) < (int)size)
				found = 0;
	}
	fclose(f);
	return found;
}

/* Our own group in the cpu v1 hierarchy ("4:cpu,cpuacct:/path"), as a
 * directory under mnt, into home: where freed runs go back to. */
static void
own_cpu_group(const char *mnt, char *home, size_t size)
{
	FILE	*f = fopen("/proc/self/cgroup", "re");
	char	 line[4096], *ctrl, *path, *one, *save;

	snprintf(home, size, "%s", mnt);
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if ((ctrl = strchr(line, ':')) == NULL ||
		    (path = strchr(ctrl + 1, ':')) == NULL)
			continue;
		*path++ = '\0';
		for (one = strtok_r(ctrl + 1, ",", &save); one != NULL;
		    one = strtok_r(NULL, ",", &save))
			if (strcmp(one, "cpu") == 0 && strcmp(path, "/") != 0)
				snprintf(home, size, "%s%s", mnt, path);
	}
	if (f != NULL)
		fclose(f);
}

/* Remove the empty cpu v1 groups in mnt whose names start with prefix
 * (a run's: what an earlier incarnation of this node left). */
static void
sweep(const char *mnt, const char *prefix)
{
	DIR		*d = opendir(mnt);
	struct dirent	*e;
	char		 path[PATH_MAX + 256];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
		    snprintf(path, sizeof path, "%s/%s", mnt, e->d_name) <
		    (int)sizeof path)
			(void)rmdir(path);
	closedir(d);
}

void
throttle_init(enum vol_return how, int percent, int nice, const char *node)
{
	char	mnt[PATH_MAX / 2];

	th.how = how;
	th.percent = percent;
	th.nice = nice;
	th.v1[0] = '\0';
	if (how != VOL_RETURN_THROTTLE)
		return;
	contain_cpu_controller();
	/* A hybrid host: each throttled run gets a cgroup of the cpu
	 * hierarchy, beside the user's processes (a group's weight counts
	 * against theirs only at one level), named after us and it. */
	if (cpu_v1_mount(mnt, sizeof mnt) == 0 && access(mnt, W_OK) == 0 &&
	    snprintf(th.v1, sizeof th.v1, "%s/volery-%s-%d", mnt, node,
	    (int)getpid()) < (int)sizeof th.v1) {
		snprintf(th.mnt, sizeof th.mnt, "%s", mnt);
		own_cpu_group(mnt, th.home, sizeof th.home);
		snprintf(th.prefix, sizeof th.prefix, "volery-%s-", node);
		sweep(th.mnt, th.prefix);
		log_info("runs are throttled to %d%% of a core through %s-* "
		    "where their cgroup has no cpu.max", percent, th.v1);
	} else
		th.v1[0] = '\0';
}

void
throttle_shutdown(void)
{
	if (th.v1[0] != '\0')
		sweep(th.mnt, th.prefix);
}

const char *
throttle_how(void)
{
	switch (th.how) {
	case VOL_RETURN_STOP:
		return "stop";
	case VOL_RETURN_NICE:
		return "nice";
	default:
		return th.v1[0] != '\0' ? "cpu-v1" : "cpu.max";
	}
}

/* The processes of the run's cgroup into v (at most max): how many, or
 * -1 if it has none. */
static int
run_pids(const char *uuid, pid_t *v, int max)
{
	char	 dir[PATH_MAX], path[PATH_MAX + 32], line[32];
	FILE	*f;
	int	 n = 0;

	if (contain_run_dir(uuid, dir, sizeof dir) == -1 ||
	    snprintf(path, sizeof path, "%s/cgroup.procs", dir) >=
	    (int)sizeof path || (f = fopen(path, "re")) == NULL)
		return -1;
	while (n < max && fgets(line, sizeof line, f) != NULL)
		if ((v[n] = (pid_t)atoi(line)) > 0)
			n++;
	fclose(f);
	return n;
}

/* Every process of the run at nice `value`: those of its cgroup, else
 * its process group. */
static int
renice(const char *uuid, pid_t pgid, int value)
{
	pid_t	v[4096];
	int	i, n, rc = 0;

	if ((n = run_pids(uuid, v, 4096)) < 0)
		return setpriority(PRIO_PGRP, (id_t)pgid, value);
	for (i = 0; i < n; i++)
		if (setpriority(PRIO_PROCESS, (id_t)v[i], value) == -1 &&
		    errno != ESRCH)
			rc = -1;
	return rc;
}

/* Move the pids into the cpu v1 group dir: 0, or -1. */
static int
move(const char *dir, const pid_t *pids, int n)
{
	char	path[PATH_MAX + 96], v[32];
	int	i;

	snprintf(path, sizeof path, "%s/cgroup.procs", dir);
	for (i = 0; i < n; i++) {
		snprintf(v, sizeof v, "%d", (int)pids[i]);
		if (put(path, v) == -1 && errno != ESRCH)
			return -1;
	}
	return 0;
}

/*
 * cgroup v1: while throttled, the run's processes (found in its v2
 * cgroup; without one, nice) are in a cpu cgroup of their own whose
 * quota is the bound -- the run creeps on at it however busy the user
 * is.  Freed, they go back to the node's own group, where they were
 * born, and theirs goes: the run yields as its nice says again.
 */
static int
throttle_v1(const char *uuid, pid_t pgid, int on)
{
	char	dir[PATH_MAX + 64], path[PATH_MAX + 96], v[32];
	pid_t	pids[4096];
	int	n;

	snprintf(dir, sizeof dir, "%s-%s", th.v1, uuid);
	if ((n = run_pids(uuid, pids, 4096)) < 0)
		return renice(uuid, pgid, on ? NICE_SLOW : th.nice);
	if (!on) {
		n = move(th.home, pids, n);
		(void)rmdir(dir);
		return n;
	}
	snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
	snprintf(v, sizeof v, "%d", th.percent * (PERIOD_US / 100));
	if ((mkdir(dir, 0755) == -1 && errno != EEXIST) || put(path, v) == -1)
		return -1;
	return move(dir, pids, n);
}

int
throttle_run(const char *uuid, pid_t pgid, int on)
{
	char	dir[PATH_MAX], path[PATH_MAX + 32], v[48];
	int	rc;

	if (th.how == VOL_RETURN_NICE)
		rc = renice(uuid, pgid, on ? NICE_SLOW : th.nice);
	else if (contain_run_dir(uuid, dir, sizeof dir) == 0 &&
	    snprintf(path, sizeof path, "%s/cpu.max", dir) <
	    (int)sizeof path && access(path, W_OK) == 0) {
		snprintf(v, sizeof v, on ? "%d %d" : "max %d", on ?
		    th.percent * (PERIOD_US / 100) : PERIOD_US, PERIOD_US);
		rc = put(path, v);
	} else if (th.v1[0] != '\0')
		rc = throttle_v1(uuid, pgid, on);
	else			/* no cpu controller we may write: nice */
		rc = renice(uuid, pgid, on ? NICE_SLOW : th.nice);
	if (rc == -1)
		log_warnx("Task UUID{%s}: cannot %s its run: %s", uuid, on ?
		    "throttle" : "free", strerror(errno));
	return rc;
}

void
throttle_gone(const char *uuid)
{
	char	dir[PATH_MAX + 64];

	if (th.v1[0] == '\0')
		return;
	snprintf(dir, sizeof dir, "%s-%s", th.v1, uuid);
	(void)rmdir(dir);
}
