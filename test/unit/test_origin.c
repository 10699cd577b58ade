/*
 * test_origin.c -- the taker's signature over a task's origin (origin.c):
 * a task alpha takes is signed; relayed by gamma it is taken as long as
 * the signature is alpha's over what alpha set; a changed command, a
 * missing or false signature is refused; a task of a taker whose key is
 * not known yet is kept but never run, until the key comes.
 */
#include "testutil.h"

#include <sodium.h>

#include "run.h"

static uint8_t	alpha_pk[32], alpha_sk[64], beta_pk[32], beta_sk[64];

static struct node *
signing_node(struct taskdesc_set *set, const char *name, const uint8_t *sk)
{
	struct node_config	 cfg;
	struct node		*n;

	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "%s", name);
	cfg.reputation = 0;
	cfg.sign_sk = sk;
	assert_non_null(n = node_new(&cfg, set));
	return n;
}

/* alpha's record of task k, as it would send it (its STATE). */
static void
record_of(struct node *n, int k, char *rec, size_t size)
{
	int	len;

	len = snprintf(rec, size, "STATE ");
	assert_true(wire_task_encode(node_find(n, uuid_n(k)), rec + len,
	    size - len) > 0);
}

static void
test_a_relayed_task_runs_only_as_its_taker_signed_it(void **state)
{
	struct taskdesc_set	 set;
	struct node		*a, *b;
	char			 rec[2048], bad[2200], why[256], *p;
	uint64_t		 refused;

	(void)state;
	plmi2_descs(&set);
	a = signing_node(&set, "alpha", alpha_sk);
	b = signing_node(&set, "beta", beta_sk);
	node_peer_key(a, "alpha", alpha_pk);
	node_start(b, 0);
	assert_int_equal(sched(a, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	assert_non_null(node_find(a, uuid_n(1))->sig);
	record_of(a, 1, rec, sizeof rec);
	/* Relayed by gamma before beta knows alpha's key: kept, not run. */
	hear(b, "gamma", rec, 20);
	assert_non_null(node_find(b, uuid_n(1)));
	assert_false(run_admissible(b, node_find(b, uuid_n(1)), why,
	    sizeof why));
	assert_non_null(strstr(why, "signed by no node known here"));
	/* alpha's key comes: now it may run. */
	node_peer_key(b, "alpha", alpha_pk);
	assert_true(run_admissible(b, node_find(b, uuid_n(1)), why,
	    sizeof why));
	/* Task 2, its params changed on the way: refused. */
	assert_int_equal(sched(a, 2, "free", PRIO_LOW, 30, 0, NULL, NULL), 0);
	record_of(a, 2, rec, sizeof rec);
	refused = status_of(b).implausible;
	snprintf(bad, sizeof bad, "%s par=/tmp/evil", rec);
	hear(b, "gamma", bad, 40);
	assert_null(node_find(b, uuid_n(2)));
	assert_int_equal(status_of(b).implausible, refused + 1);
	/* Without its signature: refused too (alpha signs all it takes). */
	snprintf(bad, sizeof bad, "%s", rec);
	p = strstr(bad, " sig=");
	*p = '\0';
	hear(b, "gamma", bad, 41);
	assert_null(node_find(b, uuid_n(2)));
	/* As alpha signed it: taken. */
	hear(b, "gamma", rec, 42);
	assert_non_null(node_find(b, uuid_n(2)));
	node_free(a);
	node_free(b);
	taskdesc_clear(&set);
}

/* A journal written before identities: our own tasks in it still run
 * here; another's, unsigned, do not. */
static void
test_our_own_unsigned_tasks_from_the_journal_still_run(void **state)
{
	struct taskdesc_set	 set;
	struct node		*b;
	struct task		*t;
	char			 why[256], err[128];
	const char		*rec[2] = {
		"v=1 id=00000000-0000-4000-8000-000000000001 exec=free "
		"prio=low aged=0 st=Ready sb=beta cl=x sub=5 rdy=5 stt=-1 "
		"end=-1 pg=0 att=0 fail=0 ver=2",
		"v=1 id=00000000-0000-4000-8000-000000000002 exec=free "
		"prio=low aged=0 st=Ready sb=alpha cl=x sub=6 rdy=6 stt=-1 "
		"end=-1 pg=0 att=0 fail=0 ver=2",
	};
	int			 k;

	(void)state;
	plmi2_descs(&set);
	b = signing_node(&set, "beta", beta_sk);
	node_peer_key(b, "beta", beta_pk);
	node_peer_key(b, "alpha", alpha_pk);
	for (k = 0; k < 2; k++) {
		assert_non_null(t = wire_task_decode(rec[k], strlen(rec[k]),
		    err, sizeof err));
		node_restore(b, t);
	}
	assert_true(run_admissible(b, node_find(b, uuid_n(1)), why,
	    sizeof why));
	assert_false(run_admissible(b, node_find(b, uuid_n(2)), why,
	    sizeof why));
	node_free(b);
	taskdesc_clear(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
		    test_a_relayed_task_runs_only_as_its_taker_signed_it),
		cmocka_unit_test(
		    test_our_own_unsigned_tasks_from_the_journal_still_run),
	};
	uint8_t	seed[32];

	if (sodium_init() == -1)
		return 1;
	memset(seed, 1, sizeof seed);
	crypto_sign_seed_keypair(alpha_pk, alpha_sk, seed);
	memset(seed, 2, sizeof seed);
	crypto_sign_seed_keypair(beta_pk, beta_sk, seed);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
