/*
 * fuzz_quorum.c -- libFuzzer: any bytes as the record of a STATE from a
 * certified peer, to a node with identities (quorum.c, authorship.c).
 * Whatever it says of its end and certificate, the node neither crashes
 * nor leaks, and tells an end final (node_certify) only with a
 * certificate found to hold.  The nodes' keys are the simulator's
 * (n00..n03, test/sim/liar.c), so a seed from a kept -F trace carries
 * signatures that verify.  The same bytes, as the quarantine file a
 * restart reads back (retry.c), quarantine the node only until a time
 * to come, no longer than a quarantine lasts; as the stay file
 * (placement.c), they are learned whole or not at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium/crypto_sign.h>

#include "node.h"
#include "peer.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

#define NKEYS	4

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static uint8_t	pk[NKEYS][crypto_sign_PUBLICKEYBYTES];
static uint8_t	sk[NKEYS][crypto_sign_SECRETKEYBYTES];

static void
keys(void)
{
	uint8_t	seed[crypto_sign_SEEDBYTES];
	int	i;

	for (i = 0; i < NKEYS; i++) {
		memset(seed, 0, sizeof seed);
		memcpy(seed, &i, sizeof i);
		seed[31] = 0x1d;
		crypto_sign_seed_keypair(pk[i], sk[i], seed);
	}
}

/* body from sender, through the real parser, to n. */
static void
hear(struct node *n, const char *sender, const char *body, size_t len)
{
	static char		text[DATAGRAM_MAX + 1];
	static struct peer_msg	m;
	char			err[160];
	int			hl;

	hl = peer_header(text, sizeof text, "fz", sender, 1, 7000);
	if (hl < 0 || (size_t)hl + len >= sizeof text)
		return;
	memcpy(text + hl, body, len);
	if (peer_parse(text, (size_t)hl + len, &m, err, sizeof err) == 0)
		node_peer_msg(n, &m, "10.0.0.9:7000", 1700000000500LL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int		 ready;
	static char		 body[DATAGRAM_MAX];
	static struct taskdesc_set descs;	/* none: command tasks only */
	struct node_config	 cfg;
	struct node		*n;
	const struct task	*t;
	size_t			 it = 0;
	char			 name[8];
	int			 i;

	if (!ready) {
		keys();
		ready = 1;
	}
	if (size + 6 >= sizeof body)
		return 0;
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "n00");
	cfg.sign_sk = sk[0];
	if ((n = node_new(&cfg, &descs)) == NULL)
		abort();
	for (i = 0; i < NKEYS; i++) {
		snprintf(name, sizeof name, "n%02d", i);
		node_peer_key(n, name, pk[i], 1700000000000LL);
	}
	node_start(n, 1700000000000LL);
	for (i = 1; i < NKEYS; i++) {
		snprintf(name, sizeof name, "n%02d", i);
		snprintf(body, sizeof body, "HEARTBEAT 0 0 1 1 idle 10 0 0 "
		    "7600 1000 0 1700000000100 500");
		hear(n, name, body, strlen(body));
	}
	memcpy(body, "STATE ", 6);
	memcpy(body + 6, data, size);
	hear(n, "n02", body, size + 6);
	while ((t = node_next_task(n, &it)) != NULL) {
		int final = node_certify(n, t->uuid, 1700000000600LL);
		if (t->confirmed && (!final || t->qc_ok < 1))
			abort();	/* told final without a good certificate */
	}
	body[6 + size] = '\0';
	if (node_quarantine_restore(n, body + 6, 1700000000700LL) == 0) {
		struct node_status st;
		node_status(n, &st);
		if (st.quarantine_until <= 1700000000700LL ||
		    st.quarantine_until > 1700000000700LL + cfg.quarantine_ms ||
		    strlen(st.quarantine_why) > REASON_MAXLEN)
			abort();
	}
	i = node_stay_restore(n, body + 6, 1700000000650LL, 1700000000700LL);
	if (i != 0 && i != -1)
		abort();
	outbox_clear(node_outbox(n));
	node_free(n);
	return 0;
}
