/*
 * test_instore.c -- the input files a node keeps (src/state/instore.c)
 * and their way into a run dir (putfile.c), on a directory of the test's
 * own: names that could leave the store refused, a copy kept only at its
 * hash, parents made, symbolic links and files already there never
 * followed or replaced, the least recently used out first but never a
 * pinned one, a part kept for the next fetch, and a copy changed on disk
 * refused after a restart.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#include <sodium.h>

#include "testutil.h"
#include "instore.h"
#include "runas.h"

static char	top[64];

static void
hex_of(const char *data, char hex[DIGEST_HEX + 1])
{
	unsigned char	h[DIGEST_HEX / 2];

	crypto_generichash(h, sizeof h, (const unsigned char *)data,
	    strlen(data), NULL, 0);
	sodium_bin2hex(hex, DIGEST_HEX + 1, h, sizeof h);
}

/* data fetched for owner and committed: instore_commit's answer. */
static int
fetch(const char *owner, const char *data, const char *claimed,
    int (*pinned)(const char *))
{
	char	got[DIGEST_HEX + 1], why[256];
	int64_t	have;
	int	fd;

	hex_of(data, got);
	fd = instore_begin(owner, claimed, &have);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data + have, strlen(data) - have),
	    (ssize_t)(strlen(data) - have));
	return instore_commit(fd, owner, claimed, (int64_t)strlen(data), got,
	    pinned, why, sizeof why);
}

static int
none(const char *name)
{
	(void)name;
	return 0;
}

static char	pinned_name[INSTORE_NAME_MAX];

static int
one(const char *name)
{
	return strcmp(name, pinned_name) == 0;
}

