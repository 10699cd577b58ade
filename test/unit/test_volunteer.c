/*
 * test_volunteer.c -- the volunteer policy with fake readings and clock.
 */
#include "testutil.h"

#include "volunteer.h"

#define MON 1
#define TUE 2
#define FRI 5
#define SAT 6
#define SUN 0
#define HM(h, m) ((h) * 60 + (m))

static struct vol_policy
policy(void)
{
	struct vol_policy	p;

	memset(&p, 0, sizeof p);
	p.mode = VOL_SCREENSAVER;
	p.input_idle_s = 900;
	p.cpu_idle_percent = 10;
	p.suspend_input_s = 60;
	p.resume_idle_s = 180;
	p.vacate_after_s = 600;
	return p;
}

static struct vol_reading
reading(int64_t t_s, int64_t input_idle_s, int cpu)
{
	struct vol_reading	r;

	memset(&r, 0, sizeof r);
	r.now_ms = t_s * 1000;
	r.weekday = TUE;
	r.minute = HM(10, 0);
	r.input_idle_s = input_idle_s;
	r.cpu_busy_percent = cpu;
	r.force = VOL_AUTO;
	return r;
}

/* Decide on a reading passed by value. */
static struct vol_decision
decide(struct vol *v, const struct vol_policy *p, struct vol_reading r,
    int running)
{
	return vol_decide(v, p, &r, running);
}

static void
test_batch_windows_across_midnight(void **state)
{
	struct vol_policy	p = policy();

	p.nwindows = 2;
	p.windows[0].days = 0x3e;		/* mon-fri */
	p.windows[0].from_min = HM(19, 0);
	p.windows[0].to_min = HM(7, 30);
	p.windows[1].days = (1 << SAT) | (1 << SUN);
	p.windows[1].from_min = HM(0, 0);
	p.windows[1].to_min = HM(24, 0);

	assert_false(vol_in_window(&p, MON, HM(18, 59)));
	assert_true(vol_in_window(&p, MON, HM(19, 0)));
	assert_true(vol_in_window(&p, TUE, HM(7, 29)));	/* from Monday */
	assert_false(vol_in_window(&p, TUE, HM(7, 30)));
	assert_false(vol_in_window(&p, MON, HM(3, 0)));	/* Sunday night:
							   not a weekday */
	assert_true(vol_in_window(&p, SAT, HM(5, 0)));	/* from Friday */
	assert_true(vol_in_window(&p, SAT, HM(23, 59)));
	assert_true(vol_in_window(&p, SUN, HM(12, 0)));
	p.nwindows = 1;
	assert_true(vol_in_window(&p, SAT, HM(7, 29)));	/* Friday's night */
	assert_false(vol_in_window(&p, SAT, HM(12, 0)));
	assert_false(vol_in_window(&p, SUN, HM(3, 0)));	/* Saturday no */
	/* from == to: a whole day from that minute. */
	p.windows[0].days = 1 << MON;
	p.windows[0].from_min = p.windows[0].to_min = HM(8, 0);
	assert_false(vol_in_window(&p, MON, HM(7, 59)));
	assert_true(vol_in_window(&p, MON, HM(8, 0)));
	assert_true(vol_in_window(&p, TUE, HM(7, 59)));
	assert_false(vol_in_window(&p, TUE, HM(8, 0)));
}

/* The window ahead, told for forecasts: when it opens, how long it is
 * open (back to back windows as one). */
