/*
 * zeropages.h -- zeroing a big static without making it the process's
 * own memory.
 *
 * A page of a static that was never written is the kernel's shared zero
 * page, and costs the process nothing; a memset writes it and makes it
 * resident, anonymous memory.  The node's configuration (70 KiB, mostly
 * paths nobody sets), its bundles and its relay memory are such statics,
 * cleared once at start: only the pages that hold something are.
 */
#ifndef VOLERY_ZEROPAGES_H
#define VOLERY_ZEROPAGES_H

#include <stddef.h>

/* p[0..len) all zero, writing only the pages that were not. */
void	zero_pages(void *p, size_t len);

#endif
