/*
 * wfexpand.h -- the <foreach>es of a workflow file, repeated for each of
 * their values: each task of one is an array, its copies named
 * "id[value]" with {i} filled in.  An input inside a <foreach> that
 * reads another task of it reads that task's copy of the same value; an
 * input outside that reads one reads every copy, in order (a gather).
 */
#ifndef VOLERY_WFEXPAND_H
#define VOLERY_WFEXPAND_H

struct arrayspec;
struct errlist;
struct workflow;

/* wf's tasks with foreach set (1..nspecs: specs[foreach - 1]) repeated;
 * problems into l.  Tasks keep their file order, each <foreach> task's
 * copies in the order of its values. */
void	wf_expand(struct errlist *, struct workflow *,
	    const struct arrayspec *specs, int nspecs);

#endif
