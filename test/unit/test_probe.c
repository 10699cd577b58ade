/*
 * test_probe.c -- the idle probes' parsers and arithmetic, on the text
 * /proc, loginctl and an idle_command would give.
 */
#include "testutil.h"

#include "probe.h"
#include "volunteer.h"

#define S(x) x, sizeof(x) - 1

static void
test_cpu_line(void **state)
{
	struct cpu_sample	c;

	assert_int_equal(probe_parse_cpu(S("cpu  100 5 50 800 40 3 2 0 0 0\n"
	    "cpu0 50 2 25 400 20 1 1 0 0 0\n"), &c), 0);
	assert_int_equal(c.total, 1000);
	assert_int_equal(c.busy, 1000 - 800 - 40);
	/* An old kernel's four columns. */
	assert_int_equal(probe_parse_cpu(S("cpu 1 2 3 4\n"), &c), 0);
	assert_int_equal(c.total, 10);
	assert_int_equal(c.busy, 6);
	assert_int_equal(probe_parse_cpu(S("cpu0 1 2 3 4\n"), &c), -1);
	assert_int_equal(probe_parse_cpu(S("cpu 1 2 x\n"), &c), -1);
	assert_int_equal(probe_parse_cpu(S("cpu 18446744073709551615 "
	    "18446744073709551615 1 1\n"), &c), -1);
	assert_int_equal(probe_parse_cpu("", 0, &c), -1);
}

static void
test_pid_line(void **state)
{
	struct pid_sample	p;

	assert_int_equal(probe_parse_pid(S("4242 (import) T 1 4242 4242 0 -1 "
	    "4194560 120 0 0 0 30 7 2 1 39 19 1 0 100 0 0\n"), &p), 0);
	assert_int_equal(p.pid, 4242);
	assert_int_equal(p.state, 'T');
	assert_int_equal(p.pgrp, 4242);
	assert_int_equal(p.ticks, 30 + 7 + 2 + 1);
	/* A command name holding ") R 1 2 (" must not shift the fields. */
	assert_int_equal(probe_parse_pid(S("7 (a) R 1 2 (b) S 3 99 99 0 -1 0 "
	    "0 0 0 0 5 5 0 0 20 0\n"), &p), 0);
	assert_int_equal(p.state, 'S');
	assert_int_equal(p.pgrp, 99);
	assert_int_equal(p.ticks, 10);
	assert_int_equal(probe_parse_pid(S("7 (a) S 1 99 99 0 -1 0 0 0 0 0 5"),
	    &p), -1);				/* cut short */
	assert_int_equal(probe_parse_pid(S("x (a) S 1 2"), &p), -1);
	assert_int_equal(probe_parse_pid(S("7 a S 1 2"), &p), -1);
}

/* A task of ours burning a whole CPU is not load: the host stays idle. */
static void
test_own_tasks_not_load(void **state)
{
	struct cpu_sample	a = { 1000, 10000 }, b = { 1000 + 520, 11000 };
	struct vol		v;
	struct vol_policy	p;
	struct vol_reading	r;
	struct vol_decision	d;

	/* 1000 ticks went by (2 CPUs); 500 of the 520 busy were ours. */
	assert_int_equal(probe_cpu_percent(&a, &b, 500), 2);
	assert_int_equal(probe_cpu_percent(&a, &b, 0), 52);
	assert_int_equal(probe_cpu_percent(&a, &b, 900), 0);
	assert_int_equal(probe_cpu_percent(&b, &a, 0), -1);
	assert_int_equal(probe_cpu_percent(&a, &a, 0), -1);

	memset(&p, 0, sizeof p);
	p.input_idle_s = 900;
	p.cpu_idle_percent = 10;
	p.suspend_input_s = 60;
	p.resume_idle_s = 180;
	p.vacate_after_s = 600;
	memset(&r, 0, sizeof r);
	r.input_idle_s = 3600;
	vol_init(&v);
	r.cpu_busy_percent = probe_cpu_percent(&a, &b, 500);
	d = vol_decide(&v, &p, &r, 1);
	assert_true(d.volunteer);
	assert_false(d.suspend);
	/* Counted as the host's, the same load would stop the task. */
	r.cpu_busy_percent = probe_cpu_percent(&a, &b, 0);
	d = vol_decide(&v, &p, &r, 1);
	assert_true(d.suspend);
}

