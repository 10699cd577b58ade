/*
 * memsize.h -- an amount of memory as people write it: 4096 (MB), 512M,
 * 4G, 1T (binary units).
 */
#ifndef VOLERY_MEMSIZE_H
#define VOLERY_MEMSIZE_H

#include <stdint.h>

/* In MB (at least 1, at most MEMORY_MB_MAX); -1 if it is not one. */
int	memsize_parse(const char *, int64_t *mb);

#endif
