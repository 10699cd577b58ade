/*
 * rejects.h -- the datagrams a node drops (peers.c): why, how many, the
 * last one's source.  Counted always, shown by NODES, logged at most once
 * per RATELIMIT_MS with the number left unsaid (a flood writes one line).
 */
#ifndef VOLERY_REJECTS_H
#define VOLERY_REJECTS_H

#include <stdint.h>

/* Why a datagram was dropped: counted, and shown by NODES. */
enum reject {
	REJ_OVERSIZED, REJ_UNSEALED, REJ_SEALED_INSECURE, REJ_UNKNOWN_KEY,
	REJ_FORGED, REJ_MALFORMED, REJ_FOREIGN, REJ_MISMATCH, REJ_NAME_CLASH,
	REJ_REPLAYED, REJ_STALE, REJ_OLD_INCARNATION, REJ_IMPOSTOR, REJ_FULL,
	REJ_SKEWED,
	/* identity.c's verdicts, in its order after IDV_OK */
	REJ_NO_IDENTITY, REJ_UNKNOWN_SENDER, REJ_UNCERTIFIED, REJ_EXPIRED,
	REJ_REVOKED, REJ_FORGED_IDENTITY, REJ_NOT_KNOWN_YET,
	REJ_OVER_CAP,
};
#define REJ_N 23

void	reject(enum reject why, const char *from, const char *detail);
/* Datagrams dropped so far, by reason, with the last one's source. */
void	rejects_each(void (*)(const char *why, uint64_t count,
	    const char *last_from, void *), void *);

#endif
