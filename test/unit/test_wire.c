/*
 * test_wire.c -- the codecs: client requests, runner lines, task
 * records and journal framing, on good and hostile input.
 */
#include "testutil.h"
#include "lex.h"

/* An input file's hash (BLAKE2b-256, hex). */
#define HASH "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static struct client_req req;
static char err[1024];

static int
parse(const char *line)
{
	return wire_client_parse(line, strlen(line), &req, err, sizeof err);
}

#define U1 "3aff3d90-2b79-11e3-8224-0800200c9a66"
#define U2 "679e9490-2b79-11e3-8224-0800200c9a66"

static void
test_client_schedule(void **state)
{
	assert_int_equal(parse("SCHEDULE segmentation interactive -a " U1
	    " 1 -a " U2 " 1 -a " U2 " 2 -x params.xml"), 0);
	assert_int_equal(req.cmd, CMD_SCHEDULE);
	assert_string_equal(req.exec, "segmentation");
	assert_int_equal(req.prio, PRIO_INTERACTIVE);
	assert_int_equal(req.nbind, 3);
	assert_string_equal(req.bind[0].uuid, U1);
	assert_int_equal(req.bind[2].nth, 2);
	assert_string_equal(req.params, "params.xml");
	assert_null(req.path);

	/* Case-insensitive words, CR tolerated by the framer, 1/2 prios. */
	assert_int_equal(parse("schedule import 1 -p /raw/data"), 0);
	assert_int_equal(req.prio, PRIO_LOW);
	assert_string_equal(req.path, "/raw/data");
	/* A deadline: -D told, -H strict (refused if the forecast misses). */
	assert_int_equal(parse("SCHEDULE import low -D 1700000000000"), 0);
	assert_int_equal(req.deadline_ms, 1700000000000LL);
	assert_int_equal(req.deadline_strict, 0);
	assert_int_equal(parse("SCHEDULE import low -H 1700000000000"), 0);
	assert_int_equal(req.deadline_ms, 1700000000000LL);
	assert_int_equal(req.deadline_strict, 1);
	assert_int_equal(parse("SCHEDULE import low -H soon"), -1);
	assert_non_null(strstr(err, "-H: a time in ms since the epoch"));
	/* A run-time estimate: a year at most. */
	assert_int_equal(parse("SCHEDULE import low -T 7200000"), 0);
	assert_int_equal(req.est_ms, 7200000);
	assert_int_equal(parse("SCHEDULE import low -T 0"), -1);
	assert_non_null(strstr(err, "-T: a run time in ms"));
	assert_int_equal(parse("SCHEDULE import low -T 31622400001"), -1);
	/* Uppercase uuids are folded to the canonical lowercase form. */
	assert_int_equal(parse("CANCEL 3AFF3D90-2B79-11E3-8224-0800200C9A66"),
	    0);
	assert_string_equal(req.uuid[0], U1);
}

static void
test_client_errors(void **state)
{
	static const struct {
		const char *line, *want;
	} bad[] = {
		{ "", "empty" },
		{ "FROB", "unknown command 'FROB'" },
		{ "SCHEDULE", "usage: SCHEDULE" },
		{ "SCHEDULE import", "usage: SCHEDULE" },
		{ "SCHEDULE ../../bin/sh low", "bad executable name" },
		{ "SCHEDULE /bin/sh low", "bad executable name" },
		{ "SCHEDULE a..b low", "bad executable name" },
		{ "SCHEDULE .hidden low", "bad executable name" },
		{ "SCHEDULE import urgent", "bad priority" },
		{ "SCHEDULE import low -p", "-p needs an argument" },
		{ "SCHEDULE import low -p a -p b", "-p given twice" },
		{ "SCHEDULE import low -a " U1, "-a needs" },
		{ "SCHEDULE import low -a nope 1", "malformed uuid 'nope'" },
		{ "SCHEDULE import low -a " U1 " 0", "output number" },
		{ "SCHEDULE import low -a " U1 " x", "output number" },
		{ "SCHEDULE import low -q", "unknown option '-q'" },
		{ "SUBSCRIBE", "usage: SUBSCRIBE" },
		{ "SUBSCRIBE " U1 " 1234", "malformed uuid" },
		{ "CANCEL", "usage: CANCEL" },
		{ "CANCEL " U1 " " U2, "usage: CANCEL" },
		{ "CANCEL 3aff3d90-2b79-11e3-8224-0800200c9a6z",
		  "malformed uuid" },
		{ "TASKS Sleeping", "unknown state" },
		{ "IDLE maybe", "usage: IDLE" },
		{ "QUIT now", "usage: QUIT" },
		{ "LOG -n 0", "-n" },
		{ "LOG -l loud", "bad level" },
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = '\0';
		if (parse(bad[i].line) != -1)
			fail_msg("accepted: %s", bad[i].line);
		if (strstr(err, bad[i].want) == NULL)
			fail_msg("'%s': error '%s' lacks '%s'", bad[i].line,
			    err, bad[i].want);
	}
	/* Binary: a NUL inside, control bytes in the command word. */
	assert_int_equal(wire_client_parse("TASKS\0x", 7, &req, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "NUL"));
	assert_int_equal(parse("\x01\x02\xff"), -1);
	assert_string_equal(err, "unknown command (try HELP)");
}

static void
test_client_line_limit(void **state)
{
	char *line = malloc(CLIENT_LINE_MAX + 2);

	memset(line, 'A', CLIENT_LINE_MAX + 1);
	memcpy(line, "TASKS ", 6);
	assert_int_equal(wire_client_parse(line, CLIENT_LINE_MAX + 1, &req,
	    err, sizeof err), -1);
	assert_string_equal(err, "line too long");
	free(line);
}

