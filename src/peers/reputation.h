/*
 * reputation.h -- the node's record in <state_dir>/node: its reputation
 * (thesis Listing 4.2), one less after each unclean stop.
 */
#ifndef VOLERY_REPUTATION_H
#define VOLERY_REPUTATION_H

/* At start: the reputation to use now; marks the stop as not clean. */
int	reputation_start(const char *state_dir, int configured);
/* At a clean stop: the next start keeps the reputation. */
void	reputation_clean_stop(const char *state_dir);

#endif
