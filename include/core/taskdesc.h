/*
 * taskdesc.h -- what a task executable needs and produces, from its XML
 * description (thesis Listing 4.1 plus the number of outputs).
 */
#ifndef VOLERY_TASKDESC_H
#define VOLERY_TASKDESC_H

#include <stddef.h>

#include "bounds.h"

struct taskdesc_input {
	char	type[NAME_MAXLEN + 1];	/* "" accepts any task type */
	int	nth;			/* 0 accepts any output */
};

struct taskdesc {
	char			 name[NAME_MAXLEN + 1];
	char			 type[NAME_MAXLEN + 1];
	int			 ninputs;
	struct taskdesc_input	 inputs[TASK_INPUTS_MAX];
	int			 noutputs;
	int			 needs_path;	/* -p is required */
};

struct taskdesc_set {
	struct taskdesc	*v;
	size_t		 n;
};

const struct taskdesc *taskdesc_find(const struct taskdesc_set *,
		    const char *);
int		 taskdesc_add(struct taskdesc_set *, const struct taskdesc *);
void		 taskdesc_clear(struct taskdesc_set *);

#endif
