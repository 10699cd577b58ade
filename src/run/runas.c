/*
 * runas.c -- whom tasks run as (see runas.h).  Everything that reads
 * /etc/passwd and /etc/group happens here, once, at start: a forked
 * child of the node (which has a log thread) only makes system calls.
 */
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runas.h"

int
runas_name_valid(const char *s)
{
	size_t	i, len = strlen(s);

	if (len == 0 || len > RUNAS_NAME_MAX ||
	    !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return 0;
	for (i = 1; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' &&
		    s[i] <= '9') || strchr("_.-", s[i]) != NULL))
			return 0;
	return 1;
}

/* The user's uid, gid, home and supplementary groups into r. */
static int
fill(struct runas *r, const struct passwd *pw, char *err, size_t errlen)
{
	int	n = 16;

	snprintf(r->name, sizeof r->name, "%s", pw->pw_name);
	snprintf(r->home, sizeof r->home, "%s", pw->pw_dir);
	r->uid = pw->pw_uid;
	r->gid = pw->pw_gid;
	for (;;) {
		gid_t *g = realloc(r->groups, n * sizeof *g);
		if (g == NULL) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		r->groups = g;
		r->ngroups = n;
		if (getgrouplist(pw->pw_name, pw->pw_gid, r->groups,
		    &r->ngroups) != -1)
			return 0;
		if (r->ngroups <= n) {	/* not a question of room */
			snprintf(err, errlen, "cannot list the groups of "
			    "user %s", pw->pw_name);
			return -1;
		}
		n = r->ngroups;
	}
}

int
runas_resolve(const char *configured, struct runas *r, char *warn,
    size_t warnlen, char *err, size_t errlen)
{
	struct passwd	*pw;
	uid_t		 me = geteuid();

	memset(r, 0, sizeof *r);
	warn[0] = '\0';
	if (me != 0) {
		/* Not root: tasks run as the node's own user. */
		if ((pw = getpwuid(me)) == NULL) {
			snprintf(err, errlen, "the node's user (uid %d) is not "
			    "in the user database", (int)me);
			return -1;
		}
		if (configured[0] != '\0' &&
		    strcmp(configured, pw->pw_name) != 0) {
			snprintf(err, errlen, "<run_as>%s</run_as>: only a "
			    "node started as root can run tasks as another "
			    "user (this one runs as %s)", configured,
			    pw->pw_name);
			return -1;
		}
		return fill(r, pw, err, errlen);
	}
	errno = 0;
	if (configured[0] != '\0') {
		if ((pw = getpwnam(configured)) == NULL) {
			snprintf(err, errlen, "<run_as>%s</run_as>: no such "
			    "user%s%s", configured, errno != 0 ? ": " : "",
			    errno != 0 ? strerror(errno) : "");
			return -1;
		}
	} else if ((pw = getpwnam(RUNAS_DEFAULT_USER)) == NULL) {
		if ((pw = getpwnam(RUNAS_FALLBACK_USER)) == NULL) {
			snprintf(err, errlen, "neither user %s nor %s exists: "
			    "create one (make install does) or name one in "
			    "<run_as>", RUNAS_DEFAULT_USER,
			    RUNAS_FALLBACK_USER);
			return -1;
		}
		snprintf(warn, warnlen, "user %s does not exist (make install "
		    "creates it); tasks run as %s", RUNAS_DEFAULT_USER,
		    RUNAS_FALLBACK_USER);
	}
	if (pw->pw_uid == 0)
		snprintf(warn, warnlen, "<run_as>%s</run_as>: tasks run as "
		    "root, with every privilege of the node", pw->pw_name);
	r->change = pw->pw_uid != 0;
	return fill(r, pw, err, errlen);
}

int
runas_lookup(const char *name, struct runas *r, char *err, size_t errlen)
{
	struct passwd	*pw;

	memset(r, 0, sizeof *r);
	errno = 0;
	if ((pw = getpwnam(name)) == NULL) {
		if (errno == 0 || errno == ENOENT || errno == ESRCH ||
		    errno == EBADF || errno == EPERM)
			return 1;
		snprintf(err, errlen, "cannot look up user %s: %s", name,
		    strerror(errno));
		return -1;
	}
	r->change = 1;
	if (fill(r, pw, err, errlen) == -1) {
		runas_free(r);
		return -1;
	}
	return 0;
}

