/*
 * history.h -- <state_dir>/history: the last records of finished tasks
 * that left the map after the retention period (the core's ACT_RETIRE),
 * framed like the journal's and only ever appended.  HISTORY (volery
 * tasks --history) reads it back.
 */
#ifndef VOLERY_HISTORY_H
#define VOLERY_HISTORY_H

#include <stddef.h>

struct task;

int	history_open(const char *state_dir, char *err, size_t errlen);
void	history_close(void);
/* Buffered; history_commit() writes and syncs what was appended. */
void	history_append(const char *uuid, const char *record);
int	history_commit(void);
/*
 * Every task of the history, once (a crash between the history's sync
 * and the journal's compaction can append a task twice), in submit
 * order; the caller frees the tasks and the array.  NULL on error.
 */
struct task **history_read(size_t *count);
/* uuid's task in v (n of them, as history_read gave), or NULL. */
const struct task *history_find(struct task *const *v, size_t n,
	    const char *uuid);
/* Free what history_read gave (NULL too). */
void	history_free(struct task **v, size_t n);

#endif
