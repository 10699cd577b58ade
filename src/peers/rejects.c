/*
 * rejects.c -- the datagrams a node drops, counted and told (rejects.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "bounds.h"
#include "clock.h"
#include "log.h"
#include "ratelimit.h"
#include "rejects.h"

static const char *reject_names[REJ_N] = {
	"oversized", "not sealed", "sealed, but this node runs <insecure/>",
	"sealed with an unknown key", "forged, damaged or not for us",
	"malformed",
	"of another cluster", "header and text disagree",
	"our own name, another incarnation", "replayed", "stale",
	"from an old incarnation", "a name bound to another address",
	"too many senders", "stamped too far from our clock",
	"no node identity", "from a node whose certificate we have not heard",
	"a certificate the admin did not sign", "an expired certificate",
	"a revoked certificate", "a forged identity",
	"from a node that does not know us yet",
	"a reputation over its certificate's",
};

static struct {
	uint64_t	rejected[REJ_N];
	char		last_from[REJ_N][ADDR_MAXLEN + 1];
	int64_t		last_log_ms;
	uint64_t	unlogged;
} r;

void
reject(enum reject why, const char *from, const char *detail)
{
	int64_t	now = clock_node_ms();

	r.rejected[why]++;
	snprintf(r.last_from[why], sizeof r.last_from[why], "%s", from);
	log_debug("peer datagram from %s dropped: %s%s%s", from,
	    reject_names[why], detail[0] != '\0' ? ": " : "", detail);
	/* A node that joins is not known, or knows no one, for a heartbeat:
	 * counted, not an alarm. */
	if (why == REJ_UNKNOWN_SENDER || why == REJ_NOT_KNOWN_YET)
		return;
	if (!ratelimit_due(&r.last_log_ms, now)) {
		r.unlogged++;
		return;
	}
	log_warnx("peer datagram from %s dropped: %s%s%s (%" PRIu64 " more "
	    "dropped since the last report)", from, reject_names[why],
	    detail[0] != '\0' ? ": " : "", detail, r.unlogged);
	r.unlogged = 0;
}

void
rejects_each(void (*cb)(const char *why, uint64_t count,
    const char *last_from, void *), void *arg)
{
	int	i;

	for (i = 0; i < REJ_N; i++)
		if (r.rejected[i] > 0)
			cb(reject_names[i], r.rejected[i], r.last_from[i], arg);
}

