/*
 * infiles.h -- a command's input files (--in) before its run starts:
 * each one not in this node's store (instore.h) is fetched from the node
 * that took the task, FILE <uuid> <n> (req-file.c), several at once; a
 * file two starts need is fetched once.  The run is given its copies by
 * the launch (launch.c), hashed again then.
 */
#ifndef VOLERY_INFILES_H
#define VOLERY_INFILES_H

#include <stddef.h>
#include <stdint.h>

struct node;
struct task;

/* uuid's files are here: start it (again through infiles_before_start,
 * which then says go). */
typedef void	(*infiles_ready_cb)(const char *uuid);
/* uuid's files cannot be had: why, and whether another attempt would
 * fare no better (a file changed after the submit). */
typedef void	(*infiles_failed_cb)(const char *uuid, const char *why,
		    int final);

int	infiles_init(struct node *, const char *state_dir, int64_t cache_bytes,
	    int64_t max_bytes, const char *self_addr, infiles_ready_cb,
	    infiles_failed_cb, char *err, size_t errlen);
/* 0: t's files are here, go; 1: it waits for them (then ready or
 * failed is called once); -1 and why if one cannot be had (*final: nor
 * by another attempt). */
int	infiles_before_start(const struct task *t, char *why, size_t whylen,
	    int *final);
/* The node stops: the fetches under way are dropped, untold. */
void	infiles_close(void);

#endif
