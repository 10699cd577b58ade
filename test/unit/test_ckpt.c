/*
 * test_ckpt.c -- checkpoints kept by the pool (ckpt.c): the newest goes
 * into the record and copies are asked of the nodes expected to stay
 * longest; a copy is fetched only for the task's runner, within bounds;
 * only a checkpoint's maker may change what the record says it is.
 */
#include "testutil.h"

#define HASH "0123456789abcdef0123456789abcdef" \
	"0123456789abcdef0123456789abcdef"

/* A heartbeat of a busy peer expecting to volunteer life_s more. */
static void
hear_life(struct node *n, const char *name, int life_s, int64_t now)
{
	char	body[128];

	snprintf(body, sizeof body, "HEARTBEAT 0 0 1 1 busy 10 0 0 7600 "
	    "1000 %d 0 500", life_s);
	hear(n, name, body, now);
}

static void
test_a_checkpoint_made_is_copied_to_the_nodes_staying_longest(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t;
	char			 body[256];

	node_start(n, 0);
	hear_life(n, "beta", 100, 10);
	hear_life(n, "gamma", 5000, 10);
	hear_life(n, "delta", 3000, 10);
	assert_int_equal(sched(n, 1, "free", 0, 20, 0, NULL, NULL), 0);
	node_tick(n, 40);		/* its claim's window */
	t = node_find(n, uuid_n(1));
	assert_int_equal(t->state, TASK_RUNNING);	/* the others busy */
	clear(n);
	assert_int_equal(node_checkpoint_made(n, uuid_n(1), 22, HASH,
	    "checkpoint", 100), 1);
	assert_string_equal(t->ckpt, "1:22:100:" HASH ":checkpoint:alpha");
	assert_non_null(sent(n, NULL, "STATE "));
	/* gamma and delta stay longest; beta is not asked. */
	snprintf(body, sizeof body, "CKPT_TAKE %s 1:22:100:" HASH
	    ":checkpoint:alpha", uuid_n(1));
	assert_string_equal(sent(n, "gamma", "CKPT_TAKE "), body);
	assert_string_equal(sent(n, "delta", "CKPT_TAKE "), body);
	assert_null(sent(n, "beta", "CKPT_TAKE "));
	/* gamma keeps a copy: the record says so. */
	snprintf(body, sizeof body, "CKPT_HELD %s 1", uuid_n(1));
	hear(n, "gamma", body, 200);
	assert_string_equal(t->ckpt, "1:22:100:" HASH
	    ":checkpoint:alpha,gamma");
	/* A word about another seq, or from a holder again: nothing. */
	snprintf(body, sizeof body, "CKPT_HELD %s 7", uuid_n(1));
	hear(n, "delta", body, 210);
	hear(n, "gamma", "CKPT_HELD 00000000-0000-0000-0000-000000000000 1",
	    210);
	assert_string_equal(t->ckpt, "1:22:100:" HASH
	    ":checkpoint:alpha,gamma");
	/* The next checkpoint enters the record with its first copy: a
	 * runner switched off before that leaves gamma's copy of 1. */
	clear(n);
	assert_int_equal(node_checkpoint_made(n, uuid_n(1), 30, HASH,
	    "checkpoint", 300), 2);
	assert_string_equal(t->ckpt, "1:22:100:" HASH
	    ":checkpoint:alpha,gamma");
	snprintf(body, sizeof body, "CKPT_TAKE %s 2:30:300:" HASH
	    ":checkpoint:alpha", uuid_n(1));
	assert_string_equal(sent(n, "gamma", "CKPT_TAKE "), body);
	snprintf(body, sizeof body, "CKPT_HELD %s 2", uuid_n(1));
	hear(n, "delta", body, 310);
	assert_string_equal(t->ckpt, "2:30:300:" HASH
	    ":checkpoint:alpha,delta");
	assert_null(t->ckpt_next);
	/* One without a copy when the run ends: ours, in the record. */
	assert_int_equal(node_checkpoint_made(n, uuid_n(1), 40, HASH,
	    "checkpoint", 400), 3);
	assert_string_equal(t->ckpt, "2:30:300:" HASH
	    ":checkpoint:alpha,delta");
	node_runner_exit(n, uuid_n(1), &(struct node_exit){ 0, 0, 1, 1,
	    NULL }, 420);
	assert_string_equal(t->ckpt, "3:40:400:" HASH ":checkpoint:alpha");
	/* Not our run: no checkpoint of it is ours to make. */
	assert_int_equal(node_checkpoint_made(n, uuid_n(2), 30, HASH,
	    "checkpoint", 300), 0);
}

/* n follows beta, which runs task 1. */
static struct task *
running_on_beta(struct node *n)
{
	struct task	*t;

	follow_beta(n);
	assert_int_equal(sched(n, 1, "free", 0, 20, 0, NULL, NULL), 0);
	t = record_copy(node_find(n, uuid_n(1)));
	t->state = TASK_RUNNING;
	snprintf(t->running_on, sizeof t->running_on, "beta");
	t->start_ms = 30;
	t->ver += 5;
	hear(n, "beta", record_datagram("STATE", t), 30);
	t = node_find(n, uuid_n(1));
	assert_int_equal(t->state, TASK_RUNNING);
	clear(n);
	return t;
}

