/*
 * stay.c -- <state_dir>/stay (stay.h).  The stamp changes the file's
 * times only (no data, no sync): a minute's touch costs a desktop
 * nothing it would notice.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#include "log.h"
#include "statefile.h"
#include "stay.h"

static struct {
	char		 path[PATH_MAX];
	struct event	*ev;
} st;

static void
set_path(const char *state_dir)
{
	snprintf(st.path, sizeof st.path, "%s/stay", state_dir);
}

void
stay_save(const char *state_dir, const char *text)
{
	set_path(state_dir);
	if (statefile_write(st.path, text) == -1)
		log_warn("cannot record this node's volunteer periods in %s",
		    st.path);
}

static void
stamp(void)
{
	if (st.path[0] != '\0' && utimensat(AT_FDCWD, st.path, NULL, 0) == -1 &&
	    errno != ENOENT)
		log_warn("cannot stamp %s", st.path);
}

static void
stamp_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	stamp();
}

int
stay_open(struct event_base *base, const char *state_dir, char *buf,
    size_t size, int64_t *alive_ms)
{
	struct timeval	 every = { STAY_STAMP_S, 0 };
	struct stat	 sb;
	FILE		*f;
	int		 rc = -1;

	set_path(state_dir);
	if ((f = fopen(st.path, "re")) != NULL) {
		if (fstat(fileno(f), &sb) == 0 && fgets(buf, (int)size, f) !=
		    NULL) {
			buf[strcspn(buf, "\n")] = '\0';
			*alive_ms = (int64_t)sb.st_mtim.tv_sec * 1000 +
			    sb.st_mtim.tv_nsec / 1000000;
			rc = 0;
		}
		fclose(f);
	}
	if ((st.ev = event_new(base, -1, EV_PERSIST, stamp_cb, NULL)) == NULL ||
	    event_add(st.ev, &every) == -1)
		log_warnx("cannot stamp %s: a switch-off will not count",
		    st.path);
	return rc;
}

void
stay_close(void)
{
	stamp();
	if (st.ev != NULL)
		event_free(st.ev);
	st.ev = NULL;
}
