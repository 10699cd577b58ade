/*
 * leftwait.h -- a run's end waits for what it left: processes of a run
 * that outlived it (killed as it ended, still dying, or dead and not yet
 * reaped) count against its user's process limit, so its slot is free
 * only once they are gone -- each SIGCHLD asks again -- or once they have
 * outlived SIGKILL for LEFTWAIT_S (a process stuck in the kernel).
 */
#ifndef VOLERY_LEFTWAIT_H
#define VOLERY_LEFTWAIT_H

struct event_base;
struct leftwait;

#define LEFTWAIT_S	10

void	leftwait_init(struct event_base *);
/* gone(arg) once nothing of run uuid is left (never from here); a
 * handle for leftwait_cancel, or NULL (out of memory: no wait). */
struct leftwait *leftwait_start(const char *uuid, const char *name,
	    void (*gone)(void *), void *arg);
void	leftwait_cancel(struct leftwait *);

#endif
