/*
 * introduce.h -- telling a peer who we are when its frames show that it
 * does not know us yet (peers.c).  A node that joins MACs its frames for
 * the peers it has heard; one that has not heard us drops them (REJECTED
 * "does not know us yet", or "certificate not heard") until we speak
 * again, which a quiet node in a big pool does every 20 s.  So we answer
 * such a frame at once with our certificate, signed: its sender learns
 * us and MACs for us, or signs, from its next frame on.  At most one
 * answer per sender per INTRODUCE_MS and INTRODUCE_MAX a second in all:
 * a frame that names any sender (the cluster key lets a peer forge the
 * name, not the MACs) cannot make us send more.
 */
#ifndef VOLERY_INTRODUCE_H
#define VOLERY_INTRODUCE_H

#include <stdint.h>

#define INTRODUCE_MS	1000
#define INTRODUCE_MAX	32

/* May we introduce ourselves to sender now?  1 (and counted) or 0. */
int	introduce_due(const char *sender, int64_t now);

#endif