static void
test_a_copy_is_fetched_for_its_runner_only_within_bounds(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	char			 body[256];

	running_on_beta(n);
	/* Not its runner's word: nothing fetched. */
	snprintf(body, sizeof body, "CKPT_TAKE %s 1:22:100:" HASH
	    ":checkpoint:beta", uuid_n(1));
	hear(n, "gamma", body, 40);
	assert_int_equal(count_actions(n, ACT_CKPT_FETCH, uuid_n(1)), 0);
	/* A checkpoint larger than we keep: refused, said. */
	snprintf(body, sizeof body, "CKPT_TAKE %s 1:%lld:100:" HASH
	    ":checkpoint:beta", uuid_n(1), (64LL << 20) + 1);
	hear(n, "beta", body, 40);
	assert_int_equal(count_actions(n, ACT_CKPT_FETCH, uuid_n(1)), 0);
	assert_true(status_of(n).implausible > 0);
	/* Its runner's: fetched from it, once while on its way. */
	snprintf(body, sizeof body, "CKPT_TAKE %s 1:22:100:" HASH
	    ":checkpoint:beta", uuid_n(1));
	hear(n, "beta", body, 50);
	hear(n, "beta", body, 60);
	assert_int_equal(count_actions(n, ACT_CKPT_FETCH, uuid_n(1)), 1);
	clear(n);
	node_checkpoint_kept(n, uuid_n(1), 1, "beta", 1, 70);
	snprintf(body, sizeof body, "CKPT_HELD %s 1", uuid_n(1));
	assert_string_equal(sent(n, "beta", "CKPT_HELD "), body);
	/* Asked again (our answer lost): answered, not fetched again. */
	clear(n);
	snprintf(body, sizeof body, "CKPT_TAKE %s 1:22:100:" HASH
	    ":checkpoint:beta", uuid_n(1));
	hear(n, "beta", body, 80);
	assert_int_equal(count_actions(n, ACT_CKPT_FETCH, uuid_n(1)), 0);
	assert_non_null(sent(n, "beta", "CKPT_HELD "));
}

static void
test_only_its_maker_says_what_a_checkpoint_is(void **state)
{
	struct node_fixture	*f = *state;
	struct node		*n = f->n;
	struct task		*t = running_on_beta(n), *r;

	/* beta, the runner, says its checkpoint: taken. */
	r = record_copy(t);
	assert_int_equal(task_set_string(&r->ckpt, "1:22:100:" HASH
	    ":checkpoint:beta"), 0);
	r->ver += 1;
	hear(n, "beta", record_datagram("STATE", r), 40);
	t = node_find(n, uuid_n(1));
	assert_string_equal(t->ckpt, "1:22:100:" HASH ":checkpoint:beta");
	/* gamma relays the task back to Ready with a checkpoint of its
	 * own making: the task is Ready, the checkpoint still beta's. */
	r = record_copy(t);
	r->state = TASK_READY;
	r->running_on[0] = '\0';
	assert_int_equal(task_set_string(&r->ckpt, "2:22:100:" HASH
	    ":checkpoint:gamma"), 0);
	r->ver += 1;
	hear(n, "gamma", record_datagram("STATE", r), 50);
	t = node_find(n, uuid_n(1));
	assert_int_equal(t->state, TASK_READY);
	assert_string_equal(t->ckpt, "1:22:100:" HASH ":checkpoint:beta");
}

static void
test_a_checkpoint_text_is_checked(void **state)
{
	struct task_ckpt	c;

	(void)state;
	assert_true(task_ckpt_parse("1:0:0:" HASH ":a.b_c-1:x,y", &c));
	assert_int_equal(c.nholders, 2);
	assert_false(task_ckpt_parse("0:0:0:" HASH ":f:x", NULL));
	assert_false(task_ckpt_parse("01:0:0:" HASH ":f:x", NULL));
	assert_false(task_ckpt_parse("1:0:0:" HASH ":../f:x", NULL));
	assert_false(task_ckpt_parse("1:0:0:" HASH ":f:", NULL));
	assert_false(task_ckpt_parse("1:0:0:" HASH ":f:x,x", NULL));
	assert_false(task_ckpt_parse("1:0:0:" HASH ":f:x,", NULL));
	assert_false(task_ckpt_parse("1:0:0:0123:f:x", NULL));
	assert_false(task_ckpt_parse("1:0:0:" HASH ":..:x", NULL));
	assert_false(task_ckpt_parse("1:-1:0:" HASH ":f:x", NULL));
	assert_false(task_ckpt_parse("1:0:99999999999999999999:" HASH
	    ":f:x", NULL));
	assert_false(task_ckpt_parse("1:0:0:" HASH ":f:a,b,c,d,e,f,g",
	    NULL));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		NODE_TEST(test_a_checkpoint_made_is_copied_to_the_nodes_staying_longest),
		NODE_TEST(test_a_copy_is_fetched_for_its_runner_only_within_bounds),
		NODE_TEST(test_only_its_maker_says_what_a_checkpoint_is),
		cmocka_unit_test(test_a_checkpoint_text_is_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
