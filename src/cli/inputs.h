/*
 * inputs.h -- the files `volery run --in` names, each as an item of its
 * record ("<bytes>:<BLAKE2b-256 hex>:<path>", task_cmd_in_parse), the
 * path as given, relative to the current directory.
 */
#ifndef VOLERY_INPUTS_H
#define VOLERY_INPUTS_H

#include <stddef.h>

/* The items of paths (files, and the files under directories) into
 * items, at most max: how many, or -1 and why (none kept). */
int	inputs_collect(char *const *paths, int npaths, char **items, int max,
	    char *err, size_t errlen);
void	inputs_free(char **items, int n);

#endif
