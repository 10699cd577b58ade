/*
 * capset.h -- what each node has and what a task needs of one (issue
 * 14, after Polo et al.'s resource-aware placement): cores, memory,
 * tags ("gpu", "matlab", "linux", "x86_64") and the executables its
 * tasks directory runs.  Every node tells its own in its heartbeats;
 * the nodes of an office mostly have the same, so each distinct set is
 * kept once and a peer points to it.
 */
#ifndef VOLERY_CAPSET_H
#define VOLERY_CAPSET_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct node;
struct peer;
struct peer_msg;
struct task;

#define CAPSET_MAX 4096		/* distinct sets kept; more: unknown */

struct capset_entry {
	uint64_t	 hash;
	int		 cores;
	int64_t		 memory_mb;
	char		*tags;		/* comma lists, "" none */
	char		*execs;
	char		*contain;	/* how it holds runs, "" unsaid */
	char		*noacct;	/* owners it has no account for */
};

struct capset {
	struct capset_entry	*v;
	size_t			 n, cap;
	char			 own_execs[CAPS_TEXT_MAX + 1];
	/* The owners whose tasks this node found it has no account for
	 * (the shell's answers, node_owner_account): told in heartbeats,
	 * so that a task no live node can run as its owner says so. */
	char			 own_noacct[CAPS_TEXT_MAX + 1];
};

void	capset_free(struct node *);
/* Our heartbeat's fields: what we have. */
void	capset_tell(struct node *, struct peer_msg *);
/* A peer's heartbeat: what it has now. */
void	capset_heard(struct node *, struct peer *, const struct peer_msg *);
/* Whether this host has what t needs (cores, memory, tags), why not
 * (why NULL: not asked). */
int	capset_fits_here(const struct node *, const struct task *, char *why,
	    size_t whylen);

/* Whether peer p can run t, as far as its heartbeats tell (one that
 * did not say may). */
int	capset_peer_can(const struct node *, const struct peer *,
	    const struct task *);

#endif