static void
test_runner_lines(void **state)
{
	struct runner_msg m;

#define RP(s) wire_runner_parse(s, strlen(s), &m, err, sizeof err)
	assert_int_equal(RP("PROGRESS 42"), 0);
	assert_int_equal(m.type, RMSG_PROGRESS);
	assert_int_equal(m.percent, 42);
	assert_int_equal(RP("PROGRESS 99.9"), 0);
	assert_int_equal(m.percent, 99);
	assert_int_equal(RP("TERMINATED 17 18 19\r"), 0);
	assert_int_equal(m.type, RMSG_TERMINATED);
	assert_int_equal(m.noutputs, 3);
	assert_string_equal(m.outputs[2], "19");
	assert_int_equal(RP("TERMINATED"), 0);
	assert_int_equal(m.noutputs, 0);
	assert_int_equal(RP("CANCELLED"), 0);
	assert_int_equal(m.type, RMSG_CANCELLED);
	assert_int_equal(RP("ERROR cannot open the database"), 0);
	assert_string_equal(m.message, "cannot open the database");

	assert_int_equal(RP("PROGRESS 101"), -1);
	assert_int_equal(RP("PROGRESS -1"), -1);
	assert_int_equal(RP("PROGRESS"), -1);
	assert_int_equal(RP("PROGRESS nan"), -1);
	assert_int_equal(RP("TERMINATED a,b"), -1);
	assert_int_equal(RP("hello"), -1);
	assert_int_equal(wire_runner_parse("PROGRESS 1\0", 11, &m, err,
	    sizeof err), -1);
#undef RP
}

static void
test_task_record_roundtrip(void **state)
{
	struct task	*t, *u;
	char		 line[RECORD_LINE_MAX], line2[RECORD_LINE_MAX];
	char		*outs[2] = { "17", "id with%odd:chars=," };
	int		 len;

	t = task_new(U1, "segmentation", 2);
	t->prio = PRIO_INTERACTIVE;
	t->state = TASK_TERMINATED;
	t->submit_ms = 1700000000123LL;
	t->ready_ms = 1700000000200LL;
	snprintf(t->scheduled_by, sizeof t->scheduled_by, "acor");
	snprintf(t->client, sizeof t->client, "10.1.1.206:9965");
	snprintf(t->running_on, sizeof t->running_on, "gaviao");
	snprintf(t->reason, sizeof t->reason, "a reason, with: spaces=yes");
	task_set_string(&t->params, "/data/p q.xml");
	strcpy(t->inputs[0].from, U2);
	t->inputs[0].nth = 2;
	task_set_string(&t->inputs[0].dataset, "77");
	strcpy(t->inputs[1].from, U2);
	t->inputs[1].nth = 1;
	/* outs[1] is not a valid dataset id for the runner, but the codec
	 * must carry any string intact. */
	task_set_outputs(t, outs, 1);
	t->attempts = 2;
	t->failures = 1;
	t->est_ms = 7200000;

	len = wire_task_encode(t, line, sizeof line);
	assert_true(len > 0);
	assert_null(strchr(line, '\n'));
	u = wire_task_decode(line, len, err, sizeof err);
	assert_non_null(u);
	assert_int_equal(wire_task_encode(u, line2, sizeof line2), len);
	assert_string_equal(line, line2);
	assert_string_equal(u->reason, t->reason);
	assert_string_equal(u->params, "/data/p q.xml");
	assert_null(u->inputs[1].dataset);
	assert_int_equal(u->submit_ms, 1700000000123LL);
	assert_int_equal(u->est_ms, 7200000);
	task_free(t);
	task_free(u);
}

static void
test_task_record_rejects_garbage(void **state)
{
	static const char *bad[] = {
		"",
		"v=1",
		"v=1 id=" U1,
		"v=2 id=" U1 " exec=import",
		"v=1 id=nope exec=import",
		"v=1 id=" U1 " exec=../x",
		"v=1 id=" U1 " exec=import st=Sleeping",
		"v=1 id=" U1 " exec=import pg=101",
		"v=1 id=" U1 " exec=import path=%zz",
		"v=1 id=" U1 " exec=import path=%00",
		"v=1 id=" U1 " exec=import in=" U2 ":0:-",
		"v=1 id=" U1 " exec=import in=" U2,
		"v=1 id=" U1 " exec=import color=blue",
		"v=1 id=" U1 " exec=import  st=Ready",
		"v=1 id=" U1 " exec=import sub=-5",
		/* Unescaped, no value may forge a line of a client, the log
		 * or the journal. */
		"v=1 id=" U1 " exec=import rsn=a%0APROGRESS%20" U1,
		"v=1 id=" U1 " exec=import sb=a%0Ab",
		"v=1 id=" U1 " exec=import on=n1%0D",
		"v=1 id=" U1 " exec=import cl=a%20b",
		"v=1 id=" U1 " exec=import path=/x%0A",
		"v=1 id=" U1 " exec=import on=",
		/* Accounting out of range: a status past a signal's, a
		 * negative cost, a user with a blank. */
		"v=1 id=" U1 " exec=import ws=400",
		"v=1 id=" U1 " exec=import ws=-2",
		"v=1 id=" U1 " exec=import cpu=-5",
		"v=1 id=" U1 " exec=import rss=1x",
		"v=1 id=" U1 " exec=import usr=a%20b",
		/* No one's uid: (uid_t)-1, a negative one. */
		"v=1 id=" U1 " exec=import usr=a uid=4294967295",
		"v=1 id=" U1 " exec=import usr=a uid=-2",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct task *t = wire_task_decode(bad[i], strlen(bad[i]), err,
		    sizeof err);
		if (t != NULL)
			fail_msg("accepted record: %s", bad[i]);
	}
	/* The encoder refuses what the decoder would: one table. */
	{
		struct task	*t = task_new(U1, "import", 0);
		char		 line[RECORD_LINE_MAX];

		assert_non_null(t);
		assert_true(wire_task_encode(t, line, sizeof line) > 0);
		snprintf(t->reason, sizeof t->reason, "a\nb");
		assert_int_equal(wire_task_encode(t, line, sizeof line), -1);
		t->reason[0] = '\0';
		t->progress = 101;
		assert_int_equal(wire_task_encode(t, line, sizeof line), -1);
		task_free(t);
	}
}

/* What a run cost travels with its record; unmeasured, nothing is
 * written (0 is a measure). */
