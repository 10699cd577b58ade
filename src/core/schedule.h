/*
 * schedule.h -- SCHEDULE and CANCEL from a client (node_schedule and
 * node_cancel in node.h): each checked first; a request that fails the
 * check changes nothing.
 */
#ifndef VOLERY_SCHEDULE_H
#define VOLERY_SCHEDULE_H

#include <stdint.h>

struct node;

struct schedule {
	int64_t		last_submit;	/* newest submit stamp known */
};

/* A submit stamp seen in a record: ours stay above it (FCFS). */
void	schedule_saw(struct node *, int64_t submit_ms);
/* Enter a checked new task into the map: journaled, queued if it may
 * be, sent to every node. */
struct task;
void	schedule_enter(struct node *, struct task *, int64_t now);

#endif
