/*
 * history.c -- the history file: framed records appended by retirement,
 * read back whole for HISTORY.  Damaged lines are skipped and logged, as
 * the journal's are.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"
#include "journal.h"
#include "log.h"
#include "task.h"
#include "taskmap.h"
#include "wire.h"

static struct {
	char	 path[4200];
	int	 fd;
	char	*buf;		/* framed records not yet written */
	size_t	 len, cap;
} h = { .fd = -1 };

int
history_open(const char *state_dir, char *err, size_t errlen)
{
	snprintf(h.path, sizeof h.path, "%s/history", state_dir);
	h.fd = open(h.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (h.fd == -1) {
		snprintf(err, errlen, "%s: %s", h.path, strerror(errno));
		return -1;
	}
	return 0;
}

void
history_close(void)
{
	history_commit();
	if (h.fd != -1)
		close(h.fd);
	h.fd = -1;
	free(h.buf);
	h.buf = NULL;
	h.len = h.cap = 0;
}

void
history_append(const char *uuid, const char *record)
{
	char	framed[RECORD_LINE_MAX + 16];
	int	flen;

	if ((flen = wire_record_frame(record, strlen(record), framed,
	    sizeof framed)) == -1) {
		log_msg(VLOG_ERROR, "history: task %s does not fit a record; "
		    "not kept", uuid);
		return;
	}
	if (journal_buf_add(&h.buf, &h.len, &h.cap, framed, flen) == -1)
		log_msg(VLOG_ERROR, "history: out of memory; task %s not kept",
		    uuid);
}

int
history_commit(void)
{
	if (h.len > 0 && (h.fd == -1 ||
	    journal_write_all(h.fd, h.buf, h.len) == -1 ||
	    fdatasync(h.fd) == -1)) {
		log_msg(VLOG_ERROR, "history %s: %s; %zu bytes not kept",
		    h.path, h.fd == -1 ? "not open" : strerror(errno), h.len);
		h.len = 0;
		return -1;
	}
	h.len = 0;
	return 0;
}

static int
keep(struct task *t, void *arg)
{
	struct taskmap	*m = arg;

	task_free(taskmap_remove(m, t->uuid));	/* the later copy */
	return taskmap_insert(m, t);
}

static void
damaged(size_t lineno, enum wire_damage kind, const char *why, size_t len,
    void *arg)
{
	log_msg(VLOG_ERROR, "history %s: line %zu: %s; skipped", h.path,
	    lineno, why);
}

struct task **
history_read(size_t *count)
{
	struct taskmap		 m;
	struct wire_journal_scan scan = { keep, damaged, NULL, 0, 0 };
	struct task		**v, *t;
	char			*data;
	size_t			 len, it = 0;

	*count = 0;
	taskmap_init(&m);
	scan.arg = &m;
	if ((data = journal_read_file(h.path, &len)) == NULL) {
		if (errno != ENOENT)
			return NULL;
	} else {
		wire_journal_scan(data, len, &scan);
		free(data);
	}
	if ((v = taskmap_sorted(&m, count)) == NULL) {
		taskmap_free(&m);
		return NULL;
	}
	/* The tasks now belong to v: empty the map without freeing them. */
	while ((t = taskmap_next(&m, &it)) != NULL)
		taskmap_remove(&m, t->uuid);
	taskmap_free(&m);
	return v;
}

const struct task *
history_find(struct task *const *v, size_t n, const char *uuid)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i]->uuid, uuid) == 0)
			return v[i];
	return NULL;
}

void
history_free(struct task **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		task_free(v[i]);
	free(v);
}