static void
test_accounting_record_roundtrip(void **state)
{
	struct task	*t = task_new(U1, "import", 0), *u;
	char		 line[RECORD_LINE_MAX];
	int		 len;

	assert_non_null(t);
	assert_int_equal(t->exit_status, -1);
	assert_int_equal(t->cpu_ms, -1);
	len = wire_task_encode(t, line, sizeof line);
	assert_null(strstr(line, " ws="));
	assert_null(strstr(line, " cpu="));
	assert_null(strstr(line, " usr="));
	assert_null(strstr(line, " uid="));
	u = wire_task_decode(line, len, err, sizeof err);
	assert_non_null(u);
	assert_int_equal(u->uid, -1);
	assert_int_equal(u->exit_status, -1);
	assert_int_equal(u->maxrss_kib, -1);
	task_free(u);

	snprintf(t->user, sizeof t->user, "ana.silva");
	t->uid = 1001;
	t->exit_status = 256 + 9;	/* killed by SIGKILL */
	t->cpu_ms = 0;
	t->maxrss_kib = 123456;
	len = wire_task_encode(t, line, sizeof line);
	assert_non_null(strstr(line, " usr=ana.silva uid=1001 ws=265 cpu=0 "
	    "rss=123456"));
	u = wire_task_decode(line, len, err, sizeof err);
	assert_non_null(u);
	assert_string_equal(u->user, "ana.silva");
	assert_int_equal(u->uid, 1001);
	assert_int_equal(u->exit_status, 265);
	assert_int_equal(u->cpu_ms, 0);
	assert_int_equal(u->maxrss_kib, 123456);
	task_free(u);
	task_free(t);
}

/* -H and <listen>: host, [IPv6], port or none; bad ports refused. */
static void
test_host_and_port(void **state)
{
	static const struct {
		const char	*in, *host;
		int		 port;	/* -1 none; -2 refused */
	} cases[] = {
		{ "acor", "acor", -1 }, { "acor:7610", "acor", 7610 },
		{ "127.0.0.1:0", "127.0.0.1", 0 }, { "*:7600", "*", 7600 },
		{ "[::1]:7600", "::1", 7600 }, { "[::1]", "::1", -1 },
		{ "fe80::1", "fe80::1", -1 }, { "acor:65536", NULL, -2 },
		{ "acor:http", NULL, -2 }, { "acor:", NULL, -2 },
		{ "acor:-1", NULL, -2 }, { "[::1", NULL, -2 },
		{ "[::1]7600", NULL, -2 }, { "[]:1", NULL, -2 },
		{ ":7600", NULL, -2 }, { "", NULL, -2 },
	};
	char	host[64];
	size_t	i;
	int	port, rc;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rc = lex_hostport(cases[i].in, host, sizeof host, &port);
		if (cases[i].port == -2) {
			if (rc != -1)
				fail_msg("accepted '%s'", cases[i].in);
			continue;
		}
		if (rc != 0 || strcmp(host, cases[i].host) != 0 ||
		    port != cases[i].port)
			fail_msg("'%s': %d '%s' %d", cases[i].in, rc, host, port);
	}
}

/* ACCOUNT's filters, and what it refuses. */
static void
test_client_account(void **state)
{
	static const char	*bad[] = {
		"ACCOUNT -S Running",
		"ACCOUNT -S Terminated,",
		"ACCOUNT -s yesterday",
		"ACCOUNT -s -5",
		"ACCOUNT -n a,b",
		"ACCOUNT -x 1",
		"ACCOUNT -s",
	};
	size_t			 i;

	assert_int_equal(parse("ACCOUNT"), 0);
	assert_int_equal(req.cmd, CMD_ACCOUNT);
	assert_true(req.acct_since == -1 && req.acct_until == -1);
	assert_int_equal(req.acct_states, 0);
	assert_null(req.acct_node);
	assert_int_equal(parse("ACCOUNT -s 1700000000000 -u 1700000009999 "
	    "-S terminated,Failed -n gaviao -U ana"), 0);
	assert_true(req.acct_since == 1700000000000LL);
	assert_true(req.acct_until == 1700000009999LL);
	assert_int_equal(req.acct_states, (1u << TASK_TERMINATED) |
	    (1u << TASK_FAILED));
	assert_string_equal(req.acct_node, "gaviao");
	assert_string_equal(req.acct_user, "ana");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (parse(bad[i]) != -1)
			fail_msg("accepted: %s", bad[i]);
}

/* What the node writes, `volery watch` reads back. */
static void
test_progress_line_roundtrip(void **state)
{
	struct task		*t = task_new("6c5b5ccb-3da4-466d-952f-86563efc985f",
				    "import", 0);
	struct wire_progress	 p;
	char			 line[CLIENT_LINE_MAX], *outs[2] = { "17", "18" };

	t->state = TASK_TERMINATED;
	t->confirmed = 1;
	t->attempts = 2;
	t->submit_ms = 1000;
	t->ready_ms = 1500;
	t->start_ms = 1750;
	t->end_ms = 3000;
	snprintf(t->running_on, sizeof t->running_on, "acor");
	assert_int_equal(task_set_outputs(t, outs, 2), 0);
	wire_progress_line(t, line, sizeof line);
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(wire_progress_parse(line, &p), 0);
	assert_string_equal(p.uuid, t->uuid);
	assert_int_equal(p.percent, 100);
	assert_string_equal(p.state, "Terminated");
	assert_string_equal(p.node, "acor");
	assert_int_equal(p.attempt, 2);
	assert_true(p.waited > 0.249 && p.waited < 0.251);
	assert_true(p.makespan > 1.999 && p.makespan < 2.001);
	/* An end not confirmed yet is not final: Unconfirmed, outcome=. */
	t->confirmed = 0;
	wire_progress_line(t, line, sizeof line);
	assert_non_null(strstr(line, " Unconfirmed "));
	assert_non_null(strstr(line, " outcome=Terminated"));
	assert_int_equal(wire_progress_parse(line, &p), 0);
	assert_string_equal(p.state, "Unconfirmed");
	/* A suspended run shows as such; the reason runs to the end. */
	t->state = TASK_RUNNING;
	t->suspended = 1;
	t->progress = 40;
	wire_progress_line(t, line, sizeof line);
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(wire_progress_parse(line, &p), 0);
	assert_string_equal(p.state, "Suspended");
	assert_true(p.makespan < 0);
	assert_int_equal(wire_progress_parse("PROGRESS x 1 Running", &p), -1);
	assert_int_equal(wire_progress_parse("PROGRESS "
	    "6c5b5ccb-3da4-466d-952f-86563efc985f 101 Running", &p), -1);
	assert_int_equal(wire_progress_parse("PROGRESS "
	    "6c5b5ccb-3da4-466d-952f-86563efc985f 5 Failed reason=a b c", &p),
	    0);
	assert_string_equal(p.reason, "a b c");
	task_free(t);
}

