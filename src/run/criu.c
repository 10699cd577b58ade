/*
 * criu.c -- transparent checkpoints with CRIU (criu.h).
 */
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdrun.h"
#include "criu.h"
#include "criuimg.h"
#include "job.h"
#include "launch.h"
#include "log.h"
#include "runas.h"
#include "task.h"

#define CAP_BIT(c)	((uint64_t)1 << (c))

struct criu_dump {
	char		 uuid[UUID_STRLEN + 1];
	char		 rundir[PATH_MAX];
	pid_t		 criu;
	int		 out;		/* CRIU's stdout and stderr, drained */
	struct criuimg_meta meta;
	uid_t		 uid;
	gid_t		 gid;
	void		(*done)(void *, int, const char *);
	void		*arg;
};

static struct {
	char	path[PATH_MAX];		/* the criu binary */
	char	images[PATH_MAX];	/* <state_dir>/criu */
	int64_t	max_bytes;		/* of a pack, 0 any */
	int	ready;
	char	why[256];
} cr;

/* The images directory of uuid into path. */
static void
images_dir(const char *uuid, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", cr.images, uuid);
}

/* Remove the images directory of uuid (flat: CRIU makes no subdirs). */
static void
remove_images(const char *uuid)
{
	char		 path[PATH_MAX + UUID_STRLEN + 2];
	struct dirent	*e;
	DIR		*d;

	images_dir(uuid, path, sizeof path);
	if ((d = opendir(path)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	(void)rmdir(path);
}

/* A fresh images directory of uuid, the run user's: its fd, or -1. */
static int
make_images(const char *uuid, const struct runas *ra, char *path,
    size_t size)
{
	int	fd;

	remove_images(uuid);
	images_dir(uuid, path, size);
	if (mkdir(path, 0700) == -1 || (fd = open(path, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (fchown(fd, ra->uid, ra->gid) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* CRIU's first error (the cause; the others follow from it) in the log
 * file name of uuid's images, into why. */
static void
first_error(const char *uuid, const char *name, char *why, size_t whylen)
{
	char	path[PATH_MAX + UUID_STRLEN + 64], line[512];
	FILE	*f;

	images_dir(uuid, path, sizeof path);
	snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", name);
	snprintf(why, whylen, "CRIU failed (no %s)", name);
	if ((f = fopen(path, "re")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL)
		if (strstr(line, "Error") != NULL) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(why, whylen, "CRIU: %s", line);
			break;
		}
	fclose(f);
}

int
criu_init(const char *configured, const char *state_dir, int64_t max_bytes,
    char *why, size_t whylen)
{
	struct job_spec	 spec;
	struct job_fds	 fds;
	char		 out[4096] = "", *argv[] = { cr.path, "check", NULL };
	const struct runas node = { 0 };	/* the node itself */
	const char	*dir;
	size_t		 len = 0;
	ssize_t		 n;
	int		 status;
	pid_t		 pid;

	cr.ready = 0;
	cr.max_bytes = max_bytes;
	snprintf(cr.images, sizeof cr.images, "%s/criu", state_dir);
	if (strcmp(configured, "off") == 0) {
		snprintf(cr.why, sizeof cr.why, "<criu> is off");
		goto out;
	}
	if (configured[0] != '\0')
		snprintf(cr.path, sizeof cr.path, "%s", configured);
	else if (cmdrun_which(getenv("PATH") != NULL ? NULL :
	    "/usr/sbin:/usr/bin:/sbin:/bin", "criu", &node, cr.path,
	    sizeof cr.path, out, sizeof out) == -1)
		cr.path[0] = '\0';	/* criu is a system program: sbin */
	if (cr.path[0] == '\0' || access(cr.path, X_OK) == -1) {
		snprintf(cr.why, sizeof cr.why, "no criu %s%s",
		    configured[0] != '\0' ? "at " : "on PATH", configured);
		goto out;
	}
	if (geteuid() != 0) {
		snprintf(cr.why, sizeof cr.why, "the node does not run as "
		    "root (CRIU runs as each run's user, with two "
		    "capabilities only root can give)");
		goto out;
	}
	memset(&spec, 0, sizeof spec);
	spec.path = cr.path;
	spec.argv = argv;
	spec.stderr_pipe = 1;
	if ((pid = job_start(&spec, NULL, &fds, out, sizeof out)) == -1) {
		snprintf(cr.why, sizeof cr.why, "criu check: %.200s", out);
		goto out;
	}
	close(fds.out);
	while (len < sizeof out - 1 && (n = read(fds.err, out + len,
	    sizeof out - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fds.err);
	if (job_wait(pid, &status) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		/* Its last error line says why. */
		while (len > 0 && out[len - 1] == '\n')
			out[--len] = '\0';
		dir = strrchr(out, '\n');
		snprintf(cr.why, sizeof cr.why, "criu check failed: %.200s",
		    dir != NULL ? dir + 1 : out[0] != '\0' ? out : "no reason");
		goto out;
	}
	if (mkdir(cr.images, 0711) == -1 && errno != EEXIST) {
		snprintf(cr.why, sizeof cr.why, "%.200s: %s", cr.images,
		    strerror(errno));
		goto out;
	}
	cr.why[0] = '\0';
	cr.ready = 1;
out:
	snprintf(why, whylen, "%s", cr.why);
	return cr.ready;
}

int
criu_ready(void)
{
	return cr.ready;
}

const char *
criu_why(void)
{
	return cr.why;
}

/* CRIU's dump is over: pack it into the run's checkpoint file. */
static void
dumped(pid_t pid, int status, const struct rusage *ru, void *arg)
{
	struct criu_dump *d = arg;
	char		  why[512] = "", path[PATH_MAX + UUID_STRLEN + 2];
	int		  dir = -1, run = -1, out = -1, ok = 0;

	(void)pid;
	(void)ru;
	close(d->out);
	images_dir(d->uuid, path, sizeof path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		first_error(d->uuid, "dump.log", why, sizeof why);
	else if ((dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (run = open(d->rundir, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		snprintf(why, sizeof why, "%.300s: %s", dir == -1 ? path :
		    d->rundir, strerror(errno));
	else {
		/* The run's directory is its user's: no link is followed,
		 * and the file is made anew, then given to the user. */
		(void)unlinkat(run, CKPT_AUTO, 0);
		if ((out = openat(run, CKPT_AUTO, O_WRONLY | O_CREAT |
		    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
			snprintf(why, sizeof why, "%.200s/%s: %s", d->rundir,
			    CKPT_AUTO, strerror(errno));
		else if (criuimg_pack(dir, d->uid, &d->meta, out, why,
		    sizeof why) == 0 && fchown(out, d->uid, d->gid) == 0)
			ok = 1;
	}
	if (out != -1)
		close(out);
	if (dir != -1)
		close(dir);
	if (run != -1)
		close(run);
	remove_images(d->uuid);
	d->done(d->arg, ok, why);
	free(d);
}

struct criu_dump *
criu_dump(const char *uuid, pid_t pid, int out, int err,
    const struct runas *ra, const char *rundir,
    void (*done)(void *, int, const char *), void *arg, char *why,
    size_t whylen)
{
	struct criu_dump *d;
	struct job_spec	  spec;
	struct job_exit	  e;
	struct job_fds	  fds;
	struct stat	  st;
	char		  dir[PATH_MAX + UUID_STRLEN + 2], num[16];
	char		  env[PATH_MAX + UUID_STRLEN + 32];
	char		 *argv[] = { cr.path, "dump", "--unprivileged", "-t", num,
			      "-D", dir, "--shell-job", "--manage-cgroups=ignore",
			      "-o", "dump.log", NULL };
	char		 *envp[] = { env, NULL };
	int		  fd;

	if ((d = calloc(1, sizeof *d)) == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	if ((fd = make_images(uuid, ra, dir, sizeof dir)) == -1) {
		snprintf(why, whylen, "%.300s: %s", dir, strerror(errno));
		free(d);
		return NULL;
	}
	close(fd);
	snprintf(d->uuid, sizeof d->uuid, "%s", uuid);
	snprintf(d->rundir, sizeof d->rundir, "%s", rundir);
	d->meta.pid = pid;
	d->meta.out_ino = out != -1 && fstat(out, &st) == 0 ? st.st_ino : 0;
	d->meta.err_ino = err != -1 && fstat(err, &st) == 0 ? st.st_ino : 0;
	d->uid = ra->uid;
	d->gid = ra->gid;
	d->done = done;
	d->arg = arg;
	snprintf(num, sizeof num, "%d", (int)pid);
	/* CRIU keeps its cache of kernel features beside the images. */
	snprintf(env, sizeof env, "XDG_RUNTIME_DIR=%s", dir);
	memset(&spec, 0, sizeof spec);
	spec.path = cr.path;
	spec.argv = argv;
	spec.env = envp;
	spec.user = ra;
	spec.cwd = dir;
	spec.die_with_parent = 1;
	spec.keep_caps = CAP_BIT(CAP_CHECKPOINT_RESTORE) |
	    CAP_BIT(CAP_SYS_PTRACE);
	e.cb = dumped;
	e.arg = d;
	if ((d->criu = job_start(&spec, &e, &fds, why, whylen)) == -1) {
		remove_images(uuid);
		free(d);
		return NULL;
	}
	d->out = fds.out;	/* read by nobody: CRIU writes to its log */
	return d;
}

void
criu_dump_cancel(struct criu_dump *d)
{
	if (d == NULL)
		return;
	job_forget(d->criu);
	kill(d->criu, SIGKILL);
	close(d->out);
	remove_images(d->uuid);
	free(d);
}

/* A string made as printf does, kept in k till the run has started. */
static const char * __attribute__((format(printf, 2, 3)))
kept(struct strings *k, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n == -1 ? NULL : launch_keep(k, s);
}

int
criu_restore_spec(const char *uuid, const char *rundir,
    const struct runas *ra, struct strings *k, struct job_spec *spec,
    const char **argv, char **env, pid_t *pid, char *why, size_t whylen)
{
	struct criuimg_meta m;
	struct stat	 st;
	char		 dir[PATH_MAX + UUID_STRLEN + 2], file[PATH_MAX + 8];
	const char	*imgs, *out, *err, *xdg;
	int		 in, fd, n = 0, i;

	snprintf(file, sizeof file, "%s/%s", rundir, CKPT_AUTO);
	if ((in = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(why, whylen, "%.300s: %s", file, strerror(errno));
		return -1;
	}
	/* The run's user may have put another file there since. */
	if (fstat(in, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (cr.max_bytes > 0 && st.st_size > cr.max_bytes)) {
		snprintf(why, whylen, "%s is not a plain file within "
		    "max_checkpoint_mb", CKPT_AUTO);
		close(in);
		return -1;
	}
	if ((fd = make_images(uuid, ra, dir, sizeof dir)) == -1) {
		snprintf(why, whylen, "%.300s: %s", dir, strerror(errno));
		close(in);
		return -1;
	}
	i = criuimg_unpack(in, fd, ra->uid, ra->gid, &m, why, whylen);
	close(in);
	close(fd);
	if (i == -1)
		goto fail;
	/* Its pid is its own again, or nothing: a process has it here. */
	if (kill(m.pid, 0) == 0 || errno != ESRCH) {
		snprintf(why, whylen, "its pid %d is taken on this node",
		    (int)m.pid);
		goto fail;
	}
	/* Its stdout and stderr become the node's new pipes. */
	if ((imgs = kept(k, "%s", dir)) == NULL ||
	    (out = kept(k, "fd[1]:pipe:[%" PRIu64 "]", m.out_ino)) == NULL ||
	    (err = kept(k, "fd[2]:pipe:[%" PRIu64 "]", m.err_ino)) == NULL ||
	    (xdg = kept(k, "XDG_RUNTIME_DIR=%s", dir)) == NULL) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	argv[n++] = cr.path;
	argv[n++] = "restore";
	argv[n++] = "--unprivileged";
	argv[n++] = "--restore-detached";
	argv[n++] = "--restore-sibling";
	argv[n++] = "--shell-job";
	argv[n++] = "--manage-cgroups=ignore";
	argv[n++] = "-D";
	argv[n++] = imgs;
	argv[n++] = "-o";
	argv[n++] = "restore.log";
	if (m.out_ino != 0) {
		argv[n++] = "--inherit-fd";
		argv[n++] = out;
	}
	if (m.err_ino != 0) {
		argv[n++] = "--inherit-fd";
		argv[n++] = err;
	}
	argv[n] = NULL;
	env[0] = (char *)xdg;
	env[1] = NULL;
	spec->path = cr.path;
	spec->argv = (char *const *)argv;
	spec->env = env;
	spec->no_new_privs = 0;
	spec->keep_caps = CAP_BIT(CAP_CHECKPOINT_RESTORE);
	spec->exec_error_line = 0;
	*pid = m.pid;
	return 0;
fail:
	remove_images(uuid);
	return -1;
}

void
criu_restore_over(const char *uuid, int failed, char *why, size_t whylen)
{
	if (failed)
		first_error(uuid, "restore.log", why, whylen);
	remove_images(uuid);
}
