/*
 * idle.h -- the idle probes of a node (DESIGN.md section 6): every
 * idle_check_s they read the CPU, the input devices, logind and the
 * owner's idle_command, and the volunteer policy decides what the node
 * does.  The IDLE hook forces a decision at once.
 */
#ifndef VOLERY_IDLE_H
#define VOLERY_IDLE_H

#include "volunteer.h"

struct config;
struct event_base;

struct idle_hooks {
	/* How many of our runs the policy may suspend. */
	int	(*suspendable)(void);
	/* A decision, after the first: carry it out. */
	void	(*decided)(const struct vol_decision *);
	/* The host is about to suspend: hand the runs back, tell the pool. */
	void	(*sleeping)(void);
};

/* Start probing; *first is the decision to start with. */
int	idle_init(struct event_base *, const struct config *,
	    const struct idle_hooks *, struct vol_decision *first);
/* The screensaver hook (IDLE on|off|auto): decide now. */
void	idle_force(enum vol_force);
/* The sleep hook (SLEEP now|over): the host is about to suspend, and
 * the node takes nothing, "asleep", until it is over. */
void	idle_sleep(int now);
/* Nothing for this node (<sleep_when_idle_min>): asleep as SLEEP now
 * says, then <sleep_command> puts the host to sleep; if it fails, the
 * node is awake again. */
void	idle_suspend_host(void);
void	idle_shutdown(void);

/* Is user logged in at this host (utmp: a tty or an X display, not a
 * remote session)?  The screensaver hook's own say (IDLE). */
int	idle_user_present(const char *user);

#endif
