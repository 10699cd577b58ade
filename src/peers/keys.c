/*
 * keys.c -- key files and the node's keyring (keys.h).  libsodium makes
 * the random bytes and the base64; nothing here is cryptography.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "config.h"
#include "keys.h"
#include "log.h"
#include "statefile.h"

#define KEY_B64_LEN sodium_base64_ENCODED_LEN(SEAL_KEY_BYTES, \
	sodium_base64_VARIANT_ORIGINAL)

int
keys_write_private(const char *path, const char *text, char *err,
    size_t errlen)
{
	size_t	len = strlen(text);
	int	fd, ok;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1) {
		snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
		    errno == EEXIST ? " (a key is never overwritten: remove "
		    "it first)" : "");
		return -1;
	}
	ok = write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
	if (close(fd) == -1 || !ok) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int
keys_generate(const char *path, char *err, size_t errlen)
{
	uint8_t	key[SEAL_KEY_BYTES];
	char	text[KEY_B64_LEN + 1];
	size_t	len;
	int	rc;

	if (sodium_init() == -1) {
		snprintf(err, errlen, "libsodium cannot start");
		return -1;
	}
	randombytes_buf(key, sizeof key);
	sodium_bin2base64(text, sizeof text - 1, key, sizeof key,
	    sodium_base64_VARIANT_ORIGINAL);
	sodium_memzero(key, sizeof key);
	len = strlen(text);
	text[len++] = '\n';
	text[len] = '\0';
	rc = keys_write_private(path, text, err, errlen);
	sodium_memzero(text, sizeof text);
	return rc;
}

int
keys_read_line(const char *path, int private, char *text, size_t size,
    char *err, size_t errlen)
{
	struct stat	 st;
	size_t		 len;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(err, errlen, "key file %s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (private && (st.st_mode & 077)) {
		snprintf(err, errlen, "key file %s can be read by others "
		    "(mode %03o): chmod 600 it", path,
		    (unsigned)st.st_mode & 0777);
		close(fd);
		return -1;
	}
	n = read(fd, text, size - 1);
	close(fd);
	len = n > 0 ? (size_t)n : 0;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
	    text[len - 1] == ' '))
		len--;
	text[len] = '\0';
	return 0;
}

int
keys_read(const char *path, uint8_t key[SEAL_KEY_BYTES], char *err,
    size_t errlen)
{
	char	text[KEY_B64_LEN + 64];
	size_t	binlen;

	if (keys_read_line(path, 1, text, sizeof text, err, errlen) == -1)
		return -1;
	if (sodium_base642bin(key, SEAL_KEY_BYTES, text, strlen(text), NULL,
	    &binlen, NULL, sodium_base64_VARIANT_ORIGINAL) != 0 ||
	    binlen != SEAL_KEY_BYTES) {
		sodium_memzero(text, sizeof text);
		snprintf(err, errlen, "key file %s is not a volery key (one "
		    "line of base64, 32 bytes: make one with `volery keygen`)",
		    path);
		return -1;
	}
	sodium_memzero(text, sizeof text);
	return 0;
}

/* mkdir -p dir, each part it makes private (0700). */
static int
private_dirs(char *dir, char *err, size_t errlen)
{
	char	*p = dir;

	for (;;) {
		if ((p = strchr(p + 1, '/')) != NULL)
			*p = '\0';
		if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
			snprintf(err, errlen, "cannot make %s: %s", dir,
			    strerror(errno));
			return -1;
		}
		if (p == NULL)
			return 0;
		*p = '/';
	}
}

int
keys_user_path(const char *cluster, char *path, size_t size, char *err,
    size_t errlen)
{
	const char	*xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct passwd	*pw;
	int		 n;

	if (xdg != NULL && xdg[0] == '/')
		n = snprintf(path, size, "%s/volery/keys/%s.key", xdg,
		    cluster);
	else {
		if ((home == NULL || home[0] != '/') &&
		    (pw = getpwuid(getuid())) != NULL)
			home = pw->pw_dir;
		if (home == NULL || home[0] != '/') {
			snprintf(err, errlen, "no home directory for this "
			    "user's cluster key: set HOME or XDG_CONFIG_HOME, "
			    "or name a key in <keyring>");
			return -1;
		}
		n = snprintf(path, size, "%s/.config/volery/keys/%s.key", home,
		    cluster);
	}
	if (n < 0 || (size_t)n >= size) {
		snprintf(err, errlen, "the path of this user's cluster key is "
		    "too long");
		return -1;
	}
	return 0;
}

