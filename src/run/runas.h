/*
 * runas.h -- whom tasks run as.  A node started as root runs them as an
 * unprivileged user: <run_as> if the config names one, else "volery"
 * (make install creates it), else "nobody".  A node started as anyone
 * else runs them as itself.  The user, its groups and its home are
 * looked up once at start; a forked child only makes system calls.
 */
#ifndef VOLERY_RUNAS_H
#define VOLERY_RUNAS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define RUNAS_DEFAULT_USER	"volery"
#define RUNAS_FALLBACK_USER	"nobody"
#define RUNAS_NAME_MAX		32	/* useradd's limit */

struct runas {
	int	 change;	/* the child switches to uid, gid, groups */
	uid_t	 uid;
	gid_t	 gid;
	int	 ngroups;
	gid_t	*groups;	/* supplementary groups */
	char	 name[RUNAS_NAME_MAX + 1];
	char	 home[PATH_MAX];
};

/* A user name as useradd takes it: [a-z_][a-z0-9_.-]*, at most 32. */
int	runas_name_valid(const char *);
/*
 * Resolve whom tasks run as; configured is <run_as> or "".  -1 with err
 * when the node must not start (a named user is missing, or a non-root
 * node is asked to run tasks as another user); warn says what the user
 * should know ("" if nothing).
 */
int	runas_resolve(const char *configured, struct runas *, char *warn,
	    size_t warnlen, char *err, size_t errlen);
void	runas_free(struct runas *);
/* The account name (ra->change set: a root node switches to it): 0, 1
 * if there is no such account, -1 with err on a failure to look. */
int	runas_lookup(const char *name, struct runas *, char *err,
	    size_t errlen);
/* dst, a copy of src (its own groups): 0, or -1 out of memory. */
int	runas_copy(struct runas *dst, const struct runas *src);
/*
 * Can the run user reach path with access() mode (R_OK, X_OK)?  By the
 * mode bits of path and of every directory above it, for the user's uid
 * and groups, before the node takes work: 0, or -1 with the reason.
 * Trivially 0 when nothing changes.
 */
int	runas_can_access(const struct runas *, const char *path, int mode,
	    char *err, size_t errlen);
/* open() as the run user would (its uid, gid and groups decide): for
 * the files a command names for its output.  Plain open() when nothing
 * changes. */
int	runas_open(const struct runas *, const char *path, int flags,
	    mode_t mode);
/* In a child of vfork: drop to the user.  -1 (errno set) on failure. */
int	runas_become(const struct runas *);

#endif