/* The expected end goes in before reason= (which runs to the end of the
 * line), reads back, and is never added twice or past the buffer. */
static void
test_progress_eta(void **state)
{
	struct wire_progress	 p;
	char			 line[CLIENT_LINE_MAX], tiny[64];

	snprintf(line, sizeof line, "PROGRESS "
	    "6c5b5ccb-3da4-466d-952f-86563efc985f 0 Ready reason=waiting: "
	    "no node has tag gpu\n");
	assert_int_equal(wire_progress_add_eta(line, sizeof line, 3500), 0);
	assert_non_null(strstr(line, " Ready eta=3.5 reason=waiting: no "));
	assert_int_equal(wire_progress_parse(line, &p), 0);
	assert_true(p.eta > 3.49 && p.eta < 3.51);
	assert_string_equal(p.reason, "waiting: no node has tag gpu\n");
	assert_int_equal(wire_progress_add_eta(line, sizeof line, 100), -1);
	snprintf(line, sizeof line, "PROGRESS "
	    "6c5b5ccb-3da4-466d-952f-86563efc985f 40 Running node=a\n");
	assert_int_equal(wire_progress_add_eta(line, sizeof line, 62000), 0);
	assert_string_equal(line + 49, "Running node=a eta=62.0\n");
	assert_int_equal(wire_progress_add_eta(line, sizeof line, -1), -1);
	/* A reason's text is not a field: " eta=" in it does not count. */
	snprintf(line, sizeof line, "PROGRESS "
	    "6c5b5ccb-3da4-466d-952f-86563efc985f 0 Ready reason=the eta= "
	    "option\n");
	assert_int_equal(wire_progress_add_eta(line, sizeof line, 2000), 0);
	assert_string_equal(line + 48, "Ready eta=2.0 reason=the eta= option\n");
	/* No room: the line stays as it was. */
	snprintf(tiny, sizeof tiny, "PROGRESS "
	    "6c5b5ccb-3da4-466d-952f-86563efc985f 40 Running\n");
	assert_int_equal(wire_progress_add_eta(tiny, sizeof tiny, 1000), -1);
	assert_string_equal(tiny + 49, "Running\n");
	assert_int_equal(wire_progress_parse("PROGRESS "
	    "6c5b5ccb-3da4-466d-952f-86563efc985f 5 Running eta=-3", &p), -1);
	(void)state;
}

static void
test_record_framing(void **state)
{
	char		 buf[256];
	const char	*payload;
	size_t		 plen;
	int		 len;

	/* Known CRC-32 check value. */
	assert_int_equal(wire_crc32("123456789", 9), 0xcbf43926u);
	len = wire_record_frame("v=1 id=x", 8, buf, sizeof buf);
	assert_int_equal(len, 18);
	assert_int_equal(buf[len - 1], '\n');
	assert_int_equal(wire_record_unframe(buf, len - 1, &payload, &plen),
	    0);
	assert_int_equal(plen, 8);
	assert_memory_equal(payload, "v=1 id=x", 8);
	/* One flipped bit anywhere is caught. */
	buf[12] ^= 0x04;
	assert_int_equal(wire_record_unframe(buf, len - 1, &payload, &plen),
	    -1);
	buf[12] ^= 0x04;
	/* A torn record (shorter) is caught. */
	assert_int_equal(wire_record_unframe(buf, len - 3, &payload, &plen),
	    -1);
	assert_int_equal(wire_record_unframe("zz", 2, &payload, &plen), -1);
	/* A payload with a newline cannot be framed. */
	assert_int_equal(wire_record_frame("a\nb", 3, buf, sizeof buf), -1);
}

/*
 * One set of number rules for every codec: a number is digits (with a
 * '-' where negatives exist, a fraction where percentages do), nothing
 * else -- no '+', no blank, no "0x", no exponent -- and within bounds.
 */
static void
test_numbers_mean_the_same_in_every_codec(void **state)
{
	static const char *peer_bad[] = {
		"PROGRESS " U1 " +5 1 7",	/* a sign */
		"PROGRESS " U1 " 5 +1 7",
		"PROGRESS " U1 " 5 1 +7",
		"PROGRESS " U1 " 5 0x1 7",	/* hex is digits only */
		"PROGRESS " U1 " 101 1 7",	/* out of range */
		"PROGRESS " U1 " 5  1 7",	/* an empty word */
		"PROGRESS " U1 " 5 10000000000000000 7",	/* 17 digits */
		"PROGRESS " U1 " 5 1",		/* no start stamp */
		"TRY_DEQUEUE " U1 " 9223372036854775808",	/* overflows */
		"TRY_DEQUEUE " U1 " -1",
		"NEW_MASTER -1",
		"NEW_MASTER 1\nNEW_MASTER 2",	/* a datagram is one line */
		"RETIRED",			/* no uuid */
		"RETIRED 3aff3d90",		/* not a uuid */
		"RETIRED " U1 " " U1,		/* one only */
	};
	static const char *record_bad[] = {
		"v=+1 id=" U1 " exec=import",
		"v=1 id=" U1 " exec=import pg=+5",
		"v=1 id=" U1 " exec=import sub=1e3",
		"v=1 id=" U1 " exec=import att=0x10",
	};
	static const char *runner_bad[] = {
		"PROGRESS +5", "PROGRESS 5e1", "PROGRESS 0x10", "PROGRESS inf",
		"PROGRESS 1.", "PROGRESS .5", "PROGRESS 5 5",
	};
	struct peer_msg		*m = malloc(sizeof *m);
	struct runner_msg	 rm;
	struct wire_progress	 wp;
	char			 text[256];
	size_t			 i;
	int			 hl;

	assert_non_null(m);
	for (i = 0; i < sizeof peer_bad / sizeof peer_bad[0]; i++) {
		hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
		snprintf(text + hl, sizeof text - hl, "%s", peer_bad[i]);
		if (peer_parse(text, strlen(text), m, err, sizeof err) == 0)
			fail_msg("accepted datagram: %s", peer_bad[i]);
	}
	hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
	snprintf(text + hl, sizeof text - hl, "PROGRESS %s 5 FfFf 7", U1);
	assert_int_equal(peer_parse(text, strlen(text), m, err, sizeof err),
	    0);
	assert_int_equal(m->ver, 0xffff);
	free(m);
	for (i = 0; i < sizeof record_bad / sizeof record_bad[0]; i++)
		if (wire_task_decode(record_bad[i], strlen(record_bad[i]), err,
		    sizeof err) != NULL)
			fail_msg("accepted record: %s", record_bad[i]);
	for (i = 0; i < sizeof runner_bad / sizeof runner_bad[0]; i++)
		if (wire_runner_parse(runner_bad[i], strlen(runner_bad[i]),
		    &rm, err, sizeof err) == 0)
			fail_msg("accepted runner line: %s", runner_bad[i]);
	/* A percent sign and blanks after the number are a task's right. */
	assert_int_equal(wire_runner_parse("PROGRESS 12.5 %", 15, &rm, err,
	    sizeof err), 0);
	assert_int_equal(rm.percent, 12);
	assert_int_equal(parse("SCHEDULE georeferencing low -a " U1 " +1 -a "
	    U1 " 2 -a " U1 " 3"), -1);
	assert_non_null(strstr(err, "output number"));
	assert_int_equal(wire_progress_parse("PROGRESS " U1 " +5 Running",
	    &wp), -1);
	assert_int_equal(wire_progress_parse("PROGRESS " U1 " 5 Running "
	    "waited=1e3", &wp), -1);
	assert_int_equal(wire_progress_parse("PROGRESS " U1 " 5 Running "
	    "waited=0.250", &wp), 0);
	assert_true(wp.waited > 0.249 && wp.waited < 0.251);
}

