/*
 * log.h -- the node's log file: one line per event,
 * "[YYYY-MM-DD HH:MM:SS]: <severity> message", echoed to stderr when the
 * node runs in the foreground.
 */
#ifndef VOLERY_LOG_H
#define VOLERY_LOG_H

#include <stdio.h>

#include "outbox.h"

int	log_open(const char *path, enum log_level min, int echo);
int	log_reopen(void);
FILE	*log_read_open(void);
void	log_close(void);
void	log_msg(enum log_level, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * The verbs of OpenBSD daemons: log_warn and fatal append ": " and
 * strerror(errno); the -x forms do not.  fatal and fatalx log at error
 * level and exit(1).
 */
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	log_escape(char *dst, size_t size, const char *src, size_t len);

#endif
