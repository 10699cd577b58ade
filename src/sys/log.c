/*
 * log.c -- write log lines.  Every byte that came from outside is escaped
 * (log_escape) so that no task output or client text can forge a line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static int		log_fd = -1;
static char		log_path[4096];
static int		log_echo = 1;
static enum log_level	log_min = VLOG_INFO;

int
log_open(const char *path, enum log_level min, int echo)
{
	int	fd = -1;

	if (path != NULL &&
	    (fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	log_close();
	log_fd = fd;
	snprintf(log_path, sizeof log_path, "%s", path != NULL ? path : "");
	log_min = min;
	log_echo = echo;
	return 0;
}

/* After logrotate moved the file: write to a new one at the same path. */
int
log_reopen(void)
{
	int	fd;

	if (log_path[0] == '\0')
		return 0;
	fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1)
		return -1;
	if (log_fd != -1)
		close(log_fd);
	log_fd = fd;
	return 0;
}

/*
 * For LOG: the file we write to now, read through our own descriptor.
 * Between logrotate's move and our reopen the path names nothing, or a
 * file we do not write yet; the descriptor always names ours.
 */
FILE *
log_read_open(void)
{
	char	path[64];

	if (log_fd == -1) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", log_fd);
	return fopen(path, "re");
}

void
log_close(void)
{
	if (log_fd != -1)
		close(log_fd);
	log_fd = -1;
}

/* Copy src, showing control bytes as \n, \t, \r or \xHH. */
void
log_escape(char *dst, size_t size, const char *src, size_t len)
{
	size_t	o = 0, i;

	if (size == 0)
		return;
	for (i = 0; i < len && o + 5 < size; i++) {
		unsigned char c = src[i];
		if (c == '\n' || c == '\t' || c == '\r') {
			dst[o++] = '\\';
			dst[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		} else if (c < ' ' || c == 0x7f) {
			o += snprintf(dst + o, size - o, "\\x%02x", c);
		} else
			dst[o++] = c;
	}
	dst[o] = '\0';
}

/* One line at level; with_errno appends ": " and errno's text. */
static void
vlog(enum log_level level, int with_errno, const char *fmt, va_list ap)
{
	char		 msg[2048], safe[2048], line[2200];
	struct tm	 tm;
	time_t		 now;
	int		 len, saved = errno;

	if (level < log_min)
		return;
	len = vsnprintf(msg, sizeof msg, fmt, ap);
	if (with_errno && len >= 0 && (size_t)len < sizeof msg)
		snprintf(msg + len, sizeof msg - len, ": %s", strerror(saved));
	log_escape(safe, sizeof safe, msg, strlen(msg));
	now = time(NULL);
	localtime_r(&now, &tm);
	len = snprintf(line, sizeof line,
	    "[%04d-%02d-%02d %02d:%02d:%02d]: <%s> %s\n", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    log_level_name(level), safe);
	if (len < 0)
		return;
	if ((size_t)len >= sizeof line)
		len = sizeof line - 1;
	if (log_fd != -1 && write(log_fd, line, len) == -1)
		errno = 0;	/* nowhere left to report it */
	if (log_echo && write(STDERR_FILENO, line, len) == -1)
		errno = 0;
}

void
log_msg(enum log_level level, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(level, 0, fmt, ap);
	va_end(ap);
}

#define LOG_VERB(name, level, with_errno)				\
void									\
name(const char *fmt, ...)						\
{									\
	va_list	ap;							\
									\
	va_start(ap, fmt);						\
	vlog(level, with_errno, fmt, ap);				\
	va_end(ap);							\
}

LOG_VERB(log_debug, VLOG_DEBUG, 0)
LOG_VERB(log_info, VLOG_INFO, 0)
LOG_VERB(log_warn, VLOG_WARNING, 1)
LOG_VERB(log_warnx, VLOG_WARNING, 0)

#define FATAL_VERB(name, with_errno)					\
void									\
name(const char *fmt, ...)						\
{									\
	va_list	ap;							\
									\
	va_start(ap, fmt);						\
	vlog(VLOG_ERROR, with_errno, fmt, ap);				\
	va_end(ap);							\
	exit(1);							\
}

FATAL_VERB(fatal, 1)
FATAL_VERB(fatalx, 0)
