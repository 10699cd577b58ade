/*
 * notify.h -- who hears of the node's changes.  The client connections
 * (SUBSCRIBE) and the web's event streams register a hook here; the
 * actions file calls them.  So no shell file calls back into the file
 * that called it, and adding a listener touches nothing else.
 */
#ifndef VOLERY_NOTIFY_H
#define VOLERY_NOTIFY_H

#define NOTIFY_HOOKS_MAX	4

struct notify_hook {
	/* A task changed; snapshot is its PROGRESS line (ACT_NOTIFY). */
	void	(*task_changed)(const char *uuid, const char *snapshot);
	/* The node handled an event and carried out what followed. */
	void	(*settled)(void);
};

/* hook must outlive the node (a static); -1 if there are too many. */
int	notify_add(const struct notify_hook *);
void	notify_task(const char *uuid, const char *snapshot);
void	notify_settled(void);
void	notify_clear(void);

#endif
