/*
 * blobfetch.h -- bytes fetched from a node of the cluster at its client
 * address: a request line ("CKPT <uuid> <seq>", "FILE <uuid> <n>"),
 * asked as a node of the cluster (AUTH PEER with the cluster key) unless
 * on loopback.  The node answers the request line again with the size
 * after it, "<request> <bytes>", and that many bytes, or with " z=<n>"
 * n bytes of a deflate stream of them, or an ERROR line.  The bytes are
 * written to a descriptor and hashed on their way: what they are worth
 * is for the caller to say.
 */
#ifndef VOLERY_BLOBFETCH_H
#define VOLERY_BLOBFETCH_H

#include <stdint.h>

#include "bounds.h"

struct event_base;
struct keyring;
struct blobfetch;

/* The fetch is over: the bytes came, with this hash (ok), or why not
 * (the line the node sent instead, such as an ERROR line, or what went
 * wrong). */
typedef void	(*blobfetch_cb)(int ok, const char *hash, const char *why,
		    void *arg);

void	blobfetch_init(struct event_base *, const struct keyring *);
/* Ask req of the node at addr for exactly bytes bytes, written to fd
 * (the caller's, left open): done() is called once, from the event
 * loop.  from > 0: fd holds the first from bytes already (a fetch that
 * broke; req asks for the rest), positioned after them, and the hash is
 * of them all.  NULL and why if it cannot start (done() is not
 * called). */
struct blobfetch *blobfetch_start(const char *addr, const char *req,
	    int64_t bytes, int64_t from, int fd, blobfetch_cb done, void *arg,
	    char *why, size_t whylen);
/* Stop it untold. */
void	blobfetch_cancel(struct blobfetch *);

#endif
