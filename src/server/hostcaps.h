/*
 * hostcaps.h -- what this host offers tasks (node_config: cores, memory,
 * tags): the config's, else the host's own CPUs and memory; its tags, and
 * the operating system and architecture as two more ("linux", "x86_64").
 */
#ifndef VOLERY_HOSTCAPS_H
#define VOLERY_HOSTCAPS_H

struct config;
struct node_config;

void	hostcaps_fill(struct node_config *, const struct config *);

#endif
