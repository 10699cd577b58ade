/*
 * cmdrun.c -- a command task's program, directory and placeholders on
 * the node that runs it (cmdrun.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cmdrun.h"
#include "runas.h"
#include "task.h"

#define DEFAULT_PATH	"/usr/local/bin:/usr/bin:/bin"

/* What the placeholder at s (after its '{') stands for, and its length
 * up to the '}' into *len; NULL if none. */
static const char *
placeholder(const struct task *t, const char *s, size_t *len)
{
	const char	*end = strchr(s, '}');
	char		*stop;
	long		 k;

	if (end == NULL)
		return NULL;
	*len = end - s + 1;
	if (end - s == 4 && strncmp(s, "uuid", 4) == 0)
		return t->uuid;
	if (strncmp(s, "in", 2) != 0 || s[2] < '1' || s[2] > '9')
		return NULL;
	k = strtol(s + 2, &stop, 10);
	if (stop != end || k < 1 || k > t->ninputs ||
	    t->inputs[k - 1].dataset == NULL)
		return NULL;
	return t->inputs[k - 1].dataset;
}

char *
cmdrun_expand(const struct task *t, const char *s)
{
	const char	*p, *v;
	char		*out, *w;
	size_t		 len, need = 1;

	for (p = s; *p != '\0'; p++) {
		if (*p == '{' && (v = placeholder(t, p + 1, &len)) != NULL) {
			need += strlen(v);
			p += len;
		} else
			need++;
	}
	if ((out = malloc(need)) == NULL)
		return NULL;
	for (p = s, w = out; *p != '\0'; p++) {
		if (*p == '{' && (v = placeholder(t, p + 1, &len)) != NULL) {
			w = stpcpy(w, v);
			p += len;
		} else
			*w++ = *p;
	}
	*w = '\0';
	return out;
}

int
cmdrun_path(const struct task *t, const char *file, char *buf, size_t size)
{
	char	*x = cmdrun_expand(t, file);
	int	 n;

	if (x == NULL)
		return -1;
	if (x[0] == '/' || t->cmd->cwd == NULL)
		n = snprintf(buf, size, "%s", x);
	else
		n = snprintf(buf, size, "%s/%s", t->cmd->cwd, x);
	free(x);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Is path a file the run user may execute? */
static int
executable(const struct runas *ra, const char *path, char *why,
    size_t whylen)
{
	struct stat	st;

	if (stat(path, &st) == -1) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s is not a file", path);
		return 0;
	}
	if (ra->change)
		return runas_can_access(ra, path, X_OK, why, whylen) == 0;
	if (access(path, X_OK) == -1) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return 0;
	}
	return 1;
}

/* The node's PATH, or the usual one. */
static const char *
node_path(void)
{
	const char	*p = getenv("PATH");

	return p != NULL && *p != '\0' ? p : DEFAULT_PATH;
}

/* The PATH t runs with: its own --env PATH, else the node's. */
static const char *
search_path(const struct task *t)
{
	int		 i;

	for (i = 0; i < t->cmd->nenv; i++)
		if (strncmp(t->cmd->env[i], "PATH=", 5) == 0)
			return t->cmd->env[i] + 5;
	return node_path();
}

int
cmdrun_which(const char *search, const char *name, const struct runas *ra,
    char *prog, size_t size, char *why, size_t whylen)
{
	const char	*p, *end;
	size_t		 len;

	if (search == NULL)
		search = node_path();
	/* Only absolute PATH entries: "." would mean the run directory. */
	for (p = search; *p != '\0'; p = *end != '\0' ? end + 1 : end) {
		end = strchr(p, ':');
		if (end == NULL)
			end = p + strlen(p);
		len = end - p;
		if (len == 0 || p[0] != '/')
			continue;
		if (snprintf(prog, size, "%.*s/%s", (int)len, p, name) >=
		    (int)size)
			continue;
		if (executable(ra, prog, why, whylen))
			return 0;
	}
	snprintf(why, whylen, "no program %s in PATH (%s)", name, search);
	return -1;
}

int
cmdrun_find(const struct task *t, const struct runas *ra, char *prog,
    size_t size, char *why, size_t whylen)
{
	const char	*argv0 = t->cmd->argv[0], *cwd = t->cmd->cwd;
	struct stat	 st;

	if (cwd != NULL) {
		if (stat(cwd, &st) == -1 || !S_ISDIR(st.st_mode)) {
			snprintf(why, whylen, "no directory %s here", cwd);
			return -1;
		}
		if (runas_can_access(ra, cwd, X_OK, why, whylen) == -1)
			return -1;
	}
	if (strchr(argv0, '/') != NULL) {
		if (cmdrun_path(t, argv0, prog, size) == -1 ||
		    prog[0] != '/') {
			snprintf(why, whylen, "%s: a relative program needs a "
			    "directory", argv0);
			return -1;
		}
		return executable(ra, prog, why, whylen) ? 0 : -1;
	}
	return cmdrun_which(search_path(t), argv0, ra, prog, size, why,
	    whylen);
}

int
cmdrun_check_patterns(const struct task_cmd *c, char *err, size_t errlen)
{
	pcre2_code	*re;
	PCRE2_SIZE	 off;
	char		 msg[120];
	int		 i, code;

	for (i = 0; i < c->nouts; i++) {
		if (strncmp(c->outs[i], "line:", 5) != 0)
			continue;
		re = pcre2_compile((PCRE2_SPTR)c->outs[i] + 5,
		    PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
		if (re != NULL) {
			pcre2_code_free(re);
			continue;
		}
		pcre2_get_error_message(code, (PCRE2_UCHAR *)msg, sizeof msg);
		snprintf(err, errlen, "output %d: %s at offset %zu of %.60s",
		    i + 1, msg, (size_t)off, c->outs[i] + 5);
		return -1;
	}
	return 0;
}
