/*
 * logjob.c -- a log search in a thread of its own (logjob.h).  The thread
 * shares nothing with the loop but a pipe: it owns the search and the
 * file, writes matching lines into the pipe and closes it at the end; a
 * closed read end (the client went away) makes its next write fail
 * (EPIPE: the node ignores SIGPIPE) and it stops.  The loop reads the
 * pipe with a bufferevent, a line at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "log.h"
#include "logjob.h"
#include "logsearch.h"

/* What the thread owns. */
struct work {
	struct log_search	*s;
	FILE			*f;
	int			 nlines;
	int			 fd;		/* the pipe's write end */
};

/* What the loop owns. */
struct logjob {
	struct bufferevent	*bev;		/* the pipe's read end */
	logjob_fn		*out;
	void			*arg;
	int			 in_out;	/* inside out(): free later */
	int			 cancelled;
};

static int	running;

static int
write_all(int fd, const char *p, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
emit(const char *line, size_t len, void *arg)
{
	struct work	*w = arg;

	return write_all(w->fd, line, len) == -1 ||
	    write_all(w->fd, "\n", 1) == -1 ? -1 : 0;
}

static void *
search(void *arg)
{
	struct work	*w = arg;
	char		 note[128];
	size_t		 n;

	if (log_search_file(w->s, w->f, w->nlines, emit, w) == 0 &&
	    (n = log_search_gave_up(w->s)) > 0) {
		snprintf(note, sizeof note, "# the expression gave up on %zu "
		    "lines (too costly: PCRE2 match limit)", n);
		emit(note, strlen(note), w);
	}
	close(w->fd);
	fclose(w->f);
	log_search_free(w->s);
	free(w);
	return NULL;
}

static void
finish(struct logjob *j)
{
	bufferevent_free(j->bev);	/* closes the read end */
	free(j);
	running--;
}

/* Give out a line (NULL: the end); 0, or -1 if that cancelled the job
 * (out() may drop the client, which cancels it). */
static int
give(struct logjob *j, const char *line, size_t len)
{
	j->in_out = 1;
	j->out(line, len, j->arg);
	j->in_out = 0;
	if (j->cancelled) {
		finish(j);
		return -1;
	}
	return 0;
}

/* Give out every whole line the pipe holds; -1 if that cancelled it. */
static int
drain(struct logjob *j)
{
	struct evbuffer	*in = bufferevent_get_input(j->bev);
	char		*line;
	size_t		 len;
	int		 r;

	while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF)) != NULL) {
		r = give(j, line, len);
		free(line);
		if (r == -1)
			return -1;
	}
	return 0;
}

static void
read_cb(struct bufferevent *bev, void *arg)
{
	drain(arg);
}

static void
event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct logjob	*j = arg;

	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) || drain(j) == -1)
		return;
	/* The end: the job is over whatever out() does. */
	j->cancelled = 1;
	give(j, NULL, 0);
}

struct logjob *
logjob_start(struct event_base *base, struct log_search *s, FILE *f,
    int nlines, logjob_fn *out, void *arg)
{
	struct logjob	*j = NULL;
	struct work	*w = NULL;
	pthread_attr_t	 attr;
	pthread_t	 th;
	int		 fds[2] = { -1, -1 };

	if ((j = calloc(1, sizeof *j)) == NULL ||
	    (w = calloc(1, sizeof *w)) == NULL ||
	    pipe2(fds, O_CLOEXEC) == -1)
		goto fail;
	evutil_make_socket_nonblocking(fds[0]);
	if ((j->bev = bufferevent_socket_new(base, fds[0],
	    BEV_OPT_CLOSE_ON_FREE)) == NULL)
		goto fail;
	fds[0] = -1;
	j->out = out;
	j->arg = arg;
	w->s = s;
	w->f = f;
	w->nlines = nlines;
	w->fd = fds[1];
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	errno = pthread_create(&th, &attr, search, w);
	pthread_attr_destroy(&attr);
	if (errno != 0)
		goto fail;
	bufferevent_setcb(j->bev, read_cb, NULL, event_cb, j);
	bufferevent_enable(j->bev, EV_READ);
	running++;
	return j;
fail:
	if (j != NULL && j->bev != NULL)
		bufferevent_free(j->bev);
	if (fds[0] != -1)
		close(fds[0]);
	if (fds[1] != -1)
		close(fds[1]);
	free(j);
	free(w);
	fclose(f);
	log_search_free(s);
	return NULL;
}

void
logjob_cancel(struct logjob *j)
{
	if (j->in_out)
		j->cancelled = 1;	/* give() frees it on return */
	else
		finish(j);
}

int
logjob_running(void)
{
	return running;
}
