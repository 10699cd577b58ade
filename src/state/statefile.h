/*
 * statefile.h -- the small files of the state dir (node, members,
 * incarnation), replaced whole: written to PATH.tmp, synced, and renamed
 * over PATH, so a crash leaves the old file or the new one, never half.
 */
#ifndef VOLERY_STATEFILE_H
#define VOLERY_STATEFILE_H

/* 0, or -1 with errno (the caller says what it could not record). */
int	statefile_write(const char *path, const char *text);

#endif
