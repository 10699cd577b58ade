/*
 * test_origin.c -- the taker's signature over a task's origin (origin.c):
 * a task alpha takes is signed; relayed by gamma it is taken as long as
 * the signature is alpha's over what alpha set; a changed command, a
 * missing or false signature is refused; a task of a taker whose key is
 * not known yet is kept but never run, until the key comes.  And who
 * wrote a run (authorship.c): a start and a result the runner, a cancel
 * the taker; relayed, each as they signed it.
 */
#include "testutil.h"

#include <sodium.h>

#include "authorship.h"
#include "run.h"

/* An input file's hash (BLAKE2b-256, hex). */
#define HASH "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

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

/* rec (a STATE) said to be in state, more fields appended; without its
 * author's name and signature unless signed. */
static void
restated(const char *rec, const char *state, const char *more, int signed_,
    char *out, size_t size)
{
	const char	*w, *e;
	size_t		 len = 0;

	for (w = rec; *w != '\0'; w = *e != '\0' ? e + 1 : e) {
		e = w + strcspn(w, " ");
		if (!signed_ && (strncmp(w, "eby=", 4) == 0 ||
		    strncmp(w, "esg=", 4) == 0))
			continue;
		if (strncmp(w, "st=", 3) == 0)
			len += snprintf(out + len, size - len, "st=%s ", state);
		else
			len += snprintf(out + len, size - len, "%.*s ",
			    (int)(e - w), w);
		assert_true(len < size);
	}
	snprintf(out + len - 1, size - len + 1, "%s", more);
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
	node_peer_key(a, "alpha", alpha_pk, 0);
	node_start(b, 0);
	assert_int_equal(sched(a, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	assert_non_null(node_find(a, uuid_n(1))->sig);
	record_of(a, 1, rec, sizeof rec);
	/* alpha runs it (alone), and signed its start (authorship.c):
	 * relayed by gamma before beta knows alpha's key, the run waits
	 * aside for it. */
	assert_non_null(strstr(rec, " st=Running "));
	assert_non_null(strstr(rec, " eby=alpha "));
	hear(b, "gamma", rec, 20);
	assert_null(node_find(b, uuid_n(1)));
	/* alpha's certificate is asked of the relay: once a second. */
	assert_non_null(sent(b, "gamma", "CERT_WANTED alpha"));
	hear(b, "gamma", rec, 21);
	assert_null(sent_nth(b, "gamma", "CERT_WANTED alpha", 1));
	hear(b, "gamma", rec, 20 + AUTHORSHIP_ASK_MS);
	assert_non_null(sent_nth(b, "gamma", "CERT_WANTED alpha", 1));
	/* The task as Ready: its origin alone, kept but not run. */
	restated(rec, "Ready", "", 0, bad, sizeof bad);
	hear(b, "gamma", bad, 1030);
	assert_non_null(node_find(b, uuid_n(1)));
	assert_false(run_admissible(b, node_find(b, uuid_n(1)), why,
	    sizeof why));
	assert_non_null(strstr(why, "signed by no node known here"));
	/* alpha's key comes: now it may run, and the run set aside is
	 * taken. */
	node_peer_key(b, "alpha", alpha_pk, 1040);
	assert_true(run_admissible(b, node_find(b, uuid_n(1)), why,
	    sizeof why));
	assert_int_equal(node_find(b, uuid_n(1))->state, TASK_RUNNING);
	assert_string_equal(node_find(b, uuid_n(1))->running_on, "alpha");
	/* Task 2, its params changed on the way: refused. */
	assert_int_equal(sched(a, 2, "free", PRIO_LOW, 30, 0, NULL, NULL), 0);
	record_of(a, 2, rec, sizeof rec);
	refused = status_of(b).implausible;
	snprintf(bad, sizeof bad, "%s par=/tmp/evil", rec);
	hear(b, "gamma", bad, 1050);
	assert_null(node_find(b, uuid_n(2)));
	assert_int_equal(status_of(b).implausible, refused + 1);
	/* Given a deadline on the way, to jump the queue: refused. */
	snprintf(bad, sizeof bad, "%s dln=1000", rec);
	hear(b, "gamma", bad, 1050);
	assert_null(node_find(b, uuid_n(2)));
	assert_int_equal(status_of(b).implausible, refused + 2);
	/* Or an estimate, to be ranked first under lret: refused. */
	snprintf(bad, sizeof bad, "%s est=999999", rec);
	hear(b, "gamma", bad, 1050);
	assert_null(node_find(b, uuid_n(2)));
	assert_int_equal(status_of(b).implausible, refused + 3);
	/* Without its signature: refused too (alpha signs all it takes). */
	snprintf(bad, sizeof bad, "%s", rec);
	p = strstr(bad, " sig=");
	*p = '\0';
	hear(b, "gamma", bad, 1051);
	assert_null(node_find(b, uuid_n(2)));
	/* As alpha signed it: taken. */
	hear(b, "gamma", rec, 1052);
	assert_non_null(node_find(b, uuid_n(2)));
	node_free(a);
	node_free(b);
	taskdesc_clear(&set);
}

/*
 * A command's input files are its taker's to name: a record whose files
 * were swapped on the way -- another hash under the same name, for the
 * run to read what its submitter never gave, or a file more -- is
 * refused; as signed, it is taken.
 */
static void
test_a_commands_input_files_are_signed_with_it(void **state)
{
	struct taskdesc_set	 set;
	struct node		*a, *b;
	struct node_schedule_req req;
	struct task_cmd		 c;
	static char		*argv[] = { "wc", "-l", "data.csv" };
	static char		*ins[] = { "5:" HASH ":data.csv" };
	char			 rec[4096], bad[4300], err[128], *p;
	uint64_t		 refused;

	(void)state;
	plmi2_descs(&set);
	a = signing_node(&set, "alpha", alpha_sk);
	b = signing_node(&set, "beta", beta_sk);
	node_start(b, 0);
	node_peer_key(b, "alpha", alpha_pk, 0);
	memset(&c, 0, sizeof c);
	c.argc = 3;
	c.argv = argv;
	c.nins = 1;
	c.ins = ins;
	c.in_dir = "/home/u";
	memset(&req, 0, sizeof req);
	req.exec = "wc";
	req.client = "127.0.0.1:1";
	req.cmd = &c;
	assert_int_equal(node_schedule(a, &req, uuid_n(1), 10, err,
	    sizeof err), 0);
	record_of(a, 1, rec, sizeof rec);
	refused = status_of(b).implausible;
	/* Another hash under the same name. */
	snprintf(bad, sizeof bad, "%s", rec);
	assert_non_null(p = strstr(bad, HASH));
	*p = 'f';
	hear(b, "gamma", bad, 20);
	assert_null(node_find(b, uuid_n(1)));
	assert_int_equal(status_of(b).implausible, refused + 1);
	/* A file more. */
	snprintf(bad, sizeof bad, "%s", rec);
	assert_non_null(p = strstr(bad, "data.csv "));
	snprintf(p + 8, sizeof bad - (size_t)(p + 8 - bad), ",1:" HASH
	    ":evil%s", strstr(rec, "data.csv ") + 8);
	hear(b, "gamma", bad, 21);
	assert_null(node_find(b, uuid_n(1)));
	assert_int_equal(status_of(b).implausible, refused + 2);
	/* As signed: taken, its files as alpha named them. */
	hear(b, "gamma", rec, 22);
	assert_non_null(node_find(b, uuid_n(1)));
	assert_int_equal(node_find(b, uuid_n(1))->cmd->nins, 1);
	assert_string_equal(node_find(b, uuid_n(1))->cmd->ins[0], ins[0]);
	node_free(a);
	node_free(b);
	taskdesc_clear(&set);
}

/* Its run is its runner's to state, its cancel its taker's: relayed,
 * each is believed as signed by them, and nothing else is. */
static void
test_a_run_is_its_runners_and_a_cancel_its_takers(void **state)
{
	struct taskdesc_set	 set;
	struct node		*a, *b;
	char			 rec[2048], bad[2300], err[128];
	uint64_t		 refused;

	(void)state;
	plmi2_descs(&set);
	a = signing_node(&set, "alpha", alpha_sk);
	b = signing_node(&set, "beta", beta_sk);
	node_start(b, 0);
	node_peer_key(b, "alpha", alpha_pk, 0);
	assert_int_equal(sched(a, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	record_of(a, 1, rec, sizeof rec);
	hear(b, "gamma", rec, 20);
	assert_int_equal(node_find(b, uuid_n(1))->state, TASK_RUNNING);
	/* Its result, made up on the way under alpha's signature of its
	 * start: refused. */
	refused = status_of(b).implausible;
	restated(rec, "Terminated", " out=EVIL end=30", 1, bad, sizeof bad);
	hear(b, "gamma", bad, 30);
	assert_int_equal(node_find(b, uuid_n(1))->state, TASK_RUNNING);
	assert_int_equal(status_of(b).implausible, refused + 1);
	/* A cancel gamma writes itself: neither its taker nor its runner. */
	restated(rec, "Cancelled", " rsn=cancelled-by-client", 0, bad,
	    sizeof bad);
	hear(b, "gamma", bad, 31);
	assert_int_equal(node_find(b, uuid_n(1))->state, TASK_RUNNING);
	assert_int_equal(status_of(b).implausible, refused + 2);
	/* Its taker cancels it: signed by alpha, relayed, believed. */
	assert_int_equal(node_cancel(a, uuid_n(1), 40, err, sizeof err), 0);
	record_of(a, 1, rec, sizeof rec);
	assert_non_null(strstr(rec, " st=Cancelled "));
	hear(b, "gamma", rec, 41);
	assert_int_equal(node_find(b, uuid_n(1))->state, TASK_CANCELLED);
	assert_int_equal(status_of(b).implausible, refused + 2);
	node_free(a);
	node_free(b);
	taskdesc_clear(&set);
}

/* A run beta learned from its runner's heartbeat is beta's to relay,
 * not to sign: it goes unsigned (not under a signature of an older
 * statement), and a third node takes it as a hint. */
static void
test_a_run_heard_in_a_heartbeat_is_relayed_unsigned(void **state)
{
	struct taskdesc_set	 set;
	struct node		*a, *b, *c;
	char			 rec[2048], ready[2048], body[256];
	struct task		*t;

	(void)state;
	plmi2_descs(&set);
	a = signing_node(&set, "alpha", alpha_sk);
	b = signing_node(&set, "beta", beta_sk);
	c = signing_node(&set, "gamma", beta_sk);
	node_start(b, 0);
	node_start(c, 0);
	node_peer_key(b, "alpha", alpha_pk, 0);
	node_peer_key(c, "alpha", alpha_pk, 0);
	node_peer_key(c, "beta", beta_pk, 0);
	/* Task 1 as Ready at beta, from alpha; alpha's run is heard only
	 * in its heartbeat. */
	assert_int_equal(sched(a, 1, "free", PRIO_LOW, 10, 0, NULL, NULL), 0);
	record_of(a, 1, rec, sizeof rec);
	restated(rec, "Ready", "", 0, ready, sizeof ready);
	hear(b, "alpha", ready, 20);
	snprintf(body, sizeof body, "PROGRESS %s 50 9 15", uuid_n(1));
	hear(b, "alpha", body, 30);
	t = node_find(b, uuid_n(1));
	assert_int_equal(t->state, TASK_RUNNING);
	authorship_sign(b, t);
	assert_null(t->esg);
	assert_string_equal(t->eby, "");
	/* beta relays it to gamma: taken, Running on alpha. */
	record_of(b, 1, rec, sizeof rec);
	hear(c, "beta", rec, 40);
	assert_non_null(t = node_find(c, uuid_n(1)));
	assert_int_equal(t->state, TASK_RUNNING);
	assert_string_equal(t->running_on, "alpha");
	node_free(a);
	node_free(b);
	node_free(c);
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
	node_peer_key(b, "beta", beta_pk, 0);
	node_peer_key(b, "alpha", alpha_pk, 0);
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
		cmocka_unit_test(
		    test_a_commands_input_files_are_signed_with_it),
		cmocka_unit_test(
		    test_a_run_is_its_runners_and_a_cancel_its_takers),
		cmocka_unit_test(
		    test_a_run_heard_in_a_heartbeat_is_relayed_unsigned),
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
