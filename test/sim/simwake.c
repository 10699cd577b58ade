/*
 * simwake.c -- sleeping machines in the simulator (wake.h): a node goes
 * to sleep as the sleep hook puts it (volunteering off, node_sleep, its
 * heartbeat said), then hears and does nothing; a magic packet for it
 * (ACT_WAKE, from any node) resumes it sim_wake_ms later, memory and
 * all, as a suspended host resumes, and the hook's "over" lets it
 * volunteer again.  A node with nothing to do (<sleep_when_idle_min>)
 * goes to sleep the same way.
 */
#include <stdio.h>
#include <string.h>

#include "evqueue.h"
#include "simnet.h"

void
sim_sleep(struct simnet *s, int i)
{
	node_set_volunteer(s->nodes[i], 0, "asleep", sim_local(s, i));
	node_sleep(s->nodes[i], sim_local(s, i));
	sim_flush(s, i);
	s->alive[i] = 0;
	s->asleep[i] = 1;
	s->timer[i] = -1;
	s->down_at[i] = sim_local(s, i);
}

/* ACT_WAKE from node `from`: "<node> <mac>@<broadcast>[,always]". */
void
simwake_heard(struct simnet *s, int from, const char *text)
{
	char		name[NAME_MAXLEN + 1];
	struct sim_ev	e;
	int		i;

	snprintf(name, sizeof name, "%.*s", (int)strcspn(text, " "), text);
	if ((i = sim_index(s, name)) < 0 || i == from)
		sim_violation(s, "%s woke %s, no node of the pool",
		    node_name(s->nodes[from]), name);
	else if (s->asleep[i] && !s->waking[i]) {
		s->waking[i] = 1;
		s->wakes++;
		memset(&e, 0, sizeof e);
		e.kind = EV_WAKE;
		e.at = s->now + s->wake_ms;
		e.to = i;
		evq_push(s->dgrams, &e);
	}
}

/* Its magic packet came: the host resumes, the node volunteers. */
void
simwake_resume(struct simnet *s, int i)
{
	if (!s->waking[i])
		return;		/* rebooted meanwhile (a crash fault) */
	s->asleep[i] = s->waking[i] = 0;
	s->alive[i] = 1;
	node_set_volunteer(s->nodes[i], 1, "dedicated", sim_local(s, i));
	node_tick(s->nodes[i], sim_local(s, i));
	sim_flush(s, i);
}

void
simwake_sleep_soon(struct simnet *s, int i)
{
	struct sim_ev	e;

	memset(&e, 0, sizeof e);
	e.kind = EV_SLEEP;
	e.at = s->now;
	e.to = i;
	evq_push(s->dgrams, &e);
}
