/*
 * inwalk.c -- `volery run --in PATH`, a workflow's <in>: the files a
 * command reads, as its record names them (inwalk.h).  The command line hashes them: it runs
 * as the user, so it reads what the user may read, and a file it
 * misreports only fails its own task (the node that runs it checks every
 * hash it fetches).  Directories are walked; a symbolic link is refused,
 * since the run dir must hold what the path names here and nothing it
 * points to elsewhere.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "hashcopy.h"
#include "inwalk.h"
#include "task.h"

struct walk {
	char	**items;
	int	  n, max;
	char	 *err;
	size_t	  errlen;
};

static int
fail(struct walk *w, const char *path, const char *why)
{
	snprintf(w->err, w->errlen, "%s: %s", path, why);
	return -1;
}

/* path, opened at fd (ours to close): a file's item, or a directory's
 * entries in turn. */
static int
take(struct walk *w, const char *path, int fd)
{
	struct stat	 st;
	DIR		*d;
	struct dirent	*e;
	char		 hex[DIGEST_HEX + 1], sub[PATH_MAXLEN + 2];
	int64_t		 bytes;
	int		 child, rc = 0;

	if (fstat(fd, &st) == -1) {
		close(fd);
		return fail(w, path, strerror(errno));
	}
	if (S_ISREG(st.st_mode)) {
		bytes = hashcopy(fd, -1, CMD_IN_BYTES_MAX, hex);
		close(fd);
		if (bytes == -1)
			return fail(w, path, strerror(errno));
		if (w->n == w->max)
			return fail(w, path, "more files than a task may "
			    "take");
		if (asprintf(&w->items[w->n], "%" PRId64 ":%s:%s", bytes,
		    hex, path) == -1)
			return fail(w, path, "out of memory");
		w->n++;
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(fd);
		return fail(w, path, "neither a file nor a directory");
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return fail(w, path, strerror(errno));
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >
		    PATH_MAXLEN)
			rc = fail(w, path, "a path inside is too long");
		else if ((child = openat(dirfd(d), e->d_name, O_RDONLY |
		    O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) == -1)
			rc = fail(w, sub, errno == ELOOP ? "a symbolic link" :
			    strerror(errno));
		else
			rc = take(w, sub, child);
	}
	closedir(d);
	return rc;
}

int
inwalk_collect(int dir, char *const *paths, int npaths, char **items,
    int max, char *err, size_t errlen)
{
	struct walk	 w = { items, 0, max, err, errlen };
	char		 path[PATH_MAXLEN + 1], *p;
	int		 i, fd;

	for (i = 0; i < npaths; i++) {
		snprintf(path, sizeof path, "%s", paths[i]);
		/* "data/" is "data"; "./data" is "data". */
		for (p = path + strlen(path); p > path + 1 && p[-1] == '/'; )
			*--p = '\0';
		p = path;
		while (p[0] == '.' && p[1] == '/')
			p += 2;
		if (p[0] == '/' || strcmp(p, "..") == 0 ||
		    strncmp(p, "../", 3) == 0 || strstr(p, "/../") != NULL ||
		    (strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0) ||
		    strcmp(p, ".") == 0)
			goto bad;
		if ((fd = openat(dir, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
		    O_NONBLOCK)) == -1) {
			fail(&w, paths[i], errno == ELOOP ? "a symbolic link" :
			    strerror(errno));
			goto fail;
		}
		if (take(&w, p, fd) == -1)
			goto fail;
	}
	return w.n;
bad:
	fail(&w, paths[i], "a path below the directory, without \"..\"");
fail:
	inwalk_free(items, w.n);
	return -1;
}

void
inwalk_free(char **items, int n)
{
	int	i;

	for (i = 0; i < n; i++)
		free(items[i]);
}
