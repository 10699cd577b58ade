/*
 * ckwatch.h -- the checkpoint file a command declares (--checkpoint),
 * watched in its run dir: each time the run closes it written, or
 * renames a file to its name, the callback hears of it (inotify; one
 * descriptor for every run of the node).
 */
#ifndef VOLERY_CKWATCH_H
#define VOLERY_CKWATCH_H

struct event_base;

typedef void	(*ckwatch_cb)(const char *uuid, const char *file);

void	ckwatch_init(struct event_base *, ckwatch_cb);
/* Watch file in dir, the run dir of uuid's run; -1 if it cannot. */
int	ckwatch_add(const char *uuid, const char *dir, const char *file);
/* The run is over: what it wrote last is told first, then no more. */
void	ckwatch_remove(const char *uuid);
/* The node stops: every watch ends, untold. */
void	ckwatch_close(void);

#endif