static int
rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int
setup(void **state)
{
	char	err[256];

	(void)state;
	snprintf(top, sizeof top, "/tmp/vt-instore-XXXXXX");
	assert_non_null(mkdtemp(top));
	assert_int_equal(instore_open(top, 20, err, sizeof err), 0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	instore_close();
	nftw(top, rm, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static char *
path_in(const char *rel)
{
	static char	buf[512];

	snprintf(buf, sizeof buf, "%s/%s", top, rel);
	return buf;
}

static void
read_back(const char *rel, char *out, size_t size)
{
	int	fd = open(path_in(rel), O_RDONLY);
	ssize_t	n;

	assert_true(fd >= 0);
	n = read(fd, out, size - 1);
	assert_true(n >= 0);
	out[n] = '\0';
	close(fd);
}

static void
test_names_that_could_leave_the_store_are_refused(void **state)
{
	char	h[DIGEST_HEX + 1];
	int64_t	have;

	(void)state;
	hex_of("x", h);
	assert_int_equal(instore_begin("../etc", h, &have), -1);
	assert_int_equal(instore_begin("a/b", h, &have), -1);
	assert_int_equal(instore_begin(".hidden", h, &have), -1);
	assert_int_equal(instore_begin("", h, &have), -1);
	assert_int_equal(instore_begin("alice", "../../etc/passwd", &have),
	    -1);
	assert_int_equal(instore_begin("alice", "ABCDEF", &have), -1);
	assert_false(instore_has("../x", h, 1));
}

static void
test_a_copy_is_kept_only_at_its_hash(void **state)
{
	char	h[DIGEST_HEX + 1];

	(void)state;
	hex_of("rows\n", h);
	/* The bytes are another file's: refused, and nothing left. */
	assert_int_equal(fetch("alice", "ROWS\n", h, none), -1);
	assert_false(instore_has("alice", h, 5));
	assert_int_equal(fetch("alice", "rows\n", h, none), 0);
	assert_true(instore_has("alice", h, 5));
	/* Kept for its owner: another user's run does not have it. */
	assert_false(instore_has("mallory", h, 5));
	assert_false(instore_has("alice", h, 6));
}

static void
test_a_copy_enters_a_run_dir_at_its_path_and_nowhere_else(void **state)
{
	struct runas	ra;
	char		h[DIGEST_HEX + 1], why[256], buf[64], target[512];

	(void)state;
	memset(&ra, 0, sizeof ra);	/* no user switch: the test's own */
	hex_of("rows\n", h);
	assert_int_equal(fetch("alice", "rows\n", h, none), 0);
	assert_int_equal(mkdir(path_in("run"), 0700), 0);
	assert_int_equal(instore_stage("alice", h, 5, path_in("run"),
	    "data/deep/t.csv", &ra, why, sizeof why), 0);
	read_back("run/data/deep/t.csv", buf, sizeof buf);
	assert_string_equal(buf, "rows\n");
	/* Never over a file already there. */
	assert_int_equal(instore_stage("alice", h, 5, path_in("run"),
	    "data/deep/t.csv", &ra, why, sizeof why), -1);
	/* Never through a symbolic link the run dir holds. */
	assert_int_equal(mkdir(path_in("elsewhere"), 0700), 0);
	snprintf(target, sizeof target, "%s", path_in("elsewhere"));
	assert_int_equal(symlink(target, path_in("run/link")), 0);
	assert_int_equal(instore_stage("alice", h, 5, path_in("run"),
	    "link/t.csv", &ra, why, sizeof why), -1);
	assert_int_equal(access(path_in("elsewhere/t.csv"), F_OK), -1);
	snprintf(target, sizeof target, "%s", path_in("elsewhere/x"));
	assert_int_equal(symlink(target, path_in("run/f")), 0);
	assert_int_equal(instore_stage("alice", h, 5, path_in("run"), "f",
	    &ra, why, sizeof why), -1);
	assert_int_equal(access(path_in("elsewhere/x"), F_OK), -1);
	/* Not a copy here: said so. */
	assert_int_equal(instore_stage("bob", h, 5, path_in("run"), "b.csv",
	    &ra, why, sizeof why), -1);
	assert_string_equal(why, "input b.csv: no copy here");
}

static void
test_the_least_recently_used_go_first_but_never_a_pinned_one(void **state)
{
	char		a[DIGEST_HEX + 1], b[DIGEST_HEX + 1], c[DIGEST_HEX + 1];
	struct timespec	old[2] = { { 1000, 0 }, { 1000, 0 } };
	char		name[INSTORE_NAME_MAX + 8];

	(void)state;
	hex_of("aaaaaaaa", a);		/* the store holds 20 bytes */
	hex_of("bbbbbbbb", b);
	hex_of("cccccccc", c);
	assert_int_equal(fetch("u", "aaaaaaaa", a, none), 0);
	assert_int_equal(fetch("u", "bbbbbbbb", b, none), 0);
	/* a is the older: it goes when c comes. */
	snprintf(name, sizeof name, "%s/inputs/u.%s", top, a);
	assert_int_equal(utimensat(AT_FDCWD, name, old, 0), 0);
	assert_int_equal(fetch("u", "cccccccc", c, none), 0);
	assert_false(instore_has("u", a, 8));
	assert_true(instore_has("u", b, 8));
	assert_true(instore_has("u", c, 8));
	/* b is the older now, but a start needs it: c goes instead. */
	snprintf(name, sizeof name, "%s/inputs/u.%s", top, b);
	assert_int_equal(utimensat(AT_FDCWD, name, old, 0), 0);
	snprintf(pinned_name, sizeof pinned_name, "u.%s", b);
	assert_int_equal(fetch("u", "aaaaaaaa", a, one), 0);
	assert_true(instore_has("u", b, 8));
	assert_true(instore_has("u", a, 8));
	assert_false(instore_has("u", c, 8));
}

static void
test_a_part_is_kept_for_the_next_fetch(void **state)
{
	char	h[DIGEST_HEX + 1];
	int64_t	have;
	int	fd;

	(void)state;
	hex_of("0123456789", h);
	fd = instore_begin("u", h, &have);
	assert_int_equal(have, 0);
	assert_int_equal(write(fd, "01234", 5), 5);
	instore_keep_part(fd);
	/* The next fetch is told what is there, and goes on from it. */
	assert_int_equal(fetch("u", "0123456789", h, none), 0);
	assert_true(instore_has("u", h, 10));
}

static void
test_a_copy_changed_on_disk_is_refused_after_a_restart(void **state)
{
	struct runas	ra;
	char		h[DIGEST_HEX + 1], why[256], err[256], name[256];
	int		fd;

	(void)state;
	memset(&ra, 0, sizeof ra);
	hex_of("rows\n", h);
	assert_int_equal(fetch("alice", "rows\n", h, none), 0);
	snprintf(name, sizeof name, "inputs/alice.%s", h);
	fd = open(path_in(name), O_WRONLY);
	assert_int_equal(write(fd, "R", 1), 1);
	close(fd);
	instore_close();
	assert_int_equal(instore_open(top, 20, err, sizeof err), 0);
	assert_int_equal(mkdir(path_in("run"), 0700), 0);
	assert_int_equal(instore_stage("alice", h, 5, path_in("run"), "t.csv",
	    &ra, why, sizeof why), -1);
	assert_string_equal(why, "input t.csv: the copy here does not match "
	    "its hash");
	assert_false(instore_has("alice", h, 5));
	assert_int_equal(access(path_in("run/t.csv"), F_OK), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_names_that_could_leave_the_store_are_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_copy_is_kept_only_at_its_hash, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_copy_enters_a_run_dir_at_its_path_and_nowhere_else,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_the_least_recently_used_go_first_but_never_a_pinned_one,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_part_is_kept_for_the_next_fetch, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_a_copy_changed_on_disk_is_refused_after_a_restart,
		    setup, teardown),
	};

	if (sodium_init() == -1)
		return 1;
	return cmocka_run_group_tests_name("instore", tests, NULL, NULL);
}
