/*
 * tasktries.c -- a task's failed attempts (task.h's tries): a short
 * list, "node:status,...", oldest first, that its record carries so
 * that every node knows where it failed (retry.c) and `volery history`
 * shows each attempt.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"

int
task_tries_valid(const char *s)
{
	const char	*p = s, *colon, *end;
	char		 item[NAME_MAXLEN + 8], name[NAME_MAXLEN + 1];
	char		*rest;
	long		 status;
	int		 n = 0;

	if (strlen(s) > TRIES_TEXT_MAX)
		return 0;
	while (*p != '\0') {
		if ((end = strchr(p, ',')) == NULL)
			end = p + strlen(p);
		if ((size_t)(end - p) >= sizeof item || ++n > TRIES_MAX)
			return 0;
		memcpy(item, p, end - p);
		item[end - p] = '\0';
		if ((colon = strchr(item, ':')) == NULL ||
		    colon - item > NAME_MAXLEN)
			return 0;
		memcpy(name, item, colon - item);
		name[colon - item] = '\0';
		if (!task_name_valid(name) || colon[1] == '\0')
			return 0;
		status = strtol(colon + 1, &rest, 10);
		/* Digits (or -1) only: no blank, sign or leading zero. */
		if (*rest != '\0' || status < -1 || status > 256 + 64 ||
		    (!isdigit((unsigned char)colon[1]) && colon[1] != '-') ||
		    (colon[1] == '0' && colon[2] != '\0'))
			return 0;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0')
			return 0;	/* a trailing comma */
	}
	return 1;
}

int
task_tries_next(const char **p, char node[NAME_MAXLEN + 1], int *status)
{
	const char	*colon, *comma;

	if (*p == NULL || **p == '\0' || (colon = strchr(*p, ':')) == NULL ||
	    colon - *p > NAME_MAXLEN)
		return -1;
	memcpy(node, *p, colon - *p);
	node[colon - *p] = '\0';
	*status = atoi(colon + 1);
	*p = (comma = strchr(colon, ',')) != NULL ? comma + 1 :
	    colon + strlen(colon);
	return 0;
}

int
task_tries_add(struct task *t, const char *node, int status)
{
	char		 buf[TRIES_TEXT_MAX + 1];
	const char	*keep = t->tries != NULL ? t->tries : "";
	const char	*p;
	int		 n = *keep != '\0' ? 2 : 1;	/* with the new one */

	for (p = keep; *p != '\0'; p++)
		n += *p == ',';
	/* The latest TRIES_MAX: the oldest go first. */
	for (; *keep != '\0' && n > TRIES_MAX; n--)
		keep = (p = strchr(keep, ',')) != NULL ? p + 1 : "";
	snprintf(buf, sizeof buf, "%s%s%s:%d", keep, *keep != '\0' ? "," :
	    "", node, status < -1 || status > 256 + 64 ? -1 : status);
	return task_set_string(&t->tries, buf);
}
