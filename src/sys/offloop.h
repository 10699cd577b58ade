/*
 * offloop.h -- work off the event loop: a function runs in a thread of
 * its own, and its end is told back in the loop through a pipe, so that
 * a big parse (a workflow file of thousands of tasks) never holds up the
 * node's clients and peers.  The work and the loop share its argument,
 * one after the other: the loop does not touch it until done().
 */
#ifndef VOLERY_OFFLOOP_H
#define VOLERY_OFFLOOP_H

struct event_base;

typedef void offloop_fn(void *arg);

/*
 * Run work(arg) in a thread; then done(arg) in the loop, or drop(arg)
 * at shutdown.  -1 (errno set) if no thread could start: nothing is
 * called then.
 */
int	offloop_start(struct event_base *, offloop_fn *work, offloop_fn *done,
	    offloop_fn *drop, void *arg);
/* At shutdown: wait for the work still running, and drop() each (the
 * loop is over). */
void	offloop_shutdown(void);

#endif
