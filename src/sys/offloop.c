/*
 * offloop.c -- work off the event loop (offloop.h).  Each job is a
 * joinable thread and a pipe: the thread runs the work, writes a byte
 * and ends; the loop reads it, joins the thread (which is ending) and
 * calls done().  Every signal is blocked in the thread: the node's
 * signals are the loop's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "offloop.h"

struct job {
	pthread_t	 th;
	int		 fds[2];	/* the thread writes [1] at its end */
	struct event	*ev;
	offloop_fn	*work;
	offloop_fn	*done;
	offloop_fn	*drop;
	void		*arg;
	struct job	*next;
};

static struct job	*jobs;

static void *
run(void *p)
{
	struct job	*j = p;
	ssize_t		 n;

	j->work(j->arg);
	do
		n = write(j->fds[1], "", 1);
	while (n == -1 && errno == EINTR);
	return NULL;
}

/* Joined, unlinked and freed; its argument back. */
static void *
finish(struct job *j)
{
	struct job	**pp;
	void		 *arg = j->arg;

	pthread_join(j->th, NULL);
	for (pp = &jobs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	event_free(j->ev);
	close(j->fds[0]);
	close(j->fds[1]);
	free(j);
	return arg;
}

static void
ended(evutil_socket_t fd, short what, void *p)
{
	struct job	*j = p;
	offloop_fn	*done = j->done;

	done(finish(j));
}

int
offloop_start(struct event_base *base, offloop_fn *work, offloop_fn *done,
    offloop_fn *drop, void *arg)
{
	struct job	*j;
	sigset_t	 all, was;
	int		 e;

	if ((j = calloc(1, sizeof *j)) == NULL)
		return -1;
	j->work = work;
	j->done = done;
	j->drop = drop;
	j->arg = arg;
	if (pipe2(j->fds, O_CLOEXEC) == -1) {
		free(j);
		return -1;
	}
	if ((j->ev = event_new(base, j->fds[0], EV_READ, ended, j)) == NULL ||
	    event_add(j->ev, NULL) == -1) {
		e = ENOMEM;
		goto fail;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	e = pthread_create(&j->th, NULL, run, j);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (e != 0)
		goto fail;
	j->next = jobs;
	jobs = j;
	return 0;
fail:
	if (j->ev != NULL)
		event_free(j->ev);
	close(j->fds[0]);
	close(j->fds[1]);
	free(j);
	errno = e;
	return -1;
}

void
offloop_shutdown(void)
{
	offloop_fn	*drop;

	while (jobs != NULL) {
		drop = jobs->drop;
		drop(finish(jobs));
	}
}
