/*
 * owner.h -- as whom a task runs on this node.
 *
 * A node started as root, without <run_as>, runs a task as its owner
 * (the user who scheduled it, task.h) when an account of that name
 * exists here with the uid the scheduling node gave, at or above
 * <min_uid>: as Slurm and HTCondor's UID_DOMAIN do.  A task of root, of
 * a system account or of no known account (the operator key) runs as a
 * slot user instead.  With <run_as>, every task runs as that fixed
 * user's slot users.  Slot users are "<base>-slot1".."<base>-slotN"
 * (base: <run_as>, else "volery"; make install creates them): each run
 * of a slot its own uid, so two runs never read or signal each other.
 * Without them, the base user itself.
 *
 * A node started by an ordinary user runs everything as that user, and
 * so takes only that user's tasks, and those that run as a stand-in
 * anyway (root's, system accounts', the operator's): another person's
 * would run with its rights.
 */
#ifndef VOLERY_OWNER_H
#define VOLERY_OWNER_H

#include <stddef.h>

#include "runas.h"

struct task;

#define OWNER_SLOTS_MAX		64

/* How this node chooses, for logs and `volery nodes`. */
enum owner_mode {
	OWNER_AS_OWNER,		/* root, no <run_as>: owners, else slots */
	OWNER_FIXED,		/* root, <run_as>: its slot users */
	OWNER_SELF,		/* not root: the node's own user */
};

/*
 * Resolve the base user (runas_resolve) and the slot users, up to
 * slots of them: 0, or -1 with err when the node must not start; warn
 * says what the admin should know ("" if nothing).
 */
int	owner_init(const char *run_as, long min_uid, int slots, char *warn,
	    size_t warnlen, char *err, size_t errlen);
void	owner_free(void);
enum owner_mode owner_mode(void);
/* The base user: whom the node's own checks (task descriptions) and
 * the runs' directories assume. */
const struct runas *owner_base(void);
/* Slot users found (0: runs that are no one's share the base user). */
int	owner_slots(void);
/*
 * Whom t runs as here, in slot (1..owner_slots(); 0 for a check that
 * runs nothing), into ra (runas_free it after): 0, or -1 with why this
 * node never runs t as things are ("no account rtalice here").
 */
int	owner_of(const struct task *t, int slot, struct runas *ra,
	    char *why, size_t whylen);
/* Does t run as a slot user here? */
int	owner_uses_slot(const struct task *t);
/* A slot for a run of t: the lowest no run holds (two runs at once
 * never share a slot user while there are enough), or 0 if t runs as
 * its owner.  Given back with owner_put_slot (0: nothing). */
int	owner_take_slot(const struct task *t);
void	owner_put_slot(int slot);

/* Is the local account user a member of group (its primary one, or
 * listed)? */
int	owner_in_group(const char *user, const char *group);
/* May t's owner run commands here, by <commands> (policy: "all", "none"
 * or a group)?  0 with why if not; a described task always may. */
int	owner_may_command(const struct task *t, const char *policy,
	    char *why, size_t whylen);

#endif
