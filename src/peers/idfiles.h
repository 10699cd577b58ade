/*
 * idfiles.h -- the files of identities: the admin key (volery keygen
 * --admin: FILE, its secret, mode 600, and FILE.pub) and each node's own
 * key (state_dir/node.key, mode 600, made on first use).
 */
#ifndef VOLERY_IDFILES_H
#define VOLERY_IDFILES_H

#include <stddef.h>
#include <stdint.h>

#include "ident.h"

/* An admin key file's keys; *has_secret 0 for a public key file (sk
 * then unset). */
int	idfiles_admin_read(const char *path, uint8_t pk[IDENT_PK_BYTES],
	    uint8_t sk[64], int *has_secret, char *err, size_t errlen);
/* Make an admin key: path (secret, 0600) and path.pub. */
int	idfiles_admin_generate(const char *path, char *err, size_t errlen);
/* This node's key, made if it has none yet. */
int	idfiles_node_key(const char *state_dir, uint8_t pk[IDENT_PK_BYTES],
	    uint8_t sk[64], char *err, size_t errlen);
/* This node's public key as text (made if it has none yet). */
int	idfiles_node_public(const char *state_dir, char out[IDENT_PK_TEXT],
	    char *err, size_t errlen);

#endif