int
runas_copy(struct runas *dst, const struct runas *src)
{
	*dst = *src;
	dst->groups = NULL;
	if (src->ngroups > 0 && (dst->groups = malloc(src->ngroups *
	    sizeof *dst->groups)) == NULL)
		return -1;
	if (src->ngroups > 0)
		memcpy(dst->groups, src->groups, src->ngroups *
		    sizeof *dst->groups);
	return 0;
}

void
runas_free(struct runas *r)
{
	free(r->groups);
	r->groups = NULL;
	r->ngroups = 0;
}

/* May the run user do mode on a file of st, by its mode bits? */
static int
permits(const struct runas *r, const struct stat *st, int mode)
{
	int	shift = 0, i;

	/* The owner's bits, else the group's (the user's groups hold its
	 * primary one: getgrouplist), else the others'. */
	if (st->st_uid == r->uid)
		shift = 6;
	else
		for (i = 0; i < r->ngroups; i++)
			if (st->st_gid == r->groups[i])
				shift = 3;
	return (mode & R_OK ? (st->st_mode >> shift) & 4 : 1) &&
	    (mode & X_OK ? (st->st_mode >> shift) & 1 : 1);
}

/*
 * Walk path's directories as the kernel would for the run user: each
 * must be searchable, and path itself must permit mode.  By the mode
 * bits only (an ACL that grants more makes this say no where the run
 * would work; it is a check before taking work, not a guard).
 */
int
runas_can_access(const struct runas *r, const char *path, int mode,
    char *err, size_t errlen)
{
	struct stat	 st;
	char		 prefix[PATH_MAX];
	const char	*p;

	if (!r->change)
		return 0;
	if (path[0] != '/' || strlen(path) >= sizeof prefix) {
		snprintf(err, errlen, "%s: not an absolute path", path);
		return -1;
	}
	for (p = path + 1; (p = strchr(p, '/')) != NULL; p++) {
		memcpy(prefix, path, p - path);
		prefix[p - path] = '\0';
		if (stat(prefix, &st) == -1) {
			snprintf(err, errlen, "%s: %s", prefix,
			    strerror(errno));
			return -1;
		}
		if (!permits(r, &st, X_OK)) {
			snprintf(err, errlen, "user %s cannot enter %s (mode "
			    "%03o): chmod o+x it, or name another user in "
			    "<run_as>", r->name, prefix, st.st_mode & 0777);
			return -1;
		}
	}
	if (stat(path, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!permits(r, &st, mode)) {
		snprintf(err, errlen, "user %s cannot %s %s (mode %03o)",
		    r->name, mode & X_OK ? (S_ISDIR(st.st_mode) ? "enter" :
		    "execute") : "read", path, st.st_mode & 0777);
		return -1;
	}
	return 0;
}

/*
 * By raw system calls: the child of a vfork shares the node's memory,
 * and glibc's setuid() and kin would act on the node's threads too.
 */
int
runas_become(const struct runas *r)
{
	if (!r->change)
		return 0;
	if (syscall(SYS_setgroups, (size_t)r->ngroups, r->groups) == -1 ||
	    syscall(SYS_setgid, r->gid) == -1 ||
	    syscall(SYS_setuid, r->uid) == -1)
		return -1;
	return 0;
}

/*
 * The node's thread takes the run user's file-system identity for one
 * open(): by raw system calls, which act on the calling thread alone
 * (glibc would change every thread's), so the log thread keeps the
 * node's.  A file created is the run user's.
 */
int
runas_open(const struct runas *r, const char *path, int flags, mode_t mode)
{
	gid_t	*saved;
	int	 nsaved, fd, err;

	if (!r->change)
		return open(path, flags, mode);
	if ((nsaved = getgroups(0, NULL)) == -1 ||
	    (saved = calloc(nsaved + 1, sizeof *saved)) == NULL)
		return -1;
	if ((nsaved = getgroups(nsaved, saved)) == -1 ||
	    syscall(SYS_setgroups, (size_t)r->ngroups, r->groups) == -1) {
		free(saved);
		return -1;
	}
	syscall(SYS_setfsgid, r->gid);
	syscall(SYS_setfsuid, r->uid);
	fd = open(path, flags, mode);
	err = errno;
	syscall(SYS_setfsuid, geteuid());
	syscall(SYS_setfsgid, getegid());
	if (syscall(SYS_setgroups, (size_t)nsaved, saved) == -1)
		abort();	/* never go on with the user's groups */
	free(saved);
	errno = err;
	return fd;
}