/* HELP is the protocol's own table: every line names a request the
 * parser knows, with the usage its errors quote. */
static void
test_help_comes_from_the_command_table(void **state)
{
	char	 help[4096], *line, *p, word[32];
	int	 n = 0;

	assert_true(wire_client_help(help, sizeof help) > 0);
	assert_non_null(strstr(help, "HELP CANCEL <uuid>\n"));
	assert_non_null(strstr(help, "\n.\n"));
	p = strchr(help, '\n') + 1;
	while ((line = strsep(&p, "\n")) != NULL && strcmp(line, ".") != 0) {
		assert_int_equal(strncmp(line, "HELP ", 5), 0);
		sscanf(line + 5, "%31s", word);
		if (parse(word) == -1) {
			assert_null(strstr(err, "unknown command"));
			/* A request short of arguments quotes its line. */
			assert_string_equal(strstr(err, "usage: ") + 7,
			    line + 5);
		}
		n++;
	}
	assert_int_equal(n, 23);	/* with PEERKEY, REVOKE, CLEAR, CKPT, SLEEP, FILE */
	assert_int_equal(wire_client_help(help, 64), -1);
}

/* A task of an array says so in its PROGRESS lines, for watch's bars. */
static void
test_progress_tells_the_array(void **state)
{
	struct task		*t = task_new(U1, "fit", 0);
	struct wire_progress	 p;
	char			 line[CLIENT_LINE_MAX];

	snprintf(t->array, sizeof t->array, "%s", U2);
	t->array_index = 17;
	t->array_max = 5;
	t->state = TASK_READY;
	wire_progress_line(t, line, sizeof line);
	line[strcspn(line, "\n")] = '\0';
	assert_int_equal(wire_progress_parse(line, &p), 0);
	assert_string_equal(p.array, U2);
	assert_int_equal(p.array_index, 17);
	assert_int_equal(wire_progress_parse("PROGRESS " U1 " 0 Ready "
	    "array=nope:1", &p), -1);
	assert_int_equal(wire_progress_parse("PROGRESS " U1 " 0 Ready "
	    "array=" U2 ":-1", &p), -1);
	task_free(t);
}

/* RUN carries any argv: every value %XX-escaped, read back exactly. */
static void
test_client_run(void **state)
{
	char	line[CLIENT_LINE_MAX + 1];
	char	*words[] = { "printf", "%s|\\n", "a b", "it's \"q\"", "",
		    "\xc3\xbcn\xc3\xaf", ",:=%", "two\nlines" };
	char	*env[] = { "LC_ALL=C", "X=a b" };
	char	*outs[] = { "line:^total=(\\S+)$", "file:out {uuid}.txt" };
	struct task_cmd	c;
	struct task_binding b = { U1, 2 };
	int	i;

	memset(&c, 0, sizeof c);
	c.argc = 8;
	c.argv = words;
	c.nenv = 2;
	c.env = env;
	c.nouts = 2;
	c.outs = outs;
	c.cwd = "/data/my run";
	c.out = "log.txt";
	c.time_limit_ms = 90000;
	/* What runreq_format writes (the CLI's), by hand. */
	snprintf(line, sizeof line, "RUN printf interactive -d %%2Fdata%%2Fmy"
	    "%%20run -o log.txt -E LC_ALL%%3DC -E X%%3Da%%20b -t 90 -a %s 2 "
	    "-O line%%3A%%5Etotal%%3D(%%5CS+)$ -O file%%3Aout%%20{uuid}.txt "
	    "-- printf %%25s|%%5Cn a%%20b it's%%20\"q\" %% %%C3%%BCn%%C3%%AF "
	    "%%2C%%3A%%3D%%25 two%%0Alines", U1);
	assert_int_equal(parse(line), 0);
	assert_int_equal(req.cmd, CMD_RUN);
	assert_string_equal(req.exec, "printf");
	assert_int_equal(req.prio, PRIO_INTERACTIVE);
	assert_int_equal(req.nbind, 1);
	assert_string_equal(req.bind[0].uuid, b.uuid);
	assert_int_equal(req.bind[0].nth, b.nth);
	assert_string_equal(req.run.cwd, c.cwd);
	assert_string_equal(req.run.out, "log.txt");
	assert_null(req.run.err);
	assert_int_equal(req.run.time_limit_ms, 90000);
	assert_int_equal(req.run.nenv, 2);
	assert_string_equal(req.run.env[1], "X=a b");
	assert_int_equal(req.run.nouts, 2);
	assert_string_equal(req.run.outs[0], outs[0]);
	assert_string_equal(req.run.outs[1], outs[1]);
	/* The empty word is a lone '%' (a '%' of the text is %25). */
	assert_int_equal(req.run.argc, 8);
	for (i = 0; i < 8; i++)
		assert_string_equal(req.run.argv[i], words[i]);
}

