/*
 * test_structures.c -- the task map and the ready queue.
 */
#include "testutil.h"

#include "rules.h"

#include "outbox.h"
#include "readyq.h"
#include "taskmap.h"
#include "uuidmap.h"

static struct task *
mk(int k, int prio, int64_t submit)
{
	struct task *t = task_new(uuid_n(k), "free", 0);

	t->prio = prio;
	t->submit_ms = submit;
	t->ready_ms = submit;
	return t;
}

/*
 * Every insert, remove and touch moves the generation on, growth keeps
 * it, and a failed insert leaves it: what is derived from the map
 * (confirm_awaited) is kept while the generation stays.
 */
static void
test_taskmap_generation_moves_with_every_change(void **state)
{
	struct taskmap	m;
	struct task	*t;
	uint64_t	before;
	int		k;

	taskmap_init(&m);
	for (k = 0; k < 200; k++) {	/* grows from 64 slots, thrice */
		before = m.gen;
		assert_int_equal(taskmap_insert(&m, mk(k, 0, k)), 0);
		assert_true(m.gen > before);
	}
	before = m.gen;
	t = mk(7, 0, 0);
	assert_int_equal(taskmap_insert(&m, t), -1);
	task_free(t);
	assert_true(m.gen == before);
	taskmap_touch(&m);
	assert_true(m.gen > before);
	before = m.gen;
	task_free(taskmap_remove(&m, uuid_n(3)));
	assert_true(m.gen > before);
	before = m.gen;
	assert_null(taskmap_remove(&m, uuid_n(3)));
	assert_true(m.gen == before);
	taskmap_free(&m);
}

/* A node logging at `info` does not even format its debug lines (a busy
 * pool's cost); lines at its level and above are kept, with it. */
static void
test_outbox_drops_lines_below_its_level(void **state)
{
	struct outbox	o;

	outbox_init(&o);
	o.log_min = VLOG_INFO;
	outbox_log(&o, VLOG_DEBUG, "Task UUID{%s} received", "x");
	assert_int_equal(o.n, 0);
	outbox_log(&o, VLOG_INFO, "node %s joined", "n01");
	outbox_log(&o, VLOG_ERROR, "out of %s", "memory");
	assert_int_equal(o.n, 2);
	assert_string_equal(o.v[0].text, "node n01 joined");
	assert_int_equal(o.v[1].level, VLOG_ERROR);
	outbox_clear(&o);
	o.log_min = VLOG_DEBUG;		/* the default: every line */
	outbox_log(&o, VLOG_DEBUG, "kept");
	assert_int_equal(o.n, 1);
	outbox_free(&o);
}

static void
test_taskmap_many(void **state)
{
	struct taskmap	m;
	struct task	*t, **v;
	size_t		n, it = 0, seen = 0;
	int		k;

	taskmap_init(&m);
	for (k = 0; k < 5000; k++)
		assert_int_equal(taskmap_insert(&m, mk(k, 0, 5000 - k)), 0);
	/* A duplicate uuid is refused. */
	t = mk(7, 0, 0);
	assert_int_equal(taskmap_insert(&m, t), -1);
	task_free(t);
	for (k = 0; k < 5000; k += 2)
		task_free(taskmap_remove(&m, uuid_n(k)));
	assert_int_equal(taskmap_count(&m), 2500);
	for (k = 0; k < 5000; k++) {
		t = taskmap_find(&m, uuid_n(k));
		if (k % 2 == 0)
			assert_null(t);
		else
			assert_string_equal(t->uuid, uuid_n(k));
	}
	while (taskmap_next(&m, &it) != NULL)
		seen++;
	assert_int_equal(seen, 2500);
	v = taskmap_sorted(&m, &n);
	assert_int_equal(n, 2500);
	assert_string_equal(v[0]->uuid, uuid_n(4999));	/* oldest submit */
	free(v);
	/* Re-inserting over tombstones works. */
	assert_int_equal(taskmap_insert(&m, mk(0, 0, 1)), 0);
	assert_non_null(taskmap_find(&m, uuid_n(0)));
	taskmap_free(&m);
}

/* A task bound to outputs of the given upstreams. */
static struct task *
mk_dep(int k, const int *ups, int nups)
{
	struct task	*t = task_new(uuid_n(k), "free", nups);
	int		 i;

	for (i = 0; i < nups; i++) {
		snprintf(t->inputs[i].from, sizeof t->inputs[i].from, "%s",
		    uuid_n(ups[i]));
		t->inputs[i].nth = i + 1;
	}
	return t;
}

