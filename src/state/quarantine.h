/*
 * quarantine.h -- <state_dir>/quarantine: this node's quarantine
 * (retry.h) as the core last told it (ACT_QUARANTINE), so that a black
 * hole that restarts is one still.  The core checks what it is given
 * back (node_quarantine_restore), so a damaged file costs the
 * quarantine, nothing more.
 */
#ifndef VOLERY_QUARANTINE_H
#define VOLERY_QUARANTINE_H

#include <stddef.h>

/* Keep text ("" : none, the file goes). */
void	quarantine_save(const char *state_dir, const char *text);
/* The text kept into buf: 0, or -1 if none. */
int	quarantine_load(const char *state_dir, char *buf, size_t size);

#endif
