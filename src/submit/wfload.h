/*
 * wfload.h -- read a workflow file into a struct workflow.
 */
#ifndef VOLERY_WFLOAD_H
#define VOLERY_WFLOAD_H

#include "workflow.h"

/* Every problem is a "file:line: message" line in err; returns how
 * many (0: wf is loaded; free it with workflow_free). */
int	wf_load(const char *file, struct workflow *wf, char *err,
	    size_t errlen);
/* The same from text in memory (at most INT_MAX bytes), named file. */
int	wf_parse(const char *file, const char *text, size_t len,
	    struct workflow *wf, char *err, size_t errlen);

#endif
