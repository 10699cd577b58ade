/*
 * ckfetch.h -- a copy of a checkpoint, fetched from a node that keeps
 * it (CKPT <uuid> <seq> at its client address, as a node of the cluster:
 * AUTH PEER with the cluster key, unless on loopback) into our store
 * (ckstore.h), where it stays only if its hash and size are the ones
 * its maker signed.
 */
#ifndef VOLERY_CKFETCH_H
#define VOLERY_CKFETCH_H

#include <stddef.h>
#include <stdint.h>

struct task_ckpt;

/* The fetch of seq of uuid from node is over: ok, or why not. */
typedef void	(*ckfetch_cb)(const char *uuid, int64_t seq, const char *node,
		    int ok, const char *why, void *arg);

/* The node stops: every fetch under way is dropped, untold. */
void	ckfetch_shutdown(void);
/* Fetch c of uuid from node at addr; done() is called once, maybe at
 * once. */
void	ckfetch_start(const char *uuid, const struct task_ckpt *c,
	    const char *node, const char *addr, ckfetch_cb done, void *arg);

#endif
