/*
 * members.h -- <state_dir>/members: the nodes that counted in the
 * majority when this node last ran (one name a line), so that after a
 * restart it does not take itself for the whole pool.
 */
#ifndef VOLERY_MEMBERS_H
#define VOLERY_MEMBERS_H

/* Replace the file by text (ACT_MEMBERS), atomically. */
void	members_save(const char *state_dir, const char *text);
/* Each name in the file, to cb; a missing file is no member. */
void	members_load(const char *state_dir, void (*cb)(const char *, void *),
	    void *arg);

#endif
