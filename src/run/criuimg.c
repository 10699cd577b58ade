/*
 * criuimg.c -- a CRIU dump as one file (criuimg.h).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "criuimg.h"
#include "task.h"

#define MAGIC	"volery-criu 1 "

/* A checkpoint file's kind of name (task.h), and no hidden one. */
static int
name_valid(const char *s)
{
	return s[0] != '.' && strlen(s) <= CRIUIMG_NAME_MAX &&
	    task_ckpt_file_valid(s);
}

static int
skipped(const char *name)
{
	size_t	n = strlen(name);

	/* CRIU's own logs and its cache of kernel features stay here. */
	return (n > 4 && strcmp(name + n - 4, ".log") == 0) ||
	    strcmp(name, "criu.kdat") == 0;
}

/* Copy fd's size bytes to f. */
static int
copy_in(int fd, off_t size, FILE *f)
{
	char	buf[65536];
	ssize_t	n;

	while (size > 0 && (n = read(fd, buf, sizeof buf)) > 0) {
		if (n > size || fwrite(buf, 1, n, f) != (size_t)n)
			return -1;
		size -= n;
	}
	return size == 0 ? 0 : -1;
}

int
criuimg_pack(int dir, uid_t uid, const struct criuimg_meta *m, int out,
    char *why, size_t whylen)
{
	struct dirent	*e;
	struct stat	 st;
	DIR		*d;
	FILE		*f;
	long		 files = 0, pos;
	int		 fd, dup_dir, rc = -1;

	if ((dup_dir = dup(dir)) == -1 || (d = fdopendir(dup_dir)) == NULL) {
		snprintf(why, whylen, "the dump: %s", strerror(errno));
		if (dup_dir != -1)
			close(dup_dir);
		return -1;
	}
	if ((f = fdopen(dup(out), "w")) == NULL) {
		snprintf(why, whylen, "the pack: %s", strerror(errno));
		closedir(d);
		return -1;
	}
	/* The count is written last, in its fixed-width place. */
	fprintf(f, MAGIC "%d %" PRIu64 " %" PRIu64 " ", (int)m->pid,
	    m->out_ino, m->err_ino);
	pos = ftell(f);
	fprintf(f, "%4d\n", 0);
	while ((e = readdir(d)) != NULL) {
		if (!name_valid(e->d_name) || skipped(e->d_name))
			continue;
		/* The user's: never through a link, only a plain file. */
		if ((fd = openat(dir, e->d_name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC | O_NONBLOCK)) == -1)
			continue;
		if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
		    st.st_uid != uid || ++files > CRIUIMG_FILES_MAX) {
			close(fd);
			if (files > CRIUIMG_FILES_MAX)
				goto out;
			continue;
		}
		fprintf(f, "%s %lld\n", e->d_name, (long long)st.st_size);
		if (copy_in(fd, st.st_size, f) == -1) {
			close(fd);
			snprintf(why, whylen, "%s: changed while packed",
			    e->d_name);
			goto fail;
		}
		close(fd);
	}
	if (fseek(f, pos, SEEK_SET) == -1 || fprintf(f, "%4ld", files) < 0)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		snprintf(why, whylen, "the pack: %s", files >
		    CRIUIMG_FILES_MAX ? "too many files" : strerror(errno));
fail:
	if (fclose(f) == EOF && rc == 0) {
		snprintf(why, whylen, "the pack: %s", strerror(errno));
		rc = -1;
	}
	closedir(d);
	return rc;
}

/* A decimal of the text at *p up to sep, in [0, hi]. */
static int
number(const unsigned char **p, const unsigned char *end, char sep,
    uint64_t hi, uint64_t *out)
{
	const unsigned char	*s = *p;
	uint64_t		 v = 0;

	while (s < end && *s == ' ')	/* the count's padding */
		s++;
	if (s == end || !isdigit(*s))
		return -1;
	for (; s < end && isdigit(*s); s++) {
		if (v > (hi - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (s == end || *s != sep)
		return -1;
	*p = s + 1;
	*out = v;
	return 0;
}

int
criuimg_parse(const unsigned char *buf, size_t len, struct criuimg_meta *m,
    int (*put)(const char *, const unsigned char *, size_t, void *),
    void *arg, char *why, size_t whylen)
{
	const unsigned char	*p = buf, *end = buf + len, *sp;
	char			 name[CRIUIMG_NAME_MAX + 1];
	uint64_t		 pid, files, size, i;

	if (len < sizeof MAGIC - 1 || memcmp(buf, MAGIC, sizeof MAGIC - 1)) {
		snprintf(why, whylen, "not a volery CRIU pack");
		return -1;
	}
	p += sizeof MAGIC - 1;
	if (number(&p, end, ' ', 4194304, &pid) == -1 || pid < 1 ||
	    number(&p, end, ' ', UINT64_MAX, &m->out_ino) == -1 ||
	    number(&p, end, ' ', UINT64_MAX, &m->err_ino) == -1 ||
	    number(&p, end, '\n', CRIUIMG_FILES_MAX, &files) == -1) {
		snprintf(why, whylen, "a bad pack header");
		return -1;
	}
	m->pid = (pid_t)pid;
	for (i = 0; i < files; i++) {
		for (sp = p; sp < end && *sp != ' ' && sp - p <=
		    CRIUIMG_NAME_MAX; sp++)
			;
		if (sp == end || *sp != ' ' || sp == p ||
		    sp - p > CRIUIMG_NAME_MAX) {
			snprintf(why, whylen, "file %" PRIu64 ": a bad name",
			    i + 1);
			return -1;
		}
		memcpy(name, p, sp - p);
		name[sp - p] = '\0';
		p = sp + 1;
		if (!name_valid(name) || number(&p, end, '\n', end - p,
		    &size) == -1 || size > (uint64_t)(end - p)) {
			snprintf(why, whylen, "file %" PRIu64 ": a bad name or "
			    "size", i + 1);
			return -1;
		}
		if (put(name, p, size, arg) == -1) {
			snprintf(why, whylen, "%s: %s", name, strerror(errno));
			return -1;
		}
		p += size;
	}
	if (p != end) {
		snprintf(why, whylen, "bytes after the last file");
		return -1;
	}
	return 0;
}

struct unpack {
	int	dir;
	uid_t	uid;
	gid_t	gid;
};

static int
put_file(const char *name, const unsigned char *data, size_t size, void *arg)
{
	struct unpack	*u = arg;
	ssize_t		 n;
	int		 fd;

	if ((fd = openat(u->dir, name, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return -1;
	while (size > 0 && (n = write(fd, data, size)) > 0) {
		data += n;
		size -= n;
	}
	if (size > 0 || fchown(fd, u->uid, u->gid) == -1) {
		close(fd);
		return -1;
	}
	return close(fd);
}

int
criuimg_unpack(int in, int dir, uid_t uid, gid_t gid,
    struct criuimg_meta *m, char *why, size_t whylen)
{
	struct unpack	 u = { dir, uid, gid };
	struct stat	 st;
	void		*buf;
	int		 rc;

	if (fstat(in, &st) == -1 || st.st_size == 0 ||
	    (buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, in, 0)) ==
	    MAP_FAILED) {
		snprintf(why, whylen, "the pack: %s", errno != 0 ?
		    strerror(errno) : "empty");
		return -1;
	}
	rc = criuimg_parse(buf, st.st_size, m, put_file, &u, why, whylen);
	munmap(buf, st.st_size);
	return rc;
}