static void
test_the_window_ahead(void **state)
{
	struct vol_policy	p = policy();
	struct vol		v;
	struct vol_reading	r;
	struct vol_decision	d;
	int			in, lasts;

	assert_int_equal(vol_window_ahead(&p, MON, HM(12, 0), &in, &lasts),
	    -1);
	p.nwindows = 2;
	p.windows[0].days = 0x3e;		/* mon-fri 19:00-07:30 */
	p.windows[0].from_min = HM(19, 0);
	p.windows[0].to_min = HM(7, 30);
	p.windows[1].days = (1 << SAT) | (1 << SUN);	/* all weekend */
	p.windows[1].from_min = p.windows[1].to_min = HM(0, 0);
	assert_int_equal(vol_window_ahead(&p, MON, HM(17, 0), &in, &lasts), 0);
	assert_int_equal(in, 120);
	assert_int_equal(lasts, HM(12, 30));
	/* Inside Monday's, from Tuesday morning: open now, till 07:30. */
	assert_int_equal(vol_window_ahead(&p, TUE, HM(6, 0), &in, &lasts), 0);
	assert_int_equal(in, 0);
	assert_int_equal(lasts, 90);
	/* Friday night runs into the weekend and Sunday's night into
	 * Monday's morning? No: Sunday's ends at midnight, Monday has none
	 * before 19:00. */
	assert_int_equal(vol_window_ahead(&p, FRI, HM(20, 0), &in, &lasts), 0);
	assert_int_equal(in, 0);
	assert_int_equal(lasts, HM(4, 0) + 2 * 1440);
	/* Every day all day: a week at most. */
	p.nwindows = 1;
	p.windows[0].days = 0x7f;
	p.windows[0].from_min = p.windows[0].to_min = HM(8, 0);
	assert_int_equal(vol_window_ahead(&p, SUN, HM(9, 0), &in, &lasts), 0);
	assert_int_equal(in, 0);
	assert_int_equal(lasts, 7 * 1440);
	/* In the decision, in ms from the reading: told while busy (it
	 * opens later) and in the window (it ends); not while idle. */
	p.windows[0].days = 1 << TUE;
	p.windows[0].from_min = HM(12, 0);
	p.windows[0].to_min = HM(13, 0);
	vol_init(&v);
	r = reading(30, 0, 50);			/* 10:00:30, the user at it */
	d = vol_decide(&v, &p, &r, 0);
	assert_string_equal(d.name, "busy");
	assert_int_equal(d.window_in_ms, 2 * 3600000 - 30000);
	assert_int_equal(d.window_ms, 3600000);
	r.minute = HM(12, 30);
	d = vol_decide(&v, &p, &r, 0);
	assert_string_equal(d.name, "batch");
	assert_int_equal(d.window_in_ms, 0);
	assert_int_equal(d.window_ms, 30 * 60000 - 30000);
	r = reading(60, 100000, 0);
	vol_decide(&v, &p, &r, 0);
	d = vol_decide(&v, &p, &r, 0);
	assert_string_equal(d.name, "idle");
	assert_int_equal(d.window_ms, 0);
	r = reading(60, 0, 50);			/* IDLE off: it says nothing */
	r.force = VOL_FORCE_OFF;
	assert_int_equal(vol_decide(&v, &p, &r, 0).window_ms, 0);
}

static void
test_screensaver_hysteresis(void **state)
{
	struct vol_policy	p = policy();
	struct vol		v;
	struct vol_decision	d;

	vol_init(&v);
	/* Quiet but not long enough. */
	d = decide(&v, &p, reading(0, 899, 5), 0);
	assert_false(d.volunteer);
	assert_string_equal(d.name, "busy");
	/* Fifteen quiet minutes, low CPU: volunteer. */
	d = decide(&v, &p, reading(1, 900, 5), 0);
	assert_true(d.volunteer);
	assert_string_equal(d.name, "idle");
	/* Others load the CPU: busy, and the running task stops. */
	d = decide(&v, &p, reading(2, 2000, 50), 1);
	assert_false(d.volunteer);
	assert_true(d.suspend);
	assert_false(d.vacate);
	assert_string_equal(d.name, "suspended");
	/* Quiet again but only 100 s: stays suspended; 180 s: resumes,
	 * no need for the full fifteen minutes. */
	d = decide(&v, &p, reading(100, 100, 3), 1);
	assert_true(d.suspend);
	d = decide(&v, &p, reading(200, 180, 3), 1);
	assert_true(d.volunteer);
	assert_false(d.suspend);
	/* Input 30 s ago: back to busy at once. */
	d = decide(&v, &p, reading(300, 30, 3), 1);
	assert_true(d.suspend);
	/* Without a task, starting again needs the full quiet spell. */
	d = decide(&v, &p, reading(400, 200, 3), 0);
	assert_false(d.volunteer);
	assert_string_equal(d.name, "busy");
}

static void
test_input_within_the_minute_suspends(void **state)
{
	struct vol_policy	p = policy();
	struct vol		v;

	vol_init(&v);
	assert_true(decide(&v, &p, reading(0, 1000, 0), 0).volunteer);
	/* Input 61 s ago does not; 59 s ago does. */
	assert_true(decide(&v, &p, reading(1, 61, 0), 1).volunteer);
	assert_true(decide(&v, &p, reading(2, 59, 0), 1).suspend);
}

static void
test_vacate_after_a_long_suspension(void **state)
{
	struct vol_policy	p = policy();
	struct vol		v;
	struct vol_decision	d;

	vol_init(&v);
	decide(&v, &p, reading(0, 1000, 0), 0);
	d = decide(&v, &p, reading(10, 5, 0), 1);	/* user back */
	assert_true(d.suspend);
	assert_false(d.vacate);
	d = decide(&v, &p, reading(609, 5, 0), 1);
	assert_false(d.vacate);
	d = decide(&v, &p, reading(610, 5, 0), 1);
	assert_true(d.vacate);
	/* The task gone, the host is just busy. */
	d = decide(&v, &p, reading(611, 5, 0), 0);
	assert_false(d.suspend);
	assert_false(d.vacate);
}