static void
test_idle_command_output(void **state)
{
	assert_int_equal(probe_parse_idle_seconds(S("931\n")), 931);
	assert_int_equal(probe_parse_idle_seconds(S("  12.75 \n")), 12);
	assert_int_equal(probe_parse_idle_seconds(S("0")), 0);
	assert_int_equal(probe_parse_idle_seconds(S("")), -1);
	assert_int_equal(probe_parse_idle_seconds(S("-5\n")), -1);
	assert_int_equal(probe_parse_idle_seconds(S("12 s\n")), -1);
	assert_int_equal(probe_parse_idle_seconds(S("(uint64 1200,)")), -1);
	assert_int_equal(probe_parse_idle_seconds(S("99999999999999999999")),
	    -1);
}

static void
test_logind_hints(void **state)
{
	struct logind_info	li;
	int64_t			locked_since = -1;
	const int64_t		now = 1800000000000LL;

	/* One user session, idle since 1000 s; a greeter does not count. */
	assert_int_equal(probe_parse_logind(S("Class=user\nIdleHint=yes\n"
	    "IdleSinceHint=1799999000000000\nLockedHint=no\n\n"
	    "Class=greeter\nIdleHint=no\nIdleSinceHint=0\nLockedHint=no\n"),
	    &li), 0);
	assert_int_equal(li.sessions, 1);
	assert_int_equal(probe_logind_idle(&li, now, &locked_since), 1000);

	/* IdleHint=no says nothing on recent systemd: no vote. */
	assert_int_equal(probe_parse_logind(S("Class=user\nIdleHint=no\n"
	    "IdleSinceHint=1799999000000000\nLockedHint=no\n"), &li), 0);
	assert_int_equal(probe_logind_idle(&li, now, &locked_since), -1);

	/* Locked: idle since we first saw the lock. */
	assert_int_equal(probe_parse_logind(S("Class=user\nIdleHint=no\n"
	    "LockedHint=yes\n"), &li), 0);
	assert_int_equal(probe_logind_idle(&li, now, &locked_since), 0);
	assert_int_equal(probe_logind_idle(&li, now + 300000, &locked_since),
	    300);
	/* Unlocked: the lock's time is forgotten. */
	assert_int_equal(probe_parse_logind(S("Class=user\nLockedHint=no\n"),
	    &li), 0);
	assert_int_equal(probe_logind_idle(&li, now + 301000, &locked_since),
	    -1);
	assert_int_equal(locked_since, -1);

	/* Two sessions, one active: no vote. */
	assert_int_equal(probe_parse_logind(S("Class=user\nLockedHint=yes\n\n"
	    "Class=user\nLockedHint=no\n"), &li), 0);
	assert_int_equal(li.sessions, 2);
	assert_int_equal(probe_logind_idle(&li, now, &locked_since), -1);

	assert_int_equal(probe_parse_logind(S("garbage\n"), &li), -1);
	assert_int_equal(probe_parse_logind("", 0, &li), 0);
	assert_int_equal(li.sessions, 0);
}

/* Any source that saw input recently wins; unknown sources abstain. */
static void
test_input_votes(void **state)
{
	int64_t	v[4] = { 86400, -1, 30, 4000 };
	int64_t	none[2] = { -1, -1 };

	assert_int_equal(probe_input_idle(v, 4), 30);
	assert_int_equal(probe_input_idle(v, 2), 86400);
	assert_int_equal(probe_input_idle(none, 2), -1);
	assert_int_equal(probe_input_idle(v, 0), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_line),
		cmocka_unit_test(test_pid_line),
		cmocka_unit_test(test_own_tasks_not_load),
		cmocka_unit_test(test_idle_command_output),
		cmocka_unit_test(test_logind_hints),
		cmocka_unit_test(test_input_votes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
