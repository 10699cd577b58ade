/*
 * leftover.h -- what runs leave behind, where they have no cgroup: a
 * process is a run's while its environment holds the run's marker,
 * "TMPDIR=<state_dir>/runs/<uuid>" (what a node's "TMPDIR=<state_dir>/
 * runs/" begins).
 */
#ifndef VOLERY_LEFTOVER_H
#define VOLERY_LEFTOVER_H

/* Every process whose environment holds marker, killed (at start, and
 * by the watchdog of a node that died).  How many. */
int	leftover_kill_marked(const char *marker);
/*
 * What the run uuid left as it ended: the node is the subreaper of its
 * runs, so a child of the node that is no job of ours is an orphan of
 * one.  Those of this run, and those that carry no run's marker any
 * more (one that changed its environment), die with their process
 * groups; another live run's are left to it.  How many.
 */
int	leftover_kill_orphans(const char *marker, const char *uuid);
/* How many of those are still our children (dying, or dead and not yet
 * reaped: a zombie still counts against its user's process limit). */
int	leftover_orphans(const char *marker, const char *uuid);

#endif