static void
test_client_run_errors(void **state)
{
	static const struct {
		const char *line, *want;
	} bad[] = {
		{ "RUN x", "usage: RUN" },
		{ "RUN x low", "no command" },
		{ "RUN x low --", "no command" },
		{ "RUN x low -d /tmp", "no command" },
		{ "RUN /bin/x low -- x", "bad executable name" },
		{ "RUN x soon -- x", "bad priority" },
		{ "RUN x low -q 1 -- x", "unknown option '-q'" },
		{ "RUN x low -d", "-d needs a value" },
		{ "RUN x low -d /a -d /b -- x", "-d given twice" },
		{ "RUN x low -d %zz -- x", "bad %-escape" },
		{ "RUN x low -- a%00b", "bad %-escape" },
		{ "RUN x low -t 0 -- x", "-t: a time limit" },
		{ "RUN x low -t 99999999999 -- x", "-t: a time limit" },
		{ "RUN x low -E noequals -- x", "NAME=value" },
		{ "RUN x low -E 1A%3Dx -- x", "NAME=value" },
		{ "RUN x low -O stdout%3Ax -- x", "neither file:PATH" },
		{ "RUN x low -O file%3A -- x", "neither file:PATH" },
		{ "RUN x low -d /a%0Ab -- x", "not printable" },
		{ "RUN x low -a " U1 " 0 -- x", "output number" },
		{ "RUN x low -A " U1 " 1", "-A needs" },
		{ "RUN x low -A " U1 " 1 -- x", "-A: an index" },
		{ "RUN x low -A nope 1 2 -- x", "malformed uuid" },
		{ "RUN x low -A " U1 " -1 2 -- x", "-A: an index" },
		{ "RUN x low -A " U1 " 1 2 -A " U1 " 2 2 -- x", "-A given twice" },
		{ "SCHEDULE free low -A " U1 " 1 9999999", "-A: an index" },
		{ "OUTPUT", "usage: OUTPUT" },
		{ "OUTPUT nope", "malformed uuid" },
		{ "OUTPUT " U1 " -x", "usage: OUTPUT" },
		{ "OUTPUT " U1 " -c -1", "usage: OUTPUT" },
	};
	char	line[CLIENT_LINE_MAX + 1];
	size_t	i, off;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (parse(bad[i].line) != -1)
			fail_msg("accepted: %s", bad[i].line);
		if (strstr(err, bad[i].want) == NULL)
			fail_msg("%s: '%s' does not say '%s'", bad[i].line,
			    err, bad[i].want);
	}
	/* More words than a command holds. */
	off = snprintf(line, sizeof line, "RUN x low --");
	for (i = 0; i <= CMD_ARGS_MAX; i++)
		off += snprintf(line + off, sizeof line - off, " w");
	assert_int_equal(parse(line), -1);
	assert_non_null(strstr(err, "more than 256 words"));
	assert_int_equal(parse("SCHEDULE free low -A " U2 " 7 3"), 0);
	assert_string_equal(req.array, U2);
	assert_int_equal(req.array_index, 7);
	assert_int_equal(req.array_max, 3);
	assert_int_equal(parse("OUTPUT " U1 " -e -f -c 4096"), 0);
	assert_true(req.out_stderr && req.out_follow);
	assert_int_equal(req.out_offset, 4096);
}

/* A command task's record keeps its argv exactly, in the journal and
 * in datagrams. */
static void
test_command_record_roundtrip(void **state)
{
	char		*words[] = { "sh", "-c", "echo \"a, b\"; exit 3", "",
			    "t\xc3\xa9\n=%" };
	char		*outs[] = { "file:r,{uuid}.csv" };
	char		*env[] = { "A=1=2" };
	char		*ins[] = { "0:" HASH ":empty",
			    "1048576:" HASH ":data/a, b.csv" };
	struct task_cmd	 c;
	struct task	*t, *u;
	char		 line[RECORD_LINE_MAX], line2[RECORD_LINE_MAX];
	char		 hash[DIGEST_HEX + 1];
	const char	*path;
	int64_t		 bytes;
	int		 len, i;

	memset(&c, 0, sizeof c);
	c.argc = 5;
	c.argv = words;
	c.nenv = 1;
	c.env = env;
	c.nouts = 1;
	c.outs = outs;
	c.cwd = "/srv/x y";
	c.err = "e.txt";
	c.time_limit_ms = 5000;
	c.nins = 2;
	c.ins = ins;
	c.in_dir = "/home/u/x y";
	t = task_new(U1, "sh", 0);
	assert_non_null(t->cmd = task_cmd_dup(&c));
	len = wire_task_encode(t, line, sizeof line);
	assert_true(len > 0);
	assert_null(strchr(line, '\n'));
	u = wire_task_decode(line, len, err, sizeof err);
	if (u == NULL)
		fail_msg("%s: %s", err, line);
	assert_non_null(u->cmd);
	assert_int_equal(u->cmd->argc, 5);
	for (i = 0; i < 5; i++)
		assert_string_equal(u->cmd->argv[i], words[i]);
	assert_string_equal(u->cmd->env[0], "A=1=2");
	assert_string_equal(u->cmd->outs[0], outs[0]);
	assert_string_equal(u->cmd->cwd, "/srv/x y");
	assert_null(u->cmd->out);
	assert_string_equal(u->cmd->err, "e.txt");
	assert_int_equal(u->cmd->time_limit_ms, 5000);
	assert_int_equal(u->cmd->nins, 2);
	assert_int_equal(task_cmd_in_parse(u->cmd->ins[1], &bytes, hash,
	    &path), 0);
	assert_int_equal(bytes, 1048576);
	assert_string_equal(hash, HASH);
	assert_string_equal(path, "data/a, b.csv");
	assert_string_equal(u->cmd->in_dir, "/home/u/x y");
	assert_true(task_same_origin(t, u));
	assert_int_equal(wire_task_encode(u, line2, sizeof line2), len);
	assert_string_equal(line, line2);
	/* A described task's record has no command. */
	task_cmd_free(t->cmd);
	t->cmd = NULL;
	len = wire_task_encode(t, line, sizeof line);
	task_free(u);
	assert_non_null(u = wire_task_decode(line, len, err, sizeof err));
	assert_null(u->cmd);
	task_free(t);
	task_free(u);
}