/* The dependents of an upstream are the tasks bound to it, each once,
 * in the order a walk of the map meets them, as tasks come and go and
 * the map grows. */
static void
test_taskmap_dependents(void **state)
{
	struct taskmap	 m;
	struct task	**v, *t;
	size_t		 n, it, k;
	int		 i, up0[] = { 0 }, up01[] = { 0, 1 }, twice[] = { 0, 0 };

	taskmap_init(&m);
	assert_int_equal(taskmap_insert(&m, mk(0, 0, 1)), 0);
	assert_int_equal(taskmap_insert(&m, mk(1, 0, 1)), 0);
	assert_null(taskmap_dependents(&m, uuid_n(0), &n));
	assert_int_equal(n, 0);
	assert_int_equal(taskmap_insert(&m, mk_dep(2, up0, 1)), 0);
	assert_int_equal(taskmap_insert(&m, mk_dep(3, up01, 2)), 0);
	assert_int_equal(taskmap_insert(&m, mk_dep(4, twice, 2)), 0);
	/* Many unrelated tasks: the map grows under the index. */
	for (i = 100; i < 1100; i++)
		assert_int_equal(taskmap_insert(&m, mk_dep(i, up01 + 1, 1)),
		    0);
	v = taskmap_dependents(&m, uuid_n(0), &n);
	assert_int_equal(n, 3);
	/* In map order: what a walk of the whole map would meet. */
	it = 0, k = 0;
	while ((t = taskmap_next(&m, &it)) != NULL && k < n)
		if (t == v[k])
			k++;
	assert_int_equal(k, 3);
	free(v);
	v = taskmap_dependents(&m, uuid_n(1), &n);
	assert_int_equal(n, 1001);
	free(v);
	/* A dependent that leaves is no longer one; the upstream's
	 * leaving does not change who depended on it. */
	task_free(taskmap_remove(&m, uuid_n(3)));
	task_free(taskmap_remove(&m, uuid_n(0)));
	v = taskmap_dependents(&m, uuid_n(0), &n);
	assert_int_equal(n, 2);
	assert_true((strcmp(v[0]->uuid, uuid_n(2)) == 0 &&
	    strcmp(v[1]->uuid, uuid_n(4)) == 0) ||
	    (strcmp(v[0]->uuid, uuid_n(4)) == 0 &&
	    strcmp(v[1]->uuid, uuid_n(2)) == 0));
	free(v);
	v = taskmap_dependents(&m, uuid_n(1), &n);
	assert_int_equal(n, 1000);
	free(v);
	for (i = 100; i < 1100; i++)
		task_free(taskmap_remove(&m, uuid_n(i)));
	assert_null(taskmap_dependents(&m, uuid_n(1), &n));
	/* Replaced by a newer record: still one dependent. */
	t = taskmap_remove(&m, uuid_n(2));
	assert_int_equal(taskmap_insert(&m, t), 0);
	v = taskmap_dependents(&m, uuid_n(0), &n);
	assert_int_equal(n, 2);
	free(v);
	/* Awaited while a dependent is still Submitted, not after. */
	taskmap_find(&m, uuid_n(4))->state = TASK_RUNNING;
	t->state = TASK_SUBMITTED;
	assert_true(taskmap_awaits(&m, uuid_n(0)));
	t->state = TASK_READY;
	assert_false(taskmap_awaits(&m, uuid_n(0)));
	assert_false(taskmap_awaits(&m, uuid_n(2)));	/* none depend */
	taskmap_free(&m);
}

/* Deletions shift the chains back: every other uuid is still found,
 * through growth and reuse. */
static void
test_uuidmap(void **state)
{
	struct uuidmap	m = { 0 };
	int64_t		v;
	int		k;

	for (k = 0; k < 3000; k++)
		assert_int_equal(uuidmap_put(&m, uuid_n(k), k * 10), 0);
	assert_int_equal(m.n, 3000);
	for (k = 0; k < 3000; k += 2)
		uuidmap_del(&m, uuid_n(k));
	uuidmap_del(&m, uuid_n(0));		/* absent: nothing */
	assert_int_equal(m.n, 1500);
	for (k = 0; k < 3000; k++) {
		int found = uuidmap_get(&m, uuid_n(k), &v);
		assert_int_equal(found, k % 2);
		if (found)
			assert_int_equal(v, k * 10);
	}
	assert_int_equal(uuidmap_put(&m, uuid_n(1), 7), 0);	/* update */
	assert_true(uuidmap_get(&m, uuid_n(1), &v));
	assert_int_equal(v, 7);
	assert_int_equal(m.n, 1500);
	uuidmap_free(&m);
	assert_false(uuidmap_get(&m, uuid_n(1), &v));
}

