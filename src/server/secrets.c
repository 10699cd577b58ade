/*
 * secrets.c -- --secret-env values, from the taker to the runner only
 * (secrets.h).  libsodium seals them (crypto_box_seal to the runner's
 * X25519 key, converted from its Ed25519 identity).
 */
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <sodium.h>

#include "clock.h"
#include "identity.h"
#include "log.h"
#include "node.h"
#include "peer.h"
#include "peers.h"
#include "secrets.h"
#include "task.h"

#define ASK_EVERY_MS	1000	/* a lost datagram is asked again */
#define ASK_TIMES	5	/* then the attempt fails */
/* uuid, NUL, the words each with its NUL */
#define PLAIN_MAX	(UUID_STRLEN + 1 + CMD_SECRET_TEXT_MAX)
#define BOX_MAX		(PLAIN_MAX + crypto_box_SEALBYTES)

struct asking {
	TAILQ_ENTRY(asking)	 entry;
	char			 uuid[UUID_STRLEN + 1];
	char			 taker[NAME_MAXLEN + 1];
	int			 times;
	struct event		*ev;
};

static struct {
	struct event_base	*base;
	struct node		*core;
	char			 dir[4096];
	secrets_cb		 ready;
	TAILQ_HEAD(, asking)	 asking;
} sec = { .asking = TAILQ_HEAD_INITIALIZER(sec.asking) };

int
secrets_open(struct event_base *base, struct node *core,
    const char *state_dir, secrets_cb ready, char *err, size_t errlen)
{
	sec.base = base;
	sec.core = core;
	sec.ready = ready;
	snprintf(sec.dir, sizeof sec.dir, "%s/secrets", state_dir);
	if (mkdir(sec.dir, 0700) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", sec.dir, strerror(errno));
		return -1;
	}
	return 0;
}

static void
asking_free(struct asking *a)
{
	TAILQ_REMOVE(&sec.asking, a, entry);
	event_free(a->ev);
	free(a);
}

void
secrets_close(void)
{
	while (!TAILQ_EMPTY(&sec.asking))
		asking_free(TAILQ_FIRST(&sec.asking));
}

static int
path_of(const char *uuid, char *path, size_t size)
{
	return snprintf(path, size, "%s/%s", sec.dir, uuid) < (int)size &&
	    strspn(uuid, "0123456789abcdef-") == strlen(uuid) ? 0 : -1;
}