static void
test_command_record_rejects_garbage(void **state)
{
	static const char *bad[] = {
		"v=1 id=" U1 " exec=x env=A%3D1",	/* no cmd= */
		"v=1 id=" U1 " exec=x cmd=",		/* no program */
		"v=1 id=" U1 " exec=x cmd=a%00",
		"v=1 id=" U1 " exec=x cmd=a%zz",
		"v=1 id=" U1 " exec=x cmd=a env=noequals",
		"v=1 id=" U1 " exec=x cmd=a outs=tty%3Ax",
		"v=1 id=" U1 " exec=x cmd=a tl=0",
		"v=1 id=" U1 " exec=x cmd=a tl=-5",
		"v=1 id=" U1 " exec=x cmd=a cwd=%2Fa%0Ab",
		"v=1 id=" U1 " exec=x cmd=a so=",
		"v=1 id=" U1 " exec=x cmd=a tl=99999999999999",
		/* Input files: a size, a hash, a path inside the run dir,
		 * and the absolute directory they are in. */
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":a",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":a ind=w",
		"v=1 id=" U1 " exec=x cmd=a ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH " ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ": ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=:" HASH ":a ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=01:" HASH ":a ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=-1:" HASH ":a ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1099511627777:" HASH ":a ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":%2Fetc%2Fpasswd ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":..%2Fa ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":a%2F..%2F..%2Fb ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":a%2F%2Fb ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":.%2Fa ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":a%2F ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH ":a%0Ab ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:0123456789ABCDEF:a ind=%2Fw",
		"v=1 id=" U1 " exec=x cmd=a ins=1:" HASH "ff:a ind=%2Fw",
	};
	char	line[RECORD_LINE_MAX];
	size_t	i, off;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct task *t = wire_task_decode(bad[i], strlen(bad[i]), err,
		    sizeof err);
		if (t != NULL)
			fail_msg("accepted record: %s", bad[i]);
	}
	/* More input files than a record may hold. */
	off = snprintf(line, sizeof line, "v=1 id=" U1 " exec=x cmd=a "
	    "ind=%%2Fw ins=");
	for (i = 0; i <= CMD_INS_TEXT_MAX / 68; i++)
		off += snprintf(line + off, sizeof line - off, "%s1:%s:f%zu",
		    i > 0 ? "," : "", HASH, i);
	assert_null(wire_task_decode(line, off, err, sizeof err));
	/* More words than a command may have. */
	off = snprintf(line, sizeof line, "v=1 id=" U1 " exec=x cmd=a");
	for (i = 0; i < CMD_ARGS_MAX; i++)
		off += snprintf(line + off, sizeof line - off, ",w");
	assert_null(wire_task_decode(line, off, err, sizeof err));
}

/* m as a datagram of n1's, parsed into back. */
static void
round_trip(const struct peer_msg *m, struct peer_msg *back)
{
	static char	text[DATAGRAM_MAX + 128], body[DATAGRAM_MAX];
	int		hl;

	assert_true(peer_encode(m, body, sizeof body) > 0);
	hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
	snprintf(text + hl, sizeof text - hl, "%s", body);
	assert_int_equal(peer_parse(text, strlen(text), back, err,
	    sizeof err), 0);
}

/* TASKS_TRANSFER asks for all, or for what differs by bucket digests,
 * or says which buckets to send: each of its one length, in hex. */
static void
test_a_transfer_asks_for_all_or_for_buckets(void **state)
{
	struct peer_msg	*m = malloc(sizeof *m), *back = malloc(sizeof *back);
	char		 hex[PEER_BUCKETS * 16 + 2], text[DATAGRAM_MAX + 128];
	const char	*bad[] = { "ask", "send", "ask 12", "give %.64s",
			    "send %.63s", "send %.65s", "send %.64s 0",
			    "ask %.4095s", "ask %.4097s", "send %.62sgg",
			    "ask %.64s" };
	size_t		 i;
	int		 hl;

	assert_non_null(m);
	assert_non_null(back);
	memset(hex, '0', sizeof hex - 1);
	hex[sizeof hex - 1] = '\0';
	hex[7] = 'A';
	for (i = 0; i < 3; i++) {
		peer_msg_init(m, PEER_TASKS_TRANSFER);
		m->transfer = (int)i;
		m->record = hex;
		m->record_len = i == PEER_TRANSFER_ASK ? PEER_BUCKETS * 16 :
		    PEER_BUCKETS / 4;
		round_trip(m, back);
		assert_int_equal(back->transfer, (int)i);
		if (i != PEER_TRANSFER_ALL)
			assert_memory_equal(back->record, hex, m->record_len);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
		hl += snprintf(text + hl, sizeof text - hl, "TASKS_TRANSFER ");
		snprintf(text + hl, sizeof text - hl, bad[i], hex);
		if (peer_parse(text, strlen(text), back, err, sizeof err) == 0)
			fail_msg("accepted datagram: %s", text + hl);
	}
	free(m);
	free(back);
}

/* A list: entries of a uuid and 16 hex digits, PEER_LIST_MAX at most,
 * back as they went; anything else of it is refused. */