static void
test_readyq_order(void **state)
{
	struct readyq	q;
	struct task	*t[6];
	int		k;

	readyq_init(&q);
	t[0] = mk(5, PRIO_LOW, 100);
	t[1] = mk(4, PRIO_LOW, 100);	/* same time: uuid breaks the tie */
	t[2] = mk(3, PRIO_INTERACTIVE, 300);
	t[3] = mk(2, PRIO_LOW, 50);
	t[4] = mk(1, PRIO_INTERACTIVE, 200);
	t[5] = mk(0, PRIO_LOW, 400);
	for (k = 0; k < 6; k++)
		assert_int_equal(readyq_push(&q, t[k]), 0);
	assert_ptr_equal(readyq_at(&q, 0), t[4]);
	assert_ptr_equal(readyq_at(&q, 1), t[2]);
	assert_ptr_equal(readyq_at(&q, 2), t[3]);
	assert_ptr_equal(readyq_at(&q, 3), t[1]);
	assert_ptr_equal(readyq_at(&q, 4), t[0]);
	assert_ptr_equal(readyq_at(&q, 5), t[5]);
	assert_null(readyq_at(&q, 6));
	assert_int_equal(readyq_remove(&q, t[2]), 0);
	assert_int_equal(readyq_remove(&q, t[2]), -1);
	assert_ptr_equal(readyq_at(&q, 1), t[3]);

	/* Ageing at 10 s: tasks ready at 50 and 100 are promoted at 10100,
	 * ahead of the interactive task submitted at 200; 400 is not yet. */
	assert_int_equal(readyq_age(&q, 1000, 10000), 10050);
	assert_int_equal(readyq_age(&q, 10100, 10000), 10400);
	assert_ptr_equal(readyq_at(&q, 0), t[3]);
	assert_ptr_equal(readyq_at(&q, 1), t[1]);
	assert_ptr_equal(readyq_at(&q, 2), t[0]);
	assert_ptr_equal(readyq_at(&q, 3), t[4]);
	assert_ptr_equal(readyq_at(&q, 4), t[5]);
	/* Removing a promoted task still finds it. */
	assert_int_equal(readyq_remove(&q, t[1]), 0);
	assert_int_equal(readyq_len(&q), 4);
	/* The next promotion follows the queue's changes without a walk:
	 * a newcomer due earlier, then its leaving. */
	t[1]->aged = 0;
	t[1]->ready_ms = 300;
	assert_int_equal(readyq_push(&q, t[1]), 0);
	assert_int_equal(readyq_age(&q, 10200, 10000), 10300);
	assert_int_equal(readyq_remove(&q, t[1]), 0);
	assert_int_equal(readyq_age(&q, 10200, 10000), 10400);
	assert_int_equal(readyq_age(&q, 10400, 10000), -1);
	assert_ptr_equal(readyq_at(&q, 3), t[5]);
	assert_true(t[5]->aged);
	readyq_free(&q);
	for (k = 0; k < 6; k++)
		task_free(t[k]);
}

/* What readyq_age must answer, by a walk of the whole queue: the first
 * promotion not yet due at now. */
static int64_t
next_promotion_walked(const struct readyq *q, int64_t now, int64_t ageing)
{
	int64_t	next = -1;
	size_t	k;

	for (k = 0; k < readyq_len(q); k++) {
		const struct task *t = readyq_at(q, k);
		if (t->prio == PRIO_LOW && !t->aged && !t->urgent &&
		    t->ready_ms + ageing > now &&
		    (next == -1 || t->ready_ms + ageing < next))
			next = t->ready_ms + ageing;
	}
	return next;
}

/* The ageing heap holds exactly the queued tasks not promoted, each
 * knowing its place, the earliest ready on top of each part. */
static void
assert_ageing_heap(const struct readyq *q)
{
	size_t	i, low = 0;

	for (i = 0; i < readyq_len(q); i++)
		low += readyq_at(q, i)->prio == PRIO_LOW &&
		    !readyq_at(q, i)->aged;
	assert_int_equal(q->age_n, low);
	for (i = 0; i < q->age_n; i++) {
		assert_int_equal(q->age[i]->ageq_pos, i + 1);
		assert_false(q->age[i]->aged);
		if (i > 0)
			assert_true(q->age[(i - 1) / 2]->ready_ms <=
			    q->age[i]->ready_ms);
	}
}

/* The fit sub-queue's keep(): a task a node could run (here: every
 * third is not). */
static int
keep_most(const void *ctx, const struct task *t)
{
	return t->uuid[35] % 3 != 0;
}

