/*
 * inwalk.h -- the files `volery run --in` or a workflow's <in> names,
 * each as an item of its record ("<bytes>:<BLAKE2b-256 hex>:<path>",
 * task_cmd_in_parse), the path as given, relative to a directory.
 */
#ifndef VOLERY_INWALK_H
#define VOLERY_INWALK_H

#include <stddef.h>

/* The items of paths relative to the directory open at dir (AT_FDCWD:
 * the current one), files and the files under directories, into items,
 * at most max: how many, or -1 and why (none kept). */
int	inwalk_collect(int dir, char *const *paths, int npaths, char **items,
	    int max, char *err, size_t errlen);
void	inwalk_free(char **items, int n);

#endif
