/*
 * peerrun.c -- what a peer is doing, as its messages tell (peerrun.h).
 */
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "peer.h"
#include "peerrun.h"

enum peerrun_news
peerrun_state(struct peer *p, const struct peer_msg *m)
{
	char		 on[NAME_MAXLEN + 8], uuid[UUID_STRLEN + 1];
	const char	*id = strstr(m->record, " id=");

	snprintf(on, sizeof on, " on=%s ", m->sender);
	if (id == NULL || strstr(m->record, on) == NULL)
		return PEERRUN_SAME;
	snprintf(uuid, sizeof uuid, "%.*s", (int)strcspn(id + 4, " "), id + 4);
	if (strstr(m->record, " st=Running ") != NULL) {
		memcpy(p->running, uuid, sizeof p->running);
		if (p->slots == 1)
			p->free = 0;
		return PEERRUN_BEGAN;
	}
	/* News of an older run of it (a late confirmation) says nothing
	 * of the one it runs now. */
	if (p->running[0] != '\0' && strcmp(p->running, uuid) != 0)
		return PEERRUN_SAME;
	p->running[0] = '\0';
	if (p->running_ms == 0 && !(p->slots == 1 && p->free == 0))
		return PEERRUN_SAME;
	p->running_ms = 0;
	if (p->slots == 1)
		p->free = 1;
	return PEERRUN_ENDED;
}

int
peerrun_volunteer_takes(const char *volunteer)
{
	return strcmp(volunteer, "idle") == 0 ||
	    strcmp(volunteer, "dedicated") == 0 ||
	    strcmp(volunteer, "batch") == 0;
}

/*
 * Stopped cleanly: out of the majority.  Not a node gone to sleep
 * (wake.h): it leaves when its silence passes the membership timeout,
 * as any silent node.  Taken out at once, it would come back at once
 * when woken, and a pool where a few woke together while split (the
 * others deaf to them) counted two majorities of two memberships that
 * need not meet: two ends of one task confirmed (the simulator, -y).
 */
int
peerrun_volunteer_left(const char *volunteer)
{
	return strcmp(volunteer, "stopped") == 0;
}

int
peerrun_takes_tasks(const struct peer *p)
{
	return p->alive && p->takes_tasks;
}

int
peerrun_is_idle(const struct peer *p)
{
	/* A one-slot node that sends PROGRESS is busy, whatever its last
	 * heartbeat (seconds old, maybe) said. */
	return peerrun_takes_tasks(p) && p->free > 0 &&
	    !(p->slots == 1 && p->running_ms > 0);
}
