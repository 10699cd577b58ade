/*
 * idfiles.c -- the files of identities (idfiles.h): the admin key (its
 * secret half, or its public one) and a node's own key, each one line
 * "volery-...-secret|public BASE64URL" of 32 bytes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "idfiles.h"
#include "keys.h"
#include "log.h"
#include "statefile.h"

static const char node_prefix[] = "volery-node-secret ";
static const char admin_secret_prefix[] = "volery-admin-secret ";
static const char admin_public_prefix[] = "volery-admin-public ";

/* "PREFIX base64(32 bytes)" from path into out. */
static int
read_b64_file(const char *path, const char *prefix, int private,
    uint8_t out[32], char *err, size_t errlen)
{
	char	text[256];
	size_t	plen = strlen(prefix), got;
	int	rc = -1;

	if (keys_read_line(path, private, text, sizeof text, err,
	    errlen) == -1)
		return -1;
	if (strncmp(text, prefix, plen) == 0 &&
	    sodium_base642bin(out, 32, text + plen, strlen(text + plen), NULL,
	    &got, NULL, sodium_base64_VARIANT_URLSAFE) == 0 && got == 32)
		rc = 0;
	else
		snprintf(err, errlen, "%s is not a volery key file (%s...)",
		    path, prefix);
	sodium_memzero(text, sizeof text);
	return rc;
}

static int
write_b64_file(const char *path, const char *prefix, const uint8_t in[32],
    int private, char *err, size_t errlen)
{
	char	text[256], b64[64];
	int	rc;

	sodium_bin2base64(b64, sizeof b64, in, 32,
	    sodium_base64_VARIANT_URLSAFE);
	snprintf(text, sizeof text, "%s%s\n", prefix, b64);
	if (private)
		rc = keys_write_private(path, text, err, errlen);
	else if ((rc = statefile_write(path, text)) == -1)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	sodium_memzero(text, sizeof text);
	sodium_memzero(b64, sizeof b64);
	return rc;
}

int
idfiles_admin_read(const char *path, uint8_t pk[IDENT_PK_BYTES],
    uint8_t sk[64], int *has_secret, char *err, size_t errlen)
{
	char	text[256], e2[256];
	uint8_t	seed[32];

	*has_secret = 0;
	if (keys_read_line(path, 0, text, sizeof text, err, errlen) == -1)
		return -1;
	if (strncmp(text, admin_public_prefix,
	    sizeof admin_public_prefix - 1) == 0)
		return read_b64_file(path, admin_public_prefix, 0, pk, err,
		    errlen);
	if (read_b64_file(path, admin_secret_prefix, 1, seed, e2,
	    sizeof e2) == -1) {
		snprintf(err, errlen, "%s", e2);
		return -1;
	}
	crypto_sign_seed_keypair(pk, sk, seed);
	sodium_memzero(seed, sizeof seed);
	*has_secret = 1;
	return 0;
}

int
idfiles_admin_generate(const char *path, char *err, size_t errlen)
{
	uint8_t	seed[32], pk[IDENT_PK_BYTES], sk[64];
	char	pub[PATH_MAX + 8];
	int	rc;

	if (sodium_init() == -1) {
		snprintf(err, errlen, "libsodium cannot start");
		return -1;
	}
	randombytes_buf(seed, sizeof seed);
	crypto_sign_seed_keypair(pk, sk, seed);
	snprintf(pub, sizeof pub, "%s.pub", path);
	rc = write_b64_file(path, admin_secret_prefix, seed, 1, err, errlen);
	if (rc == 0 && (rc = write_b64_file(pub, admin_public_prefix, pk, 0,
	    err, errlen)) == -1)
		unlink(path);
	sodium_memzero(seed, sizeof seed);
	sodium_memzero(sk, sizeof sk);
	return rc;
}

int
idfiles_node_key(const char *state_dir, uint8_t pk[IDENT_PK_BYTES],
    uint8_t sk[64], char *err, size_t errlen)
{
	char	path[PATH_MAX + 16];
	uint8_t	seed[32];
	int	rc;

	snprintf(path, sizeof path, "%s/node.key", state_dir);
	if (access(path, F_OK) == -1) {
		randombytes_buf(seed, sizeof seed);
		if (write_b64_file(path, node_prefix, seed, 1, err,
		    errlen) == -1)
			return -1;
		log_info("made this node's identity key in %s", path);
	}
	rc = read_b64_file(path, node_prefix, 1, seed, err, errlen);
	if (rc == 0)
		crypto_sign_seed_keypair(pk, sk, seed);
	sodium_memzero(seed, sizeof seed);
	return rc;
}

int
idfiles_node_public(const char *state_dir, char out[IDENT_PK_TEXT],
    char *err, size_t errlen)
{
	uint8_t	pk[IDENT_PK_BYTES], sk[64];

	if (sodium_init() == -1 || idfiles_node_key(state_dir, pk, sk, err,
	    errlen) == -1)
		return -1;
	sodium_memzero(sk, sizeof sk);
	ident_pk_format(pk, out);
	return 0;
}
