/*
 * leftover.c -- what runs leave behind, found and killed (leftover.h).
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "leftover.h"

/* Does pid's environment hold a variable that begins with marker?  -1
 * if it cannot be read. */
static int
env_has(pid_t pid, const char *marker)
{
	char	path[64], env[16384];
	ssize_t	len, i;
	int	fd;
	size_t	mlen = strlen(marker);

	snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	len = read(fd, env, sizeof env - 1);
	close(fd);
	if (len < 0)
		return -1;
	env[len] = '\0';
	for (i = 0; i < len; i += strlen(env + i) + 1)
		if (strncmp(env + i, marker, mlen) == 0)
			return 1;
	return 0;
}

int
leftover_kill_marked(const char *marker)
{
	DIR		*d = opendir("/proc");
	struct dirent	*e;
	int		 n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid > 1 && pid != getpid() && env_has(pid, marker) == 1) {
			kill(pid, SIGKILL);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* The children of ours that leftover_kill_orphans() names: killed with
 * their process groups if kill_them; how many. */
static int
orphans(const char *marker, const char *uuid, int kill_them)
{
	DIR		*d = opendir("/proc/self/task");
	struct dirent	*e;
	char		 path[64], kids[4096], mine[PATH_MAX + 64], *p, *end;
	int		 fd, n = 0;
	ssize_t		 len;
	pid_t		 pid;

	snprintf(mine, sizeof mine, "%s%s", marker, uuid);
	while (d != NULL && (e = readdir(d)) != NULL) {
		snprintf(path, sizeof path, "/proc/self/task/%.16s/children",
		    e->d_name);
		if (e->d_name[0] == '.' ||
		    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, kids, sizeof kids - 1);
		close(fd);
		kids[len > 0 ? len : 0] = '\0';
		for (p = kids; (pid = (pid_t)strtol(p, &end, 10)) > 0;
		    p = end) {
			if (job_running(pid) || (env_has(pid, marker) ==
			    1 && env_has(pid, mine) != 1))
				continue;
			if (kill_them) {
				if (getpgid(pid) == pid)
					kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
			}
			n++;
		}
	}
	if (d != NULL)
		closedir(d);
	return n;
}

int
leftover_kill_orphans(const char *marker, const char *uuid)
{
	return orphans(marker, uuid, 1);
}

int
leftover_orphans(const char *marker, const char *uuid)
{
	return orphans(marker, uuid, 0);
}