/* <on_user_return>throttle 25</on_user_return>: the runs go on, slowly,
 * for as long as the user stays; never vacated for it. */
static void
test_throttle_instead_of_stop(void **state)
{
	struct vol_policy	p = policy();
	struct vol		v;
	struct vol_decision	d;
	enum vol_return		how = VOL_RETURN_STOP;
	int			pct = 0;

	assert_int_equal(vol_return_parse("throttle 25", &how, &pct), 0);
	assert_int_equal(how, VOL_RETURN_THROTTLE);
	assert_int_equal(pct, 25);
	p.on_return = how;
	p.throttle_percent = pct;
	vol_init(&v);
	decide(&v, &p, reading(0, 1000, 0), 0);
	d = decide(&v, &p, reading(10, 5, 0), 1);	/* user back */
	assert_true(d.throttle);
	assert_false(d.suspend);
	assert_false(d.volunteer);
	assert_string_equal(d.name, "throttled");
	d = decide(&v, &p, reading(5000, 5, 0), 1);	/* hours later */
	assert_true(d.throttle);
	assert_false(d.vacate);
	/* Nothing running: just busy. */
	assert_string_equal(decide(&v, &p, reading(5001, 5, 0), 0).name,
	    "busy");
	/* The user gone long enough: full speed again. */
	d = decide(&v, &p, reading(5200, 190, 0), 1);
	assert_false(d.throttle);
	assert_true(d.volunteer);
	/* What a config may say, and may not. */
	assert_int_equal(vol_return_parse("nice", &how, &pct), 0);
	assert_int_equal(how, VOL_RETURN_NICE);
	assert_int_equal(vol_return_parse("stop", &how, &pct), 0);
	assert_int_equal(how, VOL_RETURN_STOP);
	assert_int_equal(vol_return_parse("throttle 100", &how, &pct), 0);
	assert_int_equal(vol_return_parse("throttle 0", &how, &pct), -1);
	assert_int_equal(vol_return_parse("throttle 101", &how, &pct), -1);
	assert_int_equal(vol_return_parse("throttle 25%", &how, &pct), -1);
	assert_int_equal(vol_return_parse("throttle", &how, &pct), -1);
	assert_int_equal(vol_return_parse("freeze", &how, &pct), -1);
}

static void
test_batch_dedicated_and_the_hook(void **state)
{
	struct vol_policy	p = policy();
	struct vol		v;
	struct vol_reading	r;
	struct vol_decision	d;

	vol_init(&v);
	p.nwindows = 1;
	p.windows[0].days = 0x7f;
	p.windows[0].from_min = HM(19, 0);
	p.windows[0].to_min = HM(7, 0);
	/* Inside the window: volunteer under any load, any input. */
	r = reading(0, 1, 95);
	r.minute = HM(22, 0);
	d = vol_decide(&v, &p, &r, 0);
	assert_true(d.volunteer);
	assert_string_equal(d.name, "batch");
	/* IDLE off wins even in a window; IDLE on wins over a busy user. */
	r.force = VOL_FORCE_OFF;
	assert_false(vol_decide(&v, &p, &r, 0).volunteer);
	r = reading(1, 1, 95);
	r.force = VOL_FORCE_ON;
	assert_true(vol_decide(&v, &p, &r, 0).volunteer);
	/* Dedicated: always. */
	p.mode = VOL_DEDICATED;
	d = decide(&v, &p, reading(2, 1, 99), 0);
	assert_true(d.volunteer);
	assert_string_equal(d.name, "dedicated");
}

static void
test_unknown_probes(void **state)
{
	struct vol_policy	p = policy();
	struct vol		v;

	vol_init(&v);
	/* No input source (a server without sessions): judged by CPU. */
	assert_true(decide(&v, &p, reading(0, -1, 3), 0).volunteer);
	assert_true(decide(&v, &p, reading(1, -1, 40), 1).suspend);
	/* No CPU reading either: nothing says busy. */
	vol_init(&v);
	assert_true(decide(&v, &p, reading(2, -1, -1), 0).volunteer);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_windows_across_midnight),
		cmocka_unit_test(test_the_window_ahead),
		cmocka_unit_test(test_screensaver_hysteresis),
		cmocka_unit_test(test_input_within_the_minute_suspends),
		cmocka_unit_test(test_vacate_after_a_long_suspension),
		cmocka_unit_test(test_throttle_instead_of_stop),
		cmocka_unit_test(test_batch_dedicated_and_the_hook),
		cmocka_unit_test(test_unknown_probes),
	};

	return cmocka_run_group_tests_name("volunteer", tests, NULL, NULL);
}