/* The fit sub-queue is exactly the queue's kept tasks in its order; the
 * index of the first at or after each position is what a walk finds,
 * and each task knows its position. */
static void
assert_fit_is_the_kept_queue(const struct readyq *q)
{
	size_t	k, i = 0, from;

	for (k = 0; k <= readyq_len(q); k++) {
		for (from = i; from < readyq_fit_len(q) &&
		    readyq_pos(q, readyq_fit_at(q, from)) < k; from++)
			;
		assert_int_equal(readyq_fit_from(q, k), from);
		if (k == readyq_len(q))
			break;
		assert_int_equal(readyq_pos(q, readyq_at(q, k)), k);
		if (keep_most(NULL, readyq_at(q, k)))
			assert_ptr_equal(readyq_fit_at(q, i++),
			    readyq_at(q, k));
	}
	assert_int_equal(readyq_fit_len(q), i);
	assert_null(readyq_fit_at(q, i));
}

/* Tasks come, go, and age at random: every call promotes exactly the
 * tasks due, and names the next promotion a walk would find, the queue
 * staying sorted -- without the walk (readyq.h); its fit sub-queue
 * follows each change. */
static void
test_readyq_ageing_and_fit_follow_every_change(void **state)
{
	enum { N = 400, AGEING = 1000 };
	struct readyq	 q;
	struct task	*t[N];
	int		 in[N] = { 0 }, k, step;
	int64_t		 now = 0, want;
	uint64_t	 r = 88172645463325252ULL;

	readyq_init(&q);
	readyq_set_keep(&q, keep_most, NULL);
	for (k = 0; k < N; k++)
		t[k] = mk(k, k % 7 == 0 ? PRIO_INTERACTIVE : PRIO_LOW, 0);
	for (step = 0; step < 20000; step++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		k = (int)(r % N);
		if (!in[k]) {
			t[k]->aged = 0;
			t[k]->ready_ms = now - (int64_t)(r >> 40) % 900;
			assert_int_equal(readyq_push(&q, t[k]), 0);
			in[k] = 1;
		} else if ((r >> 20) % 3 == 0) {
			assert_int_equal(readyq_remove(&q, t[k]), 0);
			in[k] = 0;
		}
		/* Time moves on seldom: each promotion sorts the queue
		 * again, and the next must follow the changes between. */
		if ((r >> 30) % 64 == 0)
			now += (int64_t)(r >> 50) % 100;
		want = next_promotion_walked(&q, now, AGEING);
		assert_int_equal(readyq_age(&q, now, AGEING), want);
		assert_ageing_heap(&q);
		if ((r >> 30) % 64 == 0) {
			assert_fit_is_the_kept_queue(&q);
			for (k = 1; k < (int)readyq_len(&q); k++)
				assert_true(readyq_cmp(&q, readyq_at(&q, k - 1),
				    readyq_at(&q, k)) < 0);
			for (k = 0; k < N; k++)
				if (in[k] && t[k]->prio == PRIO_LOW)
					assert_int_equal(t[k]->aged,
					    t[k]->ready_ms + AGEING <= now);
		}
	}
	readyq_free(&q);
	for (k = 0; k < N; k++)
		task_free(t[k]);
}

/* Every node must order the same set identically, whatever the
 * insertion order. */
static void
test_readyq_insertion_order_irrelevant(void **state)
{
	struct readyq	a, b;
	struct task	*t[50];
	int		k;

	readyq_init(&a);
	readyq_init(&b);
	for (k = 0; k < 50; k++)
		t[k] = mk(k, k % 3 == 0, (k * 7919) % 13);
	for (k = 0; k < 50; k++)
		readyq_push(&a, t[k]);
	for (k = 49; k >= 0; k--)
		readyq_push(&b, t[(k * 17) % 50]);
	for (k = 0; k < 50; k++)
		assert_ptr_equal(readyq_at(&a, k), readyq_at(&b, k));
	for (k = 1; k < 50; k++)
		assert_true(readyq_cmp(&a, readyq_at(&a, k - 1),
		    readyq_at(&a, k)) < 0);
	readyq_free(&a);
	readyq_free(&b);
	for (k = 0; k < 50; k++)
		task_free(t[k]);
}

