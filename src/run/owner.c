/*
 * owner.c -- as whom a task runs on this node (owner.h).  The slot
 * users are looked up once, at start; an owner's account at each check
 * and start (an account added or removed since is seen at once; the
 * name service caches what is costly).
 */
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "owner.h"
#include "task.h"

static struct runas	base;
static struct runas	slot_user[OWNER_SLOTS_MAX];
static int		nslots;
static uint64_t		slots_held;	/* bit k-1: slot k taken */
static enum owner_mode	mode;
static long		min_uid;

int
owner_init(const char *run_as, long min, int slots, char *warn,
    size_t warnlen, char *err, size_t errlen)
{
	char	name[RUNAS_NAME_MAX + 24], why[256];
	int	i;

	owner_free();
	if (runas_resolve(run_as, &base, warn, warnlen, err, errlen) == -1)
		return -1;
	min_uid = min;
	mode = geteuid() != 0 ? OWNER_SELF : run_as[0] != '\0' ?
	    OWNER_FIXED : OWNER_AS_OWNER;
	if (mode == OWNER_SELF || !base.change)
		return 0;
	if (slots < 1)
		slots = 1;
	for (i = 0; i < slots && i < OWNER_SLOTS_MAX; i++) {
		snprintf(name, sizeof name, "%s-slot%d", base.name, i + 1);
		if (!runas_name_valid(name) || runas_lookup(name,
		    &slot_user[i], why, sizeof why) != 0)
			break;
	}
	nslots = i;
	if (nslots < slots && warn[0] == '\0')
		snprintf(warn, warnlen, "%d of %d slot users %s-slotN found "
		    "(make install creates them): runs of no one's tasks "
		    "share user %s", nslots, slots, base.name, nslots > 0 ?
		    slot_user[nslots - 1].name : base.name);
	return 0;
}

void
owner_free(void)
{
	int	i;

	runas_free(&base);
	for (i = 0; i < nslots; i++)
		runas_free(&slot_user[i]);
	nslots = 0;
}

enum owner_mode
owner_mode(void)
{
	return mode;
}

const struct runas *
owner_base(void)
{
	return &base;
}

int
owner_slots(void)
{
	return nslots;
}

/* Is t's owner a person of this node's accounts, not root or a system
 * account or the operator? */
static int
owned_by_person(const struct task *t)
{
	return t->user[0] != '\0' && t->uid >= 0 && t->uid >= min_uid;
}

int
owner_uses_slot(const struct task *t)
{
	return mode == OWNER_FIXED || (mode == OWNER_AS_OWNER &&
	    !owned_by_person(t));
}

int
owner_take_slot(const struct task *t)
{
	int	slot;

	if (!owner_uses_slot(t))
		return 0;
	for (slot = 1; slot < nslots; slot++)
		if (!(slots_held & (UINT64_C(1) << (slot - 1))))
			break;
	slots_held |= UINT64_C(1) << (slot - 1);
	return slot;
}

void
owner_put_slot(int slot)
{
	/* The last slot may be held by several runs (more runs than slot
	 * users): its bit only steers the search, which ends there. */
	if (slot >= 1 && slot <= OWNER_SLOTS_MAX)
		slots_held &= ~(UINT64_C(1) << (slot - 1));
}

/* The slot user of slot (the last one found for more slots than
 * users: they share it), else the base user. */
static const struct runas *
slot_identity(int slot)
{
	if (nslots == 0)
		return &base;
	if (slot < 1)
		slot = 1;
	return &slot_user[(slot > nslots ? nslots : slot) - 1];
}

int
owner_of(const struct task *t, int slot, struct runas *ra, char *why,
    size_t whylen)
{
	int	rc;

	if (mode == OWNER_SELF) {
		/* Another person's task would run with our user's rights;
		 * root's and the operator's run as a stand-in anyway. */
		if (owned_by_person(t) && ((uid_t)t->uid != base.uid ||
		    strcmp(t->user, base.name) != 0)) {
			snprintf(why, whylen, "this node runs tasks as %s only "
			    "(it was not started as root), and this one is "
			    "%s's", base.name, t->user);
			return -1;
		}
		return runas_copy(ra, &base) == 0 ? 0 : (snprintf(why, whylen,
		    "out of memory"), -1);
	}
	if (owner_uses_slot(t))
		return runas_copy(ra, slot_identity(slot)) == 0 ? 0 :
		    (snprintf(why, whylen, "out of memory"), -1);
	if ((rc = runas_lookup(t->user, ra, why, whylen)) == -1)
		return -1;
	if (rc == 1) {
		snprintf(why, whylen, "no account %s here", t->user);
		return -1;
	}
	if ((int64_t)ra->uid != t->uid) {
		snprintf(why, whylen, "account %s has uid %ld here, %lld where "
		    "the task was scheduled", t->user, (long)ra->uid,
		    (long long)t->uid);
		runas_free(ra);
		return -1;
	}
	return 0;
}

int
owner_in_group(const char *user, const char *group)
{
	struct group	*g;
	struct passwd	*pw;
	char		**m;

	if (group[0] == '\0' || user[0] == '\0' ||
	    (g = getgrnam(group)) == NULL)
		return 0;
	for (m = g->gr_mem; *m != NULL; m++)
		if (strcmp(*m, user) == 0)
			return 1;
	return (pw = getpwnam(user)) != NULL && pw->pw_gid == g->gr_gid;
}

int
owner_may_command(const struct task *t, const char *policy, char *why,
    size_t whylen)
{
	if (t->cmd == NULL || strcmp(policy, "all") == 0)
		return 1;
	if (strcmp(policy, "none") == 0)
		snprintf(why, whylen, "this node runs no command tasks "
		    "(<commands>none</commands>)");
	else if (t->uid < 0 || !owner_in_group(t->user, policy))
		snprintf(why, whylen, "this node runs the commands of group "
		    "%s only, and %s is not in it", policy,
		    t->user[0] != '\0' ? t->user : "an unknown user");
	else
		return 1;
	return 0;
}
