/*
 * cascade.h -- what follows from a task's change, derived alike on every
 * node: it becomes Ready when its inputs are bound, its confirmed outputs
 * bind its dependents, its confirmed end ends them, a new upstream result
 * redoes them.
 */
#ifndef VOLERY_CASCADE_H
#define VOLERY_CASCADE_H

#include <stdint.h>

#include "task.h"

struct node;

void	cascade_make_ready(struct node *, struct task *, int64_t now);
void	cascade_bind_outputs(struct node *, const struct task *from,
	    int64_t now);
/* t ends in state for why, an end every node derives alike (its
 * upstream's, its replicas'): proposed if propose, else our vote. */
void	cascade_end_derived(struct node *, struct task *, enum task_state,
	    const char *why, int64_t now, int propose);
void	cascade_end_dependents(struct node *, const struct task *,
	    int64_t now, int propose);
void	cascade_redo(struct node *, struct task *, int64_t now);
void	cascade_end_tree(struct node *, struct task *, enum task_state,
	    const char *reason, int64_t now);
void	cascade_settled(struct node *, const struct task *, int64_t now,
	    int propose);
void	cascade_derive(struct node *, struct task *, int64_t now);

#endif