static void
test_names(void **state)
{
	enum task_state	s;
	enum task_prio	p;

	assert_true(task_name_valid("anomaly_detection"));
	assert_true(task_name_valid("a.b-c_1"));
	assert_false(task_name_valid(""));
	assert_false(task_name_valid("../x"));
	assert_false(task_name_valid("a/b"));
	assert_false(task_name_valid(".x"));
	assert_false(task_name_valid("-x"));
	assert_false(task_name_valid("a b"));
	assert_int_equal(task_state_parse("terminated", &s), 0);
	assert_int_equal(s, TASK_TERMINATED);
	assert_int_equal(task_prio_parse("2", &p), 0);
	assert_int_equal(p, PRIO_INTERACTIVE);
	assert_int_equal(task_prio_parse("3", &p), -1);
	assert_true(task_uuid_valid("3aff3d90-2b79-11e3-8224-0800200c9a66"));
	assert_false(task_uuid_valid("3aff3d90-2b79-11e3-8224-0800200c9a6"));
	assert_false(task_uuid_valid("3aff3d90-2b79-11e3-8224+0800200c9a66"));
}

/*
 * Of two different records of a task, exactly one wins, whichever node
 * compares them -- or two nodes would each keep their own forever --
 * except two unconfirmed ends of one round: there each node keeps the
 * one it voted for, and the vote decides (confirm.c).  Between ends, the
 * rule a split vote goes on with is total too.  Every pair of a grid
 * that includes the cancel / failure races.
 */
static void
test_record_rule_is_total(void **state)
{
	static const enum task_state states[] = { TASK_SUBMITTED, TASK_READY,
	    TASK_RUNNING, TASK_TERMINATED, TASK_CANCELLED, TASK_FAILED };
	static const char *runners[] = { "", "n1", "n2" };
	static const char *reasons[] = { "", "cancelled-by-client",
	    "attempts-exhausted (3)" };
	struct task	*v[6 * 2 * 3 * 3 * 3];
	int		 n = 0, i, j, a, b, c, d, e;

	for (a = 0; a < 6; a++)
		for (b = 0; b < 2; b++)
			for (c = 0; c < 3; c++)
				for (d = 0; d < 3; d++)
					for (e = 0; e < 3; e++) {
					struct task *t;
					/* rounds are of ends only */
					if (a < 3 && e > 0)
						continue;
					t = task_new(
					    "00000000-0000-4000-8000-000000000001",
					    "free", 0);
					assert_non_null(t);
					t->state = states[a];
					t->ver = 3 + b;
					snprintf(t->running_on,
					    sizeof t->running_on, "%s",
					    runners[c]);
					snprintf(t->reason, sizeof t->reason,
					    "%s", reasons[d]);
					/* unconfirmed of round 1 or 2, or
					 * confirmed */
					t->round = e == 2 ? 1 : e + 1;
					t->confirmed = e == 2;
					v[n++] = t;
				}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int ij = rules_record_wins(v[i], v[j]);
			int ji = rules_record_wins(v[j], v[i]);
			int votes = task_is_final(v[i]->state) &&
			    task_is_final(v[j]->state) && !v[i]->confirmed &&
			    !v[j]->confirmed && v[i]->round == v[j]->round;
			if (i == j || votes) {
				assert_false(ij);
				assert_false(ji);
			} else if (ij == ji)
				fail_msg("records %d and %d: %s", i, j,
				    ij ? "both win" : "neither wins");
			if (i != j && task_is_final(v[i]->state) &&
			    task_is_final(v[j]->state) &&
			    rules_end_beats(v[i], v[j]) ==
			    rules_end_beats(v[j], v[i]) &&
			    (v[i]->ver != v[j]->ver || v[i]->state !=
			    v[j]->state || strcmp(v[i]->running_on,
			    v[j]->running_on) != 0 || strcmp(v[i]->reason,
			    v[j]->reason) != 0))
				fail_msg("ends %d and %d: no order", i, j);
		}
	/* A cancel a person asked for stands over a failure. */
	v[0]->state = TASK_CANCELLED;
	v[1]->state = TASK_FAILED;
	v[0]->ver = v[1]->ver = 7;
	v[0]->running_on[0] = v[1]->running_on[0] = '\0';
	assert_true(rules_end_beats(v[0], v[1]));
	for (i = 0; i < n; i++)
		task_free(v[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taskmap_many),
		cmocka_unit_test(test_taskmap_generation_moves_with_every_change),
		cmocka_unit_test(test_taskmap_dependents),
		cmocka_unit_test(test_outbox_drops_lines_below_its_level),
		cmocka_unit_test(test_uuidmap),
		cmocka_unit_test(test_readyq_order),
		cmocka_unit_test(test_readyq_ageing_and_fit_follow_every_change),
		cmocka_unit_test(test_readyq_insertion_order_irrelevant),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_record_rule_is_total),
	};

	return cmocka_run_group_tests_name("structures", tests, NULL, NULL);
}
