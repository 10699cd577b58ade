/*
 * memberlist.h -- the membership written for the state dir.
 */
#ifndef VOLERY_MEMBERLIST_H
#define VOLERY_MEMBERLIST_H

struct node;

/* The members, one name a line, as ACT_MEMBERS. */
void	memberlist_save(struct node *);

#endif
