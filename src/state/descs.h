/*
 * descs.h -- load the task descriptions (<tasks_dir>/<name>.xml).
 */
#ifndef VOLERY_DESCS_H
#define VOLERY_DESCS_H

#include <stddef.h>

#include "taskdesc.h"

/* Load every *.xml of dir into set; bad files are logged and skipped. */
int	descs_load(const char *dir, struct taskdesc_set *);
/* Parse one description file; -1 with the reason in err. */
int	descs_parse(const char *path, struct taskdesc *, char *err,
	    size_t errlen);

#endif