static void
test_a_transfer_list_carries_uuids_and_shares(void **state)
{
	struct peer_msg	*m = malloc(sizeof *m), *back = malloc(sizeof *back);
	static char	 list[(PEER_LIST_MAX + 1) * PEER_LIST_ENTRY + 1];
	char		 text[DATAGRAM_MAX + 128];
	static const char *bad[] = {
	    "list", "list " U1,
	    "list " U1 "0123456789abcde",
	    "list " U1 "0123456789abcdefa",
	    "list " U1 "0123456789abcdeg",
	    "list 00000000x0000-4000-8000-0000000000010123456789abcdef",
	    "list " U1 "0123456789abcdef x" };
	size_t		 i;
	int		 hl;

	(void)state;
	assert_non_null(m);
	assert_non_null(back);
	for (i = 0; i <= PEER_LIST_MAX; i++)
		snprintf(list + i * PEER_LIST_ENTRY, PEER_LIST_ENTRY + 1,
		    "%s%016zx", U1, i);
	peer_msg_init(m, PEER_TASKS_TRANSFER);
	m->transfer = PEER_TRANSFER_LIST;
	m->record = list;
	m->record_len = PEER_LIST_MAX * PEER_LIST_ENTRY;
	round_trip(m, back);
	assert_int_equal(back->transfer, PEER_TRANSFER_LIST);
	assert_int_equal(back->record_len, m->record_len);
	assert_memory_equal(back->record, list, m->record_len);
	/* One entry more than a list holds. */
	hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
	snprintf(text + hl, sizeof text - hl, "TASKS_TRANSFER list %s", list);
	assert_int_equal(peer_parse(text, strlen(text), back, err,
	    sizeof err), -1);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
		snprintf(text + hl, sizeof text - hl, "TASKS_TRANSFER %s",
		    bad[i]);
		if (peer_parse(text, strlen(text), back, err, sizeof err) == 0)
			fail_msg("accepted datagram: %s", text + hl);
	}
	free(m);
	free(back);
}

/* A proposer's ask to every voter is a STATE marked "again": the mark
 * goes and comes back, only a STATE carries it, and the record is the
 * same. */
static void
test_a_state_may_ask_every_voter(void **state)
{
	struct peer_msg	*m = malloc(sizeof *m), *back = malloc(sizeof *back);
	char		 text[DATAGRAM_MAX + 128];
	const char	*rec = "v=1 id=" U1 " exec=x";
	int		 again, hl;

	assert_non_null(m);
	assert_non_null(back);
	for (again = 0; again < 2; again++) {
		peer_msg_init(m, PEER_STATE);
		m->again = again;
		m->record = rec;
		m->record_len = strlen(rec);
		round_trip(m, back);
		assert_int_equal(back->again, again);
		assert_string_equal(back->record, rec);
	}
	/* A VOTE "again" is a record that starts with "again". */
	hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
	snprintf(text + hl, sizeof text - hl, "VOTE again %s", rec);
	assert_int_equal(peer_parse(text, strlen(text), back, err, sizeof err),
	    0);
	assert_int_equal(back->again, 0);
	assert_string_equal(back->record, "again v=1 id=" U1 " exec=x");
	/* "again" alone carries no record. */
	hl = peer_header(text, sizeof text, "c", "n1", 1, 7000);
	snprintf(text + hl, sizeof text - hl, "STATE again ");
	assert_int_not_equal(peer_parse(text, strlen(text), back, err,
	    sizeof err), 0);
	free(m);
	free(back);
}

/* A sleeper's wake= address: a MAC, '@', an IPv4 broadcast address,
 * maybe ",always"; anything else refuses the whole heartbeat. */
static void
test_wake_address(void **state)
{
	static const char *good[] = {
		"02:00:5e:10:00:0b@10.213.4.255",
		"AA:bb:CC:dd:EE:ff@255.255.255.255,always",
		"00:11:22:33:44:55@0.0.0.0",
	};
	static const char *bad[] = {
		"", "02:00:5e:10:00:0b", "02:00:5e:10:00:0b@",
		"02:00:5e:10:00@10.0.0.255", "02-00-5e-10-00-0b@10.0.0.255",
		"02:00:5e:10:00:0g@10.0.0.255", "02:00:5e:10:00:0b@10.0.0",
		"02:00:5e:10:00:0b@10.0.0.256", "02:00:5e:10:00:0b@10.0.0.2555",
		"02:00:5e:10:00:0b@10..0.255", "02:00:5e:10:00:0b@10.0.0.255,",
		"02:00:5e:10:00:0b@10.0.0.255,often", "02:00:5e:10:00:0b@10.0.0.255 ",
	};
	struct peer_msg	*m = malloc(sizeof *m);
	char		 line[256];
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		assert_true(peer_wake_valid(good[i]));
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_false(peer_wake_valid(bad[i]));
	snprintf(line, sizeof line, "VOLERY/1 c a 1 7000 HEARTBEAT 0 1 0 1 "
	    "asleep 10 0 0 7600 1000 0 0 500 window=0,60 wake=%s", good[1]);
	assert_int_equal(peer_parse(line, strlen(line), m, err, sizeof err), 0);
	assert_string_equal(m->wake, good[1]);
	assert_int_equal(m->window_s, 60);
	snprintf(line, sizeof line, "VOLERY/1 c a 1 7000 HEARTBEAT 0 1 0 1 "
	    "asleep 10 0 0 7600 1000 0 0 500 wake=%s", bad[7]);
	assert_int_equal(peer_parse(line, strlen(line), m, err, sizeof err),
	    -1);
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_schedule),
		cmocka_unit_test(test_client_errors),
		cmocka_unit_test(test_client_run),
		cmocka_unit_test(test_progress_tells_the_array),
		cmocka_unit_test(test_client_run_errors),
		cmocka_unit_test(test_command_record_roundtrip),
		cmocka_unit_test(test_command_record_rejects_garbage),
		cmocka_unit_test(test_client_line_limit),
		cmocka_unit_test(test_runner_lines),
		cmocka_unit_test(test_task_record_roundtrip),
		cmocka_unit_test(test_a_state_may_ask_every_voter),
		cmocka_unit_test(test_accounting_record_roundtrip),
		cmocka_unit_test(test_client_account),
		cmocka_unit_test(test_host_and_port),
		cmocka_unit_test(test_wake_address),
		cmocka_unit_test(test_progress_line_roundtrip),
		cmocka_unit_test(test_progress_eta),
		cmocka_unit_test(test_task_record_rejects_garbage),
		cmocka_unit_test(test_record_framing),
		cmocka_unit_test(test_numbers_mean_the_same_in_every_codec),
		cmocka_unit_test(test_a_transfer_asks_for_all_or_for_buckets),
		cmocka_unit_test(test_a_transfer_list_carries_uuids_and_shares),
		cmocka_unit_test(test_help_comes_from_the_command_table),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