/*
 * Make the key at path, once, though several nodes start at the same
 * moment: written whole to a file of this process's, then linked to
 * path, which fails if another node's key got there first (that one is
 * then everyone's).  1: made here; 0: another node made it.
 */
static int
user_key_make(const char *path, char *err, size_t errlen)
{
	char	dir[PATH_MAX + 64], tmp[PATH_MAX + 96], *slash;

	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		return -1;
	*slash = '\0';
	if (private_dirs(dir, err, errlen) == -1)
		return -1;
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	unlink(tmp);
	if (keys_generate(tmp, err, errlen) == -1)
		return -1;
	if (link(tmp, path) == -1) {
		int e = errno;
		unlink(tmp);
		if (e == EEXIST)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -1;
	}
	unlink(tmp);
	return 1;
}

int
keys_is_loopback(const char *ip)
{
	return strncmp(ip, "127.", 4) == 0;
}

int
keys_load(const struct config *c, struct keyring *ring, char *made,
    size_t madelen, char *err, size_t errlen)
{
	uint8_t	key[SEAL_KEY_BYTES];
	char	path[PATH_MAX + 64];
	int	i, rc;

	memset(ring, 0, sizeof *ring);
	if (made != NULL)
		made[0] = '\0';
	if (sodium_init() == -1) {
		snprintf(err, errlen, "libsodium cannot start");
		return -1;
	}
	if (c->insecure)
		return 0;
	for (i = 0; i < c->nkeys; i++) {
		if (keys_read(c->keys[i], key, err, errlen) == -1)
			return -1;
		if (keyring_add(ring, key) == -1) {
			snprintf(err, errlen, "key file %s: the same key as "
			    "another of the keyring", c->keys[i]);
			return -1;
		}
	}
	if (ring->n > 0)
		goto done;
	if (!keys_is_loopback(c->broadcast)) {
		snprintf(err, errlen, "peer address %s is not loopback and no "
		    "cluster key is configured: run `volery keygen FILE` once, "
		    "copy FILE to every node and name it in <keyring><key>"
		    "FILE</key></keyring> (or say <insecure/> to run without)",
		    c->broadcast);
		return -1;
	}
	/* Nodes on one host, started by one user: one key per user and
	 * cluster, made once, so they form one pool as they are. */
	rc = keys_user_path(c->cluster, path, sizeof path, err, errlen);
	if (made == NULL && (rc == -1 || access(path, F_OK) == -1))
		goto done;	/* a check: it would be made */
	if (rc == 0 && access(path, F_OK) == -1)
		rc = user_key_make(path, err, errlen);
	if (rc == 1)
		snprintf(made, madelen, "%s", path);
	/* No home to keep it in: a key of this node's own, as before
	 * (it then forms a pool with no other node). */
	if (rc == -1) {
		log_warnx("%s; this node keeps a key of its own in %s and "
		    "forms a pool alone", err, c->state_dir);
		snprintf(path, sizeof path, "%s/cluster.key", c->state_dir);
		if (access(path, F_OK) == -1) {
			if (keys_generate(path, err, errlen) == -1)
				return -1;
			snprintf(made, madelen, "%s", path);
		}
	}
	if (keys_read(path, key, err, errlen) == -1)
		return -1;
	keyring_add(ring, key);
done:
	sodium_memzero(key, sizeof key);
	return 0;
}

uint64_t
keys_incarnation(const char *state_dir)
{
	struct timespec	 ts;
	char		 path[PATH_MAX + 32], text[32];
	uint64_t	 last = 0, inc;
	FILE		*f;

	snprintf(path, sizeof path, "%s/incarnation", state_dir);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%" SCNu64, &last) != 1)
			last = 0;
		fclose(f);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	inc = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
	if (inc <= last)
		inc = last + 1;
	snprintf(text, sizeof text, "%" PRIu64 "\n", inc);
	if (statefile_write(path, text) == -1)
		log_warn("cannot record the incarnation in %s", path);
	return inc;
}

int
keys_open(const struct config *cfg, struct keyring *ring, char *err,
    size_t errlen)
{
	char	made[PATH_MAX + 32];

	if (keys_load(cfg, ring, made, sizeof made, err, errlen) == -1)
		return -1;
	if (made[0] != '\0')
		log_info("made a cluster key for this host in %s", made);
	if (ring->n == 0)
		log_warnx("<insecure/>: peer datagrams are neither sealed nor "
		    "checked; anyone on the LAN can take this pool over");
	return 0;
}