int
secrets_keep(const char *uuid, char *const *kv, int n, char *err,
    size_t errlen)
{
	char	path[4200];
	int	fd, i, ok = 1;

	if (path_of(uuid, path, sizeof path) == -1 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
	    0600)) == -1) {
		snprintf(err, errlen, "cannot keep its secrets in %s: %s",
		    sec.dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < n && ok; i++)
		ok = write(fd, kv[i], strlen(kv[i]) + 1) ==
		    (ssize_t)strlen(kv[i]) + 1;
	if (!ok || fsync(fd) == -1) {
		snprintf(err, errlen, "cannot write its secrets in %s: %s",
		    sec.dir, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

void
secrets_forget(const char *uuid)
{
	char	path[4200];

	if (path_of(uuid, path, sizeof path) == 0 && unlink(path) == -1 &&
	    errno != ENOENT)
		log_warn("cannot remove %s", path);
}

/* uuid's kept values into buf as uuid NUL words; their length, or -1. */
static ssize_t
load(const char *uuid, char *buf, size_t size)
{
	char	path[4200];
	size_t	head = strlen(uuid) + 1;
	ssize_t	n;
	int	fd;

	if (path_of(uuid, path, sizeof path) == -1 ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW)) == -1)
		return -1;
	memcpy(buf, uuid, head);
	n = read(fd, buf + head, size - head - 1);
	close(fd);
	return n < 0 ? -1 : (ssize_t)head + n;
}

/* The words after the uuid in plain (len bytes, NUL-ended) to ready(). */
static void
hand_over(const char *uuid, char *plain, size_t len)
{
	char	*kv[CMD_SECRETS_MAX + 1], *p = plain + strlen(plain) + 1;
	int	 n = 0;

	while (p < plain + len && n < CMD_SECRETS_MAX) {
		kv[n++] = p;
		p += strlen(p) + 1;
	}
	kv[n] = NULL;
	sec.ready(uuid, kv, NULL);
}

static void
ask(struct asking *a)
{
	char		 body[64 + UUID_STRLEN];
	const char	*addr = node_peer_addr(sec.core, a->taker, 0);
	struct timeval	 tv = { ASK_EVERY_MS / 1000, 0 };

	snprintf(body, sizeof body, "SECRET_WANTED %s", a->uuid);
	if (addr != NULL)
		peers_unicast(a->taker, addr, body);
	event_add(a->ev, &tv);
}

static void
ask_again(evutil_socket_t fd, short what, void *arg)
{
	struct asking	*a = arg;
	char		 why[128 + NAME_MAXLEN], uuid[UUID_STRLEN + 1];

	(void)fd;
	(void)what;
	if (++a->times < ASK_TIMES) {
		ask(a);
		return;
	}
	snprintf(why, sizeof why, "node %s, which took it, did not give its "
	    "secret variables", a->taker);
	memcpy(uuid, a->uuid, sizeof uuid);
	asking_free(a);
	sec.ready(uuid, NULL, why);
}

void
secrets_fetch(const struct task *t)
{
	static char	 plain[PLAIN_MAX + 1];
	struct asking	*a;
	ssize_t		 n;

	if (strcmp(t->scheduled_by, node_name(sec.core)) == 0) {
		if ((n = load(t->uuid, plain, sizeof plain)) == -1)
			sec.ready(t->uuid, NULL, "its secret variables are "
			    "not kept here any more");
		else
			hand_over(t->uuid, plain, (size_t)n);
		sodium_memzero(plain, sizeof plain);
		return;
	}
	/* Asked already (an attempt stopped while we waited): again. */
	TAILQ_FOREACH(a, &sec.asking, entry)
		if (strcmp(a->uuid, t->uuid) == 0) {
			a->times = 0;
			snprintf(a->taker, sizeof a->taker, "%s",
			    t->scheduled_by);
			event_del(a->ev);
			ask(a);
			return;
		}
	if ((a = calloc(1, sizeof *a)) == NULL ||
	    (a->ev = evtimer_new(sec.base, ask_again, a)) == NULL) {
		free(a);
		sec.ready(t->uuid, NULL, "out of memory");
		return;
	}
	memcpy(a->uuid, t->uuid, sizeof a->uuid);
	snprintf(a->taker, sizeof a->taker, "%s", t->scheduled_by);
	TAILQ_INSERT_TAIL(&sec.asking, a, entry);
	ask(a);
}

/* The taker: the values, sealed to the node we hold as running it. */
static void
answer(const struct peer_msg *m, const char *addr)
{
	static char		 plain[PLAIN_MAX + 1];
	static uint8_t		 box[BOX_MAX];
	static char		 body[16 + UUID_STRLEN + BOX_MAX * 4 / 3 + 8];
	const struct task	*t;
	const uint8_t		*ed;
	uint8_t			 pk[crypto_box_PUBLICKEYBYTES];
	char			 uuid[UUID_STRLEN + 1];
	ssize_t			 n;
	int			 k;

	snprintf(uuid, sizeof uuid, "%.*s", (int)m->record_len, m->record);
	if ((t = node_find(sec.core, uuid)) == NULL ||
	    strcmp(t->scheduled_by, node_name(sec.core)) != 0 ||
	    t->state != TASK_RUNNING || strcmp(t->running_on, m->sender) != 0 ||
	    (ed = identity_peer_pk(m->sender)) == NULL ||
	    crypto_sign_ed25519_pk_to_curve25519(pk, ed) != 0) {
		log_msg(VLOG_WARNING, "node %s asked the secret variables of "
		    "task %s, which it does not run: not given", m->sender,
		    uuid);
		return;
	}
	if ((n = load(uuid, plain, sizeof plain)) == -1) {
		log_warnx("Task UUID{%s}: its secret variables are not kept "
		    "here any more", uuid);
		return;
	}
	crypto_box_seal(box, (const uint8_t *)plain, (size_t)n, pk);
	sodium_memzero(plain, sizeof plain);
	k = snprintf(body, sizeof body, "SECRET %s ", uuid);
	sodium_bin2base64(body + k, sizeof body - k, box,
	    (size_t)n + crypto_box_SEALBYTES,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	peers_unicast(m->sender, addr, body);
}

/* The runner: the taker's answer, opened with our key. */
static void
take(const struct peer_msg *m)
{
	static uint8_t	 box[BOX_MAX];
	static char	 plain[PLAIN_MAX + 1];
	const uint8_t	*sk = identity_signing_key();
	uint8_t		 cpk[crypto_box_PUBLICKEYBYTES];
	uint8_t		 csk[crypto_box_SECRETKEYBYTES];
	const char	*sp = memchr(m->record, ' ', m->record_len);
	struct asking	*a;
	size_t		 len;
	char		 uuid[UUID_STRLEN + 1];

	if (sp == NULL || sp - m->record != UUID_STRLEN || sk == NULL)
		return;
	memcpy(uuid, m->record, UUID_STRLEN);
	uuid[UUID_STRLEN] = '\0';
	TAILQ_FOREACH(a, &sec.asking, entry)
		if (strcmp(a->uuid, uuid) == 0 &&
		    strcmp(a->taker, m->sender) == 0)
			break;
	if (a == NULL)
		return;		/* not asked, or answered already */
	if (sodium_base642bin(box, sizeof box, sp + 1,
	    m->record_len - UUID_STRLEN - 1, NULL, &len, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    len < crypto_box_SEALBYTES + UUID_STRLEN + 1 ||
	    crypto_sign_ed25519_pk_to_curve25519(cpk, sk + 32) != 0 ||
	    crypto_sign_ed25519_sk_to_curve25519(csk, sk) != 0 ||
	    crypto_box_seal_open((uint8_t *)plain, box, len, cpk, csk) != 0 ||
	    memcmp(plain, uuid, UUID_STRLEN + 1) != 0) {
		sodium_memzero(csk, sizeof csk);
		log_warnx("node %s's secret variables for task %s do not "
		    "open: dropped", m->sender, uuid);
		return;
	}
	sodium_memzero(csk, sizeof csk);
	len -= crypto_box_SEALBYTES;
	plain[len] = '\0';
	asking_free(a);
	hand_over(uuid, plain, len);
	sodium_memzero(plain, sizeof plain);
}

void
secrets_recv(const struct peer_msg *m, const char *addr)
{
	if (m->type == PEER_SECRET_WANTED)
		answer(m, addr);
	else
		take(m);
}
