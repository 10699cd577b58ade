/*
 * fuzz_peer.c -- libFuzzer: any bytes as a datagram from a peer.  What
 * parses has a valid header, and a record, if any, lies inside the input;
 * encoded again (peer_encode, what the core sends) it parses to the same
 * message (a sleeper's wake= address too).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "task.h"
#include "wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Encode m's body behind a header and parse it back into m2. */
static void
round_trip(const struct peer_msg *m, struct peer_msg *m2)
{
	static char	text[DATAGRAM_MAX + 1];
	char		err[160];
	int		hl, bl;

	hl = peer_header(text, sizeof text, m->cluster, m->sender,
	    m->incarnation, m->reply_port);
	if (hl == -1)
		abort();
	if ((bl = peer_encode(m, text + hl, sizeof text - hl)) == -1)
		return;		/* a longer header than the input's */
	if (peer_parse(text, hl + bl, m2, err, sizeof err) == -1)
		abort();
	if (m2->type != m->type || strcmp(m2->uuid, m->uuid) != 0 ||
	    m2->timestamp != m->timestamp || m2->epoch != m->epoch ||
	    m2->master != m->master || m2->free != m->free ||
	    m2->slots != m->slots || strcmp(m2->volunteer, m->volunteer) != 0 ||
	    m2->reputation != m->reputation || m2->map_size != m->map_size ||
	    m2->digest != m->digest || m2->client_port != m->client_port ||
	    m2->percent != m->percent || m2->ver != m->ver ||
	    m2->record_len != m->record_len || (m->record != NULL &&
	    memcmp(m2->record, m->record, m->record_len) != 0) ||
	    m2->transfer != m->transfer ||
	    m2->cores != m->cores || m2->memory_mb != m->memory_mb ||
	    (m->cores > 0 && (strcmp(m2->tags, m->tags) != 0 ||
	    strcmp(m2->execs, m->execs) != 0)) ||
	    m2->window_in_s != m->window_in_s || m2->window_s != m->window_s ||
	    (m->wake == NULL) != (m2->wake == NULL) ||
	    (m->wake != NULL && strcmp(m->wake, m2->wake) != 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct peer_msg	m, m2;
	char			err[160];
	struct task		*t;

	if (peer_parse((const char *)data, size, &m, err, sizeof err) == -1)
		return 0;
	if (!task_name_valid(m.cluster) || !task_name_valid(m.sender) ||
	    m.reply_port < 1 || m.reply_port > 65535)
		abort();
	if (m.record != NULL) {
		if (m.record < m.buf || m.record + m.record_len >
		    m.buf + sizeof m.buf)
			abort();
		if ((t = wire_task_decode(m.record, m.record_len, err,
		    sizeof err)) != NULL)
			task_free(t);
	}
	round_trip(&m, &m2);
	return 0;
}
