/*
 * stay.h -- <state_dir>/stay: what this node learned of its volunteer
 * periods (the core's ACT_STAY text), kept across restarts, and, by the
 * file's modification time, when the node was last known up: touched
 * every STAY_STAMP_S, so that the period a switch-off ends counts at
 * the next start (node_stay_restore), give or take a stamp.
 */
#ifndef VOLERY_STAY_H
#define VOLERY_STAY_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

#define STAY_STAMP_S	60

/* Replace the text (ACT_STAY), atomically. */
void	stay_save(const char *state_dir, const char *text);
/* The text kept and when the node was last up (ms since the epoch);
 * -1 if there is none.  Then the stamps start. */
int	stay_open(struct event_base *, const char *state_dir, char *buf,
	    size_t size, int64_t *alive_ms);
/* A last stamp: the node stops now. */
void	stay_close(void);

#endif
