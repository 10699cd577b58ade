/*
 * keys.h -- cluster key files: `volery keygen` writes one (32 random
 * bytes, base64, mode 0600); a node reads its keyring from the files
 * its config names, or, on a loopback-only node with none named, from
 * the user's key for its cluster (keys_user_path), made on first start:
 * the nodes one user starts on one host share it.
 */
#ifndef VOLERY_KEYS_H
#define VOLERY_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "seal.h"

struct config;

/* Write text to path, which must not exist, readable by us only. */
int	keys_write_private(const char *path, const char *text, char *err,
	    size_t errlen);
/* The first line of a key file, trimmed; private: refuse one that others
 * can read. */
int	keys_read_line(const char *path, int private, char *text,
	    size_t size, char *err, size_t errlen);
/* Is the peer address ip loopback (a pool of one host)? */
int	keys_is_loopback(const char *ip);
/* Write a new random key to path (which must not exist). */
int	keys_generate(const char *path, char *err, size_t errlen);
/* Read one key file; refuses one that others can read. */
int	keys_read(const char *path, uint8_t key[SEAL_KEY_BYTES], char *err,
	    size_t errlen);
/*
 * The node's keyring.  0 with ring->n > 0: sealed; 0 with ring->n == 0:
 * the config says <insecure/>; -1: refuse to start (err says why).
 * *made names a key file made now ("" if none); made NULL: only check,
 * make nothing.
 */
int	keys_load(const struct config *, struct keyring *, char *made,
	    size_t madelen, char *err, size_t errlen);
/* keys_load for a starting node, which says what it made or that its
 * datagrams go unsealed. */
int	keys_open(const struct config *, struct keyring *, char *err,
	    size_t errlen);
/* The user's key of cluster: $XDG_CONFIG_HOME/volery/keys/CLUSTER.key,
 * else ~/.config/volery/keys/CLUSTER.key.  -1 with err without a home. */
int	keys_user_path(const char *cluster, char *path, size_t size,
	    char *err, size_t errlen);
/*
 * This start's incarnation: above every earlier one of this state dir
 * (<state_dir>/incarnation) and near the wall clock in microseconds, so
 * a peer can tell a restart from a replay.
 */
uint64_t keys_incarnation(const char *state_dir);

#endif
