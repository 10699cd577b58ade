/*
 * wake.h -- sleeping desktops, woken (issue 40).  A node about to
 * suspend (`volery sleep`, from the system's sleep hook) hands its runs
 * back and says so: its heartbeats say "asleep" and how to wake it, its
 * MAC address and its subnet's broadcast address (HEARTBEAT's wake=,
 * peer.h), with ",always" if it volunteers whenever it is up.  Every
 * node keeps that of the sleepers it hears, up to WAKE_SLEEPERS_MAX (the
 * longest asleep forgotten first).  The master, when Ready work has
 * waited <wake_after_s> with no free slot in the pool, wakes sleepers --
 * those whose batch window is open, or that volunteer always; the
 * fastest first -- until their slots cover what waits: ACT_WAKE, and the
 * shell sends the magic packet.  A sleeper heard again is awake; one
 * that does not come back within WAKE_RETRY_MS may be woken again.
 *
 * <sleep_when_idle_min> (opt-in): a dedicated or batch node that is not
 * the master (someone awake wakes the others) and can be woken, with no
 * run and no Ready task it could run for that long, asks the shell to
 * put its host to sleep (ACT_SLEEP), once a spell.
 */
#ifndef VOLERY_WAKE_H
#define VOLERY_WAKE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct node;
struct node_status;
struct peer;
struct peer_msg;

#define WAKE_SLEEPERS_MAX	1024
#define WAKE_RETRY_MS		(120 * 1000)

struct wake_sleeper {
	char		name[NAME_MAXLEN + 1];
	char		how[WAKE_TEXT_MAX + 1];	/* "<mac>@<bcast>[,always]" */
	int		speed, slots;
	int64_t		window_from_ms, window_to_ms;	/* 0 to: none */
	int64_t		asleep_ms;
	int64_t		woken_ms;	/* -1: not woken */
};

struct wake {
	struct wake_sleeper *v;
	size_t		 n, cap;
	int		 starved;	/* work waits, no slot is free ... */
	int64_t		 starved_ms;	/* ... since */
	uint64_t	 woken;		/* magic packets asked for */
	int		 idle;		/* nothing here for us ... */
	int64_t		 idle_ms;	/* ... since */
	int		 slept;		/* ACT_SLEEP asked, this spell */
};

/* A heartbeat from p: asleep (kept), or awake (forgotten). */
void	wake_heard(struct node *, const struct peer *, const struct peer_msg *,
	    int64_t now);
/* Housekeeping: the master wakes sleepers for the work that waits; a
 * node with nothing to do goes to sleep. */
void	wake_housekeeping(struct node *, int64_t now);
void	wake_status(const struct node *, struct node_status *);
void	wake_free(struct node *);

#endif
