/*
 * fuzz_peer.c -- libFuzzer: any bytes as a datagram from a peer.  What
 * parses has a valid header, and a record, if any, lies inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "task.h"
#include "wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct peer_msg	m;
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
	return 0;
}
